//! Token estimation that stays honest for English, Chinese, Japanese, Korean and code.
//!
//! `chars / 4` undercounts CJK several times over (one Han character is close to one token
//! in modern BPE vocabularies). This estimator makes one pass over the text, counts a few
//! features — words, long-word overflow, camelCase humps, digit groups, punctuation, line
//! breaks, indentation, Han / kana / Hangul characters, other symbols — and weighs them with
//! coefficients fitted against OpenAI's o200k tokenizer on the tuning half of
//! `tests/corpus/tokens.json` (see `tests/bench/tokens.mjs`, which reports the held-out half).
//! It never allocates.

/// What the estimator counts in a text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Features {
    /// Runs of letters (ASCII or Latin-script).
    pub words: f64,
    /// Letters beyond the first `WORD_CHUNK` of each word (long words split into pieces).
    pub word_overflow: f64,
    /// Lower→upper transitions inside a word (`getUserId` has 2).
    pub humps: f64,
    /// Groups of up to 3 digits.
    pub digit_groups: f64,
    /// ASCII punctuation and symbols.
    pub punct: f64,
    /// Runs of line breaks.
    pub newlines: f64,
    /// Runs of 2+ spaces or tabs (indentation, alignment).
    pub indents: f64,
    /// Han characters (CJK ideographs).
    pub han: f64,
    /// Hiragana / katakana.
    pub kana: f64,
    /// Hangul syllables and jamo.
    pub hangul: f64,
    /// CJK / full-width punctuation.
    pub cjk_punct: f64,
    /// Everything else outside ASCII (emoji, arrows, other scripts).
    pub other: f64,
}

const WORD_CHUNK: usize = 7;

/// Weights fitted by `tests/bench/fit_token_weights.py` (non-negative least squares on
/// relative error, each language weighted equally) on the tune half of the corpus.
pub const WEIGHTS: Features = Features {
    words: 1.065,
    word_overflow: 0.056,
    humps: 0.000,
    digit_groups: 1.498,
    punct: 0.398,
    newlines: 1.857,
    indents: 0.152,
    han: 0.722,
    kana: 0.717,
    hangul: 0.772,
    cjk_punct: 0.931,
    other: 1.337,
};

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Letter,
    Digit,
    Space,
    Newline,
    Punct,
    Han,
    Kana,
    Hangul,
    CjkPunct,
    Other,
}

fn classify(c: char) -> Class {
    match c {
        'a'..='z' | 'A'..='Z' => Class::Letter,
        '0'..='9' => Class::Digit,
        ' ' | '\t' => Class::Space,
        '\n' | '\r' => Class::Newline,
        '!'..='/' | ':'..='@' | '['..='`' | '{'..='~' => Class::Punct,
        c if (c as u32) < 0x80 => Class::Other, // other control characters
        '\u{00C0}'..='\u{024F}' | '\u{0370}'..='\u{052F}' => Class::Letter, // Latin ext., Greek, Cyrillic
        '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}' => Class::Kana,
        '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' => Class::Hangul,
        '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FFFF}' => {
            Class::Han
        }
        '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FF65}' | '\u{2018}'..='\u{201F}' | '\u{2026}' => Class::CjkPunct,
        _ => Class::Other,
    }
}

/// Counts the features of `text` in one pass.
pub fn features(text: &str) -> Features {
    let mut f = Features::default();
    let mut prev = Class::Newline;
    let mut word_len = 0usize;
    let mut digit_len = 0usize;
    let mut space_len = 0usize;
    let mut prev_lower = false;
    for c in text.chars() {
        let class = classify(c);
        if class != prev {
            // close the run that just ended
            if prev == Class::Space && space_len >= 2 {
                f.indents += 1.0;
            }
            word_len = 0;
            digit_len = 0;
            space_len = 0;
            prev_lower = false;
            if class == Class::Newline {
                f.newlines += 1.0;
            }
        }
        match class {
            Class::Letter => {
                if word_len == 0 {
                    f.words += 1.0;
                } else if word_len >= WORD_CHUNK {
                    f.word_overflow += 1.0;
                }
                let upper = c.is_uppercase();
                if upper && prev_lower {
                    f.humps += 1.0;
                }
                prev_lower = c.is_lowercase();
                word_len += 1;
            }
            Class::Digit => {
                if digit_len % 3 == 0 {
                    f.digit_groups += 1.0;
                }
                digit_len += 1;
            }
            Class::Space => space_len += 1,
            Class::Newline => {}
            Class::Punct => f.punct += 1.0,
            Class::Han => f.han += 1.0,
            Class::Kana => f.kana += 1.0,
            Class::Hangul => f.hangul += 1.0,
            Class::CjkPunct => f.cjk_punct += 1.0,
            Class::Other => f.other += 1.0,
        }
        prev = class;
    }
    if prev == Class::Space && space_len >= 2 {
        f.indents += 1.0;
    }
    f
}

impl Features {
    /// The feature values in a fixed order (the order of the fields).
    pub fn to_array(&self) -> [f64; 12] {
        [
            self.words,
            self.word_overflow,
            self.humps,
            self.digit_groups,
            self.punct,
            self.newlines,
            self.indents,
            self.han,
            self.kana,
            self.hangul,
            self.cjk_punct,
            self.other,
        ]
    }

    /// Σ weight × feature.
    pub fn weighted(&self, w: &Features) -> f64 {
        self.to_array().iter().zip(w.to_array().iter()).map(|(a, b)| a * b).sum()
    }
}

impl std::ops::AddAssign<&Features> for Features {
    /// Field by field. The features of a text are additive where two texts are joined between
    /// two ASCII punctuation characters (`}` + `,` + `{`): no run spans the seam there.
    fn add_assign(&mut self, o: &Features) {
        self.words += o.words;
        self.word_overflow += o.word_overflow;
        self.humps += o.humps;
        self.digit_groups += o.digit_groups;
        self.punct += o.punct;
        self.newlines += o.newlines;
        self.indents += o.indents;
        self.han += o.han;
        self.kana += o.kana;
        self.hangul += o.hangul;
        self.cjk_punct += o.cjk_punct;
        self.other += o.other;
    }
}

/// Estimated tokens of `text` (0 for the empty string, otherwise at least 1).
pub fn estimate_tokens(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    estimate_from_features(&features(text))
}

/// Estimated tokens of a non-empty text with these features (what [`estimate_tokens`] gives).
pub fn estimate_from_features(f: &Features) -> usize {
    let t = f.weighted(&WEIGHTS).ceil();
    (t as usize).max(1)
}

/// Per-message framing a chat API adds around each message (role markers, separators).
pub const MESSAGE_OVERHEAD_TOKENS: usize = 4;

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn empty_is_zero_and_nonempty_is_positive() {
        assert_eq!(estimate_tokens(""), 0);
        assert!(estimate_tokens("a") >= 1);
        assert!(estimate_tokens(" ") >= 1);
    }

    #[test]
    fn cjk_is_not_undercounted_like_chars_over_4() {
        let zh = "我们上周决定把数据库从单机迁移到主从架构，并且给慢查询加上索引。";
        let n = zh.chars().count();
        let est = estimate_tokens(zh);
        assert!(est * 2 > n, "estimate {est} for {n} Han characters is far too low");
        assert!(est > n / 4 * 2);
    }

    #[test]
    fn features_count_runs() {
        let f = features("getUserId(42);\n    return 12345;");
        assert_eq!(f.words, 2.0);
        assert_eq!(f.humps, 2.0);
        assert_eq!(f.digit_groups, 3.0); // "42", "123", "45"
        assert_eq!(f.newlines, 1.0);
        assert_eq!(f.indents, 1.0);
        assert_eq!(f.punct, 4.0);
    }
}
