//! Stage 1: the structural checks of `flow.schema.json` 1.9.0 (spec §1, rule 0), written from
//! the schema's facts, with Ajv's messages, keywords and `params`.
//!
//! Constraints that a semantic rule of §2 also covers (loop variants, `maxIterations`,
//! foreach and fanout `concurrency`, fanout branches and convergence, subgraph fields, edge
//! policy values, predicates) are left to that rule, so each problem is reported once, under
//! the rule's code and message. The spec's tests accept either code for those cases.

use super::context::Sink;
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, pointer};
pub(crate) use crate::range::is_exact_version;
use serde_json::{Map, Value};

/// The fields of a leaf node (tool or agent).
const LEAF_FIELDS: &[&str] = &["id", "kind", "ref", "config", "inputMapping"];
/// The fields of either loop variant; variant mismatches are rule 8's.
const LOOP_FIELDS: &[&str] = &[
    "id",
    "kind",
    "loopKind",
    "body",
    "exitCondition",
    "evaluationTiming",
    "iterateOver",
    "maxIterations",
    "outputSchema",
    "collectAllIterations",
    "concurrency",
];
const FANOUT_FIELDS: &[&str] = &["id", "kind", "branches", "concurrency", "convergence"];
const BRANCH_FIELDS: &[&str] = &["branchId", "handler", "outputSchema"];
const SUBGRAPH_FIELDS: &[&str] = &[
    "id",
    "kind",
    "flowRef",
    "inputMapping",
    "outputSchema",
    "convergence",
];
const EDGE_FIELDS: &[&str] = &["id", "from", "to", "when", "policy"];
const LOOP_EDGE_FIELDS: &[&str] = &["id", "from", "to", "when"];
const POLICY_FIELDS: &[&str] = &["retry", "timeoutMs", "concurrencyKey", "priority"];
const RETRY_FIELDS: &[&str] = &["maxAttempts", "delayMs", "backoff", "maxDelayMs"];
const FLOW_FIELDS: &[&str] = &[
    "$schema",
    "id",
    "version",
    "name",
    "description",
    "nodes",
    "edges",
    "metadata",
    "maxParallelism",
    "output",
];
/// The node kinds, for the `kind` enum message.
const KINDS: &[&str] = &["tool", "agent", "loop", "fanout", "subgraph"];

fn issue(at: &str, schema_path: &str, keyword: &'static str, message: String) -> Issue {
    Issue::error(IssueCode::SchemaValidationFailed, at, message)
        .with_schema_path(format!("#/{schema_path}/{keyword}"))
        .with_keyword(keyword)
}

/// The JSON type name Ajv uses in `must be <type>`.
pub(crate) fn type_error(out: &mut Sink, at: &str, schema_path: &str, ty: &'static str) {
    out.push(issue(at, schema_path, "type", format!("must be {ty}")).with_param("type", ty));
}

fn required(out: &mut Sink, obj: &Map<String, Value>, at: &str, sp: &str, names: &[&str]) {
    for name in names {
        if !obj.contains_key(*name) {
            out.push(
                issue(
                    at,
                    sp,
                    "required",
                    format!("must have required property '{name}'"),
                )
                .with_param("missingProperty", *name),
            );
        }
    }
}

fn closed(out: &mut Sink, obj: &Map<String, Value>, at: &str, sp: &str, allowed: &[&str]) {
    // In Ajv's order (JavaScript's key order), which also decides what the per-code cap keeps.
    for key in crate::js::keys(obj) {
        if !allowed.contains(&key.as_str()) {
            out.push(
                issue(
                    at,
                    sp,
                    "additionalProperties",
                    format!("must NOT have additional properties ('{key}' is not a known field)"),
                )
                .with_param("additionalProperty", key.as_str()),
            );
        }
    }
}

/// `type: string, minLength: 1` at `obj[name]`, when present.
fn non_empty_string(out: &mut Sink, obj: &Map<String, Value>, at: &str, sp: &str, name: &str) {
    let Some(v) = obj.get(name) else { return };
    // Pointers are built only for a problem: valid input allocates nothing here.
    let place = || {
        (
            pointer::join(at, &[name]),
            format!("{sp}/properties/{name}"),
        )
    };
    match v.as_str() {
        None => {
            let (at, sp) = place();
            type_error(out, &at, &sp, "string");
        }
        Some("") => {
            let (at, sp) = place();
            out.push(
                issue(
                    &at,
                    &sp,
                    "minLength",
                    "must NOT have fewer than 1 characters".into(),
                )
                .with_param("limit", 1),
            );
        }
        Some(_) => {}
    }
}

fn typed(
    out: &mut Sink,
    obj: &Map<String, Value>,
    at: &str,
    sp: &str,
    name: &str,
    ty: &'static str,
) {
    let Some(v) = obj.get(name) else { return };
    let ok = match ty {
        "string" => v.is_string(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "boolean" => v.is_boolean(),
        _ => true,
    };
    if !ok {
        type_error(
            out,
            &pointer::join(at, &[name]),
            &format!("{sp}/properties/{name}"),
            ty,
        );
    }
}

/// The Operand path pattern of the flow schema:
/// `^(runInput|state|nodeOutputs\.[A-Za-z0-9_.-]+|iterationIndex|iterationOutput)(\.[A-Za-z0-9_-]+)*$`.
pub(crate) const PATH_PATTERN: &str = r"^(runInput|state|nodeOutputs\.[A-Za-z0-9_.-]+|iterationIndex|iterationOutput)(\.[A-Za-z0-9_-]+)*$";

/// Whether `path` matches [`PATH_PATTERN`].
///
/// After `nodeOutputs.` the pattern's greedy class also takes dots, so the rest only needs
/// one or more of `[A-Za-z0-9_.-]` (even `nodeOutputs..x` matches, as with Ajv).
pub(crate) fn is_valid_path(path: &str) -> bool {
    let seg_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if let Some(rest) = path.strip_prefix("nodeOutputs.") {
        return !rest.is_empty() && rest.chars().all(|c| seg_char(c) || c == '.');
    }
    let rest = ["runInput", "state", "iterationIndex", "iterationOutput"]
        .iter()
        .find_map(|root| path.strip_prefix(root));
    match rest {
        None => false,
        Some("") => true,
        Some(rest) => rest.strip_prefix('.').is_some_and(|r| {
            r.split('.')
                .all(|s| !s.is_empty() && s.chars().all(seg_char))
        }),
    }
}

/// Why `v` is not a valid Operand, or `None`.
pub(crate) fn operand_problem(v: &Value) -> Option<String> {
    let Some(obj) = v.as_object() else {
        return Some("operand must be a {literal} or {path}".into());
    };
    let has_literal = obj.contains_key("literal");
    let has_path = obj.contains_key("path");
    if has_literal == has_path || obj.len() != 1 {
        return Some("operand must be a {literal} or {path}".into());
    }
    if let Some(path) = obj.get("path") {
        match path.as_str() {
            None | Some("") => return Some("path must be a non-empty string".into()),
            Some(p) if !is_valid_path(p) => {
                return Some(format!(
                    "path \"{p}\" must start with runInput, state, nodeOutputs.<id>, \
                     iterationIndex or iterationOutput, followed by .segments of letters, \
                     digits, _ or -"
                ));
            }
            Some(_) => {}
        }
    }
    None
}

/// An Operand (mapping value or `iterateOver`).
pub(crate) fn operand(out: &mut Sink, v: &Value, at: &str) {
    let sp = "$defs/Operand";
    let Some(obj) = v.as_object() else {
        return type_error(out, at, sp, "object");
    };
    match (obj.get("literal"), obj.get("path")) {
        (Some(_), None) => closed(out, obj, at, &format!("{sp}/oneOf/0"), &["literal"]),
        (None, Some(path)) => {
            closed(out, obj, at, &format!("{sp}/oneOf/1"), &["path"]);
            let at = pointer::join(at, &["path"]);
            let sp = format!("{sp}/oneOf/1/properties/path");
            match path.as_str() {
                None => type_error(out, &at, &sp, "string"),
                Some(p) if !is_valid_path(p) => out.push(
                    issue(
                        &at,
                        &sp,
                        "pattern",
                        format!("must match pattern \"{PATH_PATTERN}\""),
                    )
                    .with_param("pattern", PATH_PATTERN),
                ),
                Some(_) => {}
            }
        }
        _ => out.push(issue(
            at,
            sp,
            "oneOf",
            "must match exactly one schema in oneOf ({\"literal\": <value>} or {\"path\": \"<path>\"})"
                .into(),
        )),
    }
}

/// A Mapping at `parent`/`field`: non-empty keys, Operand values.
pub(crate) fn mapping(out: &mut Sink, v: &Value, parent: &str, field: &str) {
    // Fast path without allocation: valid mappings are the common case.
    if v.as_object().is_some_and(|o| {
        o.iter()
            .all(|(k, v)| !k.is_empty() && operand_problem(v).is_none())
    }) {
        return;
    }
    let at = &pointer::join(parent, &[field]);
    let Some(obj) = v.as_object() else {
        return type_error(out, at, "$defs/Mapping", "object");
    };
    for (key, value) in crate::js::entries(obj) {
        let entry = pointer::join(at, &[key]);
        if key.is_empty() {
            out.push(
                issue(
                    &entry,
                    "$defs/Mapping/propertyNames",
                    "minLength",
                    "property name must be valid: must NOT have fewer than 1 characters".into(),
                )
                .with_param("propertyName", ""),
            );
        }
        operand(out, value, &entry);
    }
}

/// The top level of a flow document. With `index_entry`, the fields the pack index shape
/// already checks (every top-level field but the contents of `nodes`, `edges` and `output`)
/// are skipped, and `kernelPayloadVersion` and `modulePath` are allowed.
pub(crate) fn top_level(out: &mut Sink, flow: &Value, index_entry: bool) {
    let Some(obj) = flow.as_object() else {
        if !index_entry {
            type_error(out, "", "", "object");
        }
        return;
    };
    if !index_entry {
        required(out, obj, "", "", &["id", "version", "nodes", "edges"]);
        closed(out, obj, "", "", FLOW_FIELDS);
        for name in ["$schema", "name", "description"] {
            typed(out, obj, "", "", name, "string");
        }
        non_empty_string(out, obj, "", "", "id");
        typed(out, obj, "", "", "version", "string");
        if let Some(v) = obj.get("version").and_then(Value::as_str)
            && !is_exact_version(v)
        {
            let pattern = r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$";
            out.push(
                issue(
                    "/version",
                    "properties/version",
                    "pattern",
                    format!("must match pattern \"{pattern}\""),
                )
                .with_param("pattern", pattern),
            );
        }
        typed(out, obj, "", "", "metadata", "object");
        typed(out, obj, "", "", "nodes", "array");
        typed(out, obj, "", "", "edges", "array");
        if let Some(p) = obj.get("maxParallelism") {
            if !is_integer(p) {
                type_error(
                    out,
                    "/maxParallelism",
                    "properties/maxParallelism",
                    "integer",
                );
            } else if p.as_f64().is_some_and(|n| n < 1.0) {
                out.push(minimum("/maxParallelism", "properties/maxParallelism", 1));
            }
        }
    }
    // runstart's own bound, which the pack index schema does not check either
    if let Some(p) = obj.get("maxParallelism")
        && is_integer(p)
        && !fits_u64(p)
    {
        out.push(beyond_u64("/maxParallelism", "properties/maxParallelism"));
    }
    if let Some(nodes) = obj.get("nodes").and_then(Value::as_array)
        && nodes.is_empty()
    {
        out.push(
            issue(
                "/nodes",
                "properties/nodes",
                "minItems",
                "must NOT have fewer than 1 items".into(),
            )
            .with_param("limit", 1),
        );
    }
    if let Some(output) = obj.get("output") {
        let sp = "$defs/FlowOutput";
        match output.as_object() {
            // In an index entry `output` is an open object, already type-checked.
            None if index_entry => {}
            None => type_error(out, "/output", sp, "object"),
            Some(o) => {
                required(out, o, "/output", sp, &["mapping"]);
                closed(out, o, "/output", sp, &["mapping", "schema"]);
                if let Some(m) = o.get("mapping") {
                    mapping(out, m, "/output", "mapping");
                }
                typed(out, o, "/output", sp, "schema", "object");
            }
        }
    }
}

fn minimum(at: &str, sp: &str, limit: i64) -> Issue {
    issue(at, sp, "minimum", format!("must be >= {limit}"))
        .with_param("comparison", ">=")
        .with_param("limit", limit)
}

/// Whether the integer `v` fits the 64-bit count runstart's flow model holds it in. The flow
/// schema sets no maximum on some counts (`maxParallelism`, retry delays); one above 2^64 − 1
/// is refused here rather than by the typed model, so the issue names its field.
pub(crate) fn fits_u64(v: &Value) -> bool {
    // ok: 2^64 as f64 is exact; an integral f64 below it converts exactly.
    v.is_u64() || v.as_f64().is_some_and(|f| f < 18_446_744_073_709_551_616.0)
}

/// A count beyond [`fits_u64`]: runstart's limit, beyond upstream's schema.
pub(crate) fn beyond_u64(at: &str, sp: &str) -> Issue {
    issue(at, sp, "maximum", format!("must be <= {}", u64::MAX))
        .with_param("comparison", "<=")
        .with_param("limit", u64::MAX)
}

/// Whether `v` is an integer as JSON Schema and JavaScript see it (`4.0` is one).
pub(crate) fn is_integer(v: &Value) -> bool {
    v.is_i64()
        || v.is_u64()
        || v.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
}

/// One node, whatever its depth. Loop bodies' own nodes are visited separately.
pub(crate) fn node(out: &mut Sink, v: &Value, at: &str) {
    let Some(obj) = v.as_object() else {
        return type_error(out, at, "$defs/Node", "object");
    };
    let kind = obj.get("kind");
    let sp: &str = match kind.and_then(Value::as_str) {
        Some("tool" | "agent") => "$defs/LeafNode",
        Some("loop") => "$defs/LoopNode",
        Some("fanout") => "$defs/FanoutNode",
        Some("subgraph") => "$defs/SubflowNode",
        _ => return unknown_kind_node(out, obj, kind, at),
    };
    required(out, obj, at, sp, &["id"]);
    non_empty_string(out, obj, at, sp, "id");
    match kind.and_then(Value::as_str) {
        Some("tool" | "agent") => {
            closed(out, obj, at, sp, LEAF_FIELDS);
            required(out, obj, at, sp, &["ref"]);
            non_empty_string(out, obj, at, sp, "ref");
            typed(out, obj, at, sp, "config", "object");
            if let Some(m) = obj.get("inputMapping") {
                mapping(out, m, at, "inputMapping");
            }
        }
        Some("loop") => loop_node(out, obj, at, sp),
        Some("fanout") => fanout_node(out, obj, at, sp),
        _ => {
            // subgraph: presence and values of its fields are rule 12's.
            closed(out, obj, at, sp, SUBGRAPH_FIELDS);
            if let Some(r) = obj.get("flowRef").and_then(Value::as_object) {
                closed(
                    out,
                    r,
                    &pointer::join(at, &["flowRef"]),
                    "$defs/SubflowNode/properties/flowRef",
                    &["flowId", "version"],
                );
            }
        }
    }
}

/// A node whose `kind` is missing or none of the five: that, and its `id`.
fn unknown_kind_node(out: &mut Sink, obj: &Map<String, Value>, kind: Option<&Value>, at: &str) {
    match kind {
        None => required(out, obj, at, "$defs/Node", &["kind"]),
        Some(k) => out.push(
            issue(
                &pointer::join(at, &["kind"]),
                "$defs/Node/properties/kind",
                "enum",
                format!(
                    "must be equal to one of the allowed values (tool, agent, loop, \
                     fanout or subgraph; got {k})"
                ),
            )
            .with_param("allowedValues", KINDS),
        ),
    }
    required(out, obj, at, "$defs/Node", &["id"]);
    non_empty_string(out, obj, at, "$defs/Node", "id");
}

/// A loop node's own fields (schema path `sp`); its body's nodes are visited separately.
fn loop_node(out: &mut Sink, obj: &Map<String, Value>, at: &str, sp: &str) {
    closed(out, obj, at, sp, LOOP_FIELDS);
    required(
        out,
        obj,
        at,
        sp,
        &["loopKind", "body", "maxIterations", "outputSchema"],
    );
    let loop_kind = obj.get("loopKind");
    if let Some(k) = loop_kind
        && !matches!(k.as_str(), Some("while" | "foreach"))
    {
        out.push(
            issue(
                &pointer::join(at, &["loopKind"]),
                "$defs/LoopNode/properties/loopKind",
                "enum",
                format!("must be equal to one of the allowed values (while or foreach; got {k})"),
            )
            .with_param("allowedValues", ["while", "foreach"]),
        );
    }
    typed(out, obj, at, sp, "outputSchema", "object");
    typed(out, obj, at, sp, "collectAllIterations", "boolean");
    if loop_kind.and_then(Value::as_str) == Some("foreach")
        && let Some(over) = obj.get("iterateOver")
        && operand_problem(over).is_some()
    {
        operand(out, over, &pointer::join(at, &["iterateOver"]));
    }
    if let Some(body) = obj.get("body") {
        loop_body(out, body, &pointer::join(at, &["body"]));
    }
}

/// A fanout node's own fields and the shape of each branch.
fn fanout_node(out: &mut Sink, obj: &Map<String, Value>, at: &str, sp: &str) {
    closed(out, obj, at, sp, FANOUT_FIELDS);
    required(out, obj, at, sp, &["branches", "convergence"]);
    typed(out, obj, at, sp, "branches", "array");
    let branches = obj.get("branches").and_then(Value::as_array);
    for (i, b) in branches.into_iter().flatten().enumerate() {
        let mut bp = pointer::join(at, &["branches"]);
        pointer::push_index(&mut bp, i);
        match b.as_object() {
            None => type_error(out, &bp, "$defs/FanoutBranch", "object"),
            Some(bo) => closed(out, bo, &bp, "$defs/FanoutBranch", BRANCH_FIELDS),
        }
    }
}

/// A loop body object (its nodes are visited as nodes of their own scope).
fn loop_body(out: &mut Sink, v: &Value, at: &str) {
    let sp = "$defs/LoopBody";
    let Some(obj) = v.as_object() else {
        return type_error(out, at, sp, "object");
    };
    required(out, obj, at, sp, &["nodes", "edges"]);
    closed(out, obj, at, sp, &["nodes", "edges"]);
    typed(out, obj, at, sp, "nodes", "array");
    typed(out, obj, at, sp, "edges", "array");
    if obj
        .get("nodes")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        out.push(
            issue(
                &pointer::join(at, &["nodes"]),
                "$defs/LoopBody/properties/nodes",
                "minItems",
                "must NOT have fewer than 1 items".into(),
            )
            .with_param("limit", 1),
        );
    }
}

/// Whether an edge needs no structural issue; checked without allocating.
fn edge_is_clean(v: &Value, body: bool) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let allowed = if body { LOOP_EDGE_FIELDS } else { EDGE_FIELDS };
    ["id", "from", "to"].iter().all(|f| {
        obj.get(*f)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    }) && obj.keys().all(|k| allowed.contains(&k.as_str()))
        && obj.get("policy").is_none_or(|p| {
            p.as_object().is_some_and(|p| {
                p.keys().all(|k| POLICY_FIELDS.contains(&k.as_str()))
                    && p.get("retry").is_none_or(|r| {
                        r.as_object()
                            .is_some_and(|r| r.keys().all(|k| RETRY_FIELDS.contains(&k.as_str())))
                    })
            })
        })
}

/// An edge; `body` for a loop body edge (which has no `policy`). `at` builds its pointer,
/// called only when there is something to report.
pub(crate) fn edge(out: &mut Sink, v: &Value, at: impl FnOnce() -> String, body: bool) {
    if edge_is_clean(v, body) {
        return;
    }
    let at = &at();
    let sp = if body { "$defs/LoopEdge" } else { "$defs/Edge" };
    let Some(obj) = v.as_object() else {
        return type_error(out, at, sp, "object");
    };
    required(out, obj, at, sp, &["id", "from", "to"]);
    closed(
        out,
        obj,
        at,
        sp,
        if body { LOOP_EDGE_FIELDS } else { EDGE_FIELDS },
    );
    for name in ["id", "from", "to"] {
        non_empty_string(out, obj, at, sp, name);
    }
    if body {
        return;
    }
    if let Some(policy) = obj.get("policy") {
        let at = pointer::join(at, &["policy"]);
        let sp = "$defs/EdgePolicy";
        match policy.as_object() {
            None => type_error(out, &at, sp, "object"),
            Some(p) => {
                closed(out, p, &at, sp, POLICY_FIELDS);
                if let Some(retry) = p.get("retry") {
                    let at = pointer::join(&at, &["retry"]);
                    match retry.as_object() {
                        None => type_error(out, &at, "$defs/RetryPolicy", "object"),
                        Some(r) => closed(out, r, &at, "$defs/RetryPolicy", RETRY_FIELDS),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_versions() {
        for ok in ["1.0.0", "0.1.0", "1.2.3-alpha.1", "01.2.3", "1.0.0-x-y"] {
            assert!(is_exact_version(ok), "{ok}");
        }
        for bad in [
            "v1",
            "1.0",
            "^1.0.0",
            "1.0.0+b",
            "1.0.0-",
            "1.0.0-a..b",
            "1.0.0.0",
            "",
        ] {
            assert!(!is_exact_version(bad), "{bad}");
        }
    }

    #[test]
    fn path_grammar() {
        for ok in [
            "runInput",
            "state",
            "runInput.items.0.sku",
            "nodeOutputs.load",
            "nodeOutputs.a.b-c_d",
            "nodeOutputs..x",
            "iterationIndex",
            "iterationOutput.finishReason",
        ] {
            assert!(is_valid_path(ok), "{ok}");
        }
        for bad in [
            "input.x",
            "nodeOutputs",
            "nodeOutputs.",
            "runInput.",
            "runInput..x",
            "runInputs",
            "loop.item",
            "state.a b",
            "",
        ] {
            assert!(!is_valid_path(bad), "{bad}");
        }
    }
}
