//! [`SchemaError`]: why a schema does not compile, as a kind to act on and Ajv's text.

use std::fmt;

/// What kind of problem stops a schema from compiling.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// Nested deeper than runstart compiles (128 levels), or `$ref`s that resolve deeper than
    /// Ajv's stack would (`Maximum call stack size exceeded`).
    TooDeep,
    /// More subschemas than runstart compiles for one schema.
    TooLarge,
    /// A rule of Ajv's strict mode, with the keyword it is about (`unknownKeyword` names the
    /// unknown keyword itself).
    Strict {
        /// The keyword, e.g. `"required"` for `strictRequired`, `"type"` for `strictTypes`.
        keyword: String,
    },
    /// The schema is not valid against its meta-schema, or names a meta-schema runstart does
    /// not know.
    MetaSchema,
    /// Anything else Ajv refuses to compile: a keyword value of the wrong type, a `$ref` that
    /// does not resolve, a pattern no engine runs, a duplicate `$id`, an unknown format in
    /// strict mode, ….
    Invalid,
}

/// Why a schema does not compile: a [`SchemaErrorKind`] to act on, and the message Ajv 8
/// gives for it (its `Display`), e.g. `strict mode: unknown keyword: "oops"`.
///
/// ```
/// use runstart::schema::{CompiledSchema, SchemaErrorKind};
///
/// let err = CompiledSchema::compile(&serde_json::json!({"type": "object", "oops": 1})).unwrap_err();
/// assert_eq!(err.kind(), &SchemaErrorKind::Strict { keyword: "oops".to_owned() });
/// assert_eq!(err.to_string(), "strict mode: unknown keyword: \"oops\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    kind: SchemaErrorKind,
    message: String,
}

impl SchemaError {
    /// What kind of problem it is.
    pub fn kind(&self) -> &SchemaErrorKind {
        &self.kind
    }

    /// Ajv's message (the same as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn new(kind: SchemaErrorKind, message: impl Into<String>) -> SchemaError {
        SchemaError {
            kind,
            message: message.into(),
        }
    }

    /// A strict-mode violation about `keyword`; the message gets Ajv's `strict mode: `.
    pub(crate) fn strict(keyword: &str, message: impl fmt::Display) -> SchemaError {
        SchemaError::new(
            SchemaErrorKind::Strict {
                keyword: keyword.to_owned(),
            },
            format!("strict mode: {message}"),
        )
    }

    pub(crate) fn too_deep(message: impl Into<String>) -> SchemaError {
        SchemaError::new(SchemaErrorKind::TooDeep, message)
    }

    pub(crate) fn invalid(message: impl Into<String>) -> SchemaError {
        SchemaError::new(SchemaErrorKind::Invalid, message)
    }
}

/// The helpers below the compiler (patterns, URIs) say why in text; that is an
/// [`SchemaErrorKind::Invalid`] schema.
impl From<String> for SchemaError {
    fn from(message: String) -> SchemaError {
        SchemaError::invalid(message)
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}
