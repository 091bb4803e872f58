//! The capture decision: does a turn carry enough to count toward the compaction triggers?
//! It never gates writing — every turn is stored (lossless first, design §2.3); it only keeps
//! small talk from ever causing a commit.
//!
//! Legacy rules with their quirks fixed (see the README): the text is each user/assistant
//! text of the turn as `[role]: text`, sanitised (injected blocks, host metadata, timestamp
//! prefixes removed); rejected in order when empty (`injected_memory_context_only` if an
//! injected block was all there was), too short (< 10 non-space characters, < 4 with CJK),
//! too long (> captureMaxLength), a `/command`, only punctuation, subagent context, or — fixed
//! — a question the assistant did not answer (the legacy rule dropped answered questions too).
//! In `keyword` mode a memory-intent word must appear.

use crate::config::CaptureMode;
use crate::text::sanitize::sanitize;
use crate::text::has_cjk;
use crate::lifecycle::turn::{Part, Role, TurnEnvelope, INJECTED_REMOVED};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
/// Whether a turn counts toward the compaction triggers, and why not (`capture::CaptureReason`).
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum CaptureReason {
    Accepted,
    Empty,
    InjectedMemoryContextOnly,
    TooShort,
    TooLong,
    Command,
    PunctuationOnly,
    SubagentContext,
    UnansweredQuestion,
    NoKeyword,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureDecision {
    pub counts: bool,
    pub reason: CaptureReason,
}

const INTENT_WORDS: &[&str] = &[
    "remember", "save", "store", "note", "prefer", "preference", "always", "never", "rule", "fact", "decide",
    "decided", "decision", "important", "my name", "i like", "i love", "i hate", "we use", "记住", "记得", "偏好", "喜欢",
    "决定", "规则", "重要", "以后", "总是", "不要",
];
const QUESTION_CUES: &[&str] = &[
    "?", "？", "what ", "how ", "why ", "when ", "where ", "which ", "who ", "can you", "could you", "什么", "怎么", "为什么",
    "吗", "哪", "如何",
];

fn decision(counts: bool, reason: CaptureReason) -> CaptureDecision {
    CaptureDecision { counts, reason }
}

/// Decides whether the turn counts toward the triggers.
pub fn capture_decision(env: &TurnEnvelope, mode: CaptureMode, max_length: usize) -> CaptureDecision {
    let mut user = String::new();
    let mut assistant = String::new();
    let mut injected = env.parts.iter().any(|p| matches!(p, Part::Meta { key, .. } if key == INJECTED_REMOVED));
    for p in &env.parts {
        if let Part::Text { text, role } = p {
            let s = sanitize(text);
            injected |= s.had_injected;
            if s.text.is_empty() {
                continue;
            }
            let buf = if *role == Role::Assistant { &mut assistant } else { &mut user };
            if !buf.is_empty() {
                buf.push('\n');
            }
            buf.push_str(&s.text);
        }
    }
    let has_tools = !env.tool_calls.is_empty();
    let all = format!("{user}\n{assistant}");
    let non_space = all.chars().filter(|c| !c.is_whitespace()).count();
    if non_space == 0 {
        let r = if injected { CaptureReason::InjectedMemoryContextOnly } else { CaptureReason::Empty };
        return decision(has_tools, if has_tools { CaptureReason::Accepted } else { r });
    }
    let user_trim = user.trim_start();
    if user_trim.starts_with('/') && user_trim.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic()) {
        return decision(false, CaptureReason::Command);
    }
    if user_trim.starts_with("[Subagent Context]") {
        return decision(false, CaptureReason::SubagentContext);
    }
    let min = if has_cjk(&all) { 4 } else { 10 };
    if non_space < min && !has_tools {
        return decision(false, CaptureReason::TooShort);
    }
    if all.chars().count() > max_length {
        return decision(false, CaptureReason::TooLong);
    }
    if all.chars().all(|c| !c.is_alphanumeric()) {
        return decision(false, CaptureReason::PunctuationOnly);
    }
    let lower = all.to_lowercase();
    let intent = INTENT_WORDS.iter().any(|w| lower.contains(w));
    let question = QUESTION_CUES.iter().any(|q| user.to_lowercase().contains(q));
    if question && !intent && assistant.trim().is_empty() && !has_tools {
        return decision(false, CaptureReason::UnansweredQuestion);
    }
    if mode == CaptureMode::Keyword && !intent {
        return decision(false, CaptureReason::NoKeyword);
    }
    decision(true, CaptureReason::Accepted)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::lifecycle::turn::{build_envelope, TurnMeta};
    use serde_json::json;

    fn env(user: &str, assistant: &str) -> TurnEnvelope {
        let mut msgs = vec![json!({"role": "user", "content": user})];
        if !assistant.is_empty() {
            msgs.push(json!({"role": "assistant", "content": [{"type": "text", "text": assistant}]}));
        }
        let meta = TurnMeta { turn_id: "t".into(), session_id: "s".into(), sequence: 0, now_ms: 0, used_context_uris: vec![], compact_checkpoint_id: None };
        build_envelope(&msgs, meta).unwrap()
    }

    #[test]
    fn small_talk_does_not_count() {
        let d = |u, a| capture_decision(&env(u, a), CaptureMode::Semantic, 24_000);
        assert_eq!(d("hi", "").reason, CaptureReason::TooShort);
        assert_eq!(d("/new", "").reason, CaptureReason::Command);
        assert_eq!(d("[2026-11-30 10:00] /reset", "").reason, CaptureReason::Command);
        assert_eq!(d("!!! ???", "").reason, CaptureReason::TooShort);
        assert_eq!(d("What time is it in Tokyo right now?", "").reason, CaptureReason::UnansweredQuestion);
        assert_eq!(d("<relevant-memories>x</relevant-memories>", "").reason, CaptureReason::InjectedMemoryContextOnly);
    }

    #[test]
    fn real_turns_count_including_answered_questions() {
        let d = |u, a| capture_decision(&env(u, a), CaptureMode::Semantic, 24_000);
        assert!(d("What index should we add for the slow orders query?", "Add (user_id, created_at).").counts);
        assert!(d("我们决定用 Postgres", "").counts);
        assert!(d("Please remember that I prefer a dark theme", "").counts);
        let kw = capture_decision(&env("Let us look at the logs together now", "Sure, here they are"), CaptureMode::Keyword, 24_000);
        assert_eq!(kw.reason, CaptureReason::NoKeyword);
    }
}
