//! The order in which go-yaml v2 writes the keys of a map: its `keyList.Less` comparator, applied
//! with Go's `sort.Sort`.
//!
//! sigs.k8s.io/yaml hands go-yaml a map whose keys are all strings (they come from JSON), so only
//! the string branch of the comparator matters. It is not bytewise: letters sort after everything
//! else, runs of digits compare as numbers (`a9` < `a10`), and at the first differing position a
//! run of digits is read from that position on. The comparator is not a strict weak order
//! (`10` < `1a` < `2` < `10`), so for such key sets the result depends on the input order, which
//! Go draws at random from its map: clusterctl's own output then varies from run to run. This
//! module ports Go's `sort.Sort` (pattern-defeating quicksort, Go 1.19 and later) call for call,
//! so capkg always prints one of the orders clusterctl can print, and the same one every time.
//! Letters and digits are Unicode's (categories L* and Nd, as Go's `unicode` package has them).

use crate::go_unicode::{is_digit, is_letter};

/// go-yaml v2's `keyList.Less` for two string keys, given as characters (or as bytes, for ASCII
/// keys, whose bytes are their characters).
pub(super) fn key_less<C: Copy + Into<char>>(a: &[C], b: &[C]) -> bool {
    let at = |s: &[C], i: usize| -> char { s[i].into() };
    for i in 0..a.len().min(b.len()) {
        let (ac, bc) = (at(a, i), at(b, i));
        if ac == bc {
            continue;
        }
        let a_letter = is_letter(ac);
        let b_letter = is_letter(bc);
        if a_letter && b_letter {
            return ac < bc;
        }
        if a_letter || b_letter {
            return b_letter;
        }
        // Go accumulates in an int64 that silently wraps, and subtracts '0' from any Unicode
        // digit (so non-ASCII digits weigh far more than 9).
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ac == '0' || bc == '0' {
            // A zero after other digits: compare the rest as if it followed a non-zero digit.
            for &c in a[..i].iter().rev() {
                let c: char = c.into();
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < a.len() && is_digit(at(a, ai)) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(at(a, ai) as u32) - i64::from(b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < b.len() && is_digit(at(b, bi)) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(at(b, bi) as u32) - i64::from(b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ac < bc;
    }
    a.len() < b.len()
}

/// The order go-yaml v2's sort gives `keys` (as indexes into them).
fn go_order<K: AsRef<[C]>, C: Copy + Into<char>>(keys: Vec<K>) -> Vec<usize> {
    let mut keyed: Vec<(K, usize)> = keys.into_iter().zip(0..).collect();
    go_sort(&mut keyed, |x, y| key_less(x.0.as_ref(), y.0.as_ref()));
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Sorts string keys as go-yaml v2 does before writing a map.
pub(super) fn sort_keys<T>(items: &mut [T], key: impl Fn(&T) -> &str) {
    let order = if items.iter().all(|item| key(item).is_ascii()) {
        // ASCII keys compare as their bytes, without a list of characters for each.
        go_order(items.iter().map(|item| key(item).as_bytes()).collect())
    } else {
        go_order(
            items
                .iter()
                .map(|item| key(item).chars().collect::<Vec<char>>())
                .collect(),
        )
    };
    apply_order(items, &order);
}

/// Rearranges `items` so that position `k` holds the item that was at `order[k]`.
fn apply_order<T>(items: &mut [T], order: &[usize]) {
    // `position[i]`: where the item now at `i` originally came from. Cycle-walk with swaps.
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        if placed[start] {
            continue;
        }
        let mut current = start;
        loop {
            placed[current] = true;
            let source = order[current];
            if source == start {
                break;
            }
            items.swap(current, source);
            current = source;
        }
    }
}

/// Go's `sort.Sort` over a slice, with `less` standing for `Less(i, j)`.
pub(super) fn go_sort<T>(data: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = data.len();
    if n <= 1 {
        return;
    }
    let limit = bits_len(n);
    let mut sorter = Sorter { data, less };
    sorter.pdqsort(0, n, limit);
}

/// Go's `bits.Len(uint(n))`.
fn bits_len(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum SortedHint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Sorter<'d, T, F> {
    data: &'d mut [T],
    less: F,
}

impl<T, F: Fn(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(&self.data[i], &self.data[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.data.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        let mut i = (hi as isize - 1) / 2;
        while i >= 0 {
            self.sift_down(i as usize, hi, first);
            i -= 1;
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    // Recursion depth is bounded by `limit` (the bit length of the slice's length).
    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == SortedHint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = SortedHint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == SortedHint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already_partitioned) = self.partition(a, b, pivot);
            was_partitioned = already_partitioned;
            let (left_len, right_len) = (mid - a, b - mid);
            let balance_threshold = length / 8;
            if left_len < right_len {
                was_balanced = left_len >= balance_threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right_len >= balance_threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        // Signed: `j` can step below `i` (and below `a + 1`) before the loops stop.
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        while i <= j && self.less(i as usize, a) {
            i += 1;
        }
        while i <= j && !self.less(j as usize, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j as usize, a);
            return (j as usize, true);
        }
        self.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i as usize, a) {
                i += 1;
            }
            while i <= j && !self.less(j as usize, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        self.swap(j as usize, a);
        (j as usize, false)
    }

    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        loop {
            while i <= j && !self.less(a, i as usize) {
                i += 1;
            }
            while i <= j && self.less(a, j as usize) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        i as usize
    }

    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            // Go's xorshift, seeded with the length.
            let mut random = length as u64;
            let modulus = 1usize << bits_len(length);
            let start = a + (length / 4) * 2 - 1;
            for idx in start..=a + (length / 4) * 2 + 1 {
                random ^= random << 13;
                random ^= random >> 17;
                random ^= random << 5;
                let mut other = (random as usize) & (modulus - 1);
                if other >= length {
                    other -= length;
                }
                self.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, SortedHint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median_adjacent(i, &mut swaps);
                j = self.median_adjacent(j, &mut swaps);
                k = self.median_adjacent(k, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, SortedHint::Increasing),
            MAX_SWAPS => (j, SortedHint::Decreasing),
            _ => (j, SortedHint::Unknown),
        }
    }

    fn order2(&self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            return (b, a);
        }
        (a, b)
    }

    fn median(&self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, c) = self.order2(b, c, swaps);
        let _ = c;
        let (_a, b) = self.order2(a, b, swaps);
        b
    }

    fn median_adjacent(&self, a: usize, swaps: &mut usize) -> usize {
        self.median(a - 1, a, a + 1, swaps)
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(keys: &[&str]) -> Vec<String> {
        let mut items: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        sort_keys(&mut items, |s| s.as_str());
        items
    }

    fn less(a: &str, b: &str) -> bool {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        key_less(&a, &b)
    }

    #[test]
    fn kubernetes_keys_sort_as_clusterctl_prints_them() {
        assert_eq!(
            sorted(&["spec", "metadata", "kind", "apiVersion", "status", "data"]),
            ["apiVersion", "data", "kind", "metadata", "spec", "status"]
        );
        assert_eq!(
            sorted(&["clusterctl.cluster.x-k8s.io", "cluster.x-k8s.io/provider"]),
            ["cluster.x-k8s.io/provider", "clusterctl.cluster.x-k8s.io"]
        );
    }

    #[test]
    fn digits_compare_as_numbers_and_letters_come_last() {
        assert!(less("a9", "a10"));
        assert!(!less("a10", "a9"));
        assert!(less("a-b", "a1"));
        assert!(less("a1", "ab"));
        assert!(less("1", "01"));
        assert!(less("01", "005"));
        assert!(less("005", "0010"));
        assert!(less("A", "a"));
        assert!(less("ab", "abc"));
        assert!(less("x_y", "xy"));
        // After a non-zero digit a zero is compared as part of one number.
        assert!(less("10", "100"));
        assert!(less("a", "é"));
        assert!(less("v١", "va"));
    }

    #[test]
    fn ascii_keys_compare_the_same_as_bytes_and_as_characters() {
        let keys = [
            "",
            "0",
            "00",
            "01",
            "1",
            "10",
            "100",
            "1a",
            "2",
            "a",
            "a-b",
            "a0",
            "a00",
            "a01",
            "a1",
            "a10",
            "a9",
            "ab",
            "A",
            "Z",
            "_",
            "x_y",
            "xy",
            "v1beta1",
            "v1alpha10",
            "v10",
            "~",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(key_less(a.as_bytes(), b.as_bytes()), less(a, b), "{a} {b}");
            }
        }
    }

    #[test]
    fn non_transitive_keys_follow_go_sort_exactly() {
        // 10 < 1a < 2 < 10: a cycle. Go's insertion sort over this input order gives this
        // result (traced by hand through insertionSort's swaps).
        assert!(less("10", "1a") && less("1a", "2") && less("2", "10"));
        assert_eq!(sorted(&["2", "1a", "10"]), ["1a", "2", "10"]);
        assert_eq!(sorted(&["10", "2", "1a"]), ["2", "10", "1a"]);
    }

    #[test]
    fn pdqsort_sorts_large_inputs() {
        // Past 12 elements pdqsort partitions; a consistent order must come out sorted whatever
        // the input pattern.
        for n in [13usize, 50, 51, 200, 1000] {
            for pattern in 0..4 {
                let mut v: Vec<u32> = (0..n as u32)
                    .map(|i| match pattern {
                        0 => i,
                        1 => n as u32 - i,
                        2 => (i * 7919) % 101,
                        _ => i % 3,
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort();
                go_sort(&mut v, |a, b| a < b);
                assert_eq!(v, expected, "n={n} pattern={pattern}");
            }
        }
    }

    #[test]
    fn apply_order_permutes() {
        let mut items = vec!['a', 'b', 'c', 'd'];
        apply_order(&mut items, &[2, 0, 3, 1]);
        assert_eq!(items, ['c', 'a', 'd', 'b']);
    }
}
