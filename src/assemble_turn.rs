//! One turn's `assemble()`, end to end in the core: automatic recall (query, pipeline,
//! synthetic pair) and the composition of summaries, raw turns and the pair under the
//! host's token budget.

use crate::assemble::{compose, token_split, ComposeInput, Composition, SummaryRef, TokenSplit};
use crate::auto_recall::{recall_turn, RecallRequest};
use crate::config::Config;
use crate::error::{EngineError, Result};
use crate::input::{as_object, join};
use crate::recall::query::RecallQuery;
use crate::recall::RecallOutcome;
use crate::tool_output::{stand_in_outputs, Outsized, StandInRef};
use serde::Serialize;
use serde_json::Value;

crate::ts_type! {
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssembleResult {
    pub query: RecallQuery,
    pub recall: Option<RecallOutcome>,
    #[serde(flatten)]
    pub composition: Composition,
    /// `estimatedTokens` by part.
    pub split: TokenSplit,
    /// Tool outputs the model sees as stand-ins (`tool_output`), oldest first.
    pub stand_ins: Vec<StandInRef>,
}
}

/// The JSON [`assemble_turn`] reads (it has no Rust type of its own: the keys go to
/// [`RecallRequest`] and the summaries); declared for TypeScript as `AssembleRequest`.
pub enum AssembleRequest {}

crate::ts_input! {
    /// `Engine.assemble`'s input: a recall request plus what the composition needs.
    impl AssembleRequest as AssembleRequest extends RecallRequest {
        opt tokenBudget: "number",
        /// Compact summaries from the session's checkpoints, oldest first.
        opt summaries: "Array<{ checkpointId?: string; archiveUri?: string; startSequence: number; endSequence: number; text?: string }>",
        /// The engine's next turn sequence for the session (turns written so far).
        opt nextSequence: "number",
    }
}

fn read_summaries(v: Option<&Vec<Value>>) -> Result<Vec<SummaryRef>> {
    let mut out = Vec::new();
    for (i, s) in v.into_iter().flatten().enumerate() {
        let path = format!("summaries[{i}]");
        let o = as_object(&path, s)?;
        let text = o.opt_str("text")?.unwrap_or("").trim().to_string();
        if text.is_empty() {
            continue; // an archive without a summary stands for nothing
        }
        let start = o.opt_u64("startSequence")?.ok_or_else(|| EngineError::input(join(&path, "startSequence"), "is required"))?;
        let end = o.opt_u64("endSequence")?.ok_or_else(|| EngineError::input(join(&path, "endSequence"), "is required"))?;
        out.push(SummaryRef {
            checkpoint_id: o.opt_str("checkpointId")?.unwrap_or("").to_string(),
            archive_uri: o.opt_str("archiveUri")?.unwrap_or("").to_string(),
            start_sequence: start,
            end_sequence: end.max(start),
            text,
        });
    }
    out.sort_by_key(|s| s.end_sequence);
    Ok(out)
}

/// `{prompt?, messages, search, contents?, nowMs?, tokenBudget?, summaries?: [{checkpointId,
/// archiveUri, startSequence, endSequence, text}], nextSequence?}`.
pub fn assemble_turn(config: &Config, v: Value) -> Result<AssembleResult> {
    let (budget, summaries, next_sequence) = {
        let o = as_object("", &v)?;
        (o.opt_u64("tokenBudget")?, read_summaries(o.opt_array("summaries")?)?, o.opt_u64("nextSequence")?.unwrap_or(0))
    };
    let req = RecallRequest::from_value(v)?;
    compose_turn(config, req, budget, summaries, next_sequence).map(|(result, _)| result)
}

/// This turn's experiences after the memories (`recall::experience`): only when the turn
/// searches them (its cue), with the cue's tools for the match.
fn place_experiences(config: &Config, outcome: &mut RecallOutcome, req: &RecallRequest) {
    if req.experiences.is_empty() {
        return;
    }
    let built = crate::recall::query::build_query(req.prompt.as_deref(), &req.messages, config.assemble_recall_window);
    let intent = crate::recall::intent::of_turn(&built, req.now_ms);
    let current = built.parts.first().map_or("", |p| p.text.as_str());
    let Some(cue) = crate::recall::experience::cue(current, &req.messages, intent.as_ref(), config.assemble_recall_window) else { return };
    crate::recall::experience::place(outcome, &req.experiences, &cue, &crate::recall::RecallSettings::from(config), req.now_ms);
}

/// The typed core of [`assemble_turn`]: recall over the given search results, then the
/// composition. `summaries` in any order. Also the full texts of the tool outputs the model
/// sees as stand-ins, for the engine to keep for `memory_read_output`.
pub fn compose_turn(config: &Config, req: RecallRequest, budget: Option<u64>, mut summaries: Vec<SummaryRef>, next_sequence: u64) -> Result<(AssembleResult, Vec<Outsized>)> {
    summaries.retain(|s| !s.text.trim().is_empty());
    summaries.sort_by_key(|s| s.end_sequence);
    let prompt = req.prompt.clone();
    let now_ms = req.now_ms;
    // outsized tool outputs are stand-ins in what the model sees (the stored turn is the host's)
    // the recall reads the messages (its query); the composition gets them
    let mut req = req;
    let (query, mut recall) = recall_turn(config, &mut req, true)?;
    if let Some(r) = recall.as_mut() {
        place_experiences(config, r, &req);
    }
    let (messages, outsized, stand_ins) = stand_in_outputs(req.messages, config.large_tool_result_tokens as usize, budget, prompt.is_some());
    let pair = recall.as_ref().and_then(|r| <[Value; 2]>::try_from(r.messages.clone()).ok());
    let composition = compose(ComposeInput {
        messages,
        prompt,
        token_budget: budget,
        recall_pair: pair,
        summaries,
        next_sequence,
        recent_raw_turn_count: config.recent_raw_turn_count,
        now_ms,
    });
    let split = token_split(&composition);
    Ok((AssembleResult { query, recall, composition, split, stand_ins }, outsized))
}
