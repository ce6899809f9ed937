//! Parsing a large index across threads, and dropping it the same way.
//!
//! A pack index is one JSON object whose bulk sits in a few top-level arrays (`tools`,
//! `agents`, …). Building a `serde_json::Value` for 20 MB of entries is the largest
//! sequential step of validating it, so for large files the text is first scanned once into
//! borrowed pieces ([`RawValue`]: syntax checked, nothing allocated per value), then the
//! array elements are parsed on the rayon pool. The answer is exactly what
//! `serde_json::from_str::<Value>` gives, errors included: whenever the split does not go
//! through, the whole text is parsed the ordinary way and that result is returned.
//!
//! Both ways build the values with [`Checked`], which also notes each object member a later
//! one of the same key replaced ([`RepeatedKey`]): JSON readers keep the last value without a
//! word, and in a pack index the lost one may steer a decision (a capability's `feature`).

use super::model::PackIndex;
use rayon::prelude::*;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
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

/// A key that appears more than once in one object of the document: the last value is the
/// one kept, as JavaScript's `JSON.parse` and serde_json keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepeatedKey {
    /// JSON Pointer of the member kept (the object's pointer and the key).
    pub(crate) pointer: String,
    /// How many times the key appears in that object.
    pub(crate) times: usize,
}

/// Parses `text` as `serde_json::from_str::<Value>` does (same value, same error), splitting
/// a large top-level object's arrays across the current rayon pool, and lists the keys
/// repeated in an object.
///
/// # Errors
///
/// serde_json's error for `text`, with its line and column.
pub(crate) fn parse_document(text: &str) -> Result<(Value, Vec<RepeatedKey>), serde_json::Error> {
    if text.len() < PARALLEL_MIN_BYTES {
        return parse_checked(text);
    }
    match parse_split(text) {
        Some(parsed) => Ok(parsed),
        None => parse_checked(text),
    }
}

/// `serde_json::from_str::<Value>` with the repeated keys noted.
fn parse_checked(text: &str) -> Result<(Value, Vec<RepeatedKey>), serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let Checked(value, repeated) = Checked::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok((value, repeated))
}

/// The split parse; `None` when anything about the text is off (the caller then parses it
/// whole, which reports the error exactly as serde_json does).
fn parse_split(text: &str) -> Option<(Value, Vec<RepeatedKey>)> {
    let Members(members) = serde_json::from_str(text).ok()?;
    let mut object = Map::new();
    let mut repeated = Vec::new();
    let mut times: Vec<(String, usize)> = Vec::new();
    for (key, raw) in members {
        let at = crate::diagnostics::pointer::join("", &[&key]);
        let value = if raw.get().starts_with('[') {
            let elements: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
            let parsed: Result<Vec<(Value, Vec<RepeatedKey>)>, _> = elements
                .par_iter()
                .with_min_len(MIN_ELEMENTS_PER_TASK)
                .map(|e| parse_checked(e.get()))
                .collect();
            let mut items = Vec::new();
            for (i, (item, inner)) in parsed.ok()?.into_iter().enumerate() {
                if !inner.is_empty() {
                    repeated.extend(under(&format!("{at}/{i}"), inner));
                }
                items.push(item);
            }
            Value::Array(items)
        } else {
            let (value, inner) = parse_checked(raw.get()).ok()?;
            repeated.extend(under(&at, inner));
            value
        };
        // Later duplicates replace earlier ones, as serde_json's own object building does.
        if object.insert(key.clone(), value).is_some() {
            note_repeat(&mut times, key);
        }
    }
    repeated.extend(here(times));
    Some((Value::Object(object), repeated))
}

/// One more appearance of a key an object already had.
fn note_repeat(times: &mut Vec<(String, usize)>, key: String) {
    match times.iter_mut().find(|(k, _)| *k == key) {
        Some((_, n)) => *n += 1,
        None => times.push((key, 2)),
    }
}

/// The keys an object repeated (each with how many times it appears), at the object itself.
fn here(times: Vec<(String, usize)>) -> impl Iterator<Item = RepeatedKey> {
    times.into_iter().map(|(key, times)| RepeatedKey {
        pointer: crate::diagnostics::pointer::join("", &[&key]),
        times,
    })
}

/// `repeated` (pointers relative to a value) placed under that value's pointer `at`.
fn under(at: &str, repeated: Vec<RepeatedKey>) -> impl Iterator<Item = RepeatedKey> + '_ {
    repeated.into_iter().map(move |r| RepeatedKey {
        pointer: format!("{at}{}", r.pointer),
        times: r.times,
    })
}

/// A JSON value built as serde_json's `Value` builds it, with the keys repeated inside it
/// (pointers relative to it).
struct Checked(Value, Vec<RepeatedKey>);

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Checked, E> {
        Ok(Checked(Value::Bool(v), Vec::new()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Checked, E> {
        Ok(Checked(Value::Number(v.into()), Vec::new()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Checked, E> {
        Ok(Checked(Value::Number(v.into()), Vec::new()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Checked, E> {
        let value = serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number);
        Ok(Checked(value, Vec::new()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Checked, E> {
        Ok(Checked(Value::String(v.to_owned()), Vec::new()))
    }

    fn visit_string<E>(self, v: String) -> Result<Checked, E> {
        Ok(Checked(Value::String(v), Vec::new()))
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked(Value::Null, Vec::new()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut repeated = Vec::new();
        while let Some(Checked(item, inner)) = seq.next_element()? {
            if !inner.is_empty() {
                repeated.extend(under(&format!("/{}", items.len()), inner));
            }
            items.push(item);
        }
        Ok(Checked(Value::Array(items), repeated))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut object = Map::new();
        let mut repeated = Vec::new();
        let mut times: Vec<(String, usize)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Checked(value, inner) = map.next_value()?;
            if !inner.is_empty() {
                let at = crate::diagnostics::pointer::join("", &[&key]);
                repeated.extend(under(&at, inner));
            }
            if let Some(previous) = object.get_mut(&key) {
                *previous = value;
                note_repeat(&mut times, key);
            } else {
                object.insert(key, value);
            }
        }
        repeated.extend(here(times));
        Ok(Checked(Value::Object(object), repeated))
    }
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
        assert_eq!(parse_document(&text).expect("parses"), (doc, Vec::new()));
    }

    #[test]
    fn duplicate_members_keep_the_last_as_serde_json_does_and_are_listed() {
        let members = r#"{"a": [1], "b": {"c": [{"d": 1, "d": 2, "d": 3}]}, "a~/": 0, "a": [{"x": 1, "x": 2}], "a~/": 1}"#;
        let repeated = vec![
            RepeatedKey {
                pointer: "/b/c/0/d".to_owned(),
                times: 3,
            },
            RepeatedKey {
                pointer: "/a/0/x".to_owned(),
                times: 2,
            },
            RepeatedKey {
                pointer: "/a".to_owned(),
                times: 2,
            },
            RepeatedKey {
                pointer: "/a~0~1".to_owned(),
                times: 2,
            },
        ];
        // Small (one sequential parse) and large (the split parse): the same answer.
        for text in [
            members.to_owned(),
            format!("{members}{}", " ".repeat(PARALLEL_MIN_BYTES)),
        ] {
            let expected: Value = serde_json::from_str(&text).expect("parses");
            assert_eq!(expected["a"], json!([{"x": 2}]));
            assert_eq!(
                parse_document(&text).expect("parses"),
                (expected, repeated.clone())
            );
        }
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
            assert_eq!(
                parse_document(&text).expect("parses"),
                (expected, Vec::new())
            );
        }
    }
}
