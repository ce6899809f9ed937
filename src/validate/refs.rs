//! Cross references inside a pack (agents.md §1.5, §4.3): agent → tools (npm ranges over the
//! pack's tool versions), agent → guardrails, agent → prompt, settings and model-settings
//! blocks. Upstream finds these at publish or only at turn start; runstart finds them at
//! deploy.

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use crate::index::wire::Agent;
use crate::pack::{BlockRole, Resolver};
use serde_json::Value;

/// The message for guardrail `g`, referenced by agent `agent_id`, that the pack lacks.
fn missing_guardrail(
    resolver: &Resolver<'_>,
    agent_id: &str,
    g: &str,
    at: String,
    out: &mut Vec<Issue>,
) {
    if !g.trim().is_empty() && !resolver.has_guardrail(g) {
        out.push(Issue::error(
            IssueCode::UnresolvedGuardrail,
            at,
            format!("agent \"{agent_id}\": guardrail \"{g}\" is not in the pack; its turns would fail with unresolved-guardrail"),
        ));
    }
}

/// The guardrail references of the typed agent `/agents/<i>`, which the pack compile does
/// not resolve (a guardrail is looked up at turn start, not pinned).
pub(crate) fn check_guardrails(
    resolver: &Resolver<'_>,
    i: usize,
    agent: &Agent,
    out: &mut Vec<Issue>,
) {
    for (j, g) in agent.guardrails.iter().flatten().enumerate() {
        missing_guardrail(
            resolver,
            &agent.id,
            g,
            format!("/agents/{i}/guardrails/{j}"),
            out,
        );
    }
}

/// The references of agent `/agents/<i>`, rejected at load (so the compile never saw it),
/// read from its JSON `agent`: its guardrails, and its tool and block references, resolved
/// by the compile's own [`Resolver`] so they are worded as for any other agent.
pub(crate) fn check_rejected_agent(
    resolver: &Resolver<'_>,
    i: usize,
    agent: &Value,
    out: &mut Vec<Issue>,
) {
    let base = format!("/agents/{i}");
    let Some(obj) = agent.as_object() else { return };
    let agent_id = obj.get("id").and_then(Value::as_str).unwrap_or("");
    if let Some(ids) = obj.get("guardrails").and_then(Value::as_array) {
        for (j, g) in ids.iter().enumerate() {
            if let Some(g) = g.as_str() {
                missing_guardrail(resolver, agent_id, g, format!("{base}/guardrails/{j}"), out);
            }
        }
    }
    if let Some(tools) = obj.get("tools").and_then(Value::as_array) {
        for (j, tool) in tools.iter().enumerate() {
            let (Some(id), Some(range)) = (
                tool.get("id").and_then(Value::as_str),
                tool.get("version").and_then(Value::as_str),
            ) else {
                continue; // the agent rules reported the shape
            };
            if let Err(issue) = resolver.pin_tool_text(agent_id, id, range) {
                out.push(issue.under(&format!("{base}/tools/{j}/version")));
            }
        }
    }
    let mut block_ref = |role: BlockRole, r: Option<&Value>, id_field: &str, at: String| {
        let Some(r) = r else { return };
        let (Some(id), Some(range_text)) = (
            r.get(id_field).and_then(Value::as_str),
            r.get("version").and_then(Value::as_str),
        ) else {
            return;
        };
        // A range that does not parse is the agent rules' to report.
        if let Some(Err(issue)) = resolver.pin_block_text((agent_id, role), id, range_text, &at) {
            out.push(*issue);
        }
    };
    if let Some(prompt) = obj.get("instructions").filter(|v| v.is_object()) {
        block_ref(
            BlockRole::Prompt,
            Some(prompt),
            "prompt",
            format!("{base}/instructions/version"),
        );
    }
    for (j, s) in obj
        .get("settings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        block_ref(
            BlockRole::Settings,
            Some(s),
            "id",
            format!("{base}/settings/{j}/version"),
        );
    }
    block_ref(
        BlockRole::ModelSettings,
        obj.get("modelSettings"),
        "id",
        format!("{base}/modelSettings/version"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The reference issues deploy validation reports for `doc`, by instance path.
    fn issues(doc: Value) -> Vec<(String, String, String)> {
        let text = doc.to_string();
        let report = crate::validate::validate_index(
            text.as_bytes(),
            &crate::validate::ValidateOptions::new(),
        );
        let codes = [
            IssueCode::ToolVersionUnresolvable,
            IssueCode::InvalidVersionRange,
            IssueCode::ToolNotFound,
            IssueCode::UnresolvedGuardrail,
            IssueCode::BlockUnresolvable,
        ];
        let mut got: Vec<(String, String, String)> = report
            .issues()
            .iter()
            .filter(|i| codes.contains(&i.code()))
            .map(|i| {
                (
                    i.code().to_string(),
                    i.instance_path().to_owned(),
                    i.message().to_owned(),
                )
            })
            .collect();
        got.sort_by(|a, b| a.1.cmp(&b.1));
        got
    }

    fn pack(agent_tools: Value, extra: Value) -> Value {
        let mut doc = json!({
            "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "1", "publishedAt": "2026-01-01T00:00:00.000Z",
            "tools": [
                {"id": "t", "version": "1.2.0", "input": {}, "output": {}, "modulePath": "t.ts"},
                {"id": "t", "version": "2.0.0-beta.1", "input": {}, "output": {}, "modulePath": "t.ts"},
                {"id": "t", "version": "1.0.0", "input": {}, "output": {}, "modulePath": "t.ts"}
            ],
            "guardrails": [{"id": "g", "kind": "zero-llm", "action": {"on-violation": "halt"}, "checkModulePath": "g.ts"}],
            "agents": [{"id": "a", "version": "1.0.0", "name": "A", "instructions": "x", "capabilities": [], "tools": agent_tools, "modulePath": "a.ts"}],
            "flows": [],
            "blocks": [
                {"id": "acme.p", "version": "1.0.0", "kind": "prompt", "content": {"template": "x"}, "modulePath": "b.json"},
                {"id": "acme.m", "version": "1.0.0", "kind": "settings", "content": {"values": {"temperature": 3}}, "modulePath": "b.json"}
            ]
        });
        if let (Some(a), Some(e)) = (doc["agents"][0].as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        doc
    }

    #[test]
    fn tool_refs_resolve_with_npm_rules() {
        let got = issues(pack(
            json!([
                {"id": "t", "version": "^1.0.0"},
                {"id": "t", "version": "^3.0.0"},
                {"id": "t", "version": "latest"},
                {"id": "u", "version": "*"},
                {"id": "t", "version": "^2.0.0"}
            ]),
            json!({}),
        ));
        assert_eq!(got.len(), 4, "{got:#?}");
        assert_eq!(got[0], (IssueCode::ToolVersionUnresolvable.to_string(), "/agents/0/tools/1/version".into(),
            "agent \"a\": tool \"t\" has no published version in \"^3.0.0\" (published: 2.0.0-beta.1, 1.2.0, 1.0.0); publish one in range first, or change the range".into()));
        assert_eq!(got[1].0, IssueCode::InvalidVersionRange.as_str());
        assert_eq!(
            got[2],
            (
                IssueCode::ToolNotFound.to_string(),
                "/agents/0/tools/3/version".into(),
                "agent \"a\": tool \"u\" has no published version; publish the tool first".into()
            )
        );
        // npm's prerelease rule: ^2.0.0 does not pick 2.0.0-beta.1.
        assert_eq!(got[3].1, "/agents/0/tools/4/version");
    }

    #[test]
    fn guardrails_and_blocks_resolve() {
        let got = issues(pack(
            json!([]),
            json!({
                "guardrails": ["g", "nope"],
                "instructions": {"prompt": "acme.m", "version": "^1.0.0"},
                "settings": [{"id": "acme.s", "version": "^1.0.0"}, {"id": "acme.p", "version": "2.x"}],
                "modelSettings": {"id": "acme.m", "version": "1.x"}
            }),
        ));
        let got: Vec<_> = got.iter().map(|(c, p, m)| format!("{c} {p} {m}")).collect();
        assert_eq!(
            got,
            vec![
                "unresolved-guardrail /agents/0/guardrails/1 agent \"a\": guardrail \"nope\" is not in the pack; its turns would fail with unresolved-guardrail",
                "block-unresolvable /agents/0/instructions/version agent \"a\": prompt block \"acme.m\" is a settings block",
                "block-unresolvable /agents/0/modelSettings/version agent \"a\": model-settings block \"acme.m\" version 1.0.0 isn't model settings: /content/values/temperature must be <= 2",
                "block-unresolvable /agents/0/settings/0/version agent \"a\": settings block \"acme.s\" has no published version; publish the block first",
                "block-unresolvable /agents/0/settings/1/version agent \"a\": settings block \"acme.p\" has no published version in \"2.x\" (published: 1.0.0)",
            ]
        );
    }
}
