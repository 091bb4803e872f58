//! Crossing the boundary: JS values in and out, errors out as `Error`s.
//!
//! - Requests ([`decode_request`]) are decoded into their Rust types with serde-wasm-bindgen
//!   through [`crate::decode`] (field paths in errors, unknown fields ignored, nesting and
//!   size limits). Their opaque payloads — the host's `AgentMessage`s — cross as JSON text:
//!   they are stored and given back as the JSON the host would write (`undefined` members
//!   dropped), and one `JSON.stringify` is faster than walking thousands of messages value by
//!   value (measured: `structuredClone` of an 800-turn conversation 5.5 ms, `JSON.stringify` 2.2 ms).
//! - Free-form JSON documents (config, tool parameters, the tuning page's requests) go
//!   through `JSON.stringify` + `serde_json` ([`decode`]).
//! - Results through `serde_json` + `JSON.parse` ([`encode`]).
//!
//! serde-wasm-bindgen reads objects with JS calls that are not guarded, so a getter or a
//! Proxy that throws would unwind through the wasm and leave it broken. It therefore only
//! reads a snapshot: the request's own properties read by a guarded `Object.entries`;
//! strings, numbers and booleans as they are; each (small) object-valued field as plain data
//! with JSON's meaning. The per-turn requests' typed fields are all scalars but one list of
//! URIs, so the snapshot costs one `Object.entries`.
//! Lone UTF-16 surrogates in input strings become U+FFFD (`text::replace_lone_surrogate_escapes`),
//! as they do in plain string arguments (`string_arg`), so such text is stored, not refused.
//! No JS value makes an export trap: every argument is taken as a `JsValue` and checked here.

#[cfg(feature = "plugin")]
use crate::decode::Request;
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
    /// `Object.entries`, guarded: getters and Proxy traps run inside it.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn entries_checked(v: &JsValue) -> Result<js_sys::Array, JsValue>;
}

#[cfg(feature = "page")]
/// `Array.isArray`, guarded.
pub fn is_array(v: &JsValue) -> Result<bool, JsValue> {
    is_array_checked(v)
}

#[cfg(feature = "page")]
/// `Object.entries`, guarded; a throw is an `INVALID_INPUT` naming `field`.
pub fn own_entries(field: &str, v: &JsValue) -> Result<js_sys::Array, EngineError> {
    entries_checked(v).map_err(|e| EngineError::input(field, format!("cannot be read ({})", js_message(&e))))
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<Error>().map(|e| String::from(e.message())).unwrap_or_default()
}

#[cfg(feature = "plugin")]
/// A request decoded into its Rust type (see the module doc). `field` names the argument in
/// errors about reading it at all; a value that is not an object is `(input)`.
pub fn decode_request<T: Request>(field: &str, v: &JsValue) -> Result<T, EngineError> {
    let (value, json) = snapshot(field, v, T::JSON_FIELDS)?;
    crate::decode::finish_request(crate::decode::decode("(input)", value)?, json)
}

/// The untyped half of [`decode_request`], compiled once for every request type: the
/// request's own fields as a JSON value (the `json_fields` apart, read as JSON text).
#[cfg(feature = "plugin")]
#[inline(never)]
fn snapshot(field: &str, v: &JsValue, json_fields: &'static [&'static str]) -> Result<(Value, Vec<(&'static str, Value)>), EngineError> {
    match is_array_checked(v) {
        Ok(false) if v.is_object() => {}
        Err(e) => return Err(EngineError::input(field, format!("cannot be read ({})", js_message(&e)))),
        _ => return Err(EngineError::input("(input)", format!("expected an object, got {}", type_name(v)))),
    }
    let entries = entries_checked(v).map_err(|e| EngineError::input(field, format!("cannot be read ({})", js_message(&e))))?;
    let snapshot = js_sys::Object::new();
    let mut json = Vec::new();
    for pair in entries.iter() {
        let key = Reflect::get_u32(&pair, 0).ok().and_then(|k| k.as_string()).unwrap_or_default();
        let value = Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED);
        if let Some(f) = json_fields.iter().find(|f| **f == key) {
            json.push((*f, decode(f, &value)?));
        } else if value.is_object() || value.is_function() {
            let _ = Reflect::set(&snapshot, &key.as_str().into(), &plain_copy(&key, &value)?);
        } else if !value.is_symbol() {
            let _ = Reflect::set(&snapshot, &key.as_str().into(), &value);
        }
    }
    // serde-wasm-bindgen reads the snapshot once into a JSON value (one instantiation of its
    // deserializer for the whole crate); the typed decode runs over that value
    let value: Value = crate::decode::decode("(input)", serde_wasm_bindgen::Deserializer::from(JsValue::from(snapshot)))?;
    Ok((value, json))
}

#[cfg(feature = "plugin")]
/// An object-valued request field as plain data with JSON's meaning (`JSON.parse` of
/// `JSON.stringify`, both guarded): what serde-wasm-bindgen may read without running any
/// code of the caller's. A function reads as absent, as in JSON.
fn plain_copy(field: &str, v: &JsValue) -> Result<JsValue, EngineError> {
    let text = JSON::stringify(v).map_err(|e| EngineError::input(field, format!("cannot be read as JSON ({})", js_message(&e))))?;
    match text.as_string() {
        Some(t) => JSON::parse(&t).map_err(|_| EngineError::input(field, "cannot be read as JSON")),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// A JS value as JSON. `undefined` reads as `null`; values JSON cannot hold (BigInt, cycles)
/// are an `INVALID_INPUT` error naming `field`.
pub fn decode(field: &str, v: &JsValue) -> Result<Value, EngineError> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = json_text(field, v)?;
    serde_json::from_str(&text).map_err(|e| EngineError::input(field, format!("is not valid JSON: {e}")))
}

/// The JSON text [`decode`] reads a JS value from (`JSON.stringify`, lone surrogates as
/// U+FFFD; `undefined`, `null`, functions and symbols: `null`).
pub fn json_text(field: &str, v: &JsValue) -> Result<String, EngineError> {
    if v.is_undefined() || v.is_null() {
        return Ok("null".to_string());
    }
    let text: JsValue = JSON::stringify(v)
        .map_err(|e| {
            let why = e.dyn_ref::<Error>().map(|e| String::from(e.message())).unwrap_or_default();
            EngineError::input(field, format!("cannot be read as JSON ({why})"))
        })?
        .into();
    // functions and symbols stringify to undefined
    let text = super::utf8::text_of_js(&text).unwrap_or_else(|| "null".to_string());
    Ok(match crate::text::replace_lone_surrogate_escapes(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(t) => t,
    })
}

#[cfg(feature = "page")]
/// A recall request (`Engine.recall`, `autoRecall`) from its JSON text
/// ([`json_text`]): the search results typed on the way (`recall::wire`), the rest as
/// [`decode`] reads it, the same errors.
pub fn decode_recall_request(field: &str, text: &str) -> Result<(Value, Option<crate::recall::wire::Scopes>), EngineError> {
    use crate::recall::wire::{read_request_text, RequestText};
    match read_request_text(text).map_err(|e| EngineError::input(field, format!("is not valid JSON: {e}")))? {
        RequestText::Typed { rest, scopes } => Ok((rest, Some(scopes))),
        RequestText::Plain(v) => Ok((v, None)),
    }
}

/// A string argument; anything else is an `INVALID_INPUT` error naming `field`.
pub fn string_arg(field: &str, v: &JsValue) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| to_js_error(EngineError::input(field, format!("expected a string, got {}", type_name(v)))))
}

#[cfg(feature = "plugin")]
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
    } else if is_array_checked(v).unwrap_or(false) {
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
