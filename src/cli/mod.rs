//! The `runstart` command line: argument parsing and printing only. Every subcommand lives in
//! its own file and calls the library.

mod fmt;
mod jsonl;
mod plan;
mod protocol;
mod resolve;
mod route;
mod sarif;
mod template;
mod validate;

use clap::{Parser, Subcommand};
use runstart::diagnostics::{Report, render};
use serde_json::json;
use std::io::{self, Write};
use std::path::Path;
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
    about = "Validate Kindgi pack indexes, resolve tool ranges, route capabilities and prepare runs",
    after_help = "Examples:\n  runstart validate fixtures/packs/support-desk/index.json\n  runstart plan fixtures/packs/support-desk/index.json --providers fixtures/providers.json --agent support.escalation-writer --param ticketId=T-17\n\nExit status: 0 clean, 1 problems found, 2 usage, input or I/O error (output to a closed pipe exits 0)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate one or more pack indexes (index.json) and report every problem.
    #[command(after_help = validate::HELP)]
    Validate(validate::Args),
    /// Rewrite pack indexes in canonical form (what `non-canonical-index` asks for), or check it.
    #[command(after_help = fmt::HELP)]
    Fmt(fmt::Args),
    /// Route a capability to a provider and model.
    #[command(after_help = route::HELP)]
    Route(route::Args),
    /// Prepare a run: resolve an agent's tools, guardrails and blocks, route its capabilities
    /// and render its instructions.
    #[command(after_help = plan::HELP)]
    Plan(plan::Args),
    /// Resolve tool references (npm ranges) against the tools of pack indexes.
    #[command(after_help = resolve::HELP)]
    Resolve(resolve::Args),
    /// Parse a Liquid template: print the variables it reads and the problems found.
    #[command(after_help = template::HELP)]
    Template(template::Args),
    /// Pack protocol v2: check a service's /v1/info against an index, validate a message.
    Protocol(protocol::Args),
}

/// Output format shared by the subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    /// Lines for a person.
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
        Command::Fmt(args) => fmt::run(args, &mut out),
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

/// A closed stdout while writing JSON is a broken pipe (exit 0), not a usage error.
pub fn json_error(e: serde_json::Error) -> CliError {
    match e.io_error_kind() {
        Some(io::ErrorKind::BrokenPipe) => CliError::BrokenPipe,
        _ => CliError::Usage(e.to_string()),
    }
}

/// Writes `value` as pretty JSON and a newline; a closed stdout is [`CliError::BrokenPipe`].
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(json_error)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Reads at most `cap + 1` bytes of `path`: enough for the loader to see that a file is over
/// the cap (`index-too-large`) without reading the rest, so `/dev/zero` or an endless pipe
/// costs `cap` bytes of memory, not all of it.
///
/// # Errors
///
/// Opening or reading the file.
pub fn read_capped(path: &Path, cap: usize) -> io::Result<Vec<u8>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    // A regular file says its size: allocate once (never more than the cap allows). A pipe or
    // device does not: reserve the whole cap up front, which costs address space only (pages
    // are touched as bytes arrive), so a long stream is never copied by the buffer doubling.
    let hint = match file.metadata() {
        Ok(m) if m.is_file() => usize::try_from(m.len()).unwrap_or(usize::MAX),
        _ => usize::MAX,
    }
    .min(cap.saturating_add(1));
    let mut bytes = Vec::with_capacity(hint);
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads an input file (an index, providers, a policy, a route input), at most the index size
/// cap plus one byte (see [`read_capped`]); a usage error (exit 2) naming the file when it
/// cannot be read.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    read_capped(path, runstart::index::Limits::default().max_index_bytes())
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))
}

/// Reads a JSON input file (providers, a tenant policy, a route input) into its strict wire
/// type: an unknown field, a wrong type or bad JSON is a usage error naming the file, the
/// JSON Pointer and the line.
pub fn read_input<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, CliError> {
    let bytes = read_file(path)?;
    runstart::input::from_slice(&bytes).map_err(|e| {
        let at = match (e.line(), e.column()) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            _ => String::new(),
        };
        CliError::Usage(format!("{}{at}: {e}", path.display()))
    })
}

/// A file `resolve` or `plan` cannot use: the problems `validate` reports for it at load time.
pub struct Unusable {
    file: String,
    text: Option<String>,
    report: Report,
}

impl Unusable {
    /// Prints the problems (validate's human lines, or one JSON error object) and gives the
    /// exit status: 1, problems found.
    pub fn print(&self, out: &mut dyn Write, format: Format) -> Result<u8, CliError> {
        let message = format!(
            "{} is not a usable pack index ({} error(s)); `runstart validate {}` explains each",
            self.file,
            self.report.error_count(),
            self.file
        );
        match format {
            Format::Human => {
                out.write_all(
                    render::human(&self.file, self.text.as_deref(), &self.report).as_bytes(),
                )?;
                let _ = writeln!(io::stderr(), "runstart: {message}");
            }
            Format::Json => write_json(
                out,
                &json!({"error": {"code": "invalid-index", "message": message, "file": self.file, "issues": self.report.issues()}}),
            )?,
        }
        Ok(EXIT_PROBLEMS)
    }
}

/// Reads and loads a pack index for the commands that use its entries (`resolve`, `plan`).
///
/// A file that cannot be read is a usage error (exit 2). A file with any load-time problem
/// (not JSON, wrong envelope, an entry with the wrong shape, a hostile size) is refused with
/// every such issue, as `validate` reports them: an entry left out for its shape would
/// otherwise show up later as "not found".
pub fn load_index_file(
    path: &Path,
) -> Result<Result<runstart::index::PackIndex, Unusable>, CliError> {
    let bytes = read_file(path)?;
    let loaded = runstart::index::load(&bytes);
    match loaded.index {
        Some(index) if !loaded.report.has_errors() => Ok(Ok(index)),
        _ => {
            let mut report = loaded.report;
            // In validate's order (pointer, then code).
            report.sort();
            Ok(Err(Unusable {
                file: path.display().to_string(),
                text: loaded.text.map(str::to_owned),
                report,
            }))
        }
    }
}
