//! The recall query: the current user input plus the previous user turns, newest first, up
//! to `assembleRecallWindow` turns, each sanitised; greetings, acknowledgements, commands,
//! empty and very short turns are skipped; the whole query is capped.
//!
//! OpenClaw 2026.9.x passes the current input to `assemble` as `prompt`, apart from
//! `messages` (the prior turns). Older hosts include it as the last user message.

use crate::message::{role, text_of};
use crate::text::sanitize::sanitize;
use crate::text::{prefix_utf16, utf16_len};
use serde::Serialize;
use serde_json::Value;

/// The query never exceeds this many UTF-16 code units.
pub const QUERY_MAX_UNITS: usize = 1000;
/// Below this weighted length a turn says too little to search for (a CJK character weighs 2.5).
const MIN_WEIGHTED_LEN: f64 = 5.0;

const GREETINGS: &[&str] = &[
    "hi", "hello", "hey", "heya", "yo", "hiya", "howdy", "good morning", "good afternoon", "good evening",
    "good night", "morning", "thanks", "thank you", "thanks a lot", "thx", "ty", "ok", "okay", "k", "kk", "sure",
    "yes", "no", "yep", "nope", "cool", "great", "nice", "got it", "bye", "goodbye", "see you", "lol",
    "你好", "您好", "嗨", "哈喽", "早", "早上好", "下午好", "晚上好", "晚安", "谢谢", "多谢", "好的", "好", "嗯", "嗯嗯",
    "行", "可以", "收到", "明白", "在吗", "再见", "拜拜", "こんにちは", "ありがとう", "안녕하세요", "감사합니다",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum SkipReason {
    Empty,
    Greeting,
    Command,
    TooShort,
    InjectedOnly,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct QueryPart {
    /// The sanitised text (cut to 200 units when skipped, for display).
    pub text: String,
    /// "prompt" for the current input, "history" for an earlier user turn.
    #[cfg_attr(feature = "typescript", ts(type = r#""prompt" | "history""#))]
    pub source: &'static str,
    pub skipped: Option<SkipReason>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecallQuery {
    /// `None` when every turn in the window was skipped: no recall this turn.
    pub query: Option<String>,
    /// Every turn looked at, newest first, with why it was skipped if it was.
    pub parts: Vec<QueryPart>,
}

fn weighted_len(s: &str) -> f64 {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if crate::text::is_cjk(c) { 2.5 } else { 1.0 })
        .sum()
}

fn normalise_for_greeting(s: &str) -> String {
    s.trim_matches(|c: char| !c.is_alphanumeric() && !crate::text::is_cjk(c))
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_command(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next() == Some('/') && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Why a sanitised user text should not be searched for, if it should not.
pub fn skip_reason(raw: &str) -> (String, Option<SkipReason>) {
    let s = sanitize(raw);
    let text = s.text;
    if text.is_empty() {
        let r = if s.had_injected { SkipReason::InjectedOnly } else { SkipReason::Empty };
        return (text, Some(r));
    }
    if is_command(&text) {
        return (text, Some(SkipReason::Command));
    }
    let norm = normalise_for_greeting(&text);
    if norm.is_empty() {
        return (text, Some(SkipReason::Empty));
    }
    if GREETINGS.contains(&norm.as_str()) {
        return (text, Some(SkipReason::Greeting));
    }
    if weighted_len(&norm) < MIN_WEIGHTED_LEN {
        return (text, Some(SkipReason::TooShort));
    }
    (text, None)
}

/// How many of the newest user messages [`build_query`] reads with this window (a caller may
/// hand over only those: `Engine.recall` reads no more of the host's list).
pub fn user_messages_read(window: usize) -> usize {
    // the engine's own user-role messages (a recall pair's opening, a compaction summary) are
    // passed over, so a window reads up to two more
    window.max(1) + 2
}

/// A user message the engine made, not the user: the opening of a recall pair, or the
/// compaction summary (hosts hand the last assembled context back as history).
fn is_engines_own(m: &Value) -> bool {
    crate::message::synthetic::is_synthetic(m) || text_of(m).trim_start().starts_with(crate::message::synthetic::SUMMARY_MARKER)
}

/// Builds the recall query from the current input (`prompt`, or the last user message when
/// the host passes none) and the previous user turns, newest first, `window` turns in all.
pub fn build_query(prompt: Option<&str>, messages: &[Value], window: usize) -> RecallQuery {
    let window = window.max(1);
    let mut texts: Vec<(String, &'static str)> = Vec::with_capacity(window);
    let user_texts = messages.iter().rev().filter(|m| role(m) == Some("user")).take(user_messages_read(window)).filter(|m| !is_engines_own(m)).take(window).map(text_of);
    match prompt {
        Some(p) => {
            texts.push((p.to_string(), "prompt"));
            texts.extend(user_texts.map(|t| (t, "history")));
        }
        None => {
            let mut first = true;
            for t in user_texts {
                texts.push((t, if first { "prompt" } else { "history" }));
                first = false;
            }
        }
    }
    texts.truncate(window);

    let mut parts = Vec::with_capacity(texts.len());
    let mut query = String::new();
    for (raw, source) in texts {
        let (text, skipped) = skip_reason(&raw);
        if skipped.is_none() && utf16_len(&query) < QUERY_MAX_UNITS {
            if !query.is_empty() {
                query.push('\n');
            }
            query.push_str(&text);
            let keep = prefix_utf16(&query, QUERY_MAX_UNITS).len();
            query.truncate(keep);
        }
        let shown = if skipped.is_some() { prefix_utf16(&text, 200).to_string() } else { text };
        parts.push(QueryPart { text: shown, source, skipped });
    }
    let query = query.trim().to_string();
    RecallQuery { query: if query.is_empty() { None } else { Some(query) }, parts }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn skips_greetings_commands_and_short_turns() {
        assert_eq!(skip_reason("hi!").1, Some(SkipReason::Greeting));
        assert_eq!(skip_reason("你好").1, Some(SkipReason::Greeting));
        assert_eq!(skip_reason("/status").1, Some(SkipReason::Command));
        assert_eq!(skip_reason("abc").1, Some(SkipReason::TooShort));
        assert_eq!(skip_reason("   ").1, Some(SkipReason::Empty));
        assert_eq!(skip_reason("???").1, Some(SkipReason::Empty));
        assert_eq!(skip_reason("<relevant-memories>x</relevant-memories>").1, Some(SkipReason::InjectedOnly));
        assert_eq!(skip_reason("咖啡").1, None, "two Han characters carry a topic");
        assert_eq!(skip_reason("What database did we pick?").1, None);
    }

    #[test]
    fn window_takes_prompt_then_previous_user_turns() {
        let msgs = vec![
            json!({"role":"user","content":"We use Postgres for the orders service"}),
            json!({"role":"assistant","content":[{"type":"text","text":"Noted."}]}),
            json!({"role":"user","content":[{"type":"text","text":"ok"}]}),
            json!({"role":"user","content":"and Redis for caching sessions"}),
        ];
        let q = build_query(Some("which DB did we choose?"), &msgs, 3);
        assert_eq!(q.query.as_deref(), Some("which DB did we choose?\nand Redis for caching sessions"));
        assert_eq!(q.parts.len(), 3);
        assert_eq!(q.parts[2].skipped, Some(SkipReason::Greeting));
        let without_prompt = build_query(None, &msgs, 1);
        // the engine's own user-role messages handed back as history are not the user's words
        let mut handed_back = msgs.clone();
        handed_back.push(crate::message::synthetic::recall_opening(0));
        handed_back.push(serde_json::json!({"role": "user", "content": "<conversation-summary checkpoint=\"c\">\nEarlier turns\n</conversation-summary>"}));
        assert_eq!(build_query(Some("which DB did we choose?"), &handed_back, 3).query, q.query);
        assert_eq!(without_prompt.query.as_deref(), Some("and Redis for caching sessions"));
    }

    #[test]
    fn query_is_capped() {
        let long = "database ".repeat(500);
        let q = build_query(Some(&long), &[], 5);
        assert!(utf16_len(q.query.as_deref().unwrap_or("")) <= QUERY_MAX_UNITS);
    }
}
