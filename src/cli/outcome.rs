//! How a subcommand ends and what it writes: the exit statuses, [`CliError`], the output
//! format, and JSON written so that a closed stdout is a broken pipe.

use std::io::{self, Write};

/// Exit status: no errors found.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: the input has problems.
pub const EXIT_PROBLEMS: u8 = 1;
/// Exit status: usage or I/O error.
pub const EXIT_USAGE: u8 = 2;

/// Output format shared by the subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    /// Lines for a person.
    #[default]
    Human,
    /// Machine-readable JSON.
    Json,
}

/// Why a subcommand could not finish.
#[derive(Debug)]
pub enum CliError {
    /// stdout was closed (e.g. piped into `head`): not an error. A command that knows its
    /// verdict before writing keeps it ([`after_writing`]); otherwise it exits 0.
    BrokenPipe,
    /// Usage or I/O problem, reported on stderr with exit status 2.
    Usage(String),
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Usage(e.to_string())
        }
    }
}

/// The exit status of a command that found `status` and then wrote its answer. A stdout
/// closed on the way (`runstart validate … | head`) keeps the status: the reader stopped
/// reading, the problems are still there, and a pipeline under `set -o pipefail` must fail.
pub fn after_writing(status: u8, written: Result<(), CliError>) -> Result<u8, CliError> {
    match written {
        Ok(()) | Err(CliError::BrokenPipe) => Ok(status),
        Err(e) => Err(e),
    }
}

/// A writer that drops what follows once its reader has gone (a closed stdout), for a command
/// whose work must go on without an audience: `fmt` still rewrites every file it was given.
pub struct UntilClosed<'w> {
    out: &'w mut dyn Write,
    closed: bool,
}

impl<'w> UntilClosed<'w> {
    /// Wraps `out`.
    pub fn new(out: &'w mut dyn Write) -> Self {
        UntilClosed { out, closed: false }
    }
}

impl Write for UntilClosed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.out.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            written => written,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.out.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            flushed => flushed,
        }
    }
}

/// A closed stdout while writing JSON is a broken pipe (exit 0), not a usage error.
pub fn json_error(e: serde_json::Error) -> CliError {
    match e.io_error_kind() {
        Some(io::ErrorKind::BrokenPipe) => CliError::BrokenPipe,
        _ => CliError::Usage(e.to_string()),
    }
}

/// Writes `value` as pretty JSON and a newline; a closed stdout is [`CliError::BrokenPipe`].
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(json_error)?;
    out.write_all(b"\n")?;
    Ok(())
}
