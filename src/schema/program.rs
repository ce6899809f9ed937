//! The compiled form of a schema: what [`compile`](super::compile) produces and
//! [`eval`](super::eval) runs. Nodes and functions sit in flat vectors and refer to each other
//! by index, so a program is built without reference counting and read without pointer chasing.

use super::format::FormatType;
use super::pattern::Pattern;
use serde_json::Value;

/// Index of a compiled node.
pub(crate) type NodeId = usize;
/// Index of a compiled function (a schema compiled as its own unit).
pub(crate) type FuncId = usize;

/// JSON types as JSON Schema names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    Integer,
    String,
}

impl JType {
    pub(super) fn parse(s: &str) -> Option<JType> {
        Some(match s {
            "null" => JType::Null,
            "boolean" => JType::Boolean,
            "object" => JType::Object,
            "array" => JType::Array,
            "number" => JType::Number,
            "integer" => JType::Integer,
            "string" => JType::String,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            JType::Null => "null",
            JType::Boolean => "boolean",
            JType::Object => "object",
            JType::Array => "array",
            JType::Number => "number",
            JType::Integer => "integer",
            JType::String => "string",
        }
    }

    /// Whether `v` has this type (`integer`: a number without fraction, as Ajv checks it).
    pub(crate) fn matches(self, v: &Value) -> bool {
        match self {
            JType::Null => v.is_null(),
            JType::Boolean => v.is_boolean(),
            JType::Object => v.is_object(),
            JType::Array => v.is_array(),
            JType::Number => v.is_number(),
            JType::String => v.is_string(),
            JType::Integer => match v {
                Value::Number(n) => {
                    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
                }
                _ => false,
            },
        }
    }
}

/// The data type a group of keywords applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    Number,
    String,
    Array,
    Object,
}

impl Group {
    pub(super) fn jtype(self) -> JType {
        match self {
            Group::Number => JType::Number,
            Group::String => JType::String,
            Group::Array => JType::Array,
            Group::Object => JType::Object,
        }
    }

    pub(crate) fn matches(self, v: &Value) -> bool {
        match self {
            Group::Number => v.is_number(),
            Group::String => v.is_string(),
            Group::Array => v.is_array(),
            Group::Object => v.is_object(),
        }
    }
}

/// One error's fixed parts, computed at compile time.
#[derive(Debug, Clone)]
pub(crate) struct TypeErr {
    pub(crate) schema_path: String,
    pub(crate) types: Vec<JType>,
    pub(crate) message: String,
    pub(crate) param: Value,
}

/// Limit keywords on numbers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cmp {
    Max,
    Min,
    ExMax,
    ExMin,
}

/// One compiled keyword.
#[derive(Debug)]
pub(crate) enum Step {
    TypeCheck(TypeErr),
    Group {
        group: Group,
        steps: Vec<Step>,
        else_err: Option<TypeErr>,
    },
    DynamicAnchor {
        name: String,
        func: FuncId,
    },
    DynamicRef {
        anchor: Option<String>,
        fallback: FuncId,
    },
    Call(FuncId),
    Inline(NodeId),
    Const {
        value: Value,
        param: Value,
        path: String,
    },
    Enum {
        values: Vec<Value>,
        param: Value,
        path: String,
    },
    Not {
        node: Option<NodeId>,
        path: String,
    },
    AnyOf {
        nodes: Vec<NodeId>,
        path: String,
    },
    OneOf {
        nodes: Vec<Option<NodeId>>,
        path: String,
    },
    AllOf(Vec<NodeId>),
    If {
        cond: NodeId,
        then: Option<NodeId>,
        els: Option<NodeId>,
        /// Whether Ajv knows the `if` schema's evaluated properties and items at compile time
        /// (see `compile::keywords::static_annotations`).
        static_annotations: bool,
        path: String,
    },
    Limit {
        cmp: Cmp,
        limit: f64,
        param: Value,
        message: String,
        path: String,
    },
    MultipleOf {
        by: f64,
        param: Value,
        message: String,
        path: String,
    },
    Length {
        max: bool,
        limit: f64,
        param: Value,
        message: String,
        path: String,
    },
    Pattern {
        re: Pattern,
        source: String,
        path: String,
    },
    Format {
        name: String,
        ty: FormatType,
        path: String,
    },
    PropCount {
        max: bool,
        limit: f64,
        param: Value,
        message: String,
        path: String,
    },
    Required {
        props: Vec<String>,
        path: String,
    },
    ItemCount {
        max: bool,
        limit: f64,
        param: Value,
        message: String,
        path: String,
    },
    Unique {
        scalar: Option<Vec<JType>>,
        path: String,
    },
    PrefixItems(Vec<Option<NodeId>>),
    Items {
        start: usize,
        node: Option<NodeId>,
        path: String,
    },
    Contains {
        node: Option<NodeId>,
        min: f64,
        max: Option<f64>,
        always_fail: bool,
        path: String,
    },
    PropertyNames {
        node: NodeId,
        path: String,
    },
    AdditionalProperties {
        props: Vec<String>,
        patterns: Vec<Pattern>,
        node: Option<NodeId>,
        path: String,
    },
    Properties(Vec<(String, Option<NodeId>)>),
    PatternProperties(Vec<(Pattern, Option<NodeId>)>),
    PropertyDeps {
        deps: Vec<(String, Vec<String>)>,
        keyword: &'static str,
        path: String,
    },
    SchemaDeps(Vec<(String, NodeId)>),
    UnevaluatedProperties {
        node: Option<NodeId>,
        path: String,
    },
    UnevaluatedItems {
        node: Option<NodeId>,
        path: String,
    },
    /// Marks every property (or item) as evaluated: an always-valid `additionalProperties`.
    EvaluateAll {
        props: bool,
    },
}

/// A compiled subschema.
#[derive(Debug)]
pub(crate) enum Node {
    True,
    False { path: String },
    Obj(Vec<Step>),
}

/// What `eval` runs: the nodes, the functions (each a root node), the entry function.
#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) nodes: Vec<Node>,
    pub(crate) funcs: Vec<NodeId>,
    pub(crate) entry: FuncId,
    /// Whether any `unevaluated*` keyword was compiled (evaluated properties and items are
    /// tracked only then).
    pub(crate) track_evaluated: bool,
}
