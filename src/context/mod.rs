//! Context composition: what the model sees each turn — one turn's `assemble()` end to end
//! ([`assemble`]), the composition of summaries, raw turns and the recall pair under one
//! budget ([`compose`]), the map of folders in the system prompt ([`map`]), what a turn adds beside the memories, the skills and the map, and how the pure request hands them in ([`turn_extras`]) and which archive
//! summaries can be trusted ([`summary_check`]).

pub mod assemble;
pub mod compose;
pub mod turn_extras;
pub mod map;
pub mod summary_check;
pub mod summary_message;
pub mod token_split;
