//! [`OpenVikingHttp`]: the engine's OpenViking operations (`host::OpenViking`) as HTTP calls
//! over a [`Transport`]. One call per operation, except `add_messages` (batches of at most
//! [`BATCH_MAX`]). Storage and the clock are the embedder's: they pass straight through, so
//! `OpenVikingHttp<T>` is a whole `Host` whenever `T` is a transport, a storage and a clock.

use super::answer::{read_answer, Refusal};
use super::server::Server;
use crate::text::percent::segment;
use super::transport::{HttpRequest, Method, Transport};
use crate::host::{CommitAnswer, FindFilter, HostError, HostErrorKind, HostResult, OpenViking, SessionMeta, TaskAnswer};
use serde_json::{json, Value};
use std::cell::RefCell;

/// Messages per `POST …/messages/batch` (the server's limit).
pub const BATCH_MAX: usize = 100;
/// `GET …/context` is asked for everything live: the engine trims, not the server.
const CONTEXT_BUDGET: u64 = 1_000_000_000;
/// The identity lookup is small; it does not get the whole timeout.
const STATUS_TIMEOUT_MS: u64 = 5_000;

pub struct OpenVikingHttp<T> {
    pub server: Server,
    pub transport: T,
    /// The user id behind the key, once the server said it.
    user: RefCell<Option<String>>,
}

/// One path segment: encoded, and never `.` or `..` (URL parsing would collapse them).
fn seg(what: &str, value: &str) -> HostResult<String> {
    if value.is_empty() || value == "." || value == ".." {
        return Err(HostError::new(HostErrorKind::Rejected, format!("{what} must be a non-empty path segment (not \".\" or \"..\")")));
    }
    Ok(segment(value))
}

fn sessions(id: &str) -> HostResult<String> {
    Ok(format!("/api/v1/sessions/{}", seg("session id", id)?))
}

fn bad(what: &str, why: &str) -> HostError {
    HostError::new(HostErrorKind::BadResponse, format!("{what}: {why}"))
}

fn num(v: &Value, snake: &str, camel: &str) -> u64 {
    v.get(snake).or_else(|| v.get(camel)).and_then(Value::as_u64).unwrap_or(0)
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The user id in a `system/status` result: `user` as a string, or an object with `user_id`
/// (or `id`/`name`). `None` when there is none usable as a path segment.
pub fn user_id_from_status(result: &Value) -> Option<String> {
    let id = match result.get("user")? {
        Value::String(s) => s.as_str(),
        Value::Object(o) => ["user_id", "id", "name"].iter().find_map(|k| o.get(*k).and_then(Value::as_str))?,
        _ => return None,
    };
    crate::address::scopes::is_plain_segment(id).then(|| id.to_string())
}

/// The body of `POST /api/v1/search/find`: `{query, target_uri, limit, score_threshold: 0}`,
/// and with a `since`, `since` + `time_field: "created_at"` (0.5.2 filters on `updated_at`
/// by default; a memory merged later would then leave the window it was said in).
pub fn find_body(target_uri: &str, query: &str, limit: usize, filter: &FindFilter) -> Value {
    let mut body = json!({ "query": query, "target_uri": target_uri, "limit": limit, "score_threshold": 0 });
    if let Some(since) = &filter.since {
        body["since"] = Value::String(since.clone());
        body["time_field"] = Value::String("created_at".into());
    }
    body
}

impl<T> OpenVikingHttp<T> {
    pub fn new(server: Server, transport: T) -> Self {
        OpenVikingHttp { server, transport, user: RefCell::new(None) }
    }
}

/// One exchange, described.
struct Call<'a> {
    method: Method,
    path: String,
    query: Vec<(&'a str, Option<String>)>,
    body: Option<Value>,
    /// `GET /health` goes without the key and has no envelope.
    keyless: bool,
    timeout_ms: Option<u64>,
}

impl<'a> Call<'a> {
    fn new(method: Method, path: impl Into<String>) -> Self {
        Call { method, path: path.into(), query: Vec::new(), body: None, keyless: false, timeout_ms: None }
    }
    fn query(mut self, key: &'a str, value: impl ToString) -> Self {
        self.query.push((key, Some(value.to_string())));
        self
    }
    fn body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }
}

impl<T: Transport> OpenVikingHttp<T> {
    async fn exchange(&self, call: Call<'_>) -> Result<Value, Refusal> {
        let endpoint = format!("{} {}", call.method.as_str(), call.path);
        let timeout_ms = call.timeout_ms.unwrap_or(self.server.timeout_ms).max(1);
        let request = HttpRequest {
            method: call.method,
            url: self.server.url(&call.path, &call.query),
            headers: self.server.headers(!call.keyless, call.body.is_some()),
            body: call.body.map(|b| b.to_string()),
            timeout_ms,
        };
        let outcome = self.transport.send(request).await;
        read_answer(&self.server, &endpoint, outcome, timeout_ms, !call.keyless)
    }

    async fn call(&self, call: Call<'_>) -> HostResult<Value> {
        self.exchange(call).await.map_err(HostError::from)
    }

    /// `None` for NOT_FOUND.
    async fn call_found(&self, call: Call<'_>) -> HostResult<Option<Value>> {
        match self.call(call).await {
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(None),
            other => other.map(Some),
        }
    }

    /// `GET /health`, without the key: the bare health object (this endpoint has no envelope).
    pub async fn health(&self, timeout_ms: u64) -> Result<Value, Refusal> {
        self.exchange(Call { keyless: true, timeout_ms: Some(timeout_ms), ..Call::new(Method::Get, "/health") }).await
    }

    /// `GET /api/v1/system/status` with the key: `{initialized, user}`.
    pub async fn system_status(&self, timeout_ms: u64) -> Result<Value, Refusal> {
        self.exchange(Call { timeout_ms: Some(timeout_ms), ..Call::new(Method::Get, "/api/v1/system/status") }).await
    }

    /// `POST /api/v1/search/find` with an explicit timeout (the page's and the doctor's probe).
    pub async fn find_within(&self, target_uri: &str, query: &str, limit: usize, timeout_ms: u64) -> Result<Value, Refusal> {
        self.find_filtered(target_uri, query, limit, &FindFilter::NONE, timeout_ms).await
    }

    /// `POST /api/v1/search/grep` of the lexical candidates (`recall::lexical::grep_body`)
    /// with an explicit timeout.
    pub async fn grep_within(&self, uri: &str, pattern: &str, timeout_ms: u64) -> Result<Value, Refusal> {
        let body = crate::recall::lexical::grep_body(uri, pattern);
        self.exchange(Call { timeout_ms: Some(timeout_ms), ..Call::new(Method::Post, "/api/v1/search/grep").body(body) }).await
    }

    /// `POST /api/v1/search/find` with the filter's fields (see [`find_body`]).
    pub async fn find_filtered(&self, target_uri: &str, query: &str, limit: usize, filter: &FindFilter, timeout_ms: u64) -> Result<Value, Refusal> {
        let body = find_body(target_uri, query, limit, filter);
        self.exchange(Call { timeout_ms: Some(timeout_ms), ..Call::new(Method::Post, "/api/v1/search/find").body(body) }).await
    }
}

impl<T: Transport> OpenViking for OpenVikingHttp<T> {
    async fn session_meta(&self, id: &str) -> HostResult<Option<SessionMeta>> {
        let Some(v) = self.call_found(Call::new(Method::Get, sessions(id)?).query("auto_create", false)).await? else {
            return Ok(None);
        };
        if !v.is_object() {
            return Err(bad("GET /api/v1/sessions/{id}", "the result is not an object"));
        }
        Ok(Some(SessionMeta {
            message_count: num(&v, "message_count", "messageCount"),
            commit_count: num(&v, "commit_count", "commitCount"),
            pending_tokens: num(&v, "pending_tokens", "pendingTokens"),
        }))
    }

    async fn create_session(&self, id: &str, memory_policy: Value) -> HostResult<()> {
        seg("session id", id)?;
        let body = json!({ "session_id": id, "memory_policy": memory_policy });
        self.call(Call::new(Method::Post, "/api/v1/sessions").body(body)).await.map(drop)
    }

    async fn add_messages(&self, id: &str, messages: Vec<Value>) -> HostResult<Option<u64>> {
        let path = format!("{}/messages/batch", sessions(id)?);
        let mut rest = messages;
        loop {
            let tail = rest.split_off(rest.len().min(BATCH_MAX));
            let v = self.call(Call::new(Method::Post, path.clone()).body(json!({ "messages": rest }))).await?;
            let count = match &v {
                Value::Object(o) => o.get("message_count").and_then(Value::as_u64),
                Value::Null => None,
                _ => return Err(bad("POST …/messages/batch", "the result is not an object")),
            };
            if tail.is_empty() {
                return Ok(count);
            }
            rest = tail;
        }
    }

    async fn live_messages(&self, id: &str) -> HostResult<Vec<Value>> {
        let v = self.call(Call::new(Method::Get, format!("{}/context", sessions(id)?)).query("token_budget", CONTEXT_BUDGET)).await?;
        match v.get("messages") {
            Some(Value::Array(a)) => Ok(a.clone()),
            None | Some(Value::Null) if v.is_object() => Ok(Vec::new()),
            _ => Err(bad("GET …/context", "expected {messages: [...]}")),
        }
    }

    async fn commit(&self, id: &str, body: Value) -> HostResult<CommitAnswer> {
        let v = self.call(Call::new(Method::Post, format!("{}/commit", sessions(id)?)).body(body)).await?;
        match v.get("status").and_then(Value::as_str) {
            Some("accepted") if v.get("task_id").and_then(Value::as_str).is_some() => {
                Ok(CommitAnswer::Accepted { task_id: text(&v, "task_id"), archive_uri: text(&v, "archive_uri") })
            }
            Some("skipped") | Some("accepted") => Ok(CommitAnswer::Skipped { reason: text(&v, "reason") }),
            _ => Err(bad("POST …/commit", "neither accepted nor skipped")),
        }
    }

    async fn task(&self, task_id: &str) -> HostResult<TaskAnswer> {
        let v = self.call(Call::new(Method::Get, format!("/api/v1/tasks/{}", seg("task id", task_id)?))).await?;
        Ok(match v.get("status").and_then(Value::as_str) {
            Some("completed") => TaskAnswer::Completed { result: v.get("result").cloned().unwrap_or(Value::Null) },
            Some("failed") => TaskAnswer::Failed { error: v.get("error").map(|e| e.to_string()).unwrap_or_default() },
            Some("running") => TaskAnswer::Running,
            _ => TaskAnswer::Pending,
        })
    }

    async fn list_sessions(&self) -> HostResult<Vec<String>> {
        let v = self.call(Call::new(Method::Get, "/api/v1/sessions")).await?;
        match v {
            Value::Array(items) => Ok(items.iter().filter_map(|i| i.get("session_id").and_then(Value::as_str)).map(str::to_string).collect()),
            Value::Null => Ok(Vec::new()),
            _ => Err(bad("GET /api/v1/sessions", "the result is not a list")),
        }
    }

    async fn archive(&self, id: &str, archive_id: &str) -> HostResult<Value> {
        let path = format!("{}/archives/{}", sessions(id)?, seg("archive id", archive_id)?);
        let v = self.call(Call::new(Method::Get, path)).await?;
        if v.is_object() {
            Ok(v)
        } else {
            Err(bad("GET …/archives/{id}", "the result is not an object"))
        }
    }

    async fn tool_result(&self, id: &str, tool_result_id: &str) -> HostResult<Option<String>> {
        let path = format!("{}/tool-results/{}", sessions(id)?, seg("tool result id", tool_result_id)?);
        let call = Call::new(Method::Get, path).query("offset", 0).query("limit", -1).query("include_metadata", false);
        let Some(v) = self.call_found(call).await? else { return Ok(None) };
        match v.get("content") {
            Some(Value::String(t)) => Ok(Some(t.clone())),
            _ => Err(bad("GET …/tool-results/{id}", "expected {content: \"…\"}")),
        }
    }

    async fn read_json(&self, uri: &str) -> HostResult<Value> {
        match self.call(Call::new(Method::Get, "/api/v1/content/read").query("uri", uri)).await? {
            // 0.5.2 answers the file's text
            Value::String(text) => serde_json::from_str(&text).map_err(|_| bad("GET /api/v1/content/read", &format!("{} is not valid JSON", self.server.redact(uri)))),
            other => Ok(other),
        }
    }

    async fn write_json(&self, uri: &str, value: Value) -> HostResult<()> {
        let content = serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string());
        self.write_text(uri, &content, false, false).await
    }

    async fn find(&self, target_uri: &str, query: &str, limit: usize, filter: &FindFilter) -> HostResult<Value> {
        match self.find_filtered(target_uri, query, limit, filter, self.server.timeout_ms).await? {
            v @ (Value::Object(_) | Value::Array(_) | Value::Null) => Ok(v),
            _ => Err(bad("POST /api/v1/search/find", "the result is not a find result")),
        }
    }

    async fn find_in(&self, target_uris: &[&str], query: &str, limit: usize) -> HostResult<Value> {
        let body = json!({ "query": query, "target_uri": target_uris, "limit": limit, "score_threshold": 0 });
        match self.exchange(Call { timeout_ms: Some(self.server.timeout_ms), ..Call::new(Method::Post, "/api/v1/search/find").body(body) }).await? {
            v @ (Value::Object(_) | Value::Array(_) | Value::Null) => Ok(v),
            _ => Err(bad("POST /api/v1/search/find", "the result is not a find result")),
        }
    }

    async fn grep(&self, uri: &str, pattern: &str) -> HostResult<Value> {
        match self.grep_within(uri, pattern, self.server.timeout_ms).await? {
            v @ Value::Object(_) => Ok(v),
            _ => Err(bad("POST /api/v1/search/grep", "the result is not an object")),
        }
    }

    async fn read_content(&self, uri: &str) -> HostResult<Option<String>> {
        match self.call_found(Call::new(Method::Get, "/api/v1/content/read").query("uri", uri)).await? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(bad("GET /api/v1/content/read", "the result is not text")),
        }
    }

    async fn read_raw(&self, uri: &str) -> HostResult<Option<String>> {
        match self.call_found(Call::new(Method::Get, "/api/v1/content/read").query("uri", uri).query("raw", true)).await? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(bad("GET /api/v1/content/read", "the result is not text")),
        }
    }

    async fn write_text(&self, uri: &str, content: &str, create_only: bool, wait: bool) -> HostResult<()> {
        let mode = if create_only { "create" } else { "replace" };
        let body = json!({ "uri": uri, "content": content, "mode": mode, "wait": wait });
        self.call(Call::new(Method::Post, "/api/v1/content/write").body(body)).await.map(drop)
    }

    async fn write_embedded(&self, root: &str, docs: &[(String, String)]) -> HostResult<()> {
        let single = |uri: &str, content: &str| json!({ "uri": uri, "content": content, "mode": "replace", "wait": false, "processing_mode": "vectors_only" });
        let mut rest = docs;
        while !rest.is_empty() {
            let (now, later) = rest.split_at(rest.len().min(BATCH_MAX));
            let ops: Vec<Value> = now.iter().map(|(uri, content)| json!({ "uri": uri, "content": content, "mode": "replace" })).collect();
            let body = json!({ "root_uri": root, "operations": ops, "wait": false, "processing_mode": "vectors_only" });
            match self.call(Call::new(Method::Post, "/api/v1/content/batch-write").body(body)).await {
                Ok(_) => rest = later,
                // the folder is not there yet: one write makes it
                Err(e) if e.kind == HostErrorKind::NotFound => {
                    let (uri, content) = &rest[0];
                    self.call(Call::new(Method::Post, "/api/v1/content/write").body(single(uri, content))).await?;
                    rest = &rest[1..];
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    async fn stat(&self, uri: &str) -> HostResult<Option<Value>> {
        match self.call_found(Call::new(Method::Get, "/api/v1/fs/stat").query("uri", uri)).await? {
            None | Some(Value::Null) => Ok(None),
            Some(v @ Value::Object(_)) => Ok(Some(v)),
            Some(_) => Err(bad("GET /api/v1/fs/stat", "the result is not an object")),
        }
    }

    async fn delete_uri(&self, uri: &str) -> HostResult<Value> {
        let call = Call::new(Method::Delete, "/api/v1/fs").query("uri", uri).query("recursive", false).query("wait", true);
        match self.call(call).await? {
            v @ (Value::Object(_) | Value::Null) => Ok(v),
            _ => Err(bad("DELETE /api/v1/fs", "the result is not an object")),
        }
    }

    async fn user_id(&self) -> HostResult<Option<String>> {
        if let Some(u) = self.user.borrow().clone() {
            return Ok(Some(u));
        }
        let status = self.system_status(self.server.timeout_ms.min(STATUS_TIMEOUT_MS)).await?;
        let id = user_id_from_status(&status);
        if let Some(u) = &id {
            *self.user.borrow_mut() = Some(u.clone());
        }
        Ok(id)
    }

    async fn find_skills(&self, query: &str, limit: usize) -> HostResult<Value> {
        let body = json!({ "query": query, "limit": limit });
        match self.call(Call::new(Method::Post, "/api/v1/skills/find").body(body)).await? {
            v @ (Value::Object(_) | Value::Null) => Ok(v),
            _ => Err(bad("POST /api/v1/skills/find", "the result is not an object")),
        }
    }

    async fn tree(&self, uri: &str, level_limit: usize, node_limit: usize) -> HostResult<Option<Value>> {
        let call = Call::new(Method::Get, "/api/v1/fs/tree").query("uri", uri).query("output", "agent").query("include_abstract", false).query("level_limit", level_limit).query("node_limit", node_limit);
        match self.call_found(call).await? {
            None | Some(Value::Null) => Ok(None),
            Some(v @ Value::Array(_)) => Ok(Some(v)),
            Some(_) => Err(bad("GET /api/v1/fs/tree", "the result is not a list")),
        }
    }

    async fn written_times(&self, folder: &str, node_limit: usize) -> HostResult<Option<Vec<(String, u64)>>> {
        let call = Call::new(Method::Get, "/api/v1/fs/ls")
            .query("uri", folder)
            .query("output", "original")
            .query("sort_by", "mtime")
            .query("sort_order", "desc")
            .query("node_limit", node_limit);
        match self.call_found(call).await? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(entries)) => Ok(Some(
                entries
                    .iter()
                    .filter(|e| e.get("isDir").and_then(Value::as_bool) != Some(true))
                    .filter_map(|e| {
                        let uri = e.get("uri")?.as_str()?;
                        let at = crate::text::time::parse_iso8601(e.get("modTime")?.as_str()?)?;
                        Some((uri.to_string(), at))
                    })
                    .collect(),
            )),
            Some(_) => Err(bad("GET /api/v1/fs/ls", "the result is not a list")),
        }
    }
}

crate::host::delegate_storage_and_clock!(OpenVikingHttp, transport);
