//! The recall pipeline: from two scopes of OpenViking search results to the memories the
//! model sees, with an explain record for every candidate.
//!
//! 0. (the engine's read path, before the pipeline) lexical candidates — OpenViking's grep
//!    for the query's words — placed among the user scope's vector candidates ([`lexical`]);
//! 1. merge user results, then agent results; unreadable items are cut as `malformed`;
//! 2. the first item per uri wins (`duplicate`); only `level === 2` items go on (`not_level_2`);
//! 3. score (clamped to 0..1) below `recallScoreThreshold` → `below_threshold`; an abstract
//!    without any query word (`recallRequireQueryWord`) → `no_query_word`; a score more than
//!    `recallScoreWindow` below the best left → `far_below_best`;
//! 4. stable sort by score; dedupe on category + normalised abstract — the overview where
//!    there is no abstract (events, cases and items with neither dedupe on uri) →
//!    `duplicate`; a near-duplicate of a higher-scored candidate (the same query words, and
//!    `recallNearDuplicateOverlap` of the smaller one's content words in the other) →
//!    `duplicate`; the pool stops at `RecallSettings::pool_size` (`recallLimit·8` within
//!    40–400; the legacy rules' `max(recallLimit·4, 20)`) → `over_limit`;
//! 5. query-aware rerank ([`rank`]); a second dedupe on the normalised abstract; take
//!    `recallLimit` → `over_limit`;
//! 6. content: the abstract first (if `recallPreferAbstract` and non-empty), else the full
//!    text the engine read, else the abstract or overview, else the uri; cut to `recallMaxContentChars`
//!    UTF-16 units on a character boundary, with "...";
//! 7. budget: entries are added in rank order while the whole synthetic pair (estimated on
//!    its real text) stays within `recallTokenBudget`; an entry that does not fit is cut
//!    (`over_budget`) and smaller ones after it may still fit. The budget is never exceeded — unlike the legacy plugin, not
//!    even by the first entry.
//!
//! [`pipeline`] holds the steps: [`select`] does 1–5 and says which full texts are needed ([`Selection::needs_content`]);
//! [`finish`] does 6–7. The explain records are optional ([`select_with`], [`recall_with`]):
//! without them the memories, the pair and the tokens are the same, and only the work that
//! decides them is done. [`recall`] runs the whole pipeline and reports the full texts it
//! lacked (`needs_content`); the engine's read path (`engine::read`) reads them through the
//! host and runs it once more with them.

pub mod auto;

pub mod candidate;
pub mod combined_find;
pub mod cover;
pub mod experience;
pub mod explain;
pub mod intent;
pub mod lexical;
pub mod query;
pub mod rank;
pub mod request;
pub mod skills;
pub mod query_words;
pub mod wire;
pub mod finish;
pub mod pipeline;

pub use finish::*;
pub use pipeline::*;
