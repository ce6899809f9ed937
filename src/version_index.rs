//! [`VersionIndex`]: the versions of one id, highest first, each with its value — the one
//! version index of the crate (the catalog's tools, a compiled pack's blocks, a tenant's
//! agents and blocks).

use crate::range::{Range, compare_versions};
use semver::Version;

/// The versions of one id (a tool, a data block, an agent), highest precedence first, each
/// with its value. One version appears once: inserting a version already present replaces
/// its value, as registering a version again replaces it.
///
/// Kept sorted at insert, read many times: [`VersionIndex::max_satisfying`] is the first
/// entry in range.
#[derive(Debug, Clone)]
pub(crate) struct VersionIndex<T> {
    entries: Vec<(Version, T)>,
}

impl<T> Default for VersionIndex<T> {
    fn default() -> Self {
        VersionIndex {
            entries: Vec::new(),
        }
    }
}

/// The order entries are kept in: highest precedence first; among equal precedence (build
/// metadata only differs), `semver`'s order on build metadata, so the order is deterministic.
pub(crate) fn descending(a: &Version, b: &Version) -> std::cmp::Ordering {
    compare_versions(b, a).then_with(|| b.build.cmp(&a.build))
}

impl<T> VersionIndex<T> {
    /// Adds `value` at `version`; returns the value it replaces, if the version was present.
    pub(crate) fn insert(&mut self, version: Version, value: T) -> Option<T> {
        match self
            .entries
            .binary_search_by(|(v, _)| descending(v, &version))
        {
            Ok(at) => self
                .entries
                .get_mut(at)
                .map(|slot| std::mem::replace(&mut slot.1, value)),
            Err(at) => {
                self.entries.insert(at, (version, value));
                None
            }
        }
    }

    /// Whether no version is present.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(version, value)`, highest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Version, &T)> {
        self.entries.iter().map(|(v, t)| (v, t))
    }

    /// The values, highest version first.
    pub(crate) fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, t)| t)
    }

    /// The same versions with each value made by `f`.
    pub(crate) fn map<U>(&self, mut f: impl FnMut(&Version, &T) -> U) -> VersionIndex<U> {
        VersionIndex {
            entries: self
                .entries
                .iter()
                .map(|(v, t)| (v.clone(), f(v, t)))
                .collect(),
        }
    }

    /// The versions, highest first.
    pub(crate) fn versions(&self) -> impl Iterator<Item = &Version> {
        self.entries.iter().map(|(v, _)| v)
    }

    /// The value at exactly `version` (npm equality: build metadata ignored).
    pub(crate) fn get(&self, version: &Version) -> Option<&T> {
        self.entries
            .iter()
            .find(|(v, _)| compare_versions(v, version).is_eq())
            .map(|(_, t)| t)
    }

    /// The highest version `range` accepts (npm's `maxSatisfying`, prerelease rule included),
    /// with its value.
    pub(crate) fn max_satisfying(&self, range: &Range) -> Option<(&Version, &T)> {
        self.iter().find(|(v, _)| range.satisfies(v))
    }

    /// The highest version, with its value.
    pub(crate) fn first(&self) -> Option<(&Version, &T)> {
        self.iter().next()
    }

    /// Where `version` is (`Ok`, its position, highest first; build metadata must match
    /// too) or would be inserted (`Err`).
    pub(crate) fn position(&self, version: &Version) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(v, _)| descending(v, version))
    }

    /// The entry at `position` (see [`VersionIndex::position`]).
    pub(crate) fn at(&self, position: usize) -> Option<(&Version, &T)> {
        self.entries.get(position).map(|(v, t)| (v, t))
    }

    /// The value at `position`, to change it.
    pub(crate) fn value_at_mut(&mut self, position: usize) -> Option<&mut T> {
        self.entries.get_mut(position).map(|(_, t)| t)
    }

    /// Adds `value` at `version` when that version (build metadata included) is not present;
    /// gives both back when it is.
    pub(crate) fn insert_new(&mut self, version: Version, value: T) -> Result<(), (Version, T)> {
        match self.position(&version) {
            Ok(_) => Err((version, value)),
            Err(at) => {
                self.entries.insert(at, (version, value));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).expect("version")
    }

    #[test]
    fn keeps_highest_first_and_replaces_a_version_inserted_again() {
        let mut index = VersionIndex::default();
        for (s, n) in [
            ("1.0.0", 1),
            ("2.0.0-beta.1", 2),
            ("1.2.0", 3),
            ("1.0.0", 4),
        ] {
            index.insert(v(s), n);
        }
        let listed: Vec<(String, i32)> = index.iter().map(|(v, n)| (v.to_string(), *n)).collect();
        assert_eq!(
            listed,
            [
                ("2.0.0-beta.1".to_owned(), 2),
                ("1.2.0".to_owned(), 3),
                ("1.0.0".to_owned(), 4)
            ]
        );
        let caret = Range::parse("^1.0.0").expect("range");
        assert_eq!(index.max_satisfying(&caret).map(|(_, n)| *n), Some(3));
        // npm's prerelease rule: ^2.0.0 does not reach 2.0.0-beta.1.
        let two = Range::parse("^2.0.0").expect("range");
        assert_eq!(index.max_satisfying(&two), None);
        assert_eq!(index.get(&v("1.2.0")), Some(&3));
    }
}
