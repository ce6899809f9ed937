//! One pass for the ranges people write: comparators such as `1.2.3`, `^1.2.3-beta.1`,
//! `~1.2`, `1.x`, `>=2`, `<= 1.4`, `v1.0.0` or `*`, separated by spaces, joined by `||`, or a
//! hyphen range of two versions (`1.2 - 2.3.4`).
//!
//! The general parser ([`super::parse`]) follows node-semver's chain of text rewrites, which is
//! what keeps its quirks right but costs a few thousand instructions even for `^1.2.3`. Within
//! the grammar below those rewrites reduce to a table (the one in the [range docs](super)), so
//! this module reads the words once and builds each comparator directly:
//!
//! - an alternative is words separated by spaces (any number, as npm collapses them), or
//!   exactly `A - B` where `A` and `B` are versions (with no operator);
//! - a word is an operator (`^`, `~`, `~>`, `>`, `>=`, `<`, `<=`, `=` or none), an optional
//!   `v`, then one to three parts: numbers (no leading zero, at most [`MAX_DIGITS`] digits),
//!   then wildcards (`x`, `X`, `*`) to the end, and a strict prerelease only after three
//!   numbers;
//! - an operator other than `=` may stand alone as a word, the version being the next word
//!   (npm removes that space: `>= 1.2` is `>=1.2`, `^ 1` is `^1`).
//!
//! Anything else returns `None` and takes the general path: build metadata, whitespace other
//! than the ASCII space, odd prefixes (`==1`, `v=1`, `=1 - 2`, `= 1`), a number
//! after a wildcard, long input, and every invalid range (so errors are always the general
//! path's). Debug builds run the general path on every range this module answers and check
//! that both agree; unit tests compare both on the conformance ranges and their mutations.

use super::comparator::{Comparator, Op};
use super::parse::{finish_alternative, simplify_union};
use super::scan::is_strict_prerelease;
use super::small::Comparators;
use super::version::ZERO_PRERELEASE;
use semver::Prerelease;

/// At most this many digits per number: `10^15 - 1` and its successor stay below
/// `Number.MAX_SAFE_INTEGER`, so no number needs the general path's range checks.
const MAX_DIGITS: usize = 15;

/// Longer input takes the general path. Below this no comparator's version can reach
/// [`MAX_VERSION_LENGTH`](super::MAX_VERSION_LENGTH) (a built version is at most its written
/// text plus a digit) and the input is far below [`MAX_RANGE_LENGTH`](super::MAX_RANGE_LENGTH),
/// so neither length check is needed here.
const MAX_LEN: usize = 128;

/// The operator a word starts with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// None or `=`.
    Exact,
    Caret,
    Tilde,
    Greater,
    GreaterEq,
    Less,
    LessEq,
}

impl Lead {
    /// The operator of a comparator written with this lead and a full version.
    fn op(self) -> Op {
        match self {
            Lead::Greater => Op::Greater,
            Lead::GreaterEq => Op::GreaterEq,
            Lead::Less => Op::Less,
            Lead::LessEq => Op::LessEq,
            Lead::Exact | Lead::Caret | Lead::Tilde => Op::Exact,
        }
    }
}

/// A version as written after an operator: `v?`, numbers, wildcards, prerelease.
struct Written<'a> {
    /// Written with a leading `v`.
    v: bool,
    /// The numbers, 0 for absent and wildcard parts.
    nums: [u64; 3],
    /// How many parts are numbers (the rest are absent or wildcards).
    count: usize,
    /// The prerelease as written, without its `-` (only after three numbers).
    text: Option<&'a [u8]>,
    /// The prerelease (empty when there is none).
    pre: Prerelease,
}

/// The comparators of `input` and the end of each alternative but the last, as
/// [`super::parse::parse_general`] gives them, when `input` is in this module's grammar (see
/// the [module docs](self)); else `None`.
///
/// One forward pass: each word is read where it starts and ends where its version does, so
/// no byte is looked at twice (no split into alternatives, then words, then parts).
pub(super) fn parse(input: &str, include_prerelease: bool) -> Option<(Comparators, Vec<u32>)> {
    let s = input.as_bytes();
    if s.len() > MAX_LEN {
        return None;
    }
    let build = Build { include_prerelease };
    let mut out = Comparators::new();
    let mut ends = Vec::new();
    let mut at = alternative(input, 0, &build, &mut out)?;
    // `alternative` stops at the end or at a `|`, which must begin a `||`.
    while at < s.len() {
        if s.get(at + 1) != Some(&b'|') {
            return None;
        }
        ends.push(u32::try_from(out.len()).unwrap_or(u32::MAX));
        at = alternative(input, at + 2, &build, &mut out)?;
    }
    if !ends.is_empty() {
        simplify_union(&mut out, &mut ends);
    }
    Some((out, ends))
}

/// The first position at or after `at` that is not a space.
fn skip_spaces(s: &[u8], mut at: usize) -> usize {
    while s.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

/// Does a word end at `at`: the end of the input, a space, or a `|`?
fn word_ends(s: &[u8], at: usize) -> bool {
    matches!(s.get(at), None | Some(b' ' | b'|'))
}

/// Does an alternative end at `at` (spaces already skipped): the end of the input or a `|`?
fn alternative_ends(s: &[u8], at: usize) -> bool {
    matches!(s.get(at), None | Some(b'|'))
}

/// Appends the comparators of the alternative starting at `at`, deduplicated as npm does, and
/// returns where it ends: the end of `input` or a `|`.
fn alternative(input: &str, at: usize, build: &Build, out: &mut Comparators) -> Option<usize> {
    let s = input.as_bytes();
    let mut at = skip_spaces(s, at);
    if alternative_ends(s, at) {
        // An empty alternative is `*`.
        out.push(Comparator::ANY);
        return Some(at);
    }
    let start = out.len();
    let mut read = 0;
    loop {
        let (lead, after_lead) = lead(s, at);
        let mut version_at = after_lead;
        if word_ends(s, version_at) {
            // An operator alone: npm removes the space after it. Not after a lone `=`, where
            // whether it does depends on the word before (`1.2.3-dev = 1` keeps it).
            if lead == Lead::Exact {
                return None;
            }
            version_at = skip_spaces(s, version_at);
            if alternative_ends(s, version_at) {
                return None;
            }
        }
        let (version, end) = written(input, version_at)?;
        let next = skip_spaces(s, end);
        if read == 0 && s.get(next) == Some(&b'-') && word_ends(s, next + 1) {
            // `A - B`, which npm reads only as the whole alternative (`1 - 2 3` is no range)
            // and only between versions without an operator (`=1 - 2` takes the general path).
            if after_lead != at {
                return None;
            }
            let to_at = skip_spaces(s, next + 1);
            if alternative_ends(s, to_at) {
                return None;
            }
            let (to, to_end) = written(input, to_at)?;
            let after = skip_spaces(s, to_end);
            if !alternative_ends(s, after) {
                return None;
            }
            hyphen(version, to, build, out);
            return Some(after);
        }
        comparator(lead, version, build, out);
        read += 1;
        at = next;
        if alternative_ends(s, at) {
            break;
        }
    }
    // One word's bounds need no dedupe (see `Build::between`); several words' may.
    if read > 1 && out.len() - start > 1 {
        finish_alternative(out, start);
    }
    Some(at)
}

/// Appends the comparators of the hyphen range `from - to`: a lower and an upper bound,
/// either of which may be absent, and `*` for neither.
fn hyphen(from: Written<'_>, to: Written<'_>, build: &Build, out: &mut Comparators) {
    let [major, minor, _] = from.nums;
    let lower = match from.count {
        0 => None,
        3 => {
            // A full bound without a prerelease gets npm's `z`.
            let (text, pre) = match from.text {
                None => (build.z(), build.z_prerelease()),
                text => (text, from.pre),
            };
            // npm pastes a full lower bound into the text as written, where `>=v0.0.0` is no
            // `*`.
            if from.v {
                Some(build.full(Op::GreaterEq, from.nums, pre))
            } else {
                build.at_least(from.nums, text, pre)
            }
        }
        _ => build.at_least([major, minor, 0], build.z(), build.z_prerelease()),
    };
    let [major, minor, patch] = to.nums;
    let upper = match (to.count, to.text) {
        (0, _) => None,
        (1, _) => Some(build.below([major + 1, 0, 0])),
        (2, _) => Some(build.below([major, minor + 1, 0])),
        (_, None) if build.include_prerelease => Some(build.below([major, minor, patch + 1])),
        _ => Some(build.full(Op::LessEq, to.nums, to.pre)),
    };
    // As npm drops `*` beside another comparator; the bounds differ in their operators.
    match (lower, upper) {
        (None, None) => out.push(Comparator::ANY),
        (lower, upper) => lower.into_iter().chain(upper).for_each(|c| out.push(c)),
    }
}

/// Appends the comparators one word means (npm's desugaring, as in the [range docs](super)).
fn comparator(lead: Lead, w: Written<'_>, build: &Build, out: &mut Comparators) {
    let [major, minor, patch] = w.nums;
    let z = build.z();
    match (lead, w.count) {
        // `>*` and `<*` are npm's `<0.0.0-0`, which nothing satisfies; any other `*` is `*`.
        (Lead::Greater | Lead::Less, 0) => out.push(build.below([0, 0, 0])),
        (_, 0) => out.push(Comparator::ANY),
        (Lead::Caret, 3) => {
            let upper = match (major, minor) {
                (0, 0) => [0, 0, patch + 1],
                (0, _) => [0, minor + 1, 0],
                _ => [major + 1, 0, 0],
            };
            build.between(out, w.nums, w.text, w.pre, upper);
        }
        (Lead::Tilde, 3) => build.between(out, w.nums, w.text, w.pre, [major, minor + 1, 0]),
        // npm reads the text `>=0.0.0` as `*`, but not `>=v0.0.0`.
        (Lead::GreaterEq, 3) if !w.v => {
            let lower = build.at_least(w.nums, w.text, w.pre);
            out.push(lower.unwrap_or(Comparator::ANY));
        }
        (lead, 3) => out.push(build.full(lead.op(), w.nums, w.pre)),
        // Partial versions (the missing parts are 0 in `nums`).
        (Lead::Greater | Lead::GreaterEq, _) => {
            let nums = match (lead, w.count) {
                (Lead::Greater, 1) => [major + 1, 0, 0],
                (Lead::Greater, _) => [major, minor + 1, 0],
                _ => [major, minor, 0],
            };
            out.push(
                build
                    .at_least(nums, z, build.z_prerelease())
                    .unwrap_or(Comparator::ANY),
            );
        }
        (Lead::Less, _) => out.push(build.below([major, minor, 0])),
        (Lead::LessEq, 1) => out.push(build.below([major + 1, 0, 0])),
        (Lead::LessEq, _) => out.push(build.below([major, minor + 1, 0])),
        (Lead::Exact | Lead::Tilde | Lead::Caret, 1) => {
            build.between(
                out,
                [major, 0, 0],
                z,
                build.z_prerelease(),
                [major + 1, 0, 0],
            );
        }
        (Lead::Caret, _) => {
            let upper = if major == 0 {
                [0, minor + 1, 0]
            } else {
                [major + 1, 0, 0]
            };
            build.between(out, [major, minor, 0], z, build.z_prerelease(), upper);
        }
        (Lead::Exact | Lead::Tilde, _) => {
            build.between(
                out,
                [major, minor, 0],
                z,
                build.z_prerelease(),
                [major, minor + 1, 0],
            );
        }
    }
}

/// The operator of the word at `at` and where what follows it starts (`==` and other leads
/// the general path must read leave a rest that [`written`] refuses).
fn lead(s: &[u8], at: usize) -> (Lead, usize) {
    match s.get(at..).unwrap_or_default() {
        [b'~', b'>', ..] => (Lead::Tilde, at + 2),
        [b'>', b'=', ..] => (Lead::GreaterEq, at + 2),
        [b'<', b'=', ..] => (Lead::LessEq, at + 2),
        [b'^', ..] => (Lead::Caret, at + 1),
        [b'~', ..] => (Lead::Tilde, at + 1),
        [b'>', ..] => (Lead::Greater, at + 1),
        [b'<', ..] => (Lead::Less, at + 1),
        [b'=', ..] => (Lead::Exact, at + 1),
        _ => (Lead::Exact, at),
    }
}

/// Reads, from `at` to the end of its word (see [`word_ends`]), `v?`, one to three
/// dot-separated parts (numbers, then wildcards to the end: `1.x`, `1.2.*`, `*`) and, after
/// three numbers, `-` and a strict prerelease. Returns it and where the word ends.
fn written(input: &str, at: usize) -> Option<(Written<'_>, usize)> {
    let s = input.as_bytes();
    let v = s.get(at) == Some(&b'v');
    let mut at = at + usize::from(v);
    let mut w = Written {
        v,
        nums: [0; 3],
        count: 0,
        text: None,
        pre: Prerelease::EMPTY,
    };
    loop {
        match s.get(at..).unwrap_or_default() {
            // Once a part is a wildcard, all the rest must be.
            [b'x' | b'X' | b'*', ..] => return wildcards(s, at, 3 - w.count).map(|end| (w, end)),
            // A leading zero.
            [b'0', d, ..] if d.is_ascii_digit() => return None,
            _ => {}
        }
        let first = at;
        let mut n = 0;
        while let Some(&d) = s.get(at)
            && d.is_ascii_digit()
        {
            if at - first == MAX_DIGITS {
                return None;
            }
            n = n * 10 + u64::from(d - b'0');
            at += 1;
        }
        if at == first {
            return None;
        }
        w.nums[w.count] = n;
        w.count += 1;
        match s.get(at) {
            None | Some(b' ' | b'|') => return Some((w, at)),
            Some(b'.') if w.count < 3 => at += 1,
            Some(b'-') if w.count == 3 => {
                let from = at + 1;
                let end = from
                    + s[from..]
                        .iter()
                        .position(|&b| b == b' ' || b == b'|')
                        .unwrap_or(s.len() - from);
                let pre = &s[from..end];
                if !is_strict_prerelease(pre) {
                    return None;
                }
                w.pre = match pre {
                    b"0" => ZERO_PRERELEASE.clone(),
                    // Never `None`: the text was just checked (and is ASCII, so `from..end`
                    // are character boundaries).
                    _ => Prerelease::new(input.get(from..end)?).ok()?,
                };
                w.text = Some(pre);
                return Some((w, end));
            }
            _ => return None,
        }
    }
}

/// Reads one to `most` wildcards joined by dots from `at` to the end of the word; returns
/// where the word ends.
fn wildcards(s: &[u8], mut at: usize, most: usize) -> Option<usize> {
    for read in 1..=most {
        if !matches!(s.get(at), Some(b'x' | b'X' | b'*')) {
            return None;
        }
        at += 1;
        match s.get(at) {
            Some(b'.') if read < most => at += 1,
            _ => break,
        }
    }
    word_ends(s, at).then_some(at)
}

/// Builds the comparators of one parse.
struct Build {
    include_prerelease: bool,
}

impl Build {
    /// npm's `z`: the `-0` prerelease of lower bounds when prereleases are included.
    fn z(&self) -> Option<&'static [u8]> {
        self.include_prerelease.then_some(b"0".as_slice())
    }

    /// [`Build::z`] as a prerelease.
    fn z_prerelease(&self) -> Prerelease {
        if self.include_prerelease {
            ZERO_PRERELEASE.clone()
        } else {
            Prerelease::EMPTY
        }
    }

    /// `op nums-pre`.
    fn full(&self, op: Op, nums: [u64; 3], pre: Prerelease) -> Comparator {
        Comparator::new(op, nums, pre)
    }

    /// `>=nums-pre` (`text` is `pre` as written), or `None` for npm's `>=0.0.0` (`>=0.0.0-0`
    /// with prereleases included), which it reads as `*`.
    fn at_least(&self, nums: [u64; 3], text: Option<&[u8]>, pre: Prerelease) -> Option<Comparator> {
        (nums != [0, 0, 0] || text != self.z()).then(|| self.full(Op::GreaterEq, nums, pre))
    }

    /// `<nums-0`: below every prerelease of `nums`.
    fn below(&self, nums: [u64; 3]) -> Comparator {
        Comparator::new(Op::Less, nums, ZERO_PRERELEASE.clone())
    }

    /// Pushes `>=nums-pre <upper-0`, the two bounds of one word. A lower bound npm reads as
    /// `*` is left out, as npm drops `*` beside another comparator; the bounds differ in their
    /// operators and the upper one is never `<0.0.0-0`, so npm's dedupe has nothing to do.
    fn between(
        &self,
        out: &mut Comparators,
        nums: [u64; 3],
        text: Option<&[u8]>,
        pre: Prerelease,
        upper: [u64; 3],
    ) {
        if let Some(lower) = self.at_least(nums, text, pre) {
            out.push(lower);
        }
        out.push(self.below(upper));
    }
}

#[cfg(test)]
mod tests;
