//! TypeScript declarations of the JSON shapes that cross the wasm boundary, generated from the
//! Rust types themselves by [ts-rs](https://docs.rs/ts-rs): each boundary type carries
//! `#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]` next to its serde attributes, so
//! the shipped builds (which never enable the `typescript` feature) carry none of it.
//!
//! - ts-rs reads the serde attributes (`rename_all`, `rename`, `tag`, `flatten`, `default`) and
//!   the doc comments; `#[ts(optional)]` marks an `Option` serde skips when `None` (`x?: T`),
//!   `#[ts(type = "…")]` a field whose Rust type says less than the JSON (`Value`,
//!   `&'static str`), `#[ts(inline)]` a type written out where it is used.
//! - Hand-written, next to this file: `external.d.ts` (OpenClaw and OpenViking shapes the engine
//!   reads leniently, and the engine's errors), `inputs.d.ts` (the inputs read by hand, and
//!   `PluginConfig`), `host.d.ts` (the host callbacks).
//! - [`declarations`] renders the file `src/wasm/types.d.ts`, which `wasm::types` puts in the
//!   packages' `.d.ts`; `tests/typescript_declarations.rs` fails when the checked-in file
//!   differs (`UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`
//!   rewrites it).
//!
//! What ts-rs writes differently from the hand-built generator it replaced (2026-12):
//! `export type X = { … }` rather than `interface`, a flattened type's fields written out rather
//! than `extends`, and no TSDoc on the variants of a string union (ts-rs 12 drops them; the
//! Rust docs keep them). The names, fields, optionality and types are the same, up to notation
//! (`Array<T>` for `T[]`).
mod generate;

pub use generate::*;
