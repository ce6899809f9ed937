//! The checks built into the runtime (`must-cite`, `never-call-tool`, `max-tool-calls`,
//! `output-matches`, `tool-order`, `required-substring`, `forbidden-substring`): a guardrail
//! naming one (its `checkId`, else its `id`) has its `config` checked as a deploy checks it
//! (flows.md §3.3, deploy step 4). First against the check's config schema — Ajv without
//! strict mode, all errors, an absent config read as `{}` — and, when that passes, each setting
//! that is a regular expression must compile as `new RegExp` compiles it in Node.
//!
//! The schemas refuse settings a check does not know, so a misspelt one (`{"maxx": 3}`) is
//! never silently ignored by the check at run time.

use crate::diagnostics::{Issue, IssueCode};
use crate::schema::{CompiledSchema, ajv_issue, regexp_constructor_error, regexp_flags_error};
use serde_json::{Value, json};
use std::sync::OnceLock;

/// The config schema of each built-in check, compiled once per process.
fn config_schemas() -> &'static [(&'static str, CompiledSchema)] {
    static SCHEMAS: OnceLock<Vec<(&'static str, CompiledSchema)>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let object = |properties: Value, required: &[&str]| {
            let mut schema =
                json!({"type": "object", "properties": properties, "additionalProperties": false});
            if !required.is_empty() {
                schema["required"] = json!(required);
            }
            schema
        };
        let non_empty_strings =
            json!({"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}});
        let tool_ref = json!({"anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "object", "properties": {"id": {"type": "string", "minLength": 1},
                "version": {"type": "string"}}, "required": ["id"]}
        ]});
        let substrings = object(
            json!({"patterns": non_empty_strings, "caseSensitive": {"type": "boolean"}}),
            &["patterns"],
        );
        let schemas = [
            (
                "must-cite",
                object(
                    json!({"minCitations": {"type": "integer", "minimum": 1},
                        "sourcePattern": {"type": "string", "minLength": 1}}),
                    &[],
                ),
            ),
            (
                "never-call-tool",
                object(
                    json!({"tools": {"type": "array", "minItems": 1, "items": tool_ref}}),
                    &["tools"],
                ),
            ),
            (
                "max-tool-calls",
                object(json!({"max": {"type": "integer", "minimum": 0}}), &[]),
            ),
            (
                "output-matches",
                object(
                    json!({"pattern": {"type": "string", "minLength": 1},
                        "flags": {"type": "string", "pattern": "^[dgimsuyv]*$"},
                        "negate": {"type": "boolean"}}),
                    &["pattern"],
                ),
            ),
            (
                "tool-order",
                object(json!({"sequence": non_empty_strings}), &["sequence"]),
            ),
            ("required-substring", substrings.clone()),
            ("forbidden-substring", substrings),
        ];
        schemas
            .into_iter()
            .map(|(check, schema)| {
                // ok: the schemas above are fixed and valid (a unit test compiles each).
                let compiled = CompiledSchema::compile_lenient(&schema).expect("built-in schema");
                (check, compiled)
            })
            .collect()
    })
}

/// The settings of built-in `check` that are regular expressions: the pattern's key and the
/// key of its flags, if it has any.
fn regex_settings(check: &str) -> Option<(&'static str, Option<&'static str>)> {
    match check {
        "must-cite" => Some(("sourcePattern", None)),
        "output-matches" => Some(("pattern", Some("flags"))),
        _ => None,
    }
}

/// `/config/rules/0/pattern` → `config.rules.0.pattern`, as upstream's messages name a setting.
fn setting_name(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|step| step.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// Every way `config` (absent: `{}`) does not fit built-in `check`, as
/// [`IssueCode::GuardrailConfig`] issues under `base` (the guardrail's pointer): the config
/// schema's errors (`config.max must be >= 0.`: the setting, then Ajv's message), else a
/// regular-expression setting that does not compile (`config.pattern isn't a regular
/// expression that compiles: Invalid regular expression: /(/: Unterminated group.`). Empty
/// when `check` is not built in, or `config` is not an object (the entry's shape check says
/// so).
///
/// A pattern with the `v` flag gets a warning instead of a verdict: runstart reads
/// ECMAScript's `u` grammar but not `v`'s class-set syntax, so it can neither accept nor
/// refuse it as Node would.
pub(crate) fn config_problems(check: &str, config: Option<&Value>, base: &str) -> Vec<Issue> {
    let Some((_, schema)) = config_schemas().iter().find(|(name, _)| *name == check) else {
        return Vec::new();
    };
    let empty = json!({});
    let config = config.unwrap_or(&empty);
    if !config.is_object() {
        return Vec::new();
    }
    let at = format!("{base}/config");
    let problems: Vec<Issue> = schema
        .errors(config)
        .into_iter()
        .map(|mut e| {
            let setting = setting_name(&format!("/config{}", e.instance_path));
            e.message = format!("{setting} {}.", e.message);
            ajv_issue(e, &at, IssueCode::GuardrailConfig)
        })
        .collect();
    if !problems.is_empty() {
        return problems;
    }
    let Some((pattern_key, flags_key)) = regex_settings(check) else {
        return Vec::new();
    };
    let Some(pattern) = config.get(pattern_key).and_then(Value::as_str) else {
        return Vec::new();
    };
    let flags = flags_key
        .and_then(|key| config.get(key))
        .and_then(Value::as_str)
        .unwrap_or("");
    let at = format!("{base}/config/{pattern_key}");
    let refused = |why: String| {
        vec![Issue::error(
            IssueCode::GuardrailConfig,
            at.clone(),
            format!("config.{pattern_key} isn't a regular expression that compiles: {why}."),
        )]
    };
    if flags.contains('v') {
        // The flags are still checked (`vv`, `uv`); the pattern is not.
        return match regexp_flags_error(flags) {
            Some(why) => refused(why),
            None => vec![Issue::warning(
                IssueCode::GuardrailConfig,
                at.clone(),
                format!(
                    "config.{pattern_key} is read with the `v` flag, whose class-set syntax runstart does not check; a deploy refuses the guardrail if Node's `new RegExp` refuses the pattern"
                ),
            )],
        };
    }
    regexp_constructor_error(pattern, flags).map_or_else(Vec::new, refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(check: &str, config: Option<Value>) -> Vec<(String, String)> {
        config_problems(check, config.as_ref(), "/guardrails/2")
            .into_iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    fn one(path: &str, message: &str) -> Vec<(String, String)> {
        vec![(path.to_owned(), message.to_owned())]
    }

    #[test]
    fn every_built_in_schema_compiles_and_accepts_a_good_config() {
        assert_eq!(config_schemas().len(), 7);
        let good = [
            (
                "must-cite",
                json!({"minCitations": 2, "sourcePattern": "\\[\\d+\\]"}),
            ),
            (
                "never-call-tool",
                json!({"tools": ["a.b", {"id": "c.d", "version": "^1"}]}),
            ),
            ("max-tool-calls", json!({"max": 0})),
            (
                "output-matches",
                json!({"pattern": "^ok", "flags": "im", "negate": true}),
            ),
            ("tool-order", json!({"sequence": ["a", "b"]})),
            (
                "required-substring",
                json!({"patterns": ["x"], "caseSensitive": true}),
            ),
            ("forbidden-substring", json!({"patterns": ["y"]})),
        ];
        for (check, config) in good {
            assert!(config_schemas().iter().any(|(name, _)| *name == check));
            assert_eq!(problems(check, Some(config)), vec![], "{check}");
        }
        // An absent config is `{}`: fine where nothing is required.
        assert_eq!(problems("max-tool-calls", None), vec![]);
        assert_eq!(problems("must-cite", None), vec![]);
        assert_eq!(
            problems("acme.checks.length", Some(json!({"max": -1}))),
            vec![]
        );
    }

    #[test]
    fn schema_problems_name_the_setting_then_ajvs_message() {
        assert_eq!(
            problems("max-tool-calls", Some(json!({"max": -1}))),
            one("/guardrails/2/config/max", "config.max must be >= 0.")
        );
        assert_eq!(
            problems("never-call-tool", None),
            one(
                "/guardrails/2/config",
                "config must have required property 'tools'."
            )
        );
        assert_eq!(
            problems(
                "must-cite",
                Some(json!({"minCitations": 0, "maxCitations": 3}))
            ),
            vec![
                (
                    "/guardrails/2/config".to_owned(),
                    "config must NOT have additional properties.".to_owned()
                ),
                (
                    "/guardrails/2/config/minCitations".to_owned(),
                    "config.minCitations must be >= 1.".to_owned()
                ),
            ]
        );
        assert_eq!(
            problems(
                "output-matches",
                Some(json!({"pattern": "a", "flags": "x"}))
            ),
            one(
                "/guardrails/2/config/flags",
                "config.flags must match pattern \"^[dgimsuyv]*$\"."
            )
        );
        assert_eq!(
            problems("tool-order", Some(json!({"sequence": ["a", ""]}))),
            one(
                "/guardrails/2/config/sequence/1",
                "config.sequence.1 must NOT have fewer than 1 characters."
            )
        );
        // Not an object: the entry's shape check reports it, once.
        assert_eq!(problems("max-tool-calls", Some(json!([1]))), vec![]);
        assert_eq!(setting_name("/config/a~1b/c~0d"), "config.a/b.c~d");
    }

    #[test]
    fn a_v_flag_pattern_is_a_warning() {
        let issues = config_problems(
            "output-matches",
            Some(&json!({"pattern": "[\\p{L}--[a-z]]", "flags": "v"})),
            "/guardrails/2",
        );
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].severity(), crate::diagnostics::Severity::Warning);
        assert_eq!(issues[0].instance_path(), "/guardrails/2/config/pattern");
        // Flags Node refuses are refused whatever the pattern.
        assert_eq!(
            problems(
                "output-matches",
                Some(json!({"pattern": "(", "flags": "vv"}))
            ),
            one(
                "/guardrails/2/config/pattern",
                "config.pattern isn't a regular expression that compiles: Invalid flags supplied to RegExp constructor 'vv'."
            )
        );
        assert_eq!(
            problems(
                "output-matches",
                Some(json!({"pattern": "a", "flags": "uv"}))
            ),
            one(
                "/guardrails/2/config/pattern",
                "config.pattern isn't a regular expression that compiles: Invalid flags supplied to RegExp constructor 'uv'."
            )
        );
    }

    #[test]
    fn regular_expressions_must_compile_as_in_node() {
        assert_eq!(
            problems("output-matches", Some(json!({"pattern": "("}))),
            one(
                "/guardrails/2/config/pattern",
                "config.pattern isn't a regular expression that compiles: Invalid regular expression: /(/: Unterminated group."
            )
        );
        assert_eq!(
            problems(
                "output-matches",
                Some(json!({"pattern": "\\_", "flags": "u"}))
            ),
            one(
                "/guardrails/2/config/pattern",
                "config.pattern isn't a regular expression that compiles: Invalid regular expression: /\\_/u: Invalid escape."
            )
        );
        assert_eq!(
            problems(
                "output-matches",
                Some(json!({"pattern": "a", "flags": "gg"}))
            ),
            one(
                "/guardrails/2/config/pattern",
                "config.pattern isn't a regular expression that compiles: Invalid flags supplied to RegExp constructor 'gg'."
            )
        );
        // must-cite's pattern has no flags setting: read as `new RegExp(p, "")`.
        assert_eq!(
            problems("must-cite", Some(json!({"sourcePattern": "[b-a]"}))),
            one(
                "/guardrails/2/config/sourcePattern",
                "config.sourcePattern isn't a regular expression that compiles: Invalid regular expression: /[b-a]/: Range out of order in character class."
            )
        );
        assert_eq!(
            problems("must-cite", Some(json!({"sourcePattern": "\\_"}))),
            vec![]
        );
    }
}
