//! Both memory scopes in one `find` (OpenViking 0.5.x takes a list of folders as
//! `target_uri`): one query embedding and one vector search per turn instead of two — and how
//! each scope's items are read out of a find answer.
//!
//! - The server ranks the folders' items together under one `limit`, so the request asks for
//!   twice the per-scope pool and the answer is split back by where each item lives: the
//!   user's space (`viking://user/…`) and this agent's own folder (the agent scope), each in
//!   the server's order, each cut to the pool size. A memory the separate finds would have
//!   returned and the combined one does not scored below twice the pool of the other scope's
//!   items; the pipeline injects at most `recallLimit` (6) of the pool.
//! - OpenViking 0.5.2 files everything under `viking://agent/…` as a *resource* (its
//!   `context_type` follows the namespace), so an agent folder's files come back in the
//!   answer's `resources`, never its `memories`: the agent scope's items are read from both
//!   lists ([`agent_answer`]), and only those inside this agent's folder — never another
//!   agent's, whatever the server returned.
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

/// In the user's space and not in its skills (`viking://user/<uid>/skills/…`, searched in the
/// same find for the turn's skills: a hit there is never a memory, whichever list it comes in).
fn is_user_memory_space(uri: &str) -> bool {
    uri.strip_prefix(USER_SPACE).is_some_and(|rest| rest.split('/').nth(1) != Some("skills"))
}

/// A combined answer split into the user scope's and the agent scope's answers
/// (`{memories: [...]}` each, server order kept, at most `limit` each); `None` when the answer
/// holds no list of memories. User items are the `memories` in the user's space; agent items
/// those of [`agent_answer`]. Any other item is dropped.
pub fn split(answer: &Value, agent_scope: &str, limit: usize) -> Option<(Value, Value)> {
    let memories = match answer {
        Value::Object(o) => o.get("memories")?.as_array()?,
        Value::Array(a) => a,
        _ => return None,
    };
    let user: Vec<Value> = memories.iter().filter(|i| uri_of(i).is_some_and(is_user_memory_space)).take(limit).cloned().collect();
    Some((json!({ "memories": user }), agent_answer(answer, agent_scope, limit)))
}

/// The agent scope's items of a find answer as `{memories: [...]}`: its `memories`, then its
/// `resources` (where 0.5.2 files `viking://agent/…`), each item inside `agent_scope` only,
/// first of each uri, at most `limit`. An answer of another shape is returned unchanged (the
/// pipeline's reader judges it).
pub fn agent_answer(answer: &Value, agent_scope: &str, limit: usize) -> Value {
    let lists: Vec<&Vec<Value>> = match answer {
        Value::Object(o) => {
            let list = |k: &str| o.get(k).and_then(Value::as_array);
            if o.get("memories").is_some_and(|m| !m.is_array()) {
                return answer.clone();
            }
            [list("memories"), list("resources")].into_iter().flatten().collect()
        }
        Value::Array(a) => vec![a],
        _ => return answer.clone(),
    };
    let folder = format!("{}/", agent_scope.trim_end_matches('/'));
    let mut seen = std::collections::HashSet::new();
    let items: Vec<Value> = lists
        .into_iter()
        .flatten()
        .filter(|i| uri_of(i).is_some_and(|u| u.starts_with(&folder) && seen.insert(u.to_string())))
        .take(limit)
        .cloned()
        .collect();
    json!({ "memories": items })
}

fn uri_of(item: &Value) -> Option<&str> {
    item.get("uri").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn only_the_users_and_the_agents_spaces_are_combined() {
        assert!(fits("viking://user/alice/memories", "viking://agent/main/memories"));
        assert!(fits("viking://user/alice/memories/events", "viking://agent/main/memories"));
        assert!(fits("viking://~/memories", "viking://agent/main/memories"));
        assert!(!fits("viking://resources/team-notes", "viking://agent/main/memories"));
        assert!(!fits("viking://user/alice/memories", "viking://resources/x"));
    }

    #[test]
    fn an_answer_is_split_by_space_in_order_and_cut_to_the_pool() {
        let m = |uri: &str, score: f64| json!({ "uri": uri, "level": 2, "score": score });
        let answer = json!({ "memories": [
            m("viking://user/alice/memories/a.md", 0.9),
            m("viking://user/alice/skills/release-notes/SKILL.md", 0.85),
            m("viking://agent/main/memories/cases/c.md", 0.8),
            m("viking://user/alice/memories/b.md", 0.7),
            m("viking://resources/elsewhere.md", 0.65),
            json!({ "level": 2, "score": 0.6 }),
            m("viking://user/alice/memories/c.md", 0.5),
        ], "resources": [], "skills": [] });
        let (user, agent) = split(&answer, "viking://agent/main/memories", 2).unwrap();
        assert_eq!(uris(&user), ["viking://user/alice/memories/a.md", "viking://user/alice/memories/b.md"]);
        assert_eq!(uris(&agent), ["viking://agent/main/memories/cases/c.md"]);
        assert!(split(&json!({ "memories": 5 }), "viking://agent/main/memories", 2).is_none());
        assert!(split(&json!("text"), "viking://agent/main/memories", 2).is_none());
        assert_eq!(split(&json!([]), "viking://agent/main/memories", 2).unwrap().0, json!({ "memories": [] }));
    }

    #[test]
    fn the_agent_scope_is_read_from_resources_too_and_never_outside_its_folder() {
        // 0.5.2 answers files under viking://agent/… as resources
        let r = |uri: &str, level: u8| json!({ "context_type": "resource", "uri": uri, "level": level, "score": 0.8 });
        let answer = json!({ "memories": [], "resources": [
            r("viking://agent/main/memories/cases/.abstract.md", 0),
            r("viking://agent/main/memories/cases/restart.md", 2),
            r("viking://agent/main/memories-old/x.md", 2),
            r("viking://agent/other/memories/cases/secret.md", 2),
            r("viking://agent/memories/cases/shared.md", 2),
            r("viking://agent/main/memories/cases/restart.md", 2),
        ] });
        let agent = agent_answer(&answer, "viking://agent/main/memories", 10);
        assert_eq!(uris(&agent), ["viking://agent/main/memories/cases/.abstract.md", "viking://agent/main/memories/cases/restart.md"]);
        let (_, split_agent) = split(&answer, "viking://agent/main/memories/", 1).unwrap();
        assert_eq!(uris(&split_agent), ["viking://agent/main/memories/cases/.abstract.md"], "cut to the pool");
        // a shape the reader must judge is passed through
        assert_eq!(agent_answer(&json!({ "memories": "x" }), "viking://agent/main/memories", 5), json!({ "memories": "x" }));
        assert_eq!(agent_answer(&json!(7), "viking://agent/main/memories", 5), json!(7));
    }

    fn uris(v: &Value) -> Vec<String> {
        v["memories"].as_array().unwrap().iter().map(|i| i["uri"].as_str().unwrap().to_string()).collect()
    }
}
