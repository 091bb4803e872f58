//! How a composition's tokens split by part (what the tuning page draws and the turn's
//! status reports): they add up to its `estimated_tokens`.

use super::compose::Composition;
use crate::message::estimate_message_tokens;
use crate::message::synthetic::is_summary_message;
use serde::Serialize;

/// How the composed context's tokens split (what the tuning page draws): the summary
/// message, the raw turns kept, the recall pair (its call and result: `recall` + `skills` =
/// the outcome's `tokens`, the part `recallTokenBudget` bounds; its skills' lines apart), the
/// one-line user message opening the pair, the current turn (its prompt included), and the
/// map of folders in the system prompt addition.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TokenSplit {
    pub summary: u64,
    pub raw: u64,
    pub recall: u64,
    pub current: u64,
    /// The skills section of the recall pair (`recall::skills`); absent when none was listed.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub skills: u64,
    /// The user message opening the recall pair in the context (outside `recallTokenBudget`);
    /// absent when the pair is not in the context.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub recall_opening: u64,
    /// The map of folders (`map`), counted against the budget; absent when there is none.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub map: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Splits a composition's `estimated_tokens` by part (they add up to it): the summary
/// message first, the synthetic pair wherever it stands, the last `current_messages` (and
/// the prompt the host sends apart) as the current turn, the rest raw.
pub fn token_split(c: &Composition) -> TokenSplit {
    let msgs = &c.messages;
    let mut split = TokenSplit::default();
    let mut start = 0;
    if msgs.first().is_some_and(is_summary_message) {
        split.summary = estimate_message_tokens(&msgs[0]) as u64;
        start = 1;
    }
    let current_at = msgs.len().saturating_sub(c.current_messages).max(start);
    for (i, m) in msgs.iter().enumerate().skip(start) {
        let t = estimate_message_tokens(m) as u64;
        if crate::message::synthetic::is_pair_opening(m) {
            split.recall_opening += t;
        } else if crate::message::synthetic::is_synthetic(m) {
            split.recall += t;
        } else if i >= current_at {
            split.current += t;
        } else {
            split.raw += t;
        }
    }
    // the prompt the host sends apart from its messages
    split.current += c.estimated_tokens.saturating_sub(split.summary + split.raw + split.recall + split.recall_opening + split.current);
    split
}
