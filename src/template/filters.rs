//! LiquidJS's standard filters: the names (so unknown ones are parse errors, as under
//! `strictFilters`) and the implementations the runtime's templates use.

use super::ast::Prop;
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
    "hmac_sha256",
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
    "sha256",
    "shift",
    "size",
    "slice",
    "slugify",
    "sort",
    "sort_natural",
    "split",
    "squish",
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
pub(crate) fn to_array<'a>(v: &Val<'a>) -> Vec<Val<'a>> {
    match v.items() {
        Some(items) => items,
        None if matches!(v, Val::Nil | Val::NilDrop | Val::Undef) => Vec::new(),
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
        "strip" | "lstrip" | "rstrip" => {
            let s = stringify(&input);
            // with a characters argument, those characters (UTF-16 units) are stripped
            let chars = arg(args, 0).filter(|v| v.truthy_js()).map(stringify);
            let (left, right) = (name != "rstrip", name != "lstrip");
            Val::string(match chars {
                Some(set) => strip_units(&s, &set, left, right),
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
        "strip_newlines" => Val::string(stringify(&input).replace("\r\n", "").replace('\n', "")),
        "normalize_whitespace" => Val::string(collapse_whitespace(&stringify(&input))),
        "squish" => Val::string(collapse_whitespace(js_trim(&stringify(&input)))),
        "number_of_words" => {
            let s = stringify(&input);
            let mode = arg(args, 0).map(stringify);
            Val::Num(number_of_words(js_trim(&s), mode.as_deref()) as f64)
        }
        "truncatewords" => {
            let s = stringify(&input);
            let words = match arg(args, 0) {
                None | Some(Val::Undef) => 15.0,
                Some(v) => to_number(v),
            };
            let o = match arg(args, 1) {
                None | Some(Val::Undef) => "...".to_string(),
                Some(v) => stringify(v),
            };
            // `str.split(/\s+/)`: a leading blank gives an empty first word
            let parts: Vec<&str> = split_js_whitespace(&s);
            let w = if words.is_nan() || words <= 0.0 {
                1.0
            } else {
                words
            };
            let take = if w >= parts.len() as f64 {
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
        "remove_last" => {
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
        "strip_html" => Val::string(strip_html(&stringify(&input))),
        "base64_encode" => {
            use base64::Engine as _;
            Val::string(base64::engine::general_purpose::STANDARD.encode(stringify(&input)))
        }
        "base64_decode" => {
            // strict (as Shopify's `strict_decode64`): LiquidJS 10.30 refuses "<foo>"
            use base64::Engine as _;
            match base64::engine::general_purpose::STANDARD.decode(stringify(&input)) {
                Ok(bytes) => Val::string(String::from_utf8_lossy(&bytes).into_owned()),
                Err(_) => {
                    return Err(FilterError::Message(
                        "invalid base64 provided to base64_decode".into(),
                    ));
                }
            }
        }
        "sha256" => {
            use sha2::Digest as _;
            Val::string(hex(&sha2::Sha256::digest(stringify(&input).as_bytes())))
        }
        "hmac_sha256" => {
            use hmac::Mac as _;
            let key = arg(args, 0).map(stringify).unwrap_or_default();
            let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()) else {
                return Err(FilterError::Message("hmac_sha256: invalid key".into()));
            };
            mac.update(stringify(&input).as_bytes());
            Val::string(hex(&mac.finalize().into_bytes()))
        }
        "url_decode" => match decode_uri_component(&stringify(&input)) {
            Some(d) => Val::string(d.replace('+', " ")),
            None => return Err(FilterError::Message("URI malformed".into())),
        },
        "cgi_escape" => Val::string(encode_uri(&stringify(&input), COMPONENT_SAFE, true)),
        "uri_escape" => Val::string(encode_uri(&stringify(&input), URI_SAFE, false)),
        "slugify" => {
            let mode = match arg(args, 0) {
                None | Some(Val::Undef) => "default".to_string(),
                Some(v) => js_string(v),
            };
            let cased = arg(args, 1).is_some_and(Val::truthy_js);
            Val::string(slugify(&stringify(&input), &mode, cased))
        }
        "array_to_sentence_string" => {
            let items = to_array(&input);
            let conn = match arg(args, 0) {
                None | Some(Val::Undef) => "and".to_string(),
                Some(v) => stringify(v),
            };
            let tpl = |v: &Val<'a>| js_string(v);
            match items.len() {
                0 => Val::string(String::new()),
                1 => items.into_iter().next().unwrap_or(Val::Undef),
                2 => Val::string(format!("{} {conn} {}", tpl(&items[0]), tpl(&items[1]))),
                n => Val::string(format!(
                    "{}, {conn} {}",
                    items[..n - 1]
                        .iter()
                        .map(join_item)
                        .collect::<Vec<_>>()
                        .join(", "),
                    tpl(&items[n - 1])
                )),
            }
        }
        "inspect" => {
            let space = match arg(args, 0) {
                Some(v) => to_number(v),
                None => 0.0,
            };
            match json_stringify(&input, space) {
                Some(s) => Val::string(s),
                None => Val::Undef,
            }
        }
        "sample" => {
            // random in LiquidJS; runstart keeps the order (same verdict, same size)
            let items = match &input {
                Val::Nil | Val::NilDrop | Val::Undef => return Ok(Val::Arr(Rc::new(Vec::new()))),
                _ if input.is_array() => to_array(&input),
                _ => js_split(&stringify(&input), "")
                    .into_iter()
                    .map(Val::string)
                    .collect(),
            };
            let count = match arg(args, 0) {
                None | Some(Val::Undef) => 1.0,
                Some(v) => to_number(v),
            };
            if count == 1.0 {
                items.into_iter().next().unwrap_or(Val::Undef)
            } else {
                let n = super::value::js_slice_index(count, items.len());
                Val::Arr(Rc::new(items.into_iter().take(n).collect()))
            }
        }
        "escape" | "xml_escape" => Val::string(escape_html(&stringify(&input))),
        "escape_once" => Val::string(escape_html(&unescape_html(&stringify(&input)))),
        "newline_to_br" => Val::string(
            stringify(&input)
                .replace("\r\n", "\n")
                .replace('\n', "<br />\n"),
        ),
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
                None | Some(Val::Undef) | Some(Val::Nil | Val::NilDrop) => " ".to_string(),
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
                .filter(|v| !matches!(v, Val::Nil | Val::NilDrop | Val::Undef))
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
        "group_by" => {
            let items = super::render::to_enumerable(&input);
            let p = arg(args, 0).map(stringify).unwrap_or_default();
            let path = scope_path(&p)?;
            let mut groups = Groups::default();
            for it in items {
                let key = scope_read(&it, &path)?;
                groups.add(key, it);
            }
            groups.into_value()
        }
        "where" | "reject" | "find" | "find_index" | "has" => {
            let items = to_array(&input);
            let p = arg(args, 0).map(stringify).unwrap_or_default();
            let path = scope_path(&p)?;
            let expected = arg(args, 1).cloned();
            let matches = |v: &Val<'a>| match &expected {
                None | Some(Val::Undef) => v.truthy(),
                Some(e) => js_equals(v, e),
            };
            let keep = name == "where";
            if keep || name == "reject" {
                // every item is read first, then filtered (an undefined read fails the call)
                let mut values = Vec::with_capacity(items.len());
                for it in &items {
                    values.push(scope_read(it, &path)?);
                }
                let out = items
                    .into_iter()
                    .zip(values.iter())
                    .filter(|(_, v)| matches(v) == keep)
                    .map(|(it, _)| it)
                    .collect();
                Val::Arr(Rc::new(out))
            } else {
                let mut hit = None;
                for (i, it) in items.into_iter().enumerate() {
                    if matches(&scope_read(&it, &path)?) {
                        hit = Some((i, it));
                        break;
                    }
                }
                match (name, hit) {
                    ("has", h) => Val::Bool(h.is_some()),
                    ("find", Some((_, it))) => it,
                    ("find_index", Some((i, _))) => Val::Num(i as f64),
                    _ => Val::Undef,
                }
            }
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
        "modulo" => {
            // LiquidJS's `((v % arg) + arg) % arg`: the sign follows the divisor
            let (v, m) = (to_number_or_zero(&input), num_arg(args, 0));
            Val::Num(((v % m) + m) % m)
        }
        "ceil" => Val::Num(to_number_or_zero(&input).ceil()),
        "floor" => Val::Num(to_number_or_zero(&input).floor()),
        "at_least" => Val::Num(to_number_or_zero(&input).max(num_arg(args, 0))),
        "at_most" => Val::Num(to_number_or_zero(&input).min(num_arg(args, 0))),
        "round" => {
            let v = to_number_or_zero(&input);
            let d = num_arg(args, 0);
            let amp = 10f64.powf(d);
            // LiquidJS scales by (1 + EPSILON) so that 1.005 rounds up
            Val::Num(js_round((v * amp) * (1.0 + f64::EPSILON)) / amp)
        }
        "to_integer" => Val::Num(to_number(&input)),
        "date" => super::date::date_filter(input, args).map_err(FilterError::Message)?,
        "date_to_xmlschema" | "date_to_rfc822" | "date_to_string" | "date_to_long_string" => {
            super::date::date_to(name, input, args)
        }
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
                Val::Nil | Val::NilDrop | Val::Undef => Val::Arr(Rc::new(Vec::new())),
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

/// The groups `group_by` builds, in order of first appearance. Keys compare as a JS
/// `Map`'s (SameValueZero); primitive keys are indexed, so grouping stays linear.
#[derive(Default)]
pub(crate) struct Groups<'a> {
    groups: Vec<(Val<'a>, Vec<Val<'a>>)>,
    index: std::collections::HashMap<String, usize>,
}

impl<'a> Groups<'a> {
    /// Adds `item` to the group of `key`.
    pub(crate) fn add(&mut self, key: Val<'a>, item: Val<'a>) {
        let hashed = match &key {
            Val::Undef => Some("u".to_string()),
            Val::Nil | Val::NilDrop => Some("l".to_string()),
            Val::Bool(b) => Some(format!("b{b}")),
            Val::Num(n) if n.is_nan() => Some("nNaN".to_string()),
            Val::Num(n) => Some(format!("n{}", if *n == 0.0 { 0.0 } else { *n })),
            Val::S(_) | Val::Str(_) => Some(format!("s{}", key.as_str().unwrap_or(""))),
            // objects and arrays are keys by identity
            Val::Json(v) => Some(format!("j{:p}", *v)),
            Val::Arr(a) => Some(format!("a{:p}", Rc::as_ptr(a))),
            Val::Group(g) => Some(format!("g{:p}", Rc::as_ptr(g))),
            _ => None,
        };
        let found = match &hashed {
            Some(h) => self.index.get(h).copied(),
            None => self
                .groups
                .iter()
                .position(|(k, _)| k.same_value_zero(&key)),
        };
        match found.and_then(|i| self.groups.get_mut(i)) {
            Some((_, items)) => items.push(item),
            None => {
                if let Some(h) = hashed {
                    self.index.insert(h, self.groups.len());
                }
                self.groups.push((key, vec![item]));
            }
        }
    }

    /// `[{name, items}, …]`.
    pub(crate) fn into_value(self) -> Val<'a> {
        Val::Arr(Rc::new(
            self.groups
                .into_iter()
                .map(|g| Val::Group(Rc::new(g)))
                .collect(),
        ))
    }
}

/// A filter's property argument read as LiquidJS's `readScopeValue` does (`a.b`,
/// `a["b"]`, `a[0]`): its keys, or none for an empty property.
fn scope_path(p: &str) -> Result<Vec<String>, FilterError> {
    let mut c = super::lexer::Cursor::new(p, 0, p.len());
    c.skip_blank();
    let props = c
        .read_properties(true)
        .map_err(|e| FilterError::Message(e.message().to_string()))?;
    let mut keys = Vec::new();
    for prop in props.as_slice() {
        keys.push(match prop {
            Prop::Ident(b, e) => p.get(*b..*e).unwrap_or("").to_string(),
            Prop::Quoted(s) => s.get(p).to_string(),
            Prop::Num(n) => super::value::js_num(*n),
            // a nested variable or literal key is not read against the item
            Prop::Path(_) | Prop::Other(_) => {
                return Err(FilterError::Message(format!(
                    "runstart cannot read the property {} of each item; use a plain path",
                    serde_json::to_string(p).unwrap_or_default()
                )));
            }
        });
    }
    Ok(keys)
}

/// Evaluates a property path with `item` as the whole scope (`ctx.spawn(item)`): the first
/// key must be in the item (`key in Object(item)`), and strict variables apply.
fn scope_read<'a>(item: &Val<'a>, path: &[String]) -> Result<Val<'a>, FilterError> {
    let Some(first) = path.first() else {
        return Ok(Val::Undef);
    };
    let has_first = match item {
        Val::Json(serde_json::Value::Object(m)) => m.contains_key(first),
        Val::S(_) | Val::Str(_) | Val::Json(serde_json::Value::Array(_)) | Val::Arr(_) => {
            first == "length"
                || !matches!(item.read_property(&Val::S(first)), Val::Undef)
                    && first.bytes().all(|b| b.is_ascii_digit())
        }
        _ => false,
    };
    if !has_first {
        return Err(FilterError::Undefined(first.clone()));
    }
    let mut cur = item.clone();
    for (i, k) in path.iter().enumerate() {
        cur = cur.read_property(&Val::S(k));
        if matches!(cur, Val::Undef) {
            return Err(FilterError::Undefined(path[..=i].join(".")));
        }
    }
    Ok(cur)
}

/// Strips the UTF-16 units of `set` from the left and/or right of `s`.
fn strip_units(s: &str, set: &str, left: bool, right: bool) -> String {
    let set: Vec<u16> = set.encode_utf16().collect();
    let units: Vec<u16> = s.encode_utf16().collect();
    let (mut i, mut j) = (0, units.len());
    if left {
        while i < j && set.contains(&units[i]) {
            i += 1;
        }
    }
    if right {
        while j > i && set.contains(&units[j - 1]) {
            j -= 1;
        }
    }
    String::from_utf16_lossy(&units[i..j])
}

/// JavaScript's `\s`: `String.prototype.trim`'s white space and line terminators.
fn is_js_regex_space(c: char) -> bool {
    is_js_space(c)
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

/// `decodeURIComponent`; `None` where JavaScript throws `URIError`.
fn decode_uri_component(s: &str) -> Option<String> {
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

/// `Array.prototype.join` renders nil as empty and nested arrays with commas.
fn join_item(v: &Val<'_>) -> String {
    match v {
        Val::Nil | Val::NilDrop | Val::Undef => String::new(),
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
