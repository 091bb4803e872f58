//! The memory tools' definitions cross to the plugin as checked-in JSON text
//! (`src/wasm/tools.json`, parsed by `JSON.parse` in `toolDefinitions`), so the plugin's wasm
//! carries the text and not the code that builds the schemas (27 KB of it). This test fails
//! when the file is not what `tools::tool_definitions()` gives;
//! `UPDATE_TOOLS=1 cargo test --test tool_definitions_json` rewrites it.
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::tools::tool_definitions;
use std::path::PathBuf;

fn generated() -> String {
    serde_json::to_string_pretty(&tool_definitions()).expect("serializes") + "\n"
}

#[test]
fn checked_in_tool_definitions_are_generated() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/wasm/tools.json");
    let generated = generated();
    if std::env::var_os("UPDATE_TOOLS").is_some_and(|v| !v.is_empty() && v != "0") {
        std::fs::write(&path, &generated).expect("write src/wasm/tools.json");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "src/wasm/tools.json is not what tools::tool_definitions() gives.\n\
         Run `UPDATE_TOOLS=1 cargo test --test tool_definitions_json` to regenerate it."
    );
}

#[test]
fn the_file_is_the_tools_in_registration_order() {
    let v: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let names: Vec<&str> = v.as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names.first(), Some(&"memory_recall"));
    assert!(v.as_array().unwrap().iter().all(|d| d["parameters"]["type"] == "object" && d["description"].as_str().is_some_and(|s| !s.is_empty())));
}
