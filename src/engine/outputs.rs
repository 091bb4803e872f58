//! Oversized tool outputs the model sees as stand-ins (`tool_output`), kept for
//! `memory_read_output`: one state document per output (`output/<reference>`), written the
//! first time an assemble stands it in, with the agent and session it belongs to. The turn
//! itself is in OpenViking as the host sent it; this is the engine's own copy to page
//! through, read by this agent only.

use super::Engine;
use crate::error::{EngineError, Result};
use crate::host::Host;
use crate::tool_output::{is_output_ref, read_output, Outsized, OutputRead, ReadSpec};
use serde_json::{json, Value};

const PREFIX: &str = "output/";

fn key(reference: &str) -> String {
    format!("{PREFIX}{reference}")
}

impl<H: Host> Engine<H> {
    /// Keeps each output not kept yet. A failed save is warned about and costs only the
    /// read-back of that output.
    pub(super) async fn keep_outputs(&self, ov_id: &str, outsized: Vec<Outsized>) {
        if outsized.is_empty() {
            return;
        }
        if self.kept_outputs.borrow().is_none() {
            let known = self.host.list_state_keys(PREFIX).await.unwrap_or_default();
            *self.kept_outputs.borrow_mut() = Some(known.into_iter().filter_map(|k| k.strip_prefix(PREFIX).map(str::to_string)).collect());
        }
        for o in outsized {
            if self.kept_outputs.borrow().as_ref().is_some_and(|k| k.contains(&o.reference)) {
                continue;
            }
            let doc = json!({
                "reference": o.reference,
                "agentId": self.config.agent_id,
                "ovSessionId": ov_id,
                "toolName": o.tool_name,
                "callId": o.call_id,
                "arguments": o.arguments,
                "tokens": o.tokens,
                "lines": o.lines,
                "savedAtMs": self.host.now_ms(),
                "text": o.text,
            });
            match self.host.save_state(&key(&o.reference), doc).await {
                Ok(()) => {
                    if let Some(k) = self.kept_outputs.borrow_mut().as_mut() {
                        k.insert(o.reference);
                    }
                }
                Err(e) => self.warn_once("outputs", &format!("a large tool output could not be kept for memory_read_output: {e}")),
            }
        }
    }

    /// `memory_read_output`: `spec` of the output behind `reference`, if it is this agent's.
    pub async fn read_kept_output(&self, reference: &str, spec: &ReadSpec, max_tokens: usize) -> Result<OutputRead> {
        let unknown = || EngineError::input("reference", "no tool output of this agent has this reference (it is in a stand-in's first line)");
        if !is_output_ref(reference) {
            return Err(EngineError::input("reference", "must look like out-0123456789abcdef (from a stand-in)"));
        }
        let doc = self.host.load_state(&key(reference)).await.map_err(|e| EngineError::new(crate::error::ErrorCode::HostFailed, e.to_string()))?;
        let Some(doc) = doc else { return Err(unknown()) };
        if doc.get("agentId").and_then(Value::as_str) != Some(self.config.agent_id.as_str()) {
            return Err(unknown()); // another agent's: not even its existence is told
        }
        let text = doc.get("text").and_then(Value::as_str).unwrap_or("");
        Ok(read_output(reference, text, spec, max_tokens))
    }
}
