//! BM25 (k1 1.2, b 0.75, the usual values), shared by the history search's ranking
//! (`tools::history::rank`) and the lexical recall candidates (`recall::lexical`).

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The inverse document frequency of a term found in `df` of `n` documents (never negative).
pub fn idf(df: usize, n: usize) -> f64 {
    (1.0 + (n as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln()
}

/// The BM25 score of a document of length `len` (any unit, the same as `avg`, the mean over
/// the documents) holding each term `counts[i]` times, the term found in `df[i]` of `n`
/// documents.
pub fn bm25(counts: &[usize], df: &[usize], n: usize, len: usize, avg: f64) -> f64 {
    counts
        .iter()
        .zip(df)
        .filter(|(tf, _)| **tf > 0)
        .map(|(tf, df)| {
            let tf = *tf as f64;
            idf(*df, n) * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len as f64 / avg.max(1.0)))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn a_rarer_term_and_a_shorter_document_score_higher() {
        assert!(idf(1, 10) > idf(5, 10));
        assert!(idf(10, 10) > 0.0);
        assert_eq!(bm25(&[0, 0], &[1, 1], 10, 5, 5.0), 0.0);
        assert!(bm25(&[1], &[1], 10, 3, 6.0) > bm25(&[1], &[1], 10, 12, 6.0));
        assert!(bm25(&[1, 1], &[2, 2], 10, 6, 6.0) > bm25(&[1, 0], &[2, 2], 10, 6, 6.0));
    }
}
