//! History search (`memory_search_history`): the agent's own stored turns, live and
//! archived, searched by text or regex within a time window.
//!
//! ## Why an index of the engine's own
//! OpenViking stores each turn as session messages without the engine's turn id or the
//! host's timestamp, and archive messages carry only the server's `created_at` (the time of
//! the write, not of the conversation). Its `POST /api/v1/search/grep` greps files under a
//! URI — it cannot filter by the time a turn happened, cannot tell which turn a line belongs
//! to, and over the user's sessions it answers for every agent's sessions alike. So the
//! engine keeps, per OpenViking session, a small index of the turns it acknowledged
//! ([`TurnEntry`]): turn id, sequence, the host's timestamp, and the user and assistant text
//! (bounded). The search reads only this agent's
//! sessions' indexes (`session_map::owns_session`, and the `agentId` inside each document).
//!
//! ## Format and caps
//! State documents `history/<ov session id>/<slot>`: `{version, agentId, ovSessionId,
//! sessionId, chunk, turns: [TurnEntry]}`, [`CHUNK_TURNS`] turns per chunk, chunk `c` in
//! slot `c % CHUNK_SLOTS` — a ring, so a session keeps its newest
//! `CHUNK_TURNS × CHUNK_SLOTS` turns (2,048) and at most [`TURN_TEXT_MAX_CHARS`] characters
//! of text per turn (each message's text at most [`MESSAGE_TEXT_MAX_CHARS`]). A write loads
//! and replaces one chunk (at most 64 × 6,000 characters of text), never the whole history.
//!
//! Modules: [`regex`] (the `pattern` matcher), [`when`] (`since` / `until`), [`rank`]
//! (matching, scores, excerpts, the order and the limit), [`by_meaning`] (the archived turns
//! OpenViking embeds, and the fusion of their order with the words').

pub mod by_meaning;
pub mod rank;
pub mod regex;
pub mod when;
mod index;

pub use index::*;
