//! The protocol's transport in a browser page (or worker, or Node ≥ 18): one exchange with
//! gloo-net (`fetch`), the deadline an `AbortSignal.timeout`. And the live search itself,
//! over the same `OpenVikingHttp` the plugin uses.

use super::live_search::{agent_scope, check_find_result, page_error, user_scope, LiveSearch};
use crate::error::EngineError;
use crate::openviking::{HttpRequest, HttpResponse, Method, OpenVikingHttp, Transport, TransportFailure};
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

/// `fetch` through gloo-net.
pub struct GlooTransport;

impl Transport for GlooTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
        let mut builder: RequestBuilder = match request.method {
            Method::Get => Request::get(&request.url),
            Method::Post => Request::post(&request.url),
            Method::Delete => Request::delete(&request.url),
        };
        for (k, v) in &request.headers {
            builder = builder.header(k, v);
        }
        let signal = abort_signal_timeout(request.timeout_ms as f64).ok();
        if let Some(s) = &signal {
            builder = builder.abort_signal(Some(s.unchecked_ref()));
        }
        let built = match request.body {
            Some(body) => builder.body(body),
            None => builder.build(),
        };
        let built = built.map_err(|e| TransportFailure::Malformed(format!("cannot build the request: {e}")))?;
        let response = built.send().await.map_err(failure)?;
        let status = response.status();
        let body = response.text().await.map_err(failure)?;
        Ok(HttpResponse { status, body })
    }
}

fn failure(e: gloo_net::Error) -> TransportFailure {
    match e {
        gloo_net::Error::JsError(js) if js.name == "TimeoutError" || js.name == "AbortError" => TransportFailure::Timeout,
        gloo_net::Error::JsError(js) => TransportFailure::Unreachable(js.message),
        other => TransportFailure::Unreachable(other.to_string()),
    }
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
    let ov = OpenVikingHttp::new(req.server(), GlooTransport);
    let origin = page_origin();
    let ms = u64::from(req.timeout_ms);
    let find = |scope: String| {
        let ov = &ov;
        let origin = origin.as_deref();
        async move {
            let result = ov.find_within(&scope, &req.query, req.limit as usize, ms).await.map_err(|r| page_error(r, req, origin))?;
            check_find_result("POST /api/v1/search/find", result)
        }
    };
    let user_side = async {
        let status = ov.system_status(ms).await.map_err(|r| page_error(r, req, origin.as_deref()))?;
        let user_id = crate::openviking::client::user_id_from_status(&status);
        let scope = user_scope(user_id.as_deref());
        // the lexical candidates' grep beside the find, as the plugin sends it; a grep that
        // fails costs its candidates only
        let terms = crate::recall::lexical::terms(&req.query);
        let pattern = crate::recall::lexical::pattern(&terms).filter(|_| req.lexical);
        let grep = async {
            match &pattern {
                Some(p) => ov.grep_within(&scope, p, ms).await.ok(),
                None => None,
            }
        };
        let (user, grepped) = crate::host::join::join2(find(scope.clone()), grep).await;
        let mut user = user?;
        if let Some(g) = grepped {
            crate::recall::lexical::fuse(&mut user, &crate::recall::lexical::hits(&g, &terms), crate::recall::lexical::FUSED);
        }
        Ok::<_, EngineError>((user, user_id))
    };
    let (user_side, agent) = crate::host::join::join2(user_side, find(agent_scope(&req.agent_id))).await;
    let (user, user_id) = user_side?;
    let (agent, agent_error) = match agent {
        // the agent folder's files come back as `resources` (recall::combined_find)
        Ok(a) => (crate::recall::combined_find::agent_answer(&a, &agent_scope(&req.agent_id), req.limit as usize), None),
        Err(e) => (serde_json::json!({ "memories": [] }), Some(e.message)),
    };
    Ok(LiveResults { user, agent, user_id, agent_error })
}
