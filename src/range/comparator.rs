//! One primitive comparison of a range (`>=1.2.3`), with its version's packed key.

use super::version::{ZERO_PRERELEASE, compare_parts, pack_parts};
use semver::{BuildMetadata, Prerelease, Version};
use std::cmp::Ordering;
use std::fmt;

/// The operator of a [`Comparator`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// No operator: any version (`*`, printed as nothing inside a range).
    Any,
    /// `=` (printed as nothing): the same version, build metadata ignored.
    Exact,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEq,
    /// `<`.
    Less,
    /// `<=`.
    LessEq,
}

impl Op {
    /// The operator of node-semver's `GTLT` text (`""`, `=`, `<`, `<=`, `>`, `>=`).
    pub(super) fn from_gtlt(s: &[u8]) -> Op {
        match s {
            b">" => Op::Greater,
            b">=" => Op::GreaterEq,
            b"<" => Op::Less,
            b"<=" => Op::LessEq,
            _ => Op::Exact,
        }
    }

    /// The operator as npm prints it in a canonical range (`""` for [`Op::Exact`] and
    /// [`Op::Any`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Any | Op::Exact => "",
            Op::Greater => ">",
            Op::GreaterEq => ">=",
            Op::Less => "<",
            Op::LessEq => "<=",
        }
    }
}

/// One primitive comparison, such as `>=1.2.3` or `<2.0.0-0`.
///
/// It keeps its version's parts, never build metadata (npm ignores it): one identifier
/// fewer to build and drop than a [`Version`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Comparator {
    /// The version's packed key (see [`pack_release`](super::version::pack_release); the low bit is clear for a prerelease),
    /// or [`NO_KEY`] when a number is too large to pack. First, so that the derived equality
    /// (used to drop duplicates while parsing) usually decides on one integer.
    pub(super) key: u64,
    pub(super) op: Op,
    /// `major.minor.patch`.
    pub(super) nums: [u64; 3],
    pub(super) pre: Prerelease,
}

/// [`Comparator::key`] of a version that does not pack.
pub(super) const NO_KEY: u64 = u64::MAX;

impl Comparator {
    /// `*`: satisfied by every version.
    pub(super) const ANY: Comparator = Comparator {
        op: Op::Any,
        nums: [0; 3],
        pre: Prerelease::EMPTY,
        key: 0,
    };

    /// `op nums-pre` (no prerelease when `pre` is empty).
    #[inline]
    pub(super) fn new(op: Op, nums: [u64; 3], pre: Prerelease) -> Comparator {
        let key = pack_parts(nums, pre.is_empty()).unwrap_or(NO_KEY);
        Comparator { key, op, nums, pre }
    }

    pub(super) fn null_set() -> Comparator {
        Comparator::new(Op::Less, [0; 3], ZERO_PRERELEASE.clone())
    }

    /// Does the release whose [`pack_release`](super::version::pack_release) key is `key` satisfy this comparison? Only
    /// meaningful when `self.key != NO_KEY`.
    #[inline]
    pub(super) fn matches_key(&self, key: u64) -> bool {
        match self.op {
            Op::Any => true,
            Op::Exact => key == self.key,
            Op::Greater => key > self.key,
            Op::GreaterEq => key >= self.key,
            Op::Less => key < self.key,
            Op::LessEq => key <= self.key,
        }
    }

    /// Is this `<0.0.0-0`, npm's spelling of "nothing"?
    pub(super) fn is_null_set(&self) -> bool {
        self.op == Op::Less && self.nums == [0; 3] && self.pre.as_str() == "0"
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The version compared against (without build metadata), or `None` for `*`.
    pub fn version(&self) -> Option<Version> {
        let [major, minor, patch] = self.nums;
        (self.op != Op::Any).then(|| Version {
            major,
            minor,
            patch,
            pre: self.pre.clone(),
            build: BuildMetadata::EMPTY,
        })
    }

    /// Does `version` satisfy this comparison (build metadata ignored, no prerelease rule)?
    #[inline]
    pub fn matches(&self, version: &Version) -> bool {
        let ord = compare_parts(
            [version.major, version.minor, version.patch],
            &version.pre,
            self.nums,
            &self.pre,
        );
        match self.op {
            Op::Any => true,
            Op::Exact => ord == Ordering::Equal,
            Op::Greater => ord == Ordering::Greater,
            Op::GreaterEq => ord != Ordering::Less,
            Op::Less => ord == Ordering::Less,
            Op::LessEq => ord != Ordering::Greater,
        }
    }
}

impl fmt::Display for Comparator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.op == Op::Any {
            return f.write_str("*");
        }
        let [major, minor, patch] = self.nums;
        write!(f, "{}{major}.{minor}.{patch}", self.op.as_str())?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

/// The inclusive interval of release keys that satisfy every comparator of `set` (`lo > hi`
/// when none does). Only meaningful when every comparator packs.
pub(super) fn release_interval(set: &[Comparator]) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, u64::MAX);
    for c in set {
        let (l, h) = match c.op {
            Op::Any => (0, u64::MAX),
            Op::Exact => (c.key, c.key),
            Op::Greater => (c.key.saturating_add(1), u64::MAX),
            Op::GreaterEq => (c.key, u64::MAX),
            // `<0.0.0-0` has key 0: nothing is below it.
            Op::Less => match c.key.checked_sub(1) {
                Some(h) => (0, h),
                None => (1, 0),
            },
            Op::LessEq => (0, c.key),
        };
        lo = lo.max(l);
        hi = hi.min(h);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range::{Range, parse_version};

    fn comparators(range: &str) -> Vec<Comparator> {
        let range = Range::parse(range).unwrap();
        range.alternatives().flatten().cloned().collect()
    }

    #[test]
    fn keeps_the_version_without_build_metadata() {
        let [lower, upper] = <[Comparator; 2]>::try_from(comparators("^1.2.3-rc.1")).unwrap();
        assert_eq!(lower.op(), Op::GreaterEq);
        assert_eq!(lower.version(), parse_version("1.2.3-rc.1"));
        assert_eq!(lower.to_string(), ">=1.2.3-rc.1");
        assert_eq!(upper.op(), Op::Less);
        assert_eq!(upper.version(), parse_version("2.0.0-0"));
        assert_eq!(upper.to_string(), "<2.0.0-0");
        let [any] = <[Comparator; 1]>::try_from(comparators("*")).unwrap();
        assert_eq!((any.op(), any.version()), (Op::Any, None));
        assert_eq!(any.to_string(), "*");
    }

    #[test]
    fn compares_by_precedence_ignoring_build_metadata() {
        let [exact] = <[Comparator; 1]>::try_from(comparators("1.2.3")).unwrap();
        assert!(exact.matches(&parse_version("1.2.3+build.7").unwrap()));
        assert!(!exact.matches(&parse_version("1.2.3-rc.1").unwrap()));
        let [lower, _] = <[Comparator; 2]>::try_from(comparators("^1.2.3-rc.1")).unwrap();
        assert!(lower.matches(&parse_version("1.2.3-rc.2").unwrap()));
        assert!(lower.matches(&parse_version("1.2.3").unwrap()));
        assert!(!lower.matches(&parse_version("1.2.3-beta").unwrap()));
        assert!(Comparator::null_set().is_null_set());
        assert!(!exact.is_null_set());
    }
}
