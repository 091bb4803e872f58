//! The declarations file: which types the package declares, in which order, and the
//! hand-written sections around them.

use super::{render_decl, Decl, Field, Kind, TsType};

/// Hand-written: shapes from OpenClaw and OpenViking the engine reads leniently (no Rust
/// type), and the engine's errors.
pub const HAND_WRITTEN_EXTERNAL: &str = include_str!("external.d.ts");

/// Hand-written: the host callbacks (`HostCallbacks`, `HostErrorKind`, `OpenVikingMessage`,
/// `OutboxEntry`), kept in one file for whoever changes the host.
pub const HAND_WRITTEN_HOST: &str = include_str!("host.d.ts");

fn decl<T: TsType>() -> Decl {
    T::ts_decl().unwrap_or_else(|| panic!("{} has no declaration", T::ts_name()))
}

/// `PluginConfig`: the keys a user writes — every field of the resolved configuration
/// (`config::Config`, `ResolvedConfig`), each optional (`null` reads as absent), plus the
/// retired `ingestReplyAssist*` keys the parser accepts and ignores.
pub fn plugin_config() -> Decl {
    let Kind::Object { fields, .. } = decl::<crate::config::Config>().kind else { unreachable!("Config is a struct") };
    let mut fields: Vec<Field> = fields
        .into_iter()
        .map(|f| Field { ts: f.ts.strip_suffix(" | null").unwrap_or(&f.ts).to_string(), optional: true, ..f })
        .collect();
    fields.push(Field {
        name: "[ingestReplyAssist: `ingestReplyAssist${string}`]".into(),
        ts: "unknown".into(),
        optional: false,
        doc: vec!["Keys of the 2026-03 plugin that are no longer used: accepted, ignored with a warning.".into()],
        ignored: true,
    });
    Decl {
        name: "PluginConfig".into(),
        doc: vec!["The plugin configuration as a user writes it (`plugins.entries.openviking.config`).".into()],
        inline: false,
        kind: Kind::Object { extends: Vec::new(), fields },
    }
}

/// Every generated declaration, in file order.
pub fn exported() -> Vec<Decl> {
    use crate::*;
    vec![
        plugin_config(),
        decl::<config::Config>(),
        decl::<config::ConfigProblem>(),
        decl::<config::ParsedConfig>(),
        decl::<config::ConfigCheck>(),
        decl::<config::KeyBounds>(),
        decl::<recall::auto::RecallRequest>(),
        decl::<recall::query::SkipReason>(),
        decl::<recall::query::QueryPart>(),
        decl::<recall::query::RecallQuery>(),
        decl::<recall::intent::MemoryType>(),
        decl::<recall::intent::TimeWindow>(),
        decl::<recall::intent::RecallIntent>(),
        decl::<recall::rank::QueryProfile>(),
        decl::<recall::rank::RankParts>(),
        decl::<recall::explain::CutReason>(),
        decl::<recall::explain::ExplainRecord>(),
        decl::<context::messages::synthetic::RecalledMemory>(),
        decl::<recall::experience::ExperienceCandidate>(),
        decl::<recall::experience::ExperienceCut>(),
        decl::<recall::experience::ExperienceRecord>(),
        decl::<recall::RecallOutcome>(),
        decl::<recall::auto::AutoRecall>(),
        decl::<recall::auto::RecallAnswer>(),
        decl::<engine::TurnWrite>(),
        decl::<lifecycle::capture::CaptureReason>(),
        decl::<lifecycle::triggers::Trigger>(),
        decl::<engine::FlushReport>(),
        decl::<engine::WriteOutcome>(),
        decl::<lifecycle::checkpoint::CompactCheckpoint>(),
        decl::<engine::CommitOutcome>(),
        decl::<engine::SessionRecord>(),
        decl::<context::assemble::AssembleRequest>(),
        decl::<context::assemble::AssembleResult>(),
        decl::<engine::AssembleCall>(),
        decl::<engine::Assembled>(),
        decl::<engine::CompactAnswer>(),
        decl::<tools::ToolDef>(),
        decl::<engine::SessionStatus>(),
        decl::<engine::IntentTrace>(),
        decl::<engine::RecallStatus>(),
        decl::<engine::Trace>(),
        decl::<lifecycle::inert::HostFacts>(),
        decl::<lifecycle::inert::Inert>(),
        decl::<recall::scopes::MemoryScopes>(),
        decl::<tools::expand::ExpandTarget>(),
        decl::<tools::expand::Expansion>(),
        decl::<lifecycle::trigger_timeline::ReplayStep>(),
        decl::<tools::output_standin::StandInRef>(),
        decl::<recall::skills::SkillEntry>(),
        decl::<context::map::MemoryMap>(),
        decl::<tools::output_standin::ReadMatch>(),
        decl::<tools::output_standin::OutputRead>(),
        decl::<openviking::probe::HealthProbe>(),
        decl::<openviking::probe::AuthProbe>(),
        decl::<openviking::probe::FindProbe>(),
        decl::<openviking::probe::LocalServerFacts>(),
        decl::<openviking::probe::Reachability>(),
        decl::<openviking::probe::Probe>(),
    ]
}

/// The whole declarations file (`src/wasm/types.d.ts`).
pub fn declarations() -> String {
    let mut s = String::from(
        "// TypeScript declarations of the JSON shapes that cross the wasm boundary.\n\
         // Generated from the Rust types (src/typescript/) by `UPDATE_TS=1 cargo test --test typescript_declarations`;\n\
         // do not edit: change the Rust type, or the hand-written sections in src/typescript/*.d.ts.\n\n",
    );
    s.push_str(HAND_WRITTEN_EXTERNAL.trim_end());
    s.push_str("\n\n// Generated from the Rust types.\n\n");
    for d in exported() {
        assert!(!d.inline, "{} is inline: it is rendered where it is used", d.name);
        s.push_str(&render_decl(&d));
        s.push('\n');
    }
    s.push_str(HAND_WRITTEN_HOST.trim_end());
    s.push('\n');
    s
}
