//! The agent's memory tools as the model sees them — names, descriptions, JSON schemas — and
//! the checked inputs of each. Running them is the engine's (`engine::run_tool`).
//!
//! | tool | input | answer |
//! |---|---|---|
//! | `memory_recall` | `{query, limit?: 1–20, scoreThreshold?: 0–1}` | `{memories, source}` |
//! | `memory_recall_auto` | `{query?}` (the engine's synthetic call, with `{}`; registered so hosts keep it) | as `memory_recall` |
//! | `memory_store` | `{text ≤ 4000 chars, category?}` | `{stored, status, uri, content}` (`status: "queued"` + `note` during an outage) |
//! | `memory_forget` | `{uri? \| query?, limit?: 1–20, scoreThreshold?, targetUri?}` | `{deleted, …}` (or `status: "queued"`) |
//! | `memory_expand` | `{summaryOrMemoryUri, query?, limit?}` | archive, excerpts, readable uris |
//! | `memory_read_output` | `{reference, fromLine?, toLine?, query? \| pattern?, caseSensitive?, maxTokens?}` | the exact lines |
//! | `memory_search_history` | `{query? \| pattern?, since?, until?, role?, scope?, sort?, match?, caseSensitive?, limit?: 1–50}` | `{hits, matched, scanned, …}` |

pub mod expand;
pub mod history;
pub mod output_standin;
pub mod uri_check;
mod definitions;

pub use definitions::*;
