//! Secrets taken out of text: every form a secret can take in it (itself, percent-encoded),
//! each replaced by `[redacted]`.

/// What a redaction looks for (`openviking::server::redact_all`, the config's scrubber): each secret of 4 characters or more and its
/// percent-encoded form, longest first.
pub fn secret_forms(secrets: &[&str]) -> Vec<String> {
    let mut forms: Vec<String> = Vec::new();
    for s in secrets.iter().filter(|s| s.len() >= 4) {
        forms.push(s.to_string());
        let encoded = super::percent::segment(s);
        if encoded != *s {
            forms.push(encoded);
        }
    }
    crate::order::sort_by_key(&mut forms, |f| std::cmp::Reverse(f.len()));
    forms
}

/// `text` with each of `forms` ([`secret_forms`]) replaced by `[redacted]`.
pub fn redact_forms(text: &str, forms: &[String]) -> String {
    forms.iter().fold(text.to_string(), |out, f| if out.contains(f.as_str()) { out.replace(f.as_str(), "[redacted]") } else { out })
}
