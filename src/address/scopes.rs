//! The OpenViking URIs the engine searches, reads and writes for one agent — written once,
//! here (the plugin builds none).
//!
//! - user memories: `targetUri` if configured, else `viking://user/<uid>/memories`; while the
//!   user id is unknown (server down at start-up) the home alias `viking://~/memories`, which
//!   the server resolves to the same folder (0.5.x rejects the bare `viking://user/memories`);
//! - agent memories: this agent's own folder `viking://agent/<agentId>/memories` (the map
//!   shows the same folder). OpenViking 0.5.2 has no per-agent space: `viking://agent/…` is
//!   one namespace for the whole account, and its own extraction (agent evolution included)
//!   writes every memory under the user's space, so an agent folder holds only what was put
//!   there. The account-wide `viking://agent/memories` the legacy rules searched is shared by
//!   every agent of the account: searching it could show one agent another agent's memories,
//!   so it is never searched. An empty scope is "no agent memories";
//! - the stable profile: `<user memories>/profile.md` (under the user's own folder only);
//! - where a stored memory goes: `<user memories>/<category>/<slug>-<time>.md`.
//!
//! A user id is used only when it is one plain path segment; anything else is treated as
//! unknown, so no id from the server can point a URI somewhere else.

use serde::{Deserialize, Serialize};

pub const SCHEME: &str = "viking://";
/// The account-wide agent folder of OpenViking 0.5.x, shared by every agent of the account:
/// never searched, never deleted from (see the module doc).
pub const SHARED_AGENT_MEMORIES: &str = "viking://agent/memories";
/// The folder under the user's `resources/` where the engine keeps its own records
/// (checkpoints, per agent and session): bookkeeping, never shown as knowledge.
pub const ENGINE_RESOURCES: &str = "openviking-context-engine";
/// The home alias of the user's memories, for when the user id is not known.
pub const HOME_MEMORIES: &str = "viking://~/memories";

/// Is `s` usable as one path segment (a user id): non-empty, at most 256 characters, not
/// `.`/`..`, no `/ \ % ? #`, whitespace or control characters?
pub fn is_plain_segment(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= 256
        && s != "."
        && s != ".."
        && !s.chars().any(|c| matches!(c, '/' | '\\' | '%' | '?' | '#') || c.is_whitespace() || c.is_control())
}

/// The two memory scopes a recall searches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemoryScopes {
    pub user: String,
    pub agent: String,
}

/// The scopes for this configuration, user and agent (see the module doc; `agent_id` is a
/// checked configuration value, `config::agent_id_ok`).
pub fn memory_scopes(target_uri: Option<&str>, user_id: Option<&str>, agent_id: &str) -> MemoryScopes {
    MemoryScopes { user: user_memories(target_uri, user_id), agent: agent_owned_memories(agent_id) }
}

/// The user memory scope alone: `targetUri`, else the user's memories, else the home alias.
pub fn user_memories(target_uri: Option<&str>, user_id: Option<&str>) -> String {
    match (target_uri, user_id.filter(|u| is_plain_segment(u))) {
        (Some(t), _) => t.trim_end_matches('/').to_string(),
        (None, Some(uid)) => format!("{SCHEME}user/{uid}/memories"),
        (None, None) => HOME_MEMORIES.to_string(),
    }
}

/// `profile.md` of the user's own memories; `None` while the user id is unknown.
pub fn profile_uri(user_id: Option<&str>) -> Option<String> {
    user_id.filter(|u| is_plain_segment(u)).map(|uid| format!("{SCHEME}user/{uid}/memories/profile.md"))
}

/// Where OpenViking 0.5.2's agent evolution writes experiences: the user's own space
/// (shared by the user's agents — the engine keeps only this agent's, `recall::experience`);
/// `None` while the user id is unknown.
pub fn experiences_root(user_id: Option<&str>) -> Option<String> {
    user_id.filter(|u| is_plain_segment(u)).map(|uid| format!("{SCHEME}user/{uid}/memories/experiences"))
}

/// The user's OpenViking sessions folder; `None` while the user id is unknown.
pub fn sessions_root(user_id: Option<&str>) -> Option<String> {
    user_id.filter(|u| is_plain_segment(u)).map(|uid| format!("{SCHEME}user/{uid}/sessions"))
}

/// The agent's own agent-memory folder: the agent scope recall searches and the only
/// agent-scope place `memory_forget` may delete from ([`SHARED_AGENT_MEMORIES`] is shared by
/// the account's agents, so a delete there could remove another agent's memory: refused).
pub fn agent_owned_memories(agent_id: &str) -> String {
    format!("{SCHEME}agent/{agent_id}/memories")
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn user_scope_is_the_target_then_the_user_then_the_home_alias() {
        assert_eq!(memory_scopes(Some("viking://user/x/memories/"), Some("alice"), "main").user, "viking://user/x/memories");
        assert_eq!(memory_scopes(None, Some("alice"), "main").user, "viking://user/alice/memories");
        assert_eq!(memory_scopes(None, None, "main").user, "viking://~/memories");
        assert_eq!(memory_scopes(None, Some("alice"), "main").agent, "viking://agent/main/memories");
        assert_eq!(memory_scopes(None, None, "ops-bot").agent, "viking://agent/ops-bot/memories");
    }

    #[test]
    fn a_user_id_that_is_not_one_segment_is_never_used() {
        for bad in ["", ".", "..", "a/b", "a\\b", "a%2Fb", "a b", "a?b", "a#b", "a\u{0}b"] {
            assert_eq!(memory_scopes(None, Some(bad), "main").user, HOME_MEMORIES, "{bad:?}");
            assert_eq!(profile_uri(Some(bad)), None, "{bad:?}");
            assert_eq!(sessions_root(Some(bad)), None, "{bad:?}");
        }
        assert_eq!(profile_uri(Some("alice")).as_deref(), Some("viking://user/alice/memories/profile.md"));
    }
}
