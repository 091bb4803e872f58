//! `liveSearch`: the demo page's live mode — both memory scopes searched on a running
//! OpenViking through the wasm HTTP host (`crate::http`, gloo-net). Thin: decode, call, encode.

use super::codec::{decode, encode, to_js_error};
use crate::http::{live_search, LiveSearch};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_LIVE: &'static str = r#"
/** What `liveSearch` needs. The key is only sent as `X-API-Key`; it is never in an error. */
export interface LiveSearchRequest {
  /** `http(s)://host:port`, e.g. `http://127.0.0.1:1933`; a trailing `/` is dropped. */
  baseUrl: string;
  /** A user key (the root key is refused by data APIs); empty or absent = no key (dev mode). */
  apiKey?: string;
  /** Sent as `X-OpenViking-Agent`; default `"default"`. */
  agentId?: string;
  /** The recall query (`Engine.buildRecallQuery(...).query`). */
  query: string;
  /** Items per scope, 1–1000; default 20. */
  limit?: number;
  /** Per call, 100–600000 ms; default 15000. */
  timeoutMs?: number;
}

/** Both scopes' find results, ready for `RecallRequest.search`. */
export interface LiveSearchResult {
  user: FindResult;
  /** `{memories: []}` when the agent-scope search failed (see `agentError`). */
  agent: FindResult;
  /** From `GET /api/v1/system/status`; null when the server named no user. */
  userId: string | null;
  agentError: string | null;
}
"#;

/// Searches both memory scopes of a running OpenViking from this page (user first, then agent).
/// Rejects with an `Error` carrying `code` (`INVALID_INPUT`, `HOST_FAILED`, `HOST_TIMEOUT`) and
/// `field` (the input to fix: `baseUrl`, `apiKey`, …, or null).
#[wasm_bindgen(js_name = liveSearch, unchecked_return_type = "LiveSearchResult")]
pub async fn live_search_js(
    #[wasm_bindgen(unchecked_param_type = "LiveSearchRequest")] request: JsValue,
) -> Result<JsValue, JsValue> {
    let v = decode("(request)", &request).map_err(to_js_error)?;
    let req = LiveSearch::from_json(&v).map_err(to_js_error)?;
    let out = live_search(&req).await.map_err(to_js_error)?;
    encode(&out)
}
