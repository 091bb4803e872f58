//! `JsHost`: the engine's I/O as JS callbacks — an object the plugin passes in
//! (`HostCallbacks` in the TypeScript declarations): `request` carries one HTTP exchange
//! with `fetch` (the OpenViking protocol itself is Rust: `openviking`), the state callbacks
//! keep durable state in the plugin's state dir, and the clock and log. The engine's host is
//! `OpenVikingHttp<JsHost>`.
//!
//! A callback can misbehave in any way and it stays a failure of that one call: a missing
//! method, a synchronous throw, a rejection with anything (not only an `Error`), a hostile
//! thenable, a wrong shape, or no answer at all — each becomes a typed `HostError`
//! (`Timeout` after the engine's `timeoutMs`), never an exception through the wasm, never a
//! promise of the engine that does not settle. `nowMs`, `monotonicMs` and `warn` cannot break
//! a call either.

use crate::host::{Clock, HostError, HostErrorKind, HostResult, Storage};
use crate::openviking::{HttpRequest, HttpResponse, Transport, TransportFailure};
use js_sys::{Array, Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The callbacks `HostCallbacks` must have (checked when the engine is built).
pub const CALLBACKS: &[&str] = &[
    "request",
    "loadStateText",
    "saveStateText",
    "listStateKeys",
    "outboxAppendText",
    "outboxReadText",
    "outboxDrop",
    "sleep",
    "nowMs",
    "warn",
];

/// Grace on top of a request's own timeout (the `request` callback times out itself).
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

    /// Whether the optional callback `op` is there.
    fn has(&self, op: &str) -> bool {
        Reflect::get(&self.callbacks, &JsValue::from_str(op)).map(|f| f.is_function()).unwrap_or(false)
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
        Some("denied" | "UNAUTHENTICATED" | "PERMISSION_DENIED" | "FORBIDDEN") => HostErrorKind::Denied,
        Some("rejected") => HostErrorKind::Rejected,
        Some("local" | "LOCAL_STATE") => HostErrorKind::Local,
        _ if status >= 500.0 => HostErrorKind::ServerError,
        _ if status == 401.0 || status == 403.0 => HostErrorKind::Denied,
        _ if status >= 400.0 => HostErrorKind::Rejected,
        // An unknown failure is treated as transient: the turn is kept, not dropped.
        _ => HostErrorKind::BadResponse,
    };
    HostError::new(kind, message)
}

fn from_js(op: &str, v: &JsValue) -> HostResult<Value> {
    super::codec::decode(op, v).map_err(|e| HostError::new(HostErrorKind::BadResponse, e.message))
}

fn s(v: &str) -> JsValue {
    JsValue::from_str(v)
}

impl Transport for JsHost {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
        let headers = Object::new();
        for (k, v) in &request.headers {
            let _ = Reflect::set(&headers, &s(k), &s(v));
        }
        let req = Object::new();
        let _ = Reflect::set(&req, &"method".into(), &s(request.method.as_str()));
        let _ = Reflect::set(&req, &"url".into(), &s(&request.url));
        let _ = Reflect::set(&req, &"headers".into(), &headers);
        let body = request.body.as_deref().map_or(JsValue::UNDEFINED, s);
        let _ = Reflect::set(&req, &"body".into(), &body);
        let _ = Reflect::set(&req, &"timeoutMs".into(), &JsValue::from_f64(request.timeout_ms as f64));
        // the callback times out itself; this only guards against one that never settles
        let answer = self.call("request", &[req.into()], request.timeout_ms.saturating_add(TIMEOUT_GRACE_MS)).await;
        match answer {
            Err(e) if e.kind == HostErrorKind::Timeout => Err(TransportFailure::Timeout),
            Err(e) => Err(TransportFailure::Unreachable(e.message)),
            Ok(v) => {
                let status = prop(&v, "status").as_f64().filter(|n| n.fract() == 0.0 && (100.0..=599.0).contains(n));
                let body = prop(&v, "body").as_string();
                match (status, body) {
                    (Some(status), Some(body)) => Ok(HttpResponse { status: status as u16, body }),
                    _ => Err(TransportFailure::Malformed("request: expected {status: 100–599, body: string}".into())),
                }
            }
        }
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
    /// Documents and outbox entries cross as their JSON text: the host writes and reads the
    /// text as is, parsing nothing.
    async fn load_state(&self, key: &str) -> HostResult<Option<Value>> {
        let v = self.local("loadStateText", &[s(key)]).await?;
        match v.as_string() {
            // a document saved as `null` (a cleared mark) reads as none
            Some(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Null) => Ok(None),
                Ok(v) => Ok(Some(v)),
                Err(e) => Err(HostError::new(HostErrorKind::Local, format!("loadStateText: {key} is not JSON ({e})"))),
            },
            None if v.is_null() || v.is_undefined() => Ok(None),
            None => Err(HostError::new(HostErrorKind::Local, "loadStateText: expected a string or null")),
        }
    }
    async fn save_state(&self, key: &str, value: Value) -> HostResult<()> {
        self.local("saveStateText", &[s(key), s(&value.to_string())]).await.map(drop)
    }
    /// `saveCacheText` is optional: a host without it keeps caches as any other document.
    async fn save_cache(&self, key: &str, value: Value) -> HostResult<()> {
        if !self.has("saveCacheText") {
            return self.save_state(key, value).await;
        }
        self.local("saveCacheText", &[s(key), s(&value.to_string())]).await.map(drop)
    }
    async fn outbox_append(&self, key: &str, entry: Value) -> HostResult<()> {
        let turn_id = entry.get("turnId").and_then(Value::as_str).map_or(JsValue::NULL, s);
        self.local("outboxAppendText", &[s(key), s(&entry.to_string()), turn_id]).await.map(drop)
    }
    async fn outbox_read(&self, key: &str) -> HostResult<Vec<Value>> {
        let v = self.local("outboxReadText", &[s(key)]).await?;
        let texts: Array = v.dyn_into().map_err(|_| HostError::new(HostErrorKind::Local, "outboxReadText: expected an array of strings"))?;
        let mut entries = Vec::with_capacity(texts.length() as usize);
        for t in texts.iter() {
            let text = t.as_string().ok_or_else(|| HostError::new(HostErrorKind::Local, "outboxReadText: expected an array of strings"))?;
            // the host checked each record's frame; one that is not an object's JSON is
            // skipped, as a torn one is
            match serde_json::from_str::<Value>(&text) {
                Ok(v @ Value::Object(_)) => entries.push(v),
                _ => self.warn(&format!("outbox {key}: a record that is not a JSON object was skipped")),
            }
        }
        Ok(entries)
    }
    async fn outbox_drop(&self, key: &str, turn_ids: &[String]) -> HostResult<()> {
        let ids: Array = turn_ids.iter().map(|t| s(t)).collect();
        self.local("outboxDrop", &[s(key), ids.into()]).await.map(drop)
    }
    /// `tryLock` is optional: a host whose state is not shared between processes (a browser,
    /// a test's memory) has none, and the engine's in-process order is all there is.
    async fn try_lock(&self, name: &str, ttl_ms: u64) -> HostResult<bool> {
        if !self.has("tryLock") {
            return Ok(true);
        }
        match self.local("tryLock", &[s(name), JsValue::from_f64(ttl_ms as f64)]).await?.as_bool() {
            Some(b) => Ok(b),
            None => Err(HostError::new(HostErrorKind::Local, "tryLock: expected a boolean")),
        }
    }
    async fn unlock(&self, name: &str) -> HostResult<()> {
        if !self.has("unlock") {
            return Ok(());
        }
        self.local("unlock", &[s(name)]).await.map(drop)
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
    /// The optional `monotonicMs` callback (the plugin's: `performance.now()`); one that is
    /// missing, throws or answers anything but a finite number from 0 up is no monotonic clock.
    fn monotonic_ms(&self) -> Option<u64> {
        let f = Reflect::get(&self.callbacks, &"monotonicMs".into()).ok().and_then(|f| f.dyn_into::<Function>().ok())?;
        let t = f.call0(&self.callbacks).ok()?.as_f64()?;
        (t.is_finite() && t >= 0.0 && t < u64::MAX as f64).then_some(t as u64)
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
