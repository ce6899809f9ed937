//! `runstart route --input <file.json> | --jsonl [--explain] [--format human|json]`

use super::files::read_input;
use super::jsonl::{self, DEFAULT_MAX_LINE_BYTES, line_error};
use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, Format, after_writing};
use runstart::route::{self, RouteInput};
use std::io::Write;
use std::path::PathBuf;

pub const HELP: &str = "\
Input: {capability, providers, tenantPolicy?, preferredProvider?, preferredModel?}; every
object is closed (an unknown field is an error naming it, e.g.
/tenantPolicy/deniedProviders: unknown field; expected one of ...).

Examples:
  runstart route --input fixtures/route.json
  runstart route --input fixtures/route.json --explain --format json
  cat inputs.jsonl | runstart route --jsonl

Output: {\"ok\": {providerId, model, alternates, fallback, reason}} or {\"err\": {code:
\"capability-unsatisfiable\", ...}}. --jsonl answers every line, blank ones too; a line that
is not a route input is answered {\"error\": {\"code\", \"message\", \"line\"}}.

Exit status: 0 routed, 1 unsatisfiable (any line), 2 usage or I/O error, or a line that is
not a route input.";

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["input", "jsonl"])))]
pub struct Args {
    /// A JSON file holding one route input.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Read one route input per line on stdin; write one result per line.
    #[arg(long, conflicts_with = "explain")]
    jsonl: bool,
    /// Print, for every (provider, model) tuple, which requirements it met or failed.
    #[arg(long)]
    explain: bool,
    /// Output format: `json` (the result object) or `human` (a line, or the --explain table).
    /// Default: json for a result, human for --explain. --jsonl is always JSON.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Longest accepted --jsonl line, in bytes; a longer one is answered `line-too-long`.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES, requires = "jsonl", value_parser = jsonl::parse_max_line_bytes)]
    max_line_bytes: usize,
}

/// `{"ok": decision}` or `{"err": error}`, the shape of the conformance cases.
#[derive(serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Ok(route::RoutingDecision),
    Err(route::CapabilityUnsatisfiable),
}

fn outcome(input: &RouteInput) -> (Outcome, bool) {
    match route::route(input) {
        Ok(d) => (Outcome::Ok(d), true),
        Err(e) => (Outcome::Err(e), false),
    }
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    if args.jsonl {
        if args.format == Some(Format::Human) {
            return Err(CliError::Usage(
                "route --jsonl always answers JSON; drop --format human".into(),
            ));
        }
        return run_jsonl(out, args.max_line_bytes);
    }
    let Some(path) = args.input else {
        return Err(CliError::Usage(
            "route: give --input <file> or --jsonl".into(),
        ));
    };
    let input: RouteInput = read_input(&path)?;
    if args.explain {
        let explanation = route::explain(&input);
        let routed = matches!(explanation.outcome, route::ExplainedOutcome::Ok(_));
        let written = match args.format.unwrap_or(Format::Human) {
            Format::Human => writeln!(out, "{explanation}").map_err(CliError::from),
            Format::Json => super::outcome::write_json(out, &explanation),
        };
        return after_writing(if routed { EXIT_CLEAN } else { EXIT_PROBLEMS }, written);
    }
    let (value, routed) = outcome(&input);
    let written = write_outcome(out, args.format.unwrap_or(Format::Json), &value);
    after_writing(if routed { EXIT_CLEAN } else { EXIT_PROBLEMS }, written)
}

/// The route's answer: JSON, or one line for a person (with a line per rejected requirement).
fn write_outcome(out: &mut dyn Write, format: Format, value: &Outcome) -> Result<(), CliError> {
    match (format, value) {
        (Format::Json, _) => super::outcome::write_json(out, value)?,
        (Format::Human, Outcome::Ok(d)) => {
            writeln!(out, "{}/{}: {}", d.provider, d.model, d.reason)?
        }
        (Format::Human, Outcome::Err(e)) => {
            writeln!(
                out,
                "error[{}] {}",
                e.code(),
                route::CapabilityUnsatisfiable::MESSAGE
            )?;
            for r in &e.reasons {
                writeln!(
                    out,
                    "  {}: {} rejected, satisfied by {}",
                    r.requirement,
                    r.rejecting_providers.len(),
                    if r.satisfying_providers.is_empty() {
                        "none".to_owned()
                    } else {
                        r.satisfying_providers.join(", ")
                    }
                )?;
            }
        }
    }
    Ok(())
}

/// One result line per input line. A line that is blank, too long, not UTF-8 or not a route
/// input is answered `{"error": {"code", "message", "line"}}` and makes the exit status 2; an
/// unsatisfiable route makes it 1 (unless a worse status was already due).
fn run_jsonl(out: &mut dyn Write, max_line_bytes: usize) -> Result<u8, CliError> {
    let stdin = std::io::stdin();
    let mut status = EXIT_CLEAN;
    let mut failure = None;
    let unreadable = jsonl::for_each_line(&mut stdin.lock(), out, max_line_bytes, |line, text| {
        match runstart::input::from_str::<RouteInput>(text) {
            Ok(input) => {
                let (result, routed) = outcome(&input);
                if !routed && status == EXIT_CLEAN {
                    status = EXIT_PROBLEMS;
                }
                serde_json::to_value(result).unwrap_or_else(|e| {
                    failure = Some(e.to_string());
                    serde_json::Value::Null
                })
            }
            Err(e) => {
                status = EXIT_USAGE;
                line_error("invalid-input", format!("line {line}: {e}"), line)
            }
        }
    })?;
    if unreadable {
        status = EXIT_USAGE;
    }
    if let Some(e) = failure {
        return Err(CliError::Usage(e));
    }
    Ok(status)
}
