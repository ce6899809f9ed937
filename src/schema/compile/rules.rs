//! Ajv's keyword vocabulary: which keywords have rules, in which order Ajv registers and
//! evaluates them, which data types each applies to, and which it knows as annotations only.

use crate::schema::program::{Group, JType};
use serde_json::{Map, Value};

/// Every keyword with a rule, in the order Ajv registers them, with the data types it applies
/// to (none: any). The order is that of Ajv's strict type checks and, filtered by data type,
/// the order a group's keywords are evaluated in (see [`keywords_of`]).
pub(super) const RULES: &[(&str, &[JType])] = &[
    ("$dynamicAnchor", &[]),
    ("$dynamicRef", &[]),
    ("$recursiveAnchor", &[]),
    ("$recursiveRef", &[]),
    // Ajv's core vocabulary defines `$comment` (no code) and `id` (code that throws) as
    // keywords with rules: a schema holding either is not "without rules" (a `$ref` beside
    // `$comment` is no plain alias), and `id` is refused where its rule runs.
    ("$comment", &[]),
    ("id", &[]),
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
pub(super) fn keywords_of(group: Option<Group>) -> &'static [&'static str] {
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

/// Keywords Ajv knows without a rule (core, metadata, content), plus `x-kindgi-tunable`
/// (`$comment` and `id` have rules: see [`RULES`]).
/// `$anchor` is not among them: Ajv resolves anchors but strict mode calls it unknown.
pub(super) const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "$vocabulary",
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

pub(super) fn is_rule(key: &str) -> bool {
    RULES.iter().any(|&(keyword, _)| keyword == key)
}

pub(super) fn has_rules(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| is_rule(k))
}

pub(super) fn has_rules_but_ref(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| k != "$ref" && is_rule(k))
}

/// Ajv's `hasRef`: any reference keyword anywhere inside (constants included).
pub(super) fn has_ref(v: &Value) -> bool {
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
        assert_eq!(keywords_of(None)[4..8], ["$comment", "id", "$ref", "type"]);
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
