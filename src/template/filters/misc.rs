//! `default`, the JSON filters, `raw` and the date filters.

use super::common::{FResult, FilterError, arg, family};
use super::names::Filter;
use crate::template::value::{Val, json_stringify};

family! {
    /// Defaults, JSON and dates.
    fn apply<'a>(f, input, args) {
        Filter::Default => {
            let d = arg(args, 0).cloned().unwrap_or(Val::Undef);
            // LiquidJS's `new Map(rest).get('allow_false')`, read only for `false`: each other
            // argument an entry `[key, value]` (a keyword argument), the last key winning
            let allow_false = if matches!(input, Val::Bool(false)) {
                allow_false(args.get(1..).unwrap_or(&[]))?
            } else {
                false
            };
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
        Filter::Json | Filter::Jsonify | Filter::Inspect => {
            match json_stringify(&input, arg(args, 0).unwrap_or(&Val::Undef)) {
                Some(s) => Val::string(s),
                None => Val::Undef,
            }
        }
        Filter::Date => super::date::date_filter(input, args).map_err(FilterError::Message)?,
        Filter::DateToXmlschema
        | Filter::DateToRfc822
        | Filter::DateToString
        | Filter::DateToLongString => super::date::date_to(f.name(), input, args),
        Filter::Raw => input,
    }
}

/// What `new Map(entries).get('allow_false')` makes truthy, or JavaScript's `TypeError` for an
/// argument that is not an entry object.
fn allow_false(entries: &[Val<'_>]) -> Result<bool, FilterError> {
    let mut allowed = None;
    for entry in entries {
        // any object is an entry (its `0` and `1` read as properties, absent on a drop);
        // only a primitive is not
        let key = match entry {
            Val::Arr(_)
            | Val::Json(_)
            | Val::Group(_)
            | Val::Loop(_)
            | Val::NilDrop
            | Val::Empty
            | Val::Blank => entry.read_property(&Val::Num(0.0)),
            other => {
                return Err(FilterError::Message(format!(
                    "Iterator value {} is not an entry object",
                    crate::template::value::js_string(other)
                )));
            }
        };
        if key.as_str() == Some("allow_false") {
            allowed = Some(entry.read_property(&Val::Num(1.0)).truthy_js());
        }
    }
    Ok(allowed.unwrap_or(false))
}
