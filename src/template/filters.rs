//! LiquidJS's standard filters: the names (so unknown ones are parse errors, as under
//! `strictFilters`) and the implementations the runtime's templates use.

use super::value::{Val, js_equals, js_string, json_stringify, stringify, to_number};
use std::rc::Rc;

/// Every filter LiquidJS 10 registers. A name outside this list is a parse error.
const KNOWN: &[&str] = &[
    "abs",
    "append",
    "array_to_sentence_string",
    "at_least",
    "at_most",
    "base64_decode",
    "base64_encode",
    "capitalize",
    "ceil",
    "cgi_escape",
    "compact",
    "concat",
    "date",
    "date_to_long_string",
    "date_to_rfc822",
    "date_to_string",
    "date_to_xmlschema",
    "default",
    "divided_by",
    "downcase",
    "escape",
    "escape_once",
    "find",
    "find_exp",
    "find_index",
    "find_index_exp",
    "first",
    "floor",
    "group_by",
    "group_by_exp",
    "has",
    "has_exp",
    "inspect",
    "join",
    "json",
    "jsonify",
    "last",
    "lstrip",
    "map",
    "minus",
    "modulo",
    "newline_to_br",
    "normalize_whitespace",
    "number_of_words",
    "plus",
    "pop",
    "prepend",
    "push",
    "raw",
    "reject",
    "reject_exp",
    "remove",
    "remove_first",
    "remove_last",
    "replace",
    "replace_first",
    "replace_last",
    "reverse",
    "round",
    "rstrip",
    "sample",
    "shift",
    "size",
    "slice",
    "slugify",
    "sort",
    "sort_natural",
    "split",
    "strip",
    "strip_html",
    "strip_newlines",
    "sum",
    "times",
    "to_integer",
    "truncate",
    "truncatewords",
    "uniq",
    "unshift",
    "upcase",
    "uri_escape",
    "url_decode",
    "url_encode",
    "where",
    "where_exp",
    "xml_escape",
];

/// A filter name as parsed: a LiquidJS built-in, or unknown (a parse error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FilterName {
    Known(&'static str),
    Unknown(String),
}

impl FilterName {
    pub(crate) fn parse(name: &str) -> FilterName {
        match KNOWN.binary_search(&name) {
            Ok(i) => FilterName::Known(KNOWN[i]),
            Err(_) => FilterName::Unknown(name.to_string()),
        }
    }
}

/// Why a filter failed: a message LiquidJS would give, or an undefined-variable path.
#[derive(Debug)]
pub(crate) enum FilterError {
    Message(String),
    Undefined(String),
}

type FResult<'a> = Result<Val<'a>, FilterError>;

fn arg<'a, 'b>(args: &'b [Val<'a>], i: usize) -> Option<&'b Val<'a>> {
    args.get(i)
}

fn str_arg(args: &[Val<'_>], i: usize) -> String {
    // JS `String(x)`: undefined becomes "undefined"
    match args.get(i) {
        None | Some(Val::Undef) => "undefined".to_string(),
        Some(v) => js_string(v),
    }
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn utf16_slice(s: &str, from: usize, to: usize) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    let to = to.min(units.len());
    let from = from.min(to);
    String::from_utf16_lossy(&units[from..to])
}

/// `toArray`: arrays stay, nil becomes empty (`nul | where: …` renders nothing), anything
/// else is wrapped.
fn to_array<'a>(v: &Val<'a>) -> Vec<Val<'a>> {
    match v.items() {
        Some(items) => items,
        None if matches!(v, Val::Nil | Val::Undef) => Vec::new(),
        None => vec![v.clone()],
    }
}

/// Applies filter `name` to `input` with evaluated `args` (`kwargs` are `key: value` pairs).
pub(crate) fn apply<'a>(
    name: &str,
    input: Val<'a>,
    args: &[Val<'a>],
    kwargs: &[(&str, Val<'a>)],
) -> FResult<'a> {
    let out = match name {
        "append" => {
            if args.len() != 1 || !kwargs.is_empty() {
                return Err(FilterError::Message("append expect 2 arguments".into()));
            }
            Val::string(stringify(&input) + &stringify(&args[0]))
        }
        "prepend" => {
            if args.len() != 1 || !kwargs.is_empty() {
                return Err(FilterError::Message("prepend expect 2 arguments".into()));
            }
            Val::string(stringify(&args[0]) + &stringify(&input))
        }
        "upcase" => Val::string(stringify(&input).to_uppercase()),
        "downcase" => Val::string(stringify(&input).to_lowercase()),
        "capitalize" => {
            let s = stringify(&input);
            let mut chars = s.chars();
            match chars.next() {
                Some(c) => Val::string(
                    c.to_uppercase().collect::<String>() + &chars.as_str().to_lowercase(),
                ),
                None => Val::string(String::new()),
            }
        }
        "strip" => Val::string(js_trim(&stringify(&input)).to_string()),
        "lstrip" => Val::string(
            stringify(&input)
                .trim_start_matches(is_js_space)
                .to_string(),
        ),
        "rstrip" => Val::string(stringify(&input).trim_end_matches(is_js_space).to_string()),
        "strip_newlines" => Val::string(stringify(&input).replace('\n', "")),
        "escape" | "xml_escape" => Val::string(escape_html(&stringify(&input))),
        "escape_once" => Val::string(escape_html(&unescape_html(&stringify(&input)))),
        "newline_to_br" => Val::string(stringify(&input).replace('\n', "<br />\n")),
        "replace" => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = arg(args, 1).map(stringify).unwrap_or_default();
            Val::string(capped_join(&js_split(&s, &pat), &rep)?)
        }
        "replace_first" => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            let rep = arg(args, 1).map(stringify).unwrap_or_default();
            Val::string(s.replacen(&pat, &rep, 1))
        }
        "remove" => {
            let s = stringify(&input);
            let pat = str_arg(args, 0);
            Val::string(js_split(&s, &pat).join(""))
        }
        "remove_first" => {
            let s = stringify(&input);
            Val::string(s.replacen(&str_arg(args, 0), "", 1))
        }
        "split" => {
            let s = stringify(&input);
            let sep = str_arg(args, 0);
            let mut parts = js_split(&s, &sep);
            while parts.last().is_some_and(|p| p.is_empty()) {
                parts.pop();
            }
            Val::Arr(Rc::new(parts.into_iter().map(Val::string).collect()))
        }
        "truncate" => {
            let s = stringify(&input);
            let l = match arg(args, 0) {
                None | Some(Val::Undef) => 50.0,
                Some(v) => to_number(v),
            };
            let o = match arg(args, 1) {
                None | Some(Val::Undef) => "...".to_string(),
                Some(v) => stringify(v),
            };
            let len = utf16_len(&s) as f64;
            if len <= l {
                Val::string(s)
            } else {
                let keep = l - utf16_len(&o) as f64;
                let keep = if keep.is_nan() || keep < 0.0 {
                    0
                } else {
                    keep as usize
                };
                Val::string(utf16_slice(&s, 0, keep) + &o)
            }
        }
        "size" => match &input {
            Val::Str(_) | Val::S(_) => Val::Num(utf16_len(input.as_str().unwrap_or("")) as f64),
            _ => match input.items_len() {
                Some(n) => Val::Num(n as f64),
                None => Val::Num(0.0),
            },
        },
        "first" => match &input {
            Val::Str(_) | Val::S(_) => {
                let s = input.as_str().unwrap_or("");
                if s.is_empty() {
                    Val::Undef
                } else {
                    Val::string(utf16_slice(s, 0, 1))
                }
            }
            _ => match input.items() {
                Some(items) => items.into_iter().next().unwrap_or(Val::Undef),
                None => Val::string(String::new()),
            },
        },
        "last" => match &input {
            Val::Str(_) | Val::S(_) => {
                let s = input.as_str().unwrap_or("");
                let n = utf16_len(s);
                if n == 0 {
                    Val::Undef
                } else {
                    Val::string(utf16_slice(s, n - 1, n))
                }
            }
            _ => match input.items() {
                Some(items) => items.into_iter().last().unwrap_or(Val::Undef),
                None => Val::string(String::new()),
            },
        },
        "join" => {
            let items = to_array(&input);
            let sep = match arg(args, 0) {
                None | Some(Val::Undef) | Some(Val::Nil) => " ".to_string(),
                Some(v) => stringify(v),
            };
            Val::string(capped_join(
                &items.iter().map(join_item).collect::<Vec<_>>(),
                &sep,
            )?)
        }
        "reverse" => {
            let mut items = to_array(&input);
            items.reverse();
            Val::Arr(Rc::new(items))
        }
        "uniq" => {
            let items = to_array(&input);
            let mut out: Vec<Val<'a>> = Vec::new();
            for it in items {
                if !out.iter().any(|o| o.same_value_zero(&it)) {
                    out.push(it);
                }
            }
            Val::Arr(Rc::new(out))
        }
        "compact" => Val::Arr(Rc::new(
            to_array(&input)
                .into_iter()
                .filter(|v| !matches!(v, Val::Nil | Val::Undef))
                .collect(),
        )),
        "concat" => {
            let mut items = to_array(&input);
            if let Some(a) = arg(args, 0) {
                items.extend(to_array(a));
            }
            Val::Arr(Rc::new(items))
        }
        "sort" => {
            let items = to_array(&input);
            let prop = arg(args, 0).filter(|v| v.truthy_js()).map(stringify);
            let mut keyed: Vec<(Val<'a>, Val<'a>)> = items
                .into_iter()
                .map(|it| {
                    let k = match &prop {
                        Some(p) => it.get_path_lenient(p),
                        None => it.clone(),
                    };
                    (it, k)
                })
                .collect();
            keyed.sort_by(|a, b| {
                if super::value::js_less(&a.1, &b.1) {
                    std::cmp::Ordering::Less
                } else if super::value::js_less(&b.1, &a.1) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
            Val::Arr(Rc::new(keyed.into_iter().map(|x| x.0).collect()))
        }
        "map" => {
            let items = to_array(&input);
            let p = arg(args, 0)
                .map(stringify)
                .unwrap_or_else(|| "undefined".into());
            Val::Arr(Rc::new(
                items.iter().map(|it| it.get_path_lenient(&p)).collect(),
            ))
        }
        "where" => {
            let items = to_array(&input);
            let p = arg(args, 0)
                .map(stringify)
                .unwrap_or_else(|| "undefined".into());
            let expected = arg(args, 1).cloned();
            let mut out = Vec::new();
            for it in items {
                let v = it.get_path_strict(&p).map_err(FilterError::Undefined)?;
                let keep = match &expected {
                    None | Some(Val::Undef) => v.truthy(),
                    Some(e) => js_equals(&v, e),
                };
                if keep {
                    out.push(it);
                }
            }
            Val::Arr(Rc::new(out))
        }
        "default" => {
            let d = arg(args, 0).cloned().unwrap_or(Val::Undef);
            let allow_false = kwargs
                .iter()
                .any(|(k, v)| *k == "allow_false" && v.truthy_js());
            match &input {
                Val::Str(_) | Val::S(_) => {
                    if input.as_str().is_some_and(|s| !s.is_empty()) {
                        input
                    } else {
                        d
                    }
                }
                Val::Empty | Val::Blank => d,
                _ if input.items_len().is_some() => {
                    if input.items_len() == Some(0) {
                        d
                    } else {
                        input
                    }
                }
                Val::Bool(false) if allow_false => input,
                _ if !input.truthy() => d,
                _ => input,
            }
        }
        "json" | "jsonify" => {
            let space = match arg(args, 0) {
                Some(v) => to_number(v),
                None => 0.0,
            };
            match json_stringify(&input, space) {
                Some(s) => Val::string(s),
                None => Val::Undef,
            }
        }
        "abs" => Val::Num(to_number_or_zero(&input).abs()),
        "plus" => Val::Num(to_number_or_zero(&input) + num_arg(args, 0)),
        "minus" => Val::Num(to_number_or_zero(&input) - num_arg(args, 0)),
        "times" => Val::Num(to_number_or_zero(&input) * num_arg(args, 0)),
        "divided_by" => {
            let r = to_number_or_zero(&input) / num_arg(args, 0);
            if arg(args, 1).is_some_and(|v| v.truthy_js()) {
                Val::Num(r.floor())
            } else {
                Val::Num(r)
            }
        }
        "modulo" => Val::Num(to_number_or_zero(&input) % num_arg(args, 0)),
        "ceil" => Val::Num(to_number_or_zero(&input).ceil()),
        "floor" => Val::Num(to_number_or_zero(&input).floor()),
        "at_least" => Val::Num(to_number_or_zero(&input).max(num_arg(args, 0))),
        "at_most" => Val::Num(to_number_or_zero(&input).min(num_arg(args, 0))),
        "round" => {
            let v = to_number_or_zero(&input);
            let d = num_arg(args, 0);
            let amp = 10f64.powf(d);
            Val::Num(js_round(v * amp) / amp)
        }
        "to_integer" => Val::Num(to_number(&input)),
        "date" => super::date::date_filter(input, args),
        "push" => {
            let mut items = to_array(&input);
            items.push(arg(args, 0).cloned().unwrap_or(Val::Undef));
            Val::Arr(Rc::new(items))
        }
        "unshift" => {
            let mut items = to_array(&input);
            items.insert(0, arg(args, 0).cloned().unwrap_or(Val::Undef));
            Val::Arr(Rc::new(items))
        }
        "pop" => {
            let mut items = to_array(&input);
            items.pop();
            Val::Arr(Rc::new(items))
        }
        "shift" => {
            let mut items = to_array(&input);
            if !items.is_empty() {
                items.remove(0);
            }
            Val::Arr(Rc::new(items))
        }
        "slice" => {
            let begin = num_arg(args, 0);
            let length = match arg(args, 1) {
                None | Some(Val::Undef) => 1.0,
                Some(v) => to_number_or_zero(v),
            };
            let slice_bounds = |len: usize| {
                let b = if begin < 0.0 {
                    len as f64 + begin
                } else {
                    begin
                };
                let norm = |x: f64| -> usize {
                    if x.is_nan() || x <= 0.0 {
                        0
                    } else if x >= len as f64 {
                        len
                    } else {
                        x as usize
                    }
                };
                (norm(b.trunc()), norm((b + length).trunc()))
            };
            match &input {
                Val::Nil | Val::Undef => Val::Arr(Rc::new(Vec::new())),
                _ if input.is_array() => {
                    let items = to_array(&input);
                    let (from, to) = slice_bounds(items.len());
                    Val::Arr(Rc::new(
                        items.get(from..to).map(<[_]>::to_vec).unwrap_or_default(),
                    ))
                }
                _ => {
                    let s = stringify(&input);
                    let (from, to) = slice_bounds(utf16_len(&s));
                    Val::string(utf16_slice(&s, from, to))
                }
            }
        }
        "sum" => {
            let prop = arg(args, 0).filter(|v| v.truthy_js()).map(stringify);
            let mut total = 0.0;
            for it in to_array(&input) {
                let v = match &prop {
                    Some(p) => it.get_path_lenient(p),
                    None => it,
                };
                let n = to_number(&v);
                if !n.is_nan() {
                    total += n;
                }
            }
            Val::Num(total)
        }
        "sort_natural" => {
            let items = to_array(&input);
            let prop = arg(args, 0).filter(|v| v.truthy_js()).map(stringify);
            let mut keyed: Vec<(Val<'a>, String)> = items
                .into_iter()
                .map(|it| {
                    let k = match &prop {
                        Some(p) => it.get_path_lenient(p),
                        None => it.clone(),
                    };
                    (it, stringify(&k).to_lowercase())
                })
                .collect();
            keyed.sort_by(|a, b| a.1.encode_utf16().cmp(b.1.encode_utf16()));
            Val::Arr(Rc::new(keyed.into_iter().map(|x| x.0).collect()))
        }
        "replace_last" => {
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
        "url_encode" => Val::string(url_encode(&stringify(&input))),
        "raw" => input,
        other => {
            return Err(FilterError::Message(format!(
                "filter \"{other}\" is not supported by runstart's renderer"
            )));
        }
    };
    Ok(out)
}

/// `Array.prototype.join` renders nil as empty and nested arrays with commas.
fn join_item(v: &Val<'_>) -> String {
    match v {
        Val::Nil | Val::Undef => String::new(),
        _ if v.items_len().is_some() => v
            .items()
            .unwrap_or_default()
            .iter()
            .map(join_item)
            .collect::<Vec<_>>()
            .join(","),
        _ => js_string(v),
    }
}

fn js_round(x: f64) -> f64 {
    // JS Math.round rounds half up (towards +infinity)
    (x + 0.5).floor()
}

fn to_number_or_zero(v: &Val<'_>) -> f64 {
    let n = to_number(v);
    if n.is_nan() { 0.0 } else { n }
}

fn num_arg(args: &[Val<'_>], i: usize) -> f64 {
    match args.get(i) {
        Some(v) => to_number_or_zero(v),
        None => 0.0,
    }
}

fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `String.prototype.split` with a string separator (an empty one splits UTF-16 units).
/// `parts.join(sep)`, refused before allocating when the result would be longer than
/// [`super::render::MAX_RENDER_SIZE`]: a long separator between many parts multiplies sizes.
fn capped_join<S: AsRef<str>>(parts: &[S], sep: &str) -> Result<String, FilterError> {
    let len = parts
        .iter()
        .map(|p| p.as_ref().len())
        .fold(0usize, usize::saturating_add)
        .saturating_add(sep.len().saturating_mul(parts.len().saturating_sub(1)));
    if len > super::render::MAX_RENDER_SIZE {
        return Err(FilterError::Message(format!(
            "the result would be {len} bytes long, over the limit of {} bytes",
            super::render::MAX_RENDER_SIZE
        )));
    }
    Ok(parts
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(sep))
}

fn js_split(s: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        return s
            .encode_utf16()
            .map(|u| String::from_utf16_lossy(&[u]))
            .collect();
    }
    s.split(sep).map(str::to_string).collect()
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
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_are_sorted_for_binary_search() {
        assert!(KNOWN.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(FilterName::parse("upcase"), FilterName::Known("upcase"));
        assert_eq!(
            FilterName::parse("nosuch"),
            FilterName::Unknown("nosuch".into())
        );
    }

    #[test]
    fn string_filters_follow_javascript() {
        let s = |v: Val<'_>| stringify(&v);
        let apply1 = |name: &str, input: &str, args: &[Val<'static>]| {
            apply(name, Val::string(input.into()), args, &[]).map(|v| stringify(&v))
        };
        assert_eq!(
            apply1("truncate", "abcdefghij", &[Val::Num(5.0)]).ok(),
            Some("ab...".into())
        );
        assert_eq!(
            apply1("capitalize", "hELLO", &[]).ok(),
            Some("Hello".into())
        );
        assert_eq!(
            apply1("escape", "<a href='x'>&\"", &[]).ok(),
            Some("&lt;a href=&#39;x&#39;&gt;&amp;&#34;".into())
        );
        let split = apply("split", Val::S("a,b,,"), &[Val::S(",")], &[]).ok();
        assert_eq!(split.as_ref().and_then(Val::items_len), Some(2));
        assert_eq!(
            s(apply("plus", Val::S("2"), &[Val::Num(1.5)], &[]).unwrap_or(Val::Undef)),
            "3.5"
        );
        assert_eq!(
            s(apply("plus", Val::S("gold"), &[Val::Num(1.0)], &[]).unwrap_or(Val::Undef)),
            "1"
        );
        assert!(apply("append", Val::S("a"), &[], &[]).is_err());
        let sliced = apply(
            "slice",
            Val::S("hello"),
            &[Val::Num(-3.0), Val::Num(2.0)],
            &[],
        );
        assert_eq!(sliced.map(|v| stringify(&v)).ok(), Some("ll".into()));
        assert_eq!(
            apply1("url_encode", "a b&c/é", &[]).ok(),
            Some("a+b%26c%2F%C3%A9".into())
        );
    }
}
