//! Beyond upstream: what a flow names outside itself (tool and agent node `ref`s, fanout
//! `handler`s) checked against the pack, and subgraph nodes, which the runtime refuses at run
//! start.
//!
//! A flow's references are read from one of two forms: the lenient [`FlowView`] of a flow
//! document (a flow file, or an index entry rejected at load) or the typed
//! [`wire::Flow`](super::wire::Flow) loading made of an index entry. Both walks yield the same
//! [`Reference`]s in the same order, and [`check`] turns each into its issue, so the two forms
//! cannot report differently.

use super::context::{FlowContext, Sink};
use super::model::{FlowView, ItemAt, Kind};
use super::wire::{self, Node};
use crate::diagnostics::{Issue, IssueCode, pointer};
use serde_json::Value;
use std::rc::Rc;

/// One thing a flow names outside itself.
#[derive(Debug)]
pub(crate) enum Reference<'a, 'p> {
    /// A tool (`tool: true`) or agent node's non-empty `ref`.
    Node {
        tool: bool,
        node_id: &'a str,
        target: &'a str,
        at: &'p ItemAt,
    },
    /// Branch `branch` of a fanout node, whose non-empty `handler` names a tool.
    Handler {
        node_id: &'a str,
        branch: usize,
        branch_id: &'a str,
        handler: &'a str,
        at: &'p ItemAt,
    },
    /// A subgraph node, running flow `flow_id`.
    Subgraph {
        node_id: &'a str,
        flow_id: &'a str,
        at: &'p ItemAt,
    },
}

impl<'a, 'p> Reference<'a, 'p> {
    fn node(tool: bool, node_id: &'a str, target: &'a str, at: &'p ItemAt) -> Self {
        Reference::Node {
            tool,
            node_id,
            target,
            at,
        }
    }

    fn subgraph(node_id: &'a str, flow_id: &'a str, at: &'p ItemAt) -> Self {
        Reference::Subgraph {
            node_id,
            flow_id,
            at,
        }
    }
}

/// The issue `reference` raises under `ctx`, if any, into `out`.
pub(crate) fn check(reference: Reference<'_, '_>, ctx: &FlowContext, out: &mut Sink) {
    let options = &ctx.options;
    match reference {
        Reference::Node {
            tool,
            node_id,
            target,
            at,
        } => {
            let (known, code, what, label) = if tool {
                (
                    ctx.knows_tool(target),
                    IssueCode::FlowUnknownTool,
                    "tool",
                    "Tool",
                )
            } else {
                (
                    ctx.knows_agent(target),
                    IssueCode::FlowUnknownAgent,
                    "agent",
                    "Agent",
                )
            };
            if known == Some(false) {
                out.push(
                    Issue::new(
                        options.unknown_reference,
                        code,
                        pointer::join(&at.pointer(), &["ref"]),
                        format!(
                            "{label} node \"{node_id}\" runs {what} \"{target}\", which the pack \
                             does not define; add the {what} to the pack or fix the ref (the run \
                             would be refused with flow-unbound)"
                        ),
                    )
                    .with_param("nodeId", node_id)
                    .with_param("ref", target),
                );
            }
        }
        Reference::Handler {
            node_id,
            branch,
            branch_id,
            handler,
            at,
        } => {
            if ctx.knows_tool(handler) == Some(false) {
                let mut pointer = pointer::join(&at.pointer(), &["branches"]);
                pointer::push_index(&mut pointer, branch);
                pointer::push(&mut pointer, "handler");
                out.push(
                    Issue::new(
                        options.unknown_reference,
                        IssueCode::FlowUnknownTool,
                        pointer,
                        format!(
                            "Fanout node \"{node_id}\" branch \"{branch_id}\" runs tool \
                             \"{handler}\", which the pack does not define; add the tool to the \
                             pack or fix the handler (the run would be refused with flow-unbound)"
                        ),
                    )
                    .with_param("nodeId", node_id)
                    .with_param("ref", handler),
                );
            }
        }
        Reference::Subgraph {
            node_id,
            flow_id,
            at,
        } => out.push(
            Issue::new(
                options.subgraph,
                IssueCode::FlowUnbound,
                at.pointer(),
                format!(
                    "Subgraph node \"{node_id}\" (flow \"{flow_id}\") cannot run: the runtime \
                     refuses every subgraph node at run start (flow-unbound); inline the child \
                     flow's nodes instead"
                ),
            )
            .with_param("nodeId", node_id),
        ),
    }
}

fn non_empty(s: &str) -> Option<&str> {
    Some(s).filter(|s| !s.is_empty())
}

/// Every reference of a flow document's view, in walk order, each checked into `out`.
pub(crate) fn check_view(view: &FlowView<'_>, ctx: &FlowContext, out: &mut Sink) {
    for n in &view.nodes {
        let node_id = n.id.unwrap_or_default();
        let at = &n.at;
        match n.kind {
            Kind::Tool | Kind::Agent => {
                if let Some(target) = n
                    .value
                    .get("ref")
                    .and_then(Value::as_str)
                    .and_then(non_empty)
                {
                    let tool = n.kind == Kind::Tool;
                    check(Reference::node(tool, node_id, target, at), ctx, out);
                }
            }
            Kind::Fanout => {
                let branches = n.value.get("branches").and_then(Value::as_array);
                for (branch, b) in branches.into_iter().flatten().enumerate() {
                    let Some(handler) =
                        b.get("handler").and_then(Value::as_str).and_then(non_empty)
                    else {
                        continue;
                    };
                    let branch_id = b
                        .get("branchId")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let reference = Reference::Handler {
                        node_id,
                        branch,
                        branch_id,
                        handler,
                        at,
                    };
                    check(reference, ctx, out);
                }
            }
            Kind::Subgraph => {
                let flow_id = n
                    .value
                    .get("flowRef")
                    .and_then(|r| r.get("flowId"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                check(Reference::subgraph(node_id, flow_id, at), ctx, out);
            }
            _ => {}
        }
    }
}

/// Every reference of a typed flow, in the same walk order as [`check_view`] (depth-first
/// pre-order, into loop bodies), each checked into `out`. Iterative: loops nest to any depth.
pub(crate) fn check_flow(flow: &wire::Flow, ctx: &FlowContext, out: &mut Sink) {
    // Each frame: a node array still to walk, the next position, and the array's pointer.
    let mut stack: Vec<(&[Node], usize, Rc<str>)> =
        vec![(flow.nodes.as_slice(), 0, Rc::from("/nodes"))];
    while let Some((nodes, position, array)) = stack.pop() {
        let Some(node) = nodes.get(position) else {
            continue;
        };
        stack.push((nodes, position + 1, Rc::clone(&array)));
        let at = &ItemAt {
            array: Rc::clone(&array),
            position,
        };
        match node {
            Node::Tool(leaf) | Node::Agent(leaf) => {
                if let Some(target) = non_empty(&leaf.r#ref) {
                    let tool = matches!(node, Node::Tool(_));
                    let node_id = leaf.id.as_str();
                    check(Reference::node(tool, node_id, target, at), ctx, out);
                }
            }
            Node::Fanout(fanout) => {
                for (branch, b) in fanout.branches.iter().enumerate() {
                    if let Some(handler) = non_empty(&b.handler) {
                        let reference = Reference::Handler {
                            node_id: &fanout.id,
                            branch,
                            branch_id: &b.branch_id,
                            handler,
                            at,
                        };
                        check(reference, ctx, out);
                    }
                }
            }
            Node::Subgraph(subgraph) => {
                let flow_id = &subgraph.flow_ref.flow_id;
                check(Reference::subgraph(&subgraph.id, flow_id, at), ctx, out);
            }
            Node::Loop(looped) => {
                let body = match looped {
                    wire::LoopNode::While(w) => &w.body,
                    wire::LoopNode::Foreach(f) => &f.body,
                };
                let mut body_array = at.pointer();
                pointer::push(&mut body_array, "body");
                pointer::push(&mut body_array, "nodes");
                stack.push((body.nodes.as_slice(), 0, Rc::from(body_array)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_index_flow, check_index_flow_rules, check_typed_flow_references};
    use super::*;
    use serde_json::json;

    /// The typed walk reports what the walk of the document reports, at every depth.
    #[test]
    fn a_typed_flow_and_its_document_report_the_same_references() {
        let schema = json!({"type": "object"});
        let entry = json!({
            "id": "p.f", "version": "1.0.0", "kernelPayloadVersion": 1, "modulePath": "f.ts",
            "nodes": [
                {"id": "a", "kind": "tool", "ref": "gone.tool"},
                {"id": "l", "kind": "loop", "loopKind": "foreach", "maxIterations": 3,
                 "iterateOver": {"path": "runInput.items"}, "outputSchema": schema,
                 "body": {
                    "nodes": [
                        {"id": "w", "kind": "loop", "loopKind": "while", "maxIterations": 2,
                         "exitCondition": {"op": "exists", "value": {"path": "nodeOutputs.x"}},
                         "outputSchema": schema,
                         "body": {"nodes": [{"id": "x", "kind": "agent", "ref": "gone.agent"}],
                                  "edges": [{"id": "w0", "from": "$loop-start", "to": "x"},
                                            {"id": "w1", "from": "x", "to": "$loop-end"}]}},
                        {"id": "y", "kind": "tool", "ref": "known.tool"}
                    ],
                    "edges": [{"id": "b0", "from": "$loop-start", "to": "w"},
                              {"id": "b1", "from": "w", "to": "y"},
                              {"id": "b2", "from": "y", "to": "$loop-end"}]}},
                {"id": "f", "kind": "fanout", "convergence": "all-succeed", "branches": [
                    {"branchId": "one", "handler": "known.tool", "outputSchema": schema},
                    {"branchId": "two", "handler": "gone.handler", "outputSchema": schema}]},
                {"id": "s", "kind": "subgraph", "flowRef": {"flowId": "p.g", "version": "1.0.0"},
                 "inputMapping": {}, "outputSchema": schema, "convergence": "success-only"}
            ],
            "edges": [
                {"id": "e0", "from": "$start", "to": "a"},
                {"id": "e1", "from": "a", "to": "l"},
                {"id": "e2", "from": "l", "to": "f"},
                {"id": "e3", "from": "f", "to": "s"},
                {"id": "e4", "from": "s", "to": "$end"}
            ]
        });
        let ctx = FlowContext::new()
            .with_tools(["known.tool"])
            .with_agents(["known.agent"]);
        let rules = check_index_flow_rules(&entry, 2);
        assert!(rules.is_empty(), "{rules:#?}");
        let typed = wire::Flow::from_value(&entry).expect("a valid flow");
        let from_document = check_index_flow(&entry, 2, &ctx);
        let from_typed = check_typed_flow_references(&typed, 2, &ctx);
        assert_eq!(from_typed, from_document);
        let found: Vec<(&str, &str)> = from_typed
            .iter()
            .map(|i| (i.code().as_str(), i.instance_path()))
            .collect();
        assert_eq!(
            found,
            [
                ("flow-unknown-tool", "/flows/2/nodes/0/ref"),
                (
                    "flow-unknown-agent",
                    "/flows/2/nodes/1/body/nodes/0/body/nodes/0/ref"
                ),
                ("flow-unknown-tool", "/flows/2/nodes/2/branches/1/handler"),
                ("flow-unbound", "/flows/2/nodes/3"),
            ]
        );
        assert_eq!(from_typed[0].params()["flowId"], "p.f");
    }
}
