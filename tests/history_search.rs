//! `memory_search_history` through the engine over the in-memory OpenViking: turns written
//! on different days are found by their time window with their turn ids; a hit's `expand`
//! is accepted by `memory_expand` (live and archived turns); another agent's turns are never
//! read; bad input names the field. Properties of the core rules (`history::rank`,
//! `history::regex`): every hit satisfies the filters, the limit holds, excerpts are bounded
//! whole characters, the matched count is exactly what a brute-force scan finds, and the
//! regex agrees with plain substring search on literal patterns.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, ToolContext};
use openviking_context_engine::ErrorCode;
use serde_json::{json, Value};
use support::{block_on, engine, turn_write, FakeHost};

const DAY: u64 = 86_400_000;
/// 2026-11-20T14:30:00Z
const NOW: u64 = 1_795_185_000_000;

fn run(e: &Engine<FakeHost>, tool: &str, params: Value) -> Value {
    block_on(e.run_tool(tool, &params)).unwrap_or_else(|err| panic!("{tool} {params}: {err}"))
}

fn said(at: u64, user: &str, answer: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": user, "timestamp": at}),
        json!({"role": "assistant", "content": [{"type": "text", "text": answer}], "stopReason": "stop", "timestamp": at + 1_000}),
    ]
}

/// Three sessions, one a day, three, two and one day ago; the engine's clock is `NOW`.
fn three_days(host: &FakeHost, e: &Engine<FakeHost>) {
    host.world().now = NOW;
    let facts = [
        ("monday", 3, "Remember: the vault code is 31-7-44.", "Noted, the vault code is 31-7-44."),
        ("tuesday", 2, "The boat is called Aurora; the vault is in the cellar.", "Got it: Aurora, and the vault is in the cellar."),
        ("wednesday", 1, "The printer password is hunter2.", "Noted the printer password."),
    ];
    for (sid, days_ago, user, answer) in facts {
        let at = NOW - days_ago * DAY;
        block_on(e.write_turn(turn_write(sid, Some(&format!("{sid}-k1")), said(at, user, answer)))).unwrap();
    }
}

#[test]
fn a_window_finds_only_the_turn_of_that_day_with_its_turn_id() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    three_days(&host, &e);
    let all = run(&e, "memory_search_history", json!({"query": "vault"}));
    assert_eq!(all["hits"].as_array().unwrap().len(), 2, "{all}");
    assert_eq!(all["sessions"], 3);

    let two_days_ago = run(&e, "memory_search_history", json!({"query": "vault", "since": "2026-11-18", "until": "2026-11-18"}));
    let hits = two_days_ago["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{two_days_ago}");
    let h = &hits[0];
    assert_eq!(h["turnId"], "tuesday-k1");
    assert_eq!(h["sessionId"], "tuesday");
    assert_eq!(h["ovSessionId"], "main--tuesday");
    assert_eq!(h["timestamp"], "2026-11-18T14:30:00.000Z", "the host's time, not the write's");
    assert!(h["excerpt"].as_str().unwrap().contains("vault is in the cellar"));
    assert_eq!(h["archived"], false);
    assert_eq!(h["expand"]["summaryOrMemoryUri"], "viking://user/alice/sessions/main--tuesday");

    // relative days are whole UTC days
    let yesterday = run(&e, "memory_search_history", json!({"query": "password", "since": "yesterday", "until": "yesterday"}));
    assert_eq!(yesterday["hits"][0]["turnId"], "wednesday-k1");
    let none = run(&e, "memory_search_history", json!({"query": "password", "until": "2 days ago"}));
    assert_eq!(none["hits"], json!([]));
    let last_36h = run(&e, "memory_search_history", json!({"query": "vault password", "match": "any", "since": "36 hours ago"}));
    assert_eq!(last_36h["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect::<Vec<_>>(), ["wednesday-k1"]);

    // the hit's expand goes to the live turn
    let expanded = run(&e, "memory_expand", h["expand"].clone());
    assert_eq!(expanded["live"], true, "{expanded}");
    assert!(expanded["excerpts"][0]["text"].as_str().unwrap().contains("Aurora"));
    assert_eq!(expanded["excerpts"][0]["turnId"], "tuesday-k1", "the live turn's id, from the index");
}

#[test]
fn regex_role_sort_and_scope() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    three_days(&host, &e);
    let r = run(&e, "memory_search_history", json!({"pattern": r"\d+-\d+-\d+", "role": "user"}));
    assert_eq!(r["hits"].as_array().unwrap().len(), 1);
    assert_eq!(r["hits"][0]["role"], "user");
    assert_eq!(r["sort"], "recency");
    let newest = run(&e, "memory_search_history", json!({"pattern": "NOTED", "sort": "recency"}));
    let order: Vec<&str> = newest["hits"].as_array().unwrap().iter().map(|h| h["sessionId"].as_str().unwrap()).collect();
    assert_eq!(order, ["wednesday", "monday"], "case-insensitive by default, newest first");
    assert_eq!(run(&e, "memory_search_history", json!({"pattern": "NOTED", "caseSensitive": true}))["hits"], json!([]));
    let ctx = ToolContext { session_id: Some("monday".into()) };
    let mine = block_on(e.run_tool_in("memory_search_history", &json!({"query": "vault", "scope": "session"}), &ctx)).unwrap();
    assert_eq!(mine["hits"].as_array().unwrap().len(), 1);
    assert_eq!(mine["hits"][0]["sessionId"], "monday");
    let err = block_on(e.run_tool("memory_search_history", &json!({"query": "vault", "scope": "session"}))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("scope"));
    let one = run(&e, "memory_search_history", json!({"pattern": "e", "limit": 1}));
    assert_eq!((one["hits"].as_array().unwrap().len(), one["matched"].as_u64()), (1, Some(3)));
}

#[test]
fn an_archived_turn_expands_to_its_archive_with_its_turn_id() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().now = NOW;
    block_on(e.write_turn(turn_write("s1", Some("k1"), said(NOW - 2 * DAY, "Our release train leaves on Thursdays.", "Thursdays, noted.")))).unwrap();
    block_on(e.write_turn(turn_write("s1", Some("k2"), said(NOW - DAY, "Lunch is at noon.", "Noon.")))).unwrap();
    assert!(block_on(e.compact("s1", None)).unwrap().compacted);
    block_on(e.write_turn(turn_write("s1", Some("k3"), said(NOW, "Trains again: the release train is late.", "Late, noted.")))).unwrap();
    let r = run(&e, "memory_search_history", json!({"query": "release train", "sort": "recency"}));
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.iter().map(|h| h["turnId"].as_str().unwrap()).collect::<Vec<_>>(), ["k3", "k1"]);
    assert_eq!((hits[0]["archived"].as_bool(), hits[1]["archived"].as_bool()), (Some(false), Some(true)));
    assert_eq!(hits[1]["expand"]["summaryOrMemoryUri"], "viking://user/alice/sessions/main--s1/history/archive_001");
    let archived = run(&e, "memory_expand", hits[1]["expand"].clone());
    assert_eq!(archived["excerpts"][0]["turnId"], "k1", "{archived}");
    let live = run(&e, "memory_expand", hits[0]["expand"].clone());
    assert_eq!(live["live"], true);
    assert!(live["excerpts"][0]["text"].as_str().unwrap().contains("late"));
    assert_eq!((live["excerpts"][0]["turnId"].as_str(), live["excerpts"][0]["sequence"].as_u64()), (Some("k3"), Some(2)));
    // the session uri without a query still means its latest archive
    let by_session = run(&e, "memory_expand", json!({"summaryOrMemoryUri": "viking://user/alice/sessions/main--s1"}));
    assert!(by_session["archiveUri"].as_str().unwrap().ends_with("archive_001"));
}

#[test]
fn archived_turns_are_embedded_once_per_commit_and_found_by_meaning() {
    use openviking_context_engine::tools::history::by_meaning::{agent_dir, doc_uri};
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let other = engine(&host, json!({"agentId": "other"}));
    host.world().now = NOW;
    block_on(e.write_turn(turn_write("s1", Some("k1"), said(NOW - 2 * DAY, "We adopted a greyhound called Pixel.", "Lovely.")))).unwrap();
    block_on(e.write_turn(turn_write("s1", Some("k2"), said(NOW - DAY, "Lunch is at noon.", "Noon.")))).unwrap();
    assert!(host.world().embedded.is_empty(), "live turns are not embedded");
    assert!(block_on(e.compact("s1", None)).unwrap().compacted);
    let (writes, docs) = { let w = host.world(); (w.embedded_writes.clone(), w.embedded.clone()) };
    assert_eq!(writes, [("viking://user/alice/resources/openviking-context-engine/main".to_string(), 2)], "one request per commit");
    let k1 = doc_uri("alice", "main", "main--s1", "k1");
    assert_eq!(docs[&k1], "user: We adopted a greyhound called Pixel.\nassistant: Lovely.");
    block_on(e.write_turn(turn_write("s1", Some("k3"), said(NOW, "A dog walker starts Monday.", "Noted.")))).unwrap();
    // the vectors know that a greyhound is a dog; the words do not (the stand-in ranks by
    // the words of the embedded text, so the file says "dog")
    host.world().embedded.insert(k1.clone(), "user: our dog, a greyhound called Pixel".into());
    // (a turn the vectors rank lowest of the pool is not added)
    host.world().embedded.insert(doc_uri("alice", "main", "main--s1", "k2"), "user: our lunch".into());
    // another agent's file under a look-alike folder is never read
    host.world().embedded.insert(format!("{}-x/main--s1/t-0000000000000000.md", agent_dir("alice", "main")), "dog".into());
    let r = run(&e, "memory_search_history", json!({"query": "what is our dog named"}));
    let ids: Vec<&str> = r["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["k3", "k1"], "{r}");
    assert!(r["hits"][1]["excerpt"].as_str().unwrap().starts_with("We adopted a greyhound"), "{r}");
    assert_eq!(host.world().finds.last().unwrap().0, agent_dir("alice", "main"));
    // "all" keeps to turns with every word; a pattern and the recency order never ask the vectors
    let all = run(&e, "memory_search_history", json!({"query": "dog walker", "match": "all"}));
    assert_eq!(all["hits"].as_array().unwrap().len(), 1, "{all}");
    let finds = host.world().finds.len();
    run(&e, "memory_search_history", json!({"pattern": "dog"}));
    run(&e, "memory_search_history", json!({"query": "dog", "sort": "recency"}));
    assert_eq!(host.world().finds.len(), finds);
    // the session scope searches the session's folder only
    let ctx = ToolContext { session_id: Some("s1".into()) };
    block_on(e.run_tool_in("memory_search_history", &json!({"query": "dog", "scope": "session"}), &ctx)).unwrap();
    assert_eq!(host.world().finds.len(), finds + 1);
    assert_eq!(host.world().finds.last().unwrap().0, format!("{}/main--s1", agent_dir("alice", "main")));
    // another agent never sees these turns, by words or by meaning
    let o = run(&other, "memory_search_history", json!({"query": "what is our dog named"}));
    assert_eq!(o["hits"].as_array().unwrap().len(), 0, "{o}");
    // the search by meaning failing costs only itself
    host.world().fail_op.insert("find".into(), [openviking_context_engine::host::HostErrorKind::Timeout].into());
    let r = run(&e, "memory_search_history", json!({"query": "what is our dog named"}));
    assert_eq!(r["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect::<Vec<_>>(), ["k3"]);
    assert!(r["note"].as_str().unwrap().contains("words only"), "{r}");
}

#[test]
fn another_agents_turns_are_never_read() {
    let host = FakeHost::new();
    let main = engine(&host, json!({}));
    let other = engine(&host, json!({"agentId": "other"}));
    let tricky = engine(&host, json!({"agentId": "main-"}));
    three_days(&host, &main);
    block_on(other.write_turn(turn_write("monday", Some("o1"), said(NOW - DAY, "Other agent: my vault code is 99-99.", "ok")))).unwrap();
    block_on(tricky.write_turn(turn_write("x", Some("t1"), said(NOW - DAY, "Tricky agent vault.", "ok")))).unwrap();
    // a forged document: a key of another agent's session claiming to be main's, and one of
    // main's keys holding another agent's document
    let forged = json!({"version": 1, "agentId": "main", "ovSessionId": "other--monday", "sessionId": "monday", "chunk": 0,
        "turns": [{"turnId": "forged", "sequence": 0, "timestampMs": NOW - DAY, "messages": [{"role": "user", "text": "forged vault"}]}]});
    host.world().state.insert("history/other--monday/05".into(), forged.clone());
    let mut wrong_agent = forged.clone();
    wrong_agent["agentId"] = json!("other");
    wrong_agent["ovSessionId"] = json!("main--zzz");
    host.world().state.insert("history/main--zzz/00".into(), wrong_agent);

    let r = run(&main, "memory_search_history", json!({"query": "vault"}));
    let ids: Vec<&str> = r["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{r}");
    assert!(ids.iter().all(|i| ["monday-k1", "tuesday-k1"].contains(i)), "{ids:?}");
    let o = run(&other, "memory_search_history", json!({"query": "vault"}));
    assert_eq!(o["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect::<Vec<_>>(), ["o1"]);
    let t = run(&tricky, "memory_search_history", json!({"query": "vault"}));
    assert_eq!(t["hits"].as_array().unwrap().iter().map(|h| h["turnId"].as_str().unwrap()).collect::<Vec<_>>(), ["t1"]);
    // and the expand reference of another agent's session is refused by memory_expand
    let err = block_on(main.run_tool("memory_expand", &json!({"summaryOrMemoryUri": "viking://user/alice/sessions/other--monday", "query": "vault"}))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("summaryOrMemoryUri"));
}

#[test]
fn the_index_is_chunked_bounded_and_replays_do_not_duplicate() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 1000}));
    host.world().now = NOW;
    for i in 0..70u64 {
        block_on(e.write_turn(turn_write("s1", Some(&format!("k{i}")), said(NOW - (70 - i) * 60_000, &format!("note number {i}"), "ok")))).unwrap();
    }
    // a retried key is a duplicate and is not indexed twice
    block_on(e.write_turn(turn_write("s1", Some("k5"), said(NOW, "note number 5", "ok")))).unwrap();
    let keys: Vec<String> = host.world().state.keys().filter(|k| k.starts_with("history/")).cloned().collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    let r = run(&e, "memory_search_history", json!({"query": "note number", "limit": 50}));
    assert_eq!(r["matched"], 70);
    assert_eq!(r["hits"].as_array().unwrap().len(), 50);
    let five = run(&e, "memory_search_history", json!({"pattern": "^note number 5$"}));
    assert_eq!(five["hits"].as_array().unwrap().len(), 1);
    assert!(r["elapsedMs"].is_u64());
}

#[test]
fn bad_input_names_the_field() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for (params, field) in [
        (json!({}), "query"),
        (json!({"pattern": "(unclosed"}), "pattern"),
        (json!({"pattern": "a{1,999}"}), "pattern"),
        (json!({"query": "vault", "since": "the day after tomorrow"}), "since"),
        (json!({"query": "vault", "until": {"day": 1}}), "until"),
        (json!({"query": "vault", "limit": 0}), "limit"),
        (json!({"query": "vault", "sort": "random"}), "sort"),
        (json!({"query": "vault", "who": "me"}), "who"),
    ] {
        let err = block_on(e.run_tool("memory_search_history", &params)).unwrap_err();
        assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidInput, Some(field)), "{params}: {err}");
    }
}

// ---- properties of the core rules (native: proptest is a native dev-dependency) ----

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::NOW;
    use super::DAY;
    use openviking_context_engine::tools::history::rank::{search, terms_of, phrase_of, Matcher, Query, RoleFilter, Sort, EXCERPT_MAX_CHARS};
    use openviking_context_engine::tools::history::regex::Regex;
    use openviking_context_engine::tools::history::{IndexChunk, IndexedMessage, TurnEntry, INDEX_VERSION};
    use openviking_context_engine::lifecycle::turn::Role;
    use proptest::prelude::*;

    const WORDS: &[&str] = &["vault", "boat", "aurora", "printer", "code", "Vault", "café", "ünïcode", "31-7-44", "the", "a", "vaults", "coded", "printers", "owner", "owns", "cities", "city"];

    fn arb_chunks() -> impl Strategy<Value = Vec<IndexChunk>> {
        let turn = (0u64..10 * DAY, prop::collection::vec((any::<bool>(), prop::collection::vec(0..WORDS.len(), 0..12)), 1..4));
        let chunk = (0usize..4, prop::collection::vec(turn, 0..8));
        prop::collection::vec(chunk, 0..6).prop_map(|cs| {
            cs.into_iter()
                .enumerate()
                .map(|(ci, (owner, turns))| {
                    let agent = ["main", "other", "main-", "mainx"][owner];
                    let ov = format!("{}--s{ci}", openviking_context_engine::address::session_map::agent_segment(agent));
                    IndexChunk {
                        version: INDEX_VERSION,
                        agent_id: agent.into(),
                        ov_session_id: ov.clone(),
                        session_id: format!("s{ci}"),
                        chunk: 0,
                        turns: turns
                            .into_iter()
                            .enumerate()
                            .map(|(ti, (ts, msgs))| TurnEntry {
                                turn_id: format!("{ov}:{ti}"),
                                sequence: ti as u64,
                                timestamp_ms: NOW - ts,
                                messages: msgs
                                    .into_iter()
                                    .map(|(user, ws)| IndexedMessage { role: if user { Role::User } else { Role::Assistant }, text: ws.iter().map(|w| WORDS[*w]).collect::<Vec<_>>().join(" ") })
                                    .collect(),
                            })
                            .collect(),
                    }
                })
                .collect()
        })
    }

    fn role_ok(r: RoleFilter, m: Role) -> bool {
        match r {
            RoleFilter::Any => true,
            RoleFilter::User => m == Role::User,
            RoleFilter::Assistant => m == Role::Assistant,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn every_hit_satisfies_the_filters_and_the_count_is_exact(
            chunks in arb_chunks(),
            word in 0..WORDS.len(),
            since in prop::option::of(0u64..10 * DAY),
            width in prop::option::of(1u64..10 * DAY),
            role in prop_oneof![Just(RoleFilter::Any), Just(RoleFilter::User), Just(RoleFilter::Assistant)],
            recency in any::<bool>(),
            limit in 1usize..8,
        ) {
            let text = WORDS[word];
            // a word too common to search for ("the") is refused by the tool before any search
            prop_assume!(!terms_of(text).is_empty());
            let since_ms = since.map(|s| NOW - s);
            let until_ms = match (since_ms, width) { (Some(s), Some(w)) => Some(s + w), (None, Some(w)) => Some(NOW - w), _ => None };
            let q = Query {
                matcher: Matcher::Terms { terms: terms_of(text), phrase: phrase_of(text), all: true },
                since: since_ms, until: until_ms, role, sort: if recency { Sort::Recency } else { Sort::Relevance }, limit, ov_session_id: None, by_meaning: Vec::new(),
            };
            let out = search("main", &chunks, &q);
            prop_assert!(out.hits.len() <= limit);
            let terms = terms_of(text);
            for h in &out.hits {
                prop_assert!(h.ov_session_id.starts_with("main--"), "{}", h.ov_session_id);
                prop_assert!(since_ms.map_or(true, |s| h.timestamp_ms >= s) && until_ms.map_or(true, |u| h.timestamp_ms < u));
                prop_assert!(role_ok(role, h.role));
                prop_assert!(h.excerpt.chars().count() <= EXCERPT_MAX_CHARS);
                prop_assert!(terms.iter().any(|w| openviking_context_engine::tools::history::rank::holds_term(&h.excerpt, w)), "{} lacks {text}", h.excerpt);
            }
            // brute force: this agent's turns in the window whose messages of the role hold every term
            let expected = chunks.iter().filter(|c| c.agent_id == "main" && c.ov_session_id.starts_with("main--")).flat_map(|c| c.turns.iter()).filter(|t| {
                since_ms.map_or(true, |s| t.timestamp_ms >= s) && until_ms.map_or(true, |u| t.timestamp_ms < u)
                    && terms.iter().all(|w| t.messages.iter().any(|m| role_ok(role, m.role) && openviking_context_engine::tools::history::rank::holds_term(&m.text, w)))
            }).count();
            prop_assert_eq!(out.matched, expected);
            // order
            for w in out.hits.windows(2) {
                if recency { prop_assert!(w[0].timestamp_ms >= w[1].timestamp_ms); } else { prop_assert!(w[0].score >= w[1].score); }
            }
        }

        #[test]
        fn a_literal_pattern_finds_what_substring_search_finds(
            hay in prop::collection::vec(prop_oneof![Just('a'), Just('b'), Just('.'), Just('*'), Just('('), Just('é'), Just('\n'), Just('A'), Just('['), Just('\\')], 0..60),
            needle in prop::collection::vec(prop_oneof![Just('a'), Just('b'), Just('.'), Just('*'), Just('('), Just('é'), Just('A'), Just('['), Just('\\')], 1..5),
            fold in any::<bool>(),
        ) {
            let hay: String = hay.into_iter().collect();
            let lit: String = needle.into_iter().collect();
            let escaped: String = lit.chars().flat_map(|c| if c.is_alphanumeric() { vec![c] } else { vec!['\\', c] }).collect();
            let re = Regex::new(&escaped, fold).unwrap();
            let mut budget = u64::MAX;
            let found = re.find(&hay, &mut budget).unwrap().map(|s| (s.start, s.end));
            let expected = if fold { hay.to_lowercase().find(&lit.to_lowercase()) } else { hay.find(&lit) }.map(|i| (i, i + lit.len()));
            prop_assert_eq!(found, expected);
            let used = u64::MAX - budget;
            prop_assert!(used <= (hay.chars().count() as u64 + 1) * re.size() as u64);
        }

        #[test]
        fn no_pattern_errs_by_panicking_and_runs_are_bounded(pattern in "[a-c.*+?|()\\[\\]^$\\\\{}0-9,-]{0,24}", hay in "[a-c\n]{0,80}") {
            if let Ok(re) = Regex::new(&pattern, false) {
                let mut budget = 1_000_000u64;
                if let Ok(Some(s)) = re.find(&hay, &mut budget) {
                    prop_assert!(s.start <= s.end && s.end <= hay.len() && hay.is_char_boundary(s.start) && hay.is_char_boundary(s.end));
                }
                let used = 1_000_000 - budget;
                prop_assert!(used <= (hay.chars().count() as u64 + 1) * re.size() as u64);
            }
        }
    }
}
