//! A server that stops answering is paused (`openviking::pause`, `openviking::pausing`), over
//! a transport on a virtual clock: one timeout, then requests fail at once; after the pause a
//! short probe instead of another timeout; the pause kept per server and key for the next
//! process; the operator's "try now"; clocks that jump.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::host::join::join2;
use openviking_context_engine::host::{FindFilter, HostErrorKind, OpenViking};
use openviking_context_engine::openviking::pause::{PauseScope, MAX_PAUSE_MS, PROBE_TIMEOUT_MS};
use openviking_context_engine::openviking::{HttpRequest, HttpResponse, OpenVikingHttp, Pausing, Server, Transport, TransportFailure};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use support::answers::{error, http, ok};
use support::block_on;

const KEY: &str = "uk-Secret+Key/42==";
const BASE: &str = "http://127.0.0.1:1933";
const TIMEOUT: u64 = 3000;


fn health() -> Result<HttpResponse, TransportFailure> {
    http(200, r#"{"status":"ok","healthy":true}"#)
}

mod hung {
    use super::*;
    use openviking_context_engine::host::{Clock, HostResult, Storage};
    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    /// When the virtual clock starts (a plausible wall-clock time: 2025-11-24).
    pub const START_MS: u64 = 1_764_000_000_000;

    /// A transport on a virtual clock: a request that gets no answer takes its whole timeout;
    /// the state dir is a map that two "processes" can share.
    pub struct Hung {
        pub answers: RefCell<VecDeque<Result<HttpResponse, TransportFailure>>>,
        pub sent: RefCell<Vec<HttpRequest>>,
        /// The wall clock (a test may jump it).
        pub now: Cell<u64>,
        /// The monotonic clock, `None`: none (time passing moves it with `now`).
        pub mono: Cell<Option<u64>>,
        pub state: Rc<RefCell<BTreeMap<String, Value>>>,
    }

    impl Hung {
        pub fn new(state: Rc<RefCell<BTreeMap<String, Value>>>) -> Self {
            Hung { answers: RefCell::default(), sent: RefCell::default(), now: Cell::new(START_MS), mono: Cell::new(None), state }
        }
        /// Time passes (both clocks move).
        pub fn pass(&self, ms: u64) {
            self.now.set(self.now.get().saturating_add(ms));
            self.mono.set(self.mono.get().map(|m| m + ms));
        }
    }

    impl Transport for Hung {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure> {
            let timeout = request.timeout_ms;
            self.sent.borrow_mut().push(request);
            let answer = self.answers.borrow_mut().pop_front().unwrap_or(Err(TransportFailure::Timeout));
            if answer == Err(TransportFailure::Timeout) {
                self.pass(timeout);
            }
            answer
        }
    }

    impl Clock for Hung {
        fn now_ms(&self) -> u64 {
            self.now.get()
        }
        fn monotonic_ms(&self) -> Option<u64> {
            self.mono.get()
        }
        async fn sleep(&self, ms: u64) {
            self.pass(ms);
        }
        fn warn(&self, _message: &str) {}
    }

    impl Storage for Hung {
        async fn load_state(&self, key: &str) -> HostResult<Option<Value>> {
            Ok(self.state.borrow().get(key).cloned())
        }
        async fn save_state(&self, key: &str, value: Value) -> HostResult<()> {
            self.state.borrow_mut().insert(key.to_string(), value);
            Ok(())
        }
        async fn list_state_keys(&self, prefix: &str) -> HostResult<Vec<String>> {
            Ok(self.state.borrow().keys().filter(|k| k.starts_with(prefix)).cloned().collect())
        }
        async fn outbox_append(&self, _key: &str, _entry: Value) -> HostResult<()> {
            Ok(())
        }
        async fn outbox_read(&self, _key: &str) -> HostResult<Vec<Value>> {
            Ok(Vec::new())
        }
        async fn outbox_drop(&self, _key: &str, _turn_ids: &[String]) -> HostResult<()> {
            Ok(())
        }
        async fn try_lock(&self, _name: &str, _ttl_ms: u64) -> HostResult<bool> {
            Ok(true)
        }
        async fn unlock(&self, _name: &str) -> HostResult<()> {
            Ok(())
        }
    }
}

use hung::Hung;

type State = Rc<RefCell<BTreeMap<String, Value>>>;
type Paused = OpenVikingHttp<Pausing<Hung>>;

fn client_of(state: &State, base: &str, key: Option<&str>, timeout_ms: u64) -> Paused {
    let server = Server { base_url: base.into(), api_key: key.map(str::to_string), agent_id: "main".into(), timeout_ms };
    let scope = PauseScope::new(base, key, timeout_ms);
    OpenVikingHttp::new(server, Pausing::new(Hung::new(state.clone()), scope))
}

/// A process on the state dir `state`, against the one server, with the one key.
fn paused_client(state: &State) -> Paused {
    client_of(state, BASE, Some(KEY), TIMEOUT)
}

fn pause_key() -> String {
    PauseScope::new(BASE, Some(KEY), TIMEOUT).state_key()
}

fn kept(state: &State) -> Value {
    state.borrow().get(&pause_key()).cloned().unwrap_or(Value::Null)
}

fn hung(c: &Paused) -> &Hung {
    &c.transport.inner
}

fn script(c: &Paused, answers: Vec<Result<HttpResponse, TransportFailure>>) {
    hung(c).answers.borrow_mut().extend(answers);
}

fn find(c: &Paused) -> Result<Value, openviking_context_engine::host::HostError> {
    block_on(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE))
}

fn advance(c: &Paused, ms: u64) {
    hung(c).pass(ms);
}

fn sent_paths(c: &Paused) -> Vec<String> {
    hung(c).sent.borrow().iter().map(|r| r.url.trim_start_matches(BASE).split('?').next().unwrap_or("").to_string()).collect()
}

#[test]
fn a_server_that_stops_answering_is_not_asked_again_until_its_pause_ends_then_only_probed() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert_eq!(find(&c).unwrap_err().kind, HostErrorKind::Timeout);
    assert_eq!(hung(&c).sent.borrow().len(), 1);

    // within the pause (one timeout, 3 s from the failure): not sent, a retryable timeout
    advance(&c, 2_900);
    let e = find(&c).unwrap_err();
    assert_eq!((e.kind, e.retryable()), (HostErrorKind::Timeout, true));
    assert!(e.message.contains("not sent") && e.message.contains("asked again in 1 s"), "{}", e.message);
    assert!(!e.message.contains(KEY));
    assert_eq!(hung(&c).sent.borrow().len(), 1, "nothing was sent during the pause");

    // after it: a probe (GET /health, no key, a short timeout) first; silent again: the
    // request is not sent and the pause doubles (6 s) — the probe's time is all it cost
    advance(&c, 100);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    let t0 = hung(&c).now.get();
    assert!(find(&c).unwrap_err().message.contains("not sent"));
    assert_eq!(hung(&c).now.get() - t0, PROBE_TIMEOUT_MS, "a turn after the pause costs the probe, not a timeout");
    assert_eq!(sent_paths(&c), ["/api/v1/search/find", "/health"]);
    let probe = hung(&c).sent.borrow()[1].clone();
    assert!(probe.headers.is_empty() && probe.timeout_ms == PROBE_TIMEOUT_MS, "{probe:?}");
    assert_eq!(kept(&state)["level"], 1);
    advance(&c, 5_999);
    assert!(find(&c).unwrap_err().message.contains("not sent"));
    assert_eq!(hung(&c).sent.borrow().len(), 2);
    advance(&c, 1);

    // the probe answered: the request goes; its answer ends the pause and the doubling
    script(&c, vec![health(), ok(json!({ "memories": [] }))]);
    assert!(find(&c).is_ok());
    assert_eq!(sent_paths(&c)[2..], ["/health", "/api/v1/search/find"]);
    assert_eq!((kept(&state)["untilMs"].as_u64(), kept(&state)["level"].as_u64()), (Some(0), Some(0)), "{}", kept(&state));
    assert!(find(&c).is_err(), "no probe while the server answers: the request went straight out");
    assert_eq!(sent_paths(&c).last().map(String::as_str), Some("/api/v1/search/find"));
    assert_eq!(kept(&state)["untilMs"].as_u64(), Some(hung(&c).now.get() + 3_000), "the next pause is one timeout again");

    // refused connections fail fast by themselves: they neither pause nor end a pause
    advance(&c, 3_000);
    script(&c, vec![Err(TransportFailure::Unreachable("refused".into())), Err(TransportFailure::Unreachable("refused".into()))]);
    assert_eq!(find(&c).unwrap_err().kind, HostErrorKind::Unreachable);
    let n = hung(&c).sent.borrow().len();
    assert!(find(&c).is_err() && hung(&c).sent.borrow().len() == n + 1, "sent after a refusal: it did not pause");
}

#[test]
fn a_probe_answered_but_a_request_silent_again_doubles_the_pause() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    advance(&c, 3_000);
    // health answers, the search hangs (a server whose embedding backend hangs)
    script(&c, vec![health(), Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    assert_eq!(kept(&state)["level"], 1, "{}", kept(&state));
    // an error status is an answer: the pause and its doubling end
    advance(&c, 6_000);
    script(&c, vec![health(), error(500, "INTERNAL", "boom")]);
    assert_eq!(find(&c).unwrap_err().kind, HostErrorKind::ServerError);
    assert_eq!(kept(&state)["untilMs"], 0);
}

#[test]
fn requests_that_fail_side_by_side_pause_once_and_probe_once() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout), Err(TransportFailure::Timeout)]);
    let (a, b) = block_on(join2(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE), c.find("viking://agent/main/memories", "q", 5, &FindFilter::NONE)));
    assert!(a.is_err() && b.is_err());
    assert_eq!(kept(&state)["level"], 0, "two requests that failed together are one pause, not a doubled one: {}", kept(&state));
    // after the pause, two side by side: one probe decides for both
    advance(&c, 3_000);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    let n = hung(&c).sent.borrow().len();
    let (a, b) = block_on(join2(c.find("viking://user/a/memories", "q", 5, &FindFilter::NONE), c.find("viking://agent/main/memories", "q", 5, &FindFilter::NONE)));
    assert!(a.is_err() && b.is_err());
    assert_eq!(sent_paths(&c)[n..], ["/health"], "one probe, no request");
}

#[test]
fn a_cli_sequence_of_processes_pays_one_timeout_whatever_the_gaps() {
    // one process per turn, a turn = a search; each turn starts `gap` after the last one
    // ended (the model's answer, the next process starting): longer than the pause
    let state = State::default();
    let mut now = hung::START_MS;
    let mut costs = Vec::new();
    for gap in [0, 20_000, 45_000, 70_000, 130_000] {
        let p = paused_client(&state);
        now += gap;
        hung(&p).now.set(now);
        script(&p, vec![Err(TransportFailure::Timeout), Err(TransportFailure::Timeout)]);
        assert!(find(&p).is_err());
        costs.push(hung(&p).now.get() - now);
        now = hung(&p).now.get();
    }
    let (first, later) = costs.split_first().expect("five turns");
    assert_eq!(*first, TIMEOUT, "the first turn: one timeout");
    assert_eq!(later.len(), 4);
    assert!(later.iter().all(|c| *c <= 1_000), "a later turn cost more than a probe: {costs:?}");
}

#[test]
fn the_pause_is_the_servers_and_keys_and_ends_when_the_config_changes() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    let t = hung(&c).now.get();
    // the kept pause names the server and a hash of the key, never the key
    let doc = kept(&state);
    assert_eq!(doc["baseUrl"], BASE);
    let files = serde_json::to_string(&*state.borrow()).unwrap();
    assert!(!files.contains(KEY) && !pause_key().contains(KEY), "{files}");
    // another server, another key, another timeout (the config changed): asked at once
    for other in [
        client_of(&state, "http://127.0.0.1:1934", Some(KEY), TIMEOUT),
        client_of(&state, BASE, Some("uk-another-key"), TIMEOUT),
        client_of(&state, BASE, None, TIMEOUT),
        client_of(&state, BASE, Some(KEY), 5_000),
    ] {
        hung(&other).now.set(t + 100);
        script(&other, vec![ok(json!({ "memories": [] }))]);
        assert!(find(&other).is_ok());
        assert_eq!(hung(&other).sent.borrow().len(), 1);
    }
    // the same server and key: paused from its first request
    let same = paused_client(&state);
    hung(&same).now.set(t + 100);
    assert!(find(&same).unwrap_err().message.contains("not sent"));
    assert!(hung(&same).sent.borrow().is_empty());
    // an older release's single pause document is no pause
    state.borrow_mut().clear();
    state.borrow_mut().insert("openviking/paused".into(), json!({ "untilMs": t + 60_000, "level": 0 }));
    let fresh = paused_client(&state);
    hung(&fresh).now.set(t + 100);
    script(&fresh, vec![ok(json!({ "memories": [] }))]);
    assert!(find(&fresh).is_ok());
}

#[test]
fn another_engine_in_the_process_sees_the_pause_within_a_second_and_an_answer_ends_it_for_all() {
    let state = State::default();
    let a = paused_client(&state);
    let b = paused_client(&state);
    script(&b, vec![ok(json!({ "memories": [] }))]);
    assert!(find(&b).is_ok(), "b read the (empty) kept pause");
    script(&a, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&a).is_err());
    hung(&b).now.set(hung(&a).now.get());
    hung(&b).pass(1_000);
    assert!(find(&b).unwrap_err().message.contains("not sent"), "b read it again after a second");
    // an unreadable kept pause is no pause
    state.borrow_mut().insert(pause_key(), json!({ "untilMs": "soon" }));
    let c = paused_client(&state);
    hung(&c).now.set(hung(&a).now.get());
    script(&c, vec![ok(json!({ "memories": [] }))]);
    assert!(find(&c).is_ok());
}

#[test]
fn asking_now_sends_during_a_pause_and_keeps_what_it_finds() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    {
        let _now = c.transport.ask_now();
        script(&c, vec![Err(TransportFailure::Timeout), ok(json!({ "memories": [] }))]);
        assert_eq!(find(&c).unwrap_err().kind, HostErrorKind::Timeout, "sent, and silent");
        assert_eq!(sent_paths(&c), ["/api/v1/search/find", "/api/v1/search/find"], "no probe either");
        assert!(find(&c).is_ok(), "sent again: an operator's flush tries every request");
    }
    assert_eq!(kept(&state)["untilMs"], 0, "the answer ended the pause");
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    assert!(find(&c).unwrap_err().message.contains("not sent"), "the guard is gone: paused again");
}

const DAY_MS: u64 = 86_400_000;

#[test]
fn a_pause_begun_while_the_clock_was_ahead_or_answering_nonsense_does_not_outlast_the_clock_coming_back() {
    // a day ahead, three years ahead, 1e300 (u64::MAX): no monotonic clock, wall-clock stamps
    for ahead in [DAY_MS, 3 * 365 * DAY_MS, u64::MAX] {
        let state = State::default();
        let c = paused_client(&state);
        let real = hung(&c).now.get();
        hung(&c).now.set(real.saturating_add(ahead));
        script(&c, vec![Err(TransportFailure::Timeout)]);
        assert!(find(&c).is_err());
        // the clock is back; the next process reads the kept pause, this one its own
        hung(&c).now.set(real + 3_500);
        let next = paused_client(&state);
        hung(&next).now.set(real + 3_500);
        script(&next, vec![ok(json!({ "memories": [] }))]);
        assert!(find(&next).is_ok(), "{ahead} ms ahead: the next process asks at once (a word from the future is none)");
        script(&c, vec![health(), ok(json!({ "memories": [] }))]);
        assert!(find(&c).is_ok(), "{ahead} ms ahead: this process asks at once");
    }
}

#[test]
fn with_a_monotonic_clock_a_pause_lasts_its_length_whatever_the_wall_clock_does() {
    let state = State::default();
    let c = paused_client(&state);
    hung(&c).mono.set(Some(77));
    script(&c, vec![Err(TransportFailure::Timeout)]);
    assert!(find(&c).is_err());
    let real = hung(&c).now.get();
    for jump in [real + DAY_MS, real - DAY_MS] {
        hung(&c).now.set(jump);
        let e = find(&c).unwrap_err();
        assert!(e.message.contains("asked again in 3 s"), "the wall clock jumped to {jump}: {}", e.message);
    }
    hung(&c).mono.set(hung(&c).mono.get().map(|m| m + 3_000));
    script(&c, vec![health(), ok(json!({ "memories": [] }))]);
    assert!(find(&c).is_ok(), "3 s later on the monotonic clock: asked again");
}

#[test]
fn the_health_check_is_never_paused_and_its_answer_ends_the_pause() {
    let state = State::default();
    let c = paused_client(&state);
    script(&c, vec![Err(TransportFailure::Timeout), health(), ok(json!({ "memories": [] }))]);
    assert!(find(&c).is_err());
    assert!(block_on(c.health(500)).is_ok(), "the operator's check goes out during a pause");
    assert!(find(&c).is_ok(), "and its answer ends the pause");
    assert_eq!(hung(&c).sent.borrow().len(), 3);
}

#[test]
fn the_longest_pause_is_two_minutes() {
    let state = State::default();
    let c = paused_client(&state);
    for _ in 0..12 {
        let until = kept(&state)["untilMs"].as_u64().unwrap_or(0);
        hung(&c).now.set(hung(&c).now.get().max(until));
        assert!(find(&c).is_err());
    }
    let p = kept(&state);
    assert_eq!(p["untilMs"].as_u64().unwrap() - hung(&c).now.get(), MAX_PAUSE_MS, "{p}");
}
