//! Moving an agent between OpenViking servers, on the `ContextEngine` export: the export
//! (`exportStart`, then `exportSession` per session and `exportMemories`, the host writing
//! the lines it is given, then `exportEndLine`) and the restore (`indexExport` over the
//! file's lines, then `restoreSession` per session and `restoreMemories`). The file's
//! format is the engine's (`lifecycle::export_file`); the host only reads and writes lines.

use super::codec::{decode, decode_request, encode, string_arg, to_js_error};
use super::context_engine::{bounded_op, deadline, owned, ContextEngine, DEADLINE_CALLS};
use crate::engine::RestoreRequest;
use crate::lifecycle::export_file::{end_line, index_export, ExportCounts};
use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl ContextEngine {
    /// The export's header line and the agent's OpenViking sessions, oldest first.
    #[wasm_bindgen(js_name = exportStart, unchecked_return_type = "Promise<ExportStart>")]
    pub fn export_start(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), deadline(&inner, 0), "exportStart", async move { encode(&inner.export_start().await.map_err(to_js_error)?) })
    }

    /// One session's lines (head, turns, checkpoints).
    #[wasm_bindgen(js_name = exportSession, unchecked_return_type = "Promise<ExportLines>")]
    pub fn export_session(&self, #[wasm_bindgen(unchecked_param_type = "string")] ov_session_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        // a read per archive, its checkpoint and each moved-out tool output: no fixed bound
        // but the host's per-call timeout
        bounded_op(inner.operation(), u64::MAX / 4, "exportSession", async move {
            let ov = string_arg("ovSessionId", &ov_session_id)?;
            owned(&inner, &ov)?;
            encode(&inner.export_session(&ov).await.map_err(to_js_error)?)
        })
    }

    /// The memory lines of the user's and this agent's folders.
    #[wasm_bindgen(js_name = exportMemories, unchecked_return_type = "Promise<ExportLines>")]
    pub fn export_memories(&self) -> Promise {
        let inner = self.inner.clone();
        bounded_op(inner.operation(), u64::MAX / 4, "exportMemories", async move { encode(&inner.export_memories().await.map_err(to_js_error)?) })
    }

    /// Restores one session's lines of an export (`ExportIndex.sessions[i].lines`).
    #[wasm_bindgen(js_name = restoreSession, unchecked_return_type = "Promise<RestoreReport>")]
    pub fn restore_session(&self, #[wasm_bindgen(unchecked_param_type = "RestoreRequest")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        let req: RestoreRequest = match decode_request("(request)", &request) {
            Ok(r) => r,
            Err(e) => return Promise::reject(&to_js_error(e)),
        };
        let per_line = inner.config.timeout_ms.saturating_mul(DEADLINE_CALLS).saturating_add(req.commit_wait_ms.unwrap_or(crate::engine::IMPORT_COMMIT_WAIT_MS));
        let ms = per_line.saturating_mul(req.lines.len() as u64 + 1);
        bounded_op(inner.operation(), deadline(&inner, ms), "restoreSession", async move { encode(&inner.restore_session(req).await.map_err(to_js_error)?) })
    }

    /// Restores the memory lines of an export (`ExportIndex.memoryLines`), each only where
    /// the target has none at its path.
    #[wasm_bindgen(js_name = restoreMemories, unchecked_return_type = "Promise<MemoryRestoreReport>")]
    pub fn restore_memories(&self, #[wasm_bindgen(unchecked_param_type = "RestoreRequest")] request: JsValue) -> Promise {
        let inner = self.inner.clone();
        let req: RestoreRequest = match decode_request("(request)", &request) {
            Ok(r) => r,
            Err(e) => return Promise::reject(&to_js_error(e)),
        };
        let ms = inner.config.timeout_ms.saturating_mul(2).saturating_mul(req.lines.len() as u64 + 1);
        bounded_op(inner.operation(), deadline(&inner, ms), "restoreMemories", async move { encode(&inner.restore_memories(req).await.map_err(to_js_error)?) })
    }
}

/// An export file's lines read into what it holds, by session (`openclaw openviking import
/// --from`): throws `INVALID_INPUT` naming the line when it is not such a file.
#[wasm_bindgen(js_name = indexExport, unchecked_return_type = "ExportIndex")]
pub fn index_export_js(#[wasm_bindgen(unchecked_param_type = "string[]")] lines: JsValue) -> Result<JsValue, JsValue> {
    let lines: Vec<String> = decode("lines", &lines).and_then(|v| crate::decode::decode("lines", v)).map_err(to_js_error)?;
    encode(&index_export(&lines).map_err(to_js_error)?)
}

/// The export's last line, from what was written (`{sessions, turns, memories}`).
#[wasm_bindgen(js_name = exportEndLine)]
pub fn export_end_line_js(#[wasm_bindgen(unchecked_param_type = "ExportCounts")] counts: JsValue) -> Result<String, JsValue> {
    let v = decode("counts", &counts).map_err(to_js_error)?;
    let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).ok_or_else(|| to_js_error(crate::error::EngineError::input(format!("counts.{k}"), "expected a whole number")));
    Ok(end_line(ExportCounts { sessions: n("sessions")?, turns: n("turns")?, memories: n("memories")? }))
}
