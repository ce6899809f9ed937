//! The canonical form of a pack index (seed `001_…`, "Determinism"), and its hash.
//!
//! Canonical means: keys sorted at every level in UTF-16 code-unit order (JavaScript's
//! default sort), two-space indentation, a trailing newline, non-ASCII written raw, strings
//! escaped as `JSON.stringify` escapes them, and integral numbers without a fraction. The same
//! source indexes to the same bytes, so a deployment can sign the file's SHA-256.

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// `sha256:<hex>` of the file's bytes: the `indexHash` a deployment signs.
///
/// # Examples
///
/// ```
/// assert_eq!(
///     runstart::index::index_hash(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn index_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The canonical text of `value`, as a pack indexer writes it (with the trailing newline).
///
/// # Examples
///
/// ```
/// let v = serde_json::json!({"b": [1.0, "é"], "a": {}});
/// assert_eq!(runstart::index::canonical_text(&v), "{\n  \"a\": {},\n  \"b\": [\n    1,\n    \"é\"\n  ]\n}\n");
/// ```
pub fn canonical_text(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            let mut member = |i: usize, key: &str, v: &Value| {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, depth + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, v, depth + 1);
            };
            // Maps keep their keys in document order (as JavaScript objects do), so most
            // come here sorted already: those are written as they are, without a copy.
            let sorted = map.keys().all(|k| utf8_order_is_utf16_order(k))
                && map.keys().is_sorted_by(|a, b| a <= b);
            if sorted {
                for (i, (key, v)) in map.iter().enumerate() {
                    member(i, key, v);
                }
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| utf16_cmp(a.0, b.0));
                for (i, (key, v)) in entries.into_iter().enumerate() {
                    member(i, key, v);
                }
            }
            out.push('\n');
            indent(out, depth);
            out.push('}');
        }
    }
}

/// Whether `key` sorts among others the same in UTF-8 byte order as in UTF-16 code-unit
/// order: the two differ only between characters U+E000–U+FFFF (UTF-8 lead bytes 0xEE, 0xEF)
/// and those above U+FFFF (lead bytes 0xF0–0xF4), so a key with neither orders alike.
fn utf8_order_is_utf16_order(key: &str) -> bool {
    key.bytes().all(|b| b < 0xEE)
}

/// Compares two strings by UTF-16 code units, as JavaScript's `<` and default sort do.
pub(crate) fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        let _ = crate::js::write_js_number(out, f);
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    // Copy the runs that need no escape whole; only `"`, `\\` and control characters do.
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::js_number;
    use serde_json::json;

    #[test]
    fn js_number_matches_javascript() {
        for (f, want) in [
            (1.5, "1.5"),
            (100.0, "100"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-0.25, "-0.25"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(js_number(f), want, "{f}");
        }
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+FF5E (BMP, above the surrogates) sorts after U+1F600 in UTF-16 but before it in UTF-8.
        let v = json!({"\u{ff5e}": 1, "\u{1f600}": 2});
        assert_eq!(
            canonical_text(&v),
            "{\n  \"\u{1f600}\": 2,\n  \"\u{ff5e}\": 1\n}\n"
        );
    }

    #[test]
    fn keys_beyond_the_bmp_sort_among_others_by_utf16() {
        let v = json!({"b": 1, "\u{1f600}x": 2, "\u{e000}": 3, "a": {"\u{10000}": 1, "z": 2}});
        assert_eq!(
            canonical_text(&v),
            "{\n  \"a\": {\n    \"z\": 2,\n    \"\u{10000}\": 1\n  },\n  \"b\": 1,\n  \"\u{1f600}x\": 2,\n  \"\u{e000}\": 3\n}\n"
        );
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        assert_eq!(
            canonical_text(&json!("a\"\\\n\u{1}\u{7f}é")),
            "\"a\\\"\\\\\\n\\u0001\u{7f}é\"\n"
        );
    }
}
