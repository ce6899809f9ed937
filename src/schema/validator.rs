//! The one place runstart builds a `jsonschema` crate validator.
//!
//! runstart's own bundled schemas (the pack index shape, the capability schema) and the
//! delegated format checks run on the `jsonschema` crate; user schemas run on runstart's own
//! Ajv-shaped compiler ([`super::CompiledSchema`]). Building every `jsonschema` validator here
//! keeps their options from drifting apart: draft 2020-12, formats asserted, and the
//! linear-time `regex` engine for `pattern`, so pack text never meets a backtracking matcher.

use serde_json::Value;

/// A `jsonschema` validator for `schema` with runstart's options.
///
/// # Errors
///
/// The `jsonschema` crate's message when `schema` does not compile. Callers build only
/// bundled schemas, whose compilation the unit tests cover.
pub(crate) fn build(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| e.to_string())
}
