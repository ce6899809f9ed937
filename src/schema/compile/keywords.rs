//! The keyword compilers: one method per family of keywords, each turning a keyword's value
//! into [`Step`]s in Ajv's order and with Ajv's messages and strict-mode verdicts.

use super::{Compiler, Cx, R};
use crate::schema::error::SchemaError;
use crate::schema::format::{FormatType, format_type};
use crate::schema::pattern::Pattern;
use crate::schema::program::{Cmp, Group, JType, NodeId, Step};
use crate::schema::text::{escape_fragment, js_json};
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    // One method per family of keywords, one arm per keyword, each in Ajv's words: guards
    // inside the arms read closer to Ajv.
    pub(super) fn keyword(
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
            "$dynamicAnchor" | "$recursiveAnchor" | "$dynamicRef" | "$recursiveRef" | "id"
            | "$ref" | "const" | "enum" => self.core_keyword(cx, k, out),
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
            // draft-04's schema id: Ajv refuses it whatever its value, strict or not
            "id" => {
                return Err(SchemaError::invalid(
                    "NOT SUPPORTED: keyword \"id\", use \"$id\" for schema ID".to_owned(),
                ));
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
                    .map(crate::schema::text::js_number_of)
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
                    .map(crate::schema::text::js_number_of)
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
                    .map(crate::schema::text::js_number_of)
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
