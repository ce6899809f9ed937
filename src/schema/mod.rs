//! JSON Schema support: turning `jsonschema` errors into Ajv-shaped [`Issue`]s, and checking
//! that a schema a pack supplies is itself a valid draft 2020-12 schema.
//!
//! Upstream validates with Ajv, so issues here use Ajv's message templates (`must have
//! required property 'id'`, `must be string`, …) and its `params` names, computed from the
//! `jsonschema` crate's error kinds.

mod ajv;

pub use ajv::issue_from_error;

use crate::diagnostics::Issue;
use serde_json::Value;
use std::sync::OnceLock;

/// Issue code for a pack-supplied schema that is not a valid draft 2020-12 schema.
pub const INVALID_SCHEMA: &str = "invalid-schema";

fn meta_validator() -> &'static jsonschema::meta::MetaValidator<'static> {
    // Built once: compiling the meta-schema costs far more than checking one schema.
    static META: OnceLock<jsonschema::meta::MetaValidator<'static>> = OnceLock::new();
    META.get_or_init(jsonschema::draft202012::meta::validator)
}

/// Checks `schema` against the JSON Schema draft 2020-12 meta-schema.
///
/// Returns one [`INVALID_SCHEMA`] issue per violation, with `instancePath` = `pointer` (where
/// the schema sits in the index) joined with the path inside the schema. An empty vector means
/// the schema is valid.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// let issues = runstart::schema::check_meta(&json!({"type": "strin"}), "/tools/0/input");
/// assert_eq!(issues.len(), 1);
/// assert_eq!(issues[0].instance_path(), "/tools/0/input/type");
/// ```
pub fn check_meta(schema: &Value, pointer: &str) -> Vec<Issue> {
    meta_validator()
        .iter_errors(schema)
        .map(|e| {
            let issue = issue_from_error(&e, pointer, INVALID_SCHEMA);
            let mut got = e.instance().to_string();
            if got.len() > 60 {
                let mut cut = 57;
                while !got.is_char_boundary(cut) {
                    cut -= 1;
                }
                got.truncate(cut);
                got.push_str("...");
            }
            let message = format!(
                "not a valid JSON Schema (draft 2020-12): {} (got {got})",
                issue.message()
            );
            Issue::error(INVALID_SCHEMA, issue.instance_path(), message)
                .with_keyword(issue.keyword().unwrap_or("").to_owned())
                .with_schema_path(issue.schema_path().unwrap_or("#").to_owned())
        })
        .collect()
}
