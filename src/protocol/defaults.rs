//! Ajv's `useDefaults` for tool input, planned once per input schema.
//!
//! Upstream's pack service validates a tool's input with `useDefaults: true`: before the
//! keywords of an object schema run, every `properties` entry with a `default` that the data
//! lacks is filled in (a copy of the caller's input is checked). So `required` passes for a
//! property with a default, and the default itself is checked against its schema. Ajv does
//! this wherever the schema is not under a "composite rule" (`anyOf`, `oneOf`, `not`, `if`),
//! and in strict mode a `default` it would ignore is a compile error: one at the schema root
//! (`default is ignored in the schema root`) or one under a composite rule (`default is
//! ignored for: …`). That message names the data as Ajv's generated code does only for a
//! property of the root (`data.x`, `data["my-x"]`); deeper, Ajv names one of its generated
//! variables (`data0.q`, numbered in the order it generates code), where runstart writes the
//! whole path (`data.z.q`): the verdict is Ajv's, the message says where more plainly.
//!
//! Covered: `properties` (recursively), `additionalProperties`, `items`, `prefixItems`,
//! `allOf`, `then`/`else` are not (Ajv fills those only when the branch runs), and local
//! `$ref`s (`#/$defs/…`, `#/definitions/…`). Not covered: `patternProperties` subschemas and
//! `then`/`else` branches; a default there is not filled (Ajv would fill it).

use serde_json::Value;

/// How deep the plan follows nested schemas and `$ref`s; a schema nested deeper fills nothing
/// below the cap (the validator caps schema nesting at 128 anyway).
const MAX_DEPTH: usize = 64;

/// Where defaults go in a value that a schema validates.
#[derive(Debug, Default, Clone)]
pub(crate) struct DefaultPlan {
    /// `(property, default to fill when absent, plan for the property's value)`.
    properties: Vec<(String, Option<Value>, DefaultPlan)>,
    additional: Option<Box<DefaultPlan>>,
    items: Option<Box<DefaultPlan>>,
    prefix_items: Vec<DefaultPlan>,
    all_of: Vec<DefaultPlan>,
}

impl DefaultPlan {
    /// The plan for `root`, or the strict-mode reason Ajv refuses to compile it with
    /// `useDefaults` (`strict mode: default is ignored …`).
    pub fn build(root: &Value) -> Result<DefaultPlan, String> {
        if root.get("default").is_some() {
            return Err("strict mode: default is ignored in the schema root".to_owned());
        }
        let mut builder = Builder { root, error: None };
        let plan = builder.plan(root, "data", false, 0);
        match builder.error {
            Some(e) => Err(e),
            None => Ok(plan),
        }
    }

    /// Whether applying the plan can change anything.
    pub fn is_empty(&self) -> bool {
        self.properties.is_empty()
            && self.additional.is_none()
            && self.items.is_none()
            && self.prefix_items.is_empty()
            && self.all_of.is_empty()
    }

    /// Fills the defaults into `data`.
    pub fn apply(&self, data: &mut Value) {
        for part in &self.all_of {
            part.apply(data);
        }
        match data {
            Value::Object(map) => {
                for (name, default, child) in &self.properties {
                    if let Some(d) = default
                        && !map.contains_key(name)
                    {
                        map.insert(name.clone(), d.clone());
                    }
                    if !child.is_empty()
                        && let Some(v) = map.get_mut(name)
                    {
                        child.apply(v);
                    }
                }
                if let Some(additional) = &self.additional {
                    for (name, v) in map.iter_mut() {
                        if !self.properties.iter().any(|(p, _, _)| p == name) {
                            additional.apply(v);
                        }
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    match self.prefix_items.get(i) {
                        Some(p) => p.apply(v),
                        None => {
                            if let Some(rest) = &self.items {
                                rest.apply(v);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

struct Builder<'a> {
    root: &'a Value,
    error: Option<String>,
}

impl<'a> Builder<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        self.root.pointer(pointer)
    }

    /// `at` is the data expression Ajv's message names (`data.name`), `composite` whether the
    /// schema sits under a composite rule.
    fn plan(&mut self, schema: &'a Value, at: &str, composite: bool, depth: usize) -> DefaultPlan {
        let mut plan = DefaultPlan::default();
        let Some(obj) = schema.as_object() else {
            return plan;
        };
        if depth > MAX_DEPTH || self.error.is_some() {
            return plan;
        }
        if let Some(r) = obj.get("$ref").and_then(Value::as_str)
            && let Some(target) = self.resolve(r)
        {
            plan.all_of
                .push(self.plan(target, at, composite, depth + 1));
        }
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            // Ajv's `for…in` order, so of two ignored defaults the same one is named.
            for (name, sub) in crate::js::entries(props) {
                let child_at = format!("{at}{}", property_expr(name));
                let default = sub.get("default").cloned();
                if default.is_some() && composite {
                    self.error = Some(format!("strict mode: default is ignored for: {child_at}"));
                    return plan;
                }
                let child = self.plan(sub, &child_at, composite, depth + 1);
                if default.is_some() || !child.is_empty() {
                    plan.properties.push((name.clone(), default, child));
                }
            }
        }
        let nested = |b: &mut Self, key: &str, at: &str| -> Option<Box<DefaultPlan>> {
            let p = b.plan(obj.get(key)?, at, composite, depth + 1);
            (!p.is_empty()).then(|| Box::new(p))
        };
        plan.additional = nested(self, "additionalProperties", &format!("{at}[key]"));
        plan.items = nested(self, "items", &format!("{at}[i]"));
        if let Some(prefix) = obj.get("prefixItems").and_then(Value::as_array) {
            let parts: Vec<DefaultPlan> = prefix
                .iter()
                .enumerate()
                .map(|(i, s)| self.plan(s, &format!("{at}[{i}]"), composite, depth + 1))
                .collect();
            if parts.iter().any(|p| !p.is_empty()) {
                plan.prefix_items = parts;
            }
        }
        if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
            for s in all {
                let p = self.plan(s, at, composite, depth + 1);
                if !p.is_empty() {
                    plan.all_of.push(p);
                }
            }
        }
        // Under these Ajv applies no default, and strict mode refuses one: walk them only to
        // find such a default.
        for key in ["anyOf", "oneOf"] {
            for s in obj.get(key).and_then(Value::as_array).into_iter().flatten() {
                let _ = self.plan(s, at, true, depth + 1);
            }
        }
        for key in ["not", "if"] {
            if let Some(s) = obj.get(key) {
                let _ = self.plan(s, at, true, depth + 1);
            }
        }
        plan
    }
}

/// How Ajv's generated code names a property of `data`: `.name` for an identifier, else a
/// quoted index.
fn property_expr(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        format!(".{name}")
    } else {
        format!("[{}]", Value::String(name.to_owned()))
    }
}

#[cfg(test)]
fn filled(plan: &DefaultPlan, value: Value) -> Value {
    let mut v = value;
    plan.apply(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_missing_properties_recursively() {
        let schema = json!({"type": "object", "properties": {
            "top": {"type": "integer", "default": 5},
            "nested": {"type": "object", "properties": {"x": {"default": "a"}}},
            "list": {"type": "array", "items": {"properties": {"y": {"default": 1}}}}
        }, "required": ["top"]});
        let plan = DefaultPlan::build(&schema).expect("plans");
        assert_eq!(
            filled(&plan, json!({"nested": {}, "list": [{}, {"y": 2}]})),
            json!({"top": 5, "nested": {"x": "a"}, "list": [{"y": 1}, {"y": 2}]})
        );
        assert_eq!(
            filled(&plan, json!({"top": 7})),
            json!({"top": 7}),
            "a present value stays"
        );
        assert_eq!(filled(&plan, json!("text")), json!("text"));
    }

    #[test]
    fn local_refs_and_all_of() {
        let schema = json!({"$defs": {"d": {"properties": {"a": {"default": 1}}}},
            "allOf": [{"$ref": "#/$defs/d"}], "properties": {"b": {"$ref": "#/$defs/d"}}});
        let plan = DefaultPlan::build(&schema).expect("plans");
        assert_eq!(
            filled(&plan, json!({"b": {}})),
            json!({"a": 1, "b": {"a": 1}})
        );
    }

    #[test]
    fn strict_mode_refuses_ignored_defaults() {
        assert_eq!(
            DefaultPlan::build(&json!({"default": {}})).expect_err("root default"),
            "strict mode: default is ignored in the schema root"
        );
        let e = DefaultPlan::build(&json!({"anyOf": [{"properties": {"my-x": {"default": 1}}}]}))
            .expect_err("composite default");
        assert_eq!(e, "strict mode: default is ignored for: data[\"my-x\"]");
        // Ajv 8.20.0: its `for…in` meets the array index "0" before "z".
        let e = DefaultPlan::build(
            &json!({"anyOf": [{"properties": {"z": {"default": 1}, "0": {"default": 2}}}]}),
        )
        .expect_err("composite defaults");
        assert_eq!(e, "strict mode: default is ignored for: data[\"0\"]");
        assert!(
            DefaultPlan::build(&json!({"properties": {"a": {"type": "string"}}}))
                .expect("plans")
                .is_empty()
        );
    }
}
