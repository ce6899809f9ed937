//! The agent fields the typed model reads beyond what the index schema checks — prompt
//! parameters and settings references — checked on the raw entry.
//!
//! The index schema only says `parameters` and `settings` are arrays and `modelSettings` an
//! object; [`Parameter`](super::wire::Parameter) and [`SettingsRef`](super::wire::SettingsRef)
//! say more. An entry that the schema passes but those types refuse is refused with the
//! issues here, one per wrong field, in the words of upstream's `defineAgent` (agents.md §2):
//! what run registration refuses the entry with, and what deploy validation reports for it.
//! The rules on the values themselves (blank or duplicate names, reserved names, defaults of
//! the wrong type, block id patterns, ranges) are deploy validation's, on the typed values.

use crate::diagnostics::{Issue, IssueCode, pointer};
use serde_json::Value;

/// What a settings reference that is not an object is told.
const REF_MESSAGE: &str = "must be { id, version }";
/// What a block reference whose id is not a block id is told.
pub(crate) const BLOCK_ID_MESSAGE: &str =
    "must be a dotted lowercase block id, e.g. \"acme.weights\"";
/// What an unparseable range of a block reference (or of a prompt reference) is told.
pub(crate) const RANGE_MESSAGE: &str = "must be a semver range, e.g. \"^1.0.0\" or \"1.2.0\"";

/// The fields a [`Parameter`](super::wire::Parameter) may have.
const PARAMETER_FIELDS: [&str; 5] = ["name", "description", "type", "required", "default"];

/// The issues of agent entry `raw` (`/agents/<index>`) in the fields the typed model reads
/// beyond the index schema: `parameters`, `settings`, `modelSettings`. Empty when they type.
pub(crate) fn agent_field_issues(raw: &Value, index: usize) -> Vec<Issue> {
    let base = format!("/agents/{index}");
    let mut out = Vec::new();
    if let Some(settings) = raw.get("settings").and_then(Value::as_array) {
        for (i, r) in settings.iter().enumerate() {
            settings_ref_issues(r, &format!("{base}/settings/{i}"), &mut out);
        }
    }
    if let Some(model) = raw.get("modelSettings") {
        settings_ref_issues(model, &format!("{base}/modelSettings"), &mut out);
    }
    if let Some(list) = raw.get("parameters") {
        parameter_list_issues(
            list,
            &format!("{base}/parameters"),
            IssueCode::InvalidAgent,
            &mut out,
        );
    }
    out
}

/// The issues of a settings reference at `at` that is not a [`SettingsRef`]
/// (`super::wire::SettingsRef`): not an object, an `id` or `version` that is not a string,
/// a field beyond the two.
pub(crate) fn settings_ref_issues(value: &Value, at: &str, out: &mut Vec<Issue>) {
    let error = |at: String, message: String| Issue::error(IssueCode::InvalidAgent, at, message);
    let Some(obj) = value.as_object() else {
        out.push(error(at.to_owned(), REF_MESSAGE.to_owned()));
        return;
    };
    if !obj.get("id").is_some_and(Value::is_string) {
        out.push(error(format!("{at}/id"), BLOCK_ID_MESSAGE.to_owned()));
    }
    if !obj.get("version").is_some_and(Value::is_string) {
        out.push(error(format!("{at}/version"), RANGE_MESSAGE.to_owned()));
    }
    for key in obj
        .keys()
        .filter(|k| !matches!(k.as_str(), "id" | "version"))
    {
        out.push(error(
            pointer::join(at, &[key]),
            format!(
                "unknown settings reference field \"{key}\" (a reference is {{ id, version }})"
            ),
        ));
    }
}

/// The issues of a `parameters` list at `at` (an agent's, or a prompt block's content's)
/// whose items are not all [`Parameter`](super::wire::Parameter)s, with `code` (the code of
/// the agent's or the block's issues).
pub(crate) fn parameter_list_issues(
    value: &Value,
    at: &str,
    code: IssueCode,
    out: &mut Vec<Issue>,
) {
    let error = |at: String, message: String| Issue::error(code, at, message);
    let Some(params) = value.as_array() else {
        out.push(error(
            at.to_owned(),
            "parameters must be an array".to_owned(),
        ));
        return;
    };
    for (i, param) in params.iter().enumerate() {
        let item = format!("{at}/{i}");
        let field = |name: &str| pointer::join(&item, &[name]);
        let Some(obj) = param.as_object() else {
            out.push(error(
                item.clone(),
                "each parameter must be an object { name, type }".to_owned(),
            ));
            continue;
        };
        for key in obj
            .keys()
            .filter(|k| !PARAMETER_FIELDS.contains(&k.as_str()))
        {
            out.push(error(
                field(key),
                format!("unknown parameter field \"{key}\""),
            ));
        }
        if !obj.get("name").is_some_and(Value::is_string) {
            out.push(error(
                field("name"),
                "name must be a non-empty string".to_owned(),
            ));
        }
        let typed = obj
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| matches!(t, "string" | "number" | "boolean" | "date"));
        if !typed {
            out.push(error(
                field("type"),
                "type must be string, number, boolean, or date".to_owned(),
            ));
        }
        if obj.get("required").is_some_and(|r| !r.is_boolean()) {
            out.push(error(
                field("required"),
                "required must be a boolean".to_owned(),
            ));
        }
        if obj.get("description").is_some_and(|d| !d.is_string()) {
            out.push(error(
                field("description"),
                "description must be a string".to_owned(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::wire::{Parameter, SettingsRef};
    use serde_json::json;

    fn texts(issues: &[Issue]) -> Vec<(String, String)> {
        issues
            .iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn a_parameter_types_exactly_when_it_has_no_issue() {
        let cases = [
            json!({"name": "x", "type": "string"}),
            json!({"name": "x", "type": "date", "required": false, "default": null}),
            json!({"name": " ", "type": "number", "description": "d", "default": "not checked here"}),
            json!({"name": "x", "type": "integer"}),
            json!({"name": 3, "type": "string"}),
            json!({"type": "string"}),
            json!({"name": "x", "type": "string", "required": null}),
            json!({"name": "x", "type": "string", "description": 1}),
            json!({"name": "x", "type": "string", "label": "X"}),
            json!("x"),
        ];
        for case in cases {
            let mut out = Vec::new();
            parameter_list_issues(
                &json!([case.clone()]),
                "/p",
                IssueCode::InvalidAgent,
                &mut out,
            );
            let typed = serde_json::from_value::<Parameter>(case.clone()).is_ok();
            assert_eq!(typed, out.is_empty(), "{case}: {:?}", texts(&out));
        }
    }

    #[test]
    fn a_settings_reference_types_exactly_when_it_has_no_issue() {
        let cases = [
            json!({"id": "a.b", "version": "^1"}),
            json!({"id": "Not A Block Id", "version": "not a range"}),
            json!({"id": 1, "version": "^1"}),
            json!({"version": "^1"}),
            json!({"id": "a.b", "version": null}),
            json!({"id": "a.b", "version": "^1", "pin": "1.0.0"}),
            json!(["a.b", "^1"]),
            json!(null),
        ];
        for case in cases {
            let mut out = Vec::new();
            settings_ref_issues(&case, "/s", &mut out);
            let typed = serde_json::from_value::<SettingsRef>(case.clone()).is_ok();
            assert_eq!(typed, out.is_empty(), "{case}: {:?}", texts(&out));
        }
    }

    #[test]
    fn each_wrong_field_is_named_with_upstreams_words() {
        let agent = json!({
            "settings": [{"id": "a.b", "version": 1}, "a.c"],
            "modelSettings": {"id": "a.m", "version": "^1", "pin": "1.0.0"},
            "parameters": [{"name": "x", "type": "array", "required": "yes"}],
        });
        assert_eq!(
            texts(&agent_field_issues(&agent, 2)),
            [
                ("/agents/2/settings/0/version", RANGE_MESSAGE),
                ("/agents/2/settings/1", REF_MESSAGE),
                (
                    "/agents/2/modelSettings/pin",
                    "unknown settings reference field \"pin\" (a reference is { id, version })"
                ),
                (
                    "/agents/2/parameters/0/type",
                    "type must be string, number, boolean, or date"
                ),
                (
                    "/agents/2/parameters/0/required",
                    "required must be a boolean"
                ),
            ]
            .map(|(p, m)| (p.to_owned(), m.to_owned()))
        );
    }
}
