//! Crossing the boundary: JS values in and out as JSON-shaped data, errors out as `Error`s.
//!
//! Inputs go through `JSON.stringify` + `serde_json` (one boundary crossing, measured faster
//! than walking large objects field by field); outputs through `serde_json` + `JSON.parse`.
//! Lone UTF-16 surrogates in input strings become U+FFFD (`text::replace_lone_surrogate_escapes`),
//! as they do in plain string arguments (`string_arg`), so such text is stored, not refused.
//! No JS value makes an export trap: every argument is taken as a `JsValue` and checked here.

use crate::error::{EngineError, ErrorCode};
use js_sys::{Error, Reflect, JSON};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`, which throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_checked(v: &JsValue) -> Result<bool, JsValue>;
}

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
    let text = crate::text::replace_lone_surrogate_escapes(&text);
    serde_json::from_str(&text).map_err(|e| EngineError::input(field, format!("is not valid JSON: {e}")))
}

/// A string argument; anything else is an `INVALID_INPUT` error naming `field`.
pub fn string_arg(field: &str, v: &JsValue) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| to_js_error(EngineError::input(field, format!("expected a string, got {}", type_name(v)))))
}

/// The strings in an array argument (anything else in it, or a value that is not an array,
/// is left out). Reads through `Reflect`, so an array behind a Proxy whose traps throw is
/// an empty list, not an exception through the wasm.
pub fn string_items(v: &JsValue) -> Vec<String> {
    if !is_array_checked(v).unwrap_or(false) {
        return Vec::new();
    }
    let len = Reflect::get(v, &"length".into()).ok().and_then(|l| l.as_f64()).unwrap_or(0.0);
    let len = if len.is_finite() && len > 0.0 { len.min(10_000.0) as u32 } else { 0 };
    (0..len).filter_map(|i| Reflect::get_u32(v, i).ok()?.as_string()).collect()
}

/// A finite, non-negative number argument (milliseconds, counts).
pub fn millis_arg(field: &str, v: &JsValue) -> Result<u64, JsValue> {
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(n.min(u64::MAX as f64) as u64),
        _ => Err(to_js_error(EngineError::input(field, format!("expected a non-negative number, got {}", type_name(v))))),
    }
}

/// What a JS value is, for error messages (never its content: it may be private text).
pub fn type_name(v: &JsValue) -> &'static str {
    if v.is_undefined() {
        "undefined"
    } else if v.is_null() {
        "null"
    } else if v.as_bool().is_some() {
        "a boolean"
    } else if let Some(n) = v.as_f64() {
        if n.is_finite() { "a number" } else { "a non-finite number" }
    } else if v.is_string() {
        "a string"
    } else if v.is_bigint() {
        "a bigint"
    } else if v.is_symbol() {
        "a symbol"
    } else if v.is_function() {
        "a function"
    } else if js_sys::Array::is_array(v) {
        "an array"
    } else {
        "an object"
    }
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
