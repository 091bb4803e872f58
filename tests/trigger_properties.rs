//! Properties of the compaction triggers and the commit protection state machine.
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::lifecycle::commit_guard::{Admission, CommitGuard, CommitPhase, TurnRouting};
use openviking_context_engine::config::Config;
use openviking_context_engine::lifecycle::triggers::{allocate_sequence, evaluate, record_commit, record_turn, snapshot_window, SessionState};
use proptest::prelude::*;

fn config(turns: u64, tokens: u64, minutes: u64) -> Config {
    let mut c = Config::default();
    c.compact_turn_threshold = turns;
    c.compact_tokens_added_threshold = tokens;
    c.compact_max_interval_minutes = minutes;
    c
}

#[derive(Debug, Clone)]
enum Op {
    Turn { tokens: u64, counts: bool, dt: u64 },
    Commit { dt: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u64..2000, any::<bool>(), 0u64..600_000).prop_map(|(tokens, counts, dt)| Op::Turn { tokens, counts, dt }),
        1 => (0u64..600_000).prop_map(|dt| Op::Commit { dt }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn small_talk_alone_never_triggers(ops in prop::collection::vec((0u64..5000, 0u64..10_000_000), 0..60),
                                       turns in 1u64..30, tokens in 100u64..5000, minutes in 1u64..60) {
        let c = config(turns, tokens, minutes);
        let mut s = SessionState { token_budget: Some(1000), context_tokens: 5000, ..Default::default() };
        let mut now = 0;
        for (t, dt) in ops {
            now += dt;
            allocate_sequence(&mut s);
            record_turn(&mut s, t, false, now);
            prop_assert_eq!(evaluate(&s, &c, now), None);
        }
    }

    #[test]
    fn the_turn_trigger_fires_exactly_at_its_threshold(turns in 1u64..40) {
        let c = config(turns, u64::MAX / 4, 100_000);
        let mut s = SessionState::default();
        for i in 1..=turns {
            allocate_sequence(&mut s);
            record_turn(&mut s, 1, true, 0);
            prop_assert_eq!(evaluate(&s, &c, 0).is_some(), i >= turns);
        }
    }

    #[test]
    fn commits_cover_contiguous_ranges_and_counters_never_go_negative(ops in prop::collection::vec(op(), 1..80)) {
        let mut s = SessionState::default();
        let mut now = 0;
        let mut covered_until: Option<u64> = None;
        for o in ops {
            match o {
                Op::Turn { tokens, counts, dt } => {
                    now += dt;
                    allocate_sequence(&mut s);
                    record_turn(&mut s, tokens, counts, now);
                    s.window_turn_ids.push(format!("t{}", s.next_sequence - 1));
                }
                Op::Commit { dt } => {
                    if s.turns_since_commit == 0 { continue; }
                    now += dt;
                    snapshot_window(&mut s);
                    let (start, end, ids) = record_commit(&mut s, now);
                    prop_assert_eq!(start, covered_until.map_or(0, |e| e + 1), "ranges are contiguous");
                    prop_assert!(end >= start);
                    prop_assert_eq!(ids.len() as u64, end - start + 1);
                    covered_until = Some(end);
                    prop_assert_eq!(s.turns_since_commit, 0);
                    prop_assert_eq!(s.counted_turns_since_commit, 0);
                }
            }
            prop_assert!(s.counted_turns_since_commit <= s.turns_since_commit);
        }
    }

    #[test]
    fn never_two_commits_in_flight(steps in prop::collection::vec((0u8..5, 0u64..400_000, any::<bool>()), 1..100)) {
        let mut g = CommitGuard::default();
        let mut now = 0;
        for (what, dt, forced) in steps {
            now += dt;
            let in_flight = match g.phase {
                CommitPhase::Idle => false,
                CommitPhase::Archiving { since_ms, .. } => now - since_ms < openviking_context_engine::lifecycle::commit_guard::ARCHIVING_STALE_MS,
                CommitPhase::Extracting { .. } => true,
            };
            let adm = g.admit(now, forced);
            if in_flight {
                prop_assert_eq!(adm, Admission::InFlight);
            }
            if matches!(g.phase, CommitPhase::Archiving { .. }) && in_flight {
                prop_assert_eq!(g.route_turn(now), TurnRouting::HoldUntilArchived);
            } else {
                prop_assert_eq!(g.route_turn(now), TurnRouting::WriteNow);
            }
            match (what, adm) {
                (0, Admission::Start) => g.on_commit_requested(now, forced),
                (1, _) if matches!(g.phase, CommitPhase::Archiving { .. }) => g.on_commit_accepted(now, "t".into(), "a".into(), 0, 0),
                (2, _) if !matches!(g.phase, CommitPhase::Idle) => g.on_failure(now),
                (3, _) if matches!(g.phase, CommitPhase::Extracting { .. }) => g.on_task_completed(),
                _ => {}
            }
            if let Some(until) = g.backoff_until_ms {
                prop_assert!(until <= now + openviking_context_engine::lifecycle::commit_guard::BACKOFF_MAX_MS);
            }
        }
    }
}
