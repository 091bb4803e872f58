//! "Loud when inert": is the host actually using the engine? The most frequent complaint
//! about the earlier plugin was that it went silently inert after a host upgrade (degraded to
//! legacy, turns acknowledged and never stored). The plugin hands in what it can see of the
//! host ([`HostFacts`]: the selected context-engine slot, the host version); the engine adds
//! what it saw happen (a turn recalled through the prompt-hook fallback means the host ran a
//! turn without calling `assemble`) and names the cause and the fix.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashSet;

/// The engine's id in OpenClaw's `plugins.slots.contextEngine`.
pub const ENGINE_ID: &str = "openviking";
/// The oldest OpenClaw release with the context-engine slot and `afterTurn` (2026.4).
pub const OLDEST_HOST: (u32, u32) = (2026, 4);
/// The newest OpenClaw generation this release was run against (2026.9).
pub const NEWEST_TESTED_HOST: (u32, u32) = (2026, 9);

/// What the plugin can see of its host (each part may be unknown).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(optional_fields = nullable))]
pub struct HostFacts {
    /// `plugins.slots.contextEngine` as configured (`None`: not set, or not visible).
    pub slot: Option<String>,
    /// The host's version, e.g. `2026.9.6`.
    pub host_version: Option<String>,
}

impl crate::decode::Request for HostFacts {}

/// Why the engine is not (fully) in use, and what to change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Inert {
    /// `not_in_slot`, `host_too_old`, `host_untested`, `not_called`.
    #[cfg_attr(feature = "typescript", ts(type = r#""not_in_slot" | "host_too_old" | "host_untested" | "not_called""#))]
    pub code: String,
    pub cause: String,
    pub fix: String,
}

fn version(v: &str) -> Option<(u32, u32)> {
    let mut parts = v.trim().trim_start_matches('v').split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn inert(code: &str, cause: String, fix: &str) -> Inert {
    Inert { code: code.into(), cause, fix: fix.into() }
}

/// What the facts alone say, before any turn.
pub fn diagnose_host(f: &HostFacts) -> Option<Inert> {
    if let Some(slot) = f.slot.as_deref().filter(|s| *s != ENGINE_ID) {
        return Some(inert(
            "not_in_slot",
            format!("the context-engine slot is {slot:?}, so OpenClaw assembles and stores turns without this engine (only the before_prompt_build fallback recalls)"),
            "set plugins.slots.contextEngine to \"openviking\" in the OpenClaw config",
        ));
    }
    let v = f.host_version.as_deref()?;
    match version(v) {
        Some(h) if h < OLDEST_HOST => Some(inert(
            "host_too_old",
            format!("OpenClaw {v} predates the context-engine slot (2026.4): the engine is never called"),
            "upgrade OpenClaw to 2026.4 or later (2026.9.6 is the tested release)",
        )),
        Some(h) if h > NEWEST_TESTED_HOST => Some(inert(
            "host_untested",
            format!("OpenClaw {v} is newer than the contract this release declares (transcriptSemantics before-current-turn-entry-v1, tested up to 2026.9): it may degrade the engine to legacy"),
            "check `openclaw plugins inspect openviking --runtime` and this plugin's releases for one that supports this host",
        )),
        _ => None,
    }
}

thread_local! {
    /// The causes already reported in this process (one wasm instance serves every agent's
    /// engine of a process: the plugin keeps one runtime per state dir, on `globalThis`).
    static REPORTED: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
}

/// True the first time this cause is reported in this process: "the context engine is not
/// in use" is said once per process and cause, however many agents, engines, turns and
/// registrations see it.
pub fn first_report(d: &Inert) -> bool {
    REPORTED.with(|r| r.borrow_mut().insert(format!("{}\0{}", d.code, d.cause)))
}

/// The log line of a diagnosis.
pub fn warning(d: &Inert) -> String {
    format!("the context engine is not in use: {}; fix: {}", d.cause, d.fix)
}

/// A turn ran without the engine assembling it (its recall came through the prompt hook).
pub fn diagnose_unassembled_turn(f: &HostFacts) -> Inert {
    diagnose_host(f).unwrap_or_else(|| {
        inert(
            "not_called",
            format!(
                "OpenClaw ran a turn without calling the engine's assemble(){} — degraded to legacy, or another engine took the slot",
                f.host_version.as_deref().map(|v| format!(" (OpenClaw {v})")).unwrap_or_default()
            ),
            "run `openclaw plugins inspect openviking --runtime --json` and check plugins.slots.contextEngine is \"openviking\"",
        )
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn facts(slot: Option<&str>, v: Option<&str>) -> HostFacts {
        HostFacts { slot: slot.map(str::to_string), host_version: v.map(str::to_string) }
    }

    #[test]
    fn each_wrong_host_is_named_with_its_fix() {
        assert_eq!(diagnose_host(&facts(Some("openviking"), Some("2026.9.6"))), None);
        assert_eq!(diagnose_host(&facts(None, Some("2026.7.35"))), None);
        let d = diagnose_host(&facts(Some("legacy"), Some("2026.9.6"))).unwrap();
        assert_eq!(d.code, "not_in_slot");
        assert!(d.fix.contains("plugins.slots.contextEngine"));
        assert_eq!(diagnose_host(&facts(None, Some("2026.3.1"))).unwrap().code, "host_too_old");
        assert_eq!(diagnose_host(&facts(None, Some("2027.1.0"))).unwrap().code, "host_untested");
        assert_eq!(diagnose_host(&facts(None, Some("nonsense"))), None, "an unreadable version is not a diagnosis");
        assert_eq!(diagnose_unassembled_turn(&facts(Some("openviking"), Some("2026.9.6"))).code, "not_called");
        assert_eq!(diagnose_unassembled_turn(&facts(Some("legacy"), None)).code, "not_in_slot");
    }

    #[test]
    fn each_cause_is_reported_once_per_process() {
        let d = diagnose_host(&facts(Some("legacy-once-test"), Some("2026.9.6"))).unwrap();
        assert!(first_report(&d));
        assert!(!first_report(&d), "the same cause again");
        assert!(!first_report(&diagnose_unassembled_turn(&facts(Some("legacy-once-test"), None))), "the same cause, seen by a turn");
        let other = diagnose_host(&facts(Some("other-once-test"), None)).unwrap();
        assert!(first_report(&other), "another cause is reported");
    }
}
