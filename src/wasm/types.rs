//! TypeScript declarations for the JSON shapes that cross the boundary, so the published
//! `.d.ts` has no `any`. The text is `types.d.ts`, generated from the Rust types themselves by
//! ts-rs (`src/typescript/`, the `typescript` feature no shipped build enables, with the
//! hand-written parts in `src/typescript/*.d.ts`); `tests/typescript_declarations.rs` fails
//! when it is stale, and `UPDATE_TS=1 cargo test --features typescript --test
//! typescript_declarations` regenerates it.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("types.d.ts");
