//! Versions as npm reads and orders them, and the packed integer key of `major.minor.patch`
//! that the fast paths of [`Range::satisfies`](super::Range::satisfies) and the catalog's index
//! compare instead of versions.

use super::limits::{MAX_SAFE_INTEGER, MAX_VERSION_LENGTH};
use super::scan;
use semver::{BuildMetadata, Prerelease, Version};
use std::cmp::Ordering;

/// The `-0` prerelease of every upper bound, built once: cloning an inline identifier is a
/// copy, parsing it each time is not.
pub(super) static ZERO_PRERELEASE: std::sync::LazyLock<Prerelease> =
    // ok: `0` is a valid prerelease identifier, a compile-time constant.
    std::sync::LazyLock::new(|| Prerelease::new("0").expect("`0` is a valid prerelease"));

/// Compares two versions by semver precedence, ignoring build metadata as npm does.
///
/// [`semver::Version`]'s own `Ord` also orders by build metadata, which npm never looks at.
///
/// # Examples
///
/// ```
/// use runstart::range::{compare_versions, parse_version};
/// use std::cmp::Ordering;
///
/// let a = parse_version("1.2.3+build.1").unwrap();
/// let b = parse_version("1.2.3+build.2").unwrap();
/// assert_eq!(compare_versions(&a, &b), Ordering::Equal);
/// ```
#[inline]
pub fn compare_versions(a: &Version, b: &Version) -> Ordering {
    compare_parts(
        [a.major, a.minor, a.patch],
        &a.pre,
        [b.major, b.minor, b.patch],
        &b.pre,
    )
}

/// [`compare_versions`] on versions given as `major.minor.patch` and prerelease.
#[inline]
pub(super) fn compare_parts(
    a: [u64; 3],
    a_pre: &Prerelease,
    b: [u64; 3],
    b_pre: &Prerelease,
) -> Ordering {
    a.cmp(&b)
        .then_with(|| match (a_pre.is_empty(), b_pre.is_empty()) {
            (true, true) => Ordering::Equal,
            _ => a_pre.cmp(b_pre),
        })
}

/// Largest number [`pack_release`] packs: 20 bits.
const PACK_LIMIT: u64 = 1 << 20;

#[inline]
pub(super) fn pack(v: &Version, release: bool) -> Option<u64> {
    pack_parts([v.major, v.minor, v.patch], release)
}

/// [`pack`] of `major.minor.patch`.
#[inline]
pub(super) fn pack_parts([major, minor, patch]: [u64; 3], release: bool) -> Option<u64> {
    // One test for all three: PACK_LIMIT is a power of two.
    if (major | minor | patch) >= PACK_LIMIT {
        return None;
    }
    Some((major << 41) | (minor << 21) | (patch << 1) | u64::from(release))
}

/// The `major.minor.patch` a [`pack_parts`] key holds.
#[inline]
pub(super) fn unpack_parts(key: u64) -> [u64; 3] {
    const PART: u64 = PACK_LIMIT - 1;
    [key >> 41, (key >> 21) & PART, (key >> 1) & PART]
}

/// A bit chosen by the `major.minor.patch` part of a packed key (a one-word Bloom filter):
/// equal triples give equal bits.
#[inline]
pub(super) fn triple_bit(key: u64) -> u64 {
    1 << ((key >> 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// [`pack`] for any version: the low bit is set for a release, clear for a prerelease.
#[inline]
pub(super) fn pack_version(v: &Version) -> Option<u64> {
    pack(v, v.pre.is_empty())
}

/// Packs a release version (no prerelease) into a `u64` whose integer order is npm's
/// precedence: 20 bits each for major, minor and patch, and a low bit set for a release.
/// `None` for a prerelease or a number of 2²⁰ or more. The key is below 2⁶¹. Crate-internal: the
/// key is a detail of the fast paths of [`Range::satisfies`](super::Range::satisfies) and of the catalog's index.
#[inline]
pub(crate) fn pack_release(v: &Version) -> Option<u64> {
    if !v.pre.is_empty() {
        return None;
    }
    pack(v, true)
}

/// Parses a version as npm's `semver.valid` does with default options: at most 256 UTF-16 code
/// units, surrounding JavaScript whitespace trimmed, an optional leading `v`, then strict
/// SemVer 2.0 (`1.2.3`, `1.2.3-rc.1+build`), every number at most 2⁵³−1.
///
/// Returns `None` for anything npm considers invalid, such as `=1.2.3`, `1.2`, `01.2.3`. Build
/// metadata is kept in the result (npm ignores it when comparing, see [`compare_versions`]).
///
/// # Examples
///
/// ```
/// use runstart::range::parse_version;
///
/// assert_eq!(parse_version(" v1.2.3-rc.1 ").unwrap().to_string(), "1.2.3-rc.1");
/// assert!(parse_version("1.2").is_none());
/// assert!(parse_version("=1.2.3").is_none());
/// ```
pub fn parse_version(text: &str) -> Option<Version> {
    if text.encode_utf16().nth(MAX_VERSION_LENGTH).is_some() {
        return None;
    }
    let trimmed = text.trim_matches(scan::is_js_space);
    let bytes = trimmed.as_bytes();
    let v = scan::full_version(bytes)?;
    let num = |digits: &[u8]| -> Option<u64> {
        std::str::from_utf8(digits)
            .ok()?
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= MAX_SAFE_INTEGER)
    };
    let pre = match v.pre {
        None => Prerelease::EMPTY,
        Some(pre) => Prerelease::new(std::str::from_utf8(pre).ok()?).ok()?,
    };
    let build = match trimmed.split_once('+') {
        None => BuildMetadata::EMPTY,
        Some((_, build)) => BuildMetadata::new(build).ok()?,
    };
    Some(Version {
        major: num(v.major)?,
        minor: num(v.minor)?,
        patch: num(v.patch)?,
        pre,
        build,
    })
}

/// Whether `v` is an exact version as upstream's schema pattern reads it (agents, flows):
/// `^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$` — prerelease allowed, build
/// metadata refused, leading zeros accepted (which [`parse_version`] then refuses, as npm does).
pub(crate) fn is_exact_version(v: &str) -> bool {
    let (core, pre) = match v.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (v, None),
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    is_plain_version(core) && pre.is_none_or(|p| p.split('.').all(ident))
}

/// Whether `v` is `major.minor.patch` in digits only, as upstream's block rule reads a block
/// version (no prerelease, no build metadata; leading zeros accepted by the pattern).
pub(crate) fn is_plain_version(v: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut parts = v.split('.');
    (0..3).all(|_| parts.next().is_some_and(digits)) && parts.next().is_none()
}
