//! Wire types of a flow document (flow schema-version 1.9.0, `shared/spec/flows.md` §1).
//!
//! Serde structs with the exact upstream camelCase names. Every object of the flow model is
//! closed (`deny_unknown_fields`), except `config` and `metadata`, which stay open
//! [`Value`]s, and JSON Schemas (`outputSchema`, `output.schema`), which stay [`Value`]s too.
//!
//! These types describe a flow that passed [`validate_flow`](super::validate_flow): serde
//! stops at the first problem, so validation never goes through them. Use
//! [`Flow::from_value`] once the flow validated clean, for example to schedule it.
//!
//! # Examples
//!
//! ```
//! use runstart::flow::wire::{Flow, Node};
//! use serde_json::json;
//!
//! let flow = Flow::from_value(&json!({
//!     "id": "acme.echo", "version": "1.0.0",
//!     "nodes": [{"id": "echo", "kind": "tool", "ref": "acme.echo"}],
//!     "edges": [{"id": "e0", "from": "$start", "to": "echo"}]
//! }))
//! .expect("a valid flow");
//! assert!(matches!(&flow.nodes[0], Node::Tool(leaf) if leaf.r#ref == "acme.echo"));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

// Integers as JSON Schema reads them (`2.0` is 2), so every flow the schema accepts is read.
use crate::json_integer::{optional as optional_int, required as required_int};

/// A flow document (`flow.schema.json`, closed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Flow {
    /// Editor hint; ignored.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Flow id, unique in a tenant (`<pack>.<name>`).
    pub id: String,
    /// Exact semver version (pre-release allowed, build metadata not).
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Prose description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Outer nodes (at least one); array order does not matter for execution.
    pub nodes: Vec<Node>,
    /// Outer edges.
    pub edges: Vec<Edge>,
    /// Free-form annotations (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Default for concurrent node dispatch (≥ 1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub max_parallelism: Option<u64>,
    /// The run's declared output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<FlowOutput>,
    /// Version of the flow payload in a pack index entry (always 1 there); `None` in a flow
    /// document, where [`validate_flow`](super::validate_flow) refuses the field.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub kernel_payload_version: Option<u64>,
    /// Source file of a pack index entry, relative to the pack root; `None` in a flow document,
    /// where [`validate_flow`](super::validate_flow) refuses the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_path: Option<String>,
}

impl Flow {
    /// Deserializes a flow document.
    ///
    /// # Errors
    ///
    /// Returns serde's first error when `value` is not a well-shaped flow. Run
    /// [`validate_flow`](super::validate_flow) first for every problem at once.
    pub fn from_value(value: &Value) -> Result<Flow, serde_json::Error> {
        Flow::deserialize(value)
    }
}

/// A node: leaf (tool or agent), loop, fanout or subgraph, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Node {
    /// Runs a tool; `ref` is a tool id.
    Tool(LeafNode),
    /// Runs an agent; `ref` is an agent id.
    Agent(LeafNode),
    /// Iterates a body (while or foreach).
    Loop(LoopNode),
    /// Runs several handlers at once.
    Fanout(FanoutNode),
    /// Runs another flow (refused at run start with `flow-unbound`).
    Subgraph(SubgraphNode),
}

/// A tool or agent node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeafNode {
    /// Node id, unique across the whole flow.
    pub id: String,
    /// Tool or agent id.
    pub r#ref: String,
    /// Node configuration (open object; for agents `version` and `parameters` mean something).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Map<String, Value>>,
    /// What the handler receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_mapping: Option<Mapping>,
}

/// A loop node, told apart by `loopKind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "loopKind", rename_all = "lowercase")]
pub enum LoopNode {
    /// Runs its body until `exitCondition` holds.
    While(WhileLoop),
    /// Runs its body once per element of `iterateOver`.
    Foreach(ForeachLoop),
}

/// When a while loop evaluates its exit condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluationTiming {
    /// Before each iteration (the body may run zero times).
    Before,
    /// After each iteration (do-while; the default).
    After,
}

/// A while loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WhileLoop {
    /// Node id.
    pub id: String,
    /// The iterated sub-DAG.
    pub body: LoopBody,
    /// Exit predicate.
    pub exit_condition: Expr,
    /// Absent means [`EvaluationTiming::After`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation_timing: Option<EvaluationTiming>,
    /// Hard cap on iterations, 1–10000.
    #[serde(deserialize_with = "required_int")]
    pub max_iterations: u32,
    /// JSON Schema of each iteration's output.
    pub output_schema: Value,
    /// Whether the output lists every iteration's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collect_all_iterations: Option<bool>,
}

/// A foreach loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForeachLoop {
    /// Node id.
    pub id: String,
    /// The iterated sub-DAG.
    pub body: LoopBody,
    /// Resolved once at loop entry; must be an array.
    pub iterate_over: Operand,
    /// Hard cap on iterations, 1–10000.
    #[serde(deserialize_with = "required_int")]
    pub max_iterations: u32,
    /// JSON Schema of each iteration's output.
    pub output_schema: Value,
    /// Whether the output lists every iteration's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collect_all_iterations: Option<bool>,
    /// Parallel iterations, 1–32 and at most `maxIterations`; absent means 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub concurrency: Option<u32>,
}

/// A loop body: a sub-DAG between `$loop-start` and `$loop-end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopBody {
    /// Body nodes (at least one; loops nest).
    pub nodes: Vec<Node>,
    /// Body edges (no `policy`).
    pub edges: Vec<LoopEdge>,
}

/// How a fanout converges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FanoutConvergence {
    /// `{[branchId]: output}`; the first failure fails the node.
    AllSucceed,
    /// `{winnerBranchId, output}`; fails only when every branch fails.
    AnySucceed,
    /// `{[branchId]: {status, output? | error?}}`.
    SettleAll,
}

/// A fanout node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FanoutNode {
    /// Node id.
    pub id: String,
    /// At least two branches, with unique `branchId`s.
    pub branches: Vec<FanoutBranch>,
    /// Workers, 1 to `branches.len()`; absent means all branches at once.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub concurrency: Option<u32>,
    /// How the branches converge.
    pub convergence: FanoutConvergence,
}

/// One branch of a fanout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FanoutBranch {
    /// Unique within the fanout.
    pub branch_id: String,
    /// A tool id.
    pub handler: String,
    /// JSON Schema of the branch's output.
    pub output_schema: Value,
}

/// How a subgraph node converges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubgraphConvergence {
    /// A child failure fails the node.
    SuccessOnly,
    /// `{status, output? | error?}`.
    SettleAll,
}

/// A subgraph node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubgraphNode {
    /// Node id.
    pub id: String,
    /// The flow it runs.
    pub flow_ref: FlowRef,
    /// The sub-run's `runInput` (may be empty).
    pub input_mapping: Mapping,
    /// JSON Schema of the sub-run's output.
    pub output_schema: Value,
    /// How the sub-run's outcome reaches the parent.
    pub convergence: SubgraphConvergence,
}

/// A reference to another flow, at an exact version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlowRef {
    /// Registered flow id.
    pub flow_id: String,
    /// Exact semver (no ranges).
    pub version: String,
}

/// An outer edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// Edge id, unique across the flow and its bodies.
    pub id: String,
    /// A node id or `$start`.
    pub from: String,
    /// A node id or `$end`.
    pub to: String,
    /// Fires only when this holds; absent means always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Expr>,
    /// Runtime policy of the destination (honoured when it has one incoming edge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<EdgePolicy>,
}

/// An edge inside a loop body (no policy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopEdge {
    /// Edge id.
    pub id: String,
    /// A body node id or `$loop-start`.
    pub from: String,
    /// A body node id or `$loop-end`.
    pub to: String,
    /// Fires only when this holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Expr>,
}

/// Per-edge runtime policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EdgePolicy {
    /// Retries of the destination's handler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryPolicy>,
    /// Handler timeout, 1–3,600,000 ms.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub timeout_ms: Option<u32>,
    /// Tenant-wide lease key, 1–256 printable ASCII characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_key: Option<String>,
    /// Scheduling priority, −100 to 100 (default 0).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub priority: Option<i8>,
}

/// Retry backoff shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backoff {
    /// `delayMs` every time.
    Fixed,
    /// `delayMs × attempt`, capped.
    Linear,
    /// `delayMs × 2^(attempt−1)`, capped (needs `maxDelayMs`).
    Exponential,
}

/// Retry policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts including the first, 1–10.
    #[serde(deserialize_with = "required_int")]
    pub max_attempts: u8,
    /// Base delay in ms (default 0).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub delay_ms: Option<u64>,
    /// Absent means [`Backoff::Fixed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
    /// Delay ceiling in ms.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_int"
    )]
    pub max_delay_ms: Option<u64>,
}

/// A predicate (`when`, `exitCondition`), spec §1.4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Expr {
    /// Structural equality.
    Eq {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Structural inequality.
    Ne {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Less than (same-typed numbers or strings).
    Lt {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Less than or equal.
    Lte {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Greater than.
    Gt {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Greater than or equal.
    Gte {
        /// Left side.
        left: Operand,
        /// Right side.
        right: Operand,
    },
    /// Membership in an array.
    In {
        /// The needle.
        value: Operand,
        /// The array.
        set: Operand,
    },
    /// Non-membership (false when `set` is not an array).
    NotIn {
        /// The needle.
        value: Operand,
        /// The array.
        set: Operand,
    },
    /// The path resolves.
    Exists {
        /// The operand.
        value: Operand,
    },
    /// The path does not resolve.
    NotExists {
        /// The operand.
        value: Operand,
    },
    /// JavaScript truthiness.
    Truthy {
        /// The operand.
        value: Operand,
    },
    /// JavaScript falsiness (missing is falsy).
    Falsy {
        /// The operand.
        value: Operand,
    },
    /// Every child holds (short-circuit).
    And {
        /// At least one child.
        children: Vec<Expr>,
    },
    /// Some child holds (short-circuit).
    Or {
        /// At least one child.
        children: Vec<Expr>,
    },
    /// Negation.
    Not {
        /// The negated predicate.
        child: Box<Expr>,
    },
}

/// One side of a comparison, or a mapping value: a literal or a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Operand {
    /// `{"literal": <any JSON>}`.
    Literal(LiteralOperand),
    /// `{"path": "runInput.x"}`.
    Path(PathOperand),
}

/// `{"literal": <any JSON>}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiteralOperand {
    /// The value, as given (may be `null`).
    pub literal: Value,
}

/// `{"path": "<root>(.<segment>)*"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathOperand {
    /// A dot path rooted at `runInput`, `state`, `nodeOutputs.<id>`, `iterationIndex` or
    /// `iterationOutput`.
    pub path: String,
}

/// Keys (non-empty) to operands, in key order.
pub type Mapping = BTreeMap<String, Operand>;

/// The run's declared output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowOutput {
    /// What the output holds.
    pub mapping: Mapping,
    /// JSON Schema the resolved output must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
}
