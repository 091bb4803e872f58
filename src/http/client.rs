//! The I/O half: the calls themselves, with gloo-net (`fetch`). Works wherever a global
//! `fetch` exists (browser pages, workers, Node ≥ 18).

use super::protocol::{
    check_find_result, endpoint, find_body, read_envelope, timeout_error, unreachable_error, user_id_from_status, user_scope,
    LiveSearch, AGENT_SCOPE, FIND_PATH, STATUS_PATH,
};
use crate::error::EngineError;
use gloo_net::http::{Request, RequestBuilder};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal.timeout(ms)`; throws where it does not exist (then no deadline is set).
    #[wasm_bindgen(catch, js_namespace = AbortSignal, js_name = timeout)]
    fn abort_signal_timeout(ms: f64) -> Result<JsValue, JsValue>;
}

/// Both scopes' find results, as `Engine.autoRecall` takes them under `search`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveResults {
    /// The user scope's find result (`{memories: [...], ...}`).
    pub user: Value,
    /// The agent scope's find result; `{memories: []}` when that search failed.
    pub agent: Value,
    /// The user id from `system/status`, or null when the server named none.
    pub user_id: Option<String>,
    /// Why the agent scope counts as empty, when its search failed.
    pub agent_error: Option<String>,
}

/// `location.origin` of the page (or worker), if there is one.
pub fn page_origin() -> Option<String> {
    let location = js_sys::Reflect::get(&js_sys::global(), &"location".into()).ok()?;
    if location.is_undefined() || location.is_null() {
        return None;
    }
    js_sys::Reflect::get(&location, &"origin".into()).ok()?.as_string()
}

/// Status, then the user scope, with the agent scope searched meanwhile. The user side's
/// errors are the result's; a failed agent search counts as empty.
pub async fn live_search(req: &LiveSearch) -> Result<LiveResults, EngineError> {
    let user_side = async {
        let status = call(req, Request::get(&endpoint(&req.base_url, STATUS_PATH)), None, "GET /api/v1/system/status").await?;
        let user_id = user_id_from_status(&status);
        let user = find(req, &user_scope(user_id.as_deref())).await?;
        Ok::<_, EngineError>((user, user_id))
    };
    let (user_side, agent) = crate::join::join2(user_side, find(req, AGENT_SCOPE)).await;
    let (user, user_id) = user_side?;
    let (agent, agent_error) = match agent {
        Ok(a) => (a, None),
        Err(e) => (serde_json::json!({ "memories": [] }), Some(e.message)),
    };
    Ok(LiveResults { user, agent, user_id, agent_error })
}

async fn find(req: &LiveSearch, target_uri: &str) -> Result<Value, EngineError> {
    let what = "POST /api/v1/search/find";
    let body = find_body(&req.query, target_uri, req.limit);
    let result = call(req, Request::post(&endpoint(&req.base_url, FIND_PATH)), Some(&body), what).await?;
    check_find_result(what, result)
}

/// One call: headers, deadline, send, envelope.
async fn call(req: &LiveSearch, mut builder: RequestBuilder, body: Option<&Value>, what: &str) -> Result<Value, EngineError> {
    for (k, v) in req.headers() {
        builder = builder.header(k, v);
    }
    let signal = abort_signal_timeout(f64::from(req.timeout_ms)).ok();
    if let Some(s) = &signal {
        builder = builder.abort_signal(Some(s.unchecked_ref()));
    }
    let bad_request = |e: gloo_net::Error| {
        EngineError::new(crate::error::ErrorCode::Internal, format!("cannot build the request for {what}: {}", req.redact(&e.to_string())))
    };
    let request = match body {
        Some(b) => builder.json(b).map_err(bad_request)?,
        None => builder.build().map_err(bad_request)?,
    };
    let url = endpoint(&req.base_url, "");
    let response = request.send().await.map_err(|e| fetch_error(req, &url, e))?;
    let status = response.status();
    let text = response.text().await.map_err(|e| fetch_error(req, &url, e))?;
    read_envelope(what, status, &text, &|t| req.redact(t))
}

fn fetch_error(req: &LiveSearch, url: &str, e: gloo_net::Error) -> EngineError {
    match e {
        gloo_net::Error::JsError(js) if js.name == "TimeoutError" || js.name == "AbortError" => timeout_error(url, req.timeout_ms),
        gloo_net::Error::JsError(js) => unreachable_error(url, page_origin().as_deref(), &req.redact(&js.message)),
        other => unreachable_error(url, page_origin().as_deref(), &req.redact(&other.to_string())),
    }
}

