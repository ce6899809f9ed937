//! Ajv strict-mode compilation of schemas a pack supplies (agent `output.schema`, settings
//! block `schema`, flow output schemas).
//!
//! Upstream compiles these with Ajv 2020-12, `strict: true`, `allErrors: true` and
//! `ajv-formats`, allowing the extra keyword `x-kindgi-tunable` (flows.md §2.1, agents.md §2).
//! `strict: true` turns on every strict-mode restriction of Ajv 8: unknown keywords, unknown
//! formats, ignored keywords (`then`/`else` without `if`, `maxContains`/`minContains` without
//! `contains`), unconstrained tuples (`strictTuples`), required properties that `properties`
//! does not define (`strictRequired`), and keywords without their applicable `type`
//! (`strictTypes`). Union types (`"type": ["string", "number"]`) are allowed: upstream's
//! `ALLOW_UNION_TYPES` value is unknown, and refusing common nullable unions would surprise
//! authors. On top of the strict walk the schema must pass the draft 2020-12 meta-schema and
//! compile (resolvable `$ref`s, valid patterns).

use serde_json::{Map, Value};

/// Keywords Ajv 2020 knows (core, applicator, validation, format, metadata, content,
/// unevaluated, dynamic), plus the `x-kindgi-tunable` annotation.
const KNOWN_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "definitions",
    "$comment",
    "$vocabulary",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalProperties",
    "dependencies",
    "properties",
    "patternProperties",
    "prefixItems",
    "items",
    "contains",
    "type",
    "nullable",
    "const",
    "enum",
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
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
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
    "x-kindgi-tunable",
];

/// Formats `ajv-formats` adds.
const KNOWN_FORMATS: &[&str] = &[
    "date",
    "time",
    "date-time",
    "iso-time",
    "iso-date-time",
    "duration",
    "uri",
    "uri-reference",
    "uri-template",
    "url",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "regex",
    "uuid",
    "json-pointer",
    "json-pointer-uri-fragment",
    "relative-json-pointer",
    "byte",
    "int32",
    "int64",
    "float",
    "double",
    "password",
    "binary",
];

/// The JSON type a type-specific keyword applies to.
fn applicable_type(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" | "multipleOf" => "number",
        "maxLength" | "minLength" | "pattern" | "format" => "string",
        "prefixItems" | "items" | "contains" | "maxItems" | "minItems" | "uniqueItems"
        | "maxContains" | "minContains" | "unevaluatedItems" => "array",
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "propertyNames"
        | "required"
        | "maxProperties"
        | "minProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "unevaluatedProperties" => "object",
        _ => return None,
    })
}

/// Deepest schema nesting the strict walk follows; deeper schemas are refused.
pub const MAX_SCHEMA_DEPTH: usize = 128;

struct Frame<'a> {
    schema: &'a Map<String, Value>,
    path: String,
    /// Types known for the data at this schema: from its own `type` or, for in-place
    /// applicators (`allOf`, `anyOf`, …), from the parent.
    context: Vec<String>,
    /// Property names defined by `properties` for the same data (here or in a parent that
    /// applies in place), which `required` may name.
    defined: Vec<&'a str>,
    depth: usize,
}

fn types_of(schema: &Map<String, Value>) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn has_applicable(types: &[String], wanted: &str) -> bool {
    types
        .iter()
        .any(|t| t == wanted || (wanted == "number" && t == "integer"))
}

/// Runs Ajv's strict-mode rules over `schema`; returns each violation as Ajv words it
/// (`strict mode: unknown keyword: "foo"`), with the schema path it was found at.
pub(super) fn strict_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Value::Object(root) = schema else {
        if !schema.is_boolean() {
            out.push("schema must be object or boolean".to_owned());
        }
        return out;
    };
    let mut stack = vec![Frame {
        schema: root,
        path: "#".to_owned(),
        context: Vec::new(),
        defined: Vec::new(),
        depth: 0,
    }];
    while let Some(frame) = stack.pop() {
        if frame.depth > MAX_SCHEMA_DEPTH {
            out.push(format!(
                "schema nesting deeper than {MAX_SCHEMA_DEPTH} levels at \"{}\"",
                frame.path
            ));
            continue;
        }
        check_one(&frame, &mut out);
        push_children(&frame, &mut stack);
    }
    out
}

fn check_one(frame: &Frame<'_>, out: &mut Vec<String>) {
    let s = frame.schema;
    let at = &frame.path;
    for key in s.keys() {
        if !KNOWN_KEYWORDS.contains(&key.as_str()) {
            out.push(format!("strict mode: unknown keyword: \"{key}\""));
        }
    }
    if let Some(Value::String(f)) = s.get("format")
        && !KNOWN_FORMATS.contains(&f.as_str())
    {
        out.push(format!(
            "unknown format \"{f}\" ignored in schema at path \"{at}\""
        ));
    }
    if let Some(Value::String(v)) = s.get("$schema")
        && v.trim_end_matches('#') != "https://json-schema.org/draft/2020-12/schema"
    {
        out.push(format!("no schema with key or ref \"{v}\""));
    }
    for k in ["then", "else"] {
        if s.contains_key(k) && !s.contains_key("if") {
            out.push(format!("strict mode: \"{k}\" without \"if\" is ignored"));
        }
    }
    for k in ["maxContains", "minContains"] {
        if s.contains_key(k) && !s.contains_key("contains") {
            out.push(format!(
                "strict mode: \"{k}\" without \"contains\" is ignored"
            ));
        }
    }
    // strictTypes: a type-specific keyword needs its type, here or from the context.
    let own = types_of(s);
    let types: Vec<String> = if own.is_empty() {
        frame.context.clone()
    } else {
        own.clone()
    };
    if !own.is_empty() && !frame.context.is_empty() {
        for t in &own {
            let narrows = frame
                .context
                .iter()
                .any(|c| c == t || (t == "integer" && c == "number"));
            if !narrows {
                out.push(format!(
                    "strict mode: type \"{t}\" not allowed by context \"{}\" at \"{at}\"",
                    frame.context.join(",")
                ));
            }
        }
    }
    let mut seen = Vec::new();
    for key in s.keys() {
        if let Some(wanted) = applicable_type(key)
            && !has_applicable(&types, wanted)
            && !seen.contains(&wanted)
        {
            seen.push(wanted);
            out.push(format!(
                    "strict mode: missing type \"{wanted}\" for keyword \"{key}\" at \"{at}\" (strictTypes)"
                ));
        }
    }
    // strictTuples
    if let Some(Value::Array(prefix)) = s.get("prefixItems") {
        let n = prefix.len() as u64;
        let min_ok = s.get("minItems").and_then(Value::as_u64) == Some(n);
        let closed = s.get("items") == Some(&Value::Bool(false))
            || s.get("maxItems").and_then(Value::as_u64) == Some(n);
        if !(min_ok && closed) {
            out.push(format!(
                "strict mode: \"prefixItems\" is {n} items long, but \"minItems\" and \"items: false\" or \"maxItems\" do not fix it at \"{at}\" (strictTuples)"
            ));
        }
    }
    // strictRequired
    if let Some(Value::Array(required)) = s.get("required") {
        let props = s.get("properties").and_then(Value::as_object);
        for r in required.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(r)) && !frame.defined.contains(&r) {
                out.push(format!(
                    "strict mode: required property \"{r}\" is not defined at \"{at}\" (strictRequired)"
                ));
            }
        }
    }
}

fn push_children<'a>(frame: &Frame<'a>, stack: &mut Vec<Frame<'a>>) {
    let s = frame.schema;
    let here = types_of(s);
    let in_place_types = if here.is_empty() {
        frame.context.clone()
    } else {
        here
    };
    let mut in_place_defined = frame.defined.clone();
    if let Some(Value::Object(props)) = s.get("properties") {
        in_place_defined.extend(props.keys().map(String::as_str));
    }
    // `same_data`: the child schema applies to the same instance (allOf, not, if, …), so it
    // inherits the known types and defined properties; otherwise it starts afresh.
    let mut child = |value: &'a Value, path: String, same_data: bool| {
        if let Value::Object(m) = value {
            let (context, defined) = if same_data {
                (in_place_types.clone(), in_place_defined.clone())
            } else {
                (Vec::new(), Vec::new())
            };
            stack.push(Frame {
                schema: m,
                path,
                context,
                defined,
                depth: frame.depth + 1,
            });
        }
    };
    for (key, value) in s {
        let path = format!("{}/{}", frame.path, escape(key));
        match key.as_str() {
            // Maps of name → schema, each for other data.
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(m) = value {
                    for (name, sub) in m {
                        child(sub, format!("{path}/{}", escape(name)), false);
                    }
                }
            }
            // Lists of schemas for the same data.
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(items) = value {
                    for (i, sub) in items.iter().enumerate() {
                        child(sub, format!("{path}/{i}"), true);
                    }
                }
            }
            "prefixItems" => {
                if let Value::Array(items) = value {
                    for (i, sub) in items.iter().enumerate() {
                        child(sub, format!("{path}/{i}"), false);
                    }
                }
            }
            // One schema for the same data.
            "not" | "if" | "then" | "else" => child(value, path, true),
            // One schema for other data.
            "items"
            | "contains"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contentSchema" => child(value, path, false),
            _ => {}
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_a_typical_output_schema() {
        let s = json!({"type":"object","properties":{"a":{"type":"string","format":"email"},
            "n":{"type":["integer","null"],"minimum":0},"t":{"enum":[1,2],"x-kindgi-tunable":true}},
            "required":["a"],"additionalProperties":false});
        assert_eq!(strict_violations(&s), Vec::<String>::new());
    }

    #[test]
    fn reports_each_strict_rule() {
        let s = json!({"type":"object","thisIsNotAValidKeyword":true,
            "properties":{"d":{"type":"string","format":"zip"},"m":{"minLength":1},
                          "tup":{"type":"array","prefixItems":[{"type":"string"}]},
                          "c":{"type":"object","then":{}}},
            "required":["a"]});
        let got = strict_violations(&s);
        for want in [
            "strict mode: unknown keyword: \"thisIsNotAValidKeyword\"",
            "unknown format \"zip\" ignored in schema at path \"#/properties/d\"",
            "strict mode: missing type \"string\" for keyword \"minLength\" at \"#/properties/m\" (strictTypes)",
            "strict mode: required property \"a\" is not defined at \"#\" (strictRequired)",
            "strict mode: \"then\" without \"if\" is ignored",
        ] {
            assert!(got.iter().any(|g| g == want), "missing {want:?} in {got:?}");
        }
        assert!(got.iter().any(|g| g.contains("(strictTuples)")), "{got:?}");
    }

    #[test]
    fn in_place_applicators_inherit_the_type() {
        let s = json!({"type":"object","properties":{"a":{"type":"string"}},
            "anyOf":[{"required":["a"]}]});
        // `required` inside anyOf sees type object and the properties of the parent.
        assert_eq!(strict_violations(&s), Vec::<String>::new());
    }
}
