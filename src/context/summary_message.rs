//! The checkpoint summaries as the context's first message (data about earlier turns, clearly
//! delimited, with the archive to expand), and the latest summary's current state and open
//! issues as active instructions.

use crate::message::synthetic::SUMMARY_MARKER;
use serde_json::{json, Value};

/// A compact summary available for composition.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRef {
    pub checkpoint_id: String,
    pub archive_uri: String,
    pub start_sequence: u64,
    pub end_sequence: u64,
    pub text: String,
}

/// The summary as the first message: data about earlier turns, clearly delimited.
pub fn summary_message(s: &SummaryRef, older: &[&SummaryRef], now_ms: u64) -> Value {
    let mut text = format!(
        "{SUMMARY_MARKER} checkpoint=\"{}\" turns=\"{}-{}\">\nEarlier turns of this conversation were compacted; this summary stands for them. \
         Their full text is kept and can be read with memory_expand on {}.\n",
        s.checkpoint_id, s.start_sequence, s.end_sequence, s.archive_uri
    );
    for o in older {
        text.push_str(&format!("\n[Earlier summary, turns {}-{}]\n{}\n", o.start_sequence, o.end_sequence, first_lines(&o.text, 12)));
    }
    text.push('\n');
    text.push_str(s.text.trim());
    text.push_str("\n</conversation-summary>");
    json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms})
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join("\n")
}

/// The body of a markdown `## name` section of a working-memory summary.
fn section(md: &str, name: &str) -> Option<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            if inside {
                break;
            }
            inside = h.trim().eq_ignore_ascii_case(name);
            continue;
        }
        // skip the italic description line under each heading
        if inside && !(line.starts_with('_') && line.ends_with('_')) && !line.trim().is_empty() {
            out.push(line.trim().to_string());
        }
    }
    let body = out.join("\n");
    if body.is_empty() || body.eq_ignore_ascii_case("- none recorded.") { None } else { Some(body) }
}

/// Current state and open issues of the latest summary, as active instructions.
pub fn active_instructions(summary: &str) -> Option<String> {
    let state = section(summary, "Current State");
    let open = section(summary, "Open Issues");
    if state.is_none() && open.is_none() {
        return None;
    }
    let mut s = String::from("Continuing after a compaction. Pick up from here:");
    if let Some(x) = state {
        s.push_str(&format!("\nCurrent state: {x}"));
    }
    if let Some(x) = open {
        s.push_str(&format!("\nOpen issues: {x}"));
    }
    Some(s)
}
