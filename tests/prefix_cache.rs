//! What a provider's prompt cache can reuse in a session that has outgrown its token budget:
//! the share of each model request (its messages, by serialized characters) identical to the
//! start of the previous request, over a long generated session (seeded, 270–530 turns of varied
//! size, a third with a tool call, a recall pair every turn, the prompt sent apart as
//! OpenClaw 2026.9 does, a compaction summary first). Raw turns are trimmed in blocks
//! (`assemble::block_cut`), so the oldest kept turn, and with it the prefix, stays put for
//! several turns. Prints `# prefix-cache: …` (tests/bench/RESULTS.md quotes it). Native only
//! (the composition is the same code in wasm; the suite there runs three times).
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::context::compose::{compose, ComposeInput, SummaryRef};
use openviking_context_engine::message::synthetic::{recall_pair, RecalledMemory};
use serde_json::{json, Value};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

const WORDS: &[&str] = &["deploy", "canary", "ledger", "invoice", "pipeline", "cluster", "the", "rollback", "index", "query", "latency", "budget", "review", "staging", "we", "should", "check", "migration"];

fn words(rng: &mut Rng, n: u64) -> String {
    (0..n).map(|_| WORDS[rng.range(0, WORDS.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
}

fn turn(rng: &mut Rng, i: usize) -> Vec<Value> {
    let n = rng.range(20, 160);
    let mut t = vec![json!({"role": "user", "content": format!("turn {i}: {}", words(rng, n))})];
    if rng.range(0, 3) == 0 {
        let n = rng.range(80, 1200);
        t.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("call{i}"), "name": "exec", "arguments": {"command": format!("grep -n ledger src/{i}.rs")}}]}));
        t.push(json!({"role": "toolResult", "toolCallId": format!("call{i}"), "toolName": "exec", "content": [{"type": "text", "text": words(rng, n)}], "isError": false}));
    }
    let n = rng.range(40, 300);
    t.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {i}: {}", words(rng, n))}]}));
    t
}

struct Run {
    shares: Vec<f64>,
    fills: Vec<f64>,
}

/// Each turn's request (composition + the prompt the host appends) against the previous one,
/// counted once the session is budget-bound (older raw turns trimmed).
fn session(seed: u64, turns: usize, budget: u64) -> Run {
    let mut rng = Rng(seed);
    let summary = SummaryRef {
        checkpoint_id: "ckpt-1".into(),
        archive_uri: "viking://user/u/sessions/s/history/archive_001".into(),
        start_sequence: 0,
        end_sequence: 9,
        text: "# Working Memory\n\n## Current State\nMigrating the ledger; the canary is at ten percent.\n".into(),
    };
    let mut history: Vec<Value> = Vec::new();
    let (mut prev, mut shares, mut fills): (Vec<String>, Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..turns {
        let prompt = format!("turn {i}: {}", words(&mut rng, 30));
        let memory = RecalledMemory { uri: format!("viking://user/u/memories/m{}.md", i % 7), category: "events".into(), content: words(&mut rng, 40), score: 0.8 };
        let c = compose(ComposeInput {
            messages: history.clone(),
            prompt: Some(prompt.clone()),
            token_budget: Some(budget),
            recall_pair: Some(recall_pair(&prompt, &[memory], i as u64)),
            summaries: vec![summary.clone()],
            next_sequence: i as u64,
            recent_raw_turn_count: 3,
            now_ms: 1_000,
        });
        assert!(c.estimated_tokens <= budget, "turn {i}: {} > {budget}", c.estimated_tokens);
        let mut request: Vec<String> = c.messages.iter().map(|m| m.to_string()).collect();
        request.push(json!({"role": "user", "content": prompt}).to_string());
        if c.trimmed.raw_turns > 0 && !prev.is_empty() {
            let same: usize = request.iter().zip(&prev).take_while(|(a, b)| a == b).map(|(a, _)| a.len()).sum();
            let all: usize = request.iter().map(String::len).sum();
            shares.push(same as f64 / all as f64);
            fills.push(c.estimated_tokens as f64 / budget as f64);
        }
        prev = request;
        // the turn as the host keeps it: the prompt, then what the model did
        let mut t = turn(&mut rng, i);
        t[0] = json!({"role": "user", "content": prompt});
        history.extend(t);
    }
    Run { shares, fills }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

#[test]
fn a_budget_bound_session_keeps_nine_tenths_of_each_request_cacheable() {
    // (seed, budget, the least mean share asserted). With a budget of a few dozen turns the
    // tail of each request (the previous turn's answer, the new recall pair and prompt) is
    // itself 3-8 % of it, so 0.9 is asserted from 64k (~140 turns) on; the smaller budgets
    // well above what trimming one turn at a time gave (0.42-0.47 at every budget: the cut
    // moved on more than half of the turns).
    for (seed, budget, least) in [(11u64, 8_000u64, 0.65), (7, 24_000, 0.8), (23, 64_000, 0.9), (5, 128_000, 0.9)] {
        // enough turns for ~250 budget-bound requests (a turn averages ~450 tokens as estimated)
        let run = session(seed, budget as usize / 450 + 250, budget);
        assert!(run.shares.len() > 200, "budget {budget}: the session is budget-bound for most of its turns ({})", run.shares.len());
        let share = mean(&run.shares);
        let high = run.shares.iter().filter(|s| **s >= 0.9).count() as f64 / run.shares.len() as f64;
        let moved: Vec<f64> = run.shares.iter().copied().filter(|s| *s < 0.5).collect();
        let stable: Vec<f64> = run.shares.iter().copied().filter(|s| *s >= 0.5).collect();
        let fill = mean(&run.fills);
        println!(
            "# prefix-cache: budget={budget} bound-requests={} mean-reusable-share={share:.3} requests>=0.9={:.1}% cut-moved={} share-when-not-moved={:.3} mean-budget-fill={fill:.3}",
            run.shares.len(),
            high * 100.0,
            moved.len(),
            mean(&stable)
        );
        assert!(share >= least, "budget {budget}: mean reusable prefix share {share:.3} < {least}");
        // the cost: the context still fills most of the budget after a block cut
        assert!(fill >= 0.8, "budget {budget}: mean budget fill {fill:.3}");
    }
}
