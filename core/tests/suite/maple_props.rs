//! The maple tree against a brute-force interval model: contents, loads and the lowest hole
//! (`mas_empty_area`) for many sizes and windows, with `validate()` (the `mt_validate` checks)
//! after every operation, on small trees (proptest) and on trees grown to height >= 4.

use std::collections::BTreeMap;

use proptest::prelude::*;
use vmapviz_core::maple::{MapleEntry, MapleError, MapleTree};

/// Non-NULL ranges by first index: `first -> (last, entry)`.
#[derive(Default, Clone)]
struct Model {
    map: BTreeMap<u64, (u64, MapleEntry)>,
}

impl Model {
    fn store(&mut self, first: u64, last: u64, entry: Option<MapleEntry>) {
        // Cut every range overlapping [first, last], keeping the parts outside.
        let overlapping: Vec<(u64, u64, MapleEntry)> = self
            .map
            .range(..=last)
            .rev()
            .take_while(|(_, (l, _))| *l >= first)
            .map(|(f, (l, e))| (*f, *l, *e))
            .collect();
        for (f, l, e) in overlapping {
            self.map.remove(&f);
            if f < first {
                self.map.insert(f, (first - 1, e));
            }
            if l > last {
                self.map.insert(last + 1, (l, e));
            }
        }
        if let Some(e) = entry {
            self.map.insert(first, (last, e));
        }
    }

    fn load(&self, index: u64) -> Option<MapleEntry> {
        self.map.range(..=index).next_back().and_then(|(_, (l, e))| (*l >= index).then_some(*e))
    }

    /// The lowest `index >= min` with `[index, index + size - 1]` inside `[min, max]` and empty.
    fn lowest_fit(&self, min: u64, max: u64, size: u64) -> Result<(u64, u64), MapleError> {
        if min > max || size == 0 || max - min < size - 1 {
            return Err(MapleError::Invalid);
        }
        let mut cur = min;
        // Start from the range containing `min`, if any.
        let start = self.map.range(..=min).next_back().map(|(f, _)| *f).unwrap_or(min);
        for (&f, &(l, _)) in self.map.range(start..) {
            if l < cur {
                continue;
            }
            if f > cur && f - cur >= size {
                break;
            }
            if f > max {
                break;
            }
            if l == u64::MAX {
                return Err(MapleError::Busy);
            }
            cur = l + 1;
            if cur > max {
                return Err(MapleError::Busy);
            }
        }
        match cur.checked_add(size - 1) {
            Some(end) if end <= max => Ok((cur, end)),
            _ => Err(MapleError::Busy),
        }
    }

    fn ranges(&self) -> Vec<(u64, u64, MapleEntry)> {
        self.map.iter().map(|(f, (l, e))| (*f, *l, *e)).collect()
    }
}

fn check_same(t: &MapleTree, m: &Model, ctx: &str) {
    if let Err(e) = t.validate() {
        panic!("{ctx}: validate: {e}\n{}", t.dump());
    }
    let got: Vec<_> = t.iter().collect();
    assert_eq!(got, m.ranges(), "{ctx}: contents differ");
}

#[derive(Clone, Debug)]
enum Op {
    Store(u64, u64, u8),
    Erase(u64, u64),
    Empty(u64, u64, u64),
}

fn entry_of(k: u8) -> Option<MapleEntry> {
    match k {
        0 => Some(MapleEntry::Zero),
        k => Some(MapleEntry::Value(k as u32)),
    }
}

fn op_strategy(universe: u64) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..universe, 0u64..24, 0u8..3).prop_map(|(a, len, k)| Op::Store(a, a + len, k)),
        2 => (0..universe, 0u64..64).prop_map(|(a, len)| Op::Erase(a, a + len)),
        1 => (0..universe, 0..universe).prop_map(|(a, b)| Op::Store(b, a, 0)),
        3 => (0..universe, 0..universe, 0u64..40).prop_map(|(a, b, s)| Op::Empty(a.min(b), a.max(b), s)),
        1 => (0..universe, 0..universe, 0u64..8).prop_map(|(a, b, s)| Op::Empty(a, b, s)),
    ]
}

fn apply(t: &mut MapleTree, m: &mut Model, op: &Op, step: usize) {
    match *op {
        Op::Store(a, b, k) => {
            let r = t.store_range(a, b, entry_of(k));
            if a > b {
                assert_eq!(r, Err(MapleError::Invalid), "step {step}: {op:?}");
            } else {
                assert_eq!(r, Ok(()), "step {step}: {op:?}");
                m.store(a, b, entry_of(k));
            }
        }
        Op::Erase(a, b) => {
            assert_eq!(t.store_range(a, b, None), Ok(()));
            m.store(a, b, None);
        }
        Op::Empty(min, max, size) => {
            assert_eq!(t.empty_area(min, max, size), m.lowest_fit(min, max, size), "step {step}: {op:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Short random sequences on a small index space: every operation checked.
    #[test]
    fn small_sequences_match_the_model(ops in prop::collection::vec(op_strategy(1500), 1..400)) {
        let mut t = MapleTree::new(true);
        let mut m = Model::default();
        for (i, op) in ops.iter().enumerate() {
            apply(&mut t, &mut m, op, i);
            check_same(&t, &m, &format!("step {i} {op:?}"));
            for idx in [0u64, 1, 7, 100, 750, 1499, 1500, 1600] {
                prop_assert_eq!(t.load(idx), m.load(idx));
            }
        }
        // The lowest hole for every size 1..=32 over the whole space and two windows.
        for size in 1..=32u64 {
            for (lo, hi) in [(0u64, 1700u64), (300, 900), (1, 64)] {
                prop_assert_eq!(t.empty_area(lo, hi, size), m.lowest_fit(lo, hi, size));
            }
        }
    }

    /// The same without the ALLOC_RANGE flag (range_64 internal nodes, no gaps kept): contents.
    #[test]
    fn range_tree_contents_match(ops in prop::collection::vec(op_strategy(1500), 1..300)) {
        let mut t = MapleTree::new(false);
        let mut m = Model::default();
        for op in &ops {
            match *op {
                Op::Store(a, b, k) if a <= b => { t.store_range(a, b, entry_of(k)).unwrap(); m.store(a, b, entry_of(k)); }
                Op::Erase(a, b) => { t.store_range(a, b, None).unwrap(); m.store(a, b, None); }
                _ => {}
            }
            check_same(&t, &m, &format!("{op:?}"));
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// vmalloc-like churn on page-sized ranges until the tree is at least 4 high, then mixed
/// stores, erases, spanning erases and gap searches; checked after every operation.
#[test]
fn grown_to_height_four_matches_the_model() {
    const PAGE: u64 = 0x1000;
    for seed in [0x9e3779b97f4a7c15u64, 0x1234_5678_9abc_def1, 0xdead_beef_cafe_f00d] {
        let mut rng = Rng(seed);
        let mut t = MapleTree::new(true);
        let mut m = Model::default();
        let base = 0xffff_c900_0000_0000u64;
        let span = 1u64 << 34;
        let mut max_height = 0;
        let mut step = 0usize;
        let mut phase_ops = 0;
        // Grow: allocate in the lowest fitting hole (like vmalloc), occasionally free.
        while t.height() < 4 || phase_ops < 3000 {
            step += 1;
            if t.height() >= 4 {
                phase_ops += 1;
            }
            let r = rng.below(100);
            let op = if r < 55 {
                let size = (1 + rng.below(8)) * PAGE;
                let lo = base + rng.below(64) * PAGE * 64;
                Op::Empty(lo, base + span - 1, size)
            } else if r < 85 || m.map.is_empty() {
                let a = base + rng.below(span / PAGE) * PAGE;
                Op::Store(a, a + (1 + rng.below(4)) * PAGE - 1, 0)
            } else {
                let keys: Vec<u64> = m.map.keys().copied().collect();
                let f = keys[rng.below(keys.len() as u64) as usize];
                let wide = rng.below(10) == 0;
                let last = if wide { f + rng.below(64) * PAGE * 8 } else { m.map[&f].0 };
                Op::Erase(f, last)
            };
            if let Op::Empty(min, max, size) = op {
                let got = t.empty_area(min, max, size);
                assert_eq!(got, m.lowest_fit(min, max, size), "seed {seed:#x} step {step}: {op:?}");
                if let Ok((i, l)) = got {
                    // allocate it, as the allocator would
                    t.store_range(i, l, Some(MapleEntry::Zero)).unwrap();
                    m.store(i, l, Some(MapleEntry::Zero));
                }
            } else {
                apply(&mut t, &mut m, &op, step);
            }
            if let Err(e) = t.validate() {
                panic!("seed {seed:#x} step {step} {op:?}: {e}");
            }
            if step.is_multiple_of(256) {
                check_same(&t, &m, &format!("seed {seed:#x} step {step}"));
            }
            max_height = max_height.max(t.height());
            assert!(step < 400_000, "seed {seed:#x}: the tree did not reach height 4");
        }
        eprintln!(
            "seed {seed:#x}: {step} steps, max height {max_height}, {} nodes, {} ranges",
            t.node_count(),
            m.map.len()
        );
        check_same(&t, &m, "end");
        assert!(max_height >= 4);
        // Lowest hole for many sizes and windows on the grown tree.
        for _ in 0..2000 {
            let a = base + rng.below(span);
            let b = base + rng.below(span);
            let size = 1 + rng.below(16 * PAGE);
            assert_eq!(t.empty_area(a.min(b), a.max(b), size), m.lowest_fit(a.min(b), a.max(b), size));
        }
        // Tear it down with spanning erases; the tree shrinks back to empty.
        let mut lo = base;
        while lo < base + span {
            let hi = lo + rng.below(span / 8) + PAGE;
            t.store_range(lo, hi, None).unwrap();
            m.store(lo, hi, None);
            t.validate().unwrap();
            lo = hi + 1;
        }
        check_same(&t, &m, "after teardown");
        assert_eq!(t.height(), 0);
        assert_eq!(t.node_count(), 0);
    }
}

fn edge_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(2),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(u64::MAX - 2),
        (u64::MAX - 64..=u64::MAX),
        (0u64..64),
        any::<u64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Ranges touching 0 and u64::MAX, whole-space stores and erases, value entries (which an
    /// empty tree keeps in the root pointer at index 0): no panic, valid, same contents; gap
    /// searches never panic and agree with the model away from the top of the index space.
    #[test]
    fn edges_of_the_index_space(ops in prop::collection::vec((edge_value(), edge_value(), 0u8..4, edge_value()), 1..120)) {
        let mut t = MapleTree::new(true);
        let mut m = Model::default();
        for (i, &(a, b, k, s)) in ops.iter().enumerate() {
            let (lo, hi) = (a.min(b), a.max(b));
            match k {
                0 | 1 => {
                    let e = if k == 0 { Some(MapleEntry::Zero) } else { Some(MapleEntry::Value(i as u32)) };
                    prop_assert_eq!(t.store_range(lo, hi, e), Ok(()));
                    m.store(lo, hi, e);
                }
                2 => {
                    prop_assert_eq!(t.store_range(lo, hi, None), Ok(()));
                    m.store(lo, hi, None);
                }
                _ => {
                    let got = t.empty_area(lo, hi, s);
                    if hi < u64::MAX - (1 << 32) && s < (1 << 32) {
                        prop_assert_eq!(got, m.lowest_fit(lo, hi, s));
                    }
                }
            }
            check_same(&t, &m, &format!("step {i}"));
            prop_assert_eq!(t.load(a), m.load(a));
            prop_assert_eq!(t.load(b), m.load(b));
        }
    }
}
