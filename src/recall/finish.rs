//! Steps 6–7 of the recall pipeline: each picked memory's content (abstract or full text,
//! cut), the token budget over the whole synthetic pair, and the outcome with its explain
//! records; [`recall`] and [`recall_with`] run the pipeline end to end.

use crate::message::synthetic::{recall_call, recall_call_tokens, recall_line, recall_result, recall_result_tokens, recall_text, synthetic_id, RecalledMemory};
use crate::text::truncate_with_ellipsis;
use super::experience;
use super::pipeline::{select_with, Selection, RecallSettings};
use super::candidate::SearchItem;
use super::explain::{CutReason, Decision, ExplainRecord};
use super::rank::QueryProfile;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;


/// What recall produced for one turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecallOutcome {
    pub query: String,
    pub query_profile: QueryProfile,
    /// The injected memories, best first.
    pub memories: Vec<RecalledMemory>,
    /// The synthetic `memory_recall_auto` call + result (empty when nothing is injected).
    #[cfg_attr(feature = "typescript", ts(type = "AgentMessage[]"))]
    pub messages: Vec<Value>,
    /// Estimated tokens of `messages`; never above `budget`.
    pub tokens: usize,
    pub budget: usize,
    /// One record per candidate: kept ones first in injection order, then cut ones by rank.
    pub explain: Vec<ExplainRecord>,
    /// Picked memories whose full text is needed and was not given (their abstract is not
    /// used): the engine reads them and runs the pipeline again with them.
    #[serde(skip)]
    pub needs_content: Vec<String>,
    /// This agent's experiences considered for the turn (`recall::experience`): kept ones with
    /// their position and tokens, cut ones and why; empty when none was searched.
    #[cfg_attr(feature = "typescript", ts(type = "ExperienceRecord[]"))]
    pub experiences: Vec<experience::ExperienceRecord>,
    /// Tokens the injected experiences' lines added to the pair (part of `tokens`).
    pub experience_tokens: usize,
    /// The injected experiences' lines as they stand in the result after the memories (the
    /// skills section, added last, keeps them).
    #[serde(skip)]
    pub experience_lines: Vec<String>,
}

fn content_for(item: &SearchItem, s: &RecallSettings, contents: &BTreeMap<String, String>) -> String {
    let full = contents.get(&item.uri).map(|t| t.trim()).filter(|t| !t.is_empty());
    let text = if s.prefer_abstract && !item.abstract_text.is_empty() {
        item.abstract_text.as_str()
    } else if let Some(t) = full {
        t
    } else if !item.summary().is_empty() {
        item.summary()
    } else {
        item.uri.as_str()
    };
    truncate_with_ellipsis(text, s.max_content_chars)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Steps 6–7: content, truncation, budget, the synthetic pair.
pub fn finish(sel: Selection, contents: &BTreeMap<String, String>, s: &RecallSettings, now_ms: u64) -> RecallOutcome {
    let Selection { query, mut candidates, mut fates, picked, profile } = sel;
    // fates exist only when explaining (and then one per candidate)
    let explain = !fates.is_empty();
    // the injected memories and their candidates' indices
    let mut memories: Vec<RecalledMemory> = Vec::with_capacity(picked.len());
    let mut kept: Vec<usize> = Vec::with_capacity(picked.len());
    // The call's estimate does not depend on the memories (its id is not counted), so it is
    // taken once. Each memory is tried on the real result text — the lines so far and its
    // own — so the budget is exact and never exceeded; one that does not fit is cut and
    // smaller ones after it may still fit. Its `tokens` are what it added.
    let call_tokens = recall_call_tokens();
    let result_tokens = recall_result_tokens;
    let mut used = call_tokens + result_tokens("");
    let mut doc = String::new();
    for &i in &picked {
        let item = &candidates[i].item;
        let memory = RecalledMemory {
            uri: item.uri.clone(),
            category: item.category.clone().unwrap_or_else(|| "memory".into()),
            content: content_for(item, s, contents),
            score: round2(item.score),
        };
        let before = doc.len();
        if !doc.is_empty() {
            doc.push('\n');
        }
        doc.push_str(&recall_line(&memory));
        let t = call_tokens + result_tokens(&doc);
        if let Some(fate) = fates.get_mut(i) {
            fate.tokens = Some(t.saturating_sub(used));
        }
        if t <= s.token_budget {
            used = t;
            kept.push(i);
            memories.push(memory);
        } else {
            doc.truncate(before);
            if let Some(fate) = fates.get_mut(i) {
                fate.reason = Some(CutReason::OverBudget);
            }
        }
    }
    let (pair, tokens) = if memories.is_empty() {
        (None, 0)
    } else {
        debug_assert_eq!(doc, recall_text(&memories));
        let id = synthetic_id(&query, &memories);
        (Some([recall_call(&query, &id, now_ms), recall_result(&id, &doc, now_ms)]), used)
    };
    let mut records = Vec::new();
    if explain {
        for (pos, i) in kept.iter().enumerate() {
            fates[*i].position = Some(pos + 1);
        }
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        crate::order::sort_indices(&mut order, &|a, b| match (fates[a].position, fates[b].position) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => candidates[b].rank.total.total_cmp(&candidates[a].rank.total).then(a.cmp(&b)),
        });
        let duplicate_of: Vec<Option<String>> =
            fates.iter().map(|f| f.duplicate_of.map(|j| candidates[j].item.uri.clone())).collect();
        records.reserve_exact(candidates.len());
        for i in order {
            let c = &mut candidates[i];
            let f = fates[i];
            records.push(ExplainRecord {
                uri: std::mem::take(&mut c.item.uri),
                scope: c.scope,
                input_index: i,
                level: c.item.level,
                category: c.item.category.take(),
                rank: c.rank,
                decision: if f.reason.is_some() { Decision::Cut } else { Decision::Kept },
                reason: f.reason,
                duplicate_of: duplicate_of[i].clone(),
                detail: c.item.malformed.take(),
                position: f.position,
                tokens: f.tokens,
            });
        }
    }
    RecallOutcome {
        query,
        query_profile: profile,
        memories,
        messages: pair.map(Vec::from).unwrap_or_default(),
        tokens,
        budget: s.token_budget,
        explain: records,
        needs_content: Vec::new(),
        experiences: Vec::new(),
        experience_tokens: 0,
        experience_lines: Vec::new(),
    }
}

/// The whole pipeline for one query.
pub fn recall(
    query: &str,
    user: Vec<SearchItem>,
    agent: Vec<SearchItem>,
    contents: &BTreeMap<String, String>,
    s: &RecallSettings,
    now_ms: u64,
) -> RecallOutcome {
    recall_with(query, user, agent, contents, s, now_ms, true)
}

/// [`recall`], with explain records only if `explain`.
pub fn recall_with(
    query: &str,
    user: Vec<SearchItem>,
    agent: Vec<SearchItem>,
    contents: &BTreeMap<String, String>,
    s: &RecallSettings,
    now_ms: u64,
    explain: bool,
) -> RecallOutcome {
    let sel = select_with(query, user, agent, s, explain);
    let needs: Vec<String> = sel.needs_content(s).into_iter().filter(|u| !contents.contains_key(u)).collect();
    let mut out = finish(sel, contents, s, now_ms);
    out.needs_content = needs;
    out
}

