//! Rule 5: predicates (`when`, `exitCondition`) are well-formed Expr DSL (spec §1.4).

use super::context::Sink;
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, pointer};
use crate::flow::shape::operand_problem;
use serde_json::Value;

/// Where a predicate sits; picks one of the rule's three message forms.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Site<'a> {
    /// An outer edge's `when`.
    Edge(&'a str),
    /// A while loop's `exitCondition`.
    ExitCondition(&'a str),
    /// A loop body edge's `when`: loop id, edge id.
    BodyEdge(&'a str, &'a str),
}

impl Site<'_> {
    fn message(self, reason: &str) -> String {
        match self {
            Site::Edge(e) => format!("Edge \"{e}\" has an invalid predicate: {reason}"),
            Site::ExitCondition(l) => {
                format!("Loop node \"{l}\" has an invalid exitCondition: {reason}")
            }
            Site::BodyEdge(l, e) => {
                format!("Loop \"{l}\" body edge \"{e}\" has an invalid predicate: {reason}")
            }
        }
    }
}

const COMPARE: &[&str] = &["eq", "ne", "lt", "lte", "gt", "gte"];
const MEMBER: &[&str] = &["in", "notIn"];
const UNARY: &[&str] = &["exists", "notExists", "truthy", "falsy"];
const LOGIC: &[&str] = &["and", "or"];

/// Checks one predicate and every sub-expression, reporting every problem.
///
/// The walk uses an explicit stack: nesting depth costs heap, never call stack.
///
/// # Complexity
///
/// O(size of the expression) time and space.
pub(crate) fn check(out: &mut Sink, expr: &Value, at: &str, site: Site<'_>) {
    let mut stack: Vec<(&Value, String)> = vec![(expr, at.to_owned())];
    let report = |out: &mut Sink, at: &str, reason: String| {
        let mut issue = Issue::error(IssueCode::InvalidPredicate, at, site.message(&reason))
            .with_param("reason", reason);
        match site {
            Site::Edge(e) => issue = issue.with_param("edgeId", e),
            // `edgeId` holds the loop id for an exitCondition, as upstream does.
            Site::ExitCondition(l) => issue = issue.with_param("edgeId", l),
            Site::BodyEdge(l, e) => {
                issue = issue.with_param("edgeId", e).with_param("loopNodeId", l);
            }
        }
        out.push(issue);
    };
    while let Some((e, at)) = stack.pop() {
        let Some(obj) = e.as_object() else {
            report(
                out,
                &at,
                "expression must be an object with an \"op\"".into(),
            );
            continue;
        };
        let op = obj.get("op").and_then(Value::as_str).unwrap_or_default();
        let (allowed, operands): (&[&str], &[&str]) = if COMPARE.contains(&op) {
            (&["op", "left", "right"], &["left", "right"])
        } else if MEMBER.contains(&op) {
            (&["op", "value", "set"], &["value", "set"])
        } else if UNARY.contains(&op) {
            (&["op", "value"], &["value"])
        } else if LOGIC.contains(&op) {
            (&["op", "children"], &[])
        } else if op == "not" {
            (&["op", "child"], &[])
        } else {
            let shown = obj.get("op").map_or_else(
                || "undefined".to_owned(),
                |v| v.as_str().map_or_else(|| v.to_string(), str::to_owned),
            );
            let here = if obj.contains_key("op") {
                pointer::join(&at, &["op"])
            } else {
                at.clone()
            };
            report(out, &here, format!("unknown operator \"{shown}\""));
            continue;
        };
        for key in obj.keys() {
            if !allowed.contains(&key.as_str()) {
                report(
                    out,
                    &pointer::join(&at, &[key]),
                    format!("unexpected field \"{key}\" for operator \"{op}\""),
                );
            }
        }
        for name in operands {
            let here = pointer::join(&at, &[name]);
            match obj.get(*name) {
                None => report(
                    out,
                    &at,
                    format!("{name}: operand must be a {{literal}} or {{path}}"),
                ),
                Some(v) => {
                    if let Some(problem) = operand_problem(v) {
                        report(out, &here, format!("{name}: {problem}"));
                    }
                }
            }
        }
        if LOGIC.contains(&op) {
            match obj.get("children").and_then(Value::as_array) {
                Some(children) if !children.is_empty() => {
                    // Reverse, so the stack visits children in array order.
                    for (i, child) in children.iter().enumerate().rev() {
                        let mut p = pointer::join(&at, &["children"]);
                        pointer::push_index(&mut p, i);
                        stack.push((child, p));
                    }
                }
                _ => report(out, &at, format!("{op} requires at least one child")),
            }
        } else if op == "not" {
            match obj.get("child") {
                Some(child) => stack.push((child, pointer::join(&at, &["child"]))),
                None => report(out, &at, "not requires a child expression".into()),
            }
        }
    }
}
