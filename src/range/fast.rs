//! One pass for the ranges tool references are usually written as: `1.2.3`, `^1.2.3`,
//! `~1.2`, `1.x`, `>=2`, `<1.4.0`, `=1.0.0`.
//!
//! The general parser ([`super::parse`]) follows node-semver's chain of text rewrites, which
//! is what keeps its quirks right but costs a few thousand instructions even for `^1.2.3`.
//! A range that is one operator and one to three plain numbers (the last ones may be
//! wildcards, `1.x`) has no quirk to keep: no spaces to collapse, no build metadata, no
//! hyphen, no `||`, no prerelease. This module reads exactly that form and builds its
//! comparators directly; anything else (even a leading zero or a `v`) returns `None` and
//! takes the general path, which debug builds also run on every range this module answers,
//! to check that both agree (and a unit test, on some 300,000 simple forms and near misses).

use super::comparator::{Comparator, Op};
use super::small::Comparators;
use super::version::ZERO_PRERELEASE;
use semver::{BuildMetadata, Prerelease, Version};

/// At most this many digits per number: `10^15 - 1` and its successor stay below
/// `Number.MAX_SAFE_INTEGER`, so no number needs the general path's range checks.
const MAX_DIGITS: usize = 15;

/// The operator a simple range starts with.
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

/// The comparators of `input` (and no alternative ends) when it is one simple comparator
/// (see the [module docs](self)), as [`super::parse::parse`] gives them; else `None`.
///
/// Only a lone comparator is read here: reading lists and unions too was measured slower
/// overall, as every range that is not simple then paid for a longer look before the
/// general path.
pub(super) fn parse(input: &str, include_prerelease: bool) -> Option<(Comparators, Vec<u32>)> {
    let mut out = Comparators::new();
    comparator(input.as_bytes(), &Build { include_prerelease }, &mut out)?;
    Some((out, Vec::new()))
}

/// Appends the comparators of one simple comparator `token` (`^1.2.3`, `1.x`, `<2`) to
/// `out`; `None` when the token is not one.
fn comparator(token: &[u8], build: &Build, out: &mut Comparators) -> Option<()> {
    let (lead, rest) = lead(token);
    let (nums, count) = numbers(rest)?;
    let [major, minor, patch] = nums;
    match (lead, count) {
        (Lead::Exact, 3) => out.push(build.release(Op::Exact, nums)),
        (Lead::Greater, 3) => out.push(build.release(Op::Greater, nums)),
        (Lead::Less, 3) => out.push(build.release(Op::Less, nums)),
        (Lead::LessEq, 3) => out.push(build.release(Op::LessEq, nums)),
        // npm reads exactly `>=0.0.0` (without prereleases included) as `*`.
        (Lead::GreaterEq, 3) if nums == [0, 0, 0] && !build.include_prerelease => {
            out.push(Comparator::ANY);
        }
        (Lead::GreaterEq, 3) => out.push(build.release(Op::GreaterEq, nums)),
        // Partial versions: `>1` is `>=2.0.0`, `>1.2` is `>=1.3.0`.
        (Lead::Greater, 1) => out.push(build.lower([major + 1, 0, 0])?),
        (Lead::Greater, _) => out.push(build.lower([major, minor + 1, 0])?),
        (Lead::GreaterEq, _) => out.push(build.lower([major, minor, 0])?),
        (Lead::Less, _) => out.push(build.upper([major, minor, 0])),
        (Lead::LessEq, 1) => out.push(build.upper([major + 1, 0, 0])),
        (Lead::LessEq, _) => out.push(build.upper([major, minor + 1, 0])),
        (Lead::Exact | Lead::Tilde | Lead::Caret, 1) => {
            build.between(out, [major, 0, 0], [major + 1, 0, 0]);
        }
        (Lead::Exact | Lead::Tilde, _) if count == 2 => {
            build.between(out, [major, minor, 0], [major, minor + 1, 0]);
        }
        (Lead::Tilde, _) => {
            let lower = build.release(Op::GreaterEq, nums);
            build.push_lower(out, lower);
            out.push(build.upper([major, minor + 1, 0]));
        }
        (Lead::Caret, _) => {
            let upper = match (major, minor) {
                (0, 0) if count == 3 => [0, 0, patch + 1],
                (0, _) => [0, minor + 1, 0],
                _ => [major + 1, 0, 0],
            };
            if count == 2 {
                build.between(out, [major, minor, 0], upper);
            } else {
                let lower = build.release(Op::GreaterEq, nums);
                build.push_lower(out, lower);
                out.push(build.upper(upper));
            }
        }
        // Every count of an exact lead is matched above.
        (Lead::Exact, _) => return None,
    }
    Some(())
}

/// The operator at the start of `bytes` and what follows it (`~>`, `==` and other leads the
/// general path must read leave a rest that is no number).
fn lead(bytes: &[u8]) -> (Lead, &[u8]) {
    match bytes {
        [b'^', rest @ ..] => (Lead::Caret, rest),
        [b'~', rest @ ..] => (Lead::Tilde, rest),
        [b'>', b'=', rest @ ..] => (Lead::GreaterEq, rest),
        [b'<', b'=', rest @ ..] => (Lead::LessEq, rest),
        [b'>', rest @ ..] => (Lead::Greater, rest),
        [b'<', rest @ ..] => (Lead::Less, rest),
        [b'=', rest @ ..] => (Lead::Exact, rest),
        _ => (Lead::Exact, bytes),
    }
}

/// One to three dot-separated parts making up all of `bytes`: numbers (`0`, or a digit run
/// without a leading zero of at most [`MAX_DIGITS`] digits), then optionally wildcards (`x`,
/// `X`, `*`) up to the end (`1.x`, `1.2.*`), which mean what absent parts mean. Returns the
/// numbers (absent and wildcard parts 0) and how many there are.
fn numbers(bytes: &[u8]) -> Option<([u64; 3], usize)> {
    let mut nums = [0u64; 3];
    let mut count = 0;
    let mut rest = bytes;
    loop {
        if count > 0 && wildcards(rest, 3 - count) {
            return Some((nums, count));
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > MAX_DIGITS || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        nums[count] = rest[..digits]
            .iter()
            .fold(0, |n, &d| n * 10 + u64::from(d - b'0'));
        count += 1;
        rest = &rest[digits..];
        match rest {
            [] => return Some((nums, count)),
            [b'.', tail @ ..] if count < 3 => rest = tail,
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
        _ => false,
    }
}

/// Builds the comparators of one parse.
struct Build {
    include_prerelease: bool,
}

impl Build {
    /// `op` and the release `nums`.
    fn release(&self, op: Op, nums: [u64; 3]) -> Comparator {
        Comparator::new(op, version(nums, Prerelease::EMPTY))
    }

    /// `>=nums`, starting at `nums-0` when prereleases are included (npm's `z`); `None` for
    /// `>=0.0.0`, which npm reads as `*` and which the general path keeps alone.
    fn lower(&self, nums: [u64; 3]) -> Option<Comparator> {
        if nums == [0, 0, 0] {
            return None;
        }
        let pre = if self.include_prerelease {
            ZERO_PRERELEASE.clone()
        } else {
            Prerelease::EMPTY
        };
        Some(Comparator::new(Op::GreaterEq, version(nums, pre)))
    }

    /// `<nums-0`: below every prerelease of `nums`.
    fn upper(&self, nums: [u64; 3]) -> Comparator {
        Comparator::new(Op::Less, version(nums, ZERO_PRERELEASE.clone()))
    }

    /// `>=lower <upper-0`, where a lower bound of `0.0.0` (npm's `*`) is dropped, as npm
    /// drops a `*` beside another comparator.
    fn between(&self, out: &mut Comparators, lower: [u64; 3], upper: [u64; 3]) {
        if let Some(lower) = self.lower(lower) {
            out.push(lower);
        }
        out.push(self.upper(upper));
    }

    /// Pushes the full-version lower bound `lower` (`>=M.m.p`) unless it is exactly npm's
    /// `>=0.0.0` spelling of `*`, which is dropped beside the upper bound.
    fn push_lower(&self, out: &mut Comparators, lower: Comparator) {
        let is_any = !self.include_prerelease
            && lower.version.major == 0
            && lower.version.minor == 0
            && lower.version.patch == 0;
        if !is_any {
            out.push(lower);
        }
    }
}

fn version([major, minor, patch]: [u64; 3], pre: Prerelease) -> Version {
    Version {
        major,
        minor,
        patch,
        pre,
        build: BuildMetadata::EMPTY,
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_general;
    use super::*;

    /// Every range the one-pass reading answers, among simple forms and their near misses
    /// (odd leads, leading zeros, numbers at the size limits, wildcards anywhere, suffixes),
    /// gets the general path's comparators, with and without prereleases included.
    #[test]
    fn agrees_with_the_general_path() {
        let leads = [
            "", "=", "^", "~", "~>", ">", ">=", "<", "<=", "==", "v", ">=v", " ", "^ ",
        ];
        let parts = [
            "0",
            "1",
            "7",
            "10",
            "01",
            "x",
            "X",
            "*",
            "999999999999999",
            "1000000000000000",
            "",
        ];
        let suffixes = [
            "", "-0", "-beta.1", "+build", " ", ".", "x", " || 2", "||^0.1", " <3", " >=0.0.0",
            " 0", " || x", " ||", "  2",
        ];
        let mut answered = 0;
        let mut checked = 0;
        for lead in leads {
            for a in parts {
                for b in std::iter::once(None).chain(parts.map(Some)) {
                    for c in std::iter::once(None).chain(parts.map(Some)) {
                        if b.is_none() && c.is_some() {
                            continue;
                        }
                        let mut version = a.to_string();
                        for part in [b, c].into_iter().flatten() {
                            version.push('.');
                            version.push_str(part);
                        }
                        for suffix in suffixes {
                            let input = format!("{lead}{version}{suffix}");
                            for include_prerelease in [false, true] {
                                checked += 1;
                                if let Some(fast) = parse(&input, include_prerelease) {
                                    answered += 1;
                                    assert_eq!(
                                        parse_general(&input, include_prerelease),
                                        Ok(fast),
                                        "{input:?}, include_prerelease {include_prerelease}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 200_000, "{checked} inputs");
        assert!(
            answered > 5_000,
            "only {answered} of {checked} read in one pass"
        );
    }

    #[test]
    fn reads_the_common_forms_and_leaves_the_rest() {
        let canonical = |s: &str| {
            parse(s, false).map(|(c, _)| {
                c.as_slice()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        assert_eq!(canonical("^1.2.3").as_deref(), Some(">=1.2.3 <2.0.0-0"));
        assert_eq!(canonical("~0.2").as_deref(), Some(">=0.2.0 <0.3.0-0"));
        assert_eq!(canonical("^0.0.3").as_deref(), Some(">=0.0.3 <0.0.4-0"));
        assert_eq!(canonical("1.x").as_deref(), Some(">=1.0.0 <2.0.0-0"));
        assert_eq!(canonical("0").as_deref(), Some("<1.0.0-0"));
        assert_eq!(canonical(">=0.0.0").as_deref(), Some("*"));
        for general in [
            "",
            "*",
            ">=0",
            "1.2.3-beta",
            "1.x.2",
            "v1",
            "~>1",
            "01.2.3",
            "1 - 2",
            " 1",
            "1  2",
            "1 ||  2",
            "1 |||| 2",
            "||1",
            "^1 || 2.x",
            ">=1.2 <1.4",
        ] {
            assert_eq!(canonical(general), None, "{general:?}");
        }
    }
}
