//! The pack index: typed model, loading from bytes, canonical form.
//!
//! [`load`] turns the bytes of an `index.json` into a [`PackIndex`], reporting every problem
//! it meets on the way as an [`Issue`](crate::diagnostics::Issue): invalid UTF-8, JSON syntax
//! (with line and column), an envelope `v` other than 1, and entry shapes (required fields,
//! types, closed objects). Entries whose shape is wrong are left out of the typed model and
//! stay in the report; everything else is kept, so later checks still see them.

mod canonical;
mod limits;
pub(crate) use canonical::utf16_cmp;
mod load;
mod parse;
pub(crate) use parse::release;
pub mod wire;

pub use canonical::{canonical_text, index_hash};
pub use limits::Limits;
pub(crate) use load::load_for_validation;
pub use load::{Loaded, load, load_with};

use serde_json::Value;
use wire::{Agent, Block, Env, Flow, Guardrail, Tool};

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
