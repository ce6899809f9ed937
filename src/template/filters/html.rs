//! Escaping and encoding filters: HTML, URLs, Base64, SHA-256 digests.

use super::common::{FResult, FilterError, arg, family};
use super::names::Filter;
use crate::js::decode_uri_component;
use crate::template::value::{Val, stringify};

family! {
    /// HTML escaping, URL and Base64 encodings, digests.
    fn apply<'a>(f, input, args) {
        Filter::StripHtml => Val::string(strip_html(&stringify(&input))),
        Filter::Base64Encode => {
            use base64::Engine as _;
            let text = stringify(&input);
            Val::string(base64::engine::general_purpose::STANDARD.encode(text.as_bytes()))
        }
        Filter::Base64Decode => match base64_decode(&stringify(&input)) {
            Some(text) => Val::string(text),
            None => {
                return Err(FilterError::Message(
                    "invalid base64 provided to base64_decode".into(),
                ));
            }
        },
        Filter::Sha256 => {
            use sha2::Digest as _;
            Val::string(hex(&sha2::Sha256::digest(stringify(&input).as_bytes())))
        }
        Filter::HmacSha256 => {
            use hmac::Mac as _;
            let key = arg(args, 0).map(stringify).unwrap_or_default();
            let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()) else {
                return Err(FilterError::Message("hmac_sha256: invalid key".into()));
            };
            mac.update(stringify(&input).as_bytes());
            Val::string(hex(&mac.finalize().into_bytes()))
        }
        // `+` is a space before decoding, so an encoded `%2B` stays a `+`
        Filter::UrlDecode => match decode_uri_component(&stringify(&input).replace('+', " ")) {
            Some(d) => Val::string(d),
            None => return Err(FilterError::Message("URI malformed".into())),
        },
        Filter::CgiEscape => Val::string(encode_uri(&stringify(&input), COMPONENT_SAFE, true)),
        Filter::UriEscape => Val::string(encode_uri(&stringify(&input), URI_SAFE, false)),
        Filter::Escape | Filter::XmlEscape => Val::string(escape_html(&stringify(&input))),
        Filter::EscapeOnce => Val::string(escape_html(&unescape_html(&stringify(&input)))),
        Filter::NewlineToBr => Val::string(
            stringify(&input)
                .replace("\r\n", "\n")
                .replace('\n', "<br />\n"),
        ),
        Filter::UrlEncode => Val::string(url_encode(&stringify(&input))),
    }
}

/// LiquidJS's `base64_decode`: spaces, tabs and line breaks are ignored; a length that is a
/// multiple of four may end in `=` or `==`; otherwise only the standard alphabet, and not
/// one character past a multiple of four. Missing padding and stray low bits in the last
/// character are accepted, as Node's decoder accepts them; invalid UTF-8 in the result
/// becomes U+FFFD. `None` where LiquidJS refuses the text.
fn base64_decode(text: &str) -> Option<String> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireNone),
    );
    let mut clean: String = text
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\u{c}' | '\r' | ' '))
        .collect();
    if clean.len().is_multiple_of(4) {
        for _ in 0..2 {
            if clean.ends_with('=') {
                clean.pop();
            }
        }
    }
    let alphabet = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    if clean.len() % 4 == 1 || !clean.bytes().all(alphabet) {
        return None;
    }
    let bytes = LENIENT.decode(clean).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// LiquidJS's `strip_html`: `<script…</script>`, `<style…</style>`, `<!--…-->` and `<…>`
/// are removed; an opener without its closer is kept from there on.
fn strip_html(s: &str) -> String {
    let mut kinds: Vec<(&str, &str)> = vec![
        ("<script", "</script>"),
        ("<style", "</style>"),
        ("<!--", "-->"),
        ("<", ">"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let Some(rel) = s.get(i..).and_then(|r| r.find('<')) else {
            out.push_str(s.get(i..).unwrap_or(""));
            return out;
        };
        let lt = i + rel;
        out.push_str(s.get(i..lt).unwrap_or(""));
        let mut next = None;
        let mut k = 0;
        while k < kinds.len() {
            let (open, close) = kinds[k];
            if !s.get(lt..).is_some_and(|r| r.starts_with(open)) {
                k += 1;
                continue;
            }
            match s.get(lt + open.len()..).and_then(|r| r.find(close)) {
                Some(e) => {
                    next = Some(lt + open.len() + e + close.len());
                    break;
                }
                // never closed: later occurrences cannot close either
                None => {
                    kinds.remove(k);
                }
            }
        }
        match next {
            Some(n) => i = n,
            None => {
                out.push_str(s.get(lt..).unwrap_or(""));
                return out;
            }
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Characters `encodeURIComponent` keeps.
const COMPONENT_SAFE: &[u8] = b"-_.!~*'()";
/// Characters `encodeURI` keeps besides those (reserved characters and `#`).
const URI_SAFE: &[u8] = b"-_.!~*'();/?:@&=+$,#";

/// `encodeURI` / `encodeURIComponent` over UTF-8 (`[`, `]` kept by `uri_escape`); `cgi`
/// also writes spaces as `+` and escapes `!'()*`.
fn encode_uri(s: &str, safe: &[u8], cgi: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || safe.contains(&b)
            || (!cgi && (b == b'[' || b == b']') && safe.len() > COMPONENT_SAFE.len());
        if cgi && b == b' ' {
            out.push('+');
        } else if keep && !(cgi && b"!'()*".contains(&b)) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `encodeURIComponent`, then spaces as `+`.
fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => out.push(char::from(b)),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn unescape_html(s: &str) -> String {
    // One pass, as LiquidJS's single regex replace: `&amp;lt;` becomes `&lt;`, not `<`.
    const ENTITIES: [(&str, char); 5] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&#34;", '"'),
        ("&#39;", '\''),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match ENTITIES.iter().find(|(entity, _)| rest.starts_with(entity)) {
            Some((entity, c)) => {
                out.push(*c);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
