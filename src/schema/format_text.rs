//! The string formats `ajv-formats` (full mode) defines by a grammar, written out here so that
//! a value passes exactly when ajv-formats passes it. Letters are matched without regard to
//! case where ajv-formats' definitions are case-insensitive; `\d` is ASCII, as in JavaScript.

/// `YYYY-MM-DD` with a day that exists in that month (29 February in leap years).
pub(crate) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let last_day = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    (1..=last_day).contains(&day)
}

/// `HH:MM:SS[.fraction][zone]`, the zone `Z` or `±HH`, `±HHMM`, `±HH:MM`; required when
/// `zone_required` (`time`), optional otherwise (`iso-time`). A leap second (`:60`) is valid
/// only at 23:59 UTC once the zone is applied.
pub(crate) fn is_time(s: &str, zone_required: bool) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    let mut rest = &b[8..];
    if let [b'.', tail @ ..] = rest {
        let n = tail.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &tail[n..];
    }
    let (zone, sign, zone_hour, zone_minute) = match rest {
        [] => (false, 1, 0, 0),
        [b'z' | b'Z'] => (true, 1, 0, 0),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let sign = if *sign == b'-' { -1 } else { 1 };
            let (h, m) = match tail {
                [h1, h2] => (digits(&[*h1, *h2]), Some(0)),
                [h1, h2, m1, m2] | [h1, h2, b':', m1, m2] => {
                    (digits(&[*h1, *h2]), digits(&[*m1, *m2]))
                }
                _ => return false,
            };
            let (Some(h), Some(m)) = (h, m) else {
                return false;
            };
            (true, sign, h, m)
        }
        _ => return false,
    };
    if zone_hour > 23 || zone_minute > 59 || (zone_required && !zone) {
        return false;
    }
    if hour <= 23 && minute <= 59 && second < 60 {
        return true;
    }
    // A leap second: 23:59:60 in UTC, which the zone offset moves.
    let utc_minute = i64::from(minute) - i64::from(zone_minute) * sign;
    let utc_hour = i64::from(hour) - i64::from(zone_hour) * sign - i64::from(utc_minute < 0);
    (utc_hour == 23 || utc_hour == -1) && (utc_minute == 59 || utc_minute == -1) && second <= 60
}

/// A date and a time split by `T`, `t` or one JavaScript whitespace character; anything with
/// more than one such separator is refused, as ajv-formats' `split` leaves three parts.
pub(crate) fn is_date_time(s: &str, zone_required: bool) -> bool {
    let mut parts = s.split(|c: char| c == 'T' || c == 't' || crate::js::is_js_space(c));
    match (parts.next(), parts.next(), parts.next()) {
        (Some(date), Some(time), None) => is_date(date) && is_time(time, zone_required),
        _ => false,
    }
}

/// 8-4-4-4-12 hexadecimal digits, optionally after `urn:uuid:` (any case).
pub(crate) fn is_uuid(s: &str) -> bool {
    let body = match s.get(..9) {
        Some(prefix) if prefix.eq_ignore_ascii_case("urn:uuid:") => &s[9..],
        _ => s,
    };
    let b = body.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// ajv-formats' `email` (full mode): dot-separated runs of `atext` (letters, digits and
/// ``!#$%&'*+/=?^_`{|}~-``), `@`, then two or more labels of letters, digits and inner hyphens.
pub(crate) fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let atext = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~-".contains(&c);
    let local_ok = local
        .split('.')
        .all(|run| !run.is_empty() && run.bytes().all(atext));
    let labels: Vec<&str> = domain.split('.').collect();
    local_ok && labels.len() >= 2 && labels.iter().all(|label| is_label(label, usize::MAX))
}

/// ajv-formats' `hostname`: labels of 1 to 63 letters, digits and inner hyphens, joined by
/// dots, an optional final dot, and at most 253 characters before it.
pub(crate) fn is_hostname(s: &str) -> bool {
    let trimmed = s.strip_suffix('.').unwrap_or(s);
    (1..=253).contains(&trimmed.len()) && trimmed.split('.').all(|label| is_label(label, 63))
}

/// A letter or digit, then letters, digits or hyphens ending in a letter or digit, at most
/// `max` characters.
fn is_label(label: &str, max: usize) -> bool {
    let b = label.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            b.len() <= max
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        }
        _ => false,
    }
}

/// ISO 8601 durations as ajv-formats reads them: `P` then either `nW`, or any of `nY`, `nM`,
/// `nD` followed by an optional `T` part of `nH`, `nM`, `nS` (the `T` needs a digit after it),
/// and at least one component.
pub(crate) fn is_duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    if rest.is_empty() {
        return false;
    }
    if let Some(weeks) = rest.strip_suffix('W')
        && !weeks.is_empty()
        && weeks.bytes().all(|c| c.is_ascii_digit())
    {
        return true;
    }
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    if !components(date, b"YMD") {
        return false;
    }
    match time {
        None => true,
        Some(time) => time.starts_with(|c: char| c.is_ascii_digit()) && components(time, b"HMS"),
    }
}

/// `s` is a sequence of `<digits><unit>` with units in the order of `units`, each at most once.
fn components(s: &str, units: &[u8]) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut next_unit = 0;
    while i < b.len() {
        let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        i += n;
        let Some(at) = b
            .get(i)
            .and_then(|u| units[next_unit..].iter().position(|x| x == u))
        else {
            return false;
        };
        next_unit += at + 1;
        i += 1;
    }
    true
}

/// RFC 6570 URI templates as ajv-formats reads them: literals (anything but controls, space
/// and `"'<>\^`{|}`, `%` only as `%XX`) and expressions `{[op]var[:n|*](,var[:n|*])*}` with
/// variable names of letters, digits, `_` and `%XX`.
pub(crate) fn is_uri_template(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let pct = |i: usize| is_pct(b, i);
    while i < b.len() {
        match b[i] {
            b'{' => {
                i += 1;
                if b.get(i).is_some_and(|c| b"+#./;?&=,!@|".contains(c)) {
                    i += 1;
                }
                loop {
                    let start = i;
                    while i < b.len() {
                        if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                            i += 1;
                        } else if pct(i) {
                            i += 3;
                        } else {
                            break;
                        }
                    }
                    if i == start {
                        return false;
                    }
                    match b.get(i) {
                        Some(b':') => {
                            i += 1;
                            let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                            if n == 0 || n > 4 || b[i] == b'0' {
                                return false;
                            }
                            i += n;
                        }
                        Some(b'*') => i += 1,
                        _ => {}
                    }
                    match b.get(i) {
                        Some(b',') => i += 1,
                        Some(b'}') => {
                            i += 1;
                            break;
                        }
                        _ => return false,
                    }
                }
            }
            b'%' if pct(i) => i += 3,
            c if c <= 0x20 || b"\"'<>%\\^`{|}".contains(&c) => return false,
            _ => i += 1,
        }
    }
    true
}

/// Base64 as ajv-formats tests it: its pattern has the `m` flag, so one line of the value
/// (lines split at JavaScript line terminators) being base64 is enough.
pub(crate) fn is_base64_line(s: &str) -> bool {
    s.split(['\n', '\r', '\u{2028}', '\u{2029}']).any(is_base64)
}

fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let body_ok = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    pad <= 2 && b[..b.len() - pad].iter().all(|&c| body_ok(c))
}

/// The value of ASCII decimal digits, or `None` if any byte is not one.
fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

/// Which of ajv-formats' two URI grammars: `uri` (a scheme and a non-empty hierarchical part)
/// or `uri-reference` (both optional, and `"` allowed in names, paths, queries and fragments,
/// as ajv-formats' pattern has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UriKind {
    Uri,
    Reference,
}

/// ajv-formats' `uri`: RFC 3986's grammar with a required scheme, and a `/` or `:` somewhere.
pub(crate) fn is_uri(s: &str) -> bool {
    s.contains(['/', ':'])
        && scheme_end(s).is_some_and(|end| uri_after_scheme(&s[end..], UriKind::Uri))
}

/// ajv-formats' `uri-reference`: a URI or a relative reference (RFC 3986).
pub(crate) fn is_uri_reference(s: &str) -> bool {
    scheme_end(s).is_some_and(|end| uri_after_scheme(&s[end..], UriKind::Reference))
        || uri_after_scheme(s, UriKind::Reference)
}

/// The end (after its `:`) of a scheme `[a-z][a-z0-9+.-]*:` opening `s`.
fn scheme_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = b
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
        .count();
    (b.get(n) == Some(&b':')).then_some(n + 1)
}

/// Whether `b[i..]` opens with `%XX`.
fn is_pct(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// Whether every character of `s` is in `allowed` (besides letters and digits) or part of a
/// `%XX`.
fn all_chars(s: &str, allowed: &[u8]) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() || allowed.contains(&b[i]) {
            i += 1;
        } else if is_pct(b, i) {
            i += 3;
        } else {
            return false;
        }
    }
    true
}

const UNRESERVED_SUB_DELIMS: &[u8] = b"-._~!$&'()*+,;=";

/// The hierarchical part, query and fragment after the scheme.
fn uri_after_scheme(rest: &str, kind: UriKind) -> bool {
    let quote: &[u8] = if kind == UriKind::Reference {
        b"\""
    } else {
        b""
    };
    let with = |extra: &[u8]| [UNRESERVED_SUB_DELIMS, quote, extra].concat();
    let (rest, fragment) = match rest.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (rest, None),
    };
    let (hier, query) = match rest.split_once('?') {
        Some((hier, query)) => (hier, Some(query)),
        None => (rest, None),
    };
    let query_chars = with(b":@/?");
    if !fragment.is_none_or(|f| all_chars(f, &query_chars))
        || !query.is_none_or(|q| all_chars(q, &query_chars))
    {
        return false;
    }
    let path_chars = with(b":@/");
    let path_ok = |p: &str| all_chars(p, &path_chars);
    if hier.is_empty() {
        return kind == UriKind::Reference;
    }
    // A path (absolute or rootless) that does not open with `//`.
    if !hier.starts_with("//") && path_ok(hier) {
        return true;
    }
    // `//authority` (ajv-formats also takes a single `/`) and a path of `/`-led segments.
    let reg_name_chars = with(b"");
    ["//", "/"].iter().any(|lead| {
        let Some(after) = hier.strip_prefix(lead) else {
            return false;
        };
        let (authority, path) = after.split_at(after.find('/').unwrap_or(after.len()));
        path_ok(path) && is_authority(authority, &reg_name_chars)
    })
}

/// `[userinfo@]host[:port]`, the host an IP literal in brackets, or a registered name.
fn is_authority(authority: &str, reg_name_chars: &[u8]) -> bool {
    let host_port = match authority.split_once('@') {
        Some((userinfo, host_port)) => {
            if !all_chars(userinfo, &[UNRESERVED_SUB_DELIMS, b":"].concat()) {
                return false;
            }
            host_port
        }
        None => authority,
    };
    let (host_ok, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let Some((inside, after)) = literal.split_once(']') else {
            return false;
        };
        (is_ip_literal(inside), after)
    } else {
        let (host, port) = host_port.split_at(host_port.find(':').unwrap_or(host_port.len()));
        (all_chars(host, reg_name_chars), port)
    };
    host_ok
        && (port.is_empty()
            || port
                .strip_prefix(':')
                .is_some_and(|p| p.bytes().all(|c| c.is_ascii_digit())))
}

/// An IPv6 address or `v<hex>.<chars>` (IPvFuture) inside brackets.
fn is_ip_literal(inside: &str) -> bool {
    if let Some(future) = inside.strip_prefix(['v', 'V']) {
        return future.split_once('.').is_some_and(|(version, rest)| {
            !version.is_empty()
                && version.bytes().all(|c| c.is_ascii_hexdigit())
                && !rest.is_empty()
                && rest.bytes().all(|c| {
                    c.is_ascii_alphanumeric() || UNRESERVED_SUB_DELIMS.contains(&c) || c == b':'
                })
        });
    }
    inside.parse::<std::net::Ipv6Addr>().is_ok()
}

/// ajv-formats' `url`: `http`, `https` or `ftp`, optional user information, a public IPv4
/// address or a domain name with a top-level domain of letters, an optional port of 2 to 5
/// digits and an optional path without white space. Private and loopback IPv4 ranges
/// (`10.`, `127.`, `169.254.`, `192.168.`, `172.16.`–`172.31.`) are refused.
pub(crate) fn is_url(s: &str) -> bool {
    let lower_prefix = |p: &str| s.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
    let Some(rest) = ["http://", "https://", "ftp://"]
        .iter()
        .find(|p| lower_prefix(p))
        .map(|p| &s[p.len()..])
    else {
        return false;
    };
    // The user information is any run of non-space characters up to some `@`.
    let mut starts = vec![0];
    for (at, c) in rest.char_indices() {
        if crate::js::is_js_space(c) {
            break;
        }
        if c == '@' && at > 0 {
            starts.push(at + 1);
        }
    }
    starts
        .into_iter()
        .any(|start| url_host_port_path(&rest[start..]))
}

fn url_host_port_path(t: &str) -> bool {
    let host_end = t.find([':', '/']).unwrap_or(t.len());
    let (host, mut after) = t.split_at(host_end);
    if !(is_public_ipv4(t, host) || is_url_domain(host)) {
        return false;
    }
    if let Some(port_and_more) = after.strip_prefix(':') {
        let n = port_and_more.bytes().take_while(u8::is_ascii_digit).count();
        if !(2..=5).contains(&n) {
            return false;
        }
        after = &port_and_more[n..];
    }
    after.is_empty() || (after.starts_with('/') && !after.chars().any(crate::js::is_js_space))
}

/// A dotted IPv4 address outside the private and loopback ranges: first octet 1–223, last
/// 1–254 (neither with a leading zero), middle ones up to 255 (two digits may lead with 0).
/// `from_host` is the text from the host on, which the range exclusions look at.
fn is_public_ipv4(from_host: &str, host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    let [first, second, third, last] = parts.as_slice() else {
        return false;
    };
    let value = |p: &str| {
        (!p.is_empty() && p.len() <= 3 && p.bytes().all(|c| c.is_ascii_digit()))
            .then(|| p.parse::<u32>().unwrap_or(u32::MAX))
    };
    let no_leading_zero = |p: &str| !p.starts_with('0');
    let middle =
        |p: &str| value(p).is_some_and(|v| p.len() <= 2 || (no_leading_zero(p) && v <= 255));
    let first_ok = value(first).is_some_and(|v| no_leading_zero(first) && (1..=223).contains(&v));
    let last_ok = value(last).is_some_and(|v| no_leading_zero(last) && (1..=254).contains(&v));
    let excluded = ["10", "127"]
        .iter()
        .any(|p| dotted_numbers_follow(from_host, p, 3))
        || ["169.254", "192.168"]
            .iter()
            .any(|p| dotted_numbers_follow(from_host, p, 2))
        || from_host.strip_prefix("172.").is_some_and(|rest| {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count().min(2);
            rest[..n]
                .parse::<u32>()
                .is_ok_and(|v| n == 2 && (16..=31).contains(&v))
                && dotted_numbers_follow(&rest[n..], "", 2)
        });
    first_ok && middle(second) && middle(third) && last_ok && !excluded
}

/// Whether `s` opens with `prefix` followed by `groups` times `.` and one to three digits.
fn dotted_numbers_follow(s: &str, prefix: &str, groups: usize) -> bool {
    let Some(mut rest) = s.strip_prefix(prefix) else {
        return false;
    };
    for k in 0..groups {
        let Some(after_dot) = rest.strip_prefix('.') else {
            return false;
        };
        let n = after_dot.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || (k + 1 < groups && n > 3) {
            return false;
        }
        rest = &after_dot[n.min(3)..];
    }
    true
}

/// Labels of letters, digits and characters U+00A1–U+FFFF, single hyphens inside, and a
/// last label (the top-level domain) of two or more letters or such characters.
fn is_url_domain(host: &str) -> bool {
    let wide = |c: char| ('\u{a1}'..='\u{ffff}').contains(&c);
    let Some((labels, tld)) = host.rsplit_once('.') else {
        return false;
    };
    let label_ok = |label: &str| {
        label
            .split('-')
            .all(|run| !run.is_empty() && run.chars().all(|c| c.is_ascii_alphanumeric() || wide(c)))
    };
    tld.chars().count() >= 2
        && tld.chars().all(|c| c.is_ascii_alphabetic() || wide(c))
        && labels.split('.').all(label_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each answer is ajv-formats 3.0.1's (full mode) for the same value.
    #[test]
    fn dates_and_times_follow_ajv_formats() {
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2020-13-01"));
        for ok in [
            "12:34:56Z",
            "12:34:56+05",
            "12:34:56+0530",
            "12:34:56.5-01:00",
            "23:59:60z",
        ] {
            assert!(is_time(ok, true), "{ok}");
        }
        assert!(is_time("00:59:60+01:00", true), "23:59:60 UTC");
        assert!(!is_time("12:59:60+01:00", true));
        assert!(!is_time("12:34:56", true));
        assert!(is_time("12:34:56", false));
        assert!(is_date_time("2024-01-01 12:34:56Z", true));
        assert!(is_date_time("2024-01-01t12:34:56+0530", true));
        assert!(!is_date_time("2024-01-01T12:34:56T", true));
        assert!(!is_date_time("2024-02-30T00:00:00Z", true));
    }

    #[test]
    fn names_and_identifiers_follow_ajv_formats() {
        assert!(is_uuid("URN:UUID:123E4567-E89B-12D3-A456-426614174000"));
        assert!(!is_uuid("{123e4567-e89b-12d3-a456-426614174000}"));
        assert!(is_email("a.b+c@d-e.fg"));
        assert!(!is_email("a..b@c.d"));
        assert!(!is_email("a@b"));
        assert!(is_hostname("3."));
        assert!(!is_hostname("a_b.com"));
        assert!(!is_hostname(&format!("{}.com", "a".repeat(64))));
        assert!(is_duration("P1Y23DT4H5M6S"));
        assert!(is_duration("P2W"));
        assert!(!is_duration("P1DT"));
        assert!(!is_duration("P1W1D"));
        assert!(is_uri_template("http://a/{+b,c:3}{d*}"));
        assert!(!is_uri_template("{a.b}"));
        assert!(is_base64_line("!!\naGk="), "the m flag: one line is enough");
    }

    #[test]
    fn uris_follow_ajv_formats() {
        assert!(is_uri("http://[::1]:80/a?b#c"));
        assert!(is_uri("urn:isbn:123"));
        assert!(!is_uri("a:"));
        // ajv-formats reads `/` + an empty authority + the path `/a:-0/`.
        assert!(is_uri("http://a:-0/"));
        assert!(!is_uri("http://a b"));
        assert!(!is_uri("http://a/%zz"));
        assert!(is_uri_reference(""));
        assert!(is_uri_reference(".http://a/b"));
        assert!(is_uri_reference("a/\"b\""));
        assert!(!is_uri_reference("a b"));
        assert!(is_url("https://user:pw@a-b.example.com:8080/x?y"));
        assert!(is_url("http://1.2.3.4/"));
        assert!(!is_url("http://10.0.0.1"));
        assert!(!is_url("http://172.16.0.1"));
        assert!(!is_url("http://172.31.0.1"));
        assert!(is_url("http://172.32.0.1"));
        assert!(is_url("http://172.15.0.1"));
        assert!(!is_url("http://localhost"));
        assert!(!is_url("http://a--b.com"));
        assert!(!is_url("http://a.bc?x"));
    }
}
