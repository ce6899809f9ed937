//! The `runstart` binary: see [`runstart`]'s README for the commands.
#![forbid(unsafe_code)]

mod cli;

/// Validating a large index makes millions of small allocations from several threads at once;
/// mimalloc's per-thread heaps keep them from contending (glibc's arenas do not: the 10,000-agent
/// validation scaled 1.2x on 2 threads with glibc).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
