//! Percent-encoding of one URL path segment or query part.

/// Percent-encodes everything but `A–Z a–z 0–9 - _ . ~` (one path segment or query part).
pub fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
