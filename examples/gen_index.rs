//! Generates a large, realistic synthetic pack index for benchmarks and scale tests.
//!
//! ```sh
//! cargo run --release --example gen_index -- --agents 10000 --tools 2000 --flows 500 > big.json
//! ```
//!
//! The output is deterministic for the same arguments (a fixed-seed generator), canonical, and
//! valid: `runstart validate` reports nothing on it.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../benches/common/gen.rs"]
mod generator;

use generator::Spec;
use runstart::index::canonical_text;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut agents = 1000usize;
    let mut tools = 0usize;
    let mut flows = 0usize;
    let mut blocks = 0usize;
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (flag.as_str(), value) {
            ("--agents", Some(n)) => agents = n,
            ("--tools", Some(n)) => tools = n,
            ("--flows", Some(n)) => flows = n,
            ("--blocks", Some(n)) => blocks = n,
            _ => {
                eprintln!("usage: gen_index [--agents N] [--tools N] [--flows N] [--blocks N]");
                std::process::exit(2);
            }
        }
    }
    let spec = Spec::new(agents, tools, flows, blocks);
    print!("{}", canonical_text(&spec.index()));
}
