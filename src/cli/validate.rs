//! `runstart validate <index.json>...`: validate pack indexes, print every issue.

use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, after_writing, write_json};
use super::sarif::{self, FileIssues};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use runstart::diagnostics::IssueCode;
use runstart::diagnostics::{Issue, Report, render};
use runstart::validate::{ValidateOptions, validate_index};
use serde::Serialize;
use std::io::IsTerminal;
use std::io::Write;
use std::path::PathBuf;

/// The most worker threads `--threads` takes. Validation is CPU-bound, so more threads than
/// cores only cost memory (each has its own stack and allocator heap); the cap keeps a typo
/// such as `--threads 100000` from starting thousands of threads.
pub const MAX_THREADS: usize = 256;

pub const HELP: &str = "\
Examples:
  runstart validate fixtures/packs/support-desk/index.json
  runstart validate packs/*/index.json --format json
  runstart validate packs/*/index.json --format sarif > runstart.sarif
  runstart validate packs/*/index.json --format github   # annotations in a GitHub workflow

Issues are ordered by JSON Pointer (whole-file issues, pointer \"\", first), then code. A file
that cannot be read is reported as an `io-error` issue of that file.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage error or a file that
cannot be read.";

/// How `validate` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ValidateFormat {
    /// One line per issue: `file:line:col: severity[code] pointer: message`.
    #[default]
    Human,
    /// An array of `{file, errors, warnings, issues}`.
    Json,
    /// A SARIF 2.1.0 log (GitHub code scanning, other SARIF viewers).
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…,line=…,col=…::…`).
    Github,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pack index files (index.json) to validate.
    #[arg(required = true, value_name = "INDEX")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ValidateFormat::Human)]
    format: ValidateFormat,
    /// Do not warn when a file is not in canonical form.
    #[arg(long)]
    no_canonical_check: bool,
    /// Worker threads, 1 to 256 (default: one per core). The report is the same for any count.
    #[arg(long, value_name = "N", value_parser = threads)]
    threads: Option<usize>,
    /// No progress bar and no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "give a number of worker threads from 1 to {MAX_THREADS}, or leave --threads out for one per core"
        )),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport<'a> {
    file: &'a str,
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

/// One file's outcome: its bytes (empty when unreadable), its report, and whether it could
/// be read.
struct FileResult {
    name: String,
    bytes: Vec<u8>,
    report: Report,
    readable: bool,
}

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
            let result = match super::files::read_capped(path, options.limits().max_index_bytes()) {
                Ok(bytes) => {
                    let report = validate_index(&bytes, &options);
                    FileResult {
                        name,
                        bytes,
                        report,
                        readable: true,
                    }
                }
                Err(e) => {
                    let mut report = Report::new();
                    report.push(Issue::error(
                        IssueCode::IoError,
                        "",
                        format!("cannot read {name}: {e}; {}", read_hint(&e)),
                    ));
                    FileResult {
                        name,
                        bytes: Vec::new(),
                        report,
                        readable: false,
                    }
                }
            };
            progress.inc(1);
            result
        })
        .collect();
    progress.finish_and_clear();
    results
}

/// Prints every report; the exit status is what was found, even when stdout closes early.
fn print_reports(
    args: &Args,
    results: Vec<FileResult>,
    out: &mut dyn Write,
) -> Result<u8, CliError> {
    let status = if results.iter().any(|r| !r.readable) {
        EXIT_USAGE
    } else if results.iter().any(|r| r.report.has_errors()) {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    };
    after_writing(status, write_reports(args, &results, out))
}

/// The reports in the chosen format (and, for people, the summary on stderr).
fn write_reports(args: &Args, results: &[FileResult], out: &mut dyn Write) -> Result<(), CliError> {
    let texts: Vec<Option<&str>> = results
        .iter()
        .map(|r| std::str::from_utf8(&r.bytes).ok().filter(|_| r.readable))
        .collect();
    let files = || -> Vec<FileIssues<'_>> {
        results
            .iter()
            .zip(&texts)
            .map(|(r, text)| FileIssues {
                file: &r.name,
                text: *text,
                issues: r.report.issues(),
            })
            .collect()
    };
    match args.format {
        ValidateFormat::Human => {
            for (r, text) in results.iter().zip(&texts) {
                out.write_all(render::human(&r.name, *text, &r.report).as_bytes())?;
            }
            if !args.quiet {
                let (errors, warnings) = results.iter().fold((0, 0), |(e, w), r| {
                    (e + r.report.error_count(), w + r.report.warning_count())
                });
                writeln!(
                    std::io::stderr(),
                    "{} file(s): {errors} error(s), {warnings} warning(s)",
                    results.len()
                )
                .ok();
            }
        }
        ValidateFormat::Json => {
            let reports: Vec<FileReport<'_>> = results
                .iter()
                .map(|r| FileReport {
                    file: &r.name,
                    errors: r.report.error_count(),
                    warnings: r.report.warning_count(),
                    issues: r.report.issues(),
                })
                .collect();
            write_json(out, &reports)?;
        }
        ValidateFormat::Sarif => write_json(out, &sarif::log(&files()))?,
        ValidateFormat::Github => out.write_all(sarif::github(&files()).as_bytes())?,
    }
    Ok(())
}

/// What to do about a file `validate` cannot read.
fn read_hint(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::IsADirectory => "name the pack's index.json inside it",
        _ => "check the path and its permissions",
    }
}
