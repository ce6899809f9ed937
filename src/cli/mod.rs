//! The `runstart` command line: argument parsing and printing only. Every subcommand lives in
//! its own file and calls the library.

mod plan;
mod protocol;
mod resolve;
mod route;
mod template;
mod validate;

use clap::{Parser, Subcommand};
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status: no errors found.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: the input has problems.
pub const EXIT_PROBLEMS: u8 = 1;
/// Exit status: usage or I/O error.
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "runstart",
    version,
    about = "Validate Kindgi pack indexes, resolve tool ranges, route capabilities and prepare runs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate one or more pack indexes (index.json) and report every problem.
    Validate(validate::Args),
    /// Route a capability to a provider and model (prints the decision or the error as JSON).
    Route(route::Args),
    /// Prepare a run: resolve an agent's tools, guardrails and blocks, route its capabilities
    /// and render its instructions; print the plan as JSON.
    Plan(plan::Args),
    /// Resolve tool references (npm ranges) against the tools of pack indexes.
    Resolve(resolve::Args),
    /// Parse a Liquid template: print the variables it reads and the problems found.
    Template(template::Args),
    /// Pack protocol v2: check a service's /v1/info against an index, validate a message.
    Protocol(protocol::Args),
}

/// Output format shared by the subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    /// One line per issue.
    #[default]
    Human,
    /// Machine-readable JSON.
    Json,
}

/// Parses the arguments, runs the subcommand and maps the outcome to an exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_CLEAN
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = match cli.command {
        Command::Validate(args) => validate::run(args, &mut out),
        Command::Route(args) => route::run(args, &mut out),
        Command::Resolve(args) => resolve::run(args, &mut out),
        Command::Plan(args) => plan::run(args, &mut out),
        Command::Template(args) => template::run(args, &mut out),
        Command::Protocol(args) => protocol::run(args, &mut out),
    };
    let code = match result {
        Ok(code) => code,
        Err(CliError::BrokenPipe) => EXIT_CLEAN,
        Err(CliError::Usage(msg)) => {
            let _ = writeln!(io::stderr(), "runstart: {msg}");
            EXIT_USAGE
        }
    };
    let _ = out.flush();
    ExitCode::from(code)
}

/// Why a subcommand could not finish.
#[derive(Debug)]
pub enum CliError {
    /// stdout was closed (e.g. piped into `head`): not an error.
    BrokenPipe,
    /// Usage or I/O problem, reported on stderr with exit status 2.
    Usage(String),
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Usage(e.to_string())
        }
    }
}

/// Writes `value` as pretty JSON and a newline; a closed stdout is [`CliError::BrokenPipe`].
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(io::ErrorKind::BrokenPipe) => CliError::BrokenPipe,
        _ => CliError::Usage(e.to_string()),
    })?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Reads and loads a pack index for the commands that use its entries (`resolve`, `plan`).
///
/// A file that cannot be read, or whose envelope is unusable, is a usage error (exit 2) naming
/// the first problem; `runstart validate` reports everything.
pub fn load_index_file(path: &std::path::Path) -> Result<runstart::index::PackIndex, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    let loaded = runstart::index::load(&bytes);
    loaded.index.ok_or_else(|| {
        let why = loaded
            .report
            .issues()
            .first()
            .map(|i| i.message().to_owned())
            .unwrap_or_default();
        CliError::Usage(format!(
            "{} is not a usable pack index: {why}",
            path.display()
        ))
    })
}
