//! What a turn gets beside its memories, read through the host: the skills found for its
//! query (`recall::skills`: the skill roots searched in the memories' one find, or, when the
//! memories go as two finds, one `skills/find` beside them; reused for [`SEARCH_REUSE_MS`]
//! like them) and the map of the user's and this agent's folders (`map`).
//!
//! The map is a cache in the state dir (`map/<agentId>`: the roots' entries, the user id and
//! when they were read), rebuildable from OpenViking at any time. It is rebuilt at the next
//! turn when it is older than [`MAP_STALE_MS`], when a memory was written or deleted or a
//! commit's memories were recorded ([`Engine::map_stale`] marks it), or for another user.
//! A commit of any of this agent's sessions marks it too, and for [`MAP_COMMIT_WINDOW_MS`]
//! after it the map is listed again at most every [`MAP_COMMIT_REFRESH_MS`]: OpenViking
//! extracts the commit's memories in the background, and the session whose task would record
//! them may see no further turn. While OpenViking cannot be listed, the kept map is used as it
//! is.

use super::search::SEARCH_REUSE_MS;
use super::Engine;
use crate::host::Host;
use crate::host::join::join_all;
use crate::context::map::{map_roots, render, root_of_tree, MapRoot, MemoryMap, MAP_STALE_MS, TREE_LEVELS, TREE_NODES};
use crate::recall::skills::{read_skills, SkillEntry};
use serde_json::{json, Value};

/// After a commit, the map is refreshed for this long …
pub const MAP_COMMIT_WINDOW_MS: u64 = 5 * 60 * 1000;
/// … at most this often.
pub const MAP_COMMIT_REFRESH_MS: u64 = 30 * 1000;

/// The skills last found: (query, when, skills).
pub(super) type LastSkills = Option<(String, u64, Vec<SkillEntry>)>;

impl<H: Host> Engine<H> {
    fn map_key(&self) -> String {
        format!("map/{}", self.config.agent_id)
    }

    /// The skills relevant to `query` (empty with `skillRecall: false` or when the search
    /// fails: a turn never waits on skills for more than one call).
    pub async fn skills_for(&self, query: &str, user_id: Option<&str>) -> Result<Vec<SkillEntry>, crate::host::HostError> {
        if !self.config.skill_recall {
            return Ok(Vec::new());
        }
        let now = self.host.now_ms();
        if let Some((q, at, s)) = self.reads.last_skills.borrow().as_ref() {
            if q == query && now.saturating_sub(*at) < SEARCH_REUSE_MS {
                return Ok(s.clone());
            }
        }
        let v = self.host.find_skills(query, self.config.skill_limit).await?;
        self.outage_over("skills");
        let skills = read_skills(&v, user_id, self.config.skill_limit);
        *self.reads.last_skills.borrow_mut() = Some((query.to_string(), now, skills.clone()));
        Ok(skills)
    }

    /// The skills of a search, or none when it failed: one log line per outage — and none at
    /// all when the turn's recall failed too (the same outage: its line says it).
    pub fn skills_or_none(&self, found: Result<Vec<SkillEntry>, crate::host::HostError>, recall_failed: bool) -> Vec<SkillEntry> {
        match found {
            Ok(s) => s,
            Err(e) => {
                if !recall_failed {
                    self.warn_once("skills", &format!("skill search failed (skills are not listed until it works again): {e}"));
                }
                Vec::new()
            }
        }
    }

    /// The skills of a find answer that searched the skill roots with the memories (kept for
    /// reuse as [`Self::skills_for`]'s are).
    pub fn skills_from(&self, query: &str, answer: &Value, user_id: Option<&str>) -> Vec<SkillEntry> {
        self.outage_over("skills");
        let skills = read_skills(answer, user_id, self.config.skill_limit);
        *self.reads.last_skills.borrow_mut() = Some((query.to_string(), self.host.now_ms(), skills.clone()));
        skills
    }

    /// Marks the kept map stale: the next turn lists the folders again.
    pub async fn map_stale(&self) {
        self.mark_map_stale(None).await;
    }

    /// A commit was accepted: the map is stale, and refreshed while its memories come in.
    pub async fn map_commit_started(&self) {
        self.mark_map_stale(Some(self.host.now_ms().saturating_add(MAP_COMMIT_WINDOW_MS))).await;
    }

    async fn mark_map_stale(&self, refresh_until_ms: Option<u64>) {
        if !self.config.memory_map {
            return;
        }
        let key = self.map_key();
        if let Ok(Some(mut doc)) = self.host.load_state(&key).await {
            if doc.is_object() {
                doc["stale"] = Value::Bool(true);
                if let Some(until) = refresh_until_ms {
                    doc["refreshUntilMs"] = json!(until);
                }
                let _ = self.host.save_state(&key, doc).await;
            }
        }
    }

    /// This turn's map (see the module doc); `None` with `memoryMap: false` or when nothing
    /// is known to exist.
    pub async fn memory_map(&self) -> Option<MemoryMap> {
        if !self.config.memory_map {
            return None;
        }
        let now = self.host.now_ms();
        let uid = self.resolve_user().await;
        let key = self.map_key();
        let kept = self.host.load_state(&key).await.ok().flatten();
        let kept_roots = |doc: &Value| -> Option<(Vec<MapRoot>, u64)> {
            let roots = serde_json::from_value(doc.get("roots")?.clone()).ok()?;
            Some((roots, doc.get("builtAtMs").and_then(Value::as_u64).unwrap_or(0)))
        };
        let refresh_until = kept.as_ref().and_then(|d| d.get("refreshUntilMs")).and_then(Value::as_u64).filter(|u| *u > now);
        let fresh = kept.as_ref().filter(|d| {
            let built = d.get("builtAtMs").and_then(Value::as_u64);
            let max_age = if refresh_until.is_some() { MAP_COMMIT_REFRESH_MS } else { MAP_STALE_MS };
            d.get("stale").and_then(Value::as_bool) != Some(true)
                && d.get("userId").and_then(Value::as_str) == uid.as_deref()
                && built.is_some_and(|t| now.saturating_sub(t) < max_age && t <= now)
        });
        let (roots, built_at) = match fresh.and_then(kept_roots) {
            Some(r) => r,
            None => {
                let wanted = map_roots(self.config.target_uri.as_deref(), uid.as_deref(), &self.config.agent_id);
                let trees = join_all(wanted.iter().map(|(_, uri)| self.host.tree(uri, TREE_LEVELS, TREE_NODES)).collect()).await;
                if trees.iter().all(Result::is_err) {
                    // OpenViking cannot be listed: the kept map, however old
                    return kept.as_ref().and_then(kept_roots).and_then(|(r, t)| render(&r, self.config.memory_map_token_budget, t));
                }
                let roots: Vec<MapRoot> = wanted
                    .into_iter()
                    .zip(trees)
                    .map(|((label, uri), t)| root_of_tree(label, uri, t.ok().flatten().as_ref()))
                    .collect();
                let _ = self.host.save_cache(&key, json!({ "builtAtMs": now, "userId": uid, "roots": roots, "refreshUntilMs": refresh_until })).await;
                (roots, now)
            }
        };
        render(&roots, self.config.memory_map_token_budget, built_at)
    }
}
