//! `validateIndex` (asynchronous, on libuv's thread pool), `validateIndexSync` and
//! `indexHash` (flows.md §3): the report `runstart validate --format json` prints for one
//! file, without its `file` field.

use crate::guard::{Failure, catch, guard, to_json, to_napi_error};
use napi::bindgen_prelude::{AsyncTask, Either, Uint8Array};
use napi::{Env, Task};
use napi_derive::napi;
use runstart::diagnostics::{Issue, Report};
use runstart::validate::{ValidateOptions, validate_index};
use serde::Serialize;

/// A pack index as bytes (a `Buffer` or `Uint8Array`) or as text.
pub type IndexInput = Either<Uint8Array, String>;

/// The bytes of an [`IndexInput`], copied (the asynchronous task outlives the call).
pub fn input_bytes(input: IndexInput) -> Vec<u8> {
    match input {
        Either::A(bytes) => bytes.to_vec(),
        Either::B(text) => text.into_bytes(),
    }
}

#[derive(Serialize)]
struct ReportWire<'a> {
    errors: usize,
    warnings: usize,
    issues: &'a [Issue],
}

fn report_json(report: &Report) -> Result<String, Failure> {
    to_json(&ReportWire {
        errors: report.error_count(),
        warnings: report.warning_count(),
        issues: report.issues(),
    })
}

fn options(check_canonical_form: Option<bool>) -> ValidateOptions {
    ValidateOptions::new().should_check_canonical_form(check_canonical_form.unwrap_or(true))
}

/// Validates one pack index on the calling thread; the report as JSON.
#[napi(js_name = "validateIndexSync")]
pub fn validate_index_sync(
    env: Env,
    input: IndexInput,
    check_canonical_form: Option<bool>,
) -> napi::Result<String> {
    guard(&env, || {
        let bytes = input_bytes(input);
        report_json(&validate_index(&bytes, &options(check_canonical_form)))
    })
}

/// The validation task: computed off the JavaScript thread.
pub struct ValidateTask {
    bytes: Vec<u8>,
    options: ValidateOptions,
}

impl Task for ValidateTask {
    type Output = Result<String, Failure>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(catch(|| {
            report_json(&validate_index(&self.bytes, &self.options))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|f| to_napi_error(&env, f))
    }
}

/// Validates one pack index on libuv's thread pool; a promise of the report as JSON.
#[napi(js_name = "validateIndex", ts_return_type = "Promise<string>")]
pub fn validate_index_async(
    env: Env,
    input: IndexInput,
    check_canonical_form: Option<bool>,
) -> napi::Result<AsyncTask<ValidateTask>> {
    guard(&env, || {
        Ok(AsyncTask::new(ValidateTask {
            bytes: input_bytes(input),
            options: options(check_canonical_form),
        }))
    })
}

/// The hash a deployment signs: `sha256:` and the hex SHA-256 of the bytes.
#[napi(js_name = "indexHash")]
pub fn index_hash(env: Env, input: IndexInput) -> napi::Result<String> {
    guard(&env, || {
        Ok(runstart::index::index_hash(&input_bytes(input)))
    })
}
