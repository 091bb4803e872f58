//! TypeScript declarations for the JSON shapes that cross the boundary, so the published
//! `.d.ts` has no `any`. The text is `types.d.ts`, generated from the Rust types themselves
//! (`crate::typescript`, with the hand-written host callbacks in `src/typescript/host.d.ts`);
//! `tests/typescript_declarations.rs` fails when it is stale, and
//! `UPDATE_TS=1 cargo test --test typescript_declarations` regenerates it.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("types.d.ts");
