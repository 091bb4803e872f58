//! A recall request read from its JSON text with the search results typed on the way
//! (`recall::wire`, what the wasm `Engine.recall` and `autoRecall` do) against reading the
//! whole text as a JSON value (what they did before the typed reader): on random requests — hits of
//! every field type, scopes of every shape, extra fields with nested values, odd top-level
//! values — the same answer, or the same error, with and without explain records.
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::config::Config;
use openviking_context_engine::recall::auto::{auto_recall_read, auto_recall_with, recall_answer, recall_answer_read, RecallRequest};
use openviking_context_engine::recall::wire::{read_request_text, scope_from_text, with_scope_texts, RequestText};
use proptest::prelude::*;
use serde_json::{json, Value};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)), Just(json!(true)), Just(json!(3)), Just(json!(-2)), Just(json!(0.75)), Just(json!(2.0)), Just(json!(1e300)),
        Just(json!("")), Just(json!("  padded \u{feff}")), Just(json!("Postgres pool size is 20")), Just(json!("数据库连接池")),
        Just(json!("esc \"quoted\" \\ \n tab\t")), "\\PC{0,8}".prop_map(Value::from),
    ]
}

fn nested() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn hit() -> impl Strategy<Value = Value> {
    let uri = prop_oneof![
        4 => (0u32..6, prop::sample::select(vec!["preferences", "events", "entities", "cases", "profile"]))
            .prop_map(|(n, c)| json!(format!("viking://user/u/memories/{c}/m{n}.md"))),
        1 => Just(json!(" viking://agent/memories/patterns/p.md ")),
        1 => scalar(),
    ];
    let text = prop_oneof![
        4 => prop::sample::select(vec!["Postgres pool size is 20 on staging", "prefers dark themes", "postgres  POOL size is 20 on staging", "DB changes run at night", "慢查询优化：加索引"]).prop_map(Value::from),
        1 => scalar(),
    ];
    let level = prop_oneof![4 => Just(json!(2)), 1 => Just(json!(1)), 1 => Just(json!(2.0)), 1 => scalar()];
    let score = prop_oneof![4 => (0u32..100).prop_map(|s| json!(s as f64 / 100.0)), 1 => scalar()];
    let category = prop_oneof![2 => Just(None), 2 => prop::sample::select(vec!["preferences", "events", "cases", "", "Profile"]).prop_map(|c| Some(json!(c))), 1 => scalar().prop_map(Some)];
    let tags = prop_oneof![3 => Just(None), 1 => Just(Some(json!(["memory_type=events"]))), 1 => nested().prop_map(Some)];
    (uri, text.clone(), prop::option::of(text), level, score, category, tags, prop::option::of(nested()), 0u8..20)
        .prop_map(|(uri, abs, overview, level, score, category, tags, extra, n)| {
            if n == 0 {
                return json!("a hit that is not an object");
            }
            let mut o = json!({"context_type": "memory", "uri": uri, "abstract": abs, "level": level, "score": score, "match_reason": "", "relations": []});
            if let Some(ov) = overview {
                o["overview"] = ov;
            }
            if let Some(c) = category {
                o["category"] = c;
            }
            if let Some(t) = tags {
                o["tags"] = t;
            }
            if let Some(x) = extra {
                o["relations"] = x;
            }
            if n == 1 {
                o.as_object_mut().unwrap().remove("uri");
            }
            o
        })
}

fn scope() -> impl Strategy<Value = Option<Value>> {
    let hits = || prop::collection::vec(hit(), 0..8);
    prop_oneof![
        6 => hits().prop_map(|h| Some(json!({"memories": h, "resources": [], "skills": [], "total": 3}))),
        4 => (body(), 0u8..8).prop_map(|(b, n)| Some(Value::String(body_text(b, n)))),
        1 => hits().prop_map(|h| Some(Value::from(h))),
        1 => Just(None),
        1 => Just(Some(json!(null))),
        1 => Just(Some(json!({"memories": null}))),
        1 => Just(Some(json!({"resources": []}))),
        1 => scalar().prop_map(|s| Some(json!({"memories": s}))),
        1 => scalar().prop_map(Some),
    ]
}

/// What a find answer's body holds: a find result of any shape `scope` gives (not text).
fn body() -> impl Strategy<Value = Option<Value>> {
    let hits = || prop::collection::vec(hit(), 0..8);
    prop_oneof![
        4 => hits().prop_map(|h| Some(json!({"memories": h, "resources": [], "skills": [], "total": 3}))),
        1 => hits().prop_map(|h| Some(Value::from(h))),
        1 => Just(None),
        1 => Just(Some(json!({"memories": null}))),
        1 => scalar().prop_map(|s| Some(json!({"memories": s}))),
        1 => scalar().prop_map(Some),
    ]
}

/// A scope as the text of OpenViking's answer to `find` (`n` picks the shape: the answer
/// as it arrives, an error answer, the bare result, odd and broken texts).
fn body_text(result: Option<Value>, n: u8) -> String {
    let result = result.unwrap_or(Value::Null);
    match n {
        0..=2 => json!({"status": "ok", "result": result, "time": 0.01}).to_string(),
        3 => json!({"status": "error", "error": {"code": "INTERNAL", "message": "boom"}}).to_string(),
        4 => result.to_string(),
        5 => json!({"result": result.to_string()}).to_string(),
        6 => json!({"memories": [], "result": result}).to_string(),
        _ => format!("{} trailing", result),
    }
}

fn request() -> impl Strategy<Value = Value> {
    let message = prop_oneof![
        16 => prop::sample::select(vec!["What is the staging pool size for Postgres?", "hi", "and how do I like DB changes run?", "/status"]).prop_map(|t| json!({"role": "user", "content": t})),
        4 => Just(json!({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]})),
        1 => Just(json!(7)),
    ];
    (
        prop::option::of(prop::sample::select(vec!["Which pool size did we pick for Postgres on staging?", "ok"]).prop_map(Value::from)),
        prop_oneof![1 => Just(None), 4 => prop::collection::vec(message, 0..5).prop_map(Some), 1 => Just(Some(vec![json!(null)]))],
        scope(),
        scope(),
        prop_oneof![6 => Just(None), 1 => scalar().prop_map(Some)],
        prop_oneof![6 => Just(Some(json!(1_764_000_000_000u64))), 2 => Just(None), 1 => scalar().prop_map(Some)],
        prop_oneof![6 => Just(None), 2 => Just(Some(json!({"viking://user/u/memories/events/m1.md": "Full text of the memory"}))), 1 => nested().prop_map(Some)],
        prop_oneof![8 => Just(None), 2 => Just(Some(json!({"uri": "viking://user/u/memories/profile.md", "text": "Likes flat white"}))), 1 => scalar().prop_map(Some)],
        prop_oneof![8 => Just(None), 2 => prop::sample::select(vec!["postgres pool", ""]).prop_map(|q| Some(json!(q))), 1 => scalar().prop_map(Some)],
        0u8..30,
    )
        .prop_map(|(prompt, messages, user, agent, search_odd, now, contents, profile, query, n)| {
            if n == 0 {
                return json!([1, 2]);
            }
            if n == 1 {
                return json!("not a request");
            }
            let mut o = serde_json::Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    o.insert(k.to_string(), v);
                }
            };
            put("prompt", prompt);
            put("messages", messages.map(Value::from));
            put("nowMs", now);
            put("contents", contents);
            put("profile", profile);
            put("query", query);
            let search = match search_odd {
                Some(odd) if n % 2 == 0 => Some(odd),
                _ if n == 3 => None,
                _ => {
                    let mut s = serde_json::Map::new();
                    if let Some(u) = user {
                        s.insert("user".into(), u);
                    }
                    if let Some(a) = agent {
                        s.insert("agent".into(), a);
                    }
                    s.insert("skills".into(), json!({"memories": [1, 2]}));
                    Some(Value::Object(s))
                }
            };
            put("search", search);
            Value::Object(o)
        })
}

/// Both reads of `text`, answered by `answer(request, scopes)`.
fn both<T: PartialEq + std::fmt::Debug>(
    text: &str,
    plain: impl Fn(RecallRequest) -> Result<T, openviking_context_engine::EngineError>,
    typed: impl Fn(RecallRequest, Option<openviking_context_engine::recall::wire::Scopes>) -> Result<T, openviking_context_engine::EngineError>,
) -> (Result<T, openviking_context_engine::EngineError>, Result<T, openviking_context_engine::EngineError>) {
    let a = RecallRequest::from_value(serde_json::from_str(text).unwrap()).and_then(&plain);
    let b = match read_request_text(text).unwrap() {
        RequestText::Typed { rest, scopes } => RecallRequest::from_value(rest).and_then(|r| typed(r, Some(scopes))),
        RequestText::Plain(v) => RecallRequest::from_value(v).and_then(|r| typed(r, None)),
    };
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn reading_the_text_typed_gives_what_reading_it_whole_does(req in request(), explain in any::<bool>()) {
        let config = Config::default();
        let text = serde_json::to_string(&req).unwrap();
        let (a, b) = both(&text, |r| recall_answer(&config, r, explain), |r, s| recall_answer_read(&config, r, s, explain));
        prop_assert_eq!(a, b);
        let (a, b) = both(&text, |r| auto_recall_with(&config, r, explain), |r, s| auto_recall_read(&config, r, s, explain));
        prop_assert_eq!(a, b);
    }
}

/// What the wasm `Engine.recall` does with string scopes: takes them out of the request
/// (`null` in it), reads the rest, then puts them back (`wire::with_scope_texts`).
fn lean_split<T>(
    req: &Value,
    typed: impl Fn(RecallRequest, Option<openviking_context_engine::recall::wire::Scopes>) -> Result<T, openviking_context_engine::EngineError>,
) -> Result<T, openviking_context_engine::EngineError> {
    let mut req = req.clone();
    let mut take = |scope: &str| match req.get_mut("search").and_then(|s| s.as_object_mut()).and_then(|s| s.get_mut(scope)) {
        Some(v) if v.is_string() => Some(v.take().as_str().unwrap().to_string()),
        _ => None,
    };
    let (user, agent) = (take("user"), take("agent"));
    let (mut r, scopes) = match read_request_text(&req.to_string()).unwrap() {
        RequestText::Typed { rest, scopes } => (RecallRequest::from_value(rest)?, Some(scopes)),
        RequestText::Plain(v) => (RecallRequest::from_value(v)?, None),
    };
    let scopes = with_scope_texts(&mut r, scopes, user, agent)?;
    typed(r, scopes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn string_scopes_read_apart_give_what_reading_the_whole_request_does(req in request(), explain in any::<bool>()) {
        let config = Config::default();
        let whole = RecallRequest::from_value(req.clone()).and_then(|r| recall_answer(&config, r, explain));
        prop_assert_eq!(whole, lean_split(&req, |r, s| recall_answer_read(&config, r, s, explain)));
    }
}

#[test]
fn a_find_answer_as_it_arrives_is_read_typed_with_the_same_errors() {
    let hit = json!({"uri": "viking://user/u/memories/events/a.md", "level": 2, "score": 0.5, "abstract": " x "});
    let body = json!({"status": "ok", "result": {"memories": [hit], "resources": [], "total": 1}, "time": 0.02}).to_string();
    let items = scope_from_text("search.user", &body).unwrap();
    assert_eq!((items.len(), items[0].abstract_text.as_str(), items[0].category.as_deref()), (1, "x", Some("events")));
    assert_eq!(scope_from_text("search.user", &json!([hit]).to_string()).unwrap(), items);
    assert!(scope_from_text("search.user", r#"{"status":"error","error":{"code":"X"}}"#).unwrap().is_empty());
    for (bad, why) in [("{\"status\": ", "is not valid JSON"), ("7", "expected"), (r#"{"result": "{}"}"#, "text of a string"), (r#"{"result": {"memories": 3}}"#, "memories")] {
        let e = scope_from_text("search.agent", bad).unwrap_err();
        assert!(e.field.as_deref().is_some_and(|f| f.starts_with("search.agent")), "{bad}: {:?}", e.field);
        assert!(e.message.contains(why), "{bad}: {}", e.message);
    }
}

#[test]
fn the_usual_request_is_read_typed_and_odd_ones_whole() {
    let usual = json!({"prompt": "pool size?", "search": {"user": {"memories": [{"uri": "viking://user/u/memories/events/a.md", "level": 2, "score": 0.5, "abstract": "x", "relations": [[{"a": 1}]]}]}, "agent": [{"uri": "viking://agent/memories/cases/b.md"}]}});
    match read_request_text(&usual.to_string()).unwrap() {
        RequestText::Typed { rest, scopes } => {
            assert_eq!(rest, json!({"prompt": "pool size?", "search": {}}));
            assert_eq!((scopes.user.len(), scopes.agent.len()), (1, 1));
            assert_eq!(scopes.user[0].category.as_deref(), Some("events"));
        }
        other => panic!("read whole: {other:?}"),
    }
    for odd in [json!({"search": "x"}), json!({"search": {"user": {"memories": 3}}}), json!({"search": {"agent": [7]}}), json!([1]), json!(null)] {
        assert!(matches!(read_request_text(&odd.to_string()).unwrap(), RequestText::Plain(_)), "{odd}");
    }
    // nesting past serde_json's limit fails as reading the whole text does, even in a field
    // the typed read drops
    let deep = format!(r#"{{"search": {{"user": [{{"uri": "u", "relations": {}1{}}}]}}}}"#, "[".repeat(200), "]".repeat(200));
    assert!(serde_json::from_str::<Value>(&deep).is_err());
    assert!(read_request_text(&deep).is_err());
    assert!(read_request_text("{\"prompt\": \"x\"} trailing").is_err());
}
