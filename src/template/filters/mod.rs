//! LiquidJS's standard filters: each name resolved to a [`Filter`] at parse time (so an
//! unknown one is a parse error, as under `strictFilters`, and rendering does no name
//! lookup), and their implementations, one file per family.

mod array;
mod common;
mod date;
mod edit;
mod html;
mod math;
mod misc;
pub(crate) mod names;
mod query;
mod string;

pub(crate) use common::{FilterError, to_array};
pub(crate) use names::Filter;
pub(crate) use query::Groups;

use common::{FResult, unsupported};

use crate::template::value::Val;

/// Applies filter `f` to `input` with evaluated `args`, in the template's order: a keyword
/// argument `key: value` is the array `[key, value]` at its place, as LiquidJS passes it (only
/// `default` reads such pairs; to the others it is one more array argument).
pub(crate) fn apply<'a>(f: Filter, input: Val<'a>, args: &[Val<'a>]) -> FResult<'a> {
    match f {
        Filter::Abs
        | Filter::AtLeast
        | Filter::AtMost
        | Filter::Ceil
        | Filter::DividedBy
        | Filter::Floor
        | Filter::Minus
        | Filter::Modulo
        | Filter::Plus
        | Filter::Round
        | Filter::Times
        | Filter::ToInteger => math::apply(f, input, args),
        Filter::Append
        | Filter::Capitalize
        | Filter::Downcase
        | Filter::Lstrip
        | Filter::Prepend
        | Filter::Rstrip
        | Filter::Strip
        | Filter::Upcase => string::case_and_trim(f, input, args),
        Filter::ArrayToSentenceString
        | Filter::First
        | Filter::Join
        | Filter::Last
        | Filter::Sample
        | Filter::Size
        | Filter::Slice => array::items(f, input, args),
        Filter::Base64Decode
        | Filter::Base64Encode
        | Filter::CgiEscape
        | Filter::Escape
        | Filter::EscapeOnce
        | Filter::HmacSha256
        | Filter::NewlineToBr
        | Filter::Sha256
        | Filter::StripHtml
        | Filter::UriEscape
        | Filter::UrlDecode
        | Filter::UrlEncode
        | Filter::XmlEscape => html::apply(f, input, args),
        Filter::Compact
        | Filter::Concat
        | Filter::Pop
        | Filter::Push
        | Filter::Reverse
        | Filter::Shift
        | Filter::Uniq
        | Filter::Unshift => array::edit(f, input, args),
        Filter::Date
        | Filter::DateToLongString
        | Filter::DateToRfc822
        | Filter::DateToString
        | Filter::DateToXmlschema
        | Filter::Default
        | Filter::Inspect
        | Filter::Json
        | Filter::Jsonify
        | Filter::Raw => misc::apply(f, input, args),
        Filter::Find
        | Filter::FindIndex
        | Filter::GroupBy
        | Filter::Has
        | Filter::Reject
        | Filter::Where => query::apply(f, input, args),
        Filter::FindExp
        | Filter::FindIndexExp
        | Filter::GroupByExp
        | Filter::HasExp
        | Filter::RejectExp
        | Filter::WhereExp => Err(unsupported(f)),
        Filter::Map | Filter::Sort | Filter::SortNatural | Filter::Sum => {
            array::by_property(f, input, args)
        }
        Filter::NormalizeWhitespace
        | Filter::NumberOfWords
        | Filter::Squish
        | Filter::StripNewlines
        | Filter::Truncate
        | Filter::Truncatewords => string::words(f, input, args),
        Filter::Remove
        | Filter::RemoveFirst
        | Filter::RemoveLast
        | Filter::Replace
        | Filter::ReplaceFirst
        | Filter::ReplaceLast
        | Filter::Slugify
        | Filter::Split => edit::apply(f, input, args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::value::stringify;

    #[test]
    fn names_resolve_both_ways() {
        assert_eq!(Filter::from_name("upcase"), Some(Filter::Upcase));
        assert_eq!(Filter::from_name("nosuch"), None);
        assert_eq!(Filter::WhereExp.name(), "where_exp");
    }

    #[test]
    fn string_filters_follow_javascript() {
        let s = |v: Val<'_>| stringify(&v).into_owned();
        let f = |name: &str| Filter::from_name(name).unwrap_or(Filter::Raw);
        let apply1 = |name: &str, input: &str, args: &[Val<'static>]| {
            apply(f(name), Val::string(input), args).map(|v| stringify(&v).into_owned())
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
        let split = apply(f("split"), Val::S("a,b,,"), &[Val::S(",")]).ok();
        assert_eq!(split.as_ref().and_then(Val::items_len), Some(2));
        assert_eq!(
            s(apply(f("plus"), Val::S("2"), &[Val::Num(1.5)]).unwrap_or(Val::Undef)),
            "3.5"
        );
        assert_eq!(
            s(apply(f("plus"), Val::S("gold"), &[Val::Num(1.0)]).unwrap_or(Val::Undef)),
            "1"
        );
        assert!(apply(f("append"), Val::S("a"), &[]).is_err());
        let sliced = apply(
            Filter::Slice,
            Val::S("hello"),
            &[Val::Num(-3.0), Val::Num(2.0)],
        );
        assert_eq!(
            sliced.map(|v| stringify(&v).into_owned()).ok(),
            Some("ll".into())
        );
        assert_eq!(
            apply1("url_encode", "a b&c/é", &[]).ok(),
            Some("a+b%26c%2F%C3%A9".into())
        );
    }
}
