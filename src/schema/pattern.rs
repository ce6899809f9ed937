//! ECMAScript `pattern`s (Ajv compiles them with the `u` flag) on two engines: the linear-time
//! `regex` engine for every pattern it can express, and a bounded backtracking engine
//! (`fancy-regex`) only for the patterns that need one (look-around, back-references). [`super::ecma_regex`]
//! reads the pattern as V8 does and writes it for these engines.
//!
//! Pack schemas are untrusted: on the linear engine `^(a+)+$` against 50,000 `a`s answers in
//! milliseconds; on the backtracking engine every match is capped at [`BACKTRACK_LIMIT`] steps,
//! and a match that reaches the cap counts as a non-match (the schema fails closed).

use super::ecma_regex::{self, Refusal};
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
    /// schema author sees: V8's own for a pattern V8 refuses.
    pub(crate) fn compile(source: &str) -> Result<Pattern, String> {
        let invalid = |why: &str| format!("Invalid regular expression: /{source}/u: {why}");
        let translated = ecma_regex::translate(source).map_err(|refusal| match refusal {
            Refusal::Invalid(why) => invalid(why),
            Refusal::Unsupported(what) => invalid(&format!(
                "valid in JavaScript, but runstart cannot run {what} as JavaScript does"
            )),
        })?;
        if !translated.backtracking
            && let Ok(re) = regex::RegexBuilder::new(&translated.rust)
                .size_limit(1 << 22)
                .build()
        {
            return Ok(Pattern::Linear(re));
        }
        fancy_regex::RegexBuilder::new(&translated.rust)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(1 << 22)
            .build()
            .map(|re| Pattern::Backtracking(Box::new(re)))
            .map_err(|e| {
                invalid(&format!(
                    "valid in JavaScript, but runstart cannot run it ({e})"
                ))
            })
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
    fn look_behind_runs_and_broken_patterns_are_refused_with_v8_reasons() {
        let p = Pattern::compile("(?<=a)b").expect("look-behind compiles");
        assert!(p.is_match("ab"));
        assert!(!p.is_match("cb"));
        assert_eq!(
            Pattern::compile("(").map(|_| ()),
            Err("Invalid regular expression: /(/u: Unterminated group".to_owned())
        );
        assert_eq!(
            Pattern::compile("\\_").map(|_| ()),
            Err("Invalid regular expression: /\\_/u: Invalid escape".to_owned())
        );
    }
}
