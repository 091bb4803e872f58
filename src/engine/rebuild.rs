//! What a state dir does not know, OpenViking does: a session this state dir has no record
//! of — a second machine on the same OpenViking, a reinstall, a deleted state dir — is
//! adopted from the server the first time the engine touches it. Every message the engine
//! sends carries its turn id and the host's time (`turn::stamp_messages`), and every
//! compaction leaves its checkpoint under the user's resources (`checkpoint::checkpoint_uri`),
//! so the record (checkpoints with their summaries, the turn count) and the history index
//! are rebuilt from the archives, the live messages and the checkpoints. The state dir stays
//! a cache: losing it loses nothing but turns still queued in its outbox.

use super::record::{bound_checkpoints, state_key, SessionRecord, TurnLedger};
use super::Engine;
use crate::lifecycle::checkpoint::{checkpoint_uri, CompactCheckpoint};
use crate::tools::history::{add_to_chunk, chunk_key, chunk_of, turns_from_messages, IndexChunk};
use crate::host::{Host, HostErrorKind, HostResult, SessionMeta};
use crate::address::session_map::{owns_session, parse_ov_session_id};
use serde_json::Value;
use std::collections::BTreeMap;

/// Archives read when a session is adopted (the newest; older turns stay in OpenViking,
/// reachable through `memory_expand`, but not in this machine's history index).
pub const ADOPT_ARCHIVES_MAX: u64 = 64;
/// Sessions adopted by one history search or memory trace (newest first).
pub const ADOPT_SESSIONS_MAX: usize = 64;

impl<H: Host> Engine<H> {
    /// Fills `rec` (a session OpenViking holds, `meta`) from OpenViking: its checkpoints, its
    /// turn count, and its history index (saved as the index's documents).
    pub(super) async fn adopt_session(&self, rec: &mut SessionRecord, meta: &SessionMeta) -> HostResult<()> {
        let ov_id = rec.ov_session_id.clone();
        rec.created = true;
        if rec.session_id.is_empty() {
            rec.session_id = parse_ov_session_id(&ov_id).map(|(_, s)| s.to_string()).unwrap_or_default();
        }
        let uid = self.resolve_user().await;
        let first = meta.commit_count.saturating_sub(ADOPT_ARCHIVES_MAX) + 1;
        let mut messages: Vec<Value> = Vec::new();
        for n in first..=meta.commit_count {
            messages.extend(self.archive_messages(&ov_id, n).await?);
            let Some(uid) = &uid else { continue };
            let uri = checkpoint_uri(uid, &self.config.agent_id, &ov_id, u32::try_from(n).unwrap_or(u32::MAX));
            if let Ok(v) = self.host.read_json(&uri).await {
                match serde_json::from_value::<CompactCheckpoint>(v) {
                    Ok(cp) if cp.session_id == ov_id => rec.checkpoints.upsert(cp),
                    _ => self.host.warn(&format!("the checkpoint {uri} could not be read; its archive is still adopted")),
                }
            }
        }
        let archived = messages.len();
        messages.extend(self.host.live_messages(&ov_id).await?);
        // the first archive read starts where its checkpoint says (older ones were not read)
        let start = if first > 1 { rec.checkpoints.checkpoints.iter().find(|c| u64::from(c.archive_index) == first).map_or(0, |c| c.source_turn_range.start_sequence) } else { 0 };
        let turns = turns_from_messages(&messages, start, self.host.now_ms());
        let archived_turns = turns_from_messages(&messages[..archived], start, self.host.now_ms()).len();
        adopt_window(&mut rec.state, &turns[archived_turns.min(turns.len())..], meta, rec.checkpoints.checkpoints.last().map(|c| c.committed_at.as_str()));
        let next = turns.last().map_or(start, |t| t.sequence + 1);
        // the ledger knows the adopted turns: a retry of one of them is not written again
        let mut ledger = TurnLedger::default();
        // (a turn written without an advancement key is named by its content key: `<id>:c<key>`)
        let by_content = format!("{ov_id}:c");
        for t in &turns {
            ledger.note(t.sequence, &t.turn_id, t.turn_id.strip_prefix(by_content.as_str()));
        }
        rec.state.next_sequence = rec.state.next_sequence.max(next);
        rec.live_count = Some(meta.message_count);
        rec.seen_commits = Some(meta.commit_count);
        rec.followed_live = Some(meta.message_count);
        bound_checkpoints(rec);
        // the history index, one document per chunk
        let mut chunks: BTreeMap<u64, Option<IndexChunk>> = BTreeMap::new();
        for t in turns {
            let c = chunk_of(t.sequence);
            let doc = chunks.remove(&c).flatten();
            chunks.insert(c, Some(add_to_chunk(doc, &self.config.agent_id, &ov_id, &rec.session_id, t)));
        }
        for (c, doc) in chunks {
            if let Some(v) = doc.and_then(|d| serde_json::to_value(d).ok()) {
                self.host.save_cache(&chunk_key(&ov_id, c), v).await?;
            }
        }
        ledger.next = ledger.next.max(rec.state.next_sequence);
        ledger.window = Some(crate::lifecycle::shared_window::SharedWindow::from_state(&rec.state));
        let _ = self.save_ledger(&ov_id, &ledger).await;
        Ok(())
    }

    /// The messages of a session's archive `n` (1-based), oldest first; none when OpenViking
    /// has no such archive.
    pub(super) async fn archive_messages(&self, ov_id: &str, n: u64) -> HostResult<Vec<Value>> {
        match self.host.archive(ov_id, &format!("archive_{n:03}")).await {
            Ok(a) => Ok(a.get("messages").and_then(Value::as_array).cloned().unwrap_or_default()),
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// Adopts this agent's sessions OpenViking holds that this state dir has no record of
    /// (at most `ADOPT_SESSIONS_MAX`, newest first). Quiet when OpenViking does not answer:
    /// the caller works with what the state dir has.
    pub async fn adopt_agent_sessions(&self) {
        let Ok(ids) = self.host.list_sessions().await else { return };
        let known: std::collections::HashSet<String> =
            self.host.list_state_keys("session/").await.unwrap_or_default().into_iter().filter_map(|k| k.strip_prefix("session/").map(str::to_string)).collect();
        let mine = ids.into_iter().filter(|id| owns_session(&self.config.agent_id, id) && !known.contains(id) && !self.records.cache().contains_key(id));
        for id in mine.take(ADOPT_SESSIONS_MAX) {
            if let Ok(rec) = self.load_record(&id, "").await {
                // saved, so the next process finds it without asking OpenViking again
                let _ = self.host.save_state(&state_key(&id), serde_json::to_value(&rec).unwrap_or(Value::Null)).await;
            }
        }
    }
}

/// The trigger window of an adopted session, from what OpenViking holds: the live turns are
/// the ones since the last commit (their count, ids and first time), OpenViking's pending
/// tokens stand for the tokens added, and the last commit's time is its checkpoint's. A
/// second machine's triggers thus continue where the first machine's stood instead of
/// starting from zero. (Every live turn counts: the capture decision that skips, e.g., a
/// bare greeting cannot be replayed from the stored text alone, so a rebuilt window may
/// fire one such turn early.)
fn adopt_window(st: &mut crate::lifecycle::triggers::SessionState, live: &[crate::tools::history::TurnEntry], meta: &SessionMeta, last_commit_at: Option<&str>) {
    let Some(first) = live.first() else {
        st.last_commit_at_ms = st.last_commit_at_ms.or_else(|| last_commit_at.and_then(crate::tools::history::when::iso_ms));
        return;
    };
    st.turns_since_commit = st.turns_since_commit.max(live.len() as u64);
    st.counted_turns_since_commit = st.counted_turns_since_commit.max(live.len() as u64);
    st.tokens_since_commit = st.tokens_since_commit.max(meta.pending_tokens);
    st.server_pending_tokens = Some(meta.pending_tokens);
    st.first_turn_at_ms = st.first_turn_at_ms.or(Some(first.timestamp_ms));
    st.last_commit_at_ms = st.last_commit_at_ms.or_else(|| last_commit_at.and_then(crate::tools::history::when::iso_ms));
    st.window_start_sequence = first.sequence;
    st.recorded_through = live.last().map(|t| t.sequence).max(st.recorded_through);
    if st.window_turn_ids.is_empty() {
        for t in live {
            crate::lifecycle::triggers::push_window_turn_id(st, t.turn_id.clone());
        }
    }
}


