//! A borrowing, read-only view of a message as OpenViking stores it in a session (live or
//! archived): `{id, role, parts, turn_id, created_at, message_kind, …}` whose parts are
//! `{type:"text", text}`, `{type:"tool", tool_id, tool_name, tool_input, tool_output,
//! tool_status, tool_output_ref, tool_output_sha256, duration_ms, …}`, `{type:"context", uri, …}`.
//! The view never rewrites the value.

use serde_json::Value;

/// The fields of a `tool` part. A field is `None` when it is absent or not of the expected
/// JSON type (`input` is any JSON value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolPart<'a> {
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub input: Option<&'a Value>,
    pub output: Option<&'a str>,
    pub status: Option<&'a str>,
    /// Where OpenViking moved a large output (`tool_output_ref`).
    pub output_ref: Option<&'a str>,
    /// The digest of a moved output (`tool_output_sha256`).
    pub output_sha256: Option<&'a str>,
    pub duration_ms: Option<u64>,
}

/// One part of a stored message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoredPart<'a> {
    Text { text: Option<&'a str> },
    Tool(ToolPart<'a>),
    Context { uri: Option<&'a str> },
    /// A part of any other type, or one without a `type`.
    Other(&'a Value),
}

impl<'a> StoredPart<'a> {
    pub fn of(part: &'a Value) -> Self {
        let s = |k: &str| part.get(k).and_then(Value::as_str);
        match s("type") {
            Some("text") => StoredPart::Text { text: s("text") },
            Some("tool") => StoredPart::Tool(ToolPart {
                id: s("tool_id"),
                name: s("tool_name"),
                input: part.get("tool_input"),
                output: s("tool_output"),
                status: s("tool_status"),
                output_ref: s("tool_output_ref"),
                output_sha256: s("tool_output_sha256"),
                duration_ms: part.get("duration_ms").and_then(Value::as_u64),
            }),
            Some("context") => StoredPart::Context { uri: s("uri") },
            _ => StoredPart::Other(part),
        }
    }

    /// The tool part's fields, `None` for any other part.
    pub fn tool(&self) -> Option<&ToolPart<'a>> {
        match self {
            StoredPart::Tool(t) => Some(t),
            _ => None,
        }
    }
}

/// A stored message, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct StoredMessage<'a>(pub &'a Value);

impl<'a> StoredMessage<'a> {
    pub fn of(m: &'a Value) -> Self {
        StoredMessage(m)
    }

    fn str_field(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// `role` as stored (`"user"` or `"assistant"`).
    pub fn role(&self) -> Option<&'a str> {
        self.str_field("role")
    }

    pub fn is_user(&self) -> bool {
        self.role() == Some("user")
    }

    /// OpenViking's id of the message.
    pub fn id(&self) -> Option<&'a str> {
        self.str_field("id")
    }

    /// The engine's `turn_id`, sent with the message.
    pub fn turn_id(&self) -> Option<&'a str> {
        self.str_field("turn_id")
    }

    /// `created_at` as sent (ISO 8601).
    pub fn created_at(&self) -> Option<&'a str> {
        self.str_field("created_at")
    }

    /// `parts` as stored, `None` when absent or not an array.
    pub fn raw_parts(&self) -> Option<&'a [Value]> {
        self.0.get("parts").and_then(Value::as_array).map(Vec::as_slice)
    }

    /// The parts in order (none when `parts` is absent or not an array).
    pub fn parts(&self) -> impl Iterator<Item = StoredPart<'a>> + 'a {
        self.raw_parts().unwrap_or_default().iter().map(StoredPart::of)
    }

    /// The texts of the text parts that have one, in order.
    pub fn texts(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.parts().filter_map(|p| match p {
            StoredPart::Text { text } => text,
            _ => None,
        })
    }

    /// The tool parts, in order.
    pub fn tools(&self) -> impl Iterator<Item = ToolPart<'a>> + 'a {
        self.parts().filter_map(|p| match p {
            StoredPart::Tool(t) => Some(t),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn parts_read_in_order_and_an_unknown_type_is_other() {
        let m = json!({"id": "m1", "role": "assistant", "turn_id": "t1", "created_at": "2026-01-01T00:00:00Z", "parts": [
            {"type": "text", "text": "a"},
            {"type": "tool", "tool_id": "c1", "tool_name": "exec", "tool_input": {"cmd": "ls"}, "tool_output": "x",
             "tool_status": "completed", "duration_ms": 12},
            {"type": "context", "uri": "viking://m"},
            {"type": "file", "uri": "viking://f"},
        ]});
        let v = StoredMessage::of(&m);
        assert_eq!((v.id(), v.role(), v.turn_id(), v.created_at()), (Some("m1"), Some("assistant"), Some("t1"), Some("2026-01-01T00:00:00Z")));
        assert!(!v.is_user());
        let parts: Vec<_> = v.parts().collect();
        assert_eq!(parts[0], StoredPart::Text { text: Some("a") });
        let tool = parts[1].tool().copied().unwrap();
        assert_eq!((tool.id, tool.name, tool.output, tool.status, tool.duration_ms), (Some("c1"), Some("exec"), Some("x"), Some("completed"), Some(12)));
        assert_eq!(tool.input, Some(&json!({"cmd": "ls"})));
        assert_eq!((tool.output_ref, tool.output_sha256), (None, None));
        assert_eq!(parts[2], StoredPart::Context { uri: Some("viking://m") });
        assert_eq!(parts[3], StoredPart::Other(&m["parts"][3]));
        assert_eq!(v.texts().collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(v.tools().count(), 1);
    }

    #[test]
    fn missing_fields_read_as_none_and_no_parts() {
        let m = json!({"role": "user", "parts": "not a list"});
        let v = StoredMessage::of(&m);
        assert!(v.is_user());
        assert_eq!((v.id(), v.turn_id(), v.created_at()), (None, None, None));
        assert_eq!(v.raw_parts(), None);
        assert_eq!(v.parts().count(), 0);
        let m = json!({"parts": [{"type": "text"}, {"type": "tool"}]});
        let parts: Vec<_> = StoredMessage::of(&m).parts().collect();
        assert_eq!(parts[0], StoredPart::Text { text: None });
        assert_eq!(parts[1].tool().map(|t| (t.id, t.input, t.output)), Some((None, None, None)));
        assert_eq!(StoredMessage::of(&m).texts().count(), 0);
    }
}
