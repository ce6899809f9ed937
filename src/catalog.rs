//! The tool catalog: per tenant, each tool id's versions, sorted once, resolved by npm range.
//!
//! Behaviour follows the upstream in-process tool registry (`../shared/spec/agents.md` §1.2–§1.3):
//! a range resolves to the highest **active** version that satisfies it under npm's rules
//! ([`crate::range`]); retired versions are reachable only by their exact version
//! ([`Catalog::get_exact`]); errors carry the spec's codes and message templates. The value
//! stored per version is generic (`T`), so the catalog can index tools from one or more pack
//! indexes without knowing their shape.
//!
//! A tool reference's range is parsed once into a [`ToolRange`] (when its agent is loaded);
//! [`Catalog::resolve`] then allocates nothing unless it fails.

use crate::diagnostics::IssueCode;
use crate::range::{Range, RangeError, pack_release};
use crate::version_index::VersionIndex;
use semver::Version;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash (as in rustc's `FxHasher`) for tenant and tool ids: a resolve does two
/// lookups, and SipHash would be most of its cost. It does not resist chosen collisions, which
/// is acceptable because the keys come from the operator's own pack indexes, not from requests.
#[derive(Debug, Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

type IdMap<V> = HashMap<String, V, BuildHasherDefault<IdHasher>>;

/// A tool reference's range text with its parse result, kept together because error messages
/// quote the text exactly as written (spec §1.3).
///
/// # Examples
///
/// ```
/// use runstart::catalog::ToolRange;
///
/// let range = ToolRange::new("^1.2.0");
/// assert_eq!(range.text(), "^1.2.0");
/// assert!(range.range().is_ok());
/// assert!(ToolRange::new("latest").range().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRange {
    text: Box<str>,
    parsed: Result<Range, RangeError>,
}

impl ToolRange {
    /// Parses `text` with npm's default options (as `pickVersion` does). A range that does not
    /// parse is kept: resolving it reports `invalid-version-range`.
    pub fn new(text: &str) -> Self {
        ToolRange {
            text: text.into(),
            parsed: Range::parse(text),
        }
    }

    /// The range as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed range, or why it does not parse.
    ///
    /// # Errors
    ///
    /// The [`RangeError`] of [`Range::parse`] when the text is not an npm range.
    pub fn range(&self) -> Result<&Range, &RangeError> {
        self.parsed.as_ref()
    }
}

/// A successful lookup: borrowed from the catalog, so resolving allocates nothing.
#[derive(Debug)]
pub struct Resolved<'a, T> {
    /// The tool id.
    pub id: &'a str,
    /// The version picked.
    pub version: &'a Version,
    /// What was inserted for that version.
    pub value: &'a T,
    /// Whether the version is retired (only [`Catalog::get_exact`] returns retired versions).
    pub retired: bool,
}

impl<T> Clone for Resolved<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Resolved<'_, T> {}

/// Why a lookup failed. `Display` is the spec's message (§1.3), `code()` its code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolveError {
    /// The id has no versions at all in the tenant (`tool-not-found`). At run start this
    /// surfaces as `unresolved-tool` (spec §1.4).
    ToolNotFound {
        /// The tool id.
        id: String,
    },
    /// The range is not an npm range (`invalid-version-range`). Checked before
    /// satisfiability, after the id is known.
    InvalidVersionRange {
        /// The tool id.
        id: String,
        /// The range as written.
        range: String,
        /// Why it does not parse.
        error: RangeError,
    },
    /// No active version satisfies the range (`tool-version-unresolvable`).
    ToolVersionUnresolvable {
        /// The tool id.
        id: String,
        /// The range as written.
        range: String,
        /// The active versions, highest first (empty when every version is retired).
        available_versions: Vec<Version>,
    },
    /// The exact version asked for is not registered (`tool-version-not-found`).
    ToolVersionNotFound {
        /// The tool id.
        id: String,
        /// The version asked for.
        version: Version,
    },
}

impl ResolveError {
    /// The stable code of the spec (`agents.md` §1.3).
    pub fn code(&self) -> IssueCode {
        match self {
            ResolveError::ToolNotFound { .. } => IssueCode::ToolNotFound,
            ResolveError::InvalidVersionRange { .. } => IssueCode::InvalidVersionRange,
            ResolveError::ToolVersionUnresolvable { .. } => IssueCode::ToolVersionUnresolvable,
            ResolveError::ToolVersionNotFound { .. } => IssueCode::ToolVersionNotFound,
        }
    }

    /// The code this error has when it fails a turn at run start (spec §1.4): a missing tool
    /// is `unresolved-tool`; a broken or unsatisfiable range is `tool-version-unresolvable`;
    /// anything else (an exact version that is gone) is `unresolved-tool`.
    pub fn run_start_code(&self) -> &'static str {
        match self {
            ResolveError::InvalidVersionRange { .. }
            | ResolveError::ToolVersionUnresolvable { .. } => "tool-version-unresolvable",
            ResolveError::ToolNotFound { .. } | ResolveError::ToolVersionNotFound { .. } => {
                "unresolved-tool"
            }
        }
    }

    /// The message of that turn failure (spec §1.4): for a missing tool
    /// `Tool "<id>" declared by agent "<agent id>" is not registered`, otherwise this error's
    /// own message. (Pinned versions that are gone have their own messages upstream; they are
    /// the caller's, since only it knows the pin.)
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::catalog::{Catalog, ToolRange};
    ///
    /// let catalog: Catalog<()> = Catalog::new();
    /// let err = catalog.resolve("t", "acme.lookup", &ToolRange::new("^1")).unwrap_err();
    /// assert_eq!(err.run_start_code(), "unresolved-tool");
    /// assert_eq!(
    ///     err.run_start_message("acme.intake"),
    ///     "Tool \"acme.lookup\" declared by agent \"acme.intake\" is not registered"
    /// );
    /// ```
    pub fn run_start_message(&self, agent_id: &str) -> String {
        match self {
            ResolveError::ToolNotFound { id } => {
                format!("Tool \"{id}\" declared by agent \"{agent_id}\" is not registered")
            }
            other => other.to_string(),
        }
    }

    /// The tool id the lookup was for.
    pub fn id(&self) -> &str {
        match self {
            ResolveError::ToolNotFound { id }
            | ResolveError::InvalidVersionRange { id, .. }
            | ResolveError::ToolVersionUnresolvable { id, .. }
            | ResolveError::ToolVersionNotFound { id, .. } => id,
        }
    }
}

/// Writes versions joined by `", "`, as the spec's messages list them.
struct Joined<'a, V>(&'a [V]);

impl<V: fmt::Display> fmt::Display for Joined<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            v.fmt(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::ToolNotFound { id } => write!(f, "No tool registered with id \"{id}\""),
            ResolveError::InvalidVersionRange { id, range, .. } => write!(
                f,
                "Version range \"{range}\" for tool \"{id}\" is not a valid semver range"
            ),
            ResolveError::ToolVersionUnresolvable {
                id,
                range,
                available_versions,
            } => write!(
                f,
                "Tool \"{id}\" has no version satisfying \"{range}\" (available: {})",
                Joined(available_versions)
            ),
            ResolveError::ToolVersionNotFound { id, version } => {
                write!(f, "Tool \"{id}\" has no version \"{version}\" registered")
            }
        }
    }
}

impl std::error::Error for ResolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ResolveError::InvalidVersionRange { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Inserting the same `(tenant, id, version)` twice (`duplicate-tool-version`, spec §1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateToolVersion {
    /// The tool id.
    pub id: String,
    /// The version inserted twice.
    pub version: Version,
}

impl DuplicateToolVersion {
    /// The stable code: `duplicate-tool-version`.
    pub fn code(&self) -> &'static str {
        "duplicate-tool-version"
    }
}

impl fmt::Display for DuplicateToolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tool \"{}@{}\" is already registered",
            self.id, self.version
        )
    }
}

impl std::error::Error for DuplicateToolVersion {}

/// The publish-time message for a tool reference that cannot be pinned (spec §1.5).
///
/// `published` is the tool's active versions in the order they are listed (upstream lists the
/// binding's order, newest first; [`Catalog::versions`] gives highest first). An empty list
/// gives the "publish the tool first" form; otherwise the range is quoted as written, valid or
/// not (publish does not tell a broken range apart). A deploy prefixes the message with
/// `agent "<agent id>": `; see [`deploy_pin_message`].
///
/// # Examples
///
/// ```
/// use runstart::catalog::pin_message;
///
/// let none: [&str; 0] = [];
/// assert_eq!(
///     pin_message("acme.missing", "^1.0.0", &none),
///     "tool \"acme.missing\" has no published version; publish the tool first"
/// );
/// assert_eq!(
///     pin_message("acme.lookup", "^3.0.0", &["2.0.0", "1.2.0"]),
///     "tool \"acme.lookup\" has no published version in \"^3.0.0\" (published: 2.0.0, 1.2.0); \
///      publish one in range first, or change the range"
/// );
/// ```
pub fn pin_message<V: fmt::Display>(tool_id: &str, range: &str, published: &[V]) -> String {
    if published.is_empty() {
        format!("tool \"{tool_id}\" has no published version; publish the tool first")
    } else {
        format!(
            "tool \"{tool_id}\" has no published version in \"{range}\" (published: {}); \
             publish one in range first, or change the range",
            Joined(published)
        )
    }
}

/// [`pin_message`] as a deploy reports it: prefixed with `agent "<agent id>": ` (spec §1.5).
///
/// # Examples
///
/// ```
/// use runstart::catalog::deploy_pin_message;
///
/// let none: [&str; 0] = [];
/// assert_eq!(
///     deploy_pin_message("acme.intake", "acme.missing", "^1", &none),
///     "agent \"acme.intake\": tool \"acme.missing\" has no published version; publish the tool first"
/// );
/// ```
pub fn deploy_pin_message<V: fmt::Display>(
    agent_id: &str,
    tool_id: &str,
    range: &str,
    published: &[V],
) -> String {
    format!(
        "agent \"{agent_id}\": {}",
        pin_message(tool_id, range, published)
    )
}

/// A catalog entry's state beside its version.
#[derive(Debug, Clone)]
struct Slot<T> {
    retired: bool,
    value: T,
}

/// One tool id's versions ([`VersionIndex`], highest first), with two indexes rebuilt on every
/// change (versions are inserted once and resolved many times):
///
/// - `releases`: the active releases whose numbers pack ([`pack_release`]), as `(key, entry
///   position)` in the same descending order, so a range's key intervals
///   ([`Range::release_intervals`]) are found by binary search;
/// - `others`: the positions of the remaining active versions (prereleases, huge numbers),
///   checked one by one with [`Range::satisfies`].
#[derive(Debug, Clone)]
struct Versions<T> {
    entries: VersionIndex<Slot<T>>,
    releases: Vec<(u64, u32)>,
    others: Vec<u32>,
}

impl<T> Default for Versions<T> {
    fn default() -> Self {
        Versions {
            entries: VersionIndex::default(),
            releases: Vec::new(),
            others: Vec::new(),
        }
    }
}

impl<T> Versions<T> {
    fn reindex(&mut self) {
        self.releases.clear();
        self.others.clear();
        for (i, (version, slot)) in self.entries.iter().enumerate() {
            if slot.retired {
                continue;
            }
            // More than 4 billion versions of one tool cannot be inserted in practice; saturate.
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            match pack_release(version) {
                Some(key) => self.releases.push((key, index)),
                None => self.others.push(index),
            }
        }
    }

    /// The active entries, highest first.
    fn active(&self) -> impl Iterator<Item = (&Version, &Slot<T>)> {
        self.entries.iter().filter(|(_, slot)| !slot.retired)
    }

    /// Position of the highest active entry satisfying `range`.
    ///
    /// O(a·log n) for a range of a alternatives over n releases, plus one check per prerelease.
    fn best(&self, range: &Range) -> Option<usize> {
        let Some(intervals) = range.release_intervals() else {
            return self
                .entries
                .iter()
                .position(|(v, slot)| !slot.retired && range.satisfies(v));
        };
        // `releases` is descending: skip the keys above `hi`; the next one is the largest
        // candidate of this interval. Entries are sorted the same way, so the smallest index
        // is the highest version.
        let mut best = intervals
            .filter_map(|(lo, hi)| {
                let at = self.releases.partition_point(|&(key, _)| key > hi);
                self.releases
                    .get(at)
                    .filter(|&&(key, _)| key >= lo)
                    .map(|&(_, index)| index as usize)
            })
            .min();
        for &index in &self.others {
            let index = index as usize;
            if best.is_some_and(|b| b < index) {
                break;
            }
            if self
                .entries
                .at(index)
                .is_some_and(|(v, _)| range.satisfies(v))
            {
                best = Some(index);
                break;
            }
        }
        best
    }
}

/// Tools per tenant and id, each id's versions sorted once at insert.
///
/// # Examples
///
/// ```
/// use runstart::catalog::{Catalog, ToolRange};
/// use semver::Version;
///
/// let mut catalog = Catalog::new();
/// for v in ["1.0.0", "1.1.0", "2.0.0"] {
///     catalog.insert("tenant-a", "acme.lookup", Version::parse(v)?, format!("lookup {v}"))?;
/// }
/// let range = ToolRange::new("^1.0.0");
/// let hit = catalog.resolve("tenant-a", "acme.lookup", &range)?;
/// assert_eq!(hit.version.to_string(), "1.1.0");
/// assert_eq!(hit.value, "lookup 1.1.0");
///
/// let err = catalog.resolve("tenant-a", "acme.lookup", &ToolRange::new("^3")).unwrap_err();
/// assert_eq!(err.code(), "tool-version-unresolvable");
/// assert_eq!(
///     err.to_string(),
///     "Tool \"acme.lookup\" has no version satisfying \"^3\" (available: 2.0.0, 1.1.0, 1.0.0)"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Catalog<T> {
    tenants: IdMap<IdMap<Versions<T>>>,
}

impl<T> Default for Catalog<T> {
    fn default() -> Self {
        Catalog {
            tenants: IdMap::default(),
        }
    }
}

impl<T> Catalog<T> {
    /// An empty catalog.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Adds an active version of a tool for a tenant.
    ///
    /// # Errors
    ///
    /// [`DuplicateToolVersion`] when the tenant already has this exact `id` and `version`
    /// (build metadata included); the catalog is unchanged.
    ///
    /// # Complexity
    ///
    /// O(log n) to find the place among the id's n versions, O(n) to shift them.
    pub fn insert(
        &mut self,
        tenant: &str,
        id: &str,
        version: Version,
        value: T,
    ) -> Result<(), DuplicateToolVersion> {
        let tools = self.tenants.entry(tenant.to_owned()).or_default();
        let versions = tools.entry(id.to_owned()).or_default();
        match versions.entries.insert_new(
            version,
            Slot {
                retired: false,
                value,
            },
        ) {
            Ok(()) => {
                versions.reindex();
                Ok(())
            }
            Err((version, _)) => Err(DuplicateToolVersion {
                id: id.to_owned(),
                version,
            }),
        }
    }

    /// Marks a version retired: ranges and [`Catalog::latest`] skip it, [`Catalog::get_exact`]
    /// still finds it. Returns whether the version exists.
    pub fn retire(&mut self, tenant: &str, id: &str, version: &Version) -> bool {
        let Some(versions) = self.tenants.get_mut(tenant).and_then(|t| t.get_mut(id)) else {
            return false;
        };
        let Some(slot) = versions
            .entries
            .position(version)
            .ok()
            .and_then(|at| versions.entries.value_at_mut(at))
        else {
            return false;
        };
        slot.retired = true;
        versions.reindex();
        true
    }

    /// The id as stored (so results borrow the catalog, not the caller's string) and its
    /// versions, if it has any.
    fn versions_of(&self, tenant: &str, id: &str) -> Option<(&str, &Versions<T>)> {
        self.tenants
            .get(tenant)?
            .get_key_value(id)
            .filter(|(_, v)| !v.entries.is_empty())
            .map(|(k, v)| (k.as_str(), v))
    }

    fn resolved<'a>(
        &'a self,
        id: &'a str,
        (version, slot): (&'a Version, &'a Slot<T>),
    ) -> Resolved<'a, T> {
        Resolved {
            id,
            version,
            value: &slot.value,
            retired: slot.retired,
        }
    }

    /// The highest active version of `id` satisfying `range`, under npm's rules (the
    /// prerelease rule included): the upstream `resolve(id, range)`.
    ///
    /// # Errors
    ///
    /// In the spec's order (§1.3): [`ResolveError::ToolNotFound`] when the tenant has no version
    /// of `id` at all (retired ones count as versions);
    /// [`ResolveError::InvalidVersionRange`] when the range does not parse;
    /// [`ResolveError::ToolVersionUnresolvable`] when no active version satisfies it (an id with
    /// only retired versions gives this, with no available versions).
    ///
    /// # Complexity
    ///
    /// O(n·c) for the id's n versions and the range's c comparators, stopping at the first
    /// (highest) match; a hash lookup per tenant and id; no allocation on success.
    pub fn resolve(
        &self,
        tenant: &str,
        id: &str,
        range: &ToolRange,
    ) -> Result<Resolved<'_, T>, ResolveError> {
        let Some((id, versions)) = self.versions_of(tenant, id) else {
            return Err(ResolveError::ToolNotFound { id: id.to_owned() });
        };
        let parsed = range
            .range()
            .map_err(|error| ResolveError::InvalidVersionRange {
                id: id.to_owned(),
                range: range.text().to_owned(),
                error: error.clone(),
            })?;
        // The highest satisfying version is npm's maxSatisfying.
        let hit = versions
            .best(parsed)
            .and_then(|index| versions.entries.at(index));
        hit.map(|e| self.resolved(id, e))
            .ok_or_else(|| ResolveError::ToolVersionUnresolvable {
                id: id.to_owned(),
                range: range.text().to_owned(),
                available_versions: versions.active().map(|(v, _)| v.clone()).collect(),
            })
    }

    /// [`Catalog::resolve`] for a caller that holds only a parsed [`Range`]: error messages
    /// quote its canonical form (`>=1.0.0 <2.0.0-0`) instead of the text as written, which
    /// costs an allocation on failure only.
    ///
    /// # Errors
    ///
    /// As [`Catalog::resolve`], except that the range cannot be invalid.
    pub fn resolve_range(
        &self,
        tenant: &str,
        id: &str,
        range: &Range,
    ) -> Result<Resolved<'_, T>, ResolveError> {
        let Some((id, versions)) = self.versions_of(tenant, id) else {
            return Err(ResolveError::ToolNotFound { id: id.to_owned() });
        };
        match versions
            .best(range)
            .and_then(|index| versions.entries.at(index))
        {
            Some(e) => Ok(self.resolved(id, e)),
            None => Err(ResolveError::ToolVersionUnresolvable {
                id: id.to_owned(),
                range: range.to_string(),
                available_versions: self.versions(tenant, id).cloned().collect(),
            }),
        }
    }

    /// The exact version of `id`, retired or not (the upstream `getVersion`, used for pins).
    /// Build metadata must match too.
    ///
    /// # Errors
    ///
    /// [`ResolveError::ToolNotFound`] when the tenant has no version of `id`;
    /// [`ResolveError::ToolVersionNotFound`] when it has others but not this one.
    pub fn get_exact(
        &self,
        tenant: &str,
        id: &str,
        version: &Version,
    ) -> Result<Resolved<'_, T>, ResolveError> {
        let Some((id, versions)) = self.versions_of(tenant, id) else {
            return Err(ResolveError::ToolNotFound { id: id.to_owned() });
        };
        versions
            .entries
            .position(version)
            .ok()
            .and_then(|at| versions.entries.at(at))
            .map(|e| self.resolved(id, e))
            .ok_or_else(|| ResolveError::ToolVersionNotFound {
                id: id.to_owned(),
                version: version.clone(),
            })
    }

    /// The highest active version of `id`, prereleases included: what upstream picks when a
    /// reference has no range at all (`latestVersion`, spec §1.2 step 1). `None` when there is
    /// none.
    pub fn latest(&self, tenant: &str, id: &str) -> Option<Resolved<'_, T>> {
        let (id, versions) = self.versions_of(tenant, id)?;
        versions.active().next().map(|e| self.resolved(id, e))
    }

    /// The active versions of `id`, highest first (empty for an unknown id).
    pub fn versions<'a>(&'a self, tenant: &str, id: &str) -> impl Iterator<Item = &'a Version> {
        self.tenants
            .get(tenant)
            .and_then(|t| t.get(id))
            .into_iter()
            .flat_map(|v| v.active())
            .map(|(version, _)| version)
    }

    /// Pins a tool reference at publish time (spec §1.5): the resolved version, or the
    /// publish-time message ([`pin_message`]) listing the active versions highest first.
    ///
    /// # Errors
    ///
    /// The message, when the id has no active version or none satisfies the range (a range that
    /// does not parse gets the same message, as upstream).
    pub fn pin(
        &self,
        tenant: &str,
        id: &str,
        range: &ToolRange,
    ) -> Result<Resolved<'_, T>, String> {
        match self.resolve(tenant, id, range) {
            Ok(hit) => Ok(hit),
            Err(_) => {
                let published: Vec<&Version> = self.versions(tenant, id).collect();
                Err(pin_message(id, range.text(), &published))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn catalog_types_are_send_and_sync() {
        assert_send_sync::<Catalog<String>>();
        assert_send_sync::<ToolRange>();
        assert_send_sync::<ResolveError>();
    }

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn catalog(versions: &[&str]) -> Catalog<u32> {
        let mut c = Catalog::new();
        for (i, s) in versions.iter().enumerate() {
            c.insert("t", "rng", v(s), i as u32).unwrap();
        }
        c
    }

    #[test]
    fn resolve_picks_max_satisfying() {
        // spec §5.2 "resolve picks maxSatisfying".
        let c = catalog(&["1.0.0", "2.0.0", "1.1.0"]);
        for (range, want) in [("^1.0.0", "1.1.0"), ("*", "2.0.0"), ("1.0.0", "1.0.0")] {
            let hit = c.resolve("t", "rng", &ToolRange::new(range)).unwrap();
            assert_eq!(hit.version.to_string(), want, "{range}");
        }
    }

    #[test]
    fn pick_version_table() {
        // spec §5.1, with the invalid string left out (the catalog holds parsed versions).
        let c = catalog(&["1.0.0", "1.2.0", "1.3.0-beta.1", "2.0.0"]);
        for (range, want) in [
            ("^1.0.0", "1.2.0"),
            ("1.0.0", "1.0.0"),
            (">=1.0.0", "2.0.0"),
            ("^1.2.0", "1.2.0"),
            ("^1.3.0-beta.0", "1.3.0-beta.1"),
            ("*", "2.0.0"),
            ("", "2.0.0"),
            ("1.3.0-beta.1", "1.3.0-beta.1"),
            (">=1.3.0-beta.0 <1.4.0", "1.3.0-beta.1"),
            ("^1.0.0-0", "1.2.0"),
        ] {
            let hit = c.resolve("t", "rng", &ToolRange::new(range)).unwrap();
            assert_eq!(hit.version.to_string(), want, "{range:?}");
        }
        assert_eq!(c.latest("t", "rng").unwrap().version.to_string(), "2.0.0");
        let e = c
            .resolve("t", "rng", &ToolRange::new("latest"))
            .unwrap_err();
        assert_eq!(e.code(), "invalid-version-range");
        assert_eq!(
            e.to_string(),
            "Version range \"latest\" for tool \"rng\" is not a valid semver range"
        );
    }

    #[test]
    fn errors_follow_the_spec() {
        let c = catalog(&["1.0.0", "1.1.0"]);
        let e = c
            .resolve("t", "rng", &ToolRange::new("^2.0.0"))
            .unwrap_err();
        assert_eq!(e.code(), "tool-version-unresolvable");
        let ResolveError::ToolVersionUnresolvable {
            available_versions, ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(available_versions, &[v("1.1.0"), v("1.0.0")]);
        let e = c
            .resolve("t", "missing", &ToolRange::new("^1"))
            .unwrap_err();
        assert_eq!(e.code(), "tool-not-found");
        assert_eq!(e.to_string(), "No tool registered with id \"missing\"");
        let e = c
            .resolve("other", "rng", &ToolRange::new("^1"))
            .unwrap_err();
        assert_eq!(e.code(), "tool-not-found");
        let dup = catalog(&["1.0.0"])
            .insert("t", "rng", v("1.0.0"), 9)
            .unwrap_err();
        assert_eq!(dup.code(), "duplicate-tool-version");
        assert_eq!(dup.to_string(), "Tool \"rng@1.0.0\" is already registered");
        let e = c.get_exact("t", "rng", &v("3.0.0")).unwrap_err();
        assert_eq!(e.code(), "tool-version-not-found");
        assert_eq!(
            e.to_string(),
            "Tool \"rng\" has no version \"3.0.0\" registered"
        );
    }

    #[test]
    fn retired_versions_only_by_exact_lookup() {
        let mut c = catalog(&["1.0.0", "1.1.0"]);
        assert!(c.retire("t", "rng", &v("1.1.0")));
        assert!(!c.retire("t", "rng", &v("9.9.9")));
        let hit = c.resolve("t", "rng", &ToolRange::new("^1.0.0")).unwrap();
        assert_eq!(hit.version.to_string(), "1.0.0");
        assert_eq!(c.latest("t", "rng").unwrap().version.to_string(), "1.0.0");
        assert_eq!(c.versions("t", "rng").count(), 1);
        let exact = c.get_exact("t", "rng", &v("1.1.0")).unwrap();
        assert!(exact.retired);
        // Only retired versions: not `tool-not-found`, but nothing available (spec §1.3).
        let mut only = catalog(&["2.0.0"]);
        only.retire("t", "rng", &v("2.0.0"));
        let e = only
            .resolve("t", "rng", &ToolRange::new("^2.0.0"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Tool \"rng\" has no version satisfying \"^2.0.0\" (available: )"
        );
        assert!(only.latest("t", "rng").is_none());
        assert!(only.get_exact("t", "rng", &v("2.0.0")).is_ok());
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        const RANGES: &[&str] = &[
            "*",
            "^1.2",
            "~0.1.3",
            "1.x || >=3.1.0",
            ">1.0.0 <2.3.0",
            "1.0.0 - 2.1",
            "=2.2.2",
            ">=1.2.3-beta.0 <1.3",
            "^0.0.1",
            "<0.0.0-0",
            ">=0.0.0",
            "^2.0.0-rc.1",
            "<=1.1.1 || 3",
        ];

        fn version() -> impl Strategy<Value = Version> {
            (
                0u64..4,
                0u64..4,
                0u64..4,
                prop_oneof![Just(""), Just("-beta.1"), Just("-rc.1")],
            )
                .prop_map(|(a, b, c, pre)| v(&format!("{a}.{b}.{c}{pre}")))
        }

        proptest! {
            /// The indexed resolve agrees with a plain scan: npm's max_satisfying over the
            /// active versions, highest first.
            #[test]
            fn resolve_matches_a_linear_scan(
                versions in proptest::collection::btree_set(version(), 1..20),
                retire in proptest::collection::vec(any::<bool>(), 20),
                range in proptest::sample::select(RANGES),
            ) {
                let mut c = Catalog::new();
                for version in &versions {
                    c.insert("t", "x", version.clone(), ()).unwrap();
                }
                for (version, retire) in versions.iter().zip(&retire) {
                    if *retire {
                        c.retire("t", "x", version);
                    }
                }
                let tool_range = ToolRange::new(range);
                let active: Vec<&Version> = c.versions("t", "x").collect();
                let want = tool_range.range().unwrap().max_satisfying(active.iter().copied());
                let got = c.resolve("t", "x", &tool_range).ok().map(|r| r.version);
                prop_assert_eq!(got, want, "{}", range);
            }
        }
    }

    #[test]
    fn run_start_mapping_and_canonical_resolve() {
        let c = catalog(&["1.0.0", "1.1.0"]);
        let range = Range::parse("~1.0").unwrap();
        assert_eq!(
            c.resolve_range("t", "rng", &range).unwrap().version,
            &v("1.0.0")
        );
        let e = c
            .resolve_range("t", "rng", &Range::parse("^2").unwrap())
            .unwrap_err();
        assert_eq!(e.run_start_code(), "tool-version-unresolvable");
        assert_eq!(
            e.run_start_message("a"),
            "Tool \"rng\" has no version satisfying \">=2.0.0 <3.0.0-0\" (available: 1.1.0, 1.0.0)"
        );
        let e = c.resolve("t", "rng", &ToolRange::new("nope")).unwrap_err();
        assert_eq!(e.run_start_code(), "tool-version-unresolvable");
        let e = c.get_exact("t", "rng", &v("9.0.0")).unwrap_err();
        assert_eq!(e.run_start_code(), "unresolved-tool");
    }

    #[test]
    fn tenants_are_separate() {
        // spec §5.3: each tenant resolves its own tools.
        let mut c = Catalog::new();
        c.insert("a", "acme.lookup", v("1.0.0"), ()).unwrap();
        c.insert("b", "acme.lookup", v("1.1.0"), ()).unwrap();
        let range = ToolRange::new("^1.0.0");
        assert_eq!(
            c.resolve("a", "acme.lookup", &range).unwrap().version,
            &v("1.0.0")
        );
        assert_eq!(
            c.resolve("b", "acme.lookup", &range).unwrap().version,
            &v("1.1.0")
        );
    }

    #[test]
    fn publish_messages() {
        // spec §5.4: acme.lookup published 2.0.0, 1.2.0, 1.0.0, 1.1.3, 0.9.0.
        let mut c = Catalog::new();
        for s in ["2.0.0", "1.2.0", "1.0.0", "1.1.3", "0.9.0"] {
            c.insert("t", "acme.lookup", v(s), ()).unwrap();
        }
        assert_eq!(
            c.pin("t", "acme.lookup", &ToolRange::new("~1.1.0"))
                .unwrap()
                .version,
            &v("1.1.3")
        );
        let msg = c
            .pin("t", "acme.lookup", &ToolRange::new("^3.0.0"))
            .unwrap_err();
        assert!(msg.contains("tool \"acme.lookup\" has no published version in \"^3.0.0\""));
        assert_eq!(
            c.pin("t", "acme.missing", &ToolRange::new("^1.0.0"))
                .unwrap_err(),
            "tool \"acme.missing\" has no published version; publish the tool first"
        );
        assert_eq!(
            deploy_pin_message("acme.intake", "acme.lookup", "^3", &["2.0.0"]),
            "agent \"acme.intake\": tool \"acme.lookup\" has no published version in \"^3\" \
             (published: 2.0.0); publish one in range first, or change the range"
        );
    }
}
