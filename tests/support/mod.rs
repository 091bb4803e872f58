//! Test support: an in-memory OpenViking + state dir behind the `Host` trait, with failure
//! injection and a fake clock, and a tiny executor (the fake's futures are always ready).
#![allow(dead_code)]

use openviking_context_engine::host::{Clock, CommitAnswer, FindFilter, HostError, HostErrorKind, HostResult, OpenViking, SessionMeta, Storage, TaskAnswer};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

mod fake_openviking;

/// Yields once (the next poll completes): what a real host's I/O does, so futures side by
/// side (`join2`) interleave at the fake's sleeps and archive reads as they would for real.

pub struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub fn yield_once() -> YieldOnce {
    YieldOnce(false)
}

/// Runs a future whose awaits all complete immediately (or after a yield).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    let mut f = pin!(f);
    for _ in 0..1_000_000 {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
    panic!("future did not complete");
}

#[derive(Default)]
pub struct FakeSession {
    pub policy: Value,
    pub live: Vec<Value>,
    pub archives: Vec<Vec<Value>>,
}

#[derive(Default)]
pub struct World {
    /// The wall clock (`Clock::now_ms`): a test may jump it either way.
    pub now: u64,
    /// The monotonic clock (`Clock::monotonic_ms`), `None`: the host has none. Sleeps advance
    /// it with `now`; a jump of `now` leaves it alone.
    pub mono: Option<u64>,
    pub sessions: BTreeMap<String, FakeSession>,
    /// task id → (polls before completion, result, fails)
    pub tasks: HashMap<String, (u32, Value, bool)>,
    pub files: HashMap<String, Value>,
    pub state: HashMap<String, Value>,
    /// The keys saved durably (`save_state`), in order; caches (`save_cache`) are not here.
    pub durable_saves: Vec<String>,
    pub outbox: HashMap<String, Vec<Value>>,
    /// How many times an outbox was read.
    pub outbox_reads: u32,
    /// OpenViking is down: every OpenViking call fails with this.
    pub down: Option<HostErrorKind>,
    /// The next OpenViking calls fail with these, in order.
    pub fail_next: VecDeque<HostErrorKind>,
    /// The next calls of one operation (`"add_messages"`, `"live_messages"`, …) fail with
    /// these, in order (before `fail_next` applies).
    pub fail_op: HashMap<String, VecDeque<HostErrorKind>>,
    /// The next add_messages is stored by the server, but its answer is lost with this error
    /// (before any `fail_next` applies).
    pub lose_next_answer: Option<HostErrorKind>,
    /// The next add_messages reaches the server but is stored only this many ms (of the fake
    /// clock) later — a request still on its way when its sender died or gave up — and its
    /// answer is lost with a timeout.
    pub land_late_ms: Option<u64>,
    /// Messages on their way: (when they land, session, messages).
    pub landing: Vec<(u64, String, Vec<Value>)>,
    /// `Some(n)`: the outbox_drop after the next n fails as if the process died right before it.
    pub crash_at_drop: Option<usize>,
    pub task_polls: u32,
    pub fail_tasks: bool,
    /// The local disk refuses outbox appends (full, read-only).
    pub fail_append: bool,
    /// Locks held (name → holder, expiry), shared by every handle on this world.
    pub locks: HashMap<String, (u64, u64)>,
    /// Locks whose holder is dead (a SIGKILLed process): the next try takes them.
    pub dead_holders: Vec<u64>,
    pub warnings: Vec<String>,
    pub calls: Vec<String>,
    pub sleeps: u64,
    /// Files written with `write_embedded` (uri → text): what `find` over their folder ranks
    /// (by words shared with the query, a stand-in for their vectors).
    pub embedded: BTreeMap<String, String>,
    /// `write_embedded` calls: (root, files).
    pub embedded_writes: Vec<(String, usize)>,
    /// Memory items per scope uri, as `find` returns them (`{uri, level, score, abstract, category}`).
    pub memories: HashMap<String, Vec<Value>>,
    /// Text files (`read_content`), e.g. memories' full texts and `profile.md`.
    pub texts: HashMap<String, String>,
    /// The user id the server reports (`None`: it does not say).
    pub user: Option<String>,
    /// Finds made: (scope uri, query, limit).
    pub finds: Vec<(String, String, usize)>,
    /// The `since` of each find, in the order of `finds`.
    pub find_filters: Vec<Option<String>>,
    /// A server that refuses `since` (an OpenViking before it had the field).
    pub refuse_since: bool,
    /// `delete_uri` answers "deleted" but keeps the file (a server that lies).
    pub keep_on_delete: bool,
    /// A scope's `find` answers this instead (an answer the pipeline cannot read).
    pub odd_find: HashMap<String, Value>,
    /// The folders of each one-request find over several folders (`find_in`).
    pub combined_finds: Vec<Vec<String>>,
    /// Answer `find_in` as a server without the list form of `target_uri` would (422).
    pub refuse_list_target: bool,
    /// Files read with `read_content`, in order.
    pub reads: Vec<String>,
    /// What `archive` answers as the overview (summary) instead of the fake's own.
    pub archive_overview: Option<String>,
    /// (session, tool result id) → an oversized tool output OpenViking externalized.
    pub tool_results: HashMap<(String, String), String>,
    /// What `find_skills` answers (`{skills: [...]}`), `None`: no skills.
    pub skills: Option<Value>,
    /// Skill finds made: (query, limit).
    pub skill_finds: Vec<(String, usize)>,
    /// Trees made (uris asked).
    pub trees: Vec<String>,
    /// When each planted text was written (ms), for `written_times`; a text without one is
    /// listed without a time (left out).
    pub written: HashMap<String, u64>,
    /// The folders `written_times` was asked for.
    pub listed: Vec<String>,
    /// Greps made: (folder, pattern).
    pub greps: Vec<(String, String)>,
}

/// OpenViking 0.5.2's default `threshold_chars` of tool-output externalization.
pub const TOOL_OUTPUT_THRESHOLD_CHARS: usize = 20_000;

/// A handle on a shared world: two handles are two processes on one machine and server.
#[derive(Clone, Default)]
pub struct FakeHost(pub Rc<RefCell<World>>, pub u64);

impl FakeHost {
    pub fn new() -> Self {
        let h = FakeHost::default();
        h.0.borrow_mut().task_polls = 2;
        h.0.borrow_mut().now = 1_764_000_000_000;
        h
    }
    /// Another process on the same machine and server (its own lock identity).
    pub fn second_process(&self) -> Self {
        FakeHost(self.0.clone(), self.1 + 1)
    }
    /// This process dies: the locks it holds are free for the next taker.
    pub fn die(&self) {
        self.0.borrow_mut().dead_holders.push(self.1);
    }
    /// The next call of `op` fails with `kind`.
    pub fn fail(&self, op: &str, kind: HostErrorKind) {
        self.0.borrow_mut().fail_op.entry(op.to_string()).or_default().push_back(kind);
    }
    pub fn world(&self) -> std::cell::RefMut<'_, World> {
        self.0.borrow_mut()
    }
    fn ov(&self, what: &str) -> HostResult<()> {
        let mut w = self.0.borrow_mut();
        let now = w.now;
        for (_, id, messages) in w.landing.extract_if(.., |(at, _, _)| *at <= now).collect::<Vec<_>>() {
            if let Some(s) = w.sessions.get_mut(&id) {
                s.live.extend(messages);
            }
        }
        w.calls.push(what.to_string());
        if let Some(k) = w.down {
            return Err(HostError::new(k, format!("{what}: fake outage")));
        }
        if let Some(k) = w.fail_op.get_mut(what).and_then(VecDeque::pop_front) {
            return Err(HostError::new(k, format!("{what}: injected failure")));
        }
        if let Some(k) = w.fail_next.pop_front() {
            return Err(HostError::new(k, format!("{what}: injected failure")));
        }
        Ok(())
    }
    /// Like `all_messages`, empty when the session does not exist.
    pub fn all_messages_opt(&self, ov_id: &str) -> Vec<Value> {
        if self.0.borrow().sessions.contains_key(ov_id) { self.all_messages(ov_id) } else { Vec::new() }
    }
    /// Every message OpenViking holds for a session, archived and live, in order.
    pub fn all_messages(&self, ov_id: &str) -> Vec<Value> {
        let w = self.0.borrow();
        let s = &w.sessions[ov_id];
        s.archives.iter().flatten().chain(s.live.iter()).cloned().collect()
    }
}


impl Storage for FakeHost {
    async fn list_state_keys(&self, prefix: &str) -> HostResult<Vec<String>> {
        Ok(self.0.borrow().state.keys().filter(|k| k.starts_with(prefix)).cloned().collect())
    }
    async fn load_state(&self, key: &str) -> HostResult<Option<Value>> {
        Ok(self.0.borrow().state.get(key).cloned())
    }
    async fn save_state(&self, key: &str, value: Value) -> HostResult<()> {
        let mut w = self.0.borrow_mut();
        w.durable_saves.push(key.to_string());
        w.state.insert(key.to_string(), value);
        Ok(())
    }
    async fn save_cache(&self, key: &str, value: Value) -> HostResult<()> {
        self.0.borrow_mut().state.insert(key.to_string(), value);
        Ok(())
    }
    async fn outbox_append(&self, key: &str, entry: Value) -> HostResult<()> {
        if self.0.borrow().fail_append {
            return Err(HostError::new(HostErrorKind::Local, "outbox_append: no space left on device"));
        }
        let mut w = self.0.borrow_mut();
        let queue = w.outbox.entry(key.to_string()).or_default();
        // as the real store: one entry per turn id
        if !queue.iter().any(|e| e.get("turnId").is_some() && e.get("turnId") == entry.get("turnId")) {
            queue.push(entry);
        }
        Ok(())
    }
    async fn outbox_read(&self, key: &str) -> HostResult<Vec<Value>> {
        let mut w = self.0.borrow_mut();
        w.outbox_reads += 1;
        Ok(w.outbox.get(key).cloned().unwrap_or_default())
    }
    async fn try_lock(&self, name: &str, ttl_ms: u64) -> HostResult<bool> {
        let mut w = self.0.borrow_mut();
        let now = w.now;
        let free = match w.locks.get(name) {
            None => true,
            Some((holder, expires)) => *expires <= now || w.dead_holders.contains(holder),
        };
        if free {
            w.locks.insert(name.to_string(), (self.1, now.saturating_add(ttl_ms)));
        }
        Ok(free)
    }
    async fn unlock(&self, name: &str) -> HostResult<()> {
        let mut w = self.0.borrow_mut();
        if w.locks.get(name).is_some_and(|(holder, _)| *holder == self.1) {
            w.locks.remove(name);
        }
        Ok(())
    }
    async fn outbox_drop(&self, key: &str, turn_ids: &[String]) -> HostResult<()> {
        let crash = {
            let mut w = self.0.borrow_mut();
            let now = w.crash_at_drop == Some(0);
            w.crash_at_drop = w.crash_at_drop.and_then(|n| n.checked_sub(1));
            now
        };
        if crash {
            // the process dies between a replayed write and dropping it from the outbox
            return Err(HostError::new(HostErrorKind::Local, "outbox_drop: process crashed"));
        }
        if let Some(v) = self.0.borrow_mut().outbox.get_mut(key) {
            v.retain(|e| !e.get("turnId").and_then(Value::as_str).is_some_and(|t| turn_ids.iter().any(|x| x == t)));
        }
        Ok(())
    }
}

impl Clock for FakeHost {
    fn now_ms(&self) -> u64 {
        self.0.borrow().now
    }
    fn monotonic_ms(&self) -> Option<u64> {
        self.0.borrow().mono
    }
    async fn sleep(&self, ms: u64) {
        {
            let mut w = self.0.borrow_mut();
            w.now = w.now.saturating_add(ms);
            w.mono = w.mono.map(|m| m + ms);
            w.sleeps += 1;
        }
        yield_once().await;
    }
    fn warn(&self, message: &str) {
        self.0.borrow_mut().warnings.push(message.to_string());
    }
}

/// An engine for agent `main` (user `alice`) over `host`, config keys from `extra`.
pub fn engine(host: &FakeHost, extra: Value) -> openviking_context_engine::engine::Engine<FakeHost> {
    let mut raw = json!({"agentId": "main", "compactTurnThreshold": 3, "compactTokensAddedThreshold": 100000});
    for (k, v) in extra.as_object().expect("extra is an object") {
        raw[k] = v.clone();
    }
    let config = openviking_context_engine::config::parse_config(&raw, &openviking_context_engine::config::Env::new()).unwrap().config;
    let e = openviking_context_engine::engine::Engine::new(config, host.clone());
    e.set_user_id("alice");
    e
}

/// A `TurnWrite` as OpenClaw's commitTurn (with a key) or afterTurn (without) sends it.
pub fn turn_write(session: &str, key: Option<&str>, messages: Vec<Value>) -> openviking_context_engine::engine::TurnWrite {
    openviking_context_engine::engine::TurnWrite {
        session_id: session.into(),
        session_key: Some("agent:main:cli".into()),
        messages,
        advancement_key: key.map(str::to_string),
        token_budget: Some(100_000),
        context_tokens: None,
        used_context_uris: vec![],
        is_heartbeat: false,
        pre_prompt_message_count: None,
        defer_send: false,
    }
}

/// The user texts OpenViking holds for a session (archived and live), in order.
pub fn user_texts(host: &FakeHost, ov_id: &str) -> Vec<String> {
    host.all_messages_opt(ov_id).iter().filter(|m| m["role"] == "user").map(|m| m["parts"][0]["text"].as_str().unwrap_or("").to_string()).collect()
}

/// A realistic turn: a user question, an assistant tool call and result, and an answer.
pub fn turn(i: usize, text: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": text, "timestamp": i}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Let me check."}, {"type": "toolCall", "id": format!("call_{i}"), "name": "exec", "arguments": {"command": "grep -r pool config/"}}], "stopReason": "toolUse"}),
        json!({"role": "toolResult", "toolCallId": format!("call_{i}"), "toolName": "exec", "content": [{"type": "text", "text": "config/db.yml: pool: 10"}], "isError": false}),
        json!({"role": "assistant", "content": [{"type": "text", "text": format!("The pool is 10 (turn {i}).")}], "stopReason": "stop"}),
    ]
}

/// An experience as OpenViking 0.5.2 stores it: its text, then the MEMORY_FIELDS comment with
/// the trajectories it derives from; each trajectory names its source archive.
#[allow(dead_code)] // not every test file plants experiences
pub fn plant_experience(host: &FakeHost, name: &str, text: &str, sessions: &[&str]) {
    let uri = format!("viking://user/alice/memories/experiences/{name}.md");
    let mut links = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        let t = format!("viking://user/alice/memories/trajectories/{name}_{i}.md");
        let fields = json!({"trajectory_name": name, "source_archive_uri": format!("viking://user/alice/sessions/{s}/history/archive_001")});
        host.world().texts.insert(t.clone(), format!("# {name}\n\n<!-- MEMORY_FIELDS\n{fields:#}\n-->"));
        links.push(json!({"from_uri": uri, "to_uri": t, "link_type": "derived_from"}));
    }
    let fields = json!({"experience_name": name, "links": links, "memory_type": "experiences"});
    host.world().texts.insert(uri.clone(), format!("{text}\n\n<!-- MEMORY_FIELDS\n{fields:#}\n-->"));
    host.world().memories.entry("viking://user/alice/memories/experiences".into()).or_default().push(json!({"uri": uri, "level": 2, "score": 0.8, "abstract": text, "tags": ["memory_type=experiences"]}));
}

/// The planted memories a find of `target_uri` answers: the scope planted there, or the
/// memories under it of a planted scope (a folder); `since` keeps the items whose
/// `created_at` (when planted with one) is not earlier.
fn found_in(w: &World, target_uri: &str, filter: &FindFilter) -> Vec<Value> {
    let mut items: Vec<Value> = match w.memories.get(target_uri) {
        Some(list) => list.clone(),
        None => w
            .memories
            .iter()
            .filter(|(scope, _)| target_uri.starts_with(&format!("{scope}/")))
            .flat_map(|(_, list)| list.iter().filter(|m| m.get("uri").and_then(Value::as_str).is_some_and(|u| u.starts_with(&format!("{target_uri}/")))).cloned())
            .collect(),
    };
    if let Some(since) = &filter.since {
        items.retain(|m| m.get("created_at").and_then(Value::as_str).map_or(true, |c| c >= since.as_str()));
    }
    items
}

/// OpenViking's answers as a transport returns them: its envelope, a bare status and body, an
/// error envelope.
pub mod answers {
    use openviking_context_engine::openviking::{HttpResponse, TransportFailure};
    use serde_json::{json, Value};

    pub fn ok(result: Value) -> Result<HttpResponse, TransportFailure> {
        Ok(HttpResponse { status: 200, body: json!({ "status": "ok", "result": result, "telemetry": {} }).to_string() })
    }

    pub fn http(status: u16, body: &str) -> Result<HttpResponse, TransportFailure> {
        Ok(HttpResponse { status, body: body.to_string() })
    }

    pub fn error(status: u16, code: &str, message: &str) -> Result<HttpResponse, TransportFailure> {
        http(status, &json!({ "status": "error", "error": { "code": code, "message": message } }).to_string())
    }
}
