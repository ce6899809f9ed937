//! npm ranges: parse, canonical form, `satisfies`, `max_satisfying`.
//!
//! Input: UTF-8 lines. The first line is the range, every further line a version. An odd
//! input length turns `includePrerelease` on, so both modes are explored.
//!
//! Invariants:
//! - parsing never panics, and text over `MAX_RANGE_LENGTH` bytes is refused;
//! - the canonical form (`Display`) re-parses (unless desugaring made it longer than
//!   `MAX_RANGE_LENGTH`, then it is refused as too long), and the re-parsed range accepts
//!   exactly the same versions (behaviour, not structure: `>=0.0.0` reads back as `*`). One
//!   npm quirk is allowed: a written `>=v0.0.0` prints as `>=0.0.0`, which npm reads back as
//!   `*`; as an alternative that replaces the union, inside one it drops the comparator, so
//!   the prereleases admitted may change (`<0.0.0-x.7.z || >=v0.0.0` admits 0.0.0-0 and its
//!   canonical form does not; `>=v0.0.0 >=v0.0.0-0` the other way round; npm agrees), and
//!   only releases are compared then;
//! - the packed-key fast path of `satisfies` agrees with its general path (the library
//!   asserts it on every call in builds with debug assertions, which `cargo fuzz` makes);
//! - `max_satisfying` returns a satisfying version, no satisfying version is greater, and
//!   it is `None` exactly when none satisfies; likewise `min_satisfying`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runstart::range::{
    MAX_RANGE_LENGTH, Range, RangeErrorKind, RangeOptions, compare_versions, parse_version,
};
use std::cmp::Ordering;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = RangeOptions::new().with_include_prerelease(data.len() % 2 == 1);
    let mut lines = text.split('\n');
    let range_text = lines.next().unwrap_or_default();
    let mut versions: Vec<semver::Version> = lines.take(64).filter_map(parse_version).collect();
    let range = match Range::parse_with(range_text, options) {
        Ok(r) => r,
        Err(e) => {
            let _ = (e.to_string(), e.code(), e.offset(), e.alternative());
            return;
        }
    };
    // npm collapses whitespace runs before reading a range, so the cap applies to the
    // collapsed, trimmed text (computed here independently of the parser).
    assert!(
        collapsed_len(range_text) <= MAX_RANGE_LENGTH,
        "overlong range accepted"
    );
    let canonical = range.to_string();
    let again = match Range::parse_with(&canonical, options) {
        Ok(r) => r,
        // Desugaring lengthens (`7` prints as `>=7.0.0-0 <8.0.0-0`), so a long range's
        // canonical form may exceed the cap; that is the only acceptable refusal.
        Err(e) if e.kind() == RangeErrorKind::TooLong => {
            assert!(canonical.len() > MAX_RANGE_LENGTH);
            return;
        }
        Err(e) => panic!("canonical form {canonical:?} of {range_text:?} fails: {e}"),
    };
    // The comparators' own versions are the interesting boundaries.
    for set in range.alternatives() {
        for c in set {
            if let Some(v) = c.version() {
                versions.push(v.clone());
                let mut pre = v.clone();
                if pre.pre.is_empty() {
                    pre.pre = semver::Prerelease::new("0").expect("valid prerelease");
                    versions.push(pre);
                }
                let mut next = v.clone();
                next.patch = next.patch.saturating_add(1);
                next.pre = semver::Prerelease::EMPTY;
                versions.push(next);
            }
        }
    }
    let gte0_read_back =
        !options.include_prerelease && canonical.split(['|', ' ']).any(|word| word == ">=0.0.0");
    for v in &versions {
        let yes = range.satisfies(v);
        if gte0_read_back && !v.pre.is_empty() {
            continue;
        }
        assert_eq!(
            yes,
            again.satisfies(v),
            "{range_text:?} and its canonical form {canonical:?} disagree on {v}"
        );
    }
    let any = versions.iter().any(|v| range.satisfies(v));
    match range.max_satisfying(&versions) {
        Some(max) => {
            assert!(range.satisfies(max));
            for v in &versions {
                assert!(
                    !(range.satisfies(v) && compare_versions(v, max) == Ordering::Greater),
                    "{v} satisfies {range_text:?} and is above max_satisfying {max}"
                );
            }
        }
        None => assert!(!any, "max_satisfying found nothing but a version satisfies"),
    }
    match range.min_satisfying(&versions) {
        Some(min) => {
            assert!(range.satisfies(min));
            for v in &versions {
                assert!(!(range.satisfies(v) && compare_versions(v, min) == Ordering::Less));
            }
        }
        None => assert!(!any),
    }
});

/// JavaScript's `\s`: the whitespace npm collapses. Written from Unicode's White_Space
/// (Rust's `char::is_whitespace`), which JavaScript follows except that it leaves out U+0085
/// and adds U+FEFF, so the oracle does not share runstart's table.
fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Length in bytes of `text` trimmed, with every whitespace run counted as one space.
fn collapsed_len(text: &str) -> usize {
    let words: Vec<&str> = text.split(is_js_space).filter(|w| !w.is_empty()).collect();
    words.iter().map(|w| w.len()).sum::<usize>() + words.len().saturating_sub(1)
}
