//! Reading the files the subcommands are given: capped reads, strict JSON inputs, and pack
//! indexes refused with validate's issues when they cannot be used.

use super::outcome::{CliError, EXIT_PROBLEMS, Format, after_writing, write_json};
use runstart::diagnostics::{Issue, Report, render};
use serde_json::json;
use std::io::{self, Write};
use std::path::Path;

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
    /// The index at `path` (its `bytes`), refused for `issues` found after it loaded (a tool's
    /// env needs that do not compile, for the protocol's deployment).
    pub fn with_issues(path: &Path, bytes: &[u8], issues: Vec<Issue>) -> Unusable {
        let mut report = Report::new();
        for issue in issues {
            report.push(issue);
        }
        report.sort();
        Unusable {
            file: path.display().to_string(),
            text: std::str::from_utf8(bytes).ok().map(str::to_owned),
            report,
        }
    }

    /// Prints the problems (validate's human lines, or one JSON error object) and gives the
    /// exit status: 1, problems found.
    pub fn print(&self, out: &mut dyn Write, format: Format) -> Result<u8, CliError> {
        let message = format!(
            "{} is not a usable pack index ({} error(s)); `runstart validate {}` explains each",
            self.file,
            self.report.error_count(),
            self.file
        );
        let written = match format {
            Format::Human => {
                let written = out.write_all(
                    render::human(&self.file, self.text.as_deref(), &self.report).as_bytes(),
                );
                let _ = writeln!(io::stderr(), "runstart: {message}");
                written.map_err(CliError::from)
            }
            Format::Json => write_json(
                out,
                &json!({"error": {"code": "invalid-index", "message": message, "file": self.file, "issues": self.report.issues()}}),
            ),
        };
        after_writing(EXIT_PROBLEMS, written)
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
    Ok(load_index_bytes(path, &bytes))
}

/// Loads the bytes of the pack index at `path`; any load-time problem makes it [`Unusable`].
pub fn load_index_bytes(path: &Path, bytes: &[u8]) -> Result<runstart::index::PackIndex, Unusable> {
    let loaded = runstart::index::load(bytes);
    match loaded.index {
        Some(index) if !loaded.report.has_errors() => Ok(index),
        _ => {
            let mut report = loaded.report;
            // In validate's order (pointer, then code).
            report.sort();
            Err(Unusable {
                file: path.display().to_string(),
                text: loaded.text.map(str::to_owned),
                report,
            })
        }
    }
}
