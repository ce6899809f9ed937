//! npm-compatible semver ranges: [`Range::parse`], [`Range::satisfies`],
//! [`Range::max_satisfying`].
//!
//! # Which flavour
//!
//! Agents reference tools by an **npm** range (`../shared/spec/agents.md` §1.2), so this module
//! implements the range grammar of npm's [`semver`](https://github.com/npm/node-semver#ranges)
//! package, version 7.8, with its default options (`loose` off) and optionally
//! `includePrerelease`. It is *not* Cargo's flavour, which [`semver::VersionReq`] implements:
//! there a bare `1.2.3` means `^1.2.3`, `||` and hyphen ranges do not exist and comparators need
//! commas. Versions are plain [`semver::Version`]s; [`parse_version`] reads them with npm's
//! strict rules.
//!
//! # Grammar and desugaring
//!
//! A range is one or more alternatives joined by `||`; an alternative is a space-separated list
//! of comparators that must all hold. Each form desugars to primitive comparators, which is
//! also what [`Range`]'s `Display` prints (npm's `semver.validRange`):
//!
//! | written | means |
//! |---|---|
//! | `1.2.3`, `=1.2.3`, `v1.2.3` | exactly `1.2.3` |
//! | `>1.2.3`, `>=1.2.3`, `<1.2.3`, `<=1.2.3` | the comparison (a space after the operator is allowed) |
//! | `*`, `x`, `""`, `>=0.0.0` | `*`, any version |
//! | `1`, `1.x`, `1.*.*` | `>=1.0.0 <2.0.0-0` |
//! | `1.2`, `1.2.x` | `>=1.2.0 <1.3.0-0` |
//! | `>1`, `>1.2` | `>=2.0.0`, `>=1.3.0` |
//! | `<=1`, `<=1.2` | `<2.0.0-0`, `<1.3.0-0` |
//! | `~1.2.3`, `~>1.2.3` | `>=1.2.3 <1.3.0-0` |
//! | `~1.2`, `~1` | `>=1.2.0 <1.3.0-0`, `>=1.0.0 <2.0.0-0` |
//! | `^1.2.3`, `^0.2.3`, `^0.0.3` | `>=1.2.3 <2.0.0-0`, `>=0.2.3 <0.3.0-0`, `>=0.0.3 <0.0.4-0` |
//! | `1.2.3 - 2.3.4` | `>=1.2.3 <=2.3.4` |
//! | `1.2 - 2.3` | `>=1.2.0 <2.4.0-0` |
//! | `<1.x`, `>*` | `<0.0.0-0`, which nothing satisfies |
//!
//! The `-0` upper bounds keep prereleases of the next version out. Build metadata (`+build`) is
//! ignored everywhere. Duplicate comparators are dropped, `*` disappears next to other
//! comparators, an impossible alternative disappears from a union, and an alternative that is
//! `*` makes the whole union `*`. Numbers above 2⁵³−1 (JavaScript's `MAX_SAFE_INTEGER`) are
//! refused, as are versions longer than 256 characters.
//!
//! # The prerelease rule
//!
//! A version with a prerelease tag (`1.2.3-beta`) satisfies an alternative only if it satisfies
//! every comparator **and** some comparator of that alternative carries a prerelease on the same
//! `major.minor.patch`: `>=1.2.3-alpha` admits `1.2.3-beta` but not `1.2.4-beta`. The
//! `include_prerelease` option ([`RangeOptions::with_include_prerelease`]) turns the rule off and
//! makes x-ranges, carets and hyphen ranges start at `-0`.
//!
//! # Differences from node-semver
//!
//! - Loose mode (`{loose: true}`) is not implemented; its fixture rows are skipped.
//! - Ranges longer than [`MAX_RANGE_LENGTH`] (1024) bytes once whitespace runs are collapsed
//!   (and the ends trimmed), as npm reads them, are refused; node-semver has no cap. Padding
//!   of any length is accepted, in linear time.
//! - Numeric prerelease identifiers of 2⁵³ and more compare exactly here; node-semver compares
//!   them as JavaScript numbers, so it rounds them.
//! - node-semver 7.8 replaced some regexes; where its source was not at hand, its fixtures and
//!   npm's own answers decided (`../shared/conformance/semver`, 20,000 cases, all agreeing):
//!   build metadata of any length is stripped from each alternative before anything else
//!   (so `1.2.3+b - 2` is a hyphen range), a wildcard part may only be followed by
//!   wildcards (`1.x.5` is refused), a partial tilde (`~1.2`) starts at `-0` with
//!   `include_prerelease` and a full caret (`^0.0.3`) never does, and the space after an
//!   operator is removed by 7.8's `trimComparatorWhitespace` rules.
//!
//! # Cost
//!
//! Parsing is a handful of forward scans over the input, linear in its length (node-semver had
//! a regex denial of service, CVE-2022-25883). Inputs longer than [`MAX_RANGE_LENGTH`] bytes are
//! refused outright. Ranges in the grammar people write (comparators such as `^1.2.3`,
//! `>= 1.2`, `v1.0.0-rc.1` or `1.x`, separated by spaces or `||`, or a hyphen range of two
//! versions) are read in one pass instead of node-semver's chain of rewrites; 99% of the
//! conformance ranges are (about 1,300 instructions per range rather than 3,400). Parse once,
//! when an agent is loaded; [`Range::satisfies`] allocates nothing.
//! A range of one or two comparators (four in five) is stored without a heap allocation (a
//! comparator is 32 bytes). A release, and most prereleases, are tested on a packed integer key
//! of `major.minor.patch`; only a prerelease on the same triple as one of the range's
//! comparators compares identifiers.
//! Versions tested again and again are best read once into a [`VersionList`], which keeps
//! their keys: [`Range::max_satisfying_in`] then scans integers without a branch per version.

mod comparator;
mod error;
mod fast;
mod limits;
mod list;
mod parse;
mod scan;
mod small;
mod version;

pub use comparator::{Comparator, Op};
pub use error::{RangeError, RangeErrorKind};
pub use limits::{MAX_RANGE_LENGTH, MAX_SAFE_INTEGER, MAX_VERSION_LENGTH};
pub use list::VersionList;
pub use version::{compare_versions, parse_version};
pub(crate) use version::{is_exact_version, is_plain_version, pack_release};

use comparator::{NO_KEY, release_interval};
use semver::Version;
use small::Comparators;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use version::{pack_version, triple_bit};

/// Options of [`Range::parse_with`]. The default matches npm's defaults.
///
/// # Examples
///
/// ```
/// use runstart::range::{Range, RangeOptions};
///
/// let options = RangeOptions::new().with_include_prerelease(true);
/// let range = Range::parse_with("^1.2.3", options)?;
/// assert!(range.satisfies(&semver::Version::parse("1.3.0-rc.1")?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RangeOptions {
    /// npm's `includePrerelease`.
    pub include_prerelease: bool,
}

impl RangeOptions {
    /// npm's default options: `includePrerelease` off.
    pub const fn new() -> Self {
        RangeOptions {
            include_prerelease: false,
        }
    }

    /// npm's `includePrerelease` (default `false`): prerelease versions satisfy any range whose
    /// comparators they satisfy, and x-ranges, carets and hyphen ranges start at `-0`.
    #[must_use]
    pub const fn with_include_prerelease(mut self, yes: bool) -> Self {
        self.include_prerelease = yes;
        self
    }
}

/// A parsed npm range: alternatives (`||`) of comparator sets. See the [module docs](self).
///
/// `Display` prints npm's canonical form, exactly what `semver.validRange` returns;
/// parsing that text again gives an equal `Range`, with one npm quirk: a written `>=v0.0.0`
/// prints as `>=0.0.0`, which npm (and this parser) then reads as `*`. That admits the same
/// releases, but may change the prereleases admitted: `<0.0.0-x.7.z || >=v0.0.0` admits
/// `0.0.0-0` and its canonical form does not, as in npm.
/// The canonical form can be several times longer than what was written (`7` prints as
/// `>=7.0.0-0 <8.0.0-0`), so a range near [`MAX_RANGE_LENGTH`] may print a form that
/// [`Range::parse`] refuses as too long.
///
/// # Examples
///
/// ```
/// use runstart::range::{parse_version, Range};
///
/// let range = Range::parse("^1.2.3 || 2.x")?;
/// assert_eq!(range.to_string(), ">=1.2.3 <2.0.0-0||>=2.0.0 <3.0.0-0");
/// let versions: Vec<_> = ["1.9.0", "2.4.1", "3.0.0", "2.5.0-rc.1"]
///     .iter()
///     .filter_map(|v| parse_version(v))
///     .collect();
/// assert_eq!(range.max_satisfying(&versions).map(ToString::to_string), Some("2.4.1".into()));
/// # Ok::<(), runstart::range::RangeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Range {
    // `repr(C)`, hot fields first: what `max_satisfying_in` reads for a release (the ends, the
    // interval, the triples and the flags) sits in the first 56 bytes, ahead of the inline
    // comparators, so a sweep over many ranges touches one cache line of each, not two.
    /// End index (exclusive) in `comparators` of each alternative but the last, which ends at
    /// `comparators.len()`; empty for a single alternative, so that needs no allocation.
    ends: Vec<u32>,
    include_prerelease: bool,
    /// Every comparator's version fits [`pack_release`]'s 20-bit numbers, so versions can be
    /// checked on packed keys (see [`Range::satisfies`]).
    packable: bool,
    /// For a packable single alternative, the inclusive interval of the release keys it admits
    /// (`lo > hi` when empty), so a release is two integer comparisons; `(1, 0)` otherwise.
    release_lo: u64,
    release_hi: u64,
    /// One bit per `major.minor.patch` (see [`triple_bit`]) of the comparators that can decide
    /// a prerelease beyond its key: with `include_prerelease`, every comparator (`*` included);
    /// without it, those carrying a prerelease, as npm's prerelease rule asks for one on the
    /// version's own triple. A prerelease whose bit is clear is settled by its key alone.
    triples: u64,
    comparators: Comparators,
}

impl Range {
    /// Parses an npm range with npm's default options.
    ///
    /// # Errors
    ///
    /// [`RangeError`] (code `invalid-version-range`) where npm's `semver.validRange` returns
    /// null, and for input longer than [`MAX_RANGE_LENGTH`] bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::Range;
    ///
    /// assert_eq!(Range::parse("~1.2")?.to_string(), ">=1.2.0 <1.3.0-0");
    /// assert_eq!(Range::parse("")?.to_string(), "*");
    /// assert!(Range::parse("latest").is_err());
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Range, RangeError> {
        Range::parse_with(text, RangeOptions::new())
    }

    /// Parses an npm range with the given options.
    ///
    /// # Errors
    ///
    /// As [`Range::parse`].
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::{Range, RangeOptions};
    ///
    /// let options = RangeOptions::new().with_include_prerelease(true);
    /// assert_eq!(Range::parse_with("1 - 2", options)?.to_string(), ">=1.0.0-0 <3.0.0-0");
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn parse_with(text: &str, options: RangeOptions) -> Result<Range, RangeError> {
        // npm collapses whitespace runs before reading a range, so padding is not length: the
        // cap applies to the collapsed text (one linear scan, only for long inputs).
        if text.len() > MAX_RANGE_LENGTH {
            let collapsed = parse::collapsed_len(text);
            if collapsed > MAX_RANGE_LENGTH {
                return Err(RangeError::new(
                    RangeErrorKind::TooLong,
                    MAX_RANGE_LENGTH,
                    collapsed.to_string(),
                ));
            }
        }
        let (comparators, ends) = parse::parse(text, options.include_prerelease)?;
        Ok(Range::from_parsed(
            comparators,
            ends,
            options.include_prerelease,
        ))
    }

    /// The range of parsed comparators and alternative ends, with what its fast paths keep.
    fn from_parsed(comparators: Comparators, ends: Vec<u32>, include_prerelease: bool) -> Range {
        // One pass over the comparators for both summaries. A prerelease comparator's key is
        // even (and `*`'s, 0, is not one).
        let (packable, triples) =
            comparators
                .as_slice()
                .iter()
                .fold((true, 0), |(packable, triples), c| {
                    let decides = include_prerelease || (c.op != Op::Any && c.key & 1 == 0);
                    (
                        packable && (c.op == Op::Any || c.key != NO_KEY),
                        triples | if decides { triple_bit(c.key) } else { 0 },
                    )
                });
        let (release_lo, release_hi) = if packable && ends.is_empty() {
            release_interval(comparators.as_slice())
        } else {
            (1, 0)
        };
        Range {
            comparators,
            ends,
            include_prerelease,
            packable,
            release_lo,
            release_hi,
            triples,
        }
    }

    /// The options the range was parsed with.
    pub fn options(&self) -> RangeOptions {
        RangeOptions::new().with_include_prerelease(self.include_prerelease)
    }

    /// The alternatives, in order, each a non-empty slice of comparators that must all hold.
    pub fn alternatives(&self) -> Alternatives<'_> {
        Alternatives {
            comparators: self.comparators.as_slice(),
            ends: &self.ends,
            index: 0,
            start: 0,
        }
    }

    /// Is this `*`, satisfied by every version (prereleases only with `include_prerelease`)?
    pub fn is_any(&self) -> bool {
        matches!(self.comparators.as_slice(), [c] if c.op == Op::Any)
    }

    /// Does `version` satisfy the range, under npm's prerelease rule (see the
    /// [module docs](self#the-prerelease-rule))? Build metadata is ignored.
    ///
    /// # Complexity
    ///
    /// O(c) for c comparators; no allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::{parse_version, Range};
    ///
    /// let range = Range::parse(">=1.2.3-alpha <2")?;
    /// assert!(range.satisfies(&parse_version("1.2.3-beta").unwrap()));
    /// assert!(!range.satisfies(&parse_version("1.2.4-beta").unwrap()));
    /// assert!(range.satisfies(&parse_version("1.9.0").unwrap()));
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn satisfies(&self, version: &Version) -> bool {
        let answer = self
            .satisfies_fast(version, pack_version(version))
            .unwrap_or_else(|| self.satisfies_reference(version));
        debug_assert_eq!(
            answer,
            self.satisfies_reference(version),
            "the packed-key answer of {self} for {version} differs"
        );
        answer
    }

    /// [`Range::satisfies`] on the packed key of `version` (`pack_version`), when integers can
    /// tell; `None` sends the caller to the general path.
    ///
    /// A version `v` compares to a comparator version `c` as their keys do whenever their
    /// `major.minor.patch` triples differ, and on an equal triple when at least one is a release
    /// (`1.2.3` > `1.2.3-0`, which the low bit encodes). The prerelease rule never applies to a
    /// release. A prerelease needs (unless prereleases are included) a comparator carrying a
    /// prerelease on its own triple, whose key then equals the version's: most prereleases have
    /// none and are refused on that alone; the rest, and any tie on a triple, take the general
    /// path.
    #[inline]
    fn satisfies_fast(&self, version: &Version, key: Option<u64>) -> Option<bool> {
        if !self.packable {
            return None;
        }
        let key = key?;
        if key & 1 == 1 {
            return Some(self.satisfies_key(key));
        }
        let comparators = self.comparators.as_slice();
        let maybe_shared = self.triples & triple_bit(key) != 0;
        if self.include_prerelease {
            // Exact on keys unless some comparator (or `*`, key 0) shares the triple.
            let shared = maybe_shared && comparators.iter().any(|c| c.key >> 1 == key >> 1);
            return (!shared).then(|| self.satisfies_key(key));
        }
        if maybe_shared && comparators.iter().any(|c| c.key == key) {
            return None;
        }
        debug_assert!(!version.pre.is_empty());
        Some(false)
    }

    /// The releases the range admits, as inclusive intervals of [`pack_release`] keys, one per
    /// alternative (an empty interval has `lo > hi`). A release satisfies the range exactly when
    /// its key lies in one of them, so a sorted list of keys can be searched instead of scanned.
    /// `None` when a comparator's numbers are too large to pack.
    pub(crate) fn release_intervals(&self) -> Option<impl Iterator<Item = (u64, u64)> + '_> {
        if !self.packable {
            return None;
        }
        Some(self.alternatives().map(release_interval))
    }

    /// [`Range::satisfies`] for a release given as its [`pack_release`] key; `None` when a
    /// comparator's numbers are too large to pack.
    #[cfg(test)]
    fn satisfies_packed(&self, key: u64) -> Option<bool> {
        if !self.packable {
            return None;
        }
        Some(self.satisfies_key(key))
    }

    /// Is the version whose key is `key` inside the comparators of some alternative? For a
    /// packable range; the prerelease rule is the caller's.
    fn satisfies_key(&self, key: u64) -> bool {
        if self.ends.is_empty() {
            // The interval is the intersection of the comparators' key sets, so it answers
            // for any key the comparators' keys order correctly (see `satisfies_fast`).
            return self.release_lo <= key && key <= self.release_hi;
        }
        self.alternatives()
            .any(|set| set.iter().all(|c| c.matches_key(key)))
    }

    /// The general path of [`Range::satisfies`], without the packed fast path: what the fast
    /// path is checked against (in debug builds, on every call).
    fn satisfies_reference(&self, version: &Version) -> bool {
        self.alternatives()
            .any(|set| self.set_satisfied(set, version))
    }

    fn set_satisfied(&self, set: &[Comparator], version: &Version) -> bool {
        if !set.iter().all(|c| c.matches(version)) {
            return false;
        }
        if version.pre.is_empty() || self.include_prerelease {
            return true;
        }
        // npm's prerelease rule: some comparator must carry a prerelease on the same tuple.
        set.iter().any(|c| {
            c.op != Op::Any
                && !c.pre.is_empty()
                && c.nums() == [version.major, version.minor, version.patch]
        })
    }

    /// The highest version that satisfies the range, as npm's `semver.maxSatisfying`. Among
    /// versions of equal precedence (differing only in build metadata) the first one wins.
    ///
    /// # Complexity
    ///
    /// O(n·c) for n versions and c comparators; no allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::{parse_version, Range};
    ///
    /// let versions: Vec<_> = ["1.2.3", "1.2.4", "1.3.0"].iter().filter_map(|v| parse_version(v)).collect();
    /// let max = Range::parse("~1.2")?.max_satisfying(&versions);
    /// assert_eq!(max.map(ToString::to_string).as_deref(), Some("1.2.4"));
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn max_satisfying<'a, I>(&self, versions: I) -> Option<&'a Version>
    where
        I: IntoIterator<Item = &'a Version>,
    {
        self.best_satisfying(
            versions.into_iter().map(|v| (v, pack_version(v))),
            Ordering::Less,
        )
    }

    /// [`Range::max_satisfying`] over versions read once into a [`VersionList`]: the same
    /// answer, from the list's packed keys.
    ///
    /// # Complexity
    ///
    /// Without `include_prerelease` and with every comparator's numbers below 2²⁰: O(a·log n)
    /// integer comparisons for a alternatives over n versions (the list keeps its releases
    /// sorted), plus, only when some version's numbers are too large to pack or a prerelease
    /// may share its `major.minor.patch` with a comparator, one pass testing those versions in
    /// full. Else as [`Range::max_satisfying`]. No allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::{parse_version, Range, VersionList};
    ///
    /// let list: VersionList = ["1.2.3", "1.2.4-beta", "1.2.4", "1.3.0"]
    ///     .iter()
    ///     .filter_map(|v| parse_version(v))
    ///     .collect();
    /// let max = Range::parse(">=1.2.4-alpha <1.3")?.max_satisfying_in(&list);
    /// assert_eq!(max.map(ToString::to_string).as_deref(), Some("1.2.4"));
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn max_satisfying_in<'a>(&self, list: &'a VersionList) -> Option<&'a Version> {
        if !self.packable || self.include_prerelease {
            return self.best_satisfying(list.keyed(), Ordering::Less);
        }
        // The list keeps its releases sorted by key: the best release is a binary search per
        // alternative's interval (kept for one alternative, a few comparisons each for a union).
        let best = if self.ends.is_empty() {
            list::highest_release_in(list.releases(), [(self.release_lo, self.release_hi)])
        } else {
            list::highest_release_in(list.releases(), self.alternatives().map(release_interval))
        };
        let best = best.map(|position| position as usize);
        if list.needs_general(self.triples) {
            return self.max_with_general(list, best);
        }
        best.and_then(|i| list.versions().get(i))
    }

    /// [`Range::max_satisfying_in`] once the releases are searched: `best` is the highest
    /// release the keys settle; the versions they cannot settle (too large to pack, or a
    /// prerelease on the triple of a comparator carrying a prerelease, where identifiers
    /// decide) take the general test, in list order, so the first of equal precedence still
    /// wins.
    #[cold]
    fn max_with_general<'a>(
        &self,
        list: &'a VersionList,
        best: Option<usize>,
    ) -> Option<&'a Version> {
        let comparators = self.comparators.as_slice();
        let versions = list.versions();
        let keys = list.keys();
        let mut best = best;
        for &i in list.others() {
            let i = i as usize;
            let (Some(&key), Some(v)) = (keys.get(i), versions.get(i)) else {
                continue;
            };
            let general = key == list::UNPACKED
                || (self.triples & triple_bit(key) != 0
                    && comparators.iter().any(|c| c.key == key));
            if !general || !self.satisfies_reference(v) {
                continue;
            }
            let replace = match best.and_then(|b| versions.get(b).map(|bv| (b, bv))) {
                None => true,
                Some((b, bv)) => match compare_versions(bv, v) {
                    Ordering::Less => true,
                    Ordering::Equal => i < b,
                    Ordering::Greater => false,
                },
            };
            if replace {
                best = Some(i);
            }
        }
        best.and_then(|i| versions.get(i))
    }

    /// The lowest version that satisfies the range, as npm's `semver.minSatisfying`; the first
    /// one wins among equals.
    ///
    /// # Complexity
    ///
    /// O(n·c) for n versions and c comparators; no allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::range::{parse_version, Range};
    ///
    /// let versions: Vec<_> = ["1.2.3", "1.2.4", "1.3.0"].iter().filter_map(|v| parse_version(v)).collect();
    /// let min = Range::parse("1.2.x || 1.3")?.min_satisfying(&versions);
    /// assert_eq!(min.map(ToString::to_string).as_deref(), Some("1.2.3"));
    /// # Ok::<(), runstart::range::RangeError>(())
    /// ```
    pub fn min_satisfying<'a, I>(&self, versions: I) -> Option<&'a Version>
    where
        I: IntoIterator<Item = &'a Version>,
    {
        self.best_satisfying(
            versions.into_iter().map(|v| (v, pack_version(v))),
            Ordering::Greater,
        )
    }

    /// The first satisfying version that no later one replaces, where a later satisfying
    /// version replaces the best so far when the best compares to it as `replace_when`. Each
    /// version comes with its packed key, which serves both the range test and the comparison.
    fn best_satisfying<'a, I>(&self, versions: I, replace_when: Ordering) -> Option<&'a Version>
    where
        I: IntoIterator<Item = (&'a Version, Option<u64>)>,
    {
        let mut best: Option<(&'a Version, Option<u64>)> = None;
        for (v, key) in versions {
            let yes = self
                .satisfies_fast(v, key)
                .unwrap_or_else(|| self.satisfies_reference(v));
            if !yes {
                continue;
            }
            let replace = match best {
                None => true,
                // Distinct keys order as the versions do; equal keys of prereleases do not.
                Some((_, Some(best_key))) if key.is_some_and(|k| k != best_key) => {
                    key.is_some_and(|k| best_key.cmp(&k) == replace_when)
                }
                Some((b, _)) => compare_versions(b, v) == replace_when,
            };
            if replace {
                best = Some((v, key));
            }
        }
        best.map(|(v, _)| v)
    }
}

/// The alternatives of a [`Range`], in order: see [`Range::alternatives`].
#[derive(Debug, Clone)]
pub struct Alternatives<'a> {
    // Slices taken once, so a step reads no inline-or-heap tag.
    comparators: &'a [Comparator],
    ends: &'a [u32],
    index: usize,
    start: usize,
}

impl<'a> Iterator for Alternatives<'a> {
    type Item = &'a [Comparator];

    fn next(&mut self) -> Option<&'a [Comparator]> {
        let end = match self.ends.get(self.index) {
            Some(&end) => end as usize,
            None if self.index == self.ends.len() => self.comparators.len(),
            None => return None,
        };
        self.index += 1;
        let set = self.comparators.get(self.start..end).unwrap_or_default();
        self.start = end;
        Some(set)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.ends.len() + 1).saturating_sub(self.index);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Alternatives<'_> {}

impl fmt::Display for Range {
    /// npm's canonical form (`semver.validRange`): comparators joined by a space, alternatives
    /// by `||`, and `*` for a range that is only `*`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_any() {
            return f.write_str("*");
        }
        for (i, set) in self.alternatives().enumerate() {
            if i > 0 {
                f.write_str("||")?;
            }
            for (k, c) in set.iter().enumerate() {
                if k > 0 {
                    f.write_str(" ")?;
                }
                if c.op != Op::Any {
                    fmt::Display::fmt(c, f)?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Range {
    type Err = RangeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Range::parse(s)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod autotraits {
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn range_types_are_send_and_sync() {
        assert_send_sync::<super::Range>();
        assert_send_sync::<super::RangeError>();
    }
}
