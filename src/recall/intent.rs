//! Recall that reads the question (design §8, "recall intent analyzer"): rule-based, no model
//! call. From the current user turn alone it decides
//!
//! - whether the turn needs recall at all: an acknowledgement or sign-off ("ok thanks",
//!   "好的，谢谢"), a greeting, a `/command`, or a general-knowledge request that names nothing
//!   of the user's ("Who wrote Hamlet?", "珠穆朗玛峰有多高？": an encyclopedic cue and no
//!   first-person word, no time reference) is not searched — two finds saved, nothing injected;
//! - which memory types it is about (preference, event, entity, case/pattern, experience), from
//!   cue words in English and Chinese;
//! - the time window it names ("yesterday", "last week", "in March", "3 days ago", "上周",
//!   "昨天", "三天前"), computed from `now_ms` (UTC days; weeks start on Monday).
//!
//! How the read path uses it (`engine::read`): a turn that needs no recall is not searched;
//! otherwise the user scope's find carries the window's start as `since` on `created_at`
//! (not its end: a memory is extracted when its session is committed, which can be hours or
//! days after it was said), and a question about preferences only or events only searches
//! that one memory folder. When that narrowed find returns no memory, the whole user scope is
//! searched again without the window, so a wrong guess costs one find, never the evidence.

use crate::text::dates::explicit_spans;
use crate::text::time::{civil_from_days, days_from_civil, days_in_month, iso8601, DAY_MS};
use serde::Serialize;

/// A kind of memory a question is about (OpenViking's memory folders: `preferences`,
/// `events`, `entities`, `cases`, `experiences`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum MemoryType {
    Preference,
    Event,
    Entity,
    CasePattern,
    Experience,
}

impl MemoryType {
    /// The memory folder under `…/memories/` holding this type.
    pub fn folder(self) -> &'static str {
        match self {
            MemoryType::Preference => "preferences",
            MemoryType::Event => "events",
            MemoryType::Entity => "entities",
            MemoryType::CasePattern => "cases",
            MemoryType::Experience => "experiences",
        }
    }
}

/// The time span a turn names: `[startMs, endMs)`, and the words that named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TimeWindow {
    pub start_ms: u64,
    pub end_ms: u64,
    pub phrase: String,
}

impl TimeWindow {
    /// The window's start as OpenViking's `since` (ISO 8601, UTC).
    pub fn since(&self) -> String {
        iso8601(self.start_ms)
    }
}

/// What the intent analysis decided for one turn (shown in `trace` and the explain output).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecallIntent {
    /// `false`: the turn is not searched.
    pub needs_recall: bool,
    /// Why, in one word: `acknowledgement`, `greeting`, `command`, `empty`,
    /// `general_knowledge` (no recall), or `about_the_user`, `no_cue` (recall).
    pub reason: String,
    /// The memory types the turn is about, by cue words; empty when none is named.
    pub types: Vec<MemoryType>,
    pub window: Option<TimeWindow>,
    /// The user-scope folder searched instead of the whole scope (when one type is named).
    pub narrowed_to: Option<String>,
}

/// Words that together make a whole acknowledgement or sign-off (every word must be one).
const ACK_WORDS: &[&str] = &[
    "ok", "okay", "k", "kk", "okey", "alright", "allright", "thanks", "thank", "thx", "ty", "you", "u", "very", "much", "so",
    "a", "lot", "great", "cool", "nice", "perfect", "awesome", "excellent", "good", "sounds", "got", "it", "understood", "noted",
    "sure", "yes", "yeah", "yep", "no", "nope", "fine", "that's", "thats", "that", "works", "bye", "goodbye", "see", "later",
    "cheers", "np", "lol", "haha", "wow", "right", "makes", "sense", "all", "set", "done", "will", "do", "hi", "hello", "hey",
    "morning", "night", "again", "indeed", "gotcha", "ack", "roger", "yup", "agreed", "exactly", "true", "oh", "ah", "i", "see",
];
/// Chinese acknowledgement phrases; a turn made only of these (and punctuation) is one.
const ACK_ZH: &[&str] = &[
    "好的", "好吧", "好滴", "谢谢你", "谢谢", "多谢", "感谢", "收到了", "收到", "明白了", "明白", "知道了", "了解", "没问题", "可以", "行",
    "嗯嗯", "嗯", "哦", "噢", "好", "对", "是的", "没错", "太好了", "辛苦了", "再见", "拜拜", "你好", "您好", "晚安", "啦", "了", "呀", "哈",
];
/// A first-person word ties a question to the user's own memories.
const PERSONAL_EN: &[&str] = &[
    "i", "i'm", "im", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "we", "we're", "we've", "we'd", "our", "ours", "us",
    "let's", "remember", "remind",
];
const PERSONAL_ZH: &[&str] = &["我", "咱", "俺", "上次", "之前", "以前", "记得"];
/// Phrases that open an encyclopedic request (matched at the start of the turn).
const GENERAL_START_EN: &[&str] = &[
    "who wrote", "who painted", "who invented", "who discovered", "who composed", "who directed", "who built", "who founded",
    "what year did", "in what year", "in which year", "how deep is", "how tall is", "how high is", "how far is",
    "how long does it take", "how long is the", "what is the capital", "what's the capital", "why is the",
    "why are", "why do", "what causes", "explain", "can you explain", "could you explain", "what does a", "what does an",
    "what is the difference between", "what's the difference between", "how does a", "how does an", "how do you", "what is the plot",
    "define", "what is the meaning of", "translate", "what is the tallest", "what is the largest",
    "what is the longest", "what is the smallest", "what is the highest", "what is the deepest", "summarize the plot", "recommend a good",
];
/// Encyclopedic cues anywhere in a Chinese turn.
const GENERAL_ZH: &[&str] = &[
    "的作者是谁", "是谁写的", "是谁画的", "是谁发明", "谁发明", "首都", "有多深", "有多高", "有多远", "多少度", "是哪一年", "在哪一年",
    "为什么是", "是怎么形成", "是怎么进行", "有什么区别", "讲了什么", "讲讲", "世界上最", "怎么说", 
    "有什么好方法", "要多久",
];

const PREFERENCE_EN: &[&str] = &[
    "prefer", "prefers", "preferred", "preference", "preferences", "favorite", "favourite", "favorites", "like", "likes", "love",
    "loves", "hate", "hates", "dislike", "dislikes", "usually", "habit", "habits", "style", "taste", "want", "enjoy",
];
const PREFERENCE_ZH: &[&str] = &["喜欢", "偏好", "爱吃", "爱喝", "最爱", "讨厌", "习惯", "口味", "风格", "倾向", "更想"];
/// "when" names an event only in the past ("when did …", "when was …"); "when is my
/// brother's birthday" asks for a stated fact.
const EVENT_EN: &[&str] = &[
    "when did", "when was", "when were", "when had", "when has", "when have", "happened", "happen", "decide", "decided", "decision", "switch", "switched", "changed", "change", "moved", "meeting",
    "incident", "trip", "visited", "went", "ago", "yesterday", "outage",
];
// ("last", "before", "after", "since", "date", "today" are not cues on their own: "the last part
// of the ledger" is no event, and a narrowed find that holds events drops the memory the turn is
// about; a time window is read from its phrase — "last week", "3 days ago" — by `window`.)
const EVENT_ZH: &[&str] = &["什么时候", "何时", "哪天", "哪一天", "发生", "决定", "换成", "改成", "换到", "搬到", "会议", "那天", "日期", "之前", "以前", "上次", "变化", "改了"];
const ENTITY_EN: &[&str] = &["who", "whom", "whose", "where", "which", "owner", "owns", "lives", "live", "based", "related"];
const ENTITY_ZH: &[&str] = &["是谁", "谁", "什么人", "住在", "在哪", "哪个城市", "关系", "负责"];
const CASE_EN: &[&str] = &["fix", "fixed", "resolve", "resolved", "solve", "solved", "error", "errors", "bug", "bugs", "failed", "failure", "workaround", "problem", "issue"];
const CASE_ZH: &[&str] = &["解决", "报错", "错误", "修复", "故障", "问题", "方案", "排查"];
const EXPERIENCE_EN: &[&str] = &["how to", "steps", "best way", "tips", "lesson", "lessons", "learned", "procedure", "checklist", "approach"];
const EXPERIENCE_ZH: &[&str] = &["怎么做", "步骤", "经验", "技巧", "教训", "流程", "做法"];

const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTHS_ZH: [&str; 12] = ["一月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "十一月", "十二月"];
const NUMBER_WORDS: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/// Lowercase words (letters, digits, `'`), in order.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty() && !w.chars().any(crate::text::is_cjk))
        .map(|w| w.replace('’', "'"))
        .collect()
}

fn has_word(ws: &[String], list: &[&str]) -> bool {
    ws.iter().any(|w| list.contains(&w.as_str()))
}

/// A phrase of several words, matched on word boundaries.
fn has_phrase(ws: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    ws.windows(p.len()).any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

fn has_any(text: &str, ws: &[String], en: &[&str], zh: &[&str]) -> bool {
    en.iter().any(|c| if c.contains(' ') { has_phrase(ws, c) } else { ws.iter().any(|w| w == c) }) || zh.iter().any(|c| text.contains(c))
}

fn is_acknowledgement(text: &str, ws: &[String]) -> bool {
    let cjk: String = text.chars().filter(|c| crate::text::is_cjk(*c)).collect();
    if cjk.is_empty() {
        return !ws.is_empty() && ws.iter().all(|w| ACK_WORDS.contains(&w.as_str()));
    }
    if !ws.is_empty() && !ws.iter().all(|w| ACK_WORDS.contains(&w.as_str())) {
        return false;
    }
    // the Chinese text is made only of acknowledgement phrases (longest first)
    let mut rest = cjk.as_str();
    while !rest.is_empty() {
        match ACK_ZH.iter().filter(|p| rest.starts_with(**p)).max_by_key(|p| p.len()) {
            Some(p) => rest = &rest[p.len()..],
            None => return false,
        }
    }
    true
}

/// Words that ask about someone's present state ("what does Mira do now?", "许佳宁现在是做什么的？"):
/// no encyclopedia answers them.
const PRESENT_EN: &[&str] = &["now", "currently", "still", "nowadays", "recently", "lately"];
const PRESENT_ZH: &[&str] = &["现在", "目前", "最近", "如今", "还在"];

/// A name that belongs to someone: a capitalised word with a possessive ("Jonas's
/// grandmother", "Mira’s job").
fn names_someone(text: &str) -> bool {
    let t = text.replace('’', "'");
    t.match_indices("'s").any(|(i, _)| {
        let head = &t[..i];
        let word = head.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
        word.chars().next().is_some_and(char::is_uppercase)
            && !crate::recall::rank::is_stopword(&word.to_lowercase())
            && !t[i + 2..].starts_with(|c: char| c.is_alphanumeric())
    })
}

/// A why-question about something named ("Why is the garden so important to Jonas?"): a
/// capitalised word after the first.
fn why_about_a_name(text: &str, ws: &[String]) -> bool {
    ws.first().is_some_and(|w| w == "why")
        && text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).skip(1).any(|w| w.chars().next().is_some_and(char::is_uppercase) && w != "I")
}

fn is_general_knowledge(text: &str, ws: &[String], window: bool) -> bool {
    if window || has_word(ws, PERSONAL_EN) || PERSONAL_ZH.iter().any(|p| text.contains(p)) {
        return false;
    }
    if has_word(ws, PRESENT_EN) || PRESENT_ZH.iter().any(|p| text.contains(p)) || names_someone(text) || why_about_a_name(text, ws) {
        return false;
    }
    let joined = ws.join(" ");
    GENERAL_START_EN.iter().any(|p| joined == *p || joined.starts_with(&format!("{p} "))) || GENERAL_ZH.iter().any(|p| text.contains(p))
}

fn number(w: &str) -> Option<u64> {
    w.parse::<u64>().ok().filter(|n| *n <= 400).or_else(|| NUMBER_WORDS.iter().position(|x| *x == w).map(|n| n as u64)).or(match w {
        "a" | "an" => Some(1),
        "couple" => Some(2),
        "few" => Some(3),
        _ => None,
    })
}

fn zh_number(s: &str) -> Option<u64> {
    const DIGITS: &str = "零一二三四五六七八九";
    let digit = |c: char| if c == '两' { Some(2) } else { DIGITS.chars().position(|d| d == c).map(|n| n as u64) };
    let cs: Vec<char> = s.chars().collect();
    match cs.as_slice() {
        [] => None,
        [c] if *c == '十' => Some(10),
        [c] => digit(*c).or_else(|| c.to_digit(10).map(u64::from)),
        ['十', d] => Some(10 + digit(*d)?),
        [t, '十'] => Some(digit(*t)? * 10),
        [t, '十', d] => Some(digit(*t)? * 10 + digit(*d)?),
        _ => s.parse().ok().filter(|n| *n <= 400),
    }
}

/// Start of the UTC day, week (Monday), month or year holding `ms`.
fn day_start(ms: u64) -> u64 {
    ms - ms % DAY_MS
}
fn week_start(ms: u64) -> u64 {
    let day = ms / DAY_MS;
    (day - (day + 3) % 7) * DAY_MS // 1970-01-01 was a Thursday
}
fn month_start(y: i64, m: u32) -> u64 {
    (days_from_civil(y, m, 1).max(0) as u64) * DAY_MS
}
fn ymd(ms: u64) -> (i64, u32, u32) {
    civil_from_days((ms / DAY_MS) as i64)
}
fn add_months(y: i64, m: u32, delta: i64) -> (i64, u32) {
    let idx = y * 12 + i64::from(m) - 1 + delta;
    (idx.div_euclid(12), (idx.rem_euclid(12) + 1) as u32)
}

fn window(start: u64, end: u64, phrase: &str) -> Option<TimeWindow> {
    (end > start).then(|| TimeWindow { start_ms: start, end_ms: end, phrase: phrase.to_string() })
}

/// The time window a turn names, if any (the first form found, in the order below).
pub fn time_window(text: &str, now_ms: u64) -> Option<TimeWindow> {
    if let Some(w) = explicit_window(text, now_ms) {
        return Some(w);
    }
    relative_window(text, now_ms)
}

/// A window the turn names by the calendar ("in March 2024", "the second half of March
/// 2024", "late 2022", "2024年3月下旬"; a month or day without a year is the latest one that
/// has begun by `now_ms`).
fn explicit_window(text: &str, now_ms: u64) -> Option<TimeWindow> {
    let (y, _, _) = ymd(now_ms);
    let first = explicit_spans(text, Some(y)).into_iter().next()?;
    let span = if first.start_ms > now_ms {
        // a month of this year still to come: the same month last year, when the text named no year
        let again = explicit_spans(text, Some(y - 1)).into_iter().next()?;
        if again.at != first.at || again.start_ms == first.start_ms {
            return None;
        }
        again
    } else {
        first
    };
    let phrase = text.get(span.at.0..span.at.1).unwrap_or_default();
    window(span.start_ms, span.end_ms, phrase)
}

/// A window the turn names relative to now ("yesterday", "last week", "3 days ago", "上周").
fn relative_window(text: &str, now_ms: u64) -> Option<TimeWindow> {
    let ws = words(text);
    let today = day_start(now_ms);
    let (y, m, _) = ymd(now_ms);
    let month = |yy: i64, mm: u32, phrase: &str| window(month_start(yy, mm), month_start(yy, mm) + u64::from(days_in_month(yy, mm)) * DAY_MS, phrase);
    let unit = |w: &str| -> Option<u64> {
        Some(match w.trim_end_matches('s') {
            "day" => DAY_MS,
            "week" => 7 * DAY_MS,
            "month" => 30 * DAY_MS,
            "year" => 365 * DAY_MS,
            _ => return None,
        })
    };
    // English
    for (i, w) in ws.iter().enumerate() {
        let next = ws.get(i + 1).map(String::as_str);
        let prev = if i > 0 { ws.get(i - 1).map(String::as_str) } else { None };
        match (prev, w.as_str(), next) {
            (Some("the"), "day", Some("before")) if ws.get(i + 2).map(String::as_str) == Some("yesterday") => {
                return window(today.saturating_sub(2 * DAY_MS), today.saturating_sub(DAY_MS), "the day before yesterday")
            }
            (_, "yesterday", _) => return window(today.saturating_sub(DAY_MS), today, "yesterday"),
            (_, "today", _) | (Some("this"), "morning", _) => return window(today, today + DAY_MS, w),
            (Some(p @ ("last" | "this" | "past" | "previous")), u @ ("week" | "month" | "year"), _) => {
                let phrase = format!("{p} {u}");
                return match (p, u) {
                    ("this", "week") => window(week_start(now_ms), week_start(now_ms) + 7 * DAY_MS, &phrase),
                    ("this", "month") => month(y, m, &phrase),
                    ("this", "year") => window(month_start(y, 1), month_start(y + 1, 1), &phrase),
                    ("past", _) => window(now_ms.saturating_sub(unit(u)?), now_ms, &phrase),
                    (_, "week") => window(week_start(now_ms).saturating_sub(7 * DAY_MS), week_start(now_ms), &phrase),
                    (_, "month") => {
                        let (py, pm) = add_months(y, m, -1);
                        month(py, pm, &phrase)
                    }
                    _ => window(month_start(y - 1, 1), month_start(y, 1), &phrase),
                };
            }
            (_, n, Some(u)) if number(n).is_some() && unit(u).is_some() && ws.get(i + 2).map(String::as_str) == Some("ago") => {
                // "three days ago": that day (weeks, months, years: that much before, a span of one unit)
                let span = unit(u)?;
                let at = now_ms.saturating_sub(number(n)? * span);
                let start = if span == DAY_MS { day_start(at) } else { at.saturating_sub(span / 2) };
                return window(start, start + span, &format!("{n} {u} ago"));
            }
            (Some(p @ ("last" | "past")), n, Some(u)) if number(n).is_some() && unit(u).is_some() => {
                return window(now_ms.saturating_sub(number(n)? * unit(u)?), now_ms, &format!("{p} {n} {u}"));
            }
            (Some("in" | "during" | "since"), mon, _) if MONTHS.contains(&mon) => {
                let mm = MONTHS.iter().position(|x| *x == mon)? as u32 + 1;
                let year = next.and_then(|n| n.parse::<i64>().ok()).filter(|n| (1970..=9999).contains(n));
                let yy = year.unwrap_or(if mm <= m { y } else { y - 1 });
                return month(yy, mm, &format!("in {}", mon));
            }
            _ => {}
        }
    }
    // Chinese
    let simple: [(&str, u64, u64); 3] = [("前天", 2, 1), ("昨天", 1, 0), ("今天", 0, 0)];
    for (p, from, to) in simple {
        if text.contains(p) {
            let end = if to == 0 && from == 0 { today + DAY_MS } else { today.saturating_sub(to * DAY_MS) };
            return window(today.saturating_sub(from * DAY_MS), end, p);
        }
    }
    for p in ["上周", "上个星期", "上星期", "上个礼拜", "上礼拜"] {
        if text.contains(p) {
            return window(week_start(now_ms).saturating_sub(7 * DAY_MS), week_start(now_ms), p);
        }
    }
    for p in ["这周", "本周", "这个星期", "这星期"] {
        if text.contains(p) {
            return window(week_start(now_ms), week_start(now_ms) + 7 * DAY_MS, p);
        }
    }
    if text.contains("上个月") || text.contains("上月") {
        let (py, pm) = add_months(y, m, -1);
        return month(py, pm, "上个月");
    }
    if text.contains("这个月") || text.contains("本月") {
        return month(y, m, "这个月");
    }
    if text.contains("去年") {
        return window(month_start(y - 1, 1), month_start(y, 1), "去年");
    }
    if text.contains("今年") {
        return window(month_start(y, 1), month_start(y + 1, 1), "今年");
    }
    // 三天前, 两周前, 5个月前
    for (suffix, span) in [("天前", DAY_MS), ("周前", 7 * DAY_MS), ("星期前", 7 * DAY_MS), ("个月前", 30 * DAY_MS), ("月前", 30 * DAY_MS), ("年前", 365 * DAY_MS)] {
        if let Some(at) = text.find(suffix) {
            let head: String = text[..at].chars().rev().take_while(|c| c.is_ascii_digit() || "零一二三四五六七八九十两".contains(*c)).collect::<Vec<_>>().into_iter().rev().collect();
            if let Some(n) = zh_number(&head) {
                let t = now_ms.saturating_sub(n * span);
                let start = if span == DAY_MS { day_start(t) } else { t.saturating_sub(span / 2) };
                return window(start, start + span, &format!("{head}{suffix}"));
            }
        }
    }
    // 三月, 3月 (not 三月份的生日 questions: only with 在/于/去年/今年 or a day after it)
    for (i, name) in MONTHS_ZH.iter().enumerate().rev() {
        let digits = format!("{}月", i + 1);
        for form in [name.to_string(), digits] {
            for lead in ["在", "于", "是在"] {
                if text.contains(&format!("{lead}{form}")) {
                    let mm = i as u32 + 1;
                    return month(if mm <= m { y } else { y - 1 }, mm, &form);
                }
            }
        }
    }
    None
}

/// The intent of the current user turn (`text`, already sanitised) at `now_ms`.
pub fn analyze(text: &str, now_ms: u64) -> RecallIntent {
    let text = text.trim();
    let ws = words(text);
    let mut intent = RecallIntent { needs_recall: true, reason: "no_cue".into(), types: Vec::new(), window: None, narrowed_to: None };
    let skip = |reason: &str| RecallIntent { needs_recall: false, reason: reason.into(), types: Vec::new(), window: None, narrowed_to: None };
    if text.is_empty() || !text.chars().any(|c| c.is_alphanumeric()) {
        return skip("empty");
    }
    if text.starts_with('/') && text.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic()) {
        return skip("command");
    }
    if is_acknowledgement(text, &ws) {
        let greeting = ws.iter().any(|w| ["hi", "hello", "hey", "morning"].contains(&w.as_str())) || text.contains("你好") || text.contains("您好");
        return skip(if greeting { "greeting" } else { "acknowledgement" });
    }
    intent.window = time_window(text, now_ms);
    if is_general_knowledge(text, &ws, intent.window.is_some()) {
        return skip("general_knowledge");
    }
    let cues: [(MemoryType, &[&str], &[&str]); 5] = [
        (MemoryType::Preference, PREFERENCE_EN, PREFERENCE_ZH),
        (MemoryType::Event, EVENT_EN, EVENT_ZH),
        (MemoryType::Entity, ENTITY_EN, ENTITY_ZH),
        (MemoryType::CasePattern, CASE_EN, CASE_ZH),
        (MemoryType::Experience, EXPERIENCE_EN, EXPERIENCE_ZH),
    ];
    intent.types = cues.iter().filter(|(_, en, zh)| has_any(text, &ws, en, zh)).map(|(t, _, _)| *t).collect();
    if intent.window.is_some() && !intent.types.contains(&MemoryType::Event) {
        intent.types.push(MemoryType::Event);
        crate::order::sort(&mut intent.types);
    }
    if has_word(&ws, PERSONAL_EN) || PERSONAL_ZH.iter().any(|p| text.contains(p)) {
        intent.reason = "about_the_user".into();
    }
    // one folder is searched only when exactly one of the two types a folder answers alone is named
    intent.narrowed_to = match intent.types.as_slice() {
        [t @ (MemoryType::Preference | MemoryType::Event)] => Some(t.folder().to_string()),
        _ => None,
    };
    intent
}

/// The intent of the current user turn (the newest part of the recall query), `None` when
/// there is no user turn at all.
pub fn of_turn(built: &crate::recall::query::RecallQuery, now_ms: u64) -> Option<RecallIntent> {
    built.parts.first().map(|p| analyze(&p.text, now_ms))
}

#[cfg(test)]
mod tests;
