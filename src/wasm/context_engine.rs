//! The `ContextEngine` export: the lifecycle orchestrator over `OpenVikingHttp<Pausing<JsHost>>` (the
//! protocol in Rust, each exchange and the state through the JS callbacks). Every method
//! returns a Promise; the engine is shared by an `Rc` so background work (a commit the host
//! runs without awaiting) and the next turn can overlap safely.

use super::codec::{decode, decode_request, encode, millis_arg, string_arg, to_js_error};
use super::js_host::JsHost;
use crate::openviking::pause::PauseScope;
use crate::openviking::{OpenVikingHttp, Pausing, Server};
use crate::config::parse_config;
use crate::engine::{AssembleCall, CommitCall, CompactCall, Engine, HookCall, ImportRequest, ToolContext, TurnWrite};
use crate::error::{EngineError, ErrorCode};
use crate::host::HostError;
use crate::address::session_map::ov_session_id;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// The engine's host: the OpenViking protocol over the JS callbacks.
pub(super) type Host = OpenVikingHttp<Pausing<JsHost>>;

fn host_err(e: HostError) -> JsValue {
    to_js_error(EngineError::from(e))
}

/// Agent isolation: only this agent's OpenViking sessions may be touched.
pub(super) fn owned(engine: &Engine<Host>, ov_session_id: &str) -> Result<(), JsValue> {
    if crate::address::session_map::owns_session(&engine.config.agent_id, ov_session_id) {
        Ok(())
    } else {
        Err(to_js_error(EngineError::input("ovSessionId", format!("{ov_session_id} is not a session of agent {}", engine.config.agent_id))))
    }
}

/// Runs an engine operation as a promise that settles within `ms`: at the deadline it
/// rejects `HOST_TIMEOUT`, while the operation itself finishes in the background (every host
/// call it makes is bounded too; nothing is cut off half-way). It counts as one of the
/// engine's running operations (`Engine::operation`) until `fut` itself ends.
///
/// Every export's future is boxed into one type before it reaches `future_to_promise`, so the
/// promise machinery is compiled once for the class, not once per method.
pub(super) fn bounded_op<F>(op: crate::engine::Operation<Host>, ms: u64, what: &'static str, fut: F) -> Promise
where
    F: std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
{
    bounded_boxed(
        ms,
        what,
        Box::pin(async move {
            let _running = op;
            fut.await
        }),
    )
}

type BoxedCall = std::pin::Pin<Box<dyn std::future::Future<Output = Result<JsValue, JsValue>>>>;

#[inline(never)]
fn bounded_boxed(ms: u64, what: &'static str, fut: BoxedCall) -> Promise {
    let inner = future_to_promise(fut);
    future_to_promise(async move {
        match super::js_host::race_timer(&inner, ms).await {
            Some(out) => out,
            None => Err(to_js_error(EngineError::new(ErrorCode::HostTimeout, format!("{what}: not finished within {ms} ms; it goes on in the background")))),
        }
    })
}

/// How long an engine call may take: a few host calls' worth (each bounded by timeoutMs).
pub(super) fn deadline(engine: &Engine<Host>, extra_ms: u64) -> u64 {
    engine.config.timeout_ms.saturating_mul(DEADLINE_CALLS).saturating_add(extra_ms)
}

/// Sequential host calls an engine call is allowed before its deadline.
pub(super) const DEADLINE_CALLS: u64 = 4;

#[wasm_bindgen]
pub struct ContextEngine {
    pub(super) inner: Rc<Engine<Host>>,
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
        let callbacks = JsHost::new(host, parsed.config.timeout_ms).map_err(|why| to_js_error(EngineError::input("host", why)))?;
        let server = Server::from_config(&parsed.config);
        let scope = PauseScope::new(&server.base_url, server.api_key.as_deref(), server.timeout_ms);
        let host = OpenVikingHttp::new(server, Pausing::new(callbacks, scope));
        Ok(ContextEngine { inner: Rc::new(Engine::new(parsed.config, host)) })
    }
    /// The OpenViking session id of an OpenClaw `sessionId` for this agent.
    #[wasm_bindgen(js_name = ovSessionId)]
    pub fn ov_session_id(&self, #[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue) -> Result<String, JsValue> {
        Ok(ov_session_id(&self.inner.config.agent_id, &string_arg("sessionId", &session_id)?))
    }

    /// Is this OpenViking session one of this agent's? (Parsed, never a string prefix.)
    #[wasm_bindgen(js_name = ownsSession)]
    pub fn owns_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Result<bool, JsValue> {
        Ok(crate::address::session_map::owns_session(&self.inner.config.agent_id, &string_arg("ovSessionId", &ov_session_id)?))
    }

    /// One turn's `assemble()`: the memories searched through the host, the profile, the
    /// composition of summaries, raw turns and the recall pair under `tokenBudget`.
    #[wasm_bindgen(unchecked_return_type = "Promise<Assembled>")]
    pub fn assemble(&self, #[wasm_bindgen(unchecked_param_type = "AssembleCall")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "assemble", async move {
            let call: AssembleCall = decode_request("(request)", &request).map_err(to_js_error)?;
            encode(&inner.assemble(call).await.map_err(to_js_error)?)
        })
    }
    /// `compact({sessionId, currentTokenCount?})`: a forced commit followed to its summary,
    /// answered in the host's shape `{ok, compacted, reason?, result?}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<CompactAnswer>")]
    pub fn compact(&self, #[wasm_bindgen(unchecked_param_type = "{ sessionId: string; currentTokenCount?: number }")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        let wait = inner.config.timeout_ms.saturating_mul(4).min(crate::engine::COMPACT_WAIT_MAX_MS);
        bounded_op(inner.operation(), deadline(&inner, wait), "compact", async move {
            let call: CompactCall = decode_request("(request)", &request).map_err(to_js_error)?;
            encode(&inner.compact(&call.session_id, call.current_token_count).await.map_err(host_err)?)
        })
    }

    /// The `before_prompt_build` fallback: `{sessionId?, prompt?, messages?}` → the block to
    /// prepend, or null (the engine assembled this turn, recall is off, nothing recalled).
    #[wasm_bindgen(js_name = hookFallback, unchecked_return_type = "Promise<string | null>")]
    pub fn hook_fallback(&self, #[wasm_bindgen(unchecked_param_type = "{ sessionId?: string; prompt?: string; messages?: AgentMessage[] }")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "hookFallback", async move {
            let call: HookCall = decode_request("(request)", &request).map_err(to_js_error)?;
            let block = inner.hook_fallback(call.session_id.as_deref(), call.prompt, call.messages).await.map_err(to_js_error)?;
            Ok(block.map_or(JsValue::NULL, |b| JsValue::from_str(&b)))
        })
    }

    /// Runs a memory tool by name (`memory_recall`, `memory_recall_auto`, `memory_store`,
    /// `memory_forget`, `memory_expand`, `memory_read_output`, `memory_search_history`): the
    /// tool's JSON document, or an error (`INVALID_INPUT` naming the field, `HOST_FAILED` when
    /// OpenViking failed). `context` is what the host knows of the call: `{sessionId?}` (the
    /// conversation the tool runs in, for `memory_search_history`'s `scope: "session"`).
    #[wasm_bindgen(js_name = runTool, unchecked_return_type = "Promise<Record<string, unknown>>")]
    pub fn run_tool(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ sessionId?: string } | undefined")] context: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "runTool", async move {
            let name = string_arg("name", &name)?;
            let params = decode("(params)", &params).map_err(to_js_error)?;
            let ctx: ToolContext = if context.is_undefined() || context.is_null() {
                ToolContext::default()
            } else {
                decode_request("(context)", &context).map_err(to_js_error)?
            };
            encode(&inner.run_tool_in(&name, &params, &ctx).await.map_err(to_js_error)?)
        })
    }
    /// The OpenViking user id behind the key (kept in the state dir for an hour), or null
    /// while the server is down or names no user.
    #[wasm_bindgen(js_name = userId, unchecked_return_type = "Promise<string | null>")]
    pub fn user_id(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "userId", async move { Ok(inner.resolve_user().await.map_or(JsValue::NULL, |u| JsValue::from_str(&u))) })
    }

    /// `setup` (local mode): a user key made with the server's root key — the account created
    /// with `userId` as its first user, or, when the account exists, that user's key made anew.
    /// The keys cross only here; every error message is free of both.
    #[wasm_bindgen(js_name = adminUserKey, unchecked_return_type = "Promise<UserKey>")]
    pub fn admin_user_key(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ rootKey: string; accountId: string; userId: string }")] request: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "adminUserKey", async move {
            let req: crate::openviking::admin::AdminKeyCall = decode_request("(request)", &request).map_err(to_js_error)?;
            let _now = inner.host.transport.ask_now();
            let server = crate::openviking::Server::from_config(&inner.config);
            let key = crate::openviking::admin::user_key(&inner.host.transport, &server, &req.root_key, &req.account_id, &req.user_id).await.map_err(|r| {
                let secrets = [req.root_key.as_str()];
                to_js_error(crate::error::EngineError::new(crate::error::ErrorCode::HostFailed, crate::openviking::server::redact_all(&r.message, &secrets)))
            })?;
            encode(&key)
        })
    }

    /// The operator's checks of the server, each reported: `GET /health` (no key), the key
    /// (`system/status`), a probe search of the user's memories; each within `timeoutMs`.
    /// `local` is what the plugin sees of its local server (`LocalServerFacts`; local mode):
    /// with it the verdict tells a server still starting from one that is down.
    #[wasm_bindgen(unchecked_return_type = "Promise<Probe>")]
    pub fn probe(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] timeout_ms: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LocalServerFacts | undefined")] local: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "probe", async move {
            let ms = millis_arg("timeoutMs", &timeout_ms)?.clamp(1, inner.config.timeout_ms.max(1));
            if !local.is_undefined() && !local.is_null() {
                inner.note_local_server(decode_request("local", &local).map_err(to_js_error)?);
            }
            let facts = inner.local_server();
            // the operator's check: sent now, whatever the pause says
            let _now = inner.host.transport.ask_now();
            encode(&crate::openviking::probe::probe(&inner.host, &inner.config, &facts, ms).await)
        })
    }

    /// What the plugin sees of its local server (local mode: a start under way, the last
    /// start's failure, the log file): recall skipped meanwhile is reported as such.
    #[wasm_bindgen(js_name = noteLocalServer)]
    pub fn note_local_server(&self, #[wasm_bindgen(unchecked_param_type = "LocalServerFacts")] facts: JsValue) -> Result<(), JsValue> {
        self.inner.note_local_server(decode_request("facts", &facts).map_err(to_js_error)?);
        Ok(())
    }
    /// Writes one finished turn losslessly (OpenViking, or the durable outbox).
    #[wasm_bindgen(js_name = writeTurn, unchecked_return_type = "Promise<WriteOutcome>")]
    pub fn write_turn(&self, #[wasm_bindgen(unchecked_param_type = "TurnWrite")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "writeTurn", async move {
            let req: TurnWrite = decode_request("(request)", &request).map_err(to_js_error)?;
            encode(&inner.write_turn(req).await.map_err(to_js_error)?)
        })
    }

    /// `afterTurn`: `{...TurnWrite, messages: the whole transcript, prePromptMessageCount}`.
    /// A tool-loop checkpoint writes nothing (null); a finished turn is written whole.
    #[wasm_bindgen(js_name = afterTurn, unchecked_return_type = "Promise<WriteOutcome | null>")]
    pub fn after_turn(&self, #[wasm_bindgen(unchecked_param_type = "TurnWrite")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "afterTurn", async move {
            let req: TurnWrite = decode_request("(request)", &request).map_err(to_js_error)?;
            let pre = req.pre_prompt_message_count.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
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
            let call: CommitCall = decode_request("(request)", &request).map_err(to_js_error)?;
            owned(&inner, &call.ov_session_id)?;
            let reason = call.reason.unwrap_or_else(|| (if call.forced { "compact()" } else { "trigger" }).to_string());
            Ok((call.ov_session_id, call.forced, reason, call.wait_ms))
        })();
        let (id, forced, reason, wait) = match parsed {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        bounded_op(inner.operation(), deadline(&inner, wait.unwrap_or(0)), "runCommit", async move {
            let until = wait.map(|w| crate::host::Clock::now_ms(&inner.host).saturating_add(w));
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
        bounded_op(inner.operation(), deadline(&inner, wait_ms), "followTask", async move {
            let until = crate::host::Clock::now_ms(&inner.host).saturating_add(wait_ms);
            encode(&inner.follow_task(&ov_session_id, until).await.map_err(host_err)?)
        })
    }

    /// Replays the session's outbox in order; resolves to what was written, what stayed
    /// queued and why.
    #[wasm_bindgen(unchecked_return_type = "Promise<FlushReport>")]
    pub fn flush(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "flush", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.flush(&ov_session_id).await.map_err(host_err)?)
        })
    }

    /// Before exit: waits for a replay already running, then replays what is left.
    #[wasm_bindgen(unchecked_return_type = "Promise<FlushReport>")]
    pub fn drain(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "drain", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.drain(&ov_session_id).await.map_err(host_err)?)
        })
    }

    /// The operator's `flush`: [`drain`](Self::drain) sent now, whatever the pause of a
    /// server that stopped answering says (what the requests find is kept as always).
    #[wasm_bindgen(js_name = flushNow, unchecked_return_type = "Promise<FlushReport>")]
    pub fn flush_now(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "flushNow", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            let _now = inner.host.transport.ask_now();
            encode(&inner.drain(&ov_session_id).await.map_err(host_err)?)
        })
    }

    /// The operator's `flush` of the agent's queued memory changes (`memory_store`,
    /// `memory_forget` during an outage), sent now: what was applied, what still waits and why.
    #[wasm_bindgen(js_name = flushMemoryNow, unchecked_return_type = "Promise<{ applied: number; queued: number; reason: string | null }>")]
    pub fn flush_memory_now(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "flushMemoryNow", async move {
            let _now = inner.host.transport.ask_now();
            let r = inner.replay_memory_ops().await;
            encode(&serde_json::json!({ "applied": r.applied, "queued": r.queued, "reason": r.reason.map(|why| why.to_string()) }))
        })
    }

    /// How many memory changes queued during an outage still wait (read from the state dir).
    #[wasm_bindgen(js_name = memoryQueued, unchecked_return_type = "Promise<number>")]
    pub fn memory_queued(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "memoryQueued", async move { Ok(JsValue::from_f64(inner.memory_queue_len().await.map_err(host_err)? as f64)) })
    }

    /// Adopts this agent's sessions that OpenViking holds and the state dir does not know (a
    /// second machine, a deleted state dir): their records and history are rebuilt from
    /// OpenViking, so the operator's commands list them. Quiet when OpenViking does not answer.
    #[wasm_bindgen(js_name = adoptSessions, unchecked_return_type = "Promise<void>")]
    pub fn adopt_sessions(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "adoptSessions", async move {
            inner.adopt_agent_sessions().await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Brings one past OpenClaw transcript into OpenViking (`openclaw openviking import`):
    /// what it holds, what OpenViking lacks, and with `apply` writes that, once and in order.
    #[wasm_bindgen(js_name = importSession, unchecked_return_type = "Promise<ImportReport>")]
    pub fn import_session(&self, #[wasm_bindgen(unchecked_param_type = "ImportRequest")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        let req: ImportRequest = match decode_request("(request)", &request) {
            Ok(r) => r,
            Err(e) => return Promise::reject(&to_js_error(e)),
        };
        // a bound for each event (a turn's lookups, write, send, and a commit's wait)
        let events = req.lines.len() as u64 + 1;
        let per_event = inner.config.timeout_ms.saturating_mul(DEADLINE_CALLS).saturating_add(req.commit_wait_ms.unwrap_or(crate::engine::IMPORT_COMMIT_WAIT_MS));
        bounded_op(inner.operation(), deadline(&inner, per_event.saturating_mul(events)), "importSession", async move {
            encode(&inner.import_session(req).await.map_err(to_js_error)?)
        })
    }

    /// First contact with a session (the host's bootstrap): true until a `firstContact`
    /// import of it got through, when the host should hand its transcript to `importSession`.
    #[wasm_bindgen(js_name = pastCheckDue, unchecked_return_type = "Promise<boolean>")]
    pub fn past_check_due(&self, #[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "pastCheckDue", async move {
            let session_id = string_arg("sessionId", &session_id)?;
            Ok(JsValue::from_bool(inner.past_check_due(&session_id).await.map_err(to_js_error)?))
        })
    }

    /// A session's status for an operator (turns stored, outbox, commits, triggers).
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionStatus>")]
    pub fn status(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "status", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.status(&ov_session_id).await.map_err(host_err)?)
        })
    }

    /// The last assembled turn of a session: what was searched, injected or cut and why, the
    /// token split; null when none is known.
    #[wasm_bindgen(unchecked_return_type = "Promise<Trace | null>")]
    pub fn trace(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "trace", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.trace(&ov_session_id).await)
        })
    }

    /// What the plugin sees of the host `{slot?, hostVersion?}`; answers the engine's
    /// diagnosis from it alone (`Inert`), or null.
    #[wasm_bindgen(js_name = noteHost, unchecked_return_type = "Inert | null")]
    pub fn note_host(&self, #[wasm_bindgen(unchecked_param_type = "HostFacts")] facts: JsValue) -> Result<JsValue, JsValue> {
        let facts: crate::lifecycle::inert::HostFacts = decode_request("facts", &facts).map_err(to_js_error)?;
        encode(&self.inner.note_host(facts))
    }

    /// Why the engine is not in use (not in the slot, host too old or untested, a turn run
    /// without it), or null.
    #[wasm_bindgen(unchecked_return_type = "Inert | null")]
    pub fn inert(&self) -> Result<JsValue, JsValue> {
        encode(&self.inner.inert())
    }
}

/// What only tests call (the `testing` feature: the test build, never a shipped package).
#[cfg(feature = "testing")]
#[wasm_bindgen]
impl ContextEngine {
    /// The OpenViking user id, for user-scope URIs (checkpoints).
    #[wasm_bindgen(js_name = setUserId)]
    pub fn set_user_id(&self, #[wasm_bindgen(unchecked_param_type = "string")] user_id: JsValue) -> Result<(), JsValue> {
        self.inner.set_user_id(&string_arg("userId", &user_id)?);
        Ok(())
    }

    /// The `memory_recall` tool: `{query, limit?, scoreThreshold?}` → `{memories}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ memories: RecalledMemory[] }>")]
    pub fn recall(&self, #[wasm_bindgen(unchecked_param_type = "{ query: string; limit?: number; scoreThreshold?: number }")] params: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "recall", async move {
            let call = crate::tools::RecallInput::from_value(&decode("(params)", &params).map_err(to_js_error)?).map_err(to_js_error)?;
            encode(&inner.recall_tool(call).await.map_err(to_js_error)?)
        })
    }

    /// This agent's memory scopes `{user, agent}` (the user resolved through the host).
    #[wasm_bindgen(js_name = memoryScopes, unchecked_return_type = "Promise<MemoryScopes>")]
    pub fn memory_scopes(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "memoryScopes", async move { encode(&inner.memory_scopes().await) })
    }

    /// Drops the reused search (after a memory was stored or deleted).
    #[wasm_bindgen(js_name = forgetSearch)]
    pub fn forget_search(&self) {
        self.inner.forget_search();
    }

    /// The engine's durable record of a session (state, commit guard, checkpoints).
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionRecord>")]
    pub fn record(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "record", async move {
            let ov_session_id = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov_session_id)?;
            encode(&inner.load_record(&ov_session_id, "").await.map_err(host_err)?)
        })
    }
}
