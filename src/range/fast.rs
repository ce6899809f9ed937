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
pub(super) fn parse(input: &str, include_prerelease: bool) -> Option<(Comparators, Vec<u32>)> {
    let bytes = input.as_bytes();
    if bytes.len() > MAX_LEN {
        return None;
    }
    let build = Build { include_prerelease };
    let mut out = Comparators::new();
    let mut ends = Vec::new();
    let mut rest = bytes;
    loop {
        let (part, next) = split_alternatives(rest)?;
        alternative(part, &build, &mut out)?;
        let Some(next) = next else { break };
        ends.push(u32::try_from(out.len()).unwrap_or(u32::MAX));
        rest = next;
    }
    if !ends.is_empty() {
        simplify_union(&mut out, &mut ends);
    }
    Some((out, ends))
}

/// The text before the first `||` and what follows it. A `|` that is not part of a `||` is
/// in no valid range: `None`.
fn split_alternatives(s: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    match s.iter().position(|&b| b == b'|') {
        None => Some((s, None)),
        Some(at) => (s.get(at + 1) == Some(&b'|')).then(|| (&s[..at], Some(&s[at + 2..]))),
    }
}

/// Appends the comparators of one alternative (text between `||`, spaces not yet trimmed),
/// deduplicated as npm does.
fn alternative(part: &[u8], build: &Build, out: &mut Comparators) -> Option<()> {
    let mut words = part.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let Some(mut word) = words.next() else {
        // An empty alternative is `*`.
        out.push(Comparator::ANY);
        return Some(());
    };
    let mut next = words.next();
    if next == Some(b"-".as_slice()) {
        // npm reads a hyphen range only as the whole alternative; `1 - 2 3` is no range.
        let to = words.next()?;
        return match words.next() {
            None => hyphen(word, to, build, out),
            Some(_) => None,
        };
    }
    let start = out.len();
    let mut read = 0;
    loop {
        let (lead, mut version) = lead(word);
        if version.is_empty() {
            // An operator alone: npm removes the space after it. Not after a lone `=`, where
            // whether it does depends on the word before (`1.2.3-dev = 1` keeps it).
            if lead == Lead::Exact {
                return None;
            }
            version = next?;
            next = words.next();
        }
        comparator(lead, written(version)?, build, out);
        read += 1;
        let Some(following) = next else { break };
        word = following;
        next = words.next();
    }
    // One word's bounds need no dedupe (see `Build::between`); several words' may.
    if read > 1 && out.len() - start > 1 {
        finish_alternative(out, start);
    }
    Some(())
}

/// Appends the comparators of the hyphen range `from - to`: a lower and an upper bound,
/// either of which may be absent, and `*` for neither.
fn hyphen(from: &[u8], to: &[u8], build: &Build, out: &mut Comparators) -> Option<()> {
    let (from, to) = (written(from)?, written(to)?);
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
    Some(())
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

/// The operator at the start of `word` and what follows it (`==` and other leads the general
/// path must read leave a rest that [`written`] refuses).
fn lead(word: &[u8]) -> (Lead, &[u8]) {
    match word {
        [b'^', rest @ ..] => (Lead::Caret, rest),
        [b'~', b'>', rest @ ..] | [b'~', rest @ ..] => (Lead::Tilde, rest),
        [b'>', b'=', rest @ ..] => (Lead::GreaterEq, rest),
        [b'<', b'=', rest @ ..] => (Lead::LessEq, rest),
        [b'>', rest @ ..] => (Lead::Greater, rest),
        [b'<', rest @ ..] => (Lead::Less, rest),
        [b'=', rest @ ..] => (Lead::Exact, rest),
        _ => (Lead::Exact, word),
    }
}

/// Reads all of `bytes` as `v?`, one to three dot-separated parts (numbers, then wildcards
/// to the end: `1.x`, `1.2.*`, `*`) and, after three numbers, `-` and a strict prerelease.
fn written(bytes: &[u8]) -> Option<Written<'_>> {
    let (v, mut rest) = match bytes {
        [b'v', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    let mut w = Written {
        v,
        nums: [0; 3],
        count: 0,
        text: None,
        pre: Prerelease::EMPTY,
    };
    loop {
        match rest {
            // Once a part is a wildcard, all the rest must be.
            [b'x' | b'X' | b'*', ..] => return wildcards(rest, 3 - w.count).then_some(w),
            // A leading zero.
            [b'0', d, ..] if d.is_ascii_digit() => return None,
            _ => {}
        }
        let mut digits = 0;
        let mut n = 0;
        while let Some(&d) = rest.get(digits)
            && d.is_ascii_digit()
        {
            if digits == MAX_DIGITS {
                return None;
            }
            n = n * 10 + u64::from(d - b'0');
            digits += 1;
        }
        if digits == 0 {
            return None;
        }
        w.nums[w.count] = n;
        w.count += 1;
        rest = &rest[digits..];
        match rest {
            [] => return Some(w),
            [b'.', tail @ ..] if w.count < 3 => rest = tail,
            [b'-', pre @ ..] if w.count == 3 && is_strict_prerelease(pre) => {
                w.pre = match pre {
                    b"0" => ZERO_PRERELEASE.clone(),
                    // Never `None`: the text was just checked.
                    _ => Prerelease::new(std::str::from_utf8(pre).ok()?).ok()?,
                };
                w.text = Some(pre);
                return Some(w);
            }
            _ => return None,
        }
    }
}

/// Is `bytes` one to `most` wildcards joined by dots, and nothing else?
fn wildcards(bytes: &[u8], most: usize) -> bool {
    let wild = |b: u8| matches!(b, b'x' | b'X' | b'*');
    match *bytes {
        [a] => wild(a),
        [a, b'.', b] => most >= 2 && wild(a) && wild(b),
        [a, b'.', b, b'.', c] => most >= 3 && wild(a) && wild(b) && wild(c),
        _ => false,
    }
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
