//! The trigger window as every process on one state dir counts it. Each process keeps its
//! session record in its own cache and the last save wins, so counters kept there lose the
//! other writer's turns (two writers on one session each counted about half). The window is
//! therefore also kept in the session's turn ledger, which is read and changed only under the
//! write lock every process takes to append a turn: each turn appended adds its weight there,
//! a commit moves the window's start past what it archived, and a process takes its counters
//! from it ([`SharedWindow::apply`]) instead of adding up only the turns it wrote itself.

use super::triggers::{SessionState, WINDOW_TURN_IDS_KEPT};
use serde::{Deserialize, Serialize};

/// Turns kept one by one; older ones in the window are kept as sums ([`SharedWindow::carried`]).
pub const WINDOW_ENTRIES_KEPT: usize = WINDOW_TURN_IDS_KEPT;

/// What some turns of the window add up to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowSums {
    pub turns: u64,
    pub counted: u64,
    pub tokens: u64,
}

/// One turn of the window: its sequence, estimated tokens, whether it counts toward the
/// triggers, and its turn id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowTurn {
    #[serde(rename = "s")]
    pub sequence: u64,
    #[serde(rename = "t")]
    pub tokens: u64,
    #[serde(rename = "c")]
    pub counts: bool,
    #[serde(rename = "id")]
    pub turn_id: String,
}

/// The window since the last commit, shared by every writer of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SharedWindow {
    /// The first sequence no commit archived.
    pub start: u64,
    /// Turns of the window older than every entry, as sums (a window longer than
    /// [`WINDOW_ENTRIES_KEPT`], or what a process knew when the window began to be shared).
    pub carried: WindowSums,
    /// The newest sequence among the carried turns.
    pub carried_through: Option<u64>,
    /// Turn ids of the carried turns (newest kept).
    pub carried_ids: Vec<String>,
    /// The window's newest turns, in sequence order.
    pub turns: Vec<WindowTurn>,
    pub first_turn_at_ms: Option<u64>,
    pub last_commit_at_ms: Option<u64>,
}

impl SharedWindow {
    /// The window as one process knew it before it was shared (a state dir written by an
    /// earlier release, a session adopted from OpenViking): its counters become the carried sums.
    pub fn from_state(state: &SessionState) -> Self {
        let carried = WindowSums { turns: state.turns_since_commit, counted: state.counted_turns_since_commit, tokens: state.tokens_since_commit };
        let through = state.recorded_through.or_else(|| state.next_sequence.checked_sub(1));
        SharedWindow {
            start: state.window_start_sequence,
            carried,
            carried_through: if carried.turns > 0 { through } else { None },
            carried_ids: if carried.turns > 0 { state.window_turn_ids.clone() } else { Vec::new() },
            turns: Vec::new(),
            first_turn_at_ms: state.first_turn_at_ms,
            last_commit_at_ms: state.last_commit_at_ms,
        }
    }

    /// Adds an appended turn (a sequence a commit already archived adds nothing).
    pub fn record(&mut self, turn: WindowTurn, now_ms: u64) {
        let carried = self.carried_through.is_some_and(|c| turn.sequence <= c);
        // one turn queued twice under two sequences (a retry whose first append was never
        // noted in the ledger) is one turn
        let known = |t: &WindowTurn| t.sequence == turn.sequence || (!turn.turn_id.is_empty() && t.turn_id == turn.turn_id);
        if turn.sequence < self.start || carried || self.turns.iter().any(known) || (!turn.turn_id.is_empty() && self.carried_ids.contains(&turn.turn_id)) {
            return;
        }
        let at = self.turns.iter().position(|t| t.sequence > turn.sequence).unwrap_or(self.turns.len());
        self.turns.insert(at, turn);
        self.first_turn_at_ms.get_or_insert(now_ms);
        let excess = self.turns.len().saturating_sub(WINDOW_ENTRIES_KEPT);
        for old in self.turns.drain(..excess) {
            self.carried.turns += 1;
            self.carried.tokens += old.tokens;
            if old.counts {
                self.carried.counted += 1;
            }
            self.carried_through = Some(self.carried_through.map_or(old.sequence, |c| c.max(old.sequence)));
            self.carried_ids.push(old.turn_id);
        }
        let extra = self.carried_ids.len().saturating_sub(WINDOW_TURN_IDS_KEPT);
        self.carried_ids.drain(..extra);
    }

    /// A commit archived every turn through `end_sequence`.
    pub fn commit(&mut self, end_sequence: u64, now_ms: u64) {
        if end_sequence < self.start {
            return;
        }
        self.start = end_sequence + 1;
        self.turns.retain(|t| t.sequence > end_sequence);
        if self.carried_through.map_or(true, |c| c <= end_sequence) {
            self.carried = WindowSums::default();
            self.carried_through = None;
            self.carried_ids.clear();
        }
        self.last_commit_at_ms = Some(self.last_commit_at_ms.map_or(now_ms, |t| t.max(now_ms)));
        self.first_turn_at_ms = None;
    }

    /// Another machine's commit archived these turns (by id): they leave the window, and so
    /// do the carried ones (older than every entry, so archived before them).
    pub fn archive_turns(&mut self, turn_ids: &std::collections::HashSet<&str>) {
        let before = self.turns.len();
        self.turns.retain(|t| !turn_ids.contains(t.turn_id.as_str()));
        if self.turns.len() < before || self.carried_ids.iter().any(|id| turn_ids.contains(id.as_str())) {
            self.carried = WindowSums::default();
            self.carried_through = None;
            self.carried_ids.clear();
        }
        if self.turns.is_empty() {
            self.first_turn_at_ms = None;
        }
    }

    /// What the window adds up to.
    pub fn sums(&self) -> WindowSums {
        let mut s = self.carried;
        for t in &self.turns {
            s.turns += 1;
            s.tokens += t.tokens;
            if t.counts {
                s.counted += 1;
            }
        }
        s
    }

    /// Sets a process's trigger counters to the shared window: every writer's turns since
    /// the last commit any of them made. A commit this process has requested and not yet
    /// recorded keeps its start (its snapshot is taken from these counters).
    pub fn apply(&self, state: &mut SessionState) {
        if self.start > state.window_start_sequence {
            state.window_start_sequence = self.start; // another process's commit
        }
        let s = self.sums();
        state.turns_since_commit = s.turns;
        state.counted_turns_since_commit = s.counted;
        state.tokens_since_commit = s.tokens;
        let mut ids: Vec<String> = self.carried_ids.clone();
        ids.extend(self.turns.iter().map(|t| t.turn_id.clone()));
        let excess = ids.len().saturating_sub(WINDOW_TURN_IDS_KEPT);
        ids.drain(..excess);
        state.window_turn_ids = ids;
        if let Some(t) = self.last_commit_at_ms {
            state.last_commit_at_ms = Some(state.last_commit_at_ms.map_or(t, |o| o.max(t)));
        }
        state.first_turn_at_ms = self.first_turn_at_ms.or(state.first_turn_at_ms.filter(|_| s.turns > 0));
    }

    /// The newest sequence appended to the window (queued or sent), if any.
    pub fn newest_sequence(&self) -> Option<u64> {
        self.turns.last().map(|t| t.sequence).or(self.carried_through)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::lifecycle::triggers::{evaluate, record_commit, snapshot_window};
    use crate::config::Config;

    fn turn(sequence: u64, tokens: u64) -> WindowTurn {
        WindowTurn { sequence, tokens, counts: true, turn_id: format!("t{sequence}") }
    }

    #[test]
    fn two_writers_each_see_every_turn_of_the_window() {
        let mut shared = SharedWindow::default();
        let (mut a, mut b) = (SessionState::default(), SessionState::default());
        for seq in 0..40 {
            shared.record(turn(seq, 10), seq);
            shared.apply(if seq % 2 == 0 { &mut a } else { &mut b });
        }
        assert_eq!((a.turns_since_commit, a.tokens_since_commit), (39, 390), "a saw through its last write");
        assert_eq!((b.turns_since_commit, b.tokens_since_commit), (40, 400));
        let c = Config { compact_turn_threshold: 20, ..Default::default() };
        let mut fresh = SessionState::default();
        let mut s = SharedWindow::default();
        let fired = (0..40u64).find(|&seq| {
            s.record(turn(seq, 10), seq);
            s.apply(&mut fresh);
            evaluate(&fresh, &c, seq).is_some()
        });
        assert_eq!(fired, Some(19), "the turn trigger fires at its threshold counted over both writers");
    }

    #[test]
    fn one_turn_queued_under_two_sequences_counts_once() {
        let mut shared = SharedWindow::default();
        shared.record(turn(4, 10), 1);
        shared.record(WindowTurn { sequence: 9, ..turn(4, 10) }, 2);
        assert_eq!(shared.sums().turns, 1);
    }

    #[test]
    fn a_commit_by_one_writer_moves_the_others_window() {
        let mut shared = SharedWindow::default();
        let (mut a, mut b) = (SessionState::default(), SessionState::default());
        for seq in 0..6 {
            shared.record(turn(seq, 5), seq);
            shared.apply(&mut a);
        }
        shared.apply(&mut b);
        crate::lifecycle::triggers::note_recorded(&mut a, shared.newest_sequence().unwrap());
        snapshot_window(&mut a);
        let (start, end, ids) = record_commit(&mut a, 100);
        assert_eq!((start, end, ids.len()), (0, 5, 6));
        shared.commit(end, 100);
        shared.record(turn(6, 7), 101);
        shared.apply(&mut b);
        assert_eq!((b.window_start_sequence, b.turns_since_commit, b.tokens_since_commit), (6, 1, 7));
        assert_eq!(b.window_turn_ids, vec!["t6".to_string()]);
        assert_eq!(b.last_commit_at_ms, Some(100));
    }

    #[test]
    fn a_window_longer_than_its_entries_keeps_its_sums_and_a_commit_clears_them() {
        let mut shared = SharedWindow::default();
        let n = WINDOW_ENTRIES_KEPT as u64 + 10;
        for seq in 0..n {
            shared.record(turn(seq, 1), seq);
        }
        assert_eq!(shared.turns.len(), WINDOW_ENTRIES_KEPT);
        assert_eq!(shared.sums(), WindowSums { turns: n, counted: n, tokens: n });
        shared.record(turn(3, 1), 0);
        assert_eq!(shared.sums().turns, n, "a sequence already carried is not counted twice");
        shared.commit(n - 1, 5);
        assert_eq!(shared.sums(), WindowSums::default());
        assert!(shared.carried_ids.is_empty());
    }

    #[test]
    fn a_process_that_knew_the_window_alone_hands_it_over() {
        let mut st = SessionState::default();
        for seq in 0..3 {
            crate::lifecycle::triggers::allocate_sequence(&mut st);
            crate::lifecycle::triggers::record_turn(&mut st, 4, seq != 1, 7);
            crate::lifecycle::triggers::note_recorded(&mut st, seq);
            crate::lifecycle::triggers::push_window_turn_id(&mut st, format!("t{seq}"));
        }
        let mut shared = SharedWindow::from_state(&st);
        shared.record(turn(3, 4), 8);
        let mut other = SessionState::default();
        shared.apply(&mut other);
        assert_eq!((other.turns_since_commit, other.counted_turns_since_commit, other.tokens_since_commit), (4, 3, 16));
        assert_eq!(other.window_turn_ids, ["t0", "t1", "t2", "t3"]);
        assert_eq!(other.first_turn_at_ms, Some(7));
        shared.commit(2, 9);
        shared.apply(&mut other);
        assert_eq!((other.turns_since_commit, other.tokens_since_commit), (1, 4), "the carried turns were archived");
    }
}
