//! The JS surface. Each export: decode → core → encode. Each is compiled into the package
//! that calls it (`plugin`: the configuration check, redaction, tool definitions, the host
//! diagnosis; `page`: the pure `Engine`, `parseConfig`, `configBounds`, `estimateTokens`;
//! both: `version`, `estimateMessageTokens`).

use super::codec::{decode, encode, string_arg, to_js_error};
use crate::config::Env;
use crate::decode::fields::as_object;
use serde_json::Value;
#[cfg(feature = "page")]
use crate::{
    config::{parse_config, Config},
    message::role,
    recall::auto::RecallRequest,
    recall::query::build_query,
    text::tokens::estimate_tokens,
};
use wasm_bindgen::prelude::*;

pub(crate) fn read_env(v: &JsValue) -> Result<Env, JsValue> {
    let value = decode("env", v).map_err(to_js_error)?;
    let mut env = Env::new();
    if let Value::Object(m) = value {
        for (k, v) in m {
            if let Value::String(s) = v {
                env.insert(k, s);
            }
        }
    }
    Ok(env)
}

/// The engine version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

#[cfg(feature = "page")]
/// Estimated tokens of a text (o200k-calibrated; honest for CJK and code).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens_js(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<usize, JsValue> {
    Ok(estimate_tokens(&string_arg("text", &text)?))
}

/// Estimated tokens of each message as a model receives it (text, tool calls, tool results,
/// framing), in order.
#[wasm_bindgen(js_name = estimateMessageTokens, unchecked_return_type = "number[]")]
pub fn estimate_message_tokens_js(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    let v = decode("messages", &messages).map_err(to_js_error)?;
    let Value::Array(items) = v else {
        return Err(to_js_error(crate::EngineError::input("messages", "expected an array of AgentMessages")));
    };
    encode(&items.iter().map(crate::message::estimate_message_tokens).collect::<Vec<usize>>())
}

#[cfg(feature = "page")]
/// Parses a plugin configuration: every key resolved, or an `INVALID_CONFIG` error naming the key.
#[wasm_bindgen(js_name = parseConfig, unchecked_return_type = "ParsedConfig")]
pub fn parse_config_js(
    #[wasm_bindgen(unchecked_param_type = "PluginConfig | null | undefined")] raw: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, string | undefined> | undefined")] env: JsValue,
) -> Result<JsValue, JsValue> {
    let raw = decode("(config)", &raw).map_err(to_js_error)?;
    encode(&parse_config(&raw, &read_env(&env)?).map_err(to_js_error)?)
}

#[cfg(feature = "plugin")]
/// Checks a plugin configuration without throwing: every problem (key, value, what the engine
/// does, the fix; errors and warnings) and the configuration the engine runs with, or `null`
/// when a problem is an error. What the plugin and `doctor` read a user's config with.
#[wasm_bindgen(js_name = checkConfig, unchecked_return_type = "ConfigCheck")]
pub fn check_config_js(
    #[wasm_bindgen(unchecked_param_type = "unknown")] raw: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, string | undefined> | undefined")] env: JsValue,
) -> Result<JsValue, JsValue> {
    let env = read_env(&env).unwrap_or_default();
    let check = match decode("(config)", &raw) {
        Ok(raw) => crate::config::check_config(&raw, &env),
        Err(e) => crate::config::check_config(&Value::String(e.message), &env),
    };
    encode(&check)
}

#[cfg(feature = "plugin")]
/// The agent an OpenClaw session key names (`agent:<agentId>:<rest>`), or `undefined`.
#[wasm_bindgen(js_name = agentFromSessionKey)]
pub fn agent_from_session_key_js(#[wasm_bindgen(unchecked_param_type = "string | null | undefined")] session_key: JsValue) -> Option<String> {
    session_key.as_string().and_then(|k| crate::address::session_map::agent_from_session_key(&k).map(str::to_string))
}

#[cfg(feature = "plugin")]
/// The problem of a state dir the plugin could not create or write (`{path, code, message?,
/// configured}`: the resolved path, the system's error code, its message, whether `stateDir`
/// set it): always an error naming `stateDir`, with its fix.
#[wasm_bindgen(js_name = stateDirProblem, unchecked_return_type = "ConfigProblem")]
pub fn state_dir_problem_js(
    #[wasm_bindgen(unchecked_param_type = "{ path: string; code?: string; message?: string; configured?: boolean }")] facts: JsValue,
) -> Result<JsValue, JsValue> {
    let v = decode("facts", &facts).map_err(to_js_error)?;
    let o = as_object("", &v).map_err(to_js_error)?;
    let path = o.req_str("path").map_err(to_js_error)?;
    let code = o.opt_str("code").map_err(to_js_error)?.unwrap_or("EIO");
    let message = o.opt_str("message").map_err(to_js_error)?.unwrap_or("");
    let configured = matches!(v.get("configured"), Some(Value::Bool(true)));
    encode(&crate::config::state_dir_problem(path, code, message, configured))
}

#[cfg(feature = "plugin")]
/// `text` with every secret (and its percent-encoded form) replaced by `[redacted]`; secrets
/// under 4 characters are not searched for. The operator commands pass their output through it.
#[wasm_bindgen(js_name = redactSecrets)]
pub fn redact_secrets_js(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Array<string | null | undefined>")] secrets: JsValue,
) -> Result<String, JsValue> {
    let text = string_arg("text", &text)?;
    let secrets = super::codec::string_items(&secrets);
    Ok(crate::openviking::server::redact_all(&text, &secrets.iter().map(String::as_str).collect::<Vec<_>>()))
}

#[cfg(feature = "plugin")]
/// The memory tools as the host registers them: `[{name, label, description, parameters}]`.
/// The text is `tools.json`, generated from `tools::tool_definitions()`
/// (`tests/tool_definitions_json.rs` fails when it is stale): parsed by JS, so the plugin's
/// wasm carries the JSON and not the code that builds it.
#[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "ToolDefinition[]")]
pub fn tool_definitions_js() -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(include_str!("tools.json"))
}

#[cfg(feature = "page")]
/// Every numeric plugin key's default and bounds (the tuning page's controls).
#[wasm_bindgen(js_name = configBounds, unchecked_return_type = "KeyBounds[]")]
pub fn config_bounds_js() -> Result<JsValue, JsValue> {
    encode(&crate::config::key_bounds())
}

#[cfg(feature = "plugin")]
/// Is this host going to use the engine? `{slot?, hostVersion?}` → `Inert` (cause and fix)
/// or null.
#[wasm_bindgen(js_name = diagnoseHost, unchecked_return_type = "Inert | null")]
pub fn diagnose_host_js(#[wasm_bindgen(unchecked_param_type = "HostFacts")] facts: JsValue) -> Result<JsValue, JsValue> {
    let facts: crate::lifecycle::inert::HostFacts = super::codec::decode_request("facts", &facts).map_err(to_js_error)?;
    encode(&crate::lifecycle::inert::diagnose_host(&facts))
}

#[cfg(feature = "plugin")]
/// The diagnosis of `diagnoseHost`, only the first time its cause is seen in this process
/// (then null): what the plugin logs at load, once per process and cause, as the engine does
/// when a turn runs without it. `line` is the warning to log.
#[wasm_bindgen(js_name = reportHost, unchecked_return_type = "(Inert & { line: string }) | null")]
pub fn report_host_js(#[wasm_bindgen(unchecked_param_type = "HostFacts")] facts: JsValue) -> Result<JsValue, JsValue> {
    let facts: crate::lifecycle::inert::HostFacts = super::codec::decode_request("facts", &facts).map_err(to_js_error)?;
    match crate::lifecycle::inert::diagnose_host(&facts).filter(crate::lifecycle::inert::first_report) {
        None => Ok(JsValue::NULL),
        Some(d) => {
            let mut v = serde_json::to_value(&d).unwrap_or(Value::Null);
            v["line"] = Value::String(crate::lifecycle::inert::warning(&d));
            encode(&v)
        }
    }
}

#[cfg(feature = "page")]
/// The engine, holding one parsed configuration.
#[wasm_bindgen]
pub struct Engine {
    config: Config,
    warnings: Vec<String>,
}

#[cfg(feature = "page")]
#[wasm_bindgen]
impl Engine {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PluginConfig | null | undefined")] raw: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string | undefined> | undefined")] env: JsValue,
    ) -> Result<Engine, JsValue> {
        let raw = decode("(config)", &raw).map_err(to_js_error)?;
        let parsed = parse_config(&raw, &read_env(&env)?).map_err(to_js_error)?;
        Ok(Engine { config: parsed.config, warnings: parsed.warnings })
    }

    /// The resolved configuration.
    #[wasm_bindgen(getter, unchecked_return_type = "ResolvedConfig")]
    pub fn config(&self) -> Result<JsValue, JsValue> {
        encode(&self.config)
    }

    /// The user-facing config keys, as they go under `plugins.entries.openviking.config`.
    #[wasm_bindgen(js_name = configSnippet, unchecked_return_type = "PluginConfig")]
    pub fn config_snippet(&self) -> Result<JsValue, JsValue> {
        encode(&self.config.to_user_json())
    }

    /// How many items the engine asks of each memory scope per search (the rerank pool).
    #[wasm_bindgen(getter, js_name = searchLimit)]
    pub fn search_limit(&self) -> usize {
        crate::recall::RecallSettings::from(&self.config).pool_size
    }

    /// Warnings from parsing the configuration (clamped values, ignored keys).
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// How the recall query is built from the current input and recent user turns.
    #[wasm_bindgen(js_name = buildRecallQuery, unchecked_return_type = "RecallQuery")]
    pub fn build_recall_query(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ prompt?: string; messages?: AgentMessage[] }")] input: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(input)", &input).map_err(to_js_error)?;
        let o = as_object("", &v).map_err(to_js_error)?;
        let prompt = o.opt_str("prompt").map_err(to_js_error)?;
        let messages = o.opt_array("messages").map_err(to_js_error)?.cloned().unwrap_or_default();
        let messages: Vec<Value> = messages.into_iter().filter(|m| role(m).is_some()).collect();
        encode(&build_query(prompt, &messages, self.config.assemble_recall_window))
    }

    /// One turn's `assemble()`: recall plus the composition of summaries, raw turns and the
    /// synthetic pair under the token budget.
    #[wasm_bindgen(unchecked_return_type = "AssembleResult")]
    pub fn assemble(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AssembleRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(request)", &request).map_err(to_js_error)?;
        encode(&crate::context::assemble::assemble_turn(&self.config, v).map_err(to_js_error)?)
    }

    /// The compaction triggers over a transcript, turn by turn (the demo's trigger timeline).
    #[wasm_bindgen(js_name = triggerTimeline, unchecked_return_type = "TimelineStep[]")]
    pub fn trigger_timeline(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ messages: AgentMessage[]; tokenBudget?: number }")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(request)", &request).map_err(to_js_error)?;
        let o = as_object("", &v).map_err(to_js_error)?;
        let messages: Vec<Value> = o.opt_array("messages").map_err(to_js_error)?.cloned().unwrap_or_default().into_iter().filter(|m| m.is_object()).collect();
        let budget = o.opt_u64("tokenBudget").map_err(to_js_error)?;
        encode(&crate::lifecycle::trigger_timeline::trigger_timeline(&self.config, messages, budget))
    }

    /// One turn's automatic recall: query, pipeline, and the messages with the synthetic
    /// `memory_recall_auto` pair injected (idempotently). The explain records (one per
    /// candidate: kept, or cut and why) only with `explain: true` — the tuning page asks.
    #[wasm_bindgen(js_name = autoRecall, unchecked_return_type = "AutoRecall")]
    pub fn auto_recall_js(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RecallRequest & { explain?: boolean }")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = super::codec::json_text("(request)", &request).map_err(to_js_error)?;
        let (v, scopes) = super::codec::decode_recall_request("(request)", &text).map_err(to_js_error)?;
        let explain = explain_flag(&v).map_err(to_js_error)?;
        let req = RecallRequest::from_value(v).map_err(to_js_error)?;
        encode(&crate::recall::auto::auto_recall_read(&self.config, req, scopes, explain).map_err(to_js_error)?)
    }

    /// A turn's recall as the per-turn call needs it: the request as for `autoRecall`, of
    /// whose `messages` only the newest user turns the query is built from are read; the
    /// answer is the query and the outcome (the pair is `recall.messages`), nothing echoed.
    #[wasm_bindgen(unchecked_return_type = "RecallAnswer")]
    pub fn recall(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RecallRequest & { explain?: boolean }")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = super::tail::with_newest_user_messages(&request, crate::recall::query::user_messages_read(self.config.assemble_recall_window)).map_err(to_js_error)?;
        let (v, scopes) = super::codec::decode_recall_request("(request)", &text.json).map_err(to_js_error)?;
        let explain = explain_flag(&v).map_err(to_js_error)?;
        let mut req = RecallRequest::from_value(v).map_err(to_js_error)?;
        let scopes = crate::recall::wire::with_scope_texts(&mut req, scopes, text.user, text.agent).map_err(to_js_error)?;
        encode(&crate::recall::auto::recall_answer_read(&self.config, req, scopes, explain).map_err(to_js_error)?)
    }
}

#[cfg(feature = "page")]
/// A request's optional `explain` flag.
fn explain_flag(v: &Value) -> Result<bool, crate::EngineError> {
    match v.get("explain") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(crate::EngineError::input("explain", format!("expected a boolean, got {}", crate::decode::fields::describe(other)))),
    }
}

/// What only tests call (the `testing` feature; the tuning page does not show them): the
/// intent analysis, memory_expand's ranking, a URI's expand target, the fallback block, the lexical
/// candidates' grep and fusion (the quality benchmark).
#[cfg(feature = "testing")]
#[wasm_bindgen]
impl Engine {
    /// The grep the engine sends beside a turn's memory find (`POST /api/v1/search/grep`'s
    /// body for the folder `uri`), `null` when the query has no word to look for or lexical
    /// candidates are off (`recall::lexical`).
    #[wasm_bindgen(js_name = lexicalGrep, unchecked_return_type = "{ uri: string; pattern: string; case_insensitive: boolean; node_limit: number; before_context: number; after_context: number } | null")]
    pub fn lexical_grep(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (query, uri) = (string_arg("query", &query)?, string_arg("uri", &uri)?);
        let terms = crate::recall::lexical::terms(&query);
        match crate::recall::lexical::pattern(&terms).filter(|_| self.config.recall_lexical) {
            Some(p) => encode(&crate::recall::lexical::grep_body(&uri, &p)),
            None => Ok(JsValue::NULL),
        }
    }

    /// A find answer with the lexical candidates of a grep answer placed among its memories,
    /// as the engine's search does (`recall::lexical::fuse`); `take` and `lift` override the
    /// engine's choices (the quality benchmark's knobs).
    #[wasm_bindgen(js_name = fuseLexical, unchecked_return_type = "unknown")]
    pub fn fuse_lexical(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ query: string; find: unknown; grep: unknown; take?: number; lift?: boolean }")] input: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(input)", &input).map_err(to_js_error)?;
        let o = as_object("", &v).map_err(to_js_error)?;
        let query = o.req_str("query").map_err(to_js_error)?;
        let mut find = v.get("find").cloned().unwrap_or(Value::Null);
        let grep = v.get("grep").cloned().unwrap_or(Value::Null);
        let hits = crate::recall::lexical::hits(&grep, &crate::recall::lexical::terms(query));
        let take = o.opt_u64("take").map_err(to_js_error)?.map_or(crate::recall::lexical::FUSED, |t| t.min(1000) as usize);
        let lift = o.opt_bool("lift").map_err(to_js_error)?.unwrap_or(crate::recall::lexical::LIFT);
        crate::recall::lexical::fuse_with(&mut find, &hits, take, lift);
        encode(&find)
    }

    /// What the intent analysis decides for the current user turn (`recall::intent`): whether
    /// it needs recall, the memory types it is about, the time window it names (from `nowMs`)
    /// and the user-scope folder the engine then searches.
    #[wasm_bindgen(js_name = recallIntent, unchecked_return_type = "RecallIntent | null")]
    pub fn recall_intent(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ prompt?: string; messages?: AgentMessage[]; nowMs: number }")] input: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(input)", &input).map_err(to_js_error)?;
        let o = as_object("", &v).map_err(to_js_error)?;
        let prompt = o.opt_str("prompt").map_err(to_js_error)?;
        let now_ms = o.opt_u64("nowMs").map_err(to_js_error)?.ok_or_else(|| to_js_error(crate::error::EngineError::input("nowMs", "required: the time of the turn, ms since the epoch")))?;
        let messages = o.opt_array("messages").map_err(to_js_error)?.cloned().unwrap_or_default();
        let messages: Vec<Value> = messages.into_iter().filter(|m| role(m).is_some()).collect();
        let built = build_query(prompt, &messages, self.config.assemble_recall_window);
        encode(&crate::recall::intent::of_turn(&built, now_ms))
    }

    /// `memory_expand`'s core: rank an archive's turns against the query, at most
    /// `memoryExpandMaxResults` (or `limit`, if smaller) excerpts.
    #[wasm_bindgen(unchecked_return_type = "Expansion")]
    pub fn expand(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ archiveUri: string; messages: unknown[]; checkpoint?: CompactCheckpoint | null; query?: string; limit?: number }")]
        request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = decode("(request)", &request).map_err(to_js_error)?;
        let o = as_object("", &v).map_err(to_js_error)?;
        let archive_uri = o.req_str("archiveUri").map_err(to_js_error)?;
        let messages = o.opt_array("messages").map_err(to_js_error)?.cloned().unwrap_or_default();
        let checkpoint = match o.get("checkpoint") {
            None => None,
            Some(c) => Some(
                serde_json::from_value::<crate::lifecycle::checkpoint::CompactCheckpoint>(c.clone())
                    .map_err(|e| to_js_error(crate::EngineError::input("checkpoint", e.to_string())))?,
            ),
        };
        let limit = o.opt_u64("limit").map_err(to_js_error)?.map_or(self.config.memory_expand_max_results, |l| (l as usize).clamp(1, self.config.memory_expand_max_results));
        let query = o.opt_str("query").map_err(to_js_error)?;
        encode(&crate::tools::expand::expand(archive_uri, &messages, checkpoint.as_ref(), query, limit))
    }

    /// What a URI given to `memory_expand` points at (archive, session, memory), or null.
    #[wasm_bindgen(js_name = classifyExpandUri, unchecked_return_type = "ExpandTarget | null")]
    pub fn classify_expand_uri(&self, #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue) -> Result<JsValue, JsValue> {
        encode(&crate::tools::expand::classify(&string_arg("uri", &uri)?))
    }

    /// The `before_prompt_build` fallback's block for these memories (markup escaped inside,
    /// so no memory can close it), or null when there is nothing to recall.
    #[wasm_bindgen(js_name = fallbackBlock, unchecked_return_type = "string | null")]
    pub fn fallback_block(&self, #[wasm_bindgen(unchecked_param_type = "RecalledMemory[]")] memories: JsValue) -> Result<JsValue, JsValue> {
        let v = decode("memories", &memories).map_err(to_js_error)?;
        let memories: Vec<crate::message::synthetic::RecalledMemory> =
            serde_json::from_value(v).map_err(|e| to_js_error(crate::EngineError::input("memories", e.to_string())))?;
        Ok(crate::message::fallback::fallback_block(&memories).map_or(JsValue::NULL, |b| JsValue::from_str(&b)))
    }
}
