//! The package's TypeScript declarations (`src/wasm/types.d.ts`) are generated from the Rust
//! types by ts-rs (`openviking_context_engine::typescript`, the `typescript` feature). This test
//! regenerates them and fails with a diff when the checked-in file differs;
//! `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations` rewrites the
//! file. It also checks what a string comparison cannot, on the declarations read back
//! (`shapes`):
//!
//! - every name the declarations and the exports' `unchecked_*_type` strings refer to is
//!   declared, every name declared before still is, and there is no `any`;
//! - the declared shapes are what serde really produces (real values, serialized);
//! - the inputs parsed by hand (`PluginConfig`, `RecallRequest`, `AssembleRequest`,
//!   `AssembleCall`, `TurnWrite`, hand-written in `src/typescript/inputs.d.ts`) are read
//!   exactly as declared: every declared key is read (a wrongly typed value is refused naming
//!   it), required keys are required, and the parser's source names no key that is not
//!   declared.

#[path = "typescript_declarations/shapes.rs"]
mod shapes;

use openviking_context_engine::config::{check_config, parse_config, Config, Env, KEYS};
use openviking_context_engine::engine::{AssembleCall, TurnWrite};
use openviking_context_engine::typescript::{declarations, HAND_WRITTEN_HOST, HAND_WRITTEN_INPUTS};
use shapes::{Decls, Member, Ty};
use openviking_context_engine::{EngineError, ErrorCode};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------------------
// The checked-in file

/// A line diff (longest common subsequence), with two lines of context around changes.
fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    // (tag, old line number, text)
    let mut ops: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', i + 1, a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i + 1, a[i]));
            i += 1;
        } else {
            ops.push(('+', i + 1, b[j]));
            j += 1;
        }
    }
    let near = |k: usize| ops[k.saturating_sub(2)..(k + 3).min(ops.len())].iter().any(|o| o.0 != ' ');
    let mut out = String::new();
    let mut skipped = true;
    for (k, (tag, line, text)) in ops.iter().enumerate() {
        if *tag == ' ' && !near(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str(&format!("@@ src/wasm/types.d.ts line {line}\n"));
            skipped = false;
        }
        out.push_str(&format!("{tag} {text}\n"));
    }
    out
}

#[test]
fn checked_in_declarations_are_generated() {
    let generated = declarations();
    let path = root().join("src/wasm/types.d.ts");
    if std::env::var_os("UPDATE_TS").is_some_and(|v| !v.is_empty() && v != "0") {
        std::fs::write(&path, &generated).expect("write src/wasm/types.d.ts");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "src/wasm/types.d.ts is not what the Rust types generate (- checked in, + generated):\n\n{}\n\
         Run `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations` to regenerate it.",
        diff(&on_disk, &generated)
    );
}

#[test]
fn the_diff_names_the_changed_lines() {
    let d = diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n");
    assert_eq!(d, "@@ src/wasm/types.d.ts line 2\n  b\n  c\n- d\n+ D\n  e\n  f\n");
}

// ---------------------------------------------------------------------------------------
// Names

/// The text outside comments, string literals and template literals.
fn code_only(ts: &str) -> String {
    let mut out = String::new();
    let mut chars = ts.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                out.push(' ');
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                out.push('\n');
            }
            '"' | '`' => {
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

fn identifiers(code: &str) -> BTreeSet<String> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// Type names used: capitalised identifiers (properties and parameters are camelCase).
fn type_names(ts: &str) -> BTreeSet<String> {
    identifiers(&code_only(ts)).into_iter().filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase())).collect()
}

fn declared_names(ts: &str) -> BTreeSet<String> {
    let code = code_only(ts);
    let words: Vec<&str> = code.split_whitespace().collect();
    words.windows(3).filter(|w| w[0] == "export" && (w[1] == "interface" || w[1] == "type")).map(|w| w[2].trim_end_matches(['{', '<', '=']).to_string()).collect()
}

const TS_BUILTINS: &[&str] = &["Array", "Error", "NonNullable", "Promise", "Record"];

/// The `typescript_custom_section` of `src/wasm/live.rs` (its own, hand-written).
fn live_section() -> String {
    let src = read("src/wasm/live.rs");
    let start = src.find("r#\"").expect("live.rs has a custom section") + 3;
    let end = src[start..].find("\"#").expect("closed") + start;
    src[start..end].to_string()
}

/// Every `unchecked_param_type` / `unchecked_return_type` string of the exports.
fn unchecked_types() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in ["src/wasm/exports.rs", "src/wasm/context_engine.rs", "src/wasm/live.rs"] {
        let src = read(file);
        for marker in ["unchecked_param_type", "unchecked_return_type"] {
            for (at, _) in src.match_indices(marker) {
                let rest = &src[at + marker.len()..];
                let rest = rest.trim_start().strip_prefix('=').expect("= after the attribute key").trim_start();
                let rest = rest.strip_prefix('"').expect("a string literal");
                let end = rest.find('"').expect("closed");
                out.push((file.to_string(), rest[..end].to_string()));
            }
        }
    }
    out
}

#[test]
fn every_type_name_used_is_declared() {
    let ours = declarations();
    let live = live_section();
    let declared: BTreeSet<String> = declared_names(&ours).into_iter().chain(declared_names(&live)).chain(TS_BUILTINS.iter().map(|s| s.to_string())).collect();
    let mut missing = Vec::new();
    for name in type_names(&ours) {
        if !declared.contains(&name) {
            missing.push(format!("{name} (in src/wasm/types.d.ts)"));
        }
    }
    for name in type_names(&live) {
        if !declared.contains(&name) {
            missing.push(format!("{name} (in src/wasm/live.rs)"));
        }
    }
    let unchecked = unchecked_types();
    assert!(unchecked.len() > 40, "found only {} unchecked_*_type strings", unchecked.len());
    for (file, ts) in &unchecked {
        for name in type_names(ts) {
            if !declared.contains(&name) {
                missing.push(format!("{name} (in {file}: {ts:?})"));
            }
        }
    }
    assert!(missing.is_empty(), "names used but not declared:\n{}", missing.join("\n"));
}

/// What the hand-written declarations declared before they were generated, and what the JS
/// side and the demo page name: none may disappear.
const NAMES_BEFORE_GENERATION: &[&str] = &[
    "PluginConfig", "ResolvedConfig", "ParsedConfig", "AgentMessage", "FindItem", "FindResult", "RecallRequest",
    "SkipReason", "QueryPart", "RecallQuery", "QueryProfile", "RankParts", "CutReason", "ExplainRecord",
    "RecalledMemory", "RecallOutcome", "AutoRecall", "HostCallbacks", "HostErrorKind", "OpenVikingMessage",
    "OutboxEntry", "TurnWrite", "Trigger", "FlushReport", "WriteOutcome", "CompactCheckpoint", "CommitOutcome",
    "SessionRecord", "AssembleRequest", "AssembleResult", "AssembleCall", "Assembled", "CompactAnswer",
    "ToolDefinition", "SessionStatus", "Trace", "HostFacts", "Inert", "MemoryScopes", "ExpandTarget", "Expansion",
    "TimelineStep", "EngineErrorShape",
];

#[test]
fn no_declared_name_disappeared() {
    let declared = declared_names(&declarations());
    let gone: Vec<&&str> = NAMES_BEFORE_GENERATION.iter().filter(|n| !declared.contains(**n)).collect();
    assert!(gone.is_empty(), "no longer declared: {gone:?}");
    // each once
    let code = code_only(&declarations());
    for name in &declared {
        let count = code.matches(&format!("interface {name} ")).count() + code.matches(&format!("type {name} ")).count();
        assert_eq!(count, 1, "{name} declared {count} times");
    }
}

#[test]
fn no_any() {
    // exactly the rule js-glue/test/pkg.test.mjs applies to the built package: only lines
    // starting with `*` or `//` are comments to it, so a one-line `/** … */` counts
    for (n, line) in declarations().lines().enumerate() {
        let t = line.trim();
        if t.starts_with('*') || t.starts_with("//") {
            continue;
        }
        assert!(!identifiers(line).contains("any"), "line {}: `any` in {line:?}", n + 1);
    }
}

#[test]
fn the_hand_written_host_section_is_one_block_at_the_end() {
    let ours = declarations();
    let host = HAND_WRITTEN_HOST.trim_end();
    assert!(ours.trim_end().ends_with(host));
    assert_eq!(ours.matches("export interface HostCallbacks").count(), 1);
}

// ---------------------------------------------------------------------------------------
// Declared shapes against what serde produces

/// The declarations read back: the generated ones and the hand-written inputs (the external
/// shapes and the host callbacks are not looked into).
fn decls() -> Decls {
    let all = declarations();
    let start = all.find("// Generated from the Rust types.").expect("the generated section");
    let end = all.rfind(HAND_WRITTEN_HOST.trim_end()).expect("the host section");
    let generated = &all[start..end];
    let mut d = shapes::declarations(generated);
    d.extend(shapes::declarations(HAND_WRITTEN_INPUTS));
    Decls(d)
}

fn check<T: serde::Serialize>(d: &Decls, name: &str, what: &str, v: &T) -> usize {
    let ty = d.0.get(name).unwrap_or_else(|| panic!("{name} is not declared"));
    d.check(what, &serde_json::to_value(v).unwrap(), ty).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn the_reader_reads_every_declaration_and_refuses_what_does_not_fit() {
    let d = decls();
    let names: Vec<&String> = d.0.keys().collect();
    assert!(names.len() > 55, "read only {} declarations: {names:?}", names.len());
    let trigger = &d.0["Trigger"];
    assert!(d.check("t", &json!({"kind": "turns", "turns": 3, "threshold": 4}), trigger).is_ok());
    for bad in [json!({"kind": "turns", "turns": 3}), json!({"kind": "turns", "turns": 3, "threshold": 4, "x": 1}), json!({"kind": "nope", "turns": 3, "threshold": 4}), json!({"kind": "turns", "turns": "3", "threshold": 4})] {
        assert!(d.check("t", &bad, trigger).is_err(), "{bad}");
    }
}

fn sample_search() -> Value {
    json!({"memories": [
        {"uri": "viking://user/alice/memories/preferences/theme.md", "level": 2, "score": 0.7, "abstract": "Prefers a dark theme", "category": "preferences"},
        {"uri": "viking://user/alice/memories/preferences/theme.md", "level": 2, "score": 0.6, "abstract": "Prefers a dark theme"},
        {"uri": "viking://user/alice/memories", "level": 0, "score": 0.9, "abstract": "dir"},
        {"level": 2}
    ]})
}

#[test]
fn declared_shapes_are_what_serde_produces() {
    use openviking_context_engine::*;
    let d = &decls();
    let config = Config::default();
    let mut n = 0;
    n += check(d, "ResolvedConfig", "config", &config);
    n += check(d, "ParsedConfig", "parsed", &parse_config(&json!({"targetUri": "viking://user/a/memories", "stateDir": "/tmp/s"}), &Env::new()).unwrap());
    n += check(d, "ConfigCheck", "check", &check_config(&json!({"recallLimit": 500, "mode": "nope"}), &Env::new()));

    let request = json!({
        "prompt": "Which theme do I prefer?",
        "messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}, {"role": "user", "content": "/new"}],
        "search": {"user": sample_search(), "agent": []},
        "nowMs": 1764000000000u64,
        "tokenBudget": 50,
        "summaries": [{"checkpointId": "c", "archiveUri": "viking://user/a/sessions/s/history/archive_001", "startSequence": 0, "endSequence": 0, "text": "We talked about themes."}],
        "nextSequence": 2
    });
    let auto = recall::auto::auto_recall(&config, recall::auto::RecallRequest::from_json(&request).unwrap()).unwrap();
    assert!(auto.recall.as_ref().is_some_and(|r| r.explain.iter().any(|e| e.reason.is_some())), "cut candidates are checked too");
    n += check(d, "AutoRecall", "autoRecall", &auto);
    let lean = recall::auto::recall_answer(&config, recall::auto::RecallRequest::from_json(&request).unwrap(), true).unwrap();
    assert_eq!((&lean.query, &lean.recall), (&auto.query, &auto.recall), "recall answers what autoRecall does, without the messages");
    n += check(d, "RecallAnswer", "recall", &lean);
    let assembled = context::assemble::assemble_turn(&config, request).unwrap();
    n += check(d, "AssembleResult", "assemble", &assembled);

    let cp = lifecycle::checkpoint::CompactCheckpoint {
        checkpoint_id: "ckpt-s-001".into(),
        session_id: "s".into(),
        committed_at: "2026-01-01T00:00:00Z".into(),
        archive_index: 1,
        source_turn_range: lifecycle::checkpoint::TurnRange { start_sequence: 0, end_sequence: 3 },
        summary_uri: None,
        extracted_memory_uris: vec![],
        archive_uri: "viking://user/u/sessions/s/history/archive_001".into(),
        task_id: Some("t".into()),
        reason: "compact()".into(),
        summary: None,
        summary_problem: Some("empty".into()),
        turn_ids: vec!["a".into()],
    };
    n += check(d, "CompactCheckpoint", "checkpoint", &cp);
    let mut record = engine::SessionRecord::default();
    record.checkpoints.upsert(cp.clone());
    record.live_count = Some(3);
    n += check(d, "SessionRecord", "record", &record);
    n += check(d, "SessionRecord", "record (default)", &engine::SessionRecord::default());
    n += check(d, "FlushReport", "flush", &engine::FlushReport::default());
    n += check(d, "CommitOutcome", "commit", &engine::CommitOutcome { compacted: true, reason: None, checkpoint: Some(cp.clone()), task_pending: false });

    for uri in ["viking://user/u/sessions/s/history/archive_002/messages", "viking://user/u/sessions/s", "viking://user/u/memories/x.md"] {
        n += check(d, "ExpandTarget", uri, &tools::expand::classify(uri).unwrap());
    }
    let archive = vec![json!({"role": "user", "parts": [{"type": "text", "text": "dark theme please"}]}), json!({"role": "assistant", "parts": [{"type": "text", "text": "ok"}]})];
    n += check(d, "Expansion", "expansion", &tools::expand::expand("viking://user/u/sessions/s/history/archive_001", &archive, Some(&cp), Some("theme"), 3));
    let transcript: Vec<Value> = (0..30).flat_map(|i| [json!({"role": "user", "content": format!("question number {i} about the database schema?")}), json!({"role": "assistant", "content": "a long answer ".repeat(200)})]).collect();
    let steps = lifecycle::trigger_timeline::trigger_timeline(&config, transcript, Some(2000));
    assert!(steps.iter().any(|s| s.trigger.is_some()));
    for (i, s) in steps.iter().enumerate() {
        n += check(d, "TimelineStep", &format!("timeline[{i}]"), s);
    }
    for t in tools::tool_definitions() {
        n += check(d, "ToolDefinition", t.name, &t);
    }
    n += check(d, "Inert", "inert", &lifecycle::inert::diagnose_host(&lifecycle::inert::HostFacts { slot: Some("legacy".into()), host_version: None }).unwrap());
    n += check(d, "MemoryScopes", "scopes", &address::scopes::memory_scopes(None, Some("alice"), "main"));
    assert!(n > 60, "checked only {n} objects");
}

#[test]
fn host_facts_are_declared_as_the_input_they_are() {
    // an input: every key optional, null allowed, as serde's `default` reads it
    let d = decls();
    let (members, _) = d.members(&d.0["HostFacts"]);
    assert_eq!(members.len(), 2);
    assert!(members.iter().all(|m| m.optional && m.ty.nullable()), "{members:?}");
    let facts: openviking_context_engine::lifecycle::inert::HostFacts = serde_json::from_value(json!({"slot": null})).unwrap();
    assert_eq!(facts, Default::default());
}

#[test]
fn error_codes_and_tool_names_are_the_declared_ones() {
    let all = [ErrorCode::InvalidConfig, ErrorCode::InvalidInput, ErrorCode::HostFailed, ErrorCode::HostTimeout, ErrorCode::Internal];
    for c in all {
        // a new code does not compile until it is listed above
        match c {
            ErrorCode::InvalidConfig | ErrorCode::InvalidInput | ErrorCode::HostFailed | ErrorCode::HostTimeout | ErrorCode::Internal => {}
        }
    }
    let ours = declarations();
    let line = ours.lines().find(|l| l.trim_start().starts_with("code: \"INVALID_CONFIG\"")).expect("EngineErrorShape.code");
    let declared: BTreeSet<&str> = line.split('"').skip(1).step_by(2).collect();
    assert_eq!(declared, all.iter().map(|c| c.as_str()).collect());

    let d = decls();
    let (members, _) = d.members(&d.0["ToolDefinition"]);
    let names: BTreeSet<String> = members[0].ty.literals().into_iter().collect();
    let defined: BTreeSet<String> = openviking_context_engine::tools::tool_definitions().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, defined);
}

// ---------------------------------------------------------------------------------------
// Inputs parsed by hand

#[test]
fn plugin_config_keys_are_the_parser_keys() {
    // PluginConfig is ResolvedConfig's keys, each optional and not null (a mapped type)
    assert!(HAND_WRITTEN_INPUTS.contains("export type PluginConfig = { [k in keyof ResolvedConfig]?: NonNullable<ResolvedConfig[k]> } & {"));
    let d = decls();
    let (fields, _) = d.members(&d.0["ResolvedConfig"]);
    let keys: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(keys, KEYS, "ResolvedConfig's keys are the parser's KEYS, in order");

    // every key, with the value the resolved configuration has (or a usable one), is accepted
    let env = Env::new();
    let mut full = serde_json::to_value(Config::default()).unwrap();
    full["mode"] = json!("remote");
    full["targetUri"] = json!("viking://user/alice/memories");
    full["stateDir"] = json!("/tmp/state");
    let parsed = parse_config(&full, &env).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(parsed.warnings, Vec::<String>::new());
    assert_eq!(serde_json::to_value(&parsed.config).unwrap(), full, "every key read back as given");

    // a wrongly typed value is named: an error (the engine does not run) for the keys no
    // default can stand in for, a warning (the default used) for the others
    const HARD: &[&str] = &["mode", "configPath", "port", "baseUrl", "apiKey", "agentId", "targetUri", "stateDir"];
    for f in &fields {
        let wrong = wrong(&f.ty.non_null());
        let mut raw = json!({ "mode": "remote" });
        raw[f.name.as_str()] = wrong;
        let check = check_config(&raw, &env);
        let named: Vec<_> = check.problems.iter().filter(|p| p.key == f.name).collect();
        assert_eq!(named.len(), 1, "{}: {:?}", f.name, check.problems);
        let hard = HARD.contains(&f.name.as_str());
        assert_eq!(named[0].is_error(), hard, "{}: {:?}", f.name, named[0]);
        assert_eq!(check.config.is_none(), hard, "{}", f.name);
        if hard {
            let err = parse_config(&raw, &env).expect_err(&f.name);
            assert_eq!(err.field.as_deref(), Some(f.name.as_str()), "{err:?}");
        }
    }
    // the retired keys the index signature declares are accepted
    let parsed = parse_config(&json!({"ingestReplyAssistMinChars": 3}), &env).unwrap();
    assert_eq!(parsed.warnings.len(), 1);
    // and anything else is named, with the key it most likely meant
    let parsed = parse_config(&json!({"recallLimits": 3}), &env).unwrap();
    assert_eq!(parsed.problems.iter().map(|p| (p.key.as_str(), p.severity)).collect::<Vec<_>>(), [("recallLimits", "warning")]);
    assert!(parsed.warnings[0].contains("did you mean recallLimit?"), "{:?}", parsed.warnings);
}

/// A value of the declared type (the simplest one).
fn sample(t: &Ty) -> Value {
    match t {
        _ if t.nullable() => Value::Null,
        Ty::Prim(p) if p == "string" => json!("s"),
        Ty::Prim(p) if p == "number" => json!(1),
        Ty::Prim(p) if p == "boolean" => json!(true),
        Ty::Array(_) => json!([]),
        Ty::Object(..) => json!({}),
        other => panic!("no sample for {other:?}"),
    }
}

/// A value of the wrong JSON type for the declared type (a number for a string or string
/// literals, a string otherwise).
fn wrong(t: &Ty) -> Value {
    match t {
        Ty::Prim(p) if p == "string" => json!(5),
        Ty::Lit(_) => json!(5),
        Ty::Union(a) if a.iter().all(|x| matches!(x, Ty::Lit(_))) => json!(5),
        _ => json!("5"),
    }
}

/// Declared keys the parser accepts without reading them.
const IGNORED: &[(&str, &str)] = &[("AssembleCall", "sessionKey"), ("TurnWrite", "prePromptMessageCount")];

type Parser = fn(Value) -> Result<(), EngineError>;

/// The body of the first `fn <name>` after `anchor` in `file`.
fn fn_body(file: &str, anchor: &str, name: &str) -> String {
    let src = read(file);
    let from = src.find(anchor).unwrap_or_else(|| panic!("{file}: no {anchor}"));
    let at = src[from..].find(&format!("fn {name}(")).unwrap_or_else(|| panic!("{file}: no fn {name} after {anchor}")) + from;
    let open = src[at..].find('{').unwrap() + at;
    let mut depth = 0;
    for (i, c) in src[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return src[open..open + i + 1].to_string();
                }
            }
            _ => {}
        }
    }
    panic!("{file}: fn {name} not closed")
}

/// Identifier-like string literals in Rust source: the keys a parser names.
fn key_literals(src: &str) -> BTreeSet<String> {
    src.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && s.starts_with(|c: char| c.is_ascii_lowercase()))
        .map(str::to_string)
        .collect()
}

/// Proves a hand-written parser reads exactly the keys `name` declares.
fn reads_exactly_the_declared_keys(name: &str, parse: Parser, base: Value, sources: &[(&str, &str, &str)]) {
    let d = decls();
    let (fields, _): (Vec<Member>, _) = d.members(&d.0[name]);
    assert!(!fields.is_empty(), "{name} declares no keys");
    parse(base.clone()).unwrap_or_else(|e| panic!("{name}: the minimal input is refused: {e:?}"));
    // every declared key at once, each with a value of its declared type
    let mut full = base.clone();
    for f in &fields {
        full[&f.name] = sample(&f.ty);
    }
    parse(full).unwrap_or_else(|e| panic!("{name}: every key with a value of its type is refused: {e:?}"));
    for f in &fields {
        let ignored = IGNORED.contains(&(name, f.name.as_str()));
        let mut v = base.clone();
        v[&f.name] = wrong(&f.ty);
        match (parse(v), ignored) {
            (Err(e), false) => assert!(e.field.as_deref().is_some_and(|p| p == f.name || p.starts_with(&format!("{}.", f.name))), "{name}.{}: refused for another field: {e:?}", f.name),
            (Ok(()), false) => panic!("{name}.{}: a wrongly typed value is accepted: the parser does not read it (list it in IGNORED, or drop it)", f.name),
            (Err(e), true) => panic!("{name}.{}: listed ignored, but the parser reads it: {e:?}", f.name),
            (Ok(()), true) => {}
        }
        if !f.optional {
            let mut v = base.clone();
            v.as_object_mut().unwrap().remove(&f.name);
            let e = parse(v).expect_err(&format!("{name}.{}: declared required, accepted without it", f.name));
            assert_eq!(e.field.as_deref(), Some(f.name.as_str()));
        }
    }
    // nothing the parser names is undeclared (keys nested in a declared type count)
    let mut allowed: Vec<String> = Vec::new();
    for f in &fields {
        allowed.push(f.name.clone());
        f.ty.member_names(&mut allowed);
    }
    for (file, anchor, func) in sources {
        let named = key_literals(&fn_body(file, anchor, func));
        let undeclared: Vec<&String> = named.iter().filter(|k| !allowed.contains(*k)).collect();
        assert!(undeclared.is_empty(), "{name}: {file} fn {func} reads keys {name} does not declare: {undeclared:?}");
    }
}

#[test]
fn hand_parsed_inputs_read_exactly_the_declared_keys() {
    use openviking_context_engine::context::assemble::assemble_turn;
    use openviking_context_engine::recall::auto::RecallRequest;
    reads_exactly_the_declared_keys("RecallRequest", |v| RecallRequest::from_value(v).map(|_| ()), json!({}), &[("src/recall/request.rs", "impl RecallRequest", "from_value")]);
    reads_exactly_the_declared_keys(
        "AssembleRequest",
        |v| assemble_turn(&Config::default(), v).map(|_| ()),
        json!({}),
        &[("src/context/assemble.rs", "pub fn assemble_turn", "assemble_turn"), ("src/context/assemble.rs", "fn read_summaries", "read_summaries"), ("src/context/turn_extras.rs", "pub fn read_turn_extras", "read_turn_extras"), ("src/recall/request.rs", "impl RecallRequest", "from_value")],
    );
    reads_exactly_the_declared_keys("AssembleCall", |v| AssembleCall::from_value(v).map(|_| ()), json!({"sessionId": "s"}), &[("src/engine/read.rs", "impl AssembleCall", "from_value")]);
    reads_exactly_the_declared_keys("TurnWrite", |v| TurnWrite::from_value(&v).map(|_| ()), json!({"sessionId": "s"}), &[("src/engine/write.rs", "impl TurnWrite", "from_value")]);
}
