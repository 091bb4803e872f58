//! Crossing the boundary: JS values in and out as JSON-shaped data, errors out as `Error`s.
//!
//! Inputs go through `JSON.stringify` + `serde_json` (one boundary crossing, measured faster
//! than walking large objects field by field); outputs through `serde_json` + `JSON.parse`.

use crate::error::{EngineError, ErrorCode};
use js_sys::{Error, Reflect, JSON};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// A JS value as JSON. `undefined` reads as `null`; values JSON cannot hold (BigInt, cycles)
/// are an `INVALID_INPUT` error naming `field`.
pub fn decode(field: &str, v: &JsValue) -> Result<Value, EngineError> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = JSON::stringify(v)
        .map_err(|e| {
            let why = e.dyn_ref::<Error>().map(|e| String::from(e.message())).unwrap_or_default();
            EngineError::input(field, format!("cannot be read as JSON ({why})"))
        })?
        .as_string()
        .unwrap_or_else(|| "null".to_string()); // functions and symbols stringify to undefined
    serde_json::from_str(&text).map_err(|e| EngineError::input(field, format!("is not valid JSON: {e}")))
}

/// A result as a plain JS value (objects, not `Map`s).
pub fn encode<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v)
        .map_err(|e| to_js_error(EngineError::new(ErrorCode::Internal, format!("cannot encode result: {e}"))))?;
    JSON::parse(&text)
}

/// An `EngineError` as a JS `Error` with `code` and `field`.
pub fn to_js_error(e: EngineError) -> JsValue {
    let err = Error::new(&e.message);
    err.set_name("OpenVikingEngineError");
    let _ = Reflect::set(&err, &"code".into(), &e.code.as_str().into());
    let field = e.field.as_deref().map(JsValue::from).unwrap_or(JsValue::NULL);
    let _ = Reflect::set(&err, &"field".into(), &field);
    err.into()
}
