//! The crate's folders depend downward only. The order, bottom first, is written once here
//! (and drawn in `src/README.md`); a `use crate::…` (or any `crate::` path in code) from one
//! folder to a folder at its level or above fails this test, which also rules out cycles.
//! Inside a folder, files may use each other but never in a circle (`no_circle_of_files…`).
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

/// The module paths (`recall::wire`, `tools::history::rank`) a path expression starting at
/// `text` names: `a::b::c`, `a::{b, c::d}`, nested groups; each as the list of its segments.
fn path_tree(text: &str) -> Vec<Vec<String>> {
    fn ident(s: &str) -> (&str, &str) {
        let n = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        (&s[..n], &s[n..])
    }
    fn tree(s: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let s = s.trim_start();
        if let Some(inner) = s.strip_prefix('{') {
            // split the group at its top-level commas
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        tree(&inner[start..i], prefix.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        tree(&inner[start..i], prefix.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let (name, rest) = ident(s);
        if name.is_empty() {
            out.push(prefix);
            return;
        }
        let mut path = prefix;
        path.push(name.to_string());
        match rest.strip_prefix("::") {
            Some(r) => tree(r, path, out),
            None => out.push(path),
        }
    }
    let mut out = Vec::new();
    tree(text, Vec::new(), &mut out);
    out
}

/// Every file module of the crate (`recall::wire`; a folder's `mod.rs` is the folder's own
/// module, `recall`), by its path in `src/`.
fn modules() -> Vec<(String, std::path::PathBuf)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().to_string()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            (parts.join("::"), f)
        })
        .collect()
}

/// Within each folder, which of its files each file uses (`crate::folder::file…` or
/// `super::file…`); a use of the folder's own module (its re-exports) is not counted.
fn sibling_uses() -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let known: BTreeSet<&str> = mods.iter().map(|(m, _)| m.as_str()).collect();
    let mut graph = std::collections::BTreeMap::new();
    for (module, file) in &mods {
        let segs: Vec<&str> = module.split("::").collect();
        if segs.len() < 2 || file.ends_with("mod.rs") {
            continue; // the crate root's files and the folders' own modules
        }
        let parent = segs[..segs.len() - 1].join("::");
        let code = code_of(&fs::read_to_string(file).unwrap());
        let mut uses = BTreeSet::new();
        for (anchor, base) in [("crate::", String::new()), ("super::", parent.clone())] {
            let mut rest = code.as_str();
            while let Some(i) = rest.find(anchor) {
                let before = rest[..i].chars().last();
                let tail = &rest[i + anchor.len()..];
                rest = tail;
                if matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == ':') {
                    continue;
                }
                for path in path_tree(tail) {
                    // the longest prefix that is a module of the crate
                    let full: Vec<String> = base.split("::").filter(|s| !s.is_empty()).map(String::from).chain(path).collect();
                    let target = (1..=full.len()).rev().map(|n| full[..n].join("::")).find(|p| known.contains(p.as_str()));
                    if let Some(t) = target {
                        // a sibling file of the same folder, not the folder's own module
                        if t.rsplit_once("::").is_some_and(|(p, _)| p == parent) && t != *module {
                            uses.insert(t);
                        }
                    }
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// The circles of a graph: each strongly connected group of more than one node.
fn circles(graph: &std::collections::BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // which nodes each node reaches
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: std::collections::BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|k| (k, reach(k))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (k, r) in &reaches {
        if !r.contains(*k) || out.iter().any(|c| c.contains(k)) {
            continue;
        }
        let group: Vec<String> = r.iter().filter(|m| reaches.get(m).is_some_and(|rm| rm.contains(*k))).cloned().collect();
        out.push(group);
    }
    out
}

#[test]
fn no_circle_of_files_inside_a_folder() {
    let graph = sibling_uses();
    assert!(graph.get("recall::auto").is_some_and(|u| u.contains("recall::wire")), "the check sees recall::auto use recall::wire: {:?}", graph.get("recall::auto"));
    let found = circles(&graph);
    assert!(found.is_empty(), "files of one folder that use each other in a circle (move what one needs below the other):\n{}", found.iter().map(|c| format!("  {}", c.join(" ↔ "))).collect::<Vec<_>>().join("\n"));
}

#[test]
fn the_circle_check_reads_groups_and_finds_a_circle() {
    let paths = path_tree("recall::{wire::Scopes, candidate::{SearchItem, take}}; x");
    assert_eq!(paths, vec![vec!["recall", "wire", "Scopes"], vec!["recall", "candidate", "SearchItem"], vec!["recall", "candidate", "take"]]);
    let g: std::collections::BTreeMap<String, BTreeSet<String>> = [("a", &["b"][..]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(circles(&g), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
}
