//! String filters that replace, remove or split substrings, and `slugify`.

use super::common::{FResult, arg, family, is_js_regex_space, js_split, js_split_join};
use super::names::Filter;
use crate::template::value::{Val, js_string, stringify};
use regex::Regex;
use std::borrow::Cow;
use std::rc::Rc;
use std::sync::OnceLock;

family! {
    /// Replacing, removing and splitting substrings, and slugs.
    fn apply<'a>(f, input, args) {
        Filter::RemoveLast => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            match s.rfind(&*pat) {
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
            Val::string(js_split_join(&s, &pat, &rep)?)
        }
        Filter::ReplaceFirst => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = arg(args, 1).map(stringify).unwrap_or_default();
            Val::string(s.replacen(&*pat, &rep, 1))
        }
        Filter::Remove => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            Val::string(js_split_join(&s, &pat, "")?)
        }
        Filter::RemoveFirst => {
            let s = stringify(&input);
            Val::string(s.replacen(&*str_arg(args, 0), "", 1))
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
            match s.rfind(&*pat) {
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
fn str_arg<'v>(args: &'v [Val<'_>], i: usize) -> Cow<'v, str> {
    args.get(i).map(stringify).unwrap_or_default()
}

/// Jekyll's `slugify` modes as LiquidJS implements them.
fn slugify(s: &str, mode: &str, cased: bool) -> String {
    // LiquidJS's replacers: runs of what is not a letter, mark or decimal digit (Unicode general
    // categories L, M, Nd; `pretty` keeps some punctuation too) become one `-`.
    static DEFAULT: OnceLock<Regex> = OnceLock::new();
    static PRETTY: OnceLock<Regex> = OnceLock::new();
    let compiled = |cell: &'static OnceLock<Regex>, pattern: &str| {
        // ok: both patterns are constants below, compiled by every slugify test.
        cell.get_or_init(|| Regex::new(pattern).expect("a fixed, valid pattern"))
    };
    let mut text = s.to_string();
    let replaced = match mode {
        "raw" => Some(js_space_runs_to_dash(&text)),
        "default" | "latin" => {
            if mode == "latin" {
                text = remove_accents(&text);
            }
            let re = compiled(&DEFAULT, r"[^\p{M}\p{L}\p{Nd}]+");
            Some(re.replace_all(&text, "-").into_owned())
        }
        "pretty" => {
            let re = compiled(&PRETTY, r"[^\p{M}\p{L}\p{Nd}._~!$&'()+,;=@]+");
            Some(re.replace_all(&text, "-").into_owned())
        }
        "ascii" => {
            let mut out = String::with_capacity(text.len());
            for (keep, run) in runs(&text, |c| c.is_ascii_alphanumeric()) {
                out.push_str(if keep { run } else { "-" });
            }
            Some(out)
        }
        _ => None,
    };
    if let Some(out) = replaced {
        // `.replace(/^-|-$/g, '')`: one dash off each end, whether written or made
        let out = out.strip_prefix('-').unwrap_or(&out);
        text = out.strip_suffix('-').unwrap_or(out).to_string();
    }
    if cased { text } else { text.to_lowercase() }
}

/// `str.replace(/\s+/g, '-')`.
fn js_space_runs_to_dash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (keep, run) in runs(s, |c| !is_js_regex_space(c)) {
        out.push_str(if keep { run } else { "-" });
    }
    out
}

/// `s` cut into maximal runs of characters that `keep` accepts or refuses, in order, each
/// with whether it is kept.
fn runs(s: &str, keep: impl Fn(char) -> bool) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let kind = keep(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| keep(c) != kind)
            .map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((kind, run))
    })
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
