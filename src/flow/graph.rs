//! Graph rules: edge references (rules 4 and 17b), start edges (15 and 17a), cycles (16 and
//! 17c) and, beyond upstream, reachability warnings, with `petgraph`.
//!
//! Each scope (the outer flow, each loop body) becomes one `petgraph::Graph` whose nodes are
//! the scope's nodes plus its two sentinels. Every walk is iterative (`kosaraju_scc`, `Bfs`),
//! so a 100,000-node chain costs heap, never call stack.

use super::context::Sink;
use super::model::{EdgeView, FlowView, NodeView, ScopeView};
use super::rules::first_index;
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Severity, pointer};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, IntoNeighbors, Reversed, Visitable};
use std::collections::{HashMap, HashSet};

/// One scope as a graph: node `i < n` is the scope's `i`-th node; `n` and `n + 1` are its
/// entry and exit sentinels.
struct ScopeGraph {
    graph: DiGraph<(), ()>,
    n: usize,
    self_loops: HashSet<usize>,
    has_start_edge: bool,
    has_end_edge: bool,
}

/// Runs the graph rules over every scope, outer flow first, then loop bodies in walk order.
///
/// # Complexity
///
/// O(N + E) time and space for N nodes and E edges over all scopes: one pass to build each
/// graph, one Kosaraju SCC pass, one breadth-first search per cyclic component restricted
/// to that component, and two breadth-first searches for reachability.
pub(crate) fn check(out: &mut Sink, view: &FlowView<'_>, flow_id: &str) {
    for s in 0..view.scopes.len() {
        check_scope(out, view, s, flow_id);
    }
}

fn check_scope(out: &mut Sink, view: &FlowView<'_>, s: usize, flow_id: &str) {
    let Some(scope) = view.scopes.get(s) else {
        return;
    };
    let owner = view.owner(s);
    let loop_id = owner.and_then(|o| o.id).unwrap_or_default();
    let (start, end) = if owner.is_some() {
        ("$loop-start", "$loop-end")
    } else {
        ("$start", "$end")
    };
    let ids = first_index(view, s);
    let g = build_graph(out, scope, owner, &ids, (start, end), loop_id);
    start_end_rules(out, scope, owner, &g, flow_id, loop_id);
    cycles(out, view, s, &g, flow_id, loop_id);
    reachability(out, view, s, &g, &ids, start, end);
}

/// Rules 4 and 17b while the scope's graph is built: an edge endpoint that names no node of
/// the scope; beyond upstream, `start → end` edges and repeated parallel edges (warnings).
fn build_graph(
    out: &mut Sink,
    scope: &ScopeView<'_>,
    owner: Option<&NodeView<'_>>,
    ids: &HashMap<&str, usize>,
    (start, end): (&str, &str),
    loop_id: &str,
) -> ScopeGraph {
    let n = scope.nodes.len();
    let mut g = ScopeGraph {
        graph: DiGraph::with_capacity(n + 2, scope.edges.len()),
        n,
        self_loops: HashSet::new(),
        has_start_edge: false,
        has_end_edge: false,
    };
    for _ in 0..n + 2 {
        g.graph.add_node(());
    }
    let mut pairs: HashSet<(usize, usize)> = HashSet::with_capacity(scope.edges.len());
    for e in &scope.edges {
        if e.from == Some(start) {
            g.has_start_edge = true;
        }
        let from = endpoint(e.from, start, n, ids);
        let to = endpoint(e.to, end, n + 1, ids);
        for (name, unknown) in [("from", from), ("to", to)] {
            if let (Err(id), true) = (unknown, scope.has_nodes) {
                out.push(unknown_endpoint(e, name, id, owner.map(|_| loop_id)));
            }
        }
        let (Ok(Some(from)), Ok(Some(to))) = (from, to) else {
            continue;
        };
        if to == n + 1 {
            g.has_end_edge = true;
        }
        redundant_edge(out, e, (from, to), (n, n + 1), &mut pairs, (start, end));
        if from == to {
            g.self_loops.insert(from);
        }
        g.graph
            .add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
    }
    g
}

/// The graph node of an edge endpoint: `sentinel_index` for the scope's sentinel, a node's
/// index, `None` when the edge has no such endpoint, or the id that names no node.
fn endpoint<'a>(
    name: Option<&'a str>,
    sentinel: &str,
    sentinel_index: usize,
    ids: &HashMap<&str, usize>,
) -> Result<Option<usize>, &'a str> {
    match name {
        Some(id) if id == sentinel => Ok(Some(sentinel_index)),
        Some(id) => ids.get(id).map(|&i| Some(i)).ok_or(id),
        None => Ok(None),
    }
}

/// Rule 4 (or 17b inside the body of loop `loop_id`): edge `e`'s `endpoint` names `id`, no
/// node of its scope.
fn unknown_endpoint(e: &EdgeView<'_>, endpoint: &str, id: &str, loop_id: Option<&str>) -> Issue {
    let edge_id = e.id.unwrap_or_default();
    let (code, message) = match loop_id {
        None => (
            IssueCode::UnknownNodeReference,
            format!("Edge \"{edge_id}\" {endpoint} unknown node \"{id}\""),
        ),
        Some(loop_id) => (
            IssueCode::LoopBodyUnknownNodeReference,
            format!("Loop \"{loop_id}\" body edge \"{edge_id}\" {endpoint} unknown node \"{id}\""),
        ),
    };
    Issue::error(code, pointer::join(&e.pointer(), &[endpoint]), message)
        .with_param("edgeId", edge_id)
        .with_param("endpoint", endpoint)
        .with_param("referencedId", id)
}

/// Beyond upstream (warnings): edge `e`, from graph node `from` to `to`, goes straight from
/// the scope's start to its end (graph nodes `sentinels`), or repeats an edge of `pairs`
/// (to which it is added).
fn redundant_edge(
    out: &mut Sink,
    e: &EdgeView<'_>,
    (from, to): (usize, usize),
    sentinels: (usize, usize),
    pairs: &mut HashSet<(usize, usize)>,
    (start, end): (&str, &str),
) {
    let edge_id = e.id.unwrap_or_default();
    if (from, to) == sentinels {
        out.push(
            Issue::warning(
                IssueCode::StartToEndEdge,
                e.pointer(),
                format!(
                    "Edge \"{edge_id}\" goes straight from {start} to {end}: it runs nothing; remove it"
                ),
            )
            .with_param("edgeId", edge_id),
        );
    }
    if !pairs.insert((from, to)) {
        out.push(
            Issue::warning(
                IssueCode::DuplicateParallelEdge,
                e.pointer(),
                format!(
                    "Edge \"{edge_id}\" repeats an earlier edge from \"{}\" to \"{}\"; \
                     merge them (combine their predicates with `or`)",
                    e.from.unwrap_or_default(),
                    e.to.unwrap_or_default()
                ),
            )
            .with_param("edgeId", edge_id),
        );
    }
}

/// Rules 15 and 17a (a scope with edges needs one from its start), and a loop body's missing
/// edge to `$loop-end` (a warning).
fn start_end_rules(
    out: &mut Sink,
    scope: &ScopeView<'_>,
    owner: Option<&NodeView<'_>>,
    g: &ScopeGraph,
    flow_id: &str,
    loop_id: &str,
) {
    if !g.has_start_edge && scope.has_edges {
        match owner {
            None => out.push(Issue::error(
                IssueCode::MissingStartEdge,
                pointer::join(&scope.pointer, &["edges"]),
                format!("Flow \"{flow_id}\" has no edge originating at $start"),
            )),
            Some(o) => out.push(
                Issue::error(
                    IssueCode::LoopBodyMissingStartEdge,
                    pointer::join(&scope.pointer, &["edges"]),
                    format!("Loop node \"{loop_id}\" body has no edge originating at $loop-start"),
                )
                .with_param("loopNodeId", o.id.unwrap_or_default()),
            ),
        }
    }
    if owner.is_some() && !g.has_end_edge && scope.has_edges {
        out.push(
            Issue::warning(
                IssueCode::LoopBodyMissingEndEdge,
                pointer::join(&scope.pointer, &["edges"]),
                format!(
                    "Loop node \"{loop_id}\" body has no edge to $loop-end: no iteration has an output, \
                     so every iteration fails its outputSchema"
                ),
            )
            .with_param("loopNodeId", loop_id),
        );
    }
}

/// Rules 16 and 17c: one issue per cyclic strongly connected component.
fn cycles(
    out: &mut Sink,
    view: &FlowView<'_>,
    s: usize,
    g: &ScopeGraph,
    flow_id: &str,
    loop_id: &str,
) {
    let Some(scope) = view.scopes.get(s) else {
        return;
    };
    let mut sccs: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g.graph)
        .into_iter()
        .map(|c| c.into_iter().map(NodeIndex::index).collect::<Vec<_>>())
        .filter(|c| c.len() > 1 || c.first().is_some_and(|i| g.self_loops.contains(i)))
        .collect();
    // Deterministic order: by the first declared node of each component.
    for c in &mut sccs {
        c.sort_unstable();
    }
    sccs.sort_unstable_by_key(|c| c.first().copied());
    // Scratch reused by every component: membership stamp and BFS parents.
    let mut stamp = vec![usize::MAX; g.n + 2];
    let mut parent = vec![usize::MAX; g.n + 2];
    for (k, c) in sccs.iter().enumerate() {
        for &i in c {
            if let Some(slot) = stamp.get_mut(i) {
                *slot = k;
            }
        }
        let Some(&root) = c.first() else { continue };
        let path = witness(g, root, k, &stamp, &mut parent);
        let names: Vec<&str> = path
            .iter()
            .map(|&i| {
                scope
                    .nodes
                    .get(i)
                    .and_then(|&n| view.nodes.get(n))
                    .and_then(|n| n.id)
                    .unwrap_or_default()
            })
            .collect();
        let pointers: Vec<String> = path
            .iter()
            .take(path.len().saturating_sub(1))
            .filter_map(|&i| scope.nodes.get(i).and_then(|&n| view.nodes.get(n)))
            .map(|n| n.pointer())
            .collect();
        let at = pointers
            .first()
            .cloned()
            .unwrap_or_else(|| scope.pointer.clone());
        let shown = names.join(" → ");
        let issue = match view.owner(s) {
            None => Issue::error(
                IssueCode::CycleDetected,
                at,
                format!("Flow \"{flow_id}\" contains a cycle: {shown}"),
            ),
            Some(_) => Issue::error(
                IssueCode::LoopBodyCycleDetected,
                at,
                format!("Loop node \"{loop_id}\" body contains a cycle: {shown}"),
            )
            .with_param("loopNodeId", loop_id),
        };
        out.push(
            issue
                .with_param("cycle", names)
                .with_param("nodes", pointers),
        );
    }
}

/// A shortest cycle through `root` inside component `k`: `[root, …, root]`.
fn witness(
    g: &ScopeGraph,
    root: usize,
    k: usize,
    stamp: &[usize],
    parent: &mut [usize],
) -> Vec<usize> {
    if g.self_loops.contains(&root) {
        return vec![root, root];
    }
    let mut queue = std::collections::VecDeque::from([root]);
    let mut touched = vec![root];
    if let Some(p) = parent.get_mut(root) {
        *p = root;
    }
    let mut last = None;
    'bfs: while let Some(u) = queue.pop_front() {
        for v in g
            .graph
            .neighbors_directed(NodeIndex::new(u), Direction::Outgoing)
        {
            let v = v.index();
            if stamp.get(v) != Some(&k) {
                continue;
            }
            if v == root {
                last = Some(u);
                break 'bfs;
            }
            if parent.get(v) == Some(&usize::MAX) {
                if let Some(p) = parent.get_mut(v) {
                    *p = u;
                }
                touched.push(v);
                queue.push_back(v);
            }
        }
    }
    let mut path = vec![root];
    let mut at = last;
    while let Some(u) = at {
        if u == root {
            break;
        }
        path.push(u);
        at = parent.get(u).copied();
    }
    path.push(root);
    // `path` is root, u_k, …, u_1, root; the cycle runs the other way.
    path.reverse();
    for t in touched {
        if let Some(p) = parent.get_mut(t) {
            *p = usize::MAX;
        }
    }
    path
}

/// Beyond upstream: nodes the entry never reaches, and nodes that never reach the exit.
fn reachability(
    out: &mut Sink,
    view: &FlowView<'_>,
    s: usize,
    g: &ScopeGraph,
    ids: &std::collections::HashMap<&str, usize>,
    start: &str,
    end: &str,
) {
    let Some(scope) = view.scopes.get(s) else {
        return;
    };
    let n = g.n;
    let named = |local: usize| {
        let node = scope.nodes.get(local).and_then(|&i| view.nodes.get(i))?;
        // Unnamed nodes and later duplicates have no edges of their own; other rules say so.
        let id = node.id?;
        (ids.get(id) == Some(&local)).then_some((id, node))
    };
    if g.has_start_edge {
        let seen = reached(&g.graph, NodeIndex::new(n), n + 2);
        for local in (0..n).filter(|&i| !seen.get(i).copied().unwrap_or(true)) {
            if let Some((id, node)) = named(local) {
                out.push(
                    Issue::new(
                        Severity::Warning,
                        IssueCode::NodeUnreachable,
                        node.pointer(),
                        format!(
                            "Node \"{id}\" is unreachable from {start}: no path of edges leads to it, \
                             so it never runs; add an edge to it or remove it"
                        ),
                    )
                    .with_param("nodeId", id),
                );
            }
        }
    }
    if g.has_end_edge {
        let seen = reached(Reversed(&g.graph), NodeIndex::new(n + 1), n + 2);
        for local in (0..n).filter(|&i| !seen.get(i).copied().unwrap_or(true)) {
            if let Some((id, node)) = named(local) {
                out.push(
                    Issue::new(
                        Severity::Warning,
                        IssueCode::NodeCannotReachEnd,
                        node.pointer(),
                        format!(
                            "Node \"{id}\" has no path to {end}: its output never reaches the {}; \
                             add an edge from it or remove it",
                            if end == "$end" {
                                "run's end"
                            } else {
                                "iteration's end"
                            }
                        ),
                    )
                    .with_param("nodeId", id),
                );
            }
        }
    }
}

/// Which of the `len` nodes a breadth-first search of `graph` from `start` reaches (iterative).
fn reached<G>(graph: G, start: NodeIndex, len: usize) -> Vec<bool>
where
    G: IntoNeighbors<NodeId = NodeIndex> + Visitable<NodeId = NodeIndex>,
{
    let mut seen = vec![false; len];
    let mut bfs = Bfs::new(graph, start);
    while let Some(x) = bfs.next(graph) {
        if let Some(slot) = seen.get_mut(x.index()) {
            *slot = true;
        }
    }
    seen
}
