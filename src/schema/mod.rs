//! JSON Schema support: turning `jsonschema` errors into Ajv-shaped [`Issue`]s, and checking
//! that a schema a pack supplies is itself a valid draft 2020-12 schema.
//!
//! Upstream validates with Ajv, so issues here use Ajv's message templates (`must have
//! required property 'id'`, `must be string`, …) and its `params` names, computed from the
//! `jsonschema` crate's error kinds.

mod ajv;
mod strict;

pub use strict::MAX_SCHEMA_DEPTH;

pub use ajv::issue_from_error;

use crate::diagnostics::Issue;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

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

/// Issue code for a pack-supplied schema that fails Ajv strict-mode compilation.
pub const SCHEMA_COMPILE: &str = "schema-compile";

/// A JSON Schema compiled once under Ajv strict-mode rules, ready to validate many values.
///
/// Patterns run on the `regex` crate's engine, which matches in time linear in the input:
/// pack schemas are untrusted, and a backtracking engine would let `^(a+)+$` hang a deploy.
#[derive(Debug)]
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles `schema` as upstream's `compileInlineSchema` does (Ajv 2020-12, strict mode,
    /// formats on, `x-kindgi-tunable` allowed, union types allowed).
    ///
    /// # Errors
    ///
    /// Every reason the schema does not compile, each in Ajv's words (`strict mode: unknown
    /// keyword: "foo"`, `schema is invalid: data/type must be …`, …). The list is never
    /// empty.
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
    /// assert_eq!(err, vec!["strict mode: unknown keyword: \"thisIsNotAValidKeyword\"".to_owned()]);
    /// ```
    pub fn compile(schema: &Value) -> Result<CompiledSchema, Vec<String>> {
        let mut why = strict::strict_violations(schema);
        if why.iter().any(|w| w.starts_with("schema nesting deeper")) {
            return Err(why);
        }
        why.extend(meta_validator().iter_errors(schema).map(|e| {
            let at = e.instance_path().as_str();
            let issue = issue_from_error(&e, "", SCHEMA_COMPILE);
            format!("schema is invalid: data{at} {}", issue.message())
        }));
        if !why.is_empty() {
            return Err(why);
        }
        CompiledSchema::build(schema)
    }

    /// Compiles `schema` without the strict-mode rules (the draft 2020-12 semantics only), for
    /// schemas upstream does not compile strictly (tool and guardrail config schemas).
    ///
    /// # Errors
    ///
    /// Why the schema does not compile (an unresolvable `$ref`, an invalid pattern, …).
    pub fn compile_lenient(schema: &Value) -> Result<CompiledSchema, Vec<String>> {
        CompiledSchema::build(schema)
    }

    fn build(schema: &Value) -> Result<CompiledSchema, Vec<String>> {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(schema)
            .map(|validator| CompiledSchema { validator })
            .map_err(|e| vec![e.to_string()])
    }

    /// Whether `instance` satisfies the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Every violation of the schema by `instance`, as Ajv-shaped issues with `code`, their
    /// instance paths under `base`.
    pub fn issues(&self, instance: &Value, base: &str, code: &'static str) -> Vec<Issue> {
        self.validator
            .iter_errors(instance)
            .map(|e| issue_from_error(&e, base, code))
            .collect()
    }
}

/// The shared outcome of compiling one schema: the compiled schema, or why it failed.
pub type SharedCompile = Arc<Result<CompiledSchema, Vec<String>>>;

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

    /// Issues for `schema` at `pointer` when it does not compile: one [`SCHEMA_COMPILE`]
    /// issue per reason, message `Inline schema failed to compile: <why>` (upstream's form).
    pub fn compile_issues(&self, schema: &Value, pointer: &str) -> Vec<Issue> {
        match self.get(schema).as_ref() {
            Ok(_) => Vec::new(),
            Err(why) => why
                .iter()
                .map(|w| {
                    Issue::error(
                        SCHEMA_COMPILE,
                        pointer,
                        format!("Inline schema failed to compile: {w}"),
                    )
                })
                .collect(),
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
