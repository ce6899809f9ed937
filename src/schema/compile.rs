//! A compiler that decides, and compiles, JSON Schemas as Ajv 8 (`Ajv2020`, strict mode,
//! `allErrors`, `ajv-formats`) does, producing a [`Program`] for `eval`.
//!
//! It follows Ajv's order of evaluation because strict mode's verdict and first message depend on
//! it: per schema object, unknown keywords first, then `type`/`nullable`, then the strict type
//! checks, then the keywords in Ajv's rule order (untyped keywords such as `allOf` and `$ref`
//! first, then the number, string, array and object keywords), each compiling its subschemas
//! depth first. `$ref` targets without references of their own are inlined (their errors carry
//! the `$ref` text as schema path); the others compile as separate functions whose errors carry
//! paths relative to their own root (`#/…`). Only reachable subschemas are compiled, so an unused
//! `$defs` entry is never strict-checked. Properties that `required` may name are tracked the way
//! Ajv tracks them (a set shared by the subschemas compiled for the same data, restarted whenever
//! a subschema for other data is compiled).

use super::error::{SchemaError, SchemaErrorKind};
use super::format::{FormatType, format_type};
use super::pattern::Pattern;
use super::text::{escape_fragment, escape_pointer, js_json, unescape_fragment};
use super::uri;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

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
    fn parse(s: &str) -> Option<JType> {
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

    fn name(self) -> &'static str {
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
    fn jtype(self) -> JType {
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

/// Every keyword with a rule, in the order Ajv registers them, with the data types it applies
/// to (none: any). The order is that of Ajv's strict type checks and, filtered by data type,
/// the order a group's keywords are evaluated in (see [`keywords_of`]).
const RULES: &[(&str, &[JType])] = &[
    ("$dynamicAnchor", &[]),
    ("$dynamicRef", &[]),
    ("$recursiveAnchor", &[]),
    ("$recursiveRef", &[]),
    ("$ref", &[]),
    ("maximum", &[JType::Number]),
    ("minimum", &[JType::Number]),
    ("exclusiveMaximum", &[JType::Number]),
    ("exclusiveMinimum", &[JType::Number]),
    ("multipleOf", &[JType::Number]),
    ("maxLength", &[JType::String]),
    ("minLength", &[JType::String]),
    ("pattern", &[JType::String]),
    ("maxProperties", &[JType::Object]),
    ("minProperties", &[JType::Object]),
    ("required", &[JType::Object]),
    ("maxItems", &[JType::Array]),
    ("minItems", &[JType::Array]),
    ("uniqueItems", &[JType::Array]),
    ("type", &[]),
    ("nullable", &[]),
    ("const", &[]),
    ("enum", &[]),
    ("not", &[]),
    ("anyOf", &[]),
    ("oneOf", &[]),
    ("allOf", &[]),
    ("if", &[]),
    ("then", &[]),
    ("else", &[]),
    ("propertyNames", &[JType::Object]),
    ("additionalProperties", &[JType::Object]),
    ("dependencies", &[JType::Object]),
    ("properties", &[JType::Object]),
    ("patternProperties", &[JType::Object]),
    ("prefixItems", &[JType::Array]),
    ("items", &[JType::Array]),
    ("contains", &[JType::Array]),
    ("format", &[JType::Number, JType::String]),
    ("dependentRequired", &[JType::Object]),
    ("dependentSchemas", &[JType::Object]),
    ("maxContains", &[JType::Array]),
    ("minContains", &[JType::Array]),
    ("unevaluatedProperties", &[JType::Object]),
    ("unevaluatedItems", &[JType::Array]),
    ("formatMaximum", &[JType::String]),
    ("formatMinimum", &[JType::String]),
    ("formatExclusiveMaximum", &[JType::String]),
    ("formatExclusiveMinimum", &[JType::String]),
];

/// The keywords of `group` (`None`: those without a data type), in evaluation order.
fn keywords_of(group: Option<Group>) -> &'static [&'static str] {
    static GROUPS: std::sync::LazyLock<[Vec<&'static str>; 5]> = std::sync::LazyLock::new(|| {
        let of = |t: Option<JType>| {
            RULES
                .iter()
                .filter(|(_, types)| match t {
                    None => types.is_empty(),
                    Some(t) => types.contains(&t),
                })
                .map(|&(keyword, _)| keyword)
                .collect()
        };
        let mut array: Vec<&'static str> = of(Some(JType::Array));
        // Ajv registers `prefixItems`, `items` and `contains` with `before: "uniqueItems"`,
        // which moves them ahead of it in the array group (not in the strict-types order).
        for keyword in ["prefixItems", "items", "contains"] {
            array.retain(|k| *k != keyword);
            let at = array
                .iter()
                .position(|k| *k == "uniqueItems")
                .unwrap_or(array.len());
            array.insert(at, keyword);
        }
        [
            of(None),
            of(Some(JType::Number)),
            of(Some(JType::String)),
            array,
            of(Some(JType::Object)),
        ]
    });
    let at = match group {
        None => 0,
        Some(Group::Number) => 1,
        Some(Group::String) => 2,
        Some(Group::Array) => 3,
        Some(Group::Object) => 4,
    };
    &GROUPS[at]
}

/// Keywords Ajv knows without a rule (core, metadata, content), plus `x-kindgi-tunable`.
/// `$anchor` is not among them: Ajv resolves anchors but strict mode calls it unknown.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "$vocabulary",
    "$comment",
    "definitions",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "$async",
    "x-kindgi-tunable",
];

fn is_rule(key: &str) -> bool {
    RULES.iter().any(|&(keyword, _)| keyword == key)
}

fn has_rules(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| is_rule(k))
}

fn has_rules_but_ref(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| k != "$ref" && is_rule(k))
}

/// Ajv's `hasRef`: any reference keyword anywhere inside (constants included).
fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| {
            matches!(
                k.as_str(),
                "$ref" | "$recursiveRef" | "$recursiveAnchor" | "$dynamicRef" | "$dynamicAnchor"
            ) || has_ref(v)
        }),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
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
        /// (see [`static_annotations`]).
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

/// Compile options (the parts of Ajv's options upstream varies).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub(crate) strict: bool,
    pub(crate) allow_union_types: bool,
    /// Ajv's `validateFormats`; off only for the meta-schemas, which Ajv adds with formats off,
    /// so a schema's `pattern` is judged by compiling it, not by the `regex` format.
    pub(crate) validate_formats: bool,
}

/// Most schema nesting levels (subschemas plus separately compiled references) followed.
pub(crate) const MAX_DEPTH: usize = 128;
/// Most nodes one compilation may produce (a schema whose references multiply is refused).
const MAX_NODES: usize = 200_000;
/// Ajv's reference resolution recurses without a bound and overflows the stack on some cyclic
/// `$id` aliases; runstart stops here and answers with Ajv's message.
const MAX_RESOLVE_DEPTH: usize = 64;

type EnvId = usize;

#[derive(Debug, Clone)]
enum Alias {
    Path(String),
    Env(EnvId),
}

#[derive(Debug, Clone, Copy)]
enum Target<'s> {
    Inline(&'s Value),
    Env(EnvId),
}

struct Env<'s> {
    schema: &'s Value,
    root: EnvId,
    base_id: String,
    meta: bool,
    local_refs: HashMap<String, &'s Value>,
    refs: HashMap<String, Target<'s>>,
    dyn_anchors: HashSet<String>,
    func: Option<FuncId>,
}

#[derive(Clone)]
struct Cx {
    env: EnvId,
    base_id: String,
    err: String,
    data_types: Vec<JType>,
    defined: Rc<RefCell<HashSet<String>>>,
    depth: usize,
}

/// The 2020-12 meta-schema documents, which every schema may reference by `$id`.
pub(super) fn meta_documents() -> [&'static Value; 8] {
    use referencing::meta;
    [
        &**meta::DRAFT202012,
        &**meta::DRAFT202012_CORE,
        &**meta::DRAFT202012_APPLICATOR,
        &**meta::DRAFT202012_UNEVALUATED,
        &**meta::DRAFT202012_VALIDATION,
        &**meta::DRAFT202012_META_DATA,
        &**meta::DRAFT202012_FORMAT_ANNOTATION,
        &**meta::DRAFT202012_CONTENT,
    ]
}

/// The `$id` of the draft 2020-12 meta-schema.
pub(crate) const META_SCHEMA_ID: &str = "https://json-schema.org/draft/2020-12/schema";

pub(crate) struct Compiler<'s> {
    opts: Options,
    nodes: Vec<Node>,
    funcs: Vec<NodeId>,
    envs: Vec<Env<'s>>,
    refs: HashMap<String, Alias>,
    schemas: HashMap<String, EnvId>,
    compiling: Vec<EnvId>,
    resolve_depth: usize,
    meta_loaded: bool,
    track_evaluated: bool,
}

type R<T> = Result<T, SchemaError>;

impl<'s> Compiler<'s> {
    pub(crate) fn new(opts: Options) -> Compiler<'s> {
        Compiler {
            opts,
            nodes: Vec::new(),
            funcs: Vec::new(),
            envs: Vec::new(),
            refs: HashMap::new(),
            schemas: HashMap::new(),
            compiling: Vec::new(),
            resolve_depth: 0,
            meta_loaded: false,
            track_evaluated: false,
        }
    }

    /// Ajv's `_addSchema` and `compile` for `schema`; `meta_check` runs where Ajv validates the
    /// schema against its meta-schema (after collecting `$id`s, before compiling).
    pub(crate) fn compile(
        mut self,
        schema: &'s Value,
        meta: bool,
        meta_check: impl FnOnce(&Value) -> R<()>,
    ) -> R<Program> {
        if !schema.is_object() && !schema.is_boolean() {
            return Err(SchemaError::invalid(
                "schema must be object or boolean".to_owned(),
            ));
        }
        if json_depth(schema) > MAX_DEPTH {
            return Err(SchemaError::too_deep(format!(
                "schema nesting deeper than {MAX_DEPTH} levels"
            )));
        }
        let env = self.add_root(schema, meta)?;
        meta_check(schema)?;
        let entry = self.compile_env(env, 0)?;
        Ok(Program {
            nodes: self.nodes,
            funcs: self.funcs,
            entry,
            track_evaluated: self.track_evaluated,
        })
    }

    fn add_root(&mut self, schema: &'s Value, meta: bool) -> R<EnvId> {
        let id = schema.get("$id").and_then(Value::as_str).unwrap_or("");
        let base = uri::normalize_id(id);
        let local_refs = self.schema_refs(schema, &base)?;
        let env = self.envs.len();
        self.envs.push(Env {
            schema,
            root: env,
            base_id: base.clone(),
            meta,
            local_refs,
            refs: HashMap::new(),
            dyn_anchors: HashSet::new(),
            func: None,
        });
        if !base.is_empty() && !base.starts_with('#') {
            let taken = self.refs.contains_key(&base)
                || self.schemas.contains_key(&base)
                || (!meta
                    && meta_documents()
                        .iter()
                        .any(|d| d.get("$id").and_then(Value::as_str) == Some(base.as_str())));
            if taken {
                return Err(SchemaError::invalid(format!(
                    "schema with key or id \"{base}\" already exists"
                )));
            }
            self.refs.insert(base, Alias::Env(env));
        }
        Ok(env)
    }

    fn load_meta(&mut self) -> R<()> {
        if self.meta_loaded {
            return Ok(());
        }
        self.meta_loaded = true;
        for doc in meta_documents() {
            let id = uri::normalize_id(doc.get("$id").and_then(Value::as_str).unwrap_or(""));
            if let Some(Alias::Env(e)) = self.refs.get(&id) {
                // The document being compiled is itself a meta-schema.
                let e = *e;
                self.schemas.insert(id, e);
                continue;
            }
            let env = self.add_root(doc, true)?;
            self.schemas.insert(id, env);
        }
        Ok(())
    }

    /// Ajv's `getSchemaRefs`: registers every `$id`, `$anchor` and `$dynamicAnchor` below the
    /// root, returning the local (fragment-only) references.
    fn schema_refs(&mut self, schema: &'s Value, base: &str) -> R<HashMap<String, &'s Value>> {
        let mut local: HashMap<String, &'s Value> = HashMap::new();
        let Value::Object(root) = schema else {
            return Ok(local);
        };
        let sch_id = uri::normalize_id(root.get("$id").and_then(Value::as_str).unwrap_or(base));
        let prefix = uri::full_path(&sch_id);
        let mut seen: HashSet<String> = HashSet::new();
        // (schema, json pointer, parent's base id)
        let mut stack: Vec<(&'s Value, String, String, usize)> = Vec::new();
        push_children(root, "", &sch_id, &mut stack, 0);
        while let Some((sch, ptr, parent_base, depth)) = stack.pop() {
            let Value::Object(m) = sch else { continue };
            if depth > MAX_DEPTH * 4 {
                return Err(SchemaError::too_deep(format!(
                    "schema nesting deeper than {MAX_DEPTH} levels"
                )));
            }
            let full = format!("{prefix}{ptr}");
            let mut inner = parent_base;
            let mut add = |this: &mut Self, r: &str, inner: &str| -> R<String> {
                let r = uri::normalize_id(&if inner.is_empty() {
                    r.to_owned()
                } else {
                    uri::resolve(inner, r)
                });
                if !seen.insert(r.clone()) {
                    return Err(SchemaError::invalid(format!(
                        "reference \"{r}\" resolves to more than one schema"
                    )));
                }
                let existing = match this.refs.get(&r) {
                    Some(Alias::Path(p)) => match this.refs.get(p) {
                        Some(Alias::Env(e)) => Some(*e),
                        _ => None,
                    },
                    Some(Alias::Env(e)) => Some(*e),
                    None => None,
                };
                if let Some(e) = existing {
                    if this.envs[e].schema != sch {
                        return Err(SchemaError::invalid(format!(
                            "reference \"{r}\" resolves to more than one schema"
                        )));
                    }
                } else if r != uri::normalize_id(&full) {
                    if r.starts_with('#') {
                        if let Some(prev) = local.get(&r)
                            && *prev != sch
                        {
                            return Err(SchemaError::invalid(format!(
                                "reference \"{r}\" resolves to more than one schema"
                            )));
                        }
                        local.insert(r.clone(), sch);
                    } else {
                        this.refs.insert(r.clone(), Alias::Path(full.clone()));
                    }
                }
                Ok(r)
            };
            if let Some(Value::String(id)) = m.get("$id") {
                inner = add(self, id, &inner)?;
            }
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(a)) = m.get(key) {
                    let ok = a
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                        && a.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
                    if !ok {
                        return Err(SchemaError::invalid(format!("invalid anchor \"{a}\"")));
                    }
                    add(self, &format!("#{a}"), &inner)?;
                }
            }
            push_children(m, &ptr, &inner, &mut stack, depth + 1);
        }
        Ok(local)
    }

    fn new_env(&mut self, schema: &'s Value, root: EnvId, base_id: String) -> EnvId {
        let meta = false;
        self.envs.push(Env {
            schema,
            root,
            base_id,
            meta,
            local_refs: HashMap::new(),
            refs: HashMap::new(),
            dyn_anchors: HashSet::new(),
            func: None,
        });
        self.envs.len() - 1
    }

    fn compile_env(&mut self, env: EnvId, depth: usize) -> R<FuncId> {
        let same = self.compiling.iter().copied().find(|&e| {
            std::ptr::eq(self.envs[e].schema, self.envs[env].schema)
                && self.envs[e].root == self.envs[env].root
                && self.envs[e].base_id == self.envs[env].base_id
        });
        if let Some(e) = same
            && let Some(f) = self.envs[e].func
        {
            return Ok(f);
        }
        if let Some(f) = self.envs[env].func {
            return Ok(f);
        }
        if depth > MAX_DEPTH {
            return Err(SchemaError::too_deep(format!(
                "schema nesting deeper than {MAX_DEPTH} levels"
            )));
        }
        let f = self.funcs.len();
        self.funcs.push(usize::MAX);
        self.envs[env].func = Some(f);
        self.compiling.push(env);
        let root = self.envs[env].root;
        let base_id = if self.envs[env].base_id.is_empty() {
            uri::full_path(&self.envs[root].base_id)
        } else {
            self.envs[env].base_id.clone()
        };
        let mut cx = Cx {
            env,
            base_id,
            err: "#".to_owned(),
            data_types: Vec::new(),
            defined: Rc::new(RefCell::new(HashSet::new())),
            depth,
        };
        let schema = self.envs[env].schema;
        let result = self.node(&mut cx, schema, true);
        self.compiling.pop();
        match result {
            Ok(node) => {
                self.funcs[f] = node;
                Ok(f)
            }
            Err(e) => {
                self.envs[env].func = None;
                Err(e)
            }
        }
    }

    fn push(&mut self, node: Node) -> R<NodeId> {
        if self.nodes.len() >= MAX_NODES {
            return Err(SchemaError::new(
                SchemaErrorKind::TooLarge,
                format!("schema too large: compiling it takes more than {MAX_NODES} subschemas"),
            ));
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn check_unknown(&self, m: &Map<String, Value>) -> R<()> {
        if !self.opts.strict {
            return Ok(());
        }
        for key in crate::js::keys(m) {
            if !is_rule(key) && !ANNOTATIONS.contains(&key.as_str()) {
                return Err(SchemaError::strict(
                    key,
                    format!("unknown keyword: \"{key}\""),
                ));
            }
        }
        Ok(())
    }

    /// Ajv's `alwaysValidSchema` (which checks the subschema's keywords on the way).
    fn always_valid(&self, schema: &Value) -> R<bool> {
        match schema {
            Value::Bool(b) => Ok(*b),
            Value::Object(m) if m.is_empty() => Ok(true),
            Value::Object(m) => {
                self.check_unknown(m)?;
                Ok(!has_rules(m))
            }
            _ => Ok(false),
        }
    }

    fn node(&mut self, cx: &mut Cx, schema: &'s Value, top: bool) -> R<NodeId> {
        if cx.depth > MAX_DEPTH {
            return Err(SchemaError::too_deep(format!(
                "schema nesting deeper than {MAX_DEPTH} levels at \"{}\"",
                cx.err
            )));
        }
        match schema {
            Value::Bool(true) => self.push(Node::True),
            Value::Bool(false) => self.push(Node::False {
                path: cx.err.clone(),
            }),
            Value::Object(m) => {
                self.check_unknown(m)?;
                if !has_rules(m) {
                    return self.push(Node::True);
                }
                if !top && let Some(Value::String(id)) = m.get("$id") {
                    cx.base_id = uri::resolve_url(&cx.base_id, id);
                }
                let steps = self.type_and_keywords(cx, m, schema)?;
                self.push(Node::Obj(steps))
            }
            _ => Err(SchemaError::invalid(
                "schema must be object or boolean".to_owned(),
            )),
        }
    }

    fn schema_types(m: &Map<String, Value>) -> R<Vec<JType>> {
        let mut types = Vec::new();
        match m.get("type") {
            None => {}
            Some(Value::String(t)) => types.push(
                JType::parse(t)
                    .ok_or_else(|| format!("type must be JSONType or JSONType[]: {t}"))?,
            ),
            Some(Value::Array(ts)) => {
                for t in ts {
                    let parsed = t.as_str().and_then(JType::parse).ok_or_else(|| {
                        format!("type must be JSONType or JSONType[]: {}", js_join(ts))
                    })?;
                    types.push(parsed);
                }
            }
            Some(other) => {
                return Err(SchemaError::invalid(format!(
                    "type must be JSONType or JSONType[]: {other}"
                )));
            }
        }
        let nullable = m.get("nullable");
        if types.contains(&JType::Null) {
            if nullable == Some(&Value::Bool(false)) {
                return Err(SchemaError::invalid(
                    "type: null contradicts nullable: false".to_owned(),
                ));
            }
        } else {
            if types.is_empty() && nullable.is_some() {
                return Err(SchemaError::invalid(
                    "\"nullable\" cannot be used without \"type\"".to_owned(),
                ));
            }
            if nullable == Some(&Value::Bool(true)) {
                types.push(JType::Null);
            }
        }
        Ok(types)
    }

    fn type_err(cx: &Cx, m: &Map<String, Value>, types: &[JType]) -> TypeErr {
        let declared = m.get("type").cloned().unwrap_or(Value::Null);
        let text = match &declared {
            Value::String(s) => s.clone(),
            Value::Array(a) => js_join(a),
            other => other.to_string(),
        };
        TypeErr {
            schema_path: format!("{}/type", cx.err),
            types: types.to_vec(),
            message: format!("must be {text}"),
            param: declared,
        }
    }

    fn group_used(m: &Map<String, Value>, keywords: &[&str]) -> bool {
        keywords.iter().any(|k| m.contains_key(*k))
    }

    fn type_and_keywords(
        &mut self,
        cx: &mut Cx,
        m: &'s Map<String, Value>,
        this: &'s Value,
    ) -> R<Vec<Step>> {
        let types = Self::schema_types(m)?;
        let mut steps = Vec::new();
        let single_with_rules = types.len() == 1
            && match types[0] {
                JType::Number => Self::group_used(m, keywords_of(Some(Group::Number))),
                JType::String => Self::group_used(m, keywords_of(Some(Group::String))),
                JType::Array => Self::group_used(m, keywords_of(Some(Group::Array))),
                JType::Object => Self::group_used(m, keywords_of(Some(Group::Object))),
                _ => false,
            };
        let checked = !types.is_empty() && !single_with_rules;
        if checked {
            steps.push(Step::TypeCheck(Self::type_err(cx, m, &types)));
        }
        if let Some(Value::String(r)) = m.get("$ref")
            && !has_rules_but_ref(m)
        {
            let step = self.reference(cx, r)?;
            steps.push(step);
            return Ok(steps);
        }
        self.strict_types(cx, m, &types)?;
        for group in [
            None,
            Some(Group::Number),
            Some(Group::String),
            Some(Group::Array),
            Some(Group::Object),
        ] {
            let keywords = keywords_of(group);
            if !Self::group_used(m, keywords) {
                continue;
            }
            let mut inner = Vec::new();
            for kw in keywords {
                if m.contains_key(*kw) {
                    self.keyword(cx, m, this, kw, group, &mut inner)?;
                }
            }
            match group {
                None => steps.extend(inner),
                Some(g) => {
                    let else_err = (types.len() == 1 && types[0] == g.jtype() && !checked)
                        .then(|| Self::type_err(cx, m, &types));
                    steps.push(Step::Group {
                        group: g,
                        steps: inner,
                        else_err,
                    });
                }
            }
        }
        Ok(steps)
    }

    fn strict_types(&self, cx: &mut Cx, m: &Map<String, Value>, types: &[JType]) -> R<()> {
        let env = &self.envs[cx.env];
        if env.meta || !self.opts.strict {
            return Ok(());
        }
        let at = || format!("{}{}", env.base_id, cx.err);
        let includes = |ts: &[JType], t: JType| {
            ts.contains(&t) || (t == JType::Integer && ts.contains(&JType::Number))
        };
        if !types.is_empty() {
            if cx.data_types.is_empty() {
                cx.data_types = types.to_vec();
            } else {
                for &t in types {
                    if !includes(&cx.data_types, t) {
                        let ctx: Vec<&str> = cx.data_types.iter().map(|t| t.name()).collect();
                        return Err(SchemaError::strict(
                            "type",
                            format!(
                                "type \"{}\" not allowed by context \"{}\" at \"{}\" (strictTypes)",
                                t.name(),
                                ctx.join(","),
                                at()
                            ),
                        ));
                    }
                }
                let mut narrowed = Vec::new();
                for &t in &cx.data_types {
                    if includes(types, t) {
                        narrowed.push(t);
                    } else if types.contains(&JType::Integer) && t == JType::Number {
                        narrowed.push(JType::Integer);
                    }
                }
                cx.data_types = narrowed;
            }
        }
        if !self.opts.allow_union_types
            && types.len() > 1
            && !(types.len() == 2 && types.contains(&JType::Null))
        {
            return Err(SchemaError::strict(
                "type",
                format!(
                    "use allowUnionTypes to allow union type keyword at \"{}\" (strictTypes)",
                    at()
                ),
            ));
        }
        for &(kw, kts) in RULES {
            if !m.contains_key(kw) {
                continue;
            }
            let applicable = |t: JType| {
                cx.data_types.contains(&t)
                    || (t == JType::Number && cx.data_types.contains(&JType::Integer))
            };
            if !kts.is_empty() && !kts.iter().any(|&t| applicable(t)) {
                let names: Vec<&str> = kts.iter().map(|t| t.name()).collect();
                return Err(SchemaError::strict(
                    kw,
                    format!(
                        "missing type \"{}\" for keyword \"{kw}\" at \"{}\" (strictTypes)",
                        names.join(","),
                        at()
                    ),
                ));
            }
        }
        Ok(())
    }

    fn current_func(&self, cx: &Cx) -> FuncId {
        // ok-free: the env being compiled always has its function allocated first.
        self.envs[cx.env].func.unwrap_or(0)
    }

    fn reference(&mut self, cx: &mut Cx, r: &str) -> R<Step> {
        let root = self.envs[cx.env].root;
        if (r == "#" || r == "#/")
            && (cx.base_id == self.envs[root].base_id
                || cx.base_id == uri::full_path(&self.envs[root].base_id))
        {
            let f = if cx.env == root {
                self.current_func(cx)
            } else {
                self.compile_env(root, cx.depth + 1)?
            };
            return Ok(Step::Call(f));
        }
        match self.resolve_ref(root, &cx.base_id.clone(), r, cx.depth)? {
            None => Err(SchemaError::invalid(format!(
                "can't resolve reference {r} from id {}",
                cx.base_id
            ))),
            Some(Target::Env(e)) => {
                let f = self.compile_env(e, cx.depth + 1)?;
                Ok(Step::Call(f))
            }
            Some(Target::Inline(schema)) => {
                let mut sub = Cx {
                    err: r.to_owned(),
                    data_types: Vec::new(),
                    depth: cx.depth + 1,
                    ..cx.clone()
                };
                let node = self.node(&mut sub, schema, false)?;
                Ok(Step::Inline(node))
            }
        }
    }

    fn resolve_ref(
        &mut self,
        root: EnvId,
        base: &str,
        r: &str,
        depth: usize,
    ) -> R<Option<Target<'s>>> {
        let full = uri::resolve_url(base, r);
        if let Some(t) = self.envs[root].refs.get(&full) {
            return Ok(Some(*t));
        }
        let mut found = self.resolve(root, &full)?;
        if found.is_none()
            && let Some(s) = self.envs[root].local_refs.get(&full).copied()
        {
            found = Some(self.new_env(s, root, base.to_owned()));
        }
        let Some(e) = found else { return Ok(None) };
        let target = if match self.envs[e].schema {
            Value::Bool(_) => true,
            other => !has_ref(other),
        } {
            Target::Inline(self.envs[e].schema)
        } else {
            self.compile_env(e, depth + 1)?;
            Target::Env(e)
        };
        self.envs[root].refs.insert(full, target);
        Ok(Some(target))
    }

    fn lookup(&mut self, id: &str) -> R<Option<Alias>> {
        if let Some(a) = self.refs.get(id) {
            return Ok(Some(a.clone()));
        }
        if let Some(e) = self.schemas.get(id) {
            return Ok(Some(Alias::Env(*e)));
        }
        if !self.meta_loaded && id.starts_with("https://json-schema.org/draft/2020-12/") {
            self.load_meta()?;
            return self.lookup(id);
        }
        Ok(None)
    }

    fn resolve(&mut self, root: EnvId, r: &str) -> R<Option<EnvId>> {
        let mut r = r.to_owned();
        for _ in 0..MAX_RESOLVE_DEPTH {
            match self.lookup(&r)? {
                Some(Alias::Path(p)) => r = p,
                Some(Alias::Env(e)) => return Ok(Some(e)),
                None => return self.resolve_schema(root, &r),
            }
        }
        Err(SchemaError::too_deep(
            "Maximum call stack size exceeded".to_owned(),
        ))
    }

    fn resolve_schema(&mut self, root: EnvId, r: &str) -> R<Option<EnvId>> {
        self.resolve_depth += 1;
        let out = if self.resolve_depth > MAX_RESOLVE_DEPTH {
            Err(SchemaError::too_deep(
                "Maximum call stack size exceeded".to_owned(),
            ))
        } else {
            self.resolve_schema_inner(root, r)
        };
        self.resolve_depth -= 1;
        out
    }

    fn resolve_schema_inner(&mut self, root: EnvId, r: &str) -> R<Option<EnvId>> {
        let p = uri::parse(r);
        let mut no_frag = p.clone();
        no_frag.fragment = None;
        let ref_path = format!("{}#", uri::serialize(&no_frag));
        let mut base = uri::full_path(&self.envs[root].base_id);
        let root_schema = self.envs[root].schema;
        let non_empty = root_schema.as_object().is_some_and(|m| !m.is_empty());
        if non_empty && ref_path == base {
            let view = (root_schema, self.envs[root].base_id.clone(), root);
            return self.json_pointer(&p, view);
        }
        let id = uri::normalize_id(&ref_path);
        match self.lookup(&id)? {
            Some(Alias::Path(s)) => {
                let Some(e) = self.resolve_schema(root, &s)? else {
                    return Ok(None);
                };
                if !self.envs[e].schema.is_object() {
                    return Ok(None);
                }
                let view = (
                    self.envs[e].schema,
                    self.envs[e].base_id.clone(),
                    self.envs[e].root,
                );
                self.json_pointer(&p, view)
            }
            Some(Alias::Env(e)) => {
                if !self.envs[e].schema.is_object() {
                    return Ok(None);
                }
                if self.envs[e].func.is_none() {
                    self.compile_env(e, 1)?;
                }
                if id == uri::normalize_id(r) {
                    let schema = self.envs[e].schema;
                    if let Some(Value::String(sid)) = schema.get("$id") {
                        base = uri::resolve_url(&base, sid);
                    }
                    return Ok(Some(self.new_env(schema, root, base)));
                }
                let view = (
                    self.envs[e].schema,
                    self.envs[e].base_id.clone(),
                    self.envs[e].root,
                );
                self.json_pointer(&p, view)
            }
            None => Ok(None),
        }
    }

    fn json_pointer(
        &mut self,
        p: &uri::UriRef,
        view: (&'s Value, String, EnvId),
    ) -> R<Option<EnvId>> {
        let (mut schema, mut base, root) = view;
        let Some(frag) = p.fragment.as_deref().filter(|f| f.starts_with('/')) else {
            return Ok(None);
        };
        for part in frag[1..].split('/') {
            if schema.is_boolean() {
                return Ok(None);
            }
            let key = unescape_fragment(part).ok_or_else(|| "URI malformed".to_owned())?;
            let next = match schema {
                Value::Object(m) => m.get(&key),
                Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            };
            let Some(next) = next else { return Ok(None) };
            schema = next;
            if let Some(Value::String(sid)) = schema.get("$id")
                && !sid.is_empty()
                && !matches!(
                    part,
                    "properties" | "patternProperties" | "enum" | "dependencies" | "definitions"
                )
            {
                base = uri::resolve_url(&base, sid);
            }
        }
        let mut env = None;
        if let Value::Object(m) = schema
            && let Some(Value::String(r)) = m.get("$ref")
            && !r.is_empty()
            && !has_rules_but_ref(m)
        {
            let target = uri::resolve_url(&base, r);
            env = self.resolve_schema(root, &target)?;
        }
        let env = match env {
            Some(e) => e,
            None => self.new_env(schema, root, base),
        };
        let root_of = self.envs[env].root;
        if std::ptr::eq(self.envs[env].schema, self.envs[root_of].schema) {
            Ok(None)
        } else {
            Ok(Some(env))
        }
    }

    fn child_same(cx: &Cx, err: String) -> Cx {
        Cx {
            err,
            depth: cx.depth + 1,
            ..cx.clone()
        }
    }

    /// A context for a subschema that applies to other data (a property, an item): Ajv
    /// restarts the defined-properties set, for the child and for the rest of the parent.
    fn child_data(cx: &mut Cx, err: String, data_types: Vec<JType>) -> Cx {
        cx.defined = Rc::new(RefCell::new(HashSet::new()));
        Cx {
            err,
            data_types,
            depth: cx.depth + 1,
            ..cx.clone()
        }
    }

    fn sub(&mut self, mut child: Cx, schema: &'s Value) -> R<NodeId> {
        self.node(&mut child, schema, false)
    }

    /// A strict-mode violation about `keyword` when strict mode is on; nothing otherwise.
    fn strict(&self, keyword: &str, msg: String) -> R<()> {
        if self.opts.strict {
            Err(SchemaError::strict(keyword, msg))
        } else {
            Ok(())
        }
    }

    // One method per family of keywords, one arm per keyword, each in Ajv's words: guards
    // inside the arms read closer to Ajv.
    fn keyword(
        &mut self,
        cx: &mut Cx,
        m: &'s Map<String, Value>,
        this: &'s Value,
        kw: &str,
        group: Option<Group>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        let Some(value) = m.get(kw) else {
            return Ok(());
        };
        let k = Kw {
            m,
            this,
            kw,
            value,
            path: format!("{}/{kw}", cx.err),
            group,
        };
        match kw {
            "$dynamicAnchor" | "$recursiveAnchor" | "$dynamicRef" | "$recursiveRef" | "$ref"
            | "const" | "enum" => self.core_keyword(cx, k, out),
            "not" | "anyOf" | "oneOf" | "allOf" | "if" | "then" | "else" => {
                self.applicator_keyword(cx, k, out)
            }
            "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" | "multipleOf"
            | "maxLength" | "minLength" | "maxProperties" | "minProperties" | "maxItems"
            | "minItems" => self.number_keyword(k, out),
            "pattern"
            | "format"
            | "formatMaximum"
            | "formatMinimum"
            | "formatExclusiveMaximum"
            | "formatExclusiveMinimum" => self.string_keyword(cx, k, out),
            "uniqueItems" | "prefixItems" | "items" | "contains" | "maxContains"
            | "minContains" | "unevaluatedItems" => self.array_keyword(cx, k, out),
            "required" | "propertyNames" | "additionalProperties" | "unevaluatedProperties" => {
                self.object_keyword(cx, k, out)
            }
            "dependentRequired" | "dependencies" | "dependentSchemas" => {
                self.dependencies_keyword(cx, k, out)
            }
            "properties" | "patternProperties" => self.properties_keyword(cx, k, out),
            _ => Ok(()),
        }
    }

    /// References, dynamic anchors, `const` and `enum`.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn core_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            this,
            kw,
            value,
            path,
            ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "$dynamicAnchor" => {
                let Value::String(name) = value else {
                    return Ok(());
                };
                let root = self.envs[cx.env].root;
                self.envs[root].dyn_anchors.insert(name.clone());
                let func = if cx.err == "#" {
                    self.current_func(cx)
                } else {
                    let base = self.envs[root].base_id.clone();
                    let meta = self.envs[root].meta;
                    let e = self.new_env(this, root, base);
                    self.envs[e].meta = meta;
                    self.compile_env(e, cx.depth + 1)?
                };
                out.push(Step::DynamicAnchor {
                    name: name.clone(),
                    func,
                });
            }
            "$recursiveAnchor" => {
                if value == &Value::Bool(true) {
                    let root = self.envs[cx.env].root;
                    self.envs[root].dyn_anchors.insert(String::new());
                    let func = self.current_func(cx);
                    out.push(Step::DynamicAnchor {
                        name: String::new(),
                        func,
                    });
                }
            }
            "$dynamicRef" | "$recursiveRef" => {
                let Value::String(r) = value else {
                    return Ok(());
                };
                let Some(anchor) = r.strip_prefix('#') else {
                    return Err(SchemaError::invalid(format!(
                        "\"{kw}\" only supports hash fragment reference"
                    )));
                };
                let root = self.envs[cx.env].root;
                let known = self.envs[root].dyn_anchors.contains(anchor);
                out.push(Step::DynamicRef {
                    anchor: known.then(|| anchor.to_owned()),
                    fallback: self.current_func(cx),
                });
            }
            "$ref" => {
                let Value::String(r) = value else {
                    return Ok(());
                };
                let step = self.reference(cx, r)?;
                out.push(step);
            }
            "const" => out.push(Step::Const {
                value: value.clone(),
                param: js_json(value),
                path,
            }),
            "enum" => {
                let values = array_value(kw, value)?;
                if values.is_empty() {
                    return Err(SchemaError::invalid(
                        "enum must have non-empty array".to_owned(),
                    ));
                }
                out.push(Step::Enum {
                    values: values.clone(),
                    param: js_json(value),
                    path,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// `not`, `anyOf`/`oneOf`/`allOf` and `if`/`then`/`else`.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn applicator_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            m, kw, value, path, ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "not" => {
                let node = if self.always_valid(value)? {
                    None
                } else {
                    Some(self.sub(Self::child_same(cx, path.clone()), value)?)
                };
                out.push(Step::Not { node, path });
            }
            "anyOf" | "oneOf" | "allOf" => {
                let list = array_value(kw, value)?;
                if kw == "anyOf" {
                    for s in list {
                        if self.always_valid(s)? {
                            break;
                        }
                    }
                    let mut nodes = Vec::new();
                    for (i, s) in list.iter().enumerate() {
                        nodes.push(self.sub(Self::child_same(cx, format!("{path}/{i}")), s)?);
                    }
                    out.push(Step::AnyOf { nodes, path });
                } else if kw == "oneOf" {
                    let mut nodes = Vec::new();
                    for (i, s) in list.iter().enumerate() {
                        nodes.push(if self.always_valid(s)? {
                            None
                        } else {
                            Some(self.sub(Self::child_same(cx, format!("{path}/{i}")), s)?)
                        });
                    }
                    out.push(Step::OneOf { nodes, path });
                } else {
                    let mut nodes = Vec::new();
                    for (i, s) in list.iter().enumerate() {
                        if !self.always_valid(s)? {
                            nodes.push(self.sub(Self::child_same(cx, format!("{path}/{i}")), s)?);
                        }
                    }
                    out.push(Step::AllOf(nodes));
                }
            }
            "if" => {
                if !m.contains_key("then") && !m.contains_key("else") {
                    self.strict(
                        "if",
                        "\"if\" without \"then\" and \"else\" is ignored".to_owned(),
                    )?;
                }
                let has = |this: &Self, k: &str| -> R<bool> {
                    match m.get(k) {
                        Some(s) => Ok(!this.always_valid(s)?),
                        None => Ok(false),
                    }
                };
                let has_then = has(self, "then")?;
                let has_else = has(self, "else")?;
                if !has_then && !has_else {
                    return Ok(());
                }
                let cond = self.sub(Self::child_same(cx, path.clone()), value)?;
                let clause = |this: &mut Self, k: &str, yes: bool| -> R<Option<NodeId>> {
                    match (yes, m.get(k)) {
                        (true, Some(s)) => Ok(Some(
                            this.sub(Self::child_same(cx, format!("{}/{k}", cx.err)), s)?,
                        )),
                        _ => Ok(None),
                    }
                };
                let then = clause(self, "then", has_then)?;
                let els = clause(self, "else", has_else)?;
                out.push(Step::If {
                    cond,
                    then,
                    els,
                    static_annotations: static_annotations(value),
                    path,
                });
            }
            "then" | "else" => {
                if !m.contains_key("if") {
                    self.strict(kw, format!("\"{kw}\" without \"if\" is ignored"))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Numeric limits: `maximum` and the like, `multipleOf`, and the length and count limits.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn number_keyword(&mut self, k: Kw<'_, 's>, out: &mut Vec<Step>) -> R<()> {
        let Kw {
            kw, value, path, ..
        } = k;
        match kw {
            "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" => {
                let (cmp, text) = match kw {
                    "maximum" => (Cmp::Max, "<="),
                    "minimum" => (Cmp::Min, ">="),
                    "exclusiveMaximum" => (Cmp::ExMax, "<"),
                    _ => (Cmp::ExMin, ">"),
                };
                let limit = number_value(kw, value)?;
                let shown = value
                    .as_number()
                    .map(super::text::js_number_of)
                    .unwrap_or_default();
                out.push(Step::Limit {
                    cmp,
                    limit,
                    param: serde_json::json!({"comparison": text, "limit": js_json(value)}),
                    message: format!("must be {text} {shown}"),
                    path,
                });
            }
            "multipleOf" => {
                let by = number_value(kw, value)?;
                let shown = value
                    .as_number()
                    .map(super::text::js_number_of)
                    .unwrap_or_default();
                out.push(Step::MultipleOf {
                    by,
                    param: serde_json::json!({"multipleOf": js_json(value)}),
                    message: format!("must be multiple of {shown}"),
                    path,
                });
            }
            "maxLength" | "minLength" | "maxProperties" | "minProperties" | "maxItems"
            | "minItems" => {
                let limit = number_value(kw, value)?;
                let max = kw.starts_with("max");
                let shown = value
                    .as_number()
                    .map(super::text::js_number_of)
                    .unwrap_or_default();
                let what = if kw.ends_with("Length") {
                    "characters"
                } else if kw.ends_with("Properties") {
                    "properties"
                } else {
                    "items"
                };
                let message = format!(
                    "must NOT have {} than {shown} {what}",
                    if max { "more" } else { "fewer" }
                );
                let param = serde_json::json!({"limit": js_json(value)});
                out.push(match what {
                    "characters" => Step::Length {
                        max,
                        limit,
                        param,
                        message,
                        path,
                    },
                    "properties" => Step::PropCount {
                        max,
                        limit,
                        param,
                        message,
                        path,
                    },
                    _ => Step::ItemCount {
                        max,
                        limit,
                        param,
                        message,
                        path,
                    },
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// `pattern`, `format` and the `format*` limits.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn string_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            m,
            kw,
            value,
            path,
            group,
            ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "pattern" => {
                let source = string_value(kw, value)?;
                let re = Pattern::compile(source)?;
                out.push(Step::Pattern {
                    re,
                    source: source.clone(),
                    path,
                });
            }
            "format" if !self.opts.validate_formats => {}
            "format" => {
                let Value::String(name) = value else {
                    return Ok(());
                };
                let Some(ty) = format_type(name) else {
                    if self.opts.strict {
                        return Err(SchemaError::invalid(format!(
                            "unknown format \"{name}\" ignored in schema at path \"{}\"",
                            cx.err
                        )));
                    }
                    return Ok(());
                };
                let wanted = match group {
                    Some(Group::Number) => FormatType::Number,
                    _ => FormatType::String,
                };
                if ty == wanted && !matches!(name.as_str(), "password" | "binary") {
                    out.push(Step::Format {
                        name: name.clone(),
                        ty,
                        path,
                    });
                }
            }
            "formatMaximum"
            | "formatMinimum"
            | "formatExclusiveMaximum"
            | "formatExclusiveMinimum" => {
                if !m.contains_key("format") {
                    return Err(SchemaError::invalid(format!(
                        "parent schema must have dependencies of {kw}: format"
                    )));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Array keywords: `uniqueItems`, `prefixItems`, `items`, `contains` and its bounds, `unevaluatedItems`.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn array_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            m, kw, value, path, ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "uniqueItems" => {
                if value == &Value::Bool(true) {
                    let scalar = match m.get("items") {
                        Some(Value::Object(items)) => {
                            let ts = Self::schema_types(items).unwrap_or_default();
                            (!ts.is_empty()
                                && !ts.iter().any(|t| matches!(t, JType::Object | JType::Array)))
                            .then_some(ts)
                        }
                        _ => None,
                    };
                    out.push(Step::Unique { scalar, path });
                }
            }
            "prefixItems" => {
                let list = array_value(kw, value)?;
                let l = list.len() as f64;
                let min = m.get("minItems").and_then(Value::as_f64);
                let max = m.get("maxItems").and_then(Value::as_f64);
                let full = min == Some(l)
                    && (max == Some(l) || m.get("items") == Some(&Value::Bool(false)));
                if !full {
                    self.strict(
                        "prefixItems",
                        format!(
                        "\"prefixItems\" is {}-tuple, but minItems or maxItems/items are not specified or different at path \"{}\"",
                        list.len(),
                        cx.err
                    ))?;
                }
                let mut nodes = Vec::new();
                for (i, s) in list.iter().enumerate() {
                    nodes.push(if self.always_valid(s)? {
                        None
                    } else {
                        let child = Self::child_data(cx, format!("{path}/{i}"), Vec::new());
                        Some(self.sub(child, s)?)
                    });
                }
                out.push(Step::PrefixItems(nodes));
            }
            "items" => {
                if self.always_valid(value)? {
                    out.push(Step::EvaluateAll { props: false });
                    return Ok(());
                }
                let start = match m.get("prefixItems") {
                    Some(Value::Array(p)) => p.len(),
                    _ => 0,
                };
                let node = if start > 0 && value == &Value::Bool(false) {
                    None
                } else {
                    let child = Self::child_data(cx, path.clone(), Vec::new());
                    Some(self.sub(child, value)?)
                };
                out.push(Step::Items { start, node, path });
            }
            "contains" => {
                let min = m.get("minContains").and_then(Value::as_f64).unwrap_or(1.0);
                let max = m.get("maxContains").and_then(Value::as_f64);
                if max.is_none() && min == 0.0 {
                    self.strict(
                        "minContains",
                        "\"minContains\" == 0 without \"maxContains\": \"contains\" keyword ignored".to_owned(),
                    )?;
                    return Ok(());
                }
                let always_fail = max.is_some_and(|max| min > max);
                if always_fail {
                    self.strict(
                        "minContains",
                        "\"minContains\" > \"maxContains\" is always invalid".to_owned(),
                    )?;
                }
                let node = if always_fail || self.always_valid(value)? {
                    None
                } else {
                    let child = Self::child_data(cx, path.clone(), Vec::new());
                    Some(self.sub(child, value)?)
                };
                out.push(Step::Contains {
                    node,
                    min,
                    max,
                    always_fail,
                    path,
                });
            }
            "maxContains" | "minContains" => {
                if !m.contains_key("contains") {
                    self.strict(kw, format!("\"{kw}\" without \"contains\" is ignored"))?;
                }
            }
            "unevaluatedItems" => self.unevaluated(cx, value, path, false, out)?,
            _ => {}
        }
        Ok(())
    }

    /// Object keywords: `required`, `propertyNames`, `additionalProperties`,
    /// `unevaluatedProperties`.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn object_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            m, kw, value, path, ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "required" => {
                let list = array_value(kw, value)?;
                if list.is_empty() {
                    return Ok(());
                }
                let props: Vec<String> = list
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                let own = m.get("properties").and_then(Value::as_object);
                for r in &props {
                    let defined =
                        own.is_some_and(|p| p.contains_key(r)) || cx.defined.borrow().contains(r);
                    if !defined {
                        self.strict(
                            "required",
                            format!(
                            "required property \"{r}\" is not defined at \"{}{}\" (strictRequired)",
                            self.envs[cx.env].base_id, cx.err
                        ))?;
                    }
                }
                out.push(Step::Required { props, path });
            }
            "propertyNames" => {
                if self.always_valid(value)? {
                    return Ok(());
                }
                let child = Self::child_data(cx, path.clone(), vec![JType::String]);
                let node = self.sub(child, value)?;
                out.push(Step::PropertyNames { node, path });
            }
            "additionalProperties" => {
                if self.always_valid(value)? {
                    out.push(Step::EvaluateAll { props: true });
                    return Ok(());
                }
                let props: Vec<String> = m
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| {
                        crate::js::keys(p)
                            .filter(|k| *k != "__proto__")
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                let mut patterns = Vec::new();
                if let Some(Value::Object(pp)) = m.get("patternProperties") {
                    for k in crate::js::keys(pp).filter(|k| *k != "__proto__") {
                        patterns.push(Pattern::compile(k)?);
                    }
                }
                let node = if value == &Value::Bool(false) {
                    None
                } else {
                    let child = Self::child_data(cx, path.clone(), Vec::new());
                    Some(self.sub(child, value)?)
                };
                out.push(Step::AdditionalProperties {
                    props,
                    patterns,
                    node,
                    path,
                });
            }
            "unevaluatedProperties" => self.unevaluated(cx, value, path, true, out)?,
            _ => {}
        }
        Ok(())
    }

    /// `unevaluatedItems` (`props` false) or `unevaluatedProperties` (true): `false` rejects
    /// whatever nothing else evaluated, an always-valid schema marks everything evaluated,
    /// any other schema checks each such item or property.
    fn unevaluated(
        &mut self,
        cx: &mut Cx,
        value: &'s Value,
        path: String,
        props: bool,
        out: &mut Vec<Step>,
    ) -> R<()> {
        self.track_evaluated = true;
        let node = match value {
            Value::Bool(false) => None,
            v if self.always_valid(v)? => {
                out.push(Step::EvaluateAll { props });
                return Ok(());
            }
            v => {
                let child = Self::child_data(cx, path.clone(), Vec::new());
                Some(self.sub(child, v)?)
            }
        };
        out.push(if props {
            Step::UnevaluatedProperties { node, path }
        } else {
            Step::UnevaluatedItems { node, path }
        });
        Ok(())
    }

    /// `dependentRequired`, `dependentSchemas` and draft 7's `dependencies` (both kinds).
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn dependencies_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            kw, value, path, ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "dependentRequired" | "dependencies" | "dependentSchemas" => {
                let deps = object_value(kw, value)?;
                let keyword: &'static str = match kw {
                    "dependentRequired" => "dependentRequired",
                    "dependencies" => "dependencies",
                    _ => "dependentSchemas",
                };
                let mut prop_deps = Vec::new();
                let mut sch_deps = Vec::new();
                for (prop, d) in crate::js::entries(deps) {
                    match d {
                        Value::Array(list) if kw != "dependentSchemas" => {
                            if !list.is_empty() {
                                let names = list
                                    .iter()
                                    .filter_map(|v| v.as_str().map(str::to_owned))
                                    .collect();
                                prop_deps.push((prop.clone(), names));
                            }
                        }
                        s if kw != "dependentRequired" => {
                            if !self.always_valid(s)? {
                                let child = Self::child_same(
                                    cx,
                                    format!("{path}/{}", escape_fragment(prop)),
                                );
                                sch_deps.push((prop.clone(), self.sub(child, s)?));
                            }
                        }
                        _ => {}
                    }
                }
                if !prop_deps.is_empty() {
                    out.push(Step::PropertyDeps {
                        deps: prop_deps,
                        keyword,
                        path,
                    });
                }
                if !sch_deps.is_empty() {
                    out.push(Step::SchemaDeps(sch_deps));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `properties` and `patternProperties`.
    #[allow(clippy::collapsible_match)] // guards inside the arms read closer to Ajv
    fn properties_keyword(
        &mut self,
        cx: &mut Cx,
        Kw {
            m, kw, value, path, ..
        }: Kw<'_, 's>,
        out: &mut Vec<Step>,
    ) -> R<()> {
        match kw {
            "properties" => {
                let props = object_value(kw, value)?;
                let names: Vec<&String> = crate::js::keys(props)
                    .filter(|k| *k != "__proto__")
                    .collect();
                for n in &names {
                    cx.defined.borrow_mut().insert((*n).clone());
                }
                let mut checked = Vec::new();
                for n in &names {
                    checked.push(self.always_valid(&props[n.as_str()])?);
                }
                let mut compiled = Vec::new();
                for (n, always) in names.iter().zip(checked) {
                    let node = if always {
                        None
                    } else {
                        let child = Self::child_data(
                            cx,
                            format!("{path}/{}", escape_fragment(n)),
                            Vec::new(),
                        );
                        let node = self.sub(child, &props[n.as_str()])?;
                        cx.defined.borrow_mut().insert((*n).clone());
                        Some(node)
                    };
                    compiled.push(((*n).clone(), node));
                }
                out.push(Step::Properties(compiled));
            }
            "patternProperties" => {
                let pats = object_value(kw, value)?;
                let names: Vec<&String> = crate::js::keys(pats)
                    .filter(|k| *k != "__proto__")
                    .collect();
                let mut always = Vec::new();
                for n in &names {
                    always.push(self.always_valid(&pats[n.as_str()])?);
                }
                if names.is_empty() {
                    return Ok(());
                }
                let own_props = m.get("properties").and_then(Value::as_object);
                let mut compiled = Vec::new();
                for (n, always) in names.iter().zip(always) {
                    if self.opts.strict
                        && let Some(props) = own_props
                    {
                        let plain = Pattern::compile(n)?;
                        for prop in crate::js::keys(props) {
                            if plain.is_match(prop) {
                                return Err(SchemaError::strict(
                                    "patternProperties",
                                    format!(
                                        "property {prop} matches pattern {n} (use allowMatchingProperties)"
                                    ),
                                ));
                            }
                        }
                    }
                    let re = Pattern::compile(n)?;
                    let node = if always {
                        None
                    } else {
                        let child = Self::child_data(
                            cx,
                            format!("{path}/{}", escape_fragment(n)),
                            Vec::new(),
                        );
                        Some(self.sub(child, &pats[n.as_str()])?)
                    };
                    compiled.push((re, node));
                }
                out.push(Step::PatternProperties(compiled));
            }
            _ => {}
        }
        Ok(())
    }
}

/// What every keyword arm reads: the schema object, the schema, the keyword, its value, its
/// error path (`#/…/keyword`) and the data type group it sits in.
struct Kw<'k, 's> {
    m: &'s Map<String, Value>,
    this: &'s Value,
    kw: &'k str,
    value: &'s Value,
    path: String,
    group: Option<Group>,
}

/// An array keyword's value (`enum`, `allOf`, `required`, …).
fn array_value<'v>(kw: &str, v: &'v Value) -> R<&'v Vec<Value>> {
    v.as_array()
        .ok_or_else(|| SchemaError::invalid(format!("{kw} value must be [\"array\"]")))
}

/// An object keyword's value (`properties`, `dependentSchemas`, …).
fn object_value<'v>(kw: &str, v: &'v Value) -> R<&'v serde_json::Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| SchemaError::invalid(format!("{kw} value must be \"object\"")))
}

/// A string keyword's value (`pattern`).
fn string_value<'v>(kw: &str, v: &'v Value) -> R<&'v String> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(SchemaError::invalid(format!(
            "{kw} value must be \"string\""
        ))),
    }
}

/// A numeric keyword's value.
fn number_value(kw: &str, v: &Value) -> R<f64> {
    v.as_f64()
        .ok_or_else(|| SchemaError::invalid(format!("{kw} value must be \"number\"")))
}

/// Deepest nesting of arrays and objects in `v`, found without recursion.
fn json_depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Object(m) => stack.extend(m.values().map(|c| (c, d + 1))),
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    deepest
}

fn js_join(a: &[Value]) -> String {
    a.iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether Ajv's generated code knows what `schema` evaluates at compile time: only
/// `properties`, `prefixItems` and `items` say which properties and items it evaluated, none of
/// the keywords that track them at run time (pattern and additional properties, `contains`,
/// applicators, references). Ajv folds such an `if` schema's annotations into the evaluated set
/// only inside the first clause it generates, which `eval` reproduces.
fn static_annotations(schema: &Value) -> bool {
    const RUNTIME: &[&str] = &[
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentSchemas",
        "contains",
        "anyOf",
        "oneOf",
        "allOf",
        "if",
        "$ref",
        "$dynamicRef",
    ];
    match schema {
        Value::Object(m) => !RUNTIME.iter().any(|k| m.contains_key(*k)),
        _ => true,
    }
}

/// json-schema-traverse with `allKeys`: the subschema positions Ajv scans for `$id`s.
fn push_children<'s>(
    m: &'s Map<String, Value>,
    ptr: &str,
    base: &str,
    stack: &mut Vec<(&'s Value, String, String, usize)>,
    depth: usize,
) {
    const SKIP: &[&str] = &[
        "default",
        "enum",
        "const",
        "required",
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "multipleOf",
        "maxLength",
        "minLength",
        "pattern",
        "format",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
    ];
    let mut children = Vec::new();
    for (key, sch) in crate::js::entries(m) {
        match sch {
            Value::Array(items) => {
                if matches!(
                    key.as_str(),
                    "items" | "allOf" | "anyOf" | "oneOf" | "prefixItems"
                ) {
                    for (i, s) in items.iter().enumerate() {
                        children.push((s, format!("{ptr}/{key}/{i}")));
                    }
                }
            }
            _ if matches!(
                key.as_str(),
                "$defs" | "definitions" | "properties" | "patternProperties" | "dependencies"
            ) =>
            {
                if let Value::Object(props) = sch {
                    for (p, s) in crate::js::entries(props) {
                        children.push((s, format!("{ptr}/{key}/{}", escape_pointer(p))));
                    }
                }
            }
            _ if !SKIP.contains(&key.as_str()) => children.push((sch, format!("{ptr}/{key}"))),
            _ => {}
        }
    }
    // Reverse so the stack pops them in document order.
    for (s, p) in children.into_iter().rev() {
        stack.push((s, p, base.to_owned(), depth));
    }
}

#[cfg(test)]
mod rule_table_tests {
    use super::*;

    #[test]
    fn groups_keep_ajv_order_and_format_is_in_both_scalar_groups() {
        assert_eq!(
            keywords_of(Some(Group::Number)),
            [
                "maximum",
                "minimum",
                "exclusiveMaximum",
                "exclusiveMinimum",
                "multipleOf",
                "format"
            ]
        );
        assert_eq!(
            keywords_of(Some(Group::String))[3..5],
            ["format", "formatMaximum"]
        );
        assert_eq!(keywords_of(None)[4..6], ["$ref", "type"]);
        assert_eq!(
            keywords_of(Some(Group::Array)),
            [
                "maxItems",
                "minItems",
                "prefixItems",
                "items",
                "contains",
                "uniqueItems",
                "maxContains",
                "minContains",
                "unevaluatedItems"
            ]
        );
        assert_eq!(
            keywords_of(Some(Group::Object)).last(),
            Some(&"unevaluatedProperties")
        );
        let grouped: usize = [
            None,
            Some(Group::Number),
            Some(Group::String),
            Some(Group::Array),
            Some(Group::Object),
        ]
        .into_iter()
        .map(|g| keywords_of(g).len())
        .sum();
        // `format` is in two groups.
        assert_eq!(grouped, RULES.len() + 1);
    }
}
