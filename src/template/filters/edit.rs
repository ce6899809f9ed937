//! String filters that replace, remove or split substrings, and `slugify`.

use super::common::{FResult, arg, capped_join, family, is_js_regex_space, js_split};
use super::names::Filter;
use crate::template::value::{Val, js_string, stringify};
use std::rc::Rc;

family! {
    /// Replacing, removing and splitting substrings, and slugs.
    fn apply<'a>(f, input, args, _) {
        Filter::RemoveLast => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            match s.rfind(&pat) {
                Some(i) => Val::string(format!(
                    "{}{}",
                    s.get(..i).unwrap_or(""),
                    s.get(i + pat.len()..).unwrap_or("")
                )),
                None => Val::string(s),
            }
        }
        Filter::Slugify => {
            let mode = match arg(args, 0) {
                None | Some(Val::Undef) => "default".to_string(),
                Some(v) => js_string(v),
            };
            let cased = arg(args, 1).is_some_and(Val::truthy_js);
            Val::string(slugify(&stringify(&input), &mode, cased))
        }
        Filter::Replace => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = arg(args, 1).map(stringify).unwrap_or_default();
            Val::string(capped_join(&js_split(&s, &pat), &rep)?)
        }
        Filter::ReplaceFirst => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = arg(args, 1).map(stringify).unwrap_or_default();
            Val::string(s.replacen(&pat, &rep, 1))
        }
        Filter::Remove => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            Val::string(js_split(&s, &pat).join(""))
        }
        Filter::RemoveFirst => {
            let s = stringify(&input);
            Val::string(s.replacen(&str_arg(args, 0), "", 1))
        }
        Filter::Split => {
            let s = stringify(&input);
            let sep = str_arg(args, 0);
            let mut parts = js_split(&s, &sep);
            while parts.last().is_some_and(|p| p.is_empty()) {
                parts.pop();
            }
            Val::Arr(Rc::new(parts.into_iter().map(Val::string).collect()))
        }
        Filter::ReplaceLast => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = str_arg(args, 1);
            match s.rfind(&pat) {
                Some(i) => Val::string(format!(
                    "{}{}{}",
                    s.get(..i).unwrap_or(""),
                    rep,
                    s.get(i + pat.len()..).unwrap_or("")
                )),
                None => Val::string(s),
            }
        }
    }
}

/// Argument `i` through LiquidJS's `stringify`, as 10.30's string filters read their
/// patterns: absent, `nil` and `undefined` are `""` (`split: nil` splits into characters).
fn str_arg(args: &[Val<'_>], i: usize) -> String {
    args.get(i).map(stringify).unwrap_or_default()
}

/// Jekyll's `slugify` modes as LiquidJS implements them.
fn slugify(s: &str, mode: &str, cased: bool) -> String {
    let keep: Option<fn(char) -> bool> = match mode {
        "raw" => Some(|c| !is_js_regex_space(c)),
        "default" | "latin" => Some(|c| c.is_alphanumeric() && !is_non_decimal_number(c)),
        "pretty" => Some(|c| {
            (c.is_alphanumeric() && !is_non_decimal_number(c)) || "._~!$&'()+,;=@".contains(c)
        }),
        "ascii" => Some(|c| c.is_ascii_alphanumeric()),
        _ => None,
    };
    let mut text = s.to_string();
    if let Some(keep) = keep {
        if mode == "latin" {
            text = remove_accents(&text);
        }
        let mut out = String::with_capacity(text.len());
        let mut dash = false;
        for c in text.chars() {
            if keep(c) {
                out.push(c);
                dash = false;
            } else if !dash {
                out.push('-');
                dash = true;
            }
        }
        let out = out.strip_prefix('-').unwrap_or(&out);
        let out = out.strip_suffix('-').unwrap_or(out);
        text = out.to_string();
    }
    if cased { text } else { text.to_lowercase() }
}

/// `\p{L}`/`\p{M}`/`\p{Nd}` approximated by `char::is_alphanumeric` minus the number
/// categories other than decimal digits.
fn is_non_decimal_number(c: char) -> bool {
    c.is_numeric()
        && c.to_digit(10).is_none()
        && !c.is_ascii_digit()
        && !c.is_alphabetic()
        && !matches!(c as u32, 0x660..=0x669 | 0x6F0..=0x6F9 | 0x966..=0x96F | 0xFF10..=0xFF19)
}

fn remove_accents(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => out.push('a'),
            'æ' => out.push_str("ae"),
            'ç' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' => out.push('i'),
            'ð' => out.push('d'),
            'ñ' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ß' => out.push_str("ss"),
            'œ' => out.push_str("oe"),
            'þ' => out.push_str("th"),
            'ẞ' => out.push_str("SS"),
            'Œ' => out.push_str("OE"),
            'Þ' => out.push_str("TH"),
            c => out.push(c),
        }
    }
    out
}
