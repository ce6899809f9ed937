//! Parsing a large index across threads, and dropping it the same way.
//!
//! A pack index is one JSON object whose bulk sits in a few top-level arrays (`tools`,
//! `agents`, …). Building a `serde_json::Value` for 20 MB of entries is the largest
//! sequential step of validating it, so for large files the text is first scanned once into
//! borrowed pieces ([`RawValue`]: syntax checked, nothing allocated per value), then the
//! array elements are parsed on the rayon pool. The answer is exactly what
//! `serde_json::from_str::<Value>` gives, errors included: whenever the split does not go
//! through, the whole text is parsed the ordinary way and that result is returned.

use super::model::PackIndex;
use rayon::prelude::*;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;

/// Below this size a plain sequential parse is as fast as splitting (bytes).
pub(crate) const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// Array elements parsed per rayon task at least (keeps small entries from becoming tasks of
/// their own).
const MIN_ELEMENTS_PER_TASK: usize = 16;

/// The top-level object's members, in file order, values left as borrowed text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// Parses `text` as `serde_json::from_str::<Value>` does (same value, same error), splitting
/// a large top-level object's arrays across the current rayon pool.
///
/// # Errors
///
/// serde_json's error for `text`, with its line and column.
pub(crate) fn parse_document(text: &str) -> Result<Value, serde_json::Error> {
    if text.len() < PARALLEL_MIN_BYTES {
        return serde_json::from_str(text);
    }
    match parse_split(text) {
        Some(value) => Ok(value),
        None => serde_json::from_str(text),
    }
}

/// The split parse; `None` when anything about the text is off (the caller then parses it
/// whole, which reports the error exactly as serde_json does).
fn parse_split(text: &str) -> Option<Value> {
    let Members(members) = serde_json::from_str(text).ok()?;
    let mut object = Map::new();
    for (key, raw) in members {
        let value = if raw.get().starts_with('[') {
            let elements: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
            let parsed: Result<Vec<Value>, _> = elements
                .par_iter()
                .with_min_len(MIN_ELEMENTS_PER_TASK)
                .map(|e| serde_json::from_str::<Value>(e.get()))
                .collect();
            Value::Array(parsed.ok()?)
        } else {
            serde_json::from_str(raw.get()).ok()?
        };
        // Later duplicates replace earlier ones, as serde_json's own object building does.
        object.insert(key, value);
    }
    Some(Value::Object(object))
}

/// Drops a parsed document, the elements of its top-level arrays on the rayon pool: freeing
/// millions of small allocations is otherwise a sequential tail after a parallel validation.
fn drop_document(document: Value) {
    let Value::Object(object) = document else {
        return;
    };
    for (_, value) in object {
        if let Value::Array(items) = value {
            drop_elements(items);
        }
    }
}

/// Drops what loading made (the document and the typed index) on the rayon pool, both at once.
pub(crate) fn release(document: Option<Value>, index: Option<PackIndex>) {
    rayon::join(
        || document.map(drop_document),
        || {
            if let Some(index) = index {
                let PackIndex {
                    tools,
                    guardrails,
                    agents,
                    flows,
                    blocks,
                    ..
                } = index;
                drop_elements(tools);
                drop_elements(guardrails);
                drop_elements(agents);
                drop_elements(flows);
                drop_elements(blocks);
            }
        },
    );
}

/// Drops a list's elements on the rayon pool.
fn drop_elements<T: Send>(items: Vec<T>) {
    items
        .into_par_iter()
        .with_min_len(MIN_ELEMENTS_PER_TASK)
        .for_each(drop);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn big(doc: &Value) -> String {
        // Pad past the threshold so the split path runs.
        let mut text = serde_json::to_string(doc).expect("serializes");
        text.push_str(&" ".repeat(PARALLEL_MIN_BYTES));
        text
    }

    #[test]
    fn the_split_parse_equals_serde_json() {
        let doc = json!({
            "v": 1,
            "agents": (0..100).map(|i| json!({"id": format!("a{i}"), "n": i, "f": 1.5e3, "s": "\u{e9}\\\""})).collect::<Vec<_>>(),
            "env": {"required": ["A"]},
            "empty": [],
        });
        let text = big(&doc);
        assert!(parse_split(&text).is_some(), "the split path ran");
        assert_eq!(parse_document(&text).expect("parses"), doc);
    }

    #[test]
    fn duplicate_members_keep_the_last_as_serde_json_does() {
        let text = format!(
            r#"{{"a": [1], "b": 2, "a": [3]}}{}"#,
            " ".repeat(PARALLEL_MIN_BYTES)
        );
        let expected: Value = serde_json::from_str(&text).expect("parses");
        assert_eq!(parse_document(&text).expect("parses"), expected);
        assert_eq!(expected["a"], json!([3]));
    }

    #[test]
    fn errors_are_serde_json_errors() {
        let pad = " ".repeat(PARALLEL_MIN_BYTES);
        for bad in [
            format!(r#"{{"a": [1, 2,]}}{pad}"#),
            format!(r#"{{"a": ["\ud800"]}}{pad}"#),
            format!(r#"[1, 2{pad}"#),
            format!(r#"{{"a": [{{"b": 1}} {{"c": 2}}]}}{pad}"#),
            format!("{pad}{{\"a\": 1}} x"),
        ] {
            let ours = parse_document(&bad).expect_err("invalid");
            let theirs = serde_json::from_str::<Value>(&bad).expect_err("invalid");
            assert_eq!(ours.to_string(), theirs.to_string(), "{bad:.40}");
        }
    }

    #[test]
    fn a_top_level_array_or_scalar_parses_too() {
        let pad = " ".repeat(PARALLEL_MIN_BYTES);
        for text in [
            format!("[1, 2]{pad}"),
            format!("{pad}7"),
            format!("\"x\"{pad}"),
        ] {
            let expected: Value = serde_json::from_str(&text).expect("parses");
            assert_eq!(parse_document(&text).expect("parses"), expected);
        }
    }
}
