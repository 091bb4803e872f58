//! The in-memory OpenViking: every operation of the `OpenViking` trait over the shared
//! [`World`](super::World), behaving as OpenViking 0.5.2 does where the engine depends on it
//! (sessions, archives on commit, tasks, the privacy pass's text limits, tool-output
//! externalization, files, finds, trees) and failing as told (`down`, `fail_next`, `fail_op`).

use super::*;

impl OpenViking for FakeHost {
    async fn session_meta(&self, id: &str) -> HostResult<Option<SessionMeta>> {
        self.ov("session_meta")?;
        let w = self.0.borrow();
        Ok(w.sessions.get(id).map(|s| SessionMeta { message_count: s.live.len() as u64, commit_count: s.archives.len() as u64, pending_tokens: 0 }))
    }
    async fn create_session(&self, id: &str, policy: Value) -> HostResult<()> {
        self.ov("create_session")?;
        let mut w = self.0.borrow_mut();
        if w.sessions.contains_key(id) {
            return Err(HostError::new(HostErrorKind::Conflict, "ALREADY_EXISTS"));
        }
        w.sessions.insert(id.to_string(), FakeSession { policy, ..Default::default() });
        Ok(())
    }
    async fn add_messages(&self, id: &str, messages: Vec<Value>) -> HostResult<Option<u64>> {
        let late = self.0.borrow_mut().land_late_ms.take();
        if let Some(ms) = late {
            self.ov("add_messages")?;
            let mut w = self.0.borrow_mut();
            let at = w.now + ms;
            w.landing.push((at, id.to_string(), messages));
            w.calls.push("add_messages (answer lost, lands later)".into());
            return Err(HostError::new(HostErrorKind::Timeout, "add_messages: on its way, answer lost"));
        }
        let lost_answer = self.0.borrow_mut().lose_next_answer.take();
        if lost_answer.is_none() {
            self.ov("add_messages")?;
        }
        // as OpenViking 0.5.2's privacy pass does: a text over 4 MiB characters, or 16 MiB in
        // all, and the batch is refused
        let texts: Vec<usize> = messages.iter().flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default()).flat_map(|p| [p["text"].as_str().map(|t| t.chars().count()), p["tool_output"].as_str().map(|t| t.chars().count())]).flatten().collect();
        if texts.iter().any(|n| *n > 4 * 1024 * 1024) || texts.iter().sum::<usize>() > 16 * 1024 * 1024 {
            return Err(HostError::new(HostErrorKind::Rejected, "HTTP 400 INVALID_ARGUMENT: Session privacy text limit exceeded"));
        }
        let mut w = self.0.borrow_mut();
        let mut messages = messages;
        // as OpenViking 0.5.2 does when a message is added: an oversized tool output goes to
        // the session's tool-results store, the stored part keeps a preview and its reference
        for p in messages.iter_mut().filter_map(|m| m.get_mut("parts")?.as_array_mut()).flatten() {
            let out = p.get("tool_output").and_then(Value::as_str).unwrap_or("").to_string();
            if p.get("type").and_then(Value::as_str) == Some("tool") && out.chars().count() > TOOL_OUTPUT_THRESHOLD_CHARS {
                let sha = openviking_context_engine::text::sha256::sha256_hex(out.as_bytes());
                let trid = format!("tr_{}_{}", p["tool_id"].as_str().unwrap_or(""), &sha[..16]);
                p["tool_output"] = Value::String(format!("[OpenViking tool result externalized]\n{}", out.chars().take(200).collect::<String>()));
                p["tool_output_ref"] = Value::String(format!("viking://user/alice/sessions/{id}/tool-results/{trid}"));
                p["tool_output_sha256"] = Value::String(sha);
                w.tool_results.insert((id.to_string(), trid), out);
            }
        }
        let s = w.sessions.get_mut(id).ok_or_else(|| HostError::new(HostErrorKind::NotFound, "no session"))?;
        s.live.extend(messages);
        if let Some(k) = lost_answer {
            // the server stored them, but the answer never arrived (timeout, reset)
            w.calls.push("add_messages (answer lost)".into());
            return Err(HostError::new(k, "add_messages: applied, answer lost"));
        }
        Ok(Some(s.live.len() as u64))
    }
    async fn list_sessions(&self) -> HostResult<Vec<String>> {
        self.ov("list_sessions")?;
        Ok(self.0.borrow().sessions.keys().cloned().collect())
    }
    async fn live_messages(&self, id: &str) -> HostResult<Vec<Value>> {
        self.ov("live_messages")?;
        let w = self.0.borrow();
        Ok(w.sessions.get(id).map(|s| s.live.clone()).unwrap_or_default())
    }
    async fn commit(&self, id: &str, _body: Value) -> HostResult<CommitAnswer> {
        self.ov("commit")?;
        let mut w = self.0.borrow_mut();
        let polls = w.task_polls;
        let fails = w.fail_tasks;
        let s = w.sessions.get_mut(id).ok_or_else(|| HostError::new(HostErrorKind::NotFound, "no session"))?;
        if s.live.is_empty() {
            return Ok(CommitAnswer::Skipped { reason: "no_messages".into() });
        }
        let live = std::mem::take(&mut s.live);
        s.archives.push(live);
        let n = s.archives.len();
        let archive_uri = format!("viking://user/alice/sessions/{id}/history/archive_{n:03}");
        let task_id = format!("task-{id}-{n}");
        let diff_uri = format!("{archive_uri}/memory_diff.json");
        w.files.insert(diff_uri.clone(), json!({"operations": {"adds": [{"uri": format!("viking://user/alice/memories/events/{id}-{n}.md")}], "updates": [], "deletes": []}}));
        w.tasks.insert(task_id.clone(), (polls, json!({"archive_uri": archive_uri, "memory_diff_uri": diff_uri}), fails));
        Ok(CommitAnswer::Accepted { task_id, archive_uri })
    }
    async fn task(&self, task_id: &str) -> HostResult<TaskAnswer> {
        self.ov("task")?;
        let mut w = self.0.borrow_mut();
        let t = w.tasks.get_mut(task_id).ok_or_else(|| HostError::new(HostErrorKind::NotFound, "no task"))?;
        if t.0 > 0 {
            t.0 -= 1;
            return Ok(TaskAnswer::Running);
        }
        if t.2 {
            return Ok(TaskAnswer::Failed { error: "parse_error".into() });
        }
        Ok(TaskAnswer::Completed { result: t.1.clone() })
    }
    async fn tool_result(&self, id: &str, tool_result_id: &str) -> HostResult<Option<String>> {
        self.ov("tool_result")?;
        Ok(self.0.borrow().tool_results.get(&(id.to_string(), tool_result_id.to_string())).cloned())
    }
    async fn archive(&self, id: &str, archive_id: &str) -> HostResult<Value> {
        self.ov("archive")?;
        yield_once().await;
        let w = self.0.borrow();
        let n: usize = archive_id.trim_start_matches("archive_").parse().unwrap_or(0);
        let s = w.sessions.get(id).ok_or_else(|| HostError::new(HostErrorKind::NotFound, "no session"))?;
        let msgs = s.archives.get(n.wrapping_sub(1)).cloned().unwrap_or_default();
        let overview = w.archive_overview.clone().unwrap_or_else(|| format!("# Working Memory\n\n## Current State\n{} messages archived", msgs.len()));
        Ok(json!({"archive_id": archive_id, "abstract": "# Working Memory", "overview": overview, "messages": msgs}))
    }
    async fn read_json(&self, uri: &str) -> HostResult<Value> {
        self.ov("read_json")?;
        self.0.borrow().files.get(uri).cloned().ok_or_else(|| HostError::new(HostErrorKind::NotFound, "no file"))
    }
    async fn write_json(&self, uri: &str, value: Value) -> HostResult<()> {
        self.ov("write_json")?;
        self.0.borrow_mut().files.insert(uri.to_string(), value);
        Ok(())
    }
    async fn find(&self, target_uri: &str, query: &str, limit: usize, filter: &FindFilter) -> HostResult<Value> {
        self.ov("find")?;
        let mut w = self.0.borrow_mut();
        w.finds.push((target_uri.to_string(), query.to_string(), limit));
        w.find_filters.push(filter.since.clone());
        if filter.since.is_some() && w.refuse_since {
            return Err(HostError::new(HostErrorKind::Rejected, "HTTP 422: since: extra inputs are not permitted"));
        }
        if let Some(odd) = w.odd_find.get(target_uri) {
            return Ok(odd.clone());
        }
        let prefix = format!("{target_uri}/");
        if w.embedded.keys().any(|u| u.starts_with(&prefix)) {
            let words = |t: &str| t.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|x| x.len() > 2).map(str::to_string).collect::<std::collections::BTreeSet<String>>();
            let asked = words(query);
            let mut hits: Vec<(usize, &String)> = w.embedded.iter().filter(|(u, _)| u.starts_with(&prefix)).map(|(u, t)| (words(t).intersection(&asked).count(), u)).filter(|(n, _)| *n > 0).collect();
            hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            let items: Vec<Value> = hits.into_iter().take(limit).map(|(n, u)| json!({ "uri": u, "level": 2, "score": n as f64 / 10.0, "context_type": "resource" })).collect();
            return Ok(json!({ "memories": [], "resources": items }));
        }
        let items: Vec<Value> = found_in(&w, target_uri, filter).into_iter().take(limit).collect();
        Ok(json!({ "memories": items }))
    }
    /// Each folder's memories as `find` answers them, merged best score first (stable), at
    /// most `limit` in all; every folder is logged in `finds` and the request in
    /// `combined_finds`. A folder with an `odd_find` answer makes the whole answer that one;
    /// `refuse_list_target` answers as a server without the list form would.
    async fn find_in(&self, target_uris: &[&str], query: &str, limit: usize) -> HostResult<Value> {
        self.ov("find")?;
        let mut w = self.0.borrow_mut();
        w.combined_finds.push(target_uris.iter().map(|t| t.to_string()).collect());
        if w.refuse_list_target {
            return Err(HostError::new(HostErrorKind::Rejected, "HTTP 422: target_uri: Input should be a valid string"));
        }
        // skill roots searched with the memories count as a skill search; their hits come
        // back in the answer's `skills` (the planted skills answer's list)
        let skill_roots = target_uris.iter().filter(|t| t.ends_with("/skills")).count();
        if skill_roots > 0 {
            w.skill_finds.push((query.to_string(), limit));
        }
        for t in target_uris.iter().filter(|t| !t.ends_with("/skills")) {
            w.finds.push((t.to_string(), query.to_string(), limit));
            w.find_filters.push(None);
        }
        if let Some(odd) = target_uris.iter().find_map(|t| w.odd_find.get(*t)) {
            return Ok(odd.clone());
        }
        let mut items: Vec<Value> = target_uris.iter().flat_map(|t| found_in(&w, t, &FindFilter::NONE)).collect();
        items.sort_by(|a, b| {
            let s = |v: &Value| v.get("score").and_then(Value::as_f64).unwrap_or(0.0);
            s(b).partial_cmp(&s(a)).unwrap_or(std::cmp::Ordering::Equal)
        });
        items.truncate(limit);
        let skills = if skill_roots > 0 { w.skills.as_ref().and_then(|v| v.get("skills").cloned()).unwrap_or(json!([])) } else { json!([]) };
        Ok(json!({ "memories": items, "skills": skills }))
    }
    async fn read_content(&self, uri: &str) -> HostResult<Option<String>> {
        self.ov("read_content")?;
        self.0.borrow_mut().reads.push(uri.to_string());
        Ok(self.0.borrow().texts.get(uri).cloned())
    }
    async fn read_raw(&self, uri: &str) -> HostResult<Option<String>> {
        self.ov("read_raw")?;
        self.0.borrow_mut().reads.push(format!("raw:{uri}"));
        Ok(self.0.borrow().texts.get(uri).cloned())
    }
    async fn write_text(&self, uri: &str, content: &str, create_only: bool, _wait: bool) -> HostResult<()> {
        self.ov("write_text")?;
        let mut w = self.0.borrow_mut();
        if create_only && w.texts.contains_key(uri) {
            return Err(HostError::new(HostErrorKind::Conflict, "ALREADY_EXISTS"));
        }
        w.texts.insert(uri.to_string(), content.to_string());
        Ok(())
    }
    async fn write_embedded(&self, root: &str, docs: &[(String, String)]) -> HostResult<()> {
        self.ov("write_embedded")?;
        let mut w = self.0.borrow_mut();
        w.embedded_writes.push((root.to_string(), docs.len()));
        for (uri, text) in docs {
            w.embedded.insert(uri.clone(), text.clone());
        }
        Ok(())
    }
    async fn stat(&self, uri: &str) -> HostResult<Option<Value>> {
        self.ov("stat")?;
        let w = self.0.borrow();
        Ok(if w.texts.contains_key(uri) || w.files.contains_key(uri) {
            Some(json!({"uri": uri, "isDir": false}))
        } else if w.texts.keys().any(|k| k.starts_with(&format!("{uri}/"))) {
            Some(json!({"uri": uri, "isDir": true}))
        } else {
            None
        })
    }
    async fn find_skills(&self, query: &str, limit: usize) -> HostResult<Value> {
        self.ov("find_skills")?;
        let mut w = self.0.borrow_mut();
        w.skill_finds.push((query.to_string(), limit));
        Ok(w.skills.clone().unwrap_or_else(|| json!({ "skills": [] })))
    }
    /// The lines of the files under `uri` (the planted texts, and the planted memories'
    /// abstracts where no text is planted) holding one of the pattern's `|`-separated words,
    /// case-insensitively, as OpenViking 0.5.2 answers a grep (no context lines: a planted
    /// memory is one line). NOT_FOUND when nothing is under `uri`.
    async fn grep(&self, uri: &str, pattern: &str) -> HostResult<Value> {
        self.ov("grep")?;
        let mut w = self.0.borrow_mut();
        w.greps.push((uri.to_string(), pattern.to_string()));
        let prefix = format!("{uri}/");
        let mut files: std::collections::BTreeMap<String, String> = w.memories.values().flatten().filter_map(|m| Some((m["uri"].as_str()?.to_string(), m["abstract"].as_str()?.to_string()))).filter(|(u, _)| u.starts_with(&prefix)).collect();
        files.extend(w.texts.iter().filter(|(u, _)| u.starts_with(&prefix)).map(|(u, t)| (u.clone(), t.clone())));
        if files.is_empty() {
            return Err(HostError::new(HostErrorKind::NotFound, "NOT_FOUND: no such directory"));
        }
        let words: Vec<String> = pattern.split('|').map(str::to_lowercase).collect();
        let matches: Vec<Value> = files
            .iter()
            .flat_map(|(u, t)| t.lines().enumerate().map(move |(n, l)| (u, n + 1, l)))
            .filter(|(_, _, l)| words.iter().any(|x| l.to_lowercase().contains(x.as_str())))
            .map(|(u, n, l)| json!({ "uri": u, "line": n, "content": l }))
            .collect();
        Ok(json!({ "matches": matches, "count": matches.len() }))
    }
    async fn written_times(&self, folder: &str, _node_limit: usize) -> HostResult<Option<Vec<(String, u64)>>> {
        self.ov("written_times")?;
        let mut w = self.0.borrow_mut();
        w.listed.push(folder.to_string());
        let prefix = format!("{folder}/");
        let mut out: Vec<(String, u64)> = w.written.iter().filter(|(k, _)| k.starts_with(&prefix) && !k[prefix.len()..].contains('/')).map(|(k, t)| (k.clone(), *t)).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(if out.is_empty() && !w.texts.keys().any(|k| k.starts_with(&prefix)) { None } else { Some(out) })
    }
    /// The folders and files under `uri` from the planted texts (`rel_path` relative to it,
    /// folders first seen), `None` when nothing is under it.
    async fn tree(&self, uri: &str, level_limit: usize, node_limit: usize) -> HostResult<Option<Value>> {
        self.ov("tree")?;
        let mut w = self.0.borrow_mut();
        w.trees.push(uri.to_string());
        let prefix = format!("{uri}/");
        let mut seen = std::collections::BTreeMap::new();
        for k in w.texts.keys().filter(|k| k.starts_with(&prefix)) {
            let parts: Vec<&str> = k[prefix.len()..].split('/').collect();
            for depth in 1..=parts.len().min(level_limit) {
                let rel = parts[..depth].join("/");
                seen.insert(rel, depth < parts.len());
            }
        }
        if seen.is_empty() {
            return Ok(None);
        }
        let items: Vec<Value> = seen
            .into_iter()
            .take(node_limit)
            .map(|(rel, dir)| json!({"uri": format!("{prefix}{rel}"), "isDir": dir, "rel_path": rel, "abstract": if dir { format!("# {prefix}{rel} [Directory abstract is not ready]") } else { String::new() }}))
            .collect();
        Ok(Some(Value::Array(items)))
    }
    async fn delete_uri(&self, uri: &str) -> HostResult<Value> {
        self.ov("delete_uri")?;
        let mut w = self.0.borrow_mut();
        if w.keep_on_delete {
            return Ok(json!({"uri": uri, "estimated_deleted_count": 1}));
        }
        let n = usize::from(w.texts.remove(uri).is_some());
        for items in w.memories.values_mut() {
            items.retain(|m| m["uri"] != uri);
        }
        Ok(json!({"uri": uri, "estimated_deleted_count": n}))
    }
    async fn user_id(&self) -> HostResult<Option<String>> {
        self.ov("user_id")?;
        Ok(self.0.borrow().user.clone())
    }
}
