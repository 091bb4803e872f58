//! The legacy query-aware rerank, with two deliberate fixes:
//! - CJK queries get a lexical boost too: runs of Han / kana / Hangul become character
//!   bigrams (particles such as 的 了 吗 の は dropped), ASCII words stay `[a-z0-9]{2,}`;
//! - the intent cues match whole words (`likely`, `Monday`, `update` no longer count as
//!   "like", "day", "date");
//! - query words match where a word starts, whole when short ([`token_matches`]: "he" is not
//!   in "the"), and a real stop list leaves out function words ("has", "into", "about").
//!
//! `rank = score + 0.12·[level 2] + 0.10·[temporal query ∧ events] + 0.08·[preference query ∧
//! preferences] + min(0.2, matched / min(tokens, 4) · 0.2)`, matched counted over the first 8
//! query tokens found in `uri + " " + abstract`. A CJK bigram counts as half a token (two
//! overlapping bigrams ≈ one word), so a CJK query looks at its first 16 bigrams.

use crate::recall::candidate::SearchItem;
use crate::text::is_cjk;
use serde::Serialize;

/// Words that carry no topic (English function words, question words and the verbs of
/// asking), sorted for a binary search. The legacy list had 24, so "has", "into", "about" or
/// "remember" boosted every memory that contained them.
const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "done", "down", "during", "each", "either", "else", "ever", "few", "for", "from", "further",
    "get", "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself",
    "his", "how", "if", "in", "into", "is", "it", "its", "itself", "just", "know", "let", "like", "me", "more",
    "most", "much", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
    "other", "our", "ours", "ourselves", "out", "over", "own", "please", "recall", "remember", "said", "same",
    "say", "she", "should", "so", "some", "such", "tell", "than", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "thing", "things", "this", "those", "through", "to", "too",
    "under", "until", "up", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];

/// The longest of [`STOPWORDS`], in bytes.
const STOPWORD_MAX_LEN: usize = 10;

/// A function word, left out of recall queries and history searches.
pub fn is_stopword(w: &str) -> bool {
    type Set = std::collections::HashSet<&'static str, std::hash::BuildHasherDefault<crate::recall::FxHasher>>;
    static SET: std::sync::OnceLock<Set> = std::sync::OnceLock::new();
    w.len() <= STOPWORD_MAX_LEN && SET.get_or_init(|| STOPWORDS.iter().copied().collect()).contains(w)
}

/// CJK characters that carry no topic on their own (particles, pronouns, question words).
const CJK_STOP_CHARS: &str = "的了吗呢吧啊呀是在和与及或我你您他她它们这那哪么什怎谁个也都就还又把被给对从到之其有没不很请吧嗎嘛呢哦の は が を に で と も へ や か ね よ な だ です ます した この その あの 이 가 은 는 을 를 에 의 도 로 와 과 요";

const PREFERENCE_WORDS: &[&str] =
    &["prefer", "prefers", "preferred", "preference", "preferences", "favorite", "favourite", "favorites", "favourites", "like", "likes"];
const PREFERENCE_CJK: &[&str] = &["偏好", "喜欢", "爱好", "更倾向", "好み", "선호"];
const TEMPORAL_WORDS: &[&str] =
    &["when", "date", "day", "days", "week", "month", "year", "yesterday", "today", "tomorrow", "last", "next"];
const RECENT_WORDS: &[&str] = &[
    "now", "currently", "current", "still", "nowadays", "recently", "latest", "anymore", "present", "decide", "decided", "settle",
    "settled", "final", "finally",
];
const HISTORY_WORDS: &[&str] = &[
    "before", "previously", "originally", "original", "first", "earlier", "used", "change", "changed", "changes", "switch",
    "switched", "history", "past", "ago", "formerly", "initially", "old", "previous", "when",
];
const HISTORY_CJK: &[&str] = &["之前", "以前", "原来", "最初", "起初", "一开始", "换", "改", "变化", "什么时候", "曾经", "当初", "原先", "何时", "哪天"];
const RECENT_CJK: &[&str] = &["现在", "目前", "最近", "如今", "仍然", "还在", "现任", "最新", "最后", "最终", "决定"];
const TEMPORAL_CJK: &[&str] = &[
    "什么时候", "何时", "哪天", "几月", "几年", "昨天", "今天", "明天", "上周", "下周", "上个月", "下个月", "去年", "明年",
    "いつ", "언제",
];

/// What the rerank needs to know about the query, computed once per recall.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct QueryProfile {
    /// The first distinct lexical tokens, 8 tokens' worth (a CJK bigram weighs ½).
    pub tokens: Vec<String>,
    pub wants_temporal: bool,
    pub wants_preference: bool,
    /// The query asks for the present state or the last decision ("now", "currently",
    /// "still", "these days", "recently", "decided", "settled", "现在", "目前", "最近", "最后"):
    /// of two versions of a fact, only the newest is wanted.
    pub wants_recent: bool,
    /// The query asks about the past or a change ("before", "originally", "first", "used
    /// to", "switched", "之前", "原来", "换"): older versions of a fact stay.
    pub wants_history: bool,
    /// The query's words written with a capital (lowercased): the names it mentions.
    pub names: Vec<String>,
    /// The calendar span the query names with its year ("in March 2024", "2023年底"),
    /// `[startMs, endMs)` in UTC days.
    pub window: Option<(u64, u64)>,
}

/// The components of one candidate's rank, shown in explain records.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RankParts {
    pub score: f64,
    pub level_boost: f64,
    pub temporal_boost: f64,
    pub preference_boost: f64,
    pub lexical_boost: f64,
    /// How many query tokens the candidate's uri + abstract contain.
    pub matched_tokens: usize,
    pub total: f64,
}

fn ascii_words(lower: &str) -> impl Iterator<Item = &str> {
    lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty())
}

fn is_cjk_stop(c: char) -> bool {
    CJK_STOP_CHARS.contains(c)
}

/// Lexical tokens of a query, in order of appearance, without duplicates, up to
/// `max_weight` tokens' worth (a CJK bigram weighs ½). Stops reading the query there.
///
/// The text is read lowercased, character by character: a word is a run of alphanumeric
/// characters of any alphabet but CJK (café, ünïcode: one token) of at least 2 characters and
/// not a function word; a CJK run gives its character pairs (neither a particle), and a lone
/// ideograph stands for itself (a lone kana does not). One pass, no allocation for a
/// repeated word.
pub fn query_tokens(query: &str, max_weight: f64) -> Vec<String> {
    let mut t = Tokenizer { tokens: Vec::new(), weight: 0.0, max_weight, word: String::new(), word_chars: 0, run_len: 0, prev: ' ' };
    for ch in query.chars() {
        if ch.is_ascii_alphanumeric() && t.run_len == 0 {
            // what `step` does with a letter or digit outside a CJK run
            t.word.push(ch.to_ascii_lowercase());
            t.word_chars += 1;
            continue;
        }
        let open = if ch.is_ascii() { t.step(ch.to_ascii_lowercase()) } else { ch.to_lowercase().all(|c| t.step(c)) };
        if !open {
            return t.tokens;
        }
    }
    t.step(' ');
    t.tokens
}

/// [`query_tokens`]'s state between characters.
struct Tokenizer {
    tokens: Vec<String>,
    weight: f64,
    max_weight: f64,
    /// The word being read and its length in characters.
    word: String,
    word_chars: usize,
    /// The length of the CJK run being read and its last character.
    run_len: usize,
    prev: char,
}

impl Tokenizer {
    /// Adds a token (a repeated one is passed over); false once the weight is used up.
    fn push(&mut self, t: &str) -> bool {
        let first = t.as_bytes().first();
        if self.tokens.iter().any(|have| have.len() == t.len() && have.as_bytes().first() == first && have == t) {
            return true;
        }
        let w = token_weight(t);
        if self.weight + w > self.max_weight {
            return false;
        }
        self.weight += w;
        self.tokens.push(t.to_string());
        true
    }

    /// Reads one lowercased character; false once the weight is used up (stop reading).
    fn step(&mut self, c: char) -> bool {
        let mut open = true;
        let cjk = is_cjk(c);
        if c.is_alphanumeric() && !cjk {
            self.word.push(c);
            self.word_chars += 1;
        } else {
            if self.word_chars >= 2 && !is_stopword(&self.word) {
                let word = std::mem::take(&mut self.word);
                open = self.push(&word);
                self.word = word;
            }
            self.word.clear();
            self.word_chars = 0;
        }
        if cjk {
            self.run_len += 1;
            if self.run_len >= 2 && !is_cjk_stop(self.prev) && !is_cjk_stop(c) {
                let mut pair = [0u8; 8];
                let a = self.prev.encode_utf8(&mut pair).len();
                let b = c.encode_utf8(&mut pair[a..]).len();
                let pair = std::str::from_utf8(&pair[..a + b]).unwrap_or_default();
                open = open && self.push(pair);
            }
            self.prev = c;
        } else if self.run_len > 0 {
            // a lone ideograph carries a topic on its own (茶, 猫); a lone kana does not
            if self.run_len == 1 && !is_cjk_stop(self.prev) && !matches!(self.prev, '\u{3040}'..='\u{30FF}') {
                let mut one = [0u8; 4];
                open = open && self.push(self.prev.encode_utf8(&mut one));
            }
            self.run_len = 0;
        }
        open
    }
}

/// A query token that says what kind of answer is wanted (the present, the past, a decision:
/// "now", "before", "decided", "现在", "之前", and CJK pairs that share a character with such a
/// phrase), not what it is about.
pub fn is_cue_token(t: &str) -> bool {
    if t.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return RECENT_WORDS.contains(&t) || HISTORY_WORDS.contains(&t) || TEMPORAL_WORDS.contains(&t);
    }
    t.chars().any(|c| RECENT_CJK.iter().chain(HISTORY_CJK).chain(TEMPORAL_CJK).any(|p| p.contains(c)))
}

pub fn profile_query(query: &str) -> QueryProfile {
    profile_with_tokens(query, query_tokens(query, MAX_TOKEN_WEIGHT))
}

/// [`profile_query`], given the query's tokens without a weight limit (`query_tokens(query,
/// f64::INFINITY)`, or its first 16 or more): the profile's tokens are their first 8 tokens'
/// worth, as reading the query again with the limit would give (the limit only stops the
/// reading at the first token that does not fit).
pub fn profile_query_from(query: &str, all_tokens: &[String]) -> QueryProfile {
    let mut weight = 0.0;
    let tokens = all_tokens
        .iter()
        .take_while(|t| {
            weight += token_weight(t);
            weight <= MAX_TOKEN_WEIGHT
        })
        .cloned()
        .collect();
    profile_with_tokens(query, tokens)
}

fn profile_with_tokens(query: &str, tokens: Vec<String>) -> QueryProfile {
    let lower = query.to_lowercase();
    let (mut wants_temporal, mut wants_preference, mut wants_recent, mut wants_history) = (false, false, false, false);
    for w in ascii_words(&lower) {
        wants_history = wants_history || HISTORY_WORDS.contains(&w);
        wants_temporal = wants_temporal || TEMPORAL_WORDS.contains(&w);
        wants_preference = wants_preference || PREFERENCE_WORDS.contains(&w);
        wants_recent = wants_recent || RECENT_WORDS.contains(&w);
    }
    wants_temporal = wants_temporal || crate::text::contains(&lower, "what time");
    wants_recent = wants_recent || crate::text::contains(&lower, "these days");
    // the CJK cues are not ASCII: an ASCII query holds none
    if !lower.is_ascii() {
        wants_temporal = wants_temporal || TEMPORAL_CJK.iter().any(|p| lower.contains(p));
        wants_preference = wants_preference || PREFERENCE_CJK.iter().any(|p| lower.contains(p));
        wants_recent = wants_recent || RECENT_CJK.iter().any(|p| lower.contains(p));
        wants_history = wants_history || HISTORY_CJK.iter().any(|p| lower.contains(p));
    }
    let window = crate::text::dates::explicit_spans(query, None).first().map(|d| (d.start_ms, d.end_ms));
    let mut sorted = tokens.clone();
    crate::order::sort(&mut sorted);
    let names = crate::recall::capitalised_words(query, &sorted);
    QueryProfile { tokens, wants_temporal, wants_preference, wants_recent, wants_history, names, window }
}

const MAX_TOKEN_WEIGHT: f64 = 8.0;

/// A CJK bigram weighs ½, anything else 1.
fn token_weight(t: &str) -> f64 {
    let mut chars = t.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(a), Some(b), None) if is_cjk(a) && is_cjk(b) => 0.5,
        _ => 1.0,
    }
}

/// Whether the lowercased `hay` holds query token `t`: a CJK token anywhere (bigrams have no
/// word boundaries); a word token only where a word starts — so "he" is not found inside "the"
/// — and, when shorter than 4 letters, only as the whole word ("vault" still finds "vaults",
/// "api" does not find "apiary").
pub fn token_matches(hay: &str, t: &str) -> bool {
    if !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return crate::text::contains(hay, t);
    }
    let mut from = 0;
    while let Some(at) = hay.get(from..).and_then(|rest| rest.find(t)) {
        let i = from + at;
        if matches_at(hay, i, t) {
            return true;
        }
        from = i + 1;
    }
    false
}

/// The word runs of a lowercased text, for matching many tokens against it: its maximal runs
/// of ASCII letters and digits, as byte ranges. A word token (ASCII letters and digits only)
/// can occur where a word starts only at the start of a run, and then it begins the run, so
/// [`token_matches`] is "a run begins with the token, and is the token when it is shorter
/// than 4" ([`WordRuns::matches`]) — no substring search per token.
#[derive(Default)]
pub struct WordRuns {
    runs: Vec<(usize, usize)>,
}

impl WordRuns {
    /// Reads the runs of `hay` (the runs read before are dropped).
    pub fn read(&mut self, hay: &str) {
        self.runs.clear();
        let mut start = None;
        for (i, b) in hay.bytes().enumerate() {
            match (b.is_ascii_alphanumeric(), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    self.runs.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            self.runs.push((s, hay.len()));
        }
    }

    /// The runs of `hay` (the text last [`read`](Self::read)), in order.
    pub fn iter<'a, 'h: 'a>(&'a self, hay: &'h str) -> impl Iterator<Item = &'h [u8]> + 'a {
        let h = hay.as_bytes();
        self.runs.iter().map(move |&(s, e)| &h[s..e])
    }

    /// [`token_matches`]`(hay, t)`, `hay` the text last [`read`](Self::read).
    pub fn matches(&self, hay: &str, t: &str) -> bool {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return token_matches(hay, t);
        }
        self.begins(hay, t.as_bytes(), t.len() >= 4)
    }

    /// Whether a run begins with `prefix` (and, unless `longer`, is `prefix`).
    fn begins(&self, hay: &str, prefix: &[u8], longer: bool) -> bool {
        let h = hay.as_bytes();
        let n = prefix.len();
        self.runs.iter().any(|&(s, e)| {
            let len = e - s;
            (len == n || (longer && len > n)) && h[s] == prefix[0] && &h[s..s + n] == prefix
        })
    }

    /// Whether a run begins with `prefix` (of ASCII letters and digits, at least 4 of them):
    /// [`token_matches`] of such a prefix.
    pub fn begins_with(&self, hay: &str, prefix: &str) -> bool {
        debug_assert!(prefix.len() >= 4 && prefix.bytes().all(|b| b.is_ascii_alphanumeric()));
        self.begins(hay, prefix.as_bytes(), true)
    }
}

/// How many words of a text, from its start, are compared for one typo (a memory's abstract
/// is short; a text of megabytes must not cost a turn seconds).
pub const TYPO_RUNS: usize = 400;

/// Two words one typo apart, as a misspelled name is ("jonass", "jnoas", "priyah" for
/// "jonas", "priya"): both of ASCII letters, at least 5 long, the same first letter, and one
/// letter inserted, deleted, replaced, or two neighbours swapped. Equal words are not.
pub fn one_typo_apart(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() < 5 || long.len() - short.len() > 1 || short[0] != long[0] || !a.iter().chain(b).all(u8::is_ascii_alphabetic) {
        return false;
    }
    let head = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        if head == short.len() {
            return false;
        }
        // one replaced, or two neighbours swapped
        short[head + 1..] == long[head + 1..]
            || (head + 1 < short.len() && short[head] == long[head + 1] && short[head + 1] == long[head] && short[head + 2..] == long[head + 2..])
    } else {
        // one inserted into the shorter
        short[head..] == long[head + 1..]
    }
}

/// Whether the occurrence of `t` at byte `i` of `hay` counts (see [`token_matches`]).
pub fn matches_at(hay: &str, i: usize, t: &str) -> bool {
    if !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return true;
    }
    let (h, n) = (hay.as_bytes(), t.len());
    let starts = i == 0 || !h[i - 1].is_ascii_alphanumeric();
    let ends = h.get(i + n).is_none_or(|b| !b.is_ascii_alphanumeric());
    starts && (ends || n >= 4)
}

/// In category `name`, by its category or by a `/<name>/` folder in its uri (`dir` = "/<name>/").
fn in_category(item: &SearchItem, name: &str, dir: &str) -> bool {
    item.category.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(name)) || item.uri.contains(dir)
}

/// Ranks one candidate against the query profile.
pub fn rank(item: &SearchItem, q: &QueryProfile) -> RankParts {
    Ranker::new(q).rank(item)
}

/// Ranks many candidates against one query profile: the token weights are computed once and
/// the lowercased haystack is built in one reused buffer. Same parts as [`rank`].
pub struct Ranker<'q> {
    q: &'q QueryProfile,
    weights: Vec<f64>,
    total_weight: f64,
    hay: String,
    runs: WordRuns,
}

impl<'q> Ranker<'q> {
    pub fn new(q: &'q QueryProfile) -> Self {
        let weights: Vec<f64> = q.tokens.iter().map(|t| token_weight(t)).collect();
        let total_weight = weights.iter().sum();
        Ranker { q, weights, total_weight, hay: String::new(), runs: WordRuns::default() }
    }

    pub fn rank(&mut self, item: &SearchItem) -> RankParts {
        let q = self.q;
        let score = item.score;
        let level_boost = if item.level == Some(2) { 0.12 } else { 0.0 };
        let temporal_boost = if q.wants_temporal && in_category(item, "events", "/events/") { 0.10 } else { 0.0 };
        let preference_boost = if q.wants_preference && in_category(item, "preferences", "/preferences/") { 0.08 } else { 0.0 };
        let (lexical_boost, matched_tokens) = if q.tokens.is_empty() {
            (0.0, 0)
        } else {
            // the lowercased `uri + " " + summary` (SearchItem::haystack), without allocating
            let hay = &mut self.hay;
            hay.clear();
            let summary = item.summary();
            if !item.uri.contains('\u{03A3}') && !summary.contains('\u{03A3}') {
                // without a capital sigma, lowercasing goes character by character
                crate::text::push_lowercase(hay, &item.uri);
                hay.push(' ');
                crate::text::push_lowercase(hay, summary);
            } else {
                *hay = item.haystack();
            }
            self.runs.read(hay);
            let runs = &self.runs;
            // summed with `Sum` as `rank` always did (its neutral element is -0.0 on newer
            // Rust, which shows in the explain records' `lexicalBoost` of a candidate that
            // matches nothing)
            let mut matched = 0;
            let matched_weight: f64 = q
                .tokens
                .iter()
                .zip(&self.weights)
                .filter(|(t, _)| runs.matches(hay, t))
                .map(|(_, w)| {
                    matched += 1;
                    *w
                })
                .sum();
            ((matched_weight / self.total_weight.min(4.0) * 0.2).min(0.2), matched)
        };
        let total = score + level_boost + temporal_boost + preference_boost + lexical_boost;
        RankParts { score, level_boost, temporal_boost, preference_boost, lexical_boost, matched_tokens, total }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn item(uri: &str, score: f64, abs: &str, cat: &str) -> SearchItem {
        SearchItem {
            uri: uri.into(),
            level: Some(2),
            score,
            abstract_text: abs.into(),
            overview: String::new(),
            category: Some(cat.into()),
            malformed: None,
            written_ms: None,
        }
    }

    #[test]
    fn the_legacy_worked_example_now_ranks_the_preference_first() {
        // From the legacy doc: there the events item outranked the preferences item (0.7367 vs
        // 0.7333), because "my" counted as a query word. With function words left out the
        // query is "favorite coffee": the preference matches both words, the event one.
        let q = profile_query("What is my favorite coffee?");
        assert!(q.wants_preference);
        assert_eq!(q.tokens, ["favorite", "coffee"]);
        let ev = rank(&item("viking://user/a/memories/events/e1.md", 0.55, "Went to a coffee tasting last week", "events"), &q);
        let pr = rank(&item("viking://user/a/memories/preferences/p1.md", 0.40, "User's favorite coffee is flat white", "preferences"), &q);
        assert!((ev.total - 0.77).abs() < 1e-9, "{}", ev.total);
        assert!((pr.total - 0.80).abs() < 1e-9, "{}", pr.total);
        assert!(pr.total > ev.total);
    }

    #[test]
    fn cjk_queries_get_a_lexical_boost() {
        let q = profile_query("之前给我的数据库慢查询优化建议是什么？");
        assert!(q.tokens.contains(&"数据".to_string()));
        assert!(q.tokens.contains(&"查询".to_string()));
        let hit = rank(&item("viking://user/a/memories/entities/db.md", 0.4, "慢查询优化：给 orders.user_id 加索引", "entities"), &q);
        assert!(hit.lexical_boost > 0.0);
    }

    #[test]
    fn words_match_where_a_word_starts_and_function_words_are_not_tokens() {
        assert!(!token_matches("viking://x the theme", "he"));
        assert!(token_matches("the vaults moved", "vault"), "a longer word may go on (plural)");
        assert!(!token_matches("an apiary", "api") && token_matches("the api gateway", "api"));
        assert!(!token_matches("a trevault", "vault"));
        assert!(token_matches("数据库慢查询", "查询"), "CJK bigrams anywhere");
        let q = profile_query("What has he got to say about the migration into Postgres?");
        assert_eq!(q.tokens, ["migration", "postgres"]);
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS, "sorted, for the binary search");
        assert_eq!(STOPWORDS.iter().map(|w| w.len()).max(), Some(STOPWORD_MAX_LEN));
        // the set answers as a search of the sorted list does
        for w in STOPWORDS.iter().flat_map(|w| [w.to_string(), format!("{w}s"), w[1..].to_string(), w.to_uppercase(), format!("x{w}")]) {
            assert_eq!(is_stopword(&w), STOPWORDS.binary_search(&w.as_str()).is_ok(), "{w}");
        }
    }

    #[test]
    fn one_typo_apart_is_a_misspelled_word_and_nothing_more() {
        for (a, b) in [("jonass", "jonas"), ("jnoas", "jonas"), ("priyah", "priya"), ("marcos", "marcus"), ("jonas", "jona5x")] {
            assert_eq!(one_typo_apart(a.as_bytes(), b.as_bytes()), a != "jonas", "{a} {b}");
        }
        for (a, b) in [("jonas", "jonas"), ("jonas", "tonas"), ("jonas", "jones1"), ("mira", "mina"), ("jonas", "jonasss"), ("abcde", "acbed")] {
            assert!(!one_typo_apart(a.as_bytes(), b.as_bytes()), "{a} {b}");
        }
    }

    #[test]
    fn intent_cues_need_whole_words() {
        assert!(!profile_query("this is likely an update on monday").wants_preference);
        assert!(!profile_query("this is likely an update on monday").wants_temporal);
        assert!(profile_query("what did we decide last week").wants_temporal);
        assert!(profile_query("我上周说过喜欢什么").wants_preference);
    }
}

