//! What in a plugin configuration may be a secret, and how it is kept out of every problem
//! (and so out of the log, the warnings and `doctor`): the value of a field whose name is
//! close to apiKey, key, token, secret or password — a misspelled `api_key` next to "did you
//! mean apiKey?" — or that is about auth, a cookie or headers (anything inside `headers`); the
//! user info of a URL (`http://user:KEY@host` reads `http://***@host`); and every string found
//! in those places or configured as the key, wherever else it appears (`[redacted]`).

use crate::text::redact::{redact_forms, secret_forms};
use serde_json::Value;

/// What a field that may hold a secret shows instead of its value.
pub const HIDDEN: &str = "***";

/// Parts of a name that say its value may be a secret (compared in lower case, letters and
/// digits only: `api_key`, `API-Key`, `x-auth-token`, `Headers`).
const SECRET_PARTS: &[&str] = &["key", "token", "secret", "passw", "pwd", "auth", "credential", "cookie", "bearer", "header"];

/// Names whose misspellings (two edits at most: `apikye`, `tokn`, `secert`, `pasword`) may
/// hold a secret too.
const SECRET_NAMES: &[&str] = &["apikey", "key", "token", "secret", "password"];

/// Whether the value of a field named `name` may be a secret.
pub fn may_hold_secret(name: &str) -> bool {
    let plain: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    SECRET_PARTS.iter().any(|part| plain.contains(part)) || SECRET_NAMES.iter().any(|n| within_two_edits(plain.as_bytes(), n.as_bytes()))
}

/// Whether `a` becomes `b` in two edits or fewer (insert, delete, substitute a byte); `b` is
/// one of [`SECRET_NAMES`] (8 bytes at most), so no allocation: a config may have many keys.
fn within_two_edits(a: &[u8], b: &[u8]) -> bool {
    if a.len().abs_diff(b.len()) > 2 || b.len() > 15 {
        return false;
    }
    let mut prev = [0usize; 16];
    let mut cur = [0usize; 16];
    for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *p = j;
    }
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] <= 2
}

/// `value` of the field `name` as a problem may show it: [`HIDDEN`] when the field may hold
/// a secret; else with every field inside it that may hold one hidden, at any depth, and the
/// user info of every URL in it redacted ([`redact_userinfo`]).
pub fn without_secret_fields(name: &str, value: &Value) -> Value {
    if may_hold_secret(name) {
        return Value::String(HIDDEN.into());
    }
    without_secrets_inside(value)
}

/// [`without_secret_fields`] for what is inside a field that is not itself secret.
pub fn without_secrets_inside(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(redact_userinfo(s)),
        Value::Array(items) => Value::Array(items.iter().map(without_secrets_inside).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), without_secret_fields(k, v))).collect()),
        other => other.clone(),
    }
}

/// Every string held by a field that may hold a secret, at any depth of `value` (a field
/// named `name`), and the password (or token) in the user info of every `scheme://` URL in
/// it: what no problem may show anywhere, even where another key repeats it.
pub fn secret_strings(name: &str, value: &Value, out: &mut Vec<String>) {
    if may_hold_secret(name) {
        strings_in(value, out);
    } else {
        secrets_inside(value, out);
    }
}

/// [`secret_strings`] for what is inside a field that is not itself secret (each name is
/// judged once: a long array is walked, not judged item by item).
fn secrets_inside(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if s.contains("://") => out.extend(userinfo_secret(s).map(str::to_string)),
        Value::Array(items) => items.iter().for_each(|v| secrets_inside(v, out)),
        Value::Object(m) => m.iter().for_each(|(k, v)| secret_strings(k, v, out)),
        _ => {}
    }
}

fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings_in(v, out)),
        Value::Object(m) => m.values().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// The end of a URL in text: the first whitespace, quote or angle bracket after it.
fn url_end(text: &str) -> usize {
    text.find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>')).unwrap_or(text.len())
}

/// Where the user info of a URL (`text` starting after its `scheme://`, or a URL written
/// without one) ends: at its last `@` — wherever that is, so a key holding `/` or `?` is
/// covered whole.
fn userinfo_len(after_scheme: &str) -> Option<usize> {
    after_scheme[..url_end(after_scheme)].rfind('@')
}

/// What in a server URL's user info (with or without a scheme) is secret: the password, or
/// the whole user info when it has no `:` (a token as the user name).
pub fn userinfo_secret(url: &str) -> Option<&str> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let info = &url[start..start + userinfo_len(&url[start..])?];
    Some(info.split_once(':').map_or(info, |(_, password)| password)).filter(|s| !s.is_empty())
}

/// `text` with the user info of every `scheme://user:password@host` in it replaced by
/// [`HIDDEN`].
pub fn redact_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        rest = match userinfo_len(tail) {
            Some(n) => {
                out.push_str(HIDDEN);
                &tail[n..]
            }
            None => tail,
        };
    }
    out.push_str(rest);
    out
}

/// A server URL without its user info (with or without a scheme: `u:KEY@host` too), and
/// whether it had any.
pub fn without_userinfo(url: &str) -> (String, bool) {
    let start = url.find("://").map_or(0, |i| i + 3);
    match userinfo_len(&url[start..]) {
        Some(n) => (format!("{}{}", &url[..start], &url[start + n + 1..]), true),
        None => (url.to_string(), false),
    }
}

/// A server URL as a problem shows it: its user info, if any, as [`HIDDEN`] (with or without
/// a scheme).
pub fn shown_url(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    match userinfo_len(&url[start..]) {
        Some(n) => format!("{}{HIDDEN}{}", &url[..start], &url[start + n..]),
        None => url.to_string(),
    }
}

/// Takes secrets out of text and JSON values: the given strings (and their percent-encoded
/// forms) as `[redacted]`, and the user info of every URL ([`redact_userinfo`]).
pub struct Scrubber {
    forms: Vec<String>,
}

impl Scrubber {
    /// Looks for `secrets` (those under 4 characters are not searched for).
    pub fn new(secrets: &[&str]) -> Scrubber {
        Scrubber { forms: secret_forms(secrets) }
    }

    pub fn text(&self, text: &str) -> String {
        let out = redact_forms(text, &self.forms);
        if out.contains("://") { redact_userinfo(&out) } else { out }
    }

    /// [`text`](Self::text) for every string of a JSON value, keys included.
    pub fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (self.text(k), self.value(v))).collect()),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn names_close_to_a_key_or_about_auth_may_hold_secrets_and_plain_ones_do_not() {
        for name in ["apiKey", "api_key", "apikey", "APIKey", "api-key", "apikye", "key", "Key", "token", "tokn", "accessToken", "secret", "secert", "password", "pasword", "passwd", "pwd", "headers", "Authorization", "auth", "cookie", "credentials", "apiKeys"] {
            assert!(may_hold_secret(name), "{name}");
        }
        for name in ["recalLimit", "mode", "baseurl", "agent", "timeout", "stateDirectory", "targetUri"] {
            assert!(!may_hold_secret(name), "{name}");
        }
    }

    #[test]
    fn a_urls_user_info_is_hidden_whatever_it_holds() {
        assert_eq!(redact_userinfo("at http://u:sk-1@h:1933/x, then"), "at http://***@h:1933/x, then");
        assert_eq!(redact_userinfo("\"https://tok@h\" and ftp://h/p"), "\"https://***@h\" and ftp://h/p");
        assert_eq!(redact_userinfo("http://u:uk+Key/42==@h"), "http://***@h", "a key with / in it");
        assert_eq!(redact_userinfo("no url here"), "no url here");
        assert_eq!(without_userinfo("http://u:k@h:1/p"), ("http://h:1/p".into(), true));
        assert_eq!(without_userinfo("u:k@h:1"), ("h:1".into(), true));
        assert_eq!(without_userinfo("http://h"), ("http://h".into(), false));
        assert_eq!(shown_url("u:k@h:1"), "***@h:1");
        assert_eq!(userinfo_secret("http://u:pw-123@h"), Some("pw-123"));
        assert_eq!(userinfo_secret("http://tok-123@h"), Some("tok-123"));
    }

    #[test]
    fn secret_fields_are_hidden_at_any_depth_and_their_strings_collected() {
        let v = json!({"headers": {"X-API-Key": "sk-1234"}, "url": "http://u:pw-5678@h", "n": 3, "inner": {"token": ["t-9999"]}});
        assert_eq!(without_secret_fields("openviking", &v), json!({"headers": "***", "url": "http://***@h", "n": 3, "inner": {"token": "***"}}));
        assert_eq!(without_secret_fields("api_key", &json!("sk-1234")), json!("***"));
        let mut found = Vec::new();
        secret_strings("openviking", &v, &mut found);
        found.sort();
        assert_eq!(found, ["pw-5678", "sk-1234", "t-9999"]);
    }
}
