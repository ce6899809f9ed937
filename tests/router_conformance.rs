//! Replays `../shared/conformance/router/cases.jsonl` (the upstream router's answers) through
//! both the reference path (`route`) and the compiled snapshot path, comparing every field.

mod util;

use runstart::route::{
    CompiledCapability, CompiledPolicy, RouteInput, RouteRequest, RouteSnapshot, Scratch, route,
};
use serde_json::Value;

/// Numbers compare as IEEE doubles: `128000` and `128000.0` are the same answer. The cases
/// name the picked provider's id `provider`; runstart writes `providerId`, upstream's name for
/// it everywhere else (the journal, rejection reasons, a plan's route).
fn normalize(v: &Value) -> Value {
    if let Some(ok) = v.get("ok").and_then(Value::as_object) {
        let renamed = ok
            .iter()
            .map(|(k, x)| {
                (
                    if k == "provider" {
                        "providerId".to_owned()
                    } else {
                        k.clone()
                    },
                    normalize(x),
                )
            })
            .collect();
        return serde_json::json!({ "ok": Value::Object(renamed) });
    }
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

/// The path `prepare` takes: capability and policy compiled before the snapshot exists.
fn compiled_answer(input: &RouteInput, scratch: &mut Scratch) -> Value {
    let capability = CompiledCapability::new(
        input.capability.clone(),
        input.preferred_provider.clone(),
        input.preferred_model.clone(),
    );
    let policy = input.tenant_policy.clone().map(CompiledPolicy::new);
    let snapshot = RouteSnapshot::compile(input.providers.clone());
    answer(
        snapshot
            .route_compiled(&capability, policy.as_ref(), true, scratch)
            .map(|r| r.to_decision()),
    )
}

#[test]
fn conformance_compiled_path() {
    run("compiled", compiled_answer);
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
        // Expected errors read back into the typed error and serialize to the same JSON.
        if let Some(err) = case["expected"].get("err") {
            let typed: runstart::route::CapabilityUnsatisfiable =
                serde_json::from_value(err.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                normalize(&serde_json::to_value(&typed).expect("serializable")),
                normalize(err),
                "{name}"
            );
        }
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

/// The CLI end to end: every case's input on one stdin line, one result per stdout line.
#[test]
fn conformance_cli_jsonl() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Some(text) = util::shared_file("conformance/router/cases.jsonl") else {
        return;
    };
    let cases: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case is JSON"))
        .collect();
    let stdin: String = cases.iter().map(|c| format!("{}\n", c["input"])).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(["route", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runstart runs");
    let mut pipe = child.stdin.take().expect("stdin piped");
    let writer = std::thread::spawn(move || pipe.write_all(stdin.as_bytes()));
    let output = child.wait_with_output().expect("runstart finishes");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    // Some cases are unsatisfiable, so the status is 1.
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), cases.len());
    let agree = cases
        .iter()
        .zip(&lines)
        .filter(|(c, l)| {
            normalize(&serde_json::from_str::<Value>(l).expect("JSON line"))
                == normalize(&c["expected"])
        })
        .count();
    println!(
        "router conformance (cli --jsonl): {agree}/{} agree",
        cases.len()
    );
    assert_eq!(agree, cases.len());
}

/// `--input` and `--explain` on single cases: output shape and exit statuses 0, 1 and 2.
#[test]
fn cli_input_and_explain_exit_statuses() {
    use std::process::Command;
    let Some(text) = util::shared_file("conformance/router/cases.jsonl") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("runstart-route-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases: Vec<Value> = text
        .lines()
        .take(4)
        .map(|l| serde_json::from_str(l).expect("case is JSON"))
        .collect();
    let run = |case: &Value, extra: &[&str]| {
        let path = dir.join("input.json");
        std::fs::write(&path, case["input"].to_string()).expect("write input");
        let mut args = vec!["route", "--input", path.to_str().expect("UTF-8 temp path")];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_runstart"))
            .args(&args)
            .output()
            .expect("runstart runs")
    };
    // Case 0 routes; case 3 is the unknown-kind error.
    let ok = run(&cases[0], &[]);
    assert_eq!(ok.status.code(), Some(0));
    let got: Value = serde_json::from_slice(&ok.stdout).expect("JSON");
    assert_eq!(normalize(&got), normalize(&cases[0]["expected"]));
    let err = run(&cases[3], &[]);
    assert_eq!(err.status.code(), Some(1));
    let got: Value = serde_json::from_slice(&err.stdout).expect("JSON");
    assert_eq!(normalize(&got), normalize(&cases[3]["expected"]));
    let table = run(&cases[3], &["--explain"]);
    assert_eq!(table.status.code(), Some(1));
    let table = String::from_utf8(table.stdout).expect("UTF-8");
    assert!(table.contains("llm-a/llm-a/model-v1"), "{table}");
    assert!(table.contains("(capability-kind-mismatch)"), "{table}");
    let json = run(&cases[0], &["--explain", "--format", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(json["tuples"][0]["rank"], 0);
    let missing = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args([
            "route",
            "--input",
            dir.join("absent.json").to_str().expect("UTF-8"),
        ])
        .output()
        .expect("runstart runs");
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
