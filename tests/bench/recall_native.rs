//! Native benchmark of one turn's automatic recall (`cargo bench --bench recall`).
//!
//! Workloads: 10 / 50 / 200 / 1000 / 5000 candidates per scope (N = 20 / 100 / 400 / 2000 /
//! 10000 in total) plus 40 raw turns, as one JSON-shaped request, generated deterministically.
//! Each workload is also written to `tests/artifacts/bench/workload-N.json` (N in total) so the
//! wasm benchmark (`recall-wasm.mjs`) times exactly the same input. Reports the median of 7
//! runs, each the mean over a batch.
//!
//! Columns: from JSON text (parse, recall, serialise the answer); from Value (`from_json`,
//! which copies the Value, then recall); pipeline (recall on a request moved in — the copies
//! are made before the clock starts, as the wasm decode hands the engine an owned request);
//! lean (the same without explain records: the memory tool's and the hook's path).
//!
//! Then, if `node tests/bench/recall-workloads.mjs` wrote them, the legacy comparison's turns
//! (`tests/artifacts/bench/legacy-turns-N.json`, N per scope, the inputs `recall-legacy.mjs`
//! times) through the lean per-turn call as the wasm module runs it inside: the request's JSON
//! text (only the newest user messages, as `Engine.recall` reads them) parsed, read, recalled
//! without explain records, the answer written as JSON text — everything but the JS side.
//!
//! Profiling: `RECALL_PROFILE=N RECALL_PROFILE_CALLS=K` runs only that lean call K times over
//! the N-per-scope turns and exits (for `valgrind --tool=callgrind`).

use openviking_context_engine::recall::auto::{auto_recall, auto_recall_with, recall_answer_read, RecallRequest};
use openviking_context_engine::recall::wire::{read_request_text, RequestText};
use openviking_context_engine::config::Config;
use serde_json::{json, Value};
use std::time::Instant;

const TOPICS: &[&str] = &[
    "Postgres connection pool sizing for the staging cluster",
    "prefers dark editor themes and large fonts",
    "decided to move deploys to blue-green with Argo Rollouts",
    "慢查询优化：给 orders 表加联合索引",
    "用户偏好在凌晨低峰期执行数据库变更",
    "on-call handoff happens every Monday at 10:00",
    "the billing service runs on MySQL 8 with a read replica",
    "likes flat white coffee, no sugar",
];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn unit(&mut self) -> f64 {
        (self.next() % 10_000) as f64 / 10_000.0
    }
}

pub fn workload(n: usize) -> Value {
    let mut rng = Lcg(n as u64 + 7);
    let cats = ["preferences", "entities", "events", "profile"];
    let scope = |prefix: &str, count: usize, rng: &mut Lcg| -> Value {
        let items: Vec<Value> = (0..count)
            .map(|i| {
                let cat = cats[i % cats.len()];
                let topic = TOPICS[(rng.next() as usize) % TOPICS.len()];
                json!({
                    "context_type": "memory",
                    "uri": format!("{prefix}/{cat}/item-{i}.md"),
                    "level": if i % 9 == 0 { 1 } else { 2 },
                    "score": rng.unit(),
                    "abstract": format!("{topic} (note {})", i % 37),
                    "overview": null,
                    "category": cat,
                    "tags": [format!("memory_type={cat}")],
                    "match_reason": "",
                    "relations": []
                })
            })
            .collect();
        json!({"memories": items, "resources": [], "skills": [], "total": count})
    };
    let user = scope("viking://user/alice/memories", n / 2, &mut rng);
    let agent = scope("viking://agent/default/memories", n - n / 2, &mut rng);
    let messages: Vec<Value> = (0..40)
        .map(|i| {
            if i % 2 == 0 {
                json!({"role": "user", "content": format!("Turn {i}: {} — what should we do next about it?", TOPICS[i % TOPICS.len()]), "timestamp": 1_764_000_000_000u64 + i as u64})
            } else {
                json!({"role": "assistant", "content": [{"type": "text", "text": format!("Here is my take on turn {i}. ").repeat(6)}],
                       "api": "openai-completions", "provider": "fake", "model": "m", "stopReason": "stop", "timestamp": 1_764_000_000_000u64 + i as u64})
            }
        })
        .collect();
    json!({
        "prompt": "What did we decide about the staging pool size, and how do I like DB changes to be run?",
        "messages": messages,
        "search": {"user": user, "agent": agent},
        "nowMs": 1_764_000_100_000u64
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn time_per_call<F: FnMut()>(mut f: F) -> f64 {
    // pick a batch size that runs ~50 ms, then median of 7 batches
    let t = Instant::now();
    f();
    let one = t.elapsed().as_secs_f64().max(1e-7);
    let batch = ((0.05 / one) as usize).clamp(1, 100_000);
    let runs: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            t.elapsed().as_secs_f64() / batch as f64
        })
        .collect();
    median(runs)
}

/// Like [`time_per_call`] for a call that consumes its input: the inputs of a batch are made
/// before its clock starts.
fn time_per_owned_call<T, M: FnMut() -> T, F: FnMut(T)>(mut make: M, mut f: F) -> f64 {
    let t = Instant::now();
    f(make());
    let one = t.elapsed().as_secs_f64().max(1e-7);
    let batch = ((0.05 / one) as usize).clamp(1, 2_000);
    let runs: Vec<f64> = (0..7)
        .map(|_| {
            let inputs: Vec<T> = (0..batch).map(|_| make()).collect();
            let t = Instant::now();
            for input in inputs {
                f(input);
            }
            t.elapsed().as_secs_f64() / batch as f64
        })
        .collect();
    median(runs)
}

/// The legacy comparison's turns at `per_scope`, each as the JSON text of the request the
/// lean call reads (only the newest user messages); `None` if the file is not there.
fn lean_turns(config: &Config, out_dir: &str, per_scope: usize) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("{out_dir}/legacy-turns-{per_scope}.json")).ok()?;
    let turns: Vec<Value> = serde_json::from_str(&text).expect("legacy-turns JSON");
    let users = openviking_context_engine::recall::query::user_messages_read(config.assemble_recall_window);
    let cut = |mut t: Value| -> String {
        let messages = t["messages"].as_array().cloned().unwrap_or_default();
        let mut taken: Vec<Value> = messages.into_iter().rev().filter(|m| m["role"] == "user").take(users).collect();
        taken.reverse();
        t["messages"] = Value::Array(taken);
        serde_json::to_string(&t).unwrap()
    };
    Some(turns.into_iter().map(cut).collect())
}

/// The lean per-turn call inside the module (`Engine.recall`): JSON text in (the search
/// results typed on the way), JSON text out.
fn lean_call(config: &Config, text: &str) -> String {
    let (v, scopes) = match read_request_text(text).unwrap() {
        RequestText::Typed { rest, scopes } => (rest, Some(scopes)),
        RequestText::Plain(v) => (v, None),
    };
    let answer = recall_answer_read(config, RecallRequest::from_value(v).unwrap(), scopes, false).unwrap();
    serde_json::to_string(&answer).unwrap()
}

fn main() {
    let config = Config::default();
    let out_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/artifacts/bench");
    if let Ok(n) = std::env::var("RECALL_PROFILE") {
        let n: usize = n.parse().expect("RECALL_PROFILE: candidates per scope");
        let calls: usize = std::env::var("RECALL_PROFILE_CALLS").ok().and_then(|c| c.parse().ok()).unwrap_or(1000);
        let turns = lean_turns(&config, out_dir, n).expect("run `node tests/bench/recall-workloads.mjs` first");
        for k in 0..calls {
            std::hint::black_box(lean_call(&config, &turns[k % turns.len()]));
        }
        return;
    }
    std::fs::create_dir_all(out_dir).expect("create tests/artifacts/bench");
    println!("native auto_recall (median of 7 batches, µs per call)");
    println!("{:>9} {:>6}  {:>14}  {:>10}  {:>9}  {:>9}", "per scope", "total", "from JSON text", "from Value", "pipeline", "lean");
    let mut results = Vec::new();
    for per_scope in [10usize, 50, 200, 1000, 5000] {
        let n = per_scope * 2;
        let w = workload(n);
        let text = serde_json::to_string(&w).unwrap();
        std::fs::write(format!("{out_dir}/workload-{n}.json"), &text).unwrap();
        let from_text = time_per_call(|| {
            let v: Value = serde_json::from_str(&text).unwrap();
            let out = auto_recall(&config, RecallRequest::from_json(&v).unwrap()).unwrap();
            std::hint::black_box(serde_json::to_string(&out).unwrap());
        });
        let from_value = time_per_call(|| {
            let out = auto_recall(&config, RecallRequest::from_json(&w).unwrap()).unwrap();
            std::hint::black_box(out);
        });
        let req = RecallRequest::from_json(&w).unwrap();
        let pipeline = time_per_owned_call(|| req.clone(), |r| {
            std::hint::black_box(auto_recall(&config, r).unwrap());
        });
        let lean = time_per_owned_call(|| req.clone(), |r| {
            std::hint::black_box(auto_recall_with(&config, r, false).unwrap());
        });
        println!(
            "{per_scope:>9} {n:>6}  {:>14.1}  {:>10.1}  {:>9.1}  {:>9.1}",
            from_text * 1e6,
            from_value * 1e6,
            pipeline * 1e6,
            lean * 1e6
        );
        results.push(json!({"perScope": per_scope, "candidates": n, "fromJsonTextUs": from_text * 1e6, "fromValueUs": from_value * 1e6, "pipelineUs": pipeline * 1e6, "leanUs": lean * 1e6}));
    }
    std::fs::write(format!("{out_dir}/native.json"), serde_json::to_string_pretty(&results).unwrap()).unwrap();

    println!("\nlean per-turn call on the legacy comparison's turns (JSON text in and out, as inside the wasm module; µs per call, cycling 8 turns)");
    println!("{:>9}  {:>9}", "per scope", "lean call");
    let mut lean_rows = Vec::new();
    for per_scope in [10usize, 50, 200] {
        let Some(turns) = lean_turns(&config, out_dir, per_scope) else {
            println!("{per_scope:>9}  (no legacy-turns-{per_scope}.json: run `node tests/bench/recall-workloads.mjs`)");
            continue;
        };
        let mut k = 0;
        let us = time_per_call(|| {
            std::hint::black_box(lean_call(&config, &turns[k % turns.len()]));
            k += 1;
        }) * 1e6;
        println!("{per_scope:>9}  {us:>9.1}");
        lean_rows.push(json!({"perScope": per_scope, "leanCallUs": us}));
    }
    std::fs::write(format!("{out_dir}/native-lean-turns.json"), serde_json::to_string_pretty(&lean_rows).unwrap()).unwrap();
}
