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
fn gte0_is_read_by_its_exact_text() {
    // npm's replaceGTE0 matches the text `>=0.0.0` only, so `>=v0.0.0` stays a comparator
    // and its canonical form is not a fixed point (proptest finding, kept as npm has it).
    assert_eq!(canon(">=v0.0.0"), ">=0.0.0");
    assert_eq!(canon(">=0.0.0"), "*");
    assert_eq!(canon("v0.0.0 - 0"), ">=0.0.0 <1.0.0-0");
    assert_eq!(canon(">=0.0.0 <1.0.0-0"), "<1.0.0-0");
}

#[test]
fn gte0_read_back_changes_the_prereleases_admitted() {
    // Fuzz findings, npm semver 7.8.6 answers the same. Written `>=v0.0.0` is a comparator;
    // the canonical form says `>=0.0.0`, which npm reads as `*`. As an alternative it
    // replaces the whole union, so `<0.0.0-x.7.z` no longer admits 0.0.0-0. The two forms
    // agree on every release and may differ on prereleases.
    let written = Range::parse("<0.0.0-x.7.z || >=v0.0.0").expect("valid");
    assert_eq!(written.to_string(), "<0.0.0-x.7.z||>=0.0.0");
    let read_back = Range::parse(&written.to_string()).expect("valid");
    assert_eq!(read_back.to_string(), "*");
    let pre = parse_version("0.0.0-0").expect("valid");
    assert!(written.satisfies(&pre));
    assert!(!read_back.satisfies(&pre));
    for release in ["0.0.0", "0.0.1", "7.1.0"] {
        let v = parse_version(release).expect("valid");
        assert!(
            written.satisfies(&v) && read_back.satisfies(&v),
            "{release}"
        );
    }
    // Inside one alternative the read-back `>=0.0.0` is dropped, and with it a bound that
    // kept a prerelease out (fuzz finding; npm: false, then true).
    let written = Range::parse(" >=v0.0.0 >=v0.0.0-0").expect("valid");
    assert_eq!(written.to_string(), ">=0.0.0 >=0.0.0-0");
    let read_back = Range::parse(&written.to_string()).expect("valid");
    assert_eq!(read_back.to_string(), ">=0.0.0-0");
    assert!(!written.satisfies(&pre));
    assert!(read_back.satisfies(&pre));
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
    assert_eq!(
        Range::parse(&long).unwrap_err().to_string(),
        "range is 1025 bytes long (with each run of whitespace counted once); ranges are limited to 1024 bytes"
    );
}

#[test]
fn whitespace_padding_is_not_length() {
    // npm reads `>=1.2.3 <2.0.0` padded with a megabyte of whitespace as the plain range.
    let pad = " \t ".repeat(350_000);
    let padded = format!("{pad}>={pad}1.2.3{pad}<2.0.0{pad}||{pad}3.x{pad}");
    assert!(padded.len() > 4_000_000);
    let started = cpu_time::ThreadTime::now();
    let range = Range::parse(&padded).expect("padding is accepted");
    assert_eq!(range.to_string(), ">=1.2.3 <2.0.0||>=3.0.0 <4.0.0-0");
    // Linear: a few megabytes take milliseconds, far from any quadratic blow-up.
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // The cap still holds on the collapsed text.
    let many = vec!["1.2.3"; 200].join("  ||  ");
    assert_eq!(
        Range::parse(&many).unwrap_err().to_string(),
        "range is 1796 bytes long (with each run of whitespace counted once); ranges are limited to 1024 bytes"
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

/// 256- and 1024-byte hostile ranges: runs of spaces, operators, `||`, x's, prefixes and
/// tildes. Each must give npm's answer, and quickly (the regex version of this was a ReDoS).
static LONG_PRERELEASE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("1.2.3-{}", "a".repeat(250)));

#[test]
fn adversarial_ranges() {
    let cases: Vec<(String, Option<&str>)> = [256usize, MAX_RANGE_LENGTH]
        .iter()
        .flat_map(|&n| {
            let rep = move |unit: &str| unit.repeat(n / unit.len());
            vec![
                (" ".repeat(n), Some("*")),
                (rep("||"), Some("*")),
                (rep("x "), Some("*")),
                (rep("|| x"), Some("*")),
                (">".repeat(n), None),
                (format!("{}1", "v".repeat(n - 1)), Some(">=1.0.0 <2.0.0-0")),
                (format!("{}1", "=".repeat(n - 1)), Some(">=1.0.0 <2.0.0-0")),
                (format!("{}1", "v ".repeat(n / 2 - 1)), None),
                (rep("~ "), None),
                (rep("1 - "), None),
                ("*".repeat(n), None),
                (rep(">=0.0.0 "), Some("*")),
                (rep("<x "), Some("<0.0.0-0")),
                (rep("1.x || "), Some("*")),
                (rep("^1.2.3 "), Some(">=1.2.3 <2.0.0-0")),
                (rep(">= "), None),
                (rep("+"), None),
                (format!("1.2.3+{}", "a".repeat(n - 6)), Some("1.2.3")),
                // A comparator's version may be 256 characters long, not more.
                (
                    format!("1.2.3-{}", "a".repeat(n - 6)),
                    (n == 256).then_some(&*LONG_PRERELEASE),
                ),
            ]
        })
        .collect();
    let started = cpu_time::ThreadTime::now();
    for (range, want) in &cases {
        assert!(range.len() <= MAX_RANGE_LENGTH, "{} bytes", range.len());
        let got = Range::parse(range).ok().map(|r| r.to_string());
        assert_eq!(got.as_deref(), *want, "{range:?}");
    }
    // Generous enough for an unoptimized build on a loaded machine; a backtracking parser
    // would take seconds on these.
    assert!(started.elapsed() < std::time::Duration::from_millis(500));
    // Whitespace padding is not length (npm collapses it first): 1,025 spaces are `*`.
    let padding = " ".repeat(MAX_RANGE_LENGTH + 1);
    assert_eq!(
        Range::parse(&padding).map(|r| r.to_string()),
        Ok("*".to_owned())
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => (0u64..4).prop_map(|n| n.to_string()),
            1 => Just("x".to_string()),
            1 => Just("*".to_string()),
            1 => Just("X".to_string()),
        ]
    }

    fn partial() -> impl Strategy<Value = String> {
        (
            prop_oneof![Just(""), Just("v"), Just("=")],
            number(),
            proptest::option::of(number()),
            proptest::option::of(number()),
            prop_oneof![
                Just(""),
                Just("-0"),
                Just("-alpha"),
                Just("-beta.1"),
                Just("-rc.2")
            ],
            prop_oneof![4 => Just(""), 1 => Just("+build.1")],
        )
            .prop_map(|(prefix, a, b, c, pre, build)| {
                let mut s = format!("{prefix}{a}");
                if let Some(b) = b {
                    s.push('.');
                    s.push_str(&b);
                    if let Some(c) = c {
                        s.push('.');
                        s.push_str(&c);
                        s.push_str(pre);
                        s.push_str(build);
                    }
                }
                s
            })
    }

    fn comparator() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => (
                prop_oneof![
                    Just(""), Just("="), Just(">"), Just(">="), Just("<"), Just("<="),
                    Just("~"), Just("~>"), Just("^")
                ],
                prop_oneof![3 => Just(""), 1 => Just(" ")],
                partial(),
            )
                .prop_map(|(op, space, v)| format!("{op}{space}{v}")),
            1 => (partial(), partial()).prop_map(|(a, b)| format!("{a} - {b}")),
        ]
    }

    fn range_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::collection::vec(comparator(), 1..4), 1..4).prop_map(
            |sets| {
                sets.iter()
                    .map(|set| set.join(" "))
                    .collect::<Vec<_>>()
                    .join(" || ")
            },
        )
    }

    /// A version number: mostly small, sometimes too large for a packed key (2²⁰ and up).
    fn version_number() -> impl Strategy<Value = u64> {
        prop_oneof![
            12 => 0u64..4,
            1 => prop_oneof![Just(1 << 20), Just(9_007_199_254_740_991)],
        ]
    }

    /// A version, sometimes with build metadata (so that equal precedence, where the first
    /// listed wins, comes up) or numbers too large to pack.
    fn version() -> impl Strategy<Value = Version> {
        (
            version_number(),
            version_number(),
            version_number(),
            prop_oneof![
                Just(""),
                Just("0"),
                Just("alpha"),
                Just("beta.1"),
                Just("rc.2")
            ],
            prop_oneof![6 => Just(""), 1 => Just("+b1"), 1 => Just("+b2")],
        )
            .prop_map(|(a, b, c, pre, build)| {
                let text = if pre.is_empty() {
                    format!("{a}.{b}.{c}{build}")
                } else {
                    format!("{a}.{b}.{c}-{pre}{build}")
                };
                parse_version(&text).expect("generated versions are valid")
            })
    }

    /// The canonical form parses back to the same range. One npm quirk is allowed: a written
    /// `>=v0.0.0` (or a hyphen range from `v0.0.0`) prints as `>=0.0.0` (`>=0.0.0-0` with
    /// `includePrerelease`), which npm's
    /// `replaceGTE0` then reads as `*` (by its exact text). That changes the comparators and
    /// may change the prereleases admitted (a `*` alternative replaces the union; inside an
    /// alternative the comparator is dropped, so `>=0.0.0 >=0.0.0-0` admits 0.0.0-0);
    /// releases are admitted alike, and the form after that is a fixed point.
    fn check_round_trip(range: &Range, options: RangeOptions) -> Result<(), TestCaseError> {
        let canonical = range.to_string();
        let again = Range::parse_with(&canonical, options).expect("canonical form parses");
        if &again != range {
            // With `includePrerelease` npm's hyphen range writes `>=v0.0.0-0` from `v0.0.0`,
            // which `replaceGTE0` keeps (not its exact text); printed as `>=0.0.0-0`, it is
            // dropped on the way back, which admits the same versions (every one).
            let gte0 = if options.include_prerelease {
                ">=0.0.0-0"
            } else {
                ">=0.0.0"
            };
            prop_assert!(
                canonical.contains(gte0),
                "{:?} re-parses as {:?}",
                canonical,
                again.to_string()
            );
            let gte0_read_back = canonical.split(['|', ' ']).any(|word| word == ">=0.0.0");
            for v in [
                "0.0.0",
                "0.0.1",
                "1.2.3",
                "1.2.3-beta.1",
                "3.0.0",
                "0.0.0-0",
            ] {
                let v = parse_version(v).expect("valid");
                if gte0_read_back && !v.pre.is_empty() {
                    continue;
                }
                prop_assert_eq!(
                    again.satisfies(&v),
                    range.satisfies(&v),
                    "{} {}",
                    canonical,
                    v
                );
            }
            let third = Range::parse_with(&again.to_string(), options).expect("parses");
            prop_assert_eq!(third, again);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn canonical_form_round_trips(text in range_text(), include_prerelease in any::<bool>()) {
            let options = RangeOptions::new().with_include_prerelease(include_prerelease);
            if let Ok(range) = Range::parse_with(&text, options) {
                check_round_trip(&range, options)?;
            }
        }

        /// Any text at all: no panic, and whatever parses round-trips through its canonical
        /// form.
        #[test]
        fn arbitrary_text_never_panics(
            text in "[ -~\t\u{a0}\u{3000}\u{feff}é]{0,60}|[0-9xX*.v=<>~^| +-]{0,60}",
            include_prerelease in any::<bool>(),
        ) {
            let options = RangeOptions::new().with_include_prerelease(include_prerelease);
            if let Ok(range) = Range::parse_with(&text, options) {
                check_round_trip(&range, options)?;
            }
            let _ = parse_version(&text);
        }

        #[test]
        fn packed_keys_agree_with_satisfies(
            text in range_text(),
            versions in proptest::collection::vec(version(), 0..12),
            include_prerelease in any::<bool>(),
        ) {
            let options = RangeOptions::new().with_include_prerelease(include_prerelease);
            let Ok(range) = Range::parse_with(&text, options) else { return Ok(()) };
            for v in &versions {
                let reference = range.satisfies_reference(v);
                prop_assert_eq!(range.satisfies(v), reference, "{} {}", text, v);
                if let Some(key) = pack_release(v) {
                    prop_assert_eq!(range.satisfies_packed(key), Some(reference), "{} {}", text, v);
                    let in_interval = range
                        .release_intervals()
                        .map(|mut it| it.any(|(lo, hi)| lo <= key && key <= hi));
                    prop_assert_eq!(in_interval, Some(reference), "{} {}", text, v);
                }
            }
        }

        #[test]
        fn max_satisfying_is_the_best(
            text in range_text(),
            versions in proptest::collection::vec(version(), 0..12),
            include_prerelease in any::<bool>(),
        ) {
            let options = RangeOptions::new().with_include_prerelease(include_prerelease);
            let Ok(range) = Range::parse_with(&text, options) else { return Ok(()) };
            let satisfying: Vec<&Version> = versions.iter().filter(|v| range.satisfies(v)).collect();
            match range.max_satisfying(&versions) {
                None => prop_assert!(satisfying.is_empty()),
                Some(best) => {
                    prop_assert!(range.satisfies(best));
                    for v in &satisfying {
                        prop_assert_ne!(compare_versions(v, best), Ordering::Greater);
                    }
                }
            }
            // The same answer, the same element, over the versions read into a list.
            let list = VersionList::new(versions.clone());
            let at = |best: Option<&Version>, all: &[Version]| {
                best.and_then(|b| all.iter().position(|v| std::ptr::eq(v, b)))
            };
            prop_assert_eq!(
                at(range.max_satisfying_in(&list), list.versions()),
                at(range.max_satisfying(&versions), &versions),
                "{}", text
            );
            match range.min_satisfying(&versions) {
                None => prop_assert!(satisfying.is_empty()),
                Some(least) => {
                    prop_assert!(range.satisfies(least));
                    for v in &satisfying {
                        prop_assert_ne!(compare_versions(v, least), Ordering::Less);
                    }
                }
            }
        }
    }
}

/// The versions, each valid, read into a list in the order given.
fn version_list(versions: &[&str]) -> VersionList {
    versions
        .iter()
        .map(|v| parse_version(v).expect("a valid version"))
        .collect()
}

/// `range`'s `max_satisfying_in` over `list`, printed; checked against `max_satisfying` over
/// the same versions.
fn max_in(list: &VersionList, range: &str) -> Option<String> {
    let range = Range::parse(range).expect("a valid range");
    let best = range.max_satisfying_in(list).map(ToString::to_string);
    let reference = range
        .max_satisfying(list.versions())
        .map(ToString::to_string);
    assert_eq!(best, reference, "{range}");
    best
}

#[test]
fn max_satisfying_in_searches_the_sorted_releases_of_an_unsorted_list() {
    // Unsorted, with equal precedence (build metadata only differs) listed out of order.
    let list = version_list(&[
        "1.4.0",
        "2.1.0+b",
        "0.9.0",
        "2.1.0+a",
        "1.4.0-rc.1",
        "3.0.0",
        "1.5.2",
    ]);
    let best = |range: &str| max_in(&list, range);
    // The first listed of equal precedence.
    assert_eq!(best("^2").as_deref(), Some("2.1.0+b"));
    assert_eq!(best("^1").as_deref(), Some("1.5.2"));
    // The best alternative of a union, whichever order they are written in.
    assert_eq!(best(">=3 || ^1").as_deref(), Some("3.0.0"));
    assert_eq!(best("^0.9 || 1.4.x").as_deref(), Some("1.4.0"));
    assert_eq!(best("^0.9 || 1.4.x || <0.1").as_deref(), Some("1.4.0"));
    // Below the lowest, between two, above the highest.
    assert_eq!(best("<0.9.0").as_deref(), None);
    assert_eq!(best(">1.5.2 <2.1.0").as_deref(), None);
    assert_eq!(best(">3").as_deref(), None);
    // A prerelease in range but refused by the prerelease rule.
    assert_eq!(best(">=1.4.0-alpha <1.4.0").as_deref(), Some("1.4.0-rc.1"));
    assert_eq!(best(">=1.3.9 <1.4.0").as_deref(), None);
}

#[test]
fn max_satisfying_in_takes_the_general_path_where_keys_cannot_tell() {
    let list = version_list(&[
        "1.2.3-beta.2",
        "1.2.3-beta.10",
        "1048576.0.0",
        "1.2.3",
        "1.2.3+build",
    ]);
    let best = |range: &str| max_in(&list, range);
    // A prerelease on a comparator's own triple: identifiers decide.
    assert_eq!(
        best(">=1.2.3-beta.3 <1.2.3").as_deref(),
        Some("1.2.3-beta.10")
    );
    // A number too large to pack.
    assert_eq!(best(">=2").as_deref(), Some("1048576.0.0"));
    // Equal precedence: the first wins (build metadata is ignored).
    assert_eq!(best("1.2.3").as_deref(), Some("1.2.3"));
    assert_eq!(best("<1.2.3").as_deref(), None);
    assert_eq!(list.len(), 5);
    assert!(!list.is_empty());
}

/// npm 7.8.6 strips every `+build` of an alternative before anything else, the hyphen step
/// included (`Range.parseRange`'s global `BUILDSTRIPRE`); answers from `semver.validRange`.
/// Found by a differential fuzzer: a hyphen range whose bound had build metadata lost its
/// `-0` or was refused.
#[test]
fn build_metadata_is_stripped_before_the_hyphen_step() {
    let cases: &[(&str, bool, Option<&str>)] = &[
        ("3.1.0+x.y - 3.3", false, Some(">=3.1.0 <3.4.0-0")),
        ("3.1.0+x.y - 3.3", true, Some(">=3.1.0-0 <3.4.0-0")),
        ("1.2.3+b - 2", false, Some(">=1.2.3 <3.0.0-0")),
        ("1.2.3+b - 2", true, Some(">=1.2.3-0 <3.0.0-0")),
        ("1.2.3+a - 2.0.0+b", false, Some(">=1.2.3 <=2.0.0")),
        ("1.2.3+a - 2.0.0+b", true, Some(">=1.2.3-0 <2.0.1-0")),
        ("1.2+b - 2", false, Some(">=1.2.0 <3.0.0-0")),
        ("1.2+b - 2", true, Some(">=1.2.0-0 <3.0.0-0")),
        ("1+b - 2", false, Some(">=1.0.0 <3.0.0-0")),
        ("1+b - 2", true, Some(">=1.0.0-0 <3.0.0-0")),
        ("x+b - 2", false, Some("<3.0.0-0")),
        ("x+b - 2", true, Some("<3.0.0-0")),
        ("1.2.3-rc+b - 2+c", false, Some(">=1.2.3-rc <3.0.0-0")),
        ("1.2.3-rc+b - 2+c", true, Some(">=1.2.3-rc <3.0.0-0")),
        ("+b 1.2.3", false, Some("1.2.3")),
        ("+b 1.2.3", true, Some("1.2.3")),
        ("1.2.3 +b", false, Some("1.2.3")),
        ("1.2.3 +b", true, Some("1.2.3")),
        ("+b", false, Some("*")),
        ("+b", true, Some("*")),
        ("1.2.3+b+c", false, Some("1.2.3")),
        ("1.2.3+b+c", true, Some("1.2.3")),
        (">=1.2.3+a+b", false, Some(">=1.2.3")),
        (">=1.2.3+a+b", true, Some(">=1.2.3")),
        ("1.x+b", false, Some(">=1.0.0 <2.0.0-0")),
        ("1.x+b", true, Some(">=1.0.0-0 <2.0.0-0")),
        ("1.2.3+b-0", false, Some("1.2.3")),
        ("1.2.3+b-0", true, Some("1.2.3")),
        (
            "^1.2.3+build.1 || ~2.0+x",
            false,
            Some(">=1.2.3 <2.0.0-0||>=2.0.0 <2.1.0-0"),
        ),
        (
            "^1.2.3+build.1 || ~2.0+x",
            true,
            Some(">=1.2.3 <2.0.0-0||>=2.0.0-0 <2.1.0-0"),
        ),
        ("1.2.3+ - 2", false, None),
        ("1.2.3+ - 2", true, None),
        ("a++b", false, None),
        ("a++b", true, None),
        ("1.2.3+.b", false, None),
        ("1.2.3+.b", true, None),
        (">= 1.2.3+b", false, Some(">=1.2.3")),
        (">= 1.2.3+b", true, Some(">=1.2.3")),
        ("~ 1.2.3+b", false, Some(">=1.2.3 <1.3.0-0")),
        ("~ 1.2.3+b", true, Some(">=1.2.3 <1.3.0-0")),
        ("1.2.3+a.b. - 2", false, None),
        ("1.2.3+a.b. - 2", true, None),
        ("* +b", false, Some("*")),
        ("* +b", true, Some("*")),
        (">1.2.3+b.c <2", false, Some(">1.2.3 <2.0.0-0")),
        (">1.2.3+b.c <2", true, Some(">1.2.3 <2.0.0-0")),
        ("1.2.3 - 2.3.4+b", false, Some(">=1.2.3 <=2.3.4")),
        ("1.2.3 - 2.3.4+b", true, Some(">=1.2.3-0 <2.3.5-0")),
    ];
    assert_canonical(cases);
}

/// npm 7.8.6 refuses a number after a wildcard only in a plain x-range (`replaceXRange`), not
/// in a caret, tilde or hyphen bound; and its safe `HYPHENRANGE` allows one blank at each end,
/// which stripping build metadata can leave. Answers from `semver.validRange`; found by a
/// differential fuzzer.
#[test]
fn wildcard_order_and_hyphen_blanks_as_npm() {
    let cases: &[(&str, bool, Option<&str>)] = &[
        ("~x.1", false, Some("*")),
        ("~x.1", true, Some("*")),
        ("^1.x.2", false, Some(">=1.0.0 <2.0.0-0")),
        ("^1.x.2", true, Some(">=1.0.0-0 <2.0.0-0")),
        ("x.1 - 9", false, Some("<10.0.0-0")),
        ("x.1 - 9", true, Some("<10.0.0-0")),
        ("1.x.0 - 2", false, Some(">=1.0.0 <3.0.0-0")),
        ("1.x.0 - 2", true, Some(">=1.0.0-0 <3.0.0-0")),
        ("1.x.5", false, None),
        ("1.x.5", true, None),
        ("x.1", false, None),
        ("x.1", true, None),
        ("x.x.1", false, None),
        ("x.x.1", true, None),
        (">1.x.5", false, None),
        (">1.x.5", true, None),
        ("=x.1", false, None),
        ("=x.1", true, None),
        ("~1.x.3-beta", false, Some(">=1.0.0 <2.0.0-0")),
        ("~1.x.3-beta", true, Some(">=1.0.0-0 <2.0.0-0")),
        ("^x.1.2", false, Some("*")),
        ("^x.1.2", true, Some("*")),
        ("1 - 2 +b", false, Some(">=1.0.0 <3.0.0-0")),
        ("1 - 2 +b", true, Some(">=1.0.0-0 <3.0.0-0")),
        ("1 - 2+b +c", false, Some(">=1.0.0 <3.0.0-0")),
        ("1 - 2+b +c", true, Some(">=1.0.0-0 <3.0.0-0")),
        (
            "1 - 2 +b || 3",
            false,
            Some(">=1.0.0 <3.0.0-0||>=3.0.0 <4.0.0-0"),
        ),
        (
            "1 - 2 +b || 3",
            true,
            Some(">=1.0.0-0 <3.0.0-0||>=3.0.0-0 <4.0.0-0"),
        ),
        ("1 +b - 2", false, None),
        ("1 +b - 2", true, None),
        ("1 - +b 2", false, Some(">=1.0.0 <3.0.0-0")),
        ("1 - +b 2", true, Some(">=1.0.0-0 <3.0.0-0")),
        ("1 - 2 +a +b", false, None),
        ("1 - 2 +a +b", true, None),
        ("^1.x.2 || 1.x.5", false, None),
        ("^1.x.2 || 1.x.5", true, None),
        ("* - x.1", false, Some("*")),
        ("* - x.1", true, Some("*")),
        ("1.2.x - 1.x.3", false, Some(">=1.2.0 <2.0.0-0")),
        ("1.2.x - 1.x.3", true, Some(">=1.2.0-0 <2.0.0-0")),
    ];
    assert_canonical(cases);
}

/// npm 7.8.6 reads prerelease identifiers with its safe regexes' bounds (at most 256 leading
/// digits, 250 characters after the first letter, 257 digits for a number), even where the
/// prerelease is then dropped, as on an x-range; answers from `semver.validRange`.
#[test]
fn prerelease_identifier_bounds_on_x_ranges() {
    let b = |c: &str, n: usize| c.repeat(n);
    let ok = Some(">=1.0.0 <2.0.0-0");
    for (range, want) in [
        (format!("1.x.x-a{}", b("b", 250)), ok),
        (format!("1.x.x-a{}", b("b", 251)), None),
        (format!("1.x.x-{}", b("1", 257)), ok),
        (format!("1.x.x-{}", b("1", 258)), None),
        (format!("1.x.x-{}a{}", b("1", 256), b("b", 250)), ok),
        (format!("1.x.x-{}a", b("1", 257)), None),
        (format!("^1.2.x-a{}", b("b", 251)), None),
        (format!("~1.2.x-{}", b("1", 258)), None),
        (format!("1 - 2.x.x-a{}", b("b", 251)), None),
        (format!("1.x.x-{}", b("-", 251)), ok),
        (format!("1.x.x-{}", b("-", 252)), None),
        (format!("1.x.x-x.{}", b("9", 257)), ok),
        ("1.x.x-0000".to_owned(), None),
        // the same bound on an x-range's own numbers, where no other check sees them
        (format!("~1.x.{}", b("1", 257)), ok),
        (format!("~1.x.{}", b("1", 258)), None),
        (format!("x.{} - 2", b("1", 258)), None),
    ] {
        let got = Range::parse(&range).ok().map(|r| r.to_string());
        assert_eq!(got.as_deref(), want, "{range}");
    }
}

/// Each `(range, include_prerelease, npm's validRange)` parses to npm's canonical form, or is
/// refused where npm answers null.
#[track_caller]
fn assert_canonical(cases: &[(&str, bool, Option<&str>)]) {
    for &(range, include_prerelease, want) in cases {
        let options = RangeOptions::new().with_include_prerelease(include_prerelease);
        let got = Range::parse_with(range, options)
            .ok()
            .map(|r| r.to_string());
        assert_eq!(
            got.as_deref(),
            want,
            "{range:?} include_prerelease={include_prerelease}"
        );
    }
}
