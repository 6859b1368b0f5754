//! Go's `sort.SliceStable`, step by step.
//!
//! clusterctl orders the objects of a components file with `sort.SliceStable` and a comparator
//! that is not a strict weak order (`less(a, b)` and `less(b, a)` are both true for two
//! cert-manager objects; see `docs/clusterctl-behaviour.md` §1.8). With such a comparator the
//! result is whatever Go's algorithm happens to produce, so capkg can only write clusterctl's
//! output byte for byte by running the same algorithm: the same `less` calls on the same
//! positions, the same swaps, in the same order. Rust's `sort_by` would give a different order
//! (or panic: it may detect an inconsistent comparator).
//!
//! The algorithm (Go 1.19 and later, `sort/zsortfunc.go`, unchanged since): insertion-sort
//! blocks of 20 elements, then merge neighbouring runs of doubling size with SymMerge (Kim &
//! Kutzner, "Stable Minimum Storage Merging by Symmetric Comparisons", 2004), which moves
//! elements with block rotations made of swaps. Nothing is allocated.

/// Go's view of the data: compare and swap by position (`sort.lessSwap`).
trait LessSwap {
    fn less(&mut self, i: usize, j: usize) -> bool;
    fn swap(&mut self, i: usize, j: usize);
}

struct SliceData<'a, T, F> {
    items: &'a mut [T],
    less: F,
}

impl<T, F: FnMut(&T, &T) -> bool> LessSwap for SliceData<'_, T, F> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        match (self.items.get(i), self.items.get(j)) {
            (Some(a), Some(b)) => (self.less)(a, b),
            _ => {
                debug_assert!(false, "less({i}, {j}) out of range");
                false
            }
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        if i < self.items.len() && j < self.items.len() {
            self.items.swap(i, j);
        } else {
            debug_assert!(false, "swap({i}, {j}) out of range");
        }
    }
}

/// Sorts `items` exactly as Go's `sort.SliceStable(items, func(i, j int) bool { return
/// less(items[i], items[j]) })` does, whatever `less` is, even one that is not a strict weak order.
pub(crate) fn slice_stable<T>(items: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    let n = items.len();
    stable(&mut SliceData { items, less }, n);
}

/// Go's `stable`.
fn stable(data: &mut impl LessSwap, n: usize) {
    let mut block_size = 20;
    let (mut a, mut b) = (0, block_size);
    while b <= n {
        insertion_sort(data, a, b);
        a = b;
        b += block_size;
    }
    insertion_sort(data, a, n);

    while block_size < n {
        a = 0;
        b = 2 * block_size;
        while b <= n {
            sym_merge(data, a, a + block_size, b);
            a = b;
            b += 2 * block_size;
        }
        let m = a + block_size;
        if m < n {
            sym_merge(data, a, m, n);
        }
        block_size *= 2;
    }
}

/// Go's `insertionSort`: sorts `data[a..b]`, moving each element left while it is `less` than
/// its left neighbour.
fn insertion_sort(data: &mut impl LessSwap, a: usize, b: usize) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && data.less(j, j - 1) {
            data.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Go's `symMerge`: merges the sorted runs `data[a..m]` and `data[m..b]`; requires
/// `a < m && m < b`.
fn sym_merge(data: &mut impl LessSwap, a: usize, m: usize, b: usize) {
    // One element on the left: binary-search its place in the right run, then bubble it there.
    if m - a == 1 {
        let (mut i, mut j) = (m, b);
        while i < j {
            let h = (i + j) / 2;
            if data.less(h, a) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        for k in a..i - 1 {
            data.swap(k, k + 1);
        }
        return;
    }

    // One element on the right: the mirror image.
    if b - m == 1 {
        let (mut i, mut j) = (a, m);
        while i < j {
            let h = (i + j) / 2;
            if !data.less(m, h) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        let mut k = m;
        while k > i {
            data.swap(k, k - 1);
            k -= 1;
        }
        return;
    }

    let mid = (a + b) / 2;
    let n = mid + m;
    let (mut start, mut r) = if m > mid { (n - b, mid) } else { (a, m) };
    let p = n - 1;
    while start < r {
        let c = (start + r) / 2;
        if !data.less(p - c, c) {
            start = c + 1;
        } else {
            r = c;
        }
    }

    let end = n - start;
    if start < m && m < end {
        rotate(data, start, m, end);
    }
    if a < start && start < mid {
        sym_merge(data, a, start, mid);
    }
    if mid < end && end < b {
        sym_merge(data, mid, end, b);
    }
}

/// Go's `rotate`: turns `x u v y` into `x v u y` for `u = data[a..m]`, `v = data[m..b]`, with
/// block swaps; requires `a < m && m < b`.
fn rotate(data: &mut impl LessSwap, a: usize, m: usize, b: usize) {
    let mut i = m - a;
    let mut j = b - m;
    while i != j {
        if i > j {
            swap_range(data, m - i, m, j);
            i -= j;
        } else {
            swap_range(data, m - i, m + j - i, i);
            j -= i;
        }
    }
    swap_range(data, m - i, m, i);
}

/// Go's `swapRange`: swaps `data[a..a + n]` with `data[b..b + n]`, element by element.
fn swap_range(data: &mut impl LessSwap, a: usize, b: usize, n: usize) {
    for i in 0..n {
        data.swap(a + i, b + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Op {
        Less(usize, usize),
        Swap(usize, usize),
    }
    use Op::{Less as L, Swap as S};

    /// Records every call Go's algorithm makes on the data.
    struct Recorder<D> {
        data: D,
        ops: Vec<Op>,
    }

    impl<D: LessSwap> LessSwap for Recorder<D> {
        fn less(&mut self, i: usize, j: usize) -> bool {
            self.ops.push(L(i, j));
            self.data.less(i, j)
        }
        fn swap(&mut self, i: usize, j: usize) {
            self.ops.push(S(i, j));
            self.data.swap(i, j);
        }
    }

    fn traced<T>(items: &mut [T], less: impl FnMut(&T, &T) -> bool) -> Vec<Op> {
        let n = items.len();
        let mut recorder = Recorder {
            data: SliceData { items, less },
            ops: Vec::new(),
        };
        stable(&mut recorder, n);
        recorder.ops
    }

    /// An object of a components file, as far as clusterctl's comparator sees it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Obj {
        kind: &'static str,
        group: &'static str,
        id: usize,
    }

    const NAMESPACE: Obj = Obj {
        kind: "Namespace",
        group: "",
        id: usize::MAX,
    };

    fn other(id: usize) -> Obj {
        Obj {
            kind: "Deployment",
            group: "apps",
            id,
        }
    }

    fn cert(id: usize) -> Obj {
        Obj {
            kind: if id.is_multiple_of(2) {
                "Certificate"
            } else {
                "Issuer"
            },
            group: "cert-manager.io",
            id,
        }
    }

    /// `components.go`: Namespace first, then cert-manager objects. Not a strict weak order.
    fn clusterctl_less(a: &Obj, b: &Obj) -> bool {
        if a.kind == "Namespace" {
            return true;
        }
        if b.kind == "Namespace" {
            return false;
        }
        a.group == "cert-manager.io"
    }

    /// What §1.8 reports from running Go: the Namespace, the cert-manager objects in reverse
    /// input order, everything else in input order.
    fn documented_order(input: &[Obj]) -> Vec<Obj> {
        let namespaces = input.iter().filter(|o| o.kind == "Namespace");
        let certs = input.iter().rev().filter(|o| o.group == "cert-manager.io");
        let rest = input
            .iter()
            .filter(|o| o.kind != "Namespace" && o.group != "cert-manager.io");
        namespaces.chain(certs).chain(rest).copied().collect()
    }

    // -----------------------------------------------------------------------------------------
    // Call-by-call traces, worked out by hand from Go's sort/zsortfunc.go.
    // -----------------------------------------------------------------------------------------

    /// n = 3: one block, insertion sort only.
    /// i=1: less(1,0)=less(C1,O)=true, swap -> [C1 O C2].
    /// i=2: less(2,1)=less(C2,O)=true, swap -> [C1 C2 O]; less(1,0)=less(C2,C1)=true (both
    /// cert-manager), swap -> [C2 C1 O]; j reaches a=0.
    #[test]
    fn trace_three_objects() {
        let mut items = [other(0), cert(1), cert(2)];
        let ops = traced(&mut items, clusterctl_less);
        assert_eq!(ops, [L(1, 0), S(1, 0), L(2, 1), S(2, 1), L(1, 0), S(1, 0)]);
        assert_eq!(items, [cert(2), cert(1), other(0)]);
    }

    /// n = 21, the Namespace appended last (as clusterctl does when it adds one).
    /// Block [0,20): 19 less calls, all false, no swaps. Block [20,21): nothing.
    /// symMerge(0,20,21), right run of one: binary search over [0,20) for the first h with
    /// less(20,h): h = 10, 5, 2, 1, 0 (all true: the Namespace is less than everything), so i = 0;
    /// then swap(k,k-1) for k = 20 down to 1.
    #[test]
    fn trace_namespace_appended_to_twenty() {
        let mut items: Vec<Obj> = (0..20).map(other).collect();
        items.push(NAMESPACE);
        let ops = traced(&mut items, clusterctl_less);
        let mut expected: Vec<Op> = (1..20).map(|i| L(i, i - 1)).collect();
        expected.extend([L(20, 10), L(20, 5), L(20, 2), L(20, 1), L(20, 0)]);
        expected.extend((1..=20).rev().map(|k| S(k, k - 1)));
        assert_eq!(ops, expected);
        assert_eq!(items[0], NAMESPACE);
        assert!(items[1..].iter().map(|o| o.id).eq(0..20));
    }

    /// n = 22 integers (a strict weak order), to walk the general symMerge path.
    /// Input: 0..=19, then 5' and 15' (primes mark the later duplicates).
    /// Blocks: 19 less calls on [0,20), less(21,20) on [20,22); no swaps.
    /// symMerge(0,20,22): mid=11, n=31, m>mid so start=9, r=11, p=30.
    ///   c=10: less(20,10)=5'<10 true -> r=10;  c=9: less(21,9)=15'<9 false -> start=10.
    ///   end=21; rotate(10,20,21): i=10, j=1 -> swap(10,20), (11,20), … (18,20) while i>j, then
    ///   i=j=1 -> swap(19,20). Now [0..9, 5', 10..19, 15'].
    ///   a<start<mid -> symMerge(0,10,11), right run of one (5' at 10): h=5 (!less(10,5) -> i=6),
    ///   h=8, h=7, h=6 (less true -> j shrinks) -> i=6; swap(10,9), (9,8), (8,7), (7,6).
    ///   mid<end<b -> symMerge(11,21,22), right run of one (15' at 21; data[k]=k-1 on [11,21)):
    ///   h=16 (15'<15 false -> i=17), h=19, h=18, h=17 (true) -> i=17;
    ///   swap(21,20), (20,19), (19,18), (18,17).
    #[test]
    fn trace_general_sym_merge() {
        let mut items: Vec<(u32, char)> = (0..20).map(|v| (v, ' ')).collect();
        items.extend([(5, '\''), (15, '\'')]);
        let ops = traced(&mut items, |a, b| a.0 < b.0);
        let mut expected: Vec<Op> = (1..20).map(|i| L(i, i - 1)).collect();
        expected.push(L(21, 20));
        expected.extend([L(20, 10), L(21, 9)]);
        expected.extend((10..20).map(|i| S(i, 20)));
        expected.extend([L(10, 5), L(10, 8), L(10, 7), L(10, 6)]);
        expected.extend([S(10, 9), S(9, 8), S(8, 7), S(7, 6)]);
        expected.extend([L(21, 16), L(21, 19), L(21, 18), L(21, 17)]);
        expected.extend([S(21, 20), S(20, 19), S(19, 18), S(18, 17)]);
        assert_eq!(ops, expected);
        let mut sorted: Vec<(u32, char)> = (0..20).map(|v| (v, ' ')).collect();
        sorted.insert(6, (5, '\''));
        sorted.insert(17, (15, '\''));
        assert_eq!(items, sorted);
    }

    /// n = 40 integers: two full blocks, and a merge that recurses into a left run of one.
    /// Input: [50, 100..=118] then [1..=19, 200]; both blocks sorted (19 + 19 less calls).
    /// symMerge(0,20,40): mid=20, m<=mid so start=0, r=20, p=39.
    ///   c=10: less(29,10)=10<109 -> r=10;  c=5: less(34,5)=15<104 -> r=5;
    ///   c=2: less(37,2)=18<101 -> r=2;  c=1: less(38,1)=19<100 -> r=1;
    ///   c=0: less(39,0)=200<50 false -> start=1.  end=39.
    ///   rotate(1,20,39): i=j=19 -> swapRange(1,20,19): swap(1,20) … swap(19,38).
    ///   Now [50, 1..=19, 100..=118, 200].
    ///   symMerge(0,1,20), left run of one (50 at 0): first h in [1,20) with !less(h,0):
    ///   h=10, 15, 18, 19 all less -> i=20; swap(0,1) … swap(18,19).
    ///   symMerge(20,39,40), right run of one (200): h=29, 34, 37, 38, none greater -> i=39, no
    ///   swaps.
    #[test]
    fn trace_left_run_of_one() {
        let mut items: Vec<u32> = [50].into_iter().chain(100..=118).collect();
        items.extend((1..=19).chain([200]));
        let ops = traced(&mut items, |a, b| a < b);
        let mut expected: Vec<Op> = (1..20).chain(21..40).map(|i| L(i, i - 1)).collect();
        expected.extend([L(29, 10), L(34, 5), L(37, 2), L(38, 1), L(39, 0)]);
        expected.extend((1..20).map(|i| S(i, i + 19)));
        expected.extend([L(10, 0), L(15, 0), L(18, 0), L(19, 0)]);
        expected.extend((0..19).map(|k| S(k, k + 1)));
        expected.extend([L(39, 29), L(39, 34), L(39, 37), L(39, 38)]);
        assert_eq!(ops, expected);
        let sorted: Vec<u32> = (1..=19).chain([50]).chain(100..=118).chain([200]).collect();
        assert_eq!(items, sorted);
    }

    /// rotate(0,2,7) with u = 2 elements, v = 5: i=2<j=5 -> swapRange(0,5,2), j=3;
    /// i=2<j=3 -> swapRange(0,3,2), j=1; i=2>j=1 -> swapRange(0,2,1), i=1; i=j -> swapRange(1,2,1).
    #[test]
    fn trace_rotate_short_left() {
        let mut items = ['a', 'b', '0', '1', '2', '3', '4'];
        let mut recorder = Recorder {
            data: SliceData {
                items: &mut items[..],
                less: |_: &char, _: &char| false,
            },
            ops: Vec::new(),
        };
        rotate(&mut recorder, 0, 2, 7);
        let ops = recorder.ops;
        assert_eq!(ops, [S(0, 5), S(1, 6), S(0, 3), S(1, 4), S(0, 2), S(1, 2)]);
        assert_eq!(items, ['0', '1', '2', '3', '4', 'a', 'b']);
    }

    // -----------------------------------------------------------------------------------------
    // Properties.
    // -----------------------------------------------------------------------------------------

    /// Deterministic scatter of cert-manager objects: every object whose id is hit by a simple
    /// linear congruential sequence.
    fn scattered(n: usize, seed: u64, namespace_at: Option<usize>) -> Vec<Obj> {
        let mut state = seed;
        let mut items: Vec<Obj> = (0..n)
            .map(|id| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                if (state >> 33).is_multiple_of(3) {
                    cert(id)
                } else {
                    other(id)
                }
            })
            .collect();
        if let Some(at) = namespace_at {
            items.insert(at.min(items.len()), NAMESPACE);
        }
        items
    }

    #[test]
    fn clusterctl_order_for_sizes_around_the_block() {
        for n in [
            0, 1, 2, 3, 19, 20, 21, 39, 40, 41, 45, 60, 79, 80, 81, 100, 160, 333,
        ] {
            for seed in 0..8 {
                for namespace_at in [None, Some(0), Some(n / 2), Some(n)] {
                    let input = scattered(n, seed, namespace_at);
                    let mut items = input.clone();
                    slice_stable(&mut items, clusterctl_less);
                    assert_eq!(
                        items,
                        documented_order(&input),
                        "n={n} seed={seed} namespace_at={namespace_at:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn clusterctl_order_examples() {
        // §1.8: Certificate, Issuer -> Issuer, Certificate.
        let mut items = [cert(0), cert(1)];
        slice_stable(&mut items, clusterctl_less);
        assert_eq!(items, [cert(1), cert(0)]);
        // All cert-manager: the whole input is reversed (every element is "less" than its left
        // neighbour).
        let mut items: Vec<Obj> = (0..45).map(cert).collect();
        slice_stable(&mut items, clusterctl_less);
        assert!(items.iter().map(|o| o.id).eq((0..45).rev()));
    }

    proptest! {
        /// With a proper strict weak order the algorithm is a stable sort.
        #[test]
        fn stable_for_strict_weak_orders(keys in prop::collection::vec(0u8..6, 0..300)) {
            let input: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut ours = input.clone();
            slice_stable(&mut ours, |a, b| a.0 < b.0);
            let mut std_sorted = input;
            std_sorted.sort_by_key(|item| item.0);
            prop_assert_eq!(ours, std_sorted);
        }

        /// clusterctl's comparator on random inputs gives the order §1.8 reports.
        #[test]
        fn clusterctl_order_random(
            certs in prop::collection::vec(any::<bool>(), 0..200),
            namespace_at in prop::option::of(0usize..200),
        ) {
            let mut input: Vec<Obj> = certs
                .iter()
                .enumerate()
                .map(|(id, &is_cert)| if is_cert { cert(id) } else { other(id) })
                .collect();
            if let Some(at) = namespace_at {
                input.insert(at.min(input.len()), NAMESPACE);
            }
            let mut items = input.clone();
            slice_stable(&mut items, clusterctl_less);
            prop_assert_eq!(items, documented_order(&input));
        }

        /// Any comparator, even a random one: the result is a permutation and nothing panics.
        #[test]
        fn arbitrary_comparators_permute(
            n in 0usize..120,
            answers in prop::collection::vec(any::<bool>(), 1..64),
        ) {
            let mut items: Vec<usize> = (0..n).collect();
            let mut call = 0usize;
            slice_stable(&mut items, |_, _| {
                call += 1;
                answers[call % answers.len()]
            });
            let mut seen = items.clone();
            seen.sort_unstable();
            prop_assert!(seen.into_iter().eq(0..n));
        }
    }
}
