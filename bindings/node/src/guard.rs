//! Panics and failures at the boundary: every export's body runs in [`guard`], which turns
//! a [`Failure`] into a thrown `Error` with a `.code` (and extra fields), and a panic into an
//! `Error` with `code: 'internal'`, so that no panic ever unwinds into Node (which would
//! abort the process).

use napi::{Env, JsValue, Status};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicI64, Ordering};

/// A call that cannot answer: misuse (a wrong argument) or an internal error.
#[derive(Debug)]
pub struct Failure {
    /// The `.code` of the thrown `Error`.
    pub code: &'static str,
    /// Its `.message`.
    pub message: String,
    /// Further own properties of the `Error` (a JSON object), e.g. `issues` or `reason`.
    pub extra: Option<Value>,
}

impl Failure {
    /// A failure without extra fields.
    pub fn new(code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            extra: None,
        }
    }

    /// `invalid-argument`: the caller passed something that is not what the export takes.
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new("invalid-argument", message)
    }

    /// Adds the own properties of `extra` (a JSON object) to the thrown `Error`.
    #[must_use]
    pub fn with_extra(mut self, extra: Value) -> Failure {
        self.extra = Some(extra);
        self
    }

    /// A caught panic.
    pub fn internal(payload: &(dyn std::any::Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        Failure::new(
            "internal",
            format!("runstart: internal error (a Rust panic was caught): {what}"),
        )
    }
}

/// Parses a JSON argument the loader produced with `JSON.stringify` into a wire type;
/// `what` names the argument in the message.
/// Every struct is read from an object only, as the library reads these inputs.
pub fn from_json<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> Result<T, Failure> {
    let mut de = serde_json::Deserializer::from_str(json);
    runstart::input::deserialize_objects_only(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|e| Failure::invalid(format!("{what}: {e}")))
}

/// JSON text of a value runstart built (its serializers do not fail on their own types).
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| Failure::new("internal", format!("runstart: cannot serialize: {e}")))
}

/// Guarded calls to let through before one panics; negative when disarmed.
static FORCE_PANIC: AtomicI64 = AtomicI64::new(-1);

/// See [`crate::arm_panic_for_test`].
pub fn arm_forced_panic(skip: u32) {
    FORCE_PANIC.store(i64::from(skip), Ordering::SeqCst);
}

/// Whether this guarded call is the one that must panic (and disarms if so).
fn forced_panic_due() -> bool {
    FORCE_PANIC.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
        n if n < 0 => None,
        0 => Some(-1),
        n => Some(n - 1),
    }) == Ok(0)
}

/// Runs `body`, catching a panic. Also used off the JavaScript thread (the asynchronous
/// validation), where the failure is turned into an `Error` later.
pub fn catch<T>(body: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(|| {
        if forced_panic_due() {
            panic!("panic forced by a test");
        }
        body()
    }))
    .unwrap_or_else(|payload| Err(Failure::internal(payload.as_ref())))
}

/// Runs an export's body: its value, or a thrown `Error` built from its [`Failure`].
pub fn guard<T>(env: &Env, body: impl FnOnce() -> Result<T, Failure>) -> napi::Result<T> {
    catch(body).map_err(|f| to_napi_error(env, f))
}

/// The JavaScript `Error` of a failure, as a `napi::Error` that throws (or rejects with)
/// exactly that object.
pub fn to_napi_error(env: &Env, failure: Failure) -> napi::Error {
    match build_error(env, &failure) {
        Ok(e) => e,
        // Building the object failed (the environment is shutting down): a plain error with
        // the message still says what happened.
        Err(_) => napi::Error::new(Status::GenericFailure, failure.message),
    }
}

fn build_error(env: &Env, failure: &Failure) -> napi::Result<napi::Error> {
    let mut object = env.create_error(napi::Error::new(
        Status::GenericFailure,
        failure.message.clone(),
    ))?;
    object.set("code", failure.code)?;
    if let Some(Value::Object(extra)) = &failure.extra {
        for (k, v) in extra {
            object.set(k, v.clone())?;
        }
    }
    Ok(napi::Error::from(object.to_unknown()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_failure_and_an_armed_one_fires_once() {
        let f = catch(|| -> Result<(), Failure> { panic!("boom {}", 7) }).unwrap_err();
        assert_eq!(f.code, "internal");
        assert_eq!(
            f.message,
            "runstart: internal error (a Rust panic was caught): boom 7"
        );
        let f = catch(|| -> Result<(), Failure> { std::panic::panic_any(3u8) }).unwrap_err();
        assert!(
            f.message.ends_with("a panic without a message"),
            "{}",
            f.message
        );
        // In the same test: the armed counter is global to the process.
        arm_forced_panic(2);
        assert!(catch(|| Ok::<_, Failure>(1)).is_ok());
        assert!(catch(|| Ok::<_, Failure>(2)).is_ok());
        assert_eq!(catch(|| Ok::<_, Failure>(3)).unwrap_err().code, "internal");
        assert_eq!(catch(|| Ok::<_, Failure>(4)).ok(), Some(4));
    }

    #[test]
    fn bad_json_is_an_invalid_argument_naming_it() {
        let f = from_json::<Vec<u32>>("the versions", "[1, \"x\"]").unwrap_err();
        assert_eq!(f.code, "invalid-argument");
        assert!(
            f.message.starts_with("the versions: invalid type"),
            "{}",
            f.message
        );
    }
}
