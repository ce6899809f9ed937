//! Filters that select or group items by a property (`where`, `group_by`, …).

use super::common::{FResult, FilterError, arg, family, to_array};
use super::names::Filter;
use crate::template::ast::Prop;
use crate::template::value::{Val, js_equals, stringify};
use std::rc::Rc;

family! {
    /// Selecting and grouping items by a property.
    fn apply<'a>(f, input, args) {
        Filter::GroupBy => {
            let items = crate::template::value::to_enumerable(&input);
            let p = arg(args, 0).map(stringify).unwrap_or_default();
            let path = scope_path(&p)?;
            let mut groups = Groups::default();
            for it in items {
                let key = scope_read(&it, &path)?;
                groups.add(key, it);
            }
            groups.into_value()
        }
        Filter::Where | Filter::Reject | Filter::Find | Filter::FindIndex | Filter::Has => {
            let items = to_array(&input);
            let p = arg(args, 0).map(stringify).unwrap_or_default();
            let path = scope_path(&p)?;
            let expected = arg(args, 1).cloned();
            let matches = |v: &Val<'a>| match &expected {
                None | Some(Val::Undef) => v.truthy(),
                Some(e) => js_equals(v, e),
            };
            let keep = f == Filter::Where;
            if keep || f == Filter::Reject {
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
                match (f, hit) {
                    (Filter::Has, h) => Val::Bool(h.is_some()),
                    (Filter::Find, Some((_, it))) => it,
                    (Filter::FindIndex, Some((i, _))) => Val::Num(i as f64),
                    _ => Val::Undef,
                }
            }
        }
    }
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
    let mut c = crate::template::lexer::Cursor::new(p, 0, p.len());
    c.skip_blank();
    let props = c
        .read_properties(true)
        .map_err(|e| FilterError::Message(e.message().to_string()))?;
    let mut keys = Vec::new();
    for prop in props.as_slice() {
        keys.push(match prop {
            Prop::Ident(b, e) => p.get(*b..*e).unwrap_or("").to_string(),
            Prop::Quoted(s) => s.get(p).to_string(),
            Prop::Num(n) => crate::template::value::js_num(*n),
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
    // A first key the item lacks is read from the engine's globals, an empty object, where
    // only `size` answers (0): `where: 'size'` keeps every item, `has: 'size'` is true.
    let (mut cur, rest) = if has_first {
        (item.clone(), 0)
    } else if first == "size" {
        (Val::Num(0.0), 1)
    } else {
        return Err(FilterError::Undefined(first.clone()));
    };
    for (i, k) in path.iter().enumerate().skip(rest) {
        cur = cur.read_property(&Val::S(k));
        if matches!(cur, Val::Undef) {
            return Err(FilterError::Undefined(path[..=i].join(".")));
        }
    }
    Ok(cur)
}
