//! Tests of `regex`.

#[cfg(target_arch = "wasm32")]
use crate::wasm_test as test;
use super::*;

fn find(p: &str, t: &str) -> Option<(usize, usize)> {
    let mut b = u64::MAX;
    Regex::new(p, false).unwrap().find(t, &mut b).unwrap().map(|s| (s.start, s.end))
}

fn ifind(p: &str, t: &str) -> Option<(usize, usize)> {
    let mut b = u64::MAX;
    Regex::new(p, true).unwrap().find(t, &mut b).unwrap().map(|s| (s.start, s.end))
}

#[test]
fn literals_dots_and_classes() {
    assert_eq!(find("vault", "the vault code"), Some((4, 9)));
    assert_eq!(find("v.ult", "the vault"), Some((4, 9)));
    assert_eq!(find("[0-9]+-[0-9]+", "code 31-7-44"), Some((5, 9)));
    assert_eq!(find(r"\d+-\d+-\d+", "code 31-7-44!"), Some((5, 12)));
    assert_eq!(find("[^a-z ]+", "abc DEF"), Some((4, 7)));
    assert_eq!(find("[]x]", "a]"), Some((1, 2)));
    assert_eq!(find(r"\w+@\w+\.com", "mail bob@example.com now"), Some((5, 20)));
    assert_eq!(find(r"a\.b", "axb a.b"), Some((4, 7)));
    assert_eq!(find("x", "abc"), None);
    assert_eq!(find("é+", "caféé!"), Some((3, 7)));
}

#[test]
fn groups_alternation_and_repeats() {
    assert_eq!(find("(red|green) car", "a green car"), Some((2, 11)));
    assert_eq!(find("ab{2,3}c", "abc abbc abbbbc"), Some((4, 8)));
    assert_eq!(find("ab{2}", "ab abb"), Some((3, 6)));
    assert_eq!(find("ab{2,}", "abbbb"), Some((0, 5)));
    assert_eq!(find("colou?r", "color"), Some((0, 5)));
    assert_eq!(find("(?:na)+", "banana"), Some((2, 6)));
    assert_eq!(find("a*", "bbb"), Some((0, 0)));
    assert_eq!(find("x|", "ab"), Some((0, 0)));
}

#[test]
fn anchors_hold_at_lines() {
    assert_eq!(find("^b", "ab\nbc"), Some((3, 4)));
    assert_eq!(find("b$", "ab\nbc"), Some((1, 2)));
    assert_eq!(find("^ab$", "ab"), Some((0, 2)));
    assert_eq!(find("^c", "abc"), None);
}

#[test]
fn case_folding() {
    assert_eq!(ifind("VAULT", "The Vault"), Some((4, 9)));
    assert_eq!(ifind("[a-c]+", "xABCx"), Some((1, 4)));
    assert_eq!(find("VAULT", "The Vault"), None);
}

#[test]
fn bad_patterns_say_why() {
    for (p, why) in [
        ("(a", "unclosed group"),
        ("a)", "unmatched )"),
        ("[a-", "unclosed ["),
        ("*a", "nothing to repeat"),
        ("a{3,2}", "n < m"),
        ("a{1000}", "at most 100"),
        (r"(a)\1", "unsupported escape"),
        ("(?=a)", "only (?:"),
        ("a*?", "cannot follow a quantifier"),
        ("[z-a]", "out of order"),
        ("\\", "trailing"),
    ] {
        let e = Regex::new(p, false).unwrap_err();
        assert!(e.contains(why), "{p}: {e}");
    }
    assert!(Regex::new(&"a".repeat(PATTERN_MAX_CHARS + 1), false).unwrap_err().contains("longer than"));
    assert!(Regex::new("(a{100}){100}", false).unwrap_err().contains("too large"));
}

#[test]
fn a_hostile_pattern_is_linear_and_the_budget_stops_it() {
    let re = Regex::new("(a|a)*(a*)*b", false).unwrap();
    let text = "a".repeat(5_000);
    let mut budget = u64::MAX;
    assert_eq!(re.find(&text, &mut budget).unwrap(), None);
    let used = u64::MAX - budget;
    // threads per step are bounded by the program size: a few per character, not 2^n
    assert!(used <= (text.len() as u64 + 1) * re.size() as u64, "{used}");
    let mut small = 1_000;
    assert_eq!(re.find(&text, &mut small), Err(OutOfSteps));
}

#[test]
fn find_all_does_not_overlap() {
    let re = Regex::new(r"\d+", false).unwrap();
    let mut b = u64::MAX;
    let all: Vec<_> = re.find_all("1 22 333", 10, &mut b).unwrap().iter().map(|s| (s.start, s.end)).collect();
    assert_eq!(all, [(0, 1), (2, 4), (5, 8)]);
    let empty = Regex::new("x*", false).unwrap();
    assert_eq!(empty.find_all("ab", 10, &mut b).unwrap().len(), 3);
}
