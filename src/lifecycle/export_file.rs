//! The export file of an agent (`openclaw openviking export`, read back by `import --from`):
//! JSON lines, one record each, named by `kind`:
//!
//! - `header` (first): the format, its version, the agent and when it was exported;
//! - `session`: one OpenViking session of the agent — its OpenClaw `sessionId`, its id in
//!   OpenViking, how many archives it had and how many turns follow;
//! - `turn`: one turn of it, in order — its `turnId`, its time, the archive it was in (none:
//!   live) and its agent messages (`stored_turns`), whole (tool outputs OpenViking had moved
//!   out of the message are put back);
//! - `checkpoint`: a compaction record of the session, as the engine wrote it;
//! - `memory`: one memory file — its scope (`user` or `agent`), its path under that scope's
//!   folder and its text;
//! - `end` (last): the counts, so a file cut short is known as such.
//!
//! Nothing in it is a secret of the plugin: no API key, no server address.

use crate::error::{EngineError, Result};
use serde::Serialize;
use serde_json::Value;

/// The `format` of the header line.
pub const FORMAT: &str = "openviking-context-engine-export";
/// The version this engine writes; it reads this and older.
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub format: String,
    pub version: u32,
    pub agent_id: String,
    /// When it was exported (ISO 8601).
    pub exported_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHead {
    pub session_id: String,
    pub ov_session_id: String,
    /// Archives the session had (its turns name the one each was in).
    pub archives: u64,
    /// Turns that follow.
    pub turns: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedTurn {
    pub session_id: String,
    pub turn_id: String,
    pub at_ms: Option<u64>,
    /// The archive (1-based) the turn was in; `None`: not archived yet.
    pub archive: Option<u64>,
    pub messages: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedCheckpoint {
    pub session_id: String,
    pub checkpoint: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    User,
    Agent,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedMemory {
    pub scope: MemoryScope,
    /// Under the scope's folder, `/`-separated (`preferences/editor-theme.md`).
    pub path: String,
    pub content: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExportCounts {
    pub sessions: u64,
    pub turns: u64,
    pub memories: u64,
}

/// One line of the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Line {
    Header(Header),
    Session(SessionHead),
    Turn(ExportedTurn),
    Checkpoint(ExportedCheckpoint),
    Memory(ExportedMemory),
    End(ExportCounts),
}

impl Line {
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// One line read: its `kind`, then the fields of that kind (read by hand: serde's
    /// derived readers cost the shipped wasm several times the code).
    pub fn parse(raw: &str) -> std::result::Result<Line, String> {
        let v: Value = serde_json::from_str(raw).map_err(|e| e.to_string())?;
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("a {kind} line without {k}"));
        let count = |k: &str| match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(n) => n.as_u64().map(Some).ok_or_else(|| format!("{k} of a {kind} line is not a whole number")),
        };
        let need = |k: &str| count(k)?.ok_or_else(|| format!("a {kind} line without {k}"));
        Ok(match kind {
            "header" => Line::Header(Header { format: text("format")?, version: u32::try_from(need("version")?).unwrap_or(u32::MAX), agent_id: text("agentId")?, exported_at: text("exportedAt").unwrap_or_default() }),
            "session" => Line::Session(SessionHead { session_id: text("sessionId")?, ov_session_id: text("ovSessionId").unwrap_or_default(), archives: count("archives")?.unwrap_or(0), turns: count("turns")?.unwrap_or(0) }),
            "turn" => {
                let messages = match v.get("messages") {
                    Some(Value::Array(m)) if m.iter().all(Value::is_object) => m.clone(),
                    _ => return Err("the messages of a turn line are not a list of objects".into()),
                };
                Line::Turn(ExportedTurn { session_id: text("sessionId")?, turn_id: text("turnId")?, at_ms: count("atMs")?, archive: count("archive")?, messages })
            }
            "checkpoint" => Line::Checkpoint(ExportedCheckpoint { session_id: text("sessionId")?, checkpoint: v.get("checkpoint").cloned().unwrap_or(Value::Null) }),
            "memory" => {
                let scope = match v.get("scope").and_then(Value::as_str) {
                    Some("user") => MemoryScope::User,
                    Some("agent") => MemoryScope::Agent,
                    _ => return Err("the scope of a memory line is neither user nor agent".into()),
                };
                Line::Memory(ExportedMemory { scope, path: text("path")?, content: text("content")? })
            }
            "end" => Line::End(ExportCounts { sessions: need("sessions")?, turns: need("turns")?, memories: need("memories")? }),
            "" => return Err("no kind".into()),
            other => return Err(format!("an unknown kind {:?}", crate::text::truncate_with_ellipsis(other, 40))),
        })
    }
}

/// The header line of an export of `agent_id` at `exported_at_ms`.
pub fn header_line(agent_id: &str, exported_at_ms: u64) -> String {
    Line::Header(Header { format: FORMAT.into(), version: VERSION, agent_id: agent_id.into(), exported_at: crate::text::time::iso8601(exported_at_ms) }).to_line()
}

/// The last line: what the file holds.
pub fn end_line(counts: ExportCounts) -> String {
    Line::End(counts).to_line()
}

/// Is `path` a relative path a memory may be restored to: `/`-separated plain segments, none
/// hidden (`.`-led: OpenViking's own derived files), none `..`?
pub fn memory_path_ok(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 1024
        && path.split('/').all(|s| crate::address::scopes::is_plain_segment(s) && !s.starts_with('.'))
}

/// What an export file holds, by line: which lines make each session and which are memories.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExportIndex {
    pub agent_id: String,
    pub exported_at: String,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub sessions: Vec<IndexedSession>,
    /// The lines (0-based) of the memories.
    pub memory_lines: Vec<usize>,
    /// What the `end` line counted; `None`: the file has no end (cut short).
    pub counted: Option<ExportCounts>,
    /// The file ends with its `end` line and holds what it counted.
    pub complete: bool,
    /// Lines left out, each with why (`line 7: …`).
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct IndexedSession {
    pub session_id: String,
    pub ov_session_id: String,
    pub archives: u64,
    pub turns: u64,
    /// The lines (0-based) of its head, turns and checkpoints.
    pub lines: Vec<usize>,
}

/// Reads an export file's lines into its [`ExportIndex`]. An error when the first line is not
/// this format's header (or a newer version); a line that cannot be read later is a problem
/// (a truncated last line, an unknown kind), the rest is still read.
pub fn index_export<S: AsRef<str>>(lines: &[S]) -> Result<ExportIndex> {
    let mut ix = ExportIndex::default();
    let mut seen_header = false;
    let mut memories = 0u64;
    for (n, raw) in lines.iter().enumerate() {
        let raw = raw.as_ref().trim();
        if raw.is_empty() {
            continue;
        }
        let line = Line::parse(raw);
        if !seen_header {
            match line {
                Ok(Line::Header(h)) if h.format == FORMAT => {
                    if h.version > VERSION {
                        return Err(EngineError::input("lines[0]", format!("an export of version {} (this engine reads {VERSION} and older): update the plugin", h.version)));
                    }
                    ix.agent_id = h.agent_id;
                    ix.exported_at = h.exported_at;
                    seen_header = true;
                    continue;
                }
                _ => return Err(EngineError::input(format!("lines[{n}]"), format!("is not the header of an {FORMAT} file (made by `openclaw openviking export`)"))),
            }
        }
        if ix.counted.is_some() {
            ix.problems.push(format!("line {}: after the end line; left out", n + 1));
            continue;
        }
        let session_named = |ix: &mut ExportIndex, sid: &str| -> usize {
            if let Some(i) = ix.sessions.iter().position(|s| s.session_id == sid) {
                return i;
            }
            ix.sessions.push(IndexedSession { session_id: sid.to_string(), ..Default::default() });
            ix.sessions.len() - 1
        };
        match line {
            Ok(Line::Session(h)) => {
                let i = session_named(&mut ix, &h.session_id);
                let s = &mut ix.sessions[i];
                s.ov_session_id = h.ov_session_id;
                s.archives = h.archives;
                s.lines.push(n);
            }
            Ok(Line::Turn(t)) => {
                let i = session_named(&mut ix, &t.session_id);
                ix.sessions[i].turns += 1;
                ix.sessions[i].lines.push(n);
            }
            Ok(Line::Checkpoint(c)) => {
                let i = session_named(&mut ix, &c.session_id);
                ix.sessions[i].lines.push(n);
            }
            Ok(Line::Memory(m)) => {
                if memory_path_ok(&m.path) {
                    memories += 1;
                    ix.memory_lines.push(n);
                } else {
                    ix.problems.push(format!("line {}: memory path {:?} is not a plain relative path; left out", n + 1, crate::text::truncate_with_ellipsis(&m.path, 120)));
                }
            }
            Ok(Line::End(c)) => ix.counted = Some(c),
            Ok(Line::Header(_)) => ix.problems.push(format!("line {}: a second header; left out", n + 1)),
            Err(e) => ix.problems.push(format!("line {}: cannot be read ({e}); left out", n + 1)),
        }
    }
    if !seen_header {
        return Err(EngineError::input("lines", format!("the file is empty: no {FORMAT} header")));
    }
    let turns: u64 = ix.sessions.iter().map(|s| s.turns).sum();
    ix.complete = ix.counted == Some(ExportCounts { sessions: ix.sessions.len() as u64, turns, memories });
    if ix.counted.is_none() {
        ix.problems.push("the file has no end line: it was cut short (what it holds is still restored)".into());
    } else if !ix.complete {
        ix.problems.push(format!("the end line counts {:?}, the file holds {} sessions, {turns} turns, {memories} memories", ix.counted.unwrap_or_default(), ix.sessions.len()));
    }
    Ok(ix)
}

/// One session's lines (from [`ExportIndex`]) read: its head, its turns in order and its checkpoints.
pub fn read_session<S: AsRef<str>>(lines: &[S]) -> Result<(SessionHead, Vec<ExportedTurn>, Vec<Value>)> {
    let mut head: Option<SessionHead> = None;
    let mut turns = Vec::new();
    let mut checkpoints = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        match Line::parse(raw.as_ref()) {
            Ok(Line::Session(h)) => head = Some(h),
            Ok(Line::Turn(t)) => turns.push(t),
            Ok(Line::Checkpoint(c)) => checkpoints.push(c.checkpoint),
            Ok(_) => return Err(EngineError::input(format!("lines[{i}]"), "is not a session, turn or checkpoint line")),
            Err(e) => return Err(EngineError::input(format!("lines[{i}]"), format!("cannot be read ({e})"))),
        }
    }
    let head = match head {
        Some(h) => h,
        None => {
            let t = turns.first().ok_or_else(|| EngineError::input("lines", "no session line and no turn"))?;
            SessionHead { session_id: t.session_id.clone(), ov_session_id: String::new(), archives: 0, turns: turns.len() as u64 }
        }
    };
    if let Some(t) = turns.iter().find(|t| t.session_id != head.session_id) {
        return Err(EngineError::input("lines", format!("a turn of session {} among the lines of {}", t.session_id, head.session_id)));
    }
    Ok((head, turns, checkpoints))
}

/// Memory lines read (paths checked again: the lines may not come from an index).
pub fn read_memories<S: AsRef<str>>(lines: &[S]) -> Result<Vec<ExportedMemory>> {
    let mut out = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        match Line::parse(raw.as_ref()) {
            Ok(Line::Memory(m)) if memory_path_ok(&m.path) => out.push(m),
            Ok(Line::Memory(_)) => return Err(EngineError::input(format!("lines[{i}].path"), "is not a plain relative path")),
            Ok(_) => return Err(EngineError::input(format!("lines[{i}]"), "is not a memory line")),
            Err(e) => return Err(EngineError::input(format!("lines[{i}]"), format!("cannot be read ({e})"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    fn file() -> Vec<String> {
        let turn = |sid: &str, id: &str, archive| Line::Turn(ExportedTurn { session_id: sid.into(), turn_id: id.into(), at_ms: Some(1), archive, messages: vec![json!({"role": "user", "content": "x"})] }).to_line();
        vec![
            header_line("main", 1_764_892_800_000),
            Line::Session(SessionHead { session_id: "a".into(), ov_session_id: "main--a".into(), archives: 1, turns: 2 }).to_line(),
            turn("a", "t1", Some(1)),
            turn("a", "t2", None),
            Line::Checkpoint(ExportedCheckpoint { session_id: "a".into(), checkpoint: json!({"archiveIndex": 1}) }).to_line(),
            Line::Session(SessionHead { session_id: "b".into(), ov_session_id: "main--b".into(), archives: 0, turns: 1 }).to_line(),
            turn("b", "t3", None),
            Line::Memory(ExportedMemory { scope: MemoryScope::User, path: "preferences/theme.md".into(), content: "dark".into() }).to_line(),
            Line::End(ExportCounts { sessions: 2, turns: 3, memories: 1 }).to_line(),
        ]
    }

    #[test]
    fn a_whole_file_is_indexed_by_session_and_read_back() {
        let lines = file();
        let ix = index_export(&lines).unwrap();
        assert_eq!(ix.agent_id, "main");
        assert!(ix.complete, "{:?}", ix.problems);
        assert!(ix.problems.is_empty());
        assert_eq!(ix.sessions.iter().map(|s| (s.session_id.as_str(), s.turns, s.lines.clone())).collect::<Vec<_>>(), [("a", 2, vec![1, 2, 3, 4]), ("b", 1, vec![5, 6])]);
        assert_eq!(ix.memory_lines, [7]);
        let a: Vec<&String> = ix.sessions[0].lines.iter().map(|i| &lines[*i]).collect();
        let (head, turns, checkpoints) = read_session(&a).unwrap();
        assert_eq!((head.archives, turns.len(), checkpoints.len()), (1, 2, 1));
        assert_eq!(turns[0].archive, Some(1));
        assert_eq!(read_memories(&[&lines[7]]).unwrap()[0].content, "dark");
    }

    #[test]
    fn a_file_cut_short_is_read_as_far_as_it_goes_and_said_so() {
        let mut lines = file();
        lines.truncate(7);
        lines.push("{\"kind\":\"memory\",\"scope\":\"us".into());
        let ix = index_export(&lines).unwrap();
        assert!(!ix.complete);
        assert_eq!(ix.sessions.len(), 2);
        assert!(ix.problems[0].starts_with("line 8: cannot be read"), "{:?}", ix.problems);
        assert!(ix.problems[1].contains("cut short"));
    }

    #[test]
    fn anything_else_is_refused_at_its_first_line_and_bad_memory_paths_are_left_out() {
        for first in ["", "{\"kind\":\"turn\"}", "{\"type\":\"session\",\"id\":\"x\"}", "not json"] {
            let e = index_export(&[first]).unwrap_err();
            assert!(e.field.as_deref().is_some_and(|f| f.starts_with("lines")), "{first}: {e:?}");
        }
        let newer = Line::Header(Header { format: FORMAT.into(), version: VERSION + 1, agent_id: "main".into(), exported_at: String::new() }).to_line();
        assert!(index_export(&[newer]).unwrap_err().message.contains("update the plugin"));
        for bad in ["../x.md", "/etc/passwd", "a/../../b", ".abstract.md", "a//b", "a b.md", "a\\b"] {
            assert!(!memory_path_ok(bad), "{bad}");
            let line = Line::Memory(ExportedMemory { scope: MemoryScope::Agent, path: bad.into(), content: "x".into() }).to_line();
            let ix = index_export(&[header_line("main", 0), line.clone()]).unwrap();
            assert!(ix.memory_lines.is_empty() && ix.problems[0].contains("not a plain relative path"), "{bad}");
            assert!(read_memories(&[line]).is_err());
        }
        assert!(memory_path_ok("preferences/editor-theme_2.md"));
    }
}
