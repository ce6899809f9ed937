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
/// Lists hold only the entries loading could type (their shape is valid and, for a flow, the
/// flow checks find no error), each with its position in the file, in file order.
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
    /// The entries left out of the lists above because their shape is wrong (or, for a flow,
    /// the flow checks find an error), with the issues that say why. A pack with any cannot be registered (nothing is dropped
    /// silently); deploy validation counts them as present, so a reference to one is not
    /// reported again as unresolvable.
    pub rejected: Vec<RejectedEntry>,
    /// Warnings the checks of typed entries found, in file order (today a flow's: a node
    /// that never runs, a node with no path to `$end`, …; see [`crate::flow`]). Deploy
    /// validation reports them; they do not keep a pack from registering.
    pub warnings: Vec<crate::diagnostics::Issue>,
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
    /// Its `modulePath`, when that is a string.
    pub module_path: Option<String>,
    /// Its `checkModulePath` (a guardrail's), when that is a string.
    pub check_module_path: Option<String>,
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

/// One entry of a list, typed or rejected at load: what a check that must see every entry of
/// the file walks (see [`PackIndex::in_file_order`]).
#[derive(Debug)]
pub(crate) enum Entry<'a, T> {
    /// An entry whose shape is valid.
    Typed(&'a Indexed<T>),
    /// An entry left out of the typed lists.
    Rejected(&'a RejectedEntry),
}

/// What the whole-file checks (sorting, duplicates, look-alike ids, module paths) read of an
/// entry, typed or rejected at load: its identity and its files, each when it is a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryHead<'a> {
    /// Position in the list, as written in the file.
    pub index: usize,
    pub id: Option<&'a str>,
    pub version: Option<&'a str>,
    /// `modulePath`.
    pub module_path: Option<&'a str>,
    /// `checkModulePath` (a guardrail's).
    pub check_module_path: Option<&'a str>,
}

impl EntryHead<'_> {
    /// The entry's file, for messages: its `modulePath`, else its `checkModulePath`.
    pub(crate) fn file(&self) -> Option<&str> {
        self.module_path.or(self.check_module_path)
    }
}

/// A list's name and the [`EntryHead`] of each of its entries, in file order.
pub(crate) type ListHeads<'a> = (&'static str, Vec<EntryHead<'a>>);

/// An entry type's [`EntryHead`].
trait Head {
    fn head(&self, index: usize) -> EntryHead<'_>;
}

fn head_of<'a>(
    index: usize,
    id: &'a str,
    version: Option<&'a str>,
    module_path: Option<&'a str>,
) -> EntryHead<'a> {
    EntryHead {
        index,
        id: Some(id),
        version,
        module_path,
        check_module_path: None,
    }
}

impl Head for Tool {
    fn head(&self, index: usize) -> EntryHead<'_> {
        head_of(
            index,
            &self.id,
            self.version.as_deref(),
            Some(&self.module_path),
        )
    }
}

impl Head for Guardrail {
    fn head(&self, index: usize) -> EntryHead<'_> {
        EntryHead {
            check_module_path: Some(&self.check_module_path),
            ..head_of(index, &self.id, None, None)
        }
    }
}

impl Head for Agent {
    fn head(&self, index: usize) -> EntryHead<'_> {
        head_of(
            index,
            &self.id,
            Some(&self.version),
            Some(&self.module_path),
        )
    }
}

impl Head for Flow {
    fn head(&self, index: usize) -> EntryHead<'_> {
        head_of(
            index,
            &self.id,
            Some(&self.version),
            self.module_path.as_deref(),
        )
    }
}

impl Head for Block {
    fn head(&self, index: usize) -> EntryHead<'_> {
        head_of(
            index,
            &self.id,
            Some(&self.version),
            Some(&self.module_path),
        )
    }
}

impl RejectedEntry {
    fn head(&self) -> EntryHead<'_> {
        EntryHead {
            index: self.index,
            id: self.id.as_deref(),
            version: self.version.as_deref(),
            module_path: self.module_path.as_deref(),
            check_module_path: self.check_module_path.as_deref(),
        }
    }
}

impl PackIndex {
    /// The [`EntryHead`] of every entry of list `list` (one of [`LISTS`]), typed or rejected,
    /// in file order.
    pub(crate) fn heads(&self, list: &str) -> Vec<EntryHead<'_>> {
        fn of<'a, T: Head>(
            index: &'a PackIndex,
            typed: &'a [Indexed<T>],
            list: &str,
        ) -> Vec<EntryHead<'a>> {
            index
                .in_file_order(typed, list)
                .into_iter()
                .map(|entry| match entry {
                    Entry::Typed(e) => e.entry.head(e.index),
                    Entry::Rejected(r) => r.head(),
                })
                .collect()
        }
        match list {
            "tools" => of(self, &self.tools, list),
            "guardrails" => of(self, &self.guardrails, list),
            "agents" => of(self, &self.agents, list),
            "flows" => of(self, &self.flows, list),
            _ => of(self, &self.blocks, list),
        }
    }

    /// [`PackIndex::heads`] of every list, in [`LISTS`] order: what the whole-pack checks
    /// share, built once.
    pub(crate) fn all_heads(&self) -> Vec<ListHeads<'_>> {
        LISTS.iter().map(|list| (*list, self.heads(list))).collect()
    }

    /// Every entry of list `list`, whose typed entries are `typed` (one of this index's
    /// lists), in file order: the typed ones merged with the ones rejected at load (both in
    /// file order, as loading makes them).
    pub(crate) fn in_file_order<'a, T>(
        &'a self,
        typed: &'a [Indexed<T>],
        list: &str,
    ) -> Vec<Entry<'a, T>> {
        let mut rejected = self.rejected.iter().filter(|r| r.list == list).peekable();
        let mut out = Vec::with_capacity(typed.len());
        for entry in typed {
            while let Some(r) = rejected.next_if(|r| r.index < entry.index) {
                out.push(Entry::Rejected(r));
            }
            out.push(Entry::Typed(entry));
        }
        out.extend(rejected.map(Entry::Rejected));
        out
    }
}

/// The document's JSON of `entry`, rejected at load: what the checks of an entry whose shape
/// failed read, having no typed form to read (the shape fallback).
pub(crate) fn rejected_json<'a>(document: &'a Value, entry: &RejectedEntry) -> Option<&'a Value> {
    raw_list(document, entry.list).get(entry.index)
}

/// Entries of `list` in a raw document, or an empty slice.
pub(crate) fn raw_list<'a>(document: &'a Value, list: &str) -> &'a [Value] {
    document
        .get(list)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn index_of(document: &Value) -> PackIndex {
        super::super::index_document(document, &mut crate::diagnostics::Report::new())
    }

    #[test]
    fn entries_come_back_in_file_order_typed_or_rejected() {
        let tool = |id: &str, path: &str| json!({"id": id, "version": "1.0.0", "input": {}, "output": {}, "modulePath": path});
        let document = json!({
            "tools": [
                {"id": "r0", "modulePath": 5, "checkModulePath": "c.ts"},
                tool("t1", "t1.ts"),
                7,
                tool("t3", "t3.ts"),
                {"id": "r4", "version": "2.0.0", "modulePath": "r4.ts"}
            ]
        });
        let index = index_of(&document);
        let order: Vec<(usize, bool)> = index
            .in_file_order(&index.tools, "tools")
            .iter()
            .map(|e| match e {
                Entry::Typed(t) => (t.index, true),
                Entry::Rejected(r) => (r.index, false),
            })
            .collect();
        assert_eq!(
            order,
            [(0, false), (1, true), (2, false), (3, true), (4, false)]
        );
        let heads = index.heads("tools");
        assert_eq!(heads.len(), 5);
        assert_eq!(heads[0].id, Some("r0"));
        assert_eq!(heads[0].module_path, None);
        assert_eq!(heads[0].file(), Some("c.ts"));
        assert_eq!(heads[1].version, Some("1.0.0"));
        assert_eq!(heads[1].file(), Some("t1.ts"));
        assert_eq!((heads[2].index, heads[2].id), (2, None));
        assert_eq!(heads[4].version, Some("2.0.0"));
        assert_eq!(
            rejected_json(&document, &index.rejected[1]),
            Some(&json!(7))
        );
    }
}
