//! One OpenViking session per OpenClaw transcript: the OpenViking session id is the agent id
//! plus OpenClaw's `sessionId`, made safe for a URI path segment. The `sessionKey` (stable
//! across `/new` and `/reset`, which bring a new `sessionId`) is kept alongside.
//!
//! Agent isolation lives here: OpenViking 0.5.x lets one agent of a user list another's
//! sessions, so the engine only ever touches sessions whose id starts with its own agent's
//! prefix ([`owns_session`]).

const MAX_ID_LEN: usize = 120;

fn fnv(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Replaces anything outside `[A-Za-z0-9_-]`; when that changed the id (or it is too long),
/// a hash of the original is appended so two different ids never collide.
pub fn safe_segment(raw: &str) -> String {
    let cleaned: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if cleaned == raw && !raw.is_empty() && raw.len() <= MAX_ID_LEN {
        return cleaned;
    }
    let keep: String = cleaned.chars().take(MAX_ID_LEN - 9).collect();
    format!("{keep}-{:08x}", fnv(raw))
}

/// The OpenViking session id of an OpenClaw session of this agent.
pub fn ov_session_id(agent_id: &str, session_id: &str) -> String {
    format!("{}--{}", safe_segment(agent_id), safe_segment(session_id))
}

/// Is this OpenViking session one of this agent's?
pub fn owns_session(agent_id: &str, ov_session_id: &str) -> bool {
    let prefix = format!("{}--", safe_segment(agent_id));
    ov_session_id.starts_with(&prefix) && ov_session_id.len() > prefix.len()
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
}
