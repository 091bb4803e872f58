//! The demo's live mode (`src/http`): its pure part — request checks, the page's errors over
//! the protocol's answers (`openviking::answer`), never carrying the API key — and, in wasm,
//! real requests to an unreachable 127.0.0.1 port (Node, headless Chrome and Firefox).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[allow(unused_imports)]
use openviking_context_engine::{EngineError, ErrorCode};
use openviking_context_engine::http::live_search;
use openviking_context_engine::openviking::{answer::read_answer, HttpResponse};

use live_search::*;
use serde_json::{json, Value};

const KEY: &str = "uk-Secret+Key/42==";

fn request(v: Value) -> Result<LiveSearch, EngineError> {
    LiveSearch::from_json(&v)
}

fn assert_no_key(e: &EngineError) {
    let text = format!("{e} {:?}", e.field);
    assert!(!text.contains(KEY) && !text.contains("Secret"), "key leaked: {text}");
    assert!(!text.contains("uk-Secret%2BKey%2F42%3D%3D"), "encoded key leaked: {text}");
}

#[test]
fn request_defaults_and_normalisation() {
    let r = request(json!({"baseUrl": " HTTP://127.0.0.1:1933/// ", "query": "  dark theme  "})).unwrap();
    assert_eq!(r.base_url, "http://127.0.0.1:1933");
    assert_eq!(r.query, "dark theme");
    assert_eq!((r.api_key.as_deref(), r.agent_id.as_str(), r.limit, r.timeout_ms, r.lexical), (None, "default", 20, 15_000, true));
    assert!(!request(json!({"baseUrl": "http://h", "query": "q", "lexical": false})).unwrap().lexical);
    assert_eq!(r.headers(), vec![("X-OpenViking-Agent", "default")]);

    let r = request(json!({"baseUrl": "https://ov.example.com/prefix/", "apiKey": KEY, "agentId": "coder-1.a_b",
        "query": "q", "limit": 80, "timeoutMs": 2000})).unwrap();
    assert_eq!(r.base_url, "https://ov.example.com/prefix");
    assert_eq!(r.headers(), vec![("X-OpenViking-Agent", "coder-1.a_b"), ("X-API-Key", KEY)]);
    assert_eq!((r.limit, r.timeout_ms), (80, 2000));
    // an empty key means no key (dev-mode servers)
    let r = request(json!({"baseUrl": "http://[::1]:1933", "apiKey": "  ", "agentId": "", "query": "q"})).unwrap();
    assert_eq!((r.base_url.as_str(), r.api_key, r.agent_id.as_str()), ("http://[::1]:1933", None, "default"));
}

#[test]
fn bad_requests_name_the_field_and_never_show_the_key() {
    let cases = [
        (json!("http://x"), "(request)"),
        (json!({"query": "q"}), "baseUrl"),
        (json!({"baseUrl": "ftp://127.0.0.1", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "127.0.0.1:1933", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://:1933", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://127.0.0.1:99999", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://127.0.0.1:0", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://[::1", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://[::1]x", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://h/a b", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://h/?x=1", "query": "q"}), "baseUrl"),
        (json!({"baseUrl": format!("http://u:{KEY}@h/"), "query": "q"}), "baseUrl"),
        (json!({"baseUrl": "http://h", "query": "   "}), "query"),
        (json!({"baseUrl": "http://h", "query": 5}), "query"),
        (json!({"baseUrl": "http://h", "query": "q", "limit": 0}), "limit"),
        (json!({"baseUrl": "http://h", "query": "q", "limit": 1.5}), "limit"),
        (json!({"baseUrl": "http://h", "query": "q", "limit": "5"}), "limit"),
        (json!({"baseUrl": "http://h", "query": "q", "timeoutMs": 5}), "timeoutMs"),
        (json!({"baseUrl": "http://h", "query": "q", "agentId": "a/b"}), "agentId"),
        (json!({"baseUrl": "http://h", "query": "q", "apiKey": format!("{KEY}\r\nX-Other: 1")}), "apiKey"),
        (json!({"baseUrl": "http://h", "query": "q", "apiKey": format!("{KEY}é")}), "apiKey"),
        (json!({"baseUrl": "http://h", "query": "q", "apiKey": 42}), "apiKey"),
        (json!({"baseUrl": "http://h", "query": "q", "api_key": KEY}), "api_key"),
        (json!({"baseUrl": "http://h", "query": "q", "lexical": "yes"}), "lexical"),
    ];
    for (v, field) in cases {
        let e = request(v.clone()).expect_err(&v.to_string());
        assert_eq!(e.code, ErrorCode::InvalidInput, "{v}");
        assert_eq!(e.field.as_deref(), Some(field), "{v}: {e}");
        assert_no_key(&e);
    }
}

#[test]
fn urls_and_scopes() {
    let r = request(json!({"baseUrl": "https://h/ov/", "query": "q", "apiKey": KEY, "agentId": "a1"})).unwrap();
    let server = r.server();
    assert_eq!(server.url("/api/v1/system/status", &[]), "https://h/ov/api/v1/system/status");
    assert_eq!((server.api_key.as_deref(), server.agent_id.as_str(), server.timeout_ms), (Some(KEY), "a1", 15_000));
    assert_eq!(user_scope(Some("alice")), "viking://user/alice/memories");
    assert_eq!(user_scope(None), "viking://~/memories");
    assert_eq!(agent_scope("a1"), "viking://agent/a1/memories", "the agent's own folder, never the account-wide viking://agent/memories");
}

#[test]
fn user_id_from_either_status_shape() {
    assert_eq!(user_id_from_status(&json!({"initialized": true, "user": "alice"})).as_deref(), Some("alice"));
    assert_eq!(user_id_from_status(&json!({"user": {"user_id": "bob", "account_id": "acme"}})).as_deref(), Some("bob"));
    assert_eq!(user_id_from_status(&json!({"user": {"id": "carol"}})).as_deref(), Some("carol"));
    for bad in [json!({}), json!({"user": null}), json!({"user": 5}), json!({"user": ""}), json!({"user": "a/b"}),
        json!({"user": ".."}), json!({"user": {"account_id": "acme"}}), json!("alice")] {
        assert_eq!(user_id_from_status(&bad), None, "{bad}");
    }
}

fn read(status: u16, body: &str) -> Result<Value, EngineError> {
    let req = request(json!({"baseUrl": "http://h", "query": "q", "apiKey": KEY})).unwrap();
    let answer = Ok(HttpResponse { status, body: body.to_string() });
    read_answer(&req.server(), "POST /api/v1/search/find", answer, 1000, true).map_err(|r| page_error(r, &req, None))
}

#[test]
fn envelopes_ok_and_errors() {
    let ok = read(200, r#"{"status":"ok","result":{"memories":[{"uri":"viking://user/a/memories/x.md","level":2,"score":0.5}],"total":1},"telemetry":{}}"#);
    assert_eq!(ok.unwrap()["memories"][0]["level"], 2);

    // the server's error: status, its code and message, the field to fix
    let e = read(401, r#"{"status":"error","error":{"code":"UNAUTHENTICATED","message":"Invalid API Key"}}"#).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::HostFailed, Some("apiKey")));
    assert!(e.message.contains("HTTP 401 UNAUTHENTICATED: Invalid API Key"), "{e}");
    assert!(e.message.contains("check the API key"), "{e}");
    let e = read(400, r#"{"status":"error","error":{"code":"INVALID_URI","message":"bad target_uri"}}"#).unwrap_err();
    assert_eq!(e.field, None);
    assert!(e.message.contains("HTTP 400 INVALID_URI: bad target_uri"), "{e}");
    // status "error" with HTTP 200 is still an error
    let e = read(200, r#"{"status":"error","error":{"code":"CONFLICT","message":"busy"}}"#).unwrap_err();
    assert!(e.message.contains("HTTP 200 CONFLICT: busy"), "{e}");
    // an error that is not the envelope: the status and a short excerpt
    let e = read(502, "<html>Bad Gateway</html>").unwrap_err();
    assert!(e.message.contains("with HTTP 502: <html>Bad Gateway</html>"), "{e}");
    let e = read(404, r#"{"detail":"Not Found"}"#).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("baseUrl"));
    assert!(e.message.contains("is this an OpenViking 0.5 server?"), "{e}");
    // bad JSON and a JSON that is not the envelope
    let e = read(200, "{not json").unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::HostFailed, None));
    assert!(e.message.contains("not a JSON object"), "{e}");
    let e = read(200, r#"{"memories":[]}"#).unwrap_err();
    assert!(e.message.contains("envelope"), "{e}");
    // a long body is quoted short
    let long = "x".repeat(5000);
    assert!(read(500, &long).unwrap_err().message.len() < 500);

    assert!(check_find_result("find", json!({"memories": []})).is_ok());
    assert!(check_find_result("find", json!({"resources": []})).is_ok());
    assert!(check_find_result("find", json!({"memories": 5})).is_err());
    assert!(check_find_result("find", json!([])).is_err());
}

#[test]
fn the_key_never_reaches_a_message() {
    // servers or proxies that echo the key, plainly or URL-encoded
    let echo = format!(r#"{{"status":"error","error":{{"code":"UNAUTHENTICATED","message":"key {KEY} is not valid"}}}}"#);
    assert_no_key(&read(401, &echo).unwrap_err());
    assert_no_key(&read(500, &format!("upstream said key=uk-Secret%2BKey%2F42%3D%3D and {KEY}")).unwrap_err());
    assert_no_key(&read(200, &format!("not json {KEY}")).unwrap_err());
    assert_eq!(redact(&format!("a {KEY} b"), Some(KEY)), "a [redacted] b");
    assert_eq!(redact("abc", Some("ab")), "abc", "keys under 4 characters are not searched for");
    assert_eq!(redact("abc", None), "abc");
    let r = request(json!({"baseUrl": "http://h", "query": "q", "apiKey": KEY})).unwrap();
    assert_eq!(r.redact(&format!("fetch failed for {KEY}")), "fetch failed for [redacted]");
    assert!(!format!("{r:?}").contains(KEY), "Debug hides the key: {r:?}");
}

#[test]
fn unreachable_and_timeout_messages() {
    let e = unreachable_error("http://127.0.0.1:9", Some("http://127.0.0.1:8787"), "Failed to fetch");
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::HostFailed, Some("baseUrl")));
    assert_eq!(
        e.message,
        "the browser could not reach http://127.0.0.1:9 — is the server running, and does its server.cors_origins include http://127.0.0.1:8787? (browser: Failed to fetch)"
    );
    let e = unreachable_error("http://h", None, "");
    assert!(e.message.ends_with("include this page's origin?"), "{e}");
    let e = unreachable_error("http://h", Some("null"), "");
    assert!(e.message.contains("this page's origin"), "{e}");
    let e = timeout_error("http://h", 1500);
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::HostTimeout, Some("baseUrl")));
    assert!(e.message.contains("did not answer within 1.5 s"), "{e}");
}

/// Real requests through gloo-net's `fetch` to a 127.0.0.1 port nothing listens on (the
/// tuning page's package: the `page` feature).
#[cfg(all(target_arch = "wasm32", feature = "page"))]
mod requests {
    use super::*;
    use openviking_context_engine::http::{live_search, page_origin};

    /// A loopback port that is very unlikely to have a listener (not one browsers block).
    const CLOSED: &str = "http://127.0.0.1:39187";

    #[wasm_bindgen_test::wasm_bindgen_test]
    async fn an_unreachable_server_is_a_clear_error_without_the_key() {
        let req = LiveSearch::from_json(&json!({"baseUrl": CLOSED, "apiKey": KEY, "query": "dark theme", "timeoutMs": 10000})).unwrap();
        let e = live_search(&req).await.expect_err("nothing listens there");
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::HostFailed, Some("baseUrl")), "{e}");
        assert!(e.message.starts_with(&format!("the browser could not reach {CLOSED} — is the server running")), "{e}");
        let origin = page_origin().unwrap_or_else(|| "this page's origin".to_string());
        assert!(e.message.contains(&format!("server.cors_origins include {origin}?")), "{e}");
        assert_no_key(&e);
    }

    #[wasm_bindgen_test::wasm_bindgen_test]
    async fn the_page_origin_is_known_in_a_browser() {
        let origin = page_origin();
        if cfg!(feature = "browser-tests") {
            let o = origin.expect("a browser page has location.origin");
            assert!(o.starts_with("http://127.0.0.1:") || o.starts_with("http://localhost:"), "{o}");
        }
    }
}
