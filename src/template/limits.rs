//! Runstart's own caps on templates (LiquidJS has none): the parser's, the renderer's and the
//! filters' limits in one leaf module, so none of them imports another for a constant.

/// Deepest nesting of block tags (`if`, `for`, `case`, `capture`, `liquid`…) a template may
/// have. LiquidJS has no such cap and overflows its stack somewhere in the thousands; real
/// prompts nest a handful of levels.
pub const MAX_DEPTH: usize = 100;

/// Longest template source accepted, in bytes (256 KiB). Parsing and rendering are linear in
/// the source, but a deploy service should not spend them on megabytes of prompt; real
/// prompts are a few kilobytes. Longer sources are refused with
/// [`ParseErrorKind::TooLong`](crate::template::ParseErrorKind::TooLong) before tokenizing.
pub const MAX_TEMPLATE_LENGTH: usize = 256 * 1024;

/// Longest output, and longest string or array a filter may build, during one render
/// (LiquidJS has no caps; nested loops or a doubling `append` would otherwise exhaust memory).
pub(crate) const MAX_RENDER_SIZE: usize = 4 << 20;
