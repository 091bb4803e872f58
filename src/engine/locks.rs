//! Locks shared by every process on one state dir (a gateway and a CLI turn, two terminals
//! on one agent, `openclaw openviking flush`). Two per session:
//! - the write lock (the outbox's own key): an append, the sequence it takes, and a drop
//!   happen under it — short, held only across local file operations;
//! - the replay lease (`replay/<ov session id>`): one process at a time sends the outbox to
//!   OpenViking, drops what landed and starts a commit — held across network calls.
//!
//! The host takes a lock without waiting (`Storage::try_lock`); a holder that died or
//! outlived its time loses it. The engine polls with a growing pause, within a bound
//! measured on the host's monotonic clock where it has one (`host::clock::Moment`).

use super::Engine;
use crate::host::clock::Moment;
use crate::host::{Host, HostResult};

/// How long a write lock may be held before another process takes it (a hung holder).
pub(super) const WRITE_LOCK_TTL_MS: u64 = 60_000;
/// How long a replay lease may be held (a replay of a long outbox against a slow server).
pub(super) const REPLAY_LEASE_TTL_MS: u64 = 600_000;
/// How long a replay waits for another process's replay before it leaves the turns to it.
pub(super) const REPLAY_WAIT_MS: u64 = 3_000;

/// Tries of a lock before giving up, whatever the clock says (a wait of 10 minutes at the
/// longest pause is 6,000 tries).
const MAX_TRIES: u32 = 6_000;

pub(super) fn replay_lease(ov_id: &str) -> String {
    format!("replay/{ov_id}")
}

impl<H: Host> Engine<H> {
    /// Takes the lock `name`, polling for up to `wait_ms`: `Ok(false)` when another holder
    /// kept it that long. A failed try is followed by an unlock (a try that timed out may
    /// still take the lock later; the host orders the unlock after it).
    pub(super) async fn take_lock(&self, name: &str, ttl_ms: u64, wait_ms: u64) -> HostResult<bool> {
        let mut start = Moment::now(&self.host);
        // the pauses asked for so far: the least the wait has lasted, whatever the clock says
        // (a clock that answers nonsense cannot stretch the wait to the tries' bound)
        let mut slept = 0u64;
        let mut pause = 5;
        // bounded in tries too: a host whose sleep returns at once (or whose clock stands
        // still) must not turn the wait into a loop that never yields to its timers
        for _ in 0..MAX_TRIES {
            match self.host.try_lock(name, ttl_ms).await {
                Ok(true) => return Ok(true),
                Ok(false) => {}
                Err(e) => {
                    let _ = self.host.unlock(name).await;
                    return Err(e);
                }
            }
            match start.elapsed_ms(&self.host) {
                Some(waited) if waited.max(slept) >= wait_ms => return Ok(false),
                Some(_) => {}
                // the clock went back or answers nonsense: the pauses alone measure the wait
                None if slept >= wait_ms => return Ok(false),
                None => start = Moment::now(&self.host),
            }
            self.host.sleep(pause).await;
            slept = slept.saturating_add(pause);
            pause = (pause * 2).min(100);
        }
        Ok(false)
    }

    /// Gives a lock back; a failure is only worth a warning (the lock expires).
    pub(super) async fn give_lock(&self, name: &str) {
        if let Err(e) = self.host.unlock(name).await {
            self.host.warn(&format!("could not release the lock {name} ({e}); it expires on its own"));
        }
    }
}
