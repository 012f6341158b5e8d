//! One stable sort for code off the simulation's hot path (kubectl's commands, the scenario runner, the page's
//! views): a merge sort over indices behind a `dyn` comparator, compiled once, where `slice::sort_by` is compiled
//! again for every element type and comparator (the page's wasm carried 26 copies). The hot paths (informers,
//! controllers, the scheduler, the store) keep the standard library's sorts.

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably (equal elements keep their order), as `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = {
        let items: &[T] = v;
        stable_order(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, order);
}

/// Sorts `v` by a key, stably, as `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v`, stably, as `slice::sort`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The positions `0..n` in sorted order: a bottom-up merge sort (stable: on a tie the left run's element comes first).
fn stable_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut src: Vec<usize> = (0..n).collect();
    let mut dst: Vec<usize> = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut l, mut r) = (start, mid);
            for slot in &mut dst[start..end] {
                let take_left = r >= end || (l < mid && cmp(src[l], src[r]) != Ordering::Greater);
                if take_left {
                    *slot = src[l];
                    l += 1;
                } else {
                    *slot = src[r];
                    r += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut src, &mut dst);
        width *= 2;
    }
    src
}

/// Puts `v[order[k]]` at position `k`, in place, cycle by cycle.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for i in 0..order.len() {
        if order[i] == i {
            continue;
        }
        let mut j = i;
        loop {
            let k = order[j];
            order[j] = j;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn sorts_as_the_standard_library_does(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut ours = v.clone();
            let mut std_sorted = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            prop_assert_eq!(ours, std_sorted);
        }
    }

    #[test]
    fn small_and_sorted_inputs() {
        let mut e: Vec<i32> = Vec::new();
        sort(&mut e);
        assert!(e.is_empty());
        let mut one = vec![3];
        sort(&mut one);
        assert_eq!(one, [3]);
        let mut v = vec![5, 4, 3, 2, 1, 0];
        sort(&mut v);
        assert_eq!(v, [0, 1, 2, 3, 4, 5]);
        let mut names = vec!["b".to_string(), "a".to_string(), "c".to_string()];
        sort_by(&mut names, |a, b| b.cmp(a));
        assert_eq!(names, ["c", "b", "a"]);
    }
}
