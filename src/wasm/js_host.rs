//! `JsHost`: the engine's `Host` implemented by JS callbacks — an object the plugin passes
//! in (`HostCallbacks` in the TypeScript declarations) whose async methods do the OpenViking
//! I/O with `fetch` and keep durable state in the plugin's state dir.
//!
//! A callback can misbehave in any way and it stays a failure of that one call: a missing
//! method, a synchronous throw, a rejection with anything (not only an `Error`), a hostile
//! thenable, a wrong shape, or no answer at all — each becomes a typed `HostError`
//! (`Timeout` after the engine's `timeoutMs`), never an exception through the wasm, never a
//! promise of the engine that does not settle. `nowMs` and `warn` cannot break a call either.

use crate::host::{Clock, CommitAnswer, HostError, HostErrorKind, HostResult, OpenViking, SessionMeta, Storage, TaskAnswer};
use js_sys::{Array, Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The callbacks `HostCallbacks` must have (checked when the engine is built).
pub const CALLBACKS: &[&str] = &[
    "sessionMeta",
    "createSession",
    "addMessages",
    "liveMessages",
    "commit",
    "task",
    "archive",
    "readJson",
    "writeJson",
    "find",
    "readContent",
    "userId",
    "writeText",
    "stat",
    "deleteUri",
    "loadState",
    "saveState",
    "listStateKeys",
    "outboxAppend",
    "outboxRead",
    "outboxDrop",
    "sleep",
    "nowMs",
    "warn",
];

/// Grace on top of `timeoutMs` for OpenViking calls (the plugin's client times out itself).
const TIMEOUT_GRACE_MS: u64 = 2_000;

pub struct JsHost {
    callbacks: JsValue,
    timeout_ms: u64,
}

impl JsHost {
    /// `callbacks` must be an object with every method of [`CALLBACKS`]; the error names the
    /// first one missing.
    pub fn new(callbacks: JsValue, timeout_ms: u64) -> Result<Self, String> {
        if !callbacks.is_object() {
            return Err(format!("expected the host callbacks object, got {}", super::codec::type_name(&callbacks)));
        }
        for name in CALLBACKS {
            let f = Reflect::get(&callbacks, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(format!("{name}: expected a function"));
            }
        }
        Ok(JsHost { callbacks, timeout_ms })
    }

    /// Calls `op` with `args` and waits for its answer, at most `timeout_ms`.
    async fn call(&self, op: &str, args: &[JsValue], timeout_ms: u64) -> HostResult<JsValue> {
        let f = Reflect::get(&self.callbacks, &JsValue::from_str(op)).map_err(|e| host_error(op, e))?;
        let f: Function = f.dyn_into().map_err(|_| HostError::new(HostErrorKind::BadResponse, format!("{op}: not a function")))?;
        let args: Array = args.iter().collect();
        let returned = f.apply(&self.callbacks, &args).map_err(|e| host_error(op, e))?;
        settle_within(op, returned, timeout_ms).await
    }

    async fn ov(&self, op: &str, args: &[JsValue]) -> HostResult<JsValue> {
        self.call(op, args, self.timeout_ms.saturating_add(TIMEOUT_GRACE_MS)).await
    }

    async fn local(&self, op: &str, args: &[JsValue]) -> HostResult<JsValue> {
        self.call(op, args, self.timeout_ms).await.map_err(|e| HostError { kind: if e.kind == HostErrorKind::Timeout { e.kind } else { HostErrorKind::Local }, ..e })
    }
}

/// Adopts whatever a callback returned (a value, a promise, any thenable) into a real
/// promise — the resolve function of a fresh promise never throws, whatever `then` does —
/// and races it against a timer.
async fn settle_within(op: &str, returned: JsValue, timeout_ms: u64) -> HostResult<JsValue> {
    let adopted = Promise::new(&mut |resolve, _reject| {
        let _ = resolve.call1(&JsValue::NULL, &returned);
    });
    match race_timer(&adopted, timeout_ms).await {
        None => Err(HostError::new(HostErrorKind::Timeout, format!("{op}: no answer within {timeout_ms} ms"))),
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(host_error(op, e)),
    }
}

/// `promise`'s outcome, or `None` when `ms` passed first. The timer is cleared either way
/// (a pending timer would keep a one-turn CLI process alive).
pub async fn race_timer(promise: &Promise, ms: u64) -> Option<Result<JsValue, JsValue>> {
    let sentinel: JsValue = Object::new().into();
    let global = js_sys::global();
    let set_timeout = Reflect::get(&global, &"setTimeout".into()).ok().and_then(|f| f.dyn_into::<Function>().ok());
    let mut timer = JsValue::UNDEFINED;
    let delay = JsValue::from_f64(ms.min(2_000_000_000) as f64);
    let timeout = Promise::new(&mut |resolve, _reject| {
        if let Some(st) = &set_timeout {
            timer = st.call3(&global, &resolve, &delay, &sentinel).unwrap_or(JsValue::UNDEFINED);
        }
    });
    let raced = Promise::race(&Array::of2(promise, &timeout));
    let out = JsFuture::from(raced).await;
    if let Ok(clear) = Reflect::get(&global, &"clearTimeout".into()).and_then(|f| f.dyn_into::<Function>().map_err(JsValue::from)) {
        let _ = clear.call1(&global, &timer);
    }
    match out {
        Ok(v) if v == sentinel => None,
        other => Some(other),
    }
}

fn prop(v: &JsValue, key: &str) -> JsValue {
    if !v.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A rejection as a typed error: `err.kind` if it names one, else by `code`, else `status`.
/// The rejection may be anything (a string, undefined, an object with throwing getters).
fn host_error(op: &str, err: JsValue) -> HostError {
    let message = prop(&err, "message").as_string().or_else(|| err.as_string()).unwrap_or_else(|| "callback failed".into());
    let message = format!("{op}: {message}");
    let kind_str = prop(&err, "kind").as_string();
    let code = prop(&err, "code").as_string().unwrap_or_default();
    let status = prop(&err, "status").as_f64().unwrap_or(0.0);
    let kind = match kind_str.as_deref().or(Some(code.as_str())) {
        Some("unreachable" | "OV_UNREACHABLE" | "ECONNREFUSED" | "ECONNRESET") => HostErrorKind::Unreachable,
        Some("timeout" | "OV_TIMEOUT") => HostErrorKind::Timeout,
        Some("server_error" | "OV_HTTP_5XX") => HostErrorKind::ServerError,
        Some("bad_response" | "OV_BAD_RESPONSE") => HostErrorKind::BadResponse,
        Some("not_found" | "NOT_FOUND") => HostErrorKind::NotFound,
        Some("conflict" | "ALREADY_EXISTS" | "CONFLICT") => HostErrorKind::Conflict,
        Some("rejected") => HostErrorKind::Rejected,
        Some("local" | "LOCAL_STATE") => HostErrorKind::Local,
        _ if status >= 500.0 => HostErrorKind::ServerError,
        _ if status >= 400.0 => HostErrorKind::Rejected,
        // An unknown failure is treated as transient: the turn is kept, not dropped.
        _ => HostErrorKind::BadResponse,
    };
    HostError::new(kind, message)
}

fn to_js(v: &Value) -> JsValue {
    super::codec::encode(v).unwrap_or(JsValue::NULL)
}

fn from_js(op: &str, v: &JsValue) -> HostResult<Value> {
    super::codec::decode(op, v).map_err(|e| HostError::new(HostErrorKind::BadResponse, e.message))
}

fn num(v: &Value, snake: &str, camel: &str) -> u64 {
    v.get(snake).or_else(|| v.get(camel)).and_then(Value::as_u64).unwrap_or(0)
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

fn s(v: &str) -> JsValue {
    JsValue::from_str(v)
}

fn object(op: &str, v: Value) -> HostResult<Value> {
    if v.is_object() {
        Ok(v)
    } else {
        Err(HostError::new(HostErrorKind::BadResponse, format!("{op}: expected an object")))
    }
}

impl OpenViking for JsHost {
    async fn session_meta(&self, id: &str) -> HostResult<Option<SessionMeta>> {
        let v = from_js("sessionMeta", &self.ov("sessionMeta", &[s(id)]).await?)?;
        if v.is_null() {
            return Ok(None);
        }
        let v = object("sessionMeta", v)?;
        Ok(Some(SessionMeta {
            message_count: num(&v, "message_count", "messageCount"),
            commit_count: num(&v, "commit_count", "commitCount"),
            pending_tokens: num(&v, "pending_tokens", "pendingTokens"),
        }))
    }
    async fn create_session(&self, id: &str, policy: Value) -> HostResult<()> {
        self.ov("createSession", &[s(id), to_js(&policy)]).await.map(drop)
    }
    async fn add_messages(&self, id: &str, messages: Vec<Value>) -> HostResult<Option<u64>> {
        let v = self.ov("addMessages", &[s(id), to_js(&Value::Array(messages))]).await?;
        // `{message_count?}` or nothing; any other answer is not a confirmation
        match from_js("addMessages", &v)? {
            Value::Null => Ok(None),
            v @ Value::Object(_) => Ok(v.get("message_count").and_then(Value::as_u64)),
            _ => Err(HostError::new(HostErrorKind::BadResponse, "addMessages: unexpected answer")),
        }
    }
    async fn live_messages(&self, id: &str) -> HostResult<Vec<Value>> {
        match from_js("liveMessages", &self.ov("liveMessages", &[s(id)]).await?)? {
            Value::Array(a) => Ok(a),
            _ => Err(HostError::new(HostErrorKind::BadResponse, "liveMessages: expected an array")),
        }
    }
    async fn commit(&self, id: &str, body: Value) -> HostResult<CommitAnswer> {
        let v = from_js("commit", &self.ov("commit", &[s(id), to_js(&body)]).await?)?;
        match v.get("status").and_then(Value::as_str) {
            Some("accepted") if v.get("task_id").and_then(Value::as_str).is_some() => {
                Ok(CommitAnswer::Accepted { task_id: text(&v, "task_id"), archive_uri: text(&v, "archive_uri") })
            }
            Some("skipped") | Some("accepted") => Ok(CommitAnswer::Skipped { reason: text(&v, "reason") }),
            _ => Err(HostError::new(HostErrorKind::BadResponse, "commit: unexpected answer")),
        }
    }
    async fn task(&self, task_id: &str) -> HostResult<TaskAnswer> {
        let v = from_js("task", &self.ov("task", &[s(task_id)]).await?)?;
        Ok(match v.get("status").and_then(Value::as_str) {
            Some("completed") => TaskAnswer::Completed { result: v.get("result").cloned().unwrap_or(Value::Null) },
            Some("failed") => TaskAnswer::Failed { error: v.get("error").map(|e| e.to_string()).unwrap_or_default() },
            Some("running") => TaskAnswer::Running,
            _ => TaskAnswer::Pending,
        })
    }
    async fn archive(&self, id: &str, archive_id: &str) -> HostResult<Value> {
        object("archive", from_js("archive", &self.ov("archive", &[s(id), s(archive_id)]).await?)?)
    }
    async fn read_json(&self, uri: &str) -> HostResult<Value> {
        from_js("readJson", &self.ov("readJson", &[s(uri)]).await?)
    }
    async fn write_json(&self, uri: &str, value: Value) -> HostResult<()> {
        self.ov("writeJson", &[s(uri), to_js(&value)]).await.map(drop)
    }
    async fn find(&self, target_uri: &str, query: &str, limit: usize) -> HostResult<Value> {
        match from_js("find", &self.ov("find", &[s(target_uri), s(query), JsValue::from_f64(limit as f64)]).await?)? {
            v @ (Value::Object(_) | Value::Array(_) | Value::Null) => Ok(v),
            _ => Err(HostError::new(HostErrorKind::BadResponse, "find: expected a find result")),
        }
    }
    async fn read_content(&self, uri: &str) -> HostResult<Option<String>> {
        match self.ov("readContent", &[s(uri)]).await {
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
            Ok(v) if v.is_null() || v.is_undefined() => Ok(None),
            Ok(v) => v.as_string().map(Some).ok_or_else(|| HostError::new(HostErrorKind::BadResponse, "readContent: expected a string")),
        }
    }
    async fn write_text(&self, uri: &str, content: &str, create_only: bool, wait: bool) -> HostResult<()> {
        let mode = if create_only { "create" } else { "replace" };
        self.ov("writeText", &[s(uri), s(content), s(mode), JsValue::from_bool(wait)]).await.map(drop)
    }
    async fn stat(&self, uri: &str) -> HostResult<Option<Value>> {
        match self.ov("stat", &[s(uri)]).await {
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
            Ok(v) => match from_js("stat", &v)? {
                Value::Null => Ok(None),
                v @ Value::Object(_) => Ok(Some(v)),
                _ => Err(HostError::new(HostErrorKind::BadResponse, "stat: expected an object")),
            },
        }
    }
    async fn delete_uri(&self, uri: &str) -> HostResult<Value> {
        match from_js("deleteUri", &self.ov("deleteUri", &[s(uri)]).await?)? {
            v @ (Value::Object(_) | Value::Null) => Ok(v),
            _ => Err(HostError::new(HostErrorKind::BadResponse, "deleteUri: expected an object")),
        }
    }
    async fn user_id(&self) -> HostResult<Option<String>> {
        let v = self.ov("userId", &[]).await?;
        if v.is_null() || v.is_undefined() {
            return Ok(None);
        }
        v.as_string().map(Some).ok_or_else(|| HostError::new(HostErrorKind::BadResponse, "userId: expected a string"))
    }
}

impl Storage for JsHost {
    async fn list_state_keys(&self, prefix: &str) -> HostResult<Vec<String>> {
        match from_js("listStateKeys", &self.local("listStateKeys", &[s(prefix)]).await?) {
            Ok(Value::Array(a)) => Ok(a.into_iter().filter_map(|k| k.as_str().map(str::to_string)).filter(|k| k.starts_with(prefix)).collect()),
            Ok(Value::Null) => Ok(Vec::new()),
            _ => Err(HostError::new(HostErrorKind::Local, "listStateKeys: expected an array of strings")),
        }
    }
    async fn load_state(&self, key: &str) -> HostResult<Option<Value>> {
        let v = from_js("loadState", &self.local("loadState", &[s(key)]).await?).map_err(|e| HostError { kind: HostErrorKind::Local, ..e })?;
        Ok(if v.is_null() { None } else { Some(v) })
    }
    async fn save_state(&self, key: &str, value: Value) -> HostResult<()> {
        self.local("saveState", &[s(key), to_js(&value)]).await.map(drop)
    }
    async fn outbox_append(&self, key: &str, entry: Value) -> HostResult<()> {
        self.local("outboxAppend", &[s(key), to_js(&entry)]).await.map(drop)
    }
    async fn outbox_read(&self, key: &str) -> HostResult<Vec<Value>> {
        match from_js("outboxRead", &self.local("outboxRead", &[s(key)]).await?) {
            Ok(Value::Array(a)) => Ok(a),
            Ok(Value::Null) => Ok(Vec::new()),
            _ => Err(HostError::new(HostErrorKind::Local, "outboxRead: expected an array")),
        }
    }
    async fn outbox_drop(&self, key: &str, count: usize) -> HostResult<()> {
        self.local("outboxDrop", &[s(key), JsValue::from_f64(count as f64)]).await.map(drop)
    }
}

impl Clock for JsHost {
    fn now_ms(&self) -> u64 {
        let f = Reflect::get(&self.callbacks, &"nowMs".into()).ok().and_then(|f| f.dyn_into::<Function>().ok());
        let t = f.and_then(|f| f.call0(&self.callbacks).ok()).and_then(|v| v.as_f64());
        match t {
            Some(t) if t.is_finite() && t > 0.0 => t.min(u64::MAX as f64) as u64,
            // a clock that throws or answers nonsense: the platform's
            _ => js_sys::Date::now() as u64,
        }
    }
    async fn sleep(&self, ms: u64) {
        let _ = self.call("sleep", &[JsValue::from_f64(ms as f64)], ms.saturating_add(self.timeout_ms)).await;
    }
    fn warn(&self, message: &str) {
        if let Some(f) = Reflect::get(&self.callbacks, &"warn".into()).ok().and_then(|f| f.dyn_into::<Function>().ok()) {
            let _ = f.call1(&self.callbacks, &JsValue::from_str(message));
        }
    }
}
