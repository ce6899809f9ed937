//! The filter names LiquidJS 10 registers, as an enum: the parser resolves each name once,
//! so an unknown filter is a parse error and rendering dispatches without string compares.

/// Declares [`Filter`] from `Variant = "name"` pairs.
macro_rules! filters {
    ($($variant:ident = $name:literal,)*) => {
        /// Every filter LiquidJS 10 registers; any other name is a parse error.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Filter {
            $($variant,)*
        }

        impl Filter {
            /// The filter named `name`, if LiquidJS registers one.
            pub(crate) fn from_name(name: &str) -> Option<Filter> {
                match name {
                    $($name => Some(Filter::$variant),)*
                    _ => None,
                }
            }

            /// The name templates use.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Filter::$variant => $name,)*
                }
            }
        }
    };
}

filters! {
    Abs = "abs",
    Append = "append",
    ArrayToSentenceString = "array_to_sentence_string",
    AtLeast = "at_least",
    AtMost = "at_most",
    Base64Decode = "base64_decode",
    Base64Encode = "base64_encode",
    Capitalize = "capitalize",
    Ceil = "ceil",
    CgiEscape = "cgi_escape",
    Compact = "compact",
    Concat = "concat",
    Date = "date",
    DateToLongString = "date_to_long_string",
    DateToRfc822 = "date_to_rfc822",
    DateToString = "date_to_string",
    DateToXmlschema = "date_to_xmlschema",
    Default = "default",
    DividedBy = "divided_by",
    Downcase = "downcase",
    Escape = "escape",
    EscapeOnce = "escape_once",
    Find = "find",
    FindExp = "find_exp",
    FindIndex = "find_index",
    FindIndexExp = "find_index_exp",
    First = "first",
    Floor = "floor",
    GroupBy = "group_by",
    GroupByExp = "group_by_exp",
    Has = "has",
    HasExp = "has_exp",
    HmacSha256 = "hmac_sha256",
    Inspect = "inspect",
    Join = "join",
    Json = "json",
    Jsonify = "jsonify",
    Last = "last",
    Lstrip = "lstrip",
    Map = "map",
    Minus = "minus",
    Modulo = "modulo",
    NewlineToBr = "newline_to_br",
    NormalizeWhitespace = "normalize_whitespace",
    NumberOfWords = "number_of_words",
    Plus = "plus",
    Pop = "pop",
    Prepend = "prepend",
    Push = "push",
    Raw = "raw",
    Reject = "reject",
    RejectExp = "reject_exp",
    Remove = "remove",
    RemoveFirst = "remove_first",
    RemoveLast = "remove_last",
    Replace = "replace",
    ReplaceFirst = "replace_first",
    ReplaceLast = "replace_last",
    Reverse = "reverse",
    Round = "round",
    Rstrip = "rstrip",
    Sample = "sample",
    Sha256 = "sha256",
    Shift = "shift",
    Size = "size",
    Slice = "slice",
    Slugify = "slugify",
    Sort = "sort",
    SortNatural = "sort_natural",
    Split = "split",
    Squish = "squish",
    Strip = "strip",
    StripHtml = "strip_html",
    StripNewlines = "strip_newlines",
    Sum = "sum",
    Times = "times",
    ToInteger = "to_integer",
    Truncate = "truncate",
    Truncatewords = "truncatewords",
    Uniq = "uniq",
    Unshift = "unshift",
    Upcase = "upcase",
    UriEscape = "uri_escape",
    UrlDecode = "url_decode",
    UrlEncode = "url_encode",
    Where = "where",
    WhereExp = "where_exp",
    XmlEscape = "xml_escape",
}

impl Filter {
    /// `where_exp` and kin: the renderer evaluates their expression itself.
    pub(crate) fn is_exp(self) -> bool {
        matches!(
            self,
            Filter::FindExp
                | Filter::FindIndexExp
                | Filter::GroupByExp
                | Filter::HasExp
                | Filter::RejectExp
                | Filter::WhereExp
        )
    }
}
