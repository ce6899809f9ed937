//! Data block rules (agents.md §4.1, `validateBlock`): id and version patterns, the prompt and
//! settings content shapes, prompt parameters, settings values against their schema, and the
//! tunable mark.
//!
//! The pack compile runs them on every typed block ([`typed_block_issues`]), so registration
//! refuses a block that breaks one; deploy validation runs [`check_block`] on a block whose
//! shape failed, read from the document. The template checks of prompt blocks (parse, strict
//! variables against the block's own parameters) run with the other template checks.

use super::agent_rules::{ParameterView, is_block_id, parameter_value_issues};
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, pointer};
use crate::index::wire::{Block, BlockKind};
use crate::range::is_plain_version;
use crate::schema::SchemaCache;
use serde_json::Value;

/// What a block id that is not a dotted lowercase id is told.
const ID_MESSAGE: &str = "id must be a dotted lowercase id, e.g. \"acme.intake-prompt\"";

/// The rules on typed block `b` at `base` (`/blocks/<i>`): its id, and its content for its
/// kind (its version is the compile's own check).
pub(crate) fn typed_block_issues(b: &Block, base: &str, schemas: &SchemaCache) -> Vec<Issue> {
    let mut out = Vec::new();
    if !is_block_id(&b.id) {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{base}/id"),
            ID_MESSAGE,
        ));
    }
    content_issues(b.kind, &b.content, base, schemas, &mut out);
    out
}

/// The rules on a block's content for its `kind`.
fn content_issues(
    kind: BlockKind,
    content: &Value,
    base: &str,
    schemas: &SchemaCache,
    out: &mut Vec<Issue>,
) {
    match kind {
        BlockKind::Prompt => prompt(content, base, out),
        BlockKind::Settings => settings(content, base, schemas, out),
    }
}

/// Checks one block entry at `base` (`/blocks/<i>`) read from the document (a block whose
/// shape failed), in upstream's order: id, version, description, content.
pub(crate) fn check_block(block: &Value, base: &str, schemas: &SchemaCache, out: &mut Vec<Issue>) {
    let err = |out: &mut Vec<Issue>, tokens: &[&str], message: &str| {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            pointer::join(base, tokens),
            message,
        ));
    };
    let Some(obj) = block.as_object() else {
        err(out, &[], "a block must be an object");
        return;
    };
    if !obj
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(is_block_id)
    {
        err(out, &["id"], ID_MESSAGE);
    }
    if !obj
        .get("version")
        .and_then(Value::as_str)
        .is_some_and(is_plain_version)
    {
        err(
            out,
            &["version"],
            "version must be major.minor.patch, e.g. \"1.0.0\"",
        );
    }
    if obj.get("description").is_some_and(|d| !d.is_string()) {
        err(out, &["description"], "description must be a string");
    }
    let content = obj.get("content").unwrap_or(&Value::Null);
    match obj.get("kind").and_then(Value::as_str) {
        Some("prompt") => content_issues(BlockKind::Prompt, content, base, schemas, out),
        Some("settings") => content_issues(BlockKind::Settings, content, base, schemas, out),
        _ => err(out, &["kind"], "kind must be one of: prompt, settings"),
    }
}

fn prompt(content: &Value, base: &str, out: &mut Vec<Issue>) {
    let Some(content) = content.as_object() else {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{base}/content"),
            "a prompt block needs content: { template, parameters? }",
        ));
        return;
    };
    for key in content
        .keys()
        .filter(|k| !matches!(k.as_str(), "template" | "parameters"))
    {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            pointer::join(base, &["content", key]),
            format!("unknown prompt content field \"{key}\""),
        ));
    }
    if content
        .get("template")
        .and_then(Value::as_str)
        .is_none_or(|t| t.trim().is_empty())
    {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{base}/content/template"),
            "template must be a non-empty string",
        ));
        return; // upstream stops the other checks here
    }
    if let Some(list) = content.get("parameters") {
        // Each wrong field, then the rules on the values that are there.
        let at = format!("{base}/content/parameters");
        crate::index::parameter_list_issues(list, &at, IssueCode::InvalidBlock, out);
        let items = list.as_array().map_or(&[][..], Vec::as_slice);
        out.extend(parameter_value_issues(
            items.iter().map(ParameterView::of_raw),
            &at,
            IssueCode::InvalidBlock,
        ));
    }
}

fn settings(content: &Value, base: &str, schemas: &SchemaCache, out: &mut Vec<Issue>) {
    let Some(content) = content.as_object() else {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{base}/content"),
            "a settings block needs content: { values, schema? }",
        ));
        return;
    };
    for key in content
        .keys()
        .filter(|k| !matches!(k.as_str(), "values" | "schema"))
    {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            pointer::join(base, &["content", key]),
            format!("unknown settings content field \"{key}\""),
        ));
    }
    let Some(values) = content.get("values").filter(|v| v.is_object()) else {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{base}/content/values"),
            "values must be a JSON object",
        ));
        return; // checking stops (upstream)
    };
    let Some(schema) = content.get("schema") else {
        return;
    };
    let schema_at = format!("{base}/content/schema");
    if !schema.is_object() {
        out.push(Issue::error(
            IssueCode::InvalidBlock,
            schema_at,
            "schema must be a JSON Schema object",
        ));
        return;
    }
    tunable_marks(schema, &schema_at, out);
    match schemas.get(schema).as_ref() {
        Ok(compiled) => out.extend(compiled.issues(
            values,
            &format!("{base}/content/values"),
            IssueCode::SettingsValues,
        )),
        Err(_) => out.extend(schemas.compile_issues(schema, &schema_at)),
    }
}

/// The tunable-mark rule: `"x-kindgi-tunable": true` only on a number or integer with
/// `minimum` < `maximum`, or on an `enum` of at least two values. Upstream's message text was
/// not found (agents.md open question 10); these messages are runstart's.
fn tunable_marks(schema: &Value, at: &str, out: &mut Vec<Issue>) {
    let mut stack: Vec<(&Value, String)> = vec![(schema, at.to_owned())];
    while let Some((node, path)) = stack.pop() {
        let Some(obj) = node.as_object() else {
            continue;
        };
        if let Some(mark) = obj.get("x-kindgi-tunable") {
            let mark_at = format!("{path}/x-kindgi-tunable");
            let numeric = matches!(
                obj.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            );
            let bounded = match (
                obj.get("minimum").and_then(Value::as_f64),
                obj.get("maximum").and_then(Value::as_f64),
            ) {
                (Some(lo), Some(hi)) => lo < hi,
                _ => false,
            };
            let enum_ok = obj
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.len() >= 2);
            let problem = if mark != &Value::Bool(true) {
                Some("the x-kindgi-tunable mark must be true".to_owned())
            } else if obj.contains_key("enum") {
                (!enum_ok).then(|| "a tunable enum needs at least 2 values".to_owned())
            } else if numeric {
                (!bounded).then(|| "a tunable number needs a minimum below its maximum".to_owned())
            } else {
                Some("only a number or integer with minimum and maximum, or an enum of at least 2 values, can be tunable".to_owned())
            };
            if let Some(problem) = problem {
                out.push(Issue::error(IssueCode::InvalidBlock, mark_at, problem));
            }
        }
        for (key, child) in obj {
            match (key.as_str(), child) {
                ("properties" | "$defs" | "patternProperties", Value::Object(m)) => {
                    for (name, sub) in m {
                        stack.push((sub, pointer::join(&path, &[key, name])));
                    }
                }
                ("items" | "additionalProperties", sub @ Value::Object(_)) => {
                    stack.push((sub, pointer::join(&path, &[key])));
                }
                ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(items)) => {
                    for (i, sub) in items.iter().enumerate() {
                        stack.push((sub, format!("{path}/{key}/{i}")));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(block: Value) -> Vec<(String, String, String)> {
        let schemas = SchemaCache::new();
        let mut out = Vec::new();
        check_block(&block, "/blocks/0", &schemas, &mut out);
        out.into_iter()
            .map(|i| {
                (
                    i.code().to_string(),
                    i.instance_path().to_owned(),
                    i.message().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn valid_blocks_pass() {
        assert_eq!(
            check(
                json!({"id":"acme.p","version":"1.0.0","kind":"prompt","content":{"template":"Hi {{ a }}","parameters":[{"name":"a","type":"string"}]}})
            ),
            vec![]
        );
        assert_eq!(
            check(
                json!({"id":"acme.s","version":"1.0.0","kind":"settings","content":{"values":{"n":3},
            "schema":{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":5,"x-kindgi-tunable":true}}}}})
            ),
            vec![]
        );
    }

    #[test]
    fn block_rules_report_upstream_messages() {
        let got = check(
            json!({"id":"Acme","version":"1.0.0-rc.1","kind":"prompt","description":3,"content":{"template":"  "}}),
        );
        assert_eq!(
            got.iter()
                .map(|(_, p, m)| (p.as_str(), m.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (
                    "/blocks/0/id",
                    "id must be a dotted lowercase id, e.g. \"acme.intake-prompt\""
                ),
                (
                    "/blocks/0/version",
                    "version must be major.minor.patch, e.g. \"1.0.0\""
                ),
                ("/blocks/0/description", "description must be a string"),
                (
                    "/blocks/0/content/template",
                    "template must be a non-empty string"
                ),
            ]
        );
        let got = check(json!({"id":"acme.s","version":"1.0.0","kind":"other","content":{}}));
        assert_eq!(got[0].2, "kind must be one of: prompt, settings");
    }

    #[test]
    fn settings_values_against_schema_and_tunable_marks() {
        let got = check(
            json!({"id":"acme.s","version":"1.0.0","kind":"settings","content":{
            "values":{"n":9,"tone":"loud"},
            "schema":{"type":"object","properties":{
                "n":{"type":"integer","maximum":5,"x-kindgi-tunable":true},
                "tone":{"enum":["warm"],"x-kindgi-tunable":true},
                "s":{"type":"string","x-kindgi-tunable":"yes"}}}}}),
        );
        let paths: Vec<_> = got.iter().map(|(c, p, _)| format!("{c} {p}")).collect();
        assert!(
            paths.contains(&"settings-values /blocks/0/content/values/n".to_owned()),
            "{paths:?}"
        );
        assert!(
            paths.contains(&"settings-values /blocks/0/content/values/tone".to_owned()),
            "{paths:?}"
        );
        assert!(
            paths.contains(
                &"invalid-block /blocks/0/content/schema/properties/n/x-kindgi-tunable".to_owned()
            ),
            "{paths:?}"
        );
        assert!(
            paths.contains(
                &"invalid-block /blocks/0/content/schema/properties/tone/x-kindgi-tunable"
                    .to_owned()
            ),
            "{paths:?}"
        );
        assert!(
            paths.contains(
                &"invalid-block /blocks/0/content/schema/properties/s/x-kindgi-tunable".to_owned()
            ),
            "{paths:?}"
        );
        let got = check(
            json!({"id":"acme.s","version":"1.0.0","kind":"settings","content":{"values":[]}}),
        );
        assert_eq!(got[0].2, "values must be a JSON object");
        let got = check(
            json!({"id":"acme.s","version":"1.0.0","kind":"settings","content":{"values":{},"schema":{"type":"object","required":["b"]}}}),
        );
        assert_eq!(
            got[0].2,
            "Inline schema failed to compile: strict mode: required property \"b\" is not defined at \"#\" (strictRequired)"
        );
    }
}
