//! `runstart fmt <index.json>... [--check]`: write pack indexes in canonical form, the fix
//! `non-canonical-index` asks for.

use super::files::read_file;
use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE, UntilClosed};
use runstart::diagnostics::{IssueCode, Report, Severity, render};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
The canonical form is what an indexer writes: keys sorted at every level (UTF-16 order),
two-space indentation, integral numbers without a fraction, a trailing newline. Content is
unchanged: every string, key and number keeps its value; run `runstart validate` for
everything else.

Examples:
  runstart fmt packs/acme/index.json
  runstart fmt --check packs/*/index.json   # in CI: exit 1 when a file would change

A symbolic link is followed: the file it points at is rewritten, with its permissions and
owner. A file that cannot be read or written (a read-only one included) is reported on stderr
and the others are still formatted.

Exit status: 0 every file canonical (or rewritten), 1 a file is not JSON or (with --check)
not canonical, 2 usage or I/O error (after every other file is done).";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pack index files to rewrite in place.
    #[arg(required = true, value_name = "INDEX")]
    files: Vec<PathBuf>,
    /// Change nothing; list the files that are not canonical and exit 1 if there is one.
    #[arg(long)]
    check: bool,
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    // Every file is formatted (or checked) even when the reader of stdout has gone, and a file
    // that cannot be read or written stops nothing but itself: its error goes to stderr and
    // the exit status becomes 2 once every other file is done.
    let out = &mut UntilClosed::new(out);
    let mut status = EXIT_CLEAN;
    let mut io_failed = false;
    for path in &args.files {
        match format_file(path, args.check, out) {
            Ok(file_status) => status = status.max(file_status),
            Err(CliError::Usage(message)) => {
                let _ = writeln!(std::io::stderr(), "runstart: {message}");
                io_failed = true;
            }
            Err(other) => return Err(other),
        }
    }
    Ok(if io_failed { EXIT_USAGE } else { status })
}

/// Formats (or checks) one file: its exit status, or the usage or I/O error that stopped it.
fn format_file(path: &Path, check: bool, out: &mut dyn Write) -> Result<u8, CliError> {
    let name = path.display().to_string();
    let bytes = read_file(path)?;
    let loaded = runstart::index::load(&bytes);
    // Not JSON (or not UTF-8, or a hostile size): nothing to format. A key repeated in an
    // object is not formatted either: the canonical form would keep only its last value.
    let repeats = loaded
        .report
        .issues()
        .iter()
        .any(|i| i.code() == IssueCode::DuplicateKey);
    let document = match loaded.document.as_ref() {
        Some(document) if !repeats => document,
        _ => {
            let mut report = Report::new();
            for issue in loaded
                .report
                .issues()
                .iter()
                .filter(|i| i.severity() == Severity::Error)
            {
                report.push(issue.clone());
            }
            out.write_all(render::human(&name, loaded.text, &report).as_bytes())?;
            return Ok(EXIT_PROBLEMS);
        }
    };
    let canonical = runstart::index::canonical_text(document);
    if canonical.as_bytes() == bytes.as_slice() {
        return Ok(EXIT_CLEAN);
    }
    if check {
        let line = first_difference(loaded.text.unwrap_or_default(), &canonical);
        writeln!(
            out,
            "{name}:{line}:1: not in canonical form; run `runstart fmt {name}`"
        )?;
        return Ok(EXIT_PROBLEMS);
    }
    write_in_place(path, canonical.as_bytes())?;
    writeln!(out, "formatted {name}")?;
    Ok(EXIT_CLEAN)
}

fn first_difference(text: &str, canonical: &str) -> usize {
    text.lines()
        .zip(canonical.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(canonical.lines().count()))
        + 1
}

/// Replaces the content of the file `path` names, and only its content: a symbolic link is
/// followed (the file it points at is rewritten, the link stays), and anything but a regular
/// file (a device, a pipe such as `/dev/stdin`) is refused, and so is a read-only file.
///
/// The new content is written beside the file and renamed over it, so an interrupted run
/// never leaves half a pack index; the copy takes the file's permissions (and, on Unix, its
/// owner). Where a rename would change more than the content (a file with other hard links,
/// or one whose owner cannot be given to the copy), the file is rewritten in place instead.
fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError::Usage(format!("cannot write {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if !meta.is_file() {
        return Err(CliError::Usage(format!(
            "cannot write {}: not a regular file",
            path.display()
        )));
    }
    // A rename would replace a read-only file all the same; it is not fmt's to override that.
    if meta.permissions().readonly() {
        return Err(CliError::Usage(format!(
            "cannot write {}: the file is read-only",
            path.display()
        )));
    }
    let target = std::fs::canonicalize(path).map_err(fail)?;
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".runstart-fmt.tmp");
    let tmp = PathBuf::from(tmp);
    let replaced = std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::set_permissions(&tmp, meta.permissions()))
        .and_then(|()| same_owner_and_links(&tmp, &meta))
        .and_then(|keeps| {
            if keeps {
                std::fs::rename(&tmp, &target).map(|()| true)
            } else {
                Ok(false)
            }
        });
    match replaced {
        Ok(true) => Ok(()),
        Ok(false) => {
            let _ = std::fs::remove_file(&tmp);
            std::fs::write(&target, bytes).map_err(fail)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(fail(e))
        }
    }
}

/// Gives `tmp` the owner in `meta` and tells whether renaming it over that file keeps
/// everything but the content: the file has no other hard link and the owner could be given.
#[cfg(unix)]
fn same_owner_and_links(tmp: &Path, meta: &std::fs::Metadata) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Ok(false);
    }
    Ok(std::os::unix::fs::chown(tmp, Some(meta.uid()), Some(meta.gid())).is_ok())
}

#[cfg(not(unix))]
fn same_owner_and_links(_tmp: &Path, _meta: &std::fs::Metadata) -> std::io::Result<bool> {
    Ok(true)
}
