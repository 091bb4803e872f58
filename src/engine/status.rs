//! What an operator sees, read through the engine (the plugin's commands keep no copy of
//! its rules): a session's [`SessionStatus`] — turns stored, the outbox, the last commit and
//! checkpoint, each trigger's progress and which fires next, whether the host called the
//! engine for the last turn — and the [`Trace`] of the last turn it assembled (what was
//! searched, what was injected or cut and why, the token split).

use super::read::RecallStatus;
use super::record::outbox_key;
use super::Engine;
use crate::lifecycle::commit_guard::CommitPhase;
use crate::host::{Host, HostResult};
use crate::context::summary_check::checkpoint_summary_problem;
use crate::address::scopes::MemoryScopes;
use crate::lifecycle::triggers::evaluate;
use crate::message::{StoredMessage, StoredPart};
use serde::Serialize;
use serde_json::Value;

const MINUTE_MS: u64 = 60_000;

fn trace_key(ov_id: &str) -> String {
    format!("trace/{ov_id}")
}

/// One trigger's progress toward firing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TriggerProgress {
    /// `budget`, `tokens_added`, `turns` or `interval`.
    #[cfg_attr(feature = "typescript", ts(type = r#""budget" | "tokens_added" | "turns" | "interval""#))]
    pub kind: &'static str,
    pub current: u64,
    /// `None` for the budget trigger while the host has sent no budget.
    pub threshold: Option<u64>,
    /// What `current` counts, e.g. `turns since the last commit`, `min since the first turn
    /// (no commit yet)`.
    pub unit: String,
}

/// The last checkpoint, briefly.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CheckpointBrief {
    pub checkpoint_id: String,
    pub archive_uri: String,
    pub committed_at: String,
    pub turns: (u64, u64),
    pub has_summary: bool,
    /// Why its summary is not used (empty, a placeholder, …), `null` when it is.
    pub summary_problem: Option<String>,
    pub extracted_memories: usize,
}

/// `ContextEngine.status`: one session, for an operator.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionStatus {
    pub ov_session_id: String,
    pub session_id: String,
    /// Turns acknowledged for this session (written to OpenViking or queued).
    pub turns_stored: u64,
    pub outbox_depth: usize,
    /// How long the oldest queued turn has waited (`None`: nothing queued, or queued by an
    /// older release that did not stamp entries).
    pub oldest_queued_age_ms: Option<u64>,
    pub last_commit_at_ms: Option<u64>,
    pub last_commit_reason: Option<String>,
    /// `idle`, `archiving` or `extracting` (a commit task being followed).
    #[cfg_attr(feature = "typescript", ts(type = r#""idle" | "archiving" | "extracting""#))]
    pub commit_phase: &'static str,
    pub checkpoints: usize,
    /// Checkpoints whose summary is not used (`summary_check`): the turns behind them stay
    /// raw where the host still holds them, the previous good summary stands for older ones.
    pub distrusted_summaries: usize,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub last_checkpoint: Option<CheckpointBrief>,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub triggers: Vec<TriggerProgress>,
    /// What would fire now, if anything (a reason a person can read, and when the commit
    /// runs: a trigger is evaluated when a turn is written).
    pub next_trigger: Option<String>,
    /// When the interval trigger fires at the latest (it needs a counted turn).
    pub interval_due_at_ms: Option<u64>,
    /// When this process last assembled the session (`None`: not in this process).
    pub last_assembled_at_ms: Option<u64>,
}

/// The last assembled turn of a session, in full.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Trace {
    pub at_ms: u64,
    #[cfg_attr(feature = "typescript", ts(type = "RecallQuery"))]
    pub query: Value,
    /// The scopes searched (`None`: recall off, or nothing to search for).
    pub scopes: Option<MemoryScopes>,
    /// Memories injected and every candidate's explain record (`RecallOutcome`).
    #[cfg_attr(feature = "typescript", ts(type = "RecallOutcome | null"))]
    pub recall: Value,
    /// What recall did: searched (and found nothing, or something), skipped and why (the key
    /// refused, a local server still starting, unreachable), off, nothing to search for.
    /// `null` in a trace kept by an earlier release.
    #[serde(default)]
    pub recall_status: Option<RecallStatus>,
    pub token_budget: Option<u64>,
    pub estimated_tokens: u64,
    /// The token split of the composed context.
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub split: TokenSplit,
    /// Set when this state dir never assembled the turn (another machine did, or the state
    /// dir was lost): what OpenViking holds of the last stored turn. `null` otherwise.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub rebuilt: Option<RebuiltTurn>,
    /// The skills listed for the turn: why (their score for its query) and what each cost.
    #[serde(default)]
    pub skills: Vec<crate::recall::skills::SkillEntry>,
    /// The map of folders the turn's system prompt carried (`null`: none).
    #[serde(default)]
    pub map: Option<crate::context::map::MemoryMap>,
}

/// A trace rebuilt from OpenViking: the last stored turn, the question it asked and the
/// memories it was shown (the `context` parts stored with it). The candidates cut and the
/// token split are known only to the process that assembled it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RebuiltTurn {
    pub turn_id: String,
    /// `true`: read from the newest archive (nothing live since the last commit).
    pub archived: bool,
    pub injected_uris: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TokenSplit {
    pub recall: u64,
    pub summaries: usize,
    pub summarized_turns: usize,
    pub recent_raw_turns: usize,
    #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
    pub trimmed: Value,
    pub over_budget: bool,
    /// Summaries not used because they cannot be trusted (`summary_check`).
    #[serde(default)]
    pub distrusted_summaries: usize,
    /// Tokens of the skills listed in the recall pair (inside `recall`'s pair, not in `recall`).
    #[serde(default)]
    pub skills: u64,
    /// Tokens of the map of folders in the system prompt addition.
    #[serde(default)]
    pub map: u64,
}

impl<H: Host> Engine<H> {
    /// The status of one of this agent's sessions.
    pub async fn status(&self, ov_id: &str) -> HostResult<SessionStatus> {
        self.load_record(ov_id, "").await?;
        // what other machines wrote since this state dir last looked
        self.follow_openviking(ov_id).await;
        let mut rec = self.load_record(ov_id, "").await?;
        // the window as every writer on this state dir counts it
        if let Some(w) = self.shared_window(ov_id).await {
            w.apply(&mut rec.state);
        }
        let outbox = self.host.outbox_read(&outbox_key(ov_id)).await?;
        let now = self.host.now_ms();
        let oldest = outbox.first().and_then(|e| e.get("queuedAtMs")).and_then(Value::as_u64).map(|t| now.saturating_sub(t));
        let st = &rec.state;
        let c = &self.config;
        // before the first commit the counts run from the first turn: say so, not "since the
        // last commit" beside "last commit: never"
        let since = if st.last_commit_at_ms.is_some() { "since the last commit" } else { "since the first turn (no commit yet)" };
        let triggers = vec![
            TriggerProgress {
                kind: "budget",
                current: st.context_tokens,
                threshold: st.token_budget.filter(|b| *b > 0).map(|b| (b as f64 * c.compact_commit_threshold).floor() as u64),
                unit: "tokens in context".into(),
            },
            TriggerProgress { kind: "tokens_added", current: st.tokens_added(), threshold: Some(c.compact_tokens_added_threshold), unit: format!("tokens added {since}") },
            TriggerProgress { kind: "turns", current: st.counted_turns_since_commit, threshold: Some(c.compact_turn_threshold), unit: format!("turns {since}") },
            TriggerProgress {
                kind: "interval",
                current: st.last_commit_at_ms.or(st.first_turn_at_ms).map_or(0, |t| now.saturating_sub(t) / MINUTE_MS),
                threshold: Some(c.compact_max_interval_minutes),
                unit: format!("min {since}"),
            },
        ];
        let last_checkpoint = rec.checkpoints.latest().map(|cp| CheckpointBrief {
            checkpoint_id: cp.checkpoint_id.clone(),
            archive_uri: cp.archive_uri.clone(),
            committed_at: cp.committed_at.clone(),
            turns: (cp.source_turn_range.start_sequence, cp.source_turn_range.end_sequence),
            has_summary: cp.summary.as_deref().is_some_and(|s| !s.trim().is_empty()),
            summary_problem: checkpoint_summary_problem(cp),
            extracted_memories: cp.extracted_memory_uris.len(),
        });
        let distrusted_summaries = rec.checkpoints.checkpoints.iter().filter(|c| checkpoint_summary_problem(c).is_some()).count();
        Ok(SessionStatus {
            ov_session_id: ov_id.to_string(),
            session_id: rec.session_id.clone(),
            turns_stored: st.next_sequence,
            outbox_depth: outbox.len(),
            oldest_queued_age_ms: oldest,
            last_commit_at_ms: st.last_commit_at_ms,
            last_commit_reason: st.last_commit_reason.clone(),
            commit_phase: match rec.guard.phase {
                CommitPhase::Idle => "idle",
                CommitPhase::Archiving { .. } => "archiving",
                CommitPhase::Extracting { .. } => "extracting",
            },
            checkpoints: rec.checkpoints.checkpoints.len(),
            distrusted_summaries,
            last_checkpoint,
            triggers,
            next_trigger: evaluate(st, c, now).map(|t| {
                let reason = if st.last_commit_at_ms.is_some() { t.reason() } else { t.reason().replace("since the last commit", "since the first turn (no commit yet)") };
                let when = if matches!(rec.guard.phase, CommitPhase::Idle) { "it starts when the next turn is written" } else { "a commit is running" };
                format!("{reason}; {when}")
            }),
            interval_due_at_ms: st.last_commit_at_ms.or(st.first_turn_at_ms).map(|t| t.saturating_add(c.compact_max_interval_minutes.saturating_mul(MINUTE_MS))),
            last_assembled_at_ms: self.last_assembled(ov_id).map(|l| l.at_ms),
        })
    }

    /// The trace of the session's last assembled turn: this process's, else the one kept in
    /// the state dir by the last turn's write (a CLI runs one process per turn).
    pub async fn trace(&self, ov_id: &str) -> Option<Trace> {
        if let Some(t) = self.trace_in_memory(ov_id) {
            return Some(t);
        }
        if let Some(kept) = self.host.load_state(&trace_key(ov_id)).await.ok().flatten() {
            if let Ok(t) = serde_json::from_value(kept) {
                return Some(t);
            }
        }
        self.rebuilt_trace(ov_id).await
    }

    /// The trace of a session this state dir did not assemble, from OpenViking: its last
    /// stored turn (live, else in the newest archive), the question and the memories the
    /// turn was shown. Only this agent's sessions (a parsed id, never a prefix).
    async fn rebuilt_trace(&self, ov_id: &str) -> Option<Trace> {
        if !crate::address::session_map::owns_session(&self.config.agent_id, ov_id) {
            return None;
        }
        let mut messages = self.host.live_messages(ov_id).await.ok()?;
        let mut archived = false;
        if !messages.iter().any(is_user) {
            let meta = self.host.session_meta(ov_id).await.ok()??;
            if meta.commit_count == 0 {
                return None;
            }
            let a = self.host.archive(ov_id, &format!("archive_{:03}", meta.commit_count)).await.ok()?;
            messages = a.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
            archived = true;
        }
        let start = messages.iter().rposition(is_user)?;
        let opening = StoredMessage::of(&messages[start]);
        let turn_id = opening.turn_id().unwrap_or_default().to_string();
        let turn: Vec<&Value> = messages[start..]
            .iter()
            .enumerate()
            .take_while(|(i, m)| *i == 0 || turn_id.is_empty() && !is_user(m) || StoredMessage::of(m).turn_id() == Some(turn_id.as_str()))
            .map(|(_, m)| m)
            .collect();
        let question = opening.texts().collect::<Vec<_>>().join("\n");
        let mut injected_uris: Vec<String> = Vec::new();
        for p in turn.iter().flat_map(|m| StoredMessage::of(m).parts()) {
            let StoredPart::Context { uri } = p else { continue };
            if let Some(u) = uri.filter(|u| !injected_uris.iter().any(|x| x == u)) {
                injected_uris.push(u.to_string());
            }
        }
        let at_ms = opening.created_at().and_then(crate::tools::history::when::iso_ms).unwrap_or(0);
        Some(Trace {
            at_ms,
            query: serde_json::json!({ "query": question, "parts": [] }),
            scopes: None,
            recall: Value::Null,
            recall_status: None,
            token_budget: None,
            estimated_tokens: 0,
            split: TokenSplit { recall: 0, summaries: 0, summarized_turns: 0, recent_raw_turns: 0, trimmed: Value::Null, over_budget: false, distrusted_summaries: 0, skills: 0, map: 0 },
            rebuilt: Some(RebuiltTurn { turn_id, archived, injected_uris }),
            skills: Vec::new(),
            map: None,
        })
    }

    /// Keeps the last assembled turn's trace in the state dir (called by the turn's write,
    /// off the path to the model).
    pub(super) async fn keep_trace(&self, ov_id: &str) {
        if let Some(t) = self.trace_in_memory(ov_id) {
            let _ = self.host.save_cache(&trace_key(ov_id), serde_json::to_value(t).unwrap_or(Value::Null)).await;
        }
    }

    fn trace_in_memory(&self, ov_id: &str) -> Option<Trace> {
        let last = self.last_assembled(ov_id)?;
        let comp = &last.result.composition;
        Some(Trace {
            at_ms: last.at_ms,
            query: serde_json::to_value(&last.result.query).unwrap_or(Value::Null),
            scopes: last.scopes.clone(),
            recall: serde_json::to_value(&last.result.recall).unwrap_or(Value::Null),
            recall_status: Some(last.recall_status.clone()),
            token_budget: last.token_budget,
            estimated_tokens: comp.estimated_tokens,
            split: TokenSplit {
                recall: if comp.recall_included { last.result.recall.as_ref().map_or(0, |r| r.tokens as u64).saturating_sub(last.result.split.skills) } else { 0 },
                skills: last.result.split.skills,
                map: last.result.split.map,
                summaries: comp.compact_summaries.len(),
                summarized_turns: comp.summarized_turns,
                recent_raw_turns: comp.recent_raw_turns,
                trimmed: serde_json::to_value(&comp.trimmed).unwrap_or(Value::Null),
                over_budget: comp.over_budget,
                distrusted_summaries: last.distrusted_summaries,
            },
            rebuilt: None,
            skills: last.result.skills.clone(),
            map: last.result.map.clone(),
        })
    }
}

fn is_user(m: &Value) -> bool {
    StoredMessage::of(m).is_user()
}


