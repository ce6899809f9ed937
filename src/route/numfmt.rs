//! JavaScript `Number::toString` formatting for labels and messages (spec §2.13): a `Display`
//! adapter over [`crate::js::write_js_number`], and the serde helpers that write numbers as
//! `JSON.stringify` does.

use crate::js::write_js_number;
use std::fmt;

/// A `Display` adapter for [`write_js_number`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Js(pub f64);

impl fmt::Display for Js {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_js_number(f, self.0)
    }
}

/// Serializes an `f64` as JSON the way `JSON.stringify` would: integral values within the
/// safe-integer range as integers (`128000`, not `128000.0`).
pub(crate) fn serialize_js<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if x.fract() == 0.0 && x.abs() <= SAFE {
        if *x == 0.0 {
            return s.serialize_i64(0);
        }
        #[allow(clippy::cast_possible_truncation)] // ok: integral and within ±2^53
        return s.serialize_i64(*x as i64);
    }
    s.serialize_f64(*x)
}

/// [`serialize_js`] for an optional number.
pub(crate) fn serialize_js_opt<S: serde::Serializer>(
    x: &Option<f64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => serialize_js(v, s),
        None => s.serialize_none(),
    }
}
