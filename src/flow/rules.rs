//! Stage 2: the semantic rules of spec §2 that need no graph (1–3, 5–14), plus the
//! reference checks beyond upstream. Each reports every violation, in walk order.

use super::context::Sink;
use super::expr::{self, Site};
use super::model::{FlowView, Kind, NodeView};
use super::shape::{self, is_exact_version, is_integer, operand_problem};
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, pointer};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The four sentinels: never node ids.
pub(crate) const SENTINELS: [&str; 4] = ["$start", "$end", "$loop-start", "$loop-end"];

/// How a value reads in a `(got X)`: numbers as JavaScript prints them (`4`, not `4.0`),
/// strings quoted, a missing value as `undefined`.
pub(crate) fn got(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                // ok: |f| < 1e15 fits an i64 exactly
                format!("{}", f as i64)
            }
            _ => n.to_string(),
        },
        Some(other) => other.to_string(),
    }
}

fn js_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "object",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) | Value::Object(_) => "object",
    }
}

/// The pointer to `tokens` under `value` (at `at`), stopping at the deepest value that
/// exists: an issue about a missing field points at the object that lacks it, as Ajv's
/// `required` does, so every issue's pointer resolves in the document.
fn deepest(value: &Value, at: &str, tokens: &[&str]) -> String {
    let mut p = at.to_owned();
    let mut v = value;
    for t in tokens {
        match v.get(*t) {
            Some(next) => {
                pointer::push(&mut p, t);
                v = next;
            }
            None => break,
        }
    }
    p
}

fn id_of<'a>(n: &NodeView<'a>) -> &'a str {
    n.id.unwrap_or_default()
}

/// Rules 1 and 2: reserved and duplicate node ids, across every depth.
pub(crate) fn node_ids(out: &mut Sink, view: &FlowView<'_>) {
    for n in &view.nodes {
        if let Some(id) = n.id
            && SENTINELS.contains(&id)
        {
            out.push(
                Issue::error(
                    IssueCode::ReservedId,
                    pointer::join(&n.pointer(), &["id"]),
                    format!(
                        "Node id \"{id}\" is reserved as a flow sentinel and may not name a node"
                    ),
                )
                .with_param("nodeId", id),
            );
        }
    }
    let mut seen: HashSet<&str> = HashSet::with_capacity(view.nodes.len());
    for n in &view.nodes {
        if let Some(id) = n.id
            && !seen.insert(id)
        {
            out.push(
                Issue::error(
                    IssueCode::DuplicateNodeId,
                    pointer::join(&n.pointer(), &["id"]),
                    format!(
                        "Node id \"{id}\" is used more than once (across outer flow and loop bodies)"
                    ),
                )
                .with_param("nodeId", id),
            );
        }
    }
}

/// Rule 3: edge ids, outer edges first, then each body's in walk order.
pub(crate) fn edge_ids(out: &mut Sink, view: &FlowView<'_>) {
    let total = view.scopes.iter().map(|s| s.edges.len()).sum();
    let mut seen: HashSet<&str> = HashSet::with_capacity(total);
    for scope in &view.scopes {
        for e in &scope.edges {
            if let Some(id) = e.id
                && !seen.insert(id)
            {
                out.push(
                    Issue::error(
                        IssueCode::DuplicateEdgeId,
                        pointer::join(&e.pointer(), &["id"]),
                        format!(
                            "Edge id \"{id}\" is used more than once (across outer flow and loop bodies)"
                        ),
                    )
                    .with_param("edgeId", id),
                );
            }
        }
    }
}

/// Rule 5: every outer `when`, then per loop its `exitCondition` (while) and body `when`s.
pub(crate) fn predicates(out: &mut Sink, view: &FlowView<'_>) {
    for (s, scope) in view.scopes.iter().enumerate() {
        let owner = view.owner(s);
        if let Some(l) = owner
            && l.kind == Kind::While
            && let Some(exit) = l.value.get("exitCondition")
        {
            expr::check(
                out,
                exit,
                &pointer::join(&l.pointer(), &["exitCondition"]),
                Site::ExitCondition(id_of(l)),
            );
        }
        for e in &scope.edges {
            let Some(when) = e.when else {
                continue;
            };
            let edge_id = e.id.unwrap_or_default();
            let site = match owner {
                None => Site::Edge(edge_id),
                Some(l) => Site::BodyEdge(id_of(l), edge_id),
            };
            expr::check(out, when, &pointer::join(&e.pointer(), &["when"]), site);
        }
    }
    // A while loop whose `body` is not an object has no scope; its exitCondition still counts.
    for l in view
        .nodes
        .iter()
        .filter(|n| n.kind == Kind::While && n.body_scope.is_none())
    {
        if let Some(exit) = l.value.get("exitCondition") {
            expr::check(
                out,
                exit,
                &pointer::join(&l.pointer(), &["exitCondition"]),
                Site::ExitCondition(id_of(l)),
            );
        }
    }
}

/// Rule 6: edge policy values, outer edges only.
pub(crate) fn edge_policies(out: &mut Sink, view: &FlowView<'_>) {
    let Some(outer) = view.scopes.first() else {
        return;
    };
    for e in &outer.edges {
        let Some((policy_value, policy)) = e.policy.and_then(|p| Some((p, p.as_object()?))) else {
            continue;
        };
        let id = e.id.unwrap_or_default();
        let base = pointer::join(&e.pointer(), &["policy"]);
        let mut bad = |field: &str, reason: String| {
            let tokens: Vec<&str> = field.split('.').collect();
            let at = deepest(policy_value, &base, &tokens);
            out.push(
                Issue::error(
                    IssueCode::InvalidEdgePolicy,
                    at,
                    format!("Edge \"{id}\" has an invalid policy at {field}: {reason}"),
                )
                .with_param("edgeId", id)
                .with_param("field", field),
            );
        };
        if let Some(retry) = policy.get("retry").and_then(Value::as_object) {
            retry_policy(retry, &mut bad);
        }
        if let Some(t) = policy.get("timeoutMs") {
            timeout_policy(t, &mut bad);
        }
        if let Some(k) = policy.get("concurrencyKey") {
            concurrency_key_policy(k, &mut bad);
        }
        if let Some(p) = policy.get("priority") {
            priority_policy(p, &mut bad);
        }
    }
}

/// Rule 6's `retry`: `maxAttempts` an integer in [1, 10], delays non-negative integers, a
/// known `backoff`, and `maxDelayMs` when the backoff is exponential.
fn retry_policy(retry: &serde_json::Map<String, Value>, bad: &mut impl FnMut(&str, String)) {
    let attempts = retry.get("maxAttempts");
    match attempts {
        Some(a) if is_integer(a) => {
            if !a.as_f64().is_some_and(|n| (1.0..=10.0).contains(&n)) {
                bad(
                    "retry.maxAttempts",
                    format!("must be within [1, 10] (got {})", got(Some(a))),
                );
            }
        }
        _ => bad("retry.maxAttempts", "must be an integer".into()),
    }
    for field in ["delayMs", "maxDelayMs"] {
        if let Some(v) = retry.get(field) {
            if !(is_integer(v) && v.as_f64().is_some_and(|n| n >= 0.0)) {
                bad(
                    &format!("retry.{field}"),
                    format!("must be a non-negative integer (got {})", got(Some(v))),
                );
            } else if !shape::fits_u64(v) {
                // runstart's limit (a 64-bit count of ms); upstream sets none
                bad(
                    &format!("retry.{field}"),
                    format!("must be at most {} (got {})", u64::MAX, got(Some(v))),
                );
            }
        }
    }
    let backoff = retry.get("backoff");
    if let Some(b) = backoff
        && !matches!(b.as_str(), Some("fixed" | "linear" | "exponential"))
    {
        bad(
            "retry.backoff",
            format!(
                "must be one of \"fixed\" | \"linear\" | \"exponential\" (got {})",
                got(Some(b))
            ),
        );
    }
    if backoff.and_then(Value::as_str) == Some("exponential") && !retry.contains_key("maxDelayMs") {
        bad(
            "retry.maxDelayMs",
            "is required when retry.backoff is \"exponential\" (unbounded growth otherwise)".into(),
        );
    }
}

/// Rule 6's `timeoutMs`: an integer in [1, 3600000].
fn timeout_policy(t: &Value, bad: &mut impl FnMut(&str, String)) {
    let n = t.as_f64();
    if !is_integer(t) {
        bad(
            "timeoutMs",
            format!("must be an integer (got {})", got(Some(t))),
        );
    } else if n.is_some_and(|n| n < 1.0) {
        bad("timeoutMs", format!("must be >= 1 (got {})", got(Some(t))));
    } else if n.is_some_and(|n| n > 3_600_000.0) {
        bad(
            "timeoutMs",
            format!("must be <= 3600000 (1 hour cap; got {})", got(Some(t))),
        );
    }
}

/// Rule 6's `concurrencyKey`: a non-empty string of at most 256 printable ASCII characters.
fn concurrency_key_policy(k: &Value, bad: &mut impl FnMut(&str, String)) {
    match k.as_str() {
        None => bad("concurrencyKey", "must be a string".into()),
        Some("") => bad("concurrencyKey", "must not be empty".into()),
        Some(s) => {
            // Lengths are JavaScript's: UTF-16 code units.
            let len = s.encode_utf16().count();
            if len > 256 {
                bad(
                    "concurrencyKey",
                    format!("must be <= 256 chars (got {len})"),
                );
            }
            if !s.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
                bad(
                    "concurrencyKey",
                    "must contain only printable ASCII (0x20..0x7E)".into(),
                );
            }
        }
    }
}

/// Rule 6's `priority`: an integer in [-100, 100].
fn priority_policy(p: &Value, bad: &mut impl FnMut(&str, String)) {
    if !p.is_number() {
        bad("priority", format!("must be a number (got {})", js_type(p)));
    } else if !is_integer(p) {
        bad(
            "priority",
            format!("must be an integer (got {})", got(Some(p))),
        );
    } else if !p.as_f64().is_some_and(|n| (-100.0..=100.0).contains(&n)) {
        bad(
            "priority",
            format!("must be within [-100, 100] (got {})", got(Some(p))),
        );
    }
}

/// Rules 7, 8 and 10 for one loop node, and rule 9 for its output schema.
pub(crate) fn loops(out: &mut Sink, view: &FlowView<'_>) {
    for l in view.nodes.iter().filter(|n| n.kind.is_loop()) {
        let id = id_of(l);
        loop_max_iterations(out, l, id);
        loop_variant(out, l, id);
        loop_output_schema(out, l, id);
        loop_concurrency(out, l, id);
    }
}

/// Rule 7: `maxIterations` is an integer in [1, 10000].
fn loop_max_iterations(out: &mut Sink, l: &NodeView<'_>, id: &str) {
    let v = l.value;
    if let Some(m) = v.get("maxIterations") {
        let reason = if !is_integer(m) {
            Some("maxIterations must be an integer")
        } else if m.as_f64().is_some_and(|n| n < 1.0) {
            Some("maxIterations must be >= 1")
        } else if m.as_f64().is_some_and(|n| n > 10_000.0) {
            Some("maxIterations must be <= 10000")
        } else {
            None
        };
        if let Some(reason) = reason {
            out.push(
                Issue::error(
                    IssueCode::LoopInvalidMaxIterations,
                    pointer::join(&l.pointer(), &["maxIterations"]),
                    format!("Loop node \"{id}\": {reason} (got {})", got(Some(m))),
                )
                .with_param("loopNodeId", id)
                .with_param("value", m.clone()),
            );
        }
    }
}

/// Rule 8: a `while` loop has an exit condition and no `foreach` fields, and the reverse.
fn loop_variant(out: &mut Sink, l: &NodeView<'_>, id: &str) {
    let v = l.value;
    let has = |f: &str| v.get(f).is_some();
    let mut mismatch = |problem: &str, field: Option<&str>| {
        let at = field.map_or_else(|| l.pointer(), |f| pointer::join(&l.pointer(), &[f]));
        let kind = if l.kind == Kind::While {
            "while"
        } else {
            "foreach"
        };
        out.push(
            Issue::error(
                IssueCode::LoopVariantMismatch,
                at,
                format!("Loop node \"{id}\" (loopKind={kind}): {problem}"),
            )
            .with_param("loopNodeId", id)
            .with_param("problem", problem),
        );
    };
    match l.kind {
        Kind::While => {
            if !has("exitCondition") {
                mismatch("while-missing-exit-condition", None);
            }
            if has("iterateOver") {
                mismatch("while-has-iterate-over", Some("iterateOver"));
            }
            if has("concurrency") {
                mismatch("while-has-concurrency", Some("concurrency"));
            }
            if let Some(t) = v.get("evaluationTiming")
                && !matches!(t.as_str(), Some("before" | "after"))
            {
                mismatch(
                    "while-has-invalid-evaluation-timing",
                    Some("evaluationTiming"),
                );
            }
        }
        Kind::Foreach => {
            if !has("iterateOver") {
                mismatch("foreach-missing-iterate-over", None);
            }
            if has("exitCondition") {
                mismatch("foreach-has-exit-condition", Some("exitCondition"));
            }
            if has("evaluationTiming") {
                mismatch("foreach-has-evaluation-timing", Some("evaluationTiming"));
            }
        }
        _ => {}
    }
}

/// Rule 9: the loop's output schema compiles.
fn loop_output_schema(out: &mut Sink, l: &NodeView<'_>, id: &str) {
    let v = l.value;
    if let Some(schema) = v.get("outputSchema").filter(|s| s.is_object()) {
        let at = pointer::join(&l.pointer(), &["outputSchema"]);
        for problem in compile_output_schema(schema, &at) {
            out.push(
                Issue::error(
                    IssueCode::LoopInvalidOutputSchema,
                    problem.instance_path(),
                    format!(
                        "Loop node \"{id}\" outputSchema failed to compile: {}",
                        problem.message()
                    ),
                )
                .with_param("loopNodeId", id),
            );
        }
    }
}

/// Rule 10: a `foreach` loop's concurrency is an integer in [1, 32], at most its
/// `maxIterations`.
fn loop_concurrency(out: &mut Sink, l: &NodeView<'_>, id: &str) {
    let v = l.value;
    if l.kind == Kind::Foreach
        && let Some(c) = v.get("concurrency")
    {
        let max = v
            .get("maxIterations")
            .filter(|m| is_integer(m))
            .and_then(Value::as_f64);
        let n = c.as_f64();
        let problem = if !is_integer(c) {
            Some(("not-integer", "must be an integer".to_owned()))
        } else if n.is_some_and(|n| n < 1.0) {
            Some(("below-minimum", "must be >= 1".to_owned()))
        } else if n.is_some_and(|n| n > 32.0) {
            Some(("exceeds-cap", "must be <= 32 (safety cap)".to_owned()))
        } else if let (Some(n), Some(m)) = (n, max)
            && n > m
        {
            Some((
                "exceeds-max-iterations",
                format!("must be <= maxIterations ({})", got(v.get("maxIterations"))),
            ))
        } else {
            None
        };
        if let Some((reason, detail)) = problem {
            out.push(
                Issue::error(
                    IssueCode::LoopInvalidConcurrency,
                    pointer::join(&l.pointer(), &["concurrency"]),
                    format!(
                        "Loop node \"{id}\": concurrency {detail} (got {})",
                        got(Some(c))
                    ),
                )
                .with_param("loopNodeId", id)
                .with_param("reason", reason),
            );
        }
    }
}

/// Rule 11: fanout nodes at any depth.
pub(crate) fn fanouts(out: &mut Sink, view: &FlowView<'_>) {
    for f in view.nodes.iter().filter(|n| n.kind == Kind::Fanout) {
        let id = id_of(f);
        let mut bad = |at: String, field: &str, branch: Option<&str>, message: String| {
            let mut issue = Issue::error(IssueCode::InvalidFanoutNode, at, message)
                .with_param("fanoutNodeId", id)
                .with_param("field", field);
            if let Some(b) = branch {
                issue = issue.with_param("branchId", b);
            }
            out.push(issue);
        };
        let branches = f.value.get("branches").and_then(Value::as_array);
        if let Some(branches) = branches {
            fanout_branches(f, id, branches, &mut bad);
        }
        if let Some(c) = f.value.get("convergence")
            && !matches!(
                c.as_str(),
                Some("all-succeed" | "any-succeed" | "settle-all")
            )
        {
            bad(
                pointer::join(&f.pointer(), &["convergence"]),
                "convergence",
                None,
                format!(
                    "Fanout node \"{id}\": must be one of all-succeed | any-succeed | settle-all (got {})",
                    got(Some(c))
                ),
            );
        }
        if let Some(c) = f.value.get("concurrency") {
            fanout_concurrency(f, id, c, branches.map(Vec::len), &mut bad);
        }
    }
}

/// Rule 11's branches: at least two, each with a unique non-empty `branchId`, a handler and
/// an output schema that compiles.
fn fanout_branches(
    f: &NodeView<'_>,
    id: &str,
    branches: &[Value],
    bad: &mut impl FnMut(String, &str, Option<&str>, String),
) {
    if branches.len() < 2 {
        bad(
            pointer::join(&f.pointer(), &["branches"]),
            "branches",
            None,
            format!("Fanout node \"{id}\": must declare at least 2 branches"),
        );
    }
    let mut seen = HashSet::new();
    for (i, b) in branches.iter().enumerate() {
        let mut bp = pointer::join(&f.pointer(), &["branches"]);
        pointer::push_index(&mut bp, i);
        if !b.is_object() {
            continue; // the shape check reported it
        }
        let branch_id = b
            .get("branchId")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let Some(branch_id) = branch_id else {
            bad(
                deepest(b, &bp, &["branchId"]),
                "branch-id",
                None,
                format!(
                    "Fanout node \"{id}\": each branch must declare a non-empty string branchId"
                ),
            );
            continue;
        };
        if !seen.insert(branch_id) {
            bad(
                deepest(b, &bp, &["branchId"]),
                "branch-id",
                Some(branch_id),
                format!("Fanout node \"{id}\": duplicate branchId \"{branch_id}\" within fanout"),
            );
        }
        if b.get("handler")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            bad(
                deepest(b, &bp, &["handler"]),
                "branch-handler",
                Some(branch_id),
                format!(
                    "Fanout node \"{id}\": branch \"{branch_id}\" must declare a non-empty string handler"
                ),
            );
        }
        match b.get("outputSchema") {
            Some(schema) if schema.is_object() => {
                let at = pointer::join(&bp, &["outputSchema"]);
                for problem in compile_output_schema(schema, &at) {
                    bad(
                        problem.instance_path().to_owned(),
                        "branch-output-schema",
                        Some(branch_id),
                        format!(
                            "Fanout node \"{id}\" branch \"{branch_id}\" outputSchema failed to compile: {}",
                            problem.message()
                        ),
                    );
                }
            }
            _ => bad(
                deepest(b, &bp, &["outputSchema"]),
                "branch-output-schema",
                Some(branch_id),
                format!(
                    "Fanout node \"{id}\": branch \"{branch_id}\" must declare an outputSchema (typed escape contract)"
                ),
            ),
        }
    }
}

/// Rule 11's `concurrency`: an integer of at least 1 and at most the number of branches.
fn fanout_concurrency(
    f: &NodeView<'_>,
    id: &str,
    c: &Value,
    count: Option<usize>,
    bad: &mut impl FnMut(String, &str, Option<&str>, String),
) {
    let n = c.as_f64();
    let reason = if !is_integer(c) {
        Some(format!("must be an integer (got {})", got(Some(c))))
    } else if n.is_some_and(|n| n < 1.0) {
        Some(format!("must be >= 1 (got {})", got(Some(c))))
    } else if let (Some(n), Some(len)) = (n, count)
        && n > len as f64
    {
        Some(format!(
            "must be <= branches.length ({len}) — a fanout cannot request more concurrent workers than it has branches (got {})",
            got(Some(c))
        ))
    } else {
        None
    };
    if let Some(reason) = reason {
        bad(
            pointer::join(&f.pointer(), &["concurrency"]),
            "concurrency",
            None,
            format!("Fanout node \"{id}\": {reason}"),
        );
    }
}

/// Rule 12: subgraph nodes at any depth.
pub(crate) fn subgraphs(out: &mut Sink, view: &FlowView<'_>) {
    for s in view.nodes.iter().filter(|n| n.kind == Kind::Subgraph) {
        let mut node = SubgraphIssues {
            out: &mut *out,
            node: s,
            id: id_of(s),
        };
        node.flow_ref();
        node.input_mapping();
        node.output_schema();
        let c = s.value.get("convergence");
        if !matches!(
            c.and_then(Value::as_str),
            Some("success-only" | "settle-all")
        ) {
            node.bad(
                &["convergence"],
                "convergence",
                format!("must be one of success-only | settle-all (got {})", got(c)),
            );
        }
    }
}

/// Rule 12's issues for one subgraph node.
struct SubgraphIssues<'o, 'v> {
    out: &'o mut Sink,
    node: &'v NodeView<'v>,
    id: &'v str,
}

impl SubgraphIssues<'_, '_> {
    /// The pointer of `field` (a path of keys) in the node, or of its deepest part present.
    fn at(&self, field: &[&str]) -> String {
        deepest(self.node.value, &self.node.pointer(), field)
    }

    fn push(&mut self, at: String, field: &str, message: String) {
        self.out.push(
            Issue::error(IssueCode::InvalidSubgraphNode, at, message)
                .with_param("subgraphNodeId", self.id)
                .with_param("field", field),
        );
    }

    /// `reason` about the node's `path`, reported as `field`.
    fn bad(&mut self, path: &[&str], field: &str, reason: String) {
        let at = self.at(path);
        let message = format!("Subgraph node \"{}\": {reason}", self.id);
        self.push(at, field, message);
    }

    fn flow_ref(&mut self) {
        let Some(r) = self.node.value.get("flowRef").and_then(Value::as_object) else {
            return self.bad(&["flowRef"], "flowRef", "must be an object".into());
        };
        if r.get("flowId")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            let reason = "must be a non-empty string".into();
            self.bad(&["flowRef", "flowId"], "flowRef.flowId", reason);
        }
        let reason = match r.get("version").and_then(Value::as_str) {
            None | Some("") => "must be a non-empty string".into(),
            Some(v) if !is_exact_version(v) => {
                format!("must be an exact semver (no ranges) — got \"{v}\"")
            }
            Some(_) => return,
        };
        self.bad(&["flowRef", "version"], "flowRef.version", reason);
    }

    fn input_mapping(&mut self) {
        let Some(m) = self
            .node
            .value
            .get("inputMapping")
            .and_then(Value::as_object)
        else {
            let reason = "must be an object mapping string keys to Operands".into();
            return self.bad(&["inputMapping"], "inputMapping", reason);
        };
        for (k, v) in crate::js::entries(m) {
            let here = ["inputMapping", k.as_str()];
            if k.is_empty() {
                self.bad(&here, "inputMapping", "keys must not be empty".into());
            }
            if !v.is_object() {
                let reason =
                    format!("entry \"{k}\" must be an Operand ({{ path }} or {{ literal }})");
                self.bad(&here, "inputMapping", reason);
            } else if let Some(r) = operand_problem(v) {
                let reason = format!("entry \"{k}\" is not a valid Operand: {r}");
                self.bad(&here, "inputMapping", reason);
            }
        }
    }

    fn output_schema(&mut self) {
        let Some(schema) = self
            .node
            .value
            .get("outputSchema")
            .filter(|o| o.is_object())
        else {
            let reason = "must be a JSON Schema (draft 2020-12) — the typed escape contract";
            return self.bad(&["outputSchema"], "output-schema", reason.into());
        };
        for problem in compile_output_schema(schema, &self.at(&["outputSchema"])) {
            // The compile message has its own prefix, without the `: `.
            let message = format!(
                "Subgraph node \"{}\" outputSchema failed to compile: {}",
                self.id,
                problem.message()
            );
            self.push(problem.instance_path().to_owned(), "output-schema", message);
        }
    }
}

/// Rule 13 for one mapping.
fn mapping_paths(
    out: &mut Sink,
    mapping: &Value,
    parent: &str,
    node: Option<&str>,
    all_ids: &HashSet<&str>,
) {
    let field = if node.is_some() {
        "inputMapping"
    } else {
        "mapping"
    };
    let Some(m) = mapping.as_object() else { return };
    // JavaScript's key order: upstream reports the first failure, and the per-code cap keeps
    // the first ones.
    for (key, v) in crate::js::entries(m) {
        let Some(path) = v.get("path").and_then(Value::as_str) else {
            continue;
        };
        let mut segments = path.split('.');
        let root = segments.next().unwrap_or_default();
        let reason = match root {
            "iterationIndex" | "iterationOutput" => Some(format!(
                "{root} is only available in a loop's exitCondition"
            )),
            "nodeOutputs" => match segments.next() {
                Some(target) if !all_ids.contains(target) => {
                    Some(format!("nodeOutputs.{target} names no node in this flow"))
                }
                Some(target) if node == Some(target) => {
                    Some("a node cannot map its own output".to_owned())
                }
                _ => None,
            },
            _ => None,
        };
        let Some(reason) = reason else { continue };
        let place = match node {
            Some(n) => format!("Node \"{n}\" inputMapping"),
            None => "The flow output".to_owned(),
        };
        let mut issue = Issue::error(
            IssueCode::InvalidMapping,
            pointer::join(parent, &[field, key, "path"]),
            format!("{place} key \"{key}\": {reason}"),
        )
        .with_param("key", key.as_str())
        .with_param("reason", reason);
        if let Some(n) = node {
            issue = issue.with_param("nodeId", n);
        }
        out.push(issue);
    }
}

/// Rule 13: leaf `inputMapping`s in walk order, then `output.mapping`.
pub(crate) fn mappings(out: &mut Sink, view: &FlowView<'_>, flow: &Value) {
    let mut all_ids: HashSet<&str> = HashSet::with_capacity(view.nodes.len());
    all_ids.extend(view.nodes.iter().filter_map(|n| n.id));
    for n in view.nodes.iter().filter(|n| n.kind.is_leaf()) {
        if let Some(m) = n.value.get("inputMapping") {
            mapping_paths(out, m, &n.pointer(), Some(id_of(n)), &all_ids);
        }
    }
    if let Some(m) = flow.get("output").and_then(|o| o.get("mapping")) {
        mapping_paths(out, m, "/output", None, &all_ids);
    }
}

/// Rule 14: `output.schema` compiles.
pub(crate) fn flow_output(out: &mut Sink, flow: &Value) {
    let Some(schema) = flow
        .get("output")
        .and_then(|o| o.get("schema"))
        .filter(|s| s.is_object())
    else {
        return;
    };
    for problem in compile_output_schema(schema, "/output/schema") {
        out.push(Issue::error(
            IssueCode::InvalidFlowOutput,
            problem.instance_path(),
            format!(
                "Flow output schema failed to compile: {}",
                problem.message()
            ),
        ));
    }
}

/// Outer node ids to their first node index, for graph building.
pub(crate) fn first_index<'a>(view: &FlowView<'a>, scope: usize) -> HashMap<&'a str, usize> {
    let mut map = HashMap::with_capacity(view.scopes.get(scope).map_or(0, |s| s.nodes.len()));
    if let Some(s) = view.scopes.get(scope) {
        for (local, &n) in s.nodes.iter().enumerate() {
            if let Some(id) = view.nodes.get(n).and_then(|n| n.id) {
                map.entry(id).or_insert(local);
            }
        }
    }
    map
}

/// Compiles a loop, fanout branch, subgraph or flow output schema.
///
/// Upstream compiles these with Ajv 2020-12 in strict mode (spec §2.1); this uses the shared
/// compile-once strict compiler ([`crate::schema::SchemaCache::global`]), the same one agent
/// output schemas and settings schemas go through. One issue per reason, at `at`; the
/// messages are the compiler's.
fn compile_output_schema(schema: &Value, at: &str) -> Vec<Issue> {
    match crate::schema::SchemaCache::global().get(schema).as_ref() {
        Ok(_) => Vec::new(),
        Err(why) => std::iter::once(why)
            .map(|w| Issue::error(IssueCode::SchemaCompile, at, w.to_string()))
            .collect(),
    }
}
