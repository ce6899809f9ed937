//! JavaScript's own conversions that upstream's answers depend on, written once for every
//! module that must match them byte for byte: `Number.prototype.toString` (messages, labels,
//! canonical JSON, template output), `decodeURIComponent` and what counts as white space.

use serde_json::{Map, Value};
use std::fmt::{self, Write};

/// JavaScript's white space and line terminators: `\s`, `String.prototype.trim`, `Number()`
/// and node-semver's whitespace collapsing. Unicode's White_Space without U+0085, which
/// JavaScript does not count, plus the byte order mark U+FEFF.
#[inline]
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// The value of `key` when it is an array index, ECMAScript's name for a property key that is
/// the canonical text of an integer below 2³² − 1 (`"0"`, `"17"`; not `"01"`, `"-1"`,
/// `"2.5"`). An object lists those keys first, in ascending order, then its other string keys
/// in insertion order, so any answer built from an object's keys follows that order.
pub(crate) fn array_index(key: &str) -> Option<u32> {
    let b = key.as_bytes();
    if b.is_empty() || b.len() > 10 || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    if !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    key.parse::<u64>()
        .ok()
        .filter(|&n| n < u64::from(u32::MAX))
        .and_then(|n| u32::try_from(n).ok())
}

/// An object's own properties in JavaScript's order: the [`array_index`] keys ascending, then
/// the others in insertion order (`serde_json` maps keep document order here, as runstart
/// turns on its `preserve_order`). What `JSON.stringify`, `Object.keys` and a `for…in` see.
pub(crate) fn entries(object: &Map<String, Value>) -> Entries<'_> {
    if !object.keys().any(|k| array_index(k).is_some()) {
        return Entries::Inserted(object.iter());
    }
    let mut all: Vec<(&String, &Value)> = object.iter().collect();
    // stable: the other keys keep their insertion order behind the indices
    all.sort_by_key(|(k, _)| array_index(k).map_or((1, 0), |i| (0, i)));
    Entries::Indexed(all.into_iter())
}

/// The keys of [`entries`], in the same order.
pub(crate) fn keys(object: &Map<String, Value>) -> impl Iterator<Item = &String> {
    entries(object).map(|(k, _)| k)
}

/// The iterator of [`entries`].
pub(crate) enum Entries<'m> {
    /// No key is an array index: the map's own order.
    Inserted(serde_json::map::Iter<'m>),
    /// Array indices first, sorted out of the map's order.
    Indexed(std::vec::IntoIter<(&'m String, &'m Value)>),
}

impl<'m> Iterator for Entries<'m> {
    type Item = (&'m String, &'m Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Inserted(it) => it.next(),
            Entries::Indexed(it) => it.next(),
        }
    }
}

/// `object[key]` for an own property. A template reads small objects (a context's roots, a
/// record's fields): up to 16 keys, comparing them in order beats hashing the name.
#[inline]
pub(crate) fn property<'m>(object: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    if object.len() <= 16 {
        object
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    } else {
        object.get(key)
    }
}

/// The decimal digits of `n`, written from the end of `buf` (a `u64` has at most 20). Printing
/// a count is most of what a template does with numbers, and `write!` spends more on its
/// formatting machinery than on the digits.
fn integer_digits(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + u8::try_from(n % 10).unwrap_or(0);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}

/// Writes `x` the way ECMAScript `Number.prototype.toString()` does: shortest round-trip
/// digits, plain notation for decimal exponents in `-7 < e < 21`, `1e+21` / `1e-7` outside.
///
/// Rust's `{}` differs for large and tiny magnitudes, so labels (`contextWindow>=1e+21`) would
/// not match upstream byte for byte without this.
pub(crate) fn write_js_number(out: &mut impl Write, x: f64) -> fmt::Result {
    if x.is_nan() {
        return out.write_str("NaN");
    }
    if x.is_infinite() {
        return out.write_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    }
    if x == 0.0 {
        // JS prints both zeros as "0".
        return out.write_char('0');
    }
    if x < 0.0 {
        out.write_char('-')?;
    }
    // An integer below 2^53 is its digits, as JS prints it: formatted as an integer, which
    // skips the shortest-digits search (most numbers a template prints are counts).
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ok: integral, < 2^53
        let n = x.abs() as u64;
        return out.write_str(integer_digits(n, &mut [0; 20]));
    }
    // `{:e}` yields the shortest round-trip digits as `d[.ddd]e<exp>`; stack buffer, no heap.
    let mut buf = StackBuf::default();
    write!(buf, "{:e}", x.abs())?;
    let text = buf.as_str();
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits = StackBuf::default();
    for c in mantissa.chars().filter(char::is_ascii_digit) {
        digits.write_char(c)?;
    }
    nearest_even_on_tie(&mut digits, exp, x.abs());
    let digits = digits.as_str();
    let k = digits.len() as i32; // ok: at most 17 digits
    let n = exp + 1;
    if k <= n && n <= 21 {
        out.write_str(digits)?;
        for _ in 0..(n - k) {
            out.write_char('0')?;
        }
        Ok(())
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.write_str(int)?;
        out.write_char('.')?;
        out.write_str(frac)
    } else if -6 < n && n <= 0 {
        out.write_str("0.")?;
        for _ in 0..(-n) {
            out.write_char('0')?;
        }
        out.write_str(digits)
    } else {
        let (first, rest) = digits.split_at(1);
        out.write_str(first)?;
        if !rest.is_empty() {
            out.write_char('.')?;
            out.write_str(rest)?;
        }
        let e = n - 1;
        write!(out, "e{}{}", if e >= 0 { '+' } else { '-' }, e.abs())
    }
}

/// ECMAScript's choice among the shortest digit strings that read back as `x` (positive):
/// the one nearest `x`, and of two equally near, the even one. Rust's shortest digits
/// (`digits` × 10^(`exp` + 1 − len)) can be the odd one of such a tie
/// (1000000000000000.25 prints as `…0.3` in Rust, `…0.2` in JavaScript), which this turns
/// into its even neighbour.
///
/// Two neighbours can both read back only when the digits are as many as a double's
/// precision allows (16 or 17), so shorter ones are left alone without a test.
fn nearest_even_on_tie(digits: &mut StackBuf, exp: i32, x: f64) {
    let len = digits.len;
    if len < 16 {
        return;
    }
    let Some((&last, head)) = digits.as_str().as_bytes().split_last() else {
        return;
    };
    if (last - b'0').is_multiple_of(2) {
        return;
    }
    let head = std::str::from_utf8(head).unwrap_or(""); // ok: ASCII digits
    let reads_back = |candidate: u8| {
        let mut text = StackBuf::default();
        let _ = text.write_str(head);
        let _ = text.write_char(char::from(candidate));
        let _ = write!(text, "e{}", exp + 1 - i32::try_from(len).unwrap_or(0));
        text.as_str().parse::<f64>() == Ok(x)
    };
    // An odd last digit: its even neighbours differ in that digit alone (9 has only 8).
    let below = last - 1;
    let candidate = if reads_back(below) {
        below
    } else if last < b'9' && reads_back(last + 1) {
        last + 1
    } else {
        return;
    };
    // Equally near only when `x` is exactly halfway: its exact expansion is the lower of the
    // two, then 5, then nothing (a double's expansion has at most 767 significant digits).
    let exact = format!("{:.800e}", x);
    let exact = exact.split_once('e').map_or(exact.as_str(), |(m, _)| m);
    let mut exact = exact.bytes().filter(u8::is_ascii_digit);
    let lower = last.min(candidate);
    let halfway = head
        .bytes()
        .chain([lower, b'5'])
        .all(|d| exact.next() == Some(d))
        && exact.all(|d| d == b'0');
    if halfway && let Some(slot) = digits.bytes.get_mut(len - 1) {
        *slot = candidate;
    }
}

/// [`write_js_number`] into a fresh `String`.
pub(crate) fn js_number(x: f64) -> String {
    // Room for any number's text (`-1.7976931348623157e+308` is 24 bytes), so writing it
    // never reallocates.
    let mut s = String::with_capacity(24);
    let _ = write_js_number(&mut s, x);
    s
}

/// `decodeURIComponent`: `%XX` escapes to bytes, which must then be UTF-8; `None` where
/// JavaScript throws `URIError: URI malformed`.
pub(crate) fn decode_uri_component(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Small fixed buffer: an `f64` in `{:e}` form needs at most 24 bytes.
struct StackBuf {
    bytes: [u8; 40],
    len: usize,
}

impl Default for StackBuf {
    fn default() -> Self {
        StackBuf {
            bytes: [0; 40],
            len: 0,
        }
    }
}

impl StackBuf {
    fn as_str(&self) -> &str {
        // ok: only whole ASCII strings are ever written
        std::str::from_utf8(self.bytes.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl Write for StackBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let dst = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_list_array_indices_first_then_keys_as_written() {
        let keys = |text: &str| -> Vec<String> {
            let object: Map<String, Value> = serde_json::from_str(text).expect("JSON object");
            entries(&object).map(|(k, _)| k.clone()).collect()
        };
        assert_eq!(keys(r#"{"b":1,"a":2}"#), ["b", "a"]);
        assert_eq!(
            keys(r#"{"b":1,"10":2,"a":3,"2":4,"01":5,"4294967295":6}"#),
            ["2", "10", "b", "a", "01", "4294967295"]
        );
        let object: Map<String, Value> =
            serde_json::from_str(r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16}"#)
                .expect("JSON object");
        assert_eq!(property(&object, "k3"), Some(&Value::from(3)));
        assert_eq!(property(&object, "k16"), Some(&Value::from(16)));
        assert_eq!(property(&object, "k17"), None);
        let mut small = object.clone();
        small.retain(|k, _| k.len() == 2);
        assert_eq!(property(&small, "k9"), Some(&Value::from(9)));
        assert_eq!(property(&small, "k"), None);
    }

    #[test]
    fn array_indices_are_canonical_integers_below_two_to_the_32_minus_1() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("17"), Some(17));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        for not in [
            "",
            "01",
            "-1",
            "2.5",
            "+1",
            "4294967295",
            "99999999999",
            "1e3",
            " 1",
        ] {
            assert_eq!(array_index(not), None, "{not:?}");
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // ok: the ties are written as their exact values
    fn formats_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (128000.0, "128000"),
            (0.003, "0.003"),
            (1e6, "1000000"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123e20, "1.23e+22"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (-0.0, "0"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (7791.75, "7791.75"),
            (0.05528261009603739, "0.05528261009603739"),
            (7.0, "7"),
            (-10.0, "-10"),
            (9_007_199_254_740_991.0, "9007199254740991"),
            (9_007_199_254_740_992.0, "9007199254740992"),
            // exact ties between two shortest digit strings: JavaScript takes the even one
            (1_000_000_000_000_000.25, "1000000000000000.2"),
            (12_345_678.000_976_562_5, "12345678.000976562"),
            (-181_652_930_702_095.125, "-181652930702095.12"),
            (178_741_787_820_482.625, "178741787820482.62"),
            (1.5e-323, "1.5e-323"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn integer_digits_are_decimal() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::MAX] {
            assert_eq!(integer_digits(n, &mut [0; 20]), n.to_string());
        }
    }
}
