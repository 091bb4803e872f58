//! Explain records: for every candidate, whether it was injected, and if not, why.

use crate::recall::candidate::Scope;
use crate::recall::rank::RankParts;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum CutReason {
    /// The item could not be read (no uri, not an object).
    Malformed,
    /// A directory abstract/overview (level 0/1), not a memory's detail.
    #[serde(rename = "not_level_2")]
    NotLevel2,
    /// Score below `recallScoreThreshold`.
    BelowThreshold,
    /// A case, trajectory or experience OpenViking's agent evolution keeps in the user's
    /// space (shared by the user's agents): never a memory line; this agent's experiences
    /// reach the pair through `recall::experience`.
    AgentEvolution,
    /// Its abstract shares no word with the query (`recallRequireQueryWord`).
    NoQueryWord,
    /// Score more than `recallScoreWindow` below the best candidate's.
    FarBelowBest,
    /// Same uri, or the same abstract, as a candidate ranked before it, or a near-duplicate
    /// of a higher-scored one (`recallNearDuplicateOverlap`) (`duplicateOf`).
    Duplicate,
    /// An older version of a fact a newer memory restates, when the query asks for the
    /// present (`duplicateOf` names the newer one; `recall::cover`).
    Superseded,
    /// Beyond `recallLimit` (or the pre-rank candidate pool).
    OverLimit,
    /// Did not fit in `recallTokenBudget`.
    OverBudget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Decision {
    Kept,
    Cut,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExplainRecord {
    pub uri: String,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub scope: Scope,
    /// Position in the merged input (user results first, then agent results).
    pub input_index: usize,
    pub level: Option<i64>,
    pub category: Option<String>,
    pub rank: RankParts,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub decision: Decision,
    pub reason: Option<CutReason>,
    /// For duplicates: the uri of the candidate this one duplicates.
    pub duplicate_of: Option<String>,
    /// For malformed items: what was wrong.
    pub detail: Option<String>,
    /// 1-based position among the injected memories.
    pub position: Option<usize>,
    /// Estimated tokens of this memory's entry in the injected document (when it got that far).
    pub tokens: Option<usize>,
}
