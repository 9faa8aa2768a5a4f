//! Property tests over random operation sequences, for linux-5.2, linux-6.1 and linux-6.9.
//!
//! After every step:
//! * `check_invariants` holds;
//! * the busy areas are exactly those of an independent model (a map of what was allocated and
//!   not freed), and the lazy (and, for 6.9, pooled) areas are exactly, or a part of, what was
//!   lazily freed and not reused;
//! * the free tree's blocks, in order, are exactly the coalesced complement of busy, lazy and
//!   pooled areas within the space (no byte lost, none handed out twice);
//! * an error changes nothing (full state snapshot compared), and is the one the model predicts
//!   (for frees, settings and invalid requests);
//! * a successful allocation lies in `[vstart, vend)`, is aligned, and took bytes that were free
//!   (or lazy/pooled, which a purge may return); when nothing was lazy or pooled and the search
//!   is exact (`align == 1`, or `align <= 4096` after 5.16), it is the lowest fit of a linear
//!   scan, and a failure means that no hole fits;
//! * recording step events changes nothing.
//!
//! A second group checks that `find_vmap_lowest_match` with the linux-6.1 rule returns the same
//! block as `find_vmap_lowest_linear_match` (and as an independent linear scan) for
//! `align <= 4096`, on random trees and random queries.
//!
//! Case counts (proptest `cases`): 2000 + 2000 + 2500 (operation sequences) + 2500 + 1000
//! (search) = 10,000.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::Config;
use vmapviz_core::check::check_invariants;
use vmapviz_core::events::{Event, Recorder};
use vmapviz_core::session::{snapshot_state, StateSnap};
use vmapviz_core::vmalloc::{SearchRule, VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Profile, Vmap, VmapError, NIL};

const PAGE: u64 = 4096;
const MAX: u64 = u64::MAX;

fn config(cases: u32) -> Config {
    Config { cases, failure_persistence: None, ..Config::default() }
}

// ---------------------------------------------------------------------------------------------
// Interval helpers (the brute-force model)
// ---------------------------------------------------------------------------------------------

/// Half-open `[start, end)` intervals.
type Intervals = Vec<(u64, u64)>;

/// Sort and coalesce half-open intervals (touching ones join).
fn coalesce(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// `[lo, hi)` minus the (coalesced, sorted) `used` intervals.
fn complement(lo: u64, hi: u64, used: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut cur = lo;
    for &(s, e) in used {
        if s > cur {
            out.push((cur, s));
        }
        cur = cur.max(e);
    }
    if cur < hi {
        out.push((cur, hi));
    }
    out
}

/// Is `[s, e)` inside the union of the coalesced intervals `set`?
fn covered(set: &[(u64, u64)], s: u64, e: u64) -> bool {
    set.iter().any(|&(a, b)| a <= s && e <= b)
}

fn overlaps(set: &BTreeMap<u64, u64>, s: u64, e: u64) -> bool {
    set.range(..e).next_back().is_some_and(|(_, &end)| end > s)
}

/// Spec §2.4, written independently: where `[nva, nva + size)` would go in `[start, end)`.
fn is_within(start: u64, end: u64, size: u64, align: u64, vstart: u64) -> Option<u64> {
    let base = if start > vstart { start } else { vstart };
    let nva = base.wrapping_add(align - 1) & !(align - 1);
    let e = nva.wrapping_add(size);
    if e < nva || nva < vstart || e > end {
        None
    } else {
        Some(nva)
    }
}

/// The first block (index, nva) of an ascending list that can hold the request.
fn linear(free: &[(u64, u64)], size: u64, align: u64, vstart: u64) -> Option<(usize, u64)> {
    free.iter().enumerate().find_map(|(i, &(s, e))| is_within(s, e, size, align, vstart).map(|n| (i, n)))
}

/// What `__alloc_vmap_area` returns on the free blocks `free` when its search is exact: the
/// lowest block that fits, then the `vend` check and the fit classification (spec §2.3).
fn exact_alloc(free: &[(u64, u64)], size: u64, align: u64, vstart: u64, vend: u64) -> Option<u64> {
    let (i, nva) = linear(free, size, align, vstart)?;
    (nva >= free[i].0 && nva + size <= vend).then_some(nva)
}

fn fls(n: u64) -> u64 {
    64 - u64::from(n.leading_zeros())
}

// ---------------------------------------------------------------------------------------------
// Observing the allocator through its public API
// ---------------------------------------------------------------------------------------------

fn free_blocks(v: &Vmap) -> Vec<(u64, u64)> {
    v.free_tree().iter(v.arena()).map(|(_, x)| (x.va_start, x.va_end)).collect()
}

/// (busy, lazy-in-busy) areas of all nodes, sorted.
fn busy_areas(v: &Vmap) -> (Intervals, Intervals) {
    let mut busy = Vec::new();
    let mut lazy = Vec::new();
    for nid in 0..v.nodes().len() {
        for (a, is_lazy) in v.busy_areas(nid) {
            if is_lazy {
                lazy.push((a.va_start.0, a.va_end.0));
            } else {
                busy.push((a.va_start.0, a.va_end.0));
            }
        }
    }
    busy.sort_unstable();
    lazy.sort_unstable();
    (busy, lazy)
}

/// Lazy areas the allocator reports outside the busy tree (6.1 purge tree, 6.9 lazy trees).
fn lazy_areas(v: &Vmap) -> Vec<(u64, u64)> {
    let mut l: Vec<(u64, u64)> = v.lazy_areas().iter().map(|a| (a.va_start.0, a.va_end.0)).collect();
    l.sort_unstable();
    l
}

fn pooled_areas(v: &Vmap) -> Vec<(u64, u64)> {
    let mut p: Vec<(u64, u64)> =
        v.pools().into_iter().flat_map(|(_, _, e)| e.into_iter().map(|a| (a.va_start.0, a.va_end.0))).collect();
    p.sort_unstable();
    p
}

/// A full picture for "nothing changed" checks (the 5.2 lazy list order included).
#[derive(Debug, PartialEq)]
struct Snap {
    state: StateSnap,
    lazy_list: Vec<u64>,
    lazy_nr: u64,
}

fn snap(v: &Vmap) -> Snap {
    Snap {
        state: snapshot_state(v),
        lazy_list: v.lazy_list().iter().map(|&i| v.arena().area(i).va_start).collect(),
        lazy_nr: v.vmap_lazy_nr(),
    }
}

// ---------------------------------------------------------------------------------------------
// Random operation sequences
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Space {
    /// `[base, base + pages * 4096)`; `base` may be unaligned.
    Small { base: u64, pages: u64 },
    /// A small space around VMALLOC_START, so that 6.9 allocations with the vmalloc window use
    /// the pools under pressure.
    AroundVmalloc { before: u64, after: u64 },
    /// The top of the 64-bit space: `[2^64 - 1 - pages * 4096 - skew, 2^64 - 1)`.
    Top { pages: u64, skew: u64 },
    /// The boot default `[1, 2^64 - 1)` (no `init`).
    Default,
}

impl Space {
    fn range(&self) -> (u64, u64) {
        match *self {
            Space::Small { base, pages } => (base, base + pages * PAGE),
            Space::AroundVmalloc { before, after } => (VMALLOC_START - before * PAGE, VMALLOC_START + after * PAGE),
            Space::Top { pages, skew } => (MAX - pages * PAGE - skew, MAX),
            Space::Default => (1, MAX),
        }
    }
}

#[derive(Clone, Debug)]
enum Win {
    /// `[space start, space end)`.
    Space,
    /// `[0, 2^64 - 1)`.
    Everything,
    /// `[VMALLOC_START, VMALLOC_END)`.
    Vmalloc,
    /// A random sub-window, as fractions (of 65536) of the space; `odd` adds 0x123 to vstart.
    Frac { from: u64, len: u64, odd: bool },
    /// Any two numbers (often an empty window).
    Raw(u64, u64),
}

#[derive(Clone, Debug)]
enum Pick {
    /// A busy or lazy area (by index), its start.
    Live(usize),
    /// A busy or lazy area, an address inside it that is not its start.
    Interior(usize, u64),
    /// An address freed before.
    Freed(usize),
    /// Anything in or around the space.
    Random(u64),
}

#[derive(Clone, Debug)]
enum Act {
    Alloc {
        pages: u64,
        align_shift: u32,
        win: Win,
        record: bool,
    },
    /// A request the kernel refuses (size 0, size not a page multiple, align not a power of two).
    BadAlloc {
        size: u64,
        align: u64,
    },
    Free(Pick, bool),
    Vfree(Pick, bool),
    Purge,
    Reclaim,
    Cpus(u64),
    Cpu(u64),
}

fn space() -> impl Strategy<Value = Space> {
    prop_oneof![
        4 => (prop_oneof![Just(1u64), (1u64..1 << 20).prop_map(|k| k * PAGE), (1u64..1 << 20).prop_map(|k| k * PAGE + 0x10)], 4u64..400)
            .prop_map(|(base, pages)| Space::Small { base, pages }),
        3 => (0u64..64, 16u64..600).prop_map(|(before, after)| Space::AroundVmalloc { before, after }),
        1 => (4u64..300, prop_oneof![Just(0u64), Just(0xfffu64), 0u64..PAGE]).prop_map(|(pages, skew)| Space::Top { pages, skew }),
        2 => Just(Space::Default),
    ]
}

fn win(vmalloc: u32) -> impl Strategy<Value = Win> {
    prop_oneof![
        5 => Just(Win::Space),
        1 => Just(Win::Everything),
        vmalloc => Just(Win::Vmalloc),
        3 => (0u64..65536, 1u64..65536, any::<bool>()).prop_map(|(from, len, odd)| Win::Frac { from, len, odd }),
        1 => (any::<u64>(), any::<u64>()).prop_map(|(a, b)| Win::Raw(a, b)),
    ]
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        12 => any::<usize>().prop_map(Pick::Live),
        1 => (any::<usize>(), any::<u64>()).prop_map(|(i, o)| Pick::Interior(i, o)),
        2 => any::<usize>().prop_map(Pick::Freed),
        1 => any::<u64>().prop_map(Pick::Random),
    ]
}

/// `vmalloc`: the weight of the `[VMALLOC_START, VMALLOC_END)` window (6.9 pools use it).
fn act(vmalloc: u32) -> impl Strategy<Value = Act> {
    let pages = prop_oneof![8 => 1u64..=8, 3 => 9u64..=64, 2 => 65u64..=300, 1 => 301u64..=20000];
    let align_shift = prop_oneof![6 => 0u32..=12, 3 => 13u32..=20, 1 => 21u32..=63];
    let bad = prop_oneof![
        Just((0u64, 1u64)),
        (1u64..1 << 40).prop_filter("not a page multiple", |s| s % PAGE != 0).prop_map(|s| (s, 1)),
        any::<u64>().prop_filter("not a power of two", |a| !a.is_power_of_two()).prop_map(|a| (PAGE, a)),
    ];
    prop_oneof![
        40 => (pages, align_shift, win(vmalloc), prop::bool::weighted(0.15))
            .prop_map(|(pages, align_shift, win, record)| Act::Alloc { pages, align_shift, win, record }),
        3 => bad.prop_map(|(size, align)| Act::BadAlloc { size, align }),
        15 => (pick(), prop::bool::weighted(0.15)).prop_map(|(p, r)| Act::Free(p, r)),
        20 => (pick(), prop::bool::weighted(0.15)).prop_map(|(p, r)| Act::Vfree(p, r)),
        3 => Just(Act::Purge),
        2 => Just(Act::Reclaim),
        2 => (0u64..=9).prop_map(Act::Cpus),
        3 => (0u64..=9).prop_map(Act::Cpu),
    ]
}

/// The independent model of one run.
struct Model {
    profile: Profile,
    space: (u64, u64),
    /// Busy areas that are not lazy: start -> end.
    busy: BTreeMap<u64, u64>,
    /// Lazily freed areas not yet seen back in the free tree (6.9: lazy or pooled).
    lazy: BTreeMap<u64, u64>,
    freed: Vec<u64>,
    cpus: u64,
    cpu: u64,
}

impl Model {
    fn live(&self) -> Vec<(u64, u64)> {
        let mut l: Vec<(u64, u64)> = self.busy.iter().map(|(&s, &e)| (s, e)).collect();
        if self.profile == Profile::Linux52 {
            l.extend(self.lazy.iter().map(|(&s, &e)| (s, e)));
        }
        l.sort_unstable();
        l
    }

    fn address(&self, p: &Pick) -> u64 {
        let live = self.live();
        match *p {
            Pick::Live(i) if !live.is_empty() => live[i % live.len()].0,
            Pick::Interior(i, o) if !live.is_empty() => {
                let (s, e) = live[i % live.len()];
                s + 1 + o % (e - s - 1).max(1)
            }
            Pick::Freed(i) if !self.freed.is_empty() => self.freed[i % self.freed.len()],
            Pick::Live(i) | Pick::Interior(i, _) | Pick::Freed(i) => {
                self.space.0.wrapping_add((i as u64).wrapping_mul(PAGE))
            }
            Pick::Random(r) => {
                if r % 3 == 0 {
                    r
                } else {
                    self.space.0.wrapping_add(r % (self.space.1 - self.space.0).max(1))
                }
            }
        }
    }

    /// What `free`/`vfree` of `addr` must answer.
    fn expect_free(&self, addr: u64) -> Result<(), VmapError> {
        if self.busy.contains_key(&addr) {
            return Ok(());
        }
        let is52 = self.profile == Profile::Linux52;
        if is52 && self.lazy.contains_key(&addr) {
            return Err(VmapError::AlreadyLazy { addr });
        }
        let containing =
            |m: &BTreeMap<u64, u64>| m.range(..=addr).next_back().filter(|(_, &e)| e > addr).map(|(&s, &e)| (s, e));
        let interior_of = containing(&self.busy).or_else(|| if is52 { containing(&self.lazy) } else { None });
        Err(VmapError::UnknownFree { addr, interior_of })
    }

    fn lazy_pages(&self) -> u64 {
        self.lazy.iter().map(|(s, e)| (e - s) / PAGE).sum()
    }

    fn lazy_max(&self) -> u64 {
        fls(self.cpus) * 8192
    }
}

fn window(space: (u64, u64), w: &Win) -> (u64, u64) {
    match *w {
        Win::Space => space,
        Win::Everything => (0, MAX),
        Win::Vmalloc => (VMALLOC_START, VMALLOC_END),
        Win::Frac { from, len, odd } => {
            let span = u128::from(space.1 - space.0);
            let vstart = (space.0 + (span * u128::from(from) / 65536) as u64).wrapping_add(if odd { 0x123 } else { 0 });
            let rest = u128::from(space.1.saturating_sub(vstart));
            (vstart, vstart + (rest * u128::from(len) / 65536) as u64)
        }
        Win::Raw(a, b) => (a, b),
    }
}

/// Run `acts` on a fresh allocator of profile `p`, checking everything after every step.
fn run(p: Profile, cpus: u64, sp: &Space, acts: &[Act]) -> Result<(), TestCaseError> {
    let mut v = Vmap::new(p);
    v.set_cpus(cpus).unwrap();
    let range = sp.range();
    match sp {
        Space::Default => v.ensure_init(),
        _ => v.init(range.0, range.1).unwrap(),
    }
    let mut m = Model {
        profile: p,
        space: range,
        busy: BTreeMap::new(),
        lazy: BTreeMap::new(),
        freed: Vec::new(),
        cpus,
        cpu: 0,
    };
    for (step, a) in acts.iter().enumerate() {
        let ctx = || format!("{p} step {step}: {a:?}");
        let before = snap(&v);
        let free_before = free_blocks(&v);
        let lazy_before = lazy_areas(&v);
        let pooled_before = pooled_areas(&v);
        let nothing_lazy = m.lazy.is_empty();
        prop_assert_eq!(nothing_lazy, lazy_before.is_empty() && pooled_before.is_empty() && v.lazy_list().is_empty());
        // A purge happened during this step (lazy areas went back to the tree or the pools).
        let mut purge_expected = false;
        // A purge may have happened (an allocation that succeeded after its retry).
        let mut purge_possible = false;
        // A purge with a full pool decay happened (6.9: the pools are empty afterwards).
        let mut full_purge = false;
        let mut vfreed = None;
        // vmap_lazy_nr as the model sees it (6.9: pooled areas do not count).
        let lazy_nr_before: u64 = match p {
            Profile::Linux69 => lazy_before.iter().map(|(s, e)| (e - s) / PAGE).sum(),
            _ => m.lazy_pages(),
        };

        match a {
            Act::Alloc { pages, align_shift, win, record } => {
                let size = pages * PAGE;
                let align = 1u64 << align_shift;
                let (vstart, vend) = window(range, win);
                let mut recorded = None;
                if *record {
                    let mut w = v.clone();
                    let mut rec = Recorder::default();
                    let r = w.alloc(size, align, vstart, vend, &mut rec);
                    recorded = Some((w, r, rec.events));
                }
                let res = v.alloc(size, align, vstart, vend, &mut NoObserver);
                if let Some((w, r, events)) = recorded {
                    prop_assert_eq!(&r, &res, "{}: recorded run differs", ctx());
                    prop_assert_eq!(snap(&w), snap(&v), "{}: recorded run differs", ctx());
                    match &res {
                        Ok(addr) => {
                            let ok = matches!(events.last(), Some(Event::Allocated { addr: x, .. }) if x == addr);
                            prop_assert!(ok, "{}: last event {:?}", ctx(), events.last());
                        }
                        Err(_) => {
                            let failed = matches!(events.last(), Some(Event::AllocFailed { .. }));
                            prop_assert!(failed, "{}: last event {:?}", ctx(), events.last());
                        }
                    }
                }
                let exact = (p != Profile::Linux52 && align <= PAGE) || align == 1;
                match res {
                    Ok(addr) => {
                        let end = addr.checked_add(size);
                        prop_assert!(end.is_some(), "{}: wraps", ctx());
                        let end = end.unwrap();
                        prop_assert!(addr % align == 0, "{}: {addr:#x} unaligned", ctx());
                        prop_assert!(addr >= vstart && end <= vend, "{}: {addr:#x} outside the window", ctx());
                        prop_assert!(addr >= range.0 && end <= range.1, "{}: outside the space", ctx());
                        prop_assert!(!overlaps(&m.busy, addr, end), "{}: {addr:#x} overlaps a busy area", ctx());
                        let mut avail = free_before.clone();
                        avail.extend(&lazy_before);
                        avail.extend(&pooled_before);
                        if p == Profile::Linux52 {
                            avail.extend(m.lazy.iter().map(|(&s, &e)| (s, e)));
                        }
                        prop_assert!(covered(&coalesce(avail), addr, end), "{}: {addr:#x} was not free", ctx());
                        if nothing_lazy {
                            prop_assert!(covered(&free_before, addr, end), "{}: {addr:#x} was not free", ctx());
                            if exact {
                                let want = exact_alloc(&free_before, size, align, vstart, vend);
                                prop_assert_eq!(Some(addr), want, "{}: not the lowest fit", ctx());
                            }
                        }
                        // Reused lazy or pooled bytes leave the lazy model (6.9 pool hit, or
                        // after a purge-and-retry).
                        m.lazy.retain(|&s, &mut e| e <= addr || s >= end);
                        m.busy.insert(addr, end);
                        purge_possible = true;
                    }
                    Err(e) => {
                        prop_assert_eq!(&e, &VmapError::NoSpace { size, align, vstart, vend }, "{}", ctx());
                        if nothing_lazy {
                            prop_assert_eq!(snap(&v), before, "{}: a failure changed the state", ctx());
                            if exact {
                                let want = exact_alloc(&free_before, size, align, vstart, vend);
                                prop_assert_eq!(None, want, "{}: failed although a hole fits", ctx());
                            }
                        }
                        // The purge before the retry ran (6.9: with a full decay).
                        purge_expected = true;
                        full_purge = true;
                    }
                }
            }
            Act::BadAlloc { size, align } => {
                let (size, align) = (*size, *align);
                let e = v.alloc(size, align, range.0, range.1, &mut NoObserver).unwrap_err();
                let want = if size == 0 {
                    VmapError::SizeZero { bug_on: p == Profile::Linux52 }
                } else if size % PAGE != 0 {
                    VmapError::SizeNotPageMultiple { size, bug_on: p == Profile::Linux52 }
                } else {
                    VmapError::BadAlign { align, bug_on: p == Profile::Linux52 }
                };
                prop_assert_eq!(&e, &want, "{}", ctx());
                prop_assert_eq!(e.is_kernel_bug(), p == Profile::Linux52);
                prop_assert_eq!(snap(&v), before, "{}: a refused request changed the state", ctx());
            }
            Act::Free(pk, record) | Act::Vfree(pk, record) => {
                let lazy = matches!(a, Act::Vfree(..));
                let addr = m.address(pk);
                let want = m.expect_free(addr);
                let mut recorded = None;
                if *record {
                    let mut w = v.clone();
                    let mut rec = Recorder::default();
                    let r = if lazy { w.vfree(addr, &mut rec) } else { w.free(addr, &mut rec) };
                    recorded = Some((w, r));
                }
                let res = if lazy { v.vfree(addr, &mut NoObserver) } else { v.free(addr, &mut NoObserver) };
                if let Some((w, r)) = recorded {
                    prop_assert_eq!(&r, &res);
                    prop_assert_eq!(snap(&w), snap(&v), "{}: recorded run differs", ctx());
                }
                // Spec §3.1/§10: after 5.2, `remove_vm_area` refuses an address that is not page
                // aligned (areas start unaligned when the space or the window does): a warning,
                // nothing changes.
                let unaligned_vfree = lazy && p != Profile::Linux52 && !addr.is_multiple_of(PAGE);
                let want = if unaligned_vfree { Err(VmapError::UnalignedFree { addr }) } else { want };
                prop_assert_eq!(&res, &want, "{}: addr {:#x}", ctx(), addr);
                match res {
                    Ok(()) => {
                        let end = m.busy.remove(&addr).unwrap();
                        m.freed.push(addr);
                        if lazy {
                            m.lazy.insert(addr, end);
                            vfreed = Some((addr, end));
                            if lazy_nr_before + (end - addr) / PAGE > m.lazy_max() {
                                purge_expected = true;
                            }
                        }
                    }
                    Err(e) => {
                        prop_assert!(!e.is_kernel_bug());
                        prop_assert_eq!(snap(&v), before, "{}: a refused free changed the state", ctx());
                    }
                }
            }
            Act::Purge | Act::Reclaim => {
                let r = if matches!(a, Act::Purge) { v.purge(&mut NoObserver) } else { v.reclaim(&mut NoObserver) };
                let entries = match p {
                    Profile::Linux52 => m.lazy.len(),
                    Profile::Linux61 => lazy_before.len(),
                    _ => lazy_before.len(),
                };
                prop_assert_eq!(r.entries as usize, entries, "{}", ctx());
                purge_expected = true;
                full_purge = matches!(a, Act::Reclaim);
            }
            Act::Cpus(n) => {
                let n = *n;
                let want = if n == 0 || n > 65536 {
                    Err(VmapError::BadCpus { cpus: n })
                } else if n <= m.cpu {
                    Err(VmapError::CpuOffline { cpu: m.cpu as u32, cpus: n })
                } else {
                    Ok(())
                };
                let res = v.set_cpus(n);
                prop_assert_eq!(&res, &want, "{}", ctx());
                if res.is_ok() {
                    m.cpus = n;
                } else {
                    prop_assert_eq!(snap(&v), before);
                }
            }
            Act::Cpu(n) => {
                let n = *n;
                let want = if n >= m.cpus { Err(VmapError::BadCpu { cpu: n, cpus: m.cpus as u32 }) } else { Ok(()) };
                let res = v.set_cpu(n);
                prop_assert_eq!(&res, &want, "{}", ctx());
                if res.is_ok() {
                    m.cpu = n;
                } else {
                    prop_assert_eq!(snap(&v), before);
                }
            }
        }

        // ---- after every step ----
        if let Err(e) = check_invariants(&v) {
            return Err(TestCaseError::fail(format!("{}: invariant: {e}", ctx())));
        }
        let (busy, lazy_in_busy) = busy_areas(&v);
        let lazy_now = lazy_areas(&v);
        let pooled_now = pooled_areas(&v);
        let model_busy: Vec<(u64, u64)> = m.busy.iter().map(|(&s, &e)| (s, e)).collect();
        prop_assert_eq!(&busy, &model_busy, "{}: busy areas", ctx());

        // Lazy areas: where each era keeps them.
        let model_lazy: Vec<(u64, u64)> = m.lazy.iter().map(|(&s, &e)| (s, e)).collect();
        match p {
            Profile::Linux52 => {
                prop_assert!(lazy_now.is_empty() && pooled_now.is_empty());
                // All lazy areas stay (in the busy tree) until a purge returns all of them.
                if purge_expected {
                    prop_assert!(lazy_in_busy.is_empty(), "{}: a purge was due", ctx());
                } else if !lazy_in_busy.is_empty() || !purge_possible {
                    prop_assert_eq!(&lazy_in_busy, &model_lazy, "{}: lazy areas", ctx());
                }
                if lazy_in_busy.is_empty() {
                    m.lazy.clear();
                }
            }
            Profile::Linux61 => {
                prop_assert!(lazy_in_busy.is_empty() && pooled_now.is_empty());
                // The purge tree coalesces: its blocks are the model's lazy bytes, merged.
                for w in lazy_now.windows(2) {
                    prop_assert!(w[0].1 < w[1].0, "{}: purge tree blocks touch", ctx());
                }
                if purge_expected {
                    prop_assert!(lazy_now.is_empty(), "{}: a purge was due", ctx());
                } else if !lazy_now.is_empty() || !purge_possible {
                    prop_assert_eq!(&lazy_now, &coalesce(model_lazy.clone()), "{}: lazy areas", ctx());
                }
                if lazy_now.is_empty() {
                    m.lazy.clear();
                }
            }
            _ => {
                prop_assert!(lazy_in_busy.is_empty());
                // Lazy trees hold whole areas (no merging); pools too. Both come from the model.
                let mut held = lazy_now.clone();
                held.extend(&pooled_now);
                held.sort_unstable();
                for w in held.windows(2) {
                    prop_assert!(w[0].1 <= w[1].0, "{}: lazy/pooled areas overlap", ctx());
                }
                for x in &held {
                    prop_assert_eq!(m.lazy.get(&x.0), Some(&x.1), "{}: {:x?} is not a lazily freed area", ctx(), x);
                }
                if full_purge {
                    prop_assert!(pooled_now.is_empty(), "{}: a full decay leaves pools", ctx());
                }
                if purge_expected {
                    prop_assert!(lazy_now.is_empty(), "{}: a purge was due", ctx());
                } else if let Some(x) = vfreed {
                    prop_assert!(lazy_now.contains(&x), "{}: the vfreed area is not lazy", ctx());
                }
                m.lazy = held.into_iter().collect();
            }
        }
        let model_lazy_pages: u64 = match p {
            Profile::Linux69 => lazy_now.iter().map(|(s, e)| (e - s) / PAGE).sum(),
            _ => m.lazy_pages(),
        };
        prop_assert_eq!(v.vmap_lazy_nr(), model_lazy_pages, "{}: vmap_lazy_nr", ctx());

        // Free bytes: exactly the space minus busy, lazy and pooled areas.
        let mut used = model_busy;
        used.extend(m.lazy.iter().map(|(&s, &e)| (s, e)));
        let want_free = complement(range.0, range.1, &coalesce(used));
        prop_assert_eq!(free_blocks(&v), want_free, "{}: free blocks", ctx());
    }
    Ok(())
}

fn cpus_for(p: Profile) -> BoxedStrategy<u64> {
    if p == Profile::Linux69 {
        prop_oneof![1 => Just(1u64), 3 => 2u64..=8].boxed()
    } else {
        prop_oneof![3 => Just(1u64), 1 => 2u64..=8].boxed()
    }
}

proptest! {
    #![proptest_config(config(2000))]
    #[test]
    fn random_operations_linux52(cpus in cpus_for(Profile::Linux52), sp in space(), acts in prop::collection::vec(act(3), 1..160)) {
        run(Profile::Linux52, cpus, &sp, &acts)?;
    }
}

proptest! {
    #![proptest_config(config(2000))]
    #[test]
    fn random_operations_linux61(cpus in cpus_for(Profile::Linux61), sp in space(), acts in prop::collection::vec(act(3), 1..160)) {
        run(Profile::Linux61, cpus, &sp, &acts)?;
    }
}

proptest! {
    #![proptest_config(config(2500))]
    #[test]
    fn random_operations_linux69(cpus in cpus_for(Profile::Linux69), sp in space(), acts in prop::collection::vec(act(10), 1..160)) {
        run(Profile::Linux69, cpus, &sp, &acts)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Tree search against the linear scan
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Query {
    pages: u64,
    align_shift: u32,
    /// vstart: a fraction (of 65536) of the space, plus an offset; or 1.
    ///
    /// vstart 0 is left out: there `ALIGN(start, align)` of a block within `align` of 2^64
    /// wraps to 0, which `is_within_this_va` accepts (spec §10, a spurious match). The linear
    /// scan then stops at that block while the tree search prunes it by size, so the two differ
    /// by design (the kernel's own DEBUG check uses vstart >= VMALLOC_START).
    vstart_frac: Option<(u64, u64)>,
}

fn query(max_align_shift: u32) -> impl Strategy<Value = Query> {
    (
        prop_oneof![6 => 1u64..=8, 3 => 9u64..=128, 1 => 129u64..=1 << 20],
        0..=max_align_shift,
        prop_oneof![1 => Just(None), 6 => (0u64..65536, 0u64..PAGE * 4).prop_map(Some)],
    )
        .prop_map(|(pages, align_shift, vstart_frac)| Query { pages, align_shift, vstart_frac })
}

/// A random free tree: random allocations and frees (immediate only) in a random space.
fn build_tree(sp: &Space, steps: &[(u64, u32, bool, usize)]) -> Vmap {
    let mut v = Vmap::new(Profile::Linux61);
    let range = sp.range();
    match sp {
        Space::Default => v.ensure_init(),
        _ => v.init(range.0, range.1).unwrap(),
    }
    let mut live: Vec<u64> = Vec::new();
    for &(pages, align_shift, free, pick) in steps {
        if free && !live.is_empty() {
            let a = live.swap_remove(pick % live.len());
            v.free(a, &mut NoObserver).unwrap();
        } else {
            // Spread the allocations over the space so the holes are everywhere.
            let span = range.1 - range.0;
            let vstart = range.0 + (span / 64) * (pick as u64 % 64);
            if let Ok(a) = v.alloc(pages * PAGE, 1 << align_shift, vstart, range.1, &mut NoObserver) {
                live.push(a);
            }
        }
    }
    v
}

fn check_search(v: &Vmap, rule: SearchRule, q: &Query) -> Result<(), TestCaseError> {
    let (lo, hi) = v.space();
    let size = q.pages * PAGE;
    let align = 1u64 << q.align_shift;
    let vstart = match q.vstart_frac {
        None => 1,
        Some((f, off)) => lo + ((u128::from(hi - lo) * u128::from(f) / 65536) as u64).saturating_add(off).min(hi - lo),
    };
    let length = rule.length(size, align, vstart, MAX);
    let tree = v
        .lowest_match(size, align, vstart, length, rule)
        .map_err(|_| TestCaseError::fail("an endless search for a request whose length does not wrap"))?;
    let list = v.lowest_linear_match(size, align, vstart);
    let at = |i: u32| (i != NIL).then(|| (v.arena().area(i).va_start, v.arena().area(i).va_end));
    prop_assert_eq!(
        at(tree),
        at(list),
        "tree search != linear search: size {:#x} align {:#x} vstart {:#x}",
        size,
        align,
        vstart
    );
    // And the linear search is the spec's (an independent scan of the blocks).
    let blocks = free_blocks(v);
    let want = linear(&blocks, size, align, vstart).map(|(i, _)| blocks[i]);
    prop_assert_eq!(at(list), want);
    Ok(())
}

fn tree_steps() -> impl Strategy<Value = Vec<(u64, u32, bool, usize)>> {
    prop::collection::vec(
        (
            prop_oneof![4 => 1u64..=4, 2 => 5u64..=32, 1 => 33u64..=300],
            0u32..=16,
            prop::bool::weighted(0.45),
            any::<usize>(),
        ),
        0..120,
    )
}

proptest! {
    #![proptest_config(config(2500))]
    /// linux-6.1 rule (`adjust_search_size`, vstart moved on roll-back), align <= PAGE_SIZE.
    #[test]
    fn tree_search_equals_linear_search_linux61_rule(
        sp in space(),
        steps in tree_steps(),
        queries in prop::collection::vec(query(12), 1..40),
    ) {
        let v = build_tree(&sp, &steps);
        check_invariants(&v).map_err(TestCaseError::fail)?;
        let rule = SearchRule { adjust_search_size: true, move_vstart: true };
        for q in &queries {
            check_search(&v, rule, q)?;
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]
    /// linux-5.2 rule with align 1 (the kernel's own DEBUG_AUGMENT_LOWEST_MATCH_CHECK setting).
    #[test]
    fn tree_search_equals_linear_search_linux52_rule_align1(
        sp in space(),
        steps in tree_steps(),
        queries in prop::collection::vec(query(0), 1..40),
    ) {
        let v = build_tree(&sp, &steps);
        let rule = SearchRule { adjust_search_size: false, move_vstart: false };
        for q in &queries {
            check_search(&v, rule, q)?;
        }
    }
}
