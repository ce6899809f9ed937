//! Typing an entry of the parsed document: [`FromDocument`].
//!
//! `serde`'s derive types a [`Value`] field by rebuilding it key by key from the document
//! (each object key inserted into a new map); for an agent, whose open fields (capabilities,
//! parameters, output schema, …) are most of it, that is most of the cost of typing it. An
//! agent is therefore typed in two steps: its shape checked with those fields skipped, then
//! the fields cloned as they are, which copies a map's nodes without searching them.

use super::model::{Indexed, RejectedEntry, rejected_json};
use super::wire::{
    Agent, Block, Flow, Guardrail, Instructions, Parameter, SettingsRef, Tool, ToolRef, present,
};
use crate::diagnostics::Issue;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

/// The rejected `entry` (of `document`) typed without the fields the index does not define,
/// when such fields are all its shape check refused: deploy validation checks the rest of it
/// from this form, so an unknown field does not hide the entry's other problems. `None` when
/// something else refused it, or when it does not type even without them.
pub(crate) fn typed_without_unknown_fields<T: FromDocument>(
    document: &Value,
    entry: &RejectedEntry,
) -> Option<Indexed<T>> {
    let at = format!("/{}/{}", entry.list, entry.index);
    let mut unknown = Vec::with_capacity(entry.issues.len());
    for issue in &entry.issues {
        let field = issue
            .params()
            .get("additionalProperty")
            .and_then(Value::as_str);
        match field {
            Some(field)
                if issue.keyword() == Some("additionalProperties")
                    && issue.instance_path() == at =>
            {
                unknown.push(field);
            }
            _ => return None,
        }
    }
    let mut raw = rejected_json(document, entry)?.as_object()?.clone();
    for field in unknown {
        raw.shift_remove(field);
    }
    T::from_document(&Value::Object(raw))
        .ok()
        .map(|typed| Indexed {
            index: entry.index,
            entry: typed,
        })
}

/// An entry type that loading types from the parsed document.
pub(crate) trait FromDocument: Sized {
    /// The entry `raw` in its typed form, or serde's reason it has none.
    fn from_document(raw: &Value) -> Result<Self, serde_json::Error>;

    /// Why entry `index` of its list, which passed the index's shape check, has no typed
    /// form, when a deeper check of the entry says it better than serde; empty when serde's
    /// reason is the one to give.
    fn refusal(_raw: &Value, _index: usize) -> Vec<Issue> {
        Vec::new()
    }

    /// The checks entry `index` of its list goes through before it is typed, whatever its
    /// shape check found: an error refuses the entry (with every error found, where
    /// serde would give its first reason only), a warning stays with the index
    /// ([`PackIndex::warnings`](super::PackIndex::warnings)). None by default.
    fn checks(_raw: &Value, _index: usize) -> Vec<Issue> {
        Vec::new()
    }

    /// Where inside the entry `raw` serde's reason lies and what it is, in the words of
    /// [`crate::input`] (JSON's type names, the allowed fields): a pointer relative to the
    /// entry and a message. `None` to give serde's reason at the entry itself.
    fn locate(_raw: &Value) -> Option<(String, String)> {
        None
    }
}

/// [`FromDocument::locate`] through type `T`, which refuses what the entry type refuses.
fn locate_with<T: serde::de::DeserializeOwned>(raw: &Value) -> Option<(String, String)> {
    let e = crate::input::from_value_ref::<T>(raw).err()?;
    Some((e.pointer().to_owned(), e.message().to_owned()))
}

macro_rules! by_serde {
    ($($t:ty),*) => {$(
        impl FromDocument for $t {
            fn from_document(raw: &Value) -> Result<Self, serde_json::Error> {
                <$t>::deserialize(raw)
            }

            fn locate(raw: &Value) -> Option<(String, String)> {
                locate_with::<$t>(raw)
            }
        }
    )*};
}

by_serde!(Tool, Guardrail, Block);

/// A flow entry is the flow document's type, with the two fields an index entry must have.
impl FromDocument for Flow {
    fn from_document(raw: &Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error;
        let flow = Flow::deserialize(raw)?;
        if flow.kernel_payload_version.is_none() {
            return Err(serde_json::Error::missing_field("kernelPayloadVersion"));
        }
        if flow.module_path.is_none() {
            return Err(serde_json::Error::missing_field("modulePath"));
        }
        Ok(flow)
    }

    /// The flow checks (all of upstream's loader's, and the graph warnings beyond it; the
    /// references to tools and agents and subgraph nodes are deploy validation's, against the
    /// pack): a flow registration would run is one they pass.
    fn checks(raw: &Value, index: usize) -> Vec<Issue> {
        crate::flow::check_index_flow_rules(raw, index)
    }
}

/// [`Agent`] with its open fields skipped: the same fields, names and types, so it accepts
/// and refuses exactly what `Agent` does, with the same messages (a test checks it). An agent
/// is typed from this and its open values, cloned (see the module docs).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // The skipped fields are read for their shape only.
struct AgentShape {
    pub(crate) id: String,
    pub(crate) version: String,
    pub(crate) name: String,
    pub(crate) instructions: Instructions,
    #[serde(default, deserialize_with = "present")]
    pub(crate) settings: Option<Vec<SettingsRef>>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) model_settings: Option<SettingsRef>,
    capabilities: Vec<IgnoredAny>,
    pub(crate) tools: Vec<ToolRef>,
    #[serde(default, deserialize_with = "present")]
    retrieval: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    memory: Option<IgnoredAny>,
    #[serde(default)]
    pub(crate) guardrails: Option<Vec<String>>,
    #[serde(default)]
    budget: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) parameters: Option<Vec<Parameter>>,
    #[serde(default)]
    preferred_provider: Option<String>,
    #[serde(default)]
    preferred_model: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    conversation_policy: Option<IgnoredAny>,
    #[serde(default)]
    output: Option<IgnoredAny>,
    #[serde(default)]
    tool_errors: Option<IgnoredAny>,
    #[serde(default)]
    parallel_tool_calls: Option<bool>,
    module_path: String,
}

/// An optional open field as serde reads `Option<Value>`: absent or `null` is `None`.
fn open(raw: &Value, key: &str) -> Option<Value> {
    raw.get(key).filter(|v| !v.is_null()).cloned()
}

/// An optional list of open values as serde reads `Option<Vec<Value>>` (the shape step has
/// checked that it is an array when present and not `null`).
fn open_list(raw: &Value, key: &str) -> Option<Vec<Value>> {
    raw.get(key).and_then(Value::as_array).cloned()
}

impl FromDocument for Agent {
    fn locate(raw: &Value) -> Option<(String, String)> {
        locate_with::<AgentShape>(raw)
    }

    fn from_document(raw: &Value) -> Result<Self, serde_json::Error> {
        let shape = AgentShape::deserialize(raw)?;
        Ok(Agent {
            id: shape.id,
            version: shape.version,
            name: shape.name,
            instructions: shape.instructions,
            settings: shape.settings,
            model_settings: shape.model_settings,
            capabilities: open_list(raw, "capabilities").unwrap_or_default(),
            tools: shape.tools,
            retrieval: open_list(raw, "retrieval"),
            memory: open(raw, "memory"),
            guardrails: shape.guardrails,
            budget: open(raw, "budget"),
            parameters: shape.parameters,
            preferred_provider: shape.preferred_provider,
            preferred_model: shape.preferred_model,
            description: shape.description,
            tags: shape.tags,
            conversation_policy: open(raw, "conversationPolicy"),
            output: raw.get("output").cloned(),
            tool_errors: open(raw, "toolErrors"),
            parallel_tool_calls: shape.parallel_tool_calls,
            module_path: shape.module_path,
        })
    }

    /// The issues of the agent's parameters and settings references (see
    /// [`super::fields`]), when those are all that keep it from typing.
    fn refusal(raw: &Value, index: usize) -> Vec<Issue> {
        agent_refusal(raw, index)
    }
}

/// Why agent entry `raw` (`/agents/<index>`), whose index shape is fine, has no typed form,
/// when the reason is its parameters or settings references: their issues (see
/// [`super::fields`]); empty when it types, or when something else keeps it from typing
/// (serde's reason is then the one to give).
pub(crate) fn agent_refusal(raw: &Value, index: usize) -> Vec<Issue> {
    let issues = super::fields::agent_field_issues(raw, index);
    if issues.is_empty() {
        return issues;
    }
    let mut rest = raw.clone();
    if let Some(obj) = rest.as_object_mut() {
        for key in ["settings", "modelSettings", "parameters", "retrieval"] {
            obj.remove(key);
        }
    }
    if AgentShape::deserialize(&rest).is_ok() {
        issues
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn both(raw: &Value) -> (Result<Agent, String>, Result<Agent, String>) {
        (
            Agent::from_document(raw).map_err(|e| e.to_string()),
            Agent::deserialize(raw).map_err(|e| e.to_string()),
        )
    }

    #[test]
    fn types_an_agent_as_serde_does() {
        let full = json!({
            "id": "a", "version": "1.0.0", "name": "A", "instructions": "Hi {{ x }}",
            "settings": [{"id": "s.s", "version": "^1"}], "modelSettings": {"id": "m.m", "version": "1.x"},
            "capabilities": [{"needs": [{"feature": "tool-use"}]}],
            "tools": [{"id": "t", "version": "^1.0.0"}], "retrieval": [{"source": "docs"}],
            "memory": {"enabled": true}, "guardrails": ["g"], "budget": {"maxSteps": 3},
            "parameters": [{"name": "x", "type": "string"}], "preferredProvider": "p",
            "preferredModel": "m", "description": "d", "tags": ["t"],
            "conversationPolicy": {"window": 4}, "output": {"schema": {"type": "object"}},
            "toolErrors": {"maxRetries": 1}, "parallelToolCalls": false, "modulePath": "a.ts"
        });
        let (ours, serde) = both(&full);
        assert!(ours.is_ok());
        assert_eq!(ours, serde);
        let mut nulls = full.clone();
        for key in ["output", "memory"] {
            nulls[key] = Value::Null;
        }
        let (ours, serde) = both(&nulls);
        assert_eq!(ours, serde);
        // A null output is kept for the agent rules to refuse.
        assert_eq!(ours.map(|a| a.output), Ok(Some(Value::Null)));
        // These the index schema refuses as `null`, and so do the types.
        for key in ["settings", "modelSettings", "parameters", "retrieval"] {
            let mut null = full.clone();
            null[key] = Value::Null;
            let (ours, serde) = both(&null);
            assert!(serde.is_err(), "{key}");
            assert_eq!(ours, serde, "{key}");
        }
        let minimal = json!({"id": "a", "version": "1.0.0", "name": "A",
            "instructions": {"prompt": "p.p", "version": "^1"}, "capabilities": [], "tools": [],
            "modulePath": "a.ts"});
        let (ours, serde) = both(&minimal);
        assert!(ours.is_ok());
        assert_eq!(ours, serde);
    }

    #[test]
    fn a_flow_entry_needs_its_index_fields_and_is_read_as_a_flow() {
        let entry = json!({"id": "p.f", "version": "1.0.0", "kernelPayloadVersion": 1.0,
            "modulePath": "f.ts", "maxParallelism": 2.0,
            "nodes": [{"id": "n", "kind": "tool", "ref": "t"}],
            "edges": [{"id": "e0", "from": "$start", "to": "n"}]});
        let flow = Flow::from_document(&entry).expect("a flow entry");
        assert_eq!(flow.kernel_payload_version, Some(1));
        assert_eq!(flow.max_parallelism, Some(2));
        assert_eq!(flow.module_path.as_deref(), Some("f.ts"));
        for field in ["kernelPayloadVersion", "modulePath"] {
            let mut without = entry.clone();
            without.as_object_mut().map(|o| o.remove(field));
            let why = Flow::from_document(&without)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(why, Err(format!("missing field `{field}`")));
            assert_eq!(
                Flow::checks(&without, 0),
                Vec::new(),
                "the index shape's field"
            );
        }
        let mut bad_node = entry.clone();
        bad_node["nodes"][0]["kind"] = json!("script");
        assert!(Flow::from_document(&bad_node).is_err());
        let checks = Flow::checks(&bad_node, 4);
        assert_eq!(checks.len(), 1, "{checks:#?}");
        assert_eq!(checks[0].code(), "schema-validation-failed");
        assert_eq!(checks[0].instance_path(), "/flows/4/nodes/0/kind");
        // A flow serde types but a graph rule refuses, and one with a warning only.
        let mut cycle = entry.clone();
        cycle["edges"] = json!([{"id": "e0", "from": "$start", "to": "n"},
            {"id": "e1", "from": "n", "to": "n"}]);
        assert!(Flow::from_document(&cycle).is_ok());
        let checks = Flow::checks(&cycle, 1);
        assert_eq!(checks[0].code(), "cycle-detected");
        assert_eq!(checks[0].severity(), crate::diagnostics::Severity::Error);
        let mut unused = entry.clone();
        unused["nodes"] = json!([{"id": "n", "kind": "tool", "ref": "t"},
            {"id": "m", "kind": "subgraph"}]);
        let checks = Flow::checks(&unused, 0);
        assert!(
            checks.iter().all(|i| i.code() != "flow-unbound"),
            "{checks:#?}"
        );
    }

    #[test]
    fn refuses_what_serde_refuses_with_the_same_message() {
        let base = json!({"id": "a", "version": "1.0.0", "name": "A", "instructions": "x",
            "capabilities": [], "tools": [], "modulePath": "a.ts"});
        let mut cases = Vec::new();
        for (key, value) in [
            ("capabilities", json!({})),
            ("settings", json!("s")),
            ("parameters", json!(3)),
            ("tools", json!([{"id": "t"}])),
            ("timeout", json!(5)),
            ("instructions", json!(7)),
            ("guardrails", json!([1])),
        ] {
            let mut bad = base.clone();
            bad[key] = value;
            cases.push(bad);
        }
        let mut missing = base.clone();
        missing.as_object_mut().map(|o| o.remove("version"));
        cases.push(missing);
        cases.push(json!([1]));
        for bad in &cases {
            let (ours, serde) = both(bad);
            assert!(serde.is_err(), "{bad}");
            assert_eq!(ours, serde, "{bad}");
        }
    }
}
