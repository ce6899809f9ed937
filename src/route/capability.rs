//! `defineCapability`'s schema check (spec §4.2) against the capability schema 1.1.0 of seed
//! `003`, compiled once.

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use std::sync::LazyLock;

/// The capability schema's `$id` (upstream `CAPABILITY_SCHEMA_URI`).
pub const CAPABILITY_SCHEMA_URI: &str = "https://kindgi.com/schemas/v1/capability.schema.json";

static SCHEMA_TEXT: &str = include_str!("capability.schema.json");

/// Compiled once, lazily, as upstream does; `Err` only if the bundled schema were broken,
/// which the unit tests rule out.
static VALIDATOR: LazyLock<Result<Validator, String>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).map_err(|e| e.to_string())?;
    crate::schema::build_validator(&schema)
});

/// Checks a capability declaration against the capability schema (spec §1.10, §4.2).
///
/// Returns one Ajv-shaped [`Issue`] per failure (code `invalid-capability`, the JSON Schema
/// `keyword`, `schemaPath`, `params` and an Ajv-style message), with instance paths relative
/// to the capability: `""` is the capability itself, `/needs/0` its first need. Callers
/// nesting it (an agent's `/agents/<i>/capabilities/<k>`) prefix with [`Issue::under`].
/// An empty vector means valid. Routing does not require this check (it accepts e.g.
/// `needs: []`), but packs must pass it.
///
/// Ajv (with `allErrors`) reports each `oneOf` branch's failures; this reports the `oneOf`
/// failure itself, so issue counts differ from upstream (spec §4.2 calls them no target).
///
/// # Examples
///
/// ```
/// use runstart::route::validate_capability;
///
/// assert!(validate_capability(&serde_json::json!({"needs": [{"feature": "vision"}]})).is_empty());
/// let issues = validate_capability(&serde_json::json!({"needs": []}));
/// assert_eq!(issues[0].code(), "invalid-capability");
/// assert_eq!(issues[0].instance_path(), "/needs");
/// assert_eq!(issues[0].message(), "must NOT have fewer than 1 items");
/// ```
pub fn validate_capability(capability: &Value) -> Vec<Issue> {
    let validator = match VALIDATOR.as_ref() {
        Ok(v) => v,
        Err(e) => {
            return vec![Issue::error(
                IssueCode::SchemaCompile,
                "",
                format!("capability schema failed to compile: {e}"),
            )];
        }
    };
    let mut issues = Vec::new();
    for error in validator.iter_errors(capability) {
        push_issues(&mut issues, &error);
    }
    issues
}

/// Ajv-shaped issues come from the shared converter, so every schema-driven issue of runstart
/// words the same keyword the same way.
fn push_issues(out: &mut Vec<Issue>, e: &ValidationError<'_>) {
    out.push(crate::schema::issue_from_error(
        e,
        "",
        IssueCode::InvalidCapability,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(v: Value) -> Vec<(String, String)> {
        validate_capability(&v)
            .into_iter()
            .map(|i| {
                (
                    i.instance_path().to_owned(),
                    i.keyword().unwrap_or("").to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn accepts_upstream_happy_paths() {
        assert!(codes(json!({"needs": [{"feature": "structured-output"}]})).is_empty());
        let every = json!({
            "needs": [
                {"feature": "tool-use"},
                {"contextWindow": {"op": ">=", "value": 128000}},
                {"costPerCall": {"op": "<=", "usd": 0.01}},
                {"region": "us-east5"},
                {"p95LatencyMs": {"op": "<", "value": 5000}},
                {"providers": {"allow": ["anthropic-claude", "vertex-gemini"]}}
            ],
            "prefer": [{"feature": "lower-cost", "weight": 1}, {"feature": "higher-accuracy", "weight": 2}],
            "budget": {"maxCostUsd": 0.1, "maxTokens": 8000, "maxDurationMs": 30000}
        });
        assert!(codes(every).is_empty());
        assert!(codes(json!({"kind": "embedding", "needs": [{"feature": "batch"}]})).is_empty());
        assert!(
            codes(json!({"needs": [{"models": {"allow": ["beta"], "deny": ["gamma"]}}]}))
                .is_empty()
        );
    }

    #[test]
    fn rejects_upstream_bad_declarations() {
        for bad in [
            json!({"needs": []}),
            json!({"needs": [{"feature": "telepathy"}]}),
            json!({"needs": [{"contextWindow": {"op": "!=", "value": 1}}]}),
            json!({"needs": [{"costPerCall": {"op": "<=", "usd": -1}}]}),
            json!({"kind": "", "needs": [{"feature": "vision"}]}),
            json!({"needs": [{"models": {"only": ["beta"]}}]}),
            json!({"needs": [{"feature": "vision"}], "extra": 1}),
            json!({}),
        ] {
            let issues = validate_capability(&bad);
            assert!(!issues.is_empty(), "{bad}");
            assert!(issues.iter().all(|i| i.code() == "invalid-capability"));
        }
        assert_eq!(
            codes(json!({"needs": [{"feature": "vision"}], "extra": 1})),
            [(String::new(), "additionalProperties".to_owned())]
        );
        let nested = validate_capability(&json!({"needs": [{"feature": "telepathy"}]}));
        assert!(
            nested
                .iter()
                .all(|i| i.instance_path().starts_with("/needs/0"))
        );
        assert_eq!(
            nested[0]
                .clone()
                .under("/agents/0/capabilities/1")
                .instance_path(),
            "/agents/0/capabilities/1/needs/0"
        );
    }
}
