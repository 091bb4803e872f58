//! `JsHost`: the engine's `Host` implemented by JS callbacks — an object the plugin passes
//! in (`HostCallbacks` in the TypeScript declarations) whose async methods do the OpenViking
//! I/O with `fetch` and keep durable state in the plugin's state dir. A rejected callback
//! becomes a typed `HostError` (by the error's `kind`, else its `code`/`status`), never a panic.

use crate::host::{CommitAnswer, Host, HostError, HostErrorKind, HostResult, SessionMeta, TaskAnswer};
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "HostCallbacks")]
    pub type HostCallbacks;

    #[wasm_bindgen(method, catch, js_name = sessionMeta)]
    async fn session_meta(this: &HostCallbacks, ov_session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createSession)]
    async fn create_session(this: &HostCallbacks, ov_session_id: &str, memory_policy: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = addMessages)]
    async fn add_messages(this: &HostCallbacks, ov_session_id: &str, messages: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = liveMessages)]
    async fn live_messages(this: &HostCallbacks, ov_session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn commit(this: &HostCallbacks, ov_session_id: &str, body: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn task(this: &HostCallbacks, task_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn archive(this: &HostCallbacks, ov_session_id: &str, archive_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readJson)]
    async fn read_json(this: &HostCallbacks, uri: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeJson)]
    async fn write_json(this: &HostCallbacks, uri: &str, value: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadState)]
    async fn load_state(this: &HostCallbacks, key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = saveState)]
    async fn save_state(this: &HostCallbacks, key: &str, value: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = outboxAppend)]
    async fn outbox_append(this: &HostCallbacks, key: &str, entry: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = outboxRead)]
    async fn outbox_read(this: &HostCallbacks, key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = outboxDrop)]
    async fn outbox_drop(this: &HostCallbacks, key: &str, count: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn sleep(this: &HostCallbacks, ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, js_name = nowMs)]
    fn now_ms(this: &HostCallbacks) -> f64;
    #[wasm_bindgen(method)]
    fn warn(this: &HostCallbacks, message: &str);
}

pub struct JsHost {
    callbacks: HostCallbacks,
}

impl JsHost {
    pub fn new(callbacks: HostCallbacks) -> Self {
        JsHost { callbacks }
    }
}

fn prop(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A rejection as a typed error: `err.kind` if it names one, else by `code`, else `status`.
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

impl Host for JsHost {
    async fn session_meta(&self, id: &str) -> HostResult<Option<SessionMeta>> {
        let v = from_js("sessionMeta", &self.callbacks.session_meta(id).await.map_err(|e| host_error("sessionMeta", e))?)?;
        if v.is_null() {
            return Ok(None);
        }
        Ok(Some(SessionMeta {
            message_count: num(&v, "message_count", "messageCount"),
            commit_count: num(&v, "commit_count", "commitCount"),
            pending_tokens: num(&v, "pending_tokens", "pendingTokens"),
        }))
    }
    async fn create_session(&self, id: &str, policy: Value) -> HostResult<()> {
        self.callbacks.create_session(id, to_js(&policy)).await.map_err(|e| host_error("createSession", e))?;
        Ok(())
    }
    async fn add_messages(&self, id: &str, messages: Vec<Value>) -> HostResult<Option<u64>> {
        let v = self.callbacks.add_messages(id, to_js(&Value::Array(messages))).await.map_err(|e| host_error("addMessages", e))?;
        Ok(from_js("addMessages", &v).ok().and_then(|v| v.get("message_count").and_then(Value::as_u64)))
    }
    async fn live_messages(&self, id: &str) -> HostResult<Vec<Value>> {
        match from_js("liveMessages", &self.callbacks.live_messages(id).await.map_err(|e| host_error("liveMessages", e))?)? {
            Value::Array(a) => Ok(a),
            v => Err(HostError::new(HostErrorKind::BadResponse, format!("liveMessages: expected an array, got {v}"))),
        }
    }
    async fn commit(&self, id: &str, body: Value) -> HostResult<CommitAnswer> {
        let v = from_js("commit", &self.callbacks.commit(id, to_js(&body)).await.map_err(|e| host_error("commit", e))?)?;
        match v.get("status").and_then(Value::as_str) {
            Some("accepted") if v.get("task_id").and_then(Value::as_str).is_some() => {
                Ok(CommitAnswer::Accepted { task_id: text(&v, "task_id"), archive_uri: text(&v, "archive_uri") })
            }
            Some("skipped") | Some("accepted") => Ok(CommitAnswer::Skipped { reason: text(&v, "reason") }),
            _ => Err(HostError::new(HostErrorKind::BadResponse, format!("commit: unexpected answer {v}"))),
        }
    }
    async fn task(&self, task_id: &str) -> HostResult<TaskAnswer> {
        let v = from_js("task", &self.callbacks.task(task_id).await.map_err(|e| host_error("task", e))?)?;
        Ok(match v.get("status").and_then(Value::as_str) {
            Some("completed") => TaskAnswer::Completed { result: v.get("result").cloned().unwrap_or(Value::Null) },
            Some("failed") => TaskAnswer::Failed { error: v.get("error").map(|e| e.to_string()).unwrap_or_default() },
            Some("running") => TaskAnswer::Running,
            _ => TaskAnswer::Pending,
        })
    }
    async fn archive(&self, id: &str, archive_id: &str) -> HostResult<Value> {
        from_js("archive", &self.callbacks.archive(id, archive_id).await.map_err(|e| host_error("archive", e))?)
    }
    async fn read_json(&self, uri: &str) -> HostResult<Value> {
        from_js("readJson", &self.callbacks.read_json(uri).await.map_err(|e| host_error("readJson", e))?)
    }
    async fn write_json(&self, uri: &str, value: Value) -> HostResult<()> {
        self.callbacks.write_json(uri, to_js(&value)).await.map_err(|e| host_error("writeJson", e))?;
        Ok(())
    }
    async fn load_state(&self, key: &str) -> HostResult<Option<Value>> {
        let v = from_js("loadState", &self.callbacks.load_state(key).await.map_err(|e| host_error("loadState", e))?)?;
        Ok(if v.is_null() { None } else { Some(v) })
    }
    async fn save_state(&self, key: &str, value: Value) -> HostResult<()> {
        self.callbacks.save_state(key, to_js(&value)).await.map_err(|e| host_error("saveState", e))?;
        Ok(())
    }
    async fn outbox_append(&self, key: &str, entry: Value) -> HostResult<()> {
        self.callbacks.outbox_append(key, to_js(&entry)).await.map_err(|e| host_error("outboxAppend", e))?;
        Ok(())
    }
    async fn outbox_read(&self, key: &str) -> HostResult<Vec<Value>> {
        let v = from_js("outboxRead", &self.callbacks.outbox_read(key).await.map_err(|e| host_error("outboxRead", e))?)?;
        Ok(match v {
            Value::Array(a) => a,
            _ => Vec::new(),
        })
    }
    async fn outbox_drop(&self, key: &str, count: usize) -> HostResult<()> {
        self.callbacks.outbox_drop(key, count.min(u32::MAX as usize) as u32).await.map_err(|e| host_error("outboxDrop", e))?;
        Ok(())
    }
    fn now_ms(&self) -> u64 {
        let t = self.callbacks.now_ms();
        if t.is_finite() && t > 0.0 { t as u64 } else { 0 }
    }
    async fn sleep(&self, ms: u64) {
        let _ = self.callbacks.sleep(ms as f64).await;
    }
    fn warn(&self, message: &str) {
        self.callbacks.warn(message);
    }
}
