//! Range parsing and tool resolution, against npm `semver` 7.8.6's numbers in
//! `../shared/bench/README.md` (17.0 µs per range parse, 2.7 µs per pre-parsed `maxSatisfying`).
//!
//! - `range_parse/conformance`: every valid range of `../shared/conformance/semver/max-satisfying.jsonl`,
//!   each parsed and dropped.
//! - `range_parse/spec_table_hot`: the 15 ranges of spec §1.2's table, repeatedly (hot cache).
//! - `range_parse/adversarial_256`: 256-byte hostile ranges (runs of spaces, operators, `||`, x's).
//! - `max_satisfying/preparsed`: the same conformance cases with the range pre-parsed and the
//!   versions read once into a `VersionList` (`preparsed_hot16`: the first 16 of them,
//!   repeatedly); `preparsed_versions`: the versions as plain `semver::Version`s;
//!   `from_strings`: range and versions parsed in the timed loop, as npm's
//!   `maxSatisfying(strings, string)`.
//! - `resolve/catalog_10k`: 10,000 tools × 20 versions, one pre-parsed reference per tool, a mix
//!   of exact, caret, tilde, x, union and hyphen ranges (memory-bound: every tool is cold).
//! - `resolve/catalog_10k_hot16`: the same catalog, 16 of those references again and again, as
//!   one agent's tools would be.
//!
//! Each group's throughput is in elements (parses or resolves), so criterion's time divided by
//! the element count is the per-operation cost.

/// The allocator the `runstart` binary and the Node binding use (see `src/main.rs`), as the
/// template and validate benches set it: a range of three or more comparators, or of `||`
/// alternatives, allocates, and the product never parses with the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use runstart::catalog::{Catalog, ToolRange};
use runstart::range::{Range, VersionList, parse_version};
use semver::Version;
use std::hint::black_box;

struct Case {
    range: String,
    versions: Vec<Version>,
    expected: Option<Version>,
}

fn conformance_cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/conformance/semver/max-satisfying.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("../shared/conformance/semver is needed");
    text.lines()
        .filter_map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            v["validRange"].as_str()?;
            Some(Case {
                range: v["range"].as_str()?.to_owned(),
                versions: v["versions"]
                    .as_array()?
                    .iter()
                    .filter_map(|s| parse_version(s.as_str()?))
                    .collect(),
                expected: v["maxSatisfying"].as_str().and_then(parse_version),
            })
        })
        .collect()
}

fn adversarial() -> Vec<String> {
    let n = 256;
    vec![
        " ".repeat(n),
        "||".repeat(n / 2),
        "x ".repeat(n / 2),
        format!("{}1", "v".repeat(n - 1)),
        format!("{}1", "=".repeat(n - 1)),
        "~ ".repeat(n / 2),
        "1 - ".repeat(n / 4),
        "<x ".repeat(n / 3),
        ">= ".repeat(n / 3),
        "^1.2.3 ".repeat(n / 7),
    ]
}

fn bench_parse(c: &mut Criterion) {
    let cases = conformance_cases();
    let ranges: Vec<&str> = cases.iter().map(|c| c.range.as_str()).collect();
    assert!(ranges.iter().all(|r| Range::parse(r).is_ok()));
    let mut group = c.benchmark_group("range_parse");
    group.throughput(Throughput::Elements(ranges.len() as u64));
    // Each range is parsed and dropped, as the peer script's `new semver.Range(r)` becomes
    // garbage at once: collecting 18,798 parsed ranges into a fresh 3 MB vector per iteration
    // (as this bench did up to 2026-12-07) also timed allocating and faulting in that vector.
    group.bench_function(BenchmarkId::from_parameter("conformance"), |b| {
        b.iter(|| {
            ranges
                .iter()
                .filter(|r| Range::parse(black_box(r)).is_ok())
                .count()
        })
    });
    // The ranges of spec §1.2's table, parsed again and again: a hot cache, as when one agent
    // loads (the conformance set above does not fit in cache, so it is memory-bound).
    let typical = [
        "",
        "*",
        "1",
        "1.x",
        "^1",
        "~1.2",
        "^1.0.0 || ^2.0.0",
        "1.0.0 - 2.0.0",
        "v1.0.0",
        "=1.0.0",
        " ^1.0.0 ",
        ">= 1.0.0",
        "^1.2.3+build",
        ">=1.2.3 <2.0.0",
        "~1.2.3-beta.1",
    ];
    group.throughput(Throughput::Elements(typical.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("spec_table_hot"), |b| {
        b.iter_with_large_drop(|| {
            typical
                .iter()
                .map(|r| Range::parse(black_box(r)))
                .collect::<Vec<_>>()
        })
    });
    let hostile = adversarial();
    group.throughput(Throughput::Elements(hostile.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("adversarial_256"), |b| {
        b.iter_with_large_drop(|| {
            hostile
                .iter()
                .map(|r| Range::parse(black_box(r)))
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

fn bench_max_satisfying(c: &mut Criterion) {
    let cases = conformance_cases();
    let parsed: Vec<(Range, &Case)> = cases
        .iter()
        .map(|c| (Range::parse(&c.range).expect("valid range"), c))
        .collect();
    // Runstart's pre-parsed form of a version list: each version with its packed key.
    let lists: Vec<(&Range, VersionList)> = parsed
        .iter()
        .map(|(range, case)| (range, VersionList::new(case.versions.clone())))
        .collect();
    for ((range, case), (_, list)) in parsed.iter().zip(&lists) {
        let want = case.expected.as_ref().map(ToString::to_string);
        let got = range.max_satisfying(&case.versions);
        assert_eq!(got.map(ToString::to_string), want);
        let got = range.max_satisfying_in(list);
        assert_eq!(got.map(ToString::to_string), want);
    }
    let mut group = c.benchmark_group("max_satisfying");
    group.throughput(Throughput::Elements(parsed.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("preparsed"), |b| {
        b.iter(|| {
            lists
                .iter()
                .filter(|(range, list)| black_box(range).max_satisfying_in(list).is_some())
                .count()
        })
    });
    // The versions as plain `semver::Version`s, each packed as it is read.
    group.bench_function(BenchmarkId::from_parameter("preparsed_versions"), |b| {
        b.iter(|| {
            parsed
                .iter()
                .filter(|(range, case)| black_box(range).max_satisfying(&case.versions).is_some())
                .count()
        })
    });
    // npm's `maxSatisfying(versions, range)` called with strings: parse the range and every
    // version, then pick (what a caller without a compiled catalog pays).
    group.throughput(Throughput::Elements(cases.len() as u64));
    let strings: Vec<(&str, Vec<String>)> = cases
        .iter()
        .map(|c| {
            (
                c.range.as_str(),
                c.versions.iter().map(ToString::to_string).collect(),
            )
        })
        .collect();
    group.bench_function(BenchmarkId::from_parameter("from_strings"), |b| {
        b.iter(|| {
            strings
                .iter()
                .filter(|(range, versions)| {
                    let Ok(range) = Range::parse(black_box(range)) else {
                        return false;
                    };
                    let versions: Vec<Version> =
                        versions.iter().filter_map(|v| parse_version(v)).collect();
                    range.max_satisfying(&versions).is_some()
                })
                .count()
        })
    });
    let hot = &lists[..16];
    group.throughput(Throughput::Elements(hot.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("preparsed_hot16"), |b| {
        b.iter(|| {
            hot.iter()
                .filter(|(range, list)| black_box(range).max_satisfying_in(list).is_some())
                .count()
        })
    });
    group.finish();
}

/// A small deterministic generator, so the catalog is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

fn bench_resolve(c: &mut Criterion) {
    const TOOLS: usize = 10_000;
    const VERSIONS: usize = 20;
    let mut rng = Lcg(42);
    let mut catalog = Catalog::new();
    let mut refs = Vec::with_capacity(TOOLS);
    for t in 0..TOOLS {
        let id = format!("pack{}.tool{t:05}", t % 50);
        let mut versions = Vec::new();
        while versions.len() < VERSIONS {
            let v = Version::new(rng.next(4), rng.next(6), rng.next(10));
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        for v in &versions {
            catalog
                .insert("tenant", &id, v.clone(), t)
                .expect("distinct versions");
        }
        let pick = &versions[rng.next(VERSIONS as u64) as usize];
        let (m, n) = (pick.major, pick.minor);
        let range = match t % 6 {
            0 => pick.to_string(),
            1 => format!("^{m}.{n}"),
            2 => format!("~{m}.{n}"),
            3 => format!("{m}.x"),
            4 => format!("^{m}.{n} || ~{}.0", (m + 1) % 4),
            _ => format!("{m}.0.0 - {m}.{}", n + 1),
        };
        refs.push((id, ToolRange::new(&range), versions));
    }
    // The catalog must agree with a plain max_satisfying over the same versions, and every
    // reference resolves (each range admits the version it was built from), so the timings
    // are of successful, allocation-free resolves.
    for (id, range, versions) in &refs {
        let want = range.range().expect("valid").max_satisfying(versions);
        let got = catalog.resolve("tenant", id, range).ok().map(|r| r.version);
        assert_eq!(got, want, "{id} {}", range.text());
        assert!(got.is_some(), "{id} {}", range.text());
    }
    let mut group = c.benchmark_group("resolve");
    group.throughput(Throughput::Elements(refs.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("catalog_10k"), |b| {
        b.iter(|| {
            refs.iter()
                .filter(|(id, range, _)| catalog.resolve("tenant", black_box(id), range).is_ok())
                .count()
        })
    });
    // An agent resolves a handful of tools, which stay in cache: the same catalog, 16 refs.
    let hot: Vec<_> = refs.iter().step_by(refs.len() / 16).take(16).collect();
    group.throughput(Throughput::Elements(hot.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("catalog_10k_hot16"), |b| {
        b.iter(|| {
            hot.iter()
                .filter(|(id, range, _)| catalog.resolve("tenant", black_box(id), range).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_parse, bench_max_satisfying, bench_resolve);
criterion_main!(benches);
