//! A turn's recall request as the host hands it in, read from a JSON value (the reader of
//! its text, with the search results typed on the way, is `recall::wire`).

use crate::decode::fields::{as_object, join};
use crate::error::{EngineError, Result};
use serde_json::Value;
use std::collections::BTreeMap;

/// What the host hands in (JSON, camelCase):
/// `{prompt?, messages?, search:{user?, agent?}, contents?: {uri: text}, nowMs?, query?}`.
/// `query` overrides the query built from `prompt`/`messages` (explicit `memory_recall`).
#[derive(Debug, Clone, PartialEq)]
pub struct RecallRequest {
    pub prompt: Option<String>,
    pub messages: Vec<Value>,
    pub query: Option<String>,
    pub user: Value,
    pub agent: Value,
    pub contents: BTreeMap<String, String>,
    pub now_ms: u64,
    /// The user's stable profile (`{uri, text}` of `profile.md`), always a recall candidate.
    pub profile: Option<(String, String)>,
    /// This agent's experiences found for the turn (`recall::experience`), placed after the
    /// memories by the composition (`assemble`); the engine fills it.
    pub experiences: Vec<crate::recall::experience::ExperienceCandidate>,
}

impl RecallRequest {
    pub fn from_json(v: &Value) -> Result<Self> {
        Self::from_value(v.clone())
    }

    /// Reads a request, taking the (possibly large) messages and search results out of `v`
    /// without copying them.
    pub fn from_value(mut v: Value) -> Result<Self> {
        let (prompt, query, now_ms, profile) = {
            let o = as_object("", &v)?;
            if let Some(messages) = o.opt_array("messages")? {
                for (i, m) in messages.iter().enumerate() {
                    if !m.is_object() {
                        return Err(EngineError::input(format!("messages[{i}]"), "expected an object (an AgentMessage)"));
                    }
                }
            }
            o.opt_object("search")?;
            if let Some(c) = o.opt_object("contents")? {
                for (k, v) in c {
                    if !matches!(v, Value::String(_) | Value::Null) {
                        return Err(EngineError::input(join("contents", k), "expected a string (the memory's text)"));
                    }
                }
            }
            let profile = match o.opt_object("profile")? {
                None => None,
                Some(p) => {
                    let po = crate::decode::fields::Obj { path: "profile", map: p };
                    let text = po.opt_str("text")?.unwrap_or("").trim().to_string();
                    let uri = po.req_str("uri")?.to_string();
                    if text.is_empty() { None } else { Some((uri, text)) }
                }
            };
            (o.opt_str("prompt")?.map(str::to_string), o.opt_str("query")?.map(str::to_string), o.opt_u64("nowMs")?.unwrap_or(0), profile)
        };
        let Value::Object(map) = &mut v else { unreachable!("checked by as_object") };
        let messages = match map.remove("messages") {
            Some(Value::Array(a)) => a,
            _ => Vec::new(),
        };
        let (user, agent) = match map.remove("search") {
            Some(Value::Object(mut s)) => (s.remove("user").unwrap_or(Value::Null), s.remove("agent").unwrap_or(Value::Null)),
            _ => (Value::Null, Value::Null),
        };
        let experiences = match map.remove("experiences") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => serde_json::from_value(v).map_err(|e| EngineError::input("experiences", format!("expected [{{uri, content, score?}}]: {e}")))?,
        };
        let contents = match map.remove("contents") {
            Some(Value::Object(c)) => c
                .into_iter()
                .filter_map(|(k, v)| match v {
                    Value::String(s) => Some((k, s)),
                    _ => None,
                })
                .collect(),
            _ => BTreeMap::new(),
        };
        Ok(RecallRequest { prompt, messages, query, user, agent, contents, now_ms, profile, experiences })
    }
}
