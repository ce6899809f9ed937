use super::*;

#[track_caller]
fn canon(range: &str) -> String {
    match Range::parse(range) {
        Ok(r) => r.to_string(),
        Err(e) => format!("ERR {e}"),
    }
}

#[track_caller]
fn canon_pre(range: &str) -> String {
    let options = RangeOptions::new().with_include_prerelease(true);
    match Range::parse_with(range, options) {
        Ok(r) => r.to_string(),
        Err(e) => format!("ERR {e}"),
    }
}

#[test]
fn spec_table() {
    // ../shared/spec/agents.md §1.2, verified there against semver 7.8.6.
    for (range, want) in [
        ("", "*"),
        (" ", "*"),
        ("*", "*"),
        ("x", "*"),
        ("1", ">=1.0.0 <2.0.0-0"),
        ("1.x", ">=1.0.0 <2.0.0-0"),
        ("^1", ">=1.0.0 <2.0.0-0"),
        ("~1.2", ">=1.2.0 <1.3.0-0"),
        ("^1.0.0 || ^2.0.0", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0"),
        ("1.0.0 - 2.0.0", ">=1.0.0 <=2.0.0"),
        ("v1.0.0", "1.0.0"),
        ("=1.0.0", "1.0.0"),
        (" ^1.0.0 ", ">=1.0.0 <2.0.0-0"),
        (">= 1.0.0", ">=1.0.0"),
        ("^1.2.3+build", ">=1.2.3 <2.0.0-0"),
    ] {
        assert_eq!(canon(range), want, "{range:?}");
    }
    for bad in [
        "latest",
        "01.0.0",
        "1.0.0.0",
        "not a range",
        "not-a-range",
        "^1.0.0 || not",
    ] {
        assert!(Range::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn quirks() {
    for (range, want) in [
        ("v0.0", "<0.1.0-0"),
        (">=0.0.0", "*"),
        ("*||>=1.2.x", "*"),
        ("<=3.2.*", "<3.3.0-0"),
        ("==1", ">=1.0.0 <2.0.0-0"),
        (">=1.2.3*", ">=1.2.3"),
        ("1.2.3 +build", "1.2.3"),
        ("1.2.3 |||| 2", "*"),
        ("<x <* || >* 2.x", "<0.0.0-0"),
        (">x 2.x || * || <x", "*"),
        (
            "^9007199254740990.0.0",
            ">=9007199254740990.0.0 <9007199254740991.0.0-0",
        ),
        ("~> 1", ">=1.0.0 <2.0.0-0"),
        ("^ 1.2 ^ 1", ">=1.2.0 <2.0.0-0 >=1.0.0"),
        ("1.2.3 1.2.3", "1.2.3"),
    ] {
        assert_eq!(canon(range), want, "{range:?}");
    }
    for bad in [
        ">=>1",
        "=1.2.3 - 2",
        "^9007199254740991.0.0",
        "1.x.5",
        "x.1",
        "|",
    ] {
        assert!(Range::parse(bad).is_err(), "{bad:?} gave {}", canon(bad));
    }
    assert_eq!(canon_pre("~0.0"), "<0.1.0-0");
    assert_eq!(canon_pre("1.0.0 - 2.0.0"), ">=1.0.0-0 <2.0.1-0");
}

#[test]
fn errors_carry_code_and_kind() {
    let e = Range::parse("^1.0.0 || nope").unwrap_err();
    assert_eq!(e.code(), "invalid-version-range");
    assert_eq!(e.kind(), RangeErrorKind::InvalidComparator);
    assert_eq!(e.alternative(), 1);
    assert_eq!(e.text(), "nope");
    let e = Range::parse("^1 é").unwrap_err();
    assert_eq!(e.kind(), RangeErrorKind::InvalidCharacter);
    assert_eq!(e.offset(), 3);
    let long = "1".repeat(MAX_RANGE_LENGTH + 1);
    assert_eq!(
        Range::parse(&long).unwrap_err().kind(),
        RangeErrorKind::TooLong
    );
}

#[test]
fn satisfies_prerelease_rule() {
    let r = Range::parse("^1.2.3-beta.2").unwrap();
    let v = |s: &str| parse_version(s).unwrap();
    assert!(r.satisfies(&v("1.2.3-beta.3")));
    assert!(!r.satisfies(&v("1.2.3-beta.1")));
    assert!(!r.satisfies(&v("1.2.4-beta.3")));
    assert!(r.satisfies(&v("1.9.9+build")));
    let any = Range::parse("*").unwrap();
    assert!(!any.satisfies(&v("1.0.0-rc.1")));
    let any_pre =
        Range::parse_with("*", RangeOptions::new().with_include_prerelease(true)).unwrap();
    assert!(any_pre.satisfies(&v("1.0.0-rc.1")));
}

#[test]
fn versions_npm_style() {
    assert!(parse_version("1.2.3").is_some());
    assert!(parse_version("\u{feff} v1.2.3\t").is_some());
    assert!(parse_version("=1.2.3").is_none());
    assert!(parse_version("9007199254740992.0.0").is_none());
    assert!(parse_version("9007199254740991.0.0").is_some());
    assert!(parse_version(&format!("1.2.3-{}", "a".repeat(251))).is_none());
    assert!(parse_version(&format!("1.2.3-{}", "a".repeat(250))).is_some());
}
