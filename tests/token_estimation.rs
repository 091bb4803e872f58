//! The token estimator against the real o200k counts stored in `tests/corpus/tokens.json`
//! (regenerate them with `node tests/bench/tokens-reference.mjs --write`). The weights were
//! fitted on the `tune` half; this checks the `holdout` half stays within 10 % mean absolute
//! error for English, Chinese and code, and reports every language.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use openviking_context_engine::text::tokens::estimate_tokens;
use serde_json::Value;

const CORPUS: &str = include_str!("corpus/tokens.json");

fn samples() -> Vec<(String, String, String, f64)> {
    let v: Value = serde_json::from_str(CORPUS).expect("corpus parses");
    v.as_array()
        .expect("corpus is an array")
        .iter()
        .map(|s| {
            (
                s["lang"].as_str().unwrap().to_string(),
                s["split"].as_str().unwrap().to_string(),
                s["text"].as_str().unwrap().to_string(),
                s["o200k"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn mean_abs_error(lang: &str, split: &str) -> (f64, usize) {
    let errs: Vec<f64> = samples()
        .iter()
        .filter(|(l, s, _, _)| l == lang && s == split)
        .map(|(_, _, text, real)| (estimate_tokens(text) as f64 - real).abs() / real)
        .collect();
    (errs.iter().sum::<f64>() / errs.len().max(1) as f64, errs.len())
}

#[test]
fn holdout_error_is_within_ten_percent_for_english_chinese_and_code() {
    for lang in ["en", "zh", "code"] {
        let (mae, n) = mean_abs_error(lang, "holdout");
        assert!(n >= 10, "{lang}: only {n} holdout samples");
        assert!(mae <= 0.10, "{lang}: holdout mean absolute error {:.1}% > 10%", mae * 100.0);
    }
}

#[test]
fn other_scripts_are_in_the_right_range() {
    for lang in ["ja", "ko", "mixed"] {
        let (mae, _) = mean_abs_error(lang, "holdout");
        assert!(mae <= 0.20, "{lang}: holdout mean absolute error {:.1}%", mae * 100.0);
    }
}

/// `TOKENS_FEATURES_OUT=file cargo test --test token_estimation dump -- --nocapture` writes the
/// per-sample features for refitting the weights.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn dump_features_when_asked() {
    use openviking_context_engine::text::tokens::features;
    let Ok(out) = std::env::var("TOKENS_FEATURES_OUT") else { return };
    let rows: Vec<Value> = samples()
        .iter()
        .map(|(lang, split, text, real)| {
            serde_json::json!({"lang": lang, "split": split, "o200k": real,
                               "features": features(text).to_array()})
        })
        .collect();
    std::fs::write(out, serde_json::to_string(&rows).unwrap()).unwrap();
}
