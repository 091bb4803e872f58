//! Tests of `rank`.

#[cfg(target_arch = "wasm32")]
use crate::wasm_test as test;
use super::*;
use crate::tools::history::{IndexedMessage, TurnEntry, INDEX_VERSION};

fn chunk(agent: &str, ov: &str, turns: Vec<(u64, u64, &str, &str)>) -> IndexChunk {
    IndexChunk {
        version: INDEX_VERSION,
        agent_id: agent.into(),
        ov_session_id: ov.into(),
        session_id: ov.split("--").nth(1).unwrap_or("").into(),
        chunk: 0,
        turns: turns
            .into_iter()
            .map(|(seq, ts, user, asst)| TurnEntry {
                turn_id: format!("{ov}:{seq}"),
                sequence: seq,
                timestamp_ms: ts,
                messages: vec![IndexedMessage { role: Role::User, text: user.into() }, IndexedMessage { role: Role::Assistant, text: asst.into() }],
            })
            .collect(),
    }
}

fn q(text: &str) -> Query {
    let terms = terms_of(text);
    Query { matcher: Matcher::Terms { terms, phrase: phrase_of(text), all: true }, since: None, until: None, role: RoleFilter::Any, sort: Sort::Relevance, limit: 10, ov_session_id: None, by_meaning: Vec::new() }
}

#[test]
fn window_role_and_agent_filters() {
    let chunks = vec![
        chunk("main", "main--a", vec![(1, 1_000, "the vault code is 1", "noted"), (2, 2_000, "nothing here", "the vault is closed")]),
        chunk("main", "main--b", vec![(1, 3_000, "vault again", "ok")]),
        chunk("other", "other--c", vec![(1, 1_500, "other agent's vault", "ok")]),
        chunk("main", "other--d", vec![(1, 1_500, "a forged document claiming main", "vault")]),
    ];
    let all = search("main", &chunks, &q("vault"));
    assert_eq!(all.hits.len(), 3);
    assert!(all.hits.iter().all(|h| h.ov_session_id.starts_with("main--")));
    let mut w = q("vault");
    (w.since, w.until) = (Some(1_500), Some(3_000));
    let h = search("main", &chunks, &w).hits;
    assert_eq!(h.iter().map(|h| h.turn_id.as_str()).collect::<Vec<_>>(), ["main--a:2"]);
    assert_eq!(h[0].role, Role::Assistant);
    let mut u = q("vault");
    u.role = RoleFilter::User;
    assert!(search("main", &chunks, &u).hits.iter().all(|h| h.role == Role::User && h.turn_id != "main--a:2"));
    let mut one = q("vault");
    one.ov_session_id = Some("main--b".into());
    assert_eq!(search("main", &chunks, &one).hits.len(), 1);
}

#[test]
fn relevance_and_recency() {
    let chunks = vec![chunk("main", "main--a", vec![(1, 1_000, "vault vault vault combination", "x"), (2, 2_000, "vault", "y"), (3, 3_000, "combination only", "z")])];
    let r = search("main", &chunks, &q("vault combination"));
    assert_eq!(r.hits.len(), 1, "all terms by default");
    let mut any = q("vault combination");
    if let Matcher::Terms { all, .. } = &mut any.matcher {
        *all = false;
    }
    let r = search("main", &chunks, &any);
    assert_eq!(r.hits[0].sequence, 1, "both terms and the phrase rank first");
    assert_eq!(r.hits.len(), 3);
    any.sort = Sort::Recency;
    assert_eq!(search("main", &chunks, &any).hits.iter().map(|h| h.sequence).collect::<Vec<_>>(), [3, 2, 1]);
    any.limit = 2;
    let r = search("main", &chunks, &any);
    assert_eq!((r.hits.len(), r.matched), (2, 3));
}

#[test]
fn inflected_forms_match_but_not_inside_other_words() {
    let chunks = vec![chunk("main", "main--a", vec![
        (1, 1_000, "Marco owns the analytics service", "ok"),
        (2, 2_000, "the cities we visited", "ok"),
        (3, 3_000, "the theme is dark", "ok"),
        (4, 4_000, "a basement flat", "ok"),
    ])];
    let any = |text: &str| {
        let mut x = q(text);
        if let Matcher::Terms { all, .. } = &mut x.matcher {
            *all = false;
        }
        x
    };
    let seqs = |text: &str| search("main", &chunks, &any(text)).hits.iter().map(|h| h.sequence).collect::<Vec<_>>();
    assert_eq!(seqs("owner"), [1], "owner finds owns");
    assert_eq!(seqs("city"), [2], "city finds cities");
    assert!(seqs("he").is_empty(), "he is not found inside the or theme");
    assert_eq!(stem_of("based"), "bas");
    assert!(seqs("based").is_empty(), "a stem carries only inflection endings: based does not find basement");
}

#[test]
fn the_best_hit_leads_to_the_turn_the_query_does_not_name() {
    let chunks = vec![chunk("main", "main--a", vec![
        (1, 1_000, "Marco owns the analytics service. The office moved.", "ok"),
        (2, 2_000, "Marco lives in Nairobi.", "ok"),
        (3, 3_000, "Chen works remotely from Warsaw.", "ok"),
        (4, 4_000, "The printer is broken.", "ok"),
    ])];
    let mut x = q("In which city does the person who owns analytics work?");
    if let Matcher::Terms { all, .. } = &mut x.matcher {
        *all = false;
    }
    let r = search("main", &chunks, &x);
    let order: Vec<u64> = r.hits.iter().map(|h| h.sequence).collect();
    assert_eq!(order.first(), Some(&1), "the query's own best hit first: {order:?}");
    assert!(order.contains(&2), "the turn about the owner is found through the first hit: {order:?}");
    assert!(!order.contains(&4), "a turn sharing nothing stays out: {order:?}");
    assert!(r.hits.iter().find(|h| h.sequence == 2).is_some_and(|h| h.excerpt.contains("Marco")));
    // no expansion when every term must match, or in recency order
    x.sort = Sort::Recency;
    assert!(!search("main", &chunks, &x).hits.iter().any(|h| h.sequence == 2));
    let strict = q("owns analytics");
    assert_eq!(search("main", &chunks, &strict).hits.iter().map(|h| h.sequence).collect::<Vec<_>>(), [1]);
}

#[test]
fn patterns_and_their_budget() {
    let chunks = vec![chunk("main", "main--a", vec![(1, 1_000, "code 31-7-44", "ok"), (2, 2_000, "no digits", "fine")])];
    let mut p = q("x");
    p.matcher = Matcher::Pattern(Regex::new(r"\d+-\d+-\d+", false).unwrap());
    let r = search("main", &chunks, &p);
    assert_eq!(r.hits.len(), 1);
    assert!(r.hits[0].excerpt.contains("31-7-44"));
    let big: String = "a".repeat(2_000);
    let many: Vec<(u64, u64, &str, &str)> = (0..2_000).map(|i| (i, i, big.as_str(), "x")).collect();
    let chunks = vec![chunk("main", "main--a", many)];
    p.matcher = Matcher::Pattern(Regex::new("(a|aa)*(a*)*(a|b)*c", false).unwrap());
    let r = search("main", &chunks, &p);
    assert!(r.truncated.as_deref().is_some_and(|t| t.contains("steps")), "{:?}", r.truncated);
}

#[test]
fn excerpts_are_bounded_and_centered() {
    let text = format!("{} the vault {}", "é ".repeat(500), "ü ".repeat(500));
    let at = text.find("vault").unwrap();
    let e = excerpt(&text, at, 5);
    assert!(e.chars().count() <= EXCERPT_MAX_CHARS && e.contains("vault") && e.starts_with('…') && e.ends_with('…'), "{e}");
    assert_eq!(excerpt("short vault", 6, 5), "short vault");
    // a long match is shown from its start
    let long = format!("{}{}", "x ".repeat(200), "y".repeat(400));
    let e = excerpt(&long, 400, 400);
    assert!(e.starts_with("…yyy") && e.chars().count() <= EXCERPT_MAX_CHARS, "{e}");
    // folding that changes byte lengths keeps positions right
    let t = "İİİ vault";
    let m = term_match(t, &["vault".to_string()]).unwrap();
    assert_eq!(&t[m.at..m.at + m.len], "vault");
}
