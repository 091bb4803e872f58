//! Where and as whom: the server's base URL, the agent header, the API key and the per-call
//! timeout, and the encoding of paths and queries. The key goes into a header only; it is
//! never formatted into a message, and text from elsewhere passes [`Server::redact`].

use crate::config::Config;
use crate::text::percent::segment;
use crate::text::redact::{redact_forms, secret_forms};

#[derive(Clone, PartialEq)]
pub struct Server {
    /// `http(s)://host[:port][/prefix]`, no trailing `/` (checked by `config`).
    pub base_url: String,
    /// Sent as `X-API-Key` when present.
    pub api_key: Option<String>,
    /// Sent as `X-OpenViking-Agent`.
    pub agent_id: String,
    pub timeout_ms: u64,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("agent_id", &self.agent_id)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl Server {
    pub fn from_config(config: &Config) -> Server {
        Server {
            base_url: config.base_url.trim_end_matches('/').to_string(),
            api_key: Some(config.api_key.clone()).filter(|k| !k.is_empty()),
            agent_id: config.agent_id.clone(),
            timeout_ms: config.timeout_ms,
        }
    }

    /// `base_url` + `path` (segments already encoded with [`segment`]) + the query pairs
    /// whose value is present, each encoded.
    pub fn url(&self, path: &str, query: &[(&str, Option<String>)]) -> String {
        let mut url = format!("{}{path}", self.base_url);
        let mut sep = '?';
        for (k, v) in query {
            if let Some(v) = v {
                url.push(sep);
                url.push_str(&segment(k));
                url.push('=');
                url.push_str(&segment(v));
                sep = '&';
            }
        }
        url
    }

    /// The headers of a call: the agent, the key when there is one and `with_key`.
    pub fn headers(&self, with_key: bool, has_body: bool) -> Vec<(String, String)> {
        let mut h = vec![("Accept".to_string(), "application/json".to_string()), ("X-OpenViking-Agent".to_string(), self.agent_id.clone())];
        if has_body {
            h.push(("Content-Type".to_string(), "application/json".to_string()));
        }
        if let (true, Some(k)) = (with_key, &self.api_key) {
            h.push(("X-API-Key".to_string(), k.clone()));
        }
        h
    }

    /// Text from elsewhere (server messages, the embedder's errors) without the key.
    pub fn redact(&self, text: &str) -> String {
        redact(text, self.api_key.as_deref())
    }
}


/// Replaces every occurrence of the key (and its percent-encoded form) with `[redacted]`.
/// Keys shorter than 4 characters are not searched for (they would mangle ordinary text).
pub fn redact(text: &str, api_key: Option<&str>) -> String {
    redact_all(text, api_key.as_slice())
}

/// [`redact`] for several secrets (the user key, the root key), longest first so a key that
/// contains another is removed whole.
pub fn redact_all(text: &str, secrets: &[&str]) -> String {
    redact_forms(text, &secret_forms(secrets))
}


