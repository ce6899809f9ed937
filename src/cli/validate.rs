//! `runstart validate <index.json>...`: validate pack indexes, print every issue.

use super::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, Format, write_json};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use runstart::diagnostics::{Issue, Report, render};
use runstart::validate::{ValidateOptions, validate_index};
use serde::Serialize;
use std::io::IsTerminal;
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
    /// Worker threads (default: one per core). The report is the same for any count.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// No progress bar and no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start worker threads: {e}")))?;
    let results = pool.install(|| validate_files(&args));
    print_reports(&args, results, out)
}

type FileResult = (String, std::io::Result<(Vec<u8>, Report)>);

fn validate_files(args: &Args) -> Vec<FileResult> {
    let options = ValidateOptions::new().should_check_canonical_form(!args.no_canonical_check);
    // A progress bar only helps a person watching many files; never in pipes or CI logs.
    let show_progress = !args.quiet && args.files.len() > 1 && std::io::stderr().is_terminal();
    let progress = if show_progress {
        let bar = ProgressBar::new(args.files.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    // Files are validated in parallel; results come back in argument order.
    let results: Vec<FileResult> = args
        .files
        .par_iter()
        .map(|path| {
            let name = path.display().to_string();
            let result =
                super::read_capped(path, options.limits().max_index_bytes()).map(|bytes| {
                    let report = validate_index(&bytes, &options);
                    (bytes, report)
                });
            progress.inc(1);
            (name, result)
        })
        .collect();
    progress.finish_and_clear();
    results
}

fn print_reports(
    args: &Args,
    results: Vec<FileResult>,
    out: &mut dyn Write,
) -> Result<u8, CliError> {
    let mut any_errors = false;
    let mut io_failed = false;
    let mut json_reports = Vec::new();
    let mut reports = Vec::with_capacity(results.len());
    for (name, result) in results {
        match result {
            Ok((bytes, report)) => {
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
        Format::Human if !args.quiet => {
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
        Format::Human => {}
    }
    Ok(if io_failed {
        EXIT_USAGE
    } else if any_errors {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    })
}
