//! Reading the JSON inputs that steer a route or a plan (route inputs, tenant policies,
//! provider metadata, run requests) with errors that name the place.
//!
//! The wire types ([`crate::route::RouteInput`], [`crate::route::TenantPolicy`],
//! [`crate::route::ProviderMetadata`], [`crate::route::Capability`],
//! [`crate::run::RunRequest`], …) refuse unknown fields themselves (`deny_unknown_fields`), so
//! any `serde` front end fails closed on a misspelt field: a policy saying
//! `{"deniedProviders": […]}` is an error, never an empty policy. Plain
//! `serde_json::from_value` reports such a field without its place; the functions here add the
//! JSON Pointer of the offending value and word the message for a person:
//!
//! ```
//! use runstart::route::TenantPolicy;
//!
//! let err = runstart::input::from_str::<TenantPolicy>(r#"{"deniedProviders": ["anthropic-eu"]}"#)
//!     .unwrap_err()
//!     .under("/tenantPolicy");
//! assert_eq!(err.pointer(), "/tenantPolicy/deniedProviders");
//! assert_eq!(
//!     err.to_string(),
//!     "/tenantPolicy/deniedProviders: unknown field; expected one of \"tenantId\", \"providers\", \"models\", \"regionAllow\", \"maxCostPerCallUsd\", \"maxTokensPerCall\""
//! );
//! ```
//!
//! Every struct in these inputs is read from a JSON object only: serde's derive also reads a
//! struct from an array of its field values by position, so `["acme", {"allow": []}]` would
//! pass for a policy; here it is "invalid type: sequence, expected an object" at its place.
//!
//! Upstream validates no `model-routing` policy at all (router.md §1.11); runstart is stricter.

mod objects;

use objects::StructsAsObjects;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;

/// An input that does not have the shape its type requires.
///
/// `code()` is always `invalid-input`; [`InputError::pointer`] is an RFC 6901 JSON Pointer to
/// the offending value (`""` for the whole document, or the parent object for a missing
/// field), and the message says what would fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pointer: String,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
}

impl InputError {
    /// A problem at `pointer` (used for checks made after parsing).
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError {
            pointer: pointer.into(),
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// `invalid-input`.
    pub fn code(&self) -> &'static str {
        "invalid-input"
    }

    /// JSON Pointer of the offending value (`""` is the whole document).
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What is wrong and what would fix it, without the pointer.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// 1-based line of the problem in the text, when it was read from text.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// 1-based column (in bytes) of the problem in the text, when it was read from text.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// The same error for a document embedded at `prefix` (a JSON Pointer) of a larger one:
    /// a policy read from its own file, reported as part of a request, is `under("/tenantPolicy")`.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> InputError {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for InputError {}

/// Parses `text` as a `T`.
///
/// # Errors
///
/// Text that is not JSON (with its line and column, never column 0), or JSON that does not
/// have `T`'s shape: an unknown field (and the fields that are allowed), a missing field, a
/// value of the wrong type, each at its JSON Pointer.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = match serde_path_to_error::deserialize(StructsAsObjects(&mut de)) {
        Ok(value) => value,
        Err(e) if e.inner().is_syntax() => return Err(syntax_or_type_error::<T>(text, e)),
        Err(e) => return Err(from_path_error(e)),
    };
    de.end().map_err(|e| syntax_error(&e))?;
    Ok(value)
}

/// serde_json's reader reports a JSON value a field's enum cannot start with (`"op": null`,
/// `"op": 5`) as a syntax error ("expected value"), though the text is JSON. When it is, the
/// value typed from its parse names the field and the value's type instead, at the same line
/// and column.
fn syntax_or_type_error<T: DeserializeOwned>(
    text: &str,
    e: serde_path_to_error::Error<serde_json::Error>,
) -> InputError {
    let error = from_path_error(e);
    let Ok(parsed) = serde_json::from_str::<Value>(text) else {
        return error;
    };
    match from_value::<T>(parsed) {
        Err(typed) => InputError {
            line: error.line,
            column: error.column,
            ..typed
        },
        Ok(_) => error,
    }
}

/// Reads a `T` from any serde deserializer, every struct from a JSON object only (see the
/// [module docs](self)), with the deserializer's own errors: for a front end that words its
/// errors itself and has no use for [`from_str`]'s pointers (the Node binding, per call).
///
/// # Errors
///
/// `D`'s errors, and "invalid type: sequence, expected struct …" where an array stands for a
/// struct.
///
/// # Examples
///
/// ```
/// use runstart::route::TenantPolicy;
///
/// let mut de = serde_json::Deserializer::from_str(r#"["acme", null]"#);
/// let read: Result<TenantPolicy, _> = runstart::input::deserialize_objects_only(&mut de);
/// assert!(read.unwrap_err().to_string().starts_with("invalid type: sequence"));
/// ```
pub fn deserialize_objects_only<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(StructsAsObjects(deserializer))
}

/// Parses `bytes` (UTF-8 JSON) as a `T`; see [`from_str`].
///
/// # Errors
///
/// As [`from_str`]; bytes that are not UTF-8 are an error at `""`.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        InputError::new(
            "",
            format!(
                "the input is not UTF-8 (invalid byte at offset {}); save it as UTF-8",
                e.valid_up_to()
            ),
        )
    })?;
    from_str(text)
}

/// Converts an already parsed JSON value (for example one a language binding built) into a
/// `T`, with the same errors as [`from_str`] minus line and column.
///
/// # Errors
///
/// As [`from_str`].
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, InputError> {
    serde_path_to_error::deserialize(StructsAsObjects(value)).map_err(from_path_error)
}

/// [`from_value`] from a borrowed value: typed without copying it when it fits (the common
/// case), copied only to say exactly where it does not.
///
/// # Errors
///
/// As [`from_str`].
pub fn from_value_ref<T: DeserializeOwned>(value: &Value) -> Result<T, InputError> {
    T::deserialize(StructsAsObjects(value)).or_else(|_| from_value(value.clone()))
}

fn syntax_error(e: &serde_json::Error) -> InputError {
    let (line, column) = (e.line().max(1), e.column().max(1));
    InputError {
        pointer: String::new(),
        message: format!(
            "not valid JSON: {} (line {line}, column {column})",
            strip_position(e)
        ),
        line: Some(line),
        column: Some(column),
    }
}

fn from_path_error(e: serde_path_to_error::Error<serde_json::Error>) -> InputError {
    let inner = e.inner();
    if inner.is_syntax() || inner.is_eof() || inner.is_io() {
        return syntax_error(inner);
    }
    let mut segments: Vec<String> =
        e.path()
            .iter()
            .filter_map(|s| match s {
                serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => None,
            })
            .collect();
    let raw = strip_position(inner);
    let message = if let Some(rest) = raw.strip_prefix("unknown field `") {
        // serde: "unknown field `x`, expected one of `a`, `b`" (or "expected `a` or `b`",
        // "there are no fields"); the pointer already names `x`.
        let mut parts = rest.split('`');
        let field = parts.next().unwrap_or_default().to_owned();
        let allowed: Vec<&str> = parts.skip(1).step_by(2).collect();
        if segments.last() != Some(&field) {
            segments.push(field.clone());
        }
        unknown_field_message(&field, &allowed)
    } else if let Some(rest) = raw.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or_default();
        format!("missing required field \"{field}\"; add it")
    } else {
        plain_types(&raw)
    };
    let pointer = segments.iter().fold(String::new(), |mut p, s| {
        p.push('/');
        p.push_str(&s.replace('~', "~0").replace('/', "~1"));
        p
    });
    let (line, column) = match inner.line() {
        0 => (None, None),
        l => (Some(l), Some(inner.column().max(1))),
    };
    InputError {
        pointer,
        message,
        line,
        column,
    }
}

fn unknown_field_message(field: &str, allowed: &[&str]) -> String {
    if allowed.is_empty() {
        return "unknown field; this object takes no fields".to_owned();
    }
    let list = allowed
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let mut message = format!("unknown field; expected one of {list}");
    if let Some(near) = nearest(field, allowed.iter().copied()) {
        message.push_str(&format!(" (did you mean \"{near}\"?)"));
    }
    message
}

/// serde_json's message without its " at line L column C" suffix (the caller places it).
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_owned()
}

/// Rust type names in serde's messages, in JSON's words.
fn plain_types(message: &str) -> String {
    let mut out = message.to_owned();
    for (rust, json) in [
        ("expected f64", "expected a number"),
        ("expected u64", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
        ("expected a borrowed string", "expected a string"),
        ("expected string or map", "expected a string or an object"),
    ] {
        out = out.replace(rust, json);
    }
    if let Some(i) = out.find("expected struct ") {
        out.replace_range(i.., "expected an object");
    }
    out
}

/// The candidate closest to `word` by edit distance, when it is close enough to be a typo
/// (at most a third of the word's length, and at least 1 edit allowed). Ties go to the first.
pub(crate) fn nearest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let budget = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars; O(|a|·|b|) time, O(|b|) space. Only used on field and
/// parameter names, which are short.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::{ProviderMetadata, RouteInput, TenantPolicy};

    #[test]
    fn nearest_names_a_typo_and_nothing_far() {
        assert_eq!(
            nearest("maxWord", ["ticketId", "maxWords"]),
            Some("maxWords")
        );
        assert_eq!(
            nearest("regionalow", ["regionAllow", "models"]),
            Some("regionAllow")
        );
        assert_eq!(nearest("deniedProviders", ["providers", "models"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_misspelt_policy_field_is_refused_with_its_place() {
        let text = r#"{"capability":{"needs":[]},"providers":[],"tenantPolicy":{"deniedProviders":["anthropic-eu"]}}"#;
        let err = from_str::<RouteInput>(text).unwrap_err();
        assert_eq!(err.pointer(), "/tenantPolicy/deniedProviders");
        assert_eq!(
            err.message(),
            "unknown field; expected one of \"tenantId\", \"providers\", \"models\", \"regionAllow\", \"maxCostPerCallUsd\", \"maxTokensPerCall\""
        );
        assert_eq!((err.line(), err.column()), (Some(1), Some(75)));
        // Plain serde refuses it too (the Node binding's path), without the place.
        let plain = serde_json::from_str::<RouteInput>(text)
            .unwrap_err()
            .to_string();
        assert!(
            plain.starts_with("unknown field `deniedProviders`, expected one of"),
            "{plain}"
        );
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            from_value::<RouteInput>(value).unwrap_err().to_string(),
            err.to_string()
        );
    }

    #[test]
    fn a_misspelt_need_key_is_an_input_error() {
        let err = from_str::<RouteInput>(
            r#"{"capability":{"needs":[{"feature":"vision"},{"feture":"tool-use"}]},"providers":[]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/capability/needs/1/feture: unknown field; expected one of \"feature\", \"contextWindow\", \"costPerCall\", \"region\", \"p95LatencyMs\", \"providers\", \"models\" (did you mean \"feature\"?)"
        );
        let err = from_str::<RouteInput>(
            r#"{"capability":{"needs":[{"feature":"vision","region":"eu"}]},"providers":[]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/capability/needs/0: a need has exactly one key, but this one has both `feature` and `region`; split it into two needs"
        );
        let err =
            from_str::<RouteInput>(r#"{"capability":{"needs":[{}]},"providers":[]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/capability/needs/0: a need names one of `feature`, `contextWindow`, `costPerCall`, `region`, `p95LatencyMs`, `providers`, `models`; this one names none"
        );
        let err = from_str::<RouteInput>(
            r#"{"capability":{"needs":[{"contextWindow":{"op":">=","valu":1}}]},"providers":[]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/capability/needs/0/contextWindow/valu: unknown field; expected one of \"op\", \"value\" (did you mean \"value\"?)"
        );
    }

    #[test]
    fn provider_metadata_and_capability_fields_are_closed() {
        let err = from_str::<ProviderMetadata>(
            r#"{"id":"p","region":"eu","models":[{"name":"m","contextWindow":1,"features":[],"cost":{"promptUsdPer1kTokens":0,"completionUsdPer1kTokens":0},"p95LatencyMS":3}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.pointer(), "/models/0/p95LatencyMS");
        assert!(
            err.message().ends_with("(did you mean \"p95LatencyMs\"?)"),
            "{err}"
        );
        // Vendor keys in `cost` stay allowed (router.md §1.2).
        from_str::<ProviderMetadata>(
            r#"{"id":"p","region":"eu","models":[{"name":"m","contextWindow":1,"features":[],"cost":{"promptUsdPer1kTokens":0,"completionUsdPer1kTokens":0,"cachedUsdPer1kTokens":0}}]}"#,
        )
        .expect("vendor cost keys");
        let err = from_str::<crate::route::Capability>(r#"{"needs":[],"prefers":[]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/prefers: unknown field; expected one of \"kind\", \"needs\", \"prefer\", \"budget\" (did you mean \"prefer\"?)"
        );
    }

    #[test]
    fn a_struct_given_by_position_is_refused_at_its_place() {
        // serde's derive alone reads each of these by field order (fresh-user trial).
        let err = from_str::<TenantPolicy>(r#"["acme", {"allow": []}]"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: sequence, expected an object"
        );
        assert_eq!((err.pointer(), err.line()), ("", Some(1)));
        let err = from_str::<RouteInput>(r#"[{"needs": []}, []]"#).unwrap_err();
        assert_eq!(err.message(), "invalid type: sequence, expected an object");
        let err = from_value::<RouteInput>(serde_json::json!({
            "capability": [[]],
            "providers": []
        }))
        .unwrap_err();
        assert_eq!(err.pointer(), "/capability");
        assert_eq!(err.message(), "invalid type: sequence, expected an object");
        let policy = serde_json::json!({"tenantId": "acme", "providers": ["x", []]});
        let err = from_value_ref::<TenantPolicy>(&policy).unwrap_err();
        assert_eq!(err.pointer(), "/providers");
    }

    #[test]
    fn types_missing_fields_and_syntax_read_as_json_words() {
        let err = from_str::<TenantPolicy>(r#"{"maxCostPerCallUsd":"cheap"}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/maxCostPerCallUsd: invalid type: string \"cheap\", expected a number"
        );
        let err = from_str::<RouteInput>(r#"{"providers":[]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "missing required field \"capability\"; add it"
        );
        assert_eq!(err.pointer(), "");
        let err = from_str::<TenantPolicy>("{\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not valid JSON: EOF while parsing an object (line 2, column 1)"
        );
        let err = from_slice::<TenantPolicy>(b"{\"a\xff\":1}").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the input is not UTF-8 (invalid byte at offset 3); save it as UTF-8"
        );
        let err = from_str::<TenantPolicy>("{} x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not valid JSON: trailing characters (line 1, column 4)"
        );
        // JSON an enum cannot start with is a type error at its field, not a syntax error
        let need =
            r#"{"capability":{"needs":[{"contextWindow":{"op":null,"value":1}}]},"providers":[]}"#;
        let err = from_str::<RouteInput>(need).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/capability/needs/0/contextWindow/op: invalid type: null, expected a string or an object"
        );
        assert_eq!((err.line(), err.column()), (Some(1), Some(48)));
        let err = from_str::<RouteInput>(&need.replace("null", "5")).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("op: invalid type: integer `5`, expected a string or an object")
        );
    }
}
