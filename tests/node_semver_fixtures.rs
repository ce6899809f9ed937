//! node-semver's own fixture tables (`../shared/peer-suites/node-semver/json/`, v7.8.5):
//! range-include, range-exclude, range-parse, comparisons, equality, invalid-versions and
//! max-min-satisfying. Every row with default options or `includePrerelease` must pass. Loose
//! mode is not implemented, so `loose` rows are counted and printed as skipped.

mod util;

use runstart::range::{Range, RangeOptions, compare_versions, parse_version};
use serde_json::Value;
use std::cmp::Ordering;

/// The options of a row, or `None` when the row runs in loose mode (skipped).
///
/// node-semver reads `true` as loose, a non-object as default, and an object's `loose` and
/// `includePrerelease` by JavaScript truthiness (`{loose: 123}` is loose, `{loose: null}` not).
fn options(v: Option<&Value>) -> Option<RangeOptions> {
    let truthy = |v: Option<&Value>| match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    };
    match v {
        Some(Value::Bool(true)) => None,
        Some(Value::Object(o)) if !o.contains_key("$regexp") => {
            if truthy(o.get("loose")) {
                None
            } else {
                Some(
                    RangeOptions::new().with_include_prerelease(truthy(o.get("includePrerelease"))),
                )
            }
        }
        _ => Some(RangeOptions::new()),
    }
}

fn rows(name: &str) -> Option<Vec<Vec<Value>>> {
    let text = util::shared_file(&format!("peer-suites/node-semver/json/{name}.json"))?;
    Some(serde_json::from_str(&text).expect("fixture is JSON"))
}

/// npm's `satisfies(version, range, options)`: false for an invalid range or version.
fn satisfies(range: &Value, version: &Value, options: RangeOptions) -> bool {
    let (Some(range), Some(version)) = (range.as_str(), version.as_str()) else {
        return false;
    };
    let (Ok(range), Some(version)) = (Range::parse_with(range, options), parse_version(version))
    else {
        return false;
    };
    range.satisfies(&version)
}

#[derive(Default)]
struct Tally {
    passed: usize,
    skipped_loose: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, ok: bool, row: &[Value]) {
        if ok {
            self.passed += 1;
        } else {
            self.failures
                .push(serde_json::to_string(row).unwrap_or_default());
        }
    }

    #[track_caller]
    fn finish(self, name: &str) {
        println!(
            "node-semver {name}: {} passed, {} loose rows skipped, {} failed",
            self.passed,
            self.skipped_loose,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{name} failures:\n{}",
            self.failures.join("\n")
        );
        assert!(self.passed > 0, "{name}: no rows ran");
    }
}

fn range_rows(name: &str, want: bool) {
    let Some(rows) = rows(name) else { return };
    let mut tally = Tally::default();
    for row in &rows {
        let Some(options) = options(row.get(2)) else {
            tally.skipped_loose += 1;
            continue;
        };
        tally.check(satisfies(&row[0], &row[1], options) == want, row);
    }
    tally.finish(name);
}

#[test]
fn range_include() {
    range_rows("range-include", true);
}

#[test]
fn range_exclude() {
    range_rows("range-exclude", false);
}

#[test]
fn range_parse() {
    let Some(rows) = rows("range-parse") else {
        return;
    };
    let mut tally = Tally::default();
    for row in &rows {
        let Some(options) = options(row.get(2)) else {
            tally.skipped_loose += 1;
            continue;
        };
        let range = row[0].as_str().expect("range-parse ranges are strings");
        let ours = Range::parse_with(range, options)
            .ok()
            .map(|r| r.to_string());
        tally.check(ours.as_deref() == row[1].as_str(), row);
    }
    tally.finish("range-parse");
}

fn compare_rows(name: &str, want: Ordering) {
    let Some(rows) = rows(name) else { return };
    let mut tally = Tally::default();
    for row in &rows {
        if options(row.get(2)).is_none() {
            tally.skipped_loose += 1;
            continue;
        }
        let a = row[0].as_str().and_then(parse_version);
        let b = row[1].as_str().and_then(parse_version);
        let ok = match (a, b) {
            (Some(a), Some(b)) => {
                compare_versions(&a, &b) == want && compare_versions(&b, &a) == want.reverse()
            }
            _ => false,
        };
        tally.check(ok, row);
    }
    tally.finish(name);
}

#[test]
fn comparisons() {
    compare_rows("comparisons", Ordering::Greater);
}

#[test]
fn equality() {
    compare_rows("equality", Ordering::Equal);
}

#[test]
fn invalid_versions() {
    let Some(rows) = rows("invalid-versions") else {
        return;
    };
    let mut tally = Tally::default();
    let mut not_strings = 0;
    for row in &rows {
        if options(row.get(2)).is_none() {
            tally.skipped_loose += 1;
            continue;
        }
        match row[0].as_str() {
            Some(text) => tally.check(parse_version(text).is_none(), row),
            // A regex or an object: `parse_version` only takes strings, so nothing to run.
            None => not_strings += 1,
        }
    }
    println!("node-semver invalid-versions: {not_strings} non-string rows need no check");
    tally.finish("invalid-versions");
}

#[test]
fn max_min_satisfying() {
    let Some(text) = util::shared_file("peer-suites/node-semver/json/max-min-satisfying.json")
    else {
        return;
    };
    let doc: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let mut tally = Tally::default();
    for (key, max) in [("maxSatisfying", true), ("minSatisfying", false)] {
        for row in doc[key].as_array().expect("rows") {
            let row = row.as_array().expect("row");
            if options(row.get(3)).is_none() {
                tally.skipped_loose += 1;
                continue;
            }
            let texts: Vec<&str> = row[0]
                .as_array()
                .expect("versions")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let versions: Vec<_> = texts.iter().map(|t| parse_version(t)).collect();
            let got = Range::parse(row[1].as_str().expect("range"))
                .ok()
                .and_then(|range| {
                    let valid = versions.iter().flatten();
                    let best = if max {
                        range.max_satisfying(valid)
                    } else {
                        range.min_satisfying(valid)
                    }?;
                    let i = versions.iter().position(|v| v.as_ref() == Some(best))?;
                    Some(texts[i])
                });
            tally.check(got == row[2].as_str(), row);
        }
    }
    for row in doc["invalidRangesNeverSatisfy_from_functions_satisfies_js"]
        .as_array()
        .expect("rows")
    {
        let row = row.as_array().expect("row");
        if options(row.get(2)).is_none() {
            tally.skipped_loose += 1;
            continue;
        }
        tally.check(!satisfies(&row[0], &row[1], RangeOptions::new()), row);
    }
    tally.finish("max-min-satisfying");
}
