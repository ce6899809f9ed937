//! [`VersionList`]: versions read once, each with its packed key, for many range tests.

use super::version::pack_version;
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
pub struct VersionList {
    versions: Vec<Version>,
    /// `keys[i]` is the packed key of `versions[i]`, or [`UNPACKED`].
    keys: Vec<u64>,
}

impl VersionList {
    /// The list of `versions`, in their order.
    pub fn new(versions: Vec<Version>) -> VersionList {
        let keys = versions
            .iter()
            .map(|v| pack_version(v).unwrap_or(UNPACKED))
            .collect();
        VersionList { versions, keys }
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
