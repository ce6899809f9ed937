//! One primitive comparison of a range (`>=1.2.3`), with its version's packed key.

use super::version::{ZERO_PRERELEASE, compare_parts, pack_parts, unpack_parts};
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
    pub(super) pre: Prerelease,
    /// `major.minor.patch` when the key cannot hold them (a number of 2²⁰ or more), else
    /// `None` and the key holds them. Boxed, as such numbers are rare: a comparator is 32
    /// bytes rather than 48, so a range of two is kept inline in 64.
    wide: Option<Box<[u64; 3]>>,
    pub(super) op: Op,
}

/// [`Comparator::key`] of a version that does not pack.
pub(super) const NO_KEY: u64 = u64::MAX;

impl Comparator {
    /// `*`: satisfied by every version.
    pub(super) const ANY: Comparator = Comparator {
        key: 0,
        pre: Prerelease::EMPTY,
        wide: None,
        op: Op::Any,
    };

    /// `op nums-pre` (no prerelease when `pre` is empty).
    #[inline]
    pub(super) fn new(op: Op, nums: [u64; 3], pre: Prerelease) -> Comparator {
        let (key, wide) = match pack_parts(nums, pre.is_empty()) {
            Some(key) => (key, None),
            None => (NO_KEY, Some(Box::new(nums))),
        };
        Comparator { key, pre, wide, op }
    }

    /// `major.minor.patch` of the version compared against (`0.0.0` for `*`).
    #[inline]
    pub(super) fn nums(&self) -> [u64; 3] {
        match &self.wide {
            None => unpack_parts(self.key),
            Some(nums) => **nums,
        }
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
        self.op == Op::Less && self.key == 0 && self.pre.as_str() == "0"
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The version compared against (without build metadata), or `None` for `*`.
    pub fn version(&self) -> Option<Version> {
        let [major, minor, patch] = self.nums();
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
            self.nums(),
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
        let [major, minor, patch] = self.nums();
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

    #[test]
    fn keeps_numbers_beyond_the_packed_key_beside_it() {
        // 2^20 - 1 still packs; 2^20 and MAX_SAFE_INTEGER do not.
        let [packed] = <[Comparator; 1]>::try_from(comparators("1048575.2.3")).unwrap();
        assert_eq!(
            (packed.nums(), packed.wide.is_none()),
            ([1_048_575, 2, 3], true)
        );
        let [wide, _] = <[Comparator; 2]>::try_from(comparators("^1048576.0.7-rc.1")).unwrap();
        assert_eq!((wide.key, wide.nums()), (NO_KEY, [1_048_576, 0, 7]));
        assert_eq!(wide.to_string(), ">=1048576.0.7-rc.1");
        assert!(wide.matches(&parse_version("1048576.0.7").unwrap()));
        assert!(!wide.matches(&parse_version("1048575.9.9").unwrap()));
        let [max] = <[Comparator; 1]>::try_from(comparators("<=9007199254740991.1.2")).unwrap();
        assert_eq!(max.version(), parse_version("9007199254740991.1.2"));
        // Duplicates of a wide comparator are still found (npm's dedupe).
        assert_eq!(
            Range::parse("1048576.0.0 1048576.0.0").unwrap().to_string(),
            "1048576.0.0"
        );
    }
}
