//! Replays LiquidJS 10.30.1's answers over `../shared/conformance/liquid/`: `templates.jsonl`
//! (generated instruction templates) and `realworld.jsonl` (templates from LiquidJS's own
//! tests and docs): parse verdict, global variable segments, and strict rendering against
//! `render-context.json` and, for real-world rows, against each row's own context
//! (`renderSynth`).
//!
//! Set `LIQUID_CONFORMANCE_VERBOSE=1` to print every disagreement, and
//! `LIQUID_CONFORMANCE_MESSAGES=1` to print every error message that differs.

mod util;

use runstart::template::{CompiledTemplate, Segment};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, PartialEq)]
enum Verdict {
    Output(String),
    Undefined(String),
    Other,
}

fn expected_verdict(render: &Value) -> Verdict {
    if let Some(o) = render.get("output").and_then(Value::as_str) {
        return Verdict::Output(o.to_string());
    }
    let msg = render.get("error").and_then(Value::as_str).unwrap_or("");
    match msg.strip_prefix("undefined variable: ") {
        // the message ends with ", line:<l>, col:<c>"
        Some(rest) => Verdict::Undefined(rest.rsplitn(3, ", ").last().unwrap_or(rest).to_string()),
        None => Verdict::Other,
    }
}

fn segments_json(segs: &[Segment]) -> Value {
    Value::Array(segs.iter().map(Segment::to_json).collect())
}

fn same_set(ours: &[Value], theirs: &[Value]) -> bool {
    ours.iter().all(|x| theirs.contains(x)) && theirs.iter().all(|x| ours.contains(x))
}

fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Output(_) => "output",
        Verdict::Undefined(_) => "undefined variable",
        Verdict::Other => "other error",
    }
}

/// Agreement counts over one file, and each disagreement's class.
#[derive(Debug, Default)]
struct Score {
    total: usize,
    parse_ok: usize,
    globals_total: usize,
    globals_ok: usize,
    /// per render flavour (`render`, `renderSynth`): answers, verdicts agreeing, outputs equal
    render: BTreeMap<&'static str, (usize, usize, usize)>,
    classes: BTreeMap<String, usize>,
    /// informational: full messages (with line and column) identical to LiquidJS's
    parse_msgs: (usize, usize),
    render_msgs: (usize, usize),
    /// the rows whose output differs (verdict agrees), by flavour and label
    output_diffs: Vec<String>,
}

impl Score {
    fn print(&self, name: &str) {
        println!("{name}: {} templates", self.total);
        println!("  parse verdict agrees: {}/{}", self.parse_ok, self.total);
        println!(
            "  globals agree: {}/{}",
            self.globals_ok, self.globals_total
        );
        for (flavour, (n, v, o)) in &self.render {
            println!("  {flavour}: verdict agrees {v}/{n}, output byte-equal {o}/{n}");
        }
        println!(
            "  parse error messages identical (informational): {}/{}",
            self.parse_msgs.1, self.parse_msgs.0
        );
        println!(
            "  render error messages identical (informational): {}/{}",
            self.render_msgs.1, self.render_msgs.0
        );
        for (class, n) in &self.classes {
            println!("  differs: {class}: {n}");
        }
        for d in &self.output_diffs {
            println!("  output differs: {d}");
        }
    }

    fn render_counts(&self, flavour: &str) -> (usize, usize, usize) {
        self.render.get(flavour).copied().unwrap_or_default()
    }
}

fn score(lines: &str, ctx: &Value) -> Score {
    let verbose = std::env::var("LIQUID_CONFORMANCE_VERBOSE").is_ok();
    let msg_verbose = std::env::var("LIQUID_CONFORMANCE_MESSAGES").is_ok();
    let mut s = Score::default();
    for (i, line) in lines.lines().enumerate() {
        let row: Value = serde_json::from_str(line).expect("each line is JSON");
        let template = row["template"].as_str().expect("template is a string");
        let label = row["source"]
            .as_str()
            .map_or_else(|| format!("#{i}"), |src| format!("#{i} {src}"));
        s.total += 1;
        let parsed = CompiledTemplate::parse(template);
        let expect_err = !row["parseError"].is_null();
        if parsed.is_err() == expect_err {
            s.parse_ok += 1;
        } else {
            *s.classes.entry("parse verdict".into()).or_default() += 1;
            if verbose {
                println!(
                    "{label} parse: ours {:?}, LiquidJS {}\n  {template:?}",
                    parsed
                        .as_ref()
                        .err()
                        .map(|e| e.message_with_position(template)),
                    row["parseError"]
                );
            }
        }
        if let (Err(e), Some(theirs)) = (&parsed, row["parseError"].as_str()) {
            s.parse_msgs.0 += 1;
            let ours = e.message_with_position(template);
            if ours == theirs {
                s.parse_msgs.1 += 1;
            } else if msg_verbose {
                println!(
                    "{label} parse message: ours {ours:?}\n  LiquidJS {theirs:?}\n  {template:?}"
                );
            }
        }
        let Ok(t) = parsed else { continue };
        if expect_err {
            continue;
        }

        s.globals_total += 1;
        let theirs = &row["globals"];
        let agree = match (t.globals(), theirs.as_array()) {
            (Ok(g), Some(exp)) => {
                let ours: Vec<Value> = g.iter().map(|v| segments_json(v.segments())).collect();
                same_set(&ours, exp)
            }
            // LiquidJS's analysis fails reading the partial; the message must be the same
            (Err(e), None) => theirs["error"].as_str() == Some(e.to_string().as_str()),
            _ => false,
        };
        if agree {
            s.globals_ok += 1;
        } else {
            *s.classes.entry("globals".into()).or_default() += 1;
            if verbose {
                let ours: Result<Vec<Value>, String> = t
                    .globals()
                    .map(|g| g.iter().map(|v| segments_json(v.segments())).collect())
                    .map_err(|e| e.to_string());
                println!("{label} globals: ours {ours:?}\n  LiquidJS {theirs}\n  {template:?}");
            }
        }

        let mut answers: Vec<(&'static str, &Value, &Value)> = Vec::new();
        if let Some(r) = row.get("render").filter(|r| !r.is_null()) {
            answers.push(("render", r, ctx));
        }
        if let Some(r) = row.get("renderSynth").filter(|r| !r.is_null()) {
            answers.push(("renderSynth", r, &r["context"]));
        }
        for (flavour, render, context) in answers {
            let counts = s.render.entry(flavour).or_default();
            counts.0 += 1;
            let expected = expected_verdict(render);
            let rendered = t.render(context);
            if let (Err(e), Some(theirs)) = (&rendered, render["error"].as_str()) {
                s.render_msgs.0 += 1;
                let ours = e.message_with_position(template);
                if ours == theirs {
                    s.render_msgs.1 += 1;
                } else if msg_verbose {
                    println!(
                        "{label} {flavour} message: ours {ours:?}\n  LiquidJS {theirs:?}\n  {template:?}"
                    );
                }
            }
            let ours = match rendered {
                Ok(o) => Verdict::Output(o),
                Err(e) => match e.undefined_path() {
                    Some(p) => Verdict::Undefined(p.to_string()),
                    None => Verdict::Other,
                },
            };
            let same_class = matches!(
                (&ours, &expected),
                (Verdict::Output(_), Verdict::Output(_)) | (Verdict::Other, Verdict::Other)
            ) || matches!((&ours, &expected), (Verdict::Undefined(a), Verdict::Undefined(b)) if a == b);
            if same_class {
                counts.1 += 1;
            }
            if ours == expected {
                counts.2 += 1;
                continue;
            }
            let class = match (&ours, &expected) {
                (Verdict::Output(_), Verdict::Output(_)) => {
                    s.output_diffs.push(format!("{flavour} {label}"));
                    format!("{flavour} output differs")
                }
                (o, e) => format!(
                    "{flavour} verdict: ours {} vs LiquidJS {}",
                    kind(o),
                    kind(e)
                ),
            };
            *s.classes.entry(class).or_default() += 1;
            if verbose {
                println!("{label} {flavour}: ours {ours:?}\n  LiquidJS {render}\n  {template:?}");
            }
        }
    }
    s
}

#[test]
fn liquidjs_conformance() {
    let Some(lines) = util::shared_file("conformance/liquid/templates.jsonl") else {
        return;
    };
    let Some(ctx) = util::shared_file("conformance/liquid/render-context.json") else {
        return;
    };
    let ctx: Value = serde_json::from_str(&ctx).expect("render-context.json is JSON");
    let s = score(&lines, &ctx);
    s.print("templates.jsonl");
    assert_eq!(s.total, 4000);
    assert_eq!(
        s.parse_ok, s.total,
        "parse verdicts must agree on every template"
    );
    assert_eq!(
        s.globals_ok, s.globals_total,
        "globals must agree on every template"
    );
    let (n, verdict_ok, output_ok) = s.render_counts("render");
    assert_eq!(
        verdict_ok, n,
        "render verdicts must agree on every template"
    );
    // the two left differ in object key order (serde_json sorts keys; see the module docs)
    assert!(output_ok + 2 >= n, "render output: {output_ok}/{n}");
}

#[test]
fn liquidjs_realworld_conformance() {
    let Some(lines) = util::shared_file("conformance/liquid/realworld.jsonl") else {
        return;
    };
    let Some(ctx) = util::shared_file("conformance/liquid/render-context.json") else {
        return;
    };
    let ctx: Value = serde_json::from_str(&ctx).expect("render-context.json is JSON");
    let s = score(&lines, &ctx);
    s.print("realworld.jsonl");
    assert_eq!(s.total, 1384);
    let (rn, rv, ro) = s.render_counts("render");
    let (sn, sv, so) = s.render_counts("renderSynth");
    // Every verdict agrees; outputs differ only on `renderSynth` of
    // `docs/source/filters/date.md:20`, whose `"now" | date` depends on the clock.
    assert_eq!(s.parse_ok, s.total, "parse verdict");
    assert_eq!(s.globals_ok, s.globals_total, "globals");
    assert_eq!((rn, rv, ro), (1235, 1235, 1235), "render");
    assert_eq!((sn, sv), (1124, 1124), "renderSynth verdicts");
    assert!(so >= 1123, "renderSynth outputs: {so}/{sn}");
    assert_eq!(
        s.output_diffs,
        ["renderSynth #1123 harttle/liquidjs-docs:docs/source/filters/date.md:20"]
    );
}

/// golden-liquid (Shopify Liquid's reference cases, `../shared/peer-suites/golden-liquid`) is
/// informational: its answers are Ruby Liquid's with lenient variables, while runstart renders
/// as LiquidJS with `strictVariables`, so only agreement counts are printed. Cases that need
/// partial templates (`templates`) are skipped: a prompt has no template root.
#[test]
fn golden_liquid_informational() {
    let Some(text) = util::shared_file("peer-suites/golden-liquid/golden_liquid.json") else {
        return;
    };
    let doc: Value = serde_json::from_str(&text).expect("golden_liquid.json is JSON");
    let tests = doc["tests"].as_array().expect("tests array");
    let (mut cases, mut invalid_ok, mut invalid, mut same, mut strict_undefined) = (0, 0, 0, 0, 0);
    for case in tests {
        if case.get("templates").is_some() {
            continue;
        }
        let template = case["template"].as_str().unwrap_or("");
        cases += 1;
        let parsed = CompiledTemplate::parse(template);
        if case["invalid"].as_bool() == Some(true) {
            invalid += 1;
            if parsed.is_err() {
                invalid_ok += 1;
            }
            continue;
        }
        let Ok(t) = parsed else { continue };
        let data = case
            .get("data")
            .cloned()
            .unwrap_or(Value::Object(Default::default()));
        let expected: Vec<&str> = match (case["result"].as_str(), case["results"].as_array()) {
            (Some(r), _) => vec![r],
            (None, Some(rs)) => rs.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match t.render(&data) {
            Ok(out) if expected.contains(&out.as_str()) => same += 1,
            Err(e) if e.undefined_path().is_some() => strict_undefined += 1,
            _ => {}
        }
    }
    println!(
        "golden-liquid: {cases} cases; invalid refused {invalid_ok}/{invalid}; same output {same}/{}; strict undefined-variable errors {strict_undefined}",
        cases - invalid
    );
    assert!(cases > 0);
}
