//! `schema_compile/*` and `schema_validate/*`: compiling and validating the schemas runstart
//! evaluates at deploy time, through the public `CompiledSchema` API only (so the same file
//! measures older versions too).
//!
//! Workloads: `agent_output` (an agent output schema with nested objects, enums, a pattern,
//! formats and a union type), `suite` (the 112 schemas of `../shared/conformance/ajv/` that Ajv
//! compiles, and their 350 instances). Each bench asserts its answer before timing.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use runstart::diagnostics::IssueCode;
use runstart::schema::CompiledSchema;
use serde_json::{Value, json};
use std::hint::black_box;
use std::path::PathBuf;

fn agent_output() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["status", "body", "tags"],
        "properties": {
            "status": {"enum": ["open", "pending", "solved"]},
            "body": {"type": "string", "minLength": 1, "maxLength": 4000},
            "ticket": {"type": "string", "pattern": "^T-[0-9]+$"},
            "email": {"type": ["string", "null"], "format": "email"},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10, "uniqueItems": true},
            "meta": {
                "type": "object",
                "properties": {"source": {"type": "string"}, "turn": {"type": "integer", "minimum": 1}},
                "required": ["source"]
            }
        }
    })
}

fn suite() -> Vec<(Value, Vec<Value>)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/ajv/strict-suite.jsonl");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|c| c["compile"] == "ok")
        .map(|c| {
            let data = c["instances"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|i| i.get("threw").is_none())
                .map(|i| i["data"].clone())
                .collect();
            (c["schema"].clone(), data)
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let schema = agent_output();
    let valid = json!({"status": "open", "body": "Hello", "ticket": "T-17", "email": "a@b.co",
        "score": 0.5, "tags": ["a", "b"], "meta": {"source": "mail", "turn": 2}});
    let invalid = json!({"status": "closed", "body": "", "ticket": "X", "email": 5,
        "score": 2, "tags": ["a", "a"], "meta": {"turn": 0}, "extra": true});
    let compiled = CompiledSchema::compile(&schema).expect("the agent output schema compiles");
    assert!(compiled.is_valid(&valid));
    assert!(
        !compiled
            .issues(&invalid, "", IssueCode::SettingsValues)
            .is_empty()
    );

    let mut g = c.benchmark_group("schema_compile");
    g.bench_function("agent_output", |b| {
        b.iter_with_large_drop(|| CompiledSchema::compile(black_box(&schema)))
    });
    let cases = suite();
    if !cases.is_empty() {
        g.throughput(Throughput::Elements(cases.len() as u64));
        g.bench_function("suite", |b| {
            b.iter_with_large_drop(|| {
                cases
                    .iter()
                    .map(|(s, _)| CompiledSchema::compile(black_box(s)).is_ok())
                    .filter(|ok| *ok)
                    .count()
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("schema_validate");
    g.bench_function("agent_output_valid", |b| {
        b.iter(|| compiled.is_valid(black_box(&valid)))
    });
    g.bench_function("agent_output_invalid_issues", |b| {
        b.iter_with_large_drop(|| {
            compiled.issues(black_box(&invalid), "/x", IssueCode::SettingsValues)
        })
    });
    let compiled_cases: Vec<(CompiledSchema, &Vec<Value>)> = cases
        .iter()
        .filter_map(|(s, d)| CompiledSchema::compile(s).ok().map(|c| (c, d)))
        .collect();
    if !compiled_cases.is_empty() {
        let n: usize = compiled_cases.iter().map(|(_, d)| d.len()).sum();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function("suite_issues", |b| {
            b.iter_with_large_drop(|| {
                compiled_cases
                    .iter()
                    .flat_map(|(c, d)| {
                        d.iter()
                            .map(|v| c.issues(black_box(v), "", IssueCode::SettingsValues).len())
                    })
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(schema, benches);
criterion_main!(schema);
