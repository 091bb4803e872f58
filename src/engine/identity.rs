//! Who the API key is: the OpenViking user id, needed for user-scope URIs (the profile,
//! checkpoints, the user's memories). Asked of the server once it is needed and kept for
//! [`IDENTITY_TTL_MS`] in the state dir, so a one-process-per-turn host does not spend a
//! round trip on it before every search. The state key is a digest of (server, key, agent):
//! a new key or server asks again, and no file holds the key.

use super::Engine;
use crate::host::{Host, HostError};
use serde_json::{json, Value};

/// How long a kept user id is used without asking the server.
pub const IDENTITY_TTL_MS: u64 = 60 * 60 * 1000;

/// `identity/<first 32 hex digits of sha256(baseUrl \0 apiKey \0 agentId)>`.
pub fn identity_key(base_url: &str, api_key: &str, agent_id: &str) -> String {
    let digest = crate::text::sha256::sha256_hex(format!("{base_url}\0{api_key}\0{agent_id}").as_bytes());
    format!("identity/{}", &digest[..32])
}

/// A kept `{userId, at}` still usable at `now_ms` (not from the future, not expired).
fn kept_user(v: &Value, now_ms: u64) -> Option<String> {
    let id = v.get("userId")?.as_str()?;
    let at = v.get("at")?.as_u64()?;
    (crate::address::scopes::is_plain_segment(id) && at <= now_ms && now_ms - at < IDENTITY_TTL_MS).then(|| id.to_string())
}

impl<H: Host> Engine<H> {
    fn identity_state_key(&self) -> String {
        identity_key(&self.config.base_url, &self.config.api_key, &self.config.agent_id)
    }

    /// The user id: known in this process, kept in the state dir, or asked of the server
    /// (`None` while unknown: the server is down or names no user).
    pub async fn resolve_user(&self) -> Option<String> {
        self.resolve_user_why().await.ok()
    }

    /// [`resolve_user`](Self::resolve_user), with the server's failure when it was asked and
    /// did not say (`Err(None)`: it answered, naming no usable user).
    pub(super) async fn resolve_user_why(&self) -> Result<String, Option<HostError>> {
        if let Some(u) = self.user_id() {
            return Ok(u);
        }
        let key = self.identity_state_key();
        let now = self.host.now_ms();
        if let Some(u) = self.host.load_state(&key).await.ok().flatten().and_then(|v| kept_user(&v, now)) {
            self.set_user_id(&u);
            return Ok(u);
        }
        match self.host.user_id().await {
            Ok(Some(u)) if crate::address::scopes::is_plain_segment(&u) => {
                self.set_user_id(&u);
                // a failed save only costs the next process a round trip
                let _ = self.host.save_cache(&key, json!({ "userId": u, "at": now })).await;
                Ok(u)
            }
            Ok(_) => Err(None),
            Err(e) => Err(Some(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn the_key_is_a_digest_of_server_key_and_agent() {
        let k = identity_key("http://127.0.0.1:1933", "secret-key", "main");
        assert!(k.starts_with("identity/") && k.len() == "identity/".len() + 32);
        assert!(!k.contains("secret"));
        // the same key the plugin's JS runtime used (node:crypto), so kept ids carry over
        assert_eq!(k, "identity/a78ee0d9c3c3f700226cd85c6b94390b");
        assert_ne!(k, identity_key("http://127.0.0.1:1933", "other-key", "main"));
        assert_ne!(k, identity_key("http://127.0.0.1:1933", "secret-key", "ops"));
        assert_ne!(k, identity_key("http://127.0.0.1:1934", "secret-key", "main"));
    }

    #[test]
    fn a_kept_id_expires_and_never_comes_from_the_future() {
        let v = json!({ "userId": "alice", "at": 1_000u64 });
        assert_eq!(kept_user(&v, 1_000).as_deref(), Some("alice"));
        assert_eq!(kept_user(&v, 1_000 + IDENTITY_TTL_MS - 1).as_deref(), Some("alice"));
        assert_eq!(kept_user(&v, 1_000 + IDENTITY_TTL_MS), None);
        assert_eq!(kept_user(&v, 999), None);
        assert_eq!(kept_user(&json!({ "userId": "../x", "at": 1_000u64 }), 1_000), None);
        assert_eq!(kept_user(&json!({ "userId": "alice" }), 1_000), None);
    }
}
