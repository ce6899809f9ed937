//! What every filter family shares: the error type, the argument readers and the
//! JavaScript string and array helpers of more than one family.

use super::names::Filter;
use crate::template::value::Val;

/// Declares one family's function: `fn name<'a>(f, input, args) { arms }` becomes
/// `fn(Filter, Val, &[Val]) -> FResult` matching `f` over `arms`, with a filter outside them
/// refused (the dispatch table never sends one).
macro_rules! family {
    (
        $(#[$doc:meta])*
        fn $name:ident<$lt:lifetime>($f:ident, $input:ident, $args:pat) {
            $($arms:tt)*
        }
    ) => {
        $(#[$doc])*
        pub(super) fn $name<$lt>(
            $f: Filter,
            $input: Val<$lt>,
            $args: &[Val<$lt>],
        ) -> FResult<$lt> {
            Ok(match $f {
                $($arms)*
                _ => return Err(super::common::unsupported($f)),
            })
        }
    };
}
pub(super) use family;

/// Why a filter failed: a message LiquidJS would give, or an undefined-variable path.
#[derive(Debug)]
pub(crate) enum FilterError {
    Message(String),
    Undefined(String),
}

pub(super) type FResult<'a> = Result<Val<'a>, FilterError>;

/// A filter [`apply`] does not implement (the `*_exp` family, which the renderer evaluates)
/// or that a family function was handed by mistake.
pub(super) fn unsupported(f: Filter) -> FilterError {
    FilterError::Message(format!(
        "filter \"{}\" is not supported by runstart's renderer",
        f.name()
    ))
}

pub(super) fn arg<'a, 'b>(args: &'b [Val<'a>], i: usize) -> Option<&'b Val<'a>> {
    args.get(i)
}

pub(super) fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// How many code points LiquidJS's `advanceCodePoints` steps over for a count of `n`: its
/// loop runs while `i < n`, so a fraction counts as the next whole number (`1.5` steps 2)
/// and NaN or `n ≤ 0` as none.
pub(super) fn code_point_steps(n: f64) -> usize {
    if n.is_nan() || n <= 0.0 {
        0
    } else if n >= usize::MAX as f64 {
        usize::MAX
    } else {
        // ok: positive, finite and below usize::MAX after the checks above.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let steps = n.ceil() as usize;
        steps
    }
}

/// `take` code points of `s` after the first `skip` (fewer at the end of `s`): what LiquidJS
/// 10.30.1 cuts strings by in `slice` and `truncate`, so a character outside the BMP is never
/// split into halves.
pub(super) fn code_point_slice(s: &str, skip: usize, take: usize) -> &str {
    let byte_at = |from: usize, n: usize| {
        s[from..]
            .char_indices()
            .nth(n)
            .map_or(s.len(), |(i, _)| from + i)
    };
    let start = byte_at(0, skip);
    let end = byte_at(start, take);
    &s[start..end]
}

pub(super) fn utf16_slice(s: &str, from: usize, to: usize) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    let to = to.min(units.len());
    let from = from.min(to);
    String::from_utf16_lossy(&units[from..to])
}

/// `toArray`: arrays stay, nil becomes empty (`nul | where: …` renders nothing), anything
/// else is wrapped.
pub(crate) fn to_array<'a>(v: &Val<'a>) -> Vec<Val<'a>> {
    match v.items() {
        Some(items) => items,
        None if matches!(v, Val::Nil | Val::NilDrop | Val::Undef) => Vec::new(),
        // LiquidJS takes a drop's value first: `blank` and `empty` are `''` there, so
        // `blank | sort | json` is `[""]` (`blank | json` alone stays `{}`).
        None if matches!(v, Val::Empty | Val::Blank) => vec![Val::string(String::new())],
        None => vec![v.clone()],
    }
}

/// JavaScript's `\s`: `String.prototype.trim`'s white space and line terminators.
pub(super) fn is_js_regex_space(c: char) -> bool {
    is_js_space(c)
}

pub(super) use crate::template::value::is_js_space;

/// `parts.join(sep)`, refused before allocating when the result would be longer than
/// [`MAX_RENDER_SIZE`](crate::template::limits::MAX_RENDER_SIZE): a long separator between many parts multiplies sizes.
pub(super) fn capped_join<S: AsRef<str>>(parts: &[S], sep: &str) -> Result<String, FilterError> {
    let len = parts
        .iter()
        .map(|p| p.as_ref().len())
        .fold(0usize, usize::saturating_add)
        .saturating_add(sep.len().saturating_mul(parts.len().saturating_sub(1)));
    if len > crate::template::limits::MAX_RENDER_SIZE {
        return Err(FilterError::Message(format!(
            "the result would be {len} bytes long, over the limit of {} bytes",
            crate::template::limits::MAX_RENDER_SIZE
        )));
    }
    Ok(parts
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(sep))
}

/// `s.split(sep).join(rep)` as JavaScript computes it (`replace`, `remove`). With an empty
/// `sep` the split is into UTF-16 units, which the join puts back together, so a character
/// outside the BMP survives `remove: ''` whole (only a non-empty `rep` leaves lone halves,
/// written as U+FFFD).
pub(super) fn js_split_join(s: &str, sep: &str, rep: &str) -> Result<String, FilterError> {
    if !sep.is_empty() {
        return capped_join(&js_split(s, sep), rep);
    }
    let units = s.encode_utf16().count();
    let len = s
        .len()
        .saturating_add(rep.len().saturating_mul(units.saturating_sub(1)));
    if len > crate::template::limits::MAX_RENDER_SIZE {
        return Err(FilterError::Message(format!(
            "the result would be {len} bytes long, over the limit of {} bytes",
            crate::template::limits::MAX_RENDER_SIZE
        )));
    }
    if rep.is_empty() {
        return Ok(s.to_owned());
    }
    let mut joined: Vec<u16> = Vec::with_capacity(units + rep.len() * units);
    for (i, unit) in s.encode_utf16().enumerate() {
        if i > 0 {
            joined.extend(rep.encode_utf16());
        }
        joined.push(unit);
    }
    Ok(String::from_utf16_lossy(&joined))
}

/// `String.prototype.split` with a string separator (an empty one splits UTF-16 units).
pub(super) fn js_split(s: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        return s
            .encode_utf16()
            .map(|u| String::from_utf16_lossy(&[u]))
            .collect();
    }
    s.split(sep).map(str::to_string).collect()
}
