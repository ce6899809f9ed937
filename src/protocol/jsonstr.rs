//! JSON strings exactly as ECMAScript's `JSON.stringify` writes them (ES2019+, "well-formed
//! JSON.stringify", ECMA-262 `QuoteJSONString`).
//!
//! The idempotency key hashes the bytes `JSON.stringify` produces, so these bytes must match
//! Node's for every input: `"` and `\` escaped, the five short escapes (`\b \t \n \f \r`),
//! every other code unit below U+0020 as `\u00xx` (lowercase hex), a lone surrogate as
//! `\udxxx` (lowercase hex), and everything else, U+2028, U+2029 and U+007F included, as
//! itself in UTF-8. `serde_json` differs (it never meets lone surrogates, and it is not
//! specified to keep this exact form), so the serializer is written out here.

use std::fmt::Write as _;

/// The escape `JSON.stringify` writes for the code unit `unit`, when it writes one.
fn short_escape(unit: u32) -> Option<&'static str> {
    match unit {
        0x08 => Some("\\b"),
        0x09 => Some("\\t"),
        0x0A => Some("\\n"),
        0x0C => Some("\\f"),
        0x0D => Some("\\r"),
        0x22 => Some("\\\""),
        0x5C => Some("\\\\"),
        _ => None,
    }
}

fn push_unit_escape(unit: u32, out: &mut String) {
    // Writing to a String cannot fail.
    let _ = write!(out, "\\u{unit:04x}");
}

/// Appends `s` as a quoted JSON string, as `JSON.stringify(s)` writes it, to `out`.
///
/// A Rust `&str` holds no lone surrogate; for text that may (a JavaScript string handed over
/// as UTF-16), use [`write_json_string_utf16`].
///
/// # Examples
///
/// ```
/// let mut out = String::new();
/// runstart::protocol::write_json_string("a\"b\u{1}\u{2028}é", &mut out);
/// assert_eq!(out, "\"a\\\"b\\u0001\u{2028}é\"");
/// ```
pub fn write_json_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Multi-byte UTF-8 sequences only hold bytes >= 0x80, so a byte test finds every
        // character that needs an escape without decoding.
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.push_str(&s[start..i]);
        match short_escape(u32::from(b)) {
            Some(esc) => out.push_str(esc),
            None => push_unit_escape(u32::from(b), out),
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Appends the UTF-16 code units `units` as a quoted JSON string, as `JSON.stringify` writes
/// a JavaScript string holding them: a surrogate pair is one character (written as UTF-8), a
/// lone surrogate is `\udxxx`.
///
/// # Examples
///
/// ```
/// let mut out = String::new();
/// runstart::protocol::write_json_string_utf16(&[0x61, 0xD83D, 0xDE00, 0xD800], &mut out);
/// assert_eq!(out, "\"a😀\\ud800\"");
/// ```
pub fn write_json_string_utf16(units: &[u16], out: &mut String) {
    out.reserve(units.len() + 2);
    out.push('"');
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(c) => match short_escape(u32::from(c)) {
                Some(esc) => out.push_str(esc),
                None if u32::from(c) < 0x20 => push_unit_escape(u32::from(c), out),
                None => out.push(c),
            },
            Err(lone) => push_unit_escape(u32::from(lone.unpaired_surrogate()), out),
        }
    }
    out.push('"');
}

/// `JSON.stringify(parts)` for an array of strings: `["a","b"]`, no whitespace.
///
/// # Examples
///
/// ```
/// assert_eq!(runstart::protocol::stringify_strings(&["run", "a\"b"]), r#"["run","a\"b"]"#);
/// ```
pub fn stringify_strings(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 3).sum::<usize>() + 2);
    out.push('[');
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(part, &mut out);
    }
    out.push(']');
    out
}

/// [`stringify_strings`] for strings given as UTF-16 code units (which may hold lone
/// surrogates).
pub fn stringify_strings_utf16(parts: &[&[u16]]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 3).sum::<usize>() + 2);
    out.push('[');
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string_utf16(part, &mut out);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> String {
        let mut out = String::new();
        write_json_string(s, &mut out);
        out
    }

    fn q16(s: &[u16]) -> String {
        let mut out = String::new();
        write_json_string_utf16(s, &mut out);
        out
    }

    #[test]
    fn escapes_what_json_stringify_escapes() {
        assert_eq!(q(""), "\"\"");
        assert_eq!(q("\u{8}\t\n\u{b}\u{c}\r"), "\"\\b\\t\\n\\u000b\\f\\r\"");
        assert_eq!(q("\u{0}\u{1f}"), "\"\\u0000\\u001f\"");
        assert_eq!(q("\"\\/"), "\"\\\"\\\\/\"");
        assert_eq!(
            q("\u{7f}\u{2028}\u{2029}\u{feff}"),
            "\"\u{7f}\u{2028}\u{2029}\u{feff}\""
        );
        assert_eq!(q("é😀"), "\"é😀\"");
    }

    #[test]
    fn utf16_agrees_with_str_and_escapes_lone_surrogates() {
        for s in ["", "plain", "a\"b\\c\n\u{1}", "é😀\u{2028}", "\u{10ffff}"] {
            let units: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(q16(&units), q(s), "{s:?}");
        }
        assert_eq!(q16(&[0xD800]), "\"\\ud800\"");
        assert_eq!(q16(&[0xDC00, 0xD800]), "\"\\udc00\\ud800\"");
        assert_eq!(q16(&[0xD83D, 0x61]), "\"\\ud83da\"");
        assert_eq!(q16(&[0xDFFF]), "\"\\udfff\"");
    }

    proptest::proptest! {
        /// The fast byte-scanning path agrees with the UTF-16 path, and what it writes is a
        /// JSON string that reads back as the input.
        #[test]
        fn str_and_utf16_paths_agree_and_round_trip(s in "\\PC*|[\\x00-\\x1f\"\\\\\u{2028}\u{7f}é😀]{0,12}") {
            let units: Vec<u16> = s.encode_utf16().collect();
            let fast = q(&s);
            proptest::prop_assert_eq!(&fast, &q16(&units));
            let back: String = serde_json::from_str(&fast).expect("valid JSON");
            proptest::prop_assert_eq!(back, s);
        }
    }

    #[test]
    fn arrays_have_no_whitespace() {
        assert_eq!(stringify_strings(&[]), "[]");
        assert_eq!(stringify_strings(&["a", "b"]), "[\"a\",\"b\"]");
        assert_eq!(
            stringify_strings_utf16(&[&[0x61], &[0xD800]]),
            "[\"a\",\"\\ud800\"]"
        );
    }
}
