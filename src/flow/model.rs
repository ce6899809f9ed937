//! A lenient view of a flow document, built in one iterative walk.
//!
//! Validation cannot use the strict [`wire`](super::wire) types: serde stops at the first
//! problem, and every rule must still run when some node is malformed. The view keeps each
//! node and edge as the raw [`Value`] plus what the rules need to find it again (its JSON
//! Pointer, its id when that is a string, its kind) and groups them into scopes: the outer
//! flow and one scope per loop body, at any depth.

use crate::diagnostics::pointer;
use serde_json::Value;
use std::rc::Rc;

/// The kind of a node, read from `kind` (and `loopKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Agent,
    While,
    Foreach,
    /// `kind: "loop"` with a missing or unknown `loopKind`.
    Loop,
    Fanout,
    Subgraph,
    /// Not an object, or `kind` missing or unknown.
    Unknown,
}

impl Kind {
    fn of(node: &Value) -> Kind {
        match node.get("kind").and_then(Value::as_str) {
            Some("tool") => Kind::Tool,
            Some("agent") => Kind::Agent,
            Some("loop") => match node.get("loopKind").and_then(Value::as_str) {
                Some("while") => Kind::While,
                Some("foreach") => Kind::Foreach,
                _ => Kind::Loop,
            },
            Some("fanout") => Kind::Fanout,
            Some("subgraph") => Kind::Subgraph,
            _ => Kind::Unknown,
        }
    }

    pub(crate) fn is_loop(self) -> bool {
        matches!(self, Kind::While | Kind::Foreach | Kind::Loop)
    }

    pub(crate) fn is_leaf(self) -> bool {
        matches!(self, Kind::Tool | Kind::Agent)
    }
}

/// One node, at any depth.
#[derive(Debug)]
pub(crate) struct NodeView<'a> {
    pub value: &'a Value,
    /// Where it sits; see [`NodeView::pointer`].
    pub at: ItemAt,
    /// The id when it is a non-empty string.
    pub id: Option<&'a str>,
    pub kind: Kind,
    /// Index of the scope holding the node's body, for loops with a body object.
    pub body_scope: Option<usize>,
}

impl NodeView<'_> {
    /// The node's pointer, relative to the flow document. Built on demand: pointers are
    /// needed only for issues, and building one per node dominated validation time.
    pub(crate) fn pointer(&self) -> String {
        self.at.pointer()
    }
}

/// Where a node or edge sits: the pointer of the array holding it (shared by its siblings)
/// and its position there. Its own pointer is built only when an issue needs it.
#[derive(Debug, Clone)]
pub(crate) struct ItemAt {
    pub array: Rc<str>,
    pub position: usize,
}

impl ItemAt {
    pub(crate) fn pointer(&self) -> String {
        let mut p = String::with_capacity(self.array.len() + 6);
        p.push_str(&self.array);
        pointer::push_index(&mut p, self.position);
        p
    }
}

/// One edge of a scope.
#[derive(Debug)]
pub(crate) struct EdgeView<'a> {
    pub value: &'a Value,
    /// Where it sits; see [`EdgeView::pointer`].
    at: ItemAt,
    pub id: Option<&'a str>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    /// `when` and `policy`, read once here: later passes then touch only this view, not
    /// the document's scattered maps.
    pub when: Option<&'a Value>,
    pub policy: Option<&'a Value>,
}

impl EdgeView<'_> {
    /// The edge's pointer, relative to the flow document, built on demand.
    pub(crate) fn pointer(&self) -> String {
        self.at.pointer()
    }
}

/// The outer flow, or one loop body.
#[derive(Debug)]
pub(crate) struct ScopeView<'a> {
    /// The loop node owning this body (`None` for the outer flow).
    pub owner: Option<usize>,
    /// Pointer of the object holding `nodes` and `edges`.
    pub pointer: String,
    /// Node indexes (into [`FlowView::nodes`]) of this scope, in array order.
    pub nodes: Vec<usize>,
    /// Whether the scope has a `nodes` array at all; without one, edge endpoints cannot be
    /// judged (the shape check reports the missing array).
    pub has_nodes: bool,
    /// Whether the scope has an `edges` array at all (else the start-edge rules stay quiet).
    pub has_edges: bool,
    pub edges: Vec<EdgeView<'a>>,
}

/// Every node and scope of a flow.
#[derive(Debug)]
pub(crate) struct FlowView<'a> {
    /// All nodes, in the spec's walk order: depth-first pre-order over the outer nodes,
    /// descending into loop bodies only (§2).
    pub nodes: Vec<NodeView<'a>>,
    /// The outer scope first, then one scope per loop body, in walk order.
    pub scopes: Vec<ScopeView<'a>>,
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn edges_of<'a>(holder: &'a Value, holder_pointer: &str) -> Vec<EdgeView<'a>> {
    let Some(edges) = holder.get("edges").and_then(Value::as_array) else {
        return Vec::new();
    };
    let array: Rc<str> = Rc::from(pointer::join(holder_pointer, &["edges"]));
    edges
        .iter()
        .enumerate()
        .map(|(i, e)| EdgeView {
            value: e,
            at: ItemAt {
                array: Rc::clone(&array),
                position: i,
            },
            id: non_empty_str(e.get("id")),
            from: non_empty_str(e.get("from")),
            to: non_empty_str(e.get("to")),
            when: e.get("when"),
            policy: e.get("policy"),
        })
        .collect()
}

impl<'a> FlowView<'a> {
    /// Walks `flow` (a flow document or an index flow entry) without recursion.
    ///
    /// # Complexity
    ///
    /// O(N + E) time and space for N nodes and E edges at all depths.
    pub(crate) fn build(flow: &'a Value) -> FlowView<'a> {
        let mut view = FlowView {
            nodes: Vec::new(),
            scopes: vec![ScopeView {
                owner: None,
                pointer: String::new(),
                nodes: Vec::new(),
                has_nodes: flow.get("nodes").is_some_and(Value::is_array),
                has_edges: flow.get("edges").is_some_and(Value::is_array),
                edges: edges_of(flow, ""),
            }],
        };
        // Each frame: the node array still to walk, the next position, its scope and the
        // pointer of that array. Pushing a body's frame above the rest of its parent's array
        // gives the pre-order walk of the spec.
        let mut stack: Vec<(&'a [Value], usize, usize, Rc<str>)> = Vec::new();
        if let Some(nodes) = flow.get("nodes").and_then(Value::as_array) {
            stack.push((nodes.as_slice(), 0, 0, Rc::from("/nodes")));
        }
        while let Some((nodes, at, scope, array_pointer)) = stack.pop() {
            let Some(node) = nodes.get(at) else { continue };
            stack.push((nodes, at + 1, scope, Rc::clone(&array_pointer)));
            let kind = Kind::of(node);
            let index = view.nodes.len();
            let mut body_scope = None;
            if kind.is_loop()
                && let Some(body) = node.get("body").filter(|b| b.is_object())
            {
                let mut body_pointer = array_pointer.to_string();
                pointer::push_index(&mut body_pointer, at);
                pointer::push(&mut body_pointer, "body");
                body_scope = Some(view.scopes.len());
                view.scopes.push(ScopeView {
                    owner: Some(index),
                    pointer: body_pointer.clone(),
                    nodes: Vec::new(),
                    has_nodes: body.get("nodes").is_some_and(Value::is_array),
                    has_edges: body.get("edges").is_some_and(Value::is_array),
                    edges: edges_of(body, &body_pointer),
                });
                if let Some(body_nodes) = body.get("nodes").and_then(Value::as_array) {
                    let new_scope = view.scopes.len() - 1;
                    stack.push((
                        body_nodes.as_slice(),
                        0,
                        new_scope,
                        Rc::from(pointer::join(&body_pointer, &["nodes"])),
                    ));
                }
            }
            view.nodes.push(NodeView {
                value: node,
                at: ItemAt {
                    array: array_pointer,
                    position: at,
                },
                id: non_empty_str(node.get("id")),
                kind,
                body_scope,
            });
            if let Some(s) = view.scopes.get_mut(scope) {
                s.nodes.push(index);
            }
        }
        view
    }

    /// The loop node owning scope `scope`, when it is a body.
    pub(crate) fn owner(&self, scope: usize) -> Option<&NodeView<'a>> {
        self.scopes
            .get(scope)
            .and_then(|s| s.owner)
            .and_then(|i| self.nodes.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walk_is_pre_order_into_loop_bodies() {
        let flow = json!({"nodes": [
            {"id": "a", "kind": "tool"},
            {"id": "l", "kind": "loop", "loopKind": "foreach", "body": {
                "nodes": [{"id": "l2", "kind": "loop", "loopKind": "while",
                           "body": {"nodes": [{"id": "x"}], "edges": []}},
                          {"id": "y"}],
                "edges": [{"id": "be", "from": "$loop-start", "to": "l2"}]}},
            {"id": "b", "kind": "fanout"}
        ], "edges": [{"id": "e", "from": "$start", "to": "a"}]});
        let view = FlowView::build(&flow);
        let ids: Vec<_> = view.nodes.iter().map(|n| n.id.unwrap_or("?")).collect();
        assert_eq!(ids, ["a", "l", "l2", "x", "y", "b"]);
        assert_eq!(view.scopes.len(), 3);
        assert_eq!(view.scopes[1].pointer, "/nodes/1/body");
        assert_eq!(view.scopes[2].pointer, "/nodes/1/body/nodes/0/body");
        assert_eq!(
            view.nodes[3].pointer(),
            "/nodes/1/body/nodes/0/body/nodes/0"
        );
        assert_eq!(view.scopes[1].edges[0].pointer(), "/nodes/1/body/edges/0");
        let outer: Vec<_> = view.scopes[0]
            .nodes
            .iter()
            .map(|&i| view.nodes[i].id)
            .collect();
        assert_eq!(outer, [Some("a"), Some("l"), Some("b")]);
        assert_eq!(view.owner(2).and_then(|n| n.id), Some("l2"));
    }
}
