//! The one admin call the plugin makes (`openclaw openviking setup`, local mode): a user key
//! made with the server's root key. `POST /api/v1/admin/accounts {account_id, admin_user_id}`
//! creates the account with its first user and answers `result.user_key`; an account that
//! exists already (`CONFLICT`) gets its user's key made anew (`POST /api/v1/admin/accounts/
//! {account}/users/{user}/key` — the old key stops working, which `setup` says). The root key
//! goes into a header only and is redacted from every message, as the user key is.

use super::answer::{read_answer, Refusal};
use super::server::Server;
use crate::text::percent::segment;
use super::transport::{HttpRequest, Method, Transport};
use crate::host::HostErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// `adminUserKey({rootKey, accountId, userId})` (no `Debug`: it holds the root key).
#[derive(Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminKeyCall {
    pub root_key: String,
    pub account_id: String,
    pub user_id: String,
}

impl crate::decode::Request for AdminKeyCall {
    fn check(&self) -> crate::error::Result<()> {
        for (field, v) in [("rootKey", &self.root_key), ("accountId", &self.account_id), ("userId", &self.user_id)] {
            if v.trim().is_empty() {
                return Err(crate::error::EngineError::input(field, "must not be empty"));
            }
        }
        for (field, v) in [("accountId", &self.account_id), ("userId", &self.user_id)] {
            if !crate::address::scopes::is_plain_segment(v) {
                return Err(crate::error::EngineError::input(field, "must be letters, digits, `-` or `_`"));
            }
        }
        Ok(())
    }
}

/// A user key and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct UserKey {
    pub account_id: String,
    pub user_id: String,
    pub user_key: String,
    /// The account existed: the user's key was made anew (an older key no longer works).
    pub regenerated: bool,
}

fn refusal(server: &Server, message: String) -> Refusal {
    Refusal { kind: HostErrorKind::BadResponse, status: 200, server_code: None, message: server.redact(&message), detail: None }
}

async fn post<T: Transport>(transport: &T, server: &Server, path: &str, endpoint: &str, body: Value) -> Result<Value, Refusal> {
    let request = HttpRequest { method: Method::Post, url: server.url(path, &[]), headers: server.headers(true, true), body: Some(body.to_string()), timeout_ms: server.timeout_ms };
    read_answer(server, endpoint, transport.send(request).await, server.timeout_ms, true)
}

/// The user key of `user_id` in `account_id`, made with `root_key` on the server `base`
/// (its URL, agent and timeout; its own key is not used).
pub async fn user_key<T: Transport>(transport: &T, base: &Server, root_key: &str, account_id: &str, user_id: &str) -> Result<UserKey, Refusal> {
    let server = Server { api_key: Some(root_key.to_string()), ..base.clone() };
    let key_of = |v: &Value, endpoint: &str| {
        v.get("user_key").and_then(Value::as_str).filter(|k| !k.is_empty()).map(str::to_string).ok_or_else(|| {
            refusal(&server, format!("{endpoint} answered without a user key (a server in trusted auth mode hands out no keys: use its gateway's credentials)"))
        })
    };
    let create = "POST /api/v1/admin/accounts";
    match post(transport, &server, "/api/v1/admin/accounts", create, json!({"account_id": account_id, "admin_user_id": user_id})).await {
        Ok(v) => Ok(UserKey { account_id: account_id.into(), user_id: user_id.into(), user_key: key_of(&v, create)?, regenerated: false }),
        Err(r) if r.kind == HostErrorKind::Conflict => {
            let path = format!("/api/v1/admin/accounts/{}/users/{}/key", segment(account_id), segment(user_id));
            let again = "POST /api/v1/admin/accounts/{account}/users/{user}/key";
            let v = post(transport, &server, &path, again, json!({})).await?;
            Ok(UserKey { account_id: account_id.into(), user_id: user_id.into(), user_key: key_of(&v, again)?, regenerated: true })
        }
        Err(r) => Err(r),
    }
}
