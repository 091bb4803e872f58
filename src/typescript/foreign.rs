//! Boundary types defined in modules not (yet) wrapped in `ts_type!` (`capture`, `triggers`,
//! `commit_guard`): their declarations are written here, and the tests below serialize every
//! variant (an exhaustive `match` makes a new variant fail to compile) and check the wire
//! names against them. Wrapping the definitions in `ts_type!` makes these impls go away.

use super::{Decl, Field, Kind, TsType, Variant};
use crate::lifecycle::capture::CaptureReason;
use crate::lifecycle::commit_guard::CommitGuard;
use crate::lifecycle::triggers::{SessionState, Trigger};

fn variant(name: &str, fields: &[&str]) -> Variant {
    Variant {
        name: name.to_string(),
        doc: Vec::new(),
        fields: fields.iter().map(|f| Field { name: f.to_string(), ts: "number".into(), optional: false, doc: Vec::new(), ignored: false }).collect(),
    }
}

/// `crate::lifecycle::capture::CaptureReason` (serde snake_case), every variant.
pub(crate) const CAPTURE_REASONS: &[&str] = &[
    "accepted",
    "empty",
    "injected_memory_context_only",
    "too_short",
    "too_long",
    "command",
    "punctuation_only",
    "subagent_context",
    "unanswered_question",
    "no_keyword",
];

impl TsType for CaptureReason {
    fn ts_name() -> String {
        "CaptureReason".into()
    }
    fn ts_decl() -> Option<Decl> {
        Some(Decl {
            name: "CaptureReason".into(),
            doc: vec!["Whether a turn counts toward the compaction triggers, and why not (`capture::CaptureReason`).".into()],
            inline: false,
            kind: Kind::Strings(CAPTURE_REASONS.iter().map(|n| variant(n, &[])).collect()),
        })
    }
}

impl TsType for Trigger {
    fn ts_name() -> String {
        "Trigger".into()
    }
    fn ts_decl() -> Option<Decl> {
        Some(Decl {
            name: "Trigger".into(),
            doc: vec!["A compaction trigger that fired (`triggers::Trigger`).".into()],
            inline: false,
            kind: Kind::Tagged {
                tag: "kind".into(),
                variants: vec![
                    variant("budget", &["tokens", "threshold"]),
                    variant("tokens_added", &["tokens", "threshold"]),
                    variant("turns", &["turns", "threshold"]),
                    variant("interval", &["minutes", "threshold"]),
                ],
            },
        })
    }
}

/// Persisted engine state, opaque to JS (`triggers::SessionState`).
impl TsType for SessionState {
    fn ts_name() -> String {
        "Record<string, unknown>".into()
    }
}

/// Persisted commit protection, opaque to JS (`commit_guard::CommitGuard`).
impl TsType for CommitGuard {
    fn ts_name() -> String {
        "Record<string, unknown>".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;

    fn every_capture_reason() -> Vec<CaptureReason> {
        use CaptureReason::*;
        let all = vec![Accepted, Empty, InjectedMemoryContextOnly, TooShort, TooLong, Command, PunctuationOnly, SubagentContext, UnansweredQuestion, NoKeyword];
        // a new variant does not compile until it is listed above (and in CAPTURE_REASONS)
        for r in &all {
            match r {
                Accepted | Empty | InjectedMemoryContextOnly | TooShort | TooLong | Command | PunctuationOnly | SubagentContext | UnansweredQuestion | NoKeyword => {}
            }
        }
        all
    }

    fn every_trigger() -> Vec<Trigger> {
        let all = vec![
            Trigger::Budget { tokens: 1, threshold: 2 },
            Trigger::TokensAdded { tokens: 1, threshold: 2 },
            Trigger::Turns { turns: 1, threshold: 2 },
            Trigger::Interval { minutes: 1, threshold: 2 },
        ];
        for t in &all {
            match t {
                Trigger::Budget { .. } | Trigger::TokensAdded { .. } | Trigger::Turns { .. } | Trigger::Interval { .. } => {}
            }
        }
        all
    }

    #[test]
    fn capture_reasons_are_the_serialized_names() {
        let wire: Vec<Value> = every_capture_reason().iter().map(|r| serde_json::to_value(r).unwrap()).collect();
        let declared: Vec<Value> = CAPTURE_REASONS.iter().map(|s| Value::from(*s)).collect();
        assert_eq!(wire, declared);
    }

    #[test]
    fn triggers_are_the_serialized_shapes() {
        let Some(Decl { kind: Kind::Tagged { tag, variants }, .. }) = Trigger::ts_decl() else { panic!("tagged") };
        let triggers = every_trigger();
        assert_eq!(triggers.len(), variants.len());
        for (t, v) in triggers.iter().zip(&variants) {
            let wire = serde_json::to_value(t).unwrap();
            let mut keys: Vec<&str> = wire.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort_unstable();
            let mut declared: Vec<&str> = v.fields.iter().map(|f| f.name.as_str()).chain([tag.as_str()]).collect();
            declared.sort_unstable();
            assert_eq!(keys, declared, "{t:?}");
            assert_eq!(wire[&tag], v.name.as_str());
            assert!(v.fields.iter().all(|f| wire[&f.name].is_number()));
        }
    }
}
