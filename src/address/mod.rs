//! Where things live in OpenViking for one agent, below every rule that reads or writes
//! them: the memory, skill and resource URIs ([`scopes`]) and the session ids with the
//! agent isolation they carry ([`session_map`]).

pub mod scopes;
pub mod session_map;
