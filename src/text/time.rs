//! Time as data: the core never reads a clock; callers pass `now_ms` (milliseconds since the
//! Unix epoch). This formats it as an RFC 3339 / ISO 8601 UTC timestamp.

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days` algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) → days since 1970-01-01, the inverse of `civil_from_days` (Howard
/// Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days in a month of the proleptic Gregorian calendar.
pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

pub const DAY_MS: u64 = 86_400_000;

/// `2026-11-30T04:05:06.789Z` for `now_ms`.
pub fn iso8601(now_ms: u64) -> String {
    let secs = (now_ms / 1000) as i64;
    let ms = now_ms % 1000;
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!("{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z", sod / 3600, sod % 3600 / 60, sod % 60)
}

pub const MINUTE_MS: u64 = 60_000;

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_795_142_624_453), "2026-11-20T02:43:44.453Z");
    }

    #[test]
    fn days_round_trip() {
        for z in [-800_000i64, -1, 0, 1, 11_016, 20_412, 800_000] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
            assert!(d <= days_in_month(y, m));
        }
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
    }
}

/// Milliseconds since the epoch of an RFC 3339 / ISO 8601 time: `2026-12-04T23:39:49Z`,
/// with an optional fraction and a `Z` or `±hh:mm` offset (a date alone is its midnight
/// UTC). `None` for anything else, or a time before 1970.
pub fn parse_iso8601(s: &str) -> Option<u64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)? as u32, num(8, 2)? as u32);
    if !(1..=12).contains(&mo) || d == 0 || d > days_in_month(y, mo) {
        return None;
    }
    let mut ms = days_from_civil(y, mo, d) * 86_400_000;
    if b.len() > 10 {
        if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 19 || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
        if h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        ms += (h * 3600 + mi * 60 + sec) * 1000;
        let mut rest = &s[19..];
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            let first3: String = frac[..digits].chars().chain("000".chars()).take(3).collect();
            ms += first3.parse::<i64>().ok()?;
            rest = &frac[digits..];
        }
        match rest {
            "" | "Z" | "z" => {}
            _ => {
                let sign = match rest.as_bytes()[0] {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                    return None;
                }
                let (oh, om) = (rest[1..3].parse::<i64>().ok()?, rest[4..6].parse::<i64>().ok()?);
                ms -= sign * (oh * 3600 + om * 60) * 1000;
            }
        }
    }
    u64::try_from(ms).ok()
}

#[cfg(test)]
mod iso_tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn iso_times_read_back_what_iso8601_writes() {
        for ms in [0u64, 1_764_892_789_123, 1_780_000_000_000] {
            assert_eq!(parse_iso8601(&iso8601(ms)), Some(ms));
        }
        assert_eq!(parse_iso8601("2026-12-04T23:39:49Z"), Some(1_796_427_589_000));
        assert_eq!(parse_iso8601("2026-12-05T01:39:49+02:00"), Some(1_796_427_589_000));
        assert_eq!(parse_iso8601("2026-12-04"), Some(1_796_342_400_000));
        for bad in ["", "2026-13-01", "2026-02-30T00:00:00Z", "yesterday", "2026-12-04T25:00:00Z", "1969-12-31T23:59:59Z", "2026-12-04T23:39:49+0200", "２０２６-12-04"] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }
}
