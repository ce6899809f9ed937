//! `runstart validate <index.json>...`: validate pack indexes, print every issue.

use super::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, Format, write_json};
use runstart::diagnostics::{Issue, render};
use runstart::validate::{ValidateOptions, validate_index};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pack index files (index.json) to validate.
    #[arg(required = true, value_name = "INDEX")]
    files: Vec<PathBuf>,
    /// Output format: one line per issue, or a JSON report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Do not warn when a file is not in canonical form.
    #[arg(long)]
    no_canonical_check: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport<'a> {
    file: String,
    errors: usize,
    warnings: usize,
    issues: &'a [Issue],
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    let options = ValidateOptions::new().should_check_canonical_form(!args.no_canonical_check);
    let mut any_errors = false;
    let mut io_failed = false;
    let mut json_reports = Vec::new();
    let mut reports = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let name = path.display().to_string();
        match std::fs::read(path) {
            Ok(bytes) => {
                let report = validate_index(&bytes, &options);
                any_errors |= report.has_errors();
                reports.push((name, bytes, report));
            }
            Err(e) => {
                io_failed = true;
                let _ = writeln!(std::io::stderr(), "runstart: cannot read {name}: {e}");
            }
        }
    }
    for (name, bytes, report) in &reports {
        match args.format {
            Format::Human => {
                let text = std::str::from_utf8(bytes).ok();
                out.write_all(render::human(name, text, report).as_bytes())?;
            }
            Format::Json => json_reports.push(FileReport {
                file: name.clone(),
                errors: report.error_count(),
                warnings: report.warning_count(),
                issues: report.issues(),
            }),
        }
    }
    match args.format {
        Format::Json => {
            write_json(out, &json_reports)?;
        }
        Format::Human => {
            let (errors, warnings) = reports.iter().fold((0, 0), |(e, w), (_, _, r)| {
                (e + r.error_count(), w + r.warning_count())
            });
            writeln!(
                std::io::stderr(),
                "{} file(s): {errors} error(s), {warnings} warning(s)",
                reports.len()
            )
            .ok();
        }
    }
    Ok(if io_failed {
        EXIT_USAGE
    } else if any_errors {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    })
}
