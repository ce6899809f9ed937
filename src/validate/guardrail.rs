//! Guardrail rules beyond the entry shape: `at` among the `checkPoints`, an `llm-judge`
//! guardrail's `judgeCapabilities`, `config` against `configSchema`, and the `config` of a
//! guardrail naming a built-in check against that check's settings.

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use crate::index::Indexed;
use crate::index::wire::{CheckPoint, Guardrail};
use crate::schema::CompiledSchema;

fn point_name(p: CheckPoint) -> &'static str {
    match p {
        CheckPoint::BeforeTool => "before-tool",
        CheckPoint::AfterTool => "after-tool",
        CheckPoint::ModelStep => "model-step",
        CheckPoint::FinalAnswer => "final-answer",
    }
}

/// Checks one guardrail. `check_capability` validates a capability declaration (relative
/// instance paths) and is used for `judgeCapabilities`.
pub(crate) fn check_guardrail(
    g: &Indexed<Guardrail>,
    check_capability: &dyn Fn(&serde_json::Value) -> Vec<Issue>,
    out: &mut Vec<Issue>,
) {
    let base = format!("/guardrails/{}", g.index);
    let entry = &g.entry;
    if let Some(at) = entry.at {
        // For a pack check, absent checkPoints means the final answer only; a built-in
        // check's points are the runtime's to know.
        let points: &[CheckPoint] = match &entry.check_points {
            Some(points) => points,
            None if entry.check_built_in == Some(true) => &[at],
            None => &[CheckPoint::FinalAnswer],
        };
        if !points.contains(&at) {
            let list = points
                .iter()
                .map(|p| point_name(*p))
                .collect::<Vec<_>>()
                .join(", ");
            out.push(Issue::error(
                IssueCode::InvalidGuardrail,
                format!("{base}/at"),
                format!(
                    "guardrail \"{}\" runs at {} but its check runs only at {list}; add {} to checkPoints or change at",
                    entry.id,
                    point_name(at),
                    point_name(at)
                ),
            ));
        }
    }
    if entry.kind == "llm-judge" {
        match &entry.judge_capabilities {
            None => out.push(Issue::error(
                IssueCode::InvalidGuardrail,
                base.clone(),
                format!("llm-judge guardrail \"{}\" needs judgeCapabilities: what its judge model is routed by", entry.id),
            )),
            Some(cap) => {
                let at = format!("{base}/judgeCapabilities");
                out.extend(check_capability(cap).into_iter().map(|i| i.under(&at)));
            }
        }
    }
    // Upstream's deploy looks the check up by name, whether or not `checkBuiltIn` says so.
    let check = entry.check_id.as_deref().unwrap_or(&entry.id);
    out.extend(super::builtin_check::config_problems(
        check,
        entry.config.as_ref(),
        &base,
    ));
    if let (Some(schema), Some(config)) = (&entry.config_schema, &entry.config) {
        // The meta-schema check already reported an invalid configSchema; nothing to add.
        if let Ok(compiled) = CompiledSchema::compile_lenient(schema) {
            out.extend(compiled.issues(
                config,
                &format!("{base}/config"),
                IssueCode::GuardrailConfig,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(g: serde_json::Value) -> Vec<(String, String)> {
        let entry: Guardrail = serde_json::from_value(g).expect("guardrail");
        let mut out = Vec::new();
        let cap = |c: &serde_json::Value| {
            if c.get("needs").is_some() {
                vec![]
            } else {
                vec![Issue::error(
                    IssueCode::InvalidCapability,
                    "/needs",
                    "must have required property 'needs'",
                )]
            }
        };
        check_guardrail(&Indexed { index: 1, entry }, &cap, &mut out);
        out.into_iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn at_must_be_a_check_point() {
        let got = run(
            json!({"id":"g","kind":"zero-llm","action":{"on-violation":"halt"},"checkModulePath":"g.ts","at":"after-tool"}),
        );
        assert_eq!(got, vec![("/guardrails/1/at".to_owned(),
            "guardrail \"g\" runs at after-tool but its check runs only at final-answer; add after-tool to checkPoints or change at".to_owned())]);
        assert!(run(json!({"id":"g","kind":"zero-llm","action":{"on-violation":"halt"},"checkModulePath":"g.ts","at":"after-tool","checkPoints":["after-tool"]})).is_empty());
    }

    #[test]
    fn llm_judge_needs_capabilities_and_config_fits_schema() {
        let got = run(
            json!({"id":"g","kind":"llm-judge","action":{"on-violation":"halt"},"checkModulePath":"g.ts",
            "configSchema":{"type":"object","properties":{"n":{"type":"integer"}}},"config":{"n":"x"}}),
        );
        assert_eq!(got[0].0, "/guardrails/1");
        assert_eq!(
            got[1],
            (
                "/guardrails/1/config/n".to_owned(),
                "must be integer".to_owned()
            )
        );
        let got = run(
            json!({"id":"g","kind":"llm-judge","action":{"on-violation":"halt"},"checkModulePath":"g.ts","judgeCapabilities":{}}),
        );
        assert_eq!(
            got,
            vec![(
                "/guardrails/1/judgeCapabilities/needs".to_owned(),
                "must have required property 'needs'".to_owned()
            )]
        );
    }
}
