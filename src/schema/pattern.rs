//! ECMAScript `pattern`s (Ajv compiles them with the `u` flag) on two engines: the linear-time
//! `regex` engine for every pattern it can express, and a bounded backtracking engine
//! (`fancy-regex`) only for the patterns that need one (look-ahead, back-references).
//!
//! Pack schemas are untrusted: on the linear engine `^(a+)+$` against 50,000 `a`s answers in
//! milliseconds; on the backtracking engine every match is capped at [`BACKTRACK_LIMIT`] steps,
//! and a match that reaches the cap counts as a non-match (the schema fails closed).

use std::fmt;

/// Most backtracking steps one match may take on the backtracking engine.
pub const BACKTRACK_LIMIT: usize = 100_000;

/// A compiled pattern.
#[derive(Clone)]
pub(crate) enum Pattern {
    Linear(regex::Regex),
    Backtracking(Box<fancy_regex::Regex>),
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Linear(r) => write!(f, "Linear({})", r.as_str()),
            Pattern::Backtracking(r) => write!(f, "Backtracking({})", r.as_str()),
        }
    }
}

impl Pattern {
    /// Compiles `source` as Ajv does (`new RegExp(source, "u")`). The error is the message a
    /// schema author sees.
    pub(crate) fn compile(source: &str) -> Result<Pattern, String> {
        let invalid = |why: &str| format!("Invalid regular expression: /{source}/u: {why}");
        if has_look_behind(source) {
            return Err(invalid(
                "look-behind is not supported by runstart (use a look-ahead or restructure the pattern)",
            ));
        }
        if let Ok(translated) = jsonschema_regex::to_rust_regex(source)
            && let Ok(re) = regex::RegexBuilder::new(&translated)
                .size_limit(1 << 22)
                .build()
        {
            return Ok(Pattern::Linear(re));
        }
        if !jsonschema_regex::is_valid_ecma_regex(source) {
            return Err(invalid("not a valid ECMAScript pattern"));
        }
        let translated = translate_for_backtracking(source);
        fancy_regex::RegexBuilder::new(&translated)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(1 << 22)
            .build()
            .map(|re| Pattern::Backtracking(Box::new(re)))
            .map_err(|e| invalid(&e.to_string()))
    }

    /// Whether `text` contains a match (JavaScript's `RegExp.prototype.test`).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Pattern::Linear(re) => re.is_match(text),
            // A match that exceeds the backtracking limit is treated as a non-match.
            Pattern::Backtracking(re) => re.is_match(text).unwrap_or(false),
        }
    }
}

fn has_look_behind(source: &str) -> bool {
    let bytes = source.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'(' if !in_class
                && (source[i..].starts_with("(?<=") || source[i..].starts_with("(?<!")) =>
            {
                return true;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// ECMAScript classes that differ from Rust's: `\d`, `\w`, `\s` are ASCII-only in JavaScript
/// (`\s` also takes a few Unicode spaces, close enough to Rust's Unicode `\s`).
fn translate_for_backtracking(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 8);
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[A-Za-z0-9_]"),
            Some('W') => out.push_str("[^A-Za-z0-9_]"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_ahead_uses_the_backtracking_engine() {
        let p = Pattern::compile("^(?!admin).+$").expect("look-ahead compiles");
        assert!(matches!(p, Pattern::Backtracking(_)));
        assert!(p.is_match("alice"));
        assert!(!p.is_match("admin1"));
    }

    #[test]
    fn plain_patterns_stay_linear() {
        let p = Pattern::compile("^(a+)+$").expect("compiles");
        assert!(matches!(p, Pattern::Linear(_)));
        let hostile = format!("{}!", "a".repeat(50_000));
        assert!(!p.is_match(&hostile));
        assert!(
            Pattern::compile("^\\p{Letter}+$")
                .expect("unicode")
                .is_match("héllo")
        );
    }

    #[test]
    fn look_behind_and_broken_patterns_are_refused() {
        assert!(Pattern::compile("(?<=a)b").is_err());
        assert!(Pattern::compile("(").is_err());
    }
}
