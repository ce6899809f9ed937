//! The `date` filter: JavaScript date parsing for the forms templates use, formatted in UTC
//! with strftime directives (LiquidJS formats in the host's zone; the runtime runs in UTC).

use super::value::{Val, js_string, stringify, to_number};

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
            Some(x) if !x.is_empty() => {
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

/// V8's fallback date parser, for the shapes that reach `date` from plain values: numbers
/// separated by anything read as month, day, year (`"5"` is 2001-05-01, `"1.2.0"` is
/// 2000-01-02, `"1,2,3"` is 2003-01-02); words are skipped; no number means invalid.
fn parse_legacy(s: &str) -> Option<f64> {
    let mut nums: Vec<i64> = Vec::new();
    let mut cur: Option<i64> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            cur = Some(
                cur.unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(i64::from(d)),
            );
        } else if let Some(n) = cur.take() {
            nums.push(n);
        }
    }
    if let Some(n) = cur {
        nums.push(n);
    }
    if nums.is_empty() || nums.len() > 3 {
        return None;
    }
    let m = nums[0];
    let d = nums.get(1).copied().unwrap_or(1);
    let mut y = nums.get(2).copied().unwrap_or(2001);
    if nums.len() == 3 {
        if y < 50 {
            y += 2000;
        } else if y < 100 {
            y += 1900;
        }
    }
    // JS dates end at year 275760
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y > 275_760 {
        return None;
    }
    Some((days_from_civil(y, m, d) * 86_400_000) as f64)
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

fn pad(out: &mut String, v: i64, width: usize, flag: Option<char>, default_pad: char) {
    let s = v.abs().to_string();
    if v < 0 {
        out.push('-');
    }
    let padc = match flag {
        Some('-') => None,
        Some('_') => Some(' '),
        Some('0') => Some('0'),
        _ => Some(default_pad),
    };
    if let Some(c) = padc {
        for _ in s.len()..width {
            out.push(c);
        }
    }
    out.push_str(&s);
}

/// strftime in UTC for the directives LiquidJS supports.
fn strftime(ms: f64, format: &str) -> String {
    let total = ms.floor() as i64;
    let days = total.div_euclid(86_400_000);
    let in_day = total.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let hh = in_day / 3_600_000;
    let mi = in_day / 60_000 % 60;
    let ss = in_day / 1000 % 60;
    let milli = in_day % 1000;
    let wday = (days + 4).rem_euclid(7) as usize;
    let yday = days - days_from_civil(y, 1, 1) + 1;
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flag = None;
        if let Some(&f) = chars.peek()
            && matches!(f, '-' | '_' | '0' | '^' | '#')
        {
            flag = Some(f);
            chars.next();
        }
        let Some(dch) = chars.next() else {
            out.push('%');
            break;
        };
        let h12 = if hh % 12 == 0 { 12 } else { hh % 12 };
        match dch {
            'Y' => out.push_str(&y.to_string()),
            'y' => pad(&mut out, y % 100, 2, flag, '0'),
            'C' => pad(&mut out, y / 100, 2, flag, '0'),
            'm' => pad(&mut out, m, 2, flag, '0'),
            'd' => pad(&mut out, d, 2, flag, '0'),
            'e' => pad(&mut out, d, 2, flag, ' '),
            'H' => pad(&mut out, hh, 2, flag, '0'),
            'k' => pad(&mut out, hh, 2, flag, ' '),
            'I' => pad(&mut out, h12, 2, flag, '0'),
            'l' => pad(&mut out, h12, 2, flag, ' '),
            'M' => pad(&mut out, mi, 2, flag, '0'),
            'S' => pad(&mut out, ss, 2, flag, '0'),
            'L' => pad(&mut out, milli, 3, flag, '0'),
            'j' => pad(&mut out, yday, 3, flag, '0'),
            'u' => out.push_str(&(if wday == 0 { 7 } else { wday }).to_string()),
            'w' => out.push_str(&wday.to_string()),
            'A' => out.push_str(DAYS[wday]),
            'a' => out.push_str(DAYS[wday].get(..3).unwrap_or("")),
            'B' => out.push_str(MONTHS[(m - 1) as usize % 12]),
            'b' | 'h' => out.push_str(MONTHS[(m - 1) as usize % 12].get(..3).unwrap_or("")),
            'p' => out.push_str(if hh < 12 { "AM" } else { "PM" }),
            'P' => out.push_str(if hh < 12 { "am" } else { "pm" }),
            'z' => out.push_str("+0000"),
            'Z' => out.push_str("UTC"),
            's' => out.push_str(&(total.div_euclid(1000)).to_string()),
            'F' => out.push_str(&format!("{y}-{m:02}-{d:02}")),
            'T' => out.push_str(&format!("{hh:02}:{mi:02}:{ss:02}")),
            'D' => out.push_str(&format!("{m:02}/{d:02}/{:02}", y % 100)),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            '%' => out.push('%'),
            other => {
                out.push('%');
                if let Some(f) = flag {
                    out.push(f);
                }
                out.push(other);
            }
        }
    }
    out
}

/// `date: format`: an unparseable input is returned unchanged.
pub(crate) fn date_filter<'a>(input: Val<'a>, args: &[Val<'a>]) -> Val<'a> {
    let Some(ms) = timestamp(&input) else {
        return input;
    };
    let format = match args.first() {
        None | Some(Val::Undef) | Some(Val::Nil) => "%A, %B %-e, %Y at %-l:%M %P %z".to_string(),
        Some(v) => stringify(v),
    };
    let _ = js_string;
    Val::string(strftime(ms, &format))
}
