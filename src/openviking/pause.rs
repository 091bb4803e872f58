//! The rules of a pause: how long a server that stopped answering is not asked again, how a
//! pause is kept for the next process, and whose it is. The transport wrapper that applies
//! them is [`super::pausing`].
//!
//! - A pause starts when a request got no answer within its timeout, counted from that
//!   failure: the request's timeout, doubled on each pause that follows one ending in no
//!   answer again (within [`MAX_PAUSE_MS`] of its end), up to [`MAX_PAUSE_MS`] (2 minutes).
//!   Any answer (even an error status) ends the pause and the doubling.
//! - When a pause has run out and no answer came since, the next request is preceded by a
//!   probe: `GET /health` within [`PROBE_TIMEOUT_MS`]. Silent: a new (doubled) pause, and the
//!   request fails at once — so a turn after a pause costs at most the probe, never a whole
//!   timeout, however long the gap between one-process-per-turn CLI turns was. Every
//!   [`FULL_PROBE_EVERY`]th probe in a row waits the request's whole timeout instead
//!   ([`probe_timeout_ms`]), so a server that is only slower than the short probe (far away,
//!   overloaded) is found again.
//! - A pause belongs to one server as one caller: it is kept in the state dir under
//!   [`pause_key`] (a digest of the base URL and a hash of the API key — the key itself is
//!   never written), with the base URL, the key's hash and the timeout it was set with; a kept
//!   pause of another base URL, key or timeout (the config changed) is no pause. It is a
//!   cache: losing it costs one more timeout.
//! - A pause never outlasts its length, whatever the wall clock does: the process that
//!   paused measures it on the host's monotonic clock (`host::clock::Moment`); a kept pause
//!   that ends later than the longest pause from now — set while the clock was ahead, or by a
//!   clock answering nonsense — is over.

use crate::host::clock::{plausible_wall_ms, Moment};
use crate::host::Clock;
use serde_json::{json, Value};

/// The longest pause, however often the server failed to answer.
pub const MAX_PAUSE_MS: u64 = 120_000;
/// How long the probe after a pause waits for `GET /health` (at most the request's timeout).
pub const PROBE_TIMEOUT_MS: u64 = 600;
/// Of the probes in a row that met silence, every this-many-th waits the whole timeout.
pub const FULL_PROBE_EVERY: u32 = 6;
/// How often a process reads the kept pause again (another process, or another agent's
/// engine in this one, may have paused or heard the server meanwhile).
pub const REREAD_MS: u64 = 1_000;
/// Where the state dir keeps the pauses, one document per server and key.
pub const PAUSE_PREFIX: &str = "openviking/paused/";

/// Whose pause it is: one server, as one caller, with one timeout.
#[derive(Debug, Clone, PartialEq)]
pub struct PauseScope {
    pub base_url: String,
    /// The first 16 hex digits of a digest of the API key ("" without a key).
    pub key_hash: String,
    /// The configured timeout: a pause set with another one is over (the config changed).
    pub timeout_ms: u64,
}

impl PauseScope {
    pub fn new(base_url: &str, api_key: Option<&str>, timeout_ms: u64) -> Self {
        PauseScope { base_url: base_url.trim_end_matches('/').to_string(), key_hash: key_hash(api_key), timeout_ms }
    }

    /// The state key of this scope's pause.
    pub fn state_key(&self) -> String {
        pause_key(&self.base_url, &self.key_hash)
    }
}

/// A digest of the API key that names it without revealing it ("" for no key).
pub fn key_hash(api_key: Option<&str>) -> String {
    match api_key.filter(|k| !k.is_empty()) {
        Some(k) => crate::text::sha256::sha256_hex(format!("openviking-pause\0{k}").as_bytes())[..16].to_string(),
        None => String::new(),
    }
}

/// `openviking/paused/<first 32 hex digits of sha256(baseUrl \0 keyHash)>`.
pub fn pause_key(base_url: &str, key_hash: &str) -> String {
    let digest = crate::text::sha256::sha256_hex(format!("{base_url}\0{key_hash}").as_bytes());
    format!("{PAUSE_PREFIX}{}", &digest[..32])
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pause {
    /// Requests fail at once before this time (the wall clock; what is kept). 0: no silence
    /// since the last answer.
    pub until_ms: u64,
    /// How many pauses in a row ended in no answer again (the next pause is 2^level timeouts).
    pub level: u32,
    /// When this process started the pause, and its length; `None` for a pause read back.
    pub started: Option<(Moment, u64)>,
    /// The wall-clock time of this word about the server (a pause set, an answer): of two
    /// (this process's, the kept one), the newer holds.
    pub at_ms: u64,
    /// A probe answered since the pause ran out: requests go out until the next silence.
    pub probed: bool,
}

impl Pause {
    /// How long requests still fail at once; `None` when the pause is over. A pause this
    /// process started is measured from its start; a kept one by the wall clock, and is over
    /// when its end cannot be told or lies more than `longest_ms` ahead.
    pub fn left_ms(&self, clock: &impl Clock, longest_ms: u64) -> Option<u64> {
        let left = match self.started {
            Some((at, length)) => length.checked_sub(at.elapsed_ms(clock)?)?,
            None => {
                let now = clock.now_ms();
                if self.until_ms == 0 || !plausible_wall_ms(now) || !plausible_wall_ms(self.until_ms) {
                    return None;
                }
                self.until_ms.checked_sub(now).filter(|left| *left <= longest_ms)?
            }
        };
        (left > 0).then_some(left)
    }

    /// A pause ran out with no answer since: the next request is preceded by a probe.
    pub fn probe_due(&self, clock: &impl Clock, longest_ms: u64) -> bool {
        self.until_ms > 0 && !self.probed && self.left_ms(clock, longest_ms).is_none()
    }

    /// The pause after a request with `timeout_ms` got no answer at `at`.
    pub fn after_silence(&self, at: Moment, timeout_ms: u64) -> Pause {
        let level = if follows(self, at.wall_ms) { (self.level + 1).min(16) } else { 0 };
        let ms = timeout_ms.max(1).saturating_mul(1 << level).min(longest(timeout_ms));
        Pause { until_ms: at.wall_ms.saturating_add(ms), level, started: Some((at, ms)), at_ms: at.wall_ms, probed: false }
    }

    /// The kept document of this pause.
    pub fn to_doc(&self, scope: &PauseScope) -> Value {
        json!({
            "baseUrl": scope.base_url,
            "keyHash": scope.key_hash,
            "timeoutMs": scope.timeout_ms,
            "untilMs": self.until_ms,
            "level": self.level,
            "atMs": self.at_ms,
        })
    }

    /// A kept pause, when it is this scope's (same base URL, key and timeout) and readable.
    pub fn from_doc(doc: &Value, scope: &PauseScope) -> Option<Pause> {
        let same = doc.get("baseUrl")?.as_str()? == scope.base_url
            && doc.get("keyHash")?.as_str()? == scope.key_hash
            && doc.get("timeoutMs")?.as_u64()? == scope.timeout_ms;
        if !same {
            return None;
        }
        let until_ms = doc.get("untilMs")?.as_u64()?;
        let level = doc.get("level").and_then(Value::as_u64).map_or(0, |l| l.min(16) as u32);
        let at_ms = doc.get("atMs").and_then(Value::as_u64).unwrap_or(0);
        Some(Pause { until_ms, level, started: None, at_ms, probed: false })
    }

    /// Of this process's word and the kept one, the one that holds: the newer; a kept word
    /// from a time later than now (a clock that was ahead) never overrides.
    pub fn merged(self, kept: Option<Pause>, now_ms: u64) -> Pause {
        match kept {
            Some(k) if k.at_ms > self.at_ms && k.at_ms <= now_ms => {
                // the same silence this process already saw keeps its own (monotonic) measure
                if k.until_ms == self.until_ms && k.level == self.level {
                    return self;
                }
                k
            }
            _ => self,
        }
    }
}

/// How long the probe after a pause of `level` waits, for a request of `timeout_ms`: the
/// short probe, except every [`FULL_PROBE_EVERY`]th in a row (levels 5, 11, …): the timeout.
pub fn probe_timeout_ms(level: u32, timeout_ms: u64) -> u64 {
    let full = level % FULL_PROBE_EVERY == FULL_PROBE_EVERY - 1;
    if full { timeout_ms.max(1) } else { timeout_ms.clamp(1, PROBE_TIMEOUT_MS) }
}

/// The longest pause a request with this timeout can be given.
pub fn longest(timeout_ms: u64) -> u64 {
    MAX_PAUSE_MS.max(timeout_ms)
}

/// Whether a silence at `now` follows the last pause closely enough to double it: within
/// [`MAX_PAUSE_MS`] of its end. A silence after a long quiet (an idle gateway overnight, a
/// CLI host's next turn an hour later) starts again at one timeout.
fn follows(last: &Pause, now: u64) -> bool {
    last.until_ms > 0 && now.saturating_sub(last.until_ms) <= MAX_PAUSE_MS
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use std::cell::Cell;

    const T0: u64 = 1_764_000_000_000;

    struct Wall(Cell<u64>, Cell<Option<u64>>);
    impl Clock for Wall {
        fn now_ms(&self) -> u64 {
            self.0.get()
        }
        fn monotonic_ms(&self) -> Option<u64> {
            self.1.get()
        }
        async fn sleep(&self, _ms: u64) {}
        fn warn(&self, _m: &str) {}
    }

    fn scope() -> PauseScope {
        PauseScope::new("http://127.0.0.1:1933/", Some("secret-key-123"), 15_000)
    }

    #[test]
    fn the_key_names_server_and_key_without_the_key() {
        let s = scope();
        assert_eq!(s.base_url, "http://127.0.0.1:1933");
        let key = s.state_key();
        assert!(key.starts_with(PAUSE_PREFIX) && key.len() == PAUSE_PREFIX.len() + 32, "{key}");
        let doc = Pause::default().to_doc(&s).to_string();
        assert!(!key.contains("secret-key-123") && !doc.contains("secret-key-123"), "{doc}");
        // another server, another key, no key: other pauses
        assert_ne!(PauseScope::new("http://127.0.0.1:1934", Some("secret-key-123"), 15_000).state_key(), key);
        assert_ne!(PauseScope::new("http://127.0.0.1:1933", Some("other-key"), 15_000).state_key(), key);
        assert_ne!(PauseScope::new("http://127.0.0.1:1933", None, 15_000).state_key(), key);
        assert_eq!(key_hash(Some("")), "");
    }

    #[test]
    fn a_pause_starts_at_one_timeout_from_the_failure_and_doubles_while_silent() {
        let c = Wall(Cell::new(T0), Cell::new(Some(0)));
        let p = Pause::default().after_silence(Moment::now(&c), 15_000);
        assert_eq!((p.until_ms, p.level), (T0 + 15_000, 0));
        assert_eq!(p.left_ms(&c, longest(15_000)), Some(15_000));
        c.0.set(T0 + 15_000);
        c.1.set(Some(15_000));
        assert_eq!(p.left_ms(&c, longest(15_000)), None);
        assert!(p.probe_due(&c, longest(15_000)), "ran out with no answer since: probe first");
        let q = p.after_silence(Moment::now(&c), 15_000);
        assert_eq!((q.level, q.until_ms - T0 - 15_000), (1, 30_000));
        // capped at two minutes; a silence long after the last pause starts again
        let mut r = q;
        for _ in 0..10 {
            c.0.set(r.until_ms);
            r = r.after_silence(Moment::now(&c), 15_000);
        }
        assert_eq!(r.until_ms - c.0.get(), MAX_PAUSE_MS);
        c.0.set(r.until_ms + MAX_PAUSE_MS + 1);
        assert_eq!(r.after_silence(Moment::now(&c), 15_000).level, 0);
    }

    #[test]
    fn a_kept_pause_is_only_this_scopes_and_ends_when_the_config_changes() {
        let c = Wall(Cell::new(T0), Cell::new(None));
        let s = scope();
        let p = Pause::default().after_silence(Moment::now(&c), 15_000);
        let doc = p.to_doc(&s);
        let back = Pause::from_doc(&doc, &s).unwrap();
        assert_eq!((back.until_ms, back.level, back.started), (p.until_ms, 0, None));
        for other in [
            PauseScope::new("http://127.0.0.1:1934", Some("secret-key-123"), 15_000),
            PauseScope::new("http://127.0.0.1:1933", Some("new-key"), 15_000),
            PauseScope::new("http://127.0.0.1:1933", Some("secret-key-123"), 5_000),
        ] {
            assert_eq!(Pause::from_doc(&doc, &other), None, "{other:?}");
        }
        assert_eq!(Pause::from_doc(&json!({ "untilMs": T0 + 9, "level": 1 }), &s), None, "an older release's document");
        assert_eq!(Pause::from_doc(&json!("x"), &s), None);
    }

    #[test]
    fn of_two_words_about_the_server_the_newer_holds() {
        let c = Wall(Cell::new(T0), Cell::new(Some(0)));
        let mine = Pause::default().after_silence(Moment::now(&c), 15_000);
        // another process heard the server later: the pause is over here too
        let answered = Pause { at_ms: T0 + 5, ..Pause::default() };
        assert_eq!(mine.merged(Some(answered), T0 + 10), answered);
        // an older word, or one from a clock that was ahead, does not override
        assert_eq!(mine.merged(Some(Pause { at_ms: T0 - 5, ..answered }), T0 + 10), mine);
        assert_eq!(mine.merged(Some(Pause { at_ms: T0 + 999_999, ..answered }), T0 + 10), mine);
        // the same silence read back keeps this process's monotonic measure
        let kept = Pause { started: None, at_ms: T0 + 1, ..mine };
        assert_eq!(mine.merged(Some(kept), T0 + 10).started, mine.started);
    }

    #[test]
    fn probes_are_short_but_every_sixth_in_a_row_waits_the_timeout() {
        let waits: Vec<u64> = (0..12).map(|level| probe_timeout_ms(level, 15_000)).collect();
        assert_eq!(waits, [600, 600, 600, 600, 600, 15_000, 600, 600, 600, 600, 600, 15_000]);
        assert_eq!(probe_timeout_ms(0, 300), 300, "never longer than the request's timeout");
        assert_eq!(probe_timeout_ms(0, 0), 1);
    }

    #[test]
    fn a_kept_pause_ahead_of_the_clock_or_at_no_plausible_time_is_over() {
        let c = Wall(Cell::new(T0), Cell::new(None));
        let far = Pause { until_ms: T0 + 10 * MAX_PAUSE_MS, ..Pause::default() };
        assert_eq!(far.left_ms(&c, longest(15_000)), None);
        let nonsense = Pause { until_ms: u64::MAX, ..Pause::default() };
        assert_eq!(nonsense.left_ms(&c, longest(15_000)), None);
        let near = Pause { until_ms: T0 + 3_000, ..Pause::default() };
        assert_eq!(near.left_ms(&c, longest(15_000)), Some(3_000));
        assert!(!Pause::default().probe_due(&c, longest(15_000)), "no silence: no probe");
        assert!(!Pause { until_ms: T0 - 1, probed: true, ..Pause::default() }.probe_due(&c, 1), "probed: no second probe");
    }
}
