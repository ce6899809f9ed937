//! Errors of parsing and rendering.

use crate::diagnostics::IssueCode;
use std::fmt;

/// What kind of parse error LiquidJS would raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// Tokenizer or tag syntax.
    Syntax,
    /// `tag "x" not found`.
    UnknownTag,
    /// `undefined filter: x` (LiquidJS's `strictFilters`).
    UndefinedFilter,
    /// A block tag without its end tag.
    NotClosed,
    /// Nesting deeper than [`super::MAX_DEPTH`]; LiquidJS would overflow its stack instead.
    TooDeep,
    /// A source longer than [`super::MAX_TEMPLATE_LENGTH`] bytes (runstart's own cap;
    /// LiquidJS has none).
    TooLong,
}

/// A template that LiquidJS refuses to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    message: String,
    offset: usize,
    /// The line and column LiquidJS's message gives when they are not those of `offset`: an
    /// error inside a templated partial name (`{% include "{% if %}" %}`) is placed in the
    /// name's own text there, while `offset` points at the name in the template.
    line_col: Option<(usize, usize)>,
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, message: String, offset: usize) -> ParseError {
        ParseError {
            kind,
            message,
            offset,
            line_col: None,
        }
    }

    pub(crate) fn set_offset(&mut self, offset: usize) {
        self.offset = offset;
    }

    /// Moves the error to `offset` of an enclosing template, keeping the line and column of
    /// its message in `inner`, the text it was found in (see `line_col`).
    pub(crate) fn move_out_of(&mut self, inner: &str, offset: usize) {
        if self.line_col.is_none() {
            self.line_col = Some(super::line_col(inner, self.offset));
        }
        self.offset = offset;
    }

    /// The error's kind.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The issue code deploy validation, run registration and `runstart template` report it
    /// with: the caps have their own (the template may be fine Liquid, only too big),
    /// everything else is [`IssueCode::TemplateParse`].
    ///
    /// ```
    /// use runstart::diagnostics::IssueCode;
    /// use runstart::template::CompiledTemplate;
    ///
    /// let e = CompiledTemplate::parse("{% if %}").unwrap_err();
    /// assert_eq!(e.code(), IssueCode::TemplateParse);
    /// ```
    pub fn code(&self) -> IssueCode {
        match self.kind {
            ParseErrorKind::TooDeep => IssueCode::TemplateTooDeep,
            ParseErrorKind::TooLong => IssueCode::TemplateTooLong,
            _ => IssueCode::TemplateParse,
        }
    }

    /// LiquidJS's message without the position suffix, e.g. `tag "nosuchtag" not found`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte offset of the offending token in the template.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// LiquidJS's full message, `<message>, line:<l>, col:<c>`.
    pub fn message_with_position(&self, template: &str) -> String {
        let (l, c) = self
            .line_col
            .unwrap_or_else(|| super::line_col(template, self.offset));
        format!("{}, line:{l}, col:{c}", self.message)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// How LiquidJS's undefined-variable message starts; the path follows.
pub(crate) const UNDEFINED_PREFIX: &str = "undefined variable: ";

/// Why a render failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenderErrorKind {
    /// A variable path that does not resolve (`strictVariables`);
    /// [`RenderError::undefined_path`] gives the path.
    UndefinedVariable,
    /// `include`, `render` or `layout`: there is no template root to read from.
    NoTemplateRoot,
    /// Any other error (a filter's own failure, a limit).
    Other,
}

/// A render failure, with LiquidJS's message.
///
/// One pointer wide: every step of a render returns a `Result` with it, and a success should
/// not carry the room of a failure (the details are boxed; a failing render allocates them once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError(Box<Failure>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    kind: RenderErrorKind,
    message: String,
    offset: usize,
    /// LiquidJS's reported position when it is not the offset's (see `at_line_col`).
    line_col: Option<(usize, usize)>,
}

impl RenderError {
    pub(crate) fn new(kind: RenderErrorKind, message: String, offset: usize) -> RenderError {
        RenderError(Box::new(Failure {
            kind,
            message,
            offset,
            line_col: None,
        }))
    }

    /// An undefined-variable error for `path`.
    pub(crate) fn undefined(path: &str, offset: usize) -> RenderError {
        RenderError::undefined_message([UNDEFINED_PREFIX, path].concat(), offset)
    }

    /// An undefined-variable error whose `message` already is [`UNDEFINED_PREFIX`] and the
    /// path: a failing render writes the path straight after the prefix, into one string.
    pub(crate) fn undefined_message(message: String, offset: usize) -> RenderError {
        debug_assert!(message.starts_with(UNDEFINED_PREFIX));
        RenderError::new(RenderErrorKind::UndefinedVariable, message, offset)
    }

    /// Overrides the position LiquidJS reports (not the offset of the failing token).
    pub(crate) fn at_line_col(mut self, line: usize, col: usize) -> RenderError {
        self.0.line_col = Some((line, col));
        self
    }

    /// The error's kind.
    pub fn kind(&self) -> &RenderErrorKind {
        &self.0.kind
    }

    /// LiquidJS's message without position, e.g. `undefined variable: agent.owner`.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Byte offset of the token that failed.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The undefined path, if this is an undefined-variable error: LiquidJS's, the segments
    /// up to the first undefined one joined by `.` (`agent.owner`).
    pub fn undefined_path(&self) -> Option<&str> {
        match self.0.kind {
            RenderErrorKind::UndefinedVariable => self.0.message.strip_prefix(UNDEFINED_PREFIX),
            _ => None,
        }
    }

    /// LiquidJS's full message, `<message>, line:<l>, col:<c>`.
    pub fn message_with_position(&self, template: &str) -> String {
        let (l, c) = self
            .0
            .line_col
            .unwrap_or_else(|| super::line_col(template, self.0.offset));
        format!("{}, line:{l}, col:{c}", self.0.message)
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for RenderError {}
