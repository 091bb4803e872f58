//! Oversized tool outputs the model sees as stand-ins (`tools::output_standin`), kept for
//! `memory_read_output`: one state document per output and agent (`output/<agent>/<reference>`:
//! two agents on one state dir with the same call id and output each keep their own), written
//! the first time an assemble stands it in, with the agent and session it belongs to. A
//! document an earlier release kept at `output/<reference>` is read when it is this agent's. The turn
//! itself is in OpenViking as the host sent it, so the copy is a cache: a reference this
//! state dir does not know (another machine stood the output in, or the state dir was lost)
//! is looked up in this agent's sessions — the live tool parts, then the archived ones; an
//! oversized output is in OpenViking's `tool-results` store — and kept again.
//! Read by this agent only.

use super::Engine;
use crate::error::{EngineError, Result};
use crate::host::Host;
use crate::message::StoredMessage;
use crate::address::session_map::owns_session;
use crate::tools::output_standin::{is_output_ref, output_ref_of_digest, read_output, Outsized, OutputRead, ReadSpec};
use serde_json::{json, Value};

const PREFIX: &str = "output/";
/// Archives read, at most, to find one reference this state dir does not know (newest
/// first, over all of this agent's sessions).
pub const OUTPUT_LOOKUP_ARCHIVES_MAX: usize = 32;

fn key(agent_id: &str, reference: &str) -> String {
    format!("{PREFIX}{agent_id}/{reference}")
}

/// Where an earlier release kept an output (no agent in the key).
fn unkeyed(reference: &str) -> String {
    format!("{PREFIX}{reference}")
}

fn is_agents(doc: &Value, agent_id: &str) -> bool {
    doc.get("agentId").and_then(Value::as_str) == Some(agent_id)
}

impl<H: Host> Engine<H> {
    /// Keeps each output not kept yet. A failed save is warned about and costs only the
    /// read-back of that output.
    pub(super) async fn keep_outputs(&self, ov_id: &str, outsized: Vec<Outsized>) {
        if outsized.is_empty() {
            return;
        }
        if self.reads.kept_outputs.borrow().is_none() {
            let prefix = key(&self.config.agent_id, "");
            let known = self.host.list_state_keys(&prefix).await.unwrap_or_default();
            *self.reads.kept_outputs.borrow_mut() = Some(known.into_iter().filter_map(|k| k.strip_prefix(&prefix).map(str::to_string)).collect());
        }
        for o in outsized {
            if self.reads.kept_outputs.borrow().as_ref().is_some_and(|k| k.contains(&o.reference)) {
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
            match self.host.save_state(&key(&self.config.agent_id, &o.reference), doc).await {
                Ok(()) => {
                    if let Some(k) = self.reads.kept_outputs.borrow_mut().as_mut() {
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
        let load = |k: String| async move { self.host.load_state(&k).await.map_err(|e| EngineError::new(crate::error::ErrorCode::HostFailed, e.to_string())) };
        let agent = self.config.agent_id.as_str();
        let mut doc = load(key(agent, reference)).await?.filter(|d| is_agents(d, agent));
        if doc.is_none() {
            // an earlier release's key: this agent's only (another agent's is not even told of)
            doc = load(unkeyed(reference)).await?.filter(|d| is_agents(d, agent));
        }
        let doc = match doc {
            Some(d) => d,
            None => match self.output_from_openviking(reference).await {
                Some(o) => {
                    let (ov_id, o) = o;
                    let doc = json!({"reference": reference, "agentId": agent, "ovSessionId": ov_id, "toolName": o.tool_name, "callId": o.call_id, "text": o.text, "savedAtMs": self.host.now_ms()});
                    let _ = self.host.save_state(&key(agent, reference), doc.clone()).await;
                    doc
                }
                None => return Err(unknown()),
            },
        };
        let text = doc.get("text").and_then(Value::as_str).unwrap_or("");
        Ok(read_output(reference, text, spec, max_tokens))
    }

    /// The output behind `reference` in this agent's sessions in OpenViking: each session's
    /// live tool parts, then its archives newest first (at most
    /// [`OUTPUT_LOOKUP_ARCHIVES_MAX`] in all). A part whose output OpenViking externalized
    /// (0.5.2 does so when the message is added, above 20,000 characters) is matched by its
    /// `tool_output_sha256` and read from `tool-results`; the text read must hash to it.
    async fn output_from_openviking(&self, reference: &str) -> Option<(String, Found)> {
        let ids = self.host.list_sessions().await.ok()?;
        let mine: Vec<String> = ids.into_iter().filter(|id| owns_session(&self.config.agent_id, id)).take(super::rebuild::ADOPT_SESSIONS_MAX).collect();
        for id in &mine {
            if let Ok(live) = self.host.live_messages(id).await {
                if let Some(f) = self.match_parts(id, &live, reference).await {
                    return Some((id.clone(), f));
                }
            }
        }
        let mut budget = OUTPUT_LOOKUP_ARCHIVES_MAX;
        for id in &mine {
            let Ok(Some(meta)) = self.host.session_meta(id).await else { continue };
            for n in (1..=meta.commit_count).rev() {
                if budget == 0 {
                    return None;
                }
                budget -= 1;
                let Ok(a) = self.host.archive(id, &format!("archive_{n:03}")).await else { continue };
                let messages = a.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
                if let Some(f) = self.match_parts(id, &messages, reference).await {
                    return Some((id.clone(), f));
                }
            }
        }
        None
    }

    async fn match_parts(&self, ov_id: &str, messages: &[Value], reference: &str) -> Option<Found> {
        for tool in messages.iter().flat_map(|m| StoredMessage::of(m).tools()) {
            let (call_id, external, output) = (tool.id.unwrap_or(""), tool.output_ref.unwrap_or(""), tool.output.unwrap_or(""));
            let digest = if external.is_empty() { crate::text::sha256::sha256_hex(output.as_bytes()) } else { tool.output_sha256.unwrap_or("").to_ascii_lowercase() };
            if output_ref_of_digest(call_id, &digest) != reference {
                continue;
            }
            let text = if external.is_empty() {
                output.to_string()
            } else {
                // `viking://…/sessions/<id>/tool-results/<tool result id>` (or the bare id)
                let t = self.host.tool_result(ov_id, external.rsplit('/').next().unwrap_or(external)).await.ok()??;
                if crate::text::sha256::sha256_hex(t.as_bytes()) != digest {
                    continue;
                }
                t
            };
            return Some(Found { tool_name: tool.name.unwrap_or("").to_string(), call_id: call_id.to_string(), text });
        }
        None
    }
}

/// An output found in OpenViking.
struct Found {
    tool_name: String,
    call_id: String,
    text: String,
}
