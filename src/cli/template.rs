//! `runstart template <file>` and `runstart template --jsonl`.

use super::jsonl::{self, DEFAULT_MAX_LINE_BYTES, line_error};
use super::outcome::{
    CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, Format, after_writing, write_json,
};
use runstart::template::{
    AllowedVariables, CheckIssue, CompiledTemplate, InputPolicy, ParseError, Segment,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;

pub const HELP: &str = "\
Examples:
  runstart template fixtures/prompt.liquid --param ticketId --settings acme.reply
  runstart template fixtures/prompt.liquid --format json
  printf '%s\\n' '\"Hi {{ name }}\"' | runstart template --jsonl

--jsonl reads one JSON string (a template) per line and answers every line, blank ones too:
{\"parseError\": string|null, \"globals\": [[...]]}, or {\"error\": {\"code\", \"message\",
\"line\"}} for a line that is not a JSON string, not UTF-8 or too long.

Exit status: 0 clean, 1 a template does not parse or has errors, 2 usage or I/O error, or a
--jsonl line that is not a JSON string.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A template file to analyze (omit with --jsonl).
    #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
    file: Option<PathBuf>,
    /// Read one JSON string (a template) per line on stdin; write
    /// `{"parseError": string|null, "globals": [[...]]}` per line (LiquidJS's answers: no
    /// parameter, settings or flow checks, always JSON).
    #[arg(long, conflicts_with_all = ["params", "settings", "flow", "format"])]
    jsonl: bool,
    /// A declared parameter name the template may read (repeatable).
    #[arg(long = "param", value_name = "NAME")]
    params: Vec<String>,
    /// A settings block id the agent references (repeatable).
    #[arg(long = "settings", value_name = "ID")]
    settings: Vec<String>,
    /// The template belongs to a flow agent step, so `input.*` may be read.
    #[arg(long)]
    flow: bool,
    /// Output format of the file report (--jsonl is always JSON).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Longest accepted --jsonl line, in bytes; a longer one is answered `line-too-long`.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES, requires = "jsonl", value_parser = jsonl::parse_max_line_bytes)]
    max_line_bytes: usize,
}

fn segments_json(segs: &[Segment]) -> Value {
    Value::Array(segs.iter().map(Segment::to_json).collect())
}

/// One `--jsonl` answer line for `template`.
fn answer(template: &str) -> Value {
    match CompiledTemplate::parse(template) {
        Err(e) => json!({"parseError": e.message_with_position(template), "globals": null}),
        Ok(t) => match t.globals() {
            Ok(g) => json!({
                "parseError": null,
                "globals": g.iter().map(|v| segments_json(v.segments())).collect::<Vec<_>>(),
            }),
            Err(e) => json!({"parseError": null, "globals": {"error": e.to_string()}}),
        },
    }
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    if args.jsonl {
        return run_jsonl(out, args.max_line_bytes);
    }
    let Some(path) = args.file else {
        return Err(CliError::Usage("template: give a file or --jsonl".into()));
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    let name = path.display();
    let t = match CompiledTemplate::parse(&text) {
        Ok(t) => t,
        Err(e) => return write_parse_error(out, args.format, &name, &text, &e),
    };
    let globals = distinct_globals(&t);
    let allowed = AllowedVariables::new()
        .with_params(args.params)
        .with_settings(args.settings)
        .with_input(if args.flow {
            InputPolicy::Allowed
        } else {
            InputPolicy::Warn
        });
    let issues = t.check(&allowed);
    let status = if issues.iter().any(|i| !i.kind().is_warning()) {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    };
    let written = match args.format {
        Format::Json => write_checked_json(out, &name, &globals, &issues),
        Format::Human => write_checked_human(out, &name, &globals, &issues),
    };
    after_writing(status, written)
}

/// `--jsonl`: answers every line of stdin.
fn run_jsonl(out: &mut dyn Write, max_line_bytes: usize) -> Result<u8, CliError> {
    // Every line is answered; the exit status says the worst that happened, as
    // `route --jsonl` does: 1 when a template does not parse, 2 when a line is not input.
    let stdin = std::io::stdin();
    let mut status = EXIT_CLEAN;
    let unreadable = jsonl::for_each_line(&mut stdin.lock(), out, max_line_bytes, |line, text| {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::String(t)) => {
                let reply = answer(&t);
                if !reply["parseError"].is_null() {
                    status = status.max(EXIT_PROBLEMS);
                }
                reply
            }
            _ => {
                status = EXIT_USAGE;
                line_error(
                    "invalid-input",
                    format!(
                        "line {line} is not a JSON string; send each template as one JSON string, like \"Hi {{{{ name }}}}\""
                    ),
                    line,
                )
            }
        }
    })?;
    if unreadable {
        status = EXIT_USAGE;
    }
    Ok(status)
}

/// A template that does not parse: its one error (`template-parse`, or `template-too-long` /
/// `template-too-deep` for the caps, as `validate` says), at its line and column.
fn write_parse_error(
    out: &mut dyn Write,
    format: Format,
    name: &std::path::Display<'_>,
    text: &str,
    e: &ParseError,
) -> Result<u8, CliError> {
    let (l, c) = runstart::template::line_col(text, e.offset());
    let code = e.code().as_str();
    let written = match format {
        Format::Json => write_json(
            out,
            &json!({"file": name.to_string(), "globals": null, "issues": [{
                "severity": "error", "code": code, "line": l, "column": c,
                "message": e.message()}]}),
        ),
        Format::Human => {
            writeln!(out, "{name}:{l}:{c}: error[{code}]: {}", e.message()).map_err(CliError::from)
        }
    };
    after_writing(EXIT_PROBLEMS, written)
}

/// The global variables the template reads, each once, in first-read order.
fn distinct_globals(t: &CompiledTemplate) -> Vec<String> {
    t.global_reads()
        .iter()
        .fold(Vec::new(), |mut acc: Vec<String>, g| {
            let s = g.to_string();
            if !acc.contains(&s) {
                acc.push(s);
            }
            acc
        })
}

/// The check's JSON answer.
fn write_checked_json(
    out: &mut dyn Write,
    name: &std::path::Display<'_>,
    globals: &[String],
    issues: &[CheckIssue],
) -> Result<(), CliError> {
    let list: Vec<Value> = issues
        .iter()
        .map(|i| {
            json!({
                "severity": if i.kind().is_warning() { "warning" } else { "error" },
                "code": i.code(), "line": i.line(), "column": i.col(), "message": i.message(),
            })
        })
        .collect();
    write_json(
        out,
        &json!({"file": name.to_string(), "globals": globals, "issues": list}),
    )
}

/// The check's human lines: the globals, then one line per issue.
fn write_checked_human(
    out: &mut dyn Write,
    name: &std::path::Display<'_>,
    globals: &[String],
    issues: &[CheckIssue],
) -> Result<(), CliError> {
    writeln!(out, "globals:")?;
    for g in globals {
        writeln!(out, "  {g}")?;
    }
    for i in issues {
        let level = if i.kind().is_warning() {
            "warning"
        } else {
            "error"
        };
        writeln!(
            out,
            "{name}:{}:{}: {level}[{}]: {}",
            i.line(),
            i.col(),
            i.code(),
            i.message()
        )?;
    }
    Ok(())
}
