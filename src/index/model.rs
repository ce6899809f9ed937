//! The typed pack index and its entry lists, which loading fills in and every check reads.

use super::wire::{Agent, Block, Env, Flow, Guardrail, Tool};
use serde_json::Value;

/// One entry of a pack index list, with its position in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed<T> {
    /// Position in the list, as written in the file.
    pub index: usize,
    /// The entry.
    pub entry: T,
}

/// A loaded pack index (envelope `v: 1`).
///
/// Lists hold only the entries whose shape is valid, each with its position in the file, in
/// file order.
#[derive(Debug, Clone, PartialEq)]
pub struct PackIndex {
    /// The pack's id.
    pub pack_id: String,
    /// The pack's version.
    pub pack_version: String,
    /// This build of the pack.
    pub artifact_version: String,
    /// When the index was built (ISO 8601 UTC).
    pub published_at: String,
    /// Tools.
    pub tools: Vec<Indexed<Tool>>,
    /// Guardrails.
    pub guardrails: Vec<Indexed<Guardrail>>,
    /// Agents.
    pub agents: Vec<Indexed<Agent>>,
    /// Flows.
    pub flows: Vec<Indexed<Flow>>,
    /// Data blocks (absent in the file means none).
    pub blocks: Vec<Indexed<Block>>,
    /// Declared environment, when present and well-formed.
    pub env: Option<Env>,
    /// The entries left out of the lists above because their shape is wrong, with the
    /// issues that say why. A pack with any cannot be registered (nothing is dropped
    /// silently); deploy validation counts them as present, so a reference to one is not
    /// reported again as unresolvable.
    pub rejected: Vec<RejectedEntry>,
}

/// An entry of a pack index list whose shape is wrong, so it has no typed form.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedEntry {
    /// The list it is in (`"tools"`, `"blocks"`, …, see [`LISTS`]).
    pub list: &'static str,
    /// Position in the list, as written in the file.
    pub index: usize,
    /// Its `id`, when that is a string.
    pub id: Option<String>,
    /// Its `version`, when that is a string.
    pub version: Option<String>,
    /// The issues its shape check found (at least one).
    pub issues: Vec<crate::diagnostics::Issue>,
}

/// The five entry lists of a pack index, by their JSON names.
pub const LISTS: [&str; 5] = ["tools", "guardrails", "agents", "flows", "blocks"];

/// The kind name used in messages for the entries of list `list` (`tools` → `tool`).
pub fn kind_of_list(list: &str) -> &'static str {
    match list {
        "tools" => "tool",
        "guardrails" => "guardrail",
        "agents" => "agent",
        "flows" => "flow",
        _ => "block",
    }
}

/// Entries of `list` in a raw document, or an empty slice.
pub(crate) fn raw_list<'a>(document: &'a Value, list: &str) -> &'a [Value] {
    document
        .get(list)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
