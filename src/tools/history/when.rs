//! `since` / `until` of a history search: a point or a span of time, relative to `now_ms`
//! (the core reads no clock). Everything is UTC.
//!
//! Accepted forms:
//! - a number: milliseconds since the Unix epoch (an instant);
//! - ISO 8601: `2026-11-20` (that whole day), `2026-11-20T14:30` (that minute),
//!   `2026-11-20T14:30:05`, `…:05.250`, with `Z` or `±HH:MM` (no zone means UTC);
//! - `now`, `today`, `yesterday` (whole UTC days);
//! - `N unit ago` / `N units ago` (an instant), units `minute`, `hour`, `day`, `week`,
//!   `month` (30 days), `year` (365 days), also `min`/`mins`, `h`/`hr`/`hrs`, `d`, `w`;
//! - `last unit` / `past unit` / `last N units` (the instant that long before now, so
//!   `since: "last week"` is the last seven days); `this week` (since Monday 00:00),
//!   `this month`, `this year`.
//!
//! A value is a span `[start, end)`: `since` takes its start, `until` its end, so
//! `since: "yesterday", until: "yesterday"` is all of yesterday and `until: "2026-11-20"`
//! includes that day. An instant is the span of one millisecond.

use crate::text::time::{days_from_civil, days_in_month, DAY_MS};
use serde_json::Value;

/// `[start, end)` in ms since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

impl Span {
    fn instant(ms: u64) -> Span {
        Span { start: ms, end: ms.saturating_add(1) }
    }
}

const MINUTE: u64 = 60_000;
const HOUR: u64 = 60 * MINUTE;

fn unit_ms(unit: &str) -> Option<u64> {
    let u = unit.strip_suffix('s').filter(|u| u.len() > 1).unwrap_or(unit);
    Some(match u {
        "minute" | "min" | "m" => MINUTE,
        "hour" | "hr" | "h" => HOUR,
        "day" | "d" => DAY_MS,
        "week" | "w" | "wk" => 7 * DAY_MS,
        "month" | "mo" => 30 * DAY_MS,
        "year" | "yr" | "y" => 365 * DAY_MS,
        _ => return None,
    })
}

fn day_of(ms: u64) -> u64 {
    ms - ms % DAY_MS
}

fn ago(now: u64, n: u64, unit: &str) -> Option<Span> {
    let span = unit_ms(unit)?.checked_mul(n)?;
    Some(Span::instant(now.saturating_sub(span)))
}

fn relative(now: u64, phrase: &str) -> Option<Span> {
    let words: Vec<&str> = phrase.split_whitespace().collect();
    let today = day_of(now);
    match words.as_slice() {
        ["now"] => Some(Span::instant(now)),
        ["today"] => Some(Span { start: today, end: today + DAY_MS }),
        ["yesterday"] => Some(Span { start: today.saturating_sub(DAY_MS), end: today }),
        [n, unit, "ago"] => ago(now, n.parse().ok()?, unit),
        [nu, "ago"] => {
            let digits = nu.chars().take_while(char::is_ascii_digit).count();
            ago(now, nu[..digits].parse().ok()?, &nu[digits..])
        }
        ["last" | "past", unit] => ago(now, 1, unit),
        ["last" | "past", n, unit] => ago(now, n.parse().ok()?, unit),
        ["this", "week"] => {
            // 1970-01-01 was a Thursday: days since the last Monday
            let days = today / DAY_MS;
            let since_monday = (days + 3) % 7;
            Some(Span { start: today - since_monday * DAY_MS, end: now.saturating_add(1) })
        }
        ["this", "month"] => {
            let (y, m, _) = ymd(now);
            Some(Span { start: (days_from_civil(y, m, 1).max(0) as u64) * DAY_MS, end: now.saturating_add(1) })
        }
        ["this", "year"] => {
            let (y, _, _) = ymd(now);
            Some(Span { start: (days_from_civil(y, 1, 1).max(0) as u64) * DAY_MS, end: now.saturating_add(1) })
        }
        _ => None,
    }
}

fn ymd(ms: u64) -> (i64, u32, u32) {
    let iso = crate::text::time::iso8601(ms);
    let y = iso[0..4].parse().unwrap_or(1970);
    let m = iso[5..7].parse().unwrap_or(1);
    let d = iso[8..10].parse().unwrap_or(1);
    (y, m, d)
}

fn num(s: &str, len: usize) -> Option<u32> {
    (s.len() == len && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// An ISO 8601 time as stored by OpenViking (`created_at`), in ms since the epoch.
pub fn iso_ms(s: &str) -> Option<u64> {
    parse_iso(&s.trim().to_ascii_uppercase()).map(|w| w.start)
}

/// ISO 8601 as described in the module doc.
pub fn parse_iso(s: &str) -> Option<Span> {
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (num(parts.next()?, 4)?, num(parts.next()?, 2)?, num(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&m) || d < 1 || d > days_in_month(i64::from(y), m) || y < 1970 {
        return None;
    }
    let day_ms = days_from_civil(i64::from(y), m, d) as u64 * DAY_MS;
    let Some(time) = time else { return Some(Span { start: day_ms, end: day_ms + DAY_MS }) };
    let (clock, offset_min): (&str, i64) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(i) = time.rfind(['+', '-']) {
        let (c, z) = time.split_at(i);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let (hh, mm) = z[1..].split_once(':').unwrap_or((&z[1..], "00"));
        let (hh, mm) = (num(hh, 2)?, num(mm, 2)?);
        if hh > 23 || mm > 59 {
            return None;
        }
        (c, sign * i64::from(hh * 60 + mm))
    } else {
        (time, 0)
    };
    let mut fields = clock.split(':');
    let h = num(fields.next()?, 2)?;
    let mi = num(fields.next()?, 2)?;
    let (sec, ms, width) = match fields.next() {
        None => (0, 0, MINUTE),
        Some(sf) => {
            let (sec, frac) = sf.split_once('.').unwrap_or((sf, ""));
            let sec = num(sec, 2)?;
            if frac.is_empty() {
                (sec, 0, 1000)
            } else {
                if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let ms: u32 = format!("{frac:0<3}")[..3].parse().ok()?;
                (sec, ms, 1)
            }
        }
    };
    if fields.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let local = day_ms as i64 + i64::from(h) * HOUR as i64 + i64::from(mi) * MINUTE as i64 + i64::from(sec) * 1000 + i64::from(ms);
    let utc = local - offset_min * MINUTE as i64;
    let start = u64::try_from(utc).ok()?;
    Some(Span { start, end: start + width })
}

/// `since` / `until` as given (a number or a string), relative to `now_ms`; the error says
/// which forms are accepted.
pub fn parse_when(v: &Value, now_ms: u64) -> Result<Span, String> {
    const FORMS: &str = "use epoch milliseconds, an ISO 8601 time (2026-11-20, 2026-11-20T14:30Z) or a phrase like \"yesterday\", \"last week\", \"3 days ago\"";
    match v {
        Value::Number(n) => n.as_u64().map(Span::instant).ok_or_else(|| format!("must be non-negative epoch milliseconds; {FORMS}")),
        Value::String(s) => {
            let t = s.trim().to_lowercase();
            if t.chars().count() > 64 {
                return Err(format!("too long; {FORMS}"));
            }
            if let Some(ms) = t.parse::<u64>().ok().filter(|_| t.len() >= 10) {
                return Ok(Span::instant(ms));
            }
            parse_iso(&s.trim().to_ascii_uppercase()).or_else(|| relative(now_ms, &t)).ok_or_else(|| format!("not a time I can read ({s:?}); {FORMS}"))
        }
        _ => Err(format!("must be a string or a number; {FORMS}")),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    // 2026-11-20T14:30:00Z, a Friday
    const NOW: u64 = 1_795_185_000_000;

    fn p(s: &str) -> Span {
        parse_when(&json!(s), NOW).unwrap()
    }

    #[test]
    fn iso_forms() {
        assert_eq!(crate::text::time::iso8601(NOW), "2026-11-20T14:30:00.000Z");
        let day = p("2026-11-20");
        assert_eq!((crate::text::time::iso8601(day.start).as_str(), day.end - day.start), ("2026-11-20T00:00:00.000Z", DAY_MS));
        assert_eq!(p("2026-11-20T14:30Z"), Span { start: NOW, end: NOW + MINUTE });
        assert_eq!(p("2026-11-20T14:30:00Z"), Span { start: NOW, end: NOW + 1000 });
        assert_eq!(p("2026-11-20T14:30:00.250Z").start, NOW + 250);
        assert_eq!(p("2026-11-20T16:30:00+02:00").start, NOW);
        assert_eq!(p("2026-11-20T09:30:00-05:00").start, NOW);
        assert_eq!(p("2026-11-20 14:30").start, NOW);
        for bad in ["2026-13-01", "2026-02-30", "2026-11-20T25:00", "2026-11-20T14:30+99:00", "20261120", "2026-11-20T14"] {
            assert!(parse_when(&json!(bad), NOW).is_err(), "{bad}");
        }
        // lower-case `t` and `z` read as upper-case; a non-ASCII letter (upper-cased by Unicode
        // to ASCII letters: `ﬆ` → `ST`, `ı` → `I`) is never part of a time
        assert_eq!(p("2026-11-20t14:30:00z").start, NOW);
        assert_eq!(iso_ms(" 2026-11-20t14:30:00.000z "), Some(NOW));
        for bad in ["2026-11-20\u{fb06}14:30", "2026-11-20T14:30\u{fb06}", "2026-11-20T14:30:00\u{131}", "2026-11-20T14:30:00.5\u{17f}"] {
            assert_eq!(iso_ms(bad), None, "{bad}");
            assert_eq!(parse_iso(&bad.to_uppercase()), None, "{bad}, upper-cased by Unicode");
        }
    }

    #[test]
    fn relative_forms() {
        assert_eq!(p("now").start, NOW);
        let today = p("today");
        assert_eq!(crate::text::time::iso8601(today.start), "2026-11-20T00:00:00.000Z");
        assert_eq!(p("yesterday"), Span { start: today.start - DAY_MS, end: today.start });
        assert_eq!(p("3 days ago").start, NOW - 3 * DAY_MS);
        assert_eq!(p("2 hours ago").start, NOW - 2 * HOUR);
        assert_eq!(p("1 hour ago").start, NOW - HOUR);
        assert_eq!(p("5d ago").start, NOW - 5 * DAY_MS);
        assert_eq!(p("Last Week").start, NOW - 7 * DAY_MS);
        assert_eq!(p("past 2 weeks").start, NOW - 14 * DAY_MS);
        assert_eq!(p("last month").start, NOW - 30 * DAY_MS);
        assert_eq!(crate::text::time::iso8601(p("this week").start), "2026-11-16T00:00:00.000Z");
        assert_eq!(crate::text::time::iso8601(p("this month").start), "2026-11-01T00:00:00.000Z");
        assert_eq!(crate::text::time::iso8601(p("this year").start), "2026-01-01T00:00:00.000Z");
        assert_eq!(parse_when(&json!(1_700_000_000_000u64), NOW).unwrap().start, 1_700_000_000_000);
        assert_eq!(p("1700000000000").start, 1_700_000_000_000);
        for bad in ["soon", "3 fortnights ago", "last", "", "99999999999999999999 days ago"] {
            let e = parse_when(&json!(bad), NOW).unwrap_err();
            assert!(e.contains("ISO 8601"), "{bad}: {e}");
        }
        assert!(parse_when(&json!(-5), NOW).is_err());
        assert!(parse_when(&json!(true), NOW).is_err());
        assert_eq!(p("100000 years ago").start, 0, "saturates at the epoch");
    }
}
