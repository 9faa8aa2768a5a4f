//! Long random vmalloc-like traces (the style of `conformance-maple/11`–`15`): allocations found
//! with `empty` and stored, frees, head/tail trims, vfree-order batches, spanning erases over many
//! ranges and spanning erases that end exactly at a node's pivot (or start at a node's min), in
//! the vmalloc window, growing to height 5 and shrinking again. `validate()` (the `mt_validate`
//! checks) runs after every operation; a model of the live ranges checks contents and results.
//!
//! Beside it, a shadow of the kernel's node metadata (the slot `mgap` names), driven by the
//! tree's observer hooks (`node_filled` from `mab_mas_cp`, `gap_written` from `mas_parent_gap`)
//! and fed after every operation; it is compared with every arange node after every operation
//! while the tree is small and every 16th once it is large (then a wrong metadata shows at the
//! next comparison, unless its node was freed in between). The rules it applies are the
//! kernel's (Linux v6.16 `lib/maple_tree.c`):
//! - `mab_mas_cp`: a node filled from a big node scans its gaps from the last slot down with a
//!   strict `>`, starting from slot 0 and gap 0: the highest slot among equal largest gaps, or
//!   slot 0 when every gap is 0.
//! - `mas_parent_gap` on an existing node: the write of `new` into `gap[offset]` keeps the
//!   metadata when `new` equals the gap it names (a tie does not take it over), or when another
//!   slot's `new` is smaller; moves it to `offset` when larger; and when the named slot itself
//!   shrinks, rescans with `ma_max_gap` (from `meta_end` down with a strict `>`, starting from
//!   `meta_end` and gap 0: the highest slot among equal largest gaps, or `meta_end` when all
//!   are 0).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use vmapviz_core::maple::trace::{parse_maple_line, MapleOp};
use vmapviz_core::maple::{MapleEntry, MapleEvent, MapleObserver, MapleTree, NodeKind, NodeSummary};

const PAGE: u64 = 0x1000;
const VSTART: u64 = 0xffff_c900_0000_0000;
const VEND: u64 = 0xffff_e8ff_ffff_ffff;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

// ------------------------------------------------------------------ the metadata shadow

/// Which rule the shadow applies; `KERNEL` is v6.16's, the others are deliberately wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rules {
    /// Equal largest gaps at fill/rescan time: the highest slot (kernel) or the lowest.
    tie_highest: bool,
    /// `mas_parent_gap` writing a gap equal to the named one: keep (kernel) or move to it.
    tie_keeps: bool,
}

const KERNEL: Rules = Rules { tie_highest: true, tie_keeps: true };

#[derive(Clone, Debug)]
enum Hook {
    Filled(u32, Vec<u64>),
    Written(u32, usize, u64),
}

/// Records the two metadata hooks of one operation.
#[derive(Default)]
struct Hooks(Vec<Hook>);

impl MapleObserver for Hooks {
    fn event(&mut self, _ev: MapleEvent) {}
    fn node_filled(&mut self, node: u32, kind: NodeKind, gaps: &[u64]) {
        if kind == NodeKind::Arange {
            self.0.push(Hook::Filled(node, gaps.to_vec()));
        }
    }
    fn gap_written(&mut self, node: u32, slot: usize, gap: u64) {
        self.0.push(Hook::Written(node, slot, gap));
    }
}

/// The shadow: per arange node, its gaps (`0..=end`) and the slot its metadata names.
struct Shadow {
    rules: Rules,
    nodes: HashMap<u32, (Vec<u64>, usize)>,
}

impl Shadow {
    fn new(rules: Rules) -> Shadow {
        Shadow { rules, nodes: HashMap::new() }
    }

    /// The slot of the largest gap, ties by the rule; `none` when every gap is 0.
    fn largest(&self, gaps: &[u64], none: usize) -> usize {
        let best = gaps.iter().copied().max().unwrap_or(0);
        if best == 0 {
            return none;
        }
        let mut at = gaps.iter().enumerate().filter(|(_, g)| **g == best).map(|(i, _)| i);
        if self.rules.tie_highest {
            at.next_back().unwrap()
        } else {
            at.next().unwrap()
        }
    }

    fn apply(&mut self, hooks: &[Hook]) -> Result<(), String> {
        for h in hooks {
            match h {
                Hook::Filled(node, gaps) => {
                    // mab_mas_cp: ma_set_meta(node, offset of the largest, end).
                    let meta = self.largest(gaps, 0);
                    self.nodes.insert(*node, (gaps.clone(), meta));
                }
                Hook::Written(node, slot, new) => {
                    let rules = self.rules;
                    let Some((gaps, meta)) = self.nodes.get(node).cloned() else {
                        return Err(format!("gap written into node {node}, which no fill created"));
                    };
                    let (mut gaps, mut meta) = (gaps, meta);
                    if *slot >= gaps.len() {
                        return Err(format!("gap written past the end of node {node}: slot {slot}"));
                    }
                    let named = gaps[meta];
                    gaps[*slot] = *new;
                    if named == *new {
                        if !rules.tie_keeps {
                            meta = *slot;
                        }
                    } else if *slot != meta {
                        if *new > named {
                            meta = *slot;
                        }
                    } else if *new < named {
                        let end = gaps.len() - 1;
                        meta = self.largest(&gaps, end);
                    }
                    self.nodes.insert(*node, (gaps, meta));
                }
            }
        }
        Ok(())
    }

    /// Every arange node of the tree against the shadow; forgets nodes no longer in the tree.
    fn check(&mut self, nodes: &[NodeSummary]) -> Result<(), String> {
        let mut live = HashMap::new();
        for n in nodes.iter().filter(|n| n.kind == NodeKind::Arange) {
            let Some((gaps, meta)) = self.nodes.get(&n.id) else {
                return Err(format!("arange node {} not made by a fill", n.id));
            };
            if *gaps != n.gaps {
                return Err(format!("node {}: gaps {:x?}, shadow {:x?}", n.id, n.gaps, gaps));
            }
            if *meta != n.meta_gap {
                return Err(format!("node {}: mgap {}, shadow {} (gaps {:x?})", n.id, n.meta_gap, meta, n.gaps));
            }
            live.insert(n.id, self.nodes[&n.id].clone());
        }
        self.nodes = live;
        Ok(())
    }
}

// ------------------------------------------------------------------ the model and the generator

/// Live ranges: first -> last.
#[derive(Default)]
struct Model {
    map: BTreeMap<u64, u64>,
}

impl Model {
    fn erase(&mut self, first: u64, last: u64) {
        let cut: Vec<(u64, u64)> =
            self.map.range(..=last).rev().take_while(|(_, l)| **l >= first).map(|(f, l)| (*f, *l)).collect();
        for (f, l) in cut {
            self.map.remove(&f);
            if f < first {
                self.map.insert(f, first - 1);
            }
            if l > last {
                self.map.insert(last + 1, l);
            }
        }
    }
    fn store(&mut self, first: u64, last: u64) {
        self.erase(first, last);
        self.map.insert(first, last);
    }
    fn is_free(&self, first: u64, last: u64) -> bool {
        self.map.range(..=last).next_back().is_none_or(|(_, l)| *l < first)
    }
    /// The lowest `index >= min` whose `[index, index + size - 1]` is free and `<= max`.
    fn lowest_fit(&self, min: u64, max: u64, size: u64) -> Option<u64> {
        let mut cur = min;
        let start = self.map.range(..=min).next_back().map(|(f, _)| *f).unwrap_or(min);
        for (&f, &l) in self.map.range(start..) {
            if l < cur {
                continue;
            }
            if f > cur && f - cur >= size {
                break;
            }
            if f > max {
                break;
            }
            cur = l.checked_add(1)?;
        }
        let end = cur.checked_add(size - 1)?;
        (end <= max).then_some(cur)
    }
    fn nth(&self, i: usize) -> Option<(u64, u64)> {
        self.map.iter().nth(i).map(|(f, l)| (*f, *l))
    }
}

/// One operation of a trace.
#[derive(Clone, Copy, Debug)]
enum Op {
    Store(u64, u64),
    Erase(u64, u64),
    Empty(u64, u64, u64),
    /// `empty VSTART VEND SIZE` (`SIZE + align - 1` when align > 4 KiB), then a `store` of SIZE
    /// at the aligned start of the hole found (the `maple-rfc` window loop, written out).
    Alloc(u64, u64),
}

/// Run one operation on the tree (with any observer) and the model; checks the results.
fn run<O: MapleObserver>(t: &mut MapleTree<O>, m: &mut Model, op: Op, ctx: &dyn Fn() -> String) -> Option<u64> {
    match op {
        Op::Store(a, b) => {
            t.store_range(a, b, Some(MapleEntry::Zero)).unwrap_or_else(|e| panic!("{}: {e:?}", ctx()));
            m.store(a, b);
            None
        }
        Op::Erase(a, b) => {
            t.store_range(a, b, None).unwrap_or_else(|e| panic!("{}: {e:?}", ctx()));
            m.erase(a, b);
            None
        }
        Op::Empty(min, max, size) => {
            let got = t.empty_area(min, max, size).ok();
            if let Some((i, l)) = got {
                assert_eq!(l, i + size - 1, "{}", ctx());
                assert!(i >= min && l <= max && m.is_free(i, l), "{}: {i:#x}..{l:#x} is not free", ctx());
            }
            got.map(|(i, _)| i)
        }
        Op::Alloc(..) => unreachable!(),
    }
}

/// A vmalloc-like trace generator: its own allocations are the live ranges of the model.
struct Gen {
    rng: Rng,
    /// Target live-range count for the current phase.
    target: usize,
    /// Erases made to end at a leaf's max (a pivot of its parent) or start at a leaf's min.
    at_pivot: usize,
}

impl Gen {
    fn size(&mut self) -> u64 {
        let pages = match self.rng.below(100) {
            0..=59 => 1 + self.rng.below(4),
            60..=89 => 1 + self.rng.below(16),
            90..=97 => 16 + self.rng.below(128),
            _ => 256 + self.rng.below(1024),
        };
        pages * PAGE
    }

    fn align(&mut self) -> u64 {
        match self.rng.below(100) {
            0..=84 => PAGE,
            85..=94 => PAGE << (1 + self.rng.below(4)),
            _ => PAGE << (5 + self.rng.below(4)),
        }
    }

    /// The next operations (an allocation is two: `empty`, then `store` at the aligned result),
    /// decided on the current tree and model.
    fn next_ops<O: MapleObserver>(&mut self, t: &MapleTree<O>, m: &Model) -> Vec<Op> {
        let live = m.map.len();
        // Growing: nearly only allocations (a free now and then); at the target: churn, the
        // allocations balancing the frees; above it (a shrink phase): mostly frees.
        let alloc_percent = if live < self.target {
            if live + 64 < self.target {
                95
            } else {
                60
            }
        } else if live > self.target + 64 {
            10
        } else {
            45
        };
        if self.rng.chance(alloc_percent) || live < 4 {
            // Allocation: the window search, padded for a larger alignment.
            let size = self.size();
            let align = self.align();
            return vec![Op::Alloc(size, align)];
        }
        let pick = |g: &mut Gen| m.nth(g.rng.below(live as u64) as usize).unwrap();
        match self.rng.below(100) {
            // Free one range.
            0..=39 => {
                let (f, l) = pick(self);
                vec![Op::Erase(f, l)]
            }
            // Trim the head or the tail pages of one range.
            40..=49 => {
                let (f, l) = pick(self);
                let pages = (l + 1 - f) / PAGE;
                if pages < 2 {
                    return vec![Op::Erase(f, l)];
                }
                let k = 1 + self.rng.below(pages - 1);
                if self.rng.chance(50) {
                    vec![Op::Erase(f, f + k * PAGE - 1)]
                } else {
                    vec![Op::Erase(l + 1 - k * PAGE, l)]
                }
            }
            // A batch of frees in random (vfree) order.
            50..=59 => {
                let n = 2 + self.rng.below(8) as usize;
                (0..n).map(|_| pick(self)).map(|(f, l)| Op::Erase(f, l)).collect()
            }
            // A spanning erase over many ranges.
            60..=69 => {
                let i = self.rng.below(live as u64) as usize;
                let j = (i + 1 + self.rng.below(24) as usize).min(live - 1);
                let (f, _) = m.nth(i).unwrap();
                let (_, l) = m.nth(j).unwrap();
                vec![Op::Erase(f, l)]
            }
            // A spanning erase that ends exactly at a node's pivot (a leaf's max), or starts at a
            // node's min, from or to a range some leaves away.
            _ => {
                let nodes = t.nodes();
                let leaves: Vec<&NodeSummary> =
                    nodes.iter().filter(|n| n.kind == NodeKind::Leaf && n.min >= VSTART && n.max < VEND).collect();
                if leaves.len() < 2 {
                    let (f, l) = pick(self);
                    return vec![Op::Erase(f, l)];
                }
                let k = 1 + self.rng.below(leaves.len() as u64 - 1) as usize;
                let back = 1 + self.rng.below(k.min(3) as u64) as usize;
                let (a, b) = (leaves[k - back], leaves[k]);
                self.at_pivot += 1;
                if self.rng.chance(70) {
                    // [a range start inside leaf a, b.max]
                    let s = 1 + self.rng.below(a.end as u64) as usize;
                    let first = if s > a.end { a.min } else { a.pivots[s - 1] + 1 };
                    vec![Op::Erase(first, b.max)]
                } else {
                    // [a.min, a range end inside leaf b]
                    let e = self.rng.below(b.end as u64 + 1) as usize;
                    vec![Op::Erase(a.min, b.pivots[e])]
                }
            }
        }
    }
}

/// One long trace: grow to `top` live ranges (height 5 for the largest), churn, shrink to a few,
/// grow again. `check` runs after every operation.
fn trace<O: MapleObserver>(
    seed: u64,
    phases: &[(usize, usize)],
    t: &mut MapleTree<O>,
    mut check: impl FnMut(&mut MapleTree<O>, &str),
) -> (u32, usize, usize) {
    let mut g = Gen { rng: Rng(seed), target: 0, at_pivot: 0 };
    let mut m = Model::default();
    let mut max_height = 0;
    let mut step = 0usize;
    for &(target, ops) in phases {
        g.target = target;
        let mut n = 0;
        while n < ops {
            for op in g.next_ops(t, &m) {
                step += 1;
                n += 1;
                let ctx = || format!("seed {seed:#x} step {step} {op:?}");
                let Op::Alloc(size, align) = op else {
                    run(t, &mut m, op, &ctx);
                    check(t, &ctx());
                    max_height = max_height.max(t.height());
                    continue;
                };
                let pad = if align > PAGE { size + align - 1 } else { size };
                let search = Op::Empty(VSTART, VEND, pad);
                let ctx = || format!("seed {seed:#x} step {step} {search:?}");
                let found = run(t, &mut m, search, &ctx);
                check(t, &ctx());
                if let Some(i) = found {
                    let start = i.div_ceil(align) * align;
                    step += 1;
                    let op = Op::Store(start, start + size - 1);
                    let ctx = || format!("seed {seed:#x} step {step} {op:?}");
                    run(t, &mut m, op, &ctx);
                    check(t, &ctx());
                }
                max_height = max_height.max(t.height());
            }
        }
        // Contents and the lowest fit, exactly, at each phase's end.
        let got: Vec<(u64, u64)> = t.iter().map(|(a, b, _)| (a, b)).collect();
        let want: Vec<(u64, u64)> = m.map.iter().map(|(a, b)| (*a, *b)).collect();
        assert_eq!(got, want, "seed {seed:#x}: contents differ after {step} steps");
        for size in [PAGE, 2 * PAGE, 16 * PAGE, 300 * PAGE] {
            let want = m.lowest_fit(VSTART, VEND, size).map(|i| (i, i + size - 1));
            assert_eq!(t.empty_area(VSTART, VEND, size).ok(), want, "seed {seed:#x}: lowest fit of {size:#x}");
        }
    }
    (max_height, step, g.at_pivot)
}

fn validate_every_op<O: MapleObserver>(t: &mut MapleTree<O>, ctx: &str) {
    if let Err(e) = t.validate() {
        panic!("{ctx}: validate: {e}");
    }
}

/// Grows to height 5 (34,000 live ranges), churns there with spanning erases, then shrinks;
/// `validate()` after every operation.
#[test]
fn vmalloc_like_trace_to_height_five() {
    let phases = [(34_000, 40_000), (34_000, 4_000), (300, 14_000)];
    let mut t = MapleTree::new(true);
    let (h, steps, at_pivot) = trace(0x5eed_0001, &phases, &mut t, validate_every_op);
    assert_eq!(h, 5, "the trace should reach height 5");
    assert!(at_pivot > 300, "{at_pivot} erases made to end or start at a node pivot");
    eprintln!("height {h}, {steps} steps, {at_pivot} erases ending at a node pivot");
}

/// Shorter traces with other seeds (heights 3 and 4), validated after every operation.
#[test]
fn vmalloc_like_traces_other_seeds() {
    for seed in [0x5eed_0002u64, 0x5eed_0003] {
        let phases = [(3_000, 5_000), (3_000, 3_000), (50, 4_000), (1_000, 2_000)];
        let mut t = MapleTree::new(true);
        let (h, _, at_pivot) = trace(seed, &phases, &mut t, validate_every_op);
        assert!(h >= 3 && at_pivot > 50, "seed {seed:#x}: height {h}, {at_pivot} erases at a pivot");
    }
}

// ------------------------------------------------------------------ the shadow's tests

/// Drive the shadow through one trace; the first disagreement, if any.
fn shadow_trace(seed: u64, rules: Rules, phases: &[(usize, usize)]) -> Result<usize, String> {
    let mut shadow = Shadow::new(rules);
    let mut t = MapleTree::with_observer(true, Hooks::default());
    let mut err: Option<String> = None;
    let mut checks = 0usize;
    let mut ops = 0usize;
    trace(seed, phases, &mut t, |t, ctx| {
        if err.is_some() {
            t.obs.0.clear();
            return;
        }
        let hooks = std::mem::take(&mut t.obs.0);
        ops += 1;
        let mut r = shadow.apply(&hooks);
        // Every arange node after every operation while the tree is small, every 16th
        // operation once it is large (nodes() walks the whole tree).
        if r.is_ok() && (t.node_count() < 400 || ops.is_multiple_of(16)) {
            r = shadow.check(&t.nodes());
            checks += 1;
        }
        if let Err(e) = r {
            err = Some(format!("{ctx}: {e}"));
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(checks),
    }
}

/// The tree's metadata follows the kernel's rules on every arange node (compared as above).
#[test]
fn metadata_follows_the_kernel_rules() {
    for seed in [0x5eed_0011u64, 0x5eed_0012] {
        let phases = [(6_000, 10_000), (6_000, 3_000), (100, 5_000), (2_000, 2_000)];
        let checks = shadow_trace(seed, KERNEL, &phases).unwrap();
        assert!(checks > 1_000, "{checks} checks");
    }
}

/// The shadow can fail: a wrong tie rule (lowest slot for equal largest gaps, or a tie taking
/// the metadata over in `mas_parent_gap`) disagrees with the tree within a short trace.
#[test]
fn the_shadow_catches_a_wrong_tie_rule() {
    let phases = [(3_000, 6_000), (3_000, 3_000)];
    for wrong in [Rules { tie_highest: false, tie_keeps: true }, Rules { tie_highest: true, tie_keeps: false }] {
        let r = shadow_trace(0x5eed_0011, wrong, &phases);
        assert!(r.is_err(), "{wrong:?} was not caught");
    }
    // The rules themselves, on a hand-made node: gaps 5, 7, 7, 3 name slot 2 (the highest of
    // the equal largest); a write of 7 into slot 1 keeps it; 9 into slot 0 takes it; slot 0
    // shrinking to 1 rescans to slot 2 again.
    let mut s = Shadow::new(KERNEL);
    s.apply(&[Hook::Filled(1, vec![5, 7, 7, 3])]).unwrap();
    assert_eq!(s.nodes[&1].1, 2);
    s.apply(&[Hook::Written(1, 1, 7)]).unwrap();
    assert_eq!(s.nodes[&1].1, 2);
    s.apply(&[Hook::Written(1, 0, 9)]).unwrap();
    assert_eq!(s.nodes[&1].1, 0);
    s.apply(&[Hook::Written(1, 0, 1)]).unwrap();
    assert_eq!(s.nodes[&1].1, 2);
    // All gaps 0: a fill names slot 0, a rescan the last slot (ma_max_gap starts at meta_end).
    s.apply(&[Hook::Filled(2, vec![0, 0, 4]), Hook::Written(2, 2, 0)]).unwrap();
    assert_eq!(s.nodes[&2].1, 2);
    s.apply(&[Hook::Filled(3, vec![0, 0, 0])]).unwrap();
    assert_eq!(s.nodes[&3].1, 0);
    let mut w = Shadow::new(Rules { tie_highest: false, tie_keeps: true });
    w.apply(&[Hook::Filled(1, vec![5, 7, 7, 3])]).unwrap();
    assert_eq!(w.nodes[&1].1, 1);
}

/// On a kernel-made vector with an equal-gap tie (`15_meta_gap_tie`), the shadow agrees with
/// the tree after every line, and the tree's final dump is the kernel's (so the rules match
/// the kernel's output); with a wrong tie rule the shadow disagrees.
#[test]
fn the_shadow_agrees_on_the_tie_vector() {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance-maple");
    let trace = std::fs::read_to_string(d.join("15_meta_gap_tie.trace")).unwrap();
    let expected = std::fs::read_to_string(d.join("15_meta_gap_tie.expected")).unwrap();
    let replay = |rules: Rules| -> Result<String, String> {
        let mut shadow = Shadow::new(rules);
        let mut t = MapleTree::with_observer(true, Hooks::default());
        let mut dump = String::new();
        let mut hooked = 0usize;
        for (i, line) in trace.lines().enumerate() {
            match parse_maple_line(i + 1, line).unwrap() {
                MapleOp::Store(a, b) => {
                    let _ = t.store_range(a, b, Some(MapleEntry::Zero));
                }
                MapleOp::Erase(a, b) => {
                    let _ = t.store_range(a, b, None);
                }
                MapleOp::Empty(a, b, s) => {
                    let _ = t.empty_area(a, b, s);
                }
                MapleOp::Dump => dump = t.dump(),
                MapleOp::Nothing => continue,
            }
            let hooks = std::mem::take(&mut t.obs.0);
            if !hooks.is_empty() {
                hooked += 1;
                shadow.apply(&hooks).map_err(|e| format!("line {}: {e}", i + 1))?;
                if t.node_count() < 400 || hooked.is_multiple_of(16) {
                    shadow.check(&t.nodes()).map_err(|e| format!("line {}: {e}", i + 1))?;
                }
            }
        }
        shadow.check(&t.nodes())?;
        Ok(dump)
    };
    let dump = replay(KERNEL).unwrap();
    assert!(expected.ends_with(&dump), "the final dump differs from the kernel's");
    assert!(replay(Rules { tie_highest: true, tie_keeps: false }).is_err());
    assert!(replay(Rules { tie_highest: false, tie_keeps: true }).is_err());
}
