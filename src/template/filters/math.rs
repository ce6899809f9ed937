//! Math filters, with JavaScript number semantics.

use super::common::{FResult, family};
use super::names::Filter;
use crate::template::value::{Val, to_number};

family! {
    /// Arithmetic with JavaScript numbers, as LiquidJS's `argumentsToNumber`: the input and
    /// each argument given pass through `toNumber` (`+v || 0`); a missing argument stays
    /// `undefined`, which is `NaN` in arithmetic and skipped by `Math.min`/`Math.max`.
    fn apply<'a>(f, input, args) {
        Filter::Abs => Val::Num(js_to_number(&input).abs()),
        Filter::Plus => Val::Num(js_to_number(&input) + given(args, 0)),
        Filter::Minus => Val::Num(js_to_number(&input) - given(args, 0)),
        Filter::Times => Val::Num(js_to_number(&input) * given(args, 0)),
        Filter::DividedBy => {
            let r = js_to_number(&input) / given(args, 0);
            // the third parameter, integerArithmetic, is a number too: "x" is 0, false
            if args.get(1).is_some_and(|v| js_to_number(v) != 0.0) {
                Val::Num(r.floor())
            } else {
                Val::Num(r)
            }
        }
        Filter::Modulo => {
            // LiquidJS's `((v % arg) + arg) % arg`: the sign follows the divisor
            let (v, m) = (js_to_number(&input), given(args, 0));
            Val::Num(((v % m) + m) % m)
        }
        Filter::Ceil => Val::Num(js_to_number(&input).ceil()),
        Filter::Floor => Val::Num(js_to_number(&input).floor()),
        Filter::AtLeast => Val::Num(
            args.iter()
                .map(js_to_number)
                .fold(js_to_number(&input), f64::max),
        ),
        Filter::AtMost => Val::Num(
            args.iter()
                .map(js_to_number)
                .fold(js_to_number(&input), f64::min),
        ),
        Filter::Round => {
            let v = js_to_number(&input);
            let digits = args.first().map_or(0.0, js_to_number);
            Val::Num(js_round_to(v, digits))
        }
        Filter::ToInteger => Val::Num(to_number(&input)),
    }
}

/// LiquidJS's `toNumber`: `+v || 0`, so `NaN` and `-0` become 0.
fn js_to_number(v: &Val<'_>) -> f64 {
    let n = to_number(v);
    if n.is_nan() || n == 0.0 { 0.0 } else { n }
}

/// Argument `i` through [`js_to_number`], or `NaN` (JavaScript's `undefined` in arithmetic)
/// when it is absent.
fn given(args: &[Val<'_>], i: usize) -> f64 {
    args.get(i).map_or(f64::NAN, js_to_number)
}

/// LiquidJS's `round(v, digits)`: the decimal point is shifted by rewriting the number's
/// exponent in its JavaScript text (`shiftDecimal`), so `1.005` rounds to `1.01` and a
/// fractional `digits` gives `NaN` there, which returns `v` unchanged, as does a scaled value
/// above `Number.MAX_SAFE_INTEGER`.
fn js_round_to(v: f64, digits: f64) -> f64 {
    let scaled = shift_decimal(v.abs(), digits);
    if scaled.is_nan() || scaled > 9_007_199_254_740_991.0 {
        return v;
    }
    let rounded = shift_decimal(js_round(scaled), -digits);
    if v < 0.0 { -rounded } else { rounded }
}

/// `Number(\`${mantissa}e${Number(power) + exponent}\`)` for `String(n)` = `mantissa[e power]`.
fn shift_decimal(n: f64, exponent: f64) -> f64 {
    let mut text = String::new();
    let _ = crate::js::write_js_number(&mut text, n);
    let (mantissa, power) = text.split_once('e').unwrap_or((&text, "0"));
    let power: f64 = power.parse().unwrap_or(f64::NAN);
    let mut shifted = String::new();
    let _ = crate::js::write_js_number(&mut shifted, power + exponent);
    // JavaScript's Number() of `<mantissa>e<exponent>`: an exponent that is not an integer
    // (`2.2`), `NaN` or `Infinity` makes the whole text NaN, as does a mantissa `Infinity`.
    if !shifted.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        || !mantissa.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        return f64::NAN;
    }
    format!("{mantissa}e{shifted}").parse().unwrap_or(f64::NAN)
}

fn js_round(x: f64) -> f64 {
    // JS Math.round rounds half up (towards +infinity)
    (x + 0.5).floor()
}
