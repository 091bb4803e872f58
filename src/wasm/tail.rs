//! Reading only the newest user messages of a host's list (`Engine.recall`): the query is
//! built from the last few user turns (`recall::query::user_messages_read`), so the rest of
//! a long conversation is never copied into the wasm. Every read is guarded — a getter or a
//! Proxy trap that throws is an `INVALID_INPUT` naming the message, never an exception
//! through the wasm — and only the messages taken are then read as JSON, like any request.

use crate::error::EngineError;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

/// A recall request as `Engine.recall` reads it: its JSON text, with `messages` cut to the
/// newest user messages and each search scope given as text taken out of it.
pub struct RecallText {
    /// The request's JSON text (see `codec::json_text`).
    pub json: String,
    /// `search.user` and `search.agent` where the host gave them as strings (a find answer's
    /// body text, `recall::wire::scope_from_text`): `null` in `json`, their text here — so
    /// the text is never escaped into the JSON and read twice.
    pub user: Option<String>,
    pub agent: Option<String>,
}

/// The request with `messages` cut to its newest `users` user messages (in their order) and
/// its string search scopes taken out, as [`RecallText`].
pub fn with_newest_user_messages(request: &JsValue, users: usize) -> Result<RecallText, EngineError> {
    let plain = |json| RecallText { json, user: None, agent: None };
    if !request.is_object() {
        return super::codec::json_text("(request)", request).map(plain);
    }
    let messages = Reflect::get(request, &"messages".into()).map_err(|_| EngineError::input("messages", "cannot be read"))?;
    let taken = if messages.is_undefined() || messages.is_null() { None } else { Some(newest_user_messages(&messages, users)?) };
    // (a search that cannot be read is left to the JSON text's read, which says so)
    let texts = Reflect::get(request, &"search".into()).ok().and_then(|s| scope_texts(&s));
    if taken.is_none() && texts.is_none() {
        return super::codec::json_text("(request)", request).map(plain);
    }
    // a shallow copy of the request's own fields (guarded), with the messages taken and the
    // string scopes left out
    let copy = copy_replacing("(request)", request, |key| match (key, &taken, &texts) {
        ("messages", Some(t), _) => Some(t.clone().into()),
        ("search", _, Some((copy, _, _))) => Some(copy.clone().into()),
        _ => None,
    })?;
    let json = super::codec::json_text("(request)", &copy.into())?;
    Ok(match texts {
        Some((_, user, agent)) => RecallText { json, user, agent },
        None => plain(json),
    })
}

/// A search object whose `user` or `agent` is a string: a copy with those `null`, and their
/// texts; `None` for any other value, or one that cannot be read.
fn scope_texts(search: &JsValue) -> Option<(Object, Option<String>, Option<String>)> {
    if !search.is_object() || super::codec::is_array(search).unwrap_or(true) {
        return None;
    }
    let read = |scope: &str| Reflect::get(search, &scope.into()).map(|v| super::utf8::text_of_js(&v));
    let (user, agent) = (read("user").ok()?, read("agent").ok()?);
    if user.is_none() && agent.is_none() {
        return None;
    }
    let copy = copy_replacing("search", search, |key| match key {
        "user" if user.is_some() => Some(JsValue::NULL),
        "agent" if agent.is_some() => Some(JsValue::NULL),
        _ => None,
    })
    .ok()?;
    Some((copy, user, agent))
}

/// A shallow copy of `object`'s own fields (read guarded, as `codec::own_entries`), with the
/// value `replace` gives for a key in place of the object's own.
fn copy_replacing(field: &str, object: &JsValue, replace: impl Fn(&str) -> Option<JsValue>) -> Result<Object, EngineError> {
    let entries = super::codec::own_entries(field, object)?;
    let copy = Object::new();
    for pair in entries.iter() {
        let key = Reflect::get_u32(&pair, 0).unwrap_or(JsValue::UNDEFINED);
        let value = key.as_string().and_then(|k| replace(&k)).unwrap_or_else(|| Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED));
        let _ = Reflect::set(&copy, &key, &value);
    }
    Ok(copy)
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
