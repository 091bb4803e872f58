//! The crate's folders depend downward only. The order, bottom first, is written once here
//! (and drawn in `src/README.md`); a `use crate::…` (or any `crate::` path in code) from one
//! folder to a folder at its level or above fails this test, which also rules out cycles.
//! Comments and doc text are not code: a doc that names a higher layer is fine.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The layers, bottom first. A folder (or a top-level file: `config.rs` with `config/`) may
/// use only those before it.
const LAYERS: &[&str] = &[
    "wasm_test",  // the test attribute under wasm (tests only)
    "order",      // a total order for sorting floats and keys
    "error",      // EngineError and its codes
    "text",       // text utilities: truncation, tokens, dates, digests, percent-encoding, redaction
    "decode",     // typed reading of the host's JSON inputs
    "config",     // every plugin key
    "host",       // the Host the engine is written against
    "address",    // where things live in OpenViking: scopes, session ids, agent isolation
    "message",    // OpenClaw's agent messages, turns, the synthetic recall pair
    "recall",     // which memories a turn gets
    "lifecycle",  // a turn's and a session's rules: envelope, triggers, checkpoints
    "tools",      // the memory tools
    "context",    // composition: what the model sees
    "openviking", // the OpenViking protocol, written once
    "engine",     // one async engine per agent over a Host
    "typescript", // generated declarations
    "http",       // the page's fetch host
    "wasm",       // the only wasm-bindgen code
];

fn rank(folder: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == folder)
}

/// The code of a Rust file: line comments and doc comments removed, strings kept (a path
/// inside a string is not a dependency, but none of ours look like one).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `crate::<folder>` names used in `text`.
fn crate_uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        let tail = &rest[i + "crate::".len()..];
        let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        // `$crate::` in macros and `other_crate::` are not this crate's paths
        if !matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '$') && !name.is_empty() {
            out.insert(name);
        }
        rest = tail;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// (from folder, to folder, file) for every use from a folder to one at its level or above.
fn upward_uses() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
        let folder = first.trim_end_matches(".rs").to_string();
        if folder == "lib" {
            continue; // the crate root declares every folder
        }
        let from = rank(&folder).unwrap_or_else(|| panic!("src/{first} is in no layer: add it to LAYERS (tests/layering.rs) and src/README.md"));
        for to in crate_uses(&code_of(&fs::read_to_string(&f).unwrap())) {
            if to == folder {
                continue;
            }
            match rank(&to) {
                Some(r) if r < from => {}
                Some(_) => bad.push((folder.clone(), to, rel.display().to_string())),
                None => {} // an item of the crate root (`crate::EngineError`)
            }
        }
    }
    bad
}

#[test]
fn folders_depend_downward_only() {
    let bad = upward_uses();
    assert!(
        bad.is_empty(),
        "uses at the same level or upward (the order is LAYERS in tests/layering.rs):\n{}",
        bad.iter().map(|(a, b, f)| format!("  {a} → {b}  (src/{f})")).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_use_and_ignores_comments() {
    let code = code_of("use crate::engine::Engine; // crate::wasm\n/// [`crate::http`]\nlet x = crate::text::quote_within(s, 3);\nmacro_rules! m { () => { $crate::host::X } }");
    assert_eq!(crate_uses(&code), ["engine", "text"].into_iter().map(String::from).collect());
    assert!(rank("message") < rank("recall") && rank("engine") < rank("wasm"));
}
