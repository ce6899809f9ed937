//! JSON Schema support as upstream has it: schemas compiled and validated the way Ajv 8
//! (`Ajv2020`, `strict: true`, `allErrors: true`, `ajv-formats`, keyword `x-kindgi-tunable`)
//! compiles and validates them, with Ajv-shaped errors.
//!
//! [`CompiledSchema`] is the entry point: [`CompiledSchema::compile`] refuses what Ajv's strict
//! mode refuses, with Ajv's message first; [`CompiledSchema::errors`] returns, for an instance,
//! exactly the errors Ajv reports (`instancePath`, `schemaPath`, `keyword`, `params`,
//! `message`); [`CompiledSchema::issues`] turns them into [`Issue`]s. Conformance:
//! `tests/ajv_conformance.rs` replays Ajv 8.20.0's answers on the JSON-Schema-Test-Suite.
//!
//! [`issue_from_error`] converts errors of the `jsonschema` crate (still used for runstart's own
//! shape checks of the pack index) into Ajv-shaped issues.

mod ajv;
mod compile;
mod ecma_regex;
mod error;
mod eval;
mod format;
mod format_text;
mod pattern;
mod program;
mod text;
mod uri;
mod validator;

pub use ajv::issue_from_error;
pub(crate) use ecma_regex::{
    constructor_error as regexp_constructor_error, flags_error as regexp_flags_error,
};
pub use error::{SchemaError, SchemaErrorKind};
pub use eval::{AjvError, MAX_EVAL_DEPTH};
pub use pattern::BACKTRACK_LIMIT;
pub(crate) use validator::build as build_validator;

/// Whether `s` passes JSON Schema's `date` format or `date-time` with an optional zone
/// (ajv-formats' `iso-date-time`): a calendar date that exists, optionally with a time.
pub(crate) fn is_date_or_date_time(s: &str) -> bool {
    format_text::is_date(s) || format_text::is_date_time(s, false)
}

/// Deepest JSON Schema nesting compiled (subschemas plus separately compiled references);
/// deeper schemas are refused.
pub const MAX_SCHEMA_DEPTH: usize = compile::MAX_DEPTH;

use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

/// The meta-schemas Ajv 2020 knows, each compiled once, by `$id`.
fn meta_programs() -> &'static Vec<(String, program::Program)> {
    static META: OnceLock<Vec<(String, program::Program)>> = OnceLock::new();
    META.get_or_init(|| {
        let docs = compile::meta_documents();
        let opts = compile::Options {
            strict: true,
            allow_union_types: true,
            validate_formats: false,
            tunable_keyword: false,
        };
        docs.iter()
            .filter_map(|doc| {
                let id = doc.get("$id")?.as_str()?.to_owned();
                let program = compile::Compiler::new(opts)
                    .compile(doc, true, |_| Ok(()))
                    .ok()?;
                Some((id, program))
            })
            .collect()
    })
}

/// Ajv's errors for `schema` against the meta-schema its `$schema` names (draft 2020-12 when
/// absent), or why there is no such meta-schema.
fn meta_errors(schema: &Value) -> Result<Vec<AjvError>, String> {
    let Value::Object(m) = schema else {
        return Ok(Vec::new());
    };
    let wanted = match m.get("$schema") {
        None => compile::META_SCHEMA_ID.to_owned(),
        Some(Value::String(s)) => {
            let s = s.strip_suffix('#').unwrap_or(s);
            if s == "http://json-schema.org/schema" {
                compile::META_SCHEMA_ID.to_owned()
            } else {
                s.to_owned()
            }
        }
        Some(_) => return Err("$schema must be a string".to_owned()),
    };
    match meta_programs().iter().find(|(id, _)| *id == wanted) {
        Some((_, program)) => Ok(eval::validate(program, schema)),
        None => Err(format!(
            "no schema with key or ref \"{}\"",
            m.get("$schema").and_then(Value::as_str).unwrap_or_default()
        )),
    }
}

/// Ajv's `errorsText` with `dataVar` `data`.
fn errors_text(errors: &[AjvError]) -> String {
    errors
        .iter()
        .map(|e| format!("data{} {}", e.instance_path, e.message))
        .collect::<Vec<_>>()
        .join(", ")
}

fn meta_check(schema: &Value) -> Result<(), SchemaError> {
    let errors =
        meta_errors(schema).map_err(|why| SchemaError::new(SchemaErrorKind::MetaSchema, why))?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(SchemaError::new(
            SchemaErrorKind::MetaSchema,
            format!("schema is invalid: {}", errors_text(&errors)),
        ))
    }
}

/// Checks `schema` against the JSON Schema draft 2020-12 meta-schema, as Ajv does before it
/// compiles a schema.
///
/// Returns one [`IssueCode::InvalidSchema`] issue per Ajv error, with `instancePath` = `pointer` (where
/// the schema sits in the index) joined with the path inside the schema. An empty vector means
/// the schema is valid.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// let issues = runstart::schema::check_meta(&json!({"type": "strin"}), "/tools/0/input");
/// assert_eq!(issues.len(), 3);
/// assert_eq!(issues[0].instance_path(), "/tools/0/input/type");
/// ```
pub fn check_meta(schema: &Value, pointer: &str) -> Vec<Issue> {
    let errors = match meta_errors(schema) {
        Ok(errors) => errors,
        Err(why) => {
            return vec![Issue::error(
                IssueCode::InvalidSchema,
                pointer,
                format!("not a valid JSON Schema (draft 2020-12): {why}"),
            )];
        }
    };
    errors
        .iter()
        .map(|e| {
            let mut got = value_at(schema, &e.instance_path)
                .map(Value::to_string)
                .unwrap_or_default();
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
                e.message
            );
            let mut issue = Issue::error(
                IssueCode::InvalidSchema,
                format!("{pointer}{}", e.instance_path),
                message,
            )
            .with_keyword(e.keyword.clone())
            .with_schema_path(e.schema_path.clone());
            for (k, v) in &e.params {
                issue = issue.with_param(k.clone(), v.clone());
            }
            issue
        })
        .collect()
}

fn value_at<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    root.pointer(pointer)
}

/// How [`CompiledSchema::compile_with`] compiles: Ajv's strict mode, `allowUnionTypes`, and
/// whether `x-kindgi-tunable` is a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileOptions {
    strict: bool,
    allow_union_types: bool,
    tunable_keyword: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions::new()
    }
}

impl CompileOptions {
    /// Upstream's `compileInlineSchema` options: strict mode on, union types allowed,
    /// `x-kindgi-tunable` a keyword.
    pub const fn new() -> CompileOptions {
        CompileOptions {
            strict: true,
            allow_union_types: true,
            tunable_keyword: true,
        }
    }

    /// Whether `x-kindgi-tunable` (the mark of a settings value a tenant may tune) is a known
    /// keyword (default `true`, as upstream's `compileInlineSchema` registers it for output,
    /// settings and `needsSpec` schemas). `false` is upstream's `compileJsonSchema`, which
    /// compiles a pack tool's `input` and `output`: in strict mode the mark is then an unknown
    /// keyword (`strict mode: unknown keyword: "x-kindgi-tunable"`).
    ///
    /// ```
    /// use runstart::schema::{CompileOptions, CompiledSchema};
    ///
    /// let schema = serde_json::json!({"type": "object", "x-kindgi-tunable": true});
    /// assert!(CompiledSchema::compile(&schema).is_ok());
    /// let as_tool_schema = CompileOptions::new().with_tunable_keyword(false);
    /// let why = CompiledSchema::compile_with(&schema, &as_tool_schema).unwrap_err();
    /// assert_eq!(why.to_string(), "strict mode: unknown keyword: \"x-kindgi-tunable\"");
    /// ```
    #[must_use]
    pub const fn with_tunable_keyword(mut self, known: bool) -> CompileOptions {
        self.tunable_keyword = known;
        self
    }

    /// Ajv's `strict` (default `true`): unknown keywords and formats, ignored keywords, loose
    /// tuples, undefined required properties and keywords without their type are refused.
    /// Off, they are ignored, as for schemas upstream does not compile strictly (a guardrail's
    /// `configSchema`).
    #[must_use]
    pub const fn with_strict(mut self, strict: bool) -> CompileOptions {
        self.strict = strict;
        self
    }

    /// Ajv's `allowUnionTypes` (default `true`): whether `"type": ["string", "number"]` is
    /// accepted in strict mode. Upstream's `ALLOW_UNION_TYPES` value is unknown (agents.md open
    /// question 11); runstart allows them because refusing common unions would surprise
    /// authors, and Ajv allows `[T, "null"]` either way.
    #[must_use]
    pub const fn with_allow_union_types(mut self, allow: bool) -> CompileOptions {
        self.allow_union_types = allow;
        self
    }
}

/// A JSON Schema compiled once as Ajv 8 compiles it, ready to validate many values.
///
/// This is the one entry point for evaluating a schema: [`CompiledSchema::errors`] gives Ajv's
/// errors, [`CompiledSchema::issues`] the same as [`Issue`]s. Patterns run on the linear-time
/// `regex` engine unless they need look-ahead or back-references, which run on a backtracking
/// engine capped at [`BACKTRACK_LIMIT`] steps per match: pack schemas are untrusted.
#[derive(Debug)]
pub struct CompiledSchema {
    program: program::Program,
}

impl CompiledSchema {
    /// Compiles `schema` as upstream's `compileInlineSchema` does (Ajv 2020-12, strict mode,
    /// formats on, `x-kindgi-tunable` allowed, union types allowed).
    ///
    /// # Errors
    ///
    /// A [`SchemaError`]: its [`SchemaErrorKind`] and, as its message, the one Ajv throws
    /// (`strict mode: unknown keyword: "foo"`, `schema is invalid: data/type must be …`, …).
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::schema::CompiledSchema;
    /// use serde_json::json;
    ///
    /// let ok = CompiledSchema::compile(&json!({"type": "object", "required": []})).unwrap();
    /// assert!(ok.is_valid(&json!({})));
    /// let err = CompiledSchema::compile(&json!({"thisIsNotAValidKeyword": true})).unwrap_err();
    /// assert_eq!(err.to_string(), "strict mode: unknown keyword: \"thisIsNotAValidKeyword\"");
    /// ```
    pub fn compile(schema: &Value) -> Result<CompiledSchema, SchemaError> {
        CompiledSchema::compile_with(schema, &CompileOptions::new())
    }

    /// Compiles `schema` with `options`.
    ///
    /// # Errors
    ///
    /// As [`CompiledSchema::compile`].
    pub fn compile_with(
        schema: &Value,
        options: &CompileOptions,
    ) -> Result<CompiledSchema, SchemaError> {
        let opts = compile::Options {
            strict: options.strict,
            allow_union_types: options.allow_union_types,
            validate_formats: true,
            tunable_keyword: options.tunable_keyword,
        };
        compile::Compiler::new(opts)
            .compile(schema, false, meta_check)
            .map(|program| CompiledSchema { program })
    }

    /// [`CompiledSchema::compile_lenient`] for a schema [`check_meta`] already passed (the
    /// meta-schema check is not run twice).
    pub(crate) fn compile_lenient_checked(schema: &Value) -> Result<CompiledSchema, SchemaError> {
        let opts = compile::Options {
            strict: false,
            allow_union_types: true,
            validate_formats: true,
            tunable_keyword: true,
        };
        compile::Compiler::new(opts)
            .compile(schema, false, |_| Ok(()))
            .map(|program| CompiledSchema { program })
    }

    /// Compiles `schema` without the strict-mode rules (the draft 2020-12 semantics only), for
    /// schemas upstream does not compile strictly (a guardrail's `configSchema`, the built-in
    /// checks' config schemas).
    ///
    /// # Errors
    ///
    /// Why the schema does not compile (an unresolvable `$ref`, an invalid pattern, …).
    pub fn compile_lenient(schema: &Value) -> Result<CompiledSchema, SchemaError> {
        CompiledSchema::compile_with(schema, &CompileOptions::new().with_strict(false))
    }

    /// Whether `instance` satisfies the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        eval::validate(&self.program, instance).is_empty()
    }

    /// Every error Ajv reports for `instance` (`allErrors`), in Ajv's order; empty when valid.
    pub fn errors(&self, instance: &Value) -> Vec<AjvError> {
        eval::validate(&self.program, instance)
    }

    /// Every violation of the schema by `instance`, one Ajv-shaped issue per Ajv error, with
    /// `code`, their instance paths under `base`.
    pub fn issues(&self, instance: &Value, base: &str, code: IssueCode) -> Vec<Issue> {
        self.errors(instance)
            .into_iter()
            .map(|e| ajv_issue(e, base, code))
            .collect()
    }
}

/// An [`AjvError`] as an [`Issue`] with `code`, its instance path under `base`.
pub fn ajv_issue(e: AjvError, base: &str, code: IssueCode) -> Issue {
    let mut issue = Issue::error(code, format!("{base}{}", e.instance_path), e.message)
        .with_schema_path(e.schema_path)
        .with_keyword(e.keyword);
    for (k, v) in e.params {
        issue = issue.with_param(k, v);
    }
    issue
}

/// The shared outcome of compiling one schema: the compiled schema, or why it failed.
pub type SharedCompile = Arc<Result<CompiledSchema, SchemaError>>;

/// A compile-once cache of [`CompiledSchema`]s, shared by every validator (agent output
/// schemas, settings block schemas, flow output schemas) and safe to use from many threads.
///
/// Keyed by the schema's JSON text, so equal schemas written in different places compile
/// once.
#[derive(Debug, Default)]
pub struct SchemaCache {
    compiled: RwLock<HashMap<String, SharedCompile>>,
}

impl SchemaCache {
    /// An empty cache.
    pub fn new() -> SchemaCache {
        SchemaCache::default()
    }

    /// The process-wide cache that validation shares across calls and threads. It holds at
    /// most [`SchemaCache::GLOBAL_CAPACITY`] schemas and starts over when full, so a
    /// long-running deploy service does not grow without bound.
    pub fn global() -> &'static SchemaCache {
        static GLOBAL: OnceLock<SchemaCache> = OnceLock::new();
        GLOBAL.get_or_init(SchemaCache::new)
    }

    /// Most schemas [`SchemaCache::global`] keeps.
    pub const GLOBAL_CAPACITY: usize = 4096;

    /// The compiled form of `schema`, compiling it on first use.
    pub fn get(&self, schema: &Value) -> SharedCompile {
        let key = schema.to_string();
        if let Ok(map) = self.compiled.read()
            && let Some(hit) = map.get(&key)
        {
            return Arc::clone(hit);
        }
        let compiled = Arc::new(CompiledSchema::compile(schema));
        if let Ok(mut map) = self.compiled.write() {
            if map.len() >= Self::GLOBAL_CAPACITY {
                map.clear();
            }
            map.entry(key).or_insert_with(|| Arc::clone(&compiled));
        }
        compiled
    }

    /// Issues for `schema` at `pointer` when it does not compile: one [`IssueCode::SchemaCompile`]
    /// issue, message `Inline schema failed to compile: <why>` (upstream's form).
    pub fn compile_issues(&self, schema: &Value, pointer: &str) -> Vec<Issue> {
        match self.get(schema).as_ref() {
            Ok(_) => Vec::new(),
            Err(why) => vec![Issue::error(
                IssueCode::SchemaCompile,
                pointer,
                format!("Inline schema failed to compile: {why}"),
            )],
        }
    }
}

/// `MODEL_SETTINGS_SCHEMA` (agents.md §4.3): what a model-settings block's `values` must be —
/// `temperature` a number in [0, 2], `maxOutputTokens` an integer ≥ 1, nothing else.
pub fn model_settings_schema() -> &'static CompiledSchema {
    static SCHEMA: OnceLock<CompiledSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        CompiledSchema::compile(&serde_json::json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "temperature": {"type": "number", "minimum": 0, "maximum": 2},
                "maxOutputTokens": {"type": "integer", "minimum": 1}
            }
        }))
        .expect("the model settings schema is a valid constant") // ok: compiled-in constant, covered by tests
    })
}

#[cfg(test)]
mod meta_tests {
    #[test]
    fn meta_schemas_compile() {
        use referencing::meta;
        let opts = super::compile::Options {
            strict: true,
            allow_union_types: true,
            validate_formats: true,
            tunable_keyword: false,
        };
        let r = super::compile::Compiler::new(opts).compile(&meta::DRAFT202012, true, |_| Ok(()));
        assert!(r.is_ok(), "{:?}", r.err());
    }
}

#[cfg(test)]
mod depth_tests {
    use super::CompiledSchema;
    use serde_json::{Value, json};

    #[test]
    fn runtime_recursion_is_capped() {
        let s = CompiledSchema::compile(&json!({"anyOf": [{"$ref": "#"}]})).expect("compiles");
        let errors = s.errors(&json!(1));
        assert!(!errors.is_empty());
    }

    /// Ajv walks a schema's keys in JavaScript's order (array indices first, then as written),
    /// so of two problems the first in that order is the one reported. Messages from Ajv 8.20.0.
    #[test]
    fn the_first_problem_in_javascript_key_order_is_reported() {
        let message = |text: &str| {
            let schema: Value = serde_json::from_str(text).expect("JSON");
            CompiledSchema::compile(&schema)
                .err()
                .map(|e| e.message().to_owned())
        };
        assert_eq!(
            message(r##"{"type":"object","properties":{"z":{"minimum":1},"a":{"type":"string","pattern":"["}}}"##).as_deref(),
            Some(r##"strict mode: missing type "number" for keyword "minimum" at "#/properties/z" (strictTypes)"##)
        );
        assert_eq!(
            message(r##"{"type":"object","properties":{"z":{"minimum":1},"0":{"type":"string","pattern":"["}}}"##).as_deref(),
            Some("Invalid regular expression: /[/u: Unterminated character class")
        );
        // Ajv 8.20.0's answers: `for…in` over the dependencies meets "0" before "c".
        assert_eq!(
            message(r#"{"type":"object","dependentSchemas":{"c":{"required":["p"]},"0":{"required":["q"]}}}"#).as_deref(),
            Some(r##"strict mode: required property "q" is not defined at "#/dependentSchemas/0" (strictRequired)"##)
        );
        let schema = json!({
            "type": "object",
            "properties": {"p": {}, "q": {}, "x": {}, "y": {}},
            "dependentRequired": {"b": ["x"], "1": ["y"]},
            "dependentSchemas": {
                "c": {"properties": {"p": {"type": "string"}}},
                "0": {"properties": {"q": {"type": "string"}}}
            }
        });
        let errors = CompiledSchema::compile(&schema)
            .expect("compiles")
            .errors(&json!({"b": 1, "1": 2, "c": 3, "0": 4, "p": 1, "q": 2}));
        let seen: Vec<(&str, &str, &str)> = errors
            .iter()
            .map(|e| {
                (
                    e.instance_path.as_str(),
                    e.schema_path.as_str(),
                    e.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (
                    "",
                    "#/dependentRequired",
                    "must have property y when property 1 is present"
                ),
                (
                    "",
                    "#/dependentRequired",
                    "must have property x when property b is present"
                ),
                (
                    "/q",
                    "#/dependentSchemas/0/properties/q/type",
                    "must be string"
                ),
                (
                    "/p",
                    "#/dependentSchemas/c/properties/p/type",
                    "must be string"
                ),
            ]
        );
    }

    #[test]
    fn cyclic_refs_are_refused() {
        let cyclic = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert!(CompiledSchema::compile(&cyclic).is_err());
    }
}

#[cfg(test)]
mod deep_compile_tests {
    use super::CompiledSchema;
    use serde_json::{Value, json};

    fn nested(levels: usize) -> Value {
        let mut v = json!({"type": "array"});
        for _ in 0..levels {
            v = json!({"type": "array", "items": v, "maxItems": 5, "allOf": [{"not": {"const": 1}}]});
        }
        v
    }

    #[test]
    fn deep_schemas_compile_or_are_refused_without_overflow() {
        // Each level nests three subschemas (items, allOf/0, not): 40 levels stay under the cap.
        let ok = nested(40);
        let s = CompiledSchema::compile(&ok).expect("40 levels compile");
        let mut data = json!([]);
        for _ in 0..40 {
            data = json!([data]);
        }
        assert!(s.is_valid(&data));
        let err = CompiledSchema::compile(&nested(200)).expect_err("too deep");
        assert_eq!(err.kind(), &super::SchemaErrorKind::TooDeep);
        assert!(
            err.message()
                .starts_with("schema nesting deeper than 128 levels"),
            "{err:?}"
        );
    }
}

#[cfg(test)]
mod strict_mode_tests {
    use super::CompiledSchema;
    use serde_json::{Value, json};

    fn verdict(schema: Value) -> Result<(), String> {
        CompiledSchema::compile(&schema)
            .map(|_| ())
            .map_err(|why| why.to_string())
    }

    #[test]
    fn errors_say_their_kind() {
        use super::SchemaErrorKind as K;
        let kind = |s: Value| {
            CompiledSchema::compile(&s)
                .expect_err("refused")
                .kind()
                .clone()
        };
        assert_eq!(
            kind(json!({"type": "object", "required": ["a"]})),
            K::Strict {
                keyword: "required".to_owned()
            }
        );
        assert_eq!(
            kind(json!({"oops": 1})),
            K::Strict {
                keyword: "oops".to_owned()
            }
        );
        assert_eq!(kind(json!({"type": 5})), K::MetaSchema);
        assert_eq!(kind(json!({"$ref": "#/nope"})), K::Invalid);
    }

    #[test]
    fn strict_mode_verdicts_follow_ajv() {
        let ok = [
            // strictRequired sees properties from an earlier allOf branch and an inlined $ref.
            json!({"type": "object", "allOf": [{"properties": {"a": {}}}, {"required": ["a"]}]}),
            json!({"type": "object", "$defs": {"p": {"type": "object", "properties": {"a": {}}}},
                   "allOf": [{"$ref": "#/$defs/p"}, {"required": ["a"]}]}),
            // An unused $defs entry is never compiled.
            json!({"type": "object", "$defs": {"unused": {"minimum": 1}}}),
            // propertyNames applies to strings, dependentSchemas to the same object.
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({"type": "object", "properties": {"a": {}}, "dependentSchemas": {"a": {"required": ["a"]}}}),
            // format applies to numbers too; nullable adds null.
            json!({"type": "integer", "format": "int32"}),
            json!({"type": "string", "nullable": true, "minLength": 1}),
        ];
        for s in ok {
            assert_eq!(verdict(s.clone()), Ok(()), "{s}");
        }
        let refused = [
            (
                json!({"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]}),
                "strict mode: required property \"a\" is not defined at \"#/anyOf/0\" (strictRequired)",
            ),
            (
                json!({"if": {"type": "string"}}),
                "strict mode: \"if\" without \"then\" and \"else\" is ignored",
            ),
            (
                json!({"$anchor": "a"}),
                "strict mode: unknown keyword: \"$anchor\"",
            ),
            (
                json!({"nullable": true}),
                "\"nullable\" cannot be used without \"type\"",
            ),
            (
                json!({"type": "object", "properties": {"ab": {}}, "patternProperties": {"^a": {}}}),
                "strict mode: property ab matches pattern ^a (use allowMatchingProperties)",
            ),
            (json!({"enum": []}), "enum must have non-empty array"),
            (
                json!({"$dynamicRef": "other#x"}),
                "\"$dynamicRef\" only supports hash fragment reference",
            ),
            (
                json!({"type": "string", "format": "zip"}),
                "unknown format \"zip\" ignored in schema at path \"#\"",
            ),
            (
                json!({"format": "email"}),
                "strict mode: missing type \"number,string\" for keyword \"format\" at \"#\" (strictTypes)",
            ),
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
                "no schema with key or ref \"http://json-schema.org/draft-07/schema#\"",
            ),
            (
                json!({"type": "strin"}),
                "schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf",
            ),
        ];
        for (s, why) in refused {
            assert_eq!(verdict(s.clone()), Err(why.to_owned()), "{s}");
        }
    }

    /// Ajv's core vocabulary gives `$comment` and draft-04's `id` rules (real-world schemas:
    /// SchemaStore's github-workflows, release-drafter, OpenAPI 1.2).
    #[test]
    fn comment_and_id_are_ajv_keywords_with_rules() {
        let id = "NOT SUPPORTED: keyword \"id\", use \"$id\" for schema ID";
        assert_eq!(
            verdict(json!({"id": "x", "type": "string"})).unwrap_err(),
            id
        );
        // strict mode names an unknown keyword before any rule runs
        assert_eq!(
            verdict(json!({"id": "x", "foo": 1})).unwrap_err(),
            "strict mode: unknown keyword: \"foo\""
        );
        let lenient = CompiledSchema::compile_lenient(&json!({"properties": {"a": {"id": "x"}}}));
        assert_eq!(lenient.map(|_| ()).unwrap_err().to_string(), id);
        // `$comment` beside a `$ref` makes the target no plain alias: its errors are reported
        // from the schema the chain ends at
        let chain = json!({"$ref": "#/$defs/a", "$defs": {
            "a": {"$comment": "c", "$ref": "#/$defs/b"},
            "b": {"type": "array"}}});
        let s = CompiledSchema::compile(&chain).expect("compiles");
        let errors = s.errors(&json!(1));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].schema_path, "#/$defs/b/type");
        assert!(
            CompiledSchema::compile(&json!({"$comment": "only"}))
                .is_ok_and(|s| s.is_valid(&json!(1)))
        );
    }
}
