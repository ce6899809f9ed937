//! Array filters: reading items, building new arrays, sorting and summing.

use super::common::{
    FResult, arg, capped_join, code_point_slice, code_point_steps, family, js_split, to_array,
    utf16_len, utf16_slice,
};
use super::names::Filter;
use crate::template::value::{
    Val, join_part, js_plus, js_slice_index, js_string, stringify, to_number,
};
use serde_json::Value;
use std::borrow::Cow;
use std::rc::Rc;

family! {
    /// Reading items: size, ends, slices, joins.
    fn items<'a>(f, input, args) {
        Filter::ArrayToSentenceString => to_sentence(&input, args),
        Filter::Sample => sample(&input, args),
        // LiquidJS's `(v && v.length) || 0`: a string's UTF-16 length, an array's, a loop
        // drop's `length` field, and an object's own `length` property when it is truthy,
        // whatever its type
        Filter::Size => match &input {
            Val::Str(_) | Val::S(_) => Val::Num(utf16_len(input.as_str().unwrap_or("")) as f64),
            Val::Loop(l) => Val::Num(f64::from(l.length)),
            Val::Json(Value::Object(object)) => match object.get("length") {
                Some(length) if Val::from_json(length).truthy_js() => Val::from_json(length),
                _ => Val::Num(0.0),
            },
            _ => match input.items_len() {
                Some(n) => Val::Num(n as f64),
                None => Val::Num(0.0),
            },
        },
        // LiquidJS reads a drop's `valueOf()`: a loop drop's is its JSON text
        Filter::First => match loop_as_text(input) {
            text @ (Val::Str(_) | Val::S(_)) => {
                let s = text.as_str().unwrap_or("");
                // `''` is not array-like to LiquidJS (it is falsy), so it answers `''`, a
                // defined value, where an empty array answers undefined
                if s.is_empty() {
                    Val::string(String::new())
                } else {
                    Val::string(utf16_slice(s, 0, 1))
                }
            }
            other => match other.items() {
                Some(items) => items.into_iter().next().unwrap_or(Val::Undef),
                None => array_like_item(&other, |_| 0.0),
            },
        },
        Filter::Last => match loop_as_text(input) {
            text @ (Val::Str(_) | Val::S(_)) => {
                let s = text.as_str().unwrap_or("");
                let n = utf16_len(s);
                if n == 0 {
                    Val::string(String::new())
                } else {
                    Val::string(utf16_slice(s, n - 1, n))
                }
            }
            other => match other.items() {
                Some(items) => items.into_iter().last().unwrap_or(Val::Undef),
                None => array_like_item(&other, |length| length - 1.0),
            },
        },
        Filter::Join => {
            let items = to_array(&input);
            let sep = match arg(args, 0) {
                None | Some(Val::Undef) | Some(Val::Nil | Val::NilDrop) => Cow::Borrowed(" "),
                Some(v) => stringify(v),
            };
            Val::string(capped_join(
                &items.iter().map(join_part).collect::<Vec<_>>(),
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
        None | Some(Val::Undef) => Cow::Borrowed("and"),
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
                .map(join_part)
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
        let n = js_slice_index(count, items.len());
        Val::Arr(Rc::new(items.into_iter().take(n).collect()))
    }
}

/// `slice: begin, length`: items of an array, or UTF-16 units of text; a negative `begin`
/// counts from the end.
fn slice<'a>(input: &Val<'a>, args: &[Val<'a>]) -> Val<'a> {
    // LiquidJS 10.30.1 works on the arguments as JavaScript values, not numbers: a missing
    // begin is `undefined`, so `begin + length` is NaN and an array slice is empty, and a
    // text begin is concatenated with the length (`'1' + 1` is `'11'`).
    let begin = arg(args, 0).cloned().unwrap_or(Val::Undef);
    let length = match arg(args, 1) {
        None | Some(Val::Undef) => Val::Num(1.0),
        Some(v) => v.clone(),
    };
    let items = match input {
        Val::Nil | Val::NilDrop | Val::Undef => return Val::Arr(Rc::new(Vec::new())),
        _ if input.is_array() => Ok(to_array(input)),
        _ => Err(stringify(input)),
    };
    let count = match &items {
        Ok(items) => items.len(),
        Err(text) => text.chars().count(),
    };
    // A negative begin counts from the end (in code points for a string).
    let begin = if to_number(&begin) < 0.0 {
        js_plus(&Val::Num(count as f64), &begin)
    } else {
        begin
    };
    // JavaScript's `begin < 0 || length < 0`: NaN is not negative, so it goes on.
    if to_number(&begin) < 0.0 || to_number(&length) < 0.0 {
        return match items {
            Ok(_) => Val::Arr(Rc::new(Vec::new())),
            Err(_) => Val::string(String::new()),
        };
    }
    match items {
        Ok(items) => {
            let end = js_plus(&begin, &length);
            let (from, to) = (
                js_slice_index(to_number(&begin), count),
                js_slice_index(to_number(&end), count),
            );
            Val::Arr(Rc::new(
                items.get(from..to).map(<[_]>::to_vec).unwrap_or_default(),
            ))
        }
        Err(text) => Val::string(code_point_slice(
            &text,
            code_point_steps(to_number(&begin)),
            code_point_steps(to_number(&length)),
        )),
    }
}

family! {
    /// Building new arrays: order, membership, ends.
    fn edit<'a>(f, input, args) {
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

/// A `forloop`/`tablerowloop` drop as the JSON text its `valueOf()` gives; anything else as is.
fn loop_as_text(input: Val<'_>) -> Val<'_> {
    match input {
        Val::Loop(_) => Val::string(stringify(&input)),
        other => other,
    }
}

/// `first` and `last` of a value that is not an array: LiquidJS reads the item at
/// `index(length)` of anything array-like (an object whose `length` is a number), and
/// answers `''` for the rest.
fn array_like_item<'a>(input: &Val<'a>, index: impl Fn(f64) -> f64) -> Val<'a> {
    match input {
        Val::Json(serde_json::Value::Object(m)) => match m.get("length") {
            Some(serde_json::Value::Number(n)) => {
                let at = index(n.as_f64().unwrap_or(f64::NAN));
                input.read_property(&Val::Num(at))
            }
            _ => Val::string(String::new()),
        },
        _ => Val::string(String::new()),
    }
}

family! {
    /// Sorting, mapping and summing, by an optional property.
    fn by_property<'a>(f, input, args) {
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
            // LiquidJS's `orderedCompare`: null and undefined keys last, the others by `<`
            js_sort(&mut keyed, |a, b| {
                let nil = |v: &Val<'_>| matches!(v, Val::Nil | Val::Undef);
                if nil(&a.1) || nil(&b.1) {
                    nil(&a.1).cmp(&nil(&b.1))
                } else if crate::template::value::js_less(&a.1, &b.1) {
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
            // LiquidJS's `caseInsensitiveCompare`: null and undefined last, anything else as
            // `String(x).toLowerCase()` (a number's digits, an array's items with commas)
            let mut keyed: Vec<(Val<'a>, Option<String>)> = items
                .into_iter()
                .map(|it| {
                    let k = match &prop {
                        Some(p) => it.get_path_lenient(p),
                        None => it.clone(),
                    };
                    let key = (!matches!(k, Val::Nil | Val::Undef))
                        .then(|| js_string(&k).to_lowercase());
                    (it, key)
                })
                .collect();
            keyed.sort_by(|a, b| match (&a.1, &b.1) {
                (Some(x), Some(y)) => x.encode_utf16().cmp(y.encode_utf16()),
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(_), None) => std::cmp::Ordering::Less,
            });
            Val::Arr(Rc::new(keyed.into_iter().map(|x| x.0).collect()))
        }
    }
}

/// `Array.prototype.sort` with a comparator as V8 runs it, for a comparator that need not be
/// a total order: JavaScript's `<` on mixed strings and numbers is not one (`2 < "a"` and
/// `"a" < 2` are both false while `1 < 2`), and the standard library's sorts may panic on
/// such an order. Below 64 items V8's TimSort is one run: the longest ascending (or strictly
/// descending, then reversed) prefix, extended by binary insertion, which this repeats step
/// for step, so LiquidJS's order is kept even for an inconsistent comparison. Longer lists
/// are merge-sorted (stable, the same order as V8's for any consistent comparison).
fn js_sort<T>(items: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    use std::cmp::Ordering::Less;
    let n = items.len();
    if n < 2 {
        return;
    }
    if n >= 64 {
        let taken = std::mem::take(items);
        *items = merge_sort(taken, &mut cmp);
        return;
    }
    // The first run.
    let mut run = 2;
    let descending = cmp(&items[1], &items[0]) == Less;
    while run < n {
        let order = cmp(&items[run], &items[run - 1]);
        if (descending && order != Less) || (!descending && order == Less) {
            break;
        }
        run += 1;
    }
    if descending {
        items[..run].reverse();
    }
    // Binary insertion of the rest.
    for start in run..n {
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + (right - left) / 2;
            if cmp(&items[start], &items[mid]) == Less {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        items[left..=start].rotate_right(1);
    }
}

/// A stable top-down merge sort that takes any comparison without panicking.
fn merge_sort<T>(mut items: Vec<T>, cmp: &mut impl FnMut(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    if items.len() < 2 {
        return items;
    }
    let right = items.split_off(items.len() / 2);
    let left = merge_sort(items, cmp);
    let right = merge_sort(right, cmp);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    while let (Some(l), Some(r)) = (left.peek(), right.peek()) {
        // Equal items keep their order: the left one first.
        let next = if cmp(r, l) == std::cmp::Ordering::Less {
            right.next()
        } else {
            left.next()
        };
        out.extend(next);
    }
    out.extend(left);
    out.extend(right);
    out
}

#[cfg(test)]
mod tests {
    use super::js_sort;
    use crate::template::CompiledTemplate;
    use serde_json::json;

    fn sorted(list: serde_json::Value) -> String {
        CompiledTemplate::parse("{{ list | sort | json }}")
            .unwrap()
            .render(&json!({ "list": list }))
            .unwrap()
    }

    #[test]
    fn sort_takes_javascripts_inconsistent_order_as_v8_does() {
        // LiquidJS 10.30.1 on Node 20 answers these (`2 < "a"` and `"a" < 2` are both false).
        assert_eq!(
            sorted(json!([
                2, 2, "a", "a", 1, "a", "a", 1, 2, 1, "a", 1, "a", "a", "a", "a", "a", 1, 2, "a",
                "a"
            ])),
            r#"[2,2,"a","a",1,"a","a",1,1,2,"a",1,"a","a","a","a","a",1,2,"a","a"]"#
        );
        assert_eq!(
            sorted(json!([3, "b", 1, "a", 2, "10", 9, "x"])),
            r#"[3,"b",1,"a",2,9,"10","x"]"#
        );
        // A long list does not panic either, and a consistent order is sorted stably.
        let long: Vec<serde_json::Value> = (0..70)
            .map(|i| {
                if i % 3 == 0 {
                    json!("a")
                } else {
                    json!((i * 7) % 5)
                }
            })
            .collect();
        assert!(sorted(json!(long)).starts_with('['));
        let mut pairs: Vec<(u8, usize)> = (0..200).map(|i| ((i * 37 % 11) as u8, i)).collect();
        js_sort(&mut pairs, |a, b| a.0.cmp(&b.0));
        assert!(
            pairs
                .windows(2)
                .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
        );
    }
}
