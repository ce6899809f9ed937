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
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| utf16_cmp(a, b));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, depth + 1);
                write_string(out, key);
                out.push_str(": ");
                if let Some(v) = map.get(key) {
                    write_value(out, v, depth + 1);
                }
            }
            out.push('\n');
            indent(out, depth);
            out.push('}');
        }
    }
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
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
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
    fn strings_escape_like_json_stringify() {
        assert_eq!(
            canonical_text(&json!("a\"\\\n\u{1}\u{7f}é")),
            "\"a\\\"\\\\\\n\\u0001\u{7f}é\"\n"
        );
    }
}
