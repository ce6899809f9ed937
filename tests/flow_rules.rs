//! Flow validation: every rule of `shared/spec/flows.md` §2, the checks beyond upstream, the
//! upstream examples, and agreement with the reference `flow.schema.json`.

mod util;

use runstart::diagnostics::{Issue, Severity};
use runstart::flow::{FlowContext, FlowOptions, validate_flow, wire};
use serde_json::{Value, json};

/// The spec's base fixture (§4.1): `$start → a → $end`.
fn base() -> Value {
    json!({
        "id": "test.flow", "version": "1.0.0",
        "nodes": [{"id": "a", "kind": "tool", "ref": "t.a"}],
        "edges": [
            {"id": "e0", "from": "$start", "to": "a"},
            {"id": "e1", "from": "a", "to": "$end"}
        ]
    })
}

/// A flow with these nodes and edges.
fn flow(nodes: Value, edges: Value) -> Value {
    json!({"id": "test.flow", "version": "1.0.0", "nodes": nodes, "edges": edges})
}

/// A chain `$start → ids[0] → … → $end` of tool nodes.
fn chain(ids: &[&str]) -> Value {
    let nodes: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "kind": "tool", "ref": "t.x"}))
        .collect();
    let mut edges = vec![json!({"id": "s", "from": "$start", "to": ids[0]})];
    for (i, w) in ids.windows(2).enumerate() {
        edges.push(json!({"id": format!("c{i}"), "from": w[0], "to": w[1]}));
    }
    edges.push(json!({"id": "z", "from": ids[ids.len() - 1], "to": "$end"}));
    flow(Value::Array(nodes), Value::Array(edges))
}

fn check(v: &Value) -> Vec<Issue> {
    validate_flow(v, &FlowContext::new(), "")
}

fn errors(v: &Value) -> Vec<Issue> {
    check(v)
        .into_iter()
        .filter(|i| i.severity() == Severity::Error)
        .collect()
}

fn codes_of(issues: &[Issue]) -> Vec<&str> {
    issues.iter().map(|i| i.code().as_str()).collect()
}

#[track_caller]
fn assert_clean(v: &Value) {
    let issues = check(v);
    assert!(issues.is_empty(), "expected no issues, got {issues:#?}");
}

/// Exactly one error, with this code; returns it.
#[track_caller]
fn only_error(v: &Value, code: &str) -> Issue {
    let errs = errors(v);
    assert_eq!(codes_of(&errs), [code], "{errs:#?}");
    errs.into_iter().next().expect("one error")
}

fn while_loop(id: &str, body_nodes: Value, body_edges: Value) -> Value {
    json!({
        "id": id, "kind": "loop", "loopKind": "while", "maxIterations": 5,
        "exitCondition": {"op": "gte", "left": {"path": "iterationIndex"}, "right": {"literal": 3}},
        "outputSchema": {"type": "object"},
        "body": {"nodes": body_nodes, "edges": body_edges}
    })
}

fn foreach_loop(id: &str, body_nodes: Value, body_edges: Value) -> Value {
    json!({
        "id": id, "kind": "loop", "loopKind": "foreach", "maxIterations": 100,
        "iterateOver": {"path": "runInput.items"},
        "outputSchema": {"type": "object"},
        "body": {"nodes": body_nodes, "edges": body_edges}
    })
}

fn worker_body() -> (Value, Value) {
    (
        json!([{"id": "worker", "kind": "tool", "ref": "t.w"}]),
        json!([
            {"id": "b0", "from": "$loop-start", "to": "worker"},
            {"id": "b1", "from": "worker", "to": "$loop-end"}
        ]),
    )
}

/// The base flow with its node `a` replaced by `node` (id `a`).
fn with_node(node: Value) -> Value {
    let mut f = base();
    f["nodes"][0] = node;
    f
}

fn fanout(branches: Value) -> Value {
    json!({"id": "a", "kind": "fanout", "convergence": "settle-all", "branches": branches})
}

fn branch(id: &str) -> Value {
    json!({"branchId": id, "handler": "t.h", "outputSchema": {"type": "object"}})
}

fn subgraph() -> Value {
    json!({
        "id": "a", "kind": "subgraph",
        "flowRef": {"flowId": "child.flow", "version": "1.0.0"},
        "inputMapping": {"x": {"path": "runInput.x"}, "y": {"literal": 1}},
        "outputSchema": {"type": "object"},
        "convergence": "settle-all"
    })
}

/// Subgraph nodes are errors by default (`flow-unbound`); loader tests turn that off.
fn check_loader(v: &Value) -> Vec<Issue> {
    let ctx = FlowContext::new()
        .with_options(FlowOptions::new().with_subgraph_severity(Severity::Warning));
    validate_flow(v, &ctx, "")
        .into_iter()
        .filter(|i| i.severity() == Severity::Error)
        .collect()
}

// ---------------------------------------------------------------- examples

/// Tools (tool refs, fanout handlers) and agents (agent refs) a flow names, at any depth.
fn refs(v: &Value, tools: &mut Vec<String>, agents: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                match (
                    o.get("kind").and_then(Value::as_str),
                    o.get("ref").and_then(Value::as_str),
                ) {
                    (Some("tool"), Some(r)) => tools.push(r.to_owned()),
                    (Some("agent"), Some(r)) => agents.push(r.to_owned()),
                    _ => {}
                }
                if let Some(h) = o.get("handler").and_then(Value::as_str) {
                    tools.push(h.to_owned());
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

fn examples() -> Vec<(String, Value)> {
    let Some(dir) = util::shared_dir() else {
        return Vec::new();
    };
    let mut files = vec![dir.join("upstream/examples/flow.example.with-loop.json")];
    let mut transcribed: Vec<_> = std::fs::read_dir(dir.join("upstream/examples/transcribed"))
        .expect("transcribed examples")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    transcribed.sort();
    files.extend(transcribed);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("example");
            (
                p.display().to_string(),
                serde_json::from_str(&text).expect("json"),
            )
        })
        .collect()
}

#[test]
fn every_upstream_example_validates_clean_with_its_refs() {
    let examples = examples();
    if util::shared_dir().is_some() {
        assert_eq!(examples.len(), 7);
    }
    for (name, f) in &examples {
        let (mut tools, mut agents) = (Vec::new(), Vec::new());
        refs(f, &mut tools, &mut agents);
        let ctx = FlowContext::new().with_tools(tools).with_agents(agents);
        let issues = validate_flow(f, &ctx, "");
        assert!(issues.is_empty(), "{name}: {issues:#?}");
        let typed = wire::Flow::from_value(f).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The wire model keeps everything: serializing it gives the document back.
        assert_eq!(
            &serde_json::to_value(&typed).expect("serializable"),
            f,
            "{name}"
        );
    }
}

#[test]
fn every_upstream_example_validates_clean_as_an_index_entry() {
    use runstart::validate::{ValidateOptions, validate_index};
    for (name, f) in examples() {
        let (mut tools, mut agents) = (Vec::new(), Vec::new());
        refs(&f, &mut tools, &mut agents);
        tools.sort();
        tools.dedup();
        agents.sort();
        agents.dedup();
        let mut entry = f.clone();
        let obj = entry.as_object_mut().expect("object");
        obj.remove("$schema");
        obj.insert("kernelPayloadVersion".into(), json!(1));
        obj.insert("modulePath".into(), json!("flows/flow.ts"));
        let index = json!({
            "v": 1, "packId": "acme.pack", "packVersion": "1.0.0",
            "artifactVersion": "20260101.1", "publishedAt": "2026-01-01T00:00:00.000Z",
            "tools": tools.iter().map(|t| json!({
                "id": t, "description": "A tool.", "version": "1.0.0",
                "input": {"type": "object"}, "output": {"type": "object"},
                "modulePath": "tools/t.ts"
            })).collect::<Vec<_>>(),
            "guardrails": [],
            "agents": agents.iter().map(|a| json!({
                "id": a, "version": "1.0.0", "name": a, "instructions": "Help.",
                "capabilities": [{"needs": [{"feature": "tool-use"}]}], "tools": [], "modulePath": "agents/a.ts"
            })).collect::<Vec<_>>(),
            "flows": [entry]
        });
        let bytes = serde_json::to_vec(&index).expect("json");
        let report = validate_index(
            &bytes,
            &ValidateOptions::new().should_check_canonical_form(false),
        );
        assert!(report.is_empty(), "{name}: {:#?}", report.issues());
    }
}

/// The reference schema's verdict, for cross-checking the structural checks.
fn upstream_validator() -> Option<jsonschema::Validator> {
    let text = util::shared_file("upstream/flow.schema.json")?;
    let schema: Value = serde_json::from_str(&text).expect("schema json");
    Some(
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .expect("the reference schema compiles"),
    )
}

/// Codes whose rule backs up a constraint of the schema (spec §2: "the tests accept either
/// code"): an input the reference schema refuses must get at least one of these.
const SCHEMA_BACKED: &[&str] = &[
    "schema-validation-failed",
    "invalid-predicate",
    "invalid-edge-policy",
    "loop-invalid-max-iterations",
    "loop-variant-mismatch",
    "loop-invalid-concurrency",
    "invalid-fanout-node",
    "invalid-subgraph-node",
];

#[test]
fn structural_verdicts_agree_with_the_reference_schema() {
    let Some(validator) = upstream_validator() else {
        return;
    };
    let (body_nodes, body_edges) = worker_body();
    let mut cases: Vec<Value> = Vec::new();
    let mut push = |f: &dyn Fn(&mut Value)| {
        let mut v = base();
        f(&mut v);
        cases.push(v);
    };
    push(&|_| {});
    push(&|v| v["version"] = json!("v1"));
    push(&|v| v["version"] = json!("1.0.0+build"));
    push(&|v| v["version"] = json!("1.2.3-alpha.1"));
    push(&|v| {
        v.as_object_mut().expect("o").remove("nodes");
    });
    push(&|v| v["nodes"] = json!([]));
    push(&|v| v["triggers"] = json!([]));
    push(&|v| v["maxParallelism"] = json!(0));
    push(&|v| v["maxParallelism"] = json!(4));
    push(&|v| v["nodes"][0]["kind"] = json!("llm"));
    push(&|v| v["nodes"][0]["ref"] = json!(""));
    push(&|v| v["nodes"][0]["policy"] = json!({}));
    push(&|v| v["nodes"][0]["inputMapping"] = json!({"x": {"path": "input.x"}}));
    push(&|v| v["nodes"][0]["inputMapping"] = json!({"x": "runInput.x"}));
    push(&|v| v["nodes"][0]["inputMapping"] = json!({"": {"literal": 1}}));
    push(&|v| v["nodes"][0]["inputMapping"] = json!({"x": {"path": "nodeOutputs"}}));
    push(&|v| v["nodes"][0]["inputMapping"] = json!({"x": {"literal": null}}));
    push(&|v| v["edges"][1]["when"] = json!({"op": "always"}));
    push(&|v| v["edges"][1]["when"] = json!({"op": "and", "children": []}));
    push(&|v| v["edges"][1]["when"] = json!({"op": "exists", "left": {"path": "state.x"}}));
    push(&|v| {
        v["edges"][1]["when"] =
            json!({"op": "eq", "left": {"path": "facts.x"}, "right": {"literal": 1}})
    });
    push(&|v| {
        v["edges"][1]["when"] =
            json!({"op": "not", "child": {"op": "truthy", "value": {"path": "state.ok"}}})
    });
    push(&|v| v["edges"][1]["policy"] = json!({"retry": {"maxAttempts": 0}}));
    push(&|v| v["edges"][1]["policy"] = json!({"retry": {"maxAttempts": 3, "backoff": "quantum"}}));
    push(&|v| v["edges"][1]["policy"] = json!({"timeoutMs": 100.5}));
    push(&|v| v["edges"][1]["policy"] = json!({"concurrencyKey": "k€y"}));
    push(&|v| v["edges"][1]["policy"] = json!({"priority": "high"}));
    push(&|v| {
        v["edges"][1]["policy"] =
            json!({"priority": 50, "timeoutMs": 5000, "concurrencyKey": "per-tenant:openai"})
    });
    push(&|v| v["edges"][1]["policy"] = json!({"suspend": true}));
    push(&|v| v["edges"][1]["extra"] = json!(1));
    push(&|v| {
        v["output"] =
            json!({"mapping": {"x": {"path": "runInput.x"}}, "schema": {"type": "object"}})
    });
    push(&|v| v["output"] = json!({"schema": {"type": "object"}}));
    push(&|v| v["output"] = json!({"mapping": {}, "schema": []}));
    for node in [
        while_loop("a", body_nodes.clone(), body_edges.clone()),
        foreach_loop("a", body_nodes.clone(), body_edges.clone()),
        fanout(json!([branch("x"), branch("y")])),
        fanout(json!([branch("x")])),
        subgraph(),
    ] {
        cases.push(with_node(node));
    }
    let mutations: Vec<(&str, Value)> = vec![
        ("maxIterations", json!(0)),
        ("maxIterations", json!(10001)),
        ("concurrency", json!(33)),
        ("concurrency", json!(0)),
        ("evaluationTiming", json!("soon")),
        ("iterateOver", json!({"path": "runInput.items"})),
        ("outputSchema", json!([])),
        ("collectAllIterations", json!("yes")),
    ];
    for (field, value) in mutations {
        for mut node in [
            while_loop("a", body_nodes.clone(), body_edges.clone()),
            foreach_loop("a", body_nodes.clone(), body_edges.clone()),
        ] {
            node[field] = value.clone();
            cases.push(with_node(node));
        }
    }
    let mut no_exit = while_loop("a", body_nodes.clone(), body_edges.clone());
    no_exit.as_object_mut().expect("o").remove("exitCondition");
    cases.push(with_node(no_exit));
    let mut body_policy = foreach_loop("a", body_nodes.clone(), body_edges.clone());
    body_policy["body"]["edges"][0]["policy"] = json!({"priority": 1});
    cases.push(with_node(body_policy));
    let mut sg = subgraph();
    sg["flowRef"]["version"] = json!("^1.0.0");
    cases.push(with_node(sg));
    let mut sg = subgraph();
    sg["inputMapping"] = json!({"x": {"garbage": "field"}});
    cases.push(with_node(sg));
    let mut sg = subgraph();
    sg["convergence"] = json!("quantum");
    cases.push(with_node(sg));
    let mut sg = subgraph();
    sg["ref"] = json!("x");
    cases.push(with_node(sg));
    cases.push(with_node(fanout(
        json!([branch("x"), {"branchId": "", "handler": "h", "outputSchema": {}}]),
    )));
    let mut fan = fanout(json!([branch("x"), branch("y")]));
    fan["concurrency"] = json!(1.5);
    cases.push(with_node(fan));
    let mut fan = fanout(json!([branch("x"), branch("y")]));
    fan["convergence"] = json!("first-wins");
    cases.push(with_node(fan));

    assert_eq!(cases.len(), 63);
    let mut disagreements = Vec::new();
    for case in &cases {
        let schema_ok = validator.is_valid(case);
        let ours: Vec<Issue> = check_loader(case)
            .into_iter()
            .filter(|i| SCHEMA_BACKED.contains(&i.code().as_str()))
            .collect();
        if schema_ok != ours.is_empty() {
            disagreements.push(format!("schema_ok={schema_ok} ours={ours:#?} case={case}"));
        }
        // What the schema accepts, the strict wire model reads.
        if schema_ok && let Err(e) = wire::Flow::from_value(case) {
            disagreements.push(format!("wire model refuses a valid flow: {e}; case={case}"));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n\n"));
}

// ---------------------------------------------------------------- stage 1 (shape)

#[test]
fn minimal_linear_flow_is_clean() {
    assert_clean(&base());
}

#[test]
fn shape_problems_are_ajv_shaped() {
    let mut v = base();
    v.as_object_mut().expect("o").remove("nodes");
    let i = only_error(&v, "schema-validation-failed");
    assert_eq!(i.message(), "must have required property 'nodes'");
    assert_eq!(i.keyword(), Some("required"));
    assert_eq!(i.params()["missingProperty"], "nodes");

    let mut v = base();
    v.as_object_mut().expect("o").remove("edges");
    assert_eq!(
        only_error(&v, "schema-validation-failed").message(),
        "must have required property 'edges'"
    );
    assert_eq!(codes_of(&errors(&json!([]))), ["schema-validation-failed"]);

    let mut v = base();
    v["triggers"] = json!([]);
    let i = only_error(&v, "schema-validation-failed");
    assert_eq!(i.instance_path(), "");
    assert_eq!(i.params()["additionalProperty"], "triggers");

    let mut v = base();
    v["version"] = json!("v1");
    assert_eq!(
        only_error(&v, "schema-validation-failed").instance_path(),
        "/version"
    );

    let mut v = base();
    v["nodes"][0]["kind"] = json!("llm");
    let i = only_error(&v, "schema-validation-failed");
    assert_eq!(i.instance_path(), "/nodes/0/kind");
    assert_eq!(i.keyword(), Some("enum"));

    let mut v = base();
    v["nodes"][0]["inputMapping"] = json!({"x": {"path": "input.x"}});
    let i = only_error(&v, "schema-validation-failed");
    assert_eq!(i.instance_path(), "/nodes/0/inputMapping/x/path");
    assert_eq!(i.keyword(), Some("pattern"));
}

#[test]
fn legacy_leaf_subgraph_and_node_policy_fail_the_shape() {
    let v = with_node(json!({"id": "a", "kind": "subgraph", "ref": "x"}));
    let errs = check_loader(&v);
    assert!(
        errs.iter().any(|i| i.code() == "schema-validation-failed"),
        "{errs:#?}"
    );
    let v = with_node(
        json!({"id": "a", "kind": "fanout", "convergence": "settle-all",
        "branches": [branch("x"), branch("y")], "policy": {}}),
    );
    assert_eq!(
        only_error(&v, "schema-validation-failed").params()["additionalProperty"],
        "policy"
    );
}

// ---------------------------------------------------------------- rules 1–3

#[test]
fn rule_1_reserved_ids_at_any_depth() {
    for id in ["$start", "$end"] {
        let mut v = base();
        v["nodes"][0]["id"] = json!(id);
        v["edges"] = json!([{"id": "e0", "from": "$start", "to": "$end"}]);
        let errs = errors(&v);
        let i = errs
            .iter()
            .find(|i| i.code() == "reserved-id")
            .expect("reserved-id");
        assert_eq!(
            i.message(),
            format!("Node id \"{id}\" is reserved as a flow sentinel and may not name a node")
        );
        assert_eq!(i.instance_path(), "/nodes/0/id");
    }
    let (mut nodes, edges) = worker_body();
    nodes[0]["id"] = json!("$loop-start");
    let v = with_node(while_loop("a", nodes, edges));
    let errs = errors(&v);
    assert!(
        errs.iter()
            .any(|i| i.code() == "reserved-id" && i.instance_path() == "/nodes/0/body/nodes/0/id"),
        "{errs:#?}"
    );
}

#[test]
fn rule_2_duplicate_node_ids_across_bodies() {
    let v = flow(
        json!([{"id": "a", "kind": "tool", "ref": "t"}, {"id": "a", "kind": "agent", "ref": "g"}]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "$end"}]),
    );
    let i = only_error(&v, "duplicate-node-id");
    assert_eq!(i.instance_path(), "/nodes/1/id");
    assert_eq!(
        i.message(),
        "Node id \"a\" is used more than once (across outer flow and loop bodies)"
    );
    // Nested loops reusing `shared`, and a body node equal to an outer node.
    let inner = |id: &str| {
        while_loop(
            id,
            json!([{"id": "shared", "kind": "tool", "ref": "t"}]),
            json!([{"id": format!("{id}-s"), "from": "$loop-start", "to": "shared"},
                   {"id": format!("{id}-e"), "from": "shared", "to": "$loop-end"}]),
        )
    };
    let outer = foreach_loop(
        "a",
        json!([inner("l1"), inner("l2"), {"id": "a", "kind": "tool", "ref": "t"}]),
        json!([{"id": "f0", "from": "$loop-start", "to": "l1"},
               {"id": "f1", "from": "l1", "to": "l2"},
               {"id": "f2", "from": "l2", "to": "a"},
               {"id": "f3", "from": "a", "to": "$loop-end"}]),
    );
    let errs = errors(&with_node(outer));
    let dups: Vec<_> = errs
        .iter()
        .filter(|i| i.code() == "duplicate-node-id")
        .map(Issue::instance_path)
        .collect();
    assert_eq!(
        dups,
        [
            "/nodes/0/body/nodes/1/body/nodes/0/id",
            "/nodes/0/body/nodes/2/id"
        ]
    );
}

#[test]
fn rule_3_duplicate_edge_ids_outer_then_bodies() {
    let (nodes, mut edges) = worker_body();
    edges[1]["id"] = json!("e0");
    let mut v = with_node(while_loop("a", nodes, edges));
    v["edges"][1]["id"] = json!("e0");
    let errs = errors(&v);
    let dups: Vec<_> = errs
        .iter()
        .filter(|i| i.code() == "duplicate-edge-id")
        .map(|i| (i.instance_path(), i.message()))
        .collect();
    assert_eq!(
        dups,
        [
            (
                "/edges/1/id",
                "Edge id \"e0\" is used more than once (across outer flow and loop bodies)"
            ),
            (
                "/nodes/0/body/edges/1/id",
                "Edge id \"e0\" is used more than once (across outer flow and loop bodies)"
            ),
        ]
    );
}

// ---------------------------------------------------------------- rule 4

#[test]
fn rule_4_unknown_node_references_both_endpoints() {
    let mut v = base();
    v["edges"][1]["to"] = json!("ghost");
    let i = only_error(&v, "unknown-node-reference");
    assert_eq!(i.message(), "Edge \"e1\" to unknown node \"ghost\"");
    assert_eq!(i.instance_path(), "/edges/1/to");
    assert_eq!(i.params()["endpoint"], "to");
    assert_eq!(i.params()["referencedId"], "ghost");

    let (nodes, edges) = worker_body();
    let v = flow(
        json!([while_loop("l", nodes, edges)]),
        json!([
            {"id": "e0", "from": "$start", "to": "l"},
            {"id": "e1", "from": "$end", "to": "$start"},
            {"id": "e2", "from": "worker", "to": "$loop-end"},
            {"id": "e3", "from": "l", "to": "$end"}
        ]),
    );
    let errs = errors(&v);
    let got: Vec<_> = errs
        .iter()
        .map(|i| (i.code().as_str(), i.message()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "unknown-node-reference",
                "Edge \"e1\" from unknown node \"$end\""
            ),
            (
                "unknown-node-reference",
                "Edge \"e1\" to unknown node \"$start\""
            ),
            (
                "unknown-node-reference",
                "Edge \"e2\" from unknown node \"worker\""
            ),
            (
                "unknown-node-reference",
                "Edge \"e2\" to unknown node \"$loop-end\""
            ),
        ]
    );
}

// ---------------------------------------------------------------- rule 5

#[test]
fn rule_5_predicates_in_all_three_places() {
    let mut v = base();
    v["edges"][1]["when"] = json!({"op": "always"});
    let i = only_error(&v, "invalid-predicate");
    assert_eq!(
        i.message(),
        "Edge \"e1\" has an invalid predicate: unknown operator \"always\""
    );

    let mut v = base();
    v["edges"][1]["when"] = json!({"op": "and", "children": [
        {"op": "truthy", "value": {"path": "state.ready"}},
        {"op": "or", "children": []},
        {"op": "eq", "left": {"path": ""}, "right": {"literal": 1, "path": "x"}}
    ]});
    let errs = errors(&v);
    let got: Vec<_> = errs
        .iter()
        .map(|i| (i.instance_path(), i.message()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "/edges/1/when/children/1",
                "Edge \"e1\" has an invalid predicate: or requires at least one child"
            ),
            (
                "/edges/1/when/children/2/left",
                "Edge \"e1\" has an invalid predicate: left: path must be a non-empty string"
            ),
            (
                "/edges/1/when/children/2/right",
                "Edge \"e1\" has an invalid predicate: right: operand must be a {literal} or {path}"
            ),
        ]
    );

    let (nodes, mut edges) = worker_body();
    edges[1]["when"] = json!({"op": "in", "value": {"path": "state.x"}});
    let mut l = while_loop("l", nodes, edges);
    l["exitCondition"] = json!({"op": "not"});
    let v = with_node(l);
    let mut v = v;
    v["edges"] =
        json!([{"id": "e0", "from": "$start", "to": "l"}, {"id": "e1", "from": "l", "to": "$end"}]);
    let errs = errors(&v);
    let got: Vec<_> = errs.iter().map(Issue::message).collect();
    assert_eq!(
        got,
        [
            "Loop node \"l\" has an invalid exitCondition: not requires a child expression",
            "Loop \"l\" body edge \"b1\" has an invalid predicate: set: operand must be a {literal} or {path}",
        ]
    );
}

#[test]
fn rule_5_nested_and_or_not_is_fine() {
    let mut v = base();
    v["edges"][1]["when"] = json!({"op": "and", "children": [
        {"op": "truthy", "value": {"path": "state.ready"}},
        {"op": "not", "child": {"op": "exists", "value": {"path": "state.error"}}},
        {"op": "notIn", "value": {"path": "runInput.role"}, "set": {"literal": ["a", "b"]}}
    ]});
    assert_clean(&v);
}

// ---------------------------------------------------------------- rule 6

#[test]
fn rule_6_edge_policies_every_field() {
    let mut v = chain(&["a", "b"]);
    v["edges"][1]["policy"] = json!({
        "retry": {"maxAttempts": 11, "delayMs": -50, "backoff": "exponential"},
        "timeoutMs": 3_600_001,
        "concurrencyKey": "k\n1",
        "priority": 200
    });
    let errs = errors(&v);
    let got: Vec<_> = errs
        .iter()
        .map(|i| {
            (
                i.params()["field"].as_str().unwrap_or_default(),
                i.message(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "retry.maxAttempts",
                "Edge \"c0\" has an invalid policy at retry.maxAttempts: must be within [1, 10] (got 11)"
            ),
            (
                "retry.delayMs",
                "Edge \"c0\" has an invalid policy at retry.delayMs: must be a non-negative integer (got -50)"
            ),
            (
                "retry.maxDelayMs",
                "Edge \"c0\" has an invalid policy at retry.maxDelayMs: is required when retry.backoff is \"exponential\" (unbounded growth otherwise)"
            ),
            (
                "timeoutMs",
                "Edge \"c0\" has an invalid policy at timeoutMs: must be <= 3600000 (1 hour cap; got 3600001)"
            ),
            (
                "concurrencyKey",
                "Edge \"c0\" has an invalid policy at concurrencyKey: must contain only printable ASCII (0x20..0x7E)"
            ),
            (
                "priority",
                "Edge \"c0\" has an invalid policy at priority: must be within [-100, 100] (got 200)"
            ),
        ]
    );
    assert!(errs.iter().all(|i| i.code() == "invalid-edge-policy"));
    assert_eq!(errs[0].instance_path(), "/edges/1/policy/retry/maxAttempts");

    for (policy, message) in [
        (
            json!({"retry": {"maxAttempts": 2, "backoff": "quantum"}}),
            "retry.backoff: must be one of \"fixed\" | \"linear\" | \"exponential\" (got \"quantum\")",
        ),
        (json!({"timeoutMs": 0}), "timeoutMs: must be >= 1 (got 0)"),
        (
            json!({"timeoutMs": 100.5}),
            "timeoutMs: must be an integer (got 100.5)",
        ),
        (
            json!({"concurrencyKey": ""}),
            "concurrencyKey: must not be empty",
        ),
        (
            json!({"concurrencyKey": "k".repeat(257)}),
            "concurrencyKey: must be <= 256 chars (got 257)",
        ),
        (
            json!({"concurrencyKey": 42}),
            "concurrencyKey: must be a string",
        ),
        (
            json!({"priority": "high"}),
            "priority: must be a number (got string)",
        ),
        (
            json!({"priority": 1.5}),
            "priority: must be an integer (got 1.5)",
        ),
        (
            json!({"retry": {}}),
            "retry.maxAttempts: must be an integer",
        ),
    ] {
        let mut v = chain(&["a", "b"]);
        v["edges"][1]["policy"] = policy;
        let i = only_error(&v, "invalid-edge-policy");
        assert_eq!(
            i.message(),
            format!("Edge \"c0\" has an invalid policy at {message}")
        );
    }
    for policy in [
        json!({"retry": {"maxAttempts": 5, "delayMs": 100, "backoff": "exponential", "maxDelayMs": 5000}}),
        json!({"retry": {"maxAttempts": 1, "backoff": "linear"}}),
        json!({"timeoutMs": 3_600_000, "concurrencyKey": "k".repeat(256), "priority": -100}),
    ] {
        let mut v = chain(&["a", "b"]);
        v["edges"][1]["policy"] = policy;
        assert_clean(&v);
    }
}

// ---------------------------------------------------------------- rules 7–10

#[test]
fn rule_7_max_iterations() {
    for (value, message) in [
        (
            json!(0),
            "Loop node \"a\": maxIterations must be >= 1 (got 0)",
        ),
        (
            json!(10001),
            "Loop node \"a\": maxIterations must be <= 10000 (got 10001)",
        ),
        (
            json!(2.5),
            "Loop node \"a\": maxIterations must be an integer (got 2.5)",
        ),
    ] {
        let (nodes, edges) = worker_body();
        let mut l = while_loop("a", nodes, edges);
        l["maxIterations"] = value;
        let i = only_error(&with_node(l), "loop-invalid-max-iterations");
        assert_eq!(i.message(), message);
        assert_eq!(i.instance_path(), "/nodes/0/maxIterations");
    }
    for ok in [1, 10000] {
        let (nodes, edges) = worker_body();
        let mut l = foreach_loop("a", nodes, edges);
        l["maxIterations"] = json!(ok);
        assert_clean(&with_node(l));
    }
}

#[test]
fn rule_8_loop_variants_report_every_problem() {
    let (nodes, edges) = worker_body();
    let mut l = while_loop("a", nodes.clone(), edges.clone());
    l.as_object_mut().expect("o").remove("exitCondition");
    l["iterateOver"] = json!({"path": "runInput.items"});
    l["concurrency"] = json!(2);
    l["evaluationTiming"] = json!("soon");
    let errs = errors(&with_node(l));
    let got: Vec<_> = errs.iter().map(Issue::message).collect();
    assert_eq!(
        got,
        [
            "Loop node \"a\" (loopKind=while): while-missing-exit-condition",
            "Loop node \"a\" (loopKind=while): while-has-iterate-over",
            "Loop node \"a\" (loopKind=while): while-has-concurrency",
            "Loop node \"a\" (loopKind=while): while-has-invalid-evaluation-timing",
        ]
    );
    let mut l = foreach_loop("a", nodes, edges);
    l.as_object_mut().expect("o").remove("iterateOver");
    l["exitCondition"] = json!({"op": "truthy", "value": {"path": "state.done"}});
    l["evaluationTiming"] = json!("before");
    let errs = errors(&with_node(l));
    assert!(
        errs.iter().all(|i| i.code() == "loop-variant-mismatch"),
        "{errs:#?}"
    );
    let problems: Vec<_> = errs.iter().map(|i| i.params()["problem"].clone()).collect();
    assert_eq!(
        problems,
        [
            json!("foreach-missing-iterate-over"),
            json!("foreach-has-exit-condition"),
            json!("foreach-has-evaluation-timing"),
        ]
    );
}

#[test]
fn rule_9_loop_output_schemas_compile_strictly() {
    let (nodes, edges) = worker_body();
    let mut l = while_loop("a", nodes.clone(), edges.clone());
    l["outputSchema"] = json!({"thisIsNotAValidKeyword": true});
    let i = only_error(&with_node(l), "loop-invalid-output-schema");
    assert_eq!(
        i.message(),
        "Loop node \"a\" outputSchema failed to compile: strict mode: unknown keyword: \"thisIsNotAValidKeyword\""
    );
    let mut l = foreach_loop("a", nodes.clone(), edges.clone());
    l["outputSchema"] = json!({"type": "not-a-type"});
    let i = only_error(&with_node(l), "loop-invalid-output-schema");
    assert!(
        i.message()
            .starts_with("Loop node \"a\" outputSchema failed to compile: "),
        "{i:?}"
    );
    // The shared strict compiler reports the schema as a whole, with the keyword's path in
    // Ajv's `schema is invalid: data/<path> …` wording.
    assert_eq!(i.instance_path(), "/nodes/0/outputSchema");
    assert!(
        i.message().contains("schema is invalid: data/type "),
        "{i:?}"
    );
    let mut l = foreach_loop("a", nodes, edges);
    l["outputSchema"] = json!({
        "type": "object", "required": ["status"], "x-kindgi-tunable": true,
        "properties": {"status": {"enum": ["ok", "no"]}, "items": {"type": "array", "items": {"type": "string"}}}
    });
    assert_clean(&with_node(l));
}

#[test]
fn rule_10_foreach_concurrency() {
    for (c, max, reason, message) in [
        (
            json!(1.5),
            100,
            "not-integer",
            "Loop node \"a\": concurrency must be an integer (got 1.5)",
        ),
        (
            json!(0),
            100,
            "below-minimum",
            "Loop node \"a\": concurrency must be >= 1 (got 0)",
        ),
        (
            json!(33),
            100,
            "exceeds-cap",
            "Loop node \"a\": concurrency must be <= 32 (safety cap) (got 33)",
        ),
        (
            json!(5),
            3,
            "exceeds-max-iterations",
            "Loop node \"a\": concurrency must be <= maxIterations (3) (got 5)",
        ),
    ] {
        let (nodes, edges) = worker_body();
        let mut l = foreach_loop("a", nodes, edges);
        l["concurrency"] = c;
        l["maxIterations"] = json!(max);
        let i = only_error(&with_node(l), "loop-invalid-concurrency");
        assert_eq!(i.message(), message);
        assert_eq!(i.params()["reason"], reason);
    }
    for ok in [1, 32] {
        let (nodes, edges) = worker_body();
        let mut l = foreach_loop("a", nodes, edges);
        l["concurrency"] = json!(ok);
        assert_clean(&with_node(l));
    }
}

// ---------------------------------------------------------------- rules 11–12

#[test]
fn rule_11_fanout_nodes_every_problem() {
    for conv in ["settle-all", "all-succeed", "any-succeed"] {
        let mut f = fanout(json!([branch("x"), branch("y"), branch("z")]));
        f["convergence"] = json!(conv);
        f["concurrency"] = json!(2);
        assert_clean(&with_node(f));
    }
    let mut f = fanout(json!([
        branch("dup"),
        branch("dup"),
        {"branchId": "", "handler": "h", "outputSchema": {}},
        {"branchId": "c", "handler": "", "outputSchema": {"type": "not-a-type"}},
        {"branchId": "d", "handler": "h"}
    ]));
    f["convergence"] = json!("first-wins");
    f["concurrency"] = json!(9);
    let errs = errors(&with_node(f));
    assert!(
        errs.iter().all(|i| i.code() == "invalid-fanout-node"),
        "{errs:#?}"
    );
    let fields: Vec<_> = errs
        .iter()
        .map(|i| i.params()["field"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        fields,
        [
            "branch-id",
            "branch-id",
            "branch-handler",
            "branch-output-schema",
            "branch-output-schema",
            "convergence",
            "concurrency"
        ]
    );
    assert_eq!(
        errs[0].message(),
        "Fanout node \"a\": duplicate branchId \"dup\" within fanout"
    );
    assert_eq!(errs[0].params()["branchId"], "dup");
    assert!(
        errs[3]
            .message()
            .starts_with("Fanout node \"a\" branch \"c\" outputSchema failed to compile: ")
    );
    assert_eq!(
        errs[4].message(),
        "Fanout node \"a\": branch \"d\" must declare an outputSchema (typed escape contract)"
    );
    assert_eq!(
        errs[6].message(),
        "Fanout node \"a\": must be <= branches.length (5) — a fanout cannot request more concurrent workers than it has branches (got 9)"
    );

    let i = only_error(
        &with_node(fanout(json!([branch("x")]))),
        "invalid-fanout-node",
    );
    assert_eq!(
        i.message(),
        "Fanout node \"a\": must declare at least 2 branches"
    );
}

#[test]
fn fanout_inside_a_foreach_body_is_checked_too() {
    let mut f = fanout(json!([branch("x"), branch("x")]));
    f["id"] = json!("fan");
    let l = foreach_loop(
        "a",
        json!([f]),
        json!([{"id": "b0", "from": "$loop-start", "to": "fan"}, {"id": "b1", "from": "fan", "to": "$loop-end"}]),
    );
    let i = only_error(&with_node(l), "invalid-fanout-node");
    assert_eq!(
        i.instance_path(),
        "/nodes/0/body/nodes/0/branches/1/branchId"
    );
}

#[test]
fn rule_12_subgraph_nodes() {
    let errs = check_loader(&with_node(subgraph()));
    assert!(errs.is_empty(), "{errs:#?}");
    let mut s = subgraph();
    s["flowRef"]["version"] = json!("1.2.3-alpha.1");
    s["inputMapping"] = json!({});
    s["convergence"] = json!("success-only");
    assert!(check_loader(&with_node(s)).is_empty());

    let mut s = subgraph();
    s["flowRef"] = json!({"flowId": "", "version": "^1.0.0"});
    s["inputMapping"] = json!({"a": "runInput.x", "b": {"garbage": "field"}});
    s["outputSchema"] = json!({"type": "not-a-real-type"});
    s["convergence"] = json!("quantum");
    let errs = check_loader(&with_node(s));
    let got: Vec<_> = errs
        .iter()
        .map(|i| (i.code().as_str(), i.message()))
        .collect();
    assert_eq!(
        got[0],
        (
            "invalid-subgraph-node",
            "Subgraph node \"a\": must be a non-empty string"
        )
    );
    assert_eq!(
        got[1].1,
        "Subgraph node \"a\": must be an exact semver (no ranges) — got \"^1.0.0\""
    );
    assert_eq!(
        got[2].1,
        "Subgraph node \"a\": entry \"a\" must be an Operand ({ path } or { literal })"
    );
    assert_eq!(
        got[3].1,
        "Subgraph node \"a\": entry \"b\" is not a valid Operand: operand must be a {literal} or {path}"
    );
    assert!(
        got[4]
            .1
            .starts_with("Subgraph node \"a\" outputSchema failed to compile: ")
    );
    assert_eq!(errs[4].params()["subgraphNodeId"], "a");
    assert_eq!(errs[4].params()["field"], "output-schema");
    assert_eq!(
        got[5].1,
        "Subgraph node \"a\": must be one of success-only | settle-all (got \"quantum\")"
    );
    assert_eq!(got.len(), 6);

    let mut s = subgraph();
    s.as_object_mut().expect("o").remove("outputSchema");
    let errs = check_loader(&with_node(s));
    assert_eq!(
        errs[0].message(),
        "Subgraph node \"a\": must be a JSON Schema (draft 2020-12) — the typed escape contract"
    );
}

// ---------------------------------------------------------------- rules 13–15

#[test]
fn rule_13_mappings() {
    let v = flow(
        json!([
            {"id": "load", "kind": "tool", "ref": "t", "inputMapping": {
                "a": {"path": "runInput.x"}, "b": {"path": "state.y"}, "c": {"literal": null}}},
            {"id": "rank", "kind": "tool", "ref": "t", "inputMapping": {
                "bad": {"path": "nodeOutputs.missing.x"},
                "good": {"path": "nodeOutputs.load.items"},
                "own": {"path": "nodeOutputs.rank.x"},
                "when": {"path": "iterationIndex"}}}
        ]),
        json!([{"id": "e0", "from": "$start", "to": "load"},
               {"id": "e1", "from": "load", "to": "rank"},
               {"id": "e2", "from": "rank", "to": "$end"}]),
    );
    let errs = errors(&v);
    let got: Vec<_> = errs
        .iter()
        .map(|i| (i.instance_path(), i.message()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "/nodes/1/inputMapping/bad/path",
                "Node \"rank\" inputMapping key \"bad\": nodeOutputs.missing names no node in this flow"
            ),
            (
                "/nodes/1/inputMapping/own/path",
                "Node \"rank\" inputMapping key \"own\": a node cannot map its own output"
            ),
            (
                "/nodes/1/inputMapping/when/path",
                "Node \"rank\" inputMapping key \"when\": iterationIndex is only available in a loop's exitCondition"
            ),
        ]
    );
    assert_eq!(errs[0].params()["nodeId"], "rank");
    assert_eq!(errs[0].params()["key"], "bad");

    // Inside a foreach body, and the flow output.
    let l = foreach_loop(
        "a",
        json!([{"id": "inner", "kind": "tool", "ref": "t", "inputMapping": {"g": {"path": "nodeOutputs.ghost"}}}]),
        json!([{"id": "b0", "from": "$loop-start", "to": "inner"}, {"id": "b1", "from": "inner", "to": "$loop-end"}]),
    );
    let mut v = with_node(l);
    v["output"] = json!({"mapping": {"r": {"path": "nodeOutputs.nope"}, "i": {"path": "nodeOutputs.inner.x"}}});
    let errs = errors(&v);
    let got: Vec<_> = errs.iter().map(Issue::message).collect();
    assert_eq!(
        got,
        [
            "Node \"inner\" inputMapping key \"g\": nodeOutputs.ghost names no node in this flow",
            "The flow output key \"r\": nodeOutputs.nope names no node in this flow",
        ]
    );
    assert!(errs[1].params().get("nodeId").is_none());
}

#[test]
fn rule_14_flow_output_schema() {
    let mut v = base();
    v["output"] =
        json!({"mapping": {"x": {"path": "nodeOutputs.a"}}, "schema": {"type": "not-a-type"}});
    let i = only_error(&v, "invalid-flow-output");
    assert!(
        i.message()
            .starts_with("Flow output schema failed to compile: "),
        "{i:?}"
    );
    let mut v = base();
    v["maxParallelism"] = json!(4);
    v["output"] =
        json!({"mapping": {"x": {"path": "nodeOutputs.a"}}, "schema": {"type": "object"}});
    assert_clean(&v);
}

#[test]
fn rule_15_missing_start_edge() {
    let mut v = base();
    v["edges"] = json!([{"id": "e1", "from": "a", "to": "$end"}]);
    let i = only_error(&v, "missing-start-edge");
    assert_eq!(
        i.message(),
        "Flow \"test.flow\" has no edge originating at $start"
    );
    assert_eq!(i.instance_path(), "/edges");
}

// ---------------------------------------------------------------- rules 16–17

#[test]
fn rule_16_cycle_witness_where_upstream_loops_forever() {
    let v = flow(
        json!([{"id": "a", "kind": "tool", "ref": "t"}, {"id": "d", "kind": "tool", "ref": "t"},
               {"id": "b", "kind": "tool", "ref": "t"}]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "d"},
               {"id": "e2", "from": "a", "to": "b"}, {"id": "e3", "from": "b", "to": "a"},
               {"id": "e4", "from": "d", "to": "$end"}]),
    );
    let i = only_error(&v, "cycle-detected");
    assert_eq!(
        i.message(),
        "Flow \"test.flow\" contains a cycle: a → b → a"
    );
    assert_eq!(i.params()["cycle"], json!(["a", "b", "a"]));
    assert_eq!(i.params()["nodes"], json!(["/nodes/0", "/nodes/2"]));
    assert_eq!(i.instance_path(), "/nodes/0");
}

#[test]
fn rule_16_empty_upstream_witness_case_and_every_component() {
    // Upstream returns an empty witness here (c is only downstream of the cycle).
    let v = flow(
        json!([{"id": "c", "kind": "tool", "ref": "t"}, {"id": "a", "kind": "tool", "ref": "t"},
               {"id": "b", "kind": "tool", "ref": "t"}, {"id": "x", "kind": "tool", "ref": "t"},
               {"id": "y", "kind": "tool", "ref": "t"}, {"id": "z", "kind": "tool", "ref": "t"}]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "b"},
               {"id": "e2", "from": "b", "to": "a"}, {"id": "e3", "from": "a", "to": "c"},
               {"id": "e4", "from": "c", "to": "$end"},
               {"id": "e5", "from": "x", "to": "y"}, {"id": "e6", "from": "y", "to": "z"},
               {"id": "e7", "from": "z", "to": "x"}, {"id": "e8", "from": "$start", "to": "x"},
               {"id": "e9", "from": "c", "to": "c"}]),
    );
    let errs = errors(&v);
    let got: Vec<_> = errs.iter().map(Issue::message).collect();
    assert_eq!(
        got,
        [
            "Flow \"test.flow\" contains a cycle: c → c",
            "Flow \"test.flow\" contains a cycle: a → b → a",
            "Flow \"test.flow\" contains a cycle: x → y → z → x",
        ]
    );
}

#[test]
fn rule_16_three_node_cycle_and_diamond() {
    let mut v = chain(&["a", "b", "c"]);
    v["edges"]
        .as_array_mut()
        .expect("a")
        .push(json!({"id": "back", "from": "c", "to": "a"}));
    assert_eq!(
        only_error(&v, "cycle-detected").message(),
        "Flow \"test.flow\" contains a cycle: a → b → c → a"
    );
    let diamond = flow(
        json!([{"id": "a", "kind": "tool", "ref": "t"}, {"id": "b", "kind": "tool", "ref": "t"},
               {"id": "c", "kind": "tool", "ref": "t"}, {"id": "d", "kind": "tool", "ref": "t"}]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "b"},
               {"id": "e2", "from": "a", "to": "c"}, {"id": "e3", "from": "b", "to": "d"},
               {"id": "e4", "from": "c", "to": "d"}, {"id": "e5", "from": "d", "to": "$end"}]),
    );
    assert_clean(&diamond);
}

#[test]
fn rule_17_loop_bodies_at_any_depth() {
    // (a) no $loop-start edge, in a nested body.
    let inner = while_loop(
        "inner",
        json!([{"id": "worker", "kind": "tool", "ref": "t"}]),
        json!([{"id": "i0", "from": "worker", "to": "$loop-end"}]),
    );
    let outer = foreach_loop(
        "a",
        json!([inner]),
        json!([{"id": "o0", "from": "$loop-start", "to": "inner"}, {"id": "o1", "from": "inner", "to": "$loop-end"}]),
    );
    let i = only_error(&with_node(outer), "loop-body-missing-start-edge");
    assert_eq!(
        i.message(),
        "Loop node \"inner\" body has no edge originating at $loop-start"
    );
    assert_eq!(i.instance_path(), "/nodes/0/body/nodes/0/body/edges");

    // (b) a body edge to an outer node, to a nested body's node, and to `$end`.
    let inner = while_loop(
        "inner",
        json!([{"id": "deep", "kind": "tool", "ref": "t"}]),
        json!([{"id": "i0", "from": "$loop-start", "to": "deep"}, {"id": "i1", "from": "deep", "to": "$loop-end"}]),
    );
    let outer = foreach_loop(
        "a",
        json!([inner, {"id": "w", "kind": "tool", "ref": "t"}]),
        json!([{"id": "o0", "from": "$loop-start", "to": "inner"}, {"id": "o1", "from": "inner", "to": "w"},
               {"id": "o2", "from": "w", "to": "$loop-end"},
               {"id": "o3", "from": "a", "to": "deep"}, {"id": "o4", "from": "w", "to": "$end"}]),
    );
    let errs = errors(&with_node(outer));
    let got: Vec<_> = errs
        .iter()
        .map(|i| (i.code().as_str(), i.message()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "loop-body-unknown-node-reference",
                "Loop \"a\" body edge \"o3\" from unknown node \"a\""
            ),
            (
                "loop-body-unknown-node-reference",
                "Loop \"a\" body edge \"o3\" to unknown node \"deep\""
            ),
            (
                "loop-body-unknown-node-reference",
                "Loop \"a\" body edge \"o4\" to unknown node \"$end\""
            ),
        ]
    );

    // (c) a cycle in a nested body.
    let inner = while_loop(
        "inner",
        json!([{"id": "p", "kind": "tool", "ref": "t"}, {"id": "q", "kind": "tool", "ref": "t"}]),
        json!([{"id": "i0", "from": "$loop-start", "to": "p"}, {"id": "i1", "from": "p", "to": "q"},
               {"id": "i2", "from": "q", "to": "p"}, {"id": "i3", "from": "q", "to": "$loop-end"}]),
    );
    let outer = foreach_loop(
        "a",
        json!([inner]),
        json!([{"id": "o0", "from": "$loop-start", "to": "inner"}, {"id": "o1", "from": "inner", "to": "$loop-end"}]),
    );
    let i = only_error(&with_node(outer), "loop-body-cycle-detected");
    assert_eq!(
        i.message(),
        "Loop node \"inner\" body contains a cycle: p → q → p"
    );
}

#[test]
fn foreach_containing_a_while_with_distinct_ids_is_clean() {
    let (nodes, edges) = worker_body();
    let inner = while_loop("inner", nodes, edges);
    let outer = foreach_loop(
        "a",
        json!([inner]),
        json!([{"id": "o0", "from": "$loop-start", "to": "inner"}, {"id": "o1", "from": "inner", "to": "$loop-end"}]),
    );
    assert_clean(&with_node(outer));
}

// ---------------------------------------------------------------- beyond upstream

#[test]
fn warnings_beyond_upstream() {
    let v = flow(
        json!([{"id": "a", "kind": "tool", "ref": "t"}, {"id": "orphan", "kind": "tool", "ref": "t"},
               {"id": "sink", "kind": "tool", "ref": "t"},
               foreach_loop("l", json!([{"id": "w", "kind": "tool", "ref": "t"}]),
                            json!([{"id": "b0", "from": "$loop-start", "to": "w"}]))]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "$end"},
               {"id": "e2", "from": "a", "to": "$end"}, {"id": "e3", "from": "$start", "to": "$end"},
               {"id": "e4", "from": "a", "to": "sink"}, {"id": "e5", "from": "orphan", "to": "$end"},
               {"id": "e6", "from": "a", "to": "l"}, {"id": "e7", "from": "l", "to": "$end"}]),
    );
    let issues = check(&v);
    assert!(
        issues.iter().all(|i| i.severity() == Severity::Warning),
        "{issues:#?}"
    );
    let got: Vec<_> = issues
        .iter()
        .map(|i| (i.code().as_str(), i.instance_path()))
        .collect();
    assert_eq!(
        got,
        [
            ("duplicate-parallel-edge", "/edges/2"),
            ("start-to-end-edge", "/edges/3"),
            ("node-unreachable", "/nodes/1"),
            ("node-cannot-reach-end", "/nodes/2"),
            ("loop-body-missing-end-edge", "/nodes/3/body/edges"),
        ]
    );
}

#[test]
fn unknown_references_and_subgraphs_are_errors_by_default() {
    let v = flow(
        json!([{"id": "a", "kind": "tool", "ref": "t.known"}, {"id": "b", "kind": "tool", "ref": "t.gone"},
               {"id": "c", "kind": "agent", "ref": "g.gone"},
               {"id": "f", "kind": "fanout", "convergence": "settle-all", "branches": [
                   {"branchId": "x", "handler": "t.known", "outputSchema": {}},
                   {"branchId": "y", "handler": "t.nope", "outputSchema": {}}]},
               {"id": "s", "kind": "subgraph", "flowRef": {"flowId": "child", "version": "1.0.0"},
                "inputMapping": {}, "outputSchema": {}, "convergence": "settle-all"}]),
        json!([{"id": "e0", "from": "$start", "to": "a"}, {"id": "e1", "from": "a", "to": "b"},
               {"id": "e2", "from": "b", "to": "c"}, {"id": "e3", "from": "c", "to": "f"},
               {"id": "e4", "from": "f", "to": "s"}, {"id": "e5", "from": "s", "to": "$end"}]),
    );
    let ctx = FlowContext::new()
        .with_tools(["t.known"])
        .with_agents(["g.known"]);
    let issues = validate_flow(&v, &ctx, "/flows/2");
    let got: Vec<_> = issues
        .iter()
        .map(|i| (i.severity(), i.code().as_str(), i.instance_path()))
        .collect();
    assert_eq!(
        got,
        [
            (Severity::Error, "flow-unknown-tool", "/flows/2/nodes/1/ref"),
            (
                Severity::Error,
                "flow-unknown-agent",
                "/flows/2/nodes/2/ref"
            ),
            (
                Severity::Error,
                "flow-unknown-tool",
                "/flows/2/nodes/3/branches/1/handler"
            ),
            (Severity::Error, "flow-unbound", "/flows/2/nodes/4"),
        ]
    );
    let lenient = ctx.with_options(
        FlowOptions::new()
            .with_unknown_reference_severity(Severity::Warning)
            .with_subgraph_severity(Severity::Warning),
    );
    let issues = validate_flow(&v, &lenient, "");
    assert_eq!(issues.len(), 4);
    assert!(issues.iter().all(|i| i.severity() == Severity::Warning));
    // Without a tool or agent list, references are not checked (upstream's loader).
    let issues = validate_flow(&v, &FlowContext::new(), "");
    assert_eq!(codes_of(&issues), ["flow-unbound"]);
}

// ---------------------------------------------------------------- all at once

#[test]
fn one_pass_reports_every_violation() {
    let v = json!({
        "id": "bad.flow", "version": "1.0", "triggers": [],
        "nodes": [
            {"id": "$start", "kind": "tool", "ref": "t"},
            {"id": "a", "kind": "tool", "ref": "t", "inputMapping": {"x": {"path": "nodeOutputs.ghost"}}},
            {"id": "a", "kind": "agent", "ref": "g"},
            {"id": "b", "kind": "tool", "ref": "t"},
            {"id": "l", "kind": "loop", "loopKind": "while", "maxIterations": 0,
             "outputSchema": {"type": "nope"}, "iterateOver": {"path": "runInput.items"},
             "body": {"nodes": [{"id": "w", "kind": "tool", "ref": "t"}, {"id": "v", "kind": "tool", "ref": "t"}],
                      "edges": [{"id": "be", "from": "w", "to": "v"}, {"id": "bf", "from": "v", "to": "w"}]}},
            {"id": "fe", "kind": "loop", "loopKind": "foreach", "maxIterations": 2, "concurrency": 4,
             "iterateOver": {"path": "runInput.items"}, "outputSchema": {},
             "body": {"nodes": [{"id": "x", "kind": "tool", "ref": "t"}],
                      "edges": [{"id": "fx", "from": "$loop-start", "to": "x"}, {"id": "fy", "from": "x", "to": "$loop-end"}]}},
            {"id": "f", "kind": "fanout", "convergence": "settle-all", "branches": [
                {"branchId": "p", "handler": "h", "outputSchema": {}}]},
            {"id": "s", "kind": "subgraph", "flowRef": {"flowId": "c", "version": "~1"},
             "inputMapping": {}, "outputSchema": {}, "convergence": "settle-all"}
        ],
        "edges": [
            {"id": "e1", "from": "a", "to": "b", "when": {"op": "always"}},
            {"id": "e1", "from": "b", "to": "a", "policy": {"retry": {"maxAttempts": 20}}},
            {"id": "e3", "from": "a", "to": "ghost"}
        ],
        "output": {"mapping": {}, "schema": {"type": 7}}
    });
    let errs = errors(&v);
    let mut distinct: Vec<&str> = errs.iter().map(|i| i.code().as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let expected = [
        "cycle-detected",
        "duplicate-edge-id",
        "duplicate-node-id",
        "flow-unbound",
        "invalid-edge-policy",
        "invalid-fanout-node",
        "invalid-flow-output",
        "invalid-mapping",
        "invalid-predicate",
        "invalid-subgraph-node",
        "loop-body-cycle-detected",
        "loop-body-missing-start-edge",
        "loop-invalid-concurrency",
        "loop-invalid-max-iterations",
        "loop-invalid-output-schema",
        "loop-variant-mismatch",
        "missing-start-edge",
        "reserved-id",
        "schema-validation-failed",
        "unknown-node-reference",
    ];
    assert_eq!(distinct, expected, "{errs:#?}");
    assert!(distinct.len() >= 12);
}

// ---------------------------------------------------------------- size and depth

#[test]
fn a_long_chain_and_deep_nesting_do_not_overflow_the_stack() {
    let ids: Vec<String> = (0..20_000).map(|i| format!("n{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut v = chain(&refs);
    v["edges"]
        .as_array_mut()
        .expect("a")
        .push(json!({"id": "back", "from": "n19999", "to": "n0"}));
    let errs = errors(&v);
    assert_eq!(codes_of(&errs), ["cycle-detected"]);
    assert_eq!(
        errs[0].params()["cycle"].as_array().map(Vec::len),
        Some(20_001)
    );

    // 60 nested while loops: within serde_json's parse depth, and every body is walked.
    let mut node = json!({"id": "leaf", "kind": "tool", "ref": "t"});
    for depth in 0..60 {
        let id = format!("l{depth}");
        let inner_id = node["id"].as_str().unwrap_or_default().to_owned();
        node = while_loop(
            &id,
            json!([node]),
            json!([{"id": format!("{id}-s"), "from": "$loop-start", "to": inner_id},
                   {"id": format!("{id}-e"), "from": inner_id, "to": "$loop-end"}]),
        );
    }
    let mut v = with_node(node);
    v["edges"] = json!([{"id": "e0", "from": "$start", "to": "l59"}, {"id": "e1", "from": "l59", "to": "$end"}]);
    assert_clean(&v);
}

// ---------------------------------------------------------------- properties

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A flow over nodes `n0..n{count}` with these edges (indexes), plus `$start → n0` and
    /// `n{last} → $end`.
    fn graph_flow(count: usize, edges: &[(usize, usize)]) -> Value {
        let nodes: Vec<Value> = (0..count)
            .map(|i| json!({"id": format!("n{i}"), "kind": "tool", "ref": "t"}))
            .collect();
        let mut list = vec![
            json!({"id": "s", "from": "$start", "to": "n0"}),
            json!({"id": "z", "from": format!("n{}", count - 1), "to": "$end"}),
        ];
        for (k, (a, b)) in edges.iter().enumerate() {
            list.push(
                json!({"id": format!("e{k}"), "from": format!("n{a}"), "to": format!("n{b}")}),
            );
        }
        flow(Value::Array(nodes), Value::Array(list))
    }

    /// Naive reference: whether node `v` reaches itself through at least one edge.
    fn on_a_cycle(count: usize, edges: &[(usize, usize)], v: usize) -> bool {
        let mut seen = vec![false; count];
        let mut stack: Vec<usize> = edges.iter().filter(|e| e.0 == v).map(|e| e.1).collect();
        while let Some(u) = stack.pop() {
            if u == v {
                return true;
            }
            if !std::mem::replace(&mut seen[u], true) {
                stack.extend(edges.iter().filter(|e| e.0 == u).map(|e| e.1));
            }
        }
        false
    }

    /// Naive reference: whether `a` reaches `b` through zero or more edges.
    fn reaches(edges: &[(usize, usize)], a: usize, b: usize) -> bool {
        let mut seen = std::collections::HashSet::from([a]);
        let mut stack = vec![a];
        while let Some(u) = stack.pop() {
            if u == b {
                return true;
            }
            for &(x, y) in edges {
                if x == u && seen.insert(y) {
                    stack.push(y);
                }
            }
        }
        false
    }

    fn arb_graph() -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
        (1usize..24).prop_flat_map(|n| (Just(n), proptest::collection::vec((0..n, 0..n), 0..60)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Forward edges only: a DAG, so no error at all.
        #[test]
        fn dags_have_no_errors((n, edges) in arb_graph()) {
            let forward: Vec<_> = edges.into_iter().filter(|(a, b)| a < b).collect();
            let v = graph_flow(n, &forward);
            prop_assert!(errors(&v).is_empty(), "{:#?}", errors(&v));
            prop_assert!(wire::Flow::from_value(&v).is_ok());
        }

        /// Every reported cycle is a real cycle; one per cyclic component; a node is named in
        /// some cycle iff the naive reference says it is on a cycle, component-wise.
        #[test]
        fn cycle_witnesses_are_real_cycles((n, edges) in arb_graph()) {
            let v = graph_flow(n, &edges);
            let issues = errors(&v);
            let mut cyclic_nodes = 0usize;
            for i in issues.iter().filter(|i| i.code() == "cycle-detected") {
                let path: Vec<usize> = i.params()["cycle"]
                    .as_array()
                    .expect("cycle param")
                    .iter()
                    .map(|s| s.as_str().expect("id")[1..].parse().expect("index"))
                    .collect();
                prop_assert!(path.len() >= 2);
                prop_assert_eq!(path.first(), path.last());
                for w in path.windows(2) {
                    prop_assert!(edges.contains(&(w[0], w[1])), "{:?} is not an edge", w);
                }
                let mut inner = path[..path.len() - 1].to_vec();
                inner.sort_unstable();
                inner.dedup();
                prop_assert_eq!(inner.len(), path.len() - 1, "a simple cycle");
                cyclic_nodes += 1;
            }
            // One issue per cyclic strongly connected component.
            let cyclic: Vec<usize> = (0..n).filter(|&v| on_a_cycle(n, &edges, v)).collect();
            let components = cyclic
                .iter()
                .filter(|&&v| {
                    // Count each component once, at its smallest node.
                    !cyclic.iter().any(|&u| u < v && reaches(&edges, u, v) && reaches(&edges, v, u))
                })
                .count();
            prop_assert_eq!(components, cyclic_nodes);
            prop_assert!(issues.iter().all(|i| i.code() == "cycle-detected"), "{:#?}", issues);
        }
    }
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    /// Every pointer into `v` (the root included), in a fixed order.
    fn pointers(v: &Value) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(v, String::new())];
        while let Some((v, p)) = stack.pop() {
            match v {
                Value::Object(o) => {
                    for (k, child) in o {
                        let mut q = p.clone();
                        runstart::diagnostics::pointer::push(&mut q, k);
                        stack.push((child, q));
                    }
                }
                Value::Array(a) => {
                    for (i, child) in a.iter().enumerate() {
                        stack.push((child, format!("{p}/{i}")));
                    }
                }
                _ => {}
            }
            out.push(p);
        }
        out
    }

    fn pool() -> Vec<Value> {
        vec![
            Value::Null,
            json!(0),
            json!(-1),
            json!(1.5),
            json!(40),
            json!(""),
            json!("x"),
            json!("$start"),
            json!("$loop-end"),
            json!("a"),
            json!([]),
            json!({}),
            json!({"op": "eq"}),
            json!({"op": "and", "children": [{"op": "falsy", "value": {"literal": 0}}]}),
            json!({"path": "nodeOutputs.a.x"}),
            json!({"path": "iterationIndex"}),
            json!({"literal": [1]}),
            json!({"type": "nope"}),
            json!({"id": "z", "kind": "loop", "loopKind": "foreach", "body": {"nodes": [], "edges": []}}),
            json!({"id": "a", "from": "a", "to": "a"}),
        ]
    }

    /// A rich valid flow: every node kind, a nested body, policies and mappings.
    fn seed() -> Value {
        let (nodes, edges) = worker_body();
        let inner = while_loop("inner", nodes, edges);
        let outer = foreach_loop(
            "l",
            json!([inner]),
            json!([{"id": "o0", "from": "$loop-start", "to": "inner"}, {"id": "o1", "from": "inner", "to": "$loop-end"}]),
        );
        let mut sg = subgraph();
        sg["id"] = json!("s");
        let mut f = fanout(json!([branch("x"), branch("y")]));
        f["id"] = json!("f");
        json!({
            "id": "seed", "version": "1.0.0",
            "nodes": [
                {"id": "a", "kind": "tool", "ref": "t", "inputMapping": {"k": {"path": "runInput.k"}}},
                outer, f, sg
            ],
            "edges": [
                {"id": "e0", "from": "$start", "to": "a"},
                {"id": "e1", "from": "a", "to": "l", "policy": {"retry": {"maxAttempts": 2}, "priority": 3},
                 "when": {"op": "exists", "value": {"path": "nodeOutputs.a"}}},
                {"id": "e2", "from": "l", "to": "f"},
                {"id": "e3", "from": "f", "to": "s"},
                {"id": "e4", "from": "s", "to": "$end"}
            ],
            "output": {"mapping": {"r": {"path": "nodeOutputs.s"}}, "schema": {"type": "object"}}
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Random replacements and deletions never panic, and every issue's instance path
        /// resolves in the document.
        #[test]
        fn mutated_flows_never_panic_and_pointers_resolve(
            edits in proptest::collection::vec((any::<u32>(), any::<u8>(), any::<bool>()), 1..6)
        ) {
            let pool = pool();
            let mut v = seed();
            for (at, pick, delete) in edits {
                let ps = pointers(&v);
                let target = ps[at as usize % ps.len()].clone();
                if target.is_empty() {
                    continue;
                }
                let (parent, last) = target.rsplit_once('/').expect("non-root pointer");
                let last = last.replace("~1", "/").replace("~0", "~");
                match v.pointer_mut(parent) {
                    Some(Value::Object(o)) if delete => {
                        o.remove(&last);
                    }
                    Some(Value::Array(a)) if delete => {
                        if let Ok(i) = last.parse::<usize>() && i < a.len() {
                            a.remove(i);
                        }
                    }
                    _ => {
                        if let Some(slot) = v.pointer_mut(&target) {
                            *slot = pool[pick as usize % pool.len()].clone();
                        }
                    }
                }
            }
            let ctx = FlowContext::new().with_tools(["t"]).with_agents(["g"]);
            for issue in validate_flow(&v, &ctx, "") {
                prop_assert!(
                    v.pointer(issue.instance_path()).is_some(),
                    "{} does not resolve: {:?}", issue.instance_path(), issue
                );
                prop_assert!(!issue.message().is_empty());
            }
        }
    }
}

#[test]
fn a_flow_over_the_node_cap_gets_one_issue() {
    let nodes: Vec<Value> = (0..=runstart::flow::MAX_NODES)
        .map(|i| json!({"id": format!("n{i}"), "kind": "tool", "ref": "t"}))
        .collect();
    let v = flow(Value::Array(nodes), json!([]));
    let issues = check(&v);
    assert_eq!(codes_of(&issues), ["flow-too-large"]);
    assert!(
        issues[0]
            .message()
            .starts_with("the flow has 100001 nodes and 0 edges")
    );
}

/// Counts the flow schema leaves unbounded (`maxParallelism`, retry delays) are read as JSON
/// Schema reads integers (`1e16` is one) into 64-bit fields: a flow the checks accept is read
/// by the typed model, and a count beyond 2^64 − 1 is refused by the checks, at its pointer,
/// not by the typed model with a message naming no field. Found by an adversarial run.
#[test]
fn unbounded_counts_are_read_or_refused_at_their_pointer() {
    let mut large = base();
    large["maxParallelism"] = json!(1e16);
    large["edges"][1]["policy"] = json!({"retry": {"maxAttempts": 2, "delayMs": 1.8e19,
        "backoff": "exponential", "maxDelayMs": 2e18}});
    assert_clean(&large);
    let typed = runstart::flow::wire::Flow::from_value(&large).expect("the typed model reads it");
    assert_eq!(typed.max_parallelism, Some(10_000_000_000_000_000));

    let mut delay = base();
    delay["edges"][1]["policy"] = json!({"retry": {"maxAttempts": 2, "delayMs": 1e20}});
    let issue = only_error(&delay, "invalid-edge-policy");
    assert_eq!(issue.instance_path(), "/edges/1/policy/retry/delayMs");
    assert_eq!(
        issue.message(),
        "Edge \"e1\" has an invalid policy at retry.delayMs: must be at most \
         18446744073709551615 (got 1e+20)"
    );

    let mut parallel = base();
    parallel["maxParallelism"] = json!(1e20);
    let issue = only_error(&parallel, "schema-validation-failed");
    assert_eq!(issue.instance_path(), "/maxParallelism");
    assert_eq!(issue.message(), "must be <= 18446744073709551615");
    // the same bound in a pack index entry, whose other top-level fields the index checks
    parallel["kernelPayloadVersion"] = json!(1);
    parallel["modulePath"] = json!("flows/f.ts");
    let entry = runstart::flow::check_index_flow(&parallel, 2, &FlowContext::new());
    assert_eq!(codes_of(&entry), ["schema-validation-failed"], "{entry:#?}");
    assert_eq!(entry[0].instance_path(), "/flows/2/maxParallelism");
}

/// Unknown fields and mapping entries are reported in JavaScript's key order (array-index
/// keys first), as Ajv and upstream's checks meet them.
#[test]
fn unknown_fields_come_in_javascript_key_order() {
    let mut v = base();
    v["nodes"][0]["zz"] = json!(1);
    v["nodes"][0]["0"] = json!(2);
    let issues = check(&v);
    let named: Vec<&str> = issues
        .iter()
        .filter_map(|i| i.params().get("additionalProperty")?.as_str())
        .collect();
    assert_eq!(named, ["0", "zz"]);
}
