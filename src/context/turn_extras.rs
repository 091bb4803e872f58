//! What a turn adds beside the memories — the skills found for it and the map of folders
//! ([`TurnExtras`], read by the engine through the host) — and how the pure `assemble`
//! request hands them in (the tuning page, [`read_turn_extras`]): the same readers and rules as the engine's turn (`engine::skills_and_map`), so the page
//! shows what the engine composes.
//!
//! - `skills`: OpenViking's `skills/find` answer items (or the `SkillEntry` shape): only the
//!   caller's own skill roots (`userId`'s and the account's), best first, at most `skillLimit`
//!   (`recall::skills::read_skills`); none with `skillRecall: false`.
//! - `map`: the `fs/tree` answer of each root, by root uri. Only the roots the engine lists
//!   (`context::map::map_roots` for `targetUri`, `userId` and `agentId`) are read; any other key
//!   is ignored. Rendered within `memoryMapTokenBudget`; none with `memoryMap: false`.

use crate::config::Config;
use crate::context::map::{map_roots, render, root_of_tree, MemoryMap};
use crate::decode::fields::{as_object, join, Obj};
use crate::error::{EngineError, Result};
use crate::recall::skills::{read_skills, SkillEntry};
use serde_json::Value;

/// What a turn adds beside the memories: the skills found for it and the map of folders
/// (both read by the engine through the host).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnExtras {
    pub skills: Vec<SkillEntry>,
    pub map: Option<MemoryMap>,
}

fn check_skills(items: &[Value]) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        let path = format!("skills[{i}]");
        let o = as_object(&path, item)?;
        let uri = o.opt_str("root_uri")?.or(o.opt_str("uri")?);
        if uri.is_none() {
            return Err(EngineError::input(join(&path, "uri"), "is required (the skill's uri)"));
        }
        o.opt_str("name")?;
        o.opt_str("description")?;
        o.opt_str("abstract")?;
        o.opt_f64("score")?;
    }
    Ok(())
}

fn check_tree(path: &str, tree: &Value) -> Result<()> {
    let Value::Array(items) = tree else {
        return Err(EngineError::input(path, format!("expected an array (the root's fs/tree answer), got {}", crate::decode::fields::describe(tree))));
    };
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let o = as_object(&p, item)?;
        o.req_str("uri")?;
        o.opt_bool("isDir")?;
    }
    Ok(())
}

/// Reads `skills`, `map` and `userId` from the request object.
pub fn read_turn_extras(config: &Config, o: &Obj<'_>, now_ms: u64) -> Result<TurnExtras> {
    let user_id = o.opt_str("userId")?;
    let skills = match o.opt_array("skills")? {
        None => Vec::new(),
        Some(items) => {
            check_skills(items)?;
            if config.skill_recall {
                read_skills(&Value::Array(items.clone()), user_id, config.skill_limit)
            } else {
                Vec::new()
            }
        }
    };
    let map = match o.opt_object("map")? {
        None => None,
        Some(trees) => {
            for (uri, tree) in trees {
                if !tree.is_null() {
                    check_tree(&join("map", uri), tree)?;
                }
            }
            if config.memory_map {
                let roots: Vec<_> = map_roots(config.target_uri.as_deref(), user_id, &config.agent_id)
                    .into_iter()
                    .map(|(label, uri)| {
                        let tree = trees.get(&uri).filter(|t| !t.is_null());
                        root_of_tree(label, uri, tree)
                    })
                    .collect();
                render(&roots, config.memory_map_token_budget, now_ms)
            } else {
                None
            }
        }
    };
    Ok(TurnExtras { skills, map })
}
