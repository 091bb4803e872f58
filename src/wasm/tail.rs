//! Reading only the newest user messages of a host's list (`Engine.recall`): the query is
//! built from the last few user turns (`recall::query::user_messages_read`), so the rest of
//! a long conversation is never copied into the wasm. Every read is guarded — a getter or a
//! Proxy trap that throws is an `INVALID_INPUT` naming the message, never an exception
//! through the wasm — and only the messages taken are then read as JSON, like any request.

use crate::error::EngineError;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

/// The request with `messages` cut to its newest `users` user messages (in their order),
/// as JSON text (see `codec::json_text`).
pub fn with_newest_user_messages(request: &JsValue, users: usize) -> Result<String, EngineError> {
    if !request.is_object() {
        return super::codec::json_text("(request)", request);
    }
    let messages = Reflect::get(request, &"messages".into()).map_err(|_| EngineError::input("messages", "cannot be read"))?;
    if messages.is_undefined() || messages.is_null() {
        return super::codec::json_text("(request)", request);
    }
    let taken = newest_user_messages(&messages, users)?;
    // a shallow copy of the request's own fields (guarded), with the messages taken
    let entries = super::codec::own_entries("(request)", request)?;
    let copy = Object::new();
    for pair in entries.iter() {
        let key = Reflect::get_u32(&pair, 0).unwrap_or(JsValue::UNDEFINED);
        let value = if key.as_string().as_deref() == Some("messages") { taken.clone().into() } else { Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED) };
        let _ = Reflect::set(&copy, &key, &value);
    }
    super::codec::json_text("(request)", &copy.into())
}

fn newest_user_messages(messages: &JsValue, users: usize) -> Result<Array, EngineError> {
    let unreadable = |i: u32| EngineError::input(format!("messages[{i}]"), "cannot be read");
    if !super::codec::is_array(messages).map_err(|_| EngineError::input("messages", "cannot be read"))? {
        return Err(EngineError::input("messages", "expected an array (of AgentMessages)"));
    }
    let len = Reflect::get(messages, &"length".into()).ok().and_then(|l| l.as_f64()).unwrap_or(0.0);
    let len = if len.is_finite() && len > 0.0 { len.min(u32::MAX as f64) as u32 } else { 0 };
    // the walk back is bounded as any decoded list is (a Proxy may claim 2^32 - 1 messages
    // with no user among them)
    if len as usize > crate::decode::MAX_ITEMS {
        return Err(EngineError::input("messages", format!("more than {} items", crate::decode::MAX_ITEMS)));
    }
    let taken = Array::new();
    let mut i = len;
    while i > 0 && (taken.length() as usize) < users {
        i -= 1;
        let m = Reflect::get_u32(messages, i).map_err(|_| unreadable(i))?;
        if !m.is_object() {
            return Err(EngineError::input(format!("messages[{i}]"), "expected an object (an AgentMessage)"));
        }
        let role = Reflect::get(&m, &"role".into()).map_err(|_| unreadable(i))?;
        if role.as_string().as_deref() == Some("user") {
            taken.unshift(&m);
        }
    }
    Ok(taken)
}
