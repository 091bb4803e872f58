//! Telling how long ago something happened when the host's wall clock may jump (an NTP step,
//! a suspended laptop, a user setting the date, a host that answers nonsense). A wait inside
//! one process is measured on the host's monotonic clock when it has one
//! ([`Clock::monotonic_ms`]); a stamp that crosses processes (a write-ahead mark, a pause
//! kept in the state dir) is wall-clock time and is trusted only when it is plausible: a
//! time in this millennium and not later than now. A wait whose start cannot be told is
//! over — a clock never makes the engine wait for ever.

use super::Clock;

/// The earliest wall-clock reading taken for a time (2000-01-01): below it, a clock
/// answering 0 or a value in seconds.
pub const WALL_MIN_MS: u64 = 946_684_800_000;
/// The latest wall-clock reading taken for a time (3000-01-01): above it, a clock answering
/// 1e300 or a value in microseconds.
pub const WALL_MAX_MS: u64 = 32_503_680_000_000;

/// Whether a wall-clock reading can be a time at all (see [`WALL_MIN_MS`], [`WALL_MAX_MS`]).
pub fn plausible_wall_ms(ms: u64) -> bool {
    (WALL_MIN_MS..=WALL_MAX_MS).contains(&ms)
}

/// The time from a wall-clock stamp to `now_ms`; `None` when it cannot be told: either
/// reading is not a plausible time, or the stamp is later than now (the clock went back, or
/// was ahead when the stamp was taken).
pub fn wall_elapsed_ms(stamp_ms: u64, now_ms: u64) -> Option<u64> {
    if !plausible_wall_ms(stamp_ms) || !plausible_wall_ms(now_ms) {
        return None;
    }
    now_ms.checked_sub(stamp_ms)
}

/// A moment in this process, read from both of the host's clocks: what an in-process wait is
/// measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Moment {
    /// The wall clock (what is kept when the moment must outlive the process).
    pub wall_ms: u64,
    /// The monotonic clock, when the host has one.
    pub mono_ms: Option<u64>,
}

impl Moment {
    pub fn now(clock: &impl Clock) -> Moment {
        Moment { wall_ms: clock.now_ms(), mono_ms: clock.monotonic_ms() }
    }

    /// The time since this moment: on the monotonic clock when both readings have it (a
    /// monotonic clock that went back cannot tell), else [`wall_elapsed_ms`].
    pub fn elapsed_ms(&self, clock: &impl Clock) -> Option<u64> {
        match (self.mono_ms, clock.monotonic_ms()) {
            (Some(then), Some(now)) => now.checked_sub(then),
            _ => wall_elapsed_ms(self.wall_ms, clock.now_ms()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use std::cell::Cell;

    const NOW: u64 = 1_764_000_000_000;

    struct Two {
        wall: Cell<u64>,
        mono: Cell<Option<u64>>,
    }

    impl Clock for Two {
        fn now_ms(&self) -> u64 {
            self.wall.get()
        }
        fn monotonic_ms(&self) -> Option<u64> {
            self.mono.get()
        }
        async fn sleep(&self, _ms: u64) {}
        fn warn(&self, _message: &str) {}
    }

    #[test]
    fn a_stamp_from_the_future_or_from_no_time_at_all_cannot_tell_an_elapsed_time() {
        assert_eq!(wall_elapsed_ms(NOW, NOW + 5), Some(5));
        assert_eq!(wall_elapsed_ms(NOW + 86_400_000, NOW), None, "stamped while the clock was a day ahead");
        assert_eq!(wall_elapsed_ms(u64::MAX, u64::MAX), None, "a clock of 1e300");
        assert_eq!(wall_elapsed_ms(0, NOW), None);
        assert_eq!(wall_elapsed_ms(NOW, 0), None);
        assert_eq!(wall_elapsed_ms(NOW / 1000, NOW / 1000 + 5), None, "seconds, not ms");
    }

    #[test]
    fn a_moment_is_measured_on_the_monotonic_clock_whatever_the_wall_clock_does() {
        let c = Two { wall: Cell::new(NOW), mono: Cell::new(Some(500)) };
        let start = Moment::now(&c);
        c.wall.set(NOW + 86_400_000);
        c.mono.set(Some(1_500));
        assert_eq!(start.elapsed_ms(&c), Some(1_000), "the wall clock jumped a day; a second passed");
        c.wall.set(NOW - 86_400_000);
        assert_eq!(start.elapsed_ms(&c), Some(1_000));
        c.mono.set(Some(400));
        assert_eq!(start.elapsed_ms(&c), None, "a monotonic clock that went back cannot tell");
        let walled = Two { wall: Cell::new(NOW), mono: Cell::new(None) };
        let start = Moment::now(&walled);
        walled.wall.set(NOW + 700);
        assert_eq!(start.elapsed_ms(&walled), Some(700), "no monotonic clock: the wall clock, when plausible");
    }
}
