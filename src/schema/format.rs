//! The formats `ajv-formats` adds (full mode), and which JSON type each applies to.
//!
//! Ajv checks a format only on data of the format's type: `int32` on numbers, `email` on
//! strings; other data passes. Dates, times, durations, `email`, `hostname`, `uuid`,
//! `uri`, `uri-reference`, `uri-template`, `url`, `byte`, `regex` and the number formats follow
//! ajv-formats' definitions (see [`super::format_text`]); `ipv4`, `ipv6` and the JSON pointers
//! are checked by the `jsonschema` crate (a differential run against ajv-formats found no
//! difference on them).

use super::format_text as text;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Whether a format applies to numbers or to strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormatType {
    Number,
    String,
}

/// Every format name `ajv-formats` registers, with its type.
pub(crate) fn format_type(name: &str) -> Option<FormatType> {
    Some(match name {
        "int32" | "int64" | "float" | "double" => FormatType::Number,
        "date"
        | "time"
        | "date-time"
        | "iso-time"
        | "iso-date-time"
        | "duration"
        | "uri"
        | "uri-reference"
        | "uri-template"
        | "url"
        | "email"
        | "hostname"
        | "ipv4"
        | "ipv6"
        | "regex"
        | "uuid"
        | "json-pointer"
        | "json-pointer-uri-fragment"
        | "relative-json-pointer"
        | "byte"
        | "password"
        | "binary" => FormatType::String,
        _ => return None,
    })
}

/// Whether the number `n` satisfies the number format `name`.
pub(crate) fn check_number(name: &str, n: f64) -> bool {
    match name {
        "int32" => n.fract() == 0.0 && (-2_147_483_648.0..=2_147_483_647.0).contains(&n),
        "int64" => n.fract() == 0.0,
        _ => true,
    }
}

fn delegated() -> &'static HashMap<&'static str, jsonschema::Validator> {
    static CHECKS: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    CHECKS.get_or_init(|| {
        let mut map = HashMap::new();
        for name in ["ipv4", "ipv6", "json-pointer", "relative-json-pointer"] {
            let schema = serde_json::json!({ "format": name });
            if let Ok(v) = super::validator::build(&schema) {
                map.insert(name, v);
            }
        }
        map
    })
}

fn is_json_pointer_uri_fragment(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('#') else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(rest) = rest.strip_prefix('/') else {
        return false;
    };
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if c == b'~' {
            if !matches!(b.get(i + 1), Some(b'0' | b'1')) {
                return false;
            }
            i += 2;
            continue;
        }
        let ok = c.is_ascii_alphanumeric() || b"_-.!$&'()*+,;:=@/".contains(&c);
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether the string `s` satisfies the string format `name`.
pub(crate) fn check_string(name: &str, s: &str) -> bool {
    match name {
        "password" | "binary" => true,
        "byte" => text::is_base64_line(s),
        "date" => text::is_date(s),
        "time" => text::is_time(s, true),
        "iso-time" => text::is_time(s, false),
        "date-time" => text::is_date_time(s, true),
        "iso-date-time" => text::is_date_time(s, false),
        "duration" => text::is_duration(s),
        "uri-template" => text::is_uri_template(s),
        "email" => text::is_email(s),
        "hostname" => text::is_hostname(s),
        "uuid" => text::is_uuid(s),
        "uri" => text::is_uri(s),
        "uri-reference" => text::is_uri_reference(s),
        // ajv-formats tries `new RegExp(s)`, without the `u` flag: Annex B's lenient grammar.
        "regex" => !has_z_anchor(s) && super::ecma_regex::is_valid_annex_b(s),
        "url" => text::is_url(s),
        "json-pointer-uri-fragment" => is_json_pointer_uri_fragment(s),
        other => match delegated().get(other) {
            Some(v) => v.is_valid(&Value::String(s.to_owned())),
            None => true,
        },
    }
}

/// `ajv-formats` refuses a `regex` with `\Z` (a PCRE anchor JavaScript lacks).
fn has_z_anchor(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(3)
        .any(|w| w[0] != b'\\' && w[1] == b'\\' && w[2] == b'Z')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert!(check_number("int32", 5.0));
        assert!(!check_number("int32", 3e10));
        assert!(!check_number("int64", 1.5));
        assert!(check_number("double", 1.5));
    }

    #[test]
    fn string_formats() {
        assert!(check_string("email", "a@b.co"));
        assert!(!check_string("email", "nope"));
        assert!(check_string("iso-time", "10:20:30"));
        assert!(check_string("iso-date-time", "2020-01-01T10:20:30.5+01:00"));
        assert!(!check_string("iso-time", "25:00:00"));
        assert!(check_string("byte", "aGk="));
        assert!(!check_string("byte", "aGk"));
        assert!(check_string("json-pointer-uri-fragment", "#/a%20b/~0"));
        assert!(!check_string("regex", "("));
    }
}
