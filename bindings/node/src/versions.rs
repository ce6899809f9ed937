//! `pickVersion` and `validRange` (agents.md §1.2) over runstart's npm-semver ranges.
//!
//! Parsed ranges are cached by their text: a run start asks for the same few ranges over and
//! over, and a cache hit costs a hash instead of a parse.

use crate::guard::{Failure, guard};
use napi::Env;
use napi_derive::napi;
use runstart::range::{Range, RangeOptions, parse_version};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Distinct range texts kept parsed; past this the cache starts over (a bound on memory for
/// callers that send endless distinct ranges).
const RANGE_CACHE_CAP: usize = 8192;

/// `Some(range)`, or `None` for a text that is not a valid range.
type Cached = Option<Arc<Range>>;

fn cache() -> &'static Mutex<HashMap<String, Cached>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Cached>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn parsed(text: &str) -> Cached {
    // Past the length cap a range is invalid at once; caching it would only hold its text.
    if text.len() > runstart::range::MAX_RANGE_LENGTH {
        return Range::parse(text).ok().map(Arc::new);
    }
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(hit) = map.get(text) {
        return hit.clone();
    }
    let range = Range::parse(text).ok().map(Arc::new);
    if map.len() >= RANGE_CACHE_CAP {
        map.clear();
    }
    map.insert(text.to_owned(), range.clone());
    range
}

/// The version `range` picks from `available`: its index in `available` (the first of equal
/// versions, as npm's `maxSatisfying`), -1 for `invalid-range`, -2 for `not-satisfiable`.
/// Without a range, the highest version, a prerelease included ("latest").
#[napi(js_name = "pickVersion")]
pub fn pick_version(env: Env, available: Vec<String>, range: Option<String>) -> napi::Result<i32> {
    guard(&env, || {
        let range = match range {
            Some(text) => match parsed(&text) {
                Some(r) => r,
                None => return Ok(-1),
            },
            None => latest(),
        };
        let versions: Vec<_> = available.iter().map(|v| parse_version(v)).collect();
        let best = range.max_satisfying(versions.iter().flatten());
        let index = best.and_then(|b| versions.iter().position(|v| v.as_ref() == Some(b)));
        match index {
            Some(i) => i32::try_from(i).map_err(|_| Failure::invalid("too many versions")),
            None => Ok(-2),
        }
    })
}

/// `*` with `includePrerelease`: what "latest" means (agents.md §1.2 rule 1).
fn latest() -> Arc<Range> {
    static LATEST: OnceLock<Option<Arc<Range>>> = OnceLock::new();
    LATEST
        .get_or_init(|| {
            Range::parse_with("*", RangeOptions::new().with_include_prerelease(true))
                .ok()
                .map(Arc::new)
        })
        .clone()
        // ok: `*` is valid range grammar under every option
        .expect("`*` parses")
}

/// npm's `validRange`: the normalized range text, or `null` when it is not a valid range.
#[napi(js_name = "validRange")]
pub fn valid_range(env: Env, range: String) -> napi::Result<Option<String>> {
    guard(&env, || Ok(parsed(&range).map(|r| r.to_string())))
}
