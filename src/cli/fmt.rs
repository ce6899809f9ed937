//! `runstart fmt <index.json>... [--check]`: write pack indexes in canonical form, the fix
//! `non-canonical-index` asks for.

use super::files::read_file;
use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, UntilClosed};
use runstart::diagnostics::render;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
The canonical form is what an indexer writes: keys sorted at every level (UTF-16 order),
two-space indentation, integral numbers without a fraction, a trailing newline. Content is
unchanged; run `runstart validate` for everything else.

Examples:
  runstart fmt packs/acme/index.json
  runstart fmt --check packs/*/index.json   # in CI: exit 1 when a file would change

Exit status: 0 every file canonical (or rewritten), 1 a file is not JSON or (with --check)
not canonical, 2 usage or I/O error.";

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
    // Every file is formatted (or checked) even when the reader of stdout has gone.
    let out = &mut UntilClosed::new(out);
    let mut status = EXIT_CLEAN;
    for path in &args.files {
        let name = path.display().to_string();
        let bytes = read_file(path)?;
        let loaded = runstart::index::load(&bytes);
        let Some(document) = loaded.document.as_ref() else {
            // Not JSON (or not UTF-8, or a hostile size): nothing to format.
            out.write_all(render::human(&name, loaded.text, &loaded.report).as_bytes())?;
            status = EXIT_PROBLEMS;
            continue;
        };
        let canonical = runstart::index::canonical_text(document);
        if canonical.as_bytes() == bytes.as_slice() {
            continue;
        }
        if args.check {
            let line = first_difference(loaded.text.unwrap_or_default(), &canonical);
            writeln!(
                out,
                "{name}:{line}:1: not in canonical form; run `runstart fmt {name}`"
            )?;
            status = EXIT_PROBLEMS;
        } else {
            write_atomically(path, canonical.as_bytes())?;
            writeln!(out, "formatted {name}")?;
        }
    }
    Ok(status)
}

fn first_difference(text: &str, canonical: &str) -> usize {
    text.lines()
        .zip(canonical.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(canonical.lines().count()))
        + 1
}

/// Writes beside the file and renames over it, so an interrupted run never leaves half a
/// pack index.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError::Usage(format!("cannot write {}: {e}", path.display()));
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".runstart-fmt.tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}
