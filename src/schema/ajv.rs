//! Ajv-shaped issues from `jsonschema` validation errors.

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Value, json};

/// Converts one `jsonschema` error into an Ajv-shaped [`Issue`] with `code`.
///
/// `base` is the JSON Pointer of the validated instance inside the whole document; the issue's
/// `instancePath` is `base` followed by the error's own instance path. The `schemaPath` is the
/// error's schema location as a URI fragment (`#/properties/tools/…`). Messages follow Ajv 8's
/// templates; for `additionalProperties`, which Ajv reports once per unknown property, the
/// message also names the property so a person can act on it.
pub fn issue_from_error(error: &ValidationError<'_>, base: &str, code: IssueCode) -> Issue {
    let mut path = String::with_capacity(base.len() + 16);
    path.push_str(base);
    path.push_str(error.instance_path().as_str());
    let schema_path = format!("#{}", error.schema_path().as_str());
    let keyword = keyword_of(error.kind());
    let (message, params) = describe(error.kind());
    let mut issue = Issue::error(code, path, message)
        .with_schema_path(schema_path)
        .with_keyword(keyword);
    if let Value::Object(map) = params {
        for (k, v) in map {
            issue = issue.with_param(k, v);
        }
    }
    issue
}

fn keyword_of(kind: &ValidationErrorKind) -> &'static str {
    use ValidationErrorKind as K;
    match kind {
        K::AdditionalItems { .. } => "additionalItems",
        K::AdditionalProperties { .. } => "additionalProperties",
        K::AnyOf { .. } => "anyOf",
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } | K::Pattern { .. } => {
            "pattern"
        }
        K::Constant { .. } => "const",
        K::Contains => "contains",
        K::ContentEncoding { .. } | K::FromUtf8 { .. } => "contentEncoding",
        K::ContentMediaType { .. } => "contentMediaType",
        K::Custom { .. } => "custom",
        K::Enum { .. } => "enum",
        K::ExclusiveMaximum { .. } => "exclusiveMaximum",
        K::ExclusiveMinimum { .. } => "exclusiveMinimum",
        K::FalseSchema => "false schema",
        K::Format { .. } => "format",
        K::MaxItems { .. } => "maxItems",
        K::Maximum { .. } => "maximum",
        K::MaxLength { .. } => "maxLength",
        K::MaxProperties { .. } => "maxProperties",
        K::MinItems { .. } => "minItems",
        K::Minimum { .. } => "minimum",
        K::MinLength { .. } => "minLength",
        K::MinProperties { .. } => "minProperties",
        K::MultipleOf { .. } => "multipleOf",
        K::Not { .. } => "not",
        K::OneOfMultipleValid { .. } | K::OneOfNotValid { .. } => "oneOf",
        K::PropertyNames { .. } => "propertyNames",
        K::Required { .. } => "required",
        K::Type { .. } => "type",
        K::UnevaluatedItems { .. } => "unevaluatedItems",
        K::UnevaluatedProperties { .. } => "unevaluatedProperties",
        K::UniqueItems => "uniqueItems",
        K::Referencing(_) => "$ref",
    }
}

fn type_names(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.to_string(),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(","),
    }
}

fn describe(kind: &ValidationErrorKind) -> (String, Value) {
    use ValidationErrorKind as K;
    match kind {
        K::AdditionalItems { limit } => (
            format!("must NOT have more than {limit} items"),
            json!({ "limit": limit }),
        ),
        K::AdditionalProperties { unexpected } => {
            let names = unexpected
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(", ");
            let param = match unexpected.as_slice() {
                [one] => json!({ "additionalProperty": one }),
                many => json!({ "additionalProperty": many }),
            };
            (
                format!("must NOT have additional properties ({names} is not a known field)"),
                param,
            )
        }
        K::AnyOf { .. } => ("must match a schema in anyOf".into(), json!({})),
        K::BacktrackLimitExceeded { error } => (
            format!("pattern could not be evaluated: {error}"),
            json!({}),
        ),
        K::RegexEngineFailure { message } => (
            format!("pattern could not be evaluated: {message}"),
            json!({}),
        ),
        K::Pattern { pattern } => (
            format!("must match pattern \"{pattern}\""),
            json!({ "pattern": pattern }),
        ),
        K::Constant { expected_value } => (
            "must be equal to constant".into(),
            json!({ "allowedValue": expected_value.as_ref() }),
        ),
        K::Contains => ("must contain at least 1 valid item(s)".into(), json!({})),
        K::ContentEncoding { content_encoding } => (
            format!("must be encoded as \"{content_encoding}\""),
            json!({}),
        ),
        K::FromUtf8 { error } => (format!("must be valid UTF-8: {error}"), json!({})),
        K::ContentMediaType { content_media_type } => (
            format!("must be of media type \"{content_media_type}\""),
            json!({}),
        ),
        K::Custom { message, .. } => (message.clone(), json!({})),
        K::Enum { options } => (
            "must be equal to one of the allowed values".into(),
            json!({ "allowedValues": options.as_ref() }),
        ),
        K::ExclusiveMaximum { limit } => limit_msg("<", limit),
        K::ExclusiveMinimum { limit } => limit_msg(">", limit),
        K::Maximum { limit } => limit_msg("<=", limit),
        K::Minimum { limit } => limit_msg(">=", limit),
        K::FalseSchema => ("boolean schema is false".into(), json!({})),
        K::Format { format } => (
            format!("must match format \"{format}\""),
            json!({ "format": format }),
        ),
        K::MaxItems { limit } => count_msg("more", *limit, "items"),
        K::MinItems { limit } => count_msg("fewer", *limit, "items"),
        K::MaxLength { limit } => count_msg("more", *limit, "characters"),
        K::MinLength { limit } => count_msg("fewer", *limit, "characters"),
        K::MaxProperties { limit } => count_msg("more", *limit, "properties"),
        K::MinProperties { limit } => count_msg("fewer", *limit, "properties"),
        K::MultipleOf { multiple_of, .. } => (
            format!("must be multiple of {multiple_of}"),
            json!({ "multipleOf": multiple_of }),
        ),
        K::Not { .. } => ("must NOT be valid".into(), json!({})),
        K::OneOfMultipleValid { .. } | K::OneOfNotValid { .. } => {
            ("must match exactly one schema in oneOf".into(), json!({}))
        }
        K::PropertyNames { error } => (format!("property name must be valid: {error}"), json!({})),
        K::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            (
                format!("must have required property '{name}'"),
                json!({ "missingProperty": name }),
            )
        }
        K::Type { kind } => {
            let names = type_names(kind);
            (format!("must be {names}"), json!({ "type": names }))
        }
        K::UnevaluatedItems { .. } => ("must NOT have unevaluated items".into(), json!({})),
        K::UnevaluatedProperties { unexpected } => (
            format!(
                "must NOT have unevaluated properties ({})",
                unexpected.join(", ")
            ),
            json!({ "unevaluatedProperty": unexpected }),
        ),
        K::UniqueItems => ("must NOT have duplicate items".into(), json!({})),
        K::Referencing(e) => (format!("cannot resolve reference: {e}"), json!({})),
    }
}

fn limit_msg(comparison: &str, limit: &Value) -> (String, Value) {
    (
        format!("must be {comparison} {limit}"),
        json!({ "comparison": comparison, "limit": limit }),
    )
}

fn count_msg(more_or_fewer: &str, limit: u64, what: &str) -> (String, Value) {
    (
        format!("must NOT have {more_or_fewer} than {limit} {what}"),
        json!({ "limit": limit }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(schema: Value, instance: Value) -> Vec<Issue> {
        let v = jsonschema::validator_for(&schema).expect("test schema compiles");
        v.iter_errors(&instance)
            .map(|e| issue_from_error(&e, "/base", IssueCode::InvalidShape))
            .collect()
    }

    #[test]
    fn required_and_type_use_ajv_wording() {
        let got = issues(
            json!({"type":"object","required":["id"],"properties":{"n":{"type":"string"}}}),
            json!({"n": 3}),
        );
        let msgs: Vec<_> = got
            .iter()
            .map(|i| (i.instance_path(), i.keyword(), i.message()))
            .collect();
        assert!(msgs.contains(&(
            "/base",
            Some("required"),
            "must have required property 'id'"
        )));
        assert!(msgs.contains(&("/base/n", Some("type"), "must be string")));
        let req = got
            .iter()
            .find(|i| i.keyword() == Some("required"))
            .expect("required");
        assert_eq!(req.params()["missingProperty"], "id");
        assert_eq!(req.schema_path(), Some("#/required"));
    }

    #[test]
    fn additional_properties_names_the_field() {
        let got = issues(
            json!({"type":"object","additionalProperties":false,"properties":{}}),
            json!({"extra": 1}),
        );
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0].message(),
            "must NOT have additional properties ('extra' is not a known field)"
        );
        assert_eq!(got[0].params()["additionalProperty"], "extra");
    }

    #[test]
    fn limits_use_ajv_wording() {
        let got = issues(json!({"minimum": 1}), json!(0));
        assert_eq!(got[0].message(), "must be >= 1");
        assert_eq!(got[0].params()["comparison"], ">=");
        let got = issues(json!({"minLength": 1}), json!(""));
        assert_eq!(got[0].message(), "must NOT have fewer than 1 characters");
    }
}
