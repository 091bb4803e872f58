//! A transcript's messages split into turns.

use super::role;
use serde_json::Value;

/// Splits messages into turns: a new turn starts at each user message.
pub fn split_turns(messages: Vec<Value>) -> Vec<Vec<Value>> {
    let mut turns: Vec<Vec<Value>> = Vec::new();
    for m in messages {
        if role(&m) == Some("user") || turns.is_empty() {
            turns.push(Vec::new());
        }
        if let Some(t) = turns.last_mut() {
            t.push(m);
        }
    }
    turns
}
