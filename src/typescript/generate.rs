//! The declarations generated from the Rust types, laid out as the checked-in file.

use ts_rs::{Config, TS};

/// Hand-written: shapes from OpenClaw and OpenViking the engine reads leniently, and errors.
pub const HAND_WRITTEN_EXTERNAL: &str = include_str!("external.d.ts");

/// Hand-written: the inputs the engine parses by hand (and `PluginConfig`).
pub const HAND_WRITTEN_INPUTS: &str = include_str!("inputs.d.ts");

/// Hand-written: the host callbacks (`HostCallbacks`, `HostErrorKind`, `OpenVikingMessage`,
/// `OutboxEntry`), kept in one file for whoever changes the host.
pub const HAND_WRITTEN_HOST: &str = include_str!("host.d.ts");

/// One exported declaration: its TSDoc and `export type Name = …;`, an object type one
/// member a line, and the docs saying `null` where the Rust says `None`.
fn export<T: TS>(cfg: &Config) -> String {
    let doc = T::docs().unwrap_or_default();
    format!("{doc}export {}\n", layout(&T::decl(cfg))).replace("`None`", "`null`")
}

/// Lays out a declaration as ts-rs writes it on one line (docs included): the members of
/// its outermost object types one a line, indented; a short one without docs stays as is.
fn layout(decl: &str) -> String {
    if !decl.contains('\n') && decl.len() <= 100 {
        return decl.to_string();
    }
    let mut out = String::new();
    let mut nest: Vec<char> = Vec::new();
    let mut line_start = false;
    let mut chars = decl.chars().peekable();
    while let Some(c) = chars.next() {
        let top = nest.len() == 1 && nest[0] == '{';
        if line_start {
            if c == ' ' || c == '\n' {
                continue;
            }
            if c != '}' || !top {
                out.push_str(if c == '*' { "   " } else { "  " });
            }
            line_start = false;
        }
        match c {
            '/' if chars.peek() == Some(&'*') => {
                // a doc comment, copied line by line
                out.push('/');
                let mut prev = '/';
                while let Some(d) = chars.next() {
                    if d == '\n' {
                        out.push('\n');
                        out.push_str(if top { "   " } else { " " });
                        while chars.peek() == Some(&' ') {
                            chars.next();
                        }
                        prev = ' ';
                        continue;
                    }
                    out.push(d);
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                if top {
                    // the member follows on the next line
                    out.push('\n');
                    line_start = true;
                }
            }
            '"' => {
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == '"' {
                        break;
                    }
                }
            }
            '{' | '[' | '(' | '<' => {
                out.push(c);
                if nest.is_empty() && c == '{' {
                    out.push('\n');
                    line_start = true;
                }
                nest.push(c);
            }
            '}' | ']' | ')' | '>' => {
                nest.pop();
                if nest.is_empty() && c == '}' && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push(c);
            }
            ',' if top => {
                out.push_str(",\n");
                line_start = true;
            }
            '\n' if top => {
                out.push('\n');
                line_start = true;
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every generated declaration, in file order.
pub fn exported() -> Vec<String> {
    use crate::*;
    // integers cross as JSON numbers
    let cfg = &Config::new().with_large_int("number");
    vec![
        export::<config::Config>(cfg),
        export::<config::ConfigProblem>(cfg),
        export::<config::ParsedConfig>(cfg),
        export::<config::ConfigCheck>(cfg),
        export::<config::KeyBounds>(cfg),
        export::<recall::query::SkipReason>(cfg),
        export::<recall::query::QueryPart>(cfg),
        export::<recall::query::RecallQuery>(cfg),
        export::<recall::intent::MemoryType>(cfg),
        export::<recall::intent::TimeWindow>(cfg),
        export::<recall::intent::RecallIntent>(cfg),
        export::<recall::rank::QueryProfile>(cfg),
        export::<recall::rank::RankParts>(cfg),
        export::<recall::explain::CutReason>(cfg),
        export::<recall::explain::ExplainRecord>(cfg),
        export::<message::synthetic::RecalledMemory>(cfg),
        export::<recall::experience::ExperienceCandidate>(cfg),
        export::<recall::experience::ExperienceCut>(cfg),
        export::<recall::experience::ExperienceRecord>(cfg),
        export::<recall::RecallOutcome>(cfg),
        export::<recall::auto::AutoRecall>(cfg),
        export::<recall::auto::RecallAnswer>(cfg),
        export::<lifecycle::capture::CaptureReason>(cfg),
        export::<lifecycle::triggers::Trigger>(cfg),
        export::<engine::FlushReport>(cfg),
        export::<engine::WriteOutcome>(cfg),
        export::<lifecycle::checkpoint::CompactCheckpoint>(cfg),
        export::<engine::CommitOutcome>(cfg),
        export::<lifecycle::transcript::Skipped>(cfg),
        export::<engine::ImportReport>(cfg),
        export::<engine::ExportStart>(cfg),
        export::<engine::ExportLines>(cfg),
        export::<lifecycle::export_file::ExportCounts>(cfg),
        export::<lifecycle::export_file::IndexedSession>(cfg),
        export::<lifecycle::export_file::ExportIndex>(cfg),
        export::<engine::RestoreReport>(cfg),
        export::<engine::MemoryRestoreReport>(cfg),
        export::<engine::SessionRecord>(cfg),
        export::<context::assemble::AssembleResult>(cfg),
        export::<engine::Assembled>(cfg),
        export::<engine::CompactAnswer>(cfg),
        export::<tools::ToolDef>(cfg),
        export::<engine::SessionStatus>(cfg),
        export::<engine::IntentTrace>(cfg),
        export::<engine::RecallStatus>(cfg),
        export::<engine::Trace>(cfg),
        export::<lifecycle::inert::HostFacts>(cfg),
        export::<lifecycle::inert::Inert>(cfg),
        export::<address::scopes::MemoryScopes>(cfg),
        export::<tools::expand::ExpandTarget>(cfg),
        export::<tools::expand::Expansion>(cfg),
        export::<lifecycle::trigger_timeline::TimelineStep>(cfg),
        export::<tools::output_standin::StandInRef>(cfg),
        export::<recall::skills::SkillEntry>(cfg),
        export::<context::map::MemoryMap>(cfg),
        export::<tools::output_standin::ReadMatch>(cfg),
        export::<tools::output_standin::OutputRead>(cfg),
        export::<openviking::probe::HealthProbe>(cfg),
        export::<openviking::probe::AuthProbe>(cfg),
        export::<openviking::probe::FindProbe>(cfg),
        export::<openviking::probe::LocalServerFacts>(cfg),
        export::<openviking::probe::Reachability>(cfg),
        export::<openviking::probe::Probe>(cfg),
        export::<openviking::admin::UserKey>(cfg),
    ]
}

/// The whole declarations file (`src/wasm/types.d.ts`).
pub fn declarations() -> String {
    let mut s = String::from(
        "// TypeScript declarations of the JSON shapes that cross the wasm boundary.\n\
         // Generated from the Rust types (ts-rs, src/typescript/) by\n\
         // `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`;\n\
         // do not edit: change the Rust type, or the hand-written sections in src/typescript/*.d.ts.\n\n",
    );
    for part in [HAND_WRITTEN_EXTERNAL, HAND_WRITTEN_INPUTS] {
        s.push_str(part.trim_end());
        s.push_str("\n\n");
    }
    s.push_str("// Generated from the Rust types.\n\n");
    for d in exported() {
        s.push_str(&d);
        s.push('\n');
    }
    s.push_str(HAND_WRITTEN_HOST.trim_end());
    s.push('\n');
    s
}
