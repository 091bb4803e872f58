//! Plain text: lengths and cuts in UTF-16 code units (what JS counts), whitespace, case,
//! script detection, substring search, quoting text from elsewhere.

/// Length in UTF-16 code units — what JS `string.length` reports.
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `s` that is at most `max_units` UTF-16 code units long and ends on
/// a character boundary — it never splits a UTF-8 sequence or a surrogate pair.
pub fn prefix_utf16(s: &str, max_units: usize) -> &str {
    // a character is never more UTF-16 units than UTF-8 bytes: a text of at most `max_units`
    // bytes fits whole
    if s.len() <= max_units {
        return s;
    }
    let mut units = 0usize;
    for (i, c) in s.char_indices() {
        let next = units + c.len_utf16();
        if next > max_units {
            return &s[..i];
        }
        units = next;
    }
    s
}

/// `s` cut to at most `max_units` UTF-16 code units including the `"..."` marker that
/// shows it was cut. Text that fits is returned unchanged.
pub fn truncate_with_ellipsis(s: &str, max_units: usize) -> String {
    if utf16_len(s) <= max_units {
        return s.to_string();
    }
    let keep = prefix_utf16(s, max_units.saturating_sub(3)).trim_end();
    format!("{keep}...")
}

/// Whitespace as JavaScript's `trim()` and `\s` see it: Unicode White_Space plus U+FEFF (the
/// byte-order mark), so a BOM-only text is empty and a BOM-prefixed duplicate is a duplicate.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// `s` without leading and trailing [`is_space`] characters.
pub fn trim_space(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Collapses every run of whitespace ([`is_space`]) to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Appends `s.to_lowercase()` to `buf` without an intermediate string where that is exact:
/// ASCII byte by byte, other text character by character — except text with a capital
/// sigma, whose lowercase depends on its neighbours (`str::to_lowercase` is used for it).
pub fn push_lowercase(buf: &mut String, s: &str) {
    if s.is_ascii() {
        let start = buf.len();
        buf.push_str(s);
        buf[start..].make_ascii_lowercase();
    } else if s.contains('\u{03A3}') {
        buf.push_str(&s.to_lowercase());
    } else {
        buf.extend(s.chars().flat_map(char::to_lowercase));
    }
}

/// Appends `collapse_whitespace(s).to_lowercase()` to `buf`, in one pass where that is exact.
pub fn push_collapsed_lowercase(buf: &mut String, s: &str) {
    if s.contains('\u{03A3}') {
        buf.push_str(&collapse_whitespace(s).to_lowercase());
        return;
    }
    let mut first = true;
    for word in s.split(is_space).filter(|w| !w.is_empty()) {
        if !first {
            buf.push(' ');
        }
        first = false;
        push_lowercase(buf, word);
    }
}

/// Han, kana or Hangul — scripts written without spaces between words (Korean aside),
/// where one character carries roughly what a short English word does.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}' | '\u{3040}'..='\u{30FF}' | '\u{AC00}'..='\u{D7AF}')
}

pub fn has_cjk(s: &str) -> bool {
    s.chars().any(is_cjk)
}

/// Needles up to this many bytes are searched for byte by byte (see [`contains`]).
const SHORT_NEEDLE: usize = 32;

/// `hay.contains(needle)`, faster for the short needles of a query's tokens: std's search
/// sets up a two-way searcher per call, which dominated ranking many short haystacks. A scan
/// for the first byte then a compare; bytewise is exact for UTF-8 (a match of whole encoded
/// characters can only start at a character boundary). At most `SHORT_NEEDLE` compares per
/// haystack byte; longer needles go to std's linear-time search.
pub fn contains(hay: &str, needle: &str) -> bool {
    if needle.len() > SHORT_NEEDLE {
        return hay.contains(needle);
    }
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else { return true };
    if needle.len() > hay.len() {
        return false;
    }
    let last = hay.len() - needle.len();
    let mut i = 0;
    while i <= last {
        match hay[i..=last].iter().position(|&b| b == first) {
            None => return false,
            Some(p) => {
                let at = i + p;
                if &hay[at + 1..at + needle.len()] == rest {
                    return true;
                }
                i = at + 1;
            }
        }
    }
    false
}

/// JSON text (as `JSON.stringify` writes it) with every lone UTF-16 surrogate escape
/// (`\ud800`–`\udfff` not part of a high+low pair) replaced by `\ufffd`, so it parses as
/// UTF-8. JS strings may hold lone surrogates (a model or tool output cut mid-emoji); the
/// engine stores them as U+FFFD REPLACEMENT CHARACTER instead of refusing the turn. Text
/// without a lone surrogate is returned borrowed, unchanged.
pub fn replace_lone_surrogate_escapes(json: &str) -> std::borrow::Cow<'_, str> {
    if !contains(json, "\\u") {
        return std::borrow::Cow::Borrowed(json); // no \u escape at all (the common case)
    }
    let b = json.as_bytes();
    let hex4 = |at: usize| -> Option<u16> {
        let s = json.get(at..at + 4)?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(s, 16).ok()
    };
    let unit_at = |at: usize| -> Option<u16> {
        if b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u') {
            hex4(at + 2)
        } else {
            None
        }
    };
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `json` already in `out`
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit_at(i) else {
            i += 2; // another escape (\\, \", \n …): skip both characters
            continue;
        };
        let lone = match u {
            0xD800..=0xDBFF => match unit_at(i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i += 12; // a valid pair
                    continue;
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let o = out.get_or_insert_with(|| String::with_capacity(json.len()));
            o.push_str(&json[copied..i]);
            o.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    match out {
        None => std::borrow::Cow::Borrowed(json),
        Some(mut o) => {
            o.push_str(&json[copied..]);
            std::borrow::Cow::Owned(o)
        }
    }
}

/// Text from elsewhere, trimmed and cut to `max` characters (with `…` when cut).
pub fn quote_within(text: &str, max: usize) -> String {
    let t = text.trim();
    if t.chars().count() <= max {
        t.to_string()
    } else {
        format!("{}…", t.chars().take(max).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn contains_is_std_contains() {
        let words = ["pool", "poo", "l", "", "数据", "数据库", "据", "ß", "é", "e\u{301}", "aaab", "aab", "a", "😀", "\u{1F600}x", &"z".repeat(40), &"a".repeat(33)];
        let hays = ["", "pool", "the staging pool", "aaaaab", "aab", "数据库慢查询", "straße", "café", "cafe\u{301}", "😀😀x", &"a".repeat(40), &format!("{}{}", "z".repeat(39), "z")];
        for h in hays {
            for n in words {
                assert_eq!(contains(h, n), h.contains(n), "{h:?} ∋ {n:?}");
            }
        }
    }

    #[test]
    fn prefix_never_splits_a_surrogate_pair() {
        let s = "ab😀cd"; // 😀 is 2 UTF-16 units
        assert_eq!(prefix_utf16(s, 2), "ab");
        assert_eq!(prefix_utf16(s, 3), "ab");
        assert_eq!(prefix_utf16(s, 4), "ab😀");
        assert_eq!(prefix_utf16(s, 100), s);
    }

    #[test]
    fn truncation_marks_the_cut_and_respects_the_limit() {
        let s = "数据库慢查询优化建议：给 user_id 加索引";
        let t = truncate_with_ellipsis(s, 10);
        assert!(t.ends_with("..."));
        assert!(utf16_len(&t) <= 10);
        assert_eq!(truncate_with_ellipsis("short", 10), "short");
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
    }

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        let fix = |s: &str| replace_lone_surrogate_escapes(s).into_owned();
        assert_eq!(fix(r#""cut \ud83d""#), r#""cut \ufffd""#);
        assert_eq!(fix(r#""\ude00 tail""#), r#""\ufffd tail""#);
        assert_eq!(fix(r#""\ud83d\ude00""#), r#""\ud83d\ude00""#, "a pair stays");
        assert_eq!(fix(r#""\ud83d\ud83d\ude00""#), r#""\ufffd\ud83d\ude00""#);
        assert_eq!(fix(r#""\\ud800 is text""#), r#""\\ud800 is text""#, "an escaped backslash, not an escape");
        assert_eq!(fix(r#""\\\ud800""#), r#""\\\ufffd""#);
        assert_eq!(fix(r#"{"\udBFF":"\u0041\uDC00"}"#), r#"{"\ufffd":"\u0041\ufffd"}"#);
        assert!(matches!(replace_lone_surrogate_escapes(r#"{"a":"\u00e9 ok"}"#), std::borrow::Cow::Borrowed(_)));
        for s in [r#""\ud800""#, r#""\udfff\ud800x""#, r#""a\ud83d""#] {
            let v: serde_json::Value = serde_json::from_str(&fix(s)).expect("parses after the fix");
            assert!(v.as_str().unwrap().contains('\u{FFFD}'));
        }
        // truncated escapes and odd input never panic
        for s in ["\\", "\\u", "\\ud8", "\\ud800\\u", "\\ud800\\udc", "é\\ud800é"] {
            let _ = replace_lone_surrogate_escapes(s);
        }
    }
}
