//! `runstart template <file>` and `runstart template --jsonl`.

use super::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE};
use runstart::template::{AllowedVariables, CompiledTemplate, InputPolicy, Segment};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A template file to analyze (omit with --jsonl).
    #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
    file: Option<PathBuf>,
    /// Read one JSON string (a template) per line on stdin; write
    /// `{"parseError": string|null, "globals": [[...]]}` per line.
    #[arg(long)]
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
        // Every line is answered; the exit status says the worst that happened, as
        // `route --jsonl` does: 1 when a template does not parse, 2 when a line is not input.
        let stdin = std::io::stdin();
        let mut status = EXIT_CLEAN;
        for (i, line) in stdin.lock().lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let reply = match serde_json::from_str::<Value>(&line) {
                Ok(Value::String(t)) => {
                    let reply = answer(&t);
                    if !reply["parseError"].is_null() {
                        status = status.max(EXIT_PROBLEMS);
                    }
                    reply
                }
                _ => {
                    status = EXIT_USAGE;
                    json!({"error": format!("line {} is not a JSON string", i + 1)})
                }
            };
            writeln!(out, "{reply}")?;
        }
        return Ok(status);
    }
    let Some(path) = args.file else {
        return Err(CliError::Usage("template: give a file or --jsonl".into()));
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    let name = path.display();
    let t = match CompiledTemplate::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            let (l, c) = runstart::template::line_col(&text, e.offset());
            writeln!(
                out,
                "{name}:{l}:{c}: error[template-parse]: {}",
                e.message()
            )?;
            return Ok(EXIT_PROBLEMS);
        }
    };
    writeln!(out, "globals:")?;
    for g in t
        .global_reads()
        .iter()
        .fold(Vec::new(), |mut acc: Vec<String>, g| {
            let s = g.to_string();
            if !acc.contains(&s) {
                acc.push(s);
            }
            acc
        })
    {
        writeln!(out, "  {g}")?;
    }
    let allowed = AllowedVariables::new()
        .with_params(args.params)
        .with_settings(args.settings)
        .with_input(if args.flow {
            InputPolicy::Allowed
        } else {
            InputPolicy::Warn
        });
    let issues = t.check(&allowed);
    let mut errors = 0;
    for i in &issues {
        let level = if i.kind().is_warning() {
            "warning"
        } else {
            errors += 1;
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
    Ok(if errors > 0 {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    })
}
