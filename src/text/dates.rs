//! Calendar dates written in text, English and Chinese: "7 May 2023", "May 7, 2023",
//! "2023-05-07", "the second half of March 2024", "late 2022", "autumn 2022", "2023年5月7日",
//! "2024年3月下旬", "2023年底", "2022年秋天". Each becomes a [`DateSpan`], the UTC days it
//! covers. A month or day without a year is read only where the caller gives a year to
//! assume ([`explicit_spans`]'s `default_year`): a question asked in May 2026 about "March"
//! means March 2026; a memory that says "on 3 March" alone is not dated.
//!
//! Used twice: the time window a question names (`recall::intent`) and the event time a
//! memory states (`recall::when`), so that the two are read by the same rules.

use crate::text::time::{days_from_civil, days_in_month, DAY_MS};

/// A span of whole UTC days, `[start_ms, end_ms)`, and where in the text it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateSpan {
    pub start_ms: u64,
    pub end_ms: u64,
    /// Byte range of the phrase in the text.
    pub at: (usize, usize),
}

const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

fn month_of(word: &str) -> Option<u32> {
    if word.len() < 3 {
        return None;
    }
    // "sept" and the usual three-letter forms; "may" and "march" are also verbs: only in a date
    MONTHS.iter().position(|m| *m == word || (word.len() >= 3 && m.starts_with(word) && (word.len() == 3 || word == "sept"))).map(|i| i as u32 + 1)
}

fn day_ms(y: i64, m: u32, d: u32) -> Option<u64> {
    let days = days_from_civil(y, m, d);
    (days >= 0).then(|| days as u64 * DAY_MS)
}

/// The span of days `from..=to` (1-based) of a month.
fn days_of(y: i64, m: u32, from: u32, to: u32, at: (usize, usize)) -> Option<DateSpan> {
    let last = days_in_month(y, m);
    let (from, to) = (from.clamp(1, last), to.clamp(1, last));
    Some(DateSpan { start_ms: day_ms(y, m, from)?, end_ms: day_ms(y, m, to)? + DAY_MS, at })
}

/// Months `from..=to` of a year (`to` may run into the next year: 13 = next January).
fn months_of(y: i64, from: u32, to: u32, at: (usize, usize)) -> Option<DateSpan> {
    let (ey, em) = (y + i64::from((to - 1) / 12), (to - 1) % 12 + 1);
    Some(DateSpan { start_ms: day_ms(y, from, 1)?, end_ms: day_ms(ey, em, days_in_month(ey, em))? + DAY_MS, at })
}

fn plausible_year(n: i64) -> bool {
    (1970..=2200).contains(&n)
}

/// A word of the text: lowercase ASCII letters/digits (ordinals' suffixes kept: "7th"), its
/// byte range.
#[derive(Debug)]
struct Word<'a> {
    text: &'a str,
    at: (usize, usize),
}

fn words(lower: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in lower.char_indices().chain(std::iter::once((lower.len(), ' '))) {
        let part = c.is_ascii_alphanumeric();
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Word { text: &lower[s..i], at: (s, i) });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// A day of the month: "7", "07", "7th", "1st", "22nd", "3rd".
fn day_number(w: &str) -> Option<u32> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year_number(w: &str) -> Option<i64> {
    (w.len() == 4).then(|| w.parse().ok()).flatten().filter(|y| plausible_year(*y))
}

/// Which part of a month or year a qualifier before it names, as (first, last) in
/// eighths-free terms: for a month, day ranges; for a year, month ranges.
#[derive(Clone, Copy)]
enum Part {
    Whole,
    Early,
    Mid,
    Late,
    FirstHalf,
    SecondHalf,
    FirstWeek,
    LastWeek,
}

impl Part {
    fn days(self, last: u32) -> (u32, u32) {
        match self {
            Part::Whole => (1, last),
            Part::Early => (1, 10),
            Part::Mid => (11, 20),
            Part::Late => (21, last),
            Part::FirstHalf => (1, 15),
            Part::SecondHalf => (16, last),
            Part::FirstWeek => (1, 7),
            Part::LastWeek => (last - 6, last),
        }
    }
    fn months(self) -> (u32, u32) {
        match self {
            Part::Whole | Part::FirstWeek | Part::LastWeek => (1, 12),
            Part::Early => (1, 4),
            Part::Mid => (5, 8),
            Part::Late => (9, 12),
            Part::FirstHalf => (1, 6),
            Part::SecondHalf => (7, 12),
        }
    }
}

/// The qualifier that ends right before word `i` ("the second half of", "late", "end of").
fn part_before(ws: &[Word], i: usize) -> (Part, usize) {
    let w = |k: usize| if k < i { ws.get(i - 1 - k).map(|w| w.text) } else { None };
    // "… of <month>"
    if w(0) == Some("of") {
        match (w(2), w(1)) {
            (Some("first"), Some("half")) => return (Part::FirstHalf, i - 3),
            (Some("second" | "latter" | "last"), Some("half")) => return (Part::SecondHalf, i - 3),
            (Some("first"), Some("week")) => return (Part::FirstWeek, i - 3),
            (Some("last" | "final"), Some("week")) => return (Part::LastWeek, i - 3),
            (_, Some("beginning" | "start")) => return (Part::Early, i - 2),
            (_, Some("middle")) => return (Part::Mid, i - 2),
            (_, Some("end")) => return (Part::Late, i - 2),
            _ => {}
        }
    }
    match w(0) {
        Some("early") => (Part::Early, i - 1),
        Some("mid") => (Part::Mid, i - 1),
        Some("late") => (Part::Late, i - 1),
        _ => (Part::Whole, i),
    }
}

const SEASONS: [(&str, u32, u32); 5] = [("spring", 3, 5), ("summer", 6, 8), ("autumn", 9, 11), ("fall", 9, 11), ("winter", 12, 14)];

/// Every date phrase of `text`, in order of appearance. `default_year` is the year a month
/// without one is read in (`None`: such a month is not a date); the caller decides it (a
/// question's month is the latest one not after now: pass the year and check).
pub fn explicit_spans(text: &str, default_year: Option<i64>) -> Vec<DateSpan> {
    let mut out = Vec::new();
    if text.is_ascii() || text.chars().any(|c| c.is_ascii_digit() || c.is_ascii_alphabetic()) {
        english(text, default_year, &mut out);
    }
    if !text.is_ascii() {
        chinese(text, default_year, &mut out);
    }
    // a phrase read inside a longer one ("2023" of "2023年5月7日") is that one
    let all = out.clone();
    out.retain(|s| !all.iter().any(|o| o != s && o.at.0 <= s.at.0 && s.at.1 <= o.at.1 && (o.at.1 - o.at.0) > (s.at.1 - s.at.0)));
    out.sort_by_key(|s| s.at.0);
    out
}

fn english(text: &str, default_year: Option<i64>, out: &mut Vec<DateSpan>) {
    let lower = text.to_ascii_lowercase();
    let ws = words(&lower);
    let mut used = vec![false; ws.len()];
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i].text;
        let next = |k: usize| ws.get(i + k).map(|w| w.text);
        // ISO: 2023-05-07 (three words joined by '-')
        if let (Some(y), Some(m), Some(d)) = (year_number(w), next(1).and_then(|m| m.parse::<u32>().ok()), next(2).and_then(|d| d.parse::<u32>().ok())) {
            let joined = lower.get(ws[i].at.1..ws[i + 1].at.0) == Some("-") && lower.get(ws[i + 1].at.1..ws[i + 2].at.0) == Some("-");
            if joined && (1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d) {
                if let Some(s) = days_of(y, m, d, d, (ws[i].at.0, ws[i + 2].at.1)) {
                    out.push(s);
                }
                used[i..i + 3].iter_mut().for_each(|u| *u = true);
                i += 3;
                continue;
            }
        }
        if let Some(m) = month_of(w) {
            // "may" and "march" are verbs too: only with a day or a year beside them, or
            // after in/during/since/of/early/late
            // "<day> [of] <month> <year>" or "<month> <day>[,] <year>" or "<month> <year>"
            let day_before = if i >= 1 && !used[i - 1] { day_number(ws[i - 1].text).map(|d| (d, i - 1)) } else { None }
                .or_else(|| (i >= 2 && ws[i - 1].text == "of" && !used[i - 2]).then(|| day_number(ws[i - 2].text).map(|d| (d, i - 2))).flatten());
            let day_after = next(1).and_then(day_number);
            let (day, first, mut last) = match (day_before, day_after) {
                (Some((d, f)), _) => (Some(d), f, i),
                (None, Some(d)) if next(1).and_then(year_number).is_none() => (Some(d), i, i + 1),
                _ => (None, i, i),
            };
            let year = ws.get(last + 1).and_then(|w| year_number(w.text));
            if year.is_some() {
                last += 1;
            }
            let (part, qfirst) = if day.is_none() { part_before(&ws, first) } else { (Part::Whole, first) };
            let lead = qfirst > 0 && matches!(ws[qfirst - 1].text, "in" | "during" | "since" | "of" | "until" | "by" | "from" | "before" | "after");
            let qualified = qfirst < first || lead;
            let yy = year.or(if day.is_some() || qualified { default_year } else { None });
            if let Some(y) = yy {
                let at = (ws[qfirst].at.0, ws[last].at.1);
                let span = match day {
                    Some(d) => days_of(y, m, d, d, at),
                    None => {
                        let (a, b) = part.days(days_in_month(y, m));
                        days_of(y, m, a, b, at)
                    }
                };
                if let Some(s) = span {
                    out.push(s);
                }
                used[qfirst..=last].iter_mut().for_each(|u| *u = true);
                i = last + 1;
                continue;
            }
        }
        // "<season> [of] <year>", "<qualifier> <year>", "in <year>"
        if let Some(y) = year_number(w) {
            let season_at = if i >= 1 && SEASONS.iter().any(|s| s.0 == ws[i - 1].text) {
                Some(i - 1)
            } else if i >= 2 && ws[i - 1].text == "of" && SEASONS.iter().any(|s| s.0 == ws[i - 2].text) {
                Some(i - 2)
            } else {
                None
            };
            if let Some(k) = season_at.filter(|k| !used[*k]) {
                let (_, a, b) = SEASONS.iter().find(|s| s.0 == ws[k].text).copied().unwrap_or(("", 1, 12));
                if let Some(s) = months_of(y, a, b, (ws[k].at.0, ws[i].at.1)) {
                    out.push(s);
                }
            } else {
                let (part, first) = part_before(&ws, i);
                let (a, b) = part.months();
                if let Some(s) = months_of(y, a, b, (ws[first].at.0, ws[i].at.1)) {
                    out.push(s);
                }
            }
            used[i] = true;
        }
        i += 1;
    }
}

fn zh_digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        '〇' | '零' => Some(0),
        '一' => Some(1),
        '二' | '两' => Some(2),
        '三' => Some(3),
        '四' => Some(4),
        '五' => Some(5),
        '六' => Some(6),
        '七' => Some(7),
        '八' => Some(8),
        '九' => Some(9),
        _ => None,
    }
}

/// A number of at most 31 in digits or Chinese numerals ("12", "十二", "二十一", "三十"), read
/// backwards from byte `end` of `text`: (the number, its start).
fn number_before(text: &str, end: usize) -> Option<(u32, usize)> {
    let head = &text[..end];
    let mut start = end;
    for (i, c) in head.char_indices().rev() {
        if zh_digit(c).is_some() || c == '十' {
            start = i;
        } else {
            break;
        }
    }
    let s = &text[start..end];
    if s.is_empty() || s.chars().count() > 3 {
        return None;
    }
    let n = if s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()?
    } else {
        let cs: Vec<char> = s.chars().collect();
        match cs.as_slice() {
            ['十'] => 10,
            ['十', d] => 10 + zh_digit(*d)?,
            [t, '十'] => zh_digit(*t)? * 10,
            [t, '十', d] => zh_digit(*t)? * 10 + zh_digit(*d)?,
            [d] => zh_digit(*d)?,
            _ => return None,
        }
    };
    Some((n, start))
}

/// A year of four digits (Arabic or Chinese: 二〇二三) ending at byte `end`.
fn year_before(text: &str, end: usize) -> Option<(i64, usize)> {
    let head = &text[..end];
    let cs: Vec<(usize, char)> = head.char_indices().rev().take(4).collect();
    if cs.len() < 4 {
        return None;
    }
    let mut y = 0i64;
    for (_, c) in cs.iter().rev() {
        y = y * 10 + i64::from(zh_digit(*c)?);
    }
    let start = cs[3].0;
    // not the tail of a longer number
    let before = head[..start].chars().next_back();
    (plausible_year(y) && !before.is_some_and(|c| zh_digit(c).is_some())).then_some((y, start))
}

fn chinese(text: &str, default_year: Option<i64>, out: &mut Vec<DateSpan>) {
    // every 月 with a number before it, and every 年 with a year before it
    let mut covered: Vec<(usize, usize)> = Vec::new();
    for (mi, _) in text.match_indices('月') {
        let Some((m, mstart)) = number_before(text, mi).filter(|(m, _)| (1..=12).contains(m)) else { continue };
        let year = text[..mstart].strip_suffix('年').and_then(|h| year_before(h, h.len()));
        let first = year.map_or(mstart, |(_, s)| s);
        let Some(y) = year.map(|(y, _)| y).or(default_year) else { continue };
        let rest = &text[mi + '月'.len_utf8()..];
        let mut end = mi + '月'.len_utf8();
        // 7日 / 7号
        let day = {
            let digits: String = rest.chars().take_while(|c| zh_digit(*c).is_some() || *c == '十').collect();
            let after = &rest[digits.len()..];
            if !digits.is_empty() && (after.starts_with('日') || after.starts_with('号')) {
                let n = number_before(&rest[..digits.len()], digits.len()).map(|(n, _)| n);
                end += digits.len() + '日'.len_utf8();
                n
            } else {
                None
            }
        };
        let last = days_in_month(y, m);
        let (a, b) = match day {
            Some(d) if (1..=last).contains(&d) => (d, d),
            Some(_) => continue,
            None => {
                let tail = &text[end..];
                let (part, len) = if tail.starts_with("上旬") || tail.starts_with("初") {
                    (Part::Early, if tail.starts_with('初') { 3 } else { 6 })
                } else if tail.starts_with("中旬") {
                    (Part::Mid, 6)
                } else if tail.starts_with("下旬") || tail.starts_with("底") || tail.starts_with("末") {
                    (Part::Late, if tail.starts_with("下旬") { 6 } else { 3 })
                } else if tail.starts_with("上半月") || tail.starts_with("前半月") {
                    (Part::FirstHalf, 9)
                } else if tail.starts_with("下半月") || tail.starts_with("后半月") {
                    (Part::SecondHalf, 9)
                } else if tail.starts_with("最后一周") {
                    (Part::LastWeek, 12)
                } else if tail.starts_with("第一周") {
                    (Part::FirstWeek, 9)
                } else {
                    (Part::Whole, 0)
                };
                end += len;
                part.days(last)
            }
        };
        // a month alone (no year, no day, no 在/于 before it) is not read as a date
        let lead = ["在", "于", "是", "从", "到"].iter().any(|l| text[..first].ends_with(l));
        if year.is_none() && day.is_none() && !lead {
            continue;
        }
        if let Some(s) = days_of(y, m, a, b, (first, end)) {
            covered.push(s.at);
            out.push(s);
        }
    }
    for (yi, _) in text.match_indices('年') {
        let Some((y, start)) = year_before(text, yi) else { continue };
        if covered.iter().any(|(a, b)| *a <= start && start < *b) {
            continue;
        }
        let tail = &text[yi + '年'.len_utf8()..];
        let parts: [(&str, u32, u32); 16] = [
            ("上半年", 1, 6), ("下半年", 7, 12), ("年初", 1, 2), ("年中", 5, 8), ("年底", 11, 12), ("年末", 11, 12),
            ("初", 1, 2), ("底", 11, 12), ("末", 11, 12), ("春天", 3, 5), ("春", 3, 5), ("夏天", 6, 8), ("夏", 6, 8),
            ("秋天", 9, 11), ("秋", 9, 11), ("冬天", 12, 14),
        ];
        let (a, b, len) = parts.iter().find(|(p, _, _)| tail.starts_with(p)).map_or((1, 12, 0), |(p, a, b)| (*a, *b, p.len()));
        if let Some(s) = months_of(y, a, b, (start, yi + '年'.len_utf8() + len)) {
            out.push(s);
        }
    }
}

/// The first date of a text that names its year (a memory's event time).
pub fn first_dated(text: &str) -> Option<DateSpan> {
    explicit_spans(text, None).into_iter().next()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn d(y: i64, m: u32, day: u32) -> u64 {
        day_ms(y, m, day).unwrap()
    }
    fn spans(t: &str, dy: Option<i64>) -> Vec<(u64, u64)> {
        explicit_spans(t, dy).iter().map(|s| (s.start_ms, s.end_ms)).collect()
    }

    #[test]
    fn english_days_months_and_years() {
        assert_eq!(spans("Priya ran a half marathon on 7 May 2023.", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("on May 7th, 2023 she left", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("the 7th of May 2023", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("released 2023-05-07 at noon", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("in March 2024", None), [(d(2024, 3, 1), d(2024, 4, 1))]);
        assert_eq!(spans("What did she do in 2022?", None), [(d(2022, 1, 1), d(2023, 1, 1))]);
        assert_eq!(spans("late 2022", None), [(d(2022, 9, 1), d(2023, 1, 1))]);
        assert_eq!(spans("in autumn 2022", None), [(d(2022, 9, 1), d(2022, 12, 1))]);
        assert_eq!(spans("the winter of 2022", None), [(d(2022, 12, 1), d(2023, 3, 1))]);
    }

    #[test]
    fn parts_of_a_month() {
        assert_eq!(spans("the second half of March 2024", None), [(d(2024, 3, 16), d(2024, 4, 1))]);
        assert_eq!(spans("in the first half of May 2024", None), [(d(2024, 5, 1), d(2024, 5, 16))]);
        assert_eq!(spans("the last week of June 2024", None), [(d(2024, 6, 24), d(2024, 7, 1))]);
        assert_eq!(spans("early February 2025", None), [(d(2025, 2, 1), d(2025, 2, 11))]);
        assert_eq!(spans("at the end of April 2023", None), [(d(2023, 4, 21), d(2023, 5, 1))]);
    }

    #[test]
    fn a_month_without_a_year_needs_one_given_and_a_verb_is_no_month() {
        assert!(spans("in March", None).is_empty());
        assert_eq!(spans("in March", Some(2026)), [(d(2026, 3, 1), d(2026, 4, 1))]);
        assert_eq!(spans("on March 3", Some(2026)), [(d(2026, 3, 3), d(2026, 3, 4))]);
        assert!(spans("You may want to march on", Some(2026)).is_empty());
        assert!(spans("I have 2023 reasons and 12 apples", None).len() == 1, "a year alone is a year");
        assert!(spans("port 8080, build 12345", None).is_empty());
    }

    #[test]
    fn chinese_dates() {
        assert_eq!(spans("2023年5月7日去了杭州", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("2023年5月7号", None), [(d(2023, 5, 7), d(2023, 5, 8))]);
        assert_eq!(spans("2024年3月下旬", None), [(d(2024, 3, 21), d(2024, 4, 1))]);
        assert_eq!(spans("2024年三月上旬", None), [(d(2024, 3, 1), d(2024, 3, 11))]);
        assert_eq!(spans("二〇二三年十二月", None), [(d(2023, 12, 1), d(2024, 1, 1))]);
        assert_eq!(spans("2023年底", None), [(d(2023, 11, 1), d(2024, 1, 1))]);
        assert_eq!(spans("2022年秋天", None), [(d(2022, 9, 1), d(2022, 12, 1))]);
        assert_eq!(spans("2022年下半年", None), [(d(2022, 7, 1), d(2023, 1, 1))]);
        assert_eq!(spans("2021年", None), [(d(2021, 1, 1), d(2022, 1, 1))]);
        assert!(spans("三月份的生日", Some(2026)).is_empty(), "a month alone is not read");
        assert_eq!(spans("在三月", Some(2026)), [(d(2026, 3, 1), d(2026, 4, 1))]);
        assert_eq!(spans("5月7日", Some(2025)), [(d(2025, 5, 7), d(2025, 5, 8))]);
        assert!(spans("第12345号", None).is_empty());
    }

    #[test]
    fn never_panics_on_odd_text() {
        for t in ["年", "月", "2023年", "十月", "99年月日", "of of of", "May", "2023-", "2023-13-40", "the 99th of May 2023", "Feb 30, 2023", "𝔐ay 2023 年", "三十二月"] {
            let _ = explicit_spans(t, Some(2026));
        }
    }
}
