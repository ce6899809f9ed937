//! Tool input validation against Ajv: `tests/data/tool-input/cases.jsonl` holds Ajv 8.20.0's
//! answers (upstream's pack-service options, `useDefaults` included) for 970 inputs generated
//! against the fixture packs' tool input schemas (`generate.sh` beside it).
//!
//! `valid` and the issues (the schema module's `CompiledSchema::issues`, which the protocol
//! passes on unchanged) must equal Ajv's on every input.

use runstart::protocol::Deployment;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Keywords whose Ajv issue the schema module does not reproduce exactly: none since the
/// schema module's Ajv parity (before it, 31 of 970 differed in `additionalProperties` and
/// `uniqueItems`).
const KNOWN_ISSUE_DIFFERENCES: &[&str] = &[];

fn ours(d: &Deployment, tool: &str, version: &str, data: &Value) -> (bool, Vec<Value>) {
    match d.validate_tool_input(tool, Some(version), data) {
        Ok(()) => (true, Vec::new()),
        Err(e) => {
            let issues = e
                .issues
                .unwrap_or_default()
                .into_iter()
                .map(|i| {
                    json!({"instancePath": i.instance_path, "schemaPath": i.schema_path,
                        "keyword": i.keyword, "params": i.params, "message": i.message})
                })
                .collect();
            (false, issues)
        }
    }
}

#[test]
fn tool_input_validation_matches_ajv() {
    let text = std::fs::read_to_string("tests/data/tool-input/cases.jsonl").expect("cases");
    let mut deployments = BTreeMap::new();
    let (mut instances, mut valid_equal, mut issues_equal) = (0, 0, 0);
    let mut differing: BTreeMap<String, usize> = BTreeMap::new();
    let mut unexplained = Vec::new();
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let pack = case["pack"].as_str().expect("pack");
        let d = deployments.entry(pack.to_owned()).or_insert_with(|| {
            let bytes = std::fs::read(format!("fixtures/packs/{pack}/index.json")).expect("pack");
            Deployment::new(&bytes).expect("usable")
        });
        let (tool, version) = (
            case["tool"].as_str().expect("tool"),
            case["version"].as_str().expect("version"),
        );
        assert_eq!(case["compile"], "ok", "{}", case["id"]);
        for inst in case["instances"].as_array().expect("instances") {
            instances += 1;
            let (valid, issues) = ours(d, tool, version, &inst["data"]);
            assert_eq!(
                Value::Bool(valid),
                inst["valid"],
                "{} {}: valid",
                case["id"],
                inst["data"]
            );
            valid_equal += 1;
            let want = inst["errors"].as_array().expect("errors");
            if issues == *want {
                issues_equal += 1;
                continue;
            }
            // Same issues in another order, or issues that differ: named by the keywords of
            // the issues one side has and the other lacks.
            let mut a: Vec<String> = issues.iter().map(Value::to_string).collect();
            let mut b: Vec<String> = want.iter().map(Value::to_string).collect();
            a.sort();
            b.sort();
            let mut keywords: Vec<&str> = issues
                .iter()
                .filter(|i| !want.contains(i))
                .chain(want.iter().filter(|w| !issues.contains(w)))
                .filter_map(|e| e["keyword"].as_str())
                .collect();
            keywords.sort();
            keywords.dedup();
            let key = if a == b {
                "order".to_owned()
            } else {
                keywords.join("+")
            };
            if a != b && !keywords.iter().all(|k| KNOWN_ISSUE_DIFFERENCES.contains(k)) {
                unexplained.push(format!(
                    "{} {}:\n ours: {issues:?}\n ajv:  {want:?}",
                    case["id"], inst["data"]
                ));
            }
            *differing.entry(key).or_default() += 1;
        }
    }
    eprintln!(
        "tool input vs Ajv: {instances} inputs, valid equal {valid_equal}, issues equal {issues_equal}, differing {differing:?}"
    );
    assert_eq!(instances, 970);
    assert_eq!(
        issues_equal, instances,
        "inputs with Ajv's exact issues: {differing:?}"
    );
    assert!(
        unexplained.is_empty(),
        "{} input(s) whose issues differ from Ajv's beyond KNOWN_ISSUE_DIFFERENCES:\n{}",
        unexplained.len(),
        unexplained
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(valid_equal, instances);
}
