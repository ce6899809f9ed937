//! Hand-written, linear-time matchers for the pieces of npm's range grammar.
//!
//! Each function here replaces one of node-semver's regular expressions (`internal/re.js`) with a
//! forward scan that never backtracks. Where node-semver's regex would backtrack, the comment
//! says why the first choice is the only one that can succeed, so the scan gives the same
//! answer. Every function but `is_js_space` (which runs first) works on ASCII bytes: the caller
//! has already refused anything else.

pub(super) use crate::js::is_js_space;

/// Is `b` one of the characters that node-semver skips before a version (`[v=\s]`)?
///
/// The caller has collapsed whitespace to single ASCII spaces.
pub(super) fn is_prefix(b: u8) -> bool {
    matches!(b, b'v' | b'=' | b' ')
}

/// Can `b` start an x-range identifier (`0|[1-9]\d*|x|X|\*`)?
pub(super) fn is_version_start(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'x' | b'X' | b'*')
}

/// `[0-9A-Za-z-]`, the characters of prerelease and build identifiers.
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// Length of the x-range identifier starting at `s[i]`, if one starts there.
///
/// `0` matches alone, even when digits follow: node-semver's `0|[1-9]\d*` does the same, and the
/// anchored callers then fail on the digit that is left over.
fn xid_len(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'x' | b'X' | b'*' => Some(1),
        _ => numeric_len(s, i),
    }
}

/// Is `id` a valid strict prerelease identifier: non-empty, `[0-9A-Za-z-]`, and either holding a
/// non-digit or being a number without a leading zero?
///
/// With the bounds of node-semver's safe regexes (`0|[1-9]\d{0,256}` and
/// `\d{0,256}[a-zA-Z-][a-zA-Z0-9-]{0,250}`), which matter where a prerelease is read and then
/// dropped (`1.x.x-<long>`), so no version length check ever sees it.
fn is_strict_prerelease_ident(id: &[u8]) -> bool {
    if id.is_empty() || !id.iter().all(|&b| is_ident(b)) {
        return false;
    }
    let digits = id.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == id.len() {
        return id.len() == 1 || (id[0] != b'0' && id.len() <= 257);
    }
    digits <= 256 && id.len() - digits - 1 <= 250
}

/// Is `s` a dot-separated list of strict prerelease identifiers?
pub(super) fn is_strict_prerelease(s: &[u8]) -> bool {
    s.split(|&b| b == b'.').all(is_strict_prerelease_ident)
}

/// Is `s` a dot-separated list of build identifiers (`[0-9A-Za-z-]+`)?
///
/// node-semver 7.8 strips build metadata of any length (its fixture
/// `'v1.0+' + 'a'.repeat(249) + 'x6'` is valid), so no per-identifier cap applies.
fn is_build(s: &[u8]) -> bool {
    s.split(|&b| b == b'.')
        .all(|id| !id.is_empty() && id.iter().all(|&b| is_ident(b)))
}

/// Parses the tail of a full version after `major.minor.patch` ends at `i`:
/// `(-prerelease)?(+build)?` up to the end of `s`. Returns the prerelease text.
///
/// Anchored, so the split is forced: the prerelease runs to the first `+`, the build to the end.
fn pre_build_tail(s: &[u8], i: usize) -> Option<Option<&[u8]>> {
    let rest = &s[i..];
    let (pre_part, build_part) = match rest.iter().position(|&b| b == b'+') {
        Some(plus) => (&rest[..plus], Some(&rest[plus + 1..])),
        None => (rest, None),
    };
    let pre = match pre_part.split_first() {
        None => None,
        Some((b'-', pre)) if is_strict_prerelease(pre) => Some(pre),
        Some(_) => return None,
    };
    if let Some(build) = build_part
        && !is_build(build)
    {
        return None;
    }
    Some(pre)
}

/// The parts of a fully matched `XRANGEPLAIN`: `[v=\s]*M(.m(.p(-pre)?(+build)?)?)?`.
#[derive(Debug, Clone, Copy)]
pub(super) struct XRange<'a> {
    /// Major, minor and patch as written (digits, `x`, `X` or `*`); `None` when absent.
    pub parts: [Option<&'a [u8]>; 3],
    /// The prerelease without its `-`.
    pub pre: Option<&'a [u8]>,
}

impl XRange<'_> {
    /// npm's `isX`: absent, `x`, `X` or `*`.
    pub fn is_x(&self, i: usize) -> bool {
        match self.parts[i] {
            None => true,
            // A one-byte test: slice patterns would compare lengths and bytes separately.
            Some(part) => matches!(part, [b'x' | b'X' | b'*']),
        }
    }

    /// Once a part is a wildcard, every later part is one too. node-semver 7.8 refuses `1.x.5`,
    /// `x.1` and `x.x.1` as plain x-ranges (its range-parse fixtures), which 7.7 read as `1.x`;
    /// a caret, tilde or hyphen bound does not ask.
    pub(super) fn wildcards_trail(&self) -> bool {
        let first_x = (0..3).find(|&i| self.is_x(i)).unwrap_or(3);
        (first_x..3).all(|i| self.is_x(i))
    }
}

/// Matches the whole of `s` against `XRANGEPLAIN`.
///
/// The prefix and each identifier are taken greedily: the prefix characters (`v`, `=`, space)
/// cannot start an identifier and a shorter digit run would leave a digit where `.` or the end
/// is required, so backtracking could never find another match.
pub(super) fn xrange_full(s: &[u8]) -> Option<XRange<'_>> {
    let prefix_len = s.iter().take_while(|&&b| is_prefix(b)).count();
    let mut i = prefix_len;
    let mut parts = [None; 3];
    for (k, part) in parts.iter_mut().enumerate() {
        if k > 0 {
            if i == s.len() {
                return Some(XRange { parts, pre: None });
            }
            if s[i] != b'.' {
                return None;
            }
            i += 1;
        }
        let len = xid_len(s, i)?;
        *part = Some(&s[i..i + len]);
        i += len;
    }
    // With three identifiers, only `-pre` and `+build` may follow, up to the end.
    let pre = pre_build_tail(s, i)?;
    Some(XRange { parts, pre })
}

/// Matches the longest `[<>]?=?` at the start of `s` (node-semver's `GTLT`), returning its length.
///
/// Greedy is exact here: every caller follows `GTLT` with `[v=\s]*` or `v?`, and a shorter
/// operator only hands an `=` to a prefix that then matches the same rest.
pub(super) fn gtlt_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'<' | b'>')) {
        i = 1;
    }
    if s.get(i) == Some(&b'=') {
        i += 1;
    }
    i
}

/// A fully matched strict version (`v?M.m.p(-pre)?(+build)?`), numbers still as text.
#[derive(Debug, Clone, Copy)]
pub(super) struct FullVersion<'a> {
    pub major: &'a [u8],
    pub minor: &'a [u8],
    pub patch: &'a [u8],
    pub pre: Option<&'a [u8]>,
}

/// Strict numeric identifier: `0` or digits without a leading zero.
fn numeric_len(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'0' => Some(1),
        // npm's safe regex reads at most 257 digits (`[1-9]\d{0,256}`); a longer number
        // leaves a digit where `.` or the end must be, so the anchored match fails.
        b'1'..=b'9' => Some(
            1 + s[i + 1..]
                .iter()
                .take(256)
                .take_while(|b| b.is_ascii_digit())
                .count(),
        ),
        _ => None,
    }
}

/// Matches the whole of `s` against node-semver's `FULLPLAIN`: `v?M.m.p(-pre)?(+build)?`.
pub(super) fn full_version(s: &[u8]) -> Option<FullVersion<'_>> {
    let mut i = usize::from(s.first() == Some(&b'v'));
    let mut nums: [&[u8]; 3] = [b""; 3];
    for (k, num) in nums.iter_mut().enumerate() {
        if k > 0 {
            if s.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
        let len = numeric_len(s, i)?;
        *num = &s[i..i + len];
        i += len;
    }
    let pre = pre_build_tail(s, i)?;
    Some(FullVersion {
        major: nums[0],
        minor: nums[1],
        patch: nums[2],
        pre,
    })
}

/// Removes the first build-metadata match (`\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*`) from `s`, as
/// node-semver's `parseComparator` does with its unanchored, non-global `BUILD` regex.
///
/// Returns the range `start..end` to cut, if any.
pub(super) fn first_build(s: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(off) = s[from..].iter().position(|&b| b == b'+') {
        let start = from + off;
        let mut i = start + 1;
        let ident = |i: usize| s[i..].iter().take_while(|&&b| is_ident(b)).count();
        let first = ident(i);
        if first > 0 {
            i += first;
            // Each further `.ident` is taken only when complete: a lone trailing dot stays.
            while s.get(i) == Some(&b'.') {
                let more = ident(i + 1);
                if more == 0 {
                    break;
                }
                i += 1 + more;
            }
            return Some((start, i));
        }
        from = start + 1;
    }
    None
}

/// Finds the first match of node-semver's `STAR` regex (`(<|>)?=?\s*\*`) in `s`.
///
/// At each start the optional parts are taken when present; skipping one never helps, because the
/// skipped character then has to be the `*`.
pub(super) fn first_star(s: &[u8]) -> Option<(usize, usize)> {
    (0..s.len()).find_map(|start| {
        let mut i = start;
        if matches!(s[i], b'<' | b'>') {
            i += 1;
        }
        if s.get(i) == Some(&b'=') {
            i += 1;
        }
        if s.get(i) == Some(&b' ') {
            i += 1;
        }
        (s.get(i) == Some(&b'*')).then_some((start, i + 1))
    })
}

/// Byte positions of the spaces node-semver 7.8's `trimComparatorWhitespace` removes: the space
/// between an operator and the version it applies to (`> 1.2.3` becomes `>1.2.3`).
///
/// Follows the upstream scan exactly: for each character that can start a version, walk back
/// over the `[v=\s]` prefix, find the operator before it, and drop one space after the
/// operator. Each prefix run is walked by exactly one version start, so this is linear.
///
/// Calls `remove` with each position, in increasing order (a callback, so the common case of
/// none allocates nothing).
pub(super) fn comparator_space_removals(s: &[u8], mut remove: impl FnMut(usize)) {
    let ws = |i: usize| s.get(i) == Some(&b' ');
    let mut last = None;
    for version_start in 0..s.len() {
        if !is_version_start(s[version_start]) {
            continue;
        }
        let mut prefix_start = version_start;
        while prefix_start > 0 && is_prefix(s[prefix_start - 1]) {
            prefix_start -= 1;
        }
        let mut operator_end = prefix_start;
        if prefix_start > 0 && matches!(s[prefix_start - 1], b'<' | b'>') {
            if s.get(operator_end) == Some(&b'=') {
                operator_end += 1;
            }
        } else {
            if ws(operator_end) {
                operator_end += 1;
            }
            if s.get(operator_end) == Some(&b'=') {
                operator_end += 1;
            } else {
                if !ws(prefix_start) || !ws(prefix_start + 1) {
                    continue;
                }
                operator_end = prefix_start + 1;
            }
        }
        if ws(operator_end) && last != Some(operator_end) {
            last = Some(operator_end);
            remove(operator_end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xrange_full_parts() {
        let x = xrange_full(b"v=1.2.x-beta.1+b").unwrap();
        assert_eq!(x.parts, [Some(&b"1"[..]), Some(b"2"), Some(b"x")]);
        assert_eq!(x.pre, Some(&b"beta.1"[..]));
        assert!(xrange_full(b"01").is_none());
        assert!(xrange_full(b"1.2-beta").is_none());
        assert!(xrange_full(b"1.2.3-01").is_none());
        assert!(xrange_full(b"1.2.3-").is_none());
        assert!(xrange_full(b"").is_none());
        assert!(xrange_full(b"1.").is_none());
        assert!(xrange_full(b"*").is_some());
    }

    #[test]
    fn full_version_rules() {
        assert!(full_version(b"v1.2.3-rc.1+b.2").is_some());
        assert!(full_version(b"vv1.2.3").is_none());
        assert!(full_version(b"1.2").is_none());
        assert!(full_version(b"1.02.3").is_none());
        assert!(full_version(b"1.2.3+").is_none());
    }

    #[test]
    fn build_and_star() {
        assert_eq!(first_build(b"1.2.3+a.b."), Some((5, 9)));
        assert_eq!(first_build(b"1+.+x"), Some((3, 5)));
        assert_eq!(first_build(b"1.2.3"), None);
        assert_eq!(first_star(b"1.2.3<*"), Some((5, 7)));
        assert_eq!(first_star(b">=*"), Some((0, 3)));
        assert_eq!(first_star(b"abc"), None);
    }

    #[test]
    fn comparator_spaces() {
        let removals = |s: &[u8]| {
            let mut out = Vec::new();
            comparator_space_removals(s, |at| out.push(at));
            out
        };
        assert_eq!(removals(b"> 1.2.3 < 2"), [1, 9]);
        assert_eq!(removals(b"1.2.3 = 1"), [7]);
        assert!(removals(b"v = 1").is_empty());
    }
}
