//! No secret in a plugin config ever reaches a problem, a warning, the refusal's message, or
//! what the engine shows of its configuration: a key under a misspelled field (`api_key`,
//! `apikey`, `APIKey`, `key`, `token`, …) or anywhere inside `headers`, a key in `baseUrl`'s
//! user info (given or from `$OPENVIKING_BASE_URL`, with or without a scheme), and the
//! configured key repeated under another key. The hint that helps ("did you mean apiKey?")
//! stays.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use openviking_context_engine::config::{check_config, parse_config, Env};
use openviking_context_engine::openviking::Server;
use serde_json::{json, Value};

const KEY: &str = "sk-leak-7f3a9c2e1b+/=";

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Every shape a key turns up in where it does not belong, with the environment it needs.
fn shapes() -> Vec<(&'static str, Value, Env)> {
    let none = Env::new;
    let remote = |extra: Value| {
        let mut v = json!({"mode": "remote", "baseUrl": "http://127.0.0.1:1933"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    vec![
        ("api_key", remote(json!({"api_key": KEY})), none()),
        ("apikey", remote(json!({"apikey": KEY})), none()),
        ("APIKey", remote(json!({"APIKey": KEY})), none()),
        ("api-key", remote(json!({"api-key": KEY})), none()),
        ("apikye", remote(json!({"apikye": KEY})), none()),
        ("key", remote(json!({"key": KEY})), none()),
        ("token", remote(json!({"token": KEY})), none()),
        ("secret", remote(json!({"secret": KEY})), none()),
        ("password", remote(json!({"password": KEY})), none()),
        ("apiKeys (one level up)", remote(json!({"apiKeys": [KEY]})), none()),
        ("headers", remote(json!({"headers": {"X-API-Key": KEY, "Authorization": format!("Bearer {KEY}")}})), none()),
        ("nested one level too deep", remote(json!({"openviking": {"apiKey": KEY, "baseUrl": "http://127.0.0.1:1933"}})), none()),
        ("config inside config", remote(json!({"config": {"apiKey": KEY}})), none()),
        ("baseUrl user info", json!({"mode": "remote", "baseUrl": format!("http://ov:{KEY}@127.0.0.1:1933")}), none()),
        ("baseUrl token as user", json!({"mode": "remote", "baseUrl": format!("https://{KEY}@ov.example.test/")}), none()),
        ("baseUrl user info, no scheme", json!({"mode": "remote", "baseUrl": format!("ov:{KEY}@127.0.0.1:1933")}), none()),
        ("baseUrl user info, a bad port", json!({"mode": "remote", "baseUrl": format!("http://ov:{KEY}@127.0.0.1:99999")}), none()),
        ("baseUrl user info, local mode", json!({"baseUrl": format!("http://ov:{KEY}@127.0.0.1:1933")}), none()),
        ("$OPENVIKING_BASE_URL user info", json!({"mode": "remote"}), env(&[("OPENVIKING_BASE_URL", &format!("http://ov:{KEY}@127.0.0.1:1933"))])),
        ("$OPENVIKING_BASE_URL user info, no scheme", json!({"mode": "remote"}), env(&[("OPENVIKING_BASE_URL", &format!("ov:{KEY}@127.0.0.1:1933"))])),
        ("the key as mode", json!({"apiKey": KEY, "mode": KEY}), none()),
        ("the key as targetUri", remote(json!({"apiKey": KEY, "targetUri": KEY})), none()),
        ("the key as recallLimit", remote(json!({"apiKey": KEY, "recallLimit": KEY})), none()),
        ("the key as captureMode", remote(json!({"apiKey": KEY, "captureMode": KEY})), none()),
        ("the key from the environment as targetUri", remote(json!({"apiKey": "${OPENVIKING_API_KEY}", "targetUri": KEY})), env(&[("OPENVIKING_API_KEY", KEY)])),
        ("the key unset, a misspelled field's copy as agentId", remote(json!({"api_key": KEY, "agentId": format!("{KEY} x")})), none()),
        ("the key as an unknown key's name", remote(json!({"apiKey": KEY, KEY: true})), none()),
    ]
}

/// The key in any form a channel could carry it: as is, percent-encoded, JSON-escaped.
fn leaks(text: &str) -> bool {
    let encoded: String = KEY.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect();
    text.contains(KEY) || text.contains(&encoded) || text.contains("7f3a9c2e1b")
}

#[test]
fn no_problem_warning_or_refusal_carries_a_secret_in_any_shape() {
    for (name, raw, env) in shapes() {
        let check = check_config(&raw, &env);
        let problems = serde_json::to_string(&check.problems).unwrap();
        assert!(!check.problems.is_empty(), "{name}: a secret where it does not belong is always a problem");
        assert!(!leaks(&problems), "{name}: the problems carry the key: {problems}");
        for p in &check.problems {
            assert!(!leaks(&p.line()), "{name}: {}", p.line());
        }
        match parse_config(&raw, &env) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    assert!(!leaks(w), "{name}: warning {w}");
                }
                let shown = format!("{:?} {} {:?}", parsed.config, parsed.config.to_user_json(), Server::from_config(&parsed.config));
                assert!(!leaks(&shown), "{name}: the configuration as shown carries the key: {shown}");
                assert!(!leaks(&parsed.config.base_url), "{name}: baseUrl {}", parsed.config.base_url);
            }
            Err(e) => assert!(!leaks(&e.to_string()) && !leaks(&format!("{e:?}")), "{name}: the refusal carries the key: {e}"),
        }
    }
}

#[test]
fn a_key_under_a_misspelled_field_is_named_and_hidden_and_the_hint_stays() {
    let check = check_config(&json!({"mode": "remote", "baseUrl": "http://127.0.0.1:1933", "api_key": KEY, "headers": {"X-API-Key": KEY}}), &Env::new());
    let by_key = |k: &str| check.problems.iter().find(|p| p.key == k).unwrap_or_else(|| panic!("{k}: {:?}", check.problems));
    let p = by_key("api_key");
    assert_eq!(p.value, json!("***"));
    assert_eq!(p.line(), "api_key is not a key of this plugin (did you mean apiKey?); it is ignored — fix: rename it to apiKey");
    assert_eq!(by_key("headers").value, json!("***"), "anything inside headers");
    // a field that holds no secret keeps its value: the operator sees what was written
    let plain = check_config(&json!({"recalLimit": 3, "hooks": {"allowConversationAccess": true}}), &Env::new());
    assert_eq!(plain.problems.iter().map(|p| p.value.clone()).collect::<Vec<_>>(), [json!({"allowConversationAccess": true}), json!(3)]);
}

#[test]
fn a_base_url_with_user_info_is_used_without_it_and_says_so_with_the_user_info_hidden() {
    let parsed = parse_config(&json!({"mode": "remote", "baseUrl": format!("http://ov:{KEY}@127.0.0.1:1933/")}), &Env::new()).unwrap();
    assert_eq!(parsed.config.base_url, "http://127.0.0.1:1933", "fetch refuses a URL with user info: it is never sent");
    assert_eq!(
        parsed.warnings,
        ["baseUrl \"http://***@127.0.0.1:1933/\" has a user name or password in it; it is not sent (OpenViking reads the key from apiKey, and fetch refuses a URL that carries one); using \"http://127.0.0.1:1933\" — fix: remove the user info from baseUrl, and set apiKey to the user key"]
    );
    assert_eq!(parsed.problems[0].value, json!("http://***@127.0.0.1:1933/"));
    // an unusable one is still an error, its user info hidden
    let e = parse_config(&json!({"mode": "remote", "baseUrl": format!("ov:{KEY}@127.0.0.1:1933")}), &Env::new()).unwrap_err();
    assert!(e.message.starts_with("baseUrl \"***@127.0.0.1:1933\" has no http:// or https:// in front") && e.message.contains("set baseUrl to \"http://127.0.0.1:1933\""), "{e}");
}

#[test]
fn the_configured_key_written_under_another_key_is_redacted_there() {
    let e = parse_config(&json!({"apiKey": KEY, "mode": KEY}), &Env::new()).unwrap_err();
    assert!(e.message.starts_with("mode=\"[redacted]\" is neither \"local\" nor \"remote\""), "{e}");
    let check = check_config(&json!({"apiKey": KEY, "mode": KEY}), &Env::new());
    assert_eq!(check.problems[0].value, json!("[redacted]"));
}

#[test]
fn a_config_in_error_still_says_what_doctor_and_setup_can_use() {
    // the local mode's first step: apiKey names a variable not set yet
    let check = check_config(&json!({"apiKey": "${OPENVIKING_API_KEY}", "port": 1944}), &Env::new());
    assert!(check.config.is_none(), "the engine stays off");
    let d = check.degraded.expect("the rest of the config");
    assert_eq!((d.port, d.api_key.as_str()), (1944, ""), "port kept, the key in error left out");
    // no error: nothing degraded; an error in every key that matters: the defaults
    assert!(check_config(&json!({"port": 1944}), &Env::new()).degraded.is_none());
    assert!(check_config(&json!({"mode": "cloud"}), &Env::new()).degraded.is_some());
    assert!(check_config(&json!("not an object"), &Env::new()).degraded.is_none());
    // a secret in a key in error never reaches the degraded config
    let check = check_config(&json!({"apiKey": "${NOPE}", "baseUrl": "http://u:secret@127.0.0.1:1933"}), &Env::new());
    assert!(!serde_json::to_string(&check.degraded).unwrap().contains("${NOPE}"));
}
