//! One turn's `assemble()`, end to end in the core: automatic recall (query, pipeline,
//! synthetic pair) and the composition of summaries, raw turns and the pair under the
//! host's token budget.

use crate::context::compose::{compose, ComposeInput, Composition, SummaryRef};
use crate::context::token_split::{token_split, TokenSplit};
use crate::recall::auto::{recall_turn, RecallRequest};
use crate::config::Config;
use crate::error::{EngineError, Result};
use crate::decode::fields::{as_object, join};
use crate::recall::query::RecallQuery;
use crate::recall::RecallOutcome;
use crate::context::map::MemoryMap;
use crate::recall::skills::{add_skills, SkillEntry};
pub use crate::context::turn_extras::TurnExtras;
use crate::tools::output_standin::{stand_in_outputs, Outsized, StandInRef};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AssembleResult {
    pub query: RecallQuery,
    pub recall: Option<RecallOutcome>,
    #[serde(flatten)]
    pub composition: Composition,
    /// `estimatedTokens` by part.
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub split: TokenSplit,
    /// Tool outputs the model sees as stand-ins (`tools::output_standin`), oldest first.
    pub stand_ins: Vec<StandInRef>,
    /// The skills listed in the recall pair (why: their search score; cost: `tokens` each).
    pub skills: Vec<SkillEntry>,
    /// The map of the folders in the system prompt addition, when it was included.
    pub map: Option<MemoryMap>,
}

/// The share of the host's budget the map may take at most (a small context keeps its room
/// for the conversation).
pub const MAP_BUDGET_SHARE: u64 = 8;

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
    crate::order::sort_by_key(&mut out, |s| s.end_sequence);
    Ok(out)
}

/// `{prompt?, messages, search, contents?, nowMs?, tokenBudget?, summaries?: [{checkpointId,
/// archiveUri, startSequence, endSequence, text}], nextSequence?, userId?, skills?, map?}`
/// (skills and map: `context::turn_extras`).
pub fn assemble_turn(config: &Config, v: Value) -> Result<AssembleResult> {
    let (budget, summaries, next_sequence, extras) = {
        let o = as_object("", &v)?;
        let now_ms = o.opt_u64("nowMs")?.unwrap_or(0);
        let extras = crate::context::turn_extras::read_turn_extras(config, &o, now_ms)?;
        (o.opt_u64("tokenBudget")?, read_summaries(o.opt_array("summaries")?)?, o.opt_u64("nextSequence")?.unwrap_or(0), extras)
    };
    let req = RecallRequest::from_value(v)?;
    compose_turn_with(config, req, budget, summaries, next_sequence, extras).map(|(result, _)| result)
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
pub fn compose_turn(config: &Config, req: RecallRequest, budget: Option<u64>, summaries: Vec<SummaryRef>, next_sequence: u64) -> Result<(AssembleResult, Vec<Outsized>)> {
    compose_turn_with(config, req, budget, summaries, next_sequence, TurnExtras::default())
}

/// [`compose_turn`] with the turn's skills (listed in the recall pair, within its budget) and
/// map (in the system prompt addition; its tokens are taken from the budget the messages get,
/// and it is left out when it would take more than 1/[`MAP_BUDGET_SHARE`] of it).
pub fn compose_turn_with(config: &Config, req: RecallRequest, budget: Option<u64>, mut summaries: Vec<SummaryRef>, next_sequence: u64, extras: TurnExtras) -> Result<(AssembleResult, Vec<Outsized>)> {
    summaries.retain(|s| !s.text.trim().is_empty());
    crate::order::sort_by_key(&mut summaries, |s| s.end_sequence);
    let prompt = req.prompt.clone();
    let now_ms = req.now_ms;
    // outsized tool outputs are stand-ins in what the model sees (the stored turn is the host's)
    // the recall reads the messages (its query); the composition gets them
    let mut req = req;
    let (query, mut recall) = recall_turn(config, &mut req, true)?;
    // after the memories, in the same recallTokenBudget: the experiences first (this agent's
    // own, for the task at hand), then the skills list, each in what the parts before it left
    if let Some(r) = recall.as_mut() {
        place_experiences(config, r, &req);
    }
    let skills = match recall.as_mut() {
        Some(r) => add_skills(r, extras.skills, config.recall_require_query_word, now_ms),
        None => Vec::new(),
    };
    let map = extras.map.filter(|m| budget.map_or(true, |b| m.tokens as u64 <= b / MAP_BUDGET_SHARE));
    let map_tokens = map.as_ref().map_or(0, |m| m.tokens as u64);
    let budget_for_messages = budget.map(|b| b.saturating_sub(map_tokens));
    let (messages, outsized, stand_ins) = stand_in_outputs(req.messages, config.large_tool_result_tokens as usize, budget_for_messages, prompt.is_some());
    let pair = recall.as_ref().and_then(|r| <[Value; 2]>::try_from(r.messages.clone()).ok());
    let mut composition = compose(ComposeInput {
        messages,
        prompt,
        token_budget: budget_for_messages,
        recall_pair: pair,
        summaries,
        next_sequence,
        recent_raw_turn_count: config.recent_raw_turn_count,
        now_ms,
    });
    let mut split = token_split(&composition);
    // the skills' lines are part of the pair: shown apart from the memories
    if composition.recall_included {
        split.skills = skills.iter().map(|s| s.tokens as u64).sum::<u64>().min(split.recall);
        split.recall -= split.skills;
    }
    if let Some(m) = &map {
        split.map = map_tokens;
        composition.estimated_tokens += map_tokens;
        composition.budget = budget;
        composition.system_prompt_addition = Some(match composition.system_prompt_addition.take() {
            Some(a) => format!("{a}\n{}", m.text),
            None => m.text.clone(),
        });
    }
    let skills = if composition.recall_included { skills } else { Vec::new() };
    Ok((AssembleResult { query, recall, composition, split, stand_ins, skills, map }, outsized))
}
