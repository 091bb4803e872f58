//! This agent's experiences for one turn (`recall::experience` has the rules): one `find` in
//! the user's experiences folder, then each candidate's lineage — its raw file's
//! `derived_from` trajectories and each trajectory's source session — so only experiences
//! learned from this agent's own sessions go on. A trajectory's source never changes (they
//! are add-only), so its session is kept in memory; an experience's links can grow, so its
//! raw file is read each time it is a candidate. Agent evolution off (no folder, nothing
//! found) or a failing server: no experiences, never an error. A turn's assembles reuse the
//! answer for `SEARCH_REUSE_MS`.

use super::Engine;
use crate::host::{FindFilter, Host};
use crate::host::join::join_all;
use crate::recall::experience::{body_of, derived_from, find_candidates, find_query, is_agents, source_session, ExperienceCandidate, ExperienceCue, EXPERIENCE_POOL};
use crate::address::scopes::experiences_root;

/// Trajectory → session entries kept (a process sees few; cleared when full).
const TRAJECTORY_SESSIONS_KEPT: usize = 1024;

pub(super) struct LastExperiences {
    key: String,
    at_ms: u64,
    found: Vec<ExperienceCandidate>,
}

impl<H: Host> Engine<H> {
    /// This agent's experiences for `query` and the turn's cue (see the module doc).
    pub async fn find_experiences(&self, query: &str, cue: &ExperienceCue, user_id: Option<&str>) -> Vec<ExperienceCandidate> {
        let Some(root) = experiences_root(user_id) else { return Vec::new() };
        let q = find_query(query, cue);
        let key = format!("{root}\n{q}");
        let now = self.host.now_ms();
        if let Some(last) = self.reads.last_experiences.borrow().as_ref() {
            if last.key == key && now.saturating_sub(last.at_ms) < super::SEARCH_REUSE_MS && last.at_ms <= now {
                return last.found.clone();
            }
        }
        let Ok(answer) = self.host.find(&root, &q, EXPERIENCE_POOL, &FindFilter::NONE).await else { return Vec::new() };
        let candidates = find_candidates(&answer);
        let raws = join_all(candidates.iter().map(|c| self.host.read_raw(&c.uri)).collect()).await;
        let mut found = Vec::new();
        for (mut c, raw) in candidates.into_iter().zip(raws) {
            let Ok(Some(raw)) = raw else { continue };
            let trajectories = derived_from(&raw);
            let sessions = join_all(trajectories.iter().map(|t| self.trajectory_session(t)).collect()).await;
            if !is_agents(&self.config.agent_id, &sessions) {
                continue;
            }
            let body = body_of(&raw);
            if !body.is_empty() {
                c.content = body.to_string();
            }
            found.push(c);
        }
        *self.reads.last_experiences.borrow_mut() = Some(LastExperiences { key, at_ms: now, found: found.clone() });
        found
    }

    /// The OpenViking session a trajectory came from (kept once read).
    async fn trajectory_session(&self, uri: &str) -> Option<String> {
        if let Some(s) = self.reads.trajectory_sessions.borrow().get(uri) {
            return Some(s.clone());
        }
        let raw = self.host.read_raw(uri).await.ok().flatten()?;
        let session = source_session(&raw)?;
        let mut kept = self.reads.trajectory_sessions.borrow_mut();
        if kept.len() >= TRAJECTORY_SESSIONS_KEPT {
            kept.clear();
        }
        kept.insert(uri.to_string(), session.clone());
        Some(session)
    }
}
