//! Stepping a transcript through the triggers, for the demo's timeline: turn by turn, does
//! the turn count (capture decision), how many tokens it adds, and would a compaction fire —
//! assuming each fired compaction commits at once (a new window starts).

use crate::message::split_turns;
use crate::lifecycle::capture::{capture_decision, CaptureReason};
use crate::config::Config;
use crate::message::estimate_message_tokens;
use crate::message::role;
use crate::lifecycle::triggers::{allocate_sequence, evaluate, note_recorded, record_commit, record_turn, snapshot_window, SessionState, Trigger};
use crate::lifecycle::turn::{build_envelope, TurnMeta};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TimelineStep {
    /// 0-based index of the turn (a turn starts at a user message).
    pub turn: usize,
    pub counted: bool,
    pub capture_reason: CaptureReason,
    pub tokens: u64,
    /// Context tokens so far in the current window (what the budget trigger sees).
    pub context_tokens: u64,
    pub trigger: Option<Trigger>,
}

/// Steps `messages` through the triggers with `token_budget` as the host's budget.
pub fn trigger_timeline(config: &Config, messages: Vec<Value>, token_budget: Option<u64>) -> Vec<TimelineStep> {
    let turns: Vec<Vec<Value>> = split_turns(messages).into_iter().filter(|t| t.first().is_some_and(|m| role(m) == Some("user"))).collect();
    let mut state = SessionState { token_budget, ..Default::default() };
    let mut steps = Vec::with_capacity(turns.len());
    let mut clock = 0u64;
    for (i, t) in turns.iter().enumerate() {
        let ts = t.first().and_then(|m| crate::message::Message::of(m).timestamp()).and_then(Value::as_f64).map(|f| f as u64);
        clock = ts.unwrap_or(clock + 60_000).max(clock);
        let seq = allocate_sequence(&mut state);
        let meta = TurnMeta { turn_id: format!("t{i}"), session_id: "timeline".into(), sequence: seq, now_ms: clock, used_context_uris: vec![], compact_checkpoint_id: None };
        let Ok(env) = build_envelope(t, meta) else { continue };
        let decision = capture_decision(&env, config.capture_mode, config.capture_max_length);
        let tokens: u64 = t.iter().map(|m| estimate_message_tokens(m) as u64).sum();
        record_turn(&mut state, tokens, decision.counts, clock);
        note_recorded(&mut state, seq);
        state.context_tokens += tokens;
        let trigger = evaluate(&state, config, clock);
        steps.push(TimelineStep { turn: i, counted: decision.counts, capture_reason: decision.reason, tokens, context_tokens: state.context_tokens, trigger });
        if trigger.is_some() {
            snapshot_window(&mut state);
            record_commit(&mut state, clock);
            state.context_tokens = 0;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn fires_every_n_counted_turns_and_skips_small_talk() {
        let mut c = Config::default();
        c.compact_turn_threshold = 2;
        let mut msgs = Vec::new();
        for (i, text) in ["We decided on Postgres", "hi", "We decided on Redis", "We decided on blue-green", "ok"].iter().enumerate() {
            msgs.push(json!({"role": "user", "content": text, "timestamp": 1000 * i as u64}));
            msgs.push(json!({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}));
        }
        let steps = trigger_timeline(&c, msgs, None);
        let fired: Vec<usize> = steps.iter().filter(|s| s.trigger.is_some()).map(|s| s.turn).collect();
        assert_eq!(fired, vec![2]);
        assert!(!steps[1].counted);
        assert_eq!(steps.len(), 5);
    }
}
