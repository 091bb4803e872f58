//! Which part of an `afterTurn` call is a finished turn. OpenClaw calls `afterTurn` in two
//! places, with the same parameters (observed in 2026.7.35 and 2026.9.2):
//! - a **tool-loop checkpoint** before each model call, for engines that own compaction: the
//!   slice after `prePromptMessageCount` is `[user]`, then `[assistant toolCall, toolResult]`
//!   — never the final answer. On 2026.9.2 the same turn then arrives whole through
//!   `commitTurn`; writing the checkpoints stored every user message twice.
//! - the **end of the turn** (hosts without `commitTurn`): its `prePromptMessageCount` may
//!   be the last checkpoint, so the slice can be just `[final assistant]`.
//!
//! So the shape decides, not the host version: a slice that does not end in an assistant
//! message without tool calls is a checkpoint and writes nothing; a finished turn is written
//! whole, from its opening user message (the first checkpoint's offset, or found by walking
//! back from `prePromptMessageCount`).

use crate::message::role;
use crate::message::synthetic::is_synthetic;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterTurn {
    /// A tool-loop checkpoint: nothing to write; `opening` is where this turn starts.
    Checkpoint { opening: usize },
    /// A finished turn: `messages[start..]`.
    Complete { start: usize },
}

fn has_tool_call(m: &Value) -> bool {
    crate::message::Message::of(m).content_parts().any(|p| matches!(p, crate::message::ContentPart::ToolCall { .. }))
}

/// Is `m` a turn's final answer (an assistant message that calls no tool)?
pub fn is_final_answer(m: &Value) -> bool {
    role(m) == Some("assistant") && !is_synthetic(m) && !has_tool_call(m)
}

/// Where the turn holding `messages[pre]` opens: `pre` itself when it is a real user message,
/// else the nearest real user message before it (else `pre`).
fn opening(messages: &[Value], pre: usize) -> usize {
    let is_user = |m: &Value| role(m) == Some("user") && !is_synthetic(m);
    if messages.get(pre).is_some_and(is_user) {
        return pre;
    }
    messages[..pre.min(messages.len())].iter().rposition(is_user).unwrap_or(pre)
}

/// Classifies one `afterTurn` call. `remembered` is this turn's opening offset from an
/// earlier checkpoint in the same process, if any.
pub fn classify_after_turn(messages: &[Value], pre: usize, remembered: Option<usize>) -> AfterTurn {
    let pre = pre.min(messages.len());
    let open = match remembered {
        Some(r) if r <= pre && messages.get(r).is_some_and(|m| role(m) == Some("user")) => r,
        _ => opening(messages, pre),
    };
    let finished = messages[pre..].iter().rev().find(|m| !is_synthetic(m)).is_some_and(is_final_answer);
    if finished {
        AfterTurn::Complete { start: open }
    } else {
        AfterTurn::Checkpoint { opening: open }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t})
    }
    fn tool_use() -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {}}], "stopReason": "toolUse"})
    }
    fn tool_result() -> Value {
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": "ok"}]})
    }
    fn answer(t: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": t}], "stopReason": "stop"})
    }

    #[test]
    fn loop_checkpoints_write_nothing() {
        // 2026.9.2 / 2026.7.35 before each model call
        let history = vec![user("earlier"), answer("earlier answer"), user("now")];
        assert_eq!(classify_after_turn(&history, 2, None), AfterTurn::Checkpoint { opening: 2 });
        let mid = vec![user("earlier"), answer("a"), user("now"), tool_use(), tool_result()];
        assert_eq!(classify_after_turn(&mid, 3, None), AfterTurn::Checkpoint { opening: 2 });
        assert_eq!(classify_after_turn(&[user("only")], 0, None), AfterTurn::Checkpoint { opening: 0 });
    }

    #[test]
    fn an_end_of_turn_slice_from_the_last_checkpoint_is_written_whole() {
        // 2026.7.35: prePromptMessageCount is the last checkpoint, the slice [final answer]
        let done = vec![user("earlier"), answer("a"), user("now"), tool_use(), tool_result(), answer("done")];
        assert_eq!(classify_after_turn(&done, 5, None), AfterTurn::Complete { start: 2 });
        assert_eq!(classify_after_turn(&done, 5, Some(2)), AfterTurn::Complete { start: 2 });
        // a host that slices at the turn's start
        assert_eq!(classify_after_turn(&done, 2, None), AfterTurn::Complete { start: 2 });
        // a stale remembered offset past the slice is ignored
        assert_eq!(classify_after_turn(&done, 2, Some(4)), AfterTurn::Complete { start: 2 });
    }

    #[test]
    fn odd_counts_never_panic() {
        let done = vec![user("now"), answer("done")];
        assert_eq!(classify_after_turn(&done, 99, None), AfterTurn::Checkpoint { opening: 0 });
        assert_eq!(classify_after_turn(&[], 0, Some(3)), AfterTurn::Checkpoint { opening: 0 });
    }
}
