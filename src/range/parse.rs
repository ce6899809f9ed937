//! The desugaring pipeline: range text to comparator sets, step by step as node-semver 7.8 does.
//!
//! node-semver rewrites the range text with a chain of regex replacements (hyphen ranges,
//! operator whitespace, tilde and caret whitespace, then per comparator: build metadata, carets,
//! tildes, x-ranges, stars, `>=0.0.0`) and finally parses each piece as a comparator. Its
//! quirks (what `>=1.2.3*` or `==1` mean, which spaces count) come from that order, so this
//! module keeps the same order. The text stages are linear scans (see [`super::scan`]); the
//! per-comparator stages build comparators directly instead of text, which is where the speed
//! comes from.

use super::comparator::{Comparator, Op};
use super::error::{RangeError, RangeErrorKind};
use super::limits::{MAX_SAFE_INTEGER, MAX_VERSION_LENGTH};
use super::scan::{self, XRange, is_js_space};
use super::small::Comparators;
use super::version::ZERO_PRERELEASE;
use semver::Prerelease;
use std::borrow::Cow;

/// The length in bytes of `input` trimmed and with every run of JavaScript whitespace
/// collapsed to one space: what [`normalize`] would produce. Linear, allocates nothing.
pub(super) fn collapsed_len(input: &str) -> usize {
    let mut len = 0;
    let mut pending_space = false;
    for c in input.chars() {
        if is_js_space(c) {
            pending_space = len > 0;
            continue;
        }
        len += usize::from(pending_space) + c.len_utf8();
        pending_space = false;
    }
    len
}

/// Trims JavaScript whitespace and collapses every run of it to one ASCII space (node-semver's
/// first step). Any other non-ASCII character is refused here: no later stage can remove one,
/// so node-semver would refuse the range too.
fn normalize(input: &str) -> Result<Cow<'_, [u8]>, RangeError> {
    let bytes = input.as_bytes();
    // One pass: ASCII without control whitespace, no leading, trailing or doubled space.
    let mut clean = true;
    let mut after_space = true;
    for &b in bytes {
        let space = b == b' ';
        if !b.is_ascii() || (9..=13).contains(&b) || (space && after_space) {
            clean = false;
            break;
        }
        after_space = space;
    }
    let clean = clean && (!after_space || bytes.is_empty());
    if clean {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut pending_space = false;
    for (offset, c) in input.char_indices() {
        if is_js_space(c) {
            pending_space = !out.is_empty();
            continue;
        }
        if !c.is_ascii() {
            return Err(RangeError::new(
                RangeErrorKind::InvalidCharacter,
                offset,
                c.to_string(),
            ));
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    Ok(Cow::Owned(out))
}

fn trim_spaces(mut s: &[u8]) -> &[u8] {
    while let [b' ', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' '] = s {
        s = rest;
    }
    s
}

fn text(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

/// Parses a version number, refusing anything above `Number.MAX_SAFE_INTEGER` as node-semver's
/// `SemVer` constructor does.
fn number(digits: &[u8], context: &[u8]) -> Result<u64, RangeError> {
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            // The scanners only hand over digits; refuse rather than trust that here.
            return Err(RangeError::new(
                RangeErrorKind::InvalidComparator,
                0,
                text(context),
            ));
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
            .filter(|&n| n <= MAX_SAFE_INTEGER)
            .ok_or_else(|| RangeError::new(RangeErrorKind::NumberTooLarge, 0, text(context)))?;
    }
    Ok(n)
}

/// `+n + 1` in node-semver's expansions; the result must still be a safe integer, or the
/// comparator holding it would be refused.
fn successor(digits: &[u8], context: &[u8]) -> Result<u64, RangeError> {
    let n = number(digits, context)?;
    if n >= MAX_SAFE_INTEGER {
        return Err(RangeError::new(
            RangeErrorKind::NumberTooLarge,
            0,
            text(context),
        ));
    }
    Ok(n + 1)
}

/// A desugared comparator before validation: what one piece of node-semver's rewritten text says.
#[derive(Debug, Clone, Copy)]
struct Piece<'a> {
    op: Op,
    nums: [u64; 3],
    /// Prerelease text without `-`; `b"0"` for the `-0` suffixes node-semver appends.
    pre: Option<&'a [u8]>,
}

impl<'a> Piece<'a> {
    fn new(op: Op, nums: [u64; 3], pre: Option<&'a [u8]>) -> Self {
        Piece { op, nums, pre }
    }
}

const ZERO: Option<&[u8]> = Some(b"0");

/// Options shared by every step of one parse.
struct Ctx {
    include_prerelease: bool,
}

impl Ctx {
    /// `-0` when prereleases are included, else nothing (node-semver's `z` / `pr`).
    fn z(&self) -> Option<&'static [u8]> {
        if self.include_prerelease { ZERO } else { None }
    }

    /// Builds the comparator a piece describes.
    fn build(&self, p: Piece<'_>, context: &[u8]) -> Result<Comparator, RangeError> {
        // node-semver builds each desugared comparator as text (`>=1.2.3-pre`) and its SemVer
        // constructor refuses versions over MAX_LENGTH; checking the built version here also
        // keeps every canonical form parseable.
        // A safe integer has at most 16 digits, so only a long prerelease can overflow.
        let pre_len = p.pre.map_or(0, |pre| pre.len() + 1);
        let digits = |n: u64| n.checked_ilog10().map_or(1, |d| d as usize + 1);
        if pre_len + 3 * 16 + 2 > MAX_VERSION_LENGTH
            && p.nums.iter().map(|&n| digits(n)).sum::<usize>() + 2 + pre_len > MAX_VERSION_LENGTH
        {
            return Err(RangeError::new(
                RangeErrorKind::VersionTooLong,
                0,
                text(context),
            ));
        }
        let pre = match p.pre {
            None => Prerelease::EMPTY,
            Some(b"0") => ZERO_PRERELEASE.clone(),
            Some(pre) => std::str::from_utf8(pre)
                .ok()
                .and_then(|s| Prerelease::new(s).ok())
                .ok_or_else(|| {
                    RangeError::new(RangeErrorKind::InvalidComparator, 0, text(context))
                })?,
        };
        Ok(Comparator::new(p.op, p.nums, pre))
    }

    /// Pushes the comparator of a desugared piece. npm's `replaceGTE0` turns the exact text
    /// `>=0.0.0` (`>=0.0.0-0` with prereleases included) into `*`.
    fn push(&self, p: Piece<'_>, context: &[u8], out: &mut Comparators) -> Result<(), RangeError> {
        if p.op == Op::GreaterEq && p.nums == [0, 0, 0] && p.pre == self.z() {
            out.push(Comparator::ANY);
            return Ok(());
        }
        out.push(self.build(p, context)?);
        Ok(())
    }

    /// `>=lower <upper-0`, the pair a caret, a tilde and a partial version become; `upper` is
    /// worked out only once `lower` is pushed, so a range fails on the first problem npm meets.
    fn push_between(
        &self,
        lower: Piece<'_>,
        upper: impl FnOnce() -> Result<[u64; 3], RangeError>,
        tok: &[u8],
        out: &mut Comparators,
    ) -> Result<(), RangeError> {
        self.push(lower, tok, out)?;
        self.push(Piece::new(Op::Less, upper()?, ZERO), tok, out)
    }

    /// Parses a comparator as node-semver's `Comparator` constructor does: `GTLT`, then a strict
    /// version with an optional `v`; the empty string is `*`.
    fn comparator_text(&self, s: &[u8]) -> Result<Comparator, RangeError> {
        // npm's replaceGTE0 runs on the text just before the comparator is built, so only this
        // exact spelling is `*` (`>=v0.0.0` stays a comparator).
        let gte0: &[u8] = if self.include_prerelease {
            b">=0.0.0-0"
        } else {
            b">=0.0.0"
        };
        if s.is_empty() || s == gte0 {
            return Ok(Comparator::ANY);
        }
        let op_len = scan::gtlt_len(s);
        let version = &s[op_len..];
        if version.len() > MAX_VERSION_LENGTH {
            return Err(RangeError::new(RangeErrorKind::VersionTooLong, 0, text(s)));
        }
        let v = scan::full_version(version)
            .ok_or_else(|| RangeError::new(RangeErrorKind::InvalidComparator, 0, text(s)))?;
        let nums = [
            number(v.major, s)?,
            number(v.minor, s)?,
            number(v.patch, s)?,
        ];
        self.build(Piece::new(Op::from_gtlt(&s[..op_len]), nums, v.pre), s)
    }

    /// npm's `replaceCaret` on a matched `^` x-range.
    fn caret(&self, x: &XRange<'_>, tok: &[u8], out: &mut Comparators) -> Result<(), RangeError> {
        if x.is_x(0) {
            out.push(Comparator::ANY);
            return Ok(());
        }
        let z = self.z();
        let major_text = x.parts[0].unwrap_or_default();
        let major = number(major_text, tok)?;
        if x.is_x(1) {
            let lower = Piece::new(Op::GreaterEq, [major, 0, 0], z);
            return self.push_between(lower, || Ok([successor(major_text, tok)?, 0, 0]), tok, out);
        }
        let minor_text = x.parts[1].unwrap_or_default();
        let minor = number(minor_text, tok)?;
        if x.is_x(2) {
            let lower = Piece::new(Op::GreaterEq, [major, minor, 0], z);
            let upper = || {
                Ok(if major_text == b"0" {
                    [major, successor(minor_text, tok)?, 0]
                } else {
                    [successor(major_text, tok)?, 0, 0]
                })
            };
            return self.push_between(lower, upper, tok, out);
        }
        let patch_text = x.parts[2].unwrap_or_default();
        let patch = number(patch_text, tok)?;
        let upper = if major_text == b"0" {
            if minor_text == b"0" {
                [major, minor, successor(patch_text, tok)?]
            } else {
                [major, successor(minor_text, tok)?, 0]
            }
        } else {
            [successor(major_text, tok)?, 0, 0]
        };
        // A full version is its own lower bound, even with prereleases included: node-semver
        // 7.8 excludes `0.0.3-alpha` from `^0.0.3` under includePrerelease (7.7 wrote `-0`).
        let lower = Piece::new(Op::GreaterEq, [major, minor, patch], x.pre);
        self.push_between(lower, || Ok(upper), tok, out)
    }

    /// npm's `replaceTilde` on a matched `~` / `~>` x-range. Like the caret, a partial version
    /// starts at `-0` with prereleases included (node-semver 7.8 fixture `~1.2` → `>=1.2.0-0`),
    /// a full one (`~1.2.3`) never does.
    fn tilde(&self, x: &XRange<'_>, tok: &[u8], out: &mut Comparators) -> Result<(), RangeError> {
        if x.is_x(0) {
            out.push(Comparator::ANY);
            return Ok(());
        }
        let major_text = x.parts[0].unwrap_or_default();
        let major = number(major_text, tok)?;
        if x.is_x(1) {
            let lower = Piece::new(Op::GreaterEq, [major, 0, 0], self.z());
            return self.push_between(lower, || Ok([successor(major_text, tok)?, 0, 0]), tok, out);
        }
        let minor_text = x.parts[1].unwrap_or_default();
        let minor = number(minor_text, tok)?;
        let upper = [major, successor(minor_text, tok)?, 0];
        if x.is_x(2) {
            let lower = Piece::new(Op::GreaterEq, [major, minor, 0], self.z());
            return self.push_between(lower, || Ok(upper), tok, out);
        }
        let patch = number(x.parts[2].unwrap_or_default(), tok)?;
        let lower = Piece::new(Op::GreaterEq, [major, minor, patch], x.pre);
        self.push_between(lower, || Ok(upper), tok, out)
    }

    /// npm's `replaceXRange` on a token matching `^GTLT\s*XRANGEPLAIN$`, with the
    /// `replaceStars` and comparator steps that follow it.
    fn xrange(
        &self,
        gtlt: &[u8],
        x: &XRange<'_>,
        tok: &[u8],
        out: &mut Comparators,
    ) -> Result<(), RangeError> {
        let x_major = x.is_x(0);
        let x_minor = x_major || x.is_x(1);
        let any_x = x_minor || x.is_x(2);
        let gtlt: &[u8] = if gtlt == b"=" && any_x { b"" } else { gtlt };
        let z = self.z();
        if x_major {
            if gtlt == b">" || gtlt == b"<" {
                return self.push(Piece::new(Op::Less, [0, 0, 0], ZERO), tok, out);
            }
            // `*`, which replaceStars then empties: any version.
            out.push(Comparator::ANY);
            return Ok(());
        }
        if !any_x {
            // No wildcard: the token is kept as written and parsed as a comparator, so a prefix
            // other than one `v` (for example `>==1.2.3`) is refused.
            out.push(self.comparator_text(tok)?);
            return Ok(());
        }
        let major_text = x.parts[0].unwrap_or_default();
        let major = number(major_text, tok)?;
        if !gtlt.is_empty() {
            let minor_text = x.parts[1].filter(|_| !x_minor).unwrap_or(b"0");
            let minor = number(minor_text, tok)?;
            let piece = match gtlt {
                b">" if x_minor => {
                    Piece::new(Op::GreaterEq, [successor(major_text, tok)?, 0, 0], z)
                }
                b">" => Piece::new(Op::GreaterEq, [major, successor(minor_text, tok)?, 0], z),
                b"<=" if x_minor => Piece::new(Op::Less, [successor(major_text, tok)?, 0, 0], ZERO),
                b"<=" => Piece::new(Op::Less, [major, successor(minor_text, tok)?, 0], ZERO),
                b"<" => Piece::new(Op::Less, [major, minor, 0], ZERO),
                _ => Piece::new(Op::GreaterEq, [major, minor, 0], z),
            };
            return self.push(piece, tok, out);
        }
        if x_minor {
            let lower = Piece::new(Op::GreaterEq, [major, 0, 0], z);
            return self.push_between(lower, || Ok([successor(major_text, tok)?, 0, 0]), tok, out);
        }
        let minor_text = x.parts[1].unwrap_or_default();
        let minor = number(minor_text, tok)?;
        let lower = Piece::new(Op::GreaterEq, [major, minor, 0], z);
        self.push_between(
            lower,
            || Ok([major, successor(minor_text, tok)?, 0]),
            tok,
            out,
        )
    }

    /// node-semver's `parseComparator` and what follows it, for one space-free token whose
    /// build metadata [`strip_builds`] has removed (so its own first-`BUILD` strip has nothing
    /// left to do).
    fn token(&self, tok: &[u8], out: &mut Comparators) -> Result<(), RangeError> {
        if let Some(rest) = tok.strip_prefix(b"^")
            && let Some(x) = scan::xrange_full(rest)
        {
            return self.caret(&x, tok, out);
        }
        if let Some(rest) = tok.strip_prefix(b"~") {
            let rest = rest.strip_prefix(b">").unwrap_or(rest);
            if let Some(x) = scan::xrange_full(rest) {
                return self.tilde(&x, tok, out);
            }
        }
        let op_len = scan::gtlt_len(tok);
        // Only here does npm refuse a number after a wildcard (`1.x.5`, `x.1`): its
        // `replaceXRange` leaves such a token as written, for the comparator step to refuse;
        // carets, tildes and hyphen bounds read `^1.x.2` as `^1.x`.
        if let Some(x) = scan::xrange_full(&tok[op_len..])
            && x.wildcards_trail()
        {
            return self.xrange(&tok[..op_len], &x, tok, out);
        }
        // Not an x-range: npm's replaceStars still deletes the first `[<>]?=?\s*\*` (so
        // `>=1.2.3*` means `>=1.2.3`), then the rest must be a plain comparator.
        let c = match scan::first_star(tok) {
            Some((start, end)) => self.comparator_text(&cut(tok, start, end))?,
            None => self.comparator_text(tok)?,
        };
        out.push(c);
        Ok(())
    }
}

/// `s` without `s[start..end]`.
fn cut(s: &[u8], start: usize, end: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() - (end - start));
    out.extend_from_slice(&s[..start]);
    out.extend_from_slice(&s[end..]);
    out
}

/// node-semver's `hyphenReplace`: `A - B` becomes `>=A <=B` with x-range rules on each side.
/// The result is text, because it goes through the remaining text stages like any range
/// (`=1.2.3 - 2` becomes `>==1.2.3 <3.0.0-0`, which the comparator step then refuses).
fn hyphen<'a>(
    from_text: &[u8],
    from: &XRange<'a>,
    to_text: &[u8],
    to: &XRange<'a>,
    include_prerelease: bool,
) -> Result<Vec<u8>, RangeError> {
    let z: &[u8] = if include_prerelease { b"-0" } else { b"" };
    fn part<'a>(x: &XRange<'a>, i: usize) -> &'a [u8] {
        x.parts[i].unwrap_or_default()
    }
    // The text an error names, built only for an error.
    let next = |digits: &[u8]| {
        successor(digits, b"")
            .map(|n| n.to_string())
            .map_err(|e| RangeError::new(e.kind, 0, text(&[from_text, b" - ", to_text].concat())))
    };
    let mut out: Vec<u8> = Vec::with_capacity(from_text.len() + to_text.len() + 19);
    let mut put = |bytes: &[&[u8]]| bytes.iter().for_each(|b| out.extend_from_slice(b));
    if from.is_x(0) {
        // No lower bound.
    } else if from.is_x(1) {
        put(&[b">=", part(from, 0), b".0.0", z]);
    } else if from.is_x(2) {
        put(&[b">=", part(from, 0), b".", part(from, 1), b".0", z]);
    } else if from.pre.is_some() {
        put(&[b">=", from_text]);
    } else {
        put(&[b">=", from_text, z]);
    }
    put(&[b" "]);
    if to.is_x(0) {
        // No upper bound.
    } else if to.is_x(1) {
        let next = next(part(to, 0))?;
        put(&[b"<", next.as_bytes(), b".0.0-0"]);
    } else if to.is_x(2) {
        let next = next(part(to, 1))?;
        put(&[b"<", part(to, 0), b".", next.as_bytes(), b".0-0"]);
    } else if let Some(pre) = to.pre {
        put(&[
            b"<=",
            part(to, 0),
            b".",
            part(to, 1),
            b".",
            part(to, 2),
            b"-",
            pre,
        ]);
    } else if include_prerelease {
        let next = next(part(to, 2))?;
        put(&[
            b"<",
            part(to, 0),
            b".",
            part(to, 1),
            b".",
            next.as_bytes(),
            b"-0",
        ]);
    } else {
        put(&[b"<=", to_text]);
    }
    Ok(trim_spaces(&out).to_vec())
}

/// Applies node-semver's hyphen-range rewrite to one `||` alternative, if it is one.
fn hyphen_stage(part: &[u8], include_prerelease: bool) -> Result<Cow<'_, [u8]>, RangeError> {
    // An x-range cannot contain " - " (its `-` only follows an identifier), so the first
    // occurrence is the only possible split.
    let Some(at) = part.windows(3).position(|w| w == b" - ") else {
        return Ok(Cow::Borrowed(part));
    };
    // npm's safe `HYPHENRANGE` allows one blank at each end (`\s{0,1}`), which stripping
    // build metadata can leave (`1 - 2 +b` is `1 - 2 `); leading blanks are the bounds' own
    // `[v=\s]*` prefix, and a second blank before the `-` or at the end is no hyphen range.
    let from_text = &part[..at];
    let to_text = &part[at + 3..];
    let to_text = to_text.strip_suffix(b" ").unwrap_or(to_text);
    match (scan::xrange_full(from_text), scan::xrange_full(to_text)) {
        (Some(from), Some(to)) => Ok(Cow::Owned(hyphen(
            from_text,
            &from,
            to_text,
            &to,
            include_prerelease,
        )?)),
        _ => Ok(Cow::Borrowed(part)),
    }
}

/// Removes the spaces listed by [`scan::comparator_space_removals`].
fn operator_space_stage(s: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    scan::comparator_space_removals(&s, |at| {
        let out = out.get_or_insert_with(|| Vec::with_capacity(s.len()));
        out.extend_from_slice(&s[from..at]);
        from = at + 1;
    });
    match out {
        None => s,
        Some(mut out) => {
            out.extend_from_slice(&s[from..]);
            Cow::Owned(out)
        }
    }
}

/// node-semver's `TILDETRIM` / `CARETTRIM` (`~ 1` → `~1`, `~> 1` → `~1`, `^ 1` → `^1`).
fn lone_operator_stage(s: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    let needs = s.windows(2).any(|w| w == b"~ " || w == b"^ " || w == b"~>");
    if !needs {
        return s;
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match (s[i], s.get(i + 1), s.get(i + 2)) {
            (b'~', Some(b'>'), Some(b' ')) => {
                out.push(b'~');
                i += 3;
            }
            (b'~' | b'^', Some(b' '), _) => {
                out.push(s[i]);
                i += 2;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Removes every build-metadata match (`\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*`) from `part`, as
/// node-semver 7.8's `parseRange` does first of all with its global `BUILDSTRIPRE`: before the
/// hyphen step, so `1.2.3+b - 2` is the hyphen range `1.2.3 - 2`. Matches are found in the
/// original text, left to right, as a global replace does; removing one never forms another
/// (the byte after a match is neither an identifier byte nor a `.` that one follows).
fn strip_builds(part: &[u8]) -> Cow<'_, [u8]> {
    let Some((start, end)) = scan::first_build(part) else {
        return Cow::Borrowed(part);
    };
    let mut out = Vec::with_capacity(part.len());
    out.extend_from_slice(&part[..start]);
    let mut from = end;
    while let Some((start, end)) = scan::first_build(&part[from..]) {
        out.extend_from_slice(&part[from..from + start]);
        from += end;
    }
    out.extend_from_slice(&part[from..]);
    Cow::Owned(out)
}

/// node-semver's `parseRange` for one trimmed alternative; appends its comparators to `out`.
fn alternative(part: &[u8], ctx: &Ctx, out: &mut Comparators) -> Result<(), RangeError> {
    let part = strip_builds(part);
    let part: &[u8] = &part;
    let start = out.len();
    if !part.contains(&b' ') {
        // One token, and no text stage applies: each rewrites around a space.
        ctx.token(part, out)?;
        if out.len() - start == 1 {
            // One comparator: nothing to dedupe, and `*` or the null set stands alone.
            return Ok(());
        }
        finish_alternative(out, start);
        return Ok(());
    }
    // Every text stage needs a space next to an operator or a hyphen; most ranges have none,
    // so one look at each pair of bytes usually skips all three.
    let needs_stages = part.windows(2).any(|w| {
        matches!(
            (w[0], w[1]),
            (b'<' | b'>' | b'=' | b'~' | b'^', b' ') | (b' ', b'-') | (b'~', b'>')
        )
    });
    let s = if needs_stages {
        let s = hyphen_stage(part, ctx.include_prerelease)?;
        let s = operator_space_stage(s);
        lone_operator_stage(s)
    } else {
        Cow::Borrowed(part)
    };
    for tok in s.split(|&b| b == b' ') {
        ctx.token(tok, out)?;
    }
    finish_alternative(out, start);
    Ok(())
}

/// The end of node-semver's `parseRange` on the comparators `out[start..]` of one alternative:
/// the null set swallows the alternative, duplicates and `*` next to others go.
pub(super) fn finish_alternative(out: &mut Comparators, start: usize) {
    // All comparators were built (so any invalid one failed the range) before the null set
    // replaces the alternative, as upstream does.
    if out.as_slice()[start..].iter().any(Comparator::is_null_set) {
        out.truncate(start);
        out.push(Comparator::null_set());
        return;
    }
    dedupe(out, start);
    // `*` next to other comparators adds nothing; npm drops it.
    if out.len() - start > 1 && out.as_slice()[start..].iter().any(|c| c.op == Op::Any) {
        let mut kept = start;
        let items = out.as_mut_slice();
        for i in start..items.len() {
            if items[i].op != Op::Any {
                items.swap(kept, i);
                kept += 1;
            }
        }
        out.truncate(kept);
    }
}

/// Keeps the first of equal comparators in `out[start..]`, in order (npm dedupes by their
/// text). Quadratic only up to a small size, which covers every realistic range.
fn dedupe(out: &mut Comparators, start: usize) {
    let mut kept = start;
    let items = out.as_mut_slice();
    if items.len() - start <= 32 {
        for i in start..items.len() {
            if !items[start..kept].contains(&items[i]) {
                items.swap(kept, i);
                kept += 1;
            }
        }
    } else {
        let mut seen = std::collections::HashSet::with_capacity(items.len() - start);
        for i in start..items.len() {
            if seen.insert(items[i].clone()) {
                items.swap(kept, i);
                kept += 1;
            }
        }
    }
    out.truncate(kept);
}

/// Parses a whole range into comparators and the end index of each `||` alternative but the
/// last (so a single alternative needs no second allocation).
pub(super) fn parse(
    input: &str,
    include_prerelease: bool,
) -> Result<(Comparators, Vec<u32>), RangeError> {
    if let Some(parsed) = super::fast::parse(input, include_prerelease) {
        debug_assert_eq!(
            Ok(parsed.clone()),
            parse_general(input, include_prerelease),
            "the one-pass reading of {input:?} differs from the general one"
        );
        return Ok(parsed);
    }
    parse_general(input, include_prerelease)
}

/// [`parse`] through node-semver's rewriting steps, for every range.
pub(super) fn parse_general(
    input: &str,
    include_prerelease: bool,
) -> Result<(Comparators, Vec<u32>), RangeError> {
    let normalized = normalize(input)?;
    let ctx = Ctx { include_prerelease };
    let mut comparators = Comparators::new();
    let mut ends = Vec::new();
    let mut rest: &[u8] = &normalized;
    let mut index = 0;
    loop {
        // Most ranges have no `|` at all: one fast byte search skips the pair search.
        let bar = rest.contains(&b'|');
        let (part, next) = match rest.windows(2).position(|w| bar && w == b"||") {
            Some(at) => (&rest[..at], Some(&rest[at + 2..])),
            None => (rest, None),
        };
        alternative(trim_spaces(part), &ctx, &mut comparators)
            .map_err(|e| e.in_alternative(index))?;
        index += 1;
        match next {
            Some(next) => {
                ends.push(u32::try_from(comparators.len()).unwrap_or(u32::MAX));
                rest = next;
            }
            None => break,
        }
    }
    if !ends.is_empty() {
        simplify_union(&mut comparators, &mut ends);
    }
    Ok((comparators, ends))
}

/// node-semver's union rules: drop impossible alternatives (all of them impossible keeps the
/// first), and a lone `*` alternative swallows the whole union.
pub(super) fn simplify_union(list: &mut Comparators, ends: &mut Vec<u32>) {
    let comparators = list.as_slice();
    // Only a lone `*` or null-set alternative changes anything; most unions have neither, and
    // then nothing is allocated.
    let mut start = 0;
    let lone = ends
        .iter()
        .map(|&e| e as usize)
        .chain(std::iter::once(comparators.len()))
        .any(|end| {
            let one = end - start == 1
                && comparators
                    .get(start)
                    .is_some_and(|c| c.op == Op::Any || c.is_null_set());
            start = end;
            one
        });
    if !lone {
        return;
    }
    let bounds: Vec<(usize, usize)> = ends
        .iter()
        .map(|&e| e as usize)
        .chain(std::iter::once(comparators.len()))
        .scan(0usize, |start, end| {
            let s = (*start, end);
            *start = end;
            Some(s)
        })
        .collect();
    let is_null = |&(s, e): &(usize, usize)| e - s == 1 && comparators[s].is_null_set();
    let mut keep: Vec<(usize, usize)> = bounds.iter().filter(|b| !is_null(b)).copied().collect();
    if keep.is_empty() {
        keep.push(bounds[0]);
    } else if keep.len() > 1
        && let Some(any) = keep
            .iter()
            .copied()
            .find(|&(s, e)| e - s == 1 && comparators[s].op == Op::Any)
    {
        keep = vec![any];
    }
    if keep.len() == bounds.len() {
        return;
    }
    let mut new_comparators = Comparators::new();
    let mut new_ends = Vec::with_capacity(keep.len());
    for (s, e) in keep {
        if !new_comparators.is_empty() {
            new_ends.push(u32::try_from(new_comparators.len()).unwrap_or(u32::MAX));
        }
        for c in &comparators[s..e] {
            new_comparators.push(c.clone());
        }
    }
    *list = new_comparators;
    *ends = new_ends;
}
