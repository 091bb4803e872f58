//! A borrowing, read-only view of one OpenClaw `AgentMessage` as the host sent it (a JSON
//! value). The view never rewrites the value, so every field survives untouched.
//!
//! - user: `{role:"user", content: string | [{type:"text",text} | {type:"image",…}], timestamp}`
//! - assistant: `{role:"assistant", content:[{type:"text"} | {type:"thinking"} |
//!   {type:"toolCall", id, name, arguments}], stopReason, …}`
//! - tool result: `{role:"toolResult", toolCallId, toolName, content:[{type:"text",text}], isError}`

use serde_json::Value;

/// The roles OpenClaw writes. `"tool"` is read as [`Role::ToolResult`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    System,
}

/// One part of a message's `content`. A field is `None` when it is absent or not of the
/// expected JSON type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ContentPart<'a> {
    Text { text: Option<&'a str> },
    Image { mime_type: Option<&'a str>, data: Option<&'a str> },
    Thinking { thinking: Option<&'a str> },
    ToolCall { id: Option<&'a str>, name: Option<&'a str>, arguments: Option<&'a Value> },
    /// A part of any other type, or one without a `type`.
    Other(&'a Value),
}

impl<'a> ContentPart<'a> {
    pub fn of(part: &'a Value) -> Self {
        let s = |k: &str| part.get(k).and_then(Value::as_str);
        match s("type") {
            Some("text") => ContentPart::Text { text: s("text") },
            Some("image") => ContentPart::Image { mime_type: s("mimeType"), data: s("data") },
            Some("thinking") => ContentPart::Thinking { thinking: s("thinking") },
            Some("toolCall") => ContentPart::ToolCall { id: s("id"), name: s("name"), arguments: part.get("arguments") },
            _ => ContentPart::Other(part),
        }
    }
}

/// An agent message, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a>(pub &'a Value);

impl<'a> Message<'a> {
    pub fn of(m: &'a Value) -> Self {
        Message(m)
    }

    fn str_field(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// The `role` string as sent.
    pub fn role_name(&self) -> Option<&'a str> {
        self.str_field("role")
    }

    /// The role, `None` for a missing or unknown one.
    pub fn role(&self) -> Option<Role> {
        match self.role_name()? {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "toolResult" | "tool" => Some(Role::ToolResult),
            "system" => Some(Role::System),
            _ => None,
        }
    }

    /// `content` as sent (a string, an array of parts, or anything else).
    pub fn content(&self) -> Option<&'a Value> {
        self.0.get("content")
    }

    /// The parts of `content` in order: a string `content` is one text part; a `content`
    /// that is neither a string nor an array has none.
    pub fn content_parts(&self) -> impl Iterator<Item = ContentPart<'a>> + 'a {
        let (single, many) = match self.content() {
            Some(Value::String(s)) => (Some(ContentPart::Text { text: Some(s.as_str()) }), None),
            Some(Value::Array(parts)) => (None, Some(parts.iter().map(ContentPart::of))),
            _ => (None, None),
        };
        single.into_iter().chain(many.into_iter().flatten())
    }

    /// `timestamp` as sent (normally milliseconds since the epoch).
    pub fn timestamp(&self) -> Option<&'a Value> {
        self.0.get("timestamp")
    }

    /// A tool result's `toolCallId`.
    pub fn tool_call_id(&self) -> Option<&'a str> {
        self.str_field("toolCallId")
    }

    /// A tool result's `toolName`.
    pub fn tool_name(&self) -> Option<&'a str> {
        self.str_field("toolName")
    }

    /// A tool result's `isError`, `None` when absent or not a boolean.
    pub fn is_error(&self) -> Option<bool> {
        self.0.get("isError").and_then(Value::as_bool)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_string_content_reads_as_one_text_part() {
        let m = json!({"role": "user", "content": "hello"});
        let parts: Vec<_> = Message::of(&m).content_parts().collect();
        assert_eq!(parts, vec![ContentPart::Text { text: Some("hello") }]);
    }

    #[test]
    fn parts_read_in_order_and_an_unknown_type_is_other() {
        let m = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
            {"type": "audio", "data": "x"},
            {"text": "no type"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
        ]});
        let parts: Vec<_> = Message::of(&m).content_parts().collect();
        assert_eq!(parts[0], ContentPart::Thinking { thinking: Some("hm") });
        assert_eq!(parts[1], ContentPart::ToolCall { id: Some("c1"), name: Some("read"), arguments: Some(&json!({"path": "a"})) });
        assert_eq!(parts[2], ContentPart::Other(&m["content"][2]));
        assert_eq!(parts[3], ContentPart::Other(&m["content"][3]));
        assert_eq!(parts[4], ContentPart::Image { mime_type: Some("image/png"), data: Some("AAAA") });
    }

    #[test]
    fn missing_or_mistyped_fields_read_as_none() {
        let m = json!({"role": 3, "content": [{"type": "text"}, {"type": "toolCall", "id": 7}], "isError": "yes"});
        let v = Message::of(&m);
        assert_eq!(v.role(), None);
        assert_eq!(v.role_name(), None);
        assert_eq!(v.is_error(), None);
        assert_eq!(v.tool_call_id(), None);
        assert_eq!(v.timestamp(), None);
        let parts: Vec<_> = v.content_parts().collect();
        assert_eq!(parts, vec![ContentPart::Text { text: None }, ContentPart::ToolCall { id: None, name: None, arguments: None }]);
    }

    #[test]
    fn content_that_is_neither_string_nor_array_has_no_parts() {
        for content in [json!(null), json!({"text": "x"}), json!(3)] {
            let m = json!({"role": "user", "content": content});
            assert_eq!(Message::of(&m).content_parts().count(), 0);
        }
        assert_eq!(Message::of(&json!({"role": "user"})).content_parts().count(), 0);
    }

    #[test]
    fn a_tool_result_reads_its_fields() {
        let m = json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "isError": true, "timestamp": 5,
                       "content": [{"type": "text", "text": "ok"}]});
        let v = Message::of(&m);
        assert_eq!(v.role(), Some(Role::ToolResult));
        assert_eq!((v.tool_call_id(), v.tool_name(), v.is_error()), (Some("c1"), Some("exec"), Some(true)));
        assert_eq!(v.timestamp(), Some(&json!(5)));
        assert_eq!(Message::of(&json!({"role": "tool"})).role(), Some(Role::ToolResult));
        assert_eq!(Message::of(&json!({"role": "system"})).role(), Some(Role::System));
    }
}
