//! The `Host`: every piece of I/O the engine needs — OpenViking calls, durable local state,
//! the outbox, time and sleeping — done by the embedder. In the plugin it is JS (`fetch`,
//! files in the state dir) behind imported async callbacks (`wasm::js_host`); in native tests
//! an in-memory fake. Futures are not `Send` (JS promises are not).

pub mod clock;
pub mod join;
mod interface;

pub use interface::*;
