//! Array filters: reading items, building new arrays, sorting and summing.

use super::common::{
    FResult, arg, capped_join, family, js_split, num_arg, to_array, to_number_or_zero, utf16_len,
    utf16_slice,
};
use super::names::Filter;
use crate::template::value::{Val, js_string, stringify, to_number};
use std::rc::Rc;

family! {
    /// Reading items: size, ends, slices, joins.
    fn items<'a>(f, input, args, _) {
        Filter::ArrayToSentenceString => to_sentence(&input, args),
        Filter::Sample => sample(&input, args),
        Filter::Size => match &input {
            Val::Str(_) | Val::S(_) => Val::Num(utf16_len(input.as_str().unwrap_or("")) as f64),
            _ => match input.items_len() {
                Some(n) => Val::Num(n as f64),
                None => Val::Num(0.0),
            },
        },
        Filter::First => match &input {
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
        Filter::Last => match &input {
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
        Filter::Join => {
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
        Filter::Slice => slice(&input, args),
    }
}

/// `array_to_sentence_string: connector`: `a, b, and c` (`and` by default).
fn to_sentence<'a>(input: &Val<'a>, args: &[Val<'a>]) -> Val<'a> {
    let items = to_array(input);
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

/// `sample: count`: the first `count` items (or characters), the first alone when `count` is 1.
fn sample<'a>(input: &Val<'a>, args: &[Val<'a>]) -> Val<'a> {
    // random in LiquidJS; runstart keeps the order (same verdict, same size)
    let items = match input {
        Val::Nil | Val::NilDrop | Val::Undef => return Val::Arr(Rc::new(Vec::new())),
        _ if input.is_array() => to_array(input),
        _ => js_split(&stringify(input), "")
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
        let n = crate::template::value::js_slice_index(count, items.len());
        Val::Arr(Rc::new(items.into_iter().take(n).collect()))
    }
}

/// `slice: begin, length`: items of an array, or UTF-16 units of text; a negative `begin`
/// counts from the end.
fn slice<'a>(input: &Val<'a>, args: &[Val<'a>]) -> Val<'a> {
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
    match input {
        Val::Nil | Val::NilDrop | Val::Undef => Val::Arr(Rc::new(Vec::new())),
        _ if input.is_array() => {
            let items = to_array(input);
            let (from, to) = slice_bounds(items.len());
            Val::Arr(Rc::new(
                items.get(from..to).map(<[_]>::to_vec).unwrap_or_default(),
            ))
        }
        _ => {
            let s = stringify(input);
            let (from, to) = slice_bounds(utf16_len(&s));
            Val::string(utf16_slice(&s, from, to))
        }
    }
}

family! {
    /// Building new arrays: order, membership, ends.
    fn edit<'a>(f, input, args, _) {
        Filter::Reverse => {
            let mut items = to_array(&input);
            items.reverse();
            Val::Arr(Rc::new(items))
        }
        Filter::Uniq => {
            let items = to_array(&input);
            let mut out: Vec<Val<'a>> = Vec::new();
            for it in items {
                if !out.iter().any(|o| o.same_value_zero(&it)) {
                    out.push(it);
                }
            }
            Val::Arr(Rc::new(out))
        }
        Filter::Compact => Val::Arr(Rc::new(
            to_array(&input)
                .into_iter()
                .filter(|v| !matches!(v, Val::Nil | Val::NilDrop | Val::Undef))
                .collect(),
        )),
        Filter::Concat => {
            let mut items = to_array(&input);
            if let Some(a) = arg(args, 0) {
                items.extend(to_array(a));
            }
            Val::Arr(Rc::new(items))
        }
        Filter::Push => {
            let mut items = to_array(&input);
            items.push(arg(args, 0).cloned().unwrap_or(Val::Undef));
            Val::Arr(Rc::new(items))
        }
        Filter::Unshift => {
            let mut items = to_array(&input);
            items.insert(0, arg(args, 0).cloned().unwrap_or(Val::Undef));
            Val::Arr(Rc::new(items))
        }
        Filter::Pop => {
            let mut items = to_array(&input);
            items.pop();
            Val::Arr(Rc::new(items))
        }
        Filter::Shift => {
            let mut items = to_array(&input);
            if !items.is_empty() {
                items.remove(0);
            }
            Val::Arr(Rc::new(items))
        }
    }
}

family! {
    /// Sorting, mapping and summing, by an optional property.
    fn by_property<'a>(f, input, args, _) {
        Filter::Sort => {
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
                if crate::template::value::js_less(&a.1, &b.1) {
                    std::cmp::Ordering::Less
                } else if crate::template::value::js_less(&b.1, &a.1) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
            Val::Arr(Rc::new(keyed.into_iter().map(|x| x.0).collect()))
        }
        Filter::Map => {
            let items = to_array(&input);
            let p = arg(args, 0)
                .map(stringify)
                .unwrap_or_else(|| "undefined".into());
            Val::Arr(Rc::new(
                items.iter().map(|it| it.get_path_lenient(&p)).collect(),
            ))
        }
        Filter::Sum => {
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
        Filter::SortNatural => {
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
    }
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
