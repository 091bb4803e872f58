//! What an operator's `doctor` / `status` asks of the server, endpoint by endpoint: is it
//! OpenViking and healthy (`GET /health`, without the key), is the key accepted and whose is
//! it (`GET /api/v1/system/status`), does search work (`POST /api/v1/search/find` on the
//! user's memories). Each answer is reported, never thrown; messages carry no key.

use super::answer::Refusal;
use super::client::{user_id_from_status, OpenVikingHttp};
use super::transport::Transport;
use crate::host::Clock;
use serde::Serialize;
use serde_json::Value;

crate::ts_type! {
/// `GET /health`, sent without the key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthProbe {
    pub reachable: bool,
    pub version: Option<String>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
}
}

crate::ts_type! {
/// `GET /api/v1/system/status`, with the key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthProbe {
    /// Whom the key belongs to; `None` when the server named no user or refused.
    pub user_id: Option<String>,
    /// The server refused the key (401/403, `UNAUTHENTICATED`, `PERMISSION_DENIED`).
    pub denied: bool,
    pub error: Option<String>,
}
}

crate::ts_type! {
/// A probe search of the user's memories.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindProbe {
    /// False when it was not tried (no user id to address the user's memories).
    pub ran: bool,
    pub scope: Option<String>,
    pub hits: usize,
    pub error: Option<String>,
}
}

crate::ts_type! {
/// The operator's checks of the server (`ContextEngine.probe`), each reported, never thrown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub base_url: String,
    pub health: HealthProbe,
    pub auth: AuthProbe,
    pub find: FindProbe,
}
}

fn denied(r: &Refusal) -> bool {
    matches!(r.status, 401 | 403) || matches!(r.server_code.as_deref(), Some("UNAUTHENTICATED" | "PERMISSION_DENIED" | "FORBIDDEN"))
}

/// The three checks, each within `timeout_ms`; search only once the user is known.
pub async fn probe<T: Transport + Clock>(ov: &OpenVikingHttp<T>, target_uri: Option<&str>, timeout_ms: u64) -> Probe {
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
    let auth = match ov.system_status(timeout_ms).await {
        Ok(st) => AuthProbe { user_id: user_id_from_status(&st), denied: false, error: None },
        Err(r) => AuthProbe { user_id: None, denied: denied(&r), error: Some(r.message) },
    };
    let find = match &auth.user_id {
        None => FindProbe { ran: false, scope: None, hits: 0, error: None },
        Some(uid) => {
            let scope = crate::scopes::memory_scopes(target_uri, Some(uid)).user;
            match ov.find_within(&scope, "openviking doctor", 1, timeout_ms).await {
                Ok(r) => {
                    let hits = r.as_array().or_else(|| r.get("memories").and_then(Value::as_array)).map_or(0, Vec::len);
                    FindProbe { ran: true, scope: Some(scope), hits, error: None }
                }
                Err(e) => FindProbe { ran: true, scope: Some(scope), hits: 0, error: Some(e.message) },
            }
        }
    };
    Probe { base_url: ov.server.base_url.clone(), health, auth, find }
}
