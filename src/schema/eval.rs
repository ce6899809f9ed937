//! Runs a compiled [`Program`] against an instance, collecting every error as Ajv does with
//! `allErrors`: the errors of failing `anyOf`/`oneOf` branches stay beside the keyword's own
//! error, passing branches leave none, `if` contributes only its clause's errors and its own.

use super::format::{FormatType, check_number, check_string};
use super::pattern::Pattern;
use super::program::{Cmp, FuncId, Group, JType, Node, NodeId, Program, Step, TypeErr};
use super::text::js_number;
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// One validation error, reduced to the fields Ajv reports.
#[derive(Debug, Clone, PartialEq)]
pub struct AjvError {
    /// JSON Pointer to the failing value, relative to the validated instance (`""` for itself).
    pub instance_path: String,
    /// Where the failing keyword sits, as Ajv reports it (`#/properties/a/type`).
    pub schema_path: String,
    /// The failing keyword (`type`, `required`, `false schema`, …).
    pub keyword: String,
    /// Ajv's `params` for the keyword (`{"missingProperty": "id"}`, …).
    pub params: Map<String, Value>,
    /// Ajv's message (`must have required property 'id'`).
    pub message: String,
}

/// Deepest nesting of subschema evaluations; beyond it (a schema that recurses without
/// consuming data) validation stops with an error, where Ajv would overflow its stack.
pub const MAX_EVAL_DEPTH: usize = 256;

#[derive(Default, Clone)]
struct Evaluated {
    all_props: bool,
    props: Vec<String>,
    items: usize,
    all_items: bool,
}

impl Evaluated {
    fn merge(&mut self, other: Evaluated) {
        self.all_props |= other.all_props;
        if !self.all_props {
            self.props.extend(other.props);
        }
        self.all_items |= other.all_items;
        self.items = self.items.max(other.items);
    }

    fn has_prop(&self, k: &str) -> bool {
        self.all_props || self.props.iter().any(|p| p == k)
    }
}

struct Run<'p> {
    prog: &'p Program,
    errors: Vec<AjvError>,
    dynamic: Vec<(&'p str, FuncId)>,
    path: String,
    depth: usize,
    overflow: bool,
}

/// Validates `data`; returns Ajv's errors (empty when valid).
pub(crate) fn validate(prog: &Program, data: &Value) -> Vec<AjvError> {
    let mut run = Run {
        prog,
        errors: Vec::new(),
        dynamic: Vec::new(),
        path: String::new(),
        depth: 0,
        overflow: false,
    };
    run.call(prog.entry, data);
    run.errors
}

impl<'p> Run<'p> {
    fn error(&mut self, schema_path: &str, keyword: &str, params: Value, message: String) {
        let params = match params {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        self.errors.push(AjvError {
            instance_path: self.path.clone(),
            schema_path: schema_path.to_owned(),
            keyword: keyword.to_owned(),
            params,
            message,
        });
    }

    fn type_error(&mut self, te: &TypeErr) {
        self.error(
            &te.schema_path,
            "type",
            json!({ "type": te.param }),
            te.message.clone(),
        );
    }

    fn call(&mut self, f: FuncId, data: &Value) -> (bool, Evaluated) {
        let node = self.prog.funcs.get(f).copied().unwrap_or(usize::MAX);
        self.node(node, data)
    }

    /// Evaluates one subschema: whether it added no error, and what it evaluated.
    fn node(&mut self, id: NodeId, data: &Value) -> (bool, Evaluated) {
        let before = self.errors.len();
        if self.overflow {
            return (false, Evaluated::default());
        }
        if self.depth >= MAX_EVAL_DEPTH {
            self.overflow = true;
            self.error(
                "#",
                "$ref",
                json!({}),
                format!("Maximum call stack size exceeded (the schema recurses more than {MAX_EVAL_DEPTH} levels deep)"),
            );
            return (false, Evaluated::default());
        }
        self.depth += 1;
        let mut ev = Evaluated::default();
        let prog = self.prog;
        match prog.nodes.get(id) {
            Some(Node::True) | None => {}
            Some(Node::False { path }) => {
                let path = format!("{path}/false schema");
                self.error(
                    &path,
                    "false schema",
                    json!({}),
                    "boolean schema is false".to_owned(),
                );
            }
            Some(Node::Obj(steps)) => {
                for step in steps {
                    self.step(step, data, &mut ev);
                }
            }
        }
        self.depth -= 1;
        (self.errors.len() == before, ev)
    }

    fn descend_key(&mut self, key: &str, id: NodeId, data: &Value) -> bool {
        let len = self.path.len();
        self.path.push('/');
        for c in key.chars() {
            match c {
                '~' => self.path.push_str("~0"),
                '/' => self.path.push_str("~1"),
                c => self.path.push(c),
            }
        }
        let (ok, _) = self.node(id, data);
        self.path.truncate(len);
        ok
    }

    fn descend_index(&mut self, i: usize, id: NodeId, data: &Value) -> bool {
        let len = self.path.len();
        let _ = write!(self.path, "/{i}");
        let (ok, _) = self.node(id, data);
        self.path.truncate(len);
        ok
    }

    /// One step of a subschema. Each kind of step is its own method, so that its temporaries
    /// stay out of this frame, which the recursion through `node` repeats at every level.
    fn step(&mut self, step: &'p Step, data: &Value, ev: &mut Evaluated) {
        match step {
            Step::TypeCheck(te) => self.eval_type_check(te, data),
            Step::Group {
                group,
                steps,
                else_err,
            } => self.eval_group(group, steps, else_err, data, ev),
            Step::DynamicAnchor { name, func } => self.eval_dynamic_anchor(name, func),
            Step::DynamicRef { anchor, fallback } => {
                self.eval_dynamic_ref(anchor, fallback, data, ev)
            }
            Step::Call(f) => self.eval_call(f, data, ev),
            Step::Inline(n) => self.eval_inline(n, data, ev),
            Step::Const { value, param, path } => self.eval_const(value, param, path, data),
            Step::Enum {
                values,
                param,
                path,
            } => self.eval_enum(values, param, path, data),
            Step::Not { node, path } => self.eval_not(node, path, data),
            Step::AnyOf { nodes, path } => self.eval_any_of(nodes, path, data, ev),
            Step::OneOf { nodes, path } => self.eval_one_of(nodes, path, data, ev),
            Step::AllOf(nodes) => self.eval_all_of(nodes, data, ev),
            Step::If {
                cond,
                then,
                els,
                static_annotations,
                path,
            } => self.eval_if(cond, (then, els), *static_annotations, path, data, ev),
            Step::Limit {
                cmp,
                limit,
                param,
                message,
                path,
            } => self.eval_limit(cmp, limit, param, message, path, data),
            Step::MultipleOf {
                by,
                param,
                message,
                path,
            } => self.eval_multiple_of(by, param, message, path, data),
            Step::Length {
                max,
                limit,
                param,
                message,
                path,
            } => self.eval_length(max, limit, param, message, path, data),
            Step::Pattern { re, source, path } => self.eval_pattern(re, source, path, data),
            Step::Format { name, ty, path } => self.eval_format(name, ty, path, data),
            Step::PropCount {
                max,
                limit,
                param,
                message,
                path,
            } => {
                let n = data.as_object().map_or(0, Map::len);
                let kw = if *max {
                    "maxProperties"
                } else {
                    "minProperties"
                };
                if count_fails(*max, *limit, n) {
                    self.error(path, kw, param.clone(), message.to_owned());
                }
            }
            Step::ItemCount {
                max,
                limit,
                param,
                message,
                path,
            } => {
                let n = data.as_array().map_or(0, Vec::len);
                let kw = if *max { "maxItems" } else { "minItems" };
                if count_fails(*max, *limit, n) {
                    self.error(path, kw, param.clone(), message.to_owned());
                }
            }
            Step::Required { props, path } => self.eval_required(props, path, data),
            Step::Unique { scalar, path } => self.eval_unique(scalar, path, data),
            Step::PrefixItems(nodes) => self.eval_prefix_items(nodes, data, ev),
            Step::Items { start, node, path } => self.eval_items(start, node, path, data, ev),
            Step::Contains {
                node,
                min,
                max,
                always_fail,
                path,
            } => self.eval_contains(node, min, max, always_fail, path, data, ev),
            Step::PropertyNames { node, path } => self.eval_property_names(node, path, data),
            Step::AdditionalProperties {
                props,
                patterns,
                node,
                path,
            } => self.eval_additional_properties(props, patterns, node, path, data, ev),
            Step::EvaluateAll { props } => self.eval_evaluate_all(props, ev),
            Step::Properties(props) => self.eval_properties(props, data, ev),
            Step::PatternProperties(pats) => self.eval_pattern_properties(pats, data, ev),
            Step::PropertyDeps {
                deps,
                keyword,
                path,
            } => self.eval_property_deps(deps, keyword, path, data),
            Step::SchemaDeps(deps) => self.eval_schema_deps(deps, data, ev),
            Step::UnevaluatedProperties { node, path } => {
                self.eval_unevaluated_properties(node, path, data, ev)
            }
            Step::UnevaluatedItems { node, path } => {
                self.eval_unevaluated_items(node, path, data, ev)
            }
        }
    }

    /// [`Step::TypeCheck`].
    fn eval_type_check(&mut self, te: &'p TypeErr, data: &Value) {
        if !te.types.iter().any(|t| t.matches(data)) {
            self.type_error(te);
        }
    }

    /// [`Step::Group`].
    fn eval_group(
        &mut self,
        group: &'p Group,
        steps: &'p [Step],
        else_err: &'p Option<TypeErr>,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if group.matches(data) {
            for s in steps {
                self.step(s, data, ev);
            }
        } else if let Some(te) = else_err {
            self.type_error(te);
        }
    }

    /// [`Step::DynamicAnchor`].
    fn eval_dynamic_anchor(&mut self, name: &'p str, func: &'p FuncId) {
        if !self.dynamic.iter().any(|(n, _)| *n == name) {
            self.dynamic.push((name, *func));
        }
    }

    /// [`Step::DynamicRef`].
    fn eval_dynamic_ref(
        &mut self,
        anchor: &'p Option<String>,
        fallback: &'p FuncId,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        let f = anchor
            .as_deref()
            .and_then(|a| self.dynamic.iter().find(|(n, _)| *n == a).map(|(_, f)| *f))
            .unwrap_or(*fallback);
        let (ok, sub) = self.call(f, data);
        if ok {
            ev.merge(sub);
        }
    }

    /// [`Step::Call`].
    fn eval_call(&mut self, f: &'p FuncId, data: &Value, ev: &mut Evaluated) {
        let (ok, sub) = self.call(*f, data);
        if ok {
            ev.merge(sub);
        }
    }

    /// [`Step::Inline`].
    fn eval_inline(&mut self, n: &'p NodeId, data: &Value, ev: &mut Evaluated) {
        let (_, sub) = self.node(*n, data);
        ev.merge(sub);
    }

    /// [`Step::Const`].
    fn eval_const(&mut self, value: &'p Value, param: &'p Value, path: &'p str, data: &Value) {
        if !equal(data, value) {
            self.error(
                path,
                "const",
                json!({ "allowedValue": param }),
                "must be equal to constant".to_owned(),
            );
        }
    }

    /// [`Step::Enum`].
    fn eval_enum(&mut self, values: &'p [Value], param: &'p Value, path: &'p str, data: &Value) {
        if !values.iter().any(|v| equal(data, v)) {
            self.error(
                path,
                "enum",
                json!({ "allowedValues": param }),
                "must be equal to one of the allowed values".to_owned(),
            );
        }
    }

    /// [`Step::Not`].
    fn eval_not(&mut self, node: &'p Option<NodeId>, path: &'p str, data: &Value) {
        let passed = match node {
            None => true,
            Some(n) => {
                let before = self.errors.len();
                let (ok, _) = self.node(*n, data);
                self.errors.truncate(before);
                ok
            }
        };
        if passed {
            self.error(path, "not", json!({}), "must NOT be valid".to_owned());
        }
    }

    /// [`Step::AnyOf`].
    fn eval_any_of(
        &mut self,
        nodes: &'p [NodeId],
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        let before = self.errors.len();
        let mut any = false;
        for n in nodes {
            let (ok, sub) = self.node(*n, data);
            if ok {
                any = true;
                ev.merge(sub);
            }
        }
        if any {
            self.errors.truncate(before);
        } else {
            self.error(
                path,
                "anyOf",
                json!({}),
                "must match a schema in anyOf".to_owned(),
            );
        }
    }

    /// [`Step::OneOf`].
    fn eval_one_of(
        &mut self,
        nodes: &'p [Option<NodeId>],
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        let before = self.errors.len();
        let mut valid = false;
        let mut passing = Value::Null;
        for (i, n) in nodes.iter().enumerate() {
            let (ok, sub) = match n {
                None => (true, Evaluated::default()),
                Some(n) => self.node(*n, data),
            };
            // Ajv nests each later branch in the `else` of self test, so a second
            // passing branch ends the evaluation.
            if i > 0 && ok && valid {
                valid = false;
                passing = json!([passing, i]);
                break;
            } else if ok {
                valid = true;
                passing = json!(i);
                ev.merge(sub);
            }
        }
        if valid {
            self.errors.truncate(before);
        } else {
            self.error(
                path,
                "oneOf",
                json!({ "passingSchemas": passing }),
                "must match exactly one schema in oneOf".to_owned(),
            );
        }
    }

    /// [`Step::AllOf`].
    fn eval_all_of(&mut self, nodes: &'p [NodeId], data: &Value, ev: &mut Evaluated) {
        for n in nodes {
            let (_, sub) = self.node(*n, data);
            ev.merge(sub);
        }
    }

    /// [`Step::If`]. What the `if` schema evaluated counts as Ajv's generated code counts it:
    /// always when Ajv tracks it at run time; when Ajv knows it at compile time
    /// (`static_annotations`), only if the first clause Ajv generates (`then`, else `else`) is
    /// the one taken and passes, since Ajv writes that set down inside that clause alone.
    fn eval_if(
        &mut self,
        cond: &'p NodeId,
        (then, els): (&'p Option<NodeId>, &'p Option<NodeId>),
        static_annotations: bool,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        let before = self.errors.len();
        let (ok, cond_evaluated) = self.node(*cond, data);
        self.errors.truncate(before);
        let clause = if ok {
            then.map(|n| ("then", n))
        } else {
            els.map(|n| ("else", n))
        };
        let first_clause_taken = if then.is_some() { ok } else { !ok };
        let mut clause_ok = true;
        if let Some((kw, n)) = clause {
            let (ok, sub) = self.node(n, data);
            clause_ok = ok;
            if ok {
                ev.merge(sub);
            } else {
                self.error(
                    path,
                    "if",
                    json!({ "failingKeyword": kw }),
                    format!("must match \"{kw}\" schema"),
                );
            }
        }
        if !static_annotations || (first_clause_taken && clause_ok) {
            ev.merge(cond_evaluated);
        }
    }

    /// [`Step::Limit`].
    fn eval_limit(
        &mut self,
        cmp: &'p Cmp,
        limit: &'p f64,
        param: &'p Value,
        message: &'p str,
        path: &'p str,
        data: &Value,
    ) {
        let x = data.as_f64().unwrap_or(f64::NAN);
        let fail = match cmp {
            Cmp::Max => x > *limit,
            Cmp::Min => x < *limit,
            Cmp::ExMax => x >= *limit,
            Cmp::ExMin => x <= *limit,
        };
        let kw = match cmp {
            Cmp::Max => "maximum",
            Cmp::Min => "minimum",
            Cmp::ExMax => "exclusiveMaximum",
            Cmp::ExMin => "exclusiveMinimum",
        };
        if fail || x.is_nan() {
            self.error(path, kw, param.clone(), message.to_owned());
        }
    }

    /// [`Step::MultipleOf`].
    fn eval_multiple_of(
        &mut self,
        by: &'p f64,
        param: &'p Value,
        message: &'p str,
        path: &'p str,
        data: &Value,
    ) {
        let x = data.as_f64().unwrap_or(f64::NAN);
        let q = x / by;
        // Ajv: `res !== parseInt(res)`, where parseInt reads JavaScript's text of `res`.
        let ok = *by != 0.0 && q.is_finite() && q.fract() == 0.0 && q.abs() < 1e21;
        if !ok {
            self.error(path, "multipleOf", param.clone(), message.to_owned());
        }
    }

    /// [`Step::Length`].
    fn eval_length(
        &mut self,
        max: &'p bool,
        limit: &'p f64,
        param: &'p Value,
        message: &'p str,
        path: &'p str,
        data: &Value,
    ) {
        let n = data.as_str().map_or(0, |s| s.chars().count()) as f64;
        if (*max && n > *limit) || (!*max && n < *limit) {
            let kw = if *max { "maxLength" } else { "minLength" };
            self.error(path, kw, param.clone(), message.to_owned());
        }
    }

    /// [`Step::Pattern`].
    fn eval_pattern(&mut self, re: &'p Pattern, source: &'p str, path: &'p str, data: &Value) {
        if let Value::String(s) = data
            && !re.is_match(s)
        {
            self.error(
                path,
                "pattern",
                json!({ "pattern": source }),
                format!("must match pattern \"{source}\""),
            );
        }
    }

    /// [`Step::Format`].
    fn eval_format(&mut self, name: &'p str, ty: &'p FormatType, path: &'p str, data: &Value) {
        let ok = match (ty, data) {
            (FormatType::Number, Value::Number(n)) => {
                check_number(name, n.as_f64().unwrap_or(f64::NAN))
            }
            (FormatType::String, Value::String(s)) => check_string(name, s),
            _ => true,
        };
        if !ok {
            self.error(
                path,
                "format",
                json!({ "format": name }),
                format!("must match format \"{name}\""),
            );
        }
    }

    /// [`Step::Required`].
    fn eval_required(&mut self, props: &'p [String], path: &'p str, data: &Value) {
        if let Value::Object(obj) = data {
            for p in props {
                if !obj.contains_key(p) {
                    self.error(
                        path,
                        "required",
                        json!({ "missingProperty": p }),
                        format!("must have required property '{p}'"),
                    );
                }
            }
        }
    }

    /// [`Step::Unique`].
    fn eval_unique(&mut self, scalar: &'p Option<Vec<JType>>, path: &'p str, data: &Value) {
        if let Value::Array(items) = data
            && let Some((i, j)) = duplicate(items, scalar.as_deref())
        {
            self.error(
                path,
                "uniqueItems",
                json!({ "i": i, "j": j }),
                format!("must NOT have duplicate items (items ## {j} and {i} are identical)"),
            );
        }
    }

    /// [`Step::PrefixItems`].
    fn eval_prefix_items(&mut self, nodes: &'p [Option<NodeId>], data: &Value, ev: &mut Evaluated) {
        if let Value::Array(items) = data {
            for (i, n) in nodes.iter().enumerate() {
                if let (Some(n), Some(item)) = (n, items.get(i)) {
                    self.descend_index(i, *n, item);
                }
            }
            ev.items = ev.items.max(nodes.len());
        }
    }

    /// [`Step::Items`].
    fn eval_items(
        &mut self,
        start: &'p usize,
        node: &'p Option<NodeId>,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Array(items) = data {
            self.items_from(items, *start, *node, path, "items");
        }
        ev.all_items = true;
    }

    /// [`Step::Contains`].
    // One parameter per field of the step, as the other `eval_*` take them.
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::too_many_arguments)]
    fn eval_contains(
        &mut self,
        node: &'p Option<NodeId>,
        min: &'p f64,
        max: &'p Option<f64>,
        always_fail: &'p bool,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        let Value::Array(items) = data else { return };
        let before = self.errors.len();
        let valid = if *always_fail {
            false
        } else {
            match node {
                None => {
                    let n = items.len() as f64;
                    n >= *min && max.is_none_or(|m| n <= m)
                }
                Some(n) => {
                    ev.all_items = true;
                    let mut count = 0.0;
                    let mut valid = *min == 0.0;
                    for (i, item) in items.iter().enumerate() {
                        if self.descend_index(i, *n, item) {
                            count += 1.0;
                            match max {
                                None if count >= *min => {
                                    valid = true;
                                    break;
                                }
                                None => {}
                                Some(m) => {
                                    if count > *m {
                                        valid = false;
                                        break;
                                    }
                                    if count >= *min {
                                        valid = true;
                                    }
                                }
                            }
                        }
                    }
                    valid
                }
            }
        };
        if valid {
            self.errors.truncate(before);
        } else {
            let (params, message) = match max {
                None => (
                    json!({ "minContains": min_json(*min) }),
                    format!("must contain at least {} valid item(s)", js_number(*min)),
                ),
                Some(m) => (
                    json!({ "minContains": min_json(*min), "maxContains": min_json(*m) }),
                    format!(
                        "must contain at least {} and no more than {} valid item(s)",
                        js_number(*min),
                        js_number(*m)
                    ),
                ),
            };
            self.error(path, "contains", params, message);
        }
    }

    /// [`Step::PropertyNames`].
    fn eval_property_names(&mut self, node: &'p NodeId, path: &'p str, data: &Value) {
        if let Value::Object(obj) = data {
            for key in crate::js::keys(obj) {
                let name = Value::String(key.clone());
                let (ok, _) = self.node(*node, &name);
                if !ok {
                    self.error(
                        path,
                        "propertyNames",
                        json!({ "propertyName": key }),
                        "property name must be valid".to_owned(),
                    );
                }
            }
        }
    }

    /// [`Step::AdditionalProperties`].
    fn eval_additional_properties(
        &mut self,
        props: &'p [String],
        patterns: &'p [Pattern],
        node: &'p Option<NodeId>,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Object(obj) = data {
            let covered = |key: &str| {
                props.iter().any(|p| p == key) || patterns.iter().any(|p| p.is_match(key))
            };
            self.other_props(obj, covered, *node, path, &ADDITIONAL);
        }
        ev.all_props = true;
    }

    /// [`Step::EvaluateAll`].
    fn eval_evaluate_all(&mut self, props: &'p bool, ev: &mut Evaluated) {
        if *props {
            ev.all_props = true;
        } else {
            ev.all_items = true;
        }
    }

    /// [`Step::Properties`].
    fn eval_properties(
        &mut self,
        props: &'p [(String, Option<NodeId>)],
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Object(obj) = data {
            for (name, node) in props {
                if let (Some(n), Some(value)) = (node, obj.get(name)) {
                    self.descend_key(name, *n, value);
                }
            }
        }
        if self.prog.track_evaluated && !ev.all_props {
            ev.props.extend(props.iter().map(|(n, _)| n.clone()));
        }
    }

    /// [`Step::PatternProperties`].
    fn eval_pattern_properties(
        &mut self,
        pats: &'p [(Pattern, Option<NodeId>)],
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Object(obj) = data {
            for (re, node) in pats {
                for (key, value) in crate::js::entries(obj) {
                    if re.is_match(key) {
                        if let Some(n) = node {
                            self.descend_key(key, *n, value);
                        }
                        if self.prog.track_evaluated && !ev.all_props {
                            ev.props.push(key.clone());
                        }
                    }
                }
            }
        }
    }

    /// [`Step::PropertyDeps`].
    fn eval_property_deps(
        &mut self,
        deps: &'p [(String, Vec<String>)],
        keyword: &'p &'static str,
        path: &'p str,
        data: &Value,
    ) {
        if let Value::Object(obj) = data {
            for (prop, list) in deps {
                if !obj.contains_key(prop) {
                    continue;
                }
                let joined = list.join(", ");
                let noun = if list.len() == 1 {
                    "property"
                } else {
                    "properties"
                };
                for d in list {
                    if !obj.contains_key(d) {
                        self.error(
                            path,
                            keyword,
                            json!({
                                "property": prop,
                                "missingProperty": d,
                                "depsCount": list.len(),
                                "deps": joined,
                            }),
                            format!("must have {noun} {joined} when property {prop} is present"),
                        );
                    }
                }
            }
        }
    }

    /// [`Step::SchemaDeps`].
    fn eval_schema_deps(&mut self, deps: &'p [(String, NodeId)], data: &Value, ev: &mut Evaluated) {
        if let Value::Object(obj) = data {
            for (prop, n) in deps {
                if obj.contains_key(prop) {
                    let (ok, sub) = self.node(*n, data);
                    if ok {
                        ev.merge(sub);
                    }
                }
            }
        }
    }

    /// [`Step::UnevaluatedProperties`].
    fn eval_unevaluated_properties(
        &mut self,
        node: &'p Option<NodeId>,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Object(obj) = data
            && !ev.all_props
        {
            self.other_props(obj, |key| ev.has_prop(key), *node, path, &UNEVALUATED);
        }
        ev.all_props = true;
    }

    /// [`Step::UnevaluatedItems`].
    fn eval_unevaluated_items(
        &mut self,
        node: &'p Option<NodeId>,
        path: &'p str,
        data: &Value,
        ev: &mut Evaluated,
    ) {
        if let Value::Array(items) = data
            && !ev.all_items
        {
            self.items_from(items, ev.items, *node, path, "unevaluatedItems");
        }
        ev.all_items = true;
    }

    /// The properties of `obj` that `covered` does not claim: with no `node` each is an error
    /// naming it (in `words`), else each is validated against `node`. The rest of
    /// `additionalProperties` and of `unevaluatedProperties`.
    fn other_props(
        &mut self,
        obj: &Map<String, Value>,
        covered: impl Fn(&str) -> bool,
        node: Option<NodeId>,
        path: &str,
        words: &OtherProps,
    ) {
        for (key, value) in crate::js::entries(obj) {
            if covered(key) {
                continue;
            }
            match node {
                None => self.error(
                    path,
                    words.keyword,
                    json!({ words.param: key }),
                    words.message.to_owned(),
                ),
                Some(n) => {
                    self.descend_key(key, n, value);
                }
            }
        }
    }

    /// The items of `items` from index `from` on: with no `node` their presence is one error
    /// (`keyword`, limit `from`), else each is validated against `node`. The rest of `items`
    /// (after `prefixItems`) and of `unevaluatedItems`.
    fn items_from(
        &mut self,
        items: &[Value],
        from: usize,
        node: Option<NodeId>,
        path: &str,
        keyword: &str,
    ) {
        match node {
            None => {
                if items.len() > from {
                    self.error(
                        path,
                        keyword,
                        json!({ "limit": from }),
                        format!("must NOT have more than {from} items"),
                    );
                }
            }
            Some(n) => {
                for (i, item) in items.iter().enumerate().skip(from) {
                    self.descend_index(i, n, item);
                }
            }
        }
    }
}

/// How [`Run::other_props`] names a property it rejects.
struct OtherProps {
    keyword: &'static str,
    /// The key of the rejected property in the error's params.
    param: &'static str,
    message: &'static str,
}

const ADDITIONAL: OtherProps = OtherProps {
    keyword: "additionalProperties",
    param: "additionalProperty",
    message: "must NOT have additional properties",
};

const UNEVALUATED: OtherProps = OtherProps {
    keyword: "unevaluatedProperties",
    param: "unevaluatedProperty",
    message: "must NOT have unevaluated properties",
};

fn min_json(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        Value::from(x as i64)
    } else {
        json!(x)
    }
}

/// fast-deep-equal as Ajv uses it: numbers by value (`1` equals `1.0`), objects by keys.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// The pair Ajv reports for `uniqueItems`: with scalar item types its map-based loop (`i`
/// below `j`), otherwise its pairwise loop from the end (`j` below `i`).
fn duplicate(items: &[Value], scalar: Option<&[JType]>) -> Option<(usize, usize)> {
    match scalar {
        Some(types) => {
            let mut seen: Vec<(String, usize)> = Vec::new();
            for i in (0..items.len()).rev() {
                let item = &items[i];
                if !types.iter().any(|t| t.matches(item)) {
                    continue;
                }
                let mut key = match item {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => js_number(n.as_f64().unwrap_or(f64::NAN)),
                    other => other.to_string(),
                };
                if types.len() > 1 && item.is_string() {
                    key.push('_');
                }
                if let Some((_, j)) = seen.iter().find(|(k, _)| *k == key) {
                    return Some((i, *j));
                }
                seen.retain(|(k, _)| *k != key);
                seen.push((key, i));
            }
            None
        }
        None => {
            for i in (0..items.len()).rev() {
                for j in (0..i).rev() {
                    if equal(&items[i], &items[j]) {
                        return Some((i, j));
                    }
                }
            }
            None
        }
    }
}

/// Whether `n` properties or items break a `max…` (`max`) or `min…` limit.
fn count_fails(max: bool, limit: f64, n: usize) -> bool {
    let n = n as f64;
    if max { n > limit } else { n < limit }
}
