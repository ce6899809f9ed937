//! Liquid templates in the LiquidJS dialect: parse, list the variables a template reads,
//! check them against what an agent may read, and render strictly.
//!
//! Agents' `instructions` and prompt blocks are rendered upstream by LiquidJS 10.30 with
//! `strictVariables` and `strictFilters` (`shared/spec/agents.md` §3). This module
//! reimplements that dialect so runstart can refuse a bad template at deploy time and render
//! it at run start:
//!
//! - [`CompiledTemplate::parse`] tokenizes and parses once (linear time; block nesting is
//!   kept on an explicit stack and capped at [`MAX_DEPTH`], so adversarial nesting is refused
//!   with [`ParseErrorKind::TooDeep`] instead of overflowing the stack).
//! - [`CompiledTemplate::globals`] lists the global variable paths in LiquidJS's segment
//!   form (`settings["acme.w"].max` → `["settings","acme.w","max"]`), with LiquidJS's
//!   scoping rules.
//! - [`CompiledTemplate::check`] reports each read an agent cannot satisfy, with its position.
//! - [`CompiledTemplate::render`] renders against a JSON context, many times per parse.
//!
//! # Why not the `liquid` crate
//!
//! liquid-rust cannot list a template's variables, lacks LiquidJS syntax (`{% liquid %}`,
//! `{% echo %}`, `{% # %}`, the `json` filter and others) and formats values the Ruby way
//! rather than the JavaScript way LiquidJS does (numbers, `==` between types, `{{ array }}`,
//! `undefined variable` paths). Parity with the upstream renderer is the point, so the
//! renderer walks this module's own tree, and the conformance suite
//! (`tests/liquid_conformance.rs`) measures it against LiquidJS's recorded answers.
//!
//! # Conformance and known differences
//!
//! Measured against LiquidJS 10.30.1's recorded answers (`tests/liquid_conformance.rs`):
//!
//! - the 4,000 generated templates of `templates.jsonl`: parse verdict, parse error message
//!   (with line and column), global paths and render verdict all agree; the rendered text is
//!   byte-equal on 3,245 of 3,247;
//! - the 1,384 templates of LiquidJS's own tests and docs (`realworld.jsonl`): parse
//!   verdict, globals and render verdict agree on every row, against the shared context and
//!   against each row's own; the text is byte-equal on all but one render, whose
//!   `"now" | date` depends on the clock.
//!
//! Every filter LiquidJS registers by default renders, the `*_exp` family included (its
//! expression is parsed once, at parse time). Deliberate or known differences:
//!
//! - JSON objects keep JavaScript's key order (array-index keys ascending, then as written;
//!   runstart builds `serde_json` with `preserve_order`). The two remaining `templates.jsonl`
//!   differences loop over `input.ticket`, whose keys `render-context.json` lists sorted where
//!   the object LiquidJS rendered had them in another order.
//! - Dates are formatted in UTC unless the filter names a zone (minutes west of UTC, or an
//!   IANA name resolved with jiff's bundled database); strings parse as ECMAScript ISO dates
//!   or, failing that, with a subset of V8's fallback parser (numbers, month names, `h:mm`
//!   times, `+hhmm` offsets).
//! - `sample` keeps the input's order where LiquidJS shuffles (same verdict and size).
//! - A partial tag (`include`, `render`, `layout`) evaluates what LiquidJS evaluates before
//!   its lookup (an unquoted name is a variable), then fails: a prompt has no template root.
//!   The deploy check refuses every partial tag (`template-partial`) and every `*_exp` filter
//!   whose item name or expression is not quoted (`template-unsupported`), which runstart
//!   cannot evaluate.
//! - Block nesting is capped at [`MAX_DEPTH`], values at 64 nested brackets or ranges, and a
//!   range at 1,000,000 items; LiquidJS has no caps (it overflows or exhausts memory).
//!
//! # Example
//!
//! ```
//! use runstart::template::CompiledTemplate;
//! use serde_json::json;
//!
//! let t = CompiledTemplate::parse("Hi {{ customer.name | upcase }}{% assign n = 1 %}{{ n }}")?;
//! let globals: Vec<String> = t.globals()?.iter().map(|g| g.to_string()).collect();
//! assert_eq!(globals, ["customer.name"]);
//! assert_eq!(t.render(&json!({"customer": {"name": "Ada"}}))?, "Hi ADA1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod analysis;
mod ast;
mod check;
mod compiled;
mod error;
mod filters;
mod lexer;
mod limits;
mod parameter;
mod parser;
mod prompt;
mod render;
mod value;

pub use analysis::{AnalysisError, Segment, VariableRef};
pub use check::{AllowedVariables, CheckIssue, CheckIssueKind, InputPolicy};
pub use compiled::CompiledTemplate;
pub use error::{ParseError, ParseErrorKind, RenderError, RenderErrorKind};
pub use limits::{MAX_DEPTH, MAX_TEMPLATE_LENGTH};
pub use parameter::PromptParameter;
pub(crate) use prompt::PromptGlobals;
pub use prompt::{AutoVariables, PromptError, check_required, prompt_context};

/// 1-based line and column of byte `offset` in `text`, as LiquidJS reports positions: lines
/// end at `\n`, and columns count UTF-16 code units (JavaScript string indexes), so a
/// character outside the Basic Multilingual Plane, an emoji, counts two.
///
/// # Examples
///
/// ```
/// use runstart::template::line_col;
///
/// assert_eq!(line_col("{{ 'é' }}{{ x }}", 10), (1, 10));
/// assert_eq!(line_col("{{ '😀' }}{{ x }}", 12), (1, 11));
/// assert_eq!(line_col("a\n{{ x }}", 2), (2, 1));
/// ```
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    Utf16Position::new(text).advance_to(offset)
}

/// Lines and UTF-16 columns (see [`line_col`]) of increasing byte offsets in one text, in one
/// pass over it.
pub(crate) struct Utf16Position<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    col: usize,
}

impl<'a> Utf16Position<'a> {
    pub(crate) fn new(text: &'a str) -> Utf16Position<'a> {
        Utf16Position {
            text,
            offset: 0,
            line: 1,
            col: 1,
        }
    }

    /// The position of byte `offset` (clamped to the text, rounded down to a character
    /// boundary). An offset below the last one asked for starts the walk again.
    pub(crate) fn advance_to(&mut self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.offset {
            *self = Utf16Position::new(self.text);
        }
        for c in self.text[self.offset..offset].chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += c.len_utf16();
            }
        }
        self.offset = offset;
        (self.line, self.col)
    }
}
