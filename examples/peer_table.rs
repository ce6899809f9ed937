//! Prints the side-by-side table of `benches/peers/compare.sh`: runstart's criterion medians
//! (per item) next to the JavaScript peers' medians measured in the same run.
//!
//! ```text
//! cargo run --release --example peer_table -- <criterion dir> [<peers.json>]
//! ```
//!
//! `<criterion dir>` is criterion's output folder (`target/criterion`); `<peers.json>` is what
//! `benches/peers/peers.mjs` printed. Without it (no Node on the machine) only runstart's side
//! is printed. Exit status: 0 printed, 2 a bench result is missing or unreadable.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One row: the peers' workload name, the criterion bench that times the same inputs, and what
/// it measures.
const ROWS: &[(&str, &str, &str)] = &[
    (
        "range_parse",
        "range_parse/conformance",
        "parse an npm range",
    ),
    (
        "max_satisfying_preparsed",
        "max_satisfying/preparsed",
        "`maxSatisfying`, range and versions pre-parsed",
    ),
    (
        "max_satisfying_strings",
        "max_satisfying/from_strings",
        "`maxSatisfying` from strings",
    ),
    ("liquid_parse", "parse/conformance", "Liquid parse"),
    (
        "liquid_parse_analyze",
        "parse_analyze/conformance",
        "Liquid parse + global variable analysis",
    ),
    (
        "liquid_render",
        "render/conformance",
        "Liquid strict render, pre-parsed",
    ),
];

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Criterion's median for one bench, in nanoseconds per element of its throughput.
fn runstart_ns_per_item(criterion: &Path, bench: &str) -> Result<f64, String> {
    let dir: PathBuf = criterion.join(bench).join("new");
    let estimates = read_json(&dir.join("estimates.json"))?;
    let benchmark = read_json(&dir.join("benchmark.json"))?;
    let median = estimates["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{bench}: no median in estimates.json"))?;
    let elements = benchmark["throughput"]["Elements"]
        .as_f64()
        .ok_or_else(|| format!("{bench}: no element throughput in benchmark.json"))?;
    Ok(median / elements)
}

fn show(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.2} µs", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(criterion) = args.first().map(PathBuf::from) else {
        eprintln!("usage: peer_table <criterion dir> [<peers.json>]");
        return ExitCode::from(2);
    };
    let peers = match args.get(1).map(|p| read_json(Path::new(p))).transpose() {
        Ok(peers) => peers,
        Err(e) => {
            eprintln!("peer_table: {e}");
            return ExitCode::from(2);
        }
    };
    match &peers {
        Some(p) => println!(
            "Node {}, npm semver {}, LiquidJS {}; medians per item, measured in one run\n",
            p["node"].as_str().unwrap_or("?"),
            p["semver"].as_str().unwrap_or("?"),
            p["liquidjs"].as_str().unwrap_or("?")
        ),
        None => println!("No Node.js peers measured (node not found): runstart's side only\n"),
    }
    println!("| workload (per item) | JS peer | runstart | ratio |");
    println!("| --- | ---: | ---: | ---: |");
    for (peer_name, bench, what) in ROWS {
        let ours = match runstart_ns_per_item(&criterion, bench) {
            Ok(ns) => ns,
            Err(e) => {
                eprintln!("peer_table: {e}");
                return ExitCode::from(2);
            }
        };
        let theirs = peers
            .as_ref()
            .and_then(|p| p["workloads"][peer_name]["nsPerItem"].as_f64());
        let (theirs_text, ratio) = match theirs {
            Some(t) => (show(t), format!("{:.0}×", t / ours)),
            None => ("–".to_owned(), "–".to_owned()),
        };
        println!("| {what} | {theirs_text} | {} | {ratio} |", show(ours));
    }
    ExitCode::SUCCESS
}
