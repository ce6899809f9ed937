//! Replays `../shared/conformance/semver/max-satisfying.jsonl`: 20,000 random ranges with npm
//! `semver` 7.8.6's answers for `validRange`, per-version `satisfies` and `maxSatisfying`
//! (default options). Every answer must agree; there is no xfail list.

mod util;

use runstart::range::{Range, VersionList, parse_version};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    range: String,
    valid_range: Option<String>,
    versions: Vec<String>,
    satisfies: Vec<bool>,
    max_satisfying: Option<String>,
}

#[test]
fn max_satisfying_conformance() {
    let Some(data) = util::shared_file("conformance/semver/max-satisfying.jsonl") else {
        return;
    };
    let (mut cases, mut ranges_ok, mut satisfies_checked, mut satisfies_ok, mut max_ok) =
        (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for (line_no, line) in data.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).expect("conformance line is JSON");
        cases += 1;
        let parsed = Range::parse(&case.range);
        let got = parsed.as_ref().ok().map(ToString::to_string);
        let mut fail = |what: String| {
            if failures.len() < 40 {
                failures.push(format!("line {}: {:?}: {what}", line_no + 1, case.range));
            }
        };
        if got == case.valid_range {
            ranges_ok += 1;
        } else {
            fail(format!(
                "validRange: npm {:?}, ours {got:?}",
                case.valid_range
            ));
        }
        // npm parses each version string itself and treats invalid ones as not satisfying.
        let versions: Vec<_> = case.versions.iter().map(|v| parse_version(v)).collect();
        for ((text, version), want) in case.versions.iter().zip(&versions).zip(&case.satisfies) {
            satisfies_checked += 1;
            let ours = match (&parsed, version) {
                (Ok(range), Some(v)) => range.satisfies(v),
                _ => false,
            };
            if ours == *want {
                satisfies_ok += 1;
            } else {
                fail(format!("satisfies({text}): npm {want}, ours {ours}"));
            }
        }
        let max = parsed.as_ref().ok().and_then(|range| {
            let valid: Vec<_> = versions.iter().flatten().collect();
            let best = range.max_satisfying(valid.iter().copied())?;
            // Report the original string of the winner, as npm does.
            let index = versions.iter().position(|v| v.as_ref() == Some(best))?;
            Some(case.versions[index].clone())
        });
        // The same question over the versions read once into a `VersionList`.
        let max_in_list = parsed.as_ref().ok().and_then(|range| {
            let list: VersionList = versions.iter().flatten().cloned().collect();
            let best = range.max_satisfying_in(&list)?;
            let at = list.versions().iter().position(|v| std::ptr::eq(v, best))?;
            let index = versions
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_some())
                .nth(at)?
                .0;
            Some(case.versions[index].clone())
        });
        if max_in_list != max {
            fail(format!(
                "max_satisfying_in: {max_in_list:?}, max_satisfying {max:?}"
            ));
        }
        if max == case.max_satisfying {
            max_ok += 1;
        } else {
            fail(format!(
                "maxSatisfying: npm {:?}, ours {max:?}",
                case.max_satisfying
            ));
        }
    }
    println!(
        "semver conformance: {cases} cases; validRange {ranges_ok}/{cases}; satisfies \
         {satisfies_ok}/{satisfies_checked}; maxSatisfying {max_ok}/{cases}"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches, first ones:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(cases, 20_000);
}
