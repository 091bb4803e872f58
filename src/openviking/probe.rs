//! What an operator's `doctor` / `status` asks of the server, endpoint by endpoint: is it
//! OpenViking and healthy (`GET /health`, without the key), is the key accepted and whose is
//! it (`GET /api/v1/system/status`), does search work (`POST /api/v1/search/find` on the
//! user's memories). Each answer is reported, never thrown; messages carry no key.
//!
//! [`Reachability`] says in one word whether OpenViking can be used now, and why not: the
//! key refused, a local server still starting, unreachable, failing. The same words (and
//! fixes) reach `status`, `trace` and the turn's log line ([`classify`], [`verdict`]).

use super::answer::Refusal;
use super::client::{user_id_from_status, OpenVikingHttp};
use super::transport::Transport;
use crate::config::{Config, Mode};
use crate::host::{Clock, HostErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `GET /health`, sent without the key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct HealthProbe {
    pub reachable: bool,
    pub version: Option<String>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
}

/// `GET /api/v1/system/status`, with the key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AuthProbe {
    /// Whom the key belongs to; `None` when the server named no user or refused.
    pub user_id: Option<String>,
    /// The server refused the key (401/403, `UNAUTHENTICATED`, `PERMISSION_DENIED`).
    pub denied: bool,
    pub error: Option<String>,
}

/// A probe search of the user's memories.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FindProbe {
    /// False when it was not tried (no user id to address the user's memories).
    pub ran: bool,
    pub scope: Option<String>,
    pub hits: usize,
    pub error: Option<String>,
}

/// The operator's checks of the server (`ContextEngine.probe`), each reported, never thrown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Probe {
    pub base_url: String,
    pub health: HealthProbe,
    pub auth: AuthProbe,
    pub find: FindProbe,
    /// What it adds up to, with the fix (see [`verdict`]).
    pub verdict: Reachability,
}

fn denied(r: &Refusal) -> bool {
    r.kind == HostErrorKind::Denied || matches!(r.status, 401 | 403)
}

/// The three checks, each within `timeout_ms`; search only once the user is known; and
/// their verdict for this configuration and what the plugin sees of its local server.
pub async fn probe<T: Transport + Clock>(ov: &OpenVikingHttp<T>, config: &Config, local: &LocalServerFacts, timeout_ms: u64) -> Probe {
    let target_uri = config.target_uri.as_deref();
    let started = ov.transport.now_ms();
    let health = match ov.health(timeout_ms).await {
        Ok(h) => {
            let latency = ov.transport.now_ms().saturating_sub(started);
            let healthy = h.get("healthy") != Some(&Value::Bool(false)) && h.get("status").map_or(true, |s| s == "ok");
            let shown: String = h.to_string().chars().take(120).collect();
            HealthProbe {
                reachable: healthy,
                version: h.get("version").and_then(Value::as_str).map(str::to_string),
                latency_ms: Some(latency),
                error: (!healthy).then(|| ov.server.redact(&format!("GET /health answered {shown}"))),
            }
        }
        Err(r) => HealthProbe { reachable: false, version: None, latency_ms: None, error: Some(r.message) },
    };
    let mut auth_kind = None;
    let auth = match ov.system_status(timeout_ms).await {
        Ok(st) => AuthProbe { user_id: user_id_from_status(&st), denied: false, error: None },
        Err(r) => {
            auth_kind = Some(r.kind);
            AuthProbe { user_id: None, denied: denied(&r), error: Some(r.message) }
        }
    };
    let find = match &auth.user_id {
        None => FindProbe { ran: false, scope: None, hits: 0, error: None },
        Some(uid) => {
            let scope = crate::address::scopes::user_memories(target_uri, Some(uid));
            match ov.find_within(&scope, "openviking doctor", 1, timeout_ms).await {
                Ok(r) => {
                    let hits = r.as_array().or_else(|| r.get("memories").and_then(Value::as_array)).map_or(0, Vec::len);
                    FindProbe { ran: true, scope: Some(scope), hits, error: None }
                }
                Err(e) => FindProbe { ran: true, scope: Some(scope), hits: 0, error: Some(e.message) },
            }
        }
    };
    let mut p = Probe { base_url: ov.server.base_url.clone(), health, auth, find, verdict: Reachability::new("ok", String::new(), None) };
    p.verdict = verdict(&p, config, local, auth_kind);
    p
}

/// What the plugin sees of the local server it manages (local mode), on disk and in this
/// process: the engine cannot see a start under way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(optional_fields = nullable))]
pub struct LocalServerFacts {
    /// A start is under way: in this process, or by a live process holding the start lock, or
    /// a server spawned for this state dir runs but does not answer yet.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub starting: bool,
    /// Why the last start in this process failed (`openviking-server not found …`).
    pub failed: Option<String>,
    /// The server's log file.
    pub log_path: Option<String>,
}

impl crate::decode::Request for LocalServerFacts {}

/// Can OpenViking be used now? One word (`state`), the line a person reads, the fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Reachability {
    #[cfg_attr(feature = "typescript", ts(type = r#""ok" | "no_user" | "key_refused" | "server_starting" | "unreachable" | "server_error""#))]
    pub state: String,
    pub message: String,
    /// What to change (`None` when nothing is wrong).
    pub fix: Option<String>,
}

impl Reachability {
    fn new(state: &str, message: String, fix: Option<String>) -> Self {
        Reachability { state: state.to_string(), message, fix }
    }

    /// Nothing stands between the engine and OpenViking (`no_user` only keeps user-scope
    /// memories out of reach).
    pub fn usable(&self) -> bool {
        self.state == "ok" || self.state == "no_user"
    }
}

/// The fix for a refused key, for this configuration.
pub fn key_fix(config: &Config) -> String {
    if config.api_key.is_empty() {
        "the server requires an API key and none is set: set apiKey under plugins.entries.openviking.config (or $OPENVIKING_API_KEY) to a user key of this server".into()
    } else {
        "set apiKey under plugins.entries.openviking.config (or $OPENVIKING_API_KEY) to a user key of this server — not its root key, not another server's".into()
    }
}

/// The fix when nothing answers at the configured server.
pub fn unreachable_fix(config: &Config, local: &LocalServerFacts) -> String {
    match config.mode {
        Mode::Remote => format!("check baseUrl ({}) and that the OpenViking server runs and is reachable from here; turns wait in the outbox meanwhile", config.base_url),
        Mode::Local => format!(
            "the plugin starts openviking-server on 127.0.0.1:{} at the next turn or gateway start: check that configPath ({}) exists, that openviking-server is on PATH (or $OPENVIKING_SERVER_BIN names it){}; turns wait in the outbox meanwhile",
            config.port,
            config.config_path,
            local.log_path.as_deref().map(|l| format!(", and {l}")).unwrap_or_default()
        ),
    }
}

/// What a failed OpenViking call says about reaching the server.
pub fn classify(kind: HostErrorKind, message: &str, config: &Config, local: &LocalServerFacts) -> Reachability {
    match kind {
        HostErrorKind::Denied => Reachability::new("key_refused", format!("OpenViking refused the API key ({message})"), Some(key_fix(config))),
        HostErrorKind::Unreachable | HostErrorKind::Timeout if config.mode == Mode::Local && local.starting => Reachability::new(
            "server_starting",
            format!("the local OpenViking server on 127.0.0.1:{} is still starting (nothing answers its /health yet)", config.port),
            Some(format!(
                "nothing to do: recall and the queued turns resume once it answers{}",
                local.log_path.as_deref().map(|l| format!("; if it never does, see {l}")).unwrap_or_default()
            )),
        ),
        HostErrorKind::Unreachable | HostErrorKind::Timeout => {
            let message = match (&local.failed, config.mode) {
                (Some(why), Mode::Local) => format!("the local OpenViking server could not be started: {why}"),
                _ => message.to_string(),
            };
            Reachability::new("unreachable", message, Some(unreachable_fix(config, local)))
        }
        _ => Reachability::new(
            "server_error",
            format!("OpenViking answered with an error ({message})"),
            Some("see the OpenViking server's log; the engine retries on the next turn (turns wait in the outbox)".into()),
        ),
    }
}

/// The verdict of a probe: the health check first (unreachable, starting, unhealthy), then
/// the key (refused), then whether the key names a user.
pub fn verdict(p: &Probe, config: &Config, local: &LocalServerFacts, auth_kind: Option<HostErrorKind>) -> Reachability {
    if !p.health.reachable {
        let message = p.health.error.clone().unwrap_or_else(|| "GET /health did not answer".into());
        let kind = if p.health.latency_ms.is_some() { HostErrorKind::ServerError } else { HostErrorKind::Unreachable };
        return classify(kind, &message, config, local);
    }
    if let Some(err) = &p.auth.error {
        let kind = if p.auth.denied { HostErrorKind::Denied } else { auth_kind.unwrap_or(HostErrorKind::ServerError) };
        return classify(kind, err, config, local);
    }
    match &p.auth.user_id {
        Some(u) if config.api_key.is_empty() => Reachability::new(
            "ok",
            format!("no API key is set and the server answers without one (dev mode): user {u}"),
            None,
        ),
        Some(u) => Reachability::new("ok", format!("the key is accepted: user {u}"), None),
        None => Reachability::new(
            "no_user",
            format!("the server names no user for {} (dev mode?): user-scope memories cannot be addressed", if config.api_key.is_empty() { "requests without a key" } else { "this key" }),
            Some("give the plugin a user key of this server (apiKey, or $OPENVIKING_API_KEY)".into()),
        ),
    }
}
