//! [`Pausing`]: the embedder's transport with the pause ([`super::pause`]) in front of it.
//! After a request got no answer within its timeout, the requests that follow fail at once
//! ([`TransportFailure::Paused`], a retryable `Timeout`) until the pause ends; then one probe
//! (`GET /health`, [`super::pause::PROBE_TIMEOUT_MS`]) decides whether the next request goes out or the
//! pause starts again. The pause is kept in the state dir per server and key, read again at
//! most every [`REREAD_MS`], so the next process of a one-process-per-turn host — and another
//! agent's engine in this one — pauses too.
//!
//! Without it a hung server (it accepts connections and never answers) costs every turn each
//! of its sequential requests' timeouts: with the default 15 s, ~45 s before the model call
//! and 15 s more to write the turn. With it the first turn costs one timeout and the turns
//! after it at most a probe: recall is skipped and turns go to the outbox, as when the server
//! is down.
//!
//! `GET /health` is never paused (an operator's explicit check), and its answer ends a pause.
//! While [`Pausing::ask_now`]'s guard lives (`flush`, `doctor`: the operator's "try now"),
//! requests go out whatever the pause says; what they find is kept as always.

use super::pause::{longest, probe_timeout_ms, Pause, PauseScope, REREAD_MS};
use super::transport::{HttpRequest, HttpResponse, Method, Transport, TransportFailure};
use crate::host::clock::Moment;
use crate::host::{Clock, Storage};
use std::cell::{Cell, RefCell};
use std::task::{Poll, Waker};

pub struct Pausing<T> {
    pub inner: T,
    scope: PauseScope,
    key: String,
    pause: RefCell<Pause>,
    /// When the kept pause was last read (`None`: not yet).
    read_at: Cell<Option<Moment>>,
    /// Live [`AskNow`] guards.
    asking_now: Cell<u32>,
    /// A probe is out; requests arriving meanwhile wait for it.
    probing: Cell<bool>,
    probe_waiters: RefCell<Vec<Waker>>,
}

/// While it lives, requests go out whatever the pause says (see [`Pausing::ask_now`]).
pub struct AskNow<'a>(&'a Cell<u32>);

impl Drop for AskNow<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

impl<T> Pausing<T> {
    /// The pause of `scope` (the server's base URL, a hash of the key, the timeout).
    pub fn new(inner: T, scope: PauseScope) -> Self {
        let key = scope.state_key();
        Pausing {
            inner,
            scope,
            key,
            pause: RefCell::new(Pause::default()),
            read_at: Cell::new(None),
            asking_now: Cell::new(0),
            probing: Cell::new(false),
            probe_waiters: RefCell::new(Vec::new()),
        }
    }

    /// The operator's "try now" (`flush`, `doctor`): until the guard is dropped, requests are
    /// sent whatever the pause says.
    pub fn ask_now(&self) -> AskNow<'_> {
        self.asking_now.set(self.asking_now.get() + 1);
        AskNow(&self.asking_now)
    }
}

fn exempt(request: &HttpRequest) -> bool {
    request.method == Method::Get && request.url.split(['?', '#']).next().is_some_and(|u| u.ends_with("/health"))
}

impl<T: Transport + Clock + Storage> Pausing<T> {
    /// Reads the kept pause when it was not read within [`REREAD_MS`] (requests sent side by
    /// side before the first read finished each read it: none goes out unpaused).
    async fn refresh(&self) {
        let fresh = self.read_at.get().and_then(|at| at.elapsed_ms(&self.inner)).is_some_and(|ms| ms < REREAD_MS);
        if fresh {
            return;
        }
        let kept = self.inner.load_state(&self.key).await;
        self.read_at.set(Some(Moment::now(&self.inner)));
        let kept = kept.ok().flatten().and_then(|doc| Pause::from_doc(&doc, &self.scope));
        let now = self.inner.now_ms();
        let mut mine = self.pause.borrow_mut();
        *mine = mine.merged(kept, now);
    }

    async fn keep(&self, p: Pause) {
        let _ = self.inner.save_cache(&self.key, p.to_doc(&self.scope)).await;
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
            *p = p.after_silence(at, timeout_ms);
            *p
        };
        self.keep(next).await;
    }

    /// An answer: the server is there again.
    async fn answered(&self) {
        if self.pause.borrow().until_ms == 0 {
            return;
        }
        let heard = Pause { at_ms: self.inner.now_ms(), ..Pause::default() };
        *self.pause.borrow_mut() = heard;
        self.keep(heard).await;
    }

    fn left(&self, timeout_ms: u64) -> Option<u64> {
        self.pause.borrow().left_ms(&self.inner, longest(timeout_ms))
    }

    /// Before the first request after a pause ran out: `GET /health` within the probe's time.
    /// `Some(retry_in_ms)`: silent again, the request is not sent.
    async fn probe(&self, request: &HttpRequest) -> Option<u64> {
        let timeout_ms = request.timeout_ms;
        if self.probing.get() {
            // another request's probe is out: its outcome decides for this one too
            std::future::poll_fn(|cx| {
                if !self.probing.get() {
                    return Poll::Ready(());
                }
                self.probe_waiters.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            })
            .await;
            return self.left(timeout_ms);
        }
        if !self.pause.borrow().probe_due(&self.inner, longest(timeout_ms)) {
            return None;
        }
        self.probing.set(true);
        let health = HttpRequest {
            method: Method::Get,
            url: format!("{}/health", self.scope.base_url),
            headers: Vec::new(),
            body: None,
            timeout_ms: probe_timeout_ms(self.pause.borrow().level, timeout_ms),
        };
        let outcome = self.inner.send(health).await;
        match outcome {
            Err(TransportFailure::Timeout) => self.no_answer(timeout_ms).await,
            // an answer, or a refusal (the request fails fast by itself): the request goes
            _ => self.pause.borrow_mut().probed = true,
        }
        self.probing.set(false);
        for w in std::mem::take(&mut *self.probe_waiters.borrow_mut()) {
            w.wake();
        }
        self.left(timeout_ms)
    }
}

impl<T: Transport + Clock + Storage> Transport for Pausing<T> {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
        let timeout_ms = request.timeout_ms;
        if !exempt(&request) && self.asking_now.get() == 0 {
            self.refresh().await;
            if let Some(retry_in_ms) = self.left(timeout_ms) {
                return Err(TransportFailure::Paused { retry_in_ms });
            }
            if let Some(retry_in_ms) = self.probe(&request).await {
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
