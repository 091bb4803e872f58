//! The plugin configuration (`plugins.entries.openviking.config`): every legacy key of the
//! 2026-03 plugin plus the context-engine keys, with defaults, bounds and env resolution.
//!
//! The configuration fails soft: OpenClaw hands the plugin whatever the user wrote (the
//! manifest's schema only describes the keys, it refuses nothing — a refusal there would
//! drop the whole OpenClaw config, the plugin and its `doctor` with it), and the engine
//! checks it here, naming each bad key, its value, the bound and the fix
//! ([`ConfigProblem`]). Two kinds of problem (documented in the README's configuration table):
//! - a **warning**: the engine runs, with the value the warning names —
//!   a number outside its bounds is clamped to the nearest bound; a number, boolean or
//!   `captureMode` of the wrong type or outside its set reads as the default; an unknown key
//!   is ignored (with the known key it most likely meant); `ingestReplyAssist*` keys are
//!   ignored; `baseUrl` is ignored in local mode; a user name or password in `baseUrl` is
//!   dropped (the key goes in `apiKey`);
//! - an **error**: the engine does not run until it is fixed, because no value can stand in
//!   for it without sending turns or the key somewhere the user did not say — `mode`,
//!   `baseUrl` (remote mode), `port`, `agentId`, `targetUri`, a `${VAR}` that is not set, a
//!   string key of the wrong type, a config that is not an object (and, checked by the plugin
//!   on disk, an unusable `stateDir`: [`state_dir_problem`]).
//!
//! `${VAR}` in `configPath`, `apiKey`, `baseUrl`, `stateDir` is resolved from the environment
//! handed in (an unset variable is an error naming the key and the variable, never a value);
//! `~` in paths is expanded from `HOME` when known.
//!
//! No secret appears in `Debug` output, problems, warnings or errors ([`secrets`]): not
//! `apiKey`, not the value of a misspelled key field (`api_key`, `token`, anything in
//! `headers`), not the user info of `baseUrl` (which is dropped, with a warning: the key goes
//! in `apiKey`), and not the configured key wherever else it was written.

mod check;
pub mod secrets;

pub use check::*;

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Environment variables the config may read (`HOME`, `OPENVIKING_*`, any `${VAR}` used).
pub type Env = BTreeMap<String, String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Mode {
    Local,
    Remote,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum CaptureMode {
    Semantic,
    Keyword,
}

/// The resolved configuration: every key present, every value within bounds.
#[derive(Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "ResolvedConfig"))]
pub struct Config {
    #[cfg_attr(feature = "typescript", ts(inline))]
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
    /// Only candidates scoring within this of the best one (1 = no window).
    pub recall_score_window: f64,
    /// A memory whose abstract shares no word with the query is not injected.
    pub recall_require_query_word: bool,
    /// Near-duplicate cut: a candidate whose words are at least this share found in a
    /// higher-scored one (and that matches the same query words) is a duplicate (0 = off).
    pub recall_near_duplicate_overlap: f64,
    pub recall_max_content_chars: usize,
    /// Lexical candidates beside the vector ones: OpenViking's grep over the user scope for the
    /// query's words, fused with the find (`recall::lexical`).
    pub recall_lexical: bool,
    pub recall_prefer_abstract: bool,
    pub recall_token_budget: usize,
    /// `None` = the caller's own user memories (`viking://user/<uid>/memories`), resolved once
    /// the user id is known. The legacy literal `viking://user/memories` also maps to `None`.
    pub target_uri: Option<String>,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub capture_mode: CaptureMode,
    pub capture_max_length: usize,
    pub recent_raw_turn_count: usize,
    pub assemble_recall_window: usize,
    pub compact_commit_threshold: f64,
    pub memory_expand_max_results: usize,
    pub compact_tokens_added_threshold: u64,
    pub compact_turn_threshold: u64,
    pub compact_max_interval_minutes: u64,
    /// A tool output above this many tokens is assembled as a stand-in (`tools::output_standin`).
    pub large_tool_result_tokens: u64,
    pub hook_fallback: bool,
    /// At the first contact with a session whose transcript holds earlier turns, import them
    /// in the background (`engine::import`); otherwise the log says how to.
    pub import_on_bootstrap: bool,
    /// List the skills relevant to a turn in the recall pair (`recall::skills`).
    pub skill_recall: bool,
    /// Skills listed per turn at most.
    pub skill_limit: usize,
    /// The map of the user's and this agent's folders in the system prompt addition (`map`).
    pub memory_map: bool,
    /// The map never exceeds this many tokens.
    pub memory_map_token_budget: usize,
    pub state_dir: Option<String>,
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

/// One problem with the plugin configuration: the key, the value given, what the engine does
/// about it, and what to change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConfigProblem {
    /// The key (`(config)` for the object itself).
    pub key: String,
    /// `error`: the engine does not run until it is fixed; `warning`: it runs with the value
    /// the message names.
    #[cfg_attr(feature = "typescript", ts(type = r#""error" | "warning""#))]
    pub severity: &'static str,
    /// The value as given, without secrets: `null` for `apiKey`; `"***"` for a field that may
    /// hold one (a misspelled key field, `headers`), in an object at any depth too; a URL's
    /// user info as `***`; the configured key, wherever it appears, as `[redacted]`.
    #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
    pub value: Value,
    /// What is wrong and what the engine does instead, e.g. `recallLimit=500 is above the
    /// maximum 100; using 100`.
    pub message: String,
    /// What to change, e.g. `set recallLimit to a whole number from 1 to 100 (default 6)`.
    pub fix: String,
}

impl ConfigProblem {
    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }

    /// One line: the message and the fix.
    pub fn line(&self) -> String {
        format!("{} — fix: {}", self.message, self.fix)
    }
}

/// A parsed configuration and the warnings parsing produced (clamped values, defaults used,
/// ignored keys), as lines and as problems.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ParsedConfig {
    pub config: Config,
    /// Each warning as one line: what was wrong, the value used, the fix.
    pub warnings: Vec<String>,
    pub problems: Vec<ConfigProblem>,
}

/// `checkConfig`: every problem of a configuration at once (never thrown), and the
/// configuration the engine runs with — `null` when a problem is an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConfigCheck {
    pub config: Option<Config>,
    pub problems: Vec<ConfigProblem>,
    /// When a problem is an error: the configuration with each key in error left at its
    /// default — what `doctor` checks and `setup` starts a local server with while the errors
    /// keep the engine off (e.g. `apiKey` naming a variable not set yet). `null` otherwise,
    /// or when even that is not a configuration.
    pub degraded: Option<Config>,
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
