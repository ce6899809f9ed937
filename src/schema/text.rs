//! How Ajv writes values into messages and paths: JavaScript's number formatting, JSON Pointer
//! escaping and `encodeURIComponent` for schema path segments.

/// JavaScript's `String(x)` for a number.
pub(crate) use crate::js::js_number;
use serde_json::{Number, Value};

/// A JSON number as JavaScript would print it.
pub(crate) fn js_number_of(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        js_number(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// A number as `JSON.stringify` would write it back: integral floats become integers.
pub(crate) fn js_json(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                Value::from(f as i64)
            } else {
                v.clone()
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(js_json).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), js_json(v))).collect()),
        other => other.clone(),
    }
}

/// RFC 6901 escaping of one reference token.
pub(crate) fn escape_pointer(token: &str) -> String {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1")
    } else {
        token.to_owned()
    }
}

/// Ajv's `escapeFragment`: a pointer token, then `encodeURIComponent`.
pub(crate) fn escape_fragment(token: &str) -> String {
    let escaped = escape_pointer(token);
    let mut out = String::with_capacity(escaped.len());
    for b in escaped.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Ajv's `unescapeFragment`: `decodeURIComponent`, then pointer unescaping. `None` when the
/// percent-encoding is malformed (JavaScript throws `URIError: URI malformed`).
pub(crate) fn unescape_fragment(token: &str) -> Option<String> {
    let s = crate::js::decode_uri_component(token)?;
    Some(s.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_in_javascript() {
        assert_eq!(js_number(1e-8), "1e-8");
        assert_eq!(js_number(0.123456789), "0.123456789");
        assert_eq!(js_number(2.0), "2");
        assert_eq!(js_number(1.5e21), "1.5e+21");
        assert_eq!(js_number(-0.000001), "-0.000001");
        assert_eq!(js_number(1e21), "1e+21");
    }

    #[test]
    fn fragments_are_uri_encoded() {
        assert_eq!(escape_fragment("foo bar/á"), "foo%20bar~1%C3%A1");
        assert_eq!(
            unescape_fragment("foo%20bar~1").as_deref(),
            Some("foo bar/")
        );
        assert_eq!(unescape_fragment("%E0%A4%A"), None);
    }
}
