//! Removes what the engine or the host injected into user text, so it is neither used as a
//! recall query nor captured back into memory: legacy `<relevant-memories>` blocks,
//! "Conversation info / Sender (…)" metadata blocks, ```json blocks of host metadata, a
//! leading `[timestamp]` prefix, NULs.
//!
//! Deliberate fix of a legacy quirk: the timestamp prefix is removed only when it looks like
//! a date or time, so a `[user]` speaker tag survives (and `/new` behind it is still seen as a
//! command).

use crate::text::collapse_whitespace;

/// Result of sanitising one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    pub text: String,
    /// True if the text held an injected block (recall or metadata) that was removed.
    pub had_injected: bool,
}

const METADATA_KEYS: &[&str] = &[
    "session", "sessionid", "sessionkey", "conversationid", "channel", "sender", "userid", "agentid",
    "timestamp", "timezone",
];

pub const RECALL_BLOCK_OPEN: &str = "<relevant-memories>";
pub const RECALL_BLOCK_CLOSE: &str = "</relevant-memories>";

/// Removes injected `<relevant-memories>…</relevant-memories>` blocks — the hook fallback's
/// (and the legacy plugin's) — from user text: a block counts only when its opening tag
/// starts a line and a closing tag follows. A mention of the tag inside a sentence, or an
/// opening tag never closed, is the user's own text and stays. The fallback escapes `<` and
/// `>` inside its block (`messages::fallback`), so no memory text can close it early.
/// Returns the text and whether a block was removed; formatting is otherwise kept.
pub fn strip_recall_blocks(text: &str) -> (std::borrow::Cow<'_, str>, bool) {
    if !crate::text::contains(text, RECALL_BLOCK_OPEN) {
        return (std::borrow::Cow::Borrowed(text), false);
    }
    let mut out = String::with_capacity(text.len());
    let mut removed = false;
    let mut from = 0; // text[..from] is decided
    let mut search = 0;
    while let Some(rel) = text[search..].find(RECALL_BLOCK_OPEN) {
        let start = search + rel;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let starts_line = text[line_start..start].chars().all(|c| c == ' ' || c == '\t' || c == '\r');
        let close = text[start..].find(RECALL_BLOCK_CLOSE).map(|i| start + i + RECALL_BLOCK_CLOSE.len());
        match close {
            Some(end) if starts_line => {
                out.push_str(&text[from..start]);
                from = end;
                search = end;
                removed = true;
            }
            Some(_) => search = start + RECALL_BLOCK_OPEN.len(),
            None => break,
        }
    }
    if !removed {
        return (std::borrow::Cow::Borrowed(text), false);
    }
    out.push_str(&text[from..]);
    (std::borrow::Cow::Owned(out), true)
}

/// Removes fenced blocks that the host adds around a message: a line such as
/// `Conversation info (untrusted metadata):` or `Sender (…):` followed by a ``` fence, and any
/// ```json fence whose body names 3 or more host metadata keys.
fn strip_metadata_fences(text: &str, removed: &mut bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let Some(fence) = rest.find("```") else {
            out.push_str(rest);
            break;
        };
        let body_start = fence + 3;
        let Some(close_rel) = rest[body_start..].find("```") else {
            out.push_str(rest);
            break;
        };
        let close = body_start + close_rel;
        let body = &rest[body_start..close];
        // The line before the fence (a "Conversation info (…):" / "Sender (…):" header?)
        let before = rest[..fence].trim_end_matches([' ', '\t', '\r', '\n']);
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let header = before[line_start..].trim();
        let lower_header = header.to_ascii_lowercase();
        let is_header = header.ends_with(':')
            && (lower_header.starts_with("conversation info") || lower_header.starts_with("conversation metadata")
                || lower_header.starts_with("sender"));
        let lower_body = body.to_ascii_lowercase();
        let is_json_meta = lower_body.starts_with("json")
            && METADATA_KEYS.iter().filter(|k| lower_body.contains(&format!("\"{k}\""))).count() >= 3;
        if is_header || is_json_meta {
            *removed = true;
            let cut_from = if is_header { line_start } else { fence };
            out.push_str(&rest[..cut_from]);
        } else {
            out.push_str(&rest[..close + 3]);
        }
        rest = &rest[close + 3..];
    }
    out
}

/// Does `inner` (the text between `[` and `]`) look like a date or time?
fn looks_like_timestamp(inner: &str) -> bool {
    let digits = inner.chars().filter(char::is_ascii_digit).count();
    digits >= 4 && (inner.contains(':') || inner.contains('-') || inner.contains('/'))
}

fn strip_timestamp_prefix(text: &str) -> &str {
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some(end) = rest.find(']') {
            if end <= 64 && looks_like_timestamp(&rest[..end]) {
                return rest[end + 1..].trim_start();
            }
        }
    }
    t
}

/// Sanitises one user or assistant text.
pub fn sanitize(text: &str) -> Sanitized {
    let mut had_injected = false;
    let no_nul: std::borrow::Cow<'_, str> =
        if text.contains('\0') { text.chars().filter(|&c| c != '\0').collect::<String>().into() } else { text.into() };
    let (t, removed) = strip_recall_blocks(&no_nul);
    had_injected |= removed;
    let t = strip_metadata_fences(&t, &mut had_injected);
    let t = strip_timestamp_prefix(&t);
    Sanitized { text: collapse_whitespace(t), had_injected }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn removes_relevant_memories_block() {
        let s = sanitize("<relevant-memories>\n- [preferences] dark mode\n</relevant-memories>\nWhat theme do I use?");
        assert_eq!(s.text, "What theme do I use?");
        assert!(s.had_injected);
    }

    #[test]
    fn removes_host_metadata_fences_but_keeps_code() {
        let s = sanitize("Conversation info (untrusted metadata):\n```json\n{\"channel\":\"cli\"}\n```\nfix this:\n```rust\nfn main() {}\n```");
        assert_eq!(s.text, "fix this: ```rust fn main() {} ```");
        let j = sanitize("```json\n{\"sessionId\":\"a\",\"channel\":\"b\",\"timestamp\":1}\n```\nhello there");
        assert_eq!(j.text, "hello there");
    }

    #[test]
    fn timestamp_prefix_goes_but_speaker_tag_stays() {
        assert_eq!(sanitize("[2026-11-30 10:00] /new").text, "/new");
        assert_eq!(sanitize("[user] /new").text, "[user] /new");
    }

    #[test]
    fn a_mention_of_the_tag_is_the_users_own_text() {
        let s = sanitize("How does the <relevant-memories> tag work in this plugin?");
        assert_eq!(s.text, "How does the <relevant-memories> tag work in this plugin?");
        assert!(!s.had_injected);
        let inline = "Explain <relevant-memories>x</relevant-memories> please";
        assert_eq!(sanitize(inline).text, inline, "inline, not a block");
        let unclosed = "<relevant-memories>\nwhat if it never closes";
        assert_eq!(strip_recall_blocks(unclosed).0, unclosed);
        let two = "<relevant-memories>\na\n</relevant-memories>\n  <relevant-memories>b</relevant-memories>\nkeep";
        assert_eq!(strip_recall_blocks(two).0.trim(), "keep");
    }
}
