//! Oversized tool outputs: kept out of what the model sees, one call away.
//!
//! A tool result larger than `largeToolResultTokens` — in any turn but the one the model is
//! working on now — is assembled as a short stand-in: which tool (and its arguments), how big
//! (tokens, lines), a head and a tail excerpt, and a reference (`out-<16 hex>`) that
//! `memory_read_output` takes. A result of the current turn is cut the same way only when it
//! alone exceeds the whole budget (the turn then still fits, instead of overflowing). The
//! stand-in replaces only the result's `content`: the call/result pairing stays as the
//! provider requires, and the turn written to OpenViking is the host's, untouched.
//!
//! Reading back ([`read_output`]): a line range, or the lines matching a query (plain text,
//! case-insensitive) with a little context, bounded in tokens, with where they sit in the
//! whole output so the model can page on.

use crate::message::{role, text_of, ContentPart, Message};
use crate::text::truncate_with_ellipsis;
use crate::text::tokens::estimate_tokens;
use serde::Serialize;
use serde_json::{json, Value};

/// Lines of the head and tail excerpts (at most; they shrink until the stand-in is small).
pub const HEAD_LINES: usize = 12;
pub const TAIL_LINES: usize = 6;
/// An excerpt line is cut to this many UTF-16 units.
pub const EXCERPT_LINE_UNITS: usize = 200;
/// A stand-in is at most this many tokens (and always fewer than its original).
pub const STAND_IN_MAX_TOKENS: usize = 400;
/// What one `memory_read_output` call returns by default, and at most.
pub const READ_DEFAULT_TOKENS: usize = 2_000;
pub const READ_MAX_TOKENS: usize = 8_000;
/// Lines of context around each query match.
pub const MATCH_CONTEXT_LINES: usize = 1;

/// A tool output kept out of the context, with everything the read-back needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Outsized {
    pub reference: String,
    pub tool_name: String,
    pub call_id: String,
    /// The call's arguments, when the call is in the transcript.
    pub arguments: Option<Value>,
    pub text: String,
    pub tokens: usize,
    pub lines: usize,
}

/// What the model saw instead of an output (`Assembled.standIns`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StandInRef {
    pub reference: String,
    pub tool_name: String,
    pub call_id: String,
    /// Tokens of the whole output, and of the stand-in the model saw.
    pub tokens: usize,
    pub stand_in_tokens: usize,
    pub lines: usize,
}

/// `out-` and 16 hex digits of sha256(call id, sha256(text)): the same output keeps its
/// reference, and a machine that never saw it finds it in OpenViking from the tool part
/// alone — an archived part carries its id and `tool_output_sha256`, not the text.
pub fn output_ref(call_id: &str, text: &str) -> String {
    output_ref_of_digest(call_id, &crate::text::sha256::sha256_hex(text.as_bytes()))
}

/// [`output_ref`] from the text's sha256 (lowercase hex).
pub fn output_ref_of_digest(call_id: &str, text_sha256: &str) -> String {
    let digest = crate::text::sha256::sha256_hex(format!("{call_id}\0{text_sha256}").as_bytes());
    format!("out-{}", &digest[..16])
}

/// A reference as the model may hand it back.
pub fn is_output_ref(s: &str) -> bool {
    s.len() == 20 && s.starts_with("out-") && s[4..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn line_count(text: &str) -> usize {
    text.lines().count().max(1)
}

/// Where the turn the model is working on now begins, if it is in `messages`: without a
/// separate prompt the last turn is the current one (older hosts); with one, the last turn
/// is current only while its tool loop runs (it ends in a tool call or a tool result).
pub fn current_turn_start(messages: &[Value], prompt_given: bool) -> usize {
    let Some(last_user) = messages.iter().rposition(|m| role(m) == Some("user")) else { return messages.len() };
    let in_loop = messages.last().is_some_and(|m| match role(m) {
        Some("toolResult") => true,
        Some("assistant") => !crate::message::tool_call_ids(m).is_empty(),
        _ => false,
    });
    if !prompt_given || in_loop {
        last_user
    } else {
        messages.len()
    }
}

/// The call's arguments: the assistant `toolCall` part with this id, searched backwards.
fn arguments_of(messages: &[Value], call_id: &str) -> Option<Value> {
    messages.iter().rev().find_map(|m| {
        Message::of(m).content_parts().find_map(|p| match p {
            ContentPart::ToolCall { id: Some(id), arguments, .. } if id == call_id => Some(arguments.cloned().unwrap_or(Value::Null)),
            _ => None,
        })
    })
}

fn excerpt(lines: &[&str]) -> String {
    lines.iter().map(|l| truncate_with_ellipsis(l, EXCERPT_LINE_UNITS)).collect::<Vec<_>>().join("\n")
}

/// The stand-in text: never more than [`STAND_IN_MAX_TOKENS`], never as large as the output.
pub fn stand_in_text(o: &Outsized) -> String {
    let args = o.arguments.as_ref().map(|a| truncate_with_ellipsis(&a.to_string(), 300));
    let head_line = format!(
        "[tool output kept out of the context: {} returned {} tokens in {} lines; reference {}]",
        o.tool_name, o.tokens, o.lines, o.reference
    );
    let read = format!(
        "To read it: memory_read_output with {{\"reference\": \"{}\", \"fromLine\": 1, \"toLine\": 200}}, or {{\"reference\": \"{}\", \"query\": \"…\"}} for the lines that mention something.",
        o.reference, o.reference
    );
    let all: Vec<&str> = o.text.lines().collect();
    let (mut head, mut tail) = (HEAD_LINES, TAIL_LINES);
    loop {
        let mut s = head_line.clone();
        if let Some(a) = &args {
            s.push_str(&format!("\narguments: {a}"));
        }
        let h = head.min(all.len());
        let t = tail.min(all.len().saturating_sub(h));
        if h > 0 {
            s.push_str(&format!("\n--- first {h} lines ---\n{}", excerpt(&all[..h])));
        }
        if t > 0 {
            s.push_str(&format!("\n--- last {t} lines (of {}) ---\n{}", o.lines, excerpt(&all[all.len() - t..])));
        }
        s.push('\n');
        s.push_str(&read);
        let small = estimate_tokens(&s);
        if (small <= STAND_IN_MAX_TOKENS && small < o.tokens) || (head == 0 && tail == 0) {
            return s;
        }
        // shrink the excerpts until it fits
        if tail > 0 {
            tail -= 1;
        } else {
            head -= 1;
        }
    }
}

/// The messages with every outsized tool output replaced by its stand-in, and what was
/// replaced. `threshold`: `largeToolResultTokens`; `budget`: the host's token budget.
pub fn stand_in_outputs(messages: Vec<Value>, threshold: usize, budget: Option<u64>, prompt_given: bool) -> (Vec<Value>, Vec<Outsized>, Vec<StandInRef>) {
    let current = current_turn_start(&messages, prompt_given);
    let mut found = Vec::new();
    let mut refs = Vec::new();
    // which tool results become stand-ins (read by reference: a call's arguments come from an
    // earlier message), then the messages moved through, only those replaced
    let mut replace: Vec<(usize, String)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if role(m) != Some("toolResult") {
            continue;
        }
        let text = text_of(m);
        let tokens = estimate_tokens(&text);
        let limit = if i < current { Some(threshold as u64) } else { budget };
        if !limit.is_some_and(|l| tokens as u64 > l) {
            continue;
        }
        let call_id = Message::of(m).tool_call_id().unwrap_or("").to_string();
        let o = Outsized {
            reference: output_ref(&call_id, &text),
            tool_name: Message::of(m).tool_name().unwrap_or("tool").to_string(),
            arguments: arguments_of(&messages[..i], &call_id),
            call_id,
            lines: line_count(&text),
            tokens,
            text,
        };
        let stand_in = stand_in_text(&o);
        refs.push(StandInRef {
            reference: o.reference.clone(),
            tool_name: o.tool_name.clone(),
            call_id: o.call_id.clone(),
            tokens: o.tokens,
            stand_in_tokens: estimate_tokens(&stand_in),
            lines: o.lines,
        });
        replace.push((i, stand_in));
        found.push(o);
    }
    let mut out = messages;
    for (i, stand_in) in replace {
        if let Some(obj) = out[i].as_object_mut() {
            obj.insert("content".into(), json!([{ "type": "text", "text": stand_in }]));
        }
    }
    (out, found, refs)
}

/// What to read of a stored output.
#[derive(Debug, Clone)]
pub enum ReadSpec {
    /// Lines `from..=to`, 1-based (`to` past the end reads to the end).
    Lines { from: usize, to: usize },
    /// The lines containing this text (case-insensitive), with context.
    Query(String),
    /// The lines a pattern matches (`crate::tools::history::regex`, linear time), with context; the
    /// scan stops after [`crate::tools::history::rank::STEPS_MAX`] steps (`truncated`).
    Pattern { source: String, regex: crate::tools::history::regex::Regex },
}

impl PartialEq for ReadSpec {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ReadSpec::Lines { from: a, to: b }, ReadSpec::Lines { from: c, to: d }) => a == c && b == d,
            (ReadSpec::Query(a), ReadSpec::Query(b)) => a == b,
            (ReadSpec::Pattern { source: a, .. }, ReadSpec::Pattern { source: b, .. }) => a == b,
            _ => false,
        }
    }
}

/// One matching line of a query read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReadMatch {
    pub line: usize,
    pub text: String,
}

/// What `memory_read_output` answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OutputRead {
    pub reference: String,
    pub total_lines: usize,
    pub total_tokens: usize,
    /// The exact text of lines `fromLine..=toLine` (a line range read).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub from_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub to_line: Option<usize>,
    /// The matching lines and their context, in order (a query read).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub matches: Option<Vec<ReadMatch>>,
    /// Lines containing the query in the whole output (a query read).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub match_count: Option<usize>,
    /// The token bound cut the answer short: read on from `next`.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub next_from_line: Option<usize>,
}

/// Reads `spec` of `text` within `max_tokens` (clamped to [`READ_MAX_TOKENS`]). Whole lines
/// only; a single line longer than the bound is cut (and `truncated` says so).
pub fn read_output(reference: &str, text: &str, spec: &ReadSpec, max_tokens: usize) -> OutputRead {
    let max_tokens = max_tokens.clamp(1, READ_MAX_TOKENS);
    let lines: Vec<&str> = text.lines().collect();
    let total_lines = lines.len().max(1);
    let mut out = OutputRead {
        reference: reference.to_string(),
        total_lines,
        total_tokens: estimate_tokens(text),
        text: None,
        from_line: None,
        to_line: None,
        matches: None,
        match_count: None,
        truncated: false,
        next_from_line: None,
    };
    match spec {
        ReadSpec::Lines { from, to } => {
            let from = (*from).max(1);
            let to = (*to).min(lines.len()).max(from.min(lines.len()));
            let mut body = String::new();
            let mut used = 0;
            let mut last = from.saturating_sub(1);
            for (n, line) in lines.iter().enumerate().take(to).skip(from - 1) {
                let cost = estimate_tokens(line) + 1;
                if used + cost > max_tokens {
                    if body.is_empty() {
                        // one line over the whole bound: its start, cut
                        body.push_str(&cut_to_tokens(line, max_tokens));
                        last = n + 1;
                    }
                    out.truncated = true;
                    break;
                }
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(line);
                used += cost;
                last = n + 1;
            }
            if out.truncated && last < lines.len() {
                out.next_from_line = Some(last + 1);
            }
            out.text = Some(body);
            out.from_line = Some(from.min(total_lines));
            out.to_line = Some(last.max(from.min(total_lines)));
        }
        ReadSpec::Query(_) | ReadSpec::Pattern { .. } => {
            let mut budget = crate::tools::history::rank::STEPS_MAX;
            let mut scanned_all = true;
            let mut hits: Vec<usize> = Vec::new();
            match spec {
                ReadSpec::Query(q) => {
                    let needle = q.to_lowercase();
                    hits.extend(lines.iter().enumerate().filter(|(_, l)| l.to_lowercase().contains(&needle)).map(|(i, _)| i));
                }
                ReadSpec::Pattern { regex, .. } => {
                    for (i, l) in lines.iter().enumerate() {
                        match regex.find(l, &mut budget) {
                            Ok(Some(_)) => hits.push(i),
                            Ok(None) => {}
                            Err(_) => {
                                scanned_all = false;
                                out.next_from_line = Some(i + 1);
                                break;
                            }
                        }
                    }
                }
                ReadSpec::Lines { .. } => {}
            }
            out.match_count = Some(hits.len());
            if !scanned_all {
                out.truncated = true;
            }
            let mut shown: Vec<ReadMatch> = Vec::new();
            let mut used = 0;
            let mut next_line = 0usize; // lines before this are already shown
            'hits: for &h in &hits {
                let from = h.saturating_sub(MATCH_CONTEXT_LINES).max(next_line);
                let to = (h + MATCH_CONTEXT_LINES).min(lines.len() - 1);
                for (i, line) in lines.iter().enumerate().take(to + 1).skip(from) {
                    let cost = estimate_tokens(line) + 4;
                    if used + cost > max_tokens {
                        if shown.is_empty() {
                            shown.push(ReadMatch { line: i + 1, text: cut_to_tokens(line, max_tokens) });
                        }
                        out.truncated = true;
                        out.next_from_line = Some(i + 1);
                        break 'hits;
                    }
                    used += cost;
                    shown.push(ReadMatch { line: i + 1, text: line.to_string() });
                }
                next_line = to + 1;
            }
            out.matches = Some(shown);
        }
    }
    out
}

/// The start of `line` within about `max_tokens`.
fn cut_to_tokens(line: &str, max_tokens: usize) -> String {
    let mut units = line.len();
    let mut cut = line.to_string();
    while estimate_tokens(&cut) > max_tokens && units > 1 {
        units /= 2;
        cut = crate::text::prefix_utf16(line, units).to_string();
    }
    cut
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn big(lines: usize) -> String {
        (1..=lines).map(|i| format!("line {i}: INFO request served in {} ms from pool worker {}", i % 97, i % 13)).collect::<Vec<_>>().join("\n")
    }

    fn transcript(output: &str) -> Vec<Value> {
        vec![
            json!({"role": "user", "content": "read the log"}),
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "/var/log/app.log"}}]}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": output}], "isError": false}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "It is a big log."}], "stopReason": "stop"}),
        ]
    }

    #[test]
    fn an_outsized_output_of_a_past_turn_becomes_a_small_stand_in_with_its_reference() {
        let text = big(5000);
        let (msgs, found, refs) = stand_in_outputs(transcript(&text), 2000, Some(50_000), true);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].text, text, "the full text is kept for the read-back");
        assert_eq!(found[0].arguments, Some(json!({"path": "/var/log/app.log"})));
        let stand_in = text_of(&msgs[2]);
        assert!(stand_in.contains(&found[0].reference) && stand_in.contains("read returned") && stand_in.contains("5000 lines"));
        assert!(stand_in.contains("line 1:") && stand_in.contains("line 5000:"), "head and tail");
        assert!(refs[0].stand_in_tokens <= STAND_IN_MAX_TOKENS && refs[0].stand_in_tokens < refs[0].tokens);
        assert_eq!(msgs[2]["toolCallId"], "c1", "the pairing stays");
        assert_eq!(msgs[2]["isError"], false);
        assert_eq!((&msgs[0], &msgs[1], &msgs[3]), (&transcript(&text)[0], &transcript(&text)[1], &transcript(&text)[3]));
        assert!(is_output_ref(&found[0].reference));
        assert_eq!(found[0].reference, output_ref("c1", &text), "stable");
    }

    #[test]
    fn small_outputs_and_the_current_turn_stay_unless_one_alone_exceeds_the_budget() {
        let text = big(5000);
        let (msgs, found, _) = stand_in_outputs(transcript("short"), 2000, Some(50_000), true);
        assert!(found.is_empty() && msgs == transcript("short"));
        // the tool loop in progress: the result is the current turn's
        let mut loop_now = transcript(&text);
        loop_now.pop();
        let (_, found, _) = stand_in_outputs(loop_now.clone(), 2000, Some(500_000), true);
        assert!(found.is_empty(), "the model is working on it");
        let (_, found, _) = stand_in_outputs(loop_now, 2000, Some(10_000), true);
        assert_eq!(found.len(), 1, "alone over the whole budget: cut rather than overflow");
        // an older host (no separate prompt): the last turn is the current one
        let (_, found, _) = stand_in_outputs(transcript(&text), 2000, Some(500_000), false);
        assert!(found.is_empty());
    }

    #[test]
    fn a_stand_in_is_never_larger_than_its_original_even_for_long_lines_and_cjk() {
        let three_long_lines = format!("{}\n{}\n{}", "alpha beta ".repeat(300), "gamma ".repeat(300), "delta ".repeat(300));
        for text in ["数据库连接池超时".repeat(400), "x".repeat(9000), three_long_lines, format!("{}\n{}", "長い".repeat(2000), "y".repeat(5000))] {
            let (_, _, refs) = stand_in_outputs(transcript(&text), 500, None, true);
            assert_eq!(refs.len(), 1, "{}", text.len());
            assert!(refs[0].stand_in_tokens < refs[0].tokens && refs[0].stand_in_tokens <= STAND_IN_MAX_TOKENS, "{refs:?}");
        }
    }

    #[test]
    fn line_ranges_read_exact_text_and_page_within_the_token_bound() {
        let text = big(5000);
        let r = read_output("out-0123456789abcdef", &text, &ReadSpec::Lines { from: 2500, to: 2502 }, 2000);
        let want: Vec<&str> = text.lines().skip(2499).take(3).collect();
        assert_eq!(r.text.as_deref(), Some(want.join("\n").as_str()));
        assert_eq!((r.from_line, r.to_line, r.total_lines, r.truncated), (Some(2500), Some(2502), 5000, false));
        let r = read_output("out-0123456789abcdef", &text, &ReadSpec::Lines { from: 1, to: 5000 }, 300);
        assert!(r.truncated && r.next_from_line == Some(r.to_line.unwrap() + 1));
        assert!(estimate_tokens(r.text.as_deref().unwrap()) <= 300);
        let r = read_output("out-0123456789abcdef", &text, &ReadSpec::Lines { from: 4999, to: 9000 }, 2000);
        assert_eq!((r.from_line, r.to_line, r.truncated), (Some(4999), Some(5000), false));
    }

    #[test]
    fn a_query_finds_the_exact_line_from_the_middle_with_its_neighbours() {
        let mut lines: Vec<String> = big(5000).lines().map(str::to_string).collect();
        lines[2716] = "line 2717: ERROR the vault combination changed to 31-7-44".to_string();
        let text = lines.join("\n");
        let r = read_output("out-0123456789abcdef", &text, &ReadSpec::Query("VAULT combination".into()), 2000);
        assert_eq!(r.match_count, Some(1));
        let m = r.matches.unwrap();
        assert_eq!(m.iter().map(|x| x.line).collect::<Vec<_>>(), vec![2716, 2717, 2718]);
        assert_eq!(m[1].text, lines[2716]);
        let r = read_output("out-0123456789abcdef", &text, &ReadSpec::Query("served".into()), 200);
        assert!(r.truncated && r.match_count == Some(4999) && r.next_from_line.is_some());
    }

    #[test]
    fn references_are_checked_as_the_model_hands_them_back() {
        assert!(is_output_ref("out-0123456789abcdef"));
        for bad in ["", "out-", "out-0123456789ABCDEF", "out-0123456789abcde", "out-0123456789abcdefa", "../out-0123456789abcdef", "out-012345678/abcdef"] {
            assert!(!is_output_ref(bad), "{bad}");
        }
    }
}
