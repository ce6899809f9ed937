//! Behaviour from `shared/spec/agents.md` §3.4 and §5.5, plus hostile inputs.

use runstart::template::{
    AllowedVariables, AutoVariables, CompiledTemplate, InputPolicy, ParseErrorKind, PromptError,
    PromptParameter,
};
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

#[track_caller]
fn parse(t: &str) -> CompiledTemplate {
    CompiledTemplate::parse(t).unwrap_or_else(|e| panic!("{t:?} should parse: {e}"))
}

fn ctx() -> Value {
    json!({
        "firm": "Acme", "flag": false, "items": [1, 2], "nul": null,
        "agent": {"id": "acme.test", "name": "Test", "version": "1.0.0"},
        "settings": {"acme.w": {"max": 5}}
    })
}

#[track_caller]
fn renders(t: &str, expected: &str) {
    assert_eq!(parse(t).render(&ctx()).expect("renders"), expected, "{t}");
}

#[track_caller]
fn undefined(t: &str, path: &str) {
    let e = parse(t).render(&ctx()).expect_err("fails");
    assert_eq!(e.undefined_path(), Some(path), "{t}: {e}");
}

#[test]
fn spec_render_table() {
    undefined("{{ mystery }}", "mystery");
    undefined("{{ agent.foo }}", "agent.foo");
    undefined(
        "{{ settings[\"acme.w\"].missing }}",
        "settings.acme.w.missing",
    );
    undefined("{{ settings.acme }}", "settings.acme");
    undefined("{{ items[5] }}", "items.5");
    renders(
        "{% for x in items %}{{ x }}{{ forloop.index }}{% endfor %}",
        "1122",
    );
    undefined("{% for x in nope %}{% endfor %}", "nope");
    renders(
        "{% assign y = firm %}{{ y }}{% capture c %}c{% endcapture %}{{ c }}",
        "Acmec",
    );
    undefined("{% if mystery %}{% endif %}", "mystery");
    undefined("{% unless mystery %}{% endunless %}", "mystery");
    undefined("{% case mystery %}{% endcase %}", "mystery");
    undefined("{{ mystery | default: \"d\" }}", "mystery");
    renders("{{ firm | upcase }}", "ACME");
    renders("{% raw %}{{ mystery }}{% endraw %}", "{{ mystery }}");
    renders("{{ nul }}{{ nul.x }}{{ empty }}", "");
    renders(
        "{{ flag }} {{ 1.5 }} {{ agent }}",
        "false 1.5 [object Object]",
    );
    renders("{{ items.size }} {{ firm.size }}", "2 4");
    renders("{% increment counter %}", "0");
    renders("", "");
    for bad in [
        "{{ firm | nosuch }}",
        "{% nosuchtag %}",
        "{% if %}",
        "{{ firm",
        "{% if a %}",
    ] {
        assert!(
            CompiledTemplate::parse(bad).is_err(),
            "{bad} must not parse"
        );
    }
    let e = CompiledTemplate::parse("{{ firm | nosuch }}").expect_err("unknown filter");
    assert_eq!(e.kind(), ParseErrorKind::UndefinedFilter);
    assert_eq!(e.message(), "undefined filter: nosuch");
    assert!(parse("{% include \"x\" %}").render(&ctx()).is_err());
}

fn auto() -> AutoVariables {
    AutoVariables::new("2026-09-17T15:30:00.000Z", "acme.test", "Test", "1.0.0")
}

fn supplied(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn prompt_rendering_cases() {
    let t = parse(
        "You are {{ agent.name }} for {{ firmName }} in {{ jurisdiction }}. Today is {{ today }}.",
    );
    let params = [
        PromptParameter::new("firmName"),
        PromptParameter::new("jurisdiction"),
    ];
    let s = supplied(&[
        ("firmName", json!("Acme LLP")),
        ("jurisdiction", json!("CA")),
    ]);
    assert_eq!(
        t.render_prompt(&params, &s, &auto()).expect("renders"),
        "You are Test for Acme LLP in CA. Today is 2026-09-17."
    );

    let t = parse("Turn {{ conversation.turn }} of {{ conversation.id }}.");
    let a = auto().with_conversation("c-42", 3);
    assert_eq!(
        t.render_prompt(&[], &Map::new(), &a).expect("renders"),
        "Turn 3 of c-42."
    );

    let t = parse("Tone: {{ tone }}.");
    let tone = [PromptParameter::new("tone")
        .with_required(false)
        .with_default(json!("formal"))];
    assert_eq!(
        t.render_prompt(&tone, &Map::new(), &auto()).expect("ok"),
        "Tone: formal."
    );
    let s = supplied(&[("tone", json!("plain-language"))]);
    assert_eq!(
        t.render_prompt(&tone, &s, &auto()).expect("ok"),
        "Tone: plain-language."
    );

    let t = parse("{{ a }} + {{ b }}");
    let e = t
        .render_prompt(
            &[PromptParameter::new("a"), PromptParameter::new("b")],
            &Map::new(),
            &auto(),
        )
        .expect_err("missing");
    assert_eq!(e.code(), "missing-parameter");
    assert_eq!(e.to_string(), "Required parameters missing: a, b");
    assert_eq!(e.parameter_name(), None);

    let t = parse("At most {{ settings[\"acme.reply-style\"].maxSentences }} sentences.");
    let e = t
        .render_prompt(&[], &Map::new(), &auto().with_settings(Map::new()))
        .expect_err("unresolved");
    assert_eq!(
        e.to_string(),
        "Template references an unresolved variable: settings.acme.reply-style"
    );
    assert_eq!(e.parameter_name(), Some("settings.acme.reply-style"));

    let t = parse("Hello {{ input.x }}.");
    let e = t
        .render_prompt(&[], &Map::new(), &auto())
        .expect_err("no input");
    assert_eq!(e, PromptError::UnresolvedVariable("input".into()));

    let t = parse("Sort it for {{ firm }}, recency {{ settings[\"acme.weights\"].recency }}.");
    let mut settings = Map::new();
    settings.insert("acme.weights".into(), json!({"recency": 0.7}));
    let s = supplied(&[("firm", json!("Acme"))]);
    let out = t
        .render_prompt(
            &[PromptParameter::new("firm")],
            &s,
            &auto().with_settings(settings),
        )
        .expect("renders");
    assert_eq!(out, "Sort it for Acme, recency 0.7.");
}

#[test]
fn check_reports_positions_and_kinds() {
    let t = parse(
        "{{ firm }}{{ agent.owner }}\n{{ input.ssn }}{{ settings[\"acme.secrets\"].token }}{{ x | default: y }}{% assign x = 1 %}{{ x }}",
    );
    let allowed = AllowedVariables::new()
        .with_params(["firm"])
        .with_settings(["acme.weights"]);
    let got: Vec<_> = t
        .check(&allowed)
        .iter()
        .map(|i| (i.code(), i.line(), i.col()))
        .collect();
    assert_eq!(
        got,
        [
            ("template-unknown-field", 1, 14),
            ("template-input-outside-flow", 2, 4),
            ("template-unknown-settings", 2, 19),
            ("template-unknown-variable", 2, 55),
            ("template-unknown-variable", 2, 68),
        ]
    );
    let flow = allowed.with_input(InputPolicy::Allowed);
    assert_eq!(t.check(&flow).len(), 4);
    let issue = t.check(&flow)[0].to_issue("/agents/0/instructions");
    assert_eq!(issue.instance_path(), "/agents/0/instructions");
}

#[test]
fn deep_nesting_is_refused_quickly() {
    let liquid = format!("{{% liquid {}%}}", "if a\n".repeat(10_000));
    for t in [
        "{% if a %}".repeat(10_000),
        "{% for x in a %}".repeat(10_000),
        "{% capture c %}".repeat(10_000),
        liquid,
    ] {
        let start = Instant::now();
        let e = CompiledTemplate::parse(&t).expect_err("too deep");
        assert_eq!(e.kind(), ParseErrorKind::TooDeep);
        assert!(start.elapsed() < Duration::from_secs(2));
    }
    let t = format!("{{{{ {}a{} }}}}", "a[".repeat(10_000), "]".repeat(10_000));
    assert!(CompiledTemplate::parse(&t).is_err());
    let t = format!("{{{{ {}1..2{} }}}}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(CompiledTemplate::parse(&t).is_err());
    // nesting within the cap parses and renders
    let t = format!(
        "{}x{}",
        "{% if true %}".repeat(90),
        "{% endif %}".repeat(90)
    );
    assert_eq!(parse(&t).render(&json!({})).expect("renders"), "x");
}

#[test]
fn compiled_templates_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledTemplate>();
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "{% if a %}",
        "{% elsif b %}",
        "{% else %}",
        "{% endif %}",
        "{% for x in c %}",
        "{% endfor %}",
        "{% case a %}",
        "{% when 1, 'x' %}",
        "{% endcase %}",
        "{{ a.b[c] }}",
        "{{ x | append: y | upcase }}",
        "{% assign a = b | size %}",
        "{% capture c %}",
        "{% endcapture %}",
        "{% raw %}",
        "{% endraw %}",
        "{% comment %}",
        "{% endcomment %}",
        "{%- liquid\n echo a\n assign b = 1 -%}",
        "{{",
        "}}",
        "{%",
        "%}",
        "'",
        "\"",
        "text ",
        "{{ (1..n) | join: ',' }}",
        "{% cycle 'a', b %}",
        "{% break %}",
        "{% increment n %}",
        "{{- a -}}",
        "é",
        "\u{a0}",
        "{% tablerow x in c cols: 2 %}",
        "{% endtablerow %}",
        "{{ a | date: '%Y' }}",
        "{{ a[-1] }}",
        "{{ 'x' | split: '' | json }}",
    ];

    fn template() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..30).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in ".{0,200}") {
            if let Ok(t) = CompiledTemplate::parse(&s) {
                let _ = t.render(&ctx());
                let _ = t.globals();
                let _ = t.check(&AllowedVariables::new());
            }
        }

        #[test]
        fn template_pieces_never_panic(s in template()) {
            let ctx = json!({"a": [1, "x", null], "b": {"c": 2}, "c": [[1], {"b": 1}], "n": 3,
                             "x": "é", "y": 1.5});
            if let Ok(t) = CompiledTemplate::parse(&s) {
                let _ = t.render(&ctx);
                let globals = t.globals().map(|g| g.len());
                let _ = globals;
                for i in t.check(&AllowedVariables::new()) {
                    prop_assert!(i.span().start <= s.len());
                    prop_assert!(i.line() >= 1 && i.col() >= 1);
                }
            }
        }
    }
}
