//! `runstart protocol check-info <index.json> <info.json>` and `runstart protocol message`:
//! the pack protocol v2 service check and message validation.

use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, Format, after_writing, write_json};
use runstart::diagnostics::{Issue, Report, render};
use runstart::protocol::{Deployment, EnvCheck, Response, check_service_info, parse_info};
use serde_json::json;
use std::io::{Read, Write};
use std::path::PathBuf;

pub const HELP: &str = "\
Examples:
  runstart protocol check-info fixtures/packs/support-desk/index.json info.json
  curl -s https://pack.example/v1/info > info.json && runstart protocol check-info index.json info.json --format json
  runstart protocol message < message.json

Exit status: 0 clean, 1 problems found (the service disagrees with the index, the index is not
a usable pack index, the message is refused), 2 usage or I/O error.";

const CHECK_INFO_HELP: &str = "\
Examples:
  runstart protocol check-info fixtures/packs/support-desk/index.json info.json
  runstart protocol check-info index.json info.json --env-check warn --format json

An index with load-time problems is refused with the issues `runstart validate` reports
(`invalid-index`); an answer that is not an info message is a problem with the service.

Exit status: 0 the service matches the index, 1 a problem found (or an unusable index),
2 usage or I/O error.";

const MESSAGE_HELP: &str = "\
Examples:
  runstart protocol message < request.json
  runstart protocol message --format json < response.json

Exit status: 0 a valid message, 1 a refused one (its error code and message), 2 usage or I/O
error.";

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Compare a pack service's `/v1/info` answer with the deployed index.json: protocol
    /// version, pack identity, indexHash, tools and versions, checks, missingEnv.
    #[command(after_help = CHECK_INFO_HELP)]
    CheckInfo(CheckInfoArgs),
    /// Validate one pack protocol v2 message (request, response or info) read from stdin;
    /// a bad one gets the error a pack service answers.
    #[command(after_help = MESSAGE_HELP)]
    Message(MessageArgs),
}

#[derive(Debug, clap::Args)]
struct CheckInfoArgs {
    /// The deployed pack index.
    #[arg(value_name = "INDEX")]
    index: PathBuf,
    /// The service's `/v1/info` answer (JSON).
    #[arg(value_name = "INFO")]
    info: PathBuf,
    /// How the service treats a missing required env name: `strict` (it is not ready: an
    /// error) or `warn` (it serves: a warning).
    #[arg(long, value_enum, default_value_t = EnvCheckArg::Strict)]
    env_check: EnvCheckArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EnvCheckArg {
    Strict,
    Warn,
}

#[derive(Debug, clap::Args)]
struct MessageArgs {
    /// Output format: `human` prints `ok: <kind>` or `error[<code>]: <message>`; `json` prints
    /// `{"valid": true, "kind", "message"}` or the protocol's error message.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    match args.command {
        Sub::CheckInfo(a) => check_info(a, out),
        Sub::Message(a) => message(a, out),
    }
}

fn read(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))
}

fn check_info(args: CheckInfoArgs, out: &mut dyn Write) -> Result<u8, CliError> {
    let index_bytes = read(&args.index)?;
    // An index with load-time problems is refused as resolve and plan refuse it: the service
    // is not checked against what is left of it.
    if let Err(unusable) = super::files::load_index_bytes(&args.index, &index_bytes) {
        return unusable.print(out, args.format);
    }
    let deployment = match Deployment::new(&index_bytes) {
        Ok(deployment) => deployment,
        Err(issues) => {
            return super::files::Unusable::with_issues(&args.index, &index_bytes, issues)
                .print(out, args.format);
        }
    };
    let deployment = deployment.with_env_check(match args.env_check {
        EnvCheckArg::Strict => EnvCheck::Strict,
        EnvCheckArg::Warn => EnvCheck::Warn,
    });
    let info_bytes = read(&args.info)?;
    let info_name = args.info.display().to_string();
    // An answer that is not an info message is a problem found with the service, not a usage
    // error: it is reported as an issue with the protocol's code.
    let issues = match serde_json::from_slice(&info_bytes)
        .map_err(|e| {
            Box::new(runstart::protocol::PackError::new(
                runstart::protocol::ErrorCode::MalformedMessage,
                format!("Message is not valid JSON ({e})"),
            ))
        })
        .and_then(|v| parse_info(&v))
    {
        Ok(info) => check_service_info(&info, &deployment),
        Err(e) => vec![Issue::error(e.code.issue_code(), "", e.message)],
    };
    let report: Report = issues.into_iter().collect();
    let (errors, warnings) = (report.error_count(), report.warning_count());
    let status = if errors > 0 {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    };
    let written = match args.format {
        Format::Human => {
            let text = std::str::from_utf8(&info_bytes).ok();
            let written = out.write_all(render::human(&info_name, text, &report).as_bytes());
            let _ = writeln!(
                std::io::stderr(),
                "{info_name}: {errors} error(s), {warnings} warning(s) against {} ({})",
                args.index.display(),
                deployment.index_hash()
            );
            written.map_err(CliError::from)
        }
        Format::Json => write_json(
            out,
            &json!({
                "file": info_name,
                "index": args.index.display().to_string(),
                "indexHash": deployment.index_hash(),
                "errors": errors,
                "warnings": warnings,
                "issues": report.issues(),
            }),
        ),
    };
    after_writing(status, written)
}

fn message(args: MessageArgs, out: &mut dyn Write) -> Result<u8, CliError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::Usage(format!("cannot read stdin: {e}")))?;
    match runstart::protocol::parse_message(&bytes) {
        Ok(m) => {
            let written = match args.format {
                Format::Human => writeln!(out, "ok: {}", m.kind()).map_err(CliError::from),
                Format::Json => {
                    write_json(out, &json!({"valid": true, "kind": m.kind(), "message": m}))
                }
            };
            after_writing(EXIT_CLEAN, written)
        }
        Err(e) => {
            let written = match args.format {
                Format::Human => {
                    writeln!(out, "error[{}]: {}", e.code, render::sanitize(&e.message))
                        .map_err(CliError::from)
                }
                Format::Json => write_json(out, &Response::Error(*e)),
            };
            after_writing(EXIT_PROBLEMS, written)
        }
    }
}
