//! One stable sort for every element type (it keeps the wasm small).
//!
//! `slice::sort_by` is compiled once per element type and comparator: 4–5 KB of wasm each
//! (a quicksort, a driftsort, small-sorts, pivots), ~15 of them in the plugin. These helpers
//! sort indices through one compiled sort behind a `&dyn Fn`, then apply the order to the
//! slice with swaps: the only code per call site is its comparator and a swap loop. The
//! result is exactly `sort_by`'s (a stable sort's order is determined by the comparator);
//! the price is an indirect call per comparison and a `Vec<usize>` per sort, nothing at the
//! sizes sorted here (at most a few thousand elements, once per call).

use std::cmp::Ordering;

/// Sorts `v` as [`slice::sort_by`] does (stable).
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let swaps = sorted_swaps(v.len(), &|a, b| cmp(&v[a], &v[b]));
    for (a, b) in swaps {
        v.swap(a, b);
    }
}

/// Sorts `v` as [`slice::sort_by_key`] does (stable).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` as [`slice::sort`] does (stable; for a type whose equal values are
/// indistinguishable, also what `sort_unstable` gives).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts a list of indices by `cmp` over them (stable): the one compiled sort, used directly
/// where the indices are what is wanted (recall's pool, ranking and explain order).
#[inline(never)]
pub fn sort_indices(v: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    v.sort_by(|&a, &b| cmp(a, b));
}

/// The swaps that put `n` elements in the stable order of `cmp` (over their indices): the
/// one compiled sort. Applied in turn, the swaps leave at position `k` the element that was
/// at `order[k]`: each cycle of the permutation is walked once.
fn sorted_swaps(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..n).collect();
    sort_indices(&mut order, cmp);
    let mut swaps = Vec::new();
    for start in 0..n {
        // `usize::MAX` marks a position already placed
        let mut at = start;
        loop {
            let from = std::mem::replace(&mut order[at], usize::MAX);
            if from == usize::MAX || from == start {
                break;
            }
            swaps.push((at, from));
            at = from;
        }
    }
    swaps
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]
        /// Keys with many ties, tagged with their first position: the tags show stability.
        #[test]
        fn the_same_order_as_the_standard_stable_sort(keys in proptest::collection::vec(0u8..6, 0..80)) {
            let tagged: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut ours = tagged.clone();
            let mut std_sorted = tagged.clone();
            sort_by(&mut ours, |a, b| b.0.cmp(&a.0));
            std_sorted.sort_by(|a, b| b.0.cmp(&a.0));
            prop_assert_eq!(&ours, &std_sorted);
            let (mut ours, mut std_sorted) = (tagged.clone(), tagged);
            sort_by_key(&mut ours, |t| t.0);
            std_sorted.sort_by_key(|t| t.0);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn strings_as_the_standard_sort(words in proptest::collection::vec("[a-c]{0,3}", 0..40)) {
            let (mut ours, mut std_sorted) = (words.clone(), words);
            sort(&mut ours);
            std_sorted.sort();
            prop_assert_eq!(ours, std_sorted);
        }
    }

    #[test]
    fn empty_one_and_reversed() {
        let mut v: Vec<u32> = Vec::new();
        sort(&mut v);
        assert!(v.is_empty());
        let mut v = vec![7];
        sort(&mut v);
        assert_eq!(v, [7]);
        let mut v: Vec<u32> = (0..100).rev().collect();
        sort(&mut v);
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
