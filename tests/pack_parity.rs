//! Deploy validation and run start compile a pack with one `CompiledPack::compile`; they must
//! not disagree. Every issue `RunStart::register_pack` refuses a pack with also appears in
//! `validate_index`'s report with the same code, instance path and message (issue #14), for
//! the fixture packs, the broken pack, the upstream example and one small pack per refusal
//! path of registration.

mod util;

use runstart::index::load;
use runstart::run::{RegisterError, RunStart};
use runstart::validate::{ValidateOptions, validate_index};
use serde_json::{Value, json};

type Key = (String, String, String);

fn key(issue: &runstart::diagnostics::Issue) -> Key {
    (
        issue.code().to_string(),
        issue.instance_path().to_owned(),
        issue.message().to_owned(),
    )
}

/// The registration issues of `bytes` (empty when it registers or does not load as a pack),
/// and the ones validation does not report identically.
fn check(name: &str, bytes: &[u8]) -> (Vec<Key>, Vec<Key>) {
    let report = validate_index(bytes, &ValidateOptions::new());
    let validated: Vec<Key> = report.issues().iter().map(key).collect();
    let Some(index) = load(bytes).index else {
        // Registration takes a loaded pack; one that does not load has nothing to compare.
        assert!(report.has_errors(), "{name}: does not load yet validates");
        return (Vec::new(), Vec::new());
    };
    let run_start = RunStart::new();
    let refused = match run_start.register_pack("t", &index) {
        Ok(()) => {
            // Registered means every agent is: none left out without an issue.
            for a in &index.agents {
                let request =
                    runstart::run::RunRequest::new("t", &a.entry.id, "2026-01-01T00:00:00.000Z");
                if let Err(e) = run_start.prepare(&request) {
                    assert_ne!(
                        e.code(),
                        "agent-not-found",
                        "{name}: registered, but agent {} is not: {e}",
                        a.entry.id
                    );
                }
            }
            Vec::new()
        }
        Err(RegisterError::Pack(issues)) => issues.iter().map(key).collect(),
        Err(e) => panic!("{name}: unexpected registration error {e}"),
    };
    let missing = refused
        .iter()
        .filter(|k| !validated.contains(k))
        .cloned()
        .collect();
    (refused, missing)
}

#[track_caller]
fn assert_parity(name: &str, bytes: &[u8]) -> Vec<Key> {
    let (refused, missing) = check(name, bytes);
    assert!(
        missing.is_empty(),
        "{name}: registration refuses with issues validation does not report:\n{missing:#?}\nvalidation reported:\n{:#?}",
        validate_index(bytes, &ValidateOptions::new())
            .issues()
            .iter()
            .map(key)
            .collect::<Vec<_>>()
    );
    refused
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
}

#[test]
fn fixture_packs_agree() {
    let dir = format!("{}/fixtures/packs", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/packs") {
        let dir = entry.expect("entry").path();
        let path = dir.join("index.json");
        // The broken pack has its own test (below), with its known disagreements.
        if path.is_file() && !dir.ends_with("broken") {
            let bytes = std::fs::read(&path).expect("index.json");
            assert_parity(&path.display().to_string(), &bytes);
            seen += 1;
        }
    }
    assert!(seen >= 2, "expected the fixture packs, found {seen}");
}

/// The broken pack has entries whose shape fails and a flow with a cycle: registration
/// refuses it with their shape issues and the cycle (which validation reports as they are),
/// and both resolve references to such an entry as present, so neither reports a cascade of
/// "not found" issues.
#[test]
fn broken_pack_agrees_and_is_refused() {
    let (refused, missing) = check("broken", &read("fixtures/packs/broken/index.json"));
    assert!(!refused.is_empty(), "the broken pack registers");
    assert!(
        refused
            .iter()
            .all(|(code, ..)| code == "invalid-shape" || code == "cycle-detected"),
        "{refused:#?}"
    );
    assert!(
        refused.iter().any(|(_, path, _)| path == "/tools/1"),
        "{refused:#?}"
    );
    assert!(
        refused
            .iter()
            .any(|(code, path, _)| code == "cycle-detected" && path == "/flows/0/nodes/0"),
        "{refused:#?}"
    );
    assert_eq!(missing, Vec::<Key>::new(), "{refused:#?}");
}

#[test]
fn upstream_example_agrees() {
    let Some(text) = util::shared_file("upstream/examples/pack-index.example.python-pack.json")
    else {
        return;
    };
    assert_parity("upstream example", text.as_bytes());
}

/// A small valid pack: tool `t` at 1.0.0 and 1.2.0, prompt block `p.b`, settings block `p.s`, one
/// agent `a` that uses them. `edit` changes the document before it is checked.
fn synthetic(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut doc = json!({
        "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "1",
        "publishedAt": "2026-01-01T00:00:00.000Z",
        "tools": [
            {"id": "t", "version": "1.0.0", "input": {}, "output": {}, "modulePath": "t.ts"},
            {"id": "t", "version": "1.2.0", "input": {}, "output": {}, "modulePath": "t.ts"}
        ],
        "guardrails": [],
        "agents": [{
            "id": "a", "version": "1.0.0", "name": "A", "instructions": "Hello {{ agent.name }}",
            "capabilities": [{"needs": [{"feature": "tool-use"}]}],
            "tools": [{"id": "t", "version": "^1.0.0"}],
            "settings": [{"id": "p.s", "version": "^1.0.0"}],
            "modulePath": "a.ts"
        }],
        "flows": [],
        "blocks": [
            {"id": "p.b", "version": "1.0.0", "kind": "prompt", "content": {"template": "x"}, "modulePath": "b.json"},
            {"id": "p.s", "version": "1.0.0", "kind": "settings", "content": {"values": {"k": 1}}, "modulePath": "s.json"}
        ]
    });
    edit(&mut doc);
    serde_json::to_vec(&doc).expect("json")
}

/// Each case: a name, the pack, and the code registration must refuse it with (`None`: it
/// registers).
fn cases() -> Vec<(&'static str, Vec<u8>, Option<&'static str>)> {
    let deep = format!("{}x{}", "{% if a %}".repeat(120), "{% endif %}".repeat(120));
    let long = "x".repeat(runstart::template::MAX_TEMPLATE_LENGTH + 1);
    vec![
        ("valid", synthetic(|_| {}), None),
        (
            // Of two definitions of one agent version, neither may win in silence.
            "agent version defined twice",
            synthetic(|d| {
                let mut twin = d["agents"][0].clone();
                twin["instructions"] = json!("Other {{ agent.name }}");
                d["agents"].as_array_mut().expect("list").push(twin);
            }),
            Some("duplicate-entry"),
        ),
        (
            "tool version defined twice",
            synthetic(|d| d["tools"][1]["version"] = json!("1.0.0")),
            Some("duplicate-entry"),
        ),
        (
            "block version defined twice",
            synthetic(|d| {
                let mut twin = d["blocks"][0].clone();
                twin["content"]["template"] = json!("y");
                d["blocks"].as_array_mut().expect("list").insert(1, twin);
            }),
            Some("duplicate-entry"),
        ),
        (
            "tool version not semver",
            synthetic(|d| d["tools"][1]["version"] = json!("1.2")),
            Some("invalid-shape"),
        ),
        (
            "tool range invalid",
            synthetic(|d| d["agents"][0]["tools"][0]["version"] = json!(">=1.0.0 <")),
            Some("invalid-version-range"),
        ),
        (
            "tool range unresolvable",
            synthetic(|d| d["agents"][0]["tools"][0]["version"] = json!("^3.0.0")),
            Some("tool-version-unresolvable"),
        ),
        (
            "tool missing",
            synthetic(|d| d["agents"][0]["tools"][0]["id"] = json!("u")),
            Some("tool-not-found"),
        ),
        (
            "instructions not Liquid",
            synthetic(|d| d["agents"][0]["instructions"] = json!("{% if %}")),
            Some("template-parse"),
        ),
        (
            "instructions too deep",
            synthetic(|d| d["agents"][0]["instructions"] = json!(deep)),
            Some("template-too-deep"),
        ),
        (
            "instructions too long",
            synthetic(|d| d["agents"][0]["instructions"] = json!(long)),
            Some("template-too-long"),
        ),
        (
            "prompt block not Liquid",
            synthetic(|d| d["blocks"][0]["content"]["template"] = json!("{{ x")),
            Some("template-parse"),
        ),
        (
            "prompt block too deep",
            synthetic(|d| d["blocks"][0]["content"]["template"] = json!(deep)),
            Some("template-too-deep"),
        ),
        (
            "block version not semver",
            synthetic(|d| d["blocks"][1]["version"] = json!("1.0")),
            Some("invalid-block"),
        ),
        (
            "agent version not semver",
            synthetic(|d| d["agents"][0]["version"] = json!("1.0")),
            Some("invalid-agent"),
        ),
        (
            "prompt block missing",
            synthetic(|d| {
                d["agents"][0]["instructions"] = json!({"prompt": "p.nope", "version": "^1.0.0"})
            }),
            Some("block-unresolvable"),
        ),
        (
            "prompt block out of range",
            synthetic(|d| {
                d["agents"][0]["instructions"] = json!({"prompt": "p.b", "version": "^2.0.0"})
            }),
            Some("block-unresolvable"),
        ),
        (
            "prompt block range invalid",
            synthetic(|d| {
                d["agents"][0]["instructions"] = json!({"prompt": "p.b", "version": "^^"})
            }),
            Some("invalid-agent"),
        ),
        (
            "settings block missing",
            synthetic(|d| d["agents"][0]["settings"][0]["id"] = json!("p.nope")),
            Some("block-unresolvable"),
        ),
        (
            "model settings block out of range",
            synthetic(|d| d["agents"][0]["modelSettings"] = json!({"id": "p.s", "version": "^9"})),
            Some("block-unresolvable"),
        ),
        (
            "settings reference to a prompt block",
            synthetic(|d| d["agents"][0]["settings"][0]["id"] = json!("p.b")),
            Some("block-unresolvable"),
        ),
        (
            "block version with a leading zero",
            synthetic(|d| d["blocks"][1]["version"] = json!("01.0.0")),
            Some("invalid-block"),
        ),
        (
            "agent version with a leading zero",
            synthetic(|d| d["agents"][0]["version"] = json!("1.01.0")),
            Some("invalid-agent"),
        ),
        (
            "tool entry with an unknown field",
            synthetic(|d| d["tools"][0]["timeout"] = json!(5)),
            Some("invalid-shape"),
        ),
        (
            "settings reference whose id is not a string",
            synthetic(|d| d["agents"][0]["settings"][0]["id"] = json!(5)),
            Some("invalid-agent"),
        ),
        (
            "settings reference without an id",
            synthetic(|d| d["agents"][0]["settings"][0] = json!({"version": "^1.0.0"})),
            Some("invalid-agent"),
        ),
        (
            "settings reference without a version",
            synthetic(|d| d["agents"][0]["settings"][0] = json!({"id": "p.s"})),
            Some("invalid-agent"),
        ),
        (
            "settings reference that is a string",
            synthetic(|d| d["agents"][0]["settings"][0] = json!("p.s")),
            Some("invalid-agent"),
        ),
        (
            // The index shape says `modelSettings` is an object: the entry has no typed form.
            "model settings reference that is a string",
            synthetic(|d| d["agents"][0]["modelSettings"] = json!("p.s")),
            Some("invalid-shape"),
        ),
        (
            "model settings reference with a null id",
            synthetic(|d| d["agents"][0]["modelSettings"] = json!({"id": null, "version": "^9"})),
            Some("invalid-agent"),
        ),
        (
            "settings reference that is an array of its fields",
            synthetic(|d| d["agents"][0]["settings"][0] = json!(["p.s", "^1.0.0"])),
            Some("invalid-agent"),
        ),
        (
            "settings reference with a field beyond id and version",
            synthetic(|d| d["agents"][0]["settings"][0]["pin"] = json!("1.0.0")),
            Some("invalid-agent"),
        ),
        (
            "parameter of an unknown type",
            synthetic(|d| {
                d["agents"][0]["parameters"] = json!([{"name": "p", "type": "integer"}]);
            }),
            Some("invalid-agent"),
        ),
        (
            "parameter whose required is not a boolean",
            synthetic(|d| {
                d["agents"][0]["parameters"] =
                    json!([{"name": "p", "type": "string", "required": null}]);
            }),
            Some("invalid-agent"),
        ),
        (
            "prompt block with a blank template",
            synthetic(|d| d["blocks"][0]["content"]["template"] = json!("  ")),
            Some("invalid-block"),
        ),
        (
            "prompt block with a content field beyond template and parameters",
            synthetic(|d| d["blocks"][0]["content"]["tone"] = json!("warm")),
            Some("invalid-block"),
        ),
        (
            "block id that is not dotted",
            synthetic(|d| {
                d["blocks"][1]["id"] = json!("s");
                d["agents"][0]["settings"] = json!([{"id": "s", "version": "^1.0.0"}]);
            }),
            Some("invalid-block"),
        ),
        (
            "block description that is null",
            synthetic(|d| d["blocks"][0]["description"] = Value::Null),
            Some("invalid-shape"),
        ),
        (
            "settings values outside their schema",
            synthetic(|d| {
                d["blocks"][1]["content"]["schema"] =
                    json!({"type": "object", "properties": {"k": {"type": "string"}}});
            }),
            Some("settings-values"),
        ),
        (
            "settings schema with a tunable string",
            synthetic(|d| {
                d["blocks"][1]["content"]["schema"] = json!({"type": "object",
                    "properties": {"k": {"type": "integer", "x-kindgi-tunable": true}}});
            }),
            Some("invalid-block"),
        ),
        (
            "prompt block parameters wrong in shape and in value",
            synthetic(|d| {
                d["blocks"][0]["content"]["parameters"] = json!([
                    {"name": "p", "type": "string", "required": null},
                    {"name": "input", "type": "date", "default": "x"}
                ]);
            }),
            Some("parameter-default-type"),
        ),
        (
            "prompt block parameter that is not an object",
            synthetic(|d| d["blocks"][0]["content"]["parameters"] = json!(["p"])),
            Some("invalid-block"),
        ),
        (
            "no capability declarations",
            synthetic(|d| d["agents"][0]["capabilities"] = json!([])),
            Some("invalid-agent"),
        ),
        (
            "blank name",
            synthetic(|d| d["agents"][0]["name"] = json!("  ")),
            Some("invalid-agent"),
        ),
        (
            "blank tool range",
            synthetic(|d| d["agents"][0]["tools"][0]["version"] = json!(" ")),
            Some("invalid-agent"),
        ),
        (
            "budget of zero steps",
            synthetic(|d| d["agents"][0]["budget"] = json!({"maxSteps": 0})),
            Some("invalid-agent"),
        ),
        (
            "output schema Ajv strict mode refuses",
            synthetic(|d| {
                d["agents"][0]["output"] = json!({"schema": {"type": "object", "required": ["b"]}});
            }),
            Some("schema-compile"),
        ),
        (
            "output that is null",
            synthetic(|d| d["agents"][0]["output"] = Value::Null),
            Some("invalid-agent"),
        ),
        (
            "retrieval intent without a scope",
            synthetic(|d| d["agents"][0]["retrieval"] = json!([{"types": ["fact"]}])),
            Some("invalid-agent"),
        ),
        (
            "tool errors retrying eleven times",
            synthetic(|d| d["agents"][0]["toolErrors"] = json!({"maxRetries": 11})),
            Some("invalid-agent"),
        ),
        (
            "conversation policy that closes by itself",
            synthetic(|d| {
                d["agents"][0]["conversationPolicy"] = json!({"autoCloseAfterInactiveSeconds": 60});
            }),
            Some("invalid-agent"),
        ),
        (
            "parameter declared twice",
            synthetic(|d| {
                d["agents"][0]["parameters"] =
                    json!([{"name": "p", "type": "string"}, {"name": "p", "type": "number"}]);
            }),
            Some("invalid-agent"),
        ),
        (
            "parameter with a reserved name",
            synthetic(|d| {
                d["agents"][0]["parameters"] = json!([{"name": "today", "type": "date"}])
            }),
            Some("invalid-agent"),
        ),
        (
            "parameter default of another type",
            synthetic(|d| {
                d["agents"][0]["parameters"] =
                    json!([{"name": "n", "type": "number", "default": "abc"}]);
            }),
            Some("parameter-default-type"),
        ),
        (
            "parameters beside a prompt block",
            synthetic(|d| {
                d["agents"][0]["instructions"] = json!({"prompt": "p.b", "version": "^1.0.0"});
                d["agents"][0]["parameters"] = json!([]);
            }),
            Some("invalid-agent"),
        ),
        (
            "settings block referenced twice",
            synthetic(|d| {
                d["agents"][0]["modelSettings"] = json!({"id": "p.s", "version": "^1.0.0"})
            }),
            Some("invalid-agent"),
        ),
        (
            "prompt block parameter declared twice",
            synthetic(|d| {
                d["blocks"][0]["content"]["parameters"] =
                    json!([{"name": "p", "type": "string"}, {"name": "p", "type": "string"}]);
            }),
            Some("invalid-block"),
        ),
        (
            "capability invalid",
            synthetic(|d| d["agents"][0]["capabilities"] = json!([{"needz": []}])),
            Some("invalid-capability"),
        ),
        (
            "flow valid",
            synthetic(|d| d["flows"] = json!([flow(json!({}))])),
            None,
        ),
        (
            // Integers as JSON Schema reads them: the typed flow reads what the checks accept.
            "flow with integral float numbers",
            synthetic(|d| {
                let mut f = flow(json!({}));
                f["maxParallelism"] = json!(2.0);
                f["edges"][0]["policy"] = json!({"timeoutMs": 5.0, "priority": -3.0});
                d["flows"] = json!([f]);
            }),
            None,
        ),
        (
            // The flow's typed form is refused: registration gives the flow checks' reasons.
            "flow node of an unknown kind",
            synthetic(|d| d["flows"] = json!([flow(json!({"kind": "script"}))])),
            Some("schema-validation-failed"),
        ),
        (
            "flow edge missing its target",
            synthetic(|d| {
                let mut f = flow(json!({}));
                f["edges"][0].as_object_mut().map(|e| e.remove("to"));
                d["flows"] = json!([f]);
            }),
            Some("schema-validation-failed"),
        ),
        (
            // Serde types the flow, a graph rule refuses it: registration refuses it too.
            "flow with a cycle",
            synthetic(|d| {
                let mut f = flow(json!({}));
                f["edges"] = json!([{"id": "e0", "from": "$start", "to": "n"},
                    {"id": "e1", "from": "n", "to": "n"}]);
                d["flows"] = json!([f]);
            }),
            Some("cycle-detected"),
        ),
        (
            // Warnings (a node that never runs) do not refuse a flow.
            "flow with an unreachable node",
            synthetic(|d| {
                let mut f = flow(json!({}));
                f["nodes"] = json!([{"id": "n", "kind": "tool", "ref": "t"},
                    {"id": "m", "kind": "tool", "ref": "t"}]);
                d["flows"] = json!([f]);
            }),
            None,
        ),
        (
            // What a flow names is deploy validation's check, against the pack (the runtime
            // refuses the run, not the pack).
            "flow naming a tool the pack does not define",
            synthetic(|d| d["flows"] = json!([flow(json!({"ref": "gone"}))])),
            None,
        ),
    ]
}

/// A flow entry with one tool node `n` (fields of `node` override it) and an edge to it.
fn flow(node: Value) -> Value {
    let mut n = json!({"id": "n", "kind": "tool", "ref": "t"});
    for (k, v) in node.as_object().into_iter().flatten() {
        n[k] = v.clone();
    }
    json!({
        "id": "p.f", "version": "1.0.0", "kernelPayloadVersion": 1, "modulePath": "f.ts",
        "nodes": [n],
        "edges": [{"id": "e0", "from": "$start", "to": "n"}, {"id": "e1", "from": "n", "to": "$end"}]
    })
}

#[test]
fn every_refusal_path_agrees() {
    let mut failures = Vec::new();
    for (name, bytes, want) in cases() {
        let (refused, missing) = check(name, &bytes);
        let codes: Vec<&str> = refused.iter().map(|k| k.0.as_str()).collect();
        match want {
            None if !refused.is_empty() => failures.push(format!("{name}: refused {refused:#?}")),
            Some(code) if !codes.contains(&code) => failures.push(format!(
                "{name}: expected {code}, refused with {refused:#?}"
            )),
            _ => {}
        }
        if !missing.is_empty() {
            let validated: Vec<Key> = validate_index(&bytes, &ValidateOptions::new())
                .issues()
                .iter()
                .map(key)
                .collect();
            failures.push(format!(
                "{name}: not in validation {missing:#?}\n  validation: {validated:#?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `null` where an agent takes parameters or settings references is refused by the index
/// shape and named by the agent rules too, whatever else the agent has right or wrong.
#[test]
fn a_null_parameter_list_or_reference_is_named_twice() {
    for (field, message) in [
        ("parameters", "parameters must be an array"),
        ("settings", "settings must be an array of { id, version }"),
        ("modelSettings", "must be { id, version }"),
    ] {
        let bytes = synthetic(|d| d["agents"][0][field] = Value::Null);
        let report = validate_index(&bytes, &ValidateOptions::new());
        let at = format!("/agents/0/{field}");
        let found: Vec<(String, String)> = report
            .issues()
            .iter()
            .filter(|i| i.instance_path() == at)
            .map(|i| (i.code().to_string(), i.message().to_owned()))
            .collect();
        assert!(
            found.contains(&("invalid-agent".to_owned(), message.to_owned())),
            "{field}: {found:?}"
        );
        assert!(
            found.iter().any(|(code, _)| code == "invalid-shape"),
            "{field}: {found:?}"
        );
        let (refused, missing) = check(field, &bytes);
        assert!(
            !refused.is_empty() || load(&bytes).index.is_none(),
            "{field}"
        );
        assert_eq!(missing, Vec::<Key>::new(), "{field}");
    }
}

/// A pack that defines an agent version twice is refused by registration, and validation
/// reports it once, with the issue registration refuses with (both from the compile step).
#[test]
fn a_twice_defined_agent_is_reported_once_and_never_registered() {
    let bytes = synthetic(|d| {
        let twin = d["agents"][0].clone();
        d["agents"].as_array_mut().expect("list").push(twin);
    });
    let report = validate_index(&bytes, &ValidateOptions::new());
    let duplicates: Vec<Key> = report
        .issues()
        .iter()
        .filter(|i| i.code() == "duplicate-entry")
        .map(key)
        .collect();
    let message = "a.ts: duplicate agent 'a' version 1.0.0 (also defined in a.ts, at /agents/0); a pack defines each agent id and version once";
    assert_eq!(
        duplicates,
        vec![(
            "duplicate-entry".to_owned(),
            "/agents/1".to_owned(),
            message.to_owned()
        )]
    );
    let index = load(&bytes).index.expect("loads");
    match RunStart::new().register_pack("t", &index) {
        Err(RegisterError::Pack(issues)) => {
            assert_eq!(issues.iter().map(key).collect::<Vec<_>>(), duplicates);
        }
        other => panic!("registered or failed otherwise: {other:?}"),
    }
}
