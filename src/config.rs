//! The plugin configuration (`plugins.entries.openviking.config`): every legacy key of the
//! 2026-03 plugin plus the context-engine keys, with defaults, bounds and env resolution.
//!
//! Rules (documented in the README's configuration table):
//! - an unknown key, or a value of the wrong JSON type, is an error naming the key;
//! - an enum value outside its set (`mode`, `captureMode`) is an error naming the key;
//! - a number outside its bounds is clamped to the nearest bound, with a warning — this is the
//!   one way out-of-range values are handled;
//! - `ingestReplyAssist*` keys are accepted and ignored, with a warning;
//! - `${VAR}` in `configPath`, `apiKey`, `baseUrl`, `stateDir` is resolved from the environment
//!   handed in (an unset variable is an error naming the key, never the value); `~` in paths
//!   is expanded from `HOME` when known.
//!
//! `apiKey` never appears in `Debug` output, warnings or errors.

use crate::error::{EngineError, Result};
use crate::input::describe;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Environment variables the config may read (`HOME`, `OPENVIKING_*`, any `${VAR}` used).
pub type Env = BTreeMap<String, String>;

crate::ts_type! { ts(inline);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Local,
    Remote,
}
}

crate::ts_type! { ts(inline);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureMode {
    Semantic,
    Keyword,
}
}

crate::ts_type! { ts(name = "ResolvedConfig");
/// The resolved configuration: every key present, every value within bounds.
#[derive(Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    pub mode: Mode,
    pub config_path: String,
    pub port: u16,
    pub base_url: String,
    pub api_key: String,
    pub agent_id: String,
    pub timeout_ms: u64,
    pub auto_recall: bool,
    pub auto_capture: bool,
    pub recall_limit: usize,
    pub recall_score_threshold: f64,
    pub recall_max_content_chars: usize,
    pub recall_prefer_abstract: bool,
    pub recall_token_budget: usize,
    /// `None` = the caller's own user memories (`viking://user/<uid>/memories`), resolved once
    /// the user id is known. The legacy literal `viking://user/memories` also maps to `None`.
    pub target_uri: Option<String>,
    pub capture_mode: CaptureMode,
    pub capture_max_length: usize,
    pub recent_raw_turn_count: usize,
    pub assemble_recall_window: usize,
    pub compact_commit_threshold: f64,
    pub memory_expand_max_results: usize,
    pub compact_tokens_added_threshold: u64,
    pub compact_turn_threshold: u64,
    pub compact_max_interval_minutes: u64,
    /// A tool output above this many tokens is assembled as a stand-in (`tool_output`).
    pub large_tool_result_tokens: u64,
    pub hook_fallback: bool,
    pub state_dir: Option<String>,
}
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut v = serde_json::to_value(self).map_err(|_| fmt::Error)?;
        if let Some(m) = v.as_object_mut() {
            let shown = if self.api_key.is_empty() { "" } else { "<redacted>" };
            m.insert("apiKey".into(), Value::String(shown.into()));
        }
        write!(f, "Config {v}")
    }
}

crate::ts_type! {
/// A parsed configuration and the warnings parsing produced (clamped values, ignored keys).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedConfig {
    pub config: Config,
    pub warnings: Vec<String>,
}
}

/// Bounds of a numeric key: (default, min, max).
struct Bounds {
    default: f64,
    min: f64,
    max: f64,
}

const fn b(default: f64, min: f64, max: f64) -> Bounds {
    Bounds { default, min, max }
}

pub const LEGACY_USER_MEMORIES: &str = "viking://user/memories";

/// Every key the configuration accepts, in documentation order.
pub const KEYS: &[&str] = &[
    "mode", "configPath", "port", "baseUrl", "apiKey", "agentId", "timeoutMs", "autoRecall",
    "autoCapture", "recallLimit", "recallScoreThreshold", "recallMaxContentChars",
    "recallPreferAbstract", "recallTokenBudget", "targetUri", "captureMode", "captureMaxLength",
    "recentRawTurnCount", "assembleRecallWindow", "compactCommitThreshold",
    "memoryExpandMaxResults", "compactTokensAddedThreshold", "compactTurnThreshold",
    "compactMaxIntervalMinutes", "largeToolResultTokens", "hookFallback", "stateDir",
];

const PORT: Bounds = b(1933.0, 1.0, 65535.0);
const TIMEOUT_MS: Bounds = b(15000.0, 1000.0, 600_000.0);
const RECALL_LIMIT: Bounds = b(6.0, 1.0, 100.0);
const RECALL_SCORE_THRESHOLD: Bounds = b(0.15, 0.0, 1.0);
const RECALL_MAX_CONTENT_CHARS: Bounds = b(500.0, 50.0, 10_000.0);
const RECALL_TOKEN_BUDGET: Bounds = b(2000.0, 100.0, 50_000.0);
const CAPTURE_MAX_LENGTH: Bounds = b(24_000.0, 200.0, 200_000.0);
const RECENT_RAW_TURN_COUNT: Bounds = b(8.0, 0.0, 200.0);
const ASSEMBLE_RECALL_WINDOW: Bounds = b(5.0, 1.0, 50.0);
const COMPACT_COMMIT_THRESHOLD: Bounds = b(0.75, 0.1, 1.0);
const MEMORY_EXPAND_MAX_RESULTS: Bounds = b(6.0, 1.0, 100.0);
const COMPACT_TOKENS_ADDED_THRESHOLD: Bounds = b(30_000.0, 100.0, 10_000_000.0);
const COMPACT_TURN_THRESHOLD: Bounds = b(20.0, 1.0, 10_000.0);
const COMPACT_MAX_INTERVAL_MINUTES: Bounds = b(30.0, 1.0, 10_080.0);
const LARGE_TOOL_RESULT_TOKENS: Bounds = b(8_000.0, 500.0, 1_000_000.0);

crate::ts_type! {
/// A numeric plugin key's default and bounds (a value outside them is clamped, with a warning).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyBounds {
    pub key: String,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    /// Only whole numbers are accepted.
    pub integer: bool,
}
}

/// Every numeric key's default and bounds, in documentation order (what the tuning page's
/// controls offer; the page holds none of its own).
pub fn key_bounds() -> Vec<KeyBounds> {
    let table: [(&str, &Bounds, bool); 15] = [
        ("port", &PORT, true),
        ("timeoutMs", &TIMEOUT_MS, true),
        ("recallLimit", &RECALL_LIMIT, true),
        ("recallScoreThreshold", &RECALL_SCORE_THRESHOLD, false),
        ("recallMaxContentChars", &RECALL_MAX_CONTENT_CHARS, true),
        ("recallTokenBudget", &RECALL_TOKEN_BUDGET, true),
        ("captureMaxLength", &CAPTURE_MAX_LENGTH, true),
        ("recentRawTurnCount", &RECENT_RAW_TURN_COUNT, true),
        ("assembleRecallWindow", &ASSEMBLE_RECALL_WINDOW, true),
        ("compactCommitThreshold", &COMPACT_COMMIT_THRESHOLD, false),
        ("memoryExpandMaxResults", &MEMORY_EXPAND_MAX_RESULTS, true),
        ("compactTokensAddedThreshold", &COMPACT_TOKENS_ADDED_THRESHOLD, true),
        ("compactTurnThreshold", &COMPACT_TURN_THRESHOLD, true),
        ("compactMaxIntervalMinutes", &COMPACT_MAX_INTERVAL_MINUTES, true),
        ("largeToolResultTokens", &LARGE_TOOL_RESULT_TOKENS, true),
    ];
    table.iter().map(|(key, b, integer)| KeyBounds { key: key.to_string(), default: b.default, min: b.min, max: b.max, integer: *integer }).collect()
}

struct Reader<'a> {
    map: &'a Map<String, Value>,
    env: &'a Env,
    warnings: Vec<String>,
}

impl<'a> Reader<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn wrong(key: &str, expected: &str, got: &Value) -> EngineError {
        EngineError::config(key, format!("expected {expected}, got {}", describe(got)))
    }

    fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(v)) => Ok(*v),
            Some(other) => Err(Self::wrong(key, "a boolean", other)),
        }
    }

    fn string(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(Self::wrong(key, "a string", other)),
        }
    }

    fn number(&mut self, key: &str, bounds: &Bounds, integer: bool) -> Result<f64> {
        let v = match self.get(key) {
            None => return Ok(bounds.default),
            Some(Value::Number(n)) => n.as_f64().unwrap_or(bounds.default),
            Some(other) => {
                let what = if integer { "an integer" } else { "a number" };
                return Err(Self::wrong(key, what, other));
            }
        };
        if integer && v.fract() != 0.0 {
            return Err(EngineError::config(key, format!("expected an integer, got {v}")));
        }
        if v < bounds.min {
            self.warnings.push(format!("{key}={v} is below the minimum {}; using {}", bounds.min, bounds.min));
            return Ok(bounds.min);
        }
        if v > bounds.max {
            self.warnings.push(format!("{key}={v} is above the maximum {}; using {}", bounds.max, bounds.max));
            return Ok(bounds.max);
        }
        Ok(v)
    }

    fn int(&mut self, key: &str, bounds: &Bounds) -> Result<u64> {
        Ok(self.number(key, bounds, true)? as u64)
    }

    /// Resolves `${VAR}` references from the environment; an unset variable is an error that
    /// names the key and the variable, never the value.
    fn resolve_env(&self, key: &str, raw: &str) -> Result<String> {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| EngineError::config(key, "has an unterminated ${…} reference"))?;
            let name = &after[..end];
            let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(EngineError::config(key, format!("has an invalid variable name in ${{{name}}}")));
            }
            match self.env.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    return Err(EngineError::config(
                        key,
                        format!("refers to environment variable {name}, which is not set"),
                    ))
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn expand_home(&self, path: String) -> String {
        match (path.strip_prefix('~'), self.env.get("HOME")) {
            (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => format!("{home}{rest}"),
            _ => path,
        }
    }

    fn path(&self, key: &str) -> Result<Option<String>> {
        match self.string(key)? {
            None => Ok(None),
            Some(raw) => Ok(Some(self.expand_home(self.resolve_env(key, raw)?))),
        }
    }

    fn env_first(&self, names: &[&str]) -> Option<String> {
        names.iter().filter_map(|n| self.env.get(*n)).find(|v| !v.trim().is_empty()).cloned()
    }
}

fn check_agent_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(EngineError::config(
            "agentId",
            "must be 1–128 characters of letters, digits, '_', '-' or '.' (it names the agent's sessions)",
        ))
    }
}

fn check_base_url(url: &str) -> Result<()> {
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(())
    } else {
        Err(EngineError::config("baseUrl", "must start with http:// or https://"))
    }
}

/// Parses a raw configuration object. `raw` may be `null` (all defaults).
pub fn parse_config(raw: &Value, env: &Env) -> Result<ParsedConfig> {
    let empty = Map::new();
    let map = match raw {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => {
            return Err(EngineError::config("(config)", format!("expected an object, got {}", describe(other))))
        }
    };
    let mut r = Reader { map, env, warnings: Vec::new() };

    let mut unknown: Vec<&str> = Vec::new();
    for key in map.keys() {
        if key.starts_with("ingestReplyAssist") {
            r.warnings.push(format!("{key} is no longer used and is ignored"));
        } else if !KEYS.contains(&key.as_str()) {
            unknown.push(key);
        }
    }
    if !unknown.is_empty() {
        let first = unknown[0].to_string();
        return Err(EngineError::config(first, format!("config has unknown keys: {}", unknown.join(", "))));
    }

    let mode = match r.string("mode")? {
        None | Some("local") => Mode::Local,
        Some("remote") => Mode::Remote,
        Some(other) => return Err(EngineError::config("mode", format!("must be \"local\" or \"remote\", got {other:?}"))),
    };
    let capture_mode = match r.string("captureMode")? {
        None | Some("semantic") => CaptureMode::Semantic,
        Some("keyword") => CaptureMode::Keyword,
        Some(other) => {
            return Err(EngineError::config("captureMode", format!("must be \"semantic\" or \"keyword\", got {other:?}")))
        }
    };
    let port = r.int("port", &PORT)? as u16;
    let config_path = match r.path("configPath")? {
        Some(p) => p,
        None => r.expand_home("~/.openviking/ov.conf".to_string()),
    };
    let base_url = match mode {
        Mode::Local => format!("http://127.0.0.1:{port}"),
        Mode::Remote => match r.string("baseUrl")? {
            Some(raw) => r.resolve_env("baseUrl", raw)?,
            None => r
                .env_first(&["OPENVIKING_BASE_URL", "OPENVIKING_URL"])
                .unwrap_or_else(|| "http://127.0.0.1:1933".to_string()),
        },
    };
    if mode == Mode::Local {
        // Still type-check it so a typo does not pass silently.
        if r.string("baseUrl")?.is_some() {
            r.warnings.push("baseUrl is ignored in local mode (the local server's port decides)".into());
        }
    }
    let base_url = base_url.trim_end_matches('/').to_string();
    check_base_url(&base_url)?;
    let api_key = match r.string("apiKey")? {
        Some(raw) => r.resolve_env("apiKey", raw)?,
        None => r.env_first(&["OPENVIKING_API_KEY"]).unwrap_or_default(),
    };
    let agent_id = r.string("agentId")?.unwrap_or("default").to_string();
    check_agent_id(&agent_id)?;
    let target_uri = match r.string("targetUri")? {
        None => None,
        Some(u) if u.trim_end_matches('/') == LEGACY_USER_MEMORIES => None,
        Some(u) if u.starts_with("viking://") => Some(u.trim_end_matches('/').to_string()),
        Some(_) => return Err(EngineError::config("targetUri", "must be a viking:// URI")),
    };
    let state_dir = r.path("stateDir")?;

    let config = Config {
        mode,
        config_path,
        port,
        base_url,
        api_key,
        agent_id,
        timeout_ms: r.int("timeoutMs", &TIMEOUT_MS)?,
        auto_recall: r.bool("autoRecall", true)?,
        auto_capture: r.bool("autoCapture", true)?,
        recall_limit: r.int("recallLimit", &RECALL_LIMIT)? as usize,
        recall_score_threshold: r.number("recallScoreThreshold", &RECALL_SCORE_THRESHOLD, false)?,
        recall_max_content_chars: r.int("recallMaxContentChars", &RECALL_MAX_CONTENT_CHARS)? as usize,
        recall_prefer_abstract: r.bool("recallPreferAbstract", true)?,
        recall_token_budget: r.int("recallTokenBudget", &RECALL_TOKEN_BUDGET)? as usize,
        target_uri,
        capture_mode,
        capture_max_length: r.int("captureMaxLength", &CAPTURE_MAX_LENGTH)? as usize,
        recent_raw_turn_count: r.int("recentRawTurnCount", &RECENT_RAW_TURN_COUNT)? as usize,
        assemble_recall_window: r.int("assembleRecallWindow", &ASSEMBLE_RECALL_WINDOW)? as usize,
        compact_commit_threshold: r.number("compactCommitThreshold", &COMPACT_COMMIT_THRESHOLD, false)?,
        memory_expand_max_results: r.int("memoryExpandMaxResults", &MEMORY_EXPAND_MAX_RESULTS)? as usize,
        compact_tokens_added_threshold: r.int("compactTokensAddedThreshold", &COMPACT_TOKENS_ADDED_THRESHOLD)?,
        compact_turn_threshold: r.int("compactTurnThreshold", &COMPACT_TURN_THRESHOLD)?,
        compact_max_interval_minutes: r.int("compactMaxIntervalMinutes", &COMPACT_MAX_INTERVAL_MINUTES)?,
        large_tool_result_tokens: r.int("largeToolResultTokens", &LARGE_TOOL_RESULT_TOKENS)?,
        hook_fallback: r.bool("hookFallback", true)?,
        state_dir,
    };
    Ok(ParsedConfig { config, warnings: r.warnings })
}

impl Default for Config {
    fn default() -> Self {
        // Defaults cannot fail: no keys, no env.
        match parse_config(&Value::Null, &Env::new()) {
            Ok(p) => p.config,
            Err(e) => unreachable!("defaults are valid: {e}"),
        }
    }
}

impl Config {
    /// The caller's own user-memory scope, e.g. `viking://user/alice/memories`.
    pub fn user_memories_uri(&self, user_id: &str) -> String {
        match &self.target_uri {
            Some(u) => u.clone(),
            None => format!("viking://user/{user_id}/memories"),
        }
    }

    /// The caller's agent-memory scope.
    pub fn agent_memories_uri(&self) -> String {
        format!("viking://agent/{}/memories", self.agent_id)
    }

    /// The user-facing keys of this configuration as the JSON object a user puts under
    /// `plugins.entries.openviking.config` — secrets and machine-specific paths left out.
    pub fn to_user_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(m) = v.as_object_mut() {
            m.remove("apiKey");
            m.remove("configPath");
            m.remove("stateDir");
            if self.mode == Mode::Local {
                m.remove("baseUrl");
            }
            if self.target_uri.is_none() {
                m.remove("targetUri");
            }
        }
        v
    }
}
