//! The `maple-rfc` profile: vmalloc on maple trees with the per-CPU bump overlay (the June 2026
//! RFC v1 at patch 12/12, spec §11). Its own state, beside the rbtree eras:
//!
//! ```text
//!   occupied_vmap_area_mt (global, ALLOC_RANGE)   [s, e-1] -> XA_ZERO   busy, lazy, pooled, chunks,
//!        |  mas_empty_area + window loop                                 seeded complement (§11.2.3)
//!        v
//!   vn->busy.mt (per node, no ALLOC_RANGE)        [s, e-1] -> area      addr -> vmap_area lookup
//!   vn->lazy (list, vfree order), vn->pool[]      as linux-6.9
//!   bump chunks (64 MiB, per-CPU current)         page_va -> area       (bump on)
//!   free_vmap_area_mt (stale after the switch)    [s, e-1] -> block     pcpu_get_vm_areas only
//! ```
//!
//! What is exact and what is modelled is said per function ([fact], [infer], [choice] refer to
//! the spec's tags). Nothing here half-applies: a request is refused before anything changes,
//! or the state from before is restored.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use serde::Serialize;

use super::{search_purge_retry, Drain, Era, EraSlot, PurgeResult, PurgeStop, Vmap};
use crate::addr::{Addr, Hex};
use crate::area::{AreaInfo, Arena, VN_SHIFT};
use crate::error::VmapError;
use crate::events::{Event, IndexView, MapleTreeKind, NoObserver, Observer, PurgeCause};
use crate::maple::{MapleEntry, MapleEvent, MapleObserver, MapleSnap, MapleTree, NodeSummary, RevCursor};
use super::Profile;
use crate::vmalloc::{align_up, fls, MergeStyle, SearchRule, PAGE_SHIFT, PAGE_SIZE, ULONG_MAX, VMALLOC_END, VMALLOC_START};

/// `VA_FROM_BUMP_CHUNK`: the area was handed out by the per-CPU overlay (patch 11). [fact]
pub const VA_FROM_BUMP_CHUNK: u32 = 0x4;
/// Model-only flag: the area's range is one range of the occupied tree (or of a seeded range).
const F_OCC: u32 = 0x10;
/// Model-only flags: where the object sits.
const F_LAZY: u32 = 0x20;
const F_POOLED: u32 = 0x40;
/// `VMAP_BUMP_CHUNK_SIZE`: 64 MiB = 16384 pages. [fact]
pub const VMAP_BUMP_CHUNK_SIZE: u64 = 64 << 20;
/// Largest size and alignment the overlay takes (`vmap_bump_eligible`, HEAD). [fact]
pub const VMAP_BUMP_MAX: u64 = 32 << 20;
/// x86_64 module area (execmem): outside the seeded window.
pub const MODULES_VADDR: u64 = 0xffff_ffff_a000_0000;
pub const MODULES_END: u64 = 0xffff_ffff_ff00_0000;
/// Pools per node, as linux-6.9.
const MAX_VA_SIZE_PAGES: usize = 256;
/// `nr_vmap_nodes` clamp, as linux-6.9.
const MAX_NODES: u32 = 128;
/// Most CPUs a trace may declare, as linux-6.9.
const MAX_CPUS: u64 = 65536;

/// One 64 MiB chunk of the bump overlay (`struct vmap_bump_chunk`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BumpChunk {
    pub base: u64,
    pub limit: u64,
    /// Next free address; only moves forward.
    pub bump: u64,
    /// Outstanding pages.
    pub alloced: u64,
    pub owner_cpu: u32,
    /// `page_va[]` kept compact: area start -> area (each area covers its pages).
    #[serde(skip)]
    pub page_va: BTreeMap<u64, u32>,
}

/// One vmap node of the profile.
#[derive(Clone, Default)]
pub struct RfcNode {
    /// `vn->busy.mt`: `[va_start, va_end - 1] -> area` (no ALLOC_RANGE: range_64 internals [infer]).
    pub busy: MapleTree,
    /// `vn->lazy`: in vfree order [infer].
    pub lazy: Vec<u32>,
    /// `vn->pool[i]`: areas of exactly `i + 1` pages; front = first entry.
    pub pools: Vec<VecDeque<u32>>,
}

/// Which way the last allocation went (for tests and the view).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum AllocPath {
    #[default]
    None,
    /// The per-CPU bump chunk.
    Bump,
    /// A vmap node's pool.
    Pool,
    /// `__alloc_vmap_area`: the occupied tree's gap search and window loop.
    Global,
    /// Pre-perf-mode: the legacy free tree (`early` lines).
    Legacy,
}

/// Work counters of §11.11 that the model counts cheaply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RfcCounters {
    /// `mas_empty_area` calls of the window loop (each restarts at the root).
    pub window_iterations: u64,
    /// Maple nodes touched by searches and stores (all trees).
    pub maple_nodes_touched: u64,
    /// Stores into the occupied tree (XA_ZERO and NULL).
    pub occupied_stores: u64,
    pub bump_hits: u64,
    pub bump_misses: u64,
    pub refills: u64,
    /// Lookups that the lo/hi bounds rejected without a chunk walk.
    pub fast_reject_hits: u64,
    /// Chunks stepped over by list walks.
    pub chunk_walk_steps: u64,
    /// Chunks whose range went back to the occupied tree at an unlink, before the lazy purge.
    pub released_before_flush: u64,
    /// Busy-tree inserts refused by the overlap check (the syzbot WARN).
    pub overlap_warnings: u64,
    /// Busy-tree inserts the overlap check let through although another node's busy tree holds
    /// an overlapping area (it looks at the target node's tree only).
    pub overlaps_missed: u64,
    pub pool_hits: u64,
    pub purges: u64,
}

/// The shape of the trees (spec §11.11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RfcStructure {
    pub occupied_height: u32,
    pub occupied_nodes: usize,
    /// Used slots of the occupied tree's leaves, in percent of 16 per leaf.
    pub leaf_fill_pct: f64,
    pub busy_nodes: usize,
    pub free_nodes: usize,
    pub chunks: usize,
}

/// The whole `maple-rfc` allocator.
#[derive(Clone)]
pub struct MapleRfc {
    /// `struct vmap_area` objects (48 bytes in the RFC; the model's are larger).
    pub(crate) arena: Arena<false>,
    /// `occupied_vmap_area_mt`: authoritative for allocation.
    pub(crate) occupied: MapleTree,
    /// `free_vmap_area_mt`: built at init, clipped by early allocations and pcpu only (stale).
    pub(crate) free_mt: MapleTree,
    next_block: u32,
    pub(crate) nodes: Vec<RfcNode>,
    /// Every non-bump busy area by start (the union of the busy trees), for the overlap check.
    busy_by_start: BTreeMap<u64, u32>,
    /// `vmap_lazy_nr`, in pages.
    pub(crate) vmap_lazy_nr: u64,
    /// For an observer only, during a purge: the areas it took off the lazy lists (the nodes'
    /// purge lists, in order) and how many of them it has dealt with. The rest are still drawn
    /// lazy, so a view's picture follows the purge area by area. Empty between operations.
    purging: Vec<(u32, u32)>,
    purged_upto: usize,
    pub(crate) cpus: u32,
    pub(crate) cpu: u32,
    pub(crate) zone_size: u64,
    initialized: bool,
    /// The perf-mode switch has run (seeding done).
    pub(crate) perf_mode: bool,
    /// The bump overlay (trace line `bump on|off`, default on).
    pub(crate) bump_on: bool,
    /// `vmap_bump_chunks`, newest first.
    pub(crate) chunks: Vec<BumpChunk>,
    /// `vmap_bump_cur` per CPU: the base of the current chunk.
    pub(crate) bump_cur: Vec<Option<u64>>,
    pub(crate) chunks_lo: u64,
    pub(crate) chunks_hi: u64,
    /// Occupied ranges that belong to no area: the seed of §11.2.3 minus areas, minus erases.
    seed_residual: Vec<(u64, u64)>,
    /// Set when the model, following the RFC, reached a state its invariants cannot describe:
    /// two areas overlap (the overlap check missed one), or an erase took a range that was not
    /// the area's own. What happened first; `check` stops testing overlaps and the occupied
    /// tree's contents from then on.
    diverged: Option<String>,
    pub counters: RfcCounters,
    pub last_path: AllocPath,
}

impl fmt::Debug for MapleRfc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapleRfc")
            .field("cpus", &self.cpus)
            .field("cpu", &self.cpu)
            .field("bump_on", &self.bump_on)
            .field("occupied_nodes", &self.occupied.node_count())
            .field("chunks", &self.chunks.len())
            .field("vmap_lazy_nr", &self.vmap_lazy_nr)
            .finish()
    }
}

impl Default for MapleRfc {
    fn default() -> Self {
        Self::new()
    }
}

/// Lends an allocator observer to one of the profile's maple trees for one operation: the
/// tree's events go into the allocator's stream as [`Event::Maple`]. Each is handed on with the
/// index as it stands then: the occupied tree's nodes right after a gap update (one level of
/// propagation per step, as the maple-tree player shows it), else "unchanged" (inside a search,
/// or a store before its gap updates); the operation's last event gets the whole tree, which
/// the caller gives once the tree is back ([`Fwd::flush`]).
struct Fwd<'o, O: Observer> {
    obs: &'o mut O,
    tree: MapleTreeKind,
    node: u32,
    /// The last event, held until the index after it is known.
    pending: Option<MapleEvent>,
}

impl<'o, O: Observer> Fwd<'o, O> {
    fn new(obs: &'o mut O, tree: MapleTreeKind, node: u32) -> Self {
        Fwd { obs, tree, node, pending: None }
    }

    fn flush(&mut self, index: IndexView<'_>) {
        if let Some(event) = self.pending.take() {
            self.obs.event(Event::Maple { tree: self.tree, node: self.node, event }, index);
        }
    }
}

impl<O: Observer> MapleObserver for Fwd<'_, O> {
    const ON: bool = O::ON;
    const NODES: bool = O::MAPLE_NODES;

    fn event(&mut self, ev: MapleEvent) {
        self.flush(IndexView::Unchanged);
        self.pending = Some(ev);
    }

    fn nodes(&mut self, nodes: Vec<NodeSummary>, height: u32) {
        if self.tree == MapleTreeKind::Occupied {
            let snap = MapleSnap { height, nodes };
            self.flush(IndexView::MapleNodes(&snap));
        } else {
            // Only the occupied tree is the index a view draws.
            self.flush(IndexView::Unchanged);
        }
    }
}

/// Run `$body` on the maple tree at `$place` with `$obs` lent to it when the observer records
/// (`O::ON`), else on the tree as it is: `lend!(self, place, obs, kind, node, |t| body)`.
macro_rules! lend {
    ($self:ident, $place:expr, $obs:expr, $kind:expr, $node:expr, |$t:ident| $body:expr) => {{
        if O::ON {
            let tree = std::mem::take(&mut $place);
            let (mut $t, none) = tree.replace_obs(Fwd::new(&mut *$obs, $kind, $node));
            let r = $body;
            let (back, mut fwd) = $t.replace_obs(none);
            $place = back;
            if $kind == MapleTreeKind::Occupied {
                fwd.flush(IndexView::Maple(&$self.occupied));
            } else {
                fwd.flush(IndexView::Unchanged);
            }
            r
        } else {
            let $t = &mut $place;
            $body
        }
    }};
}

/// Subtract `[s, e]` (inclusive) from a sorted list of disjoint inclusive ranges.
fn subtract(list: &mut Vec<(u64, u64)>, s: u64, e: u64) {
    if !list.iter().any(|&(a, b)| a <= e && s <= b) {
        return;
    }
    let mut out = Vec::with_capacity(list.len() + 1);
    for &(a, b) in list.iter() {
        if b < s || a > e {
            out.push((a, b));
            continue;
        }
        if a < s {
            out.push((a, s - 1));
        }
        if b > e {
            out.push((e + 1, b));
        }
    }
    *list = out;
}

/// Sort inclusive ranges and join those that overlap or touch.
pub fn merge_ranges(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        if let Some(last) = out.last_mut() {
            if last.1 == ULONG_MAX || a <= last.1 + 1 {
                last.1 = last.1.max(b);
                continue;
            }
        }
        out.push((a, b));
    }
    out
}

/// The June 2026 RFC (v1, unmerged): maple trees instead of the rbtrees, the per-CPU bump
/// overlay, on the 6.9 nodes (spec §11). Its state is [`MapleRfc`], in [`Vmap`]'s `rfc`.
pub struct MapleRfcEra;

impl Era for MapleRfcEra {
    /// The whole allocator: maple-rfc keeps nothing in the shared state (its `Vmap` keeps one
    /// empty node).
    type State = Box<MapleRfc>;
    const NAME: &'static str = "maple-rfc";
    const FIRST_RELEASE: Option<(u32, u32)> = None;
    const SEARCH_RULE: SearchRule = SearchRule { adjust_search_size: true, move_vstart: true };
    const MERGE_STYLE: MergeStyle = MergeStyle::Eb;
    const PER_CPU: bool = true;
    const BUMP_OVERLAY: bool = true;
    const MODULE_TESTS: usize = 13;

    #[inline(always)]
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        Self::st_mut(&mut v.era).alloc(size, align, vstart, vend, obs)
    }

    #[inline(always)]
    fn free<const P: u8, O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        Self::st_mut(&mut v.era).free(addr, obs)
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        // maple-rfc runs its threshold purge itself, at once.
        Self::st_mut(&mut v.era).vfree(addr, obs).map(|()| Drain::None)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, _: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        let r = Self::st_mut(&mut v.era);
        let entries = if cause == PurgeCause::Reclaim { r.reclaim(obs) } else { r.purge(obs) };
        PurgeResult { entries }
    }

    fn pcpu_get_vm_areas<O: Observer>(
        v: &mut Vmap,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        Self::st_mut(&mut v.era).pcpu_get_vm_areas(offsets, sizes, align, obs)
    }

    fn lazy_areas_by_node(v: &Vmap) -> Vec<(u32, AreaInfo)> {
        Self::st(&v.era).lazy_areas_by_node()
    }

    fn maple(s: &Box<MapleRfc>) -> Option<&MapleRfc> {
        Some(s)
    }

    fn maple_mut(s: &mut Box<MapleRfc>) -> Option<&mut MapleRfc> {
        Some(s)
    }
}

impl MapleRfc {
    pub const PROFILE: Profile = Profile::MapleRfc;

    /// `occupied_vmap_area_mt`.
    pub fn occupied(&self) -> &MapleTree {
        &self.occupied
    }
    /// The occupied tree, writable, for tests that search a state of their own making. Its
    /// entries are never followed as handles (the busy trees' are), so whatever is stored here
    /// cannot reach the arena; it only makes later allocations disagree with the busy trees.
    #[doc(hidden)]
    pub fn occupied_mut(&mut self) -> &mut MapleTree {
        &mut self.occupied
    }
    /// `free_vmap_area_mt`.
    pub fn free_mt(&self) -> &MapleTree {
        &self.free_mt
    }
    pub fn arena(&self) -> &Arena<false> {
        &self.arena
    }
    pub fn nodes(&self) -> &[RfcNode] {
        &self.nodes
    }
    /// `vmap_bump_chunks`, newest first.
    pub fn chunks(&self) -> &[BumpChunk] {
        &self.chunks
    }
    /// `vmap_lazy_nr`, in pages.
    pub fn vmap_lazy_nr(&self) -> u64 {
        self.vmap_lazy_nr
    }

    pub fn new() -> Self {
        MapleRfc {
            arena: Arena::empty(),
            occupied: MapleTree::new(true),
            free_mt: MapleTree::new(true),
            next_block: 0,
            nodes: vec![RfcNode::default()],
            busy_by_start: BTreeMap::new(),
            vmap_lazy_nr: 0,
            purging: Vec::new(),
            purged_upto: 0,
            cpus: 1,
            cpu: 0,
            zone_size: 1,
            initialized: false,
            perf_mode: false,
            bump_on: true,
            chunks: Vec::new(),
            bump_cur: vec![None],
            chunks_lo: ULONG_MAX,
            chunks_hi: 0,
            seed_residual: Vec::new(),
            diverged: None,
            counters: RfcCounters::default(),
            last_path: AllocPath::None,
        }
    }

    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Whether the RFC's own gaps have let two areas overlap, or an erase take a range that
    /// was not the area's own (see [`MapleRfc::check`]); what happened first.
    pub fn diverged(&self) -> Option<&str> {
        self.diverged.as_deref()
    }

    fn diverge(&mut self, why: impl FnOnce() -> String) {
        if self.diverged.is_none() {
            self.diverged = Some(why());
        }
    }

    #[inline(always)]
    fn view(&self) -> IndexView<'_> {
        IndexView::Maple(&self.occupied)
    }

    /// `vmap_init_free_space` with an empty vmlist: the free tree holds `[start, end)`; the
    /// occupied tree is seeded later, at the perf-mode switch.
    pub fn init(&mut self, start: u64, end: u64) -> Result<(), VmapError> {
        if start >= end {
            return Err(VmapError::BadRange { start, end });
        }
        let cpus = self.cpus;
        let cpu = self.cpu;
        let bump_on = self.bump_on;
        *self = MapleRfc::new();
        self.cpus = cpus;
        self.cpu = cpu;
        self.bump_on = bump_on;
        let nr = cpus.clamp(1, MAX_NODES);
        self.nodes = (0..nr).map(|_| RfcNode { busy: MapleTree::new(false), ..Default::default() }).collect();
        self.zone_size = if nr > 1 { 16 * PAGE_SIZE } else { 1 };
        self.bump_cur = vec![None; cpus as usize];
        let id = self.new_block();
        // Cannot fail: start <= end - 1.
        let _ = self.free_mt.store_range(start, end - 1, Some(MapleEntry::Value(id)));
        self.initialized = true;
        Ok(())
    }

    fn new_block(&mut self) -> u32 {
        let id = self.next_block;
        self.next_block = self.next_block.wrapping_add(1);
        id
    }

    pub fn ensure_init(&mut self) {
        if !self.initialized {
            let _ = self.init(1, ULONG_MAX);
        }
    }

    /// Initialise if needed and run the perf-mode switch once: seed the occupied tree with the
    /// complement of the free tree inside `[VMALLOC_START, VMALLOC_END)`
    /// (`occupied_mt_seed_from_free_locked`, §11.2.3). [fact]
    pub fn ensure_perf(&mut self) {
        self.ensure_init();
        if self.perf_mode {
            return;
        }
        self.perf_mode = true;
        let mut seed = Vec::new();
        let mut cursor = VMALLOC_START;
        for (s, l, _) in self.free_mt.iter() {
            if cursor >= VMALLOC_END {
                break;
            }
            if s > cursor {
                let stop = s.min(VMALLOC_END);
                seed.push((cursor, stop - 1));
            }
            if l >= cursor {
                cursor = l.saturating_add(1);
                if l == ULONG_MAX {
                    cursor = ULONG_MAX;
                }
            }
        }
        if cursor < VMALLOC_END {
            seed.push((cursor, VMALLOC_END - 1));
        }
        for &(s, e) in &seed {
            let _ = self.occupied.store_range(s, e, Some(MapleEntry::Zero));
            self.counters.occupied_stores += 1;
        }
        // Early areas inside the window are covered by the seed; outside it they are not (S5).
        self.seed_residual = seed;
        let early: Vec<u32> = self.busy_by_start.values().copied().collect();
        for va in early {
            let (s, e) = (self.arena.get(va).va_start, self.arena.get(va).va_end);
            if s >= VMALLOC_START && e <= VMALLOC_END {
                self.arena.at(va).add_flags(F_OCC);
                subtract(&mut self.seed_residual, s, e - 1);
            }
        }
    }

    pub fn set_cpus(&mut self, n: u64) -> Result<(), VmapError> {
        if n == 0 || n > MAX_CPUS {
            return Err(VmapError::BadCpus { cpus: n });
        }
        if n <= u64::from(self.cpu) {
            return Err(VmapError::CpuOffline { cpu: self.cpu, cpus: n });
        }
        self.cpus = n as u32;
        if self.bump_cur.len() < n as usize {
            self.bump_cur.resize(n as usize, None);
        }
        Ok(())
    }

    pub fn set_cpu(&mut self, n: u64) -> Result<(), VmapError> {
        if n >= u64::from(self.cpus) {
            return Err(VmapError::BadCpu { cpu: n, cpus: self.cpus });
        }
        self.cpu = n as u32;
        if self.bump_cur.len() <= n as usize {
            self.bump_cur.resize(n as usize + 1, None);
        }
        Ok(())
    }

    /// `bump on|off`. Switching never moves an area: chunks stay until their areas go.
    pub fn set_bump(&mut self, on: bool) {
        self.bump_on = on;
    }

    /// `lazy_max_pages()` as linux-6.9.
    pub fn lazy_max_pages(&self) -> u64 {
        u64::from(fls(u64::from(self.cpus))) * (32 * 1024 * 1024 / PAGE_SIZE)
    }

    /// `addr_to_node_id` as linux-6.9.
    pub fn addr_to_node_id(&self, addr: u64) -> u32 {
        let nr = self.nodes.len() as u64;
        if nr <= 1 {
            return 0;
        }
        ((addr / self.zone_size) % nr) as u32
    }

    fn decode_vn_id(&self, flags: u32) -> Option<u32> {
        let v = flags >> VN_SHIFT;
        let id = v.wrapping_sub(1);
        (v != 0 && id < self.nodes.len() as u32).then_some(id)
    }

    fn occ_store<O: Observer>(&mut self, s: u64, e_incl: u64, entry: Option<MapleEntry>, obs: &mut O) {
        // Cannot fail: s <= e_incl.
        let _ = lend!(self, self.occupied, obs, MapleTreeKind::Occupied, 0, |t| t.store_range(s, e_incl, entry));
        self.counters.occupied_stores += 1;
        self.counters.maple_nodes_touched += self.occupied.take_touched();
        if entry.is_none() {
            subtract(&mut self.seed_residual, s, e_incl);
        }
    }

    // ------------------------------------------------------------------ allocation

    /// `find_hole_window` (§11.4.3): the lowest gap of `size` (or `size + align - 1` when
    /// `align > PAGE_SIZE`), aligned up; re-search past the hole when the aligned candidate
    /// does not fit. Each iteration is a fresh `mas_empty_area` from the root. [fact]
    ///
    /// A candidate can only miss with `align <= PAGE_SIZE` and an unaligned hole start (an
    /// unaligned `vstart` or init range); the loop then steps through the hole `len` bytes at a
    /// time and misses every time. Those steps are counted and skipped at once (same result).
    pub fn find_hole_window(&mut self, min: u64, max: u64, size: u64, align: u64) -> Option<u64> {
        self.find_hole_window_obs(min, max, size, align, &mut NoObserver)
    }

    /// [`MapleRfc::find_hole_window`], reporting each iteration (and, inside it, the maple
    /// tree's search) to `obs`.
    fn find_hole_window_obs<O: Observer>(
        &mut self,
        min: u64,
        max: u64,
        size: u64,
        align: u64,
        obs: &mut O,
    ) -> Option<u64> {
        let len = if align > PAGE_SIZE { size.checked_add(align - 1)? } else { size };
        if O::ON {
            obs.event(
                Event::WindowStart {
                    size: Addr(size),
                    align: Addr(align),
                    min: Addr(min),
                    max: Addr(max),
                    len: Addr(len),
                },
                self.view(),
            );
        }
        let mut search = min;
        let mut iteration = 0u32;
        while search <= max {
            self.counters.window_iterations += 1;
            iteration = iteration.saturating_add(1);
            let r = lend!(self, self.occupied, obs, MapleTreeKind::Occupied, 0, |t| t.empty_area(search, max, len));
            self.counters.maple_nodes_touched += self.occupied.take_touched();
            let (index, last) = r.ok()?;
            let hole_end = last.min(max);
            let cand = align_up(index, align);
            let cand_end = if cand < index { None } else { cand.checked_add(size - 1) };
            let fits = cand_end.is_some_and(|ce| cand >= search && ce <= hole_end);
            let report = |obs: &mut O, this: &Self, next: Option<u64>, skipped: u32| {
                if O::ON {
                    let ev = Event::WindowHole {
                        iteration,
                        search: Addr(search),
                        index: Addr(index),
                        hole_end: Addr(hole_end),
                        candidate: Addr(cand),
                        cand_end: Addr(cand_end.unwrap_or(ULONG_MAX)),
                        fits,
                        next: next.map(Addr),
                        skipped,
                    };
                    obs.event(ev, this.view());
                }
            };
            let Some(cand_end) = cand_end else {
                report(obs, self, None, 0);
                return None;
            };
            if fits {
                report(obs, self, None, 0);
                return Some(cand);
            }
            let _ = cand_end;
            if hole_end == ULONG_MAX {
                report(obs, self, None, 0);
                return None;
            }
            // The next searches start at index + k * len inside the same NULL range, with the
            // same misalignment (len is a page multiple, align divides PAGE_SIZE), and miss too
            // until the rest of the range is shorter than len.
            let (_, null_end, _) = self.occupied.range_at(index);
            let he = null_end.min(max);
            let steps = ((he - index) as u128 + 1) / len as u128;
            if steps > 1 {
                self.counters.window_iterations += (steps - 1) as u64;
                let next = index as u128 + steps * len as u128;
                if next > u128::from(ULONG_MAX) {
                    report(obs, self, None, (steps - 1).min(u128::from(u32::MAX)) as u32);
                    return None;
                }
                report(obs, self, Some(next as u64), (steps - 1).min(u128::from(u32::MAX)) as u32);
                search = next as u64;
            } else {
                report(obs, self, Some(hole_end + 1), 0);
                search = hole_end + 1;
            }
        }
        if O::ON {
            obs.event(Event::SearchNone, self.view());
        }
        None
    }

    /// `__alloc_vmap_area` in perf mode (§11.4.2): the address, not yet stored. [fact]
    ///
    /// The argument checks come first: `vstart >= vend` (so also `vend == 0`, where
    /// `vend - 1` would wrap to ULONG_MAX) is refused with a WARN and -EINVAL (added by patch
    /// 05, kept above the perf-mode branch by patch 07), `size > vend - vstart` with -ENOENT;
    /// `alloc_vmap_area` then purges and retries as for any failure. [fact, RFC-5/7]
    fn __alloc_vmap_area<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Option<u64> {
        if vstart >= vend || size > vend - vstart {
            return None;
        }
        let addr = self.find_hole_window_obs(vstart, vend - 1, size, align, obs)?;
        addr.checked_add(size)?;
        Some(addr)
    }

    /// A busy area overlapping `[s, e)` in any node's busy tree, if there is one.
    fn busy_overlap(&self, s: u64, e: u64) -> Option<(u64, u64)> {
        if let Some((_, &va)) = self.busy_by_start.range(..e).next_back() {
            let v = self.arena.get(va);
            if v.va_end > s {
                return Some((v.va_start, v.va_end));
            }
        }
        None
    }

    /// `validate_vmap_area_range_insert_mt_locked` on the busy tree of node `nid`: the entry at
    /// or below `s` (`mas_find_rev`) must end by `s`, the first entry from `s` on (`mas_find`)
    /// must start at `e` or later. Together: `[s, e - 1]` is all NULL in that one tree. Returns
    /// the overlapping area. [fact, RFC-4]
    fn busy_overlap_in_node(&self, nid: usize, s: u64, e: u64) -> Option<(u64, u64)> {
        let tree = &self.nodes[nid].busy;
        let (_, last, entry) = tree.range_at(s);
        let hit = match entry {
            Some(_) => Some(s),
            None if last < e - 1 => Some(last + 1),
            None => None,
        }?;
        match tree.range_at(hit) {
            (a, l, Some(_)) => Some((a, l.wrapping_add(1))),
            _ => None,
        }
    }

    /// The check `insert_vmap_area_busy_locked` makes before it inserts `[s, e)`, in the busy
    /// tree of `addr_to_node(s)` only (§11.4.1). An overlap there is the syzbot WARN: the
    /// allocation fails (patch 05 returns -ENOMEM after a rollback; here nothing changes). An
    /// overlap with an area another node's tree keeps is not seen: the insert goes ahead, and
    /// the model says so ([`Event::BusyOverlapMissed`]).
    fn busy_insert_check<O: Observer>(&mut self, s: u64, e: u64, obs: &mut O) -> Result<(), VmapError> {
        let nid = self.addr_to_node_id(s) as usize;
        if let Some(other) = self.busy_overlap_in_node(nid, s, e) {
            self.counters.overlap_warnings += 1;
            return Err(VmapError::BusyOverlap { start: s, end: e, other });
        }
        if let Some((os, oe)) = self.busy_overlap(s, e) {
            let other_node = self.addr_to_node_id(os);
            self.counters.overlaps_missed += 1;
            self.diverge(|| {
                format!("[{s:#x}, {e:#x}) was inserted over the busy area [{os:#x}, {oe:#x}) of node {other_node}")
            });
            if O::ON {
                let ev = Event::BusyOverlapMissed {
                    start: Addr(s),
                    end: Addr(e),
                    node: nid as u32,
                    other_start: Addr(os),
                    other_end: Addr(oe),
                    other_node,
                };
                obs.event(ev, self.view());
            }
        }
        Ok(())
    }

    /// A NULL store over the range of an area that goes (`free_vmap_area`, or
    /// `reclaim_list_global` with the occupied erase). The kernel stores NULL whatever the tree
    /// holds there; when the area's range was not one of its own (a pool hit of a bump area
    /// re-used it) and the tree held something, the store takes what is not the area's.
    fn note_foreign_erase(&mut self, v: &crate::area::VmapArea) {
        if v.flags() & F_OCC != 0 {
            return;
        }
        let (s, l) = (v.va_start, v.va_end - 1);
        let (_, last, entry) = self.occupied.range_at(s);
        if entry.is_some() || last < l {
            self.diverge(|| format!("the erase of [{s:#x}, {:#x}) took occupied space not its own", v.va_end));
        }
    }

    /// `insert_vmap_area_busy_locked`: into the node of `va_start`.
    fn busy_insert<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let s = self.busy_store(va, obs);
        self.busy_by_start.insert(s, va);
    }

    /// The busy tree's half of [`MapleRfc::busy_insert`] (the store); returns `va_start`. The
    /// caller puts the area in `busy_by_start`.
    fn busy_store<O: Observer>(&mut self, va: u32, obs: &mut O) -> u64 {
        let (s, e) = (self.arena.get(va).va_start, self.arena.get(va).va_end);
        let nid = self.addr_to_node_id(s) as usize;
        let entry = Some(MapleEntry::Value(va));
        let _ =
            lend!(self, self.nodes[nid].busy, obs, MapleTreeKind::Busy, nid as u32, |t| t.store_range(s, e - 1, entry));
        self.counters.maple_nodes_touched += self.nodes[nid].busy.take_touched();
        s
    }

    /// Many areas into `busy_by_start` at once (a pcpu carve at least as big as the index;
    /// distinct starts): one merge (`BTreeMap::append`, linear) instead of a search from the
    /// root per area; the index ends the same. Not generic, out of line: one copy.
    #[inline(never)]
    fn busy_index_extend(&mut self, batch: Vec<(u64, u32)>) {
        let mut more: BTreeMap<u64, u32> = batch.into_iter().collect();
        self.busy_by_start.append(&mut more);
    }

    fn vmap_bump_eligible(size: u64, align: u64, vstart: u64, vend: u64) -> bool {
        vstart == VMALLOC_START
            && vend == VMALLOC_END
            && size > 0
            && size.is_multiple_of(PAGE_SIZE)
            && size <= VMAP_BUMP_MAX
            && align > 0
            && align <= VMAP_BUMP_MAX
    }

    fn chunk_index(&self, base: u64) -> Option<usize> {
        self.chunks.iter().position(|c| c.base == base)
    }

    /// `vmap_bump_alloc` on this CPU's current chunk (§11.5.3). [fact]
    fn bump_try<O: Observer>(&mut self, size: u64, align: u64, obs: &mut O) -> Option<u64> {
        let cur = self.bump_cur.get(self.cpu as usize).copied().flatten();
        let miss = |this: &Self, obs: &mut O| {
            if O::ON {
                obs.event(
                    Event::BumpMiss { cpu: this.cpu, base: cur.map(Addr), size: Addr(size), align: Addr(align) },
                    this.view(),
                );
            }
        };
        let Some(ci) = cur.and_then(|base| self.chunk_index(base)) else {
            miss(self, obs);
            return None;
        };
        let c = &self.chunks[ci];
        let a = align_up(c.bump, align);
        let end = if a < c.base { None } else { a.checked_add(size).filter(|&e| e <= c.limit) };
        let Some(end) = end else {
            miss(self, obs);
            return None;
        };
        let va = self.arena.alloc(a, end);
        let nid = self.addr_to_node_id(a);
        self.arena.at(va).set_flags(((nid + 1) << VN_SHIFT) | VA_FROM_BUMP_CHUNK);
        let c = &mut self.chunks[ci];
        c.bump = end;
        c.alloced += size >> PAGE_SHIFT;
        c.page_va.insert(a, va);
        if O::ON {
            let (base, bump, pages) = (c.base, c.bump, c.alloced);
            let id = self.arena.get(va).id;
            obs.event(
                Event::BumpHit {
                    id,
                    cpu: self.cpu,
                    base: Addr(base),
                    addr: Addr(a),
                    size: Addr(size),
                    bump: Addr(bump),
                    pages,
                },
                self.view(),
            );
        }
        Some(a)
    }

    /// `vmap_bump_refill` (§11.5.4): one 64 MiB XA_ZERO range from the ordinary gap search, a
    /// new chunk at the head of the list, current for this CPU; the old one is retired. [fact]
    fn bump_refill<O: Observer>(&mut self, obs: &mut O) -> bool {
        let Some(base) = self.__alloc_vmap_area(VMAP_BUMP_CHUNK_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END, obs)
        else {
            return false;
        };
        let limit = base + VMAP_BUMP_CHUNK_SIZE;
        self.occ_store(base, limit - 1, Some(MapleEntry::Zero), obs);
        let retired = self.bump_cur.get(self.cpu as usize).copied().flatten();
        let chunk = BumpChunk { base, limit, bump: base, alloced: 0, owner_cpu: self.cpu, page_va: BTreeMap::new() };
        self.chunks.insert(0, chunk);
        self.chunks_lo = self.chunks_lo.min(base);
        self.chunks_hi = self.chunks_hi.max(limit);
        let cpu = self.cpu as usize;
        if self.bump_cur.len() <= cpu {
            self.bump_cur.resize(cpu + 1, None);
        }
        self.bump_cur[cpu] = Some(base);
        self.counters.refills += 1;
        if O::ON {
            obs.event(
                Event::BumpRefill { cpu: self.cpu, base: Addr(base), limit: Addr(limit), retired: retired.map(Addr) },
                self.view(),
            );
        }
        true
    }

    /// `alloc_vmap_area` at HEAD (§11.4.1): bump fast path, pools, then the global path with
    /// the busy-tree overlap check and one purge-and-retry.
    pub fn alloc<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        self.ensure_perf();
        super::check_request(Self::PROFILE, size, align)?;
        self.last_path = AllocPath::None;
        if self.bump_on && Self::vmap_bump_eligible(size, align, vstart, vend) {
            let mut got = self.bump_try(size, align, obs);
            if got.is_none() {
                self.counters.bump_misses += 1;
                if self.bump_refill(obs) {
                    got = self.bump_try(size, align, obs);
                }
            }
            if let Some(a) = got {
                self.counters.bump_hits += 1;
                self.last_path = AllocPath::Bump;
                if O::ON {
                    let id = self.chunks.iter().find_map(|c| c.page_va.get(&a)).map_or(0, |&va| self.arena.get(va).id);
                    obs.event(Event::Allocated { id, addr: Addr(a), size: Addr(size) }, self.view());
                }
                return Ok(a);
            }
        }
        let mut vn_flags = 0;
        if vstart == VMALLOC_START && vend == VMALLOC_END && self.nodes.len() > 1 {
            let nid = self.cpu % self.nodes.len() as u32;
            vn_flags = (nid + 1) << VN_SHIFT;
            if let Some(va) = self.node_pool_del_va(nid, size, align, vstart, vend) {
                let v = *self.arena.get(va);
                // The insert checks the target node's busy tree here too.
                if let Err(e) = self.busy_insert_check(v.va_start, v.va_end, obs) {
                    self.node_pool_undo_del(nid, va);
                    return Err(e);
                }
                // alloc_vmap_area sets `va->flags = va_flags | vn_id`: a bump area taken from a
                // pool loses VA_FROM_BUMP_CHUNK. Its range was never an occupied range of its
                // own: its chunk's covers it while the chunk lives; after the chunk's release
                // nothing holds it, and the allocator may hand it out again.
                if v.flags() & VA_FROM_BUMP_CHUNK != 0
                    && !self.chunks.iter().any(|c| c.base <= v.va_start && v.va_end <= c.limit)
                {
                    self.diverge(|| {
                        format!(
                            "the pool handed out [{:#x}, {:#x}), a bump area whose chunk was released: the occupied tree does not hold it",
                            v.va_start, v.va_end
                        )
                    });
                }
                self.arena.at(va).set_flags(vn_flags | (v.flags() & F_OCC));
                self.busy_insert(va, obs);
                self.counters.pool_hits += 1;
                self.last_path = AllocPath::Pool;
                if O::ON {
                    obs.event(Event::Allocated { id: v.id, addr: Addr(v.va_start), size: Addr(size) }, self.view());
                }
                return Ok(v.va_start);
            }
        }
        let search = |r: &mut MapleRfc, obs: &mut O| -> Result<Option<u64>, VmapError> {
            let Some(addr) = r.__alloc_vmap_area(size, align, vstart, vend, obs) else {
                return Ok(None);
            };
            let end = addr + size;
            // The WARN of `[SYZ]` when the occupied tree offered a range the target node's
            // busy tree holds (checked before the store here; nothing changes).
            r.busy_insert_check(addr, end, obs)?;
            r.occ_store(addr, end - 1, Some(MapleEntry::Zero), obs);
            let va = r.arena.alloc(addr, end);
            r.arena.at(va).set_flags(vn_flags | F_OCC);
            r.busy_insert(va, obs);
            r.last_path = AllocPath::Global;
            if O::ON {
                let id = r.arena.get(va).id;
                obs.event(Event::Allocated { id, addr: Addr(addr), size: Addr(size) }, r.view());
            }
            Ok(Some(addr))
        };
        let purge = |r: &mut MapleRfc, obs: &mut O| -> Result<(), VmapError> {
            r.purge_nodes(true, PurgeCause::AllocRetry, obs);
            Ok(())
        };
        search_purge_retry(self, [size, align, vstart, vend], obs, search, purge, MapleRfc::view)
    }

    /// An allocation before the perf-mode switch (the legacy path, §11.4.4): a linear walk of
    /// the free tree from `vstart` testing `is_within_this_va`, `va_clip` as sub-range stores,
    /// a busy insert; the occupied tree does not exist yet. [fact, RFC-4/6]
    pub fn alloc_early(&mut self, size: u64, align: u64, vstart: u64, vend: u64) -> Result<u64, VmapError> {
        self.ensure_init();
        if self.perf_mode {
            return Err(VmapError::Unsupported {
                why: "an early allocation must come before every other operation (the perf-mode switch runs at the first one)"
                    .into(),
            });
        }
        super::check_request(Self::PROFILE, size, align)?;
        self.last_path = AllocPath::None;
        let no_space = Err(VmapError::NoSpace { size, align, vstart, vend });
        let mut found = None;
        for (s, l, _) in self.free_mt.iter() {
            if l < vstart {
                continue;
            }
            let end = l.saturating_add(1);
            let nva = align_up(s.max(vstart), align);
            if nva < vstart || nva < s {
                continue;
            }
            match nva.checked_add(size) {
                Some(e) if e <= end => {
                    found = Some((s, l, nva));
                    break;
                }
                _ => {}
            }
        }
        let Some((s, l, nva)) = found else {
            return no_space;
        };
        let e = nva + size;
        if e > vend {
            return no_space;
        }
        if let Some(other) = self.busy_overlap(nva, e) {
            return Err(VmapError::BusyOverlap { start: nva, end: e, other });
        }
        self.va_clip(s, l, nva, size);
        let va = self.arena.alloc(nva, e);
        // `node_alloc` runs before the perf-mode switch as after it: in the default window with
        // several nodes the area records this CPU's node, whose lazy list and pools it reaches
        // when freed (the pools are empty this early, so it is no pool hit). [infer]
        if vstart == VMALLOC_START && vend == VMALLOC_END && self.nodes.len() > 1 {
            let nid = self.cpu % self.nodes.len() as u32;
            self.arena.at(va).set_flags((nid + 1) << VN_SHIFT);
        }
        self.busy_insert(va, &mut NoObserver);
        self.last_path = AllocPath::Legacy;
        Ok(nva)
    }

    /// `va_clip` on the free tree as sub-range stores (§11.4.4): block `[s, l]` loses
    /// `[nva, nva + size)`. [fact, RFC-6]
    fn va_clip(&mut self, s: u64, l: u64, nva: u64, size: u64) {
        let e = nva + size - 1;
        if nva == s && e == l {
            let _ = self.free_mt.store_range(s, l, None);
        } else if nva == s {
            let _ = self.free_mt.store_range(s, e, None);
        } else if e == l {
            let _ = self.free_mt.store_range(nva, l, None);
        } else {
            let lva = self.new_block();
            let _ = self.free_mt.store_range(s, nva - 1, Some(MapleEntry::Value(lva)));
            let _ = self.free_mt.store_range(nva, e, None);
        }
        self.counters.maple_nodes_touched += self.free_mt.take_touched();
    }

    fn node_pool_del_va(&mut self, nid: u32, size: u64, align: u64, vstart: u64, vend: u64) -> Option<u32> {
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        if size == 0 || idx >= MAX_VA_SIZE_PAGES {
            return None;
        }
        let va = self.nodes[nid as usize].pools.get(idx).and_then(|p| p.front().copied())?;
        let v = *self.arena.get(va);
        let pool = &mut self.nodes[nid as usize].pools[idx];
        if v.va_start & align.wrapping_sub(1) == 0 {
            if v.size() != size || v.va_start < vstart || v.va_end > vend {
                return None;
            }
            pool.pop_front();
            self.arena.at(va).clear_flags(F_POOLED);
            Some(va)
        } else {
            pool.pop_front();
            pool.push_back(va);
            None
        }
    }

    /// Put back an entry `node_pool_del_va` just took (the insert after it was refused).
    fn node_pool_undo_del(&mut self, nid: u32, va: u32) {
        let idx = ((self.arena.get(va).size() - 1) / PAGE_SIZE) as usize;
        self.nodes[nid as usize].pools[idx].push_front(va);
        self.arena.at(va).add_flags(F_POOLED);
    }

    // ------------------------------------------------------------------ free paths

    /// The chunk holding `addr`: fast reject on lo/hi, this CPU's current chunk, then the list
    /// walk newest first (§11.5.5). [fact]
    fn vmap_chunk_lookup<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Option<usize> {
        if addr < self.chunks_lo || addr >= self.chunks_hi {
            self.counters.fast_reject_hits += 1;
            if O::ON {
                obs.event(
                    Event::BumpFastReject { addr: Addr(addr), lo: Addr(self.chunks_lo), hi: Addr(self.chunks_hi) },
                    self.view(),
                );
            }
            return None;
        }
        if let Some(base) = self.bump_cur.get(self.cpu as usize).copied().flatten() {
            if let Some(ci) = self.chunk_index(base) {
                if base <= addr && addr < self.chunks[ci].limit {
                    return Some(ci);
                }
            }
        }
        for (i, c) in self.chunks.iter().enumerate() {
            self.counters.chunk_walk_steps += 1;
            if c.base <= addr && addr < c.limit {
                return Some(i);
            }
        }
        None
    }

    /// The bump area holding `addr` (any interior address): `(chunk, area)`.
    fn bump_area_at(&self, ci: usize, addr: u64) -> Option<u32> {
        let (_, &va) = self.chunks[ci].page_va.range(..=addr).next_back()?;
        (self.arena.get(va).va_end > addr).then_some(va)
    }

    /// `find_unlink_vmap_area`: the bump unlink, else one erase in the busy trees. Returns
    /// the area; nothing changes on `Err`.
    fn find_unlink<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<u32, VmapError> {
        let mut interior = None;
        if let Some(ci) = self.vmap_chunk_lookup(addr, obs) {
            if let Some(va) = self.bump_area_at(ci, addr) {
                let v = *self.arena.get(va);
                if v.va_start == addr {
                    let c = &mut self.chunks[ci];
                    c.page_va.remove(&addr);
                    c.alloced -= v.size() >> PAGE_SHIFT;
                    let (alloced, base, limit, owner) = (c.alloced, c.base, c.limit, c.owner_cpu);
                    let current = self.bump_cur.get(owner as usize).copied().flatten() == Some(base);
                    if O::ON {
                        let ev = Event::BumpUnlink {
                            id: v.id,
                            base: Addr(base),
                            va_start: Addr(v.va_start),
                            va_end: Addr(v.va_end),
                            pages: alloced,
                        };
                        obs.event(ev, self.view());
                    }
                    if alloced == 0 && !current {
                        // Release: the whole 64 MiB goes back now, before the lazy purge.
                        self.chunks.remove(ci);
                        if O::ON {
                            // This chunk's areas still waiting for the purge (and the TLB flush).
                            let lazy_pending = self
                                .nodes
                                .iter()
                                .flat_map(|n| n.lazy.iter())
                                .filter(|&&x| {
                                    let a = self.arena.get(x);
                                    a.flags() & VA_FROM_BUMP_CHUNK != 0 && base <= a.va_start && a.va_end <= limit
                                })
                                .count() as u32;
                            obs.event(
                                Event::BumpRelease { base: Addr(base), limit: Addr(limit), lazy_pending },
                                self.view(),
                            );
                        }
                        self.occ_store(base, limit - 1, None, obs);
                        self.counters.released_before_flush += 1;
                    }
                    return Ok(va);
                }
                // An interior address falls through to the busy trees, which lack it. [infer]
                interior = Some((v.va_start, v.va_end));
            }
        }
        if let Some(&va) = self.busy_by_start.get(&addr) {
            let v = *self.arena.get(va);
            let nid = self.addr_to_node_id(v.va_start) as usize;
            let (s, l) = (v.va_start, v.va_end - 1);
            let _ = lend!(self, self.nodes[nid].busy, obs, MapleTreeKind::Busy, nid as u32, |t| t.erase_range(s, l));
            self.counters.maple_nodes_touched += self.nodes[nid].busy.take_touched();
            self.busy_by_start.remove(&addr);
            return Ok(va);
        }
        if interior.is_none() {
            interior = self.busy_overlap(addr, addr.saturating_add(1));
        }
        Err(VmapError::UnknownFree { addr, interior_of: interior })
    }

    /// `free_vmap_area`: the range leaves the occupied tree at once (a bump area's range is
    /// part of its chunk and stays [choice]); the object is freed.
    pub fn free<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        self.ensure_perf();
        let va = self.find_unlink(addr, obs)?;
        let v = *self.arena.get(va);
        if v.flags() & VA_FROM_BUMP_CHUNK == 0 {
            self.note_foreign_erase(&v);
            self.occ_store(v.va_start, v.va_end - 1, None, obs);
        }
        self.arena.release(va);
        Ok(())
    }

    /// `vfree`: unlink, then onto the node's lazy list; the range stays occupied until the
    /// purge. The drain threshold as linux-6.9. [fact, RFC-6]
    pub fn vfree<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        self.ensure_perf();
        if addr & (PAGE_SIZE - 1) != 0 {
            return Err(VmapError::UnalignedFree { addr });
        }
        let va = self.find_unlink(addr, obs)?;
        let v = *self.arena.get(va);
        let nid = match self.decode_vn_id(v.flags()) {
            Some(id) => id as usize,
            None => self.addr_to_node_id(v.va_start) as usize,
        };
        self.arena.at(va).add_flags(F_LAZY);
        self.nodes[nid].lazy.push(va);
        let nr_lazy = self.vmap_lazy_nr + (v.size() >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        let lazy_max = self.lazy_max_pages();
        if O::ON {
            let ev = Event::LazyEnqueue {
                id: v.id,
                va_start: Addr(v.va_start),
                va_end: Addr(v.va_end),
                nr_lazy: Hex(nr_lazy),
                lazy_max,
            };
            obs.event(ev, self.view());
        }
        if nr_lazy > lazy_max {
            self.purge_nodes(false, PurgeCause::Threshold, obs);
        }
        Ok(())
    }

    /// A forced purge (the drain path).
    pub fn purge<O: Observer>(&mut self, obs: &mut O) -> u32 {
        self.ensure_perf();
        self.purge_nodes(false, PurgeCause::Forced, obs)
    }

    /// `reclaim_and_purge_vmap_areas`: full decay.
    pub fn reclaim<O: Observer>(&mut self, obs: &mut O) -> u32 {
        self.ensure_perf();
        self.purge_nodes(true, PurgeCause::Reclaim, obs)
    }

    /// `reclaim_list_global` at HEAD: NULL over each range in list order (bump areas skipped:
    /// their range is part of a chunk), then the object is freed. [fact, RFC-11]
    fn reclaim_list_global<O: Observer>(&mut self, list: &[u32], obs: &mut O) {
        for &va in list {
            let v = *self.arena.get(va);
            if v.flags() & VA_FROM_BUMP_CHUNK == 0 {
                self.note_foreign_erase(&v);
                self.occ_store(v.va_start, v.va_end - 1, None, obs);
            }
            self.arena.release(va);
        }
    }

    /// `decay_va_pool_node` with the 2025 rounding (§11.1: the RFC's base is a 2026 tree): a
    /// quarter of each pool, rounded down, all of it when `full`; a pool of 1-3 entries keeps
    /// them on a plain purge, and what is kept stays at the pool's head in its order
    /// (the kernel's own since 2025). The taken ranges, sorted and joined where adjacent as 6.9's
    /// decay tree does, become NULL in the occupied tree [choice: erase on decay, §11.6]; a
    /// bump area's is skipped (`reclaim_list_global`), its object is freed.
    fn decay_va_pool_node<O: Observer>(&mut self, nid: usize, full: bool, obs: &mut O) {
        let mut taken = Vec::new();
        for idx in 0..self.nodes[nid].pools.len() {
            let len = self.nodes[nid].pools[idx].len();
            if len == 0 {
                continue;
            }
            let n = if full { len } else { len >> 2 };
            taken.extend(self.nodes[nid].pools[idx].drain(..n));
        }
        if taken.is_empty() {
            return;
        }
        let mut ranges: Vec<(u64, u64)> = Vec::with_capacity(taken.len());
        for &va in &taken {
            let v = *self.arena.get(va);
            if v.flags() & VA_FROM_BUMP_CHUNK == 0 {
                self.note_foreign_erase(&v);
                ranges.push((v.va_start, v.va_end - 1));
            }
        }
        for va in taken {
            self.arena.release(va);
        }
        for (s, e) in merge_ranges(ranges) {
            self.occ_store(s, e, None, obs);
        }
    }

    /// `__purge_vmap_area_lazy`: decay every node's pools, then each node's lazy list in order:
    /// into its pool (`purge_vmap_node`: a valid node id, at most 256 pages, not when `full`;
    /// bump areas too, since patch 11 encodes their node id for this [infer]) or back to free
    /// space.
    fn purge_nodes<O: Observer>(&mut self, full: bool, cause: PurgeCause, obs: &mut O) -> u32 {
        self.counters.purges += 1;
        let total: usize = self.nodes.iter().map(|n| n.lazy.len()).sum();
        if O::ON {
            obs.event(Event::PurgeStart { cause, count: total as u32 }, self.view());
        }
        let mut lists = Vec::with_capacity(self.nodes.len());
        for nid in 0..self.nodes.len() {
            self.decay_va_pool_node(nid, full, obs);
            lists.push(std::mem::take(&mut self.nodes[nid].lazy));
        }
        if O::ON {
            self.purging =
                lists.iter().enumerate().flat_map(|(nid, l)| l.iter().map(move |&va| (nid as u32, va))).collect();
            self.purged_upto = 0;
        }
        let mut count = 0u32;
        for (nid, list) in lists.into_iter().enumerate() {
            let mut local = Vec::new();
            for va in list {
                let v = *self.arena.get(va);
                self.vmap_lazy_nr -= v.size() >> PAGE_SHIFT;
                count += 1;
                if O::ON {
                    // Off the purge list: no longer drawn lazy (pooled next, or its range made
                    // NULL by reclaim_list_global below).
                    self.purged_upto += 1;
                    obs.areas_event(Event::PurgeArea { va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, self);
                }
                let idx = (v.size().wrapping_sub(1) / PAGE_SIZE) as usize;
                if !full && self.decode_vn_id(v.flags()).is_some() && idx < MAX_VA_SIZE_PAGES {
                    let pools = &mut self.nodes[nid].pools;
                    if pools.len() <= idx {
                        pools.resize_with(MAX_VA_SIZE_PAGES, VecDeque::new);
                    }
                    pools[idx].push_front(va);
                    self.arena.at(va).set_flags((v.flags() & !F_LAZY) | F_POOLED);
                    if O::ON {
                        obs.areas_event(Event::pooled(nid, idx, &v), self);
                    }
                    continue;
                }
                local.push(va);
            }
            self.reclaim_list_global(&local, obs);
        }
        if O::ON {
            self.purging.clear();
            self.purged_upto = 0;
            obs.event(Event::PurgeEnd { purged: count }, self.view());
        }
        count
    }

    // ------------------------------------------------------------------ pcpu

    /// `pcpu_get_vm_areas` against the stale free tree (§11.7): the linux-6.9 walk over the
    /// free blocks, then each area is clipped from the free tree and stored in the occupied
    /// tree. A carve the occupied tree already holds is refused with the typed
    /// "stale free tree overlap" error, and nothing changes. [choice] The arguments are
    /// checked as in every era ([`super::pcpu_check_args`]).
    pub fn pcpu_get_vm_areas<O: Observer>(
        &mut self,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        self.ensure_perf();
        let last_area = super::pcpu_check_args(offsets, sizes, align)?;
        let vs = align_up(VMALLOC_START, align);
        let ve = VMALLOC_END & !(align - 1);
        let last_end = offsets[last_area] + sizes[last_area];
        // The state before the purge of the retry, put back if the group is then refused;
        // before that purge nothing has changed, so no copy is needed.
        let mut before: Option<Box<Self>> = None;
        let restore = |this: &mut Self, before: &mut Option<Box<Self>>| {
            if let Some(b) = before.take() {
                *this = *b;
            }
        };
        loop {
            match self.pcpu_place(offsets, sizes, align, last_area, vs, ve) {
                Err(e) => {
                    restore(self, &mut before);
                    return Err(e);
                }
                Ok(Some(base)) => {
                    let carved: Vec<u64> = offsets.iter().map(|&o| base.wrapping_add(o)).collect();
                    if let Err(e) = self.pcpu_check_carve(&carved, sizes) {
                        restore(self, &mut before);
                        if matches!(e, VmapError::BusyOverlap { .. }) {
                            self.counters.overlap_warnings += 1;
                        }
                        return Err(e);
                    }
                    // Room for the nodes the carve's stores make (each area adds at most two
                    // ranges to each tree), so the arenas do not grow by doubling copies.
                    let nodes_for = |n: usize| n / 4 + 8;
                    self.free_mt.reserve_nodes(nodes_for(carved.len()));
                    self.occupied.reserve_nodes(nodes_for(carved.len()));
                    if self.nodes.len() == 1 {
                        self.nodes[0].busy.reserve_nodes(nodes_for(carved.len()));
                    }
                    // The upper part `[first, last]` of the free block the last clip cut: still
                    // one range of the free tree, with the block's entry (no clip stores there).
                    let mut rest: Option<(u64, u64)> = None;
                    // busy_by_start is read by nothing below: for a big group, filled once after
                    // the stores.
                    let bulk = carved.len() >= self.busy_by_start.len();
                    let mut batch = Vec::with_capacity(if bulk { carved.len() } else { 0 });
                    for (i, &s) in carved.iter().enumerate() {
                        let size = sizes[i];
                        let e = s + size - 1;
                        // Checked by pcpu_place: every area lies inside one free block.
                        let (bs, bl, block) = match rest {
                            Some((rs, rl)) if rs <= s && e <= rl => (rs, rl, true),
                            _ => {
                                let (bs, bl, b) = self.free_mt.range_at(s);
                                (bs, bl, b.is_some())
                            }
                        };
                        rest = None;
                        if block && e <= bl {
                            self.va_clip(bs, bl, s, size);
                            if e < bl {
                                rest = Some((e + 1, bl));
                            }
                        }
                        self.occ_store(s, s + size - 1, Some(MapleEntry::Zero), obs);
                        let va = self.arena.alloc(s, s + size);
                        self.arena.at(va).set_flags(F_OCC);
                        let start = self.busy_store(va, obs);
                        if bulk {
                            batch.push((start, va));
                        } else {
                            self.busy_by_start.insert(start, va);
                        }
                        if O::ON {
                            obs.event(
                                Event::PcpuArea { index: i as u32, addr: Addr(s), size: Addr(size) },
                                self.view(),
                            );
                        }
                    }
                    if bulk {
                        self.busy_index_extend(batch);
                    }
                    return Ok(carved);
                }
                Ok(None) => {
                    if before.is_some() {
                        if O::ON {
                            obs.event(Event::AllocFailed { size: Addr(last_end) }, self.view());
                        }
                        return Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
                    }
                    before = Some(Box::new(self.clone()));
                    self.purge_nodes(true, PurgeCause::AllocRetry, obs);
                }
            }
        }
    }

    /// The free tree's blocks `(first, last)` in address order.
    pub fn free_blocks(&self) -> Vec<(u64, u64)> {
        self.free_mt.iter().map(|(s, l, _)| (s, l)).collect()
    }

    /// A carve's areas checked before anything changes: none may meet a range of the occupied
    /// tree or a busy area. Both are asked once over the span of the group [lo, hi) first, and
    /// an area's answer is read from that where it follows:
    /// * occupied: the first range meeting the span is (os, ol), all NULL below it from lo; an
    ///   area ending by os meets nothing, an area starting by ol (and ending past os) meets
    ///   that same range first.
    /// * busy: `busy_overlap` looks at the area starting last below the end. The one below hi
    ///   starts at k: no area starts in (k, hi), so for an area ending past k it is that one.
    ///
    /// Not generic over the observer, and kept out of line: one copy in every build.
    #[inline(never)]
    fn pcpu_check_carve(&self, carved: &[u64], sizes: &[u64]) -> Result<(), VmapError> {
        let lo = carved.iter().copied().min().unwrap_or(0);
        let hi = carved.iter().zip(sizes).map(|(&s, &sz)| s + sz).max().unwrap_or(0);
        let occ = self.occupied_overlap(lo, hi);
        let last_below = self.busy_by_start.range(..hi).next_back().map(|(&k, &va)| {
            let v = self.arena.get(va);
            (k, v.va_start, v.va_end)
        });
        for (i, &s) in carved.iter().enumerate() {
            let e = s + sizes[i];
            let hit = match occ {
                None => None,
                Some((os, _)) if e <= os => None,
                Some((os, ol)) if s <= ol => Some((os, ol)),
                Some(_) => self.occupied_overlap(s, e),
            };
            if let Some((os, ol)) = hit {
                return Err(VmapError::StaleFreeOverlap { start: s, end: e, occupied: (os, ol + 1) });
            }
            let other = match last_below {
                None => None,
                Some((k, vs, ve)) if e > k => (ve > s).then_some((vs, ve)),
                Some(_) => self.busy_overlap(s, e),
            };
            if let Some(other) = other {
                return Err(VmapError::BusyOverlap { start: s, end: e, other });
            }
        }
        Ok(())
    }

    /// The first occupied range `(first, last)` meeting `[s, e)`, if any.
    fn occupied_overlap(&self, s: u64, e: u64) -> Option<(u64, u64)> {
        let mut x = s;
        while x < e {
            let (lo, hi, ent) = self.occupied.range_at(x);
            if ent.is_some() {
                return Some((lo, hi));
            }
            x = hi.checked_add(1)?;
        }
        None
    }

    /// The base of the group (the 6.9 walk downwards over the free blocks), or `None`.
    fn pcpu_place(
        &self,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        last_area: usize,
        vs: u64,
        ve: u64,
    ) -> Result<Option<u64>, VmapError> {
        let nr = offsets.len();
        let last_end = offsets[last_area] + sizes[last_area];
        // Blocks are half-open [start, end), found by walking the free tree downwards.
        let tree = &self.free_mt;
        let half = |r: Option<(u64, u64, MapleEntry)>| r.map(|(s, l, _)| (s, l.saturating_add(1)));
        let enclose = |cur: &mut RevCursor, addr: u64| half(cur.seek(tree, addr));
        let below = |cur: &mut RevCursor| half(cur.prev(tree));
        let vmalloc_end = VMALLOC_END & !(align - 1);
        // The cursor stays on `va`.
        let determine = |cur: &mut RevCursor, i: &mut Option<(u64, u64)>| -> u64 {
            while let Some((s, e)) = *i {
                let addr = (e & !(align - 1)).min(vmalloc_end);
                if s < addr {
                    return addr;
                }
                *i = below(cur);
            }
            0
        };
        let mut cur = RevCursor::for_tree(tree);
        let mut area = last_area;
        let mut term = last_area;
        let mut start = offsets[area];
        let mut end = start + sizes[area];
        let mut va = enclose(&mut cur, ve);
        let mut base = determine(&mut cur, &mut va).wrapping_sub(end);
        // The guard against an endless walk: (blocks + 2) * g^2 steps. Past 2 * g^2 the blocks
        // are counted (from the top), only as far as the steps taken require, so the count
        // costs a fraction of the walk.
        let g = nr as u64 + 2;
        let gg = g.saturating_mul(g);
        let mut counter: Option<RevCursor> = None;
        let mut counted = 0u64;
        let mut steps = 0u64;
        loop {
            let Some((bs, be)) = va else {
                return Ok(None);
            };
            if base.wrapping_add(last_end) < vs.wrapping_add(last_end) {
                return Ok(None);
            }
            while steps >= (counted + 2).saturating_mul(gg) {
                let more = match counter.as_mut() {
                    None => {
                        let (c, r) = tree.rev_cursor(u64::MAX);
                        counter = Some(c);
                        r.is_some()
                    }
                    Some(c) => c.prev(tree).is_some(),
                };
                if !more {
                    return Err(VmapError::EndlessWalk { what: "pcpu_get_vm_areas" });
                }
                counted += 1;
            }
            steps += 1;
            if base.wrapping_add(end) > be {
                base = determine(&mut cur, &mut va).wrapping_sub(end);
                term = area;
                continue;
            }
            if base.wrapping_add(start) < bs {
                va = below(&mut cur);
                base = determine(&mut cur, &mut va).wrapping_sub(end);
                term = area;
                continue;
            }
            area = (area + nr - 1) % nr;
            if area == term {
                break;
            }
            start = offsets[area];
            end = start + sizes[area];
            va = enclose(&mut cur, base.wrapping_add(end));
        }
        // Every area must sit inside one block (the carve's NOTHING_FIT check). Without a
        // wrap-around the walk has shown it already: it ends after every area passed against
        // the final base, each inside the free range holding its end, so the range holding
        // its start is that one.
        if base.checked_add(last_end).is_some() {
            return Ok(Some(base));
        }
        for i in 0..nr {
            let s = base.wrapping_add(offsets[i]);
            let inside = enclose(&mut cur, s)
                .is_some_and(|(bs, be)| bs <= s && s.checked_add(sizes[i]).is_some_and(|e| e <= be));
            if !inside {
                return Ok(None);
            }
        }
        Ok(Some(base))
    }

    // ------------------------------------------------------------------ inspection

    /// `dump`: the occupied tree in the conformance-maple dump format.
    pub fn dump(&mut self, out: &mut String) {
        self.ensure_perf();
        out.push_str(&self.occupied.dump());
    }

    /// `busy`: per node its busy tree and lazy list (as linux-6.9's output), then one line per
    /// chunk and per area handed out from it.
    pub fn busy(&mut self, out: &mut String) {
        use std::fmt::Write as _;
        self.ensure_perf();
        for (nid, n) in self.nodes.iter().enumerate() {
            let _ = writeln!(out, "node {nid}");
            for (s, l, _) in n.busy.iter() {
                let _ = writeln!(out, "busy {s:#x} {:#x}", l.wrapping_add(1));
            }
            for &va in &n.lazy {
                let v = self.arena.get(va);
                let _ = writeln!(out, "lazy {:#x} {:#x}", v.va_start, v.va_end);
            }
        }
        for c in &self.chunks {
            let state = if self.bump_cur.get(c.owner_cpu as usize).copied().flatten() == Some(c.base) {
                "current"
            } else {
                "retired"
            };
            let _ = writeln!(
                out,
                "chunk {:#x} {:#x} bump={:#x} pages={} cpu={} {state}",
                c.base, c.limit, c.bump, c.alloced, c.owner_cpu
            );
            for &va in c.page_va.values() {
                let v = self.arena.get(va);
                let _ = writeln!(out, "bump {:#x} {:#x}", v.va_start, v.va_end);
            }
        }
        out.push_str("end\n");
    }

    /// Pooled areas: (node, pool index, entries in pool order).
    pub fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)> {
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            for (idx, p) in n.pools.iter().enumerate() {
                if !p.is_empty() {
                    let entries = p.iter().map(|&va| self.info(va)).collect();
                    out.push((nid as u32, idx as u32, entries));
                }
            }
        }
        out
    }

    fn info(&self, va: u32) -> AreaInfo {
        let v = self.arena.get(va);
        AreaInfo { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }
    }

    /// Busy areas (busy trees and bump chunks) in address order.
    pub fn busy_areas(&self) -> Vec<AreaInfo> {
        let mut out: Vec<AreaInfo> = self.busy_by_start.values().map(|&va| self.info(va)).collect();
        for c in &self.chunks {
            out.extend(c.page_va.values().map(|&va| self.info(va)));
        }
        out.sort_unstable_by_key(|a| a.va_start);
        out
    }

    /// Lazy areas with their node, in list order (inside a purge, for an observer, the ones it
    /// has taken and not yet dealt with come after them).
    pub fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)> {
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            out.extend(n.lazy.iter().map(|&va| (nid as u32, self.info(va))));
        }
        out.extend(self.purging.iter().skip(self.purged_upto).map(|&(nid, va)| (nid, self.info(va))));
        out
    }

    /// Live `struct vmap_area` objects (busy, bump, lazy, pooled).
    pub fn live_areas(&self) -> usize {
        self.arena.live()
    }

    /// Shape figures of §11.11: heights, node counts, leaf fill.
    pub fn structure(&self) -> RfcStructure {
        let nodes = self.occupied.nodes();
        let leaves: Vec<_> = nodes.iter().filter(|n| n.kind == crate::maple::NodeKind::Leaf).collect();
        let used: usize = leaves.iter().map(|n| n.end + 1).sum();
        let leaf_fill_pct = if leaves.is_empty() { 0.0 } else { 100.0 * used as f64 / (16 * leaves.len()) as f64 };
        RfcStructure {
            occupied_height: self.occupied.height(),
            occupied_nodes: self.occupied.node_count(),
            leaf_fill_pct,
            busy_nodes: self.nodes.iter().map(|n| n.busy.node_count()).sum(),
            free_nodes: self.free_mt.node_count(),
            chunks: self.chunks.len(),
        }
    }

    /// Bytes the model's indexes would take in the RFC: 48-byte objects, 256-byte maple nodes
    /// (occupied, stale free, busy trees), and chunk descriptors with their 128 KiB `page_va`.
    pub fn index_bytes(&self) -> u64 {
        let nodes = self.occupied.node_count()
            + self.free_mt.node_count()
            + self.nodes.iter().map(|n| n.busy.node_count()).sum::<usize>();
        48 * self.arena.live() as u64 + 256 * nodes as u64 + (128 * 1024 + 64) * self.chunks.len() as u64
    }

    /// The bump chunks, newest first, each with whether it is its owner CPU's current chunk
    /// (else it is retired): what `busy` prints as its `chunk` lines.
    pub fn chunk_states(&self) -> impl Iterator<Item = (&BumpChunk, bool)> + '_ {
        self.chunks.iter().map(|c| (c, self.bump_cur.get(c.owner_cpu as usize).copied().flatten() == Some(c.base)))
    }

    // ------------------------------------------------------------------ invariants

    /// The profile's invariants: every maple tree valid; the occupied tree's ranges (joined
    /// where adjacent) equal busy ∪ lazy ∪ pooled ∪ chunks ∪ the seeded rest; no two areas
    /// overlap; busy trees match their areas; chunk books balance; `vmap_lazy_nr` is right.
    /// The overlap and occupied-tree tests stop once the model has [`MapleRfc::diverged`].
    pub fn check(&self) -> Result<(), String> {
        self.occupied.validate().map_err(|e| format!("occupied tree: {e}"))?;
        self.free_mt.validate().map_err(|e| format!("free tree: {e}"))?;
        let mut all: Vec<(u64, u64, u32)> = Vec::new();
        let mut expect: Vec<(u64, u64)> = self.seed_residual.clone();
        for (nid, n) in self.nodes.iter().enumerate() {
            n.busy.validate().map_err(|e| format!("busy tree {nid}: {e}"))?;
            for (s, l, e) in n.busy.iter() {
                let MapleEntry::Value(va) = e else {
                    return Err(format!("busy tree {nid}: [{s:#x}, {l:#x}] holds no area"));
                };
                let v = self.arena.try_area(va).ok_or("busy tree entry out of the arena")?;
                if v.va_start != s || v.va_end.wrapping_sub(1) != l {
                    return Err(format!(
                        "busy tree {nid}: [{s:#x}, {l:#x}] names area [{:#x}, {:#x})",
                        v.va_start, v.va_end
                    ));
                }
                if self.addr_to_node_id(s) as usize != nid {
                    return Err(format!("busy area {s:#x} is in node {nid}, not its address's node"));
                }
                if self.busy_by_start.get(&s) != Some(&va) {
                    return Err(format!("busy area {s:#x} missing from the index"));
                }
            }
        }
        let busy_in_trees: usize = self.nodes.iter().map(|n| n.busy.iter().count()).sum();
        if busy_in_trees != self.busy_by_start.len() {
            return Err(format!("busy index has {} areas, the trees {busy_in_trees}", self.busy_by_start.len()));
        }
        for &va in self.busy_by_start.values() {
            let v = self.arena.get(va);
            if v.flags() & (F_LAZY | F_POOLED | VA_FROM_BUMP_CHUNK) != 0 {
                return Err(format!("busy area {:#x} carries flags {:#x}", v.va_start, v.flags()));
            }
            all.push((v.va_start, v.va_end, va));
            if v.flags() & F_OCC != 0 {
                expect.push((v.va_start, v.va_end - 1));
            }
        }
        let mut lazy_pages = 0;
        // Lazy bump areas hold no address space of their own (their chunk's range may already
        // be back in the allocator: the "reused before flush" hazard), so they are counted but
        // not tested for overlap.
        let mut lazy_bump = 0;
        for n in &self.nodes {
            for &va in &n.lazy {
                let v = self.arena.get(va);
                if v.flags() & F_LAZY == 0 {
                    return Err(format!("lazy area {:#x} not marked lazy", v.va_start));
                }
                lazy_pages += v.size() >> PAGE_SHIFT;
                // A lazy area whose range the occupied tree does not hold (an `early` one
                // outside the seeded window, §11.4.1) may be handed out again before its purge:
                // the S5 hazard the replay shows, not a broken model. Counted, not tested.
                if v.flags() & (VA_FROM_BUMP_CHUNK | F_OCC) != F_OCC {
                    lazy_bump += 1;
                    continue;
                }
                all.push((v.va_start, v.va_end, va));
                if v.flags() & VA_FROM_BUMP_CHUNK == 0 && v.flags() & F_OCC != 0 {
                    expect.push((v.va_start, v.va_end - 1));
                }
            }
            for p in &n.pools {
                for &va in p {
                    let v = self.arena.get(va);
                    if v.flags() & F_POOLED == 0 {
                        return Err(format!("pooled area {:#x} not marked pooled", v.va_start));
                    }
                    // A pooled bump area holds no address space of its own (as a lazy one).
                    if v.flags() & VA_FROM_BUMP_CHUNK != 0 {
                        lazy_bump += 1;
                        continue;
                    }
                    all.push((v.va_start, v.va_end, va));
                    if v.flags() & F_OCC != 0 {
                        expect.push((v.va_start, v.va_end - 1));
                    }
                }
            }
        }
        if lazy_pages != self.vmap_lazy_nr {
            return Err(format!("vmap_lazy_nr {} but lazy areas hold {lazy_pages} pages", self.vmap_lazy_nr));
        }
        let mut chunk_ranges = Vec::new();
        for c in &self.chunks {
            if c.limit != c.base + VMAP_BUMP_CHUNK_SIZE || c.bump < c.base || c.bump > c.limit {
                return Err(format!("chunk {:#x}: limit or bump pointer out of place", c.base));
            }
            if c.base < self.chunks_lo || c.limit > self.chunks_hi {
                return Err(format!("chunk {:#x} outside the lo/hi bounds", c.base));
            }
            let mut pages = 0;
            for (&s, &va) in &c.page_va {
                let v = self.arena.get(va);
                if v.va_start != s || v.va_end > c.bump || v.flags() & VA_FROM_BUMP_CHUNK == 0 {
                    return Err(format!("chunk {:#x}: page_va entry {s:#x} is wrong", c.base));
                }
                pages += v.size() >> PAGE_SHIFT;
                all.push((v.va_start, v.va_end, va));
            }
            if pages != c.alloced {
                return Err(format!("chunk {:#x}: alloced {} but page_va holds {pages}", c.base, c.alloced));
            }
            chunk_ranges.push((c.base, c.limit - 1));
            expect.push((c.base, c.limit - 1));
        }
        // Lazy bump areas of released chunks are outside every chunk; live bump areas inside.
        if all.len() + lazy_bump != self.arena.live() {
            return Err(format!("{} areas in containers, {} objects live", all.len() + lazy_bump, self.arena.live()));
        }
        // From a divergence on (the RFC let two areas overlap, or erased what was not an area's
        // own), overlaps and the occupied tree's contents are what the RFC made of them.
        let exact = self.diverged.is_none();
        all.sort_unstable();
        for w in all.windows(2).filter(|_| exact) {
            if w[0].1 > w[1].0 {
                return Err(format!("areas [{:#x}, {:#x}) and [{:#x}, {:#x}) overlap", w[0].0, w[0].1, w[1].0, w[1].1));
            }
        }
        let mut cr = chunk_ranges.clone();
        cr.sort_unstable();
        for w in cr.windows(2) {
            if w[0].1 >= w[1].0 {
                return Err(format!("chunks {:#x} and {:#x} overlap", w[0].0, w[1].0));
            }
        }
        if self.perf_mode && exact {
            let got = merge_ranges(self.occupied.iter().map(|(s, l, _)| (s, l)).collect());
            let want = merge_ranges(expect);
            if got != want {
                let diff = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
                return Err(format!(
                    "occupied tree differs from busy+lazy+pooled+chunks at range {diff}: tree {:x?}, areas {:x?}",
                    got.get(diff),
                    want.get(diff)
                ));
            }
        }
        Ok(())
    }
}

impl crate::events::AreasView for MapleRfc {
    fn index_view(&self) -> IndexView<'_> {
        IndexView::Maple(&self.occupied)
    }
    fn busy_areas_all(&self) -> Vec<(AreaInfo, bool, u32)> {
        self.busy_areas().into_iter().map(|i| (i, false, self.addr_to_node_id(i.va_start.0))).collect()
    }
    fn lazy_pages(&self) -> u64 {
        self.vmap_lazy_nr
    }
    fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)> {
        MapleRfc::lazy_areas_by_node(self)
    }
    fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)> {
        MapleRfc::pools(self)
    }
}
