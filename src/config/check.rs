//! A plugin config read and checked: every key's bounds and default, `${VAR}` resolved, each
//! problem naming its key, its value (no secret) and the fix; the config the engine runs with.

use super::{secrets, CaptureMode, Config, ConfigCheck, ConfigProblem, Env, Mode, ParsedConfig};
use crate::decode::fields::describe;
use crate::error::{EngineError, Result};
use serde::Serialize;
use serde_json::{Map, Value};

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
    "autoCapture", "recallLimit", "recallScoreThreshold", "recallScoreWindow", "recallRequireQueryWord",
    "recallNearDuplicateOverlap", "recallMaxContentChars", "recallLexical",
    "recallPreferAbstract", "recallTokenBudget", "targetUri", "captureMode", "captureMaxLength",
    "recentRawTurnCount", "assembleRecallWindow", "compactCommitThreshold",
    "memoryExpandMaxResults", "compactTokensAddedThreshold", "compactTurnThreshold",
    "compactMaxIntervalMinutes", "largeToolResultTokens", "hookFallback", "importOnBootstrap", "skillRecall", "skillLimit",
    "memoryMap", "memoryMapTokenBudget", "stateDir",
];

/// Keys of `plugins.entries.openviking` (one level up) that users put inside `config`.
const ENTRY_KEYS: &[&str] = &["enabled", "hooks", "config", "apiKeys"];

/// The local server's port: not clamped (port 1 or 65535 is never what was meant).
pub const PORT_DEFAULT: u16 = 1933;
const TIMEOUT_MS: Bounds = b(15000.0, 1000.0, 600_000.0);
const RECALL_LIMIT: Bounds = b(6.0, 1.0, 100.0);
const RECALL_SCORE_THRESHOLD: Bounds = b(0.15, 0.0, 1.0);
const RECALL_SCORE_WINDOW: Bounds = b(0.1, 0.0, 1.0);
const RECALL_NEAR_DUPLICATE_OVERLAP: Bounds = b(0.7, 0.0, 1.0);
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
const SKILL_LIMIT: Bounds = b(3.0, 1.0, 20.0);
const MEMORY_MAP_TOKEN_BUDGET: Bounds = b(200.0, 50.0, 2_000.0);

/// A numeric plugin key's default and bounds (a value outside them is clamped, with a warning).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct KeyBounds {
    pub key: String,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    /// Only whole numbers are accepted.
    pub integer: bool,
}

const BOUNDED: [(&str, &Bounds, bool); 18] = [
    ("timeoutMs", &TIMEOUT_MS, true),
    ("recallLimit", &RECALL_LIMIT, true),
    ("recallScoreThreshold", &RECALL_SCORE_THRESHOLD, false),
    ("recallScoreWindow", &RECALL_SCORE_WINDOW, false),
    ("recallNearDuplicateOverlap", &RECALL_NEAR_DUPLICATE_OVERLAP, false),
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
    ("skillLimit", &SKILL_LIMIT, true),
    ("memoryMapTokenBudget", &MEMORY_MAP_TOKEN_BUDGET, true),
];

/// Every clamped numeric key's default and bounds, in documentation order (what the tuning
/// page's controls offer; the page holds none of its own). `port` is not one: an invalid
/// port is an error.
pub fn key_bounds() -> Vec<KeyBounds> {
    BOUNDED.iter().map(|(key, b, integer)| KeyBounds { key: key.to_string(), default: b.default, min: b.min, max: b.max, integer: *integer }).collect()
}

/// A number as a person writes it (`100`, `0.15`, `1e21`).
fn num(v: f64) -> String {
    format!("{v}")
}

/// A value as given, short enough for a log line.
fn shown(v: &Value) -> String {
    let t = v.to_string();
    if t.chars().count() <= 80 {
        t
    } else {
        format!("{}…", t.chars().take(80).collect::<String>())
    }
}

/// Edit distance (case-insensitive), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known key an unknown one most likely meant.
fn closest_key(key: &str) -> Option<&'static str> {
    let (best, d) = KEYS.iter().map(|k| (*k, distance(key, k))).min_by_key(|(_, d)| *d)?;
    (d <= 2 || (d <= 3 && key.len() >= 12)).then_some(best)
}

struct Reader<'a> {
    map: &'a Map<String, Value>,
    env: &'a Env,
    problems: Vec<ConfigProblem>,
}

impl<'a> Reader<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn problem(&mut self, severity: &'static str, key: &str, message: String, fix: String) {
        let value = self.map.get(key).map_or(Value::Null, |v| shown_value(key, v));
        self.problems.push(ConfigProblem { key: key.to_string(), severity, value, message, fix });
    }

    fn warn(&mut self, key: &str, message: String, fix: String) {
        self.problem("warning", key, message, fix);
    }

    fn error(&mut self, key: &str, message: String, fix: String) {
        self.problem("error", key, message, fix);
    }

    /// `key=<value>`, the value left out for apiKey.
    fn given(&self, key: &str) -> String {
        match self.map.get(key) {
            Some(_) if key == "apiKey" => "apiKey".to_string(),
            Some(v) => format!("{key}={}", shown(v)),
            None => key.to_string(),
        }
    }

    fn bool(&mut self, key: &str, default: bool) -> bool {
        match self.get(key) {
            None => default,
            Some(Value::Bool(v)) => *v,
            Some(other) => {
                let what = describe(other);
                self.warn(key, format!("{} is {what}, not true or false; using the default {default}", self.given(key)), format!("set {key} to true or false"));
                default
            }
        }
    }

    /// A string key whose value nothing can stand in for: another type is an error.
    fn string(&mut self, key: &str, fix: &str) -> Option<&'a str> {
        match self.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                let what = describe(other);
                self.error(key, format!("{} is {what}, not a string", self.given(key)), fix.to_string());
                None
            }
        }
    }

    fn number(&mut self, key: &str, bounds: &Bounds, integer: bool) -> f64 {
        let kind = if integer { "a whole number" } else { "a number" };
        let fix = format!("set {key} to {kind} from {} to {} (default {})", num(bounds.min), num(bounds.max), num(bounds.default));
        let v = match self.get(key) {
            None => return bounds.default,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(v) if v.is_finite() => v,
                _ => bounds.default,
            },
            Some(other) => {
                let what = describe(other);
                self.warn(key, format!("{} is {what}, not {kind}; using the default {}", self.given(key), num(bounds.default)), fix);
                return bounds.default;
            }
        };
        if integer && v.fract() != 0.0 {
            self.warn(key, format!("{key}={} is not a whole number; using the default {}", num(v), num(bounds.default)), fix);
            return bounds.default;
        }
        if v < bounds.min {
            self.warn(key, format!("{key}={} is below the minimum {}; using {}", num(v), num(bounds.min), num(bounds.min)), fix);
            return bounds.min;
        }
        if v > bounds.max {
            self.warn(key, format!("{key}={} is above the maximum {}; using {}", num(v), num(bounds.max), num(bounds.max)), fix);
            return bounds.max;
        }
        v
    }

    fn int(&mut self, key: &str, bounds: &Bounds) -> u64 {
        self.number(key, bounds, true) as u64
    }

    /// Resolves `${VAR}` references from the environment; an unset variable is an error that
    /// names the key and the variable, never the value. `None` after an error.
    fn resolve_env(&mut self, key: &str, raw: &str) -> Option<String> {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                self.error(key, format!("{key} has an unterminated ${{…}} reference"), format!("close it: ${{NAME}}, or write {key} without one"));
                return None;
            };
            let name = &after[..end];
            let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                let shown_name: String = name.chars().take(40).collect();
                self.error(key, format!("{key} has an invalid variable name in ${{{shown_name}}}"), "use letters, digits and _ in ${NAME}".to_string());
                return None;
            }
            match self.env.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    self.error(
                        key,
                        format!("{key} refers to ${{{name}}}, which is not set in this process's environment"),
                        format!("export {name} where OpenClaw (or its gateway) starts, or write {key} without the reference"),
                    );
                    return None;
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Some(out)
    }

    fn expand_home(&self, path: String) -> String {
        match (path.strip_prefix('~'), self.env.get("HOME")) {
            (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => format!("{home}{rest}"),
            _ => path,
        }
    }

    fn path(&mut self, key: &str, fix: &str) -> Option<String> {
        let raw = self.string(key, fix)?;
        let resolved = self.resolve_env(key, raw)?;
        Some(self.expand_home(resolved))
    }

    fn env_first(&self, names: &[&str]) -> Option<(&'static str, String)> {
        const KNOWN: &[&str] = &["OPENVIKING_BASE_URL", "OPENVIKING_URL", "OPENVIKING_API_KEY"];
        names.iter().filter_map(|n| Some((KNOWN.iter().find(|k| *k == n)?, self.env.get(*n)?))).find(|(_, v)| !v.trim().is_empty()).map(|(n, v)| (*n, v.clone()))
    }
}

/// A key's value as a problem carries it: never `apiKey`'s; `baseUrl`'s without its user info
/// (with or without a scheme); another known key's with the user info of its URLs hidden; an
/// unknown key's without any field that may hold a secret ([`secrets`]).
fn shown_value(key: &str, v: &Value) -> Value {
    match (key, v) {
        ("apiKey", _) => Value::Null,
        ("baseUrl", Value::String(url)) => Value::String(secrets::shown_url(url)),
        _ if KEYS.contains(&key) => secrets::without_secrets_inside(v),
        _ => secrets::without_secret_fields(key, v),
    }
}

/// What no problem may show: the key in use, and every string from a field that may hold a
/// secret or from a URL's user info (a `${VAR}` reference is the variable's name, not a
/// secret, and is left out).
fn secrets_of(map: &Map<String, Value>, api_key: Option<&str>, base_url: Option<&str>) -> Vec<String> {
    let mut found = Vec::new();
    for (k, v) in map {
        secrets::secret_strings(k, v, &mut found);
    }
    found.retain(|s| !s.contains("${"));
    found.extend(api_key.map(str::to_string));
    found.extend(base_url.and_then(secrets::userinfo_secret).map(str::to_string));
    found
}

/// `p` with no secret in it ([`secrets::Scrubber`]).
fn without_secrets(p: ConfigProblem, scrub: &secrets::Scrubber) -> ConfigProblem {
    ConfigProblem { key: scrub.text(&p.key), value: scrub.value(&p.value), message: scrub.text(&p.message), fix: scrub.text(&p.fix), ..p }
}

/// The plugin's rule for an agent id: 1–128 characters from `A–Z a–z 0–9 _ . -` (OpenClaw's
/// own ids fit it; the session ids and the folders built from it stay plain).
pub fn is_agent_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Why a server URL cannot be used, and the fix; `None` when it is an http(s) URL with a host.
fn base_url_problem(url: &str) -> Option<(String, String)> {
    let t = url.trim();
    let rest = t.strip_prefix("http://").or_else(|| t.strip_prefix("https://"));
    let Some(rest) = rest else {
        if let Some((scheme, _)) = t.split_once("://") {
            return Some((format!("has the scheme {scheme}://, not http:// or https://"), "set baseUrl to the OpenViking server's http:// or https:// URL".into()));
        }
        let suggestion = if t.is_empty() { "http://127.0.0.1:1933".to_string() } else { format!("http://{t}") };
        return Some(("has no http:// or https:// in front".into(), format!("set baseUrl to \"{suggestion}\" (the scheme, then the host and port)")));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Some(("names no host".into(), "set baseUrl to the OpenViking server's URL, e.g. \"http://127.0.0.1:1933\"".into()));
    }
    if t.chars().any(char::is_whitespace) {
        return Some(("contains whitespace".into(), "remove the spaces from baseUrl".into()));
    }
    if let Some((_, port)) = host.rsplit_once(':').filter(|_| !host.ends_with(']')) {
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Some((format!("has the port {port:?}, which is not a TCP port"), "give baseUrl a port from 1 to 65535 (OpenViking's default is 1933)".into()));
        }
    }
    None
}

/// The problem of a state dir the plugin could not use: `path` as resolved, `code` the
/// system's error code (`ENOTDIR`, `EACCES`, `EROFS`, …), `configured` whether `stateDir`
/// set it. Always an error: no turn can be acknowledged without the outbox.
pub fn state_dir_problem(path: &str, code: &str, detail: &str, configured: bool) -> ConfigProblem {
    let why = match code {
        "ENOTDIR" | "EEXIST" => "a file is in the way (it is not a folder)".to_string(),
        "EACCES" | "EPERM" => "this user may not write there".to_string(),
        "EROFS" => "it is on a read-only filesystem".to_string(),
        "ENOSPC" => "the disk is full".to_string(),
        _ => format!("it cannot be written ({})", crate::text::quote_within(if detail.is_empty() { code } else { detail }, 160)),
    };
    let fix = if configured {
        "set stateDir to a folder this user can write (or remove it: the default is <OpenClaw state dir>/plugins/openviking)"
    } else {
        "make that folder writable by this user, or set stateDir to one that is"
    };
    let what = if configured { "stateDir" } else { "the state dir (stateDir unset: OpenClaw's plugin state dir)" };
    ConfigProblem {
        key: "stateDir".into(),
        severity: "error",
        value: Value::String(path.to_string()),
        message: format!("{what} {path:?} cannot hold the plugin's outbox and state: {why}; no turn is stored until it can"),
        fix: fix.to_string(),
    }
}

/// Checks a raw configuration: every problem at once, and the configuration the engine runs
/// with (`None` when one of them is an error). `raw` may be `null` (all defaults).
pub fn check_config(raw: &Value, env: &Env) -> ConfigCheck {
    let empty = Map::new();
    let map = match raw {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => {
            let problem = ConfigProblem {
                key: "(config)".into(),
                severity: "error",
                value: Value::Null,
                message: format!("the plugin config is {}, not an object", describe(other)),
                fix: "make plugins.entries.openviking.config an object of keys, e.g. { \"mode\": \"remote\", \"baseUrl\": \"http://127.0.0.1:1933\" }".into(),
            };
            return ConfigCheck { config: None, problems: vec![problem], degraded: None };
        }
    };
    let mut r = Reader { map, env, problems: Vec::new() };

    for key in map.keys() {
        if key.starts_with("ingestReplyAssist") {
            r.warn(key, format!("{key} is no longer used and is ignored"), format!("remove {key}"));
        } else if ENTRY_KEYS.contains(&key.as_str()) {
            r.warn(key, format!("{key} is not a key of the plugin's config; it is ignored here"), format!("move {key} up one level, to plugins.entries.openviking.{key}"));
        } else if !KEYS.contains(&key.as_str()) {
            let fix = match closest_key(key) {
                Some(k) => format!("rename it to {k}"),
                None => "remove it (every key is in the README's Configuration table)".to_string(),
            };
            let hint = closest_key(key).map(|k| format!(" (did you mean {k}?)")).unwrap_or_default();
            r.warn(key, format!("{key} is not a key of this plugin{hint}; it is ignored"), fix);
        }
    }

    let mut failed = false;
    let mode = match r.string("mode", "set mode to \"local\" or \"remote\"") {
        None => Mode::Local,
        Some("local") => Mode::Local,
        Some("remote") => Mode::Remote,
        Some(other) => {
            r.error("mode", format!("mode={other:?} is neither \"local\" nor \"remote\""), "set mode to \"remote\" (with baseUrl) or \"local\" (a server on 127.0.0.1:port)".into());
            failed = true;
            Mode::Local
        }
    };
    let capture_mode = match r.get("captureMode") {
        None => CaptureMode::Semantic,
        Some(Value::String(s)) if s == "semantic" => CaptureMode::Semantic,
        Some(Value::String(s)) if s == "keyword" => CaptureMode::Keyword,
        Some(_) => {
            let given = r.given("captureMode");
            r.warn("captureMode", format!("{given} is neither \"semantic\" nor \"keyword\"; using the default \"semantic\""), "set captureMode to \"semantic\" or \"keyword\"".into());
            CaptureMode::Semantic
        }
    };
    let port = match r.get("port") {
        None => PORT_DEFAULT,
        Some(Value::Number(n)) if n.as_f64().is_some_and(|p| p.fract() == 0.0 && (1.0..=65535.0).contains(&p)) => n.as_f64().map_or(PORT_DEFAULT, |p| p as u16),
        Some(_) => {
            let given = r.given("port");
            r.error("port", format!("{given} is not a TCP port (a whole number from 1 to 65535)"), format!("set port to the port of the local openviking-server (default {PORT_DEFAULT})"));
            failed = true;
            PORT_DEFAULT
        }
    };
    // the server URL as given (from the config or the environment): its user info is secret
    let mut given_url: Option<String> = None;
    let config_path = r.path("configPath", "set configPath to the path of the local server's ov.conf");
    let config_path = config_path.unwrap_or_else(|| r.expand_home("~/.openviking/ov.conf".to_string()));
    let base_url = match mode {
        Mode::Local => {
            if r.get("baseUrl").is_some() {
                r.warn("baseUrl", "baseUrl is ignored in local mode (the local server's port decides)".into(), "remove baseUrl, or set mode to \"remote\" to use it".into());
            }
            Some(format!("http://127.0.0.1:{port}"))
        }
        Mode::Remote => {
            let given = match r.string("baseUrl", "set baseUrl to the OpenViking server's URL, e.g. \"http://127.0.0.1:1933\"") {
                Some(raw) => r.resolve_env("baseUrl", raw).map(|u| (u, None)),
                None if r.get("baseUrl").is_some() => None,
                None => Some(match r.env_first(&["OPENVIKING_BASE_URL", "OPENVIKING_URL"]) {
                    Some((var, u)) => (u, Some(var)),
                    None => ("http://127.0.0.1:1933".to_string(), None),
                }),
            };
            match given {
                None => {
                    failed = true;
                    None
                }
                Some((url, from)) => {
                    given_url = Some(url.clone());
                    let what = match from {
                        Some(var) => format!("baseUrl (from ${var}) {:?}", secrets::shown_url(url.trim())),
                        None => format!("baseUrl {:?}", secrets::shown_url(url.trim())),
                    };
                    let (bare, had_userinfo) = secrets::without_userinfo(url.trim());
                    match base_url_problem(&bare) {
                        None => {
                            let bare = bare.trim_end_matches('/').to_string();
                            if had_userinfo {
                                r.warn("baseUrl", format!("{what} has a user name or password in it; it is not sent (OpenViking reads the key from apiKey, and fetch refuses a URL that carries one); using {bare:?}"), "remove the user info from baseUrl, and set apiKey to the user key".into());
                            }
                            Some(bare)
                        }
                        Some((why, fix)) => {
                            r.error("baseUrl", format!("{what} {why}: OpenViking cannot be reached at it"), fix);
                            failed = true;
                            None
                        }
                    }
                }
            }
        }
    };
    let api_key = match r.string("apiKey", "set apiKey to the user key as a string, or to \"${OPENVIKING_API_KEY}\"") {
        Some(raw) => r.resolve_env("apiKey", raw),
        None if r.get("apiKey").is_some() => None,
        None => Some(r.env_first(&["OPENVIKING_API_KEY"]).map(|(_, k)| k).unwrap_or_default()),
    };
    let agent_id = match r.string("agentId", "set agentId to a name of letters, digits, '_', '-' or '.'") {
        None => Some("default".to_string()),
        Some(id) if is_agent_id(id) => Some(id.to_string()),
        Some(_) => {
            let given = r.given("agentId");
            r.error("agentId", format!("{given} cannot name the agent's sessions"), "set agentId to 1–128 letters, digits, '_', '-' or '.' (or remove it: each OpenClaw agent is then its own)".into());
            None
        }
    };
    let target_uri = match r.string("targetUri", "set targetUri to a viking:// URI, or remove it") {
        None => Some(None),
        Some(u) if u.trim_end_matches('/') == LEGACY_USER_MEMORIES => Some(None),
        Some(u) if u.starts_with("viking://") => Some(Some(u.trim_end_matches('/').to_string())),
        Some(_) => {
            let given = r.given("targetUri");
            r.error("targetUri", format!("{given} is not a viking:// URI"), "set targetUri to a viking:// URI of your memories, or remove it (default: your own user memories)".into());
            None
        }
    };
    let state_dir = match r.get("stateDir") {
        None => Some(None),
        Some(_) => r.path("stateDir", "set stateDir to a folder path, or remove it").map(Some),
    };

    let config = Config {
        mode,
        config_path,
        port,
        base_url: base_url.unwrap_or_default(),
        api_key: api_key.clone().unwrap_or_default(),
        agent_id: agent_id.clone().unwrap_or_default(),
        timeout_ms: r.int("timeoutMs", &TIMEOUT_MS),
        auto_recall: r.bool("autoRecall", true),
        auto_capture: r.bool("autoCapture", true),
        recall_limit: r.int("recallLimit", &RECALL_LIMIT) as usize,
        recall_score_threshold: r.number("recallScoreThreshold", &RECALL_SCORE_THRESHOLD, false),
        recall_score_window: r.number("recallScoreWindow", &RECALL_SCORE_WINDOW, false),
        recall_require_query_word: r.bool("recallRequireQueryWord", true),
        recall_near_duplicate_overlap: r.number("recallNearDuplicateOverlap", &RECALL_NEAR_DUPLICATE_OVERLAP, false),
        recall_max_content_chars: r.int("recallMaxContentChars", &RECALL_MAX_CONTENT_CHARS) as usize,
        recall_lexical: r.bool("recallLexical", true),
        recall_prefer_abstract: r.bool("recallPreferAbstract", true),
        recall_token_budget: r.int("recallTokenBudget", &RECALL_TOKEN_BUDGET) as usize,
        target_uri: target_uri.clone().flatten(),
        capture_mode,
        capture_max_length: r.int("captureMaxLength", &CAPTURE_MAX_LENGTH) as usize,
        recent_raw_turn_count: r.int("recentRawTurnCount", &RECENT_RAW_TURN_COUNT) as usize,
        assemble_recall_window: r.int("assembleRecallWindow", &ASSEMBLE_RECALL_WINDOW) as usize,
        compact_commit_threshold: r.number("compactCommitThreshold", &COMPACT_COMMIT_THRESHOLD, false),
        memory_expand_max_results: r.int("memoryExpandMaxResults", &MEMORY_EXPAND_MAX_RESULTS) as usize,
        compact_tokens_added_threshold: r.int("compactTokensAddedThreshold", &COMPACT_TOKENS_ADDED_THRESHOLD),
        compact_turn_threshold: r.int("compactTurnThreshold", &COMPACT_TURN_THRESHOLD),
        compact_max_interval_minutes: r.int("compactMaxIntervalMinutes", &COMPACT_MAX_INTERVAL_MINUTES),
        large_tool_result_tokens: r.int("largeToolResultTokens", &LARGE_TOOL_RESULT_TOKENS),
        hook_fallback: r.bool("hookFallback", true),
        import_on_bootstrap: r.bool("importOnBootstrap", false),
        skill_recall: r.bool("skillRecall", true),
        skill_limit: r.int("skillLimit", &SKILL_LIMIT) as usize,
        memory_map: r.bool("memoryMap", true),
        memory_map_token_budget: r.int("memoryMapTokenBudget", &MEMORY_MAP_TOKEN_BUDGET) as usize,
        state_dir: state_dir.clone().flatten(),
    };
    let failed = failed || r.problems.iter().any(ConfigProblem::is_error) || api_key.is_none() || agent_id.is_none() || target_uri.is_none() || state_dir.is_none();
    let hidden = secrets_of(map, api_key.as_deref(), given_url.as_deref().or_else(|| r.get("baseUrl").and_then(Value::as_str)));
    let scrub = secrets::Scrubber::new(&hidden.iter().map(String::as_str).collect::<Vec<_>>());
    let problems: Vec<ConfigProblem> = r.problems.into_iter().map(|p| without_secrets(p, &scrub)).collect();
    let degraded = if failed {
        let in_error: Vec<&str> = problems.iter().filter(|p| p.severity == "error").map(|p| p.key.as_str()).collect();
        let rest: Map<String, Value> = map.iter().filter(|(k, _)| !in_error.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
        // one level: the keys in error removed, once (what is left has no error of its own)
        (rest.len() < map.len()).then(|| check_config(&Value::Object(rest), env).config).flatten()
    } else {
        None
    };
    ConfigCheck { config: (!failed).then_some(config), problems, degraded }
}

/// The error a configuration with error problems is refused with: `INVALID_CONFIG`, the
/// first bad key as its field, every error in the message.
pub fn config_error(problems: &[ConfigProblem]) -> EngineError {
    let errors: Vec<&ConfigProblem> = problems.iter().filter(|p| p.is_error()).collect();
    let Some(first) = errors.first() else {
        return EngineError::config("(config)", "the configuration was refused");
    };
    let mut message = first.line();
    for more in &errors[1..] {
        message.push_str(&format!("; {}", more.line()));
    }
    EngineError { code: crate::error::ErrorCode::InvalidConfig, field: Some(first.key.clone()), message }
}

/// Parses a raw configuration, `raw` may be `null` (all defaults): the configuration and its
/// warnings, or `INVALID_CONFIG` naming the first key whose problem is an error.
pub fn parse_config(raw: &Value, env: &Env) -> Result<ParsedConfig> {
    let check = check_config(raw, env);
    match check.config {
        Some(config) => Ok(ParsedConfig { config, warnings: check.problems.iter().map(ConfigProblem::line).collect(), problems: check.problems }),
        None => Err(config_error(&check.problems)),
    }
}

