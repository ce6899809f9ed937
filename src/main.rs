//! The `runstart` binary: see [`runstart`]'s README for the commands.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
