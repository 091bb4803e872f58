//! When to compact (design §3.2): evaluated from a session's [`SessionState`] and `now_ms`,
//! highest priority first, the first match wins:
//! 1. **budget** — estimated context tokens ≥ the host's latest `tokenBudget` × `compactCommitThreshold`;
//! 2. **tokens added** — tokens added since the last commit ≥ `compactTokensAddedThreshold`
//!    (the engine's estimate, reconciled with OpenViking's `pending_tokens`: the larger wins);
//! 3. **turns** — counted turns since the last commit ≥ `compactTurnThreshold`;
//! 4. **interval** — ≥ `compactMaxIntervalMinutes` since the last commit (or since the
//!    session's first turn) with ≥ 1 counted turn.
//!
//! Nothing fires without at least one counted turn since the last commit: small talk alone
//! never causes a commit, and an empty session is never committed.

use crate::config::Config;
use crate::text::time::MINUTE_MS;
use serde::{Deserialize, Serialize};

/// What the engine knows about one OpenViking session between turns. Serializable: it is
/// kept in the plugin's state dir so a one-process-per-turn host behaves like a gateway.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionState {
    /// The latest `tokenBudget` the host gave for this session.
    pub token_budget: Option<u64>,
    /// Estimated tokens of the context the model last saw (assembled messages).
    pub context_tokens: u64,
    /// Tokens written since the last commit, by the engine's estimate.
    pub tokens_since_commit: u64,
    /// OpenViking's `pending_tokens`, when last read.
    pub server_pending_tokens: Option<u64>,
    /// Turns since the last commit that pass the capture decision.
    pub counted_turns_since_commit: u64,
    /// All turns written since the last commit.
    pub turns_since_commit: u64,
    pub first_turn_at_ms: Option<u64>,
    pub last_commit_at_ms: Option<u64>,
    /// The next turn sequence number.
    pub next_sequence: u64,
    /// The highest sequence recorded (written, or queued in order): what a commit requested
    /// now archives. A sequence allocated but still being written is not in it.
    pub recorded_through: Option<u64>,
    /// Sequence of the first turn not yet covered by a commit.
    pub window_start_sequence: u64,
    /// Why the last commit was started (a trigger's reason, or "compact()").
    pub last_commit_reason: Option<String>,
    /// Turn ids of the current window, in sequence order (for the checkpoint).
    pub window_turn_ids: Vec<String>,
    /// What the window held when a commit was requested: turns arriving while it runs are
    /// not in its archive and stay counted for the next window.
    pub commit_snapshot: Option<WindowSnapshot>,
}

/// The window at the moment a commit was requested.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WindowSnapshot {
    pub end_sequence: u64,
    pub turns: u64,
    pub counted_turns: u64,
    pub tokens: u64,
    pub turn_ids: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
/// A compaction trigger that fired (`triggers::Trigger`).
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Trigger {
    Budget { tokens: u64, threshold: u64 },
    TokensAdded { tokens: u64, threshold: u64 },
    Turns { turns: u64, threshold: u64 },
    Interval { minutes: u64, threshold: u64 },
}

impl Trigger {
    pub fn reason(&self) -> String {
        match self {
            Trigger::Budget { tokens, threshold } => format!("context {tokens} tokens ≥ {threshold} (budget threshold)"),
            Trigger::TokensAdded { tokens, threshold } => format!("{tokens} tokens added since the last commit ≥ {threshold}"),
            Trigger::Turns { turns, threshold } => format!("{turns} turns since the last commit ≥ {threshold}"),
            Trigger::Interval { minutes, threshold } => format!("{minutes} min since the last commit ≥ {threshold}"),
        }
    }
}

impl SessionState {
    /// Tokens added since the last commit: the engine's estimate or OpenViking's count,
    /// whichever is larger (each can miss what the other saw, e.g. writes from another process).
    pub fn tokens_added(&self) -> u64 {
        self.tokens_since_commit.max(self.server_pending_tokens.unwrap_or(0))
    }
}

/// The first trigger that fires, if any.
pub fn evaluate(state: &SessionState, config: &Config, now_ms: u64) -> Option<Trigger> {
    if state.counted_turns_since_commit == 0 {
        return None;
    }
    if let Some(budget) = state.token_budget.filter(|b| *b > 0) {
        let threshold = (budget as f64 * config.compact_commit_threshold).floor() as u64;
        if state.context_tokens >= threshold {
            return Some(Trigger::Budget { tokens: state.context_tokens, threshold });
        }
    }
    let added = state.tokens_added();
    if added >= config.compact_tokens_added_threshold {
        return Some(Trigger::TokensAdded { tokens: added, threshold: config.compact_tokens_added_threshold });
    }
    if state.counted_turns_since_commit >= config.compact_turn_threshold {
        return Some(Trigger::Turns { turns: state.counted_turns_since_commit, threshold: config.compact_turn_threshold });
    }
    if let Some(since) = state.last_commit_at_ms.or(state.first_turn_at_ms) {
        let minutes = now_ms.saturating_sub(since) / MINUTE_MS;
        if minutes >= config.compact_max_interval_minutes {
            return Some(Trigger::Interval { minutes, threshold: config.compact_max_interval_minutes });
        }
    }
    None
}

/// Takes the next turn sequence number.
pub fn allocate_sequence(state: &mut SessionState) -> u64 {
    let s = state.next_sequence;
    state.next_sequence += 1;
    s
}

/// Turn ids kept for the window (newest); a longer window keeps only its newest ids, so the
/// per-session record stays bounded however long a session goes without a commit.
pub const WINDOW_TURN_IDS_KEPT: usize = 256;

/// Adds a turn id to the window, dropping the oldest beyond [`WINDOW_TURN_IDS_KEPT`] (and
/// keeping a pending commit's snapshot count in step).
pub fn push_window_turn_id(state: &mut SessionState, turn_id: String) {
    state.window_turn_ids.push(turn_id);
    let excess = state.window_turn_ids.len().saturating_sub(WINDOW_TURN_IDS_KEPT);
    if excess > 0 {
        state.window_turn_ids.drain(..excess);
        if let Some(snap) = state.commit_snapshot.as_mut() {
            snap.turn_ids = snap.turn_ids.saturating_sub(excess);
        }
    }
}

/// Records a written turn (its sequence already allocated) in the state.
pub fn record_turn(state: &mut SessionState, tokens: u64, counts: bool, now_ms: u64) {
    state.turns_since_commit += 1;
    state.tokens_since_commit += tokens;
    if counts {
        state.counted_turns_since_commit += 1;
    }
    state.first_turn_at_ms.get_or_insert(now_ms);
}

/// Notes that turn `sequence` is recorded (in OpenViking, or queued in order).
pub fn note_recorded(state: &mut SessionState, sequence: u64) {
    state.recorded_through = Some(state.recorded_through.map_or(sequence, |r| r.max(sequence)));
}

/// The last sequence a commit requested now archives: the recorded ones (a turn whose
/// sequence is allocated but whose write is still under way lands after the archive, so it
/// belongs to the next window). State from before `recorded_through` existed: allocated.
fn archived_through(state: &SessionState) -> u64 {
    state.recorded_through.unwrap_or(state.next_sequence.saturating_sub(1)).max(state.window_start_sequence)
}

/// Snapshots the window as a commit is requested (everything recorded so far is archived).
pub fn snapshot_window(state: &mut SessionState) {
    state.commit_snapshot = Some(WindowSnapshot {
        end_sequence: archived_through(state),
        turns: state.turns_since_commit,
        counted_turns: state.counted_turns_since_commit,
        tokens: state.tokens_since_commit,
        turn_ids: state.window_turn_ids.len(),
    });
}

/// After a commit archived the snapshotted window: what it covered leaves the counters;
/// turns that arrived meanwhile stay for the next window. Returns the archived range and the
/// archived turn ids.
pub fn record_commit(state: &mut SessionState, now_ms: u64) -> (u64, u64, Vec<String>) {
    let snap = state.commit_snapshot.take().unwrap_or(WindowSnapshot {
        end_sequence: archived_through(state),
        turns: state.turns_since_commit,
        counted_turns: state.counted_turns_since_commit,
        tokens: state.tokens_since_commit,
        turn_ids: state.window_turn_ids.len(),
    });
    let start = state.window_start_sequence;
    state.tokens_since_commit = state.tokens_since_commit.saturating_sub(snap.tokens);
    state.server_pending_tokens = None;
    state.counted_turns_since_commit = state.counted_turns_since_commit.saturating_sub(snap.counted_turns);
    state.turns_since_commit = state.turns_since_commit.saturating_sub(snap.turns);
    state.last_commit_at_ms = Some(now_ms);
    state.window_start_sequence = snap.end_sequence + 1;
    let ids: Vec<String> = state.window_turn_ids.drain(..snap.turn_ids.min(state.window_turn_ids.len())).collect();
    (start, snap.end_sequence, ids)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn cfg() -> Config {
        let mut c = Config::default();
        c.compact_turn_threshold = 3;
        c.compact_tokens_added_threshold = 1000;
        c.compact_max_interval_minutes = 30;
        c
    }

    #[test]
    fn each_trigger_fires_at_its_threshold_and_not_before() {
        let c = cfg();
        let mut s = SessionState { token_budget: Some(10_000), ..Default::default() };
        allocate_sequence(&mut s);
        record_turn(&mut s, 10, true, 0);
        s.context_tokens = 7_499;
        assert_eq!(evaluate(&s, &c, 0), None);
        s.context_tokens = 7_500;
        assert!(matches!(evaluate(&s, &c, 0), Some(Trigger::Budget { threshold: 7_500, .. })));
        s.context_tokens = 0;
        s.tokens_since_commit = 999;
        assert_eq!(evaluate(&s, &c, 0), None);
        s.server_pending_tokens = Some(1000);
        assert!(matches!(evaluate(&s, &c, 0), Some(Trigger::TokensAdded { tokens: 1000, .. })));
        s.server_pending_tokens = None;
        s.tokens_since_commit = 0;
        record_turn(&mut s, 1, true, 0);
        assert_eq!(evaluate(&s, &c, 0), None);
        record_turn(&mut s, 1, true, 0);
        assert!(matches!(evaluate(&s, &c, 0), Some(Trigger::Turns { turns: 3, .. })));
    }

    #[test]
    fn interval_needs_a_counted_turn() {
        let c = cfg();
        let mut s = SessionState::default();
        record_turn(&mut s, 5, false, 0);
        assert_eq!(evaluate(&s, &c, 31 * MINUTE_MS), None, "small talk alone never commits");
        record_turn(&mut s, 5, true, MINUTE_MS);
        assert_eq!(evaluate(&s, &c, 29 * MINUTE_MS + 59_999), None);
        assert!(matches!(evaluate(&s, &c, 30 * MINUTE_MS), Some(Trigger::Interval { minutes: 30, .. })));
        record_commit(&mut s, 30 * MINUTE_MS);
        assert_eq!(evaluate(&s, &c, 90 * MINUTE_MS), None);
    }

    #[test]
    fn first_match_wins() {
        let c = cfg();
        let mut s = SessionState { token_budget: Some(100), context_tokens: 100, tokens_since_commit: 5000, ..Default::default() };
        for _ in 0..5 {
            record_turn(&mut s, 0, true, 0);
        }
        assert!(matches!(evaluate(&s, &c, 0), Some(Trigger::Budget { .. })));
    }

    #[test]
    fn a_turn_still_being_written_when_a_commit_is_requested_belongs_to_the_next_window() {
        let mut s = SessionState::default();
        for _ in 0..2 {
            let seq = allocate_sequence(&mut s);
            record_turn(&mut s, 10, true, 0);
            note_recorded(&mut s, seq);
        }
        let in_flight = allocate_sequence(&mut s); // its write has not finished
        snapshot_window(&mut s);
        record_turn(&mut s, 10, true, 0);
        note_recorded(&mut s, in_flight);
        let (start, end, _) = record_commit(&mut s, 1);
        assert_eq!((start, end), (0, 1), "the archive covers the two recorded turns");
        assert_eq!(s.window_start_sequence, in_flight);
        assert_eq!(s.turns_since_commit, 1, "the in-flight turn counts for the next window");
    }
}
