//! Small text helpers shared by the pipeline: lengths and truncation as JavaScript counts
//! them (UTF-16 code units), whitespace collapsing, script detection.

/// Length in UTF-16 code units — what JS `string.length` reports.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `s` that is at most `max_units` UTF-16 code units long and ends on
/// a character boundary — it never splits a UTF-8 sequence or a surrogate pair.
pub fn prefix_utf16(s: &str, max_units: usize) -> &str {
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

/// Collapses every run of whitespace to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

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
}
