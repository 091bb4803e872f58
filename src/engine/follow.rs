//! Following OpenViking while other machines write the same session. A session is adopted
//! from OpenViking once (`rebuild`); after that each state dir knows the turns its own
//! processes wrote. When another machine (another state dir) writes or commits the same
//! session, this one learns it here: one `GET` of the session's counts, and only when they
//! moved past what this state dir has seen, the new archives and the live messages. Turns it
//! did not write are numbered after its own (the ledger's next sequence, under the write
//! lock), indexed for `memory_search_history`, counted in the shared trigger window while
//! they are live; another machine's commit takes its archived turns out of the window and
//! brings its checkpoint. `status` and the history search then answer from what OpenViking
//! holds on every machine.

use super::locks::WRITE_LOCK_TTL_MS;
use super::record::{outbox_key, TurnLedger};
use super::Engine;
use crate::host::{Host, HostResult};
use crate::lifecycle::checkpoint::{checkpoint_uri, CompactCheckpoint};
use crate::lifecycle::shared_window::WindowTurn;
use crate::tools::history::{turns_from_messages, TurnEntry};
use std::collections::HashSet;

/// Archives read by one follow (the newest; older ones stay reachable through `memory_expand`).
pub const FOLLOW_ARCHIVES_MAX: u64 = 8;
/// Sessions one history search over all sessions follows.
pub const FOLLOW_SESSIONS_MAX: usize = 8;

/// What one follow learned.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Followed {
    /// Turns another machine wrote, new to this state dir.
    pub turns: usize,
    /// Commits another machine made, new to this state dir.
    pub commits: u64,
}

impl<H: Host> Engine<H> {
    /// Learns what other machines wrote to one of this agent's sessions since this state dir
    /// last looked (see the module doc). Quiet when OpenViking does not answer (the caller
    /// answers from what the state dir has, and says so where it must).
    pub async fn follow_openviking(&self, ov_id: &str) -> Followed {
        self.follow_once(ov_id).await.unwrap_or_default()
    }

    /// Follows the sessions a search over all of this agent's sessions reads first: the
    /// current one and those this process has open (at most [`FOLLOW_SESSIONS_MAX`]).
    pub(super) async fn follow_open_sessions(&self, current: Option<&str>) {
        let mut ids: Vec<String> = current.map(str::to_string).into_iter().collect();
        let open: Vec<String> = self.records.cache().keys().cloned().collect();
        for id in open {
            if ids.len() >= FOLLOW_SESSIONS_MAX {
                break;
            }
            if !ids.contains(&id) && crate::address::session_map::owns_session(&self.config.agent_id, &id) {
                ids.push(id);
            }
        }
        for id in ids {
            self.follow_openviking(&id).await;
        }
    }

    async fn follow_once(&self, ov_id: &str) -> HostResult<Followed> {
        let rec = self.load_record(ov_id, "").await?;
        if !rec.created || !crate::address::session_map::owns_session(&self.config.agent_id, ov_id) {
            return Ok(Followed::default());
        }
        let Some(meta) = self.host.session_meta(ov_id).await? else { return Ok(Followed::default()) };
        let seen = rec.seen_commits.unwrap_or(meta.commit_count);
        let moved = meta.commit_count > seen || rec.followed_live != Some(meta.message_count);
        // a send of this process still unanswered, or turns still queued here: the counts
        // are not comparable yet (the replay settles them first)
        let busy = rec.unconfirmed.is_some() || self.replay.is_running(ov_id) || !self.host.outbox_read(&outbox_key(ov_id)).await?.is_empty();
        if !moved || busy {
            if rec.seen_commits.is_none() {
                self.update(ov_id, |r| r.seen_commits = Some(meta.commit_count)).await?;
            }
            return Ok(Followed::default());
        }
        // the other machine's commits: their archives, oldest first
        let first = (seen + 1).max(meta.commit_count.saturating_sub(FOLLOW_ARCHIVES_MAX) + 1);
        let mut archived: Vec<(u64, Vec<TurnEntry>)> = Vec::new();
        for n in first..=meta.commit_count {
            let messages = self.archive_messages(ov_id, n).await?;
            archived.push((n, turns_from_messages(&messages, 0, self.host.now_ms())));
        }
        let live_messages = self.host.live_messages(ov_id).await?;
        let live = turns_from_messages(&live_messages, 0, self.host.now_ms());
        let learned = self.number_learned(ov_id, &archived, &live).await?;
        let Some((numbered, next)) = learned else { return Ok(Followed::default()) };
        let fresh = numbered.len();
        for t in numbered {
            self.index_turn(ov_id, &rec.session_id, t).await;
        }
        // the checkpoints of those commits (the other machine writes one when its task ends)
        let uid = self.resolve_user().await;
        let mut checkpoints: Vec<CompactCheckpoint> = Vec::new();
        if let Some(uid) = &uid {
            for (n, _) in &archived {
                let uri = checkpoint_uri(uid, &self.config.agent_id, ov_id, u32::try_from(*n).unwrap_or(u32::MAX));
                if let Ok(Ok(cp)) = self.host.read_json(&uri).await.map(serde_json::from_value::<CompactCheckpoint>) {
                    if cp.session_id == ov_id {
                        checkpoints.push(cp);
                    }
                }
            }
        }
        let local: std::collections::HashMap<String, u64> = self.indexed_turns_after(ov_id, None).await.into_iter().map(|(s, id)| (id, s)).collect();
        let now = self.host.now_ms();
        let commits = meta.commit_count.saturating_sub(seen);
        self.update(ov_id, |r| {
            for mut cp in checkpoints {
                // its turn range in this state dir's numbering
                let seqs: Vec<u64> = cp.turn_ids.iter().filter_map(|id| local.get(id).copied()).collect();
                if let (Some(lo), Some(hi)) = (seqs.iter().min(), seqs.iter().max()) {
                    cp.source_turn_range.start_sequence = *lo;
                    cp.source_turn_range.end_sequence = *hi;
                }
                if let Some(at) = crate::tools::history::when::iso_ms(&cp.committed_at) {
                    r.state.last_commit_at_ms = Some(r.state.last_commit_at_ms.map_or(at, |t| t.max(at)));
                }
                r.state.last_commit_reason = Some(cp.reason.clone());
                r.checkpoints.upsert(cp);
            }
            if commits > 0 && r.state.last_commit_at_ms.is_none() {
                r.state.last_commit_at_ms = Some(now);
            }
            super::record::bound_checkpoints(r);
            r.state.next_sequence = r.state.next_sequence.max(next);
            r.state.server_pending_tokens = Some(meta.pending_tokens);
            r.live_count = Some(meta.message_count);
            r.followed_live = Some(meta.message_count);
            r.seen_commits = Some(meta.commit_count);
        })
        .await?;
        Ok(Followed { turns: fresh, commits })
    }

    /// Under the write lock: numbers the turns OpenViking holds that this state dir has not
    /// noted (after its own, from the ledger's next sequence), notes them in the ledger, and
    /// brings the shared trigger window in line — the archived turns leave it, the live ones
    /// this state dir did not write join it. `None`: the lock was not had (tried again by the
    /// next follow). Returns the new turns numbered, and the next sequence.
    async fn number_learned(&self, ov_id: &str, archived: &[(u64, Vec<TurnEntry>)], live: &[TurnEntry]) -> HostResult<Option<(Vec<TurnEntry>, u64)>> {
        let okey = outbox_key(ov_id);
        if !self.take_lock(&okey, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await? {
            return Ok(None);
        }
        let out = async {
            let mut ledger = self.load_ledger(ov_id).await?.unwrap_or_default();
            let indexed: HashSet<String> = self.indexed_turns_after(ov_id, None).await.into_iter().map(|(_, id)| id).collect();
            let known = |ledger: &TurnLedger, id: &str| indexed.contains(id) || ledger.turn_ids.iter().any(|t| t == id);
            let now = self.host.now_ms();
            let mut numbered = Vec::new();
            let all = archived.iter().flat_map(|(_, turns)| turns.iter().map(|t| (t, false))).chain(live.iter().map(|t| (t, true)));
            for (t, is_live) in all {
                if known(&ledger, &t.turn_id) || numbered.iter().any(|n: &TurnEntry| n.turn_id == t.turn_id) {
                    continue;
                }
                let sequence = ledger.next.max(self.read_record(ov_id, |r| r.state.next_sequence));
                ledger.note(sequence, &t.turn_id, None);
                if is_live {
                    if let Some(w) = ledger.window.as_mut() {
                        w.record(WindowTurn { sequence, tokens: 0, counts: true, turn_id: t.turn_id.clone() }, t.timestamp_ms.min(now));
                    }
                }
                numbered.push(TurnEntry { sequence, ..t.clone() });
                self.update_cached(ov_id, |r| r.state.next_sequence = r.state.next_sequence.max(sequence + 1));
            }
            // turns another machine's commit archived leave the window, whoever wrote them
            let gone: HashSet<&str> = archived.iter().flat_map(|(_, turns)| turns.iter().map(|t| t.turn_id.as_str())).collect();
            if let Some(w) = ledger.window.as_mut() {
                if !gone.is_empty() {
                    w.archive_turns(&gone);
                }
                let w = w.clone();
                self.update_cached(ov_id, |r| w.apply(&mut r.state));
            }
            self.save_ledger(ov_id, &ledger).await?;
            Ok::<_, crate::host::HostError>((numbered, ledger.next))
        }
        .await;
        self.give_lock(&okey).await;
        out.map(Some)
    }
}
