//! The render clock: an instant as JavaScript's `Date.prototype.toISOString` writes it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Whether `text` is an instant as `toISOString` writes it, `YYYY-MM-DDTHH:MM:SS.sssZ`, with a
/// real calendar date (the milliseconds may be left out: `2026-09-17T15:30:00Z`). Years are
/// four digits (0000–9999); offsets other than `Z` are refused, because `today` is the first
/// ten characters of the clock and must be the UTC date.
///
/// # Examples
///
/// ```
/// use runstart::run::is_iso_instant;
///
/// assert!(is_iso_instant("2026-09-17T15:30:00.000Z"));
/// assert!(is_iso_instant("2024-02-29T23:59:59Z"));
/// assert!(!is_iso_instant("2025-02-29T00:00:00.000Z"));
/// assert!(!is_iso_instant("2026-09-17T15:30:00+02:00"));
/// ```
pub fn is_iso_instant(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let shape = matches!(b.len(), 20 | 24)
        && b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && b.get(10) == Some(&b'T')
        && b.get(13) == Some(&b':')
        && b.get(16) == Some(&b':')
        && b.last() == Some(&b'Z')
        && (b.len() == 20 || (b.get(19) == Some(&b'.') && digits(20..23).is_some()));
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    shape
        && (1..=12).contains(&month)
        && (1..=month_days).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60
}

/// `time` as `toISOString` writes it (UTC, milliseconds): `2026-09-17T15:30:00.000Z`.
/// Times before 1970 are written as 1970-01-01T00:00:00.000Z.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let t = UNIX_EPOCH + Duration::from_millis(1_789_659_000_123);
/// assert_eq!(runstart::run::format_iso_instant(t), "2026-09-17T15:30:00.123Z");
/// ```
pub fn format_iso_instant(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's days-to-civil algorithm).
    let z = i64::try_from(days).unwrap_or(i64::MAX / 2) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// The system clock as `toISOString` writes it; the usual [`super::RunRequest::now`].
pub fn iso_now() -> String {
    format_iso_instant(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_must_be_a_real_utc_instant() {
        for ok in [
            "2026-09-17T15:30:00.000Z",
            "2026-09-17T15:30:00Z",
            "2024-02-29T23:59:59.999Z",
        ] {
            assert!(is_iso_instant(ok), "{ok}");
        }
        for bad in [
            "notadate",
            "2026-13-45T99:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-09-17T15:30:00.000",
            "2026-09-17 15:30:00Z",
            "2026-09-17T15:30:00.00Z",
            "2026-09-17T24:00:00Z",
            "+2026-09-17T15:30:00Z",
            "2026-09-17",
        ] {
            assert!(!is_iso_instant(bad), "{bad}");
        }
        assert!(is_iso_instant(&iso_now()));
        assert_eq!(format_iso_instant(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
