//! Automatic recall for one turn, from the host's inputs to the messages the model sees:
//! the query from the prompt and the recent user turns, the pipeline over both scopes' search
//! results, and the synthetic pair injected idempotently before the current user turn.

use crate::config::Config;
use crate::error::Result;
use crate::message::synthetic::inject_recall;
use crate::recall::query::{build_query, RecallQuery};
pub use crate::recall::request::RecallRequest;
use crate::recall::wire::{take_scope, Scopes};
use crate::recall::{recall_with, RecallOutcome, RecallSettings};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AutoRecall {
    /// How the query was built (turns used and skipped).
    pub query: RecallQuery,
    /// `None` when there was nothing to search for (every turn skipped) or recall is off.
    pub recall: Option<RecallOutcome>,
    /// The host's messages with earlier synthetic pairs removed and the new pair inserted.
    #[cfg_attr(feature = "typescript", ts(type = "AgentMessage[]"))]
    pub messages: Vec<Value>,
}

/// `Engine.recall`'s answer: [`AutoRecall`] without the message list (the pair is
/// `recall.messages`; the host places it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecallAnswer {
    pub query: RecallQuery,
    pub recall: Option<RecallOutcome>,
}

/// The query and the outcome of a turn's recall, nothing echoed (`Engine.recall`).
pub fn recall_answer(config: &Config, req: RecallRequest, explain: bool) -> Result<RecallAnswer> {
    recall_answer_read(config, req, None, explain)
}

/// [`recall_answer`] of a request read from its text (`recall::wire`): `scopes` are its
/// search results when they were read on the way (the request's own `search` is then empty).
pub fn recall_answer_read(config: &Config, mut req: RecallRequest, scopes: Option<Scopes>, explain: bool) -> Result<RecallAnswer> {
    let (query, recall) = recall_turn_read(config, &mut req, scopes, explain)?;
    Ok(RecallAnswer { query, recall })
}

/// Runs automatic recall for a turn. With `autoRecall: false` earlier pairs are still removed
/// and nothing is injected.
pub fn auto_recall(config: &Config, req: RecallRequest) -> Result<AutoRecall> {
    auto_recall_with(config, req, true)
}

/// [`auto_recall`], with the explain records only if `explain` (the memories, the pair and
/// the messages are the same either way).
pub fn auto_recall_with(config: &Config, req: RecallRequest, explain: bool) -> Result<AutoRecall> {
    auto_recall_read(config, req, None, explain)
}

/// [`auto_recall_with`] of a request read from its text (see [`recall_answer_read`]).
pub fn auto_recall_read(config: &Config, req: RecallRequest, scopes: Option<Scopes>, explain: bool) -> Result<AutoRecall> {
    let RecallRequest { prompt, messages, query: explicit_query, user, agent, contents, now_ms, profile, experiences: _ } = req;
    let (query, outcome) = recall_parts(config, prompt.as_deref(), &messages, explicit_query, scopes, user, agent, &contents, now_ms, profile, explain)?;
    let pair = outcome.as_ref().and_then(|o| <[Value; 2]>::try_from(o.messages.clone()).ok());
    let messages = inject_recall(messages, pair, prompt.is_some());
    Ok(AutoRecall { query, recall: outcome, messages })
}

/// [`auto_recall_with`] without the message list: the query and the outcome only, the
/// request's messages only read (for a caller that composes the messages itself).
pub fn recall_turn(config: &Config, req: &mut RecallRequest, explain: bool) -> Result<(RecallQuery, Option<RecallOutcome>)> {
    recall_turn_read(config, req, None, explain)
}

/// [`recall_turn`] with the search results already read (`scopes`, see [`recall_answer_read`]).
fn recall_turn_read(config: &Config, req: &mut RecallRequest, scopes: Option<Scopes>, explain: bool) -> Result<(RecallQuery, Option<RecallOutcome>)> {
    let (user, agent) = (std::mem::take(&mut req.user), std::mem::take(&mut req.agent));
    let profile = req.profile.take();
    recall_parts(config, req.prompt.as_deref(), &req.messages, req.query.clone(), scopes, user, agent, &req.contents, req.now_ms, profile, explain)
}

#[allow(clippy::too_many_arguments)]
fn recall_parts(
    config: &Config,
    prompt: Option<&str>,
    messages: &[Value],
    explicit_query: Option<String>,
    scopes: Option<Scopes>,
    user: Value,
    agent: Value,
    contents: &BTreeMap<String, String>,
    now_ms: u64,
    profile: Option<(String, String)>,
    explain: bool,
) -> Result<(RecallQuery, Option<RecallOutcome>)> {
    let (mut user, agent) = match scopes {
        Some(Scopes { user, agent }) => (user, agent),
        None => (take_scope("search.user", user)?, take_scope("search.agent", agent)?),
    };
    // The stable profile leads the user results: always a candidate, first for its uri.
    if let Some((uri, text)) = &profile {
        user.insert(
            0,
            crate::recall::candidate::SearchItem {
                uri: uri.clone(),
                level: Some(2),
                score: 1.0,
                abstract_text: text.clone(),
                overview: String::new(),
                category: Some("profile".into()),
                malformed: None,
                written_ms: None,
            },
        );
    }
    let mut query = build_query(prompt, messages, config.assemble_recall_window);
    if let Some(q) = explicit_query.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        query.query = Some(crate::text::prefix_utf16(q, crate::recall::query::QUERY_MAX_UNITS).to_string());
    }
    let settings = RecallSettings::from(config);
    let outcome = match (&query.query, config.auto_recall || explicit_query.is_some()) {
        (Some(q), true) => Some(recall_with(q, user, agent, contents, &settings, now_ms, explain)),
        _ => None,
    };
    Ok((query, outcome))
}
