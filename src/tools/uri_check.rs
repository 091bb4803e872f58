//! Checks on the URIs a caller (the model, through a tool) hands in:
//!
//! - [`uri_problem`]: a URI given to a delete must be exactly as OpenViking lists it —
//!   nothing a URL parser or the server could read as another URI: no percent-escapes, no
//!   `.`/`..` or empty segments (the server collapses `//` and a trailing `/`), no
//!   backslashes, queries, fragments, control or invisible characters (Unicode Cc, Cf, Zl,
//!   Zp), no outer spaces, and no look-alike characters that NFKC normalisation turns into a
//!   dot, slash, backslash, percent, `?` or `#` ("．", "․", "／", "％"…). Other non-ASCII text
//!   (CJK, fullwidth "：") is fine: the server names memory files after their topics.
//! - [`within_scope`]: is a URI its scope or below it — segment by segment after
//!   percent-decoding until stable, never by string prefix.
//!
//! The two tables are Unicode facts (computed from the Unicode data Node ships), not rules.

use crate::address::scopes::SCHEME;

const MAX_URI_CHARS: usize = 4096;

/// Non-ASCII characters whose NFKC form contains `. / \ % ? #` (or is empty).
const LOOK_ALIKES: &[(u32, u32)] = &[
    (0x2024, 0x2026), (0x2047, 0x2049), (0x2100, 0x2101), (0x2105, 0x2106), (0x2488, 0x249B), (0x33C2, 0x33C2),
    (0x33C7, 0x33C7), (0x33D8, 0x33D8), (0xFE16, 0xFE16), (0xFE19, 0xFE19), (0xFE30, 0xFE30), (0xFE52, 0xFE52),
    (0xFE56, 0xFE56), (0xFE5F, 0xFE5F), (0xFE68, 0xFE68), (0xFE6A, 0xFE6A), (0xFF03, 0xFF03), (0xFF05, 0xFF05),
    (0xFF0E, 0xFF0F), (0xFF1F, 0xFF1F), (0xFF3C, 0xFF3C), (0x1F100, 0x1F100),
];

/// Non-ASCII control, format and separator characters (Cc, Cf, Zl, Zp).
const INVISIBLE: &[(u32, u32)] = &[
    (0x80, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
    (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
];

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let cp = c as u32;
    table.iter().any(|&(a, b)| (a..=b).contains(&cp))
}

fn is_invisible(c: char) -> bool {
    c.is_ascii_control() || in_table(INVISIBLE, c)
}

fn has_percent_escape(s: &str) -> bool {
    s.as_bytes().windows(3).any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// Why `uri` cannot be handed to a delete (a message naming `field`), or `None`.
/// `trailing_slash`: one trailing `/` is allowed (a scope given as a folder).
pub fn uri_problem(field: &str, uri: &str, trailing_slash: bool) -> Option<String> {
    let problem = |m: &str| Some(format!("{field}: {m}"));
    if uri.is_empty() {
        return problem("must be a non-empty viking:// uri");
    }
    if uri.chars().count() > MAX_URI_CHARS {
        return problem(&format!("longer than {MAX_URI_CHARS} characters"));
    }
    if !uri.starts_with(SCHEME) {
        return problem("must start with viking://");
    }
    if has_percent_escape(uri) {
        return problem("percent-encoded characters (such as %2F or %2E) are not allowed; give the uri exactly as memory_recall lists it");
    }
    if uri.contains('\\') {
        return problem("backslashes are not allowed");
    }
    if uri.contains(['?', '#']) {
        return problem("a query (?) or fragment (#) is not allowed");
    }
    if uri.chars().any(is_invisible) {
        return problem("control or invisible characters are not allowed");
    }
    if uri.trim() != uri {
        return problem("leading or trailing spaces are not allowed");
    }
    if let Some(c) = uri.chars().find(|&c| !c.is_ascii() && in_table(LOOK_ALIKES, c)) {
        return problem(&format!(
            "\"{c}\" (U+{:04X}) normalises to a dot, slash, backslash or percent sign; look-alike characters are not allowed — give the uri exactly as memory_recall lists it",
            c as u32
        ));
    }
    let mut segs: Vec<&str> = uri[SCHEME.len()..].split('/').collect();
    if trailing_slash && segs.len() > 1 && segs.last() == Some(&"") {
        segs.pop();
    }
    if segs.iter().any(|s| s.is_empty()) {
        return problem("empty path segments (\"//\" or a trailing \"/\") are not allowed");
    }
    if segs.iter().any(|s| s.chars().all(|c| c == '.')) {
        return problem("\".\" and \"..\" segments are not allowed");
    }
    None
}

/// `%XX` decoded once; `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decoded until stable (at most 4 rounds); `None` when still changing or malformed.
fn fully_decode(s: &str) -> Option<String> {
    let mut cur = s.to_string();
    for _ in 0..4 {
        let next = percent_decode(&cur)?;
        if next == cur {
            return Some(cur);
        }
        cur = next;
    }
    None
}

/// The path segments of a clean absolute `viking://` URI, or `None`.
pub fn segments(uri: &str) -> Option<Vec<String>> {
    if !uri.starts_with(SCHEME) || uri.chars().count() > MAX_URI_CHARS {
        return None;
    }
    let decoded = fully_decode(&uri[SCHEME.len()..])?;
    if decoded.chars().any(|c| matches!(c, '\\' | '?' | '#') || c.is_ascii_control()) {
        return None;
    }
    let mut segs: Vec<String> = decoded.split('/').map(str::to_string).collect();
    if segs.len() > 1 && segs.last().is_some_and(String::is_empty) {
        segs.pop();
    }
    if segs.iter().any(|s| s.is_empty() || s.chars().all(|c| c == '.')) {
        return None;
    }
    Some(segs)
}

/// Is `uri` the scope itself or below it (whole segments, no traversal)?
pub fn within_scope(uri: &str, scope: &str) -> bool {
    match (segments(uri), segments(scope)) {
        (Some(u), Some(s)) => u.len() >= s.len() && u[..s.len()] == s[..],
        _ => false,
    }
}

/// Strictly below the scope (the scope folder itself is not a memory).
pub fn strictly_within_scope(uri: &str, scope: &str) -> bool {
    match (segments(uri), segments(scope)) {
        (Some(u), Some(s)) => u.len() > s.len() && u[..s.len()] == s[..],
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    const SCOPE: &str = "viking://user/alice/memories";

    #[test]
    fn a_uri_as_openviking_lists_it_passes() {
        for ok in ["viking://user/alice/memories/preferences/theme.md", "viking://user/alice/memories/entities/项目：北极星.md"] {
            assert_eq!(uri_problem("uri", ok, false), None, "{ok}");
        }
        assert_eq!(uri_problem("targetUri", "viking://user/alice/memories/", true), None);
    }

    #[test]
    fn every_disguise_is_refused_naming_the_field() {
        for bad in [
            "",
            "https://x/y",
            "viking://user/alice/memories/%2e%2e/bob",
            "viking://user/alice/memories\\..\\bob",
            "viking://user/alice/memories/x?y",
            "viking://user/alice/memories/x#y",
            "viking://user/alice/memories/\u{200b}x",
            "viking://user/alice/memories/x\u{0}",
            " viking://user/alice/memories/x",
            "viking://user/alice/memories/\u{ff0e}\u{ff0e}/bob",
            "viking://user/alice/memories/\u{2024}\u{2024}/bob",
            "viking://user/alice/memories//x",
            "viking://user/alice/memories/x/",
            "viking://user/alice/memories/../bob",
            "viking://user/alice/memories/.../x",
        ] {
            let p = uri_problem("uri", bad, false);
            assert!(p.as_deref().is_some_and(|m| m.starts_with("uri: ")), "{bad:?} → {p:?}");
        }
    }

    #[test]
    fn scope_membership_is_by_whole_decoded_segments() {
        assert!(within_scope(&format!("{SCOPE}/preferences/theme.md"), SCOPE));
        assert!(within_scope(SCOPE, SCOPE));
        assert!(!strictly_within_scope(SCOPE, SCOPE));
        assert!(!within_scope("viking://user/alice/memories-evil/x.md", SCOPE), "a sibling prefix");
        assert!(!within_scope("viking://user/alice/memories/../../bob/memories/x", SCOPE));
        assert!(!within_scope("viking://user/alice/memories/%2e%2e/x", SCOPE));
        assert!(!within_scope("viking://user/alice/memories/%252e%252e/x", SCOPE), "double-encoded");
        assert!(!within_scope("viking://user/alice/memories/a%ZZ", SCOPE), "malformed escape");
        assert!(within_scope("viking://user/alice/memories/caf%C3%A9.md", SCOPE));
        assert!(within_scope(&format!("{SCOPE}/"), SCOPE));
        assert!(within_scope(&format!("{SCOPE}/preferences/"), &format!("{SCOPE}/")));
        assert!(within_scope(&format!("{SCOPE}/a%20b.md"), SCOPE), "a harmless encoded space");
    }

    #[test]
    fn siblings_parents_and_other_users_are_outside() {
        for uri in [
            "viking://user/alice/memories-evil/x.md",
            "viking://user/alice/memoriesx",
            "viking://user/alice",
            "viking://user/alice/",
            "viking://user/bob/memories/x.md",
            "viking://user/alicex/memories/x.md",
            "viking://agent/alice/memories/x.md",
            "http://user/alice/memories/x",
            "VIKING://user/alice/memories/x",
            "user/alice/memories/x",
            " viking://user/alice/memories/x",
            "",
        ] {
            assert!(!within_scope(uri, SCOPE), "{uri}");
        }
        for bad_scope in ["viking://user/alice/../alice/memories", "", "viking://"] {
            assert!(!within_scope(&format!("{SCOPE}/x"), bad_scope), "{bad_scope}");
        }
    }

    #[test]
    fn dot_segments_and_encodings_never_get_out() {
        for tail in [
            "/../../bob/memories/x.md",
            "/..",
            "/./x.md",
            "/%2e%2e/%2e%2e/bob/memories",
            "/%2E%2E/secret",
            "/%252e%252e/secret",
            "/%25252e%25252e%25252e/x",
            "/%2525252e%2525252e/x",
            "/.../x",
            "/.%2e/x",
            "%2f..%2fsecret",
            "%2F%2E%2E/x",
            "/x/..\\..\\y",
            "\\..\\x",
            "//x.md",
            "/x%00.md",
            "/x\n.md",
            "/x?y=1",
            "/x#frag",
            "/%zz",
        ] {
            let uri = format!("{SCOPE}{tail}");
            assert!(!within_scope(&uri, SCOPE), "{uri:?}");
        }
    }
}
