//! Why a range does not parse.

use super::limits::{MAX_RANGE_LENGTH, MAX_SAFE_INTEGER, MAX_VERSION_LENGTH};
use crate::diagnostics::IssueCode;
use std::fmt;

/// What went wrong in a [`RangeError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RangeErrorKind {
    /// The range is longer than [`MAX_RANGE_LENGTH`] bytes with whitespace runs collapsed.
    TooLong,
    /// A character no range can hold (non-ASCII, not whitespace).
    InvalidCharacter,
    /// After desugaring, a piece of the range is not a comparator.
    InvalidComparator,
    /// A version number is above 2⁵³−1, or would be after desugaring (`^9007199254740991`).
    NumberTooLarge,
    /// A comparator's version is longer than [`MAX_VERSION_LENGTH`].
    VersionTooLong,
}

/// Why a range does not parse. Every kind has the code `invalid-version-range`.
///
/// The message names the piece that failed. That piece is shown after npm's desugaring, which
/// is what was checked: `=1.2.3 - 2` fails on `>==1.2.3`.
#[derive(Clone, PartialEq, Eq)]
pub struct RangeError {
    pub(super) kind: RangeErrorKind,
    offset: usize,
    alternative: usize,
    text: Box<str>,
}

impl RangeError {
    pub(super) fn new(kind: RangeErrorKind, offset: usize, text: String) -> Self {
        RangeError {
            kind,
            offset,
            alternative: 0,
            text: text.into_boxed_str(),
        }
    }

    pub(super) fn in_alternative(mut self, index: usize) -> Self {
        self.alternative = index;
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> RangeErrorKind {
        self.kind
    }

    /// The stable code: always `invalid-version-range` (spec `agents.md` §1.3).
    pub fn code(&self) -> IssueCode {
        IssueCode::InvalidVersionRange
    }

    /// The 0-based index of the `||` alternative that failed (0 when the whole text failed).
    pub fn alternative(&self) -> usize {
        self.alternative
    }

    /// For [`RangeErrorKind::InvalidCharacter`] and [`RangeErrorKind::TooLong`], the byte offset
    /// in the input of the character (or of the first byte past the limit); otherwise 0.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The offending text: the character, or the comparator after desugaring.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.alternative + 1;
        match self.kind {
            RangeErrorKind::TooLong => write!(
                f,
                "range is {} bytes long (with each run of whitespace counted once); ranges are limited to {MAX_RANGE_LENGTH} bytes",
                self.text
            ),
            RangeErrorKind::InvalidCharacter => write!(
                f,
                "range has the character {:?} at byte {}, which no npm range accepts",
                self.text, self.offset
            ),
            RangeErrorKind::InvalidComparator => write!(
                f,
                "{:?} (in alternative {n} of the range) is not an npm comparator; write a \
                 range such as \"^1.2.3\", \">=1.0.0 <2.0.0\", \"1.x\" or \"1.2.3 - 2.0.0\"",
                self.text
            ),
            RangeErrorKind::NumberTooLarge => write!(
                f,
                "{:?} (in alternative {n} of the range) needs a version number above \
                 {MAX_SAFE_INTEGER}, npm's largest",
                self.text
            ),
            RangeErrorKind::VersionTooLong => write!(
                f,
                "{:?} (in alternative {n} of the range) has a version longer than \
                 {MAX_VERSION_LENGTH} characters",
                self.text
            ),
        }
    }
}

impl fmt::Debug for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for RangeError {}
