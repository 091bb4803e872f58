//! Typed decoding of untrusted input (`decode`): field paths, no content in errors, limits.
//! The same decoder runs over JS values in the wasm tests (`tests/wasm_exports.rs`).

use openviking_context_engine::decode::{decode, from_json_text, request_from_value, MAX_DEPTH};
use openviking_context_engine::engine::{AssembleCall, TurnWrite};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Outer {
    name: String,
    #[serde(default)]
    items: Vec<Inner>,
    #[serde(default, deserialize_with = "openviking_context_engine::decode::count")]
    limit: Option<u64>,
    #[serde(default)]
    kind: Option<Kind>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Inner {
    score: f64,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Kind {
    User,
    Agent,
}

fn err(v: Value) -> (String, String) {
    let e = decode::<Outer, _>("(input)", v).expect_err("refused");
    let field = e.field.unwrap_or_default();
    let message = e.message.strip_prefix(&format!("{field}: ")).unwrap_or(&e.message).to_string();
    (field, message)
}

#[test]
fn a_well_formed_value_decodes_and_unknown_fields_are_ignored() {
    let v = json!({"name": "n", "items": [{"score": 0.5, "tags": ["a"], "extra": {"deep": [1]}}], "limit": 3, "kind": "agent", "other": true});
    let o: Outer = decode("(input)", v).unwrap();
    assert_eq!(o, Outer { name: "n".into(), items: vec![Inner { score: 0.5, tags: vec!["a".into()] }], limit: Some(3), kind: Some(Kind::Agent) });
}

#[test]
fn errors_name_the_field_path() {
    assert_eq!(err(json!({"name": 5})), ("name".into(), "expected a string, got a number".into()));
    assert_eq!(err(json!({"name": "n", "items": [{"score": 1}, {"score": "high"}]})).0, "items[1].score");
    assert_eq!(err(json!({"name": "n", "items": [{"score": 1, "tags": ["a", 7]}]})).0, "items[0].tags[1]");
    assert_eq!(err(json!({"name": "n", "items": [{}]})), ("items[0].score".into(), "is required".into()));
    assert_eq!(err(json!({})), ("name".into(), "is required".into()));
    assert_eq!(err(json!({"name": "n", "limit": -1})), ("limit".into(), "expected a non-negative integer".into()));
    assert_eq!(err(json!({"name": "n", "limit": 1.5})).0, "limit");
    assert_eq!(err(json!({"name": "n", "kind": "robot"})), ("kind".into(), "expected one of user, agent".into()));
    assert_eq!(err(json!("just a string")).0, "(input)");
}

#[test]
fn no_error_repeats_the_input() {
    let secret = "sk-very-private-text";
    for v in [
        json!({"name": {"k": secret}}),
        json!({"name": "n", "limit": secret}),
        json!({"name": "n", "kind": secret}),
        json!({"name": "n", "items": [{"score": secret}]}),
        json!({"name": "n", "items": secret}),
        json!(secret),
    ] {
        let (field, message) = err(v.clone());
        assert!(!message.contains(secret) && !field.contains(secret), "{v}: {field}: {message}");
    }
}

#[test]
fn nesting_beyond_the_limit_is_an_error_not_a_stack_overflow() {
    let mut deep = json!(1);
    for _ in 0..(MAX_DEPTH + 5) {
        deep = json!([deep]);
    }
    let e = decode::<Value, _>("(input)", deep).expect_err("too deep");
    assert!(e.message.contains("nested deeper"), "{}", e.message);
    // at the limit it still decodes
    let mut ok = json!(1);
    for _ in 0..(MAX_DEPTH - 1) {
        ok = json!([ok]);
    }
    assert!(decode::<Value, _>("(input)", ok).is_ok());
}

#[test]
fn json_text_decodes_with_the_same_errors() {
    let o: Outer = from_json_text("(input)", r#"{"name":"x","items":[]}"#).unwrap();
    assert_eq!(o.name, "x");
    let e = from_json_text::<Outer>("(input)", r#"{"name":"x","items":[{"score":"s"}]}"#).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("items[0].score"));
    assert!(from_json_text::<Outer>("(input)", r#"{"name":"x"} trailing"#).is_err());
}

#[test]
fn requests_take_their_json_fields_apart() {
    let call: AssembleCall = request_from_value(json!({"sessionId": "s", "messages": [{"role": "user", "content": "hi"}], "tokenBudget": 4000, "explain": null})).unwrap();
    assert_eq!(call.messages.len(), 1);
    assert_eq!(call.token_budget, Some(4000));
    assert!(!call.explain);
    let e = request_from_value::<AssembleCall>(json!({"sessionId": "s", "messages": [{"role": "user"}, 3]})).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("messages[1]"));
    let e = request_from_value::<AssembleCall>(json!({"sessionId": "  ", "messages": []})).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("sessionId"));
    let e = request_from_value::<TurnWrite>(json!({"sessionId": "s", "usedContextUris": ["a", 2]})).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("usedContextUris[1]"));
    let w: TurnWrite = request_from_value(json!({"sessionId": "s", "usedContextUris": null, "isHeartbeat": null, "messages": null})).unwrap();
    assert!(w.used_context_uris.is_empty() && !w.is_heartbeat && w.messages.is_empty());
}

#[test]
fn a_lenient_count_reads_anything_and_huge_whole_numbers_saturate() {
    let w: TurnWrite = request_from_value(json!({"sessionId": "s", "prePromptMessageCount": 1.152921504606847e18})).unwrap();
    assert_eq!(w.pre_prompt_message_count, Some(1_152_921_504_606_846_976));
    for junk in [json!("3"), json!(-1), json!(2.5), json!({"n": 1}), json!([1]), json!(true)] {
        let w: TurnWrite = request_from_value(json!({"sessionId": "s", "prePromptMessageCount": junk.clone()})).unwrap();
        assert_eq!(w.pre_prompt_message_count, None, "{junk}");
    }
}
