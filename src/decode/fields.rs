//! Reading untrusted JSON-shaped input with errors that name the field.
//!
//! Inputs arrive as `serde_json::Value` (from JS, from files). Instead of deriving
//! `Deserialize` — whose type errors do not say which field was wrong — inputs are read with
//! these accessors, which carry the path (`search.user[3].score`) into every error.

use crate::error::{EngineError, Result};
use serde_json::{Map, Value};

/// A JSON object together with its path in the input.
#[derive(Clone, Copy)]
pub struct Obj<'a> {
    pub path: &'a str,
    pub map: &'a Map<String, Value>,
}

pub fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub fn as_object<'a>(path: &'a str, v: &'a Value) -> Result<Obj<'a>> {
    match v {
        Value::Object(map) => Ok(Obj { path, map }),
        other => Err(EngineError::input(
            if path.is_empty() { "(input)" } else { path },
            format!("expected an object, got {}", describe(other)),
        )),
    }
}

impl<'a> Obj<'a> {
    /// The value at `key`, treating JSON `null` as absent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn wrong(&self, key: &str, expected: &str, got: &Value) -> EngineError {
        EngineError::input(join(self.path, key), format!("expected {expected}, got {}", describe(got)))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    pub fn req_str(&self, key: &str) -> Result<&'a str> {
        self.opt_str(key)?
            .ok_or_else(|| EngineError::input(join(self.path, key), "is required (a string)"))
    }

    pub fn opt_f64(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(self.wrong(key, "a number", other)),
        }
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "a boolean", other)),
        }
    }

    pub fn opt_array(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(other) => Err(self.wrong(key, "an array", other)),
        }
    }

    pub fn opt_object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(other) => Err(self.wrong(key, "an object", other)),
        }
    }

    /// A non-negative integer that fits in u64 (`nowMs`, `tokenBudget`, …).
    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= 9.007_199_254_740_991e15 => Ok(Some(f as u64)),
                _ => Err(EngineError::input(join(self.path, key), format!("expected a non-negative integer, got {n}"))),
            },
            Some(other) => Err(self.wrong(key, "a non-negative integer", other)),
        }
    }
}
