//! Flow validation: the flow model, every graph rule of `shared/spec/flows.md` §2, every
//! violation in one pass.
//!
//! Upstream's loader (`loadFlow`) checks a flow against `flow.schema.json` (stage 1) and then
//! runs 17 semantic rules, stopping at the first failure (stage 2). [`validate_flow`] runs
//! the structural checks and all 17 rules together and reports **every** violation, each with
//! the rule's code and message template and an RFC 6901 pointer to the offending value.
//!
//! Beyond upstream it also reports:
//!
//! - as warnings: a node unreachable from `$start` (it never runs; reported only when some
//!   edge leaves `$start`, else `missing-start-edge` says it all), a node with no path to
//!   `$end` (reported only when some edge reaches `$end`: a flow without one is valid), an
//!   edge `$start → $end`, parallel duplicate edges (same `from` and `to`), a loop body with
//!   no edge to `$loop-end`; the same checks apply inside loop bodies with the loop
//!   sentinels;
//! - as errors, configurable down to warnings with [`FlowOptions`]: a tool node `ref` or
//!   fanout `handler` naming no tool of the pack, an agent node `ref` naming no agent, and
//!   any subgraph node (the runtime refuses it at run start with `flow-unbound`).
//!
//! Cycles are found with `petgraph`'s iterative Kosaraju SCC pass and reported once per
//! cyclic component with a real cycle path (`a → b → a`), in linear time. Upstream's witness
//! search can loop forever (spec §7 question 1); this one cannot.
//!
//! The [`wire`] module holds the strict serde model of a valid flow.
//!
//! # Flows of a pack index
//!
//! Loading a pack index ([`crate::index::load`]) runs every check here but those of what a
//! flow names (tool, agent and handler references, subgraph nodes) on each flow entry, as
//! upstream's loader runs its schema and rules: a flow they find an error in is rejected at
//! load (so a pack with a cyclic flow does not register), and the warnings of the flows that
//! pass stay with the index ([`PackIndex::warnings`](crate::index::PackIndex::warnings)).
//! Deploy validation then checks what each typed flow names against the pack, and runs every
//! check on the JSON of a flow rejected at load ([`check_index_flow`]).
//!
//! # Order of issues
//!
//! [`validate_flow`] returns issues grouped by rule, in the spec's rule order, each rule's
//! issues in walk order. [`Report::finish`](crate::diagnostics::Report::finish) re-sorts them
//! by pointer, then code.

mod context;
mod expr;
mod graph;
mod model;
mod references;
mod rules;
mod shape;
pub mod wire;

pub use context::{FlowContext, FlowOptions};

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use context::Sink;
use serde_json::Value;

/// Most nodes (at all depths) a flow may have before validation refuses to look further.
pub const MAX_NODES: usize = 100_000;
/// Most edges (at all depths) a flow may have before validation refuses to look further.
pub const MAX_EDGES: usize = 1_000_000;
/// Most issues of one code listed for one flow; the rest are counted in one final issue of
/// that code at the flow ("N more issues of this kind in this flow"). A flow within
/// [`MAX_EDGES`] can repeat one edge a million times, and a million warnings took gigabytes.
pub const MAX_ISSUES_PER_FLOW: usize = 100;

/// Validates a flow document (the whole of `flow.schema.json` 1.9.0 plus every rule of spec
/// §2 and the checks beyond upstream listed in the [module docs](self)).
///
/// `base_pointer` is where the flow sits in the validated document (`""` for a flow file,
/// `/flows/3` inside a pack index); every issue's `instancePath` starts with it.
///
/// Never panics and never stops early. A flow over [`MAX_NODES`] or [`MAX_EDGES`] gets one
/// `flow-too-large` issue and no other check. Of each code, the first
/// [`MAX_ISSUES_PER_FLOW`] issues are listed and one more issue of that code, at
/// `base_pointer` with `params.omitted`, counts the rest.
///
/// # Returns
///
/// Every issue, grouped by rule in the spec's order (structural problems first), each group
/// in walk order. Empty when the flow is valid.
///
/// # Complexity
///
/// O(N + E + S) time and space for N nodes and E edges at every depth and S the total size
/// of predicates, mappings and schemas: every walk is iterative, the graph rules use
/// Kosaraju's SCC algorithm and breadth-first searches.
///
/// # Examples
///
/// ```
/// use runstart::flow::{validate_flow, FlowContext};
/// use serde_json::json;
///
/// let flow = json!({
///     "id": "acme.loop", "version": "1.0.0",
///     "nodes": [
///         {"id": "a", "kind": "tool", "ref": "acme.a"},
///         {"id": "d", "kind": "tool", "ref": "acme.d"},
///         {"id": "b", "kind": "tool", "ref": "acme.b"}
///     ],
///     "edges": [
///         {"id": "e0", "from": "$start", "to": "a"},
///         {"id": "e1", "from": "a", "to": "d"},
///         {"id": "e2", "from": "a", "to": "b"},
///         {"id": "e3", "from": "b", "to": "a"},
///         {"id": "e4", "from": "d", "to": "$end"}
///     ]
/// });
/// let issues = validate_flow(&flow, &FlowContext::new(), "");
/// assert_eq!(issues.len(), 1);
/// assert_eq!(issues[0].code(), "cycle-detected");
/// assert_eq!(issues[0].message(), "Flow \"acme.loop\" contains a cycle: a → b → a");
/// ```
pub fn validate_flow(flow: &Value, ctx: &FlowContext, base_pointer: &str) -> Vec<Issue> {
    run(flow, Some(ctx), base_pointer, false)
}

/// Every check of a flow; the reference checks only with a `ctx`.
fn run(flow: &Value, ctx: Option<&FlowContext>, base: &str, index_entry: bool) -> Vec<Issue> {
    let mut out = Sink::new(MAX_ISSUES_PER_FLOW);
    shape::top_level(&mut out, flow, index_entry);
    if !flow.is_object() {
        return unchecked_under(out, base);
    }
    let view = model::FlowView::build(flow);
    let edge_count: usize = view.scopes.iter().map(|s| s.edges.len()).sum();
    if view.nodes.len() > MAX_NODES || edge_count > MAX_EDGES {
        out.push(Issue::error(
            IssueCode::FlowTooLarge,
            "",
            format!(
                "the flow has {} nodes and {edge_count} edges; runstart checks flows of at most \
                 {MAX_NODES} nodes and {MAX_EDGES} edges: split it into smaller flows",
                view.nodes.len()
            ),
        ));
        return unchecked_under(out, base);
    }
    for n in &view.nodes {
        shape::node(&mut out, n.value, &n.pointer());
    }
    for (s, scope) in view.scopes.iter().enumerate() {
        for e in &scope.edges {
            shape::edge(&mut out, e.value, || e.pointer(), s > 0);
        }
    }
    let flow_id = flow.get("id").and_then(Value::as_str).unwrap_or_default();
    rules::node_ids(&mut out, &view);
    rules::edge_ids(&mut out, &view);
    rules::predicates(&mut out, &view);
    rules::edge_policies(&mut out, &view);
    rules::loops(&mut out, &view);
    rules::fanouts(&mut out, &view);
    rules::subgraphs(&mut out, &view);
    rules::mappings(&mut out, &view, flow);
    rules::flow_output(&mut out, flow);
    graph::check(&mut out, &view, flow_id);
    if let Some(ctx) = ctx {
        references::check_view(&view, ctx, &mut out);
    }
    finish(out, flow_id, base)
}

/// How the summary of a code's issues past [`MAX_ISSUES_PER_FLOW`] names where they are.
const SCOPE: &str = "in this flow";

/// The issues of a flow the rules could not look into (not an object, or too large), as
/// issues of the document at `base`; they carry no `flowId`.
fn unchecked_under(out: Sink, base: &str) -> Vec<Issue> {
    out.finish("", SCOPE)
        .into_iter()
        .map(|i| i.under(base))
        .collect()
}

/// The issues of flow `flow_id`, found relative to it, as issues of the document the flow
/// sits in at `base`.
fn finish(out: Sink, flow_id: &str, base: &str) -> Vec<Issue> {
    out.finish("", SCOPE)
        .into_iter()
        .map(|i| {
            // Upstream's semantic errors carry `flowId`; its schema errors do not (§2 rule 0).
            let mut i = if i.code() == IssueCode::SchemaValidationFailed
                || i.code() == IssueCode::FlowTooLarge
            {
                i
            } else {
                i.with_param("flowId", flow_id)
            };
            // Pointers carried in params (the nodes on a cycle) point into the same document
            // as the instance path.
            if let Some(Value::Array(nodes)) = i.params().get("nodes").cloned() {
                let nodes: Vec<Value> = nodes
                    .into_iter()
                    .map(|n| match n {
                        Value::String(p) => Value::String(format!("{base}{p}")),
                        other => other,
                    })
                    .collect();
                i = i.with_param("nodes", nodes);
            }
            i.under(base)
        })
        .collect()
}

/// The issues of one pack index flow entry `/flows/<i>`, checked as a flow document against
/// `ctx` (usually the pack's own tools and agents).
///
/// Index entries are open copies of flows (spec §1.9): the top-level fields the pack index
/// shape already checks are not reported again, and `kernelPayloadVersion` and `modulePath`
/// are allowed. An entry that is not an object has no issues here (the index shape check
/// reports it).
///
/// [`validate_index`](crate::validate::validate_index) runs these checks on every flow entry;
/// this is for callers that hold one entry.
///
/// # Examples
///
/// ```
/// use runstart::flow::{check_index_flow, FlowContext};
/// use serde_json::json;
///
/// let entry = json!({
///     "id": "f", "version": "1.0.0", "kernelPayloadVersion": 1, "modulePath": "flows/f.ts",
///     "nodes": [{"id": "a", "kind": "tool", "ref": "acme.gone"}],
///     "edges": [{"id": "e0", "from": "$start", "to": "a"}]
/// });
/// let issues = check_index_flow(&entry, 0, &FlowContext::new().with_tools(["acme.echo"]));
/// assert_eq!(issues[0].code(), "flow-unknown-tool");
/// assert_eq!(issues[0].instance_path(), "/flows/0/nodes/0/ref");
/// ```
pub fn check_index_flow(entry: &Value, i: usize, ctx: &FlowContext) -> Vec<Issue> {
    check_entry(entry, i, Some(ctx))
}

/// The issues of pack index flow entry `/flows/<i>` without the checks of what it names
/// (references and subgraph nodes): what loading runs before it types the entry, as
/// upstream's loader does. Its errors refuse the entry; its warnings stay with the index.
pub(crate) fn check_index_flow_rules(entry: &Value, i: usize) -> Vec<Issue> {
    check_entry(entry, i, None)
}

/// The reference and subgraph checks of flow entry `/flows/<i>`, typed at load (so
/// [`check_index_flow_rules`] found no error in it): the issues [`check_index_flow`] adds to
/// those, read from the typed flow.
pub(crate) fn check_typed_flow_references(
    flow: &wire::Flow,
    i: usize,
    ctx: &FlowContext,
) -> Vec<Issue> {
    let mut out = Sink::new(MAX_ISSUES_PER_FLOW);
    references::check_flow(flow, ctx, &mut out);
    if out.is_empty() {
        return Vec::new();
    }
    finish(out, &flow.id, &format!("/flows/{i}"))
}

fn check_entry(entry: &Value, i: usize, ctx: Option<&FlowContext>) -> Vec<Issue> {
    if !entry.is_object() {
        return Vec::new(); // the index shape check reported it
    }
    run(entry, ctx, &format!("/flows/{i}"), true)
}
