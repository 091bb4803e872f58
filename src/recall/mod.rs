//! The recall pipeline: from two scopes of OpenViking search results to the memories the
//! model sees, with an explain record for every candidate.
//!
//! 1. merge user results, then agent results; unreadable items are cut as `malformed`;
//! 2. the first item per uri wins (`duplicate`); only `level === 2` items go on (`not_level_2`);
//! 3. score (clamped to 0..1) below `recallScoreThreshold` → `below_threshold`;
//! 4. stable sort by score; dedupe on category + normalised abstract — the overview where
//!    there is no abstract (events, cases and items with neither dedupe on uri) →
//!    `duplicate`; the pool stops at
//!    `max(recallLimit·4, 20)` → `over_limit`;
//! 5. query-aware rerank ([`rank`]); a second dedupe on the normalised abstract; take
//!    `recallLimit` → `over_limit`;
//! 6. content: the abstract first (if `recallPreferAbstract` and non-empty), else the full
//!    text the engine read, else the abstract or overview, else the uri; cut to `recallMaxContentChars`
//!    UTF-16 units on a character boundary, with "...";
//! 7. budget: entries are added in rank order while the whole synthetic pair stays within
//!    `recallTokenBudget`; an entry that does not fit is cut (`over_budget`) and smaller ones
//!    after it may still fit. The budget is never exceeded — unlike the legacy plugin, not
//!    even by the first entry.
//!
//! [`select`] does steps 1–5 and says which full texts are needed ([`Selection::needs_content`]);
//! [`finish`] does 6–7. [`recall`] runs the whole pipeline and reports the full texts it
//! lacked (`needs_content`); the engine's read path (`engine::read`) reads them through the
//! host and runs it once more with them.

pub mod candidate;
pub mod explain;
pub mod query;
pub mod rank;

use crate::config::Config;
use crate::messages::estimate_message_tokens;
use crate::messages::synthetic::{recall_pair, RecalledMemory};
use crate::text::{collapse_whitespace, truncate_with_ellipsis};
use crate::tokens::estimate_tokens;
use candidate::{Scope, SearchItem};
use explain::{CutReason, Decision, ExplainRecord};
use rank::{profile_query, rank, QueryProfile, RankParts};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The recall settings of a [`Config`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecallSettings {
    pub limit: usize,
    pub score_threshold: f64,
    pub max_content_chars: usize,
    pub prefer_abstract: bool,
    pub token_budget: usize,
}

impl From<&Config> for RecallSettings {
    fn from(c: &Config) -> Self {
        RecallSettings {
            limit: c.recall_limit,
            score_threshold: c.recall_score_threshold,
            max_content_chars: c.recall_max_content_chars,
            prefer_abstract: c.recall_prefer_abstract,
            token_budget: c.recall_token_budget,
        }
    }
}

impl RecallSettings {
    /// How many candidates survive to the rerank.
    pub fn pool_size(&self) -> usize {
        (self.limit * 4).max(20)
    }
}

struct Candidate {
    item: SearchItem,
    scope: Scope,
    rank: RankParts,
}

/// Steps 1–5: which candidates go on, in rank order.
pub struct Selection {
    query: String,
    candidates: Vec<Candidate>,
    records: Vec<ExplainRecord>,
    /// Indices into `candidates`, best first.
    picked: Vec<usize>,
    profile: QueryProfile,
}

fn record(c: &Candidate, index: usize) -> ExplainRecord {
    ExplainRecord {
        uri: c.item.uri.clone(),
        scope: c.scope,
        input_index: index,
        level: c.item.level,
        category: c.item.category.clone(),
        rank: c.rank,
        decision: Decision::Kept,
        reason: None,
        duplicate_of: None,
        detail: c.item.malformed.clone(),
        position: None,
        tokens: None,
    }
}

fn normalised_abstract(s: &str) -> String {
    collapse_whitespace(s).to_lowercase()
}

/// First-stage dedupe key (legacy): category + abstract, except events/cases items and items
/// without an abstract, which are keyed by uri.
fn first_dedupe_key(item: &SearchItem) -> String {
    let category = item.category.as_deref().unwrap_or("unknown").to_lowercase();
    if item.summary().is_empty() || category == "events" || category == "cases" {
        format!("uri:{}", item.uri)
    } else {
        format!("abstract:{category}:{}", normalised_abstract(item.summary()))
    }
}

fn second_dedupe_key(item: &SearchItem) -> String {
    if item.summary().is_empty() {
        format!("uri:{}", item.uri)
    } else {
        normalised_abstract(item.summary())
    }
}

/// Steps 1–5 of the pipeline.
pub fn select(query: &str, user: Vec<SearchItem>, agent: Vec<SearchItem>, s: &RecallSettings) -> Selection {
    let profile = profile_query(query);
    let candidates: Vec<Candidate> = user
        .into_iter()
        .map(|i| (i, Scope::User))
        .chain(agent.into_iter().map(|i| (i, Scope::Agent)))
        .map(|(item, scope)| {
            let rank = rank(&item, &profile);
            Candidate { item, scope, rank }
        })
        .collect();
    let mut records: Vec<ExplainRecord> = candidates.iter().enumerate().map(|(i, c)| record(c, i)).collect();
    let cut = |r: &mut ExplainRecord, reason: CutReason, of: Option<&str>| {
        r.decision = Decision::Cut;
        r.reason = Some(reason);
        r.duplicate_of = of.map(str::to_string);
    };

    // 1–3: malformed, duplicate uri, level, threshold
    let mut first_by_uri: HashMap<&str, usize> = HashMap::with_capacity(candidates.len());
    let mut pool: Vec<usize> = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        if c.item.malformed.is_some() {
            cut(&mut records[i], CutReason::Malformed, None);
        } else if let Some(&first) = first_by_uri.get(c.item.uri.as_str()) {
            cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
        } else {
            first_by_uri.insert(&c.item.uri, i);
            if c.item.level != Some(2) {
                cut(&mut records[i], CutReason::NotLevel2, None);
            } else if c.item.score < s.score_threshold {
                cut(&mut records[i], CutReason::BelowThreshold, None);
            } else {
                pool.push(i);
            }
        }
    }

    // 4: sort by score, first dedupe, pool limit
    pool.sort_by(|&a, &b| candidates[b].item.score.total_cmp(&candidates[a].item.score).then(a.cmp(&b)));
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(pool.len());
    let mut ranked: Vec<usize> = Vec::with_capacity(pool.len());
    for i in pool {
        let key = first_dedupe_key(&candidates[i].item);
        if let Some(&first) = seen.get(&key) {
            cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
        } else if ranked.len() >= s.pool_size() {
            cut(&mut records[i], CutReason::OverLimit, None);
        } else {
            seen.insert(key, i);
            ranked.push(i);
        }
    }

    // 5: rerank, second dedupe, limit
    ranked.sort_by(|&a, &b| {
        candidates[b]
            .rank
            .total
            .total_cmp(&candidates[a].rank.total)
            .then(candidates[b].item.score.total_cmp(&candidates[a].item.score))
            .then(a.cmp(&b))
    });
    let mut seen2: HashMap<String, usize> = HashMap::with_capacity(ranked.len());
    let mut picked = Vec::with_capacity(s.limit);
    for i in ranked {
        let key = second_dedupe_key(&candidates[i].item);
        if let Some(&first) = seen2.get(&key) {
            cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
        } else if picked.len() >= s.limit {
            cut(&mut records[i], CutReason::OverLimit, None);
        } else {
            seen2.insert(key, i);
            picked.push(i);
        }
    }
    Selection { query: query.to_string(), candidates, records, picked, profile }
}

impl Selection {
    /// URIs whose full text the host should read (`GET content/read`) before [`finish`]:
    /// picked items whose abstract will not be used.
    pub fn needs_content(&self, s: &RecallSettings) -> Vec<String> {
        self.picked
            .iter()
            .map(|&i| &self.candidates[i].item)
            .filter(|it| !(s.prefer_abstract && !it.abstract_text.is_empty()))
            .map(|it| it.uri.clone())
            .collect()
    }
}

crate::ts_type! {
/// What recall produced for one turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallOutcome {
    pub query: String,
    pub query_profile: QueryProfile,
    /// The injected memories, best first.
    pub memories: Vec<RecalledMemory>,
    /// The synthetic `memory_recall_auto` call + result (empty when nothing is injected).
    pub messages: Vec<Value> => "AgentMessage[]",
    /// Estimated tokens of `messages`; never above `budget`.
    pub tokens: usize,
    pub budget: usize,
    /// One record per candidate: kept ones first in injection order, then cut ones by rank.
    pub explain: Vec<ExplainRecord>,
    /// Picked memories whose full text is needed and was not given (their abstract is not
    /// used): the engine reads them and runs the pipeline again with them.
    #[serde(skip)]
    pub needs_content: Vec<String>,
}
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

fn pair_tokens(pair: &[Value; 2]) -> usize {
    pair.iter().map(estimate_message_tokens).sum()
}

/// Steps 6–7: content, truncation, budget, the synthetic pair.
pub fn finish(sel: Selection, contents: &BTreeMap<String, String>, s: &RecallSettings, now_ms: u64) -> RecallOutcome {
    let Selection { query, candidates, mut records, picked, profile } = sel;
    let mut kept: Vec<(usize, RecalledMemory)> = Vec::with_capacity(picked.len());
    let base = pair_tokens(&recall_pair(&query, &[], now_ms));
    let mut used = base;
    for &i in &picked {
        let item = &candidates[i].item;
        let memory = RecalledMemory {
            uri: item.uri.clone(),
            category: item.category.clone().unwrap_or_else(|| "memory".into()),
            content: content_for(item, s, contents),
            score: round2(item.score),
        };
        // +1 for the separating comma
        let cost = estimate_tokens(&serde_json::to_string(&memory).unwrap_or_default()) + 1;
        records[i].tokens = Some(cost);
        if used + cost <= s.token_budget {
            used += cost;
            kept.push((i, memory));
        } else {
            records[i].decision = Decision::Cut;
            records[i].reason = Some(CutReason::OverBudget);
        }
    }
    // The per-entry sum is an estimate of the whole; check the real pair and drop from the
    // end until it fits, so the budget holds whatever the estimator does at the seams.
    let mut pair = None;
    while !kept.is_empty() {
        let memories: Vec<RecalledMemory> = kept.iter().map(|(_, m)| m.clone()).collect();
        let p = recall_pair(&query, &memories, now_ms);
        if pair_tokens(&p) <= s.token_budget {
            pair = Some(p);
            break;
        }
        if let Some((i, _)) = kept.pop() {
            records[i].decision = Decision::Cut;
            records[i].reason = Some(CutReason::OverBudget);
        }
    }
    for (pos, (i, _)) in kept.iter().enumerate() {
        records[*i].position = Some(pos + 1);
    }
    let tokens = pair.as_ref().map_or(0, pair_tokens);
    records.sort_by(|a, b| match (a.position, b.position) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.rank.total.total_cmp(&a.rank.total).then(a.input_index.cmp(&b.input_index)),
    });
    RecallOutcome {
        query,
        query_profile: profile,
        memories: kept.into_iter().map(|(_, m)| m).collect(),
        messages: pair.map(Vec::from).unwrap_or_default(),
        tokens,
        budget: s.token_budget,
        explain: records,
        needs_content: Vec::new(),
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
    let sel = select(query, user, agent, s);
    let needs: Vec<String> = sel.needs_content(s).into_iter().filter(|u| !contents.contains_key(u)).collect();
    let mut out = finish(sel, contents, s, now_ms);
    out.needs_content = needs;
    out
}
