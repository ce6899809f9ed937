//! Every place runstart evaluates a JSON Schema uses the one Ajv-faithful compiler and error
//! builder (`runstart::schema::CompiledSchema`): agent output schemas, settings block schemas
//! and values, guardrail config schemas and configs, tool input/output schemas, flow output
//! schemas. Each test edits the support-desk fixture and checks the issue Ajv would give.

use runstart::diagnostics::{Issue, Report};
use runstart::validate::{ValidateOptions, validate_index};
use serde_json::{Value, json};

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/packs/support-desk/index.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture present"))
        .expect("fixture is JSON")
}

fn validate(doc: &Value) -> Report {
    validate_index(doc.to_string().as_bytes(), &ValidateOptions::new())
}

fn at<'r>(report: &'r Report, path: &str) -> Vec<&'r Issue> {
    report
        .issues()
        .iter()
        .filter(|i| i.instance_path() == path)
        .collect()
}

fn position(list: &Value, id: &str) -> usize {
    list.as_array()
        .and_then(|l| l.iter().position(|e| e["id"] == id))
        .unwrap_or_else(|| panic!("{id} in the fixture"))
}

#[test]
fn the_fixture_is_clean() {
    let report = validate(&fixture());
    assert!(!report.has_errors(), "{report:#?}");
}

#[test]
fn agent_output_schema_compiles_as_ajv_decides() {
    let mut doc = fixture();
    let a = position(&doc["agents"], "support.reply-drafter");
    // Accepted by Ajv strict mode (propertyNames applies to strings; format applies to numbers).
    doc["agents"][a]["output"]["schema"] = json!({
        "type": "object",
        "propertyNames": {"pattern": "^[a-z]+$"},
        "properties": {"n": {"type": "integer", "format": "int32"}, "who": {"type": "string", "pattern": "^(?!admin).+$"}}
    });
    let report = validate(&doc);
    assert!(!report.has_errors(), "{report:#?}");
    // Refused: `required` inside anyOf does not see the parent's properties.
    doc["agents"][a]["output"]["schema"] = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "anyOf": [{"required": ["a"]}]
    });
    let report = validate(&doc);
    let issues = at(&report, &format!("/agents/{a}/output/schema"));
    assert_eq!(issues.len(), 1, "{report:#?}");
    assert_eq!(issues[0].code(), "schema-compile");
    assert_eq!(
        issues[0].message(),
        "Inline schema failed to compile: strict mode: required property \"a\" is not defined at \"#/anyOf/0\" (strictRequired)"
    );
}

/// Patterns are read as V8 reads `new RegExp(source, "u")`: Ajv's answers, messages included.
#[test]
fn agent_output_patterns_follow_v8() {
    let mut doc = fixture();
    let a = position(&doc["agents"], "support.reply-drafter");
    let schema_at = format!("/agents/{a}/output/schema");
    for (pattern, refusal) in [
        // V8 accepts these; the regex crate alone would not.
        ("^[^]*$", None),
        ("^\\0?[\\uD83D\\uDE00-\\uD83D\\uDE4F]+$", None),
        ("(?<=@)[a-z]+$", None),
        // V8 refuses these with the `u` flag, though they look harmless.
        ("^[\\w\\_]+$", Some("Invalid escape")),
        ("^\\@", Some("Invalid escape")),
        ("^a{2,1}$", Some("numbers out of order in {} quantifier")),
        ("^(a$", Some("Unterminated group")),
    ] {
        doc["agents"][a]["output"]["schema"] =
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}});
        let report = validate(&doc);
        let issues = at(&report, &schema_at);
        match refusal {
            None => assert!(issues.is_empty(), "{pattern}: {report:#?}"),
            Some(why) => {
                assert_eq!(issues.len(), 1, "{pattern}: {report:#?}");
                assert_eq!(issues[0].code(), "schema-compile");
                assert_eq!(
                    issues[0].message(),
                    format!(
                        "Inline schema failed to compile: Invalid regular expression: /{pattern}/u: {why}"
                    )
                );
            }
        }
    }
}

#[test]
fn settings_schema_and_values_give_ajv_errors() {
    let mut doc = fixture();
    let b = position(&doc["blocks"], "support.reply-style");
    doc["blocks"][b]["content"] = json!({
        "schema": {"type": "object", "properties": {"tone": {"enum": ["warm", "formal"]}}, "additionalProperties": false},
        "values": {"tone": "loud", "extra": 1}
    });
    let report = validate(&doc);
    let tone = at(&report, &format!("/blocks/{b}/content/values/tone"));
    assert_eq!(tone.len(), 1, "{report:#?}");
    assert_eq!(tone[0].code(), "settings-values");
    assert_eq!(
        tone[0].message(),
        "must be equal to one of the allowed values"
    );
    assert_eq!(tone[0].schema_path(), Some("#/properties/tone/enum"));
    let whole = at(&report, &format!("/blocks/{b}/content/values"));
    assert_eq!(whole.len(), 1, "{report:#?}");
    assert_eq!(whole[0].message(), "must NOT have additional properties");
    assert_eq!(whole[0].params()["additionalProperty"], "extra");
    // A settings schema Ajv refuses.
    doc["blocks"][b]["content"] = json!({"schema": {"enum": []}, "values": {}});
    let report = validate(&doc);
    let issues = at(&report, &format!("/blocks/{b}/content/schema"));
    assert_eq!(issues.len(), 1, "{report:#?}");
    assert_eq!(
        issues[0].message(),
        "Inline schema failed to compile: enum must have non-empty array"
    );
}

#[test]
fn guardrail_config_gives_ajv_errors() {
    let mut doc = fixture();
    let g = position(&doc["guardrails"], "support.no-refund-promises");
    doc["guardrails"][g]["config"] = json!({"phrases": ["ok", 3]});
    let report = validate(&doc);
    let issues = at(&report, &format!("/guardrails/{g}/config/phrases/1"));
    assert_eq!(issues.len(), 1, "{report:#?}");
    assert_eq!(issues[0].code(), "guardrail-config");
    assert_eq!(issues[0].message(), "must be string");
    assert_eq!(
        issues[0].schema_path(),
        Some("#/properties/phrases/items/type")
    );
}

/// Issue #18: a schema runstart cannot compile never passes silently, wherever it is.
#[test]
fn uncompilable_guardrail_and_tool_schemas_are_schema_compile() {
    for bad in [
        json!({"$ref": "#/$defs/nope"}),
        json!({"type": "string", "pattern": "\\_"}),
    ] {
        let mut doc = fixture();
        let g = position(&doc["guardrails"], "support.no-refund-promises");
        doc["guardrails"][g]["configSchema"] = bad.clone();
        let t = position(&doc["tools"], "support.customers.lookup");
        doc["tools"][t]["input"] = bad.clone();
        doc["tools"][t]["output"] = bad.clone();
        let report = validate(&doc);
        for place in [
            format!("/guardrails/{g}/configSchema"),
            format!("/tools/{t}/input"),
            format!("/tools/{t}/output"),
        ] {
            let issues = at(&report, &place);
            assert_eq!(issues.len(), 1, "{bad} at {place}: {report:#?}");
            assert_eq!(issues[0].code(), "schema-compile", "{bad} at {place}");
        }
    }
    let mut doc = fixture();
    let g = position(&doc["guardrails"], "support.no-refund-promises");
    doc["guardrails"][g]["configSchema"] = json!({"$ref": "#/$defs/nope"});
    let report = validate(&doc);
    assert_eq!(
        at(&report, &format!("/guardrails/{g}/configSchema"))[0].message(),
        "the schema does not compile: can't resolve reference #/$defs/nope from id #"
    );
}

/// A deploy compiles a pack tool's `input` and `output` in Ajv's strict mode (as the pack
/// service does on every call), so a schema only the lenient rules accept is refused.
#[test]
fn tool_schemas_compile_in_strict_mode() {
    let mut doc = fixture();
    let t = position(&doc["tools"], "support.customers.lookup");
    doc["tools"][t]["input"] = json!({"properties": {"email": {"type": "string"}}});
    doc["tools"][t]["output"] = json!({"type": "object", "fooBar": 1});
    let report = validate(&doc);
    let input = at(&report, &format!("/tools/{t}/input"));
    assert_eq!(input.len(), 1, "{report:#?}");
    assert_eq!(input[0].code(), "schema-compile");
    assert_eq!(
        input[0].message(),
        "the schema does not compile in strict mode, as a deploy and the pack service compile a tool's schemas: strict mode: missing type \"object\" for keyword \"properties\" at \"#\" (strictTypes)"
    );
    let output = at(&report, &format!("/tools/{t}/output"));
    assert_eq!(
        output[0].message(),
        "the schema does not compile in strict mode, as a deploy and the pack service compile a tool's schemas: strict mode: unknown keyword: \"fooBar\""
    );
    // `x-kindgi-tunable` marks settings; a deploy compiles tool schemas without it.
    doc["tools"][t]["input"] = json!({"type": "object", "x-kindgi-tunable": true});
    let report = validate(&doc);
    assert_eq!(
        at(&report, &format!("/tools/{t}/input"))[0].message(),
        "the schema does not compile in strict mode, as a deploy and the pack service compile a tool's schemas: strict mode: unknown keyword: \"x-kindgi-tunable\""
    );
}

/// A guardrail naming a built-in check has its config checked against that check's settings,
/// as a deploy checks it, whether or not a `configSchema` is given.
#[test]
fn built_in_check_configs_are_checked() {
    let mut doc = fixture();
    let g = position(&doc["guardrails"], "support.no-refund-promises");
    doc["guardrails"][g]["checkId"] = json!("max-tool-calls");
    doc["guardrails"][g]["config"] = json!({"max": -1});
    let report = validate(&doc);
    let issues = at(&report, &format!("/guardrails/{g}/config/max"));
    assert_eq!(issues.len(), 1, "{report:#?}");
    assert_eq!(issues[0].code(), "guardrail-config");
    assert_eq!(issues[0].message(), "config.max must be >= 0.");
    doc["guardrails"][g]["checkId"] = json!("output-matches");
    doc["guardrails"][g]["config"] = json!({"pattern": "(unclosed"});
    let report = validate(&doc);
    let issues = at(&report, &format!("/guardrails/{g}/config/pattern"));
    assert_eq!(
        issues[0].message(),
        "config.pattern isn't a regular expression that compiles: Invalid regular expression: /(unclosed/: Unterminated group."
    );
    // A config that fits the check (the fixture's own configSchema, for `phrases`, is dropped).
    doc["guardrails"][g]["config"] = json!({"pattern": "^(?:refund)$", "flags": "i"});
    doc["guardrails"][g]
        .as_object_mut()
        .expect("guardrail")
        .remove("configSchema");
    let report = validate(&doc);
    assert!(!report.has_errors(), "{report:#?}");
}

/// A tool entry is validated as a tool manifest: a description and a version, no reserved id
/// prefix, an http spec's placeholders only in the path and query.
#[test]
fn tools_are_validated_as_manifests() {
    let mut doc = fixture();
    let t = position(&doc["tools"], "support.customers.lookup");
    let tool = doc["tools"][t].as_object_mut().expect("tool");
    tool.remove("description");
    tool.remove("version");
    tool.insert(
        "spec".into(),
        json!({"kind": "http", "method": "GET",
            "urlTemplate": "https://{tenant}.example.com/customers"}),
    );
    let report = validate(&doc);
    let codes: Vec<(&str, &str)> = report
        .issues()
        .iter()
        .filter(|i| i.code() == "invalid-tool-definition")
        .map(|i| (i.instance_path(), i.message()))
        .collect();
    let base = format!("/tools/{t}");
    let url = format!("{base}/spec/urlTemplate");
    assert_eq!(
        codes,
        vec![
            (
                base.as_str(),
                "tool \"support.customers.lookup\" must have required property 'description': a deploy validates each tool as a tool manifest (tool.schema.json), which requires it"
            ),
            (
                base.as_str(),
                "tool \"support.customers.lookup\" must have required property 'version': a deploy validates each tool as a tool manifest (tool.schema.json), which requires it"
            ),
            (
                url.as_str(),
                "Tool \"support.customers.lookup\" spec.urlTemplate fills {placeholders} in its path and query only, never in its host or port"
            ),
        ],
        "{report:#?}"
    );
}

#[test]
fn tool_schema_meta_check_lists_every_ajv_error() {
    let mut doc = fixture();
    let t = position(&doc["tools"], "support.customers.lookup");
    doc["tools"][t]["input"] = json!({"type": "strin"});
    let report = validate(&doc);
    let issues = at(&report, &format!("/tools/{t}/input/type"));
    let mut keywords: Vec<_> = issues.iter().map(|i| i.keyword().unwrap_or("")).collect();
    keywords.sort_unstable();
    assert_eq!(keywords, ["anyOf", "enum", "type"], "{report:#?}");
    assert!(issues.iter().all(|i| i.code() == "invalid-schema"));
}

#[test]
fn compiled_schema_is_the_entry_point_for_ajv_errors() {
    use runstart::schema::{CompileOptions, CompiledSchema};
    let schema = json!({"type": ["string", "number"], "minLength": 2});
    let s = CompiledSchema::compile(&schema).expect("union types are allowed by default");
    let errors = s.errors(&json!(true));
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].message, "must be string,number");
    assert_eq!(errors[0].params["type"], json!(["string", "number"]));
    let refused = CompiledSchema::compile_with(
        &schema,
        &CompileOptions::new().with_allow_union_types(false),
    )
    .expect_err("refused without union types");
    assert_eq!(
        refused.to_string(),
        "strict mode: use allowUnionTypes to allow union type keyword at \"#\" (strictTypes)"
    );
    assert_eq!(
        refused.kind(),
        &runstart::schema::SchemaErrorKind::Strict {
            keyword: "type".to_owned()
        }
    );
}

#[test]
fn flow_output_schema_compiles_as_ajv_decides() {
    let mut doc = fixture();
    doc["flows"][0]["output"] = json!({"schema": {"if": {"const": 1}}, "mapping": {}});
    let report = validate(&doc);
    let issues: Vec<_> = report
        .issues()
        .iter()
        .filter(|i| i.instance_path() == "/flows/0/output/schema")
        .collect();
    assert_eq!(issues.len(), 1, "{report:#?}");
    assert_eq!(issues[0].code(), "invalid-flow-output");
    assert_eq!(
        issues[0].message(),
        "Flow output schema failed to compile: strict mode: \"if\" without \"then\" and \"else\" is ignored"
    );
}

#[test]
fn hostile_schemas_answer_quickly_without_overflow() {
    use cpu_time::ThreadTime;
    use runstart::schema::CompiledSchema;
    use std::time::Duration;
    // A look-ahead runs on the backtracking engine, whose steps are capped.
    let s = CompiledSchema::compile(&json!({"type": "string", "pattern": "^(?=a)(a+)+$"}))
        .expect("look-ahead compiles");
    let start = ThreadTime::now();
    let errors = s.errors(&json!(format!("{}!", "a".repeat(50_000))));
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].keyword, "pattern");
    // A schema that recurses on the same data stops with an error instead of the stack.
    let s = CompiledSchema::compile(&json!({"anyOf": [{"$ref": "#"}]})).expect("compiles");
    let errors = s.errors(&json!(1));
    assert!(
        errors
            .iter()
            .any(|e| e.message.starts_with("Maximum call stack size exceeded")),
        "{errors:?}"
    );
    // Cyclic pure references are refused at compile time, as Ajv refuses them.
    let cyclic = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    assert!(CompiledSchema::compile(&cyclic).is_err());
}

#[test]
fn compiled_schemas_are_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<runstart::schema::CompiledSchema>();
    assert_send_sync::<runstart::schema::AjvError>();
}
