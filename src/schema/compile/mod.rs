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
//!
//! This module holds the compiler's state: schema resources and their `$id`s, reference
//! resolution, and the walk over each schema object; [`rules`] is Ajv's keyword vocabulary and
//! `keywords` compiles each keyword.

mod keywords;
mod rules;

use super::error::{SchemaError, SchemaErrorKind};
use super::program::{FuncId, Group, JType, Node, NodeId, Program, Step, TypeErr};
use super::text::{escape_pointer, unescape_fragment};
use super::uri;
use rules::{ANNOTATIONS, RULES, has_ref, has_rules, has_rules_but_ref, is_rule, keywords_of};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Compile options (the parts of Ajv's options upstream varies).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub(crate) strict: bool,
    pub(crate) allow_union_types: bool,
    /// Ajv's `validateFormats`; off only for the meta-schemas, which Ajv adds with formats off,
    /// so a schema's `pattern` is judged by compiling it, not by the `regex` format.
    pub(crate) validate_formats: bool,
    /// Whether `x-kindgi-tunable` is a keyword (upstream's `compileInlineSchema` adds it; its
    /// `compileJsonSchema`, for tool schemas, does not).
    pub(crate) tunable_keyword: bool,
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
            let known = is_rule(key)
                || (ANNOTATIONS.contains(&key.as_str())
                    && (self.opts.tunable_keyword || key != "x-kindgi-tunable"));
            if !known {
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
