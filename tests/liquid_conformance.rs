//! Replays LiquidJS 10.30.1's answers over `../shared/conformance/liquid/templates.jsonl`:
//! parse verdict, global variable segments, and strict rendering against
//! `render-context.json`.
//!
//! Set `LIQUID_CONFORMANCE_VERBOSE=1` to print every disagreement.

mod util;

use runstart::template::{CompiledTemplate, RenderErrorKind, Segment};
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

#[test]
fn liquidjs_conformance() {
    let Some(lines) = util::shared_file("conformance/liquid/templates.jsonl") else {
        return;
    };
    let Some(ctx) = util::shared_file("conformance/liquid/render-context.json") else {
        return;
    };
    let ctx: Value = serde_json::from_str(&ctx).expect("render-context.json is JSON");
    let verbose = std::env::var("LIQUID_CONFORMANCE_VERBOSE").is_ok();

    let (mut total, mut parse_ok, mut globals_total, mut globals_ok) = (0, 0, 0, 0);
    let (mut render_total, mut verdict_ok, mut output_ok) = (0, 0, 0);
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    // informational: full messages (with line and column) that match LiquidJS's exactly
    let (mut parse_msgs, mut parse_msg_ok, mut render_msgs, mut render_msg_ok) = (0, 0, 0, 0);
    let msg_verbose = std::env::var("LIQUID_CONFORMANCE_MESSAGES").is_ok();
    for (i, line) in lines.lines().enumerate() {
        let row: Value = serde_json::from_str(line).expect("each line is JSON");
        let template = row["template"].as_str().expect("template is a string");
        total += 1;
        let parsed = CompiledTemplate::parse(template);
        let expect_err = !row["parseError"].is_null();
        if parsed.is_err() == expect_err {
            parse_ok += 1;
        } else {
            *classes.entry("parse verdict".into()).or_default() += 1;
            if verbose {
                println!(
                    "#{i} parse: ours {:?}, LiquidJS {}\n  {template:?}",
                    parsed
                        .as_ref()
                        .err()
                        .map(|e| e.message_with_position(template)),
                    row["parseError"]
                );
            }
        }
        if let (Err(e), Some(theirs)) = (&parsed, row["parseError"].as_str()) {
            parse_msgs += 1;
            let ours = e.message_with_position(template);
            if ours == theirs {
                parse_msg_ok += 1;
            } else if msg_verbose {
                println!(
                    "#{i} parse message: ours {ours:?}\n  LiquidJS {theirs:?}\n  {template:?}"
                );
            }
        }
        let Ok(t) = parsed else { continue };
        if expect_err {
            continue;
        }

        globals_total += 1;
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
            globals_ok += 1;
        } else {
            *classes.entry("globals".into()).or_default() += 1;
            if verbose {
                let ours: Result<Vec<Value>, String> = t
                    .globals()
                    .map(|g| g.iter().map(|v| segments_json(v.segments())).collect())
                    .map_err(|e| e.to_string());
                println!("#{i} globals: ours {ours:?}\n  LiquidJS {theirs}\n  {template:?}");
            }
        }

        let Some(render) = row.get("render").filter(|r| !r.is_null()) else {
            continue;
        };
        render_total += 1;
        let expected = expected_verdict(render);
        let rendered = t.render(&ctx);
        if let (Err(e), Some(theirs)) = (&rendered, render["error"].as_str()) {
            render_msgs += 1;
            let ours = e.message_with_position(template);
            if ours == theirs {
                render_msg_ok += 1;
            } else if msg_verbose {
                println!(
                    "#{i} render message: ours {ours:?}\n  LiquidJS {theirs:?}\n  {template:?}"
                );
            }
        }
        let ours = match rendered {
            Ok(o) => Verdict::Output(o),
            Err(e) => match e.kind() {
                RenderErrorKind::UndefinedVariable(p) => Verdict::Undefined(p.clone()),
                _ => Verdict::Other,
            },
        };
        let same_class = matches!(
            (&ours, &expected),
            (Verdict::Output(_), Verdict::Output(_)) | (Verdict::Other, Verdict::Other)
        ) || matches!((&ours, &expected), (Verdict::Undefined(a), Verdict::Undefined(b)) if a == b);
        if same_class {
            verdict_ok += 1;
        }
        if ours == expected {
            output_ok += 1;
        } else {
            let class = match (&ours, &expected) {
                (Verdict::Output(_), Verdict::Output(_)) => "render output differs".to_string(),
                (o, e) => format!("render verdict: ours {} vs LiquidJS {}", kind(o), kind(e)),
            };
            *classes.entry(class).or_default() += 1;
            if verbose {
                println!("#{i} render: ours {ours:?}\n  LiquidJS {render}\n  {template:?}");
            }
        }
    }
    println!("templates: {total}");
    println!("parse verdict agrees: {parse_ok}/{total}");
    println!("globals agree: {globals_ok}/{globals_total}");
    println!("render verdict agrees: {verdict_ok}/{render_total}");
    println!("render output byte-equal: {output_ok}/{render_total}");
    println!("parse error messages identical (informational): {parse_msg_ok}/{parse_msgs}");
    println!("render error messages identical (informational): {render_msg_ok}/{render_msgs}");
    for (class, n) in &classes {
        println!("  differs: {class}: {n}");
    }
    assert_eq!(
        parse_ok, total,
        "parse verdicts must agree on every template"
    );
    assert_eq!(
        globals_ok, globals_total,
        "globals must agree on every template"
    );
    assert!(
        verdict_ok * 100 >= render_total * 99,
        "render verdict below 99%: {verdict_ok}/{render_total}"
    );
    assert!(
        output_ok * 100 >= render_total * 95,
        "render output below 95%: {output_ok}/{render_total}"
    );
}

fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Output(_) => "output",
        Verdict::Undefined(_) => "undefined variable",
        Verdict::Other => "other error",
    }
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
