//! Replays Ajv 8.20.0's strict-mode answers (`../shared/conformance/ajv/strict-suite.jsonl`):
//! the compile verdict with and without union types, Ajv's message as the first reason of every
//! refusal, each instance's verdict and its errors as a multiset of (instancePath, schemaPath,
//! keyword, params, message).

mod util;

use runstart::schema::{AjvError, CompileOptions, CompiledSchema};
use serde_json::Value;

fn key(
    instance_path: &str,
    schema_path: &str,
    keyword: &str,
    params: &Value,
    message: &str,
) -> String {
    serde_json::json!([instance_path, schema_path, keyword, params, message]).to_string()
}

fn ours(e: &AjvError) -> String {
    key(
        &e.instance_path,
        &e.schema_path,
        &e.keyword,
        &Value::Object(e.params.clone()),
        &e.message,
    )
}

fn theirs(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
    key(
        &s("instancePath"),
        &s("schemaPath"),
        &s("keyword"),
        &e["params"],
        &s("message"),
    )
}

#[derive(Default)]
struct Tally {
    cases: usize,
    compile_ok: usize,
    compile_no_union_ok: usize,
    refusals: usize,
    first_message_ok: usize,
    instances: usize,
    valid_ok: usize,
    errors_ok: usize,
    failures: Vec<String>,
}

#[test]
fn ajv_strict_suite() {
    let Some(text) = util::shared_file("conformance/ajv/strict-suite.jsonl") else {
        return;
    };
    let mut t = Tally::default();
    let no_union = CompileOptions::new().with_allow_union_types(false);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("suite line is JSON");
        let id = case["id"].as_str().unwrap_or_default().to_owned();
        let schema = &case["schema"];
        t.cases += 1;
        let expected = case["compile"].as_str().unwrap_or_default();
        let got = CompiledSchema::compile(schema);
        if got.is_ok() == (expected == "ok") {
            t.compile_ok += 1;
        } else {
            t.failures.push(format!(
                "{id}: compile: want {expected:?}, got {:?}",
                got.as_ref().err()
            ));
        }
        if expected != "ok" {
            t.refusals += 1;
            match &got {
                Err(why) if why.message() == expected => t.first_message_ok += 1,
                other => t.failures.push(format!(
                    "{id}: message: want {expected:?}, got {:?}",
                    other.as_ref().err()
                )),
            }
        }
        let expected_nu = case["compileNoUnion"].as_str().unwrap_or_default();
        let got_nu = CompiledSchema::compile_with(schema, &no_union);
        if got_nu.is_ok() == (expected_nu == "ok") {
            t.compile_no_union_ok += 1;
        } else {
            t.failures.push(format!(
                "{id}: compileNoUnion: want {expected_nu:?}, got {:?}",
                got_nu.as_ref().err()
            ));
        }
        let Ok(compiled) = got else { continue };
        for (i, inst) in case["instances"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if inst.get("threw").is_some() {
                // Ajv overflowed its stack: there is no answer to compare with.
                continue;
            }
            t.instances += 1;
            let errors = compiled.errors(&inst["data"]);
            let want_valid = inst["valid"].as_bool().unwrap_or(false);
            if errors.is_empty() == want_valid {
                t.valid_ok += 1;
            } else {
                t.failures
                    .push(format!("{id}/{i}: valid: want {want_valid}"));
            }
            let mut a: Vec<String> = errors.iter().map(ours).collect();
            let mut b: Vec<String> = inst["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .map(theirs)
                .collect();
            a.sort();
            b.sort();
            if a == b {
                t.errors_ok += 1;
            } else {
                t.failures
                    .push(format!("{id}/{i}: errors:\n   want {b:?}\n   got  {a:?}"));
            }
        }
    }
    for f in &t.failures {
        eprintln!("{f}");
    }
    eprintln!(
        "ajv strict suite: compile {}/{}, compileNoUnion {}/{}, first message {}/{}, valid {}/{}, errors {}/{}",
        t.compile_ok,
        t.cases,
        t.compile_no_union_ok,
        t.cases,
        t.first_message_ok,
        t.refusals,
        t.valid_ok,
        t.instances,
        t.errors_ok,
        t.instances
    );
    assert_eq!(t.cases, 392);
    assert_eq!(t.compile_ok, t.cases, "compile verdicts");
    assert_eq!(t.compile_no_union_ok, t.cases, "compileNoUnion verdicts");
    assert_eq!(t.first_message_ok, t.refusals, "Ajv's message first");
    assert_eq!(t.valid_ok, t.instances, "validation verdicts");
    assert_eq!(t.errors_ok, t.instances, "error multisets");
}
