//! The pure half of the live OpenViking search: reading the page's request and turning every
//! failure of the protocol (`openviking`, the same code the plugin runs) into an
//! `EngineError` with a message fit for a page — which field to fix, and a hint. No I/O and
//! no wasm-bindgen here, so `tests/http_host.rs` also runs it natively.
//!
//! Error codes and fields (the field names the input to fix):
//! - input problems: `INVALID_INPUT` with `baseUrl`, `apiKey`, `agentId`, `query`, `limit`, `timeoutMs`
//! - the browser could not reach the server (down, wrong URL, CORS): `HOST_FAILED`, field `baseUrl`
//! - no answer in time: `HOST_TIMEOUT`, field `baseUrl`
//! - an HTTP error: `HOST_FAILED` with the status and the server's code; field `apiKey` for
//!   401/403, `baseUrl` for a 404 of an endpoint (not an OpenViking 0.5 server there)
//! - an answer that is not JSON or not the envelope: `HOST_FAILED`, no field
//!
//! The API key never appears in a message: it is not formatted into any, and text that comes
//! from the server or the browser is redacted by the protocol first.

use crate::error::{EngineError, ErrorCode};
use crate::host::HostErrorKind;
use crate::openviking::{Refusal, Server};
use serde_json::{Map, Value};

pub use crate::openviking::client::user_id_from_status;
pub use crate::openviking::server::redact;
/// The agent scope the plugin searches for `agent_id`: that agent's own folder.
pub fn agent_scope(agent_id: &str) -> String {
    crate::address::scopes::agent_owned_memories(agent_id)
}
/// The caller's own user memories, for a server whose status names no user.
pub const OWN_USER_SCOPE: &str = crate::address::scopes::HOME_MEMORIES;
pub const DEFAULT_AGENT_ID: &str = "default";
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 1000;
pub const DEFAULT_TIMEOUT_MS: u32 = 15_000;
/// Server text quoted in a message is cut to this many characters.
const QUOTE_MAX: usize = 300;

/// One live search, checked. Its `Debug` shows `apiKey` as `[redacted]`.
#[derive(Clone, PartialEq)]
pub struct LiveSearch {
    /// `http(s)://host[:port][/prefix]`, no trailing `/`.
    pub base_url: String,
    /// Sent as `X-API-Key` when present; never formatted into a message.
    pub api_key: Option<String>,
    pub agent_id: String,
    pub query: String,
    pub limit: u32,
    pub timeout_ms: u32,
    /// Grep the user scope for the query's words too and fuse the hits with the find
    /// (`recall::lexical`, the plugin's `recallLexical`); default on.
    pub lexical: bool,
}

impl LiveSearch {
    /// Reads `{baseUrl, apiKey?, agentId?, query, limit?, timeoutMs?, lexical?}`.
    pub fn from_json(v: &Value) -> Result<LiveSearch, EngineError> {
        let Value::Object(o) = v else {
            return Err(EngineError::input("(request)", format!("expected an object, got {}", describe(v))));
        };
        let known = ["baseUrl", "apiKey", "agentId", "query", "limit", "timeoutMs", "lexical"];
        if let Some(k) = o.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(EngineError::input(k.clone(), format!("unknown key; expected one of {}", known.join(", "))));
        }
        let base_url = normalize_base_url(req_str(o, "baseUrl")?)?;
        let api_key = match opt_str(o, "apiKey")?.map(str::trim) {
            None | Some("") => None,
            Some(k) => {
                check_api_key(k)?;
                Some(k.to_string())
            }
        };
        let agent_id = match opt_str(o, "agentId")?.map(str::trim) {
            None | Some("") => DEFAULT_AGENT_ID.to_string(),
            Some(a) => {
                check_agent_id(a)?;
                a.to_string()
            }
        };
        let query = req_str(o, "query")?.trim();
        if query.is_empty() {
            return Err(EngineError::input("query", "is empty: there is nothing to search for"));
        }
        let limit = opt_int(o, "limit", 1, MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT);
        let timeout_ms = opt_int(o, "timeoutMs", 100, 600_000)?.unwrap_or(DEFAULT_TIMEOUT_MS);
        let lexical = match o.get("lexical") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(EngineError::input("lexical", format!("expected true or false, got {}", describe(other)))),
        };
        Ok(LiveSearch { base_url, api_key, agent_id, query: query.to_string(), limit, timeout_ms, lexical })
    }

    /// The headers of every call: the agent, and the key when there is one.
    pub fn headers(&self) -> Vec<(&'static str, &str)> {
        let mut h = vec![("X-OpenViking-Agent", self.agent_id.as_str())];
        if let Some(k) = &self.api_key {
            h.push(("X-API-Key", k.as_str()));
        }
        h
    }

    /// Removes the key from text that came from elsewhere (server messages, browser errors).
    pub fn redact(&self, text: &str) -> String {
        redact(text, self.api_key.as_deref())
    }

    /// The server as the protocol addresses it.
    pub fn server(&self) -> Server {
        Server { base_url: self.base_url.clone(), api_key: self.api_key.clone(), agent_id: self.agent_id.clone(), timeout_ms: u64::from(self.timeout_ms) }
    }
}

impl std::fmt::Debug for LiveSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSearch")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("agent_id", &self.agent_id)
            .field("query", &self.query)
            .field("limit", &self.limit)
            .field("timeout_ms", &self.timeout_ms)
            .field("lexical", &self.lexical)
            .finish()
    }
}

use crate::decode::fields::describe;

fn opt_str<'a>(o: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, EngineError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(EngineError::input(key, format!("expected a string, got {}", describe(other)))),
    }
}

fn req_str<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a str, EngineError> {
    opt_str(o, key)?.ok_or_else(|| EngineError::input(key, "is required (a string)"))
}

fn opt_int(o: &Map<String, Value>, key: &str, min: u32, max: u32) -> Result<Option<u32>, EngineError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= f64::from(min) && f <= f64::from(max) => Ok(Some(f as u32)),
            _ => Err(EngineError::input(key, format!("expected an integer from {min} to {max}, got {n}"))),
        },
        Some(other) => Err(EngineError::input(key, format!("expected an integer, got {}", describe(other)))),
    }
}

/// The key must fit in an HTTP header. The message never shows it.
fn check_api_key(k: &str) -> Result<(), EngineError> {
    if k.len() > 4096 || k.chars().any(|c| !(' '..='~').contains(&c)) {
        return Err(EngineError::input("apiKey", "contains characters an HTTP header cannot carry (printable ASCII only)"));
    }
    Ok(())
}

/// The plugin's rule for `agentId` (`config::is_agent_id`); empty: the default agent.
fn check_agent_id(a: &str) -> Result<(), EngineError> {
    if !(a.is_empty() || crate::config::is_agent_id(a)) {
        return Err(EngineError::input("agentId", "must be 1–128 characters from A–Z, a–z, 0–9, _ . -"));
    }
    Ok(())
}

/// Checks a server URL and drops trailing `/`: `http://` or `https://`, a host, an optional
/// port and path prefix; no credentials, query, fragment, whitespace or control characters.
pub fn normalize_base_url(raw: &str) -> Result<String, EngineError> {
    let bad = |why: &str| EngineError::input("baseUrl", format!("{why} (expected http://host:port, e.g. http://127.0.0.1:1933)"));
    let url = raw.trim();
    if url.is_empty() {
        return Err(bad("is empty"));
    }
    let lower = url.to_ascii_lowercase();
    let rest_at = if lower.starts_with("http://") {
        7
    } else if lower.starts_with("https://") {
        8
    } else {
        return Err(bad("must start with http:// or https://"));
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("contains whitespace or control characters"));
    }
    if url.contains(['?', '#']) {
        return Err(bad("must not have a query or fragment"));
    }
    let rest = &url[rest_at..];
    let authority = rest.split('/').next().unwrap_or("");
    if authority.contains('@') {
        return Err(bad("must not contain a user name or password (put the key in the API key field)"));
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, after)) if after.is_empty() || after.starts_with(':') => (h, after.strip_prefix(':')),
            _ => return Err(bad("has a malformed [IPv6] host")),
        },
        None => match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        },
    };
    if host.is_empty() {
        return Err(bad("has no host"));
    }
    if port.is_some_and(|p| p.parse::<u16>().map_or(true, |p| p == 0)) {
        return Err(bad("has an invalid port"));
    }
    let scheme = &lower[..rest_at];
    Ok(format!("{scheme}{}", rest.trim_end_matches('/')))
}

/// The user memory scope: `viking://user/<uid>/memories`, or the caller's own without an id.
pub fn user_scope(user_id: Option<&str>) -> String {
    crate::address::scopes::user_memories(None, user_id)
}

fn quote(text: &str) -> String {
    crate::text::quote_within(text, QUOTE_MAX)
}

fn at(code: ErrorCode, field: Option<&str>, message: String) -> EngineError {
    EngineError { code, field: field.map(str::to_string), message }
}

/// The browser's fetch failed before any answer: server down, wrong address, or CORS.
/// `page_origin` is the origin of the page making the call (`location.origin`), if any.
pub fn unreachable_error(url: &str, page_origin: Option<&str>, detail: &str) -> EngineError {
    let origin = page_origin.filter(|o| !o.is_empty() && *o != "null").unwrap_or("this page's origin");
    let detail = quote(detail);
    let detail = if detail.is_empty() { String::new() } else { format!(" (browser: {detail})") };
    at(
        ErrorCode::HostFailed,
        Some("baseUrl"),
        format!(
            "the browser could not reach {url} — is the server running, and does its server.cors_origins include {origin}?{detail}"
        ),
    )
}

pub fn timeout_error(url: &str, timeout_ms: u32) -> EngineError {
    let secs = f64::from(timeout_ms) / 1000.0;
    at(ErrorCode::HostTimeout, Some("baseUrl"), format!("{url} did not answer within {secs} s — is the OpenViking server overloaded or stuck?"))
}

/// A failed call as the page shows it: the field to fix and a hint.
pub fn page_error(r: Refusal, req: &LiveSearch, page_origin: Option<&str>) -> EngineError {
    match r.kind {
        HostErrorKind::Unreachable => unreachable_error(&req.base_url, page_origin, r.detail.as_deref().unwrap_or("")),
        HostErrorKind::Timeout => timeout_error(&req.base_url, req.timeout_ms),
        _ => {
            let (field, hint) = match r.status {
                401 | 403 => (Some("apiKey"), " — check the API key (a user key; the root key is refused by data APIs)"),
                404 | 405 => (Some("baseUrl"), " — is this an OpenViking 0.5 server?"),
                _ => (None, ""),
            };
            at(ErrorCode::HostFailed, field, format!("{}{hint}", r.message))
        }
    }
}

/// A find `result` as the engine reads it: an object whose `memories` (if any) is an array.
pub fn check_find_result(what: &str, result: Value) -> Result<Value, EngineError> {
    let fine = match &result {
        Value::Object(o) => matches!(o.get("memories"), None | Some(Value::Null) | Some(Value::Array(_))),
        _ => false,
    };
    if fine {
        Ok(result)
    } else {
        Err(at(ErrorCode::HostFailed, None, format!("the result of {what} is not a find result ({{\"memories\": [...]}})")))
    }
}
