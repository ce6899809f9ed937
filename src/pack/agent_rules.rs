//! The `defineAgent` rules on the values of an agent's parameters and settings references
//! (agents.md §2): what the pack compile refuses an agent (or a prompt block) for, and what
//! deploy validation reports, from the same code, for entries the compile never saw.
//!
//! The rules read a view of each item ([`ParameterView`], a settings reference's id), made
//! from the typed entry or, for an entry whose shape failed, from the document, so both read
//! the same rules.

use crate::diagnostics::{Issue, IssueCode, pointer};
use crate::index::BLOCK_ID_MESSAGE;
use crate::index::wire::Parameter;
use serde_json::Value;

/// Reserved auto-variable names a parameter may not take (agents.md §2; `settings` too).
pub(crate) const RESERVED_PARAMETER_NAMES: [&str; 5] =
    ["today", "now", "agent", "conversation", "settings"];

/// What an agent whose instructions are a prompt block and that declares parameters is told.
pub(crate) const PROMPT_PARAMETERS_MESSAGE: &str =
    "the prompt block declares the parameters: leave parameters unset";

/// Whether `id` is a dotted lowercase block id: `^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+$`.
pub(crate) fn is_block_id(id: &str) -> bool {
    let mut segments = 0;
    for segment in id.split('.') {
        let mut chars = segment.chars();
        let first_ok =
            matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit());
        if !first_ok || !chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            return false;
        }
        segments += 1;
    }
    segments >= 2
}

/// A parameter as its rules read it: each field when it has the right type.
pub(crate) struct ParameterView<'a> {
    name: Option<&'a str>,
    kind: Option<&'a str>,
    default: Option<&'a Value>,
}

impl<'a> ParameterView<'a> {
    /// A typed parameter.
    pub(crate) fn of_typed(p: &'a Parameter) -> ParameterView<'a> {
        ParameterView {
            name: Some(&p.name),
            kind: Some(p.kind.as_str()),
            default: p.default.as_ref(),
        }
    }

    /// A parameter read from the document (its shape may be wrong).
    pub(crate) fn of_raw(p: &'a Value) -> ParameterView<'a> {
        ParameterView {
            name: p.get("name").and_then(Value::as_str),
            kind: p
                .get("type")
                .and_then(Value::as_str)
                .filter(|t| matches!(*t, "string" | "number" | "boolean" | "date")),
            default: p.get("default"),
        }
    }
}

/// The issues of the parameters' values of the list at `list` (a pointer): names not blank,
/// not declared twice, not reserved (and a warning for `input`), defaults of the declared
/// type (beyond upstream). Errors have `code`: the code of the agent's or the block's issues.
pub(crate) fn parameter_value_issues<'a>(
    params: impl Iterator<Item = ParameterView<'a>>,
    list: &str,
    code: IssueCode,
) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, param) in params.enumerate() {
        let item = format!("{list}/{i}");
        let at = |field: &str| pointer::join(&item, &[field]);
        let error = |message: String| Issue::error(code, at("name"), message);
        if let Some(name) = param.name {
            if name.trim().is_empty() {
                out.push(error("name must be a non-empty string".to_owned()));
            } else {
                if names.contains(&name) {
                    out.push(error(format!("duplicate parameter name \"{name}\"")));
                } else if RESERVED_PARAMETER_NAMES.contains(&name) {
                    out.push(error(format!("\"{name}\" is a reserved auto-injected variable — do not declare it as a parameter")));
                } else if name == "input" {
                    out.push(Issue::warning(IssueCode::InputParameter, at("name"),
                        "a parameter named \"input\" is overwritten by the flow step's input whenever the turn has one; rename it"));
                }
                names.push(name);
            }
        }
        if let (Some(ty), Some(default)) = (param.kind, param.default)
            && !default_fits(ty, default)
        {
            let hint = if ty == "date" {
                " (an ISO 8601 date string, e.g. \"2026-09-17\")"
            } else {
                ""
            };
            out.push(Issue::error(
                IssueCode::ParameterDefaultType,
                at("default"),
                format!("default {default} does not match the declared type {ty}{hint}"),
            ));
        }
    }
    out
}

/// Whether `default` is a value of parameter type `ty`.
fn default_fits(ty: &str, default: &Value) -> bool {
    match ty {
        "string" => default.is_string(),
        "number" => default.is_number(),
        "boolean" => default.is_boolean(),
        _ => default.as_str().is_some_and(is_date_value),
    }
}

/// Whether `s` is a value of a `date` parameter: an ISO 8601 calendar date (`2026-09-17`, a
/// day that exists) or a date and time (`2026-09-17T15:30:00.000Z`, the zone optional), as
/// JSON Schema's `date` and `date-time` formats read them. The deploy-time check of a
/// default and the run-time check of a supplied value both ask this, so a default that
/// deploys is a value a run accepts.
pub(crate) fn is_date_value(s: &str) -> bool {
    crate::schema::is_date_or_date_time(s)
}

/// The issues of an agent's settings and model-settings references `(pointer, id)`, in
/// order: an id that is not a block id, a block referenced twice.
pub(crate) fn settings_ref_value_issues<'a>(
    refs: impl Iterator<Item = (String, &'a str)>,
) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (at, id) in refs {
        let at = format!("{at}/id");
        if !is_block_id(id) {
            out.push(Issue::error(IssueCode::InvalidAgent, &at, BLOCK_ID_MESSAGE));
        }
        if seen.contains(&id) {
            out.push(Issue::error(
                IssueCode::InvalidAgent,
                at,
                format!("settings block \"{id}\" is referenced twice"),
            ));
        }
        seen.push(id);
    }
    out
}

/// An agent's identity, instructions and capabilities as the rules read them: each field
/// when it has the right type.
pub(crate) struct AgentHeadView<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    pub(crate) instructions: InstructionsView<'a>,
    /// How many capability declarations; `None` when `capabilities` is not a list.
    pub(crate) capabilities: Option<usize>,
}

/// An agent's instructions as the rules read them.
pub(crate) enum InstructionsView<'a> {
    /// An inline template (perhaps blank).
    Inline(&'a str),
    /// A prompt block reference, with its block id when that is a string.
    Prompt(Option<&'a str>),
    /// Neither.
    Neither,
}

/// The issues of an agent's identity, instructions and capabilities at `base`
/// (`/agents/<i>`): a blank id or name, blank instructions, a prompt reference whose id is no
/// block id, no capability declarations.
pub(crate) fn head_issues(base: &str, agent: &AgentHeadView<'_>) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut error = |field: &str, message: &str| {
        out.push(Issue::error(
            IssueCode::InvalidAgent,
            format!("{base}/{field}"),
            message,
        ));
    };
    if agent.id.is_none_or(|id| id.trim().is_empty()) {
        error("id", "id must be a non-empty string");
    }
    if agent.name.is_none_or(|n| n.trim().is_empty()) {
        error("name", "name must be a non-empty string");
    }
    match agent.instructions {
        InstructionsView::Inline(s) if !s.trim().is_empty() => {}
        InstructionsView::Prompt(id) => {
            if !id.is_some_and(is_block_id) {
                error("instructions/prompt", BLOCK_ID_MESSAGE);
            }
        }
        _ => error(
            "instructions",
            "instructions must be a non-empty string, or a prompt block { prompt, version }",
        ),
    }
    if agent.capabilities.is_none_or(|n| n == 0) {
        error(
            "capabilities",
            "capabilities must be a non-empty array of Capability declarations",
        );
    }
    out
}

/// The issues of an agent's tool references `(position, id, range)` at `base`: a blank id
/// or range, and (a warning) a tool listed twice.
pub(crate) fn tool_ref_issues<'a>(
    base: &str,
    tools: impl Iterator<Item = (usize, Option<&'a str>, Option<&'a str>)>,
) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    for (j, id, range) in tools {
        let at = |field: &str| format!("{base}/tools/{j}/{field}");
        match id.filter(|id| !id.trim().is_empty()) {
            Some(id) => {
                if ids.contains(&id) {
                    out.push(Issue::warning(IssueCode::DuplicateRef, at("id"), format!(
                        "tool \"{id}\" is listed twice; the first reference wins at run start, remove the duplicate"
                    )));
                }
                ids.push(id);
            }
            None => out.push(Issue::error(
                IssueCode::InvalidAgent,
                at("id"),
                "tool id must be a non-empty string",
            )),
        }
        if range.is_none_or(|r| r.trim().is_empty()) {
            out.push(Issue::error(IssueCode::InvalidAgent, at("version"), "tool version must be a non-empty semver range string (e.g., \"1.2.3\", \"^1.2.3\", \"~1.2.3\"). Deep grammar validation runs at dispatch time via the `semver` library."));
        }
    }
    out
}

/// The issues of an agent's guardrail ids `(position, id)` at `base`: a blank id, and (a
/// warning) a guardrail listed twice.
pub(crate) fn guardrail_ref_issues<'a>(
    base: &str,
    ids: impl Iterator<Item = (usize, Option<&'a str>)>,
) -> Vec<Issue> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (j, id) in ids {
        let at = format!("{base}/guardrails/{j}");
        match id.filter(|id| !id.trim().is_empty()) {
            Some(id) => {
                if seen.contains(&id) {
                    out.push(Issue::warning(IssueCode::DuplicateRef, at, format!(
                        "guardrail \"{id}\" is listed twice; it runs once per check point, remove the duplicate"
                    )));
                }
                seen.push(id);
            }
            None => out.push(Issue::error(
                IssueCode::InvalidAgent,
                at,
                "guardrail id must be a non-empty string",
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(issues: Vec<Issue>) -> Vec<(String, String)> {
        issues
            .into_iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn block_ids_are_dotted_lowercase() {
        assert!(is_block_id("acme.weights"));
        assert!(is_block_id("a-1.b2.c"));
        assert!(!is_block_id("acme"));
        assert!(!is_block_id("Acme.weights"));
        assert!(!is_block_id("acme..weights"));
        assert!(!is_block_id("-a.b"));
    }

    #[test]
    fn parameter_values_follow_define_agent() {
        let list = json!([
            {"name": "x", "type": "string"},
            {"name": "x", "type": "number", "default": "1"},
            {"name": "today", "type": "date", "default": "2026-09-17"},
            {"name": "input", "type": "boolean", "default": false},
            {"name": " ", "type": "date", "default": "soon"},
        ]);
        let views = list
            .as_array()
            .into_iter()
            .flatten()
            .map(ParameterView::of_raw);
        assert_eq!(
            texts(parameter_value_issues(views, "/p", IssueCode::InvalidAgent)),
            [
                ("/p/1/name", "duplicate parameter name \"x\""),
                ("/p/1/default", "default \"1\" does not match the declared type number"),
                ("/p/2/name", "\"today\" is a reserved auto-injected variable — do not declare it as a parameter"),
                ("/p/3/name", "a parameter named \"input\" is overwritten by the flow step's input whenever the turn has one; rename it"),
                ("/p/4/name", "name must be a non-empty string"),
                ("/p/4/default", "default \"soon\" does not match the declared type date (an ISO 8601 date string, e.g. \"2026-09-17\")"),
            ]
            .map(|(p, m)| (p.to_owned(), m.to_owned()))
        );
    }

    #[test]
    fn a_date_value_is_a_day_that_exists_with_an_optional_time() {
        for yes in [
            "2026-09-17",
            "2024-02-29",
            "2026-09-17T15:30:00.000Z",
            "2026-09-17T15:30:00",
            "2026-09-17T15:30:00+02:00",
        ] {
            assert!(is_date_value(yes), "{yes}");
        }
        for no in [
            "2026-02-30",
            "2026-02-29",
            "2026-13-01",
            "2026-9-17",
            "2026-09-17 soon",
            "2026-09-17T25:00:00Z",
            "soon",
            "",
        ] {
            assert!(!is_date_value(no), "{no}");
        }
    }

    #[test]
    fn a_settings_block_is_referenced_once_by_its_block_id() {
        let refs = [("/s/0", "acme.w"), ("/s/1", "Acme"), ("/m", "acme.w")];
        assert_eq!(
            texts(settings_ref_value_issues(
                refs.iter().map(|(at, id)| ((*at).to_owned(), *id))
            )),
            [
                ("/s/1/id", BLOCK_ID_MESSAGE),
                ("/m/id", "settings block \"acme.w\" is referenced twice"),
            ]
            .map(|(p, m)| (p.to_owned(), m.to_owned()))
        );
    }
}
