//! The memory search of a turn, through the host: both scopes in one find (or two side by
//! side when a time window applies or the server refuses the list form), the intent's
//! narrowing with its fallback, the write times of the memories found when the present is
//! asked, the stable profile, the full texts; a successful search reused for
//! [`SEARCH_REUSE_MS`] (see `read` for the turn around it).

use super::Engine;
use crate::address::scopes::{memory_scopes, profile_uri, MemoryScopes};
use crate::host::join::{join2, join_all};
use crate::host::{FindFilter, Host, HostErrorKind, HostResult};
use crate::openviking::probe::{classify, Reachability};
use crate::recall::combined_find;
use crate::recall::intent::RecallIntent;
use crate::recall::lexical;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// How long a search is reused for the same query, limit and scopes (one turn's assembles).
pub const SEARCH_REUSE_MS: u64 = 10_000;

/// Find slots asked for per listed skill when the skills share the memories' find (a skill
/// answers with its `SKILL.md` and its folder's overview).
pub const SKILL_HITS_PER_SKILL: usize = 2;

/// The most memory folders listed per search for their write times, and files per listing.
pub const WRITTEN_FOLDERS: usize = 4;
pub const WRITTEN_NODES: usize = 1000;

/// Both scopes' raw find results for one search.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub user: Value,
    pub agent: Value,
    /// Why a scope failed, one line each.
    pub failed: Vec<String>,
    /// What the first failure says about reaching OpenViking (the key refused, a local
    /// server still starting, unreachable, failing).
    pub problem: Option<Reachability>,
    /// The intent's narrowed or windowed user-scope find found no memory, so the whole
    /// user scope was searched again.
    pub fell_back: bool,
    /// The skills the same find answered (its `skills` list), when the caller's skill roots
    /// were searched with the memories: one query embedding for both.
    pub skills: Option<Value>,
}

/// How the intent narrows the user scope's find: the folder searched (the scope itself when
/// nothing is narrowed) and its filter. `None` when it changes nothing.
pub(super) fn narrowing(intent: Option<&RecallIntent>, user_scope: &str) -> Option<(String, FindFilter)> {
    let intent = intent?;
    let filter = FindFilter { since: intent.window.as_ref().map(|w| w.since()) };
    // a folder only under a memory scope (a configured targetUri elsewhere is searched whole)
    let target = match &intent.narrowed_to {
        Some(folder) if user_scope.ends_with("/memories") => format!("{user_scope}/{folder}"),
        _ => user_scope.to_string(),
    };
    (target != user_scope || filter.since.is_some()).then_some((target, filter))
}

/// Whether a find answer holds at least one memory (a level-2 item).
fn has_memory(v: &Value) -> bool {
    let items = v.get("memories").and_then(Value::as_array).or(v.as_array());
    items.is_some_and(|a| a.iter().any(|m| m.get("level").and_then(Value::as_f64) == Some(2.0)))
}

pub(super) struct LastSearch {
    pub(super) key: String,
    pub(super) at_ms: u64,
    pub(super) search: Search,
}


fn search_key(query: &str, limit: usize, scopes: &MemoryScopes, narrowed: Option<&(String, FindFilter)>) -> String {
    let (target, since) = narrowed.map_or((None, None), |(t, f)| (Some(t.as_str()), f.since.as_deref()));
    json!([query, limit, scopes.user, scopes.agent, target, since]).to_string()
}

impl<H: Host> Engine<H> {
    /// The memory scopes of this agent's user (the home alias while the user is unknown).
    pub async fn memory_scopes(&self) -> MemoryScopes {
        let uid = self.resolve_user().await;
        memory_scopes(self.config.target_uri.as_deref(), uid.as_deref(), &self.config.agent_id)
    }

    /// Drops the reusable search (after a memory was stored or deleted).
    pub fn forget_search(&self) {
        *self.reads.last_search.borrow_mut() = None;
    }

    /// Both scopes searched for `query` (see the module doc); the user scope narrowed by the
    /// turn's intent when it names a folder or a window, and searched whole again when that
    /// narrowed find holds no memory.
    ///
    /// `skill_roots`: folders of skills to search in the same find (the turn's skills section),
    /// when it is one find; their hits come back in [`Search::skills`].
    pub async fn search(&self, query: &str, limit: usize, scopes: &MemoryScopes, intent: Option<&RecallIntent>, skill_roots: &[String]) -> Search {
        let narrowed = narrowing(intent, &scopes.user);
        let key = format!("{}{}", search_key(query, limit, scopes, narrowed.as_ref()), skill_roots.join(","));
        let now = self.host.now_ms();
        if let Some(last) = self.reads.last_search.borrow().as_ref() {
            if last.key == key && now.saturating_sub(last.at_ms) < SEARCH_REUSE_MS && last.at_ms <= now {
                return last.search.clone();
            }
        }
        let (user_target, user_filter) = narrowed.clone().unwrap_or_else(|| (scopes.user.clone(), FindFilter::NONE));
        let mut search = Search::default();
        let finds = async {
            match self.find_both(&user_target, &user_filter, &scopes.agent, query, limit, skill_roots).await {
                Some((user, agent, skills)) => (user, agent, skills),
                None => {
                    let (user, agent) = join2(self.host.find(&user_target, query, limit, &user_filter), self.host.find(&scopes.agent, query, limit, &FindFilter::NONE)).await;
                    (user, agent.map(|a| combined_find::agent_answer(&a, &scopes.agent, limit)), None)
                }
            }
        };
        // the lexical candidates' grep beside the finds (not within a time window: a grep
        // has no `since`)
        let terms = if self.config.recall_lexical && user_filter.since.is_none() { lexical::terms(query) } else { Vec::new() };
        let pattern = lexical::pattern(&terms);
        let grep = async {
            match &pattern {
                Some(p) => Some(self.host.grep(&user_target, p).await),
                None => None,
            }
        };
        let ((mut user, agent, skills), grepped) = join2(finds, grep).await;
        search.skills = skills;
        // a wrong guess costs one find, never the evidence (a folder that does not exist yet
        // answers NOT_FOUND, a server without `since` refuses the request: a miss too, not a
        // failed scope)
        let missed = match &user {
            Ok(v) => !has_memory(v),
            Err(e) => matches!(e.kind, HostErrorKind::NotFound | HostErrorKind::Rejected),
        };
        if narrowed.is_some() && missed {
            search.fell_back = true;
            user = self.host.find(&scopes.user, query, limit, &FindFilter::NONE).await;
        }
        // an answer the pipeline cannot read counts as that scope failing, not as bad input
        let readable = |path: &str, r: crate::host::HostResult<Value>| match r {
            Ok(v) => match crate::recall::candidate::check_search_result(path, Some(&v)) {
                Ok(_) => Ok(v),
                Err(e) => Err((HostErrorKind::BadResponse, e.message.clone(), e.message)),
            },
            Err(e) => Err((e.kind, e.to_string(), e.message)),
        };
        let local = self.local_server();
        for (path, what, answer) in [("search.user", "user memories", user), ("search.agent", "agent memories", agent)] {
            match readable(path, answer) {
                Ok(mut v) if path == "search.user" => {
                    // a grep that failed costs its candidates only
                    if let Some(Ok(g)) = &grepped {
                        lexical::fuse(&mut v, &lexical::hits(g, &terms), lexical::FUSED);
                    }
                    search.user = v;
                }
                Ok(v) => search.agent = v,
                Err((kind, shown, message)) => {
                    if search.problem.is_none() {
                        search.problem = Some(classify(kind, &message, &self.config, &local));
                    }
                    search.failed.push(format!("{what}: {shown}"));
                }
            }
        }
        // write times matter only where an older version is cut: a question about the present
        if crate::recall::rank::profile_query(query).wants_recent {
            self.add_written_times(&mut search).await;
        }
        // one warning per outage and cause (a key refused, then a server down, warns twice)
        const CAUSES: [&str; 4] = ["key_refused", "server_starting", "unreachable", "server_error"];
        match (&search.problem, search.failed.len()) {
            (Some(p), 2) => {
                for c in CAUSES.iter().filter(|c| **c != p.state) {
                    self.outage_over(&format!("recall:{c}"));
                }
                let fix = p.fix.as_deref().map(|f| format!(" — fix: {f}")).unwrap_or_default();
                self.warn_once(&format!("recall:{}", p.state), &format!("recall skipped: {}{fix}", p.message));
            }
            _ => CAUSES.iter().for_each(|c| self.outage_over(&format!("recall:{c}"))),
        }
        *self.reads.last_search.borrow_mut() = if search.failed.is_empty() { Some(LastSearch { key, at_ms: now, search: search.clone() }) } else { None };
        search
    }

    /// When each found memory was written (asked only when the question is about the present,
    /// where an older version is cut): the folders holding them listed (newest first, at
    /// most [`WRITTEN_FOLDERS`] folders of [`WRITTEN_NODES`] files each, in parallel) and each
    /// item given its `written_at`, so that recall puts the newest version of a fact first
    /// (`recall::cover`). A listing that fails leaves its items without a time.
    async fn add_written_times(&self, search: &mut Search) {
        let folders = crate::recall::candidate::memory_folders(&[&search.user, &search.agent], WRITTEN_FOLDERS);
        if folders.is_empty() {
            return;
        }
        let listed = join_all(folders.iter().map(|f| self.host.written_times(f, WRITTEN_NODES)).collect()).await;
        let times: std::collections::HashMap<String, u64> = listed.into_iter().filter_map(|r| r.ok().flatten()).flatten().collect();
        if !times.is_empty() {
            crate::recall::candidate::add_written_times(&mut search.user, &times);
            crate::recall::candidate::add_written_times(&mut search.agent, &times);
        }
    }

    /// Both scopes in one find (`Host::find_in`, see [`combined_find`]); `None` when they
    /// must go as two: a `since` filter (it would apply to the agent scope too), a scope
    /// outside the user's and the agent's spaces, a server that refused the list form
    /// before, or a combined answer that refuses or cannot be split (then each scope's own
    /// find says which failed). A server down or silent fails both scopes at once, as two
    /// finds would, without asking again.
    async fn find_both(&self, user: &str, filter: &FindFilter, agent: &str, query: &str, limit: usize, skill_roots: &[String]) -> Option<(HostResult<Value>, HostResult<Value>, Option<Value>)> {
        if !self.one_find(user, filter, agent) {
            return None;
        }
        let mut targets = vec![user, agent];
        targets.extend(skill_roots.iter().map(String::as_str));
        // the server ranks every folder's items under one limit: the skills' share on top
        let skill_slots = if skill_roots.is_empty() { 0 } else { self.config.skill_limit * SKILL_HITS_PER_SKILL };
        match self.host.find_in(&targets, query, limit * 2 + skill_slots).await {
            Ok(answer) => {
                let skills = (!skill_roots.is_empty()).then(|| json!({ "skills": answer.get("skills").cloned().unwrap_or(json!([])) }));
                combined_find::split(&answer, agent, limit).map(|(u, a)| (Ok(u), Ok(a), skills))
            }
            Err(e) if matches!(e.kind, HostErrorKind::Unreachable | HostErrorKind::Timeout | HostErrorKind::Denied) => Some((Err(e.clone()), Err(e), None)),
            Err(e) => {
                if e.kind == HostErrorKind::Rejected {
                    self.reads.combined_find_refused.set(true);
                }
                None
            }
        }
    }

    /// Whether the scopes go as one find (see [`Self::find_both`]).
    pub(super) fn one_find(&self, user: &str, filter: &FindFilter, agent: &str) -> bool {
        filter.since.is_none() && !self.reads.combined_find_refused.get() && combined_find::fits(user, agent)
    }

    /// The stable profile `{uri, text}`, read once per process (see the module doc).
    pub async fn stable_profile(&self, user_id: Option<&str>) -> Option<(String, String)> {
        if let Some(p) = self.reads.profile.borrow().as_ref() {
            return p.clone();
        }
        let key = format!("profile/{}", self.config.agent_id);
        let kept = || async {
            let v = self.host.load_state(&key).await.ok().flatten()?;
            let uri = v.get("uri")?.as_str()?.to_string();
            let text = v.get("text")?.as_str()?.trim().to_string();
            (!text.is_empty()).then_some((uri, text))
        };
        let Some(uri) = profile_uri(user_id) else {
            return kept().await; // not cached: the user may become known later
        };
        let profile = match self.host.read_content(&uri).await {
            Ok(text) => {
                let p = text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).map(|t| (uri, t));
                let doc = p.as_ref().map_or(Value::Null, |(u, t)| json!({ "uri": u, "text": t }));
                // kept for a turn that cannot read it; written only when it changed
                if self.host.load_state(&key).await.ok().flatten().unwrap_or(Value::Null) != doc {
                    let _ = self.host.save_cache(&key, doc).await;
                }
                p
            }
            Err(e) if e.kind == HostErrorKind::NotFound => None,
            Err(_) => kept().await,
        };
        *self.reads.profile.borrow_mut() = Some(profile.clone());
        profile
    }

    /// Reads the full texts the pipeline asked for (unreadable ones are left out: the
    /// pipeline then falls back to the abstract, then the uri).
    pub(super) async fn read_contents(&self, uris: &[String]) -> BTreeMap<String, String> {
        let reads = uris.iter().map(|u| self.host.read_content(u)).collect();
        let texts = join_all(reads).await;
        uris.iter().zip(texts).filter_map(|(u, t)| Some((u.clone(), t.ok().flatten()?))).collect()
    }
}
