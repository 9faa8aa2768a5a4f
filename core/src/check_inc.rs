//! The incremental invariant check: after an operation, only what it touched.
//!
//! The allocator reports, through [`Observer::touch`] (compiled away for every other
//! observer), each object it linked, unlinked, resized, re-flagged or moved through a pool,
//! and for an unlink the object's list neighbours, its parent and its successor's parent;
//! the red-black code reports through [`Observer::touch_node`] each node whose parent word
//! (parent link or colour) it writes: a rotation, a recolour, a node taking an erased one's
//! place. A node whose subtree an operation changed then has a reported node below it (or
//! is one): its own links or colour were written, or one of its children's subtree changed,
//! down to a written node; a child link that became empty is the erased leaf's parent's,
//! which is reported. This holds however many inserts and erases one operation makes.
//! So the check's region of a tree is, per reported object or node still in it:
//!
//! ```text
//!   root .. object        the path (climbed once: paths share their top)
//!   + children            each node: its children's parent links, order and colours,
//!                         subtree_max_size = max(size, children's) (free tree), its list
//!                         links both ways and in order
//! ```
//!
//! and the black heights of the region, bottom-up. A subtree hanging off the region was not
//! changed, so its black height is the one cached for its root when it was last in a region
//! (or at the last full check): O(1), not a descent. A touched object's list links are also
//! compared with its in-order neighbours (`rb_prev`, `rb_next`). The climb that finds which
//! tree an object is in is the region's path: each node it passes is stamped with the
//! operation and the tree, and a later climb stops at a stamped node, so an operation pays
//! for the union of its paths once, with no sorting and no allocation once warm. The walks
//! from a root to its leftmost and rightmost nodes (the list's ends) are made only when the
//! root or an end changed since they last agreed. Besides: the busy index under each touched
//! start, each touched pool's ends, `vmap_lazy_nr` against a running sum of the lazy areas'
//! pages, no touched area overlapping the free tree (or a touched free block a busy or lazy
//! area), and every 8th operation each lowest-fit memo against one search. What needs the
//! whole state (the tiling of the space, the object count, entries of a pool or index no
//! operation looked at) is the backstop's: [`crate::check::check_invariants`]
//! every `max(every, live objects)` operations (so its O(live) cost stays O(1) per operation
//! however large the state grows) and at the end.
//!
//! maple-rfc keeps its state in maple trees: after an allocation or free the check validates
//! the nodes of the occupied tree and of the node's busy tree on the paths to the range
//! ([`crate::maple::MapleTree::validate_ranges`]) and the lazy count; anything else (purge,
//! pcpu, early, settings) gets the full check.

use crate::area::{Arena, VaTree, F_LAZY, NIL};
use crate::check::{check_invariants, Checked};
use crate::era::Vmap;
use crate::events::{Event, IndexView, Observer};
use crate::rbtree::{compute_subtree_max_size, rb_next, rb_prev};
use crate::trace::Op;
use crate::vmalloc::PAGE_SHIFT;

/// Operations between two full checks unless told otherwise (`--check-every`).
pub const DEFAULT_EVERY: u64 = 4096;

/// Operations between two checks of the lowest-fit memos against the search.
pub(crate) const MEMO_EVERY: u32 = 8;

/// Which tree of a [`Vmap`] an object is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TreeId {
    Free,
    Busy(usize),
    Lazy(usize),
    Purge,
}

impl TreeId {
    /// Its place in [`IncrementalCheck::trees`]' order.
    fn index(self) -> usize {
        match self {
            TreeId::Free => 0,
            TreeId::Purge => 1,
            TreeId::Busy(n) => 2 + 2 * n,
            TreeId::Lazy(n) => 3 + 2 * n,
        }
    }

    fn from_index(k: u16) -> Option<TreeId> {
        Some(match k {
            NO_TREE => return None,
            0 => TreeId::Free,
            1 => TreeId::Purge,
            k if k % 2 == 0 => TreeId::Busy(usize::from(k - 2) / 2),
            k => TreeId::Lazy(usize::from(k - 3) / 2),
        })
    }
}

/// What the check keeps per arena slot (index [`Arena::dense`]: natively handle / 2, handles
/// being even, so the table has `STRIDE / 2` entries per object, of which one is used, and no
/// division is made; in wasm the object's number).
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The operation whose membership climb last passed it (so it is on the region's paths),
    /// and the tree that climb found ([`NO_TREE`]: none).
    op: u32,
    tree: u16,
    /// The black height of its subtree as last checked ([`BH_UNKNOWN`]: never).
    bh: u8,
    /// A lazy area's pages as last seen, plus one (0: not lazy).
    lazy: u64,
}

const BH_UNKNOWN: u8 = u8::MAX;
const NO_TREE: u16 = u16::MAX;
const BLANK: Slot = Slot { op: 0, tree: NO_TREE, bh: BH_UNKNOWN, lazy: 0 };

#[inline(always)]
fn ix(a: &Arena, h: u32) -> usize {
    a.dense(h)
}

/// Collects what an operation touched (as an [`Observer`]) and checks it ([`IncrementalCheck::after_op`]).
#[derive(Debug)]
pub struct IncrementalCheck {
    touched: Vec<u32>,
    /// Red-black nodes whose parent word was written ([`Observer::touch_node`]): they only
    /// start climbs of the region.
    seeds: Vec<u32>,
    pools: Vec<(u32, usize)>,
    slots: Vec<Slot>,
    /// The operation's stamp for the membership climbs.
    op_gen: u32,
    /// Per tree ([`TreeId::index`]): `(first, last)` as last found to be its leftmost and
    /// rightmost nodes ([`IncrementalCheck::ends_check`]).
    ends: Vec<(u32, u32)>,
    /// The lazy areas' pages as last seen, summed, and their number.
    lazy_sum: u64,
    lazy_count: usize,
    /// maple-rfc: per node, the lazy list's length and page sum last seen; the purge count.
    rfc_lazy: Vec<(usize, u64)>,
    /// maple-rfc: the ranges `[start, end - 1]` of the lazy areas seen since the last purge; a
    /// purge erases them from the occupied tree, so its check walks their paths.
    rfc_lazy_ranges: Vec<(u64, u64)>,
    rfc_purges: u64,
    /// False until a full check has set the running sums up (and after a reset).
    synced: bool,
    /// A full check every this many operations (0: only at the start and at the end).
    pub every: u64,
    /// The interval is `max(every, live objects)` rather than `every` (the default; an
    /// interval given with `--check-every` is kept exact).
    pub adaptive: bool,
    since: u64,
    /// Full checks run (for tests and the report).
    pub full_checks: u64,
    /// The touched objects in a tree (tree index, handle): their list links are compared with
    /// rb_prev/rb_next.
    inorder: Vec<(u16, u32)>,
    /// The trees the climbs reached.
    seen: Vec<u16>,
    /// The region's path nodes, in the order the climbs met them (each climb bottom-up), and
    /// where each climb starts in it.
    path: Vec<u32>,
    climbs: Vec<usize>,
}

impl Default for IncrementalCheck {
    /// The backstop every `max(DEFAULT_EVERY, live objects)` operations.
    fn default() -> Self {
        IncrementalCheck { adaptive: true, ..Self::new(DEFAULT_EVERY) }
    }
}

impl Observer for IncrementalCheck {
    const ON: bool = false;
    const TOUCH: bool = true;
    #[inline(always)]
    fn event(&mut self, _ev: Event, _index: IndexView<'_>) {}
    #[inline(always)]
    fn touch(&mut self, h: u32) {
        self.touched.push(h);
    }
    #[inline(always)]
    fn touch_pool(&mut self, nid: u32, idx: usize) {
        self.pools.push((nid, idx));
    }
    #[inline(always)]
    fn touch_node(&mut self, h: u32) {
        self.seeds.push(h);
    }
    fn untracked(&mut self) {
        self.synced = false;
    }
}

/// Another observer (counters, a recorder) with the incremental check riding along.
pub struct WithCheck<'a, O: Observer> {
    pub inner: &'a mut O,
    pub check: &'a mut IncrementalCheck,
}

impl<O: Observer> Observer for WithCheck<'_, O> {
    const ON: bool = O::ON;
    const MAPLE_NODES: bool = O::MAPLE_NODES;
    const TOUCH: bool = true;
    #[inline(always)]
    fn event(&mut self, ev: Event, index: IndexView<'_>) {
        self.inner.event(ev, index)
    }
    #[inline(always)]
    fn areas_event(&mut self, ev: Event, v: &dyn crate::events::AreasView) {
        self.inner.areas_event(ev, v)
    }
    #[inline(always)]
    fn touch(&mut self, h: u32) {
        self.check.touch(h)
    }
    #[inline(always)]
    fn touch_pool(&mut self, nid: u32, idx: usize) {
        self.check.touch_pool(nid, idx)
    }
    #[inline(always)]
    fn touch_node(&mut self, h: u32) {
        self.check.touch_node(h)
    }
    fn untracked(&mut self) {
        self.check.untracked()
    }
}

/// Entries checked at each end of a touched pool.
const POOL_ENDS: usize = 8;

/// The deepest a red-black tree of 2^32 objects gets (2 log2(n + 1)), with room.
const MAX_DEPTH: usize = 70;

impl IncrementalCheck {
    /// The backstop exactly every `every` operations.
    pub fn new(every: u64) -> Self {
        IncrementalCheck {
            touched: Vec::new(),
            seeds: Vec::new(),
            pools: Vec::new(),
            slots: Vec::new(),
            op_gen: 0,
            ends: Vec::new(),
            lazy_sum: 0,
            lazy_count: 0,
            rfc_lazy: Vec::new(),
            rfc_lazy_ranges: Vec::new(),
            rfc_purges: 0,
            synced: false,
            every,
            adaptive: false,
            since: 0,
            full_checks: 0,
            seen: Vec::new(),
            inorder: Vec::new(),
            path: Vec::new(),
            climbs: Vec::new(),
        }
    }

    /// Check after `op` was applied to `v` (with `self` as its observer); `out` is what the
    /// operation printed (maple-rfc reads the address an allocation returned from it).
    pub fn after_op(&mut self, c: &impl Checked, op: &Op, out: &str) -> Result<(), String> {
        let v = c.model();
        if matches!(op, Op::Profile(_) | Op::Init { .. }) {
            self.synced = false;
        }
        #[cfg(feature = "capture")]
        if let Op::Follow(f) = op {
            // Capture lines change the state without reporting touches (the start state, held
            // space): the whole check. An allocation the model made itself reports as any
            // other; one taken where the kernel took it said so ([`Observer::untracked`]).
            if !matches!(**f, crate::capture::follow::Follow::Alloc { .. }) {
                self.synced = false;
            }
        }
        if v.era.part_purge().is_some() {
            // A purge part-way (a capture's): areas in no tree yet counted; the whole check.
            self.synced = false;
        }
        self.since += 1;
        let every = match (self.adaptive, v.rfc()) {
            (false, _) => self.every,
            (true, Some(m)) => self.every.max(m.live_areas() as u64),
            (true, None) => self.every.max(v.arena.live() as u64),
        };
        let r = if !self.synced || (every > 0 && self.since >= every) {
            self.full(c)
        } else if let Some(m) = v.rfc() {
            self.check_rfc(v, m, op, out)
        } else {
            self.check_touched(v)
        };
        self.touched.clear();
        self.seeds.clear();
        self.pools.clear();
        r
    }

    /// The check at the end of a trace: everything.
    pub fn finish(&mut self, c: &impl Checked) -> Result<(), String> {
        self.full(c)
    }

    /// The whole check, and the running sums set up again from the state.
    fn full(&mut self, c: &impl Checked) -> Result<(), String> {
        self.full_checks += 1;
        self.since = 0;
        self.synced = false;
        check_invariants(c)?;
        self.resync(c.model());
        self.synced = true;
        Ok(())
    }

    /// The per-slot table covers every handle of the arena.
    fn grow(&mut self, a: &Arena) {
        let n = a.dense_len();
        if self.slots.len() < n {
            self.slots.resize(n, BLANK);
        }
    }

    /// The running sums and the cached black heights, from a state the full check passed.
    fn resync(&mut self, v: &Vmap) {
        self.lazy_sum = 0;
        self.lazy_count = 0;
        self.rfc_lazy.clear();
        self.ends.clear();
        if let Some(m) = v.rfc() {
            self.resync_rfc(m);
            return;
        }
        let a = &v.arena;
        self.slots.clear();
        self.grow(a);
        let add = |s: &mut Self, h: u32| {
            let p = a.area(h).size() >> PAGE_SHIFT;
            s.slots[ix(a, h)].lazy = p + 1;
            s.lazy_sum += p;
            s.lazy_count += 1;
        };
        for n in &v.nodes {
            n.lazy.iter(a).for_each(|(h, _)| add(self, h));
            if v.profile.lazy_in_busy() {
                n.busy.iter(a).filter(|(_, x)| x.is_lazy()).for_each(|(h, _)| add(self, h));
            }
        }
        v.purge_tree().iter(a).for_each(|(h, _)| add(self, h));
        v.purge_taken_areas().for_each(|h| add(self, h));
        self.lazy_sum += v.era.part_purge().map_or(0, |p| p.walked_pages);
        for t in Self::trees(v) {
            fill_bh(a, &mut self.slots, Self::tree(v, t).root);
        }
    }

    // ------------------------------------------------------------------ free-tree eras

    fn tree(v: &Vmap, t: TreeId) -> &VaTree {
        match t {
            TreeId::Free => &v.free,
            TreeId::Busy(n) => &v.nodes[n].busy,
            TreeId::Lazy(n) => &v.nodes[n].lazy,
            TreeId::Purge => v.purge_tree(),
        }
    }

    fn trees(v: &Vmap) -> impl Iterator<Item = TreeId> {
        let nr = v.nodes.len();
        [TreeId::Free, TreeId::Purge].into_iter().chain((0..nr).flat_map(|n| [TreeId::Busy(n), TreeId::Lazy(n)]))
    }

    /// The tree at index `k` ([`TreeId::index`]).
    #[inline(always)]
    fn tree_at(v: &Vmap, k: u16) -> &VaTree {
        match k {
            0 => &v.free,
            1 => v.purge_tree(),
            k if k % 2 == 0 => &v.nodes[usize::from(k - 2) / 2].busy,
            k => &v.nodes[usize::from(k - 3) / 2].lazy,
        }
    }

    fn what(k: u16) -> &'static str {
        match TreeId::from_index(k) {
            Some(TreeId::Free) => "free tree",
            Some(TreeId::Busy(_)) => "busy tree",
            Some(TreeId::Lazy(_)) => "lazy tree",
            _ => "purge tree",
        }
    }

    /// The tree `h` is linked in, if any: the root its parent links lead to, each parent
    /// naming the node below as a child (an object that left its tree may keep stale links;
    /// a chain of child links from the root is what makes it a member). The answer is stamped
    /// on every node of the climb for this operation, and a later climb stops where it meets
    /// one, so the climbs of an operation cost the union of their paths, and they are the
    /// region's paths: each climb is appended to `path` bottom-up (its start in `climbs`).
    fn member(&mut self, v: &Vmap, h: u32) -> Option<TreeId> {
        let a = &v.arena;
        let start = self.path.len();
        let mut r = h;
        let mut found = NO_TREE;
        for _ in 0..MAX_DEPTH {
            let Some(x) = a.try_area(r) else { break };
            let s = &self.slots[ix(a, r)];
            if s.op == self.op_gen {
                found = s.tree;
                break;
            }
            self.path.push(r);
            let p = x.parent();
            if p == NIL {
                found = Self::trees(v).find(|&t| Self::tree(v, t).root == r).map_or(NO_TREE, |t| t.index() as u16);
                break;
            }
            match a.try_area(p) {
                Some(pv) if pv.left == r || pv.right == r => r = p,
                _ => break,
            }
        }
        for &n in &self.path[start..] {
            let s = &mut self.slots[ix(a, n)];
            (s.op, s.tree) = (self.op_gen, found);
        }
        if self.path.len() > start {
            self.climbs.push(start);
        }
        if found != NO_TREE && !self.seen.contains(&found) {
            self.seen.push(found);
        }
        TreeId::from_index(found)
    }

    fn check_touched(&mut self, v: &Vmap) -> Result<(), String> {
        let a = &v.arena;
        self.grow(a);
        self.op_gen = self.op_gen.wrapping_add(1);
        if self.op_gen == 0 {
            self.slots.iter_mut().for_each(|s| s.op = 0);
            self.op_gen = 1;
        }
        self.path.clear();
        self.climbs.clear();
        self.seen.clear();
        self.inorder.clear();
        self.touched.sort_unstable();
        self.touched.dedup();
        let touched = std::mem::take(&mut self.touched);
        let mut r = Ok(());
        for &h in touched.iter().filter(|&&h| a.try_area(h).is_some()) {
            let m = self.member(v, h);
            if let Some(t) = m {
                self.inorder.push((t.index() as u16, h));
            }
            if let Err(e) = self.object(v, h, m) {
                r = Err(e);
                break;
            }
        }
        self.touched = touched;
        r?;
        // A node a rotation, recolour or erase rewrote: its path is in the region too.
        self.seeds.sort_unstable();
        self.seeds.dedup();
        let seeds = std::mem::take(&mut self.seeds);
        for &h in &seeds {
            if self.touched.binary_search(&h).is_err() {
                self.member(v, h);
            }
        }
        self.seeds = seeds;
        self.region_check(v)?;
        let mut pools = std::mem::take(&mut self.pools);
        pools.sort_unstable();
        pools.dedup();
        let r = pools.iter().try_for_each(|&(nid, idx)| Self::pool(v, nid, idx));
        self.pools = pools;
        r?;
        if self.lazy_sum != v.vmap_lazy_nr {
            return Err(format!("vmap_lazy_nr is {} but the lazy areas hold {} pages", v.vmap_lazy_nr, self.lazy_sum));
        }
        // linux-5.2: every lazy area is a busy one marked lazy.
        if v.profile.lazy_in_busy() && self.lazy_count != v.lazy_list().len() {
            return Err(format!(
                "{} busy areas are marked lazy but the lazy list holds {}",
                self.lazy_count,
                v.lazy_list().len()
            ));
        }
        // The lowest-fit memos (ours, `vmalloc::LowestFit`), each against the search: every
        // MEMO_EVERY-th operation, since a descent apiece on every one would cost a replay of
        // unaligned requests a sixth more (full_fit_s45: --check 4.76x -> 5.02x the plain
        // replay). A memo a hook left wrong stays wrong until a later change happens to put
        // it right, and the backstop compares every memo with a scan.
        if self.op_gen.is_multiple_of(MEMO_EVERY) {
            crate::check::check_lowest_fit_by_search(v)?;
        }
        Ok(())
    }

    /// What concerns one touched object `h` (in tree `m`, if any): the running lazy sums, the
    /// busy index under its start, its vmap node, and no overlap with the other side.
    fn object(&mut self, v: &Vmap, h: u32, m: Option<TreeId>) -> Result<(), String> {
        let a = &v.arena;
        let x = *a.area(h);
        let marked = matches!(m, Some(TreeId::Busy(_))) && v.profile.lazy_in_busy() && x.flags() & F_LAZY != 0;
        // A split purge's areas are in no tree and still lazy (`Vmap::purge_upto`).
        let purging = m.is_none() && v.purge_taken_areas().any(|p| p == h);
        let lazy = marked || purging || matches!(m, Some(TreeId::Lazy(_) | TreeId::Purge));
        let slot = &mut self.slots[ix(a, h)];
        if slot.lazy != 0 {
            self.lazy_sum -= slot.lazy - 1;
            self.lazy_count -= 1;
            slot.lazy = 0;
        }
        if lazy {
            let p = x.size() >> PAGE_SHIFT;
            slot.lazy = p + 1;
            self.lazy_sum += p;
            self.lazy_count += 1;
        }
        let indexed = v.busy_index.find(a, x.va_start);
        match m {
            Some(TreeId::Busy(nid)) => {
                if indexed != NIL && indexed != h {
                    return Err(format!("busy index: the area at {:#x} is not found under its start", x.va_start));
                }
                if v.profile.has_vmap_nodes() && v.addr_to_node_id(x.va_start) as usize != nid {
                    return Err(format!("busy area {:#x} is kept by node {nid}, not its address node", x.va_start));
                }
            }
            _ => {
                if indexed == h {
                    return Err(format!("busy index names an area that is not busy (at {:#x})", x.va_start));
                }
            }
        }
        // The free tree against everything else: a busy, lazy or purge area inside free space,
        // or a free block over one of them, is a double allocation.
        match m {
            Some(TreeId::Free) => {
                for t in Self::trees(v).filter(|&t| t != TreeId::Free) {
                    if let Some((s, e)) = first_ending_after(a, Self::tree(v, t), x.va_start) {
                        if s < x.va_end {
                            return Err(format!(
                                "free block [{:#x}, {:#x}) overlaps area [{s:#x}, {e:#x})",
                                x.va_start, x.va_end
                            ));
                        }
                    }
                }
            }
            Some(_) if v.profile.has_free_tree() => {
                if let Some((s, e)) = first_ending_after(a, &v.free, x.va_start) {
                    if s < x.va_end {
                        return Err(format!(
                            "area [{:#x}, {:#x}) overlaps free block [{s:#x}, {e:#x})",
                            x.va_start, x.va_end
                        ));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A pool's ends (where `node_pool_del_va` takes and the purge and decay put or take):
    /// each entry of its size and on no tree.
    fn pool(v: &Vmap, nid: u32, idx: usize) -> Result<(), String> {
        let a = &v.arena;
        let Some(pool) = v.nodes.get(nid as usize).and_then(|n| n.pools.get(idx)) else { return Ok(()) };
        let ends = pool.iter().take(POOL_ENDS).chain(pool.iter().skip(pool.len().max(POOL_ENDS) - POOL_ENDS));
        for &va in ends {
            let Some(x) = a.try_area(va) else {
                return Err(format!("pool {nid}/{idx} holds a handle outside the arena"));
            };
            if x.va_end <= x.va_start || ((x.size() - 1) >> PAGE_SHIFT) as usize != idx {
                return Err(format!("pooled area {:#x} has the wrong size for pool {idx}", x.va_start));
            }
            if x.parent() != NIL
                || x.left != NIL
                || x.right != NIL
                || Self::trees(v).any(|t| Self::tree(v, t).root == va)
            {
                return Err(format!("pooled area {:#x} is also linked in a tree", x.va_start));
            }
        }
        Ok(())
    }

    /// The region (see the module comment) of every tree the climbs reached: the root and the
    /// list's ends of each, then each region node's [`local`] checks and black height,
    /// bottom-up, cached per node. A child of a path node that no climb passed is off the
    /// paths and has no child on them (a climb would have passed it), so its children's
    /// cached heights give its own: those first. Then the paths, the last climb first and
    /// each from its bottom: a climb ends below a node of an earlier one (or at a root), so
    /// every path node comes after its descendants.
    fn region_check(&mut self, v: &Vmap) -> Result<(), String> {
        let a = &v.arena;
        for i in 0..self.seen.len() {
            let k = self.seen[i];
            self.ends_check(a, Self::tree_at(v, k), k)?;
        }
        // Consecutive path nodes are mostly of one tree: look it up when it changes.
        let (mut tk, mut tree) = (NO_TREE, &v.free);
        for i in 0..self.path.len() {
            let n = self.path[i];
            let k = self.slots[ix(a, n)].tree;
            if k == NO_TREE {
                continue;
            }
            if k != tk {
                (tk, tree) = (k, Self::tree_at(v, k));
            }
            let x = a.area(n);
            for c in [x.left, x.right] {
                if c != NIL && a.try_area(c).is_none_or(|_| self.slots[ix(a, c)].op != self.op_gen) {
                    self.node(a, tree, c, k)?;
                }
            }
        }
        let mut end = self.path.len();
        for c in (0..self.climbs.len()).rev() {
            let start = self.climbs[c];
            for i in start..end {
                let n = self.path[i];
                let k = self.slots[ix(a, n)].tree;
                if k != NO_TREE {
                    if k != tk {
                        (tk, tree) = (k, Self::tree_at(v, k));
                    }
                    self.node(a, tree, n, k)?;
                }
            }
            end = start;
        }
        // A touched object's list neighbours are its in-order neighbours.
        for &(k, h) in &self.inorder {
            let x = a.area(h);
            if x.prev != rb_prev(a, h) || x.next != rb_next(a, h) {
                return Err(format!(
                    "{}: the list links of [{:#x}, {:#x}) differ from the tree's in-order neighbours",
                    Self::what(k),
                    x.va_start,
                    x.va_end
                ));
            }
        }
        Ok(())
    }

    /// Tree `k`'s root is black with no parent; its list's ends are its leftmost and rightmost
    /// nodes. An end the same as when it was last found right needs no walk: a node put before
    /// `first` (or after `last`), or an end unlinked, puts a node with no list neighbour in
    /// the region, and [`local`] wants it to be the list's end. A new end that is a touched
    /// object of the tree needs none either: its list link outward must be empty, and
    /// [`Self::region_check`] compares that link with `rb_prev` (`rb_next`), empty only at
    /// the leftmost (rightmost) node. Any other new end: the walk from the root.
    fn ends_check(&mut self, a: &Arena, tree: &VaTree, k: u16) -> Result<(), String> {
        let what = Self::what(k);
        if tree.root == NIL {
            if tree.first != NIL || tree.last != NIL {
                return Err(format!("{what}: empty tree with a list"));
            }
            return Ok(());
        }
        let r = a.area(tree.root);
        if r.parent() != NIL || !r.is_black() {
            return Err(format!("{what}: the root has a parent or is red"));
        }
        let i = usize::from(k);
        if self.ends.len() <= i {
            self.ends.resize(i + 1, (NIL, NIL));
        }
        let (first, last) = self.ends[i];
        let touched = |h: u32| self.inorder.iter().any(|&(t, x)| t == k && x == h);
        let first_ok = (tree.first == first && first != NIL)
            || (touched(tree.first) && a.try_area(tree.first).is_some_and(|x| x.prev == NIL))
            || (leftmost(a, tree.root) == tree.first && a.area(tree.first).prev == NIL);
        let last_ok = (tree.last == last && last != NIL)
            || (touched(tree.last) && a.try_area(tree.last).is_some_and(|x| x.next == NIL))
            || (rightmost(a, tree.root) == tree.last && a.area(tree.last).next == NIL);
        if !first_ok || !last_ok {
            return Err(format!("{what}: the list's ends are not the tree's"));
        }
        self.ends[i] = (tree.first, tree.last);
        Ok(())
    }

    /// One region node of tree `k`: the checks of [`local`] and its black height from its
    /// children's cached ones, which must agree ([`fast_node`]; the messages are built only on
    /// a failure).
    #[inline(always)]
    fn node(&mut self, a: &Arena, tree: &VaTree, n: u32, k: u16) -> Result<(), String> {
        match fast_node(a, &self.slots, tree, n, k == 0) {
            Some(b) => {
                self.slots[ix(a, n)].bh = b;
                Ok(())
            }
            None => Err(node_error(a, tree, n, k == 0, Self::what(k))),
        }
    }

    // ------------------------------------------------------------------ maple-rfc

    /// maple-rfc's running sums (each node's lazy list: its length and pages) and the lazy
    /// ranges a purge will erase, from the state.
    fn resync_rfc(&mut self, m: &crate::maple_rfc::MapleRfc) {
        self.rfc_purges = m.counters.purges;
        self.rfc_lazy.clear();
        self.rfc_lazy_ranges.clear();
        for n in &m.nodes {
            let mut pages = 0;
            for &va in &n.lazy {
                let a = m.arena.get(va);
                pages += a.size() >> PAGE_SHIFT;
                self.rfc_lazy_ranges.push((a.va_start, a.va_end.saturating_sub(1)));
            }
            self.rfc_lazy.push((n.lazy.len(), pages));
        }
    }

    fn check_rfc(&mut self, v: &Vmap, m: &crate::maple_rfc::MapleRfc, op: &Op, out: &str) -> Result<(), String> {
        // The ranges the operation walked, as [first, last] around each area it placed or freed;
        // an operation that only reads the state changes nothing; the others are checked whole.
        let mut placed: Vec<(u64, u64, u64)> = Vec::new();
        let mut near = |s: u64, e: u64| placed.push((s, s.saturating_sub(1), e));
        match op {
            Op::Alloc { size, .. } => {
                if let Some(s) =
                    out.strip_prefix("alloc -> 0x").and_then(|h| u64::from_str_radix(h.trim_end(), 16).ok())
                {
                    near(s, s.saturating_add(*size));
                }
            }
            Op::Free(addr) | Op::Vfree(addr) => near(*addr, addr.saturating_add(1)),
            // pcpu -> BASE0 BASE1 ...: each area of the group at its address.
            Op::Pcpu { areas, .. } => {
                if let Some(list) = out.strip_prefix("pcpu -> ") {
                    for (w, &(_, size)) in list.split_whitespace().zip(areas) {
                        if let Some(s) = w.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                            near(s, s.saturating_add(size));
                        }
                    }
                }
            }
            Op::Purge | Op::Reclaim | Op::Cpu(_) => {}
            Op::Dump | Op::Busy | Op::Pools => return Ok(()),
            _ => return self.full(v),
        }
        if m.nodes.len() != self.rfc_lazy.len() {
            return self.full(v);
        }
        let mut ranges: Vec<(u64, u64)> = placed.iter().map(|&(_, s, e)| (s, e)).collect();
        let purged = m.counters.purges != self.rfc_purges;
        if purged {
            // A purge (asked for, on the lazy threshold, or an allocation's retry) erased every
            // lazy area it took from the occupied tree: walk their paths, and start the running
            // sums again from the lists it left. Its work counts towards the next full check,
            // which also covers the pools it decayed.
            let taken = std::mem::take(&mut self.rfc_lazy_ranges);
            self.since = self.since.saturating_add(taken.len() as u64);
            ranges.extend(taken);
        }
        // The busy tree of the node each placed or freed area belongs to.
        for &(at, s, e) in &placed {
            if let Some(n) = m.nodes.get(m.addr_to_node_id(at) as usize) {
                n.busy.validate_ranges(&[(s, e)]).map_err(|x| format!("busy tree of {at:#x}: {x}"))?;
            }
        }
        if !ranges.is_empty() {
            m.occupied.validate_ranges(&ranges).map_err(|x| format!("occupied tree: {x}"))?;
        }
        if purged {
            self.resync_rfc(m);
        } else {
            // The lazy lists only grow between purges: add the new tails' pages.
            for (n, seen) in m.nodes.iter().zip(self.rfc_lazy.iter_mut()) {
                if n.lazy.len() < seen.0 {
                    return Err("a lazy list shrank without a purge".into());
                }
                for &va in &n.lazy[seen.0..] {
                    let a = m.arena.get(va);
                    seen.1 += a.size() >> PAGE_SHIFT;
                    self.rfc_lazy_ranges.push((a.va_start, a.va_end.saturating_sub(1)));
                }
                seen.0 = n.lazy.len();
            }
        }
        let total: u64 = self.rfc_lazy.iter().map(|s| s.1).sum();
        if total != m.vmap_lazy_nr {
            return Err(format!("vmap_lazy_nr {} but lazy areas hold {total} pages", m.vmap_lazy_nr));
        }
        Ok(())
    }
}

/// The black height cached for the subtree at `n` (0 for none); never cached (cannot happen
/// after a full check): one bounded descent.
#[inline(always)]
fn cached_bh(a: &Arena, slots: &[Slot], n: u32) -> u8 {
    if n == NIL {
        return 0;
    }
    match slots.get(ix(a, n)) {
        Some(s) if s.bh != BH_UNKNOWN => s.bh,
        _ => descent_bh(a, n),
    }
}

#[cold]
fn descent_bh(a: &Arena, n: u32) -> u8 {
    let (mut c, mut y) = (0u8, n);
    for _ in 0..MAX_DEPTH {
        let Some(yv) = a.try_area(y) else { break };
        c = c.saturating_add(u8::from(yv.is_black()));
        y = yv.left;
    }
    c
}

/// [`local`] and the black-height test of a region node in one pass, without messages: its
/// black height, or `None` when [`local`] fails or its children's cached heights differ.
#[inline(always)]
fn fast_node(a: &Arena, slots: &[Slot], t: &VaTree, n: u32, augmented: bool) -> Option<u8> {
    let x = a.try_area(n)?;
    let (l, r, p, black) = (x.left, x.right, x.parent(), x.is_black());
    let mut ok = x.va_start < x.va_end;
    ok &= if p == NIL { t.root == n } else { a.try_area(p).is_some_and(|pv| pv.left == n || pv.right == n) };
    let (mut m, mut bl, mut br) = (x.size(), 0, 0);
    if l != NIL {
        let c = a.try_area(l)?;
        ok &= c.parent() == n && (black || c.is_black()) && c.va_end <= x.va_start;
        if augmented {
            m = m.max(c.subtree_max_size());
        }
        bl = cached_bh(a, slots, l);
    }
    if r != NIL {
        let c = a.try_area(r)?;
        ok &= c.parent() == n && (black || c.is_black()) && c.va_start >= x.va_end;
        if augmented {
            m = m.max(c.subtree_max_size());
        }
        br = cached_bh(a, slots, r);
    }
    ok &= !augmented || x.subtree_max_size() == m;
    let (pr, nx) = (x.prev, x.next);
    ok &= if pr == NIL { t.first == n } else { a.try_area(pr).is_some_and(|y| y.next == n) };
    ok &= if nx == NIL {
        t.last == n
    } else {
        a.try_area(nx).is_some_and(|y| y.prev == n && y.va_start >= x.va_end && !(augmented && y.va_start == x.va_end))
    };
    (ok && bl == br).then(|| bl.saturating_add(u8::from(black)).min(BH_UNKNOWN - 1))
}

/// What [`fast_node`] found wrong at `n`, in words.
#[cold]
fn node_error(a: &Arena, t: &VaTree, n: u32, augmented: bool, what: &str) -> String {
    let Some(x) = a.try_area(n) else { return format!("{what}: a link names a handle outside the arena") };
    if [x.parent(), x.left, x.right].into_iter().any(|h| h != NIL && a.try_area(h).is_none()) {
        return format!("{what}: a link of [{:#x}, {:#x}) names a handle outside the arena", x.va_start, x.va_end);
    }
    if let Err(e) = local(a, t, n, augmented, what) {
        return e;
    }
    format!("{what}: black heights differ under [{:#x}, {:#x})", x.va_start, x.va_end)
}

/// The checks of one node `n` of `t` that need only its neighbourhood.
fn local(a: &Arena, t: &VaTree, n: u32, augmented: bool, what: &str) -> Result<(), String> {
    let x = a.area(n);
    let at = || format!("[{:#x}, {:#x})", x.va_start, x.va_end);
    if x.va_start >= x.va_end {
        return Err(format!("{what}: empty or inverted area {}", at()));
    }
    let p = x.parent();
    if p == NIL {
        if t.root != n {
            return Err(format!("{what}: node {} has no parent but is not the root", at()));
        }
    } else {
        let pv = a.area(p);
        if pv.left != n && pv.right != n {
            return Err(format!("{what}: node {} has a wrong parent link", at()));
        }
    }
    for (k, c) in [x.left, x.right].into_iter().enumerate() {
        if c == NIL {
            continue;
        }
        let cv = a.area(c);
        if cv.parent() != n {
            return Err(format!("{what}: node [{:#x}, {:#x}) has a wrong parent link", cv.va_start, cv.va_end));
        }
        if !x.is_black() && !cv.is_black() {
            return Err(format!("{what}: red node {} has a red child", at()));
        }
        if (k == 0 && cv.va_end > x.va_start) || (k == 1 && cv.va_start < x.va_end) {
            return Err(format!("{what}: child [{:#x}, {:#x}) is on the wrong side", cv.va_start, cv.va_end));
        }
    }
    if augmented {
        let m = compute_subtree_max_size(a, n);
        if x.subtree_max_size() != m {
            return Err(format!(
                "{what}: subtree_max_size of {} is {:#x}, expected {m:#x}",
                at(),
                x.subtree_max_size()
            ));
        }
    }
    // Its list links, both ways and in order (free blocks neither overlap nor touch); a
    // touched object's are also compared with the tree's in-order walk (region_check).
    let (pr, nx) = (x.prev, x.next);
    if (pr == NIL && t.first != n) || (pr != NIL && a.try_area(pr).is_none_or(|y| y.next != n)) {
        return Err(format!("{what}: the list links before {} are broken", at()));
    }
    if (nx == NIL && t.last != n) || (nx != NIL && a.try_area(nx).is_none_or(|y| y.prev != n)) {
        return Err(format!("{what}: the list links after {} are broken", at()));
    }
    if nx != NIL {
        let y = a.area(nx);
        if y.va_start < x.va_end || (augmented && y.va_start == x.va_end) {
            return Err(format!(
                "{what}: {} and [{:#x}, {:#x}) overlap, touch or are out of order",
                at(),
                y.va_start,
                y.va_end
            ));
        }
    }
    Ok(())
}

/// Cache the black heights of the subtree at `n` (a valid tree: the full check passed, or a
/// subtree no operation changed since), returning its own.
fn fill_bh(a: &Arena, slots: &mut [Slot], n: u32) -> u8 {
    let Some(x) = a.try_area(n) else { return 0 };
    let (l, r, black) = (x.left, x.right, x.is_black());
    let b = fill_bh(a, slots, l);
    fill_bh(a, slots, r);
    let b = b.saturating_add(u8::from(black)).min(BH_UNKNOWN - 1);
    if let Some(s) = slots.get_mut(ix(a, n)) {
        s.bh = b;
    }
    b
}

fn leftmost(a: &Arena, mut n: u32) -> u32 {
    while a.area(n).left != NIL {
        n = a.area(n).left;
    }
    n
}

fn rightmost(a: &Arena, mut n: u32) -> u32 {
    while a.area(n).right != NIL {
        n = a.area(n).right;
    }
    n
}

/// The lowest area of `t` that ends after `addr`, as `(start, end)`.
fn first_ending_after(a: &Arena, t: &VaTree, addr: u64) -> Option<(u64, u64)> {
    let (mut n, mut best) = (t.root, None);
    while let Some(x) = a.try_area(n) {
        if x.va_end > addr {
            best = Some((x.va_start, x.va_end));
            n = x.left;
        } else {
            n = x.right;
        }
    }
    best
}

#[cfg(test)]
impl IncrementalCheck {
    /// The first tree node whose cached black height differs from a recount, if any.
    pub(crate) fn stale_black_height(&self, v: &Vmap) -> Option<String> {
        let a = &v.arena;
        for t in Self::trees(v) {
            for (h, x) in Self::tree(v, t).iter(a) {
                let (mut c, mut y) = (0u8, h);
                while y != NIL {
                    c += u8::from(a.area(y).is_black());
                    y = a.area(y).left;
                }
                let cached = self.slots.get(ix(a, h)).map_or(BH_UNKNOWN, |s| s.bh);
                if cached != c {
                    return Some(format!(
                        "{t:?}: [{:#x}, {:#x}) has black height {c}, cached {cached}",
                        x.va_start, x.va_end
                    ));
                }
            }
        }
        None
    }
}
