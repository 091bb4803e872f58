//! One OpenViking session per OpenClaw transcript: the OpenViking session id is the agent's
//! segment, `--`, and OpenClaw's `sessionId` made safe for a URI path segment. The
//! `sessionKey` (stable across `/new` and `/reset`, which bring a new `sessionId`) is kept
//! alongside.
//!
//! Agent isolation lives here, by structure: OpenViking 0.5.x lets one agent of a user list
//! another's sessions, so the engine only touches sessions it can *parse* as its own agent's
//! ([`owns_session`]). The encoding is injective — the agent segment never contains `--` and
//! never ends with `-`, so the first `--` always separates agent from session:
//! - a plain agent id (`[A-Za-z0-9]`, then `[A-Za-z0-9_-]`, no `--`, no trailing `-`) is its
//!   own segment (`main`, `work-bot`), unchanged from earlier releases;
//! - any other (`main-`, `main--x`, `my.agent`) is `_` followed by its characters with
//!   everything outside `[A-Za-z0-9]` escaped as `_xx` (hex): `_main_2d`, `_main_2d_2dx`,
//!   `_my_2eagent`. It starts with `_`, which a plain id never does.

const MAX_ID_LEN: usize = 120;

fn fnv(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn is_segment_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Replaces anything outside `[A-Za-z0-9_-]`; when that changed the id (or it is too long),
/// a hash of the original is appended so two different ids never collide.
pub fn safe_segment(raw: &str) -> String {
    let cleaned: String = raw.chars().map(|c| if is_segment_char(c) { c } else { '_' }).collect();
    if cleaned == raw && !raw.is_empty() && raw.len() <= MAX_ID_LEN {
        return cleaned;
    }
    let keep: String = cleaned.chars().take(MAX_ID_LEN - 9).collect();
    format!("{keep}-{:08x}", fnv(raw))
}

fn is_plain_agent(agent_id: &str) -> bool {
    agent_id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && agent_id.chars().all(is_segment_char)
        && !agent_id.contains("--")
        && !agent_id.ends_with('-')
}

/// The agent's segment of its session ids (see the module doc); injective.
pub fn agent_segment(agent_id: &str) -> String {
    if is_plain_agent(agent_id) {
        return agent_id.to_string();
    }
    let mut out = String::with_capacity(agent_id.len() * 2 + 1);
    out.push('_');
    for b in agent_id.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(b as char);
        } else {
            out.push_str(&format!("_{b:02x}"));
        }
    }
    out
}

/// The agent an OpenClaw session key names (`agent:<agentId>:<rest>`), when its id follows
/// the plugin's rule (`config::is_agent_id`).
pub fn agent_from_session_key(session_key: &str) -> Option<&str> {
    let (agent, _) = session_key.strip_prefix("agent:")?.split_once(':')?;
    crate::config::is_agent_id(agent).then_some(agent)
}

/// The OpenViking session id of an OpenClaw session of this agent.
pub fn ov_session_id(agent_id: &str, session_id: &str) -> String {
    format!("{}--{}", agent_segment(agent_id), safe_segment(session_id))
}

/// An OpenViking session id split into (agent segment, session segment) at the first `--`;
/// `None` unless both are non-empty and made of `[A-Za-z0-9_-]` only.
pub fn parse_ov_session_id(id: &str) -> Option<(&str, &str)> {
    let (agent, session) = id.split_once("--")?;
    let ok = |s: &str| !s.is_empty() && s.chars().all(is_segment_char);
    (ok(agent) && ok(session)).then_some((agent, session))
}

/// Is this OpenViking session one of this agent's? Decided on the parsed id, never on a
/// string prefix.
pub fn owns_session(agent_id: &str, ov_session_id: &str) -> bool {
    parse_ov_session_id(ov_session_id).is_some_and(|(agent, _)| agent == agent_segment(agent_id))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn ids_are_safe_stable_and_agent_scoped() {
        assert_eq!(ov_session_id("main", "abc-123"), "main--abc-123");
        let odd = ov_session_id("main", "../x y");
        assert!(odd.starts_with("main--___x_y-"));
        assert_ne!(ov_session_id("main", "a/b"), ov_session_id("main", "a_b"));
        assert!(owns_session("main", "main--abc"));
        assert!(!owns_session("main", "mainx--abc"));
        assert!(!owns_session("main", "other--abc"));
        assert!(!owns_session("ma", "main--abc"));
        assert!(ov_session_id("a", &"x".repeat(500)).len() <= 125);
    }

    #[test]
    fn look_alike_agents_never_own_each_others_sessions() {
        let agents = ["main", "main-", "main--x", "main-x", "main.x", "main_x", "_main_2d", "m", "main---"];
        let ids: Vec<(usize, String)> =
            agents.iter().enumerate().flat_map(|(i, a)| ["s", "-s", "x--y", "--", "a/b"].iter().map(move |s| (i, ov_session_id(a, s)))).collect();
        for (i, a) in agents.iter().enumerate() {
            for (owner, id) in &ids {
                assert_eq!(owns_session(a, id), *owner == i, "agent {a:?} vs session {id:?}");
            }
        }
        assert_eq!(ov_session_id("main-", "s"), "_main_2d--s");
        assert_eq!(ov_session_id("main--x", "s"), "_main_2d_2dx--s");
        assert_eq!(ov_session_id("work-bot", "s"), "work-bot--s", "plain ids keep their earlier form");
        for bad in ["main--", "--s", "main--s/../other--t", "main--s x", "main"] {
            assert!(!owns_session("main", bad), "{bad}");
        }
    }

    #[test]
    fn the_agent_of_a_session_key() {
        assert_eq!(agent_from_session_key("agent:main:cli:1"), Some("main"));
        assert_eq!(agent_from_session_key("agent:a.b-c_9:x"), Some("a.b-c_9"));
        for no in ["agent:main", "agent::x", "agent:a b:x", "main:x", "", &format!("agent:{}:x", "a".repeat(129))] {
            assert_eq!(agent_from_session_key(no), None, "{no}");
        }
    }
}
