//! A server that stopped answering is not asked again at once: [`Pausing`] wraps the
//! embedder's transport, and after a request got no answer within its timeout, the requests
//! that follow fail at once ([`TransportFailure::Paused`], a retryable `Timeout`) for a pause
//! — the request's timeout, doubled on each pause that follows one ending in no answer again
//! (within [`MAX_PAUSE_MS`] of its end), up to [`MAX_PAUSE_MS`] (2 minutes). Any answer at all
//! (even an error status) ends the pause and the doubling. A pause is kept in the state dir (`openviking/paused`, a cache: losing it only
//! costs one more timeout), so the next process of a one-process-per-turn host pauses too.
//!
//! A pause never outlasts its length, whatever the wall clock does: the process that paused
//! measures it on the host's monotonic clock (`host::clock::Moment`), and a kept pause that
//! ends later than the longest pause from now — set while the clock was ahead, or by a clock
//! answering nonsense — is over.
//!
//! Without it a hung server (it accepts connections and never answers) costs every turn each
//! of its sequential requests' timeouts: with the default 15 s, ~45 s before the model call
//! and 15 s more to write the turn. With it the first turn costs one timeout and the turns in
//! the pause none: recall is skipped and turns go to the outbox, as when the server is down.
//!
//! `GET /health` is never paused (an operator's explicit check), and its answer ends a pause.

use super::transport::{HttpRequest, HttpResponse, Method, Transport, TransportFailure};
use crate::host::clock::{plausible_wall_ms, Moment};
use crate::host::{Clock, Storage};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};

/// The state dir key the pause is kept under.
pub const PAUSE_KEY: &str = "openviking/paused";
/// The longest pause, however often the server failed to answer.
pub const MAX_PAUSE_MS: u64 = 120_000;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Pause {
    /// Requests fail at once before this time (the wall clock; what is kept).
    until_ms: u64,
    /// How many pauses in a row ended in no answer again (the next pause is 2^level timeouts).
    level: u32,
    /// When this process started the pause, and its length; `None` for a pause read back.
    started: Option<(Moment, u64)>,
}

impl Pause {
    /// How long requests still fail at once; `None` when the pause is over. A pause this
    /// process started is measured from its start; a kept one by the wall clock, and is over
    /// when its end cannot be told or lies more than `longest_ms` ahead.
    fn left_ms(&self, clock: &impl Clock, longest_ms: u64) -> Option<u64> {
        let left = match self.started {
            Some((at, length)) => length.checked_sub(at.elapsed_ms(clock)?)?,
            None => {
                let now = clock.now_ms();
                if !plausible_wall_ms(now) || !plausible_wall_ms(self.until_ms) {
                    return None;
                }
                self.until_ms.checked_sub(now).filter(|left| *left <= longest_ms)?
            }
        };
        (left > 0).then_some(left)
    }
}

/// The longest pause a request with this timeout can be given.
fn longest(timeout_ms: u64) -> u64 {
    MAX_PAUSE_MS.max(timeout_ms)
}

/// Whether a silence at `now` follows the last pause closely enough to double it: within
/// [`MAX_PAUSE_MS`] of its end. A silence after a long quiet (an idle gateway overnight, a
/// CLI host's next turn an hour later) starts again at one timeout.
fn follows(last: &Pause, now: u64) -> bool {
    last.until_ms > 0 && now.saturating_sub(last.until_ms) <= MAX_PAUSE_MS
}

/// The embedder's transport, storage and clock, with the pause in front of the transport.
pub struct Pausing<T> {
    pub inner: T,
    pause: RefCell<Pause>,
    loaded: Cell<bool>,
}

impl<T> Pausing<T> {
    pub fn new(inner: T) -> Self {
        Pausing { inner, pause: RefCell::new(Pause::default()), loaded: Cell::new(false) }
    }
}

fn exempt(request: &HttpRequest) -> bool {
    request.method == Method::Get && request.url.split(['?', '#']).next().is_some_and(|u| u.ends_with("/health"))
}

fn read_pause(doc: &Value) -> Option<Pause> {
    let until_ms = doc.get("untilMs")?.as_u64()?;
    let level = doc.get("level").and_then(Value::as_u64).map_or(0, |l| l.min(16) as u32);
    Some(Pause { until_ms, level, started: None })
}

impl<T: Transport + Clock + Storage> Pausing<T> {
    /// Reads the kept pause until one read has finished (requests sent before that each read
    /// it: none goes out unpaused, and each waits as long as the others).
    async fn load_once(&self) {
        if self.loaded.get() {
            return;
        }
        let kept = self.inner.load_state(PAUSE_KEY).await;
        self.loaded.set(true);
        if let Ok(Some(doc)) = kept {
            if let Some(p) = read_pause(&doc) {
                let mut mine = self.pause.borrow_mut();
                // a pause this process set meanwhile (a request already failed) stands
                if mine.started.is_none() && p.until_ms > mine.until_ms {
                    *mine = p;
                }
            }
        }
    }

    async fn keep(&self, p: Pause) {
        let _ = self.inner.save_cache(PAUSE_KEY, json!({ "untilMs": p.until_ms, "level": p.level })).await;
    }

    /// No answer within `timeout_ms`: pause, unless a pause is already running (requests
    /// sent side by side fail together and count once).
    async fn no_answer(&self, timeout_ms: u64) {
        let at = Moment::now(&self.inner);
        let next = {
            let mut p = self.pause.borrow_mut();
            if p.left_ms(&self.inner, longest(timeout_ms)).is_some() {
                return;
            }
            let level = if follows(&p, at.wall_ms) { (p.level + 1).min(16) } else { 0 };
            let ms = timeout_ms.max(1).saturating_mul(1 << level).min(longest(timeout_ms));
            *p = Pause { until_ms: at.wall_ms.saturating_add(ms), level, started: Some((at, ms)) };
            *p
        };
        self.keep(next).await;
    }

    /// An answer: the server is there again.
    async fn answered(&self) {
        let was = std::mem::take(&mut *self.pause.borrow_mut());
        if was != Pause::default() {
            self.keep(Pause::default()).await;
        }
    }
}

impl<T: Transport + Clock + Storage> Transport for Pausing<T> {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
        let timeout_ms = request.timeout_ms;
        if !exempt(&request) {
            self.load_once().await;
            let left = self.pause.borrow().left_ms(&self.inner, longest(timeout_ms));
            if let Some(retry_in_ms) = left {
                return Err(TransportFailure::Paused { retry_in_ms });
            }
        }
        let outcome = self.inner.send(request).await;
        match &outcome {
            Err(TransportFailure::Timeout) => self.no_answer(timeout_ms).await,
            Ok(_) | Err(TransportFailure::Malformed(_)) => self.answered().await,
            // refused or reset: the server is down, which fails fast by itself
            Err(TransportFailure::Unreachable(_) | TransportFailure::Paused { .. }) => {}
        }
        outcome
    }
}

crate::host::delegate_storage_and_clock!(Pausing, inner);
