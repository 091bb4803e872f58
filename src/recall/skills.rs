//! Skill memory (design §8): the skills relevant to a turn, listed in the recall pair's result
//! as a labelled section — name, one-line description, uri — so the model can read one on
//! demand (`memory_expand` with the uri). No skill text is injected.
//!
//! - Where skills live (OpenViking 0.5.2): the user's `viking://user/<uid>/skills/<name>` and
//!   the account's `viking://agent/skills/<name>` — the only two skill namespaces the server
//!   has (`viking://agent` is shared by the account's agents; there is no per-agent skill
//!   folder). Those are the caller's own skill scopes; a skill uri anywhere else (another
//!   user's, `viking://agent/<other>/…`) is never listed nor read ([`is_own_skill_uri`]).
//! - The search: the skill roots join the memories' one find (`engine::read`; its answer's
//!   `skills`, a skill's name and description read from the front matter of its `SKILL.md`
//!   abstract, [`front_matter`]), or, when the memories go as two finds, one `POST
//!   /api/v1/skills/find` beside them (the server merges both roots by score). At most
//!   `skillLimit` skills are listed.
//! - Relevance: with `recallRequireQueryWord` (the default) a skill is listed only when its
//!   name or description shares a word with the query, as for memories (the server's skill
//!   search ranks every skill, however unrelated).
//! - Budget: the section goes inside the pair, after the memories, and only while the whole
//!   pair stays within `recallTokenBudget`: skills never push a memory out, a skill line that
//!   does not fit is left out.
//! - Every field is whitespace-collapsed onto one line and cut; a line starts with `- `, so no
//!   skill can forge the section's header or another entry.

use crate::message::estimate_message_tokens;
use crate::message::synthetic::{recall_call, recall_result, recall_text, synthetic_id, RecalledMemory};
use crate::recall::RecallOutcome;
use crate::address::scopes::{is_plain_segment, SCHEME};
use crate::text::{collapse_whitespace, truncate_with_ellipsis};
use serde::Serialize;
use serde_json::Value;

/// Opens the skills section in the recall pair's result.
pub const SKILLS_HEADER: &str = "Skills that may fit this turn (name — what it does — uri; read one with memory_expand on its uri before following it):";
/// The account's agent skills (shared by its agents in OpenViking 0.5.x).
pub const AGENT_SKILLS: &str = "viking://agent/skills";
/// A skill's name and description are cut to these many UTF-16 units.
const NAME_MAX: usize = 64;
const DESCRIPTION_MAX: usize = 140;

/// One skill as listed for the model, with its search score and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SkillEntry {
    pub name: String,
    pub description: String,
    /// The skill's root (`…/skills/<name>`), what `memory_expand` reads.
    pub uri: String,
    pub score: f64,
    /// Tokens its line added to the pair (0 when it did not fit).
    #[serde(default)]
    pub tokens: usize,
}

/// The caller's own skill roots: the user's (when the user id is known) and the account's.
pub fn own_skill_roots(user_id: Option<&str>) -> Vec<String> {
    let mut roots = Vec::new();
    if let Some(uid) = user_id.filter(|u| is_plain_segment(u)) {
        roots.push(format!("{SCHEME}user/{uid}/skills"));
    }
    roots.push(AGENT_SKILLS.to_string());
    roots
}

/// Is `uri` a skill (or a file in one) under the caller's own skill roots? `.`/`..`
/// segments, queries and fragments are refused.
pub fn is_own_skill_uri(uri: &str, user_id: Option<&str>) -> bool {
    if uri.contains(['?', '#', '\\']) || uri.split('/').any(|s| s == "." || s == "..") {
        return false;
    }
    own_skill_roots(user_id).iter().any(|root| {
        uri.strip_prefix(root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|rest| rest.split('/').next())
            .is_some_and(|name| is_plain_segment(name) && !name.starts_with('.'))
    })
}

/// The skill root of a hit (`…/skills/<name>/SKILL.md` or `/.abstract.md` → `…/skills/<name>`).
fn root_of(uri: &str) -> String {
    let Some(i) = uri.find("/skills/") else { return uri.trim_end_matches('/').to_string() };
    let after = &uri[i + "/skills/".len()..];
    let name = after.split('/').next().unwrap_or("");
    format!("{}/skills/{name}", &uri[..i])
}

/// The skills of a `skills/find` answer that are the caller's own, best first, each root
/// once, at most `limit`.
pub fn read_skills(answer: &Value, user_id: Option<&str>, limit: usize) -> Vec<SkillEntry> {
    let items = answer.get("skills").and_then(Value::as_array).or(answer.as_array());
    let mut out: Vec<Found> = Vec::new();
    // a skill's fields from a `skills/find` hit, or from the front matter its `SKILL.md`
    // abstract carries in a plain find's answer ("SKILL.md: --- name: … description: … ---")
    let field = |item: &Value, key: &str| -> Option<String> {
        let own = item.get(key).and_then(Value::as_str).filter(|v| !v.trim().is_empty());
        own.map(str::to_string).or_else(|| front_matter(item.get("abstract").and_then(Value::as_str)?, key))
    };
    for item in items.into_iter().flatten() {
        let hit = item.get("root_uri").or_else(|| item.get("uri")).and_then(Value::as_str).unwrap_or("");
        let uri = root_of(hit);
        if !is_own_skill_uri(&uri, user_id) {
            continue;
        }
        if let Some(seen) = out.iter_mut().find(|s| s.uri == uri) {
            // a later hit of the same skill (its SKILL.md after its folder's overview) may name it
            if let (true, Some(d)) = (seen.from_abstract, field(item, "description")) {
                seen.description = truncate_with_ellipsis(&collapse_whitespace(&d), DESCRIPTION_MAX);
                if let Some(n) = field(item, "name") {
                    seen.name = truncate_with_ellipsis(&collapse_whitespace(&n), NAME_MAX);
                }
                seen.from_abstract = false;
            }
            continue;
        }
        let fallback_name = uri.rsplit('/').next().unwrap_or("").to_string();
        let name = field(item, "name").unwrap_or(fallback_name);
        let described = field(item, "description");
        let from_abstract = described.is_none();
        let description = described.or_else(|| item.get("abstract").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
        out.push(Found {
            name: truncate_with_ellipsis(&collapse_whitespace(&name), NAME_MAX),
            description: truncate_with_ellipsis(&collapse_whitespace(&description), DESCRIPTION_MAX),
            uri,
            score: (item.get("score").and_then(Value::as_f64).unwrap_or(0.0) * 100.0).round() / 100.0,
            from_abstract,
        });
    }
    let mut out: Vec<SkillEntry> =
        out.into_iter().map(|f| SkillEntry { name: f.name, description: f.description, uri: f.uri, score: f.score, tokens: 0 }).collect();
    crate::order::sort_by(&mut out, |a, b| b.score.total_cmp(&a.score));
    out.truncate(limit);
    out
}

/// A skill as read so far: whether its description is only an abstract (not its own).
struct Found {
    name: String,
    description: String,
    uri: String,
    score: f64,
    from_abstract: bool,
}

/// The value of `key` in the front matter a skill's abstract carries (`--- name: x
/// description: y ---`, on one line or several), `None` without one.
fn front_matter(text: &str, key: &str) -> Option<String> {
    let start = text.find("---")? + 3;
    let body = &text[start..];
    let body = &body[..body.find("---").unwrap_or(body.len())];
    let keys = ["name:", "description:", "license:", "version:", "tags:", "allowed-tools:", "metadata:"];
    let at = body.match_indices(&format!("{key}:")).map(|(i, _)| i).find(|&i| i == 0 || body[..i].ends_with([' ', '\n']))?;
    let value = &body[at + key.len() + 1..];
    // up to the next key of the front matter
    let end = keys.iter().filter_map(|k| value.find(&format!(" {k}")).or_else(|| value.find(&format!("\n{k}")))).min().unwrap_or(value.len());
    let v = value[..end].trim().trim_matches(['"', '\'']).trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// Does the skill's name or description hold a word of the query (the memories' rule,
/// `recallRequireQueryWord`)? OpenViking's skill search ranks every skill, related or not.
pub fn shares_a_query_word(query: &str, s: &SkillEntry) -> bool {
    let words = crate::recall::relevance_words(query);
    let mut lower = String::new();
    crate::text::push_lowercase(&mut lower, &s.name.replace(['-', '_'], " "));
    lower.push(' ');
    crate::text::push_lowercase(&mut lower, &s.description);
    crate::recall::query_words_in(&words, &lower) != 0
}

/// A skill's line: `- name — description (uri)`.
pub fn skill_line(s: &SkillEntry) -> String {
    if s.description.is_empty() {
        format!("- {} ({})", s.name, s.uri)
    } else {
        format!("- {} — {} ({})", s.name, s.description, s.uri)
    }
}

/// The pair's result text: the memories' lines, then the skills section.
fn pair_text(memories: &[RecalledMemory], experience_lines: &[String], skills: &[&SkillEntry]) -> String {
    let mut text = recall_text(memories);
    for line in experience_lines {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    if !skills.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(SKILLS_HEADER);
        for s in skills {
            text.push('\n');
            text.push_str(&skill_line(s));
        }
    }
    text
}

/// Adds the skills section to a turn's recall (see the module doc): the pair is rebuilt with
/// the memories and as many skills as fit in the outcome's budget (a pair of skills alone when
/// no memory was injected). Returns the skills listed, each with the tokens it added; the
/// outcome's `tokens` include them.
pub fn add_skills(outcome: &mut RecallOutcome, mut skills: Vec<SkillEntry>, require_query_word: bool, now_ms: u64) -> Vec<SkillEntry> {
    let query = outcome.query.clone();
    if require_query_word {
        skills.retain(|s| shares_a_query_word(&query, s));
    }
    if skills.is_empty() {
        return Vec::new();
    }
    let call_tokens = estimate_message_tokens(&recall_call(&query, &synthetic_id(&query, &[]), now_ms));
    let cost = |listed: &[&SkillEntry]| call_tokens + estimate_message_tokens(&recall_result("", &pair_text(&outcome.memories, &outcome.experience_lines, listed), now_ms));
    let mut used = if outcome.memories.is_empty() && outcome.experience_lines.is_empty() { 0 } else { cost(&[]) };
    let mut listed: Vec<SkillEntry> = Vec::new();
    for mut s in skills {
        let mut trial: Vec<&SkillEntry> = listed.iter().collect();
        trial.push(&s);
        let t = cost(&trial);
        if t <= outcome.budget {
            s.tokens = t - used;
            used = t;
            listed.push(s);
        }
    }
    if listed.is_empty() {
        return listed;
    }
    let refs: Vec<&SkillEntry> = listed.iter().collect();
    let text = pair_text(&outcome.memories, &outcome.experience_lines, &refs);
    let uris: Vec<&str> = listed.iter().map(|s| s.uri.as_str()).collect();
    let id = synthetic_id(&format!("{query}\u{0}{}\u{0}{}", outcome.experience_lines.join("\n"), uris.join("\u{0}")), &outcome.memories);
    outcome.messages = vec![recall_call(&query, &id, now_ms), recall_result(&id, &text, now_ms)];
    outcome.tokens = used;
    listed
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::recall::{recall, RecallSettings};
    use crate::recall::candidate::SearchItem;
    use serde_json::json;

    fn answer() -> Value {
        json!({"skills": [
            {"name": "release-notes", "uri": "viking://user/alice/skills/release-notes/.abstract.md", "root_uri": "viking://user/alice/skills/release-notes", "description": "Draft release notes\nfrom the git log", "score": 0.8},
            {"name": "deploy", "uri": "viking://agent/skills/deploy/SKILL.md", "description": "Deploy to staging", "score": 0.5},
            {"name": "theirs", "uri": "viking://user/bob/skills/theirs", "description": "Bob's", "score": 0.9},
            {"name": "other-agent", "uri": "viking://agent/other/skills/x", "description": "no", "score": 0.95},
            {"name": "dup", "uri": "viking://user/alice/skills/release-notes/SKILL.md", "score": 0.4},
        ]})
    }

    #[test]
    fn only_the_callers_own_skills_are_read_best_first_each_root_once() {
        let s = read_skills(&answer(), Some("alice"), 5);
        let uris: Vec<&str> = s.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(uris, ["viking://user/alice/skills/release-notes", "viking://agent/skills/deploy"]);
        assert_eq!(s[0].description, "Draft release notes from the git log", "one line");
        // an unknown user: only the account's skills
        assert_eq!(read_skills(&answer(), None, 5).len(), 1);
        assert_eq!(read_skills(&answer(), Some("alice"), 1).len(), 1);
    }

    #[test]
    fn own_skill_uris() {
        assert!(is_own_skill_uri("viking://user/alice/skills/a", Some("alice")));
        assert!(is_own_skill_uri("viking://user/alice/skills/a/SKILL.md", Some("alice")));
        assert!(is_own_skill_uri("viking://agent/skills/a/scripts/x.sh", None));
        for bad in [
            "viking://user/bob/skills/a",
            "viking://agent/other/skills/a",
            "viking://user/alice/skills",
            "viking://user/alice/skills/../memories/x",
            "viking://user/alice/skills/.backup",
            "viking://user/alice/memories/a",
            "viking://agent/skills/a?x=1",
        ] {
            assert!(!is_own_skill_uri(bad, Some("alice")), "{bad}");
        }
        assert!(!is_own_skill_uri("viking://user/alice/skills/a", None), "the user id must be known");
    }

    fn outcome(budget: usize, memories: bool) -> RecallOutcome {
        let items = if memories {
            vec![SearchItem { uri: "viking://user/alice/memories/events/a.md".into(), level: Some(2), score: 0.9, abstract_text: "The release of 2.3 shipped on Monday".into(), overview: String::new(), category: None, malformed: None, written_ms: None }]
        } else {
            Vec::new()
        };
        let mut s = RecallSettings::from(&crate::config::Config::default());
        s.token_budget = budget;
        recall("release notes for 2.3", items, Vec::new(), &Default::default(), &s, 1)
    }

    #[test]
    fn skills_follow_the_memories_in_one_pair_within_the_budget() {
        let mut o = outcome(2000, true);
        let before = o.tokens;
        let listed = add_skills(&mut o, read_skills(&answer(), Some("alice"), 3), false, 1);
        assert_eq!(listed.len(), 2);
        let text = o.messages[1]["content"][0]["text"].as_str().unwrap().to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "- The release of 2.3 shipped on Monday");
        assert_eq!(lines[1], SKILLS_HEADER);
        assert_eq!(lines[2], "- release-notes — Draft release notes from the git log (viking://user/alice/skills/release-notes)");
        assert_eq!(o.tokens, before + listed.iter().map(|s| s.tokens).sum::<usize>());
        assert_eq!(o.tokens, estimate_message_tokens(&o.messages[0]) + estimate_message_tokens(&o.messages[1]));
        assert!(!text.contains("bob"));
    }

    #[test]
    fn with_the_query_word_rule_only_skills_that_share_a_word_are_listed() {
        let mut o = outcome(2000, true);
        let listed = add_skills(&mut o, read_skills(&answer(), Some("alice"), 3), true, 1);
        let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["release-notes"], "deploy shares no word with 'release notes for 2.3'");
    }

    #[test]
    fn a_skill_that_does_not_fit_is_left_out_and_skills_alone_make_a_pair() {
        let mut o = outcome(2000, false);
        assert!(o.messages.is_empty());
        let listed = add_skills(&mut o, read_skills(&answer(), Some("alice"), 3), false, 1);
        assert_eq!(listed.len(), 2);
        assert_eq!(o.messages.len(), 2);
        // a budget the memory fills: the memory stays, no skill is listed
        let mut tight = outcome(2000, true);
        tight.budget = tight.tokens + 5;
        let pair = tight.messages.clone();
        assert!(add_skills(&mut tight, read_skills(&answer(), Some("alice"), 3), false, 1).is_empty());
        assert_eq!(tight.messages, pair);
    }
}

#[cfg(test)]
mod find_answer_tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn skills_read_from_a_plain_find_answer_take_their_name_and_description_from_the_front_matter() {
        let answer = json!({"skills": [
            {"uri": "viking://user/alice/skills/release-notes/.overview.md", "level": 1, "score": 0.84, "abstract": "# Release notes\nRun git log between the tags."},
            {"uri": "viking://user/alice/skills/release-notes/SKILL.md", "level": 2, "score": 0.87, "abstract": "SKILL.md: --- name: release-notes description: Draft release notes from the git log between two tags --- # Release notes"},
            {"uri": "viking://user/alice/skills/.overview.md", "level": 1, "score": 0.5, "abstract": "skills"},
            {"uri": "viking://user/bob/skills/secret/SKILL.md", "level": 2, "score": 0.9, "abstract": "--- name: secret ---"},
        ]});
        let skills = read_skills(&answer, Some("alice"), 5);
        assert_eq!(skills.len(), 1, "{skills:?}");
        assert_eq!(skills[0].uri, "viking://user/alice/skills/release-notes");
        assert_eq!(skills[0].name, "release-notes");
        assert_eq!(skills[0].description, "Draft release notes from the git log between two tags");
        assert_eq!(front_matter("---\nname: x\ndescription: does y\n---\nbody", "description").as_deref(), Some("does y"));
        assert_eq!(front_matter("no front matter here", "name"), None);
    }
}
