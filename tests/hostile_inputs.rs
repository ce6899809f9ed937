//! Hostile inputs: each is refused with its own issue code, quickly (well under a second in
//! a debug build), with bounded memory and without a panic.

use cpu_time::ThreadTime;
use runstart::diagnostics::IssueCode;
use runstart::diagnostics::Report;
use runstart::range::{MAX_RANGE_LENGTH, Range, RangeErrorKind};
use runstart::validate::{ValidateOptions, validate_index};
use serde_json::{Value, json};
use std::time::Duration;

mod util;

/// CPU time of the test's thread (see `util::cpu_timed`): generous for a debug build, yet far below what a backtracking or quadratic
/// algorithm would need on these inputs.
const QUICK: Duration = Duration::from_secs(1);

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/packs/support-desk/index.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture present"))
        .expect("fixture is JSON")
}

/// Validates `bytes` and returns the report and the CPU time validation took.
fn timed_validate(bytes: &[u8]) -> (Report, Duration) {
    util::cpu_timed(|| validate_index(bytes, &ValidateOptions::new()))
}

fn codes_at<'a>(report: &'a Report, path: &str) -> Vec<&'a str> {
    report
        .issues()
        .iter()
        .filter(|i| i.instance_path() == path)
        .map(|i| i.code().as_str())
        .collect()
}

#[track_caller]
fn assert_quick(what: &str, took: Duration) {
    eprintln!("{what}: {took:?}");
    assert!(took < QUICK, "{what} took {took:?}");
}

/// Ranges shaped to hurt regex-based range parsers: long runs of blanks between operators
/// and versions, many alternatives, many hyphen ranges.
fn adversarial_ranges(len: usize) -> Vec<String> {
    let fit = |s: String| -> String { s.chars().take(len).collect() };
    vec![
        fit(format!("1.2.3{}", " ".repeat(len))),
        fit(format!(
            ">={}1.2.3{}<{}",
            " ".repeat(len / 2),
            " ".repeat(len),
            "9"
        )),
        fit("1.2.3 - ".repeat(len)),
        fit("1||".repeat(len)),
        fit("^".repeat(len)),
        fit(format!("{}1.2.3{}!", " ".repeat(len / 3), " ".repeat(len))),
    ]
}

#[test]
fn adversarial_ranges_are_answered_quickly() {
    for len in [256, MAX_RANGE_LENGTH] {
        let start = ThreadTime::now();
        for text in adversarial_ranges(len) {
            assert_eq!(text.len(), len);
            match Range::parse(&text) {
                Ok(r) => drop(r.to_string()),
                Err(e) => {
                    assert_eq!(e.code(), "invalid-version-range");
                    assert_ne!(e.kind(), RangeErrorKind::TooLong, "{len} bytes is allowed");
                }
            }
        }
        assert_quick(
            &format!("adversarial ranges of {len} bytes"),
            start.elapsed(),
        );
    }
    // Padding is not length (npm collapses whitespace runs): accepted, in linear time.
    let text = format!("1.2.3{}", " ".repeat(MAX_RANGE_LENGTH));
    assert_eq!(
        Range::parse(&text).map(|r| r.to_string()),
        Ok("1.2.3".to_owned())
    );
    // One byte over the cap once collapsed is refused.
    let text = "1".repeat(MAX_RANGE_LENGTH + 1);
    let e = Range::parse(&text).expect_err("over the cap");
    assert_eq!(e.code(), "invalid-version-range");
    assert_eq!(e.kind(), RangeErrorKind::TooLong);
}

#[test]
fn adversarial_range_in_an_index_is_an_issue() {
    let mut doc = fixture();
    let range = format!("{}1.2.3{}!", " ".repeat(80), " ".repeat(170));
    assert_eq!(range.len(), 256);
    doc["agents"][0]["tools"][0]["version"] = json!(range);
    let (report, took) = timed_validate(doc.to_string().as_bytes());
    assert_quick("index with a 256-byte adversarial range", took);
    assert!(
        codes_at(&report, "/agents/0/tools/0/version").contains(&"invalid-version-range"),
        "{report:#?}"
    );
}

#[test]
fn catastrophic_pattern_is_linear() {
    let mut doc = fixture();
    let blocks = doc["blocks"].as_array_mut().expect("blocks");
    let i = blocks
        .iter()
        .position(|b| b["id"] == "support.reply-style")
        .expect("the settings block");
    blocks[i]["content"] = json!({
        "schema": {
            "type": "object",
            "properties": {"tone": {"type": "string", "pattern": "^(a+)+$"}}
        },
        "values": {"tone": format!("{}!", "a".repeat(50_000))}
    });
    let (report, took) = timed_validate(doc.to_string().as_bytes());
    assert_quick("^(a+)+$ against 50,000 a's and !", took);
    let at = format!("/blocks/{i}/content/values/tone");
    assert_eq!(codes_at(&report, &at), ["settings-values"], "{report:#?}");
}

#[test]
fn catastrophic_pattern_alone_is_linear() {
    use runstart::schema::CompiledSchema;
    let schema = CompiledSchema::compile(&json!({"type": "string", "pattern": "^(a+)+$"}))
        .expect("the schema compiles");
    let value = json!(format!("{}!", "a".repeat(50_000)));
    let start = ThreadTime::now();
    let issues = schema.issues(&value, "", IssueCode::SettingsValues);
    assert_quick("^(a+)+$ pattern check alone", start.elapsed());
    let codes: Vec<_> = issues.iter().map(|i| i.code().as_str()).collect();
    assert_eq!(codes, ["settings-values"]);
    assert_eq!(issues[0].keyword(), Some("pattern"));
}

#[test]
fn json_nested_10000_deep_is_refused_before_parsing() {
    let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (report, took) = timed_validate(text.as_bytes());
    assert_quick("JSON nested 10,000 deep", took);
    let codes: Vec<_> = report.issues().iter().map(|i| i.code().as_str()).collect();
    assert_eq!(codes, ["json-too-deep"]);
}

#[test]
fn template_with_10000_nested_ifs_is_refused() {
    let mut doc = fixture();
    let template = format!(
        "{}x{}",
        "{% if a %}".repeat(10_000),
        "{% endif %}".repeat(10_000)
    );
    assert!(template.len() <= runstart::template::MAX_TEMPLATE_LENGTH);
    doc["agents"][0]["instructions"] = json!(template);
    let (report, took) = timed_validate(doc.to_string().as_bytes());
    assert_quick("template with 10,000 nested ifs", took);
    assert_eq!(
        codes_at(&report, "/agents/0/instructions"),
        ["template-too-deep"],
        "{report:#?}"
    );
}

#[test]
fn overlong_template_is_refused() {
    let mut doc = fixture();
    let template = "x".repeat(runstart::template::MAX_TEMPLATE_LENGTH + 1);
    let e = runstart::template::CompiledTemplate::parse(&template).expect_err("over the cap");
    assert_eq!(e.kind(), runstart::template::ParseErrorKind::TooLong);
    doc["agents"][0]["instructions"] = json!(template);
    let (report, took) = timed_validate(doc.to_string().as_bytes());
    assert_quick("template of 256 KiB + 1", took);
    assert_eq!(
        codes_at(&report, "/agents/0/instructions"),
        ["template-too-long"],
        "{report:#?}"
    );
}

#[test]
fn index_of_100_mib_is_refused_without_parsing() {
    // A syntactically plausible start, so only the size can refuse it.
    let mut bytes = vec![b' '; 100 << 20];
    bytes[0] = b'{';
    let (report, took) = timed_validate(&bytes);
    assert_quick("100 MiB index", took);
    let codes: Vec<_> = report.issues().iter().map(|i| i.code().as_str()).collect();
    assert_eq!(codes, ["index-too-large"]);
}

/// Found by the `range` fuzz target: `~`, `^` and hyphen ranges built comparators whose
/// versions were longer than npm allows, so their canonical form no longer parsed.
#[test]
fn desugared_versions_are_capped_like_written_ones() {
    use runstart::range::MAX_VERSION_LENGTH;
    let pre = |n: usize| "a".repeat(n);
    // `1.2.3-` is 6 characters: the longest allowed prerelease is 250.
    let fits = MAX_VERSION_LENGTH - 6;
    for op in ["~", "~>", "^", ""] {
        let ok = format!("{op}1.2.3-{}", pre(fits));
        let range = Range::parse(&ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        Range::parse(&range.to_string()).expect("the canonical form parses");
        let long = format!("{op}1.2.3-{}", pre(fits + 1));
        let e = Range::parse(&long).expect_err("one character too long");
        assert_eq!(e.code(), "invalid-version-range");
        assert_eq!(e.kind(), RangeErrorKind::VersionTooLong, "{op}");
    }
    let e = Range::parse(&format!("1.2.3-{} - 2", pre(fits + 1))).expect_err("hyphen");
    assert_eq!(e.kind(), RangeErrorKind::VersionTooLong);
}

/// Renders `source` against an empty context and returns the error message, checking time.
fn render_error(what: &str, source: &str) -> String {
    let template = runstart::template::CompiledTemplate::parse(source).expect("parses");
    let start = ThreadTime::now();
    let result = template.render(&json!({}));
    assert_quick(what, start.elapsed());
    let e = result.expect_err("refused");
    assert_eq!(e.kind(), &runstart::template::RenderErrorKind::Other);
    e.message().to_owned()
}

#[test]
fn render_work_and_size_are_capped() {
    let m = render_error(
        "nested loops of 100,000",
        "{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}",
    );
    assert!(m.contains("steps to render"), "{m}");
    let m = render_error(
        "a doubling append",
        "{% assign s = 'xxxxxxxx' %}{% for i in (1..64) %}{% assign s = s | append: s %}{% endfor %}",
    );
    assert!(m.contains("larger than"), "{m}");
    let m = render_error(
        "a long separator between many parts",
        "{% assign s = 'x' %}{% for i in (1..20) %}{% assign s = s | append: s %}{% endfor %}\
         {{ (1..100000) | join: s }}",
    );
    assert!(m.contains("over the limit"), "{m}");
    let m = render_error(
        "a million contains checks on a million items",
        "{% assign a = (1..1000000) %}{% for i in a %}{% if a contains 0 %}{% endif %}{% endfor %}",
    );
    assert!(m.contains("steps to render"), "{m}");
    let m = render_error(
        "an array pushed into itself 40 times",
        "{% assign a = (1..3) %}{% for i in (1..40) %}{% assign a = a | push: a %}{% endfor %}\
         {{ a | json | size }}",
    );
    assert!(m.contains("larger than"), "{m}");
    let m = render_error(
        "an array grouped into itself 40 times",
        "{% assign a = (1..3) %}{% for i in (1..40) %}{% assign a = a | push: a | group_by_exp: 'x', 'true' | push: a %}{% endfor %}\
         {{ a | json | size }}",
    );
    assert!(m.contains("larger than"), "{m}");
    let m = render_error(
        "output over the cap",
        "{% for a in (1..1000000) %}0123456789{% endfor %}",
    );
    assert!(m.contains("output is longer"), "{m}");
}

/// Found by the `template` fuzz target: a `date` format's width (`%11662322688380341817d`)
/// padded without bound.
#[test]
fn date_format_widths_are_capped() {
    for format in [
        "%011662322688380341817d",
        "%99999999999N",
        "%_4000000Y%4000000m",
    ] {
        let source = format!("{{{{ '2026-11-30T09:00:00.000Z' | date: '{format}' }}}}");
        let m = render_error(&format!("date width {format}"), &source);
        assert!(m.contains("larger than"), "{m}");
    }
    // Ordinary widths still pad.
    let t = runstart::template::CompiledTemplate::parse("{{ '2026-11-30' | date: '%5d|%-m' }}")
        .expect("parses");
    assert_eq!(t.render(&json!({})).expect("renders"), "00030|11");
}

#[test]
fn thousands_of_distinct_cycle_groups_render_in_linear_time() {
    // Each tag is its own group (its candidates' text differs), as many as fit in the cap,
    // rendered five times over: a render that searched its groups one by one would take
    // seconds. (From 1: a cycle writes its value only when JavaScript-truthy, and 0 is not.)
    let (head, tail) = ("{% for n in (1..5) %}", "{% endfor %}");
    let mut tags = String::new();
    let mut once = String::new();
    for i in 1.. {
        let tag = format!("{{%cycle {i}%}}");
        if head.len() + tags.len() + tag.len() + tail.len()
            > runstart::template::MAX_TEMPLATE_LENGTH
        {
            break;
        }
        tags.push_str(&tag);
        once.push_str(&i.to_string());
    }
    let source = format!("{head}{tags}{tail}");
    let template = runstart::template::CompiledTemplate::parse(&source).expect("parses");
    let start = ThreadTime::now();
    let out = template.render(&json!({})).expect("renders");
    assert_quick(
        "about 20,000 distinct cycle groups, five times",
        start.elapsed(),
    );
    assert_eq!(out, once.repeat(5));
}
