use super::super::Range;
use super::super::parse::parse_general;
use super::parse;
use std::collections::HashSet;

/// When the one-pass reading answers `input`, the general path gives the same range (so
/// also the same canonical text) and no error. Returns whether the one-pass reading answered.
#[track_caller]
fn agrees(input: &str, include_prerelease: bool) -> bool {
    let Some((comparators, ends)) = parse(input, include_prerelease) else {
        return false;
    };
    let fast = Range::from_parsed(comparators, ends, include_prerelease);
    let general = parse_general(input, include_prerelease)
        .map(|(comparators, ends)| Range::from_parsed(comparators, ends, include_prerelease));
    assert_eq!(
        general.as_ref(),
        Ok(&fast),
        "{input:?}, include_prerelease {include_prerelease}"
    );
    assert_eq!(
        general.map(|r| r.to_string()),
        Ok(fast.to_string()),
        "{input:?}, include_prerelease {include_prerelease}"
    );
    true
}

/// The `range` of every case of `../shared/conformance/semver/max-satisfying.jsonl`, with
/// whether npm found it valid. Without `../shared` it says so on stderr and gives `None` (the
/// caller checks nothing), except under `CI=true`, where it fails: as the integration tests'
/// `shared_dir` does.
fn conformance_ranges() -> Option<Vec<(String, bool)>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/conformance/semver/max-satisfying.jsonl"
    );
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("cannot read {path} ({e}): CI must have ../shared")
        }
        Err(e) => {
            // The stderr handle, not `eprintln!`, which the harness hides for passing tests.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: cannot read {path} ({e}); the conformance agreement test checked nothing"
            );
            return None;
        }
    };
    let ranges = text
        .lines()
        .map(|line| {
            let case: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let range = case["range"].as_str().expect("a range").to_owned();
            (range, case["validRange"].is_string())
        })
        .collect();
    Some(ranges)
}

/// The characters inserted into conformance ranges: the grammar's own, and near misses.
const INSERTED: [char; 20] = [
    ' ', '|', '-', '.', '0', '1', '9', 'x', 'X', '*', 'v', '=', '<', '>', '^', '~', '+', 'a', '\t',
    '\u{a0}',
];

/// `range`, each of its prefixes and suffixes, `range` with one character deleted, and with
/// one character inserted at each position (which one turns with `seed`, so that over the
/// corpus every character goes everywhere).
fn mutations(range: &str, seed: usize, into: &mut HashSet<String>) {
    let bounds: Vec<usize> = range
        .char_indices()
        .map(|(i, _)| i)
        .chain([range.len()])
        .collect();
    into.insert(range.to_owned());
    for (k, &at) in bounds.iter().enumerate() {
        into.insert(range[..at].to_owned());
        into.insert(range[at..].to_owned());
        if let Some(&next) = bounds.get(k + 1) {
            into.insert(format!("{}{}", &range[..at], &range[next..]));
        }
        let c = INSERTED[(seed + k) % INSERTED.len()];
        into.insert(format!("{}{c}{}", &range[..at], &range[at..]));
    }
}

/// Every conformance range and its mutations, with and without prereleases included: where
/// the one-pass reading answers, the general path agrees. Most valid conformance ranges take
/// the one pass.
#[test]
fn agrees_on_conformance_ranges_and_their_mutations() {
    let Some(ranges) = conformance_ranges() else {
        return;
    };
    let mut valid = 0;
    let mut valid_answered = 0;
    for (range, is_valid) in &ranges {
        let answered = agrees(range, false);
        agrees(range, true);
        valid += usize::from(*is_valid);
        valid_answered += usize::from(*is_valid && answered);
        assert!(*is_valid || !answered, "{range:?} is invalid, yet answered");
    }
    assert!(
        valid_answered * 10 > valid * 7,
        "only {valid_answered} of {valid} valid conformance ranges read in one pass"
    );
    let mut inputs = HashSet::new();
    for (seed, (range, _)) in ranges.iter().enumerate() {
        mutations(range, seed, &mut inputs);
    }
    let mut answered = 0;
    for input in &inputs {
        answered += usize::from(agrees(input, false));
        answered += usize::from(agrees(input, true));
    }
    assert!(inputs.len() > 200_000, "{} mutations", inputs.len());
    assert!(
        answered > inputs.len() / 2,
        "{answered} answers for {} mutations",
        inputs.len()
    );
}

/// Simple forms and their near misses (odd leads, leading zeros, numbers at the size limits,
/// wildcards anywhere, suffixes), with and without prereleases included.
#[test]
fn agrees_on_simple_forms_and_near_misses() {
    let leads = [
        "",
        "=",
        "^",
        "~",
        "~>",
        ">",
        ">=",
        "<",
        "<=",
        "==",
        "v",
        ">=v",
        " ",
        "^ ",
        ">= ",
        "= ",
        "~> v",
        "1 - ",
        // npm keeps the space after a lone `=` when a word ending in `v` comes before.
        "1.2.3-dev = ",
        "1.2.3-dev > ",
        "1.2.3-v ^ ",
        "1.2.3 = ",
        "v0.0.0-0 - ",
    ];
    let parts = [
        "0",
        "1",
        "7",
        "10",
        "01",
        "x",
        "X",
        "*",
        "999999999999999",
        "1000000000000000",
        "",
    ];
    let suffixes = [
        "", "-0", "-beta.1", "-01", "+build", " ", ".", "x", " || 2", "||^0.1", " <3", " >=0.0.0",
        " 0", " || x", " ||", "  2", " - 2", " - 0.0.0", " - *", ".x", ".*", ".0", " - 1.2 3",
    ];
    let mut answered = 0;
    let mut checked = 0;
    for lead in leads {
        for a in parts {
            for b in std::iter::once(None).chain(parts.map(Some)) {
                for c in std::iter::once(None).chain(parts.map(Some)) {
                    if b.is_none() && c.is_some() {
                        continue;
                    }
                    let mut version = a.to_string();
                    for part in [b, c].into_iter().flatten() {
                        version.push('.');
                        version.push_str(part);
                    }
                    for suffix in suffixes {
                        let input = format!("{lead}{version}{suffix}");
                        for include_prerelease in [false, true] {
                            checked += 1;
                            answered += usize::from(agrees(&input, include_prerelease));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 300_000, "{checked} inputs");
    assert!(
        answered > 30_000,
        "only {answered} of {checked} read in one pass"
    );
}

#[test]
fn reads_the_common_forms_and_leaves_the_rest() {
    let canonical =
        |s: &str| parse(s, false).map(|(c, ends)| Range::from_parsed(c, ends, false).to_string());
    for (range, want) in [
        ("^1.2.3", ">=1.2.3 <2.0.0-0"),
        ("~0.2", ">=0.2.0 <0.3.0-0"),
        ("^0.0.3", ">=0.0.3 <0.0.4-0"),
        ("1.x", ">=1.0.0 <2.0.0-0"),
        ("0", "<1.0.0-0"),
        (">=0.0.0", "*"),
        (">=v0.0.0", ">=0.0.0"),
        ("", "*"),
        ("<*", "<0.0.0-0"),
        ("v1.2.3-beta.1", "1.2.3-beta.1"),
        ("~> 1.2", ">=1.2.0 <1.3.0-0"),
        (">= 1.2 < 1.4", ">=1.2.0 <1.4.0-0"),
        ("  ^1.0.0  ||  2.x ", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0"),
        ("1 |||| 2", "*"),
        ("1.2 - 2.3.4-rc.1", ">=1.2.0 <=2.3.4-rc.1"),
        ("* - 2", "<3.0.0-0"),
        ("1.2.3 1.2.3", "1.2.3"),
        ("v0.0.0 - 1", ">=0.0.0 <2.0.0-0"),
    ] {
        assert_eq!(canonical(range).as_deref(), Some(want), "{range:?}");
    }
    for general in [
        "1.x.2",
        "01.2.3",
        "1.2.3+build",
        "1.2.x-beta",
        "= 1",
        "==1",
        ">=1.2.3*",
        "1 - 2 - 3",
        "1.2.3-dev = 1",
        "\t1",
        "1 | 2",
        "1.2.3-01",
        "1000000000000000",
        "latest",
    ] {
        assert_eq!(canonical(general), None, "{general:?}");
    }
}
