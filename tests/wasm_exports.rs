//! The JS surface under garbage: every bad input comes back as a JS `Error` with a stable
//! `code` and the offending `field` — never a panic (a panic would abort the wasm instance).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, BigInt, Function, Object, Reflect};
#[cfg(feature = "page")]
use js_sys::Symbol;
#[cfg(feature = "page")]
use openviking_context_engine::wasm::exports::{estimate_tokens_js, parse_config_js, Engine};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(feature = "browser-tests")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn code_and_field(err: JsValue) -> (String, Option<String>) {
    assert!(err.is_instance_of::<js_sys::Error>(), "not an Error: {err:?}");
    let code = Reflect::get(&err, &"code".into()).unwrap().as_string().unwrap();
    let field = Reflect::get(&err, &"field".into()).unwrap().as_string();
    (code, field)
}

fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o.into()
}

#[cfg(feature = "page")]
fn engine() -> Engine {
    Engine::new(JsValue::UNDEFINED, JsValue::UNDEFINED).expect("defaults construct")
}

#[test]
#[cfg(feature = "page")]
fn config_garbage_is_an_error_with_code_and_field() {
    let cases: Vec<(JsValue, &str)> = vec![
        (JsValue::from_f64(5.0), "(config)"),
        (JsValue::from_str("recallLimit=5"), "(config)"),
        (obj(&[("agentId", JsValue::from_str("a/b"))]), "agentId"),
        (obj(&[("mode", JsValue::from_f64(5.0))]), "mode"),
    ];
    for (raw, field) in cases {
        let err = Engine::new(raw.clone(), JsValue::UNDEFINED).err().expect("must fail");
        assert_eq!(code_and_field(err), ("INVALID_CONFIG".to_string(), Some(field.to_string())));
        let err = parse_config_js(raw, JsValue::UNDEFINED).err().expect("must fail");
        assert_eq!(code_and_field(err).0, "INVALID_CONFIG");
    }
}

#[test]
#[cfg(feature = "page")]
fn a_soft_problem_is_a_warning() {
    // a wrong type or an unknown key: the engine runs, the warning names the key
    let e = Engine::new(obj(&[("recallLimit", JsValue::from_str("5")), ("nope", JsValue::TRUE)]), JsValue::UNDEFINED).expect("constructs");
    let warnings = e.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().any(|w| w.starts_with("nope is not a key of this plugin")));
    assert!(warnings.iter().any(|w| w.starts_with("recallLimit=\"5\" is a string, not a whole number; using the default 6")));
}

#[test]
#[cfg(feature = "plugin")]
fn check_config_never_throws() {
    use openviking_context_engine::wasm::exports::check_config_js;
    // the same soft problems are warnings of the plugin's check
    let check = check_config_js(obj(&[("recallLimit", JsValue::from_str("5")), ("nope", JsValue::TRUE)]), JsValue::UNDEFINED).expect("never throws");
    assert!(!Reflect::get(&check, &"config".into()).unwrap().is_null(), "warnings only: the engine runs");
    // checkConfig answers even for what cannot be a config
    for raw in [JsValue::from_f64(5.0), BigInt::from(5u32).into(), obj(&[("mode", JsValue::from_str("cloud"))])] {
        let check = check_config_js(raw, JsValue::UNDEFINED).expect("never throws");
        let config = Reflect::get(&check, &"config".into()).unwrap();
        assert!(config.is_null());
    }
}

#[test]
#[cfg(feature = "page")]
fn values_json_cannot_hold_are_input_errors() {
    let e = engine();
    let big: JsValue = BigInt::from(5u32).into();
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
    for bad in [obj(&[("prompt", big)]), cyclic.into()] {
        let err = e.auto_recall_js(bad).err().expect("must fail");
        assert_eq!(code_and_field(err), ("INVALID_INPUT".to_string(), Some("(request)".to_string())));
    }
}

#[test]
#[cfg(feature = "page")]
fn wrong_shapes_name_the_field() {
    let e = engine();
    let err = e.auto_recall_js(JsValue::from_f64(1.0)).err().unwrap();
    assert_eq!(code_and_field(err).0, "INVALID_INPUT");
    let err = e.auto_recall_js(obj(&[("messages", JsValue::from_str("x"))])).err().unwrap();
    assert_eq!(code_and_field(err), ("INVALID_INPUT".to_string(), Some("messages".to_string())));
    let msgs = Array::of2(&JsValue::NULL, &JsValue::from_f64(3.0));
    let err = e.auto_recall_js(obj(&[("messages", msgs.into())])).err().unwrap();
    assert_eq!(code_and_field(err).1.as_deref(), Some("messages[0]"));
}

#[test]
#[cfg(feature = "page")]
fn functions_and_symbols_read_as_absent() {
    let e = engine();
    let f = Function::new_no_args("return 1");
    let out = e.auto_recall_js(obj(&[("prompt", f.into()), ("nowMs", Symbol::for_("x").into())])).expect("ok");
    let recall = Reflect::get(&out, &"recall".into()).unwrap();
    assert!(recall.is_null());
}

#[test]
#[cfg(feature = "page")]
fn a_full_recall_crosses_the_boundary() {
    let e = engine();
    let item = obj(&[
        ("uri", "viking://user/u/memories/preferences/theme.md".into()),
        ("level", JsValue::from_f64(2.0)),
        ("score", JsValue::from_f64(0.7)),
        ("abstract", "Prefers a dark theme".into()),
    ]);
    let search = obj(&[("user", Array::of1(&item).into())]);
    let req = obj(&[("prompt", "which theme do I like?".into()), ("search", search), ("nowMs", JsValue::from_f64(1.0))]);
    let out = e.auto_recall_js(req).expect("ok");
    let messages: Array = Reflect::get(&out, &"messages".into()).unwrap().into();
    assert_eq!(messages.length(), 3, "the pair and the user message that opens it");
    assert!(estimate_tokens_js("数据库慢查询".into()).unwrap() >= 4);
}

#[test]
#[cfg(feature = "page")]
fn find_answers_given_as_their_text_recall_what_the_objects_do() {
    let e = engine();
    let hit = r#"{"uri": "viking://user/u/memories/preferences/theme.md", "level": 2, "score": 0.7, "abstract": "Prefers a dark theme"}"#;
    let agent = format!(r#"{{"memories": [{}]}}"#, hit.replace("user/u/memories/preferences/theme", "agent/memories/cases/dark"));
    let parse = |t: &str| js_sys::JSON::parse(t).unwrap();
    let request = |user: JsValue, agent: JsValue| {
        let messages = Array::of1(&obj(&[("role", "user".into()), ("content", "which theme do I like?".into())]));
        obj(&[("messages", messages.into()), ("search", obj(&[("user", user), ("agent", agent)])), ("nowMs", JsValue::from_f64(1.0))])
    };
    let answer = |req| js_sys::JSON::stringify(&e.recall(req).expect("ok")).unwrap().as_string().unwrap();
    let from_objects = answer(request(parse(&format!(r#"{{"memories": [{hit}]}}"#)), parse(&agent)));
    assert!(from_objects.contains("dark theme"), "{from_objects}");
    // the user scope as OpenViking's HTTP body; the agent scope as the text of its result
    let body = format!(r#"{{"status": "ok", "result": {{"memories": [{hit}], "total": 1}}, "time": 0.01}}"#);
    assert_eq!(answer(request(body.into(), agent.clone().into())), from_objects);
    // a text that is not JSON names its scope
    let err = e.recall(request("{\"status\": ".into(), agent.into())).err().expect("must fail");
    assert_eq!(code_and_field(err), ("INVALID_INPUT".to_string(), Some("search.user".to_string())));
}

#[test]
fn a_non_string_where_a_string_goes_is_an_input_error_not_a_trap() {
    let length_minus_one = obj(&[("length", JsValue::from_f64(-1.0))]);
    let bads: Vec<JsValue> = vec![
        JsValue::from_f64(42.0),
        JsValue::TRUE,
        Object::new().into(),
        BigInt::from(7u32).into(),
        js_sys::Symbol::for_("s").into(),
        length_minus_one,
        JsValue::NULL,
        JsValue::UNDEFINED,
    ];
    for bad in bads {
        #[cfg(feature = "page")]
        assert_eq!(code_and_field(estimate_tokens_js(bad.clone()).err().expect("must fail")), ("INVALID_INPUT".into(), Some("text".into())));
        #[cfg(feature = "plugin")]
        assert_eq!(
            code_and_field(openviking_context_engine::wasm::exports::redact_secrets_js(bad, Array::new().into()).err().expect("must fail")),
            ("INVALID_INPUT".into(), Some("text".into()))
        );
    }
    #[cfg(feature = "page")]
    assert!(estimate_tokens_js("still works".into()).unwrap() > 0, "the instance is not poisoned");
    #[cfg(feature = "plugin")]
    assert!(openviking_context_engine::wasm::exports::redact_secrets_js("still works".into(), Array::new().into()).is_ok(), "the instance is not poisoned");
}

#[test]
#[cfg(feature = "page")]
fn a_lone_surrogate_reads_as_a_replacement_character() {
    let e = engine();
    let cut = js_sys::JsString::from_char_code1(0xD83D).concat(&"cut mid-emoji, which theme do I like?".into());
    assert!(estimate_tokens_js(cut.clone().into()).unwrap() > 0);
    let msg = obj(&[("role", "user".into()), ("content", cut.clone().into())]);
    let req = obj(&[("prompt", cut.into()), ("messages", Array::of1(&msg).into()), ("nowMs", JsValue::from_f64(1.0))]);
    let out = e.auto_recall_js(req).expect("a lone surrogate is not an error");
    let messages: Array = Reflect::get(&out, &"messages".into()).unwrap().into();
    let content = Reflect::get(&messages.get(0), &"content".into()).unwrap().as_string().unwrap();
    assert!(content.starts_with('\u{FFFD}'), "{content}");
}

/// A JS value built by a snippet (getters, Proxies, cycles).
#[cfg(feature = "plugin")]
fn js(body: &str) -> JsValue {
    Function::new_no_args(body).call0(&JsValue::NULL).expect("snippet runs")
}

#[test]
#[cfg(feature = "plugin")]
fn typed_requests_name_the_field_and_never_run_into_hostile_objects() {
    use openviking_context_engine::wasm::exports::diagnose_host_js;
    // a good request, unknown fields ignored
    assert!(diagnose_host_js(obj(&[("slot", "openviking".into()), ("hostVersion", "2026.9.6".into()), ("extra", js("return {a: [1, {b: 2}]}"))])).is_ok());
    // wrong types name the field, and never repeat the value
    let err = diagnose_host_js(obj(&[("slot", js("return {secret: 'sk-private'}"))])).err().expect("must fail");
    let message = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert!(!message.contains("sk-private"), "{message}");
    assert_eq!(code_and_field(err), ("INVALID_INPUT".to_string(), Some("slot".to_string())));
    let err = diagnose_host_js(obj(&[("hostVersion", 5.0.into())])).err().expect("must fail");
    assert_eq!(code_and_field(err).1.as_deref(), Some("hostVersion"));
    // not an object
    for bad in [JsValue::from_f64(5.0), JsValue::from_str("x"), Array::new().into(), JsValue::NULL] {
        let err = diagnose_host_js(bad).err().expect("must fail");
        assert_eq!(code_and_field(err), ("INVALID_INPUT".to_string(), Some("(input)".to_string())));
    }
    // getters and Proxies that throw, revoked Proxies, cycles: errors, and the module goes on
    let hostile = [
        "return {get slot() { throw new Error('boom') }}",
        "return new Proxy({}, {ownKeys() { throw new Error('boom') }})",
        "return {slot: new Proxy({}, {get() { throw new Error('boom') }, ownKeys() { throw new Error('boom') }})}",
        "const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy",
        "const r = Proxy.revocable({}, {}); r.revoke(); return {slot: r.proxy}",
        "const o = {}; o.self = o; return {slot: o}",
        "const o = {}; o.self = o; return {extra: o}",
    ];
    for snippet in hostile {
        let err = diagnose_host_js(js(snippet)).err().unwrap_or_else(|| panic!("{snippet}: accepted"));
        assert_eq!(code_and_field(err).0, "INVALID_INPUT", "{snippet}");
    }
    assert!(diagnose_host_js(obj(&[("slot", "legacy".into())])).is_ok(), "the module still works after hostile input");
    // a function or symbol member reads as absent, as in JSON
    assert!(diagnose_host_js(js("return {slot: () => 1, hostVersion: Symbol('x')}")).is_ok());
}

/// Long strings cross through `TextEncoder.encodeInto` into wasm memory (`wasm::utf8`): the
/// text must be exactly wasm-bindgen's conversion, whatever the mix of 1-, 2-, 3- and 4-byte
/// characters, wherever a character falls against the buffer's end, lone surrogates included.
#[test]
fn long_strings_read_into_wasm_exactly_as_wasm_bindgen_reads_them() {
    use openviking_context_engine::wasm::utf8::text_of_js;
    let pieces: [&[u16]; 6] = [
        &[0x61],               // a
        &[0xE9],               // é (2 bytes)
        &[0x4E2D],             // 中 (3 bytes)
        &[0xD83D, 0xDE00],     // 😀 (a pair, 4 bytes)
        &[0xD83D],             // a lone high surrogate
        &[0xDC00],             // a lone low surrogate
    ];
    let mut seed = 7u32;
    for case in 0..40 {
        let len = [1023, 1024, 1025, 4096, 20_000][case % 5];
        let mut units: Vec<u16> = Vec::with_capacity(len + 2);
        while units.len() < len {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            // mostly ASCII, the rest any piece; whole runs of one kind in some cases
            let pick = if case % 4 == 0 { (case / 4) % 6 } else if seed >> 28 < 11 { 0 } else { (seed >> 16) as usize % 6 };
            units.extend_from_slice(pieces[pick]);
        }
        let s: JsValue = js_sys::JsString::from_char_code(&units).into();
        let ours = text_of_js(&s).expect("a string");
        assert_eq!(Some(ours), s.as_string(), "case {case} ({len} units)");
    }
    assert_eq!(text_of_js(&JsValue::from_f64(1.0)), None);
    assert_eq!(text_of_js(&"short".into()).as_deref(), Some("short"));
}

/// `toolDefinitions` hands over the checked-in `tools.json`: the same value the Rust
/// definitions serialize to (`tests/tool_definitions_json.rs` keeps the file current).
#[test]
#[cfg(feature = "plugin")]
fn tool_definitions_are_the_rust_definitions() {
    use openviking_context_engine::wasm::exports::tool_definitions_js;
    let given = js_sys::JSON::stringify(&tool_definitions_js().expect("parses")).unwrap().as_string().unwrap();
    let rust = serde_json::to_string(&openviking_context_engine::tools::tool_definitions()).unwrap();
    let (a, b): (serde_json::Value, serde_json::Value) = (serde_json::from_str(&given).unwrap(), serde_json::from_str(&rust).unwrap());
    assert_eq!(a, b);
}
