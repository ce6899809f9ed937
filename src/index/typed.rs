//! Typing an entry of the parsed document: [`FromDocument`].
//!
//! `serde`'s derive types a [`Value`] field by rebuilding it key by key from the document
//! (each object key inserted into a new map); for an agent, whose open fields (capabilities,
//! parameters, output schema, …) are most of it, that is most of the cost of typing it. An
//! agent is therefore typed in two steps: its shape checked with those fields skipped, then
//! the fields cloned as they are, which copies a map's nodes without searching them.

use super::wire::{Agent, Block, Flow, Guardrail, Instructions, Tool, ToolRef};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

/// An entry type that loading types from the parsed document.
pub(crate) trait FromDocument: Sized {
    /// The entry `raw` in its typed form, or serde's reason it has none.
    fn from_document(raw: &Value) -> Result<Self, serde_json::Error>;
}

macro_rules! by_serde {
    ($($t:ty),*) => {$(
        impl FromDocument for $t {
            fn from_document(raw: &Value) -> Result<Self, serde_json::Error> {
                <$t>::deserialize(raw)
            }
        }
    )*};
}

by_serde!(Tool, Guardrail, Block, Flow);

/// [`Agent`] with its open fields skipped: the same fields, names and types, so it accepts
/// and refuses exactly what `Agent` does, with the same messages (a test checks it). Deploy
/// validation compiles an agent from this and the document's open values, borrowed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // The skipped fields are read for their shape only.
pub(crate) struct AgentShape {
    pub(crate) id: String,
    pub(crate) version: String,
    name: String,
    pub(crate) instructions: Instructions,
    #[serde(default)]
    settings: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    model_settings: Option<IgnoredAny>,
    capabilities: Vec<IgnoredAny>,
    pub(crate) tools: Vec<ToolRef>,
    #[serde(default)]
    retrieval: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    memory: Option<IgnoredAny>,
    #[serde(default)]
    guardrails: Option<Vec<String>>,
    #[serde(default)]
    budget: Option<IgnoredAny>,
    #[serde(default)]
    parameters: Option<Vec<IgnoredAny>>,
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
    fn from_document(raw: &Value) -> Result<Self, serde_json::Error> {
        let shape = AgentShape::deserialize(raw)?;
        Ok(Agent {
            id: shape.id,
            version: shape.version,
            name: shape.name,
            instructions: shape.instructions,
            settings: open_list(raw, "settings"),
            model_settings: open(raw, "modelSettings"),
            capabilities: open_list(raw, "capabilities").unwrap_or_default(),
            tools: shape.tools,
            retrieval: open_list(raw, "retrieval"),
            memory: open(raw, "memory"),
            guardrails: shape.guardrails,
            budget: open(raw, "budget"),
            parameters: open_list(raw, "parameters"),
            preferred_provider: shape.preferred_provider,
            preferred_model: shape.preferred_model,
            description: shape.description,
            tags: shape.tags,
            conversation_policy: open(raw, "conversationPolicy"),
            output: open(raw, "output"),
            tool_errors: open(raw, "toolErrors"),
            parallel_tool_calls: shape.parallel_tool_calls,
            module_path: shape.module_path,
        })
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
        for key in [
            "settings",
            "modelSettings",
            "output",
            "memory",
            "parameters",
        ] {
            nulls[key] = Value::Null;
        }
        let (ours, serde) = both(&nulls);
        assert_eq!(ours, serde);
        assert_eq!(ours.map(|a| a.output), Ok(None));
        let minimal = json!({"id": "a", "version": "1.0.0", "name": "A",
            "instructions": {"prompt": "p.p", "version": "^1"}, "capabilities": [], "tools": [],
            "modulePath": "a.ts"});
        let (ours, serde) = both(&minimal);
        assert!(ours.is_ok());
        assert_eq!(ours, serde);
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
