//! The formats `ajv-formats` adds (full mode), and which JSON type each applies to.
//!
//! Ajv checks a format only on data of the format's type: `int32` on numbers, `email` on
//! strings; other data passes. String formats the draft 2020-12 format vocabulary defines are
//! checked with the `jsonschema` crate's format checks; the formats only `ajv-formats` knows
//! (`iso-time`, `iso-date-time`, `byte`, `int32`, `int64`, `float`, `double`, `password`,
//! `binary`, `url`, `json-pointer-uri-fragment`) are checked here.

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
        for name in [
            "date",
            "time",
            "date-time",
            "duration",
            "uri",
            "uri-reference",
            "uri-template",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
            "json-pointer",
            "relative-json-pointer",
        ] {
            let schema = serde_json::json!({ "format": name });
            if let Ok(v) = super::validator::build(&schema) {
                map.insert(name, v);
            }
        }
        map
    })
}

fn all_ascii(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(ok)
}

fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let body_ok = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    pad <= 2 && b[..b.len() - pad].iter().all(|&c| body_ok(c))
}

fn two_digits(s: &str) -> Option<u32> {
    if s.len() == 2 && all_ascii(s, |c| c.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// `HH:MM:SS[.fraction][zone]`, the zone optional (`iso-time`).
fn is_iso_time(s: &str) -> bool {
    let (hms, rest) = match s.get(..8) {
        Some(h) => (h, &s[8..]),
        None => return false,
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let [h, m, sec] = parts.as_slice() else {
        return false;
    };
    let (Some(h), Some(m), Some(sec)) = (two_digits(h), two_digits(m), two_digits(sec)) else {
        return false;
    };
    let mut rest = rest;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &frac[digits..];
    }
    let zone_ok = match rest {
        "" | "z" | "Z" => true,
        z if z.starts_with(['+', '-']) => {
            let z = &z[1..];
            let (zh, zm) = match z.len() {
                2 => (two_digits(z), Some(0)),
                4 => (two_digits(&z[..2]), two_digits(&z[2..])),
                5 if &z[2..3] == ":" => (two_digits(&z[..2]), two_digits(&z[3..])),
                _ => (None, None),
            };
            matches!((zh, zm), (Some(zh), Some(zm)) if zh <= 23 && zm <= 59)
        }
        _ => false,
    };
    zone_ok && h <= 23 && m <= 59 && sec <= 60
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
        "byte" => is_base64(s),
        // ajv-formats tries `new RegExp(s)`, without the `u` flag: Annex B's lenient grammar.
        "regex" => !has_z_anchor(s) && super::ecma_regex::is_valid_annex_b(s),
        "iso-time" => is_iso_time(s),
        "iso-date-time" => match s.find(['T', 't', ' ']) {
            Some(i) => check_string("date", &s[..i]) && is_iso_time(&s[i + 1..]),
            None => false,
        },
        "url" => {
            let lower = s.to_ascii_lowercase();
            (lower.starts_with("http://")
                || lower.starts_with("https://")
                || lower.starts_with("ftp://"))
                && check_string("uri", s)
        }
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
