//! The `runstart` command line: argument parsing and printing only. Every subcommand lives in
//! its own file and calls the library.

mod files;
mod fmt;
mod jsonl;
mod outcome;
mod plan;
mod protocol;
mod resolve;
mod route;
mod sarif;
mod template;
mod validate;

use clap::{Parser, Subcommand};
use outcome::{CliError, EXIT_CLEAN, EXIT_USAGE};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "runstart",
    version,
    about = "Validate Kindgi pack indexes, resolve tool ranges, route capabilities and prepare runs",
    after_help = "Examples:\n  runstart validate fixtures/packs/support-desk/index.json\n  runstart plan fixtures/packs/support-desk/index.json --providers fixtures/providers.json --agent support.escalation-writer --param ticketId=T-17\n\nExit status: 0 clean, 1 problems found, 2 usage, input or I/O error (output to a closed pipe keeps the status of what was found)."
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
    // clap's own usage line for a conflict would read `runstart template --jsonl [FILE]`,
    // as if both went together; the two forms are written out instead.
    #[command(
        after_help = template::HELP,
        override_usage = "runstart template [OPTIONS] <FILE>\n       runstart template --jsonl [--max-line-bytes <BYTES>]"
    )]
    Template(template::Args),
    /// Pack protocol v2: check a service's /v1/info against an index, validate a message.
    #[command(after_help = protocol::HELP)]
    Protocol(protocol::Args),
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
