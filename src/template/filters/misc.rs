//! `default`, the JSON filters, `raw` and the date filters.

use super::common::{FResult, FilterError, arg, family};
use super::names::Filter;
use crate::template::value::{Val, json_stringify};

family! {
    /// Defaults, JSON and dates.
    fn apply<'a>(f, input, args, kwargs) {
        Filter::Default => {
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
