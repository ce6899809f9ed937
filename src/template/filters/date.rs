//! The `date` filter: JavaScript date parsing for the forms templates use, formatted in UTC
//! with strftime directives (LiquidJS formats in the host's zone; the runtime runs in UTC).

use crate::template::value::{Val, js_string, stringify, to_number};
use std::borrow::Cow;

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// ECMAScript's date-time string format (`YYYY-MM-DDTHH:mm:ss.sssZ` and its shortenings).
/// A date-only form is UTC; a date-time without an offset is local time, taken as UTC here.
fn parse_iso(s: &str) -> Option<f64> {
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let y = parts.next().filter(|p| p.len() == 4).and_then(num)?;
    let m = match parts.next() {
        Some(p) if p.len() == 2 => num(p)?,
        Some(_) => return None,
        None => 1,
    };
    let d = match parts.next() {
        Some(p) if p.len() == 2 => num(p)?,
        Some(_) => return None,
        None => 1,
    };
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut ms = 0i64;
    let mut offset_min = 0i64;
    if let Some(t) = time {
        let (clock, zone) = if let Some(c) = t.strip_suffix('Z') {
            (c, None)
        } else if let Some(i) = t.rfind(['+', '-']) {
            (&t[..i], Some(&t[i..]))
        } else {
            (t, None)
        };
        if let Some(z) = zone {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let (hh, mm) = z.get(1..)?.split_once(':')?;
            offset_min = sign * (num(hh)? * 60 + num(mm)?);
        }
        let (hms, frac) = match clock.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (clock, None),
        };
        let mut f = hms.split(':');
        let hh = num(f.next()?)?;
        let mi = num(f.next()?)?;
        let ss = match f.next() {
            Some(x) => num(x)?,
            None => 0,
        };
        if hh > 24 || mi > 59 || ss > 59 {
            return None;
        }
        let fr = match frac {
            Some(x) if !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()) => {
                let x3: String = x.chars().chain("000".chars()).take(3).collect();
                num(&x3)?
            }
            Some(_) => return None,
            None => 0,
        };
        ms = ((hh * 60 + mi) * 60 + ss) * 1000 + fr;
    }
    let days = days_from_civil(y, m, d);
    Some((days * 86_400_000 + ms - offset_min * 60_000) as f64)
}

/// V8's fallback date parser, for the shapes that reach `date` from plain values and text:
/// numbers separated by anything read as month, day, year (`"5"` is 2001-05-01, `"1.2.0"`
/// is 2000-01-02, `"1,2,3"` is 2003-01-02), or year, month, day when the first cannot be a
/// day (`"2025-01-02"` after a space-separated time, `"0-3"` is 2000-03-01; see
/// [`legacy_date`]); a month name takes the month's place (`"March 14, 2016"`); `h:mm[:ss]`
/// with `am`/`pm` is the time, and after it `+hhmm`, `-hh:mm`, `Z`, `UTC`, `GMT` or a US
/// zone (`EST`, `PDT`, …) the offset (local time, here UTC, without one). Other words are
/// skipped before the first number and make the text invalid after it (`"x 3"` is a date,
/// `"3 x"` is not), as does a second sign or a `)` after a number; no number means invalid.
fn parse_legacy(s: &str) -> Option<f64> {
    let parts = LegacyParts::scan(s)?;
    let (y, m, d) = legacy_date(&parts.nums, parts.month)?;
    // JS dates end at year 275760
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y > 275_760 {
        return None;
    }
    let mut clock = 0;
    if let Some((h, mi, sec, ms)) = parts.time {
        let h = match parts.pm {
            Some(true) if h < 12 => h + 12,
            Some(false) if h == 12 => 0,
            _ => h,
        };
        if h > 24 || mi > 59 || sec > 59 {
            return None;
        }
        clock = ((h * 60 + mi) * 60 + sec) * 1000 + ms;
    }
    let offset = parts.offset_min.unwrap_or(0);
    Some((days_from_civil(y, m, d) * 86_400_000 + clock - offset * 60_000) as f64)
}

/// What [`parse_legacy`]'s scan finds in the text, in order.
struct LegacyParts {
    /// Each number outside the time.
    nums: Vec<i64>,
    /// 1 to 12, from a month name.
    month: Option<i64>,
    /// Hours, minutes, seconds, milliseconds.
    time: Option<(i64, i64, i64, i64)>,
    offset_min: Option<i64>,
    pm: Option<bool>,
    /// A number has been read (words after one are not skipped).
    read_number: bool,
    /// The offset came from a UTC name, so a signed offset may follow (`UTC+2`).
    utc_named: bool,
}

/// The end of the run of ASCII digits starting at `b[i]`.
fn digits_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// The number `s[i..j]` (its first nine digits); an empty number is never valid, so it reads
/// as 10^9, which fails every range check of [`parse_legacy`].
fn legacy_value(s: &str, i: usize, j: usize) -> i64 {
    s.get(i..j)
        .and_then(|t| t.get(..t.len().min(9)))
        .and_then(|t| t.parse().ok())
        .unwrap_or(1_000_000_000)
}

impl LegacyParts {
    /// `None` when a time has no minutes (`"5:"`).
    fn scan(s: &str) -> Option<LegacyParts> {
        let b = s.as_bytes();
        let mut parts = LegacyParts {
            nums: Vec::new(),
            month: None,
            time: None,
            offset_min: None,
            pm: None,
            read_number: false,
            utc_named: false,
        };
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                let j = digits_end(b, i);
                if b.get(j) == Some(&b':') && parts.time.is_none() {
                    let (time, end) = legacy_time(s, i, j)?;
                    parts.time = Some(time);
                    parts.read_number = true;
                    i = end;
                    continue;
                }
                parts.nums.push(legacy_value(s, i, j));
                parts.read_number = true;
                i = j;
                if b.get(i) == Some(&b'-') {
                    i += 1;
                }
            } else if (c == b'+' || c == b'-') && (parts.time.is_some() || parts.utc_named) {
                let j = digits_end(b, i + 1);
                let sign = if c == b'-' { -1 } else { 1 };
                let (hh, mm, end) = if b.get(j) == Some(&b':') {
                    let k = digits_end(b, j + 1);
                    (legacy_value(s, i + 1, j), legacy_value(s, j + 1, k), k)
                } else {
                    match j - (i + 1) {
                        0 => (0, 0, j),
                        1 | 2 => (legacy_value(s, i + 1, j), 0, j),
                        3 | 4 => {
                            let n = legacy_value(s, i + 1, j);
                            (n / 100, n % 100, j)
                        }
                        _ => return None,
                    }
                };
                parts.offset_min = Some(sign * (hh * 60 + mm));
                parts.read_number = true;
                i = end;
            } else if (c == b'+' || c == b'-' || c == b')') && parts.read_number {
                // the one `-` a date number may be followed by was skipped with it
                return None;
            } else if c == b'(' {
                // a comment, nested, to its `)` or the end
                let mut depth = 0usize;
                while let Some(&x) = b.get(i) {
                    i += 1;
                    match x {
                        b'(' => depth += 1,
                        b')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            } else if c >= b'A' {
                // V8 reads every character from `A` up as part of a word (`[`, `_`, `~` and
                // non-ASCII ones too), so `"[1,2,3]"` has words touching its numbers
                let mut j = i;
                while j < b.len() && b[j] >= b'A' {
                    j += 1;
                }
                let word = s.get(i..j).unwrap_or("").to_ascii_lowercase();
                let touches_a_number = b.get(j).is_some_and(u8::is_ascii_digit);
                let month = parts.word(&word, touches_a_number)?;
                i = j;
                if month && b.get(i) == Some(&b'-') {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        Some(parts)
    }

    /// A word, looked up as V8 does, by its first three letters (a longer word matches only
    /// a month name): after a time `am`/`pm`, a month, or after a number a zone name.
    /// `Some(true)` for a month name. Any other word (`t` and the day names included) is
    /// skipped before the first number if it does not run into one (`"x3"`), and makes the
    /// text invalid after it: `None`.
    fn word(&mut self, word: &str, touches_a_number: bool) -> Option<bool> {
        let prefix = word.get(..3).unwrap_or(word);
        let month = MONTHS.iter().position(|name| {
            name.get(..3)
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        });
        // a word longer than three letters is a keyword only as a month name
        let keyword = word.len() <= 3 || month.is_some();
        match prefix {
            // before a time, `am` and `pm` are words like any other
            "am" | "pm" if keyword && self.time.is_some() => self.pm = Some(prefix == "pm"),
            _ if let Some(m) = month => {
                self.month = Some(m as i64 + 1);
                return Some(true);
            }
            _ if keyword
                && self.read_number
                && let Some(hours) = zone_hours(prefix) =>
            {
                self.offset_min = Some(hours * 60);
                self.utc_named = hours == 0;
            }
            _ if self.read_number || touches_a_number => return None,
            _ => {}
        }
        Some(false)
    }
}

/// The offset of a zone name V8's date parser knows, in hours.
fn zone_hours(name: &str) -> Option<i64> {
    Some(match name {
        "ut" | "utc" | "z" | "gmt" => 0,
        "edt" => -4,
        "est" | "cdt" => -5,
        "cst" | "mdt" => -6,
        "mst" | "pdt" => -7,
        "pst" => -8,
        _ => return None,
    })
}

/// `h:mm[:ss[.fff]]` whose hours are `s[i..j]` (`s[j]` is the colon): the time and the index
/// past it; `None` when no minute digit follows the colon.
fn legacy_time(s: &str, i: usize, j: usize) -> Option<((i64, i64, i64, i64), usize)> {
    let b = s.as_bytes();
    let h = legacy_value(s, i, j);
    let k = digits_end(b, j + 1);
    let mi = legacy_value(s, j + 1, k);
    let (mut sec, mut ms, mut end) = (0, 0, k);
    if b.get(k) == Some(&b':') {
        let l = digits_end(b, k + 1);
        sec = legacy_value(s, k + 1, l);
        end = l;
        if b.get(l) == Some(&b'.') {
            let f = digits_end(b, l + 1);
            let frac = s.get(l + 1..f).unwrap_or("");
            let f3: String = frac.chars().chain("000".chars()).take(3).collect();
            ms = f3.parse().unwrap_or(0);
            end = f;
        }
    }
    if k == j + 1 {
        return None;
    }
    Some(((h, mi, sec, ms), end))
}

/// Year, month and day from the numbers and the month name, as V8 composes them: the
/// numbers, up to three, are padded with 1s; without a month name they are year, month, day
/// when the first cannot be a day (0 or over 31), else month, day, year; with one, year then
/// day when the first cannot be a day, else day then year. Years 0–49 are 2000–2049 and 50–99
/// are 1950–1999 (so a missing year is 2001). A month name without a number is no date.
fn legacy_date(nums: &[i64], month: Option<i64>) -> Option<(i64, i64, i64)> {
    if nums.is_empty() || nums.len() > 3 {
        return None;
    }
    let n = |i: usize| nums.get(i).copied().unwrap_or(1);
    let first_is_a_day = (1..=31).contains(&n(0));
    let (y, m, d) = match month {
        None if first_is_a_day => (n(2), n(0), n(1)),
        None => (n(0), n(1), n(2)),
        Some(m) if first_is_a_day => (n(1), m, n(0)),
        Some(m) => (n(0), m, n(1)),
    };
    let y = match y {
        0..=49 => y + 2000,
        50..=99 => y + 1900,
        _ => y,
    };
    Some((y, m, d))
}

fn timestamp(v: &Val<'_>) -> Option<f64> {
    let ms = match v {
        Val::Num(n) => n * 1000.0,
        Val::S(_) | Val::Str(_) => {
            let s = v.as_str().unwrap_or("");
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                to_number(v) * 1000.0
            } else if s == "now" || s == "today" {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis() as f64)
                    .unwrap_or(0.0)
            } else {
                match parse_iso(s.trim()) {
                    Some(ms) => ms,
                    None => parse_legacy(s)?,
                }
            }
        }
        Val::Bool(b) => f64::from(u8::from(*b)),
        // `new Date([..])` parses the array's string form
        _ if v.is_array() => {
            let s = js_string(v);
            match parse_iso(s.trim()) {
                Some(ms) => ms,
                None => parse_legacy(&s)?,
            }
        }
        _ => return None,
    };
    (ms.is_finite() && ms.abs() <= 8.64e15).then_some(ms)
}

/// strftime as LiquidJS implements it (`%[flags][width][E|O]<conversion>`), in UTC.
fn strftime(ms: f64, format: &str) -> String {
    strftime_in(ms, format, None, None)
}

/// strftime at a fixed offset: `offset` is LiquidJS's `timezoneOffset` in minutes (positive
/// west of UTC, as `Date.prototype.getTimezoneOffset`); `None` is UTC named "UTC".
fn strftime_in(ms: f64, format: &str, offset: Option<f64>, name: Option<&str>) -> String {
    let time = Fields::new(ms, offset, name);
    let chars: Vec<char> = format.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Widths are the format's own numbers (`%999999999d`): once the text is over the render
    // cap, stop; the renderer then refuses the oversized value.
    let cap = crate::template::limits::MAX_RENDER_SIZE;
    while i < chars.len() {
        if out.len() > cap {
            break;
        }
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        let mut flags = String::new();
        while j < chars.len() && "-_0^#:".contains(chars[j]) {
            flags.push(chars[j]);
            j += 1;
        }
        let mut width = String::new();
        while j < chars.len() && chars[j].is_ascii_digit() {
            width.push(chars[j]);
            j += 1;
        }
        if j < chars.len() && (chars[j] == 'E' || chars[j] == 'O') && j + 1 < chars.len() {
            j += 1;
        }
        let Some(&conv) = chars.get(j).filter(|c| **c != '\n') else {
            out.push('%');
            i += 1;
            continue;
        };
        let Some(value) = time.conversion(conv, &flags, &width, cap) else {
            // an unknown conversion is written as it stands
            out.extend(&chars[start..=j]);
            i = j + 1;
            continue;
        };
        push_padded(&mut out, value, conv, &flags, &width, cap);
        i = j + 1;
    }
    out
}

/// The calendar and clock fields of one instant at a fixed offset, as `strftime_in` writes
/// them.
struct Fields<'n> {
    ms: f64,
    offset: Option<f64>,
    name: Option<&'n str>,
    /// The offset as `+hhmm` and `+hh:mm` (the sign flipped from LiquidJS's minutes west).
    zone: (String, String),
    y: i64,
    m: i64,
    d: i64,
    hh: i64,
    mi: i64,
    ss: i64,
    milli: i64,
    /// 0 is Sunday.
    wday: i64,
    /// 1 is January 1st.
    yday: i64,
    h12: i64,
    month: &'static str,
    day: &'static str,
    ampm: &'static str,
}

impl<'n> Fields<'n> {
    fn new(ms: f64, offset: Option<f64>, name: Option<&'n str>) -> Self {
        let shift = offset.unwrap_or(0.0);
        let zone = {
            let a = shift.abs() as i64;
            let sign = if shift > 0.0 { '-' } else { '+' };
            (
                format!("{sign}{:02}{:02}", a / 60, a % 60),
                format!("{sign}{:02}:{:02}", a / 60, a % 60),
            )
        };
        let total = (ms - shift * 60_000.0).floor() as i64;
        let days = total.div_euclid(86_400_000);
        let in_day = total.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        let hh = in_day / 3_600_000;
        let wday = (days + 4).rem_euclid(7);
        Fields {
            ms,
            offset,
            name,
            zone,
            y,
            m,
            d,
            hh,
            mi: in_day / 60_000 % 60,
            ss: in_day / 1000 % 60,
            milli: in_day % 1000,
            wday,
            yday: days - days_from_civil(y, 1, 1) + 1,
            h12: if hh % 12 == 0 { 12 } else { hh % 12 },
            month: MONTHS[usize::try_from(m - 1).unwrap_or(0) % 12],
            day: DAYS[usize::try_from(wday).unwrap_or(0) % 7],
            ampm: if hh < 12 { "AM" } else { "PM" },
        }
    }

    /// The week of the year, weeks starting on Sunday (`start` 0) or Monday (1): the days
    /// before the year's first such day are week 0 (strftime's `%U` and `%W`).
    fn week(&self, start: i64) -> i64 {
        let since_start = (self.wday - start).rem_euclid(7);
        (self.yday - 1 - since_start + 7).div_euclid(7)
    }

    /// The text of conversion `conv` before padding and case flags; `None` for a conversion
    /// LiquidJS does not know.
    fn conversion(&self, conv: char, flags: &str, width: &str, cap: usize) -> Option<String> {
        let Fields {
            ms,
            offset,
            name,
            y,
            m,
            d,
            hh,
            mi,
            ss,
            milli,
            wday,
            yday,
            h12,
            month,
            day,
            ampm,
            ..
        } = *self;
        Some(match conv {
            'a' => day.get(..3).unwrap_or("").to_string(),
            'A' => day.to_string(),
            'b' | 'h' => month.get(..3).unwrap_or("").to_string(),
            'B' => month.to_string(),
            'c' => format!("{m}/{d}/{y}, {h12}:{mi:02}:{ss:02} {ampm}"),
            'C' => y.div_euclid(100).to_string(),
            'd' | 'e' => d.to_string(),
            'H' | 'k' => hh.to_string(),
            'I' | 'l' => h12.to_string(),
            'j' => yday.to_string(),
            'L' => milli.to_string(),
            'm' => m.to_string(),
            'M' => mi.to_string(),
            'N' => {
                let w = width
                    .parse::<usize>()
                    .ok()
                    .filter(|w| *w > 0)
                    .unwrap_or(9)
                    .min(cap + 1);
                // the milliseconds padded to three digits first: .005 is `005…`
                let mut v: String = format!("{milli:03}").chars().take(w).collect();
                // ASCII digits: bytes are characters, and `len` is O(1)
                while v.len() < w {
                    v.push('0');
                }
                v
            }
            'p' => ampm.to_string(),
            'P' => ampm.to_lowercase(),
            'q' => match (d % 10, d) {
                (_, 11..=13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            }
            .to_string(),
            's' => ((ms / 1000.0).floor() as i64).to_string(),
            'S' => ss.to_string(),
            'u' => (if wday == 0 { 7 } else { wday }).to_string(),
            'U' => self.week(0).to_string(),
            'w' => wday.to_string(),
            'W' => self.week(1).to_string(),
            'x' => format!("{m}/{d}/{y}"),
            'X' => format!("{h12}:{mi:02}:{ss:02} {ampm}"),
            'y' => y.rem_euclid(100).to_string(),
            'Y' => y.to_string(),
            'z' => {
                if flags.contains(':') {
                    self.zone.1.clone()
                } else {
                    self.zone.0.clone()
                }
            }
            // a fixed offset has no zone name: LiquidJS writes the offset
            'Z' => match (name, offset) {
                (Some(n), _) => n.to_string(),
                (None, Some(_)) => self.zone.0.clone(),
                (None, None) => "UTC".to_string(),
            },
            't' => "\t".to_string(),
            'n' => "\n".to_string(),
            '%' => "%".to_string(),
            _ => return None,
        })
    }
}

/// Writes a conversion's `value` with its case flags (`^`, `#`) and padding: the `width`
/// written, else the conversion's default, with `_`/`0` choosing the pad and `-` none.
fn push_padded(
    out: &mut String,
    mut value: String,
    conv: char,
    flags: &str,
    width: &str,
    cap: usize,
) {
    let mut pad_char = if "aAbBceklpP".contains(conv) {
        ' '
    } else {
        '0'
    };
    let mut pad_width = width
        .parse::<usize>()
        .ok()
        .filter(|w| *w > 0)
        .unwrap_or(match conv {
            'C' | 'd' | 'e' | 'H' | 'I' | 'k' | 'l' | 'm' | 'M' | 'S' | 'U' | 'W' | 'y' => 2,
            'j' | 'L' => 3,
            'Y' => 4,
            _ => 0,
        });
    if flags.contains('^') {
        value = value.to_uppercase();
    } else if flags.contains('#') {
        value = if value.chars().any(char::is_lowercase) {
            value.to_uppercase()
        } else {
            value.to_lowercase()
        };
    }
    if flags.contains('_') {
        pad_char = ' ';
    } else if flags.contains('0') {
        pad_char = '0';
    }
    if flags.contains('-') {
        pad_width = 0;
    }
    let pad_width = pad_width.min(cap + 1);
    // zeros go after a minus sign (`%Y` of year -1 is `-001`)
    let digits = match value.strip_prefix('-') {
        Some(rest) if pad_char == '0' => {
            out.push('-');
            rest
        }
        _ => value.as_str(),
    };
    let written = value.chars().count();
    for _ in written..pad_width {
        out.push(pad_char);
    }
    out.push_str(digits);
}

/// `date: format, timezone`: an unparseable input is returned unchanged. A timezone is
/// minutes west of UTC (as `Date.prototype.getTimezoneOffset`), or an IANA zone name whose
/// offset at that instant comes from the bundled time zone database; `%Z` then writes the
/// name as given.
pub(crate) fn date_filter<'a>(input: Val<'a>, args: &[Val<'a>]) -> Result<Val<'a>, String> {
    let Some(ms) = timestamp(&input) else {
        return Ok(input);
    };
    let mut name = None;
    let offset = match args.get(1) {
        None | Some(Val::Undef) | Some(Val::Nil | Val::NilDrop) => None,
        Some(v @ (Val::S(_) | Val::Str(_))) => {
            let zone = v.as_str().unwrap_or("");
            name = Some(zone);
            Some(zone_offset(zone, ms)?)
        }
        Some(v) => Some(to_number(v)),
    };
    // LiquidDate shifts the instant by the offset; past JavaScript's range it is invalid
    let shifted = ms - offset.unwrap_or(0.0) * 60_000.0;
    if !(shifted.is_finite() && shifted.abs() <= 8.64e15) {
        return Ok(input);
    }
    let format = match args.first() {
        None | Some(Val::Undef) | Some(Val::Nil | Val::NilDrop) => {
            Cow::Borrowed("%A, %B %-e, %Y at %-l:%M %P %z")
        }
        Some(v) => stringify(v),
    };
    Ok(Val::string(strftime_in(ms, &format, offset, name)))
}

/// Minutes west of UTC of IANA zone `zone` at `ms` (LiquidJS asks `Intl` the same).
fn zone_offset(zone: &str, ms: f64) -> Result<f64, String> {
    let tz = jiff::tz::TimeZone::get(zone)
        .map_err(|_| format!("Invalid time zone specified: {zone}"))?;
    let at = jiff::Timestamp::from_millisecond(ms.floor() as i64)
        .map_err(|_| "Invalid time value".to_string())?;
    // LiquidJS compares minute-resolution local times, so seconds of an offset drop out
    Ok(-f64::from(tz.to_offset(at).seconds().div_euclid(60)))
}

/// Jekyll's `date_to_xmlschema`, `date_to_rfc822`, `date_to_string` and
/// `date_to_long_string` (`type` "ordinal", `style` "US"): fixed formats of `date`.
pub(crate) fn date_to<'a>(name: &str, input: Val<'a>, args: &[Val<'a>]) -> Val<'a> {
    let fixed = match name {
        "date_to_xmlschema" => "%Y-%m-%dT%H:%M:%S%:z",
        "date_to_rfc822" => "%a, %d %b %Y %H:%M:%S %z",
        _ => "",
    };
    if !fixed.is_empty() {
        return date_filter(input.clone(), &[Val::S(fixed)]).unwrap_or(input);
    }
    let Some(ms) = timestamp(&input) else {
        return input;
    };
    let month = if name == "date_to_long_string" {
        "%B"
    } else {
        "%b"
    };
    let is = |i: usize, want: &str| args.get(i).and_then(Val::as_str) == Some(want);
    let format = if is(0, "ordinal") {
        let d = strftime(ms, "%-d");
        if is(1, "US") {
            format!("{month} {d}%q, %Y")
        } else {
            format!("{d}%q {month} %Y")
        }
    } else {
        format!("%d {month} %Y")
    };
    Val::string(strftime(ms, &format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_liquidjs_in_utc() {
        let ms = parse_iso("2026-09-17T15:30:00.000Z").unwrap_or(f64::NAN);
        assert_eq!(strftime(ms, "%Y-%m-%d"), "2026-09-17");
        assert_eq!(
            strftime(ms, "%A, %B %-e, %Y at %-l:%M %P %z"),
            "Thursday, September 17, 2026 at 3:30 pm +0000"
        );
        assert_eq!(strftime(ms, "%e|%j|%^a|%q|%%|%Q"), "17|260|THU|th|%|%Q");
        assert_eq!(parse_iso("2026-09-17"), Some(ms - 55_800_000.0));
        // a fraction is digits only, however many
        assert_eq!(parse_iso("2026-09-17T15:30:00.0001Z"), Some(ms));
        assert_eq!(parse_iso("2026-09-17T15:30:00.000Zab"), None);
        assert_eq!(parse_iso("2026-09-17T15:30:00.000ab"), None);
        assert_eq!(parse_legacy("1.2.0"), parse_iso("2000-01-02"));
        assert_eq!(parse_legacy("gold"), None);
        assert_eq!(
            parse_legacy("2025-01-02 03:04:05 -0100"),
            parse_iso("2025-01-02T04:04:05Z")
        );
        assert_eq!(parse_legacy("March 14, 2016"), parse_iso("2016-03-14"));
        assert_eq!(parse_legacy("5"), parse_iso("2001-05-01"));
        // V8's answers (`new Date(s)` in Node 20): words are skipped before the first number
        // and refused after it; zone names count after a number; one `-` may follow a number
        let iso = |s: &str| parse_iso(s);
        for (text, want) in [
            ("x 3", iso("2001-03-01")),
            ("EST 3", iso("2001-03-01")),
            ("am 3", iso("2001-03-01")),
            ("Mayday 3", iso("2001-05-03")),
            ("Tue, 3 Mar 2020 10:00:00 EST", iso("2020-03-03T15:00:00Z")),
            ("3 Mar 2020 10:00 PM PDT", iso("2020-03-04T05:00:00Z")),
            ("3 UTC+2", iso("2001-02-28T22:00:00Z")),
            ("10:00 +530 3", iso("2001-03-01T04:30:00Z")),
            ("3-4-2020", iso("2020-03-04")),
            ("Mar-3-2020", iso("2020-03-03")),
            ("3,z", iso("2001-03-01")),
            ("3 x", None),
            ("3,ab", None),
            ("x3", None),
            ("3 am", None),
            ("3 T", None),
            ("3 sat", None),
            ("3--4", None),
            ("(3)", None),
            ("10:00 +12345", None),
            ("2020-01-02 x", None),
            ("0-3", iso("2000-03-01")),
            ("45 3", iso("2045-03-01")),
            ("0001 02 03", iso("2003-01-02")),
            ("March 2016", iso("2016-03-01")),
            ("Mar 45 7", iso("2045-03-07")),
            ("31 1", None),
            ("March", None),
            // every character from `A` up is part of a word, a parenthesis opens a comment
            ("[1,2,3]", None),
            ("_3", None),
            ("3 (a (b) c) 4", iso("2001-03-04")),
            ("#1 !2", iso("2001-01-02")),
        ] {
            assert_eq!(parse_legacy(text), want, "{text}");
        }
        // malformed times and offsets neither panic nor overflow
        for s in [
            "1:",
            "1:00 +",
            "1:00 +1:",
            "1:00 +999999999999:99999",
            "12:00:",
            "Jan 1 1:2:3.",
        ] {
            let _ = parse_legacy(s);
        }
    }
}
