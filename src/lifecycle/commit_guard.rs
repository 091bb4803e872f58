//! Protection around commits (the design leaves §3.2 "保护机制" empty; this defines it):
//!
//! - **one commit in flight per session**: a commit is `archiving` from the request until
//!   OpenViking answers (phase 1: archive and clear the live messages), then `extracting`
//!   while its task (summary + memory extraction) runs;
//! - **minimum spacing** of [`MIN_AUTO_SPACING_MS`] between automatic commits;
//! - **back-off** after a failed commit: 30 s, doubling per consecutive failure, at most
//!   15 min; a success resets it;
//! - `compact()` (forced) ignores spacing and back-off but never runs two commits at once: it
//!   waits for the one in flight;
//! - **turns arriving while a commit runs** go into the same OpenViking session: while
//!   `archiving` they are held and written as soon as the commit call returns (so they are
//!   never archived half-way); while `extracting` they are written at once — in OpenViking
//!   0.5.x the archive is already cut, so they belong to the next window.
//!
//! Pure data + transitions; serializable, so a pending task survives the process.

use serde::{Deserialize, Serialize};

pub const MIN_AUTO_SPACING_MS: u64 = 60_000;
pub const BACKOFF_BASE_MS: u64 = 30_000;
pub const BACKOFF_MAX_MS: u64 = 15 * 60_000;
/// An `archiving` phase older than this is taken as lost (process died mid-call).
pub const ARCHIVING_STALE_MS: u64 = 5 * 60_000;

/// Written as an internally tagged object (`{"phase": "archiving", "since_ms": …, "forced": …}`);
/// read by hand ([`phase_from_value`]): serde's derive for an internally tagged enum buffers
/// the object and was 11 KB of the plugin's wasm.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum CommitPhase {
    #[default]
    Idle,
    Archiving { since_ms: u64, forced: bool },
    Extracting { since_ms: u64, task_id: String, archive_uri: String, start_sequence: u64, end_sequence: u64 },
}

impl<'de> Deserialize<'de> for CommitPhase {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        phase_from_value(serde_json::Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A [`CommitPhase`] from its object, as the derive for `tag = "phase"` reads it: the tag
/// names the variant, the variant's fields are required, other members are ignored; the
/// errors are serde's (`missing field`, `unknown variant`, a field's `invalid type`).
fn phase_from_value(v: serde_json::Value) -> Result<CommitPhase, serde_json::Error> {
    use serde::de::{Error, Unexpected};
    let serde_json::Value::Object(mut m) = v else {
        let unexpected = match &v {
            serde_json::Value::Null => Unexpected::Unit,
            serde_json::Value::Bool(b) => Unexpected::Bool(*b),
            serde_json::Value::Number(_) => Unexpected::Other("number"),
            serde_json::Value::String(s) => Unexpected::Str(s),
            _ => Unexpected::Seq,
        };
        return Err(Error::invalid_type(unexpected, &"internally tagged enum CommitPhase"));
    };
    fn field<T: serde::de::DeserializeOwned>(m: &mut serde_json::Map<String, serde_json::Value>, key: &'static str) -> Result<T, serde_json::Error> {
        T::deserialize(m.remove(key).ok_or_else(|| Error::missing_field(key))?)
    }
    let tag: String = field(&mut m, "phase")?;
    Ok(match tag.as_str() {
        "idle" => CommitPhase::Idle,
        "archiving" => CommitPhase::Archiving { since_ms: field(&mut m, "since_ms")?, forced: field(&mut m, "forced")? },
        "extracting" => CommitPhase::Extracting {
            since_ms: field(&mut m, "since_ms")?,
            task_id: field(&mut m, "task_id")?,
            archive_uri: field(&mut m, "archive_uri")?,
            start_sequence: field(&mut m, "start_sequence")?,
            end_sequence: field(&mut m, "end_sequence")?,
        },
        other => return Err(Error::unknown_variant(other, &["idle", "archiving", "extracting"])),
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct CommitGuard {
    pub phase: CommitPhase,
    pub last_auto_commit_at_ms: Option<u64>,
    pub consecutive_failures: u32,
    pub backoff_until_ms: Option<u64>,
    /// The back-off is for an outage (OpenViking unreachable, the outbox not sent): it ends
    /// as soon as a turn reaches OpenViking again, not at its time.
    pub outage: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "blocked", rename_all = "snake_case")]
pub enum Admission {
    Start,
    InFlight,
    Spacing { until_ms: u64 },
    BackingOff { until_ms: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnRouting {
    WriteNow,
    HoldUntilArchived,
}

pub fn backoff_ms(failures: u32) -> u64 {
    if failures == 0 {
        return 0;
    }
    BACKOFF_BASE_MS.saturating_mul(1u64 << (failures - 1).min(20)).min(BACKOFF_MAX_MS)
}

impl CommitGuard {
    fn in_flight(&self, now_ms: u64) -> bool {
        match self.phase {
            CommitPhase::Idle => false,
            CommitPhase::Archiving { since_ms, .. } => now_ms.saturating_sub(since_ms) < ARCHIVING_STALE_MS,
            CommitPhase::Extracting { .. } => true,
        }
    }

    /// May a commit start now? `forced` is `compact()`; otherwise a trigger.
    pub fn admit(&self, now_ms: u64, forced: bool) -> Admission {
        if self.in_flight(now_ms) {
            return Admission::InFlight;
        }
        if forced {
            return Admission::Start;
        }
        if let Some(until) = self.backoff_until_ms.filter(|u| *u > now_ms) {
            return Admission::BackingOff { until_ms: until };
        }
        if let Some(last) = self.last_auto_commit_at_ms {
            let until = last + MIN_AUTO_SPACING_MS;
            if now_ms < until {
                return Admission::Spacing { until_ms: until };
            }
        }
        Admission::Start
    }

    /// Where a turn arriving now goes.
    pub fn route_turn(&self, now_ms: u64) -> TurnRouting {
        match self.phase {
            CommitPhase::Archiving { since_ms, .. } if now_ms.saturating_sub(since_ms) < ARCHIVING_STALE_MS => {
                TurnRouting::HoldUntilArchived
            }
            _ => TurnRouting::WriteNow,
        }
    }

    pub fn on_commit_requested(&mut self, now_ms: u64, forced: bool) {
        self.phase = CommitPhase::Archiving { since_ms: now_ms, forced };
        if !forced {
            self.last_auto_commit_at_ms = Some(now_ms);
        }
    }

    /// OpenViking accepted the commit: the archive is cut, the task runs.
    pub fn on_commit_accepted(&mut self, now_ms: u64, task_id: String, archive_uri: String, start_sequence: u64, end_sequence: u64) {
        self.phase = CommitPhase::Extracting { since_ms: now_ms, task_id, archive_uri, start_sequence, end_sequence };
    }

    /// OpenViking had nothing to archive.
    pub fn on_commit_skipped(&mut self) {
        self.phase = CommitPhase::Idle;
    }

    /// The commit call or its task failed: the raw session is intact; back off.
    pub fn on_failure(&mut self, now_ms: u64) {
        self.phase = CommitPhase::Idle;
        self.outage = false;
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        self.backoff_until_ms = Some(now_ms + backoff_ms(self.consecutive_failures));
    }

    /// OpenViking could not be reached for the commit (or the turns before it): back off
    /// as for a failure, until the server is seen again ([`CommitGuard::on_reachable`]).
    pub fn on_outage(&mut self, now_ms: u64) {
        self.on_failure(now_ms);
        self.outage = true;
    }

    /// A turn reached OpenViking: an outage's back-off is over (a failed commit task's is
    /// not — the server answered then too).
    pub fn on_reachable(&mut self) {
        if self.outage {
            self.outage = false;
            self.consecutive_failures = 0;
            self.backoff_until_ms = None;
        }
    }

    /// The task completed.
    pub fn on_task_completed(&mut self) {
        self.phase = CommitPhase::Idle;
        self.consecutive_failures = 0;
        self.backoff_until_ms = None;
    }

    /// The task being followed, if any.
    pub fn pending_task(&self) -> Option<&str> {
        match &self.phase {
            CommitPhase::Extracting { task_id, .. } => Some(task_id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn one_commit_at_a_time_spacing_and_backoff() {
        let mut g = CommitGuard::default();
        assert_eq!(g.admit(0, false), Admission::Start);
        g.on_commit_requested(0, false);
        assert_eq!(g.admit(1, true), Admission::InFlight, "even compact() waits");
        assert_eq!(g.route_turn(1), TurnRouting::HoldUntilArchived);
        g.on_commit_accepted(10, "t1".into(), "a".into(), 0, 4);
        assert_eq!(g.route_turn(11), TurnRouting::WriteNow);
        assert_eq!(g.pending_task(), Some("t1"));
        g.on_task_completed();
        assert_eq!(g.admit(30_000, false), Admission::Spacing { until_ms: 60_000 });
        assert_eq!(g.admit(30_000, true), Admission::Start);
        assert_eq!(g.admit(60_000, false), Admission::Start);
        g.on_commit_requested(60_000, false);
        g.on_failure(61_000);
        assert_eq!(g.admit(62_000, false), Admission::BackingOff { until_ms: 91_000 });
        g.on_commit_requested(200_000, false);
        g.on_failure(200_000);
        assert_eq!(g.backoff_until_ms, Some(260_000), "doubles");
        g.on_commit_requested(300_000, true);
        g.on_commit_accepted(300_001, "t2".into(), "a2".into(), 5, 9);
        g.on_task_completed();
        assert_eq!(g.consecutive_failures, 0);
        assert_eq!(backoff_ms(30), BACKOFF_MAX_MS);
    }

    #[test]
    fn an_outage_back_off_ends_when_openviking_is_reached_a_task_failure_back_off_does_not() {
        let mut g = CommitGuard::default();
        g.on_outage(1_000);
        g.on_outage(2_000);
        assert!(matches!(g.admit(3_000, false), Admission::BackingOff { until_ms: 62_000 }));
        g.on_reachable();
        assert_eq!(g.admit(3_000, false), Admission::Start, "a turn reached OpenViking: the outage is over");
        g.on_failure(4_000);
        g.on_reachable();
        assert!(matches!(g.admit(5_000, false), Admission::BackingOff { .. }), "a failed task backs off for its time");
    }

    #[test]
    fn a_stale_archiving_phase_does_not_block_forever() {
        let mut g = CommitGuard::default();
        g.on_commit_requested(0, true);
        assert_eq!(g.admit(ARCHIVING_STALE_MS + 1, true), Admission::Start);
        assert_eq!(g.route_turn(ARCHIVING_STALE_MS + 1), TurnRouting::WriteNow);
    }

    /// The hand-written read accepts and refuses what the derive for `tag = "phase"` did.
    #[test]
    fn the_phase_reads_as_an_internally_tagged_enum() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(tag = "phase", rename_all = "snake_case")]
        enum Derived {
            Idle,
            Archiving { since_ms: u64, forced: bool },
            Extracting { since_ms: u64, task_id: String, archive_uri: String, start_sequence: u64, end_sequence: u64 },
        }
        let same = |a: &CommitPhase, b: &Derived| match (a, b) {
            (CommitPhase::Idle, Derived::Idle) => true,
            (CommitPhase::Archiving { since_ms, forced }, Derived::Archiving { since_ms: s, forced: f }) => since_ms == s && forced == f,
            (CommitPhase::Extracting { since_ms, task_id, archive_uri, start_sequence, end_sequence }, Derived::Extracting { since_ms: s, task_id: t, archive_uri: a, start_sequence: b, end_sequence: e }) => {
                since_ms == s && task_id == t && archive_uri == a && start_sequence == b && end_sequence == e
            }
            _ => false,
        };
        let cases = [
            serde_json::json!({"phase": "idle"}),
            serde_json::json!({"phase": "idle", "since_ms": "ignored"}),
            serde_json::json!({"phase": "archiving", "since_ms": 5, "forced": true, "extra": [1]}),
            serde_json::json!({"phase": "extracting", "since_ms": 5, "task_id": "t", "archive_uri": "a", "start_sequence": 1, "end_sequence": 4}),
            serde_json::json!({"phase": "archiving", "since_ms": 5}),
            serde_json::json!({"phase": "archiving", "since_ms": null, "forced": false}),
            serde_json::json!({"phase": "extracting", "since_ms": 5, "task_id": 7, "archive_uri": "a", "start_sequence": 1, "end_sequence": 4}),
            serde_json::json!({"phase": "waiting"}),
            serde_json::json!({"since_ms": 5}),
            serde_json::json!("idle"),
            serde_json::json!(null),
        ];
        for case in cases {
            let ours = serde_json::from_value::<CommitPhase>(case.clone());
            let derived = serde_json::from_value::<Derived>(case.clone());
            match (&ours, &derived) {
                (Ok(a), Ok(b)) => assert!(same(a, b), "{case}: {a:?} vs {b:?}"),
                (Err(a), Err(b)) if case.is_object() => assert_eq!(a.to_string(), b.to_string(), "{case}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{case}: {ours:?} vs {derived:?}"),
            }
        }
    }

    #[test]
    fn state_round_trips_as_json() {
        let mut g = CommitGuard::default();
        g.on_commit_accepted(5, "task-9".into(), "viking://x/history/archive_002".into(), 3, 7);
        let back: CommitGuard = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
        assert_eq!(back, g);
    }
}
