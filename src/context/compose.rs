//! Composing the context the model sees (design §3.3, §5.2): compact summaries in place of
//! the turns a commit archived, the recent raw turns, the recall pair right before the
//! current user turn — all under one token budget.
//!
//! - The host's messages are split into turns (a turn starts at a user message). Turns are
//!   aligned with the engine's turn sequences from the end (the newest prior turn is
//!   `next_sequence - 1`), so transcripts older than the plugin line up too.
//! - Turns covered by the latest checkpoint that has a summary are replaced by that summary
//!   (they stay reachable through `memory_expand`), except the newest `recentRawTurnCount`
//!   turns, which stay raw even when archived.
//! - Over budget, parts go in this order: recalled memories, older summaries, the oldest
//!   raw turns, then the latest summary; whole turns only, so a tool call never loses its
//!   result. The current turn (prompt) is never trimmed. The total never exceeds the budget
//!   unless the current turn alone does (`over_budget`).
//! - Raw turns are trimmed in blocks, so consecutive requests keep an identical prefix (what
//!   a provider's prompt cache reuses): when some must go, the cut may move up to a quarter
//!   of the budget further (never past the newest prior turn), onto the turn whose position in
//!   the host's transcript has the most trailing zero bits — the same turn, turn after turn,
//!   until the cut must pass it ([`block_cut`]; stateless, the same every time for the same
//!   messages). A recall pair dropped for the budget comes back when trimming left room.
//! - After a compaction the summary's "Current State" and "Open Issues" sections are carried
//!   as active instructions in the system prompt addition (design §3.4 item 6).

use crate::message::synthetic::{is_summary_message, strip_synthetic};
use crate::message::{estimate_message_tokens, role, split_turns};
pub use super::summary_message::{active_instructions, summary_message, SummaryRef};
use crate::text::tokens::estimate_tokens;
use serde::Serialize;
use serde_json::Value;

/// The user message that opens a recall pair (valid on every provider: the call follows a
/// user turn), stamped like the call.
fn opening_of(call: &Value) -> Value {
    crate::message::synthetic::recall_opening(crate::message::Message::of(call).timestamp().and_then(Value::as_u64).unwrap_or(0))
}

fn opening_tokens(pair: &[Value; 2]) -> u64 {
    estimate_message_tokens(&opening_of(&pair[0])) as u64
}


#[derive(Debug, Clone, PartialEq)]
pub struct ComposeInput {
    /// The host's messages (synthetic pairs and earlier summary messages are removed).
    pub messages: Vec<Value>,
    /// The current user input when the host passes it apart (OpenClaw 2026.9.x).
    pub prompt: Option<String>,
    pub token_budget: Option<u64>,
    /// The recall pair to place before the current user turn.
    pub recall_pair: Option<[Value; 2]>,
    /// Summaries, oldest first; the last one is the latest.
    pub summaries: Vec<SummaryRef>,
    /// The engine's next turn sequence for this session (turns written so far).
    pub next_sequence: u64,
    pub recent_raw_turn_count: usize,
    /// Timestamp for the summary message (hosts render it).
    pub now_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompactSummary {
    pub checkpoint_id: String,
    pub session_uri: String,
    pub overview: String,
    pub turns: (u64, u64),
}

/// What was dropped to fit the budget.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Trimmed {
    pub recall: bool,
    pub older_summaries: usize,
    pub raw_turns: usize,
    pub latest_summary: bool,
}

/// The design's `AssembledContextPacket` (§5.2), plus what the host needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Composition {
    #[cfg_attr(feature = "typescript", ts(type = "AgentMessage[]"))]
    pub messages: Vec<Value>,
    pub estimated_tokens: u64,
    pub system_prompt_addition: Option<String>,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub compact_summaries: Vec<CompactSummary>,
    /// How many prior turns stay raw.
    pub recent_raw_turns: usize,
    /// How many prior turns a summary stands for.
    pub summarized_turns: usize,
    pub recall_included: bool,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub trimmed: Trimmed,
    pub over_budget: bool,
    pub budget: Option<u64>,
    /// How many of `messages`, at the end, are the current turn (0 when the host sends the
    /// prompt apart).
    #[serde(skip)]
    pub current_messages: usize,
}


fn tokens(msgs: &[Value]) -> u64 {
    msgs.iter().map(|m| estimate_message_tokens(m) as u64).sum()
}

/// How far past the minimal cut raw turns may go for a stable prefix: a quarter of the budget.
pub const BLOCK_SLACK_DIVISOR: u64 = 4;

/// The block rule for trimming raw turns. `min_cut` oldest raw turns must go for the budget;
/// the cut chosen drops `min_cut` or more, at most `slack` tokens more (`tokens(k)` is raw turn
/// `k`'s), never the newest raw turn (unless `min_cut` already does), and lands on the turn
/// whose host transcript position (`index[k]`) has the most trailing zero bits. In any run of
/// consecutive positions that turn is unique, and as the session grows (the minimal cut moves
/// one turn on) it stays the choice until the minimal cut passes it or a position with more
/// trailing zeros comes within reach: the oldest kept turn, and so the request's prefix, stays
/// the same for about half a block of turns or more.
pub fn block_cut(min_cut: usize, index: &[usize], tokens: impl Fn(usize) -> u64, slack: u64) -> usize {
    if min_cut == 0 || min_cut + 1 >= index.len() {
        return min_cut;
    }
    let (mut best, mut best_zeros) = (min_cut, index[min_cut].trailing_zeros());
    let (mut cut, mut dropped) = (min_cut, 0u64);
    while cut + 1 < index.len() {
        dropped += tokens(cut);
        if dropped > slack {
            break;
        }
        cut += 1;
        let zeros = index[cut].trailing_zeros();
        if zeros > best_zeros {
            (best, best_zeros) = (cut, zeros);
        }
    }
    best
}

pub fn compose(input: ComposeInput) -> Composition {
    let ComposeInput { messages, prompt, token_budget, recall_pair, summaries, next_sequence, recent_raw_turn_count, now_ms } = input;
    let cleaned: Vec<Value> = strip_synthetic(messages).into_iter().filter(|m| !is_summary_message(m)).collect();
    let mut turns = split_turns(cleaned);
    // Without a separate prompt, the last turn is the current one (older hosts).
    let current: Vec<Value> = if prompt.is_none() && turns.last().is_some_and(|t| t.first().is_some_and(|m| role(m) == Some("user"))) {
        turns.pop().unwrap_or_default()
    } else {
        Vec::new()
    };
    let n = turns.len();
    let seq_of = |i: usize| -> i64 { next_sequence as i64 - (n - i) as i64 };

    // The latest summary and the prior turns it covers (outside the recent window).
    let latest = summaries.last().cloned();
    let recent_from = n.saturating_sub(recent_raw_turn_count);
    let covered: Vec<bool> = (0..n)
        .map(|i| {
            let s = seq_of(i);
            i < recent_from && latest.as_ref().is_some_and(|l| s >= 0 && (s as u64) <= l.end_sequence)
        })
        .collect();
    let summarized_turns = covered.iter().filter(|c| **c).count();
    // The summary is shown when it stands for turns not shown raw: covered turns in the
    // transcript, or turns the host no longer holds (an older host whose state is the
    // previous assembled context).
    let oldest_raw_seq = (0..n).find(|&i| !covered[i]).map(seq_of);
    let use_summary = latest.as_ref().is_some_and(|l| {
        summarized_turns > 0 || oldest_raw_seq.map_or(next_sequence > l.start_sequence, |s| s > l.start_sequence as i64)
    });
    // Raw turns kept: everything not covered, in order (pre-plugin turns first), and their
    // positions in the host's transcript (the block rule's anchors).
    let raw_index: Vec<usize> = (0..n).filter(|&i| !covered[i]).collect();
    let mut raw: Vec<Vec<Value>> = turns.into_iter().zip(covered.iter()).filter(|(_, c)| !**c).map(|(t, _)| t).collect();
    // every summary but the latest, oldest first
    let mut older: Vec<&SummaryRef> =
        if use_summary { summaries.iter().take(summaries.len().saturating_sub(1)).collect() } else { Vec::new() };

    let prompt_tokens = prompt.as_deref().map_or(0, |p| estimate_tokens(p) as u64 + crate::text::tokens::MESSAGE_OVERHEAD_TOKENS as u64);
    let mut recall = recall_pair;
    let recall_offered = recall.clone();
    let mut keep_latest = use_summary;
    let mut trimmed = Trimmed::default();

    // Token counts are per message and add up, so trimming is arithmetic on running totals:
    // each part is estimated once, and the context is built once at the end (linear in the
    // history; rebuilding and re-estimating after each removed turn was quadratic).
    let summary_tokens = |older: &[&SummaryRef]| -> u64 { latest.as_ref().map_or(0, |l| tokens(&[summary_message(l, older, now_ms)])) };
    let recall_tokens = recall.as_ref().map_or(0, |pair| tokens(pair) + opening_tokens(pair));
    let fixed = tokens(&current) + prompt_tokens;
    // Raw turns are estimated newest first, only as far as the budget reaches: once the
    // newest turns and the current one alone overflow it, every older turn is trimmed
    // whatever else goes, so a long history is not estimated at all.
    let mut newest_first: Vec<u64> = Vec::new();
    let mut reach: u64 = 0;
    while newest_first.len() < raw.len() && token_budget.map_or(true, |b| fixed + reach <= b) {
        let t = tokens(&raw[raw.len() - 1 - newest_first.len()]);
        newest_first.push(t);
        reach += t;
    }
    let overflows = token_budget.is_some_and(|b| fixed + reach > b);
    let mut summary = if keep_latest { summary_tokens(&older) } else { 0 };
    let mut first_raw = 0; // raw[..first_raw] trimmed
    let total_now = |summary: u64, raw_total: u64, recall: &Option<[Value; 2]>| summary + raw_total + if recall.is_some() { recall_tokens } else { 0 } + fixed;
    let mut total;
    if let (true, Some(budget)) = (overflows, token_budget) {
        // 1. and 2. go whole (every state of them overflows); 3. keeps the longest newest
        // run that fits beside the latest summary, or 4. none, and the summary goes too
        trimmed.recall = recall.take().is_some();
        trimmed.older_summaries = older.len();
        older.clear();
        summary = if keep_latest { summary_tokens(&older) } else { 0 };
        let (mut kept, mut sum) = (0, 0);
        if summary + fixed <= budget {
            while kept < newest_first.len() && summary + sum + newest_first[kept] + fixed <= budget {
                sum += newest_first[kept];
                kept += 1;
            }
        } else if keep_latest {
            keep_latest = false;
            trimmed.latest_summary = true;
            summary = 0;
        }
        first_raw = raw.len() - kept;
        // the block rule: more of the oldest kept turns may go (their estimates are known)
        let len = raw.len();
        let cut = block_cut(first_raw, &raw_index, |k| newest_first[len - 1 - k], budget / BLOCK_SLACK_DIVISOR);
        sum -= (first_raw..cut).map(|k| newest_first[len - 1 - k]).sum::<u64>();
        first_raw = cut;
        trimmed.raw_turns = first_raw;
        total = total_now(summary, sum, &recall);
    } else {
        let raw_tokens: Vec<u64> = newest_first.into_iter().rev().collect();
        let mut raw_total: u64 = raw_tokens.iter().sum();
        total = total_now(summary, raw_total, &recall);
        if let Some(budget) = token_budget {
            // 1. recalled memories
            if total > budget && recall.is_some() {
                recall = None;
                trimmed.recall = true;
                total = total_now(summary, raw_total, &recall);
            }
            // 2. older summaries, oldest first (the summary message shrinks; estimated again —
            //    there are few summaries)
            while total > budget && !older.is_empty() {
                older.remove(0);
                trimmed.older_summaries += 1;
                summary = summary_tokens(&older);
                total = total_now(summary, raw_total, &recall);
            }
            // 3. the oldest raw turns, then 4. the latest summary
            while total > budget && (first_raw < raw.len() || keep_latest) {
                if first_raw < raw.len() {
                    raw_total -= raw_tokens[first_raw];
                    first_raw += 1;
                    trimmed.raw_turns += 1;
                } else {
                    keep_latest = false;
                    trimmed.latest_summary = true;
                    summary = 0;
                }
                total = total_now(summary, raw_total, &recall);
            }
            // the block rule, when raw turns went
            if first_raw > 0 {
                let cut = block_cut(first_raw, &raw_index, |k| raw_tokens[k], budget / BLOCK_SLACK_DIVISOR);
                raw_total -= raw_tokens[first_raw..cut].iter().sum::<u64>();
                trimmed.raw_turns += cut - first_raw;
                first_raw = cut;
                total = total_now(summary, raw_total, &recall);
            }
        }
    }
    // a recall pair dropped for the budget comes back when it fits in what trimming left
    if trimmed.recall && token_budget.is_some_and(|b| total + recall_tokens <= b) {
        recall = recall_offered;
        trimmed.recall = false;
        total += recall_tokens;
    }
    raw.drain(..first_raw);
    let mut msgs = Vec::new();
    if keep_latest {
        if let Some(l) = &latest {
            msgs.push(summary_message(l, &older, now_ms));
        }
    }
    for t in &raw {
        msgs.extend(t.iter().cloned());
    }
    if let Some([call, result]) = &recall {
        msgs.push(opening_of(call));
        msgs.push(call.clone());
        msgs.push(result.clone());
    }
    msgs.extend(current.iter().cloned());
    let over_budget = token_budget.is_some_and(|b| total > b);

    let mut addition = String::new();
    let mut compact_summaries = Vec::new();
    if keep_latest {
        if let Some(l) = &latest {
            addition.push_str("A <conversation-summary> message stands for earlier turns of this conversation; use memory_expand on its archive to read them in full.");
            if let Some(a) = active_instructions(&l.text) {
                addition.push('\n');
                addition.push_str(&a);
            }
            for s in older.iter().copied().chain(std::iter::once(l)) {
                compact_summaries.push(CompactSummary {
                    checkpoint_id: s.checkpoint_id.clone(),
                    session_uri: s.archive_uri.clone(),
                    overview: s.text.clone(),
                    turns: (s.start_sequence, s.end_sequence),
                });
            }
        }
    }
    Composition {
        estimated_tokens: total,
        messages: msgs,
        system_prompt_addition: if addition.is_empty() { None } else { Some(addition) },
        compact_summaries,
        recent_raw_turns: raw.len(),
        summarized_turns: if keep_latest { summarized_turns } else { 0 },
        recall_included: recall.is_some(),
        trimmed,
        over_budget,
        budget: token_budget,
        current_messages: current.len(),
    }
}

/// The composition as it was first written (rebuilding and re-estimating the whole context
/// after each trimmed part; quadratic in the history), kept to prove the linear one selects
/// exactly the same context.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod reference {
    use super::*;

    pub(super) fn compose_reference(input: ComposeInput) -> Composition {
        let ComposeInput { messages, prompt, token_budget, recall_pair, summaries, next_sequence, recent_raw_turn_count, now_ms } = input;
        let cleaned: Vec<Value> = strip_synthetic(messages).into_iter().filter(|m| !is_summary_message(m)).collect();
        let mut turns = split_turns(cleaned);
        // Without a separate prompt, the last turn is the current one (older hosts).
        let current: Vec<Value> = if prompt.is_none() && turns.last().is_some_and(|t| t.first().is_some_and(|m| role(m) == Some("user"))) {
            turns.pop().unwrap_or_default()
        } else {
            Vec::new()
        };
        let n = turns.len();
        let seq_of = |i: usize| -> i64 { next_sequence as i64 - (n - i) as i64 };
    
        // The latest summary and the prior turns it covers (outside the recent window).
        let latest = summaries.last().cloned();
        let recent_from = n.saturating_sub(recent_raw_turn_count);
        let covered: Vec<bool> = (0..n)
            .map(|i| {
                let s = seq_of(i);
                i < recent_from && latest.as_ref().is_some_and(|l| s >= 0 && (s as u64) <= l.end_sequence)
            })
            .collect();
        let summarized_turns = covered.iter().filter(|c| **c).count();
        // The summary is shown when it stands for turns not shown raw: covered turns in the
        // transcript, or turns the host no longer holds (an older host whose state is the
        // previous assembled context).
        let oldest_raw_seq = (0..n).find(|&i| !covered[i]).map(seq_of);
        let use_summary = latest.as_ref().is_some_and(|l| {
            summarized_turns > 0 || oldest_raw_seq.map_or(next_sequence > l.start_sequence, |s| s > l.start_sequence as i64)
        });
        // Raw turns kept: everything not covered, in order (pre-plugin turns first).
        let raw_index: Vec<usize> = (0..n).filter(|&i| !covered[i]).collect();
        let mut raw: Vec<Vec<Value>> = turns.into_iter().zip(covered.iter()).filter(|(_, c)| !**c).map(|(t, _)| t).collect();
        // every summary but the latest, oldest first
        let mut older: Vec<&SummaryRef> =
            if use_summary { summaries.iter().take(summaries.len().saturating_sub(1)).collect() } else { Vec::new() };
    
        let prompt_tokens = prompt.as_deref().map_or(0, |p| estimate_tokens(p) as u64 + crate::text::tokens::MESSAGE_OVERHEAD_TOKENS as u64);
        let offered = recall_pair.clone();
        let mut recall = recall_pair;
        let mut keep_latest = use_summary;
        let mut trimmed = Trimmed::default();
    
        let build = |raw: &[Vec<Value>], older: &[&SummaryRef], keep_latest: bool, recall: &Option<[Value; 2]>| -> Vec<Value> {
            let mut out = Vec::new();
            if keep_latest {
                if let Some(l) = &latest {
                    out.push(summary_message(l, older, now_ms));
                }
            }
            for t in raw {
                out.extend(t.iter().cloned());
            }
            if let Some([call, result]) = recall {
                out.push(opening_of(call));
                out.push(call.clone());
                out.push(result.clone());
            }
            out.extend(current.iter().cloned());
            out
        };
    
        let mut msgs = build(&raw, &older, keep_latest, &recall);
        let mut total = tokens(&msgs) + prompt_tokens;
        if let Some(budget) = token_budget {
            // 1. recalled memories
            if total > budget && recall.is_some() {
                recall = None;
                trimmed.recall = true;
                msgs = build(&raw, &older, keep_latest, &recall);
                total = tokens(&msgs) + prompt_tokens;
            }
            // 2. older summaries, oldest first
            while total > budget && !older.is_empty() {
                older.remove(0);
                trimmed.older_summaries += 1;
                msgs = build(&raw, &older, keep_latest, &recall);
                total = tokens(&msgs) + prompt_tokens;
            }
            // 3. the oldest raw turns, then 4. the latest summary
            while total > budget && (!raw.is_empty() || keep_latest) {
                if !raw.is_empty() {
                    raw.remove(0);
                    trimmed.raw_turns += 1;
                } else {
                    keep_latest = false;
                    trimmed.latest_summary = true;
                }
                msgs = build(&raw, &older, keep_latest, &recall);
                total = tokens(&msgs) + prompt_tokens;
            }
            // the block rule, by its definition: of the further cuts that keep the newest raw
            // turn and drop at most a quarter of the budget more, the one at the kept turn
            // whose host position has the most trailing zero bits (the first such)
            if trimmed.raw_turns > 0 && raw.len() > 1 {
                let first = trimmed.raw_turns;
                let extra = (0..raw.len())
                    .filter(|&k| tokens(&raw[..k].concat()) <= budget / BLOCK_SLACK_DIVISOR)
                    .max_by_key(|&k| (raw_index[first + k].trailing_zeros(), std::cmp::Reverse(k)))
                    .unwrap_or(0);
                raw.drain(..extra);
                trimmed.raw_turns += extra;
                msgs = build(&raw, &older, keep_latest, &recall);
                total = tokens(&msgs) + prompt_tokens;
            }
            // a dropped recall pair comes back when it fits in what trimming left
            let with_recall = build(&raw, &older, keep_latest, &offered);
            if trimmed.recall && tokens(&with_recall) + prompt_tokens <= budget {
                recall = offered.clone();
                trimmed.recall = false;
                msgs = with_recall;
                total = tokens(&msgs) + prompt_tokens;
            }
        }
        let over_budget = token_budget.is_some_and(|b| total > b);
    
        let mut addition = String::new();
        let mut compact_summaries = Vec::new();
        if keep_latest {
            if let Some(l) = &latest {
                addition.push_str("A <conversation-summary> message stands for earlier turns of this conversation; use memory_expand on its archive to read them in full.");
                if let Some(a) = active_instructions(&l.text) {
                    addition.push('\n');
                    addition.push_str(&a);
                }
                for s in older.iter().copied().chain(std::iter::once(l)) {
                    compact_summaries.push(CompactSummary {
                        checkpoint_id: s.checkpoint_id.clone(),
                        session_uri: s.archive_uri.clone(),
                        overview: s.text.clone(),
                        turns: (s.start_sequence, s.end_sequence),
                    });
                }
            }
        }
        Composition {
            estimated_tokens: total,
            messages: msgs,
            system_prompt_addition: if addition.is_empty() { None } else { Some(addition) },
            compact_summaries,
            recent_raw_turns: raw.len(),
            summarized_turns: if keep_latest { summarized_turns } else { 0 },
            recall_included: recall.is_some(),
            trimmed,
            over_budget,
            budget: token_budget,
            current_messages: current.len(),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod linear_matches_reference {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn turn(i: usize, tool: bool, words: usize) -> Vec<Value> {
        let mut t = vec![json!({"role": "user", "content": format!("question {i} {}", "about the deploy pipeline ".repeat(words))})];
        if tool {
            t.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("c{i}"), "name": "exec", "arguments": {"command": "ls"}}]}));
            t.push(json!({"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "exec", "content": [{"type": "text", "text": "ok ".repeat(words)}], "isError": false}));
        }
        t.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {i}")}]}));
        t
    }

    /// The linear composition and the reference give the same context for one shape.
    fn check(shapes: &[(bool, usize)], budget: Option<u64>, summaries: usize, recent: usize, prompt: bool, recall: bool) -> Result<(), TestCaseError> {
        let messages: Vec<Value> = shapes.iter().enumerate().flat_map(|(i, (tool, words))| turn(i, *tool, *words)).collect();
        let n = shapes.len() as u64;
        let sums: Vec<SummaryRef> = (0..summaries as u64).map(|k| SummaryRef {
            checkpoint_id: format!("c{k}"), archive_uri: format!("viking://user/u/sessions/s/history/archive_{k}"),
            start_sequence: k * 3, end_sequence: k * 3 + 2, text: format!("# Working Memory\n\n## Current State\nstate {k} ").repeat(k as usize + 1),
        }).collect();
        let pair = recall.then(|| crate::message::synthetic::recall_pair("deploy", &[crate::message::synthetic::RecalledMemory {
            uri: "viking://user/u/memories/a.md".into(), category: "events".into(), content: "we chose blue-green ".repeat(20), score: 0.8 }], 1));
        let input = ComposeInput {
            messages, prompt: prompt.then(|| "what about the canary size?".to_string()), token_budget: budget,
            recall_pair: pair, summaries: sums, next_sequence: n + 2, recent_raw_turn_count: recent, now_ms: 7,
        };
        let linear = compose(input.clone());
        let reference = reference::compose_reference(input);
        prop_assert_eq!(linear, reference);
        Ok(())
    }

    /// A case proptest once found (kept here rather than in a seed file at the crate root): a
    /// 50-token budget over 21 turns, tool turns among them, nothing else in the context.
    #[test]
    fn a_tiny_budget_over_mixed_tool_turns() {
        let shapes = [(false, 0), (false, 0), (false, 0), (false, 8), (false, 6), (true, 12), (true, 8), (true, 22), (false, 3), (true, 33), (false, 34), (true, 30), (false, 22), (true, 32), (true, 16), (true, 33), (true, 30), (true, 37), (false, 33), (false, 3), (false, 21)];
        check(&shapes, Some(50), 0, 0, false, false).unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn the_same_context_as_the_reference(
            shapes in proptest::collection::vec((any::<bool>(), 0usize..40), 0..40),
            budget in proptest::option::of(50u64..4000),
            summaries in 0usize..4,
            recent in 0usize..10,
            prompt in any::<bool>(),
            recall in any::<bool>(),
        ) {
            check(&shapes, budget, summaries, recent, prompt, recall)?;
        }
    }
}
