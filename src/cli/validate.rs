//! `runstart validate <index.json>...`

use super::{CliError, Format};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pack index files to validate.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    let _ = (args, out);
    Err(CliError::Usage("validate: not built yet".into()))
}
