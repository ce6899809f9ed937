//! Cross references inside a pack (agents.md §1.5, §4.3): agent → tools (npm ranges over the
//! pack's tool versions), agent → guardrails, agent → prompt, settings and model-settings
//! blocks. Upstream finds these at publish or only at turn start; runstart finds them at
//! deploy.

use super::published::PublishedTools;
use crate::catalog::deploy_pin_message;
use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use crate::index::{PackIndex, raw_list};
use crate::range::{Range, compare_versions, parse_version};
use semver::Version;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// Versions of one id, highest first (npm order), with the entry index of each.
pub(crate) type Versions = Vec<(Version, usize)>;

fn sorted(mut v: Versions) -> Versions {
    v.sort_by(|a, b| compare_versions(&b.0, &a.0));
    v
}

/// What the cross-reference checks look up, built once per index.
pub(crate) struct PackRefs<'a> {
    tools: HashMap<&'a str, Versions>,
    /// Tool versions already published where the pack deploys, when the caller gave them.
    published: Option<&'a dyn PublishedTools>,
    blocks: HashMap<&'a str, Versions>,
    guardrails: HashSet<&'a str>,
    document: &'a Value,
}

impl<'a> PackRefs<'a> {
    /// Indexes the pack's tools, blocks and guardrails from the raw document, so an entry
    /// whose shape has a problem still counts as present (its own issue says what is wrong;
    /// a cascade of "not found" issues would only hide it). A tool without a `version` counts
    /// as the pack's version, as the Python indexer assigns it.
    pub(crate) fn new(
        index: &'a PackIndex,
        document: &'a Value,
        published: Option<&'a dyn PublishedTools>,
    ) -> PackRefs<'a> {
        let pack_version = parse_version(&index.pack_version);
        let versions_of = |list: &str, default: Option<&Version>| {
            let mut by_id: HashMap<&'a str, Versions> = HashMap::new();
            for (i, entry) in raw_list(document, list).iter().enumerate() {
                let Some(id) = entry.get("id").and_then(Value::as_str) else {
                    continue;
                };
                let slot = by_id.entry(id).or_default();
                let version = match entry.get("version").and_then(Value::as_str) {
                    Some(v) => parse_version(v),
                    None => default.cloned(),
                };
                if let Some(v) = version {
                    slot.push((v, i));
                }
            }
            by_id
                .into_iter()
                .map(|(k, v)| (k, sorted(v)))
                .collect::<HashMap<_, _>>()
        };
        PackRefs {
            published,
            tools: versions_of("tools", pack_version.as_ref()),
            blocks: versions_of("blocks", None),
            guardrails: raw_list(document, "guardrails")
                .iter()
                .filter_map(|g| g.get("id").and_then(Value::as_str))
                .collect(),
            document,
        }
    }

    /// The entry index of the block `id`'s highest version in `range`, if any.
    pub(crate) fn pick_block(&self, id: &str, range: &str) -> Option<usize> {
        let range = Range::parse(range).ok()?;
        let versions = self.blocks.get(id)?;
        let picked = range.max_satisfying(versions.iter().map(|(v, _)| v))?;
        versions.iter().find(|(v, _)| v == picked).map(|&(_, i)| i)
    }

    /// Checks every reference of the agent at `/agents/<i>`.
    pub(crate) fn check_agent(&self, i: usize, agent: &Value, out: &mut Vec<Issue>) {
        let Some(obj) = agent.as_object() else { return };
        let agent_id = obj.get("id").and_then(Value::as_str).unwrap_or("");
        let base = format!("/agents/{i}");
        if let Some(tools) = obj.get("tools").and_then(Value::as_array) {
            for (j, tool) in tools.iter().enumerate() {
                let (Some(id), Some(range)) = (
                    tool.get("id").and_then(Value::as_str),
                    tool.get("version").and_then(Value::as_str),
                ) else {
                    continue; // the agent rules reported the shape
                };
                if let Some(issue) = self.tool_ref(agent_id, id, range) {
                    out.push(issue.under(&format!("{base}/tools/{j}/version")));
                }
            }
        }
        if let Some(ids) = obj.get("guardrails").and_then(Value::as_array) {
            for (j, g) in ids.iter().enumerate() {
                let Some(g) = g.as_str().filter(|g| !g.trim().is_empty()) else {
                    continue;
                };
                if !self.guardrails.contains(g) {
                    out.push(Issue::error(
                        IssueCode::UnresolvedGuardrail,
                        format!("{base}/guardrails/{j}"),
                        format!("agent \"{agent_id}\": guardrail \"{g}\" is not in the pack; its turns would fail with unresolved-guardrail"),
                    ));
                }
            }
        }
        if let Some(prompt) = obj.get("instructions").filter(|v| v.is_object()) {
            let id = prompt.get("prompt").and_then(Value::as_str);
            let range = prompt.get("version").and_then(Value::as_str);
            self.block_ref(
                agent_id,
                BlockRole::Prompt,
                id,
                range,
                &format!("{base}/instructions/version"),
                out,
            );
        }
        if let Some(settings) = obj.get("settings").and_then(Value::as_array) {
            for (j, s) in settings.iter().enumerate() {
                let id = s.get("id").and_then(Value::as_str);
                let range = s.get("version").and_then(Value::as_str);
                self.block_ref(
                    agent_id,
                    BlockRole::Settings,
                    id,
                    range,
                    &format!("{base}/settings/{j}/version"),
                    out,
                );
            }
        }
        if let Some(m) = obj.get("modelSettings") {
            let id = m.get("id").and_then(Value::as_str);
            let range = m.get("version").and_then(Value::as_str);
            self.block_ref(
                agent_id,
                BlockRole::ModelSettings,
                id,
                range,
                &format!("{base}/modelSettings/version"),
                out,
            );
        }
    }

    /// One tool ref; the issue's instance path is empty (the caller places it).
    fn tool_ref(&self, agent_id: &str, id: &str, range_text: &str) -> Option<Issue> {
        // The pack's own versions, plus those already published (a deploy registers the
        // pack's tools before it pins agents, so both count).
        let own = self.tools.get(id).map(|v| v.iter().map(|(v, _)| v.clone()));
        let mut all: Vec<Version> = own.into_iter().flatten().collect();
        if let Some(published) = self.published {
            all.extend(published.versions(id));
        }
        all.sort_by(|a, b| compare_versions(b, a));
        all.dedup_by(|a, b| compare_versions(a, b).is_eq());
        tool_ref_issue(agent_id, id, range_text, &all)
    }

    fn block_ref(
        &self,
        agent_id: &str,
        role: BlockRole,
        id: Option<&str>,
        range_text: Option<&str>,
        at: &str,
        out: &mut Vec<Issue>,
    ) {
        let (Some(id), Some(range_text)) = (id, range_text) else {
            return;
        };
        let Ok(range) = Range::parse(range_text) else {
            return; // the agent rules reported the range
        };
        let desc = format!("{} block \"{id}\"", role.desc());
        let issue = |message: String| {
            Issue::error(
                IssueCode::BlockUnresolvable,
                at,
                format!("agent \"{agent_id}\": {message}"),
            )
            .with_param("blockId", id)
            .with_param("requestedRange", range_text)
        };
        let none: [&str; 0] = [];
        let Some(versions) = self.blocks.get(id).filter(|v| !v.is_empty()) else {
            out.push(issue(block_pin_message(&desc, range_text, &none)));
            return;
        };
        let Some(picked) = range.max_satisfying(versions.iter().map(|(v, _)| v)) else {
            let published: Vec<&Version> = versions.iter().map(|(v, _)| v).collect();
            out.push(issue(block_pin_message(&desc, range_text, &published)));
            return;
        };
        let Some(&(_, entry)) = versions.iter().find(|(v, _)| v == picked) else {
            return;
        };
        let Some(block) = raw_list(self.document, "blocks").get(entry) else {
            return;
        };
        let kind = block.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind != role.kind() {
            out.push(issue(format!("{desc} is a {kind} block")));
            return;
        }
        if role == BlockRole::ModelSettings {
            let values = block.pointer("/content/values").unwrap_or(&Value::Null);
            if let Some(why) = model_settings_problems(values) {
                out.push(issue(format!(
                    "{desc} version {picked} isn't model settings: {why}"
                )));
            }
        }
    }
}

/// Why a settings block's `values` are not model settings: each problem the model-settings
/// schema finds, as `<pointer> <message>`, joined with `; `; `None` when they are. Deploy
/// validation and run start both word a model-settings block this way.
pub(crate) fn model_settings_problems(values: &Value) -> Option<String> {
    let problems = crate::schema::model_settings_schema().issues(
        values,
        "/content/values",
        IssueCode::BlockUnresolvable,
    );
    if problems.is_empty() {
        return None;
    }
    let why: Vec<String> = problems
        .iter()
        .map(|p| format!("{} {}", p.instance_path(), p.message()))
        .collect();
    Some(why.join("; "))
}

/// The issue for agent `agent_id`'s reference to tool `id` at `range_text`, given the tool's
/// versions (highest first, no duplicates), or `None` when the range picks one. The instance
/// path is empty (the caller places it). Deploy validation and run registration both report
/// through this, so they say the same thing for the same pack.
pub(crate) fn tool_ref_issue(
    agent_id: &str,
    id: &str,
    range_text: &str,
    versions: &[Version],
) -> Option<Issue> {
    let range = match Range::parse(range_text) {
        Ok(r) => r,
        Err(e) => {
            return Some(
                Issue::error(
                    IssueCode::InvalidVersionRange,
                    "",
                    format!("agent \"{agent_id}\": tool \"{id}\" has an invalid version range \"{range_text}\": {e}"),
                )
                .with_param("toolId", id)
                .with_param("requestedRange", range_text),
            );
        }
    };
    if versions.is_empty() {
        let none: [&str; 0] = [];
        return Some(
            Issue::error(
                IssueCode::ToolNotFound,
                "",
                deploy_pin_message(agent_id, id, range_text, &none),
            )
            .with_param("toolId", id),
        );
    }
    if range.max_satisfying(versions.iter()).is_some() {
        return None;
    }
    let published: Vec<String> = versions.iter().map(ToString::to_string).collect();
    Some(
        Issue::error(
            IssueCode::ToolVersionUnresolvable,
            "",
            deploy_pin_message(agent_id, id, range_text, &published),
        )
        .with_param("toolId", id)
        .with_param("requestedRange", range_text)
        .with_param("availableVersions", json!(published)),
    )
}

/// The version of the tool entry `tool`: its own, or the pack's when it has none (as the
/// Python indexer assigns it). The entry schema only asks for a string, so a text that is not
/// semver is refused here, with the same issue at deploy validation and run registration.
pub(crate) fn tool_version(
    tool: &crate::index::Indexed<crate::index::wire::Tool>,
    pack_version: &str,
) -> Result<Version, Box<Issue>> {
    let text = tool.entry.version.as_deref().unwrap_or(pack_version);
    parse_version(text).ok_or_else(|| {
        Box::new(Issue::error(
            IssueCode::InvalidShape,
            format!("/tools/{}/version", tool.index),
            format!(
                "tool \"{}\" version \"{text}\" is not a semver version",
                tool.entry.id
            ),
        ))
    })
}

/// Why block reference `desc` (e.g. `prompt block "acme.p"`) pins nothing: the block has no
/// version at all, or none in `range` (`published`, highest first). One text for deploy
/// validation, run registration and run start.
pub(crate) fn block_pin_message<V: std::fmt::Display>(
    desc: &str,
    range: &str,
    published: &[V],
) -> String {
    if published.is_empty() {
        format!("{desc} has no published version; publish the block first")
    } else {
        let list: Vec<String> = published.iter().map(ToString::to_string).collect();
        format!(
            "{desc} has no published version in \"{range}\" (published: {})",
            list.join(", ")
        )
    }
}

/// What a block reference is for; names it in messages and says which kind it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockRole {
    Prompt,
    Settings,
    ModelSettings,
}

impl BlockRole {
    /// How messages name the reference: `prompt`, `settings` or `model-settings`.
    pub(crate) fn desc(self) -> &'static str {
        match self {
            BlockRole::Prompt => "prompt",
            BlockRole::Settings => "settings",
            BlockRole::ModelSettings => "model-settings",
        }
    }
    fn kind(self) -> &'static str {
        match self {
            BlockRole::Prompt => "prompt",
            BlockRole::Settings | BlockRole::ModelSettings => "settings",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::load;

    fn issues(doc: Value) -> Vec<(String, String, String)> {
        let text = doc.to_string();
        let loaded = load(text.as_bytes());
        let index = loaded.index.expect("index");
        let document = loaded.document.expect("document");
        let refs = PackRefs::new(&index, &document, None);
        let mut out = Vec::new();
        for (i, a) in raw_list(&document, "agents").iter().enumerate() {
            refs.check_agent(i, a, &mut out);
        }
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
                "block-unresolvable /agents/0/settings/0/version agent \"a\": settings block \"acme.s\" has no published version; publish the block first",
                "block-unresolvable /agents/0/settings/1/version agent \"a\": settings block \"acme.p\" has no published version in \"2.x\" (published: 1.0.0)",
                "block-unresolvable /agents/0/modelSettings/version agent \"a\": model-settings block \"acme.m\" version 1.0.0 isn't model settings: /content/values/temperature must be <= 2",
            ]
        );
    }
}
