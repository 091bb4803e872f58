//! The OpenViking protocol (`src/openviking`), over a scripted transport: what each engine
//! operation sends (method, URL, headers, body), how every kind of answer is read (result,
//! not found, error classes and so retryability), batching, the user id, the operator's
//! probe — and that the API key never reaches a message.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::host::{CommitAnswer, FindFilter, HostErrorKind, OpenViking, TaskAnswer};
use openviking_context_engine::config::parse_config;
use openviking_context_engine::openviking::probe::{classify, LocalServerFacts};
use openviking_context_engine::openviking::{probe::probe, HttpRequest, HttpResponse, OpenVikingHttp, Server, Transport, TransportFailure};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use support::answers::{error, http, ok};
use support::block_on;

const KEY: &str = "uk-Secret+Key/42==";

/// Answers from a script, in order; records every request.
#[derive(Default)]
struct Scripted {
    answers: RefCell<VecDeque<Result<HttpResponse, TransportFailure>>>,
    sent: RefCell<Vec<HttpRequest>>,
}

impl Transport for Scripted {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
        self.sent.borrow_mut().push(request);
        self.answers.borrow_mut().pop_front().unwrap_or(Err(TransportFailure::Unreachable("script ended".into())))
    }
}

impl openviking_context_engine::host::Clock for Scripted {
    fn now_ms(&self) -> u64 {
        1_000 + 7 * self.sent.borrow().len() as u64
    }
    async fn sleep(&self, _ms: u64) {}
    fn warn(&self, _message: &str) {}
}


fn client(answers: Vec<Result<HttpResponse, TransportFailure>>) -> OpenVikingHttp<Scripted> {
    let server = Server { base_url: "http://127.0.0.1:1933/ov".into(), api_key: Some(KEY.into()), agent_id: "main".into(), timeout_ms: 3000 };
    OpenVikingHttp::new(server, Scripted { answers: RefCell::new(answers.into()), sent: RefCell::new(Vec::new()) })
}

fn sent(c: &OpenVikingHttp<Scripted>) -> Vec<HttpRequest> {
    c.transport.sent.borrow().clone()
}

fn header<'a>(r: &'a HttpRequest, name: &str) -> Option<&'a str> {
    r.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn body(r: &HttpRequest) -> Value {
    serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap()
}

#[test]
fn each_operation_sends_its_endpoint_with_the_agent_and_the_key() {
    let c = client(vec![
        ok(json!({ "message_count": 4, "commit_count": 1, "pending_tokens": 90 })),
        ok(json!({ "session_id": "s1" })),
        ok(json!({ "memories": [] })),
        ok(json!("{\"a\":1}")),
        ok(json!({ "uri": "viking://x", "estimated_deleted_count": 1 })),
        ok(json!({ "status": "accepted", "task_id": "t-1", "archive_uri": "viking://a" })),
        ok(json!({ "tool_result_id": "tr_call_1_0123", "content": "the whole output", "offset": 0, "total_chars": 16, "has_more": false })),
    ]);
    block_on(async {
        let meta = c.session_meta("oc-main_s 1").await.unwrap().unwrap();
        assert_eq!((meta.message_count, meta.commit_count, meta.pending_tokens), (4, 1, 90));
        c.create_session("oc-main_s1", json!({ "working_memory": { "enabled": true } })).await.unwrap();
        c.find("viking://user/alice/memories", "dark theme", 20, &FindFilter::NONE).await.unwrap();
        assert_eq!(c.read_json("viking://user/alice/resources/x.json").await.unwrap(), json!({ "a": 1 }));
        c.delete_uri("viking://user/alice/memories/x.md").await.unwrap();
        let commit = c.commit("oc-main_s1", json!({})).await.unwrap();
        assert_eq!(commit, CommitAnswer::Accepted { task_id: "t-1".into(), archive_uri: "viking://a".into() });
        assert_eq!(c.tool_result("oc-main_s1", "tr_call_1_0123").await.unwrap().as_deref(), Some("the whole output"));
    });
    let s = sent(&c);
    let lines: Vec<String> = s.iter().map(|r| format!("{} {}", r.method.as_str(), r.url)).collect();
    assert_eq!(
        lines,
        [
            "GET http://127.0.0.1:1933/ov/api/v1/sessions/oc-main_s%201?auto_create=false",
            "POST http://127.0.0.1:1933/ov/api/v1/sessions",
            "POST http://127.0.0.1:1933/ov/api/v1/search/find",
            "GET http://127.0.0.1:1933/ov/api/v1/content/read?uri=viking%3A%2F%2Fuser%2Falice%2Fresources%2Fx.json",
            "DELETE http://127.0.0.1:1933/ov/api/v1/fs?uri=viking%3A%2F%2Fuser%2Falice%2Fmemories%2Fx.md&recursive=false&wait=true",
            "POST http://127.0.0.1:1933/ov/api/v1/sessions/oc-main_s1/commit",
            "GET http://127.0.0.1:1933/ov/api/v1/sessions/oc-main_s1/tool-results/tr_call_1_0123?offset=0&limit=-1&include_metadata=false",
        ]
    );
    for r in &s {
        assert_eq!(header(r, "X-OpenViking-Agent"), Some("main"));
        assert_eq!(header(r, "X-API-Key"), Some(KEY));
        assert_eq!(r.timeout_ms, 3000);
        assert_eq!(header(r, "Content-Type").is_some(), r.body.is_some());
        assert!(!format!("{r:?}").contains(KEY), "a request's Debug leaves the headers out");
    }
    assert_eq!(body(&s[1]), json!({ "session_id": "oc-main_s1", "memory_policy": { "working_memory": { "enabled": true } } }));
    assert_eq!(body(&s[2]), json!({ "query": "dark theme", "target_uri": "viking://user/alice/memories", "limit": 20, "score_threshold": 0 }));
}

#[test]
fn a_find_with_a_window_sends_since_on_created_at() {
    let c = client(vec![ok(json!({ "memories": [] }))]);
    let filter = FindFilter { since: Some("2026-05-04T00:00:00.000Z".into()) };
    block_on(c.find("viking://user/alice/memories/events", "what did we decide", 24, &filter)).unwrap();
    let s = sent(&c);
    assert_eq!(
        body(&s[0]),
        json!({ "query": "what did we decide", "target_uri": "viking://user/alice/memories/events", "limit": 24, "score_threshold": 0,
                "since": "2026-05-04T00:00:00.000Z", "time_field": "created_at" })
    );
}

#[test]
fn not_found_is_none_where_absence_is_an_answer() {
    let nf = || error(404, "NOT_FOUND", "no such thing");
    let c = client(vec![nf(), nf(), nf(), nf(), nf()]);
    block_on(async {
        assert_eq!(c.session_meta("s").await.unwrap(), None);
        assert_eq!(c.tool_result("s", "tr_x").await.unwrap(), None);
        assert_eq!(c.read_content("viking://x").await.unwrap(), None);
        assert_eq!(c.stat("viking://x").await.unwrap(), None);
        let e = c.archive("s", "archive_001").await.unwrap_err();
        assert_eq!(e.kind, HostErrorKind::NotFound);
        assert!(!e.retryable());
    });
}

#[test]
fn every_failure_has_its_class_and_only_transient_ones_are_retryable() {
    let cases: Vec<(Result<HttpResponse, TransportFailure>, HostErrorKind)> = vec![
        (Err(TransportFailure::Unreachable("ECONNREFUSED".into())), HostErrorKind::Unreachable),
        (Err(TransportFailure::Timeout), HostErrorKind::Timeout),
        (Err(TransportFailure::Malformed("no status".into())), HostErrorKind::BadResponse),
        (http(502, "<html>Bad Gateway</html>"), HostErrorKind::ServerError),
        (error(500, "INTERNAL", "boom"), HostErrorKind::ServerError),
        (error(429, "RESOURCE_EXHAUSTED", "slow down"), HostErrorKind::ServerError),
        (http(429, "{}"), HostErrorKind::ServerError),
        (error(400, "UNAVAILABLE", "busy"), HostErrorKind::ServerError),
        (http(200, "{not json"), HostErrorKind::BadResponse),
        (http(200, "[1,2]"), HostErrorKind::BadResponse),
        (http(200, r#"{"memories":[]}"#), HostErrorKind::BadResponse),
        (http(404, r#"{"detail":"Not Found"}"#), HostErrorKind::BadResponse),
        (http(302, r#"{}"#), HostErrorKind::BadResponse),
        (error(404, "NOT_FOUND", "gone"), HostErrorKind::NotFound),
        (error(409, "ALREADY_EXISTS", "there"), HostErrorKind::Conflict),
        (error(200, "CONFLICT", "resource is busy"), HostErrorKind::Conflict),
        (error(409, "ABORTED", "race"), HostErrorKind::Conflict),
        (error(400, "INVALID_URI", "bad uri"), HostErrorKind::Rejected),
        (error(401, "UNAUTHENTICATED", "Invalid API Key"), HostErrorKind::Denied),
        (error(403, "PERMISSION_DENIED", "root key"), HostErrorKind::Denied),
    ];
    for (answer, kind) in cases {
        let shown = format!("{answer:?}");
        let c = client(vec![answer]);
        let e = block_on(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE)).unwrap_err();
        assert_eq!(e.kind, kind, "{shown}: {e}");
        let transient = matches!(kind, HostErrorKind::Unreachable | HostErrorKind::Timeout | HostErrorKind::ServerError | HostErrorKind::BadResponse);
        assert_eq!(e.retryable(), transient, "{shown}");
        assert!(e.message.contains("POST /api/v1/search/find") || e.message.contains("/api/v1/search/find"), "{shown}: {e}");
    }
}

#[test]
fn the_key_never_reaches_a_message() {
    let encoded = "uk-Secret%2BKey%2F42%3D%3D";
    let answers = vec![
        error(401, "UNAUTHENTICATED", &format!("key {KEY} is not valid")),
        http(500, &format!("upstream said key={encoded} and {KEY}")),
        http(200, &format!("not json {KEY}")),
        Err(TransportFailure::Unreachable(format!("fetch failed with {KEY}"))),
        error(400, "INVALID_URI", &format!("{encoded}")),
    ];
    let n = answers.len();
    let c = client(answers);
    for _ in 0..n {
        let e = block_on(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE)).unwrap_err();
        assert!(!e.message.contains("Secret"), "key leaked: {e}");
        assert!(e.message.contains("[redacted]"), "{e}");
    }
    assert!(!format!("{:?}", c.server).contains("Secret"), "Debug hides the key");
}

#[test]
fn an_answer_with_a_lone_surrogate_escape_is_read_with_a_replacement_character() {
    let c = client(vec![http(200, r#"{"status":"ok","result":{"memories":[{"uri":"viking://user/a/memories/x.md","abstract":"cut \ud83d"}]}}"#)]);
    let v = block_on(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE)).unwrap();
    assert_eq!(v["memories"][0]["abstract"], "cut \u{FFFD}");
}

#[test]
fn long_batches_go_in_chunks_of_a_hundred_in_order() {
    let c = client(vec![ok(json!({ "message_count": 100 })), ok(json!({ "message_count": 200 })), ok(json!({ "message_count": 250 }))]);
    let messages: Vec<Value> = (0..250).map(|i| json!({ "role": "user", "parts": [{ "type": "text", "text": format!("m{i}") }] })).collect();
    assert_eq!(block_on(c.add_messages("s", messages)).unwrap(), Some(250));
    let s = sent(&c);
    let sizes: Vec<usize> = s.iter().map(|r| body(r)["messages"].as_array().unwrap().len()).collect();
    assert_eq!(sizes, [100, 100, 50]);
    assert_eq!(body(&s[1])["messages"][0]["parts"][0]["text"], "m100");
    assert!(s.iter().all(|r| r.url.ends_with("/api/v1/sessions/s/messages/batch")));

    // a failed chunk fails the call: the engine's confirm step finds what landed
    let c = client(vec![ok(json!({ "message_count": 100 })), Err(TransportFailure::Timeout)]);
    let messages: Vec<Value> = (0..150).map(|i| json!({ "role": "user", "content": i })).collect();
    assert_eq!(block_on(c.add_messages("s", messages)).unwrap_err().kind, HostErrorKind::Timeout);
}

#[test]
fn dot_segments_are_refused_before_anything_is_sent() {
    let c = client(vec![]);
    for id in ["", ".", ".."] {
        assert_eq!(block_on(c.session_meta(id)).unwrap_err().kind, HostErrorKind::Rejected);
        assert_eq!(block_on(c.task(id)).unwrap_err().kind, HostErrorKind::Rejected);
    }
    assert!(sent(&c).is_empty());
}

#[test]
fn tasks_commits_and_live_messages_read_every_shape() {
    let c = client(vec![
        ok(json!({ "status": "running" })),
        ok(json!({ "status": "completed", "result": { "archive_uri": "viking://a" } })),
        ok(json!({ "status": "failed", "error": "parse_error" })),
        ok(json!({ "status": "skipped", "task_id": null, "reason": "no_messages" })),
        ok(json!({ "status": "weird" })),
        ok(json!({ "messages": [{ "role": "user" }] })),
        ok(json!({ "latest_archive_overview": "" })),
        ok(json!({ "messages": 5 })),
    ]);
    block_on(async {
        assert_eq!(c.task("t").await.unwrap(), TaskAnswer::Running);
        assert!(matches!(c.task("t").await.unwrap(), TaskAnswer::Completed { .. }));
        assert!(matches!(c.task("t").await.unwrap(), TaskAnswer::Failed { .. }));
        assert_eq!(c.commit("s", json!({})).await.unwrap(), CommitAnswer::Skipped { reason: "no_messages".into() });
        assert_eq!(c.commit("s", json!({})).await.unwrap_err().kind, HostErrorKind::BadResponse);
        assert_eq!(c.live_messages("s").await.unwrap().len(), 1);
        assert_eq!(c.live_messages("s").await.unwrap().len(), 0);
        assert_eq!(c.live_messages("s").await.unwrap_err().kind, HostErrorKind::BadResponse);
    });
    assert!(sent(&c)[5].url.ends_with("/api/v1/sessions/s/context?token_budget=1000000000"));
}

#[test]
fn the_user_id_is_asked_once_and_only_a_plain_segment_is_taken() {
    let c = client(vec![ok(json!({ "initialized": true, "user": { "user_id": "alice" } }))]);
    assert_eq!(block_on(c.user_id()).unwrap().as_deref(), Some("alice"));
    assert_eq!(block_on(c.user_id()).unwrap().as_deref(), Some("alice"));
    assert_eq!(sent(&c).len(), 1);
    assert_eq!(sent(&c)[0].timeout_ms, 3000.min(5000));
    let c = client(vec![ok(json!({ "user": "../bob" })), ok(json!({ "user": "bob" }))]);
    assert_eq!(block_on(c.user_id()).unwrap(), None);
    assert_eq!(block_on(c.user_id()).unwrap().as_deref(), Some("bob"), "not known yet: asked again");
}

#[test]
fn the_probe_reports_each_check_and_health_goes_without_the_key() {
    let c = client(vec![
        http(200, r#"{"status":"ok","healthy":true,"version":"0.5.2"}"#),
        ok(json!({ "user": "alice" })),
        ok(json!({ "memories": [{ "uri": "viking://user/alice/memories/x.md" }] })),
    ]);
    let remote = parse_config(&json!({ "mode": "remote", "baseUrl": "http://127.0.0.1:1933", "apiKey": "k-12345" }), &Default::default()).unwrap().config;
    let facts = LocalServerFacts::default();
    let p = block_on(probe(&c, &remote, &facts, 800));
    assert_eq!((p.verdict.state.as_str(), p.verdict.message.as_str()), ("ok", "the key is accepted: user alice"));
    assert!(p.health.reachable && p.health.version.as_deref() == Some("0.5.2") && p.health.latency_ms.is_some());
    assert_eq!(p.auth.user_id.as_deref(), Some("alice"));
    assert_eq!((p.find.ran, p.find.hits, p.find.scope.as_deref()), (true, 1, Some("viking://user/alice/memories")));
    let s = sent(&c);
    assert!(s[0].url.ends_with("/health") && header(&s[0], "X-API-Key").is_none());
    assert!(s.iter().all(|r| r.timeout_ms == 800));

    let c = client(vec![Err(TransportFailure::Unreachable("ECONNREFUSED".into())), error(401, "UNAUTHENTICATED", &format!("bad key {KEY}"))]);
    let p = block_on(probe(&c, &remote, &facts, 800));
    assert_eq!(p.verdict.state, "unreachable");
    assert!(p.verdict.fix.as_deref().unwrap().contains("check baseUrl (http://127.0.0.1:1933)"));
    assert!(!p.health.reachable && p.health.error.as_deref().unwrap().contains("ECONNREFUSED"));
    assert!(p.auth.denied && p.auth.user_id.is_none() && !p.auth.error.as_deref().unwrap().contains("Secret"));
    assert!(!p.find.ran, "no search without a user");
    assert_eq!(sent(&c).len(), 2);
}

#[test]
fn the_probe_verdict_tells_a_refused_key_a_starting_server_and_dev_mode_apart() {
    let env = Default::default();
    let remote = parse_config(&json!({ "mode": "remote", "baseUrl": "http://127.0.0.1:1933", "apiKey": "k-12345" }), &env).unwrap().config;
    let none = LocalServerFacts::default();
    // a server that is up and refuses the key: not "reachable, identity unknown"
    let c = client(vec![http(200, r#"{"status":"ok","healthy":true,"version":"0.5.2"}"#), error(401, "UNAUTHENTICATED", "Invalid API Key")]);
    let p = block_on(probe(&c, &remote, &none, 800));
    assert!(p.health.reachable && p.auth.denied);
    assert_eq!(p.verdict.state, "key_refused");
    assert_eq!(p.verdict.message, "OpenViking refused the API key (OpenViking answered GET /api/v1/system/status with HTTP 401 UNAUTHENTICATED: Invalid API Key)");
    assert!(p.verdict.fix.as_deref().unwrap().starts_with("set apiKey under plugins.entries.openviking.config"), "{:?}", p.verdict.fix);
    assert!(!p.verdict.usable());

    // local mode, nothing answers: still starting (the plugin saw a start under way) or down
    let local = parse_config(&json!({ "port": 19444 }), &env).unwrap().config;
    let starting = LocalServerFacts { starting: true, failed: None, log_path: Some("/s/openviking-server.log".into()) };
    let c = client(vec![Err(TransportFailure::Unreachable("ECONNREFUSED".into())), Err(TransportFailure::Unreachable("ECONNREFUSED".into()))]);
    let p = block_on(probe(&c, &local, &starting, 800));
    assert_eq!(p.verdict.state, "server_starting");
    assert_eq!(p.verdict.message, "the local OpenViking server on 127.0.0.1:19444 is still starting (nothing answers its /health yet)");
    assert_eq!(p.verdict.fix.as_deref(), Some("nothing to do: recall and the queued turns resume once it answers; if it never does, see /s/openviking-server.log"));
    let failed = LocalServerFacts { starting: false, failed: Some("openviking-server not found: set OPENVIKING_SERVER_BIN or put it on PATH".into()), log_path: None };
    let r = classify(HostErrorKind::Unreachable, "OpenViking unreachable at http://127.0.0.1:19444 (ECONNREFUSED)", &local, &failed);
    assert_eq!(r.state, "unreachable");
    assert!(r.message.starts_with("the local OpenViking server could not be started: openviking-server not found"), "{}", r.message);
    assert!(r.fix.as_deref().unwrap().contains("check that configPath"), "{:?}", r.fix);

    // local mode without a key, a dev-mode server: accepted, and it says so honestly
    let c = client(vec![http(200, r#"{"status":"ok","healthy":true,"version":"0.5.2"}"#), ok(json!({ "user": "default" })), ok(json!([]))]);
    let p = block_on(probe(&c, &local, &none, 800));
    assert_eq!((p.verdict.state.as_str(), p.verdict.message.as_str()), ("ok", "no API key is set and the server answers without one (dev mode): user default"));
    let c = client(vec![http(200, r#"{"status":"ok","healthy":true,"version":"0.5.2"}"#), ok(json!({ "initialized": true }))]);
    let p = block_on(probe(&c, &local, &none, 800));
    assert_eq!(p.verdict.state, "no_user");
    assert!(p.verdict.usable());
}

#[test]
fn the_skill_search_and_the_tree_send_their_endpoints_and_read_their_answers() {
    let c = client(vec![
        ok(json!({ "root_uris": ["viking://user/alice/skills", "viking://agent/skills"], "skills": [{ "name": "a", "uri": "viking://agent/skills/a" }], "total": 1 })),
        ok(json!([{ "uri": "viking://user/alice/memories/events", "isDir": true, "rel_path": "events" }])),
        error(404, "NOT_FOUND", "Directory not found: viking://agent/main/memories"),
        ok(json!({ "not": "a list" })),
    ]);
    block_on(async {
        let skills = c.find_skills("release notes", 3).await.unwrap();
        assert_eq!(skills["skills"][0]["name"], "a");
        let tree = c.tree("viking://user/alice/memories", 6, 1000).await.unwrap().unwrap();
        assert_eq!(tree.as_array().map(Vec::len), Some(1));
        assert_eq!(c.tree("viking://agent/main/memories", 6, 1000).await.unwrap(), None, "a folder not there yet is no folder");
        assert_eq!(c.tree("viking://user/alice/resources", 6, 1000).await.unwrap_err().kind, HostErrorKind::BadResponse);
    });
    let s = sent(&c);
    assert_eq!(format!("{} {}", s[0].method.as_str(), s[0].url), "POST http://127.0.0.1:1933/ov/api/v1/skills/find");
    assert_eq!(body(&s[0]), json!({ "query": "release notes", "limit": 3 }));
    assert_eq!(
        format!("{} {}", s[1].method.as_str(), s[1].url),
        "GET http://127.0.0.1:1933/ov/api/v1/fs/tree?uri=viking%3A%2F%2Fuser%2Falice%2Fmemories&output=agent&include_abstract=false&level_limit=6&node_limit=1000"
    );
}

#[test]
fn setup_makes_a_user_key_with_the_root_key_and_makes_it_anew_for_an_existing_account() {
    use openviking_context_engine::openviking::admin::user_key;
    const ROOT: &str = "root-Secret/key==";
    let base = Server { base_url: "http://127.0.0.1:1933".into(), api_key: None, agent_id: "main".into(), timeout_ms: 3000 };
    // a new account: one call, the root key in the header only
    let c = client(vec![ok(json!({"account_id": "me", "admin_user_id": "me", "user_key": "uk-new"}))]);
    let k = block_on(user_key(&c.transport, &base, ROOT, "me", "me")).unwrap();
    assert_eq!((k.user_key.as_str(), k.regenerated), ("uk-new", false));
    let s = sent(&c);
    assert_eq!(s[0].url, "http://127.0.0.1:1933/api/v1/admin/accounts");
    assert_eq!(body(&s[0]), json!({"account_id": "me", "admin_user_id": "me"}));
    assert_eq!(header(&s[0], "X-API-Key"), Some(ROOT));
    // an account that exists: the user's key made anew
    let c = client(vec![error(409, "CONFLICT", "account me already exists"), ok(json!({"user_key": "uk-again"}))]);
    let k = block_on(user_key(&c.transport, &base, ROOT, "me", "me")).unwrap();
    assert_eq!((k.user_key.as_str(), k.regenerated), ("uk-again", true));
    assert_eq!(sent(&c)[1].url, "http://127.0.0.1:1933/api/v1/admin/accounts/me/users/me/key");
    // a refused root key, and a server that hands out no keys: errors without the key
    let c = client(vec![error(401, "UNAUTHENTICATED", &format!("bad key {ROOT}"))]);
    let e = block_on(user_key(&c.transport, &base, ROOT, "me", "me")).unwrap_err();
    assert_eq!(e.kind, HostErrorKind::Denied);
    assert!(!e.message.contains(ROOT), "{}", e.message);
    let c = client(vec![ok(json!({"account_id": "me"}))]);
    let e = block_on(user_key(&c.transport, &base, ROOT, "me", "me")).unwrap_err();
    assert!(e.message.contains("without a user key"), "{}", e.message);
}
