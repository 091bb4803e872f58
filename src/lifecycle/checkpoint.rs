//! `CompactCheckpoint` (design §5.3): what one compaction produced — the archive, the turn
//! range it covers, its summary and the memories extracted from it — and the mapping from
//! turn sequences to archives that `memory_expand` and `assemble` follow.
//!
//! Checkpoints are written as JSON under the user's `resources/` (OpenViking 0.5.x does not
//! let clients write under `sessions/`), at [`checkpoint_uri`].
//!
//! Field names are the design's, in camelCase (`checkpointId`, `sourceTurnRange.startSequence`):
//! the one casing of everything the engine hands across its boundary and writes. Records
//! written in the design's snake_case (`checkpoint_id`, by releases before 2026-12) still read.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TurnRange {
    #[serde(alias = "start_sequence")]
    pub start_sequence: u64,
    #[serde(alias = "end_sequence")]
    pub end_sequence: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompactCheckpoint {
    #[serde(alias = "checkpoint_id")]
    pub checkpoint_id: String,
    #[serde(alias = "session_id")]
    pub session_id: String,
    #[serde(alias = "committed_at")]
    pub committed_at: String,
    #[serde(alias = "archive_index")]
    pub archive_index: u32,
    #[serde(alias = "source_turn_range")]
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub source_turn_range: TurnRange,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(alias = "summary_uri")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub summary_uri: Option<String>,
    #[serde(alias = "extracted_memory_uris")]
    pub extracted_memory_uris: Vec<String>,
    // Beyond the design's fields: what the engine needs to trace and to resume.
    #[serde(alias = "archive_uri")]
    pub archive_uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(alias = "task_id")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub task_id: Option<String>,
    /// Why the compaction ran (a trigger's reason, or "compact()").
    pub reason: String,
    /// The archive's summary (working memory overview) at compaction time, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub summary: Option<String>,
    /// Why the summary is not used (`summary_check`): empty, a placeholder, the empty
    /// template, far shorter than the turns. `None`: trusted (or recorded by an earlier
    /// release, then checked when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub summary_problem: Option<String>,
    /// The ids of the turns in the archive, in sequence order (`start_sequence` first):
    /// archive message → turn, memory → archive → turns.
    #[serde(default)]
    #[serde(alias = "turn_ids")]
    pub turn_ids: Vec<String>,
}

/// `…/history/archive_003` → 3.
pub fn archive_index_from_uri(uri: &str) -> Option<u32> {
    let last = uri.trim_end_matches('/').rsplit('/').next()?;
    last.strip_prefix("archive_")?.parse().ok()
}

pub fn checkpoint_id(session_id: &str, archive_index: u32) -> String {
    format!("ckpt-{session_id}-{archive_index:03}")
}

/// The engine's records of one agent in OpenViking.
pub fn engine_dir(user_id: &str, agent_id: &str) -> String {
    format!("viking://user/{user_id}/resources/openviking-context-engine/{agent_id}")
}

/// Where the engine keeps a session's checkpoints.
pub fn checkpoint_dir(user_id: &str, agent_id: &str, session_id: &str) -> String {
    format!("{}/{session_id}", engine_dir(user_id, agent_id))
}

pub fn checkpoint_uri(user_id: &str, agent_id: &str, session_id: &str, archive_index: u32) -> String {
    format!("{}/checkpoint-{archive_index:03}.json", checkpoint_dir(user_id, agent_id, session_id))
}

/// The memory URIs a commit added or updated, from its `memory_diff.json`
/// (`{operations:{adds:[{uri}], updates:[{uri}], deletes:[…]}}`).
pub fn extracted_memory_uris(memory_diff: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for kind in ["adds", "updates"] {
        if let Some(items) = memory_diff.pointer(&format!("/operations/{kind}")).and_then(Value::as_array) {
            for it in items {
                if let Some(u) = it.get("uri").and_then(Value::as_str) {
                    if !out.iter().any(|x: &String| x == u) {
                        out.push(u.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The checkpoints of one session, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CheckpointIndex {
    pub checkpoints: Vec<CompactCheckpoint>,
}

impl CheckpointIndex {
    /// Adds or replaces (same archive) a checkpoint, keeping archive order.
    pub fn upsert(&mut self, cp: CompactCheckpoint) {
        self.checkpoints.retain(|c| c.archive_index != cp.archive_index);
        self.checkpoints.push(cp);
        crate::order::sort_by_key(&mut self.checkpoints, |c| c.archive_index);
    }

    /// The checkpoint whose archive holds turn `sequence`.
    pub fn covering(&self, sequence: u64) -> Option<&CompactCheckpoint> {
        self.checkpoints
            .iter()
            .find(|c| c.source_turn_range.start_sequence <= sequence && sequence <= c.source_turn_range.end_sequence)
    }

    pub fn latest(&self) -> Option<&CompactCheckpoint> {
        self.checkpoints.last()
    }

    /// The checkpoint that extracted `memory_uri`.
    pub fn source_of_memory(&self, memory_uri: &str) -> Option<&CompactCheckpoint> {
        self.checkpoints.iter().rev().find(|c| c.extracted_memory_uris.iter().any(|u| u == memory_uri))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    fn cp(index: u32, start: u64, end: u64, mems: &[&str]) -> CompactCheckpoint {
        CompactCheckpoint {
            checkpoint_id: checkpoint_id("s1", index),
            session_id: "s1".into(),
            committed_at: "2026-11-30T00:00:00.000Z".into(),
            archive_index: index,
            source_turn_range: TurnRange { start_sequence: start, end_sequence: end },
            summary_uri: None,
            extracted_memory_uris: mems.iter().map(|s| s.to_string()).collect(),
            archive_uri: format!("viking://user/u/sessions/s1/history/archive_{index:03}"),
            task_id: None,
            reason: "test".into(),
            summary: None,
            summary_problem: None,
            turn_ids: vec![],
        }
    }

    #[test]
    fn maps_sequences_and_memories_to_archives() {
        let mut idx = CheckpointIndex::default();
        idx.upsert(cp(2, 5, 9, &["m2"]));
        idx.upsert(cp(1, 0, 4, &["m1"]));
        assert_eq!(idx.covering(3).unwrap().archive_index, 1);
        assert_eq!(idx.covering(9).unwrap().archive_index, 2);
        assert!(idx.covering(10).is_none());
        assert_eq!(idx.source_of_memory("m2").unwrap().archive_index, 2);
        assert_eq!(idx.latest().unwrap().archive_index, 2);
    }

    #[test]
    fn reads_archive_index_and_memory_diff() {
        assert_eq!(archive_index_from_uri("viking://user/u/sessions/s/history/archive_012/"), Some(12));
        assert_eq!(archive_index_from_uri("viking://user/u/sessions/s"), None);
        let diff = json!({"operations": {"adds": [{"uri": "a"}, {"uri": "b"}], "updates": [{"uri": "a"}, {"uri": "c"}], "deletes": [{"uri": "d"}]}});
        assert_eq!(extracted_memory_uris(&diff), vec!["a", "b", "c"]);
    }
}
