//! `runstart route --input <file.json> | --jsonl [--explain]`

use super::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, Format};
use runstart::route::{self, RouteInput};
use serde_json::json;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["input", "jsonl"])))]
pub struct Args {
    /// A JSON file holding one route input: {capability, providers, tenantPolicy?,
    /// preferredProvider?, preferredModel?}.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Read one route input per line on stdin; write one result per line.
    #[arg(long, conflicts_with = "explain")]
    jsonl: bool,
    /// Print, for every (provider, model) tuple, which requirements it met or failed.
    #[arg(long)]
    explain: bool,
    /// Output format of --explain (the route result itself is always JSON).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// `{"ok": decision}` or `{"err": error}`, the shape of the conformance cases.
#[derive(serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Ok(route::RoutingDecision),
    Err(route::CapabilityUnsatisfiable),
}

fn result_json(input: &RouteInput) -> (Outcome, bool) {
    match route::route(input) {
        Ok(d) => (Outcome::Ok(d), true),
        Err(e) => (Outcome::Err(e), false),
    }
}

fn parse(text: &str) -> Result<RouteInput, String> {
    serde_json::from_str(text).map_err(|e| format!("invalid route input: {e}"))
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    if args.jsonl {
        return run_jsonl(out);
    }
    let Some(path) = args.input else {
        return Err(CliError::Usage(
            "route: give --input <file> or --jsonl".into(),
        ));
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    let input = parse(&text).map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    if args.explain {
        let explanation = route::explain(&input);
        let routed = matches!(explanation.outcome, route::ExplainedOutcome::Ok(_));
        match args.format {
            Format::Human => writeln!(out, "{explanation}")?,
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, &explanation).map_err(json_error)?;
                writeln!(out)?;
            }
        }
        return Ok(if routed { EXIT_CLEAN } else { EXIT_PROBLEMS });
    }
    let (value, routed) = result_json(&input);
    serde_json::to_writer_pretty(&mut *out, &value).map_err(json_error)?;
    writeln!(out)?;
    Ok(if routed { EXIT_CLEAN } else { EXIT_PROBLEMS })
}

/// One result line per input line. A line that does not parse yields
/// `{"error": {"code": "invalid-input", "message": …}}` and makes the exit status 2; an
/// unsatisfiable route makes it 1 (unless a worse status was already due).
fn run_jsonl(out: &mut dyn Write) -> Result<u8, CliError> {
    let stdin = std::io::stdin();
    let mut status = EXIT_CLEAN;
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let value = match parse(&line) {
            Ok(input) => {
                let (outcome, routed) = result_json(&input);
                if !routed && status == EXIT_CLEAN {
                    status = EXIT_PROBLEMS;
                }
                serde_json::to_value(outcome).map_err(|e| CliError::Usage(e.to_string()))?
            }
            Err(message) => {
                status = EXIT_USAGE;
                json!({ "error": { "code": "invalid-input", "message": message } })
            }
        };
        serde_json::to_writer(&mut *out, &value).map_err(json_error)?;
        writeln!(out)?;
    }
    Ok(status)
}

/// A closed stdout while writing JSON is a broken pipe (exit 0), not a usage error.
fn json_error(e: serde_json::Error) -> CliError {
    match e.io_error_kind() {
        Some(std::io::ErrorKind::BrokenPipe) => CliError::BrokenPipe,
        _ => CliError::Usage(e.to_string()),
    }
}
