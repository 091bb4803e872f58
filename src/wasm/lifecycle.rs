//! The `ContextEngine` export: the lifecycle orchestrator over `JsHost`. Every method
//! returns a Promise; the engine is shared by an `Rc` so background work (a commit the host
//! runs without awaiting) and the next turn can overlap safely.

use super::codec::{decode, encode, millis_arg, string_arg, to_js_error};
use super::js_host::JsHost;
use crate::config::parse_config;
use crate::engine::{Engine, TurnWrite};
use crate::error::{EngineError, ErrorCode};
use crate::host::{HostError, HostErrorKind};
use crate::input::as_object;
use crate::session_map::ov_session_id;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

fn host_err(e: HostError) -> JsValue {
    let code = if e.kind == HostErrorKind::Timeout { ErrorCode::HostTimeout } else { ErrorCode::HostFailed };
    to_js_error(EngineError::new(code, e.message))
}

/// Agent isolation: only this agent's OpenViking sessions may be touched.
fn owned(engine: &Engine<JsHost>, ov_session_id: &str) -> Result<(), JsValue> {
    if crate::session_map::owns_session(&engine.config.agent_id, ov_session_id) {
        Ok(())
    } else {
        Err(to_js_error(EngineError::input("ovSessionId", format!("{ov_session_id} is not a session of agent {}", engine.config.agent_id))))
    }
}

/// Runs an engine operation as a promise that settles within `ms`: at the deadline it
/// rejects `HOST_TIMEOUT`, while the operation itself finishes in the background (every host
/// call it makes is bounded too; nothing is cut off half-way).
fn bounded<F>(ms: u64, what: &'static str, fut: F) -> Promise
where
    F: std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
{
    let inner = future_to_promise(fut);
    future_to_promise(async move {
        match super::js_host::race_timer(&inner, ms).await {
            Some(out) => out,
            None => Err(to_js_error(EngineError::new(ErrorCode::HostTimeout, format!("{what}: not finished within {ms} ms; it goes on in the background")))),
        }
    })
}

/// How long an engine call may take: a few host calls' worth (each bounded by timeoutMs).
fn deadline(engine: &Engine<JsHost>, extra_ms: u64) -> u64 {
    engine.config.timeout_ms.saturating_mul(DEADLINE_CALLS).saturating_add(extra_ms)
}

/// Sequential host calls an engine call is allowed before its deadline.
const DEADLINE_CALLS: u64 = 4;

#[wasm_bindgen]
pub struct ContextEngine {
    inner: Rc<Engine<JsHost>>,
}

#[wasm_bindgen]
impl ContextEngine {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PluginConfig | null | undefined")] raw: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string | undefined> | undefined")] env: JsValue,
        #[wasm_bindgen(unchecked_param_type = "HostCallbacks")] host: JsValue,
    ) -> Result<ContextEngine, JsValue> {
        let raw = decode("(config)", &raw).map_err(to_js_error)?;
        let env = super::exports::read_env(&env)?;
        let parsed = parse_config(&raw, &env).map_err(to_js_error)?;
        let host = JsHost::new(host, parsed.config.timeout_ms).map_err(|why| to_js_error(EngineError::input("host", why)))?;
        Ok(ContextEngine { inner: Rc::new(Engine::new(parsed.config, host)) })
    }

    /// The OpenViking user id, for user-scope URIs (checkpoints).
    #[wasm_bindgen(js_name = setUserId)]
    pub fn set_user_id(&self, #[wasm_bindgen(unchecked_param_type = "string")] user_id: JsValue) -> Result<(), JsValue> {
        self.inner.set_user_id(&string_arg("userId", &user_id)?);
        Ok(())
    }

    /// The OpenViking session id of an OpenClaw `sessionId` for this agent.
    #[wasm_bindgen(js_name = ovSessionId)]
    pub fn ov_session_id(&self, #[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue) -> Result<String, JsValue> {
        Ok(ov_session_id(&self.inner.config.agent_id, &string_arg("sessionId", &session_id)?))
    }

    /// Is this OpenViking session one of this agent's? (Parsed, never a string prefix.)
    #[wasm_bindgen(js_name = ownsSession)]
    pub fn owns_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Result<bool, JsValue> {
        Ok(crate::session_map::owns_session(&self.inner.config.agent_id, &string_arg("ovSessionId", &ov_session_id)?))
    }

    /// Writes one finished turn losslessly (OpenViking, or the durable outbox).
    #[wasm_bindgen(js_name = writeTurn, unchecked_return_type = "Promise<WriteOutcome>")]
    pub fn write_turn(&self, #[wasm_bindgen(unchecked_param_type = "TurnWrite")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded(deadline(&inner, 0), "writeTurn", async move {
            let v = decode("(request)", &request).map_err(to_js_error)?;
            let req = TurnWrite::from_value(&v).map_err(to_js_error)?;
            encode(&inner.write_turn(req).await.map_err(to_js_error)?)
        })
    }

    /// `afterTurn`: `{...TurnWrite, messages: the whole transcript, prePromptMessageCount}`.
    /// A tool-loop checkpoint writes nothing (null); a finished turn is written whole.
    #[wasm_bindgen(js_name = afterTurn, unchecked_return_type = "Promise<WriteOutcome | null>")]
    pub fn after_turn(&self, #[wasm_bindgen(unchecked_param_type = "TurnWrite & { prePromptMessageCount?: number }")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded(deadline(&inner, 0), "afterTurn", async move {
            let v = decode("(request)", &request).map_err(to_js_error)?;
            let req = TurnWrite::from_value(&v).map_err(to_js_error)?;
            // lenient, as hosts send it: anything but a non-negative integer reads as 0
            let pre = v.get("prePromptMessageCount").and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
            encode(&inner.after_turn(req, pre).await.map_err(to_js_error)?)
        })
    }

    /// Runs a commit: `{ovSessionId, forced?, reason?, waitMs?}`.
    #[wasm_bindgen(js_name = runCommit, unchecked_return_type = "Promise<CommitOutcome>")]
    pub fn run_commit(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ ovSessionId: string; forced?: boolean; reason?: string; waitMs?: number }")] request: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        let parsed = (|| -> Result<_, JsValue> {
            let v = decode("(request)", &request).map_err(to_js_error)?;
            let o = as_object("", &v).map_err(to_js_error)?;
            let id = o.req_str("ovSessionId").map_err(to_js_error)?.to_string();
            owned(&inner, &id)?;
            let forced = o.opt_bool("forced").map_err(to_js_error)?.unwrap_or(false);
            let reason = o.opt_str("reason").map_err(to_js_error)?.unwrap_or(if forced { "compact()" } else { "trigger" }).to_string();
            let wait = o.opt_u64("waitMs").map_err(to_js_error)?;
            Ok((id, forced, reason, wait))
        })();
        let (id, forced, reason, wait) = match parsed {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        bounded(deadline(&inner, wait.unwrap_or(0)), "runCommit", async move {
            let until = wait.map(|w| crate::host::Host::now_ms(&inner.host).saturating_add(w));
            encode(&inner.run_commit(&id, forced, &reason, until).await.map_err(host_err)?)
        })
    }

    /// Follows a pending commit task for up to `waitMs`: the checkpoint, or null.
    #[wasm_bindgen(js_name = followTask, unchecked_return_type = "Promise<CompactCheckpoint | null>")]
    pub fn follow_task(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] wait_ms: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        let parsed = (|| -> Result<_, JsValue> {
            let id = string_arg("ovSessionId", &ov_session_id)?;
            let wait = millis_arg("waitMs", &wait_ms)?;
            owned(&inner, &id)?;
            Ok((id, wait))
        })();
        let (ov_session_id, wait_ms) = match parsed {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        bounded(deadline(&inner, wait_ms), "followTask", async move {
            let until = crate::host::Host::now_ms(&inner.host).saturating_add(wait_ms);
            encode(&inner.follow_task(&ov_session_id, until).await.map_err(host_err)?)
        })
    }

    /// Replays the session's outbox in order; resolves to what was written, what stayed
    /// queued and why.
    #[wasm_bindgen(unchecked_return_type = "Promise<FlushReport>")]
    pub fn flush(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded(deadline(&inner, 0), "flush", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.flush(&ov_session_id).await.map_err(host_err)?)
        })
    }

    /// The engine's durable record of a session (state, commit guard, checkpoints).
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionRecord>")]
    pub fn record(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded(deadline(&inner, 0), "record", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.load_record(&ov_session_id, "").await.map_err(host_err)?)
        })
    }
}
