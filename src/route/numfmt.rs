//! JavaScript `Number::toString` formatting for labels and messages (spec §2.13).

use std::fmt::{self, Write};

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

/// [`write_js_number`] into a fresh `String`.
#[cfg(test)]
pub(crate) fn js_number(x: f64) -> String {
    let mut s = String::new();
    let _ = write_js_number(&mut s, x);
    s
}

/// A `Display` adapter for [`write_js_number`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Js(pub f64);

impl fmt::Display for Js {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_js_number(f, self.0)
    }
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

/// Serializes an `f64` as JSON the way `JSON.stringify` would: integral values within the
/// safe-integer range as integers (`128000`, not `128000.0`).
pub(crate) fn serialize_js<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if x.fract() == 0.0 && x.abs() <= SAFE {
        if *x == 0.0 {
            return s.serialize_i64(0);
        }
        #[allow(clippy::cast_possible_truncation)] // ok: integral and within ±2^53
        return s.serialize_i64(*x as i64);
    }
    s.serialize_f64(*x)
}

/// [`serialize_js`] for an optional number.
pub(crate) fn serialize_js_opt<S: serde::Serializer>(
    x: &Option<f64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => serialize_js(v, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
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
        ];
        for (x, want) in cases {
            assert_eq!(js_number(*x), *want, "{x:e}");
        }
    }
}
