//! The `env` rules (flows.md §3.2): both lists present, each sorted by code unit with unique
//! items, names that are environment variable names, no `KINDGI_*` name, no name in both.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report};
use serde_json::Value;
use std::cmp::Ordering;

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

pub(super) fn check_env(document: &Value, report: &mut Report) {
    let Some(env) = document.get("env").and_then(Value::as_object) else {
        return; // absent, or not an object: the shape check reported it
    };
    let lists = ["required", "optional"];
    for list in lists {
        let Some(names) = env.get(list).and_then(Value::as_array) else {
            continue;
        };
        let mut previous: Option<&str> = None;
        for (i, name) in names.iter().enumerate() {
            let Some(name) = name.as_str() else { continue };
            let at = format!("/env/{list}/{i}");
            if !is_env_name(name) {
                report.push(Issue::error(
                    IssueCode::EnvInvalid,
                    &at,
                    format!("\"{name}\" in `env.{list}` isn't an environment variable name"),
                ));
            } else if name.starts_with("KINDGI_") {
                report.push(Issue::error(
                    IssueCode::EnvInvalid,
                    &at,
                    format!("\"{name}\" in `env.{list}`: `KINDGI_*` names configure Kindgi, not the pack"),
                ));
            }
            if names[..i].iter().any(|n| n.as_str() == Some(name)) {
                report.push(Issue::error(
                    IssueCode::EnvInvalid,
                    &at,
                    format!("\"{name}\" is listed twice in `env.{list}`"),
                ));
            } else if let Some(prev) = previous
                && crate::index::utf16_cmp(prev, name) == Ordering::Greater
            {
                report.push(Issue::error(
                    IssueCode::EnvInvalid,
                    &at,
                    format!("`env.{list}` must be sorted: \"{name}\" comes after \"{prev}\""),
                ));
            }
            previous = Some(name);
        }
    }
    if let (Some(required), Some(optional)) = (
        env.get("required").and_then(Value::as_array),
        env.get("optional").and_then(Value::as_array),
    ) {
        for (i, name) in optional.iter().enumerate() {
            if let Some(n) = name.as_str()
                && required.iter().any(|r| r.as_str() == Some(n))
            {
                report.push(Issue::error(
                    IssueCode::EnvInvalid,
                    format!("/env/optional/{i}"),
                    format!("\"{n}\" is in both `env.required` and `env.optional`"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_env_rule_has_the_upstream_message() {
        let doc = json!({"env": {
            "required": ["B", "A", "KINDGI_TOKEN", "9x", "B"],
            "optional": ["A"]
        }});
        let mut r = Report::new();
        check_env(&doc, &mut r);
        let got: Vec<_> = r
            .issues()
            .iter()
            .map(|i| format!("{} {}", i.instance_path(), i.message()))
            .collect();
        assert_eq!(
            got,
            vec![
                "/env/required/1 `env.required` must be sorted: \"A\" comes after \"B\"",
                "/env/required/2 \"KINDGI_TOKEN\" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack",
                "/env/required/3 \"9x\" in `env.required` isn't an environment variable name",
                "/env/required/3 `env.required` must be sorted: \"9x\" comes after \"KINDGI_TOKEN\"",
                "/env/required/4 \"B\" is listed twice in `env.required`",
                "/env/optional/0 \"A\" is in both `env.required` and `env.optional`",
            ]
        );
    }

    #[test]
    fn absent_env_is_fine() {
        let mut r = Report::new();
        check_env(&json!({}), &mut r);
        assert!(r.is_empty());
    }
}
