//! String filters: concatenation, case, trimming, whitespace and truncation.

use super::common::{
    FResult, FilterError, arg, code_point_slice, code_point_steps, family, is_js_regex_space,
    is_js_space, utf16_len,
};
use super::names::Filter;
use crate::template::value::{Val, stringify, to_number};
use std::borrow::Cow;

family! {
    /// Concatenation, case and trimming.
    fn case_and_trim<'a>(f, input, args) {
        Filter::Append => {
            if args.len() != 1 {
                return Err(FilterError::Message("append expect 2 arguments".into()));
            }
            Val::string([stringify(&input), stringify(&args[0])].concat())
        }
        Filter::Prepend => {
            if args.len() != 1 {
                return Err(FilterError::Message("prepend expect 2 arguments".into()));
            }
            Val::string([stringify(&args[0]), stringify(&input)].concat())
        }
        Filter::Upcase => Val::string(stringify(&input).to_uppercase()),
        Filter::Downcase => Val::string(stringify(&input).to_lowercase()),
        Filter::Capitalize => {
            // LiquidJS upcases `charAt(0)`, one UTF-16 unit: half of a character outside the
            // BMP, which no case mapping changes, so such a first character stays as it is.
            let s = stringify(&input);
            let mut chars = s.chars();
            match chars.next() {
                Some(c) if c.len_utf16() == 1 => Val::string(
                    c.to_uppercase().collect::<String>() + &chars.as_str().to_lowercase(),
                ),
                Some(c) => Val::string(format!("{c}{}", chars.as_str().to_lowercase())),
                None => Val::string(String::new()),
            }
        }
        Filter::Strip | Filter::Lstrip | Filter::Rstrip => {
            let s = stringify(&input);
            // with a characters argument, those characters (code points) are stripped
            let chars = arg(args, 0).filter(|v| v.truthy_js()).map(stringify);
            let (left, right) = (f != Filter::Rstrip, f != Filter::Lstrip);
            Val::string(match chars {
                Some(set) => strip_chars(&s, &set, left, right),
                None => {
                    let t = if left {
                        s.trim_start_matches(is_js_space)
                    } else {
                        &s
                    };
                    let t = if right {
                        t.trim_end_matches(is_js_space)
                    } else {
                        t
                    };
                    t.to_string()
                }
            })
        }
    }
}

family! {
    /// Whitespace, word counts and truncation.
    fn words<'a>(f, input, args) {
        Filter::StripNewlines => {
            Val::string(stringify(&input).replace("\r\n", "").replace('\n', ""))
        }
        Filter::NormalizeWhitespace => Val::string(collapse_whitespace(&stringify(&input))),
        Filter::Squish => Val::string(collapse_whitespace(js_trim(&stringify(&input)))),
        Filter::NumberOfWords => {
            let s = stringify(&input);
            let mode = arg(args, 0).map(stringify);
            Val::Num(number_of_words(js_trim(&s), mode.as_deref()) as f64)
        }
        Filter::Truncatewords => {
            let s = stringify(&input);
            let words = number_or(args, 0, 15.0);
            let o = omission(args);
            // `str.trimStart().split(/\s+/)`: a trailing blank gives an empty last word
            let parts: Vec<&str> = split_js_whitespace(s.trim_start_matches(is_js_space));
            // `words <= 0` is false for NaN (`truncatewords: "x"`), which then takes no word
            // (`slice(0, NaN)`) and adds no omission (`length >= NaN` is false)
            let w = if words <= 0.0 { 1.0 } else { words };
            let take = if w.is_nan() {
                0
            } else if w >= parts.len() as f64 {
                parts.len()
            } else {
                w as usize
            };
            let mut out = parts.get(..take).unwrap_or(&[]).join(" ");
            if parts.len() as f64 >= w {
                out.push_str(&o);
            }
            Val::string(out)
        }
        Filter::Truncate => {
            // LiquidJS 10.30.1 compares the UTF-16 length first, then counts code points;
            // a value short enough comes back as it was, not as its text.
            let s = stringify(&input);
            let l = number_or(args, 0, 50.0);
            let o = omission(args);
            if utf16_len(&s) as f64 <= l || code_point_steps(l) >= s.chars().count() {
                input
            } else {
                let keep = code_point_steps(l - o.chars().count() as f64);
                Val::string(code_point_slice(&s, 0, keep).to_owned() + &o)
            }
        }
    }
}

/// Strips the characters of `set` from the left and/or right of `s`: whole code points, as
/// LiquidJS 10.30.1's `new Set(chars)` holds them, so `😀` never strips half of `👍`.
fn strip_chars(s: &str, set: &str, left: bool, right: bool) -> String {
    let in_set = |c: char| set.contains(c);
    let t = if left {
        s.trim_start_matches(in_set)
    } else {
        s
    };
    let t = if right { t.trim_end_matches(in_set) } else { t };
    t.to_owned()
}

/// `str.replace(/\s+/g, ' ')`.
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if is_js_regex_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// `str.split(/\s+/)`.
fn split_js_whitespace(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in s.char_indices() {
        if is_js_regex_space(c) {
            if !in_space {
                parts.push(s.get(start..i).unwrap_or(""));
            }
            in_space = true;
        } else if in_space {
            start = i;
            in_space = false;
        }
    }
    parts.push(if in_space {
        ""
    } else {
        s.get(start..).unwrap_or("")
    });
    parts
}

/// The CJK ranges LiquidJS's `number_of_words` counts one character at a time.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x3400..=0x4DBF | 0x3040..=0x309F | 0x30A0..=0x30FF | 0xAC00..=0xD7AF)
}

fn number_of_words(s: &str, mode: Option<&str>) -> usize {
    if s.is_empty() {
        return 0;
    }
    let cjk_count = || s.chars().filter(|c| is_cjk(*c)).count();
    // runs of characters that are neither CJK nor blank
    let other_runs = || {
        let mut n = 0;
        let mut in_run = false;
        for c in s.chars() {
            let word = !is_cjk(c) && !is_js_regex_space(c);
            if word && !in_run {
                n += 1;
            }
            in_run = word;
        }
        n
    };
    match mode {
        Some("cjk") => cjk_count() + other_runs(),
        Some("auto") if s.chars().any(is_cjk) => cjk_count() + other_runs(),
        _ => split_js_whitespace(s).len(),
    }
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// The number at `args[i]`, or `default` when it is absent or undefined.
fn number_or(args: &[Val<'_>], i: usize, default: f64) -> f64 {
    match arg(args, i) {
        None | Some(Val::Undef) => default,
        Some(v) => to_number(v),
    }
}

/// The truncation filters' omission text (their second argument), `...` by default.
fn omission<'v>(args: &'v [Val<'_>]) -> Cow<'v, str> {
    match arg(args, 1) {
        None | Some(Val::Undef) => Cow::Borrowed("..."),
        Some(v) => stringify(v),
    }
}
