//! [`VersionList`]: versions read once, each with its packed key, for many range tests.

use super::version::{pack_version, triple_bit};
use semver::Version;

/// The key of a version whose numbers are too large to pack: no packed key is this (keys are
/// below 2⁶¹), and its set low bit would read as a release, so every fast path checks for it.
pub(super) const UNPACKED: u64 = u64::MAX;

/// Versions parsed once and kept with their packed keys, so that testing a range against
/// them ([`Range::max_satisfying_in`](super::Range::max_satisfying_in)) compares integers
/// instead of reading each [`Version`] again: the counterpart of handing npm's
/// `maxSatisfying` pre-parsed `SemVer` objects.
///
/// The order is the caller's and is kept; among versions of equal precedence the first one
/// wins, as with npm.
///
/// # Examples
///
/// ```
/// use runstart::range::{parse_version, Range, VersionList};
///
/// let list: VersionList = ["1.2.3", "1.3.0-rc.1", "1.2.9", "2.0.0"]
///     .iter()
///     .filter_map(|v| parse_version(v))
///     .collect();
/// let range = Range::parse("^1.2")?;
/// assert_eq!(range.max_satisfying_in(&list).map(ToString::to_string), Some("1.2.9".into()));
/// assert_eq!(list.versions().len(), 4);
/// # Ok::<(), runstart::range::RangeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[repr(C)]
pub struct VersionList {
    // `repr(C)`, hot fields first: a pre-parsed `max_satisfying_in` on releases reads only the
    // first 64 bytes (the sorted releases, the prerelease summary, the versions' address).
    /// The releases whose numbers pack, as `(key, position in versions)`, highest key first
    /// and, among equal keys, in list order: the first entry inside a range's release interval
    /// is the answer among releases (see [`highest_release_in`]).
    releases: Vec<(u64, u32)>,
    /// The [`triple_bit`]s of the prereleases' keys: a range none of whose comparators' triples
    /// has one of these bits is settled by `releases` alone (every such prerelease fails npm's
    /// prerelease rule).
    prerelease_triples: u64,
    /// Some version's numbers are too large to pack.
    any_unpacked: bool,
    versions: Vec<Version>,
    /// The positions of the other versions (prereleases, and versions too large to pack), in
    /// list order.
    others: Vec<u32>,
    /// `keys[i]` is the packed key of `versions[i]`, or [`UNPACKED`].
    keys: Vec<u64>,
}

impl VersionList {
    /// The list of `versions`, in their order.
    pub fn new(versions: Vec<Version>) -> VersionList {
        let keys: Vec<u64> = versions
            .iter()
            .map(|v| pack_version(v).unwrap_or(UNPACKED))
            .collect();
        let mut releases = Vec::new();
        let mut others = Vec::new();
        let mut prerelease_triples = 0;
        let mut any_unpacked = false;
        for (i, &key) in keys.iter().enumerate() {
            // More than 4 billion versions cannot be held in memory; saturate.
            let position = u32::try_from(i).unwrap_or(u32::MAX);
            if key != UNPACKED && key & 1 == 1 {
                releases.push((key, position));
                continue;
            }
            others.push(position);
            if key == UNPACKED {
                any_unpacked = true;
            } else {
                prerelease_triples |= triple_bit(key);
            }
        }
        // Stable: equal keys (build metadata only differs) keep list order, so the first wins.
        releases.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
        VersionList {
            versions,
            keys,
            releases,
            others,
            prerelease_triples,
            any_unpacked,
        }
    }

    /// The versions, in the order given.
    pub fn versions(&self) -> &[Version] {
        &self.versions
    }

    /// How many versions there are.
    pub fn len(&self) -> usize {
        self.versions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// Each version with its packed key (`None` when too large to pack).
    pub(super) fn keyed(&self) -> impl Iterator<Item = (&Version, Option<u64>)> {
        self.versions
            .iter()
            .zip(&self.keys)
            .map(|(v, &k)| (v, (k != UNPACKED).then_some(k)))
    }

    /// The packed keys, [`UNPACKED`] for a version too large to pack.
    pub(super) fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The packable releases, highest first (see the field).
    pub(super) fn releases(&self) -> &[(u64, u32)] {
        &self.releases
    }

    /// The positions of the versions that are not releases with a packed key, in list order.
    pub(super) fn others(&self) -> &[u32] {
        &self.others
    }

    /// Whether some version needs the general test against a range whose comparators' triples
    /// have the bits `triples`: its numbers are too large to pack, or it is a prerelease that
    /// may share its `major.minor.patch` with a comparator carrying a prerelease.
    pub(super) fn needs_general(&self, triples: u64) -> bool {
        self.any_unpacked | (self.prerelease_triples & triples != 0)
    }
}

/// The stored position of the highest release inside one of `intervals` (inclusive key
/// intervals, as [`Range::release_intervals`](super::Range::release_intervals) gives), in
/// `releases`: `(key, position)` pairs sorted by key, highest first, equal keys in the order
/// that decides between them. The first pair inside an interval is the best of that interval,
/// and the best of all is the one nearest the front.
///
/// O(a·log n) for a intervals over n releases.
/// (The catalog's `Versions::best` searches its own releases the same way, inline: written
/// through this function, its hot path measured 7% slower.)
#[inline]
pub(super) fn highest_release_in(
    releases: &[(u64, u32)],
    intervals: impl IntoIterator<Item = (u64, u64)>,
) -> Option<u32> {
    intervals
        .into_iter()
        .filter_map(|(lo, hi)| {
            let at = releases.partition_point(|&(key, _)| key > hi);
            match releases.get(at) {
                Some(&(key, position)) if key >= lo => Some((at, position)),
                _ => None,
            }
        })
        .min_by_key(|&(at, _)| at)
        .map(|(_, position)| position)
}

impl FromIterator<Version> for VersionList {
    fn from_iter<I: IntoIterator<Item = Version>>(iter: I) -> Self {
        VersionList::new(iter.into_iter().collect())
    }
}

impl From<Vec<Version>> for VersionList {
    fn from(versions: Vec<Version>) -> Self {
        VersionList::new(versions)
    }
}
