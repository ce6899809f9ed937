//! The caps on range and version text: npm's own, and the one that bounds hostile input.

/// The longest range text [`Range::parse`](super::Range::parse) reads, in bytes.
///
/// node-semver has no limit for ranges (its own fixtures parse 265-character ranges with
/// default options), so this cap sits well above anything real and exists only to bound the
/// work done on hostile input.
pub const MAX_RANGE_LENGTH: usize = 1024;

/// The longest version text npm accepts (`MAX_LENGTH` in node-semver), in UTF-16 code units.
pub const MAX_VERSION_LENGTH: usize = 256;

/// The largest version number npm accepts: JavaScript's `Number.MAX_SAFE_INTEGER`, 2⁵³−1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
