//! Replays `../shared/conformance/router/cases.jsonl` (the upstream router's answers) through
//! both the reference path (`route`) and the compiled snapshot path, comparing every field.

mod util;

use runstart::route::{RouteInput, RouteRequest, RouteSnapshot, Scratch, route};
use serde_json::Value;

/// Numbers compare as IEEE doubles: `128000` and `128000.0` are the same answer.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| v.clone(), Value::Number),
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        _ => v.clone(),
    }
}

fn answer(
    r: Result<runstart::route::RoutingDecision, runstart::route::CapabilityUnsatisfiable>,
) -> Value {
    match r {
        Ok(d) => serde_json::json!({ "ok": d }),
        Err(e) => serde_json::json!({ "err": e }),
    }
}

fn snapshot_answer(input: &RouteInput, scratch: &mut Scratch) -> Value {
    let snapshot = RouteSnapshot::compile(input.providers.clone());
    answer(
        snapshot
            .route_with(&RouteRequest::from_input(input), scratch)
            .map(|r| r.to_decision()),
    )
}

#[test]
fn conformance_snapshot_path() {
    run("snapshot", snapshot_answer);
}

#[test]
fn conformance_reference_path() {
    run("reference", |input, _| answer(route(input)));
}

fn run(path: &str, routed: impl Fn(&RouteInput, &mut Scratch) -> Value) {
    let mut scratch = Scratch::default();
    let Some(text) = util::shared_file("conformance/router/cases.jsonl") else {
        return;
    };
    let (mut pass, mut fail, mut ok_cases, mut err_cases) = (0usize, 0usize, 0usize, 0usize);
    let mut first_failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("case is JSON");
        let name = case["name"].as_str().unwrap_or("?").to_owned();
        let input: RouteInput =
            serde_json::from_value(case["input"].clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = normalize(&case["expected"]);
        if expected.get("ok").is_some() {
            ok_cases += 1;
        } else {
            err_cases += 1;
        }
        let got = normalize(&routed(&input, &mut scratch));
        if got == expected {
            pass += 1;
        } else {
            fail += 1;
            if first_failures.len() < 3 {
                first_failures.push(format!("{name}\n  want {expected}\n  got  {got}"));
            }
        }
    }
    println!(
        "router conformance ({path}): {pass}/{} agree ({ok_cases} ok cases, {err_cases} error cases), {fail} differ",
        pass + fail
    );
    assert!(
        fail == 0,
        "{fail} cases differ:\n{}",
        first_failures.join("\n")
    );
}
