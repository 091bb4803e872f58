//! Both memory scopes in one `find` (OpenViking 0.5.x takes a list of folders as
//! `target_uri`): one query embedding and one vector search per turn instead of two.
//!
//! - The server ranks the folders' memories together under one `limit`, so the request asks
//!   for twice the per-scope pool and the answer is split back by where each memory lives: the
//!   user's space (`viking://user/…`) and the agent space (`viking://agent/…`), each in the
//!   server's order, each cut to the pool size. A memory the separate finds would have
//!   returned and the combined one does not scored below twice the pool of the other scope's
//!   memories; the pipeline injects at most `recallLimit` (6) of the pool.
//! - Only scopes the split can tell apart are combined ([`fits`]): the user scope under the
//!   user's space (or the home alias), the agent scope under the agent space. A configured
//!   `targetUri` elsewhere is searched on its own.
//! - The caller (`engine::read`) sends two finds instead when a `since` window applies (it
//!   would narrow the agent scope too), when the server refused the list form once, and when
//!   a combined answer refuses or cannot be split (each scope's own find then says which one
//!   failed).

use serde_json::{json, Value};

const USER_SPACE: &str = "viking://user/";
const HOME_ALIAS: &str = "viking://~/";
const AGENT_SPACE: &str = "viking://agent/";

/// Can the user scope `user` and the agent scope `agent` share one find?
pub fn fits(user: &str, agent: &str) -> bool {
    (user.starts_with(USER_SPACE) || user.starts_with(HOME_ALIAS)) && agent.starts_with(AGENT_SPACE)
}

/// A combined answer split into the user scope's and the agent scope's answers
/// (`{memories: [...]}` each, server order kept, at most `limit` each); `None` when the answer
/// holds no list of memories. Items that name neither space are dropped.
pub fn split(answer: &Value, limit: usize) -> Option<(Value, Value)> {
    let items = match answer {
        Value::Object(o) => o.get("memories")?.as_array()?,
        Value::Array(a) => a,
        _ => return None,
    };
    let (mut user, mut agent) = (Vec::new(), Vec::new());
    for item in items {
        match item.get("uri").and_then(Value::as_str) {
            Some(u) if u.starts_with(USER_SPACE) && user.len() < limit => user.push(item.clone()),
            Some(u) if u.starts_with(AGENT_SPACE) && agent.len() < limit => agent.push(item.clone()),
            _ => {}
        }
    }
    Some((json!({ "memories": user }), json!({ "memories": agent })))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn only_the_users_and_the_agents_spaces_are_combined() {
        assert!(fits("viking://user/alice/memories", "viking://agent/memories"));
        assert!(fits("viking://user/alice/memories/events", "viking://agent/memories"));
        assert!(fits("viking://~/memories", "viking://agent/memories"));
        assert!(!fits("viking://resources/team-notes", "viking://agent/memories"));
        assert!(!fits("viking://user/alice/memories", "viking://resources/x"));
    }

    #[test]
    fn an_answer_is_split_by_space_in_order_and_cut_to_the_pool() {
        let m = |uri: &str, score: f64| json!({ "uri": uri, "level": 2, "score": score });
        let answer = json!({ "memories": [
            m("viking://user/alice/memories/a.md", 0.9),
            m("viking://agent/x/memories/cases/c.md", 0.8),
            m("viking://user/alice/memories/b.md", 0.7),
            m("viking://resources/elsewhere.md", 0.65),
            json!({ "level": 2, "score": 0.6 }),
            m("viking://user/alice/memories/c.md", 0.5),
        ], "resources": [], "skills": [] });
        let (user, agent) = split(&answer, 2).unwrap();
        let uris = |v: &Value| v["memories"].as_array().unwrap().iter().map(|i| i["uri"].as_str().unwrap().to_string()).collect::<Vec<_>>();
        assert_eq!(uris(&user), ["viking://user/alice/memories/a.md", "viking://user/alice/memories/b.md"]);
        assert_eq!(uris(&agent), ["viking://agent/x/memories/cases/c.md"]);
        assert!(split(&json!({ "memories": 5 }), 2).is_none());
        assert!(split(&json!("text"), 2).is_none());
        assert_eq!(split(&json!([]), 2).unwrap().0, json!({ "memories": [] }));
    }
}
