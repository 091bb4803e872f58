//! Reading an OpenViking answer: the `result` of a `{status: "ok", result}` envelope, or a
//! [`Refusal`] that says what went wrong in words fit for a log, and which class of failure
//! it is — the class decides retryability (`HostError::retryable`): a turn whose write failed
//! retryably waits in the outbox; one refused for good is reported.
//!
//! | answer | class |
//! |---|---|
//! | no answer (refused, reset, DNS, CORS) | `Unreachable` |
//! | none within the timeout; not sent while the server is paused (`pause`) | `Timeout` |
//! | HTTP 5xx; 429 or `RESOURCE_EXHAUSTED` / `UNAVAILABLE` / `DEADLINE_EXCEEDED` | `ServerError` |
//! | a body that is not a JSON object; a transport answer without status and body text; 3xx/4xx without an error code; 2xx without the envelope | `BadResponse` |
//! | `NOT_FOUND` | `NotFound` |
//! | `ALREADY_EXISTS`, `CONFLICT`, or HTTP 409 with a code | `Conflict` |
//! | HTTP 401/403 with an error code; `UNAUTHENTICATED`, `PERMISSION_DENIED`, `FORBIDDEN` (the key refused) | `Denied` |
//! | any other error code (`INVALID_URI`, `INVALID_ARGUMENT`, …) | `Rejected` |

use super::server::Server;
use super::transport::{HttpResponse, TransportFailure};
use crate::host::{HostError, HostErrorKind};
use crate::text::quote_within;
use serde_json::Value;

/// Server text quoted in a message is cut to this many characters.
const QUOTE_MAX: usize = 500;
/// A body that is not the envelope is quoted up to this many characters.
const SNIPPET_MAX: usize = 160;

/// A call that produced no usable result.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub kind: HostErrorKind,
    /// The HTTP status, 0 when there was no answer.
    pub status: u16,
    /// The server's error code (`NOT_FOUND`, `PERMISSION_DENIED`, …), when it gave one.
    pub server_code: Option<String>,
    /// Key-free text naming the call.
    pub message: String,
    /// The embedder's own reason when there was no answer (refused, DNS, CORS), key-free.
    pub detail: Option<String>,
}

impl From<Refusal> for HostError {
    fn from(r: Refusal) -> HostError {
        HostError::new(r.kind, r.message)
    }
}


fn quote(text: &str) -> String {
    quote_within(text, QUOTE_MAX)
}

fn code_class(code: &str, status: u16) -> HostErrorKind {
    match code {
        "NOT_FOUND" => HostErrorKind::NotFound,
        "ALREADY_EXISTS" | "CONFLICT" => HostErrorKind::Conflict,
        "RESOURCE_EXHAUSTED" | "UNAVAILABLE" | "DEADLINE_EXCEEDED" => HostErrorKind::ServerError,
        "UNAUTHENTICATED" | "PERMISSION_DENIED" | "FORBIDDEN" => HostErrorKind::Denied,
        _ if status == 401 || status == 403 => HostErrorKind::Denied,
        _ if status == 409 => HostErrorKind::Conflict,
        _ if status == 429 => HostErrorKind::ServerError,
        _ => HostErrorKind::Rejected,
    }
}

/// `endpoint` names the call (`POST /api/v1/search/find`). With `envelope: false` the whole
/// JSON object is the result (`GET /health` has no envelope).
pub fn read_answer(
    server: &Server,
    endpoint: &str,
    outcome: Result<HttpResponse, TransportFailure>,
    timeout_ms: u64,
    envelope: bool,
) -> Result<Value, Refusal> {
    let refuse = |kind, status, server_code: Option<String>, message: String| {
        Err(Refusal { kind, status, server_code, message: server.redact(&message), detail: None })
    };
    let response = match outcome {
        Ok(r) => r,
        Err(TransportFailure::Timeout) => {
            return refuse(HostErrorKind::Timeout, 0, None, format!("OpenViking did not answer {endpoint} within {timeout_ms} ms"))
        }
        Err(TransportFailure::Paused { retry_in_ms }) => {
            let secs = retry_in_ms.div_ceil(1000);
            return refuse(HostErrorKind::Timeout, 0, None, format!("{endpoint} not sent: OpenViking did not answer lately; asked again in {secs} s"));
        }
        Err(TransportFailure::Malformed(why)) => {
            return refuse(HostErrorKind::BadResponse, 0, None, format!("no usable answer to {endpoint}: {}", quote(&why)))
        }
        Err(TransportFailure::Unreachable(detail)) => {
            let detail = server.redact(&quote(&detail));
            let shown = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
            let message = server.redact(&format!("OpenViking unreachable at {}{shown} during {endpoint}", server.base_url));
            return Err(Refusal { kind: HostErrorKind::Unreachable, status: 0, server_code: None, message, detail: Some(detail).filter(|d| !d.is_empty()) });
        }
    };
    let status = response.status;
    // a lone UTF-16 surrogate escape (`"\ud800"`, which JSON encoders write for cut text)
    // reads as U+FFFD rather than failing the whole answer
    let mut parsed = match serde_json::from_str::<Value>(&crate::text::replace_lone_surrogate_escapes(&response.body)) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    };
    let object = parsed.as_ref();
    let error = object.and_then(|o| o.get("error")).and_then(Value::as_object);
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_string);
    let said = error.and_then(|e| e.get("message")).and_then(Value::as_str).map(quote).filter(|m| !m.is_empty());
    let said = said.map(|m| format!(": {m}")).unwrap_or_default();
    // a body that is not the envelope (a proxy's error page) is quoted, short
    let snippet = || {
        let t: String = response.body.trim().chars().take(SNIPPET_MAX).collect();
        if t.is_empty() { String::new() } else { format!(": {t}") }
    };

    if status >= 500 {
        let c = code.as_deref().map(|c| format!(" {c}")).unwrap_or_default();
        let said = if object.is_some() { said } else { snippet() };
        return refuse(HostErrorKind::ServerError, status, code, format!("OpenViking answered {endpoint} with HTTP {status}{c}{said}"));
    }
    let Some(object) = object else {
        let s = snippet();
        return refuse(HostErrorKind::BadResponse, status, None, format!("OpenViking answered {endpoint} with HTTP {status} and a body that is not a JSON object{s}"));
    };
    let is_error = object.get("status").and_then(Value::as_str) == Some("error") || status >= 300;
    if let (Some(c), true) = (&code, is_error) {
        return refuse(code_class(c, status), status, code.clone(), format!("OpenViking answered {endpoint} with HTTP {status} {c}{said}"));
    }
    if status == 429 {
        return refuse(HostErrorKind::ServerError, status, None, format!("OpenViking answered {endpoint} with HTTP 429 (too many requests)"));
    }
    if !(200..300).contains(&status) {
        return refuse(HostErrorKind::BadResponse, status, None, format!("OpenViking answered {endpoint} with HTTP {status} without an error code"));
    }
    let enveloped = object.get("status").and_then(Value::as_str) == Some("ok") && object.contains_key("result");
    match parsed.as_mut() {
        Some(o) if !envelope => Ok(Value::Object(std::mem::take(o))),
        Some(o) if enveloped => Ok(o.remove("result").unwrap_or(Value::Null)),
        _ => refuse(HostErrorKind::BadResponse, status, None, format!("OpenViking answered {endpoint} without the {{\"status\":\"ok\",\"result\":…}} envelope")),
    }
}
