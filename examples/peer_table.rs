//! Prints the side-by-side table of `benches/peers/compare.sh`: runstart's criterion medians
//! (per item) next to the JavaScript peers' medians, measured round by round in the same run.
//!
//! ```text
//! cargo run --release --example peer_table -- <rounds dir>
//! cargo run --release --example peer_table -- --workloads
//! ```
//!
//! `--workloads` prints one line per workload, `<peer name> <bench target> <criterion bench
//! id>`, the list `compare.sh` times, so that it is kept in one place.
//!
//! `<rounds dir>` (`target/peers`) holds one folder per round, `round-1`, `round-2`, …, each
//! with criterion's results of that round (`criterion/<bench id>/new/`) and, when Node was
//! found, what `benches/peers/peers.mjs --only <workload>` printed for each workload
//! (`peers-<workload>.json`). A row's ratio is the median of the rounds' ratios, each taken
//! between two timings made one right after the other; the JS peer and runstart columns are
//! the medians of each side. Without peer results only runstart's side is printed.
//!
//! Exit status: 0 printed, 2 a round or a bench result is missing or unreadable.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One row: the peers' workload name, the bench target and the criterion bench that time the
/// same inputs, and what it measures. `compare.sh` reads the first three (`--workloads`).
const ROWS: &[(&str, &str, &str, &str)] = &[
    (
        "range_parse",
        "resolve",
        "range_parse/conformance",
        "parse an npm range",
    ),
    (
        "max_satisfying_preparsed",
        "resolve",
        "max_satisfying/preparsed",
        "`maxSatisfying`, range and versions pre-parsed",
    ),
    (
        "max_satisfying_strings",
        "resolve",
        "max_satisfying/from_strings",
        "`maxSatisfying` from strings",
    ),
    (
        "liquid_parse",
        "template",
        "parse/conformance",
        "Liquid parse",
    ),
    (
        "liquid_parse_analyze",
        "template",
        "parse_analyze/conformance",
        "Liquid parse + global variable analysis",
    ),
    (
        "liquid_render",
        "template",
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

/// The peer's median for `workload` in one round (ns per item) and the peer file, or `None`
/// when the round has no peer result for it (no Node).
fn peer_ns_per_item(round: &Path, workload: &str) -> Result<Option<(f64, Value)>, String> {
    let path = round.join(format!("peers-{workload}.json"));
    if !path.exists() {
        return Ok(None);
    }
    let peers = read_json(&path)?;
    let ns = peers["workloads"][workload]["nsPerItem"]
        .as_f64()
        .ok_or_else(|| format!("{}: no nsPerItem for {workload}", path.display()))?;
    Ok(Some((ns, peers)))
}

/// The `round-<n>` folders of `dir`, in round order.
fn rounds(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut numbered = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|s| s.strip_prefix("round-"))
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        numbered.push((n, entry.path()));
    }
    if numbered.is_empty() {
        return Err(format!("{}: no round-<n> folder", dir.display()));
    }
    numbered.sort();
    Ok(numbered.into_iter().map(|(_, path)| path).collect())
}

/// The median of `xs` (the mean of the middle two for an even count); `xs` is not empty.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let mid = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[mid]
    } else {
        f64::midpoint(xs[mid - 1], xs[mid])
    }
}

fn show(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.2} µs", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

/// One row of the table, from every round.
struct Row {
    ours: Vec<f64>,
    /// Per round, when the round has a peer result.
    theirs: Vec<Option<f64>>,
}

fn read_row(rounds: &[PathBuf], peer: &str, bench: &str) -> Result<(Row, Option<Value>), String> {
    let mut row = Row {
        ours: Vec::new(),
        theirs: Vec::new(),
    };
    let mut peers_file = None;
    for round in rounds {
        row.ours
            .push(runstart_ns_per_item(&round.join("criterion"), bench)?);
        let theirs = peer_ns_per_item(round, peer)?;
        row.theirs.push(theirs.as_ref().map(|(ns, _)| *ns));
        if let Some((_, file)) = theirs {
            peers_file.get_or_insert(file);
        }
    }
    Ok((row, peers_file))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir] = args.as_slice() else {
        eprintln!("usage: peer_table <rounds dir> | --workloads");
        return ExitCode::from(2);
    };
    if dir == "--workloads" {
        for (peer, target, bench, _) in ROWS {
            println!("{peer} {target} {bench}");
        }
        return ExitCode::SUCCESS;
    }
    let rounds = match rounds(Path::new(dir)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("peer_table: {e}");
            return ExitCode::from(2);
        }
    };
    let mut rows = Vec::new();
    let mut peers_file = None;
    for (peer, _, bench, what) in ROWS {
        match read_row(&rounds, peer, bench) {
            Ok((row, file)) => {
                if peers_file.is_none() {
                    peers_file = file;
                }
                rows.push((*what, row));
            }
            Err(e) => {
                eprintln!("peer_table: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let n = rounds.len();
    match &peers_file {
        Some(p) => println!(
            "Node {}, npm semver {}, LiquidJS {}; medians per item; {n} rounds, each timing a \
             workload on both sides one right after the other\n",
            p["node"].as_str().unwrap_or("?"),
            p["semver"].as_str().unwrap_or("?"),
            p["liquidjs"].as_str().unwrap_or("?")
        ),
        None => println!("No Node.js peers measured (node not found): runstart's side only\n"),
    }
    println!("| workload (per item) | JS peer | runstart | ratio | ratio per round |");
    println!("| --- | ---: | ---: | ---: | --- |");
    for (what, row) in rows {
        let ours = median(row.ours.clone());
        let ratios: Vec<Option<f64>> = row
            .theirs
            .iter()
            .zip(&row.ours)
            .map(|(theirs, ours)| theirs.map(|t| t / ours))
            .collect();
        let measured: Vec<f64> = ratios.iter().flatten().copied().collect();
        let (theirs_text, ratio) = if measured.is_empty() {
            ("–".to_owned(), "–".to_owned())
        } else {
            let theirs: Vec<f64> = row.theirs.iter().flatten().copied().collect();
            (show(median(theirs)), format!("{:.0}×", median(measured)))
        };
        let per_round: Vec<String> = ratios
            .iter()
            .map(|r| r.map_or_else(|| "–".to_owned(), |r| format!("{r:.0}×")))
            .collect();
        println!(
            "| {what} | {theirs_text} | {} | {ratio} | {} |",
            show(ours),
            per_round.join(", ")
        );
    }
    ExitCode::SUCCESS
}
