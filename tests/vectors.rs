//! Runs the shared JSON vectors in `tests/vectors/` (see its README) against the core.
//! The same files are run against the built wasm package by `js-glue/test/vectors.test.mjs`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use openviking_context_engine::recall::auto::{auto_recall, RecallRequest};
use openviking_context_engine::config::{parse_config, Env};
use openviking_context_engine::EngineError;
use serde_json::{json, Map, Value};

const FILES: &[(&str, &str)] = &[
    ("config.json", include_str!("vectors/config.json")),
    ("recall.json", include_str!("vectors/recall.json")),
    ("legacy-divergences.json", include_str!("vectors/legacy-divergences.json")),
];

fn env_of(case: &Value) -> Env {
    let mut env = Env::new();
    if let Some(m) = case.get("env").and_then(Value::as_object) {
        for (k, v) in m {
            env.insert(k.clone(), v.as_str().unwrap_or_default().to_string());
        }
    }
    env
}

fn err_json(e: EngineError) -> Value {
    json!({"error": {"code": e.code.as_str(), "field": e.field, "message": e.message}})
}

fn run(case: &Value) -> Value {
    let env = env_of(case);
    let input = case.get("input").cloned().unwrap_or(Value::Null);
    match case["call"].as_str() {
        Some("parseConfig") => match parse_config(&input, &env) {
            Ok(p) => serde_json::to_value(p).unwrap(),
            Err(e) => err_json(e),
        },
        Some("autoRecall") => {
            let config = match parse_config(case.get("config").unwrap_or(&Value::Null), &env) {
                Ok(p) => p.config,
                Err(e) => return err_json(e),
            };
            match RecallRequest::from_json(&input).and_then(|r| auto_recall(&config, r)) {
                Ok(out) => with_derived(serde_json::to_value(out).unwrap()),
                Err(e) => err_json(e),
            }
        }
        other => panic!("unknown call {other:?}"),
    }
}

/// Adds `explainByUri` and `messageRoles` (see the vectors README).
fn with_derived(mut out: Value) -> Value {
    let mut by_uri = Map::new();
    if let Some(records) = out.pointer("/recall/explain").and_then(Value::as_array) {
        for r in records {
            let uri = r["uri"].as_str().unwrap_or_default().to_string();
            let v = if r["decision"] == "kept" { json!("kept") } else { r["reason"].clone() };
            by_uri.entry(uri).or_insert(v);
        }
    }
    let roles: Vec<Value> = out["messages"].as_array().map(|a| a.iter().map(|m| m["role"].clone()).collect()).unwrap_or_default();
    out["explainByUri"] = Value::Object(by_uri);
    out["messageRoles"] = Value::Array(roles);
    out
}

fn matches(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match expected {
        Value::String(s) if s == "absent" => {
            if actual.is_null() { Ok(()) } else { Err(format!("{path}: expected absent, got {actual}")) }
        }
        Value::Object(exp) => {
            for (k, v) in exp {
                let a = actual.get(k).unwrap_or(&Value::Null);
                matches(v, a, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        Value::Array(exp) => {
            let act = actual.as_array().ok_or_else(|| format!("{path}: expected an array, got {actual}"))?;
            if exp.len() != act.len() {
                return Err(format!("{path}: expected {} items, got {}: {actual}", exp.len(), act.len()));
            }
            for (i, (e, a)) in exp.iter().zip(act).enumerate() {
                matches(e, a, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        Value::Number(n) => match actual.as_f64() {
            Some(a) if (a - n.as_f64().unwrap()).abs() < 1e-9 => Ok(()),
            _ => Err(format!("{path}: expected {n}, got {actual}")),
        },
        _ if expected == actual => Ok(()),
        _ => Err(format!("{path}: expected {expected}, got {actual}")),
    }
}

#[test]
fn all_vectors_pass() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (file, text) in FILES {
        let cases: Vec<Value> = serde_json::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for case in cases {
            count += 1;
            let name = format!("{file}: {}", case["name"].as_str().unwrap_or("?"));
            let out = run(&case);
            if let Err(e) = matches(&case["expect"], &out, "") {
                failures.push(format!("{name}\n    {e}"));
            }
            if let Some(excl) = case.get("errorMessageExcludes").and_then(Value::as_array) {
                let msg = out.pointer("/error/message").and_then(Value::as_str).unwrap_or("");
                for s in excl.iter().filter_map(Value::as_str) {
                    if msg.contains(s) {
                        failures.push(format!("{name}\n    error message leaks {s:?}"));
                    }
                }
            }
        }
    }
    assert!(count >= 30, "only {count} vectors");
    assert!(failures.is_empty(), "{} of {count} vectors failed:\n{}", failures.len(), failures.join("\n"));
}

/// Every vector file in the folder is in `FILES` (so the wasm run sees them all too).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_vector_file_is_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
