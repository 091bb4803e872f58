//! Was an unacknowledged write stored after all? A write that times out, is reset, or gets a
//! 5xx or garbled answer may still have reached OpenViking. Such a turn goes to the outbox
//! like any other, and the engine remembers it (`SessionRecord::unconfirmed`) together with
//! the live message count it would have left. Before replaying it, the engine asks
//! OpenViking: if the session holds exactly that many live messages and they end with this
//! turn's messages, the turn is there — it is dropped from the outbox instead of written a
//! second time. If OpenViking does not answer, the turn waits (a resend whose answer is lost
//! too would store it twice). Anything else (a commit in between, another writer) sends it
//! again: a duplicate is recoverable, a lost turn is not.

use super::record::Unconfirmed;
use super::Engine;
use crate::host::{Host, HostError};
use crate::message::{StoredMessage, StoredPart};
use serde_json::Value;

/// A message's role, text parts, and tool calls (id, output).
type Fingerprint<'a> = (Option<&'a str>, Vec<&'a str>, Vec<(Option<&'a str>, Option<&'a str>)>);

/// The parts that identify a stored message: its role, its text parts, its tool calls' ids
/// and outputs. (OpenViking adds fields of its own to what it stores.)
fn fingerprint(m: &Value) -> Fingerprint<'_> {
    let m = StoredMessage::of(m);
    let texts = m
        .parts()
        .filter_map(|p| match p {
            StoredPart::Text { text } => Some(text.unwrap_or("")),
            _ => None,
        })
        .collect();
    let tools = m.tools().map(|t| (t.id, t.output)).collect();
    (m.role(), texts, tools)
}

/// True when `stored` ends with `sent`, message by message (see `fingerprint`).
pub fn ends_with_messages(stored: &[Value], sent: &[Value]) -> bool {
    if sent.is_empty() || stored.len() < sent.len() {
        return false;
    }
    let tail = &stored[stored.len() - sent.len()..];
    tail.iter().zip(sent).all(|(a, b)| fingerprint(a) == fingerprint(b))
}

/// What OpenViking says about an unacknowledged write.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Check {
    /// It is there: drop it from the outbox.
    Stored,
    /// It is not (or the session moved on in another way): send it; `live` is the session's
    /// live message count now.
    Absent { live: u64 },
    /// OpenViking did not answer: neither send nor drop it yet (a resend that is also lost
    /// would store it twice). Why, for the flush report.
    Unknown(Unchecked),
}

/// Why an unacknowledged write could not be checked yet: rendered into the flush report's
/// reason (after "an unacknowledged write could not be checked yet: "), whose text it keeps.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Unchecked {
    /// OpenViking did not answer (or failed) when asked for the session or its messages.
    NoAnswer(HostError),
    /// None of the turn is there yet, but its send (turn `sequence`, `elapsed_ms` ago) is
    /// recent enough that it may still land.
    MayStillLand { sequence: u64, elapsed_ms: u64 },
}

impl std::fmt::Display for Unchecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unchecked::NoAnswer(e) => write!(f, "{}", e.described()),
            Unchecked::MayStillLand { sequence, elapsed_ms } => write!(f, "the write of turn {sequence} sent {elapsed_ms} ms ago may still land"),
        }
    }
}

impl<H: Host> Engine<H> {
    /// Whether the unacknowledged write `u` (of `messages`) is in OpenViking: stored only
    /// when the live count is exactly what it would have left and the live messages end
    /// with it.
    pub(super) async fn check_unconfirmed(&self, ov_id: &str, u: &Unconfirmed, messages: &[Value]) -> Check {
        let live = match self.host.session_meta(ov_id).await {
            Ok(Some(meta)) => meta.message_count,
            Ok(None) => return Check::Absent { live: 0 },
            Err(e) => return Check::Unknown(Unchecked::NoAnswer(e)),
        };
        if messages.is_empty() || u.message_count != messages.len() as u64 || live != u.live_before + u.message_count {
            return Check::Absent { live };
        }
        match self.host.live_messages(ov_id).await {
            Ok(stored) if stored.len() as u64 == live && ends_with_messages(&stored, messages) => Check::Stored,
            Ok(_) => Check::Absent { live },
            Err(e) => Check::Unknown(Unchecked::NoAnswer(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(role: &str, t: &str) -> Value {
        json!({"role": role, "parts": [{"type": "text", "text": t}]})
    }

    #[test]
    fn the_tail_must_match_message_by_message() {
        let sent = vec![text("user", "hi"), json!({"role": "assistant", "parts": [{"type": "text", "text": "ok"}, {"type": "tool", "tool_id": "t1", "tool_output": "x"}]})];
        // as OpenViking returns them: ids, timestamps and extra tool fields added
        let stored = vec![
            json!({"id": "m0", "role": "user", "parts": [{"type": "text", "text": "earlier"}]}),
            json!({"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}], "created_at": "…"}),
            json!({"id": "m2", "role": "assistant", "parts": [{"type": "text", "text": "ok"}, {"type": "tool", "tool_id": "t1", "tool_output": "x", "tool_uri": "", "tool_output_group_id": "m2"}]}),
        ];
        assert!(ends_with_messages(&stored, &sent));
        assert!(!ends_with_messages(&stored[..2], &sent), "shorter");
        assert!(!ends_with_messages(&stored, &[text("user", "hi!"), sent[1].clone()]), "other text");
        assert!(!ends_with_messages(&stored, &[text("assistant", "hi"), sent[1].clone()]), "other role");
        let other_tool = json!({"role": "assistant", "parts": [{"type": "text", "text": "ok"}, {"type": "tool", "tool_id": "t2", "tool_output": "x"}]});
        assert!(!ends_with_messages(&stored, &[sent[0].clone(), other_tool]), "other tool call");
        assert!(!ends_with_messages(&stored, &[]), "nothing sent is never 'stored'");
    }

    #[test]
    fn why_a_write_could_not_be_checked_reads_as_before() {
        use crate::host::HostErrorKind;
        let e = HostError::new(HostErrorKind::Unreachable, "connect ECONNREFUSED");
        assert_eq!(Unchecked::NoAnswer(e).to_string(), "no answer (connect ECONNREFUSED)");
        let e = HostError::new(HostErrorKind::ServerError, "500");
        assert_eq!(Unchecked::NoAnswer(e).to_string(), "OpenViking failed (500)");
        assert_eq!(Unchecked::MayStillLand { sequence: 7, elapsed_ms: 1200 }.to_string(), "the write of turn 7 sent 1200 ms ago may still land");
    }
}
