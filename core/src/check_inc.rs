//! The incremental invariant check: after an operation, only what it touched.
//!
//! The allocator reports, through [`Observer::touch`] (compiled away for every other
//! observer), each object it linked, unlinked, resized, re-flagged or moved through a pool,
//! and for an unlink the object's list neighbours, its parent and its successor's parent.
//! A red-black insert or erase rewrites only nodes within two links of the path from the
//! root to one of those (the fix-up's parent, uncle or sibling and nephews, and the subtrees
//! a rotation moves), so the check walks, per touched object still in a tree:
//!
//! ```text
//!   root .. object        the path (parent and child links agree)
//!   + children            } each: order against its children and list neighbours,
//!   + grandchildren       } list links both ways, no red child of a red node,
//!                         } subtree_max_size = max(size, children's) (free tree)
//! ```
//!
//! and the black heights of that region, bottom-up (a subtree hanging off it is untouched,
//! hence valid: one descent gives its height). Besides: the busy index under each touched
//! start, each touched pool whole, `vmap_lazy_nr` against a running sum of the lazy areas'
//! pages, no touched area overlapping the free tree (or a touched free block a busy or lazy
//! area). What needs the whole state (the tiling of the space, the object count, entries of
//! a pool or index no operation looked at) is the backstop's: [`crate::check::check_invariants`]
//! every `every` operations and at the end.
//!
//! maple-rfc keeps its state in maple trees: after an allocation or free the check validates
//! the nodes of the occupied tree and of the node's busy tree on the paths to the range
//! ([`crate::maple::MapleTree::validate_ranges`]) and the lazy count; anything else (purge,
//! pcpu, early, settings) gets the full check.

use std::collections::HashMap;

use crate::area::{Arena, VaTree, F_LAZY, NIL};
use crate::check::check_invariants;
use crate::era::Vmap;
use crate::events::{Event, IndexView, Observer};
use crate::profile::Profile;
use crate::rbtree::{compute_subtree_max_size, rb_next, rb_prev};
use crate::trace::Op;
use crate::vmalloc::PAGE_SHIFT;

/// Operations between two full checks unless told otherwise (`--check-every`).
pub const DEFAULT_EVERY: u64 = 4096;

/// Which tree of a [`Vmap`] an object is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TreeId {
    Free,
    Busy(usize),
    Lazy(usize),
    Purge,
}

/// Collects what an operation touched (as an [`Observer`]) and checks it ([`IncrementalCheck::after_op`]).
#[derive(Debug)]
pub struct IncrementalCheck {
    touched: Vec<u32>,
    pools: Vec<(u32, usize)>,
    /// Lazy areas (handle -> pages) as last seen, and their sum.
    lazy: HashMap<u32, u64>,
    lazy_sum: u64,
    /// maple-rfc: per node, the lazy list's length and page sum last seen; the purge count.
    rfc_lazy: Vec<(usize, u64)>,
    rfc_purges: u64,
    /// False until a full check has set the running sums up (and after a reset).
    synced: bool,
    /// A full check every this many operations (0: only at the start and at the end).
    pub every: u64,
    ops: u64,
    /// Full checks run (for tests and the report).
    pub full_checks: u64,
    region: Vec<u32>,
    memo: Vec<u32>,
    members: Vec<(TreeId, u32)>,
}

impl Default for IncrementalCheck {
    fn default() -> Self {
        Self::new(DEFAULT_EVERY)
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
    fn areas_event(&mut self, ev: Event, v: &Vmap) {
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
}

/// Entries checked at each end of a touched pool.
const POOL_ENDS: usize = 8;

/// The deepest a red-black tree of 2^32 objects gets (2 log2(n + 1)), with room.
const MAX_DEPTH: usize = 70;

impl IncrementalCheck {
    pub fn new(every: u64) -> Self {
        IncrementalCheck {
            touched: Vec::new(),
            pools: Vec::new(),
            lazy: HashMap::new(),
            lazy_sum: 0,
            rfc_lazy: Vec::new(),
            rfc_purges: 0,
            synced: false,
            every,
            ops: 0,
            full_checks: 0,
            region: Vec::new(),
            memo: Vec::new(),
            members: Vec::new(),
        }
    }

    /// Check after `op` was applied to `v` (with `self` as its observer); `out` is what the
    /// operation printed (maple-rfc reads the address an allocation returned from it).
    pub fn after_op(&mut self, v: &Vmap, op: &Op, out: &str) -> Result<(), String> {
        if matches!(op, Op::Profile(_) | Op::Init { .. }) {
            self.synced = false;
        }
        self.ops += 1;
        let r = if !self.synced || (self.every > 0 && self.ops.is_multiple_of(self.every)) {
            self.full(v)
        } else if let Some(m) = v.rfc() {
            self.check_rfc(v, m, op, out)
        } else {
            self.check_touched(v)
        };
        self.touched.clear();
        self.pools.clear();
        r
    }

    /// The check at the end of a trace: everything.
    pub fn finish(&mut self, v: &Vmap) -> Result<(), String> {
        self.full(v)
    }

    /// The whole check, and the running sums set up again from the state.
    fn full(&mut self, v: &Vmap) -> Result<(), String> {
        self.full_checks += 1;
        self.synced = false;
        check_invariants(v)?;
        self.resync(v);
        self.synced = true;
        Ok(())
    }

    fn resync(&mut self, v: &Vmap) {
        self.lazy.clear();
        self.lazy_sum = 0;
        self.rfc_lazy.clear();
        if let Some(m) = v.rfc() {
            self.rfc_purges = m.counters.purges;
            for n in &m.nodes {
                let pages = n.lazy.iter().map(|&va| m.arena.get(va).size() >> PAGE_SHIFT).sum();
                self.rfc_lazy.push((n.lazy.len(), pages));
            }
            return;
        }
        let a = &v.arena;
        let mut add = |h: u32| {
            let p = a.area(h).size() >> PAGE_SHIFT;
            self.lazy.insert(h, p);
            self.lazy_sum += p;
        };
        for n in &v.nodes {
            n.lazy.iter(a).for_each(|(h, _)| add(h));
            if v.profile.lazy_in_busy() {
                n.busy.iter(a).filter(|(_, x)| x.is_lazy()).for_each(|(h, _)| add(h));
            }
        }
        v.purge_tree.iter(a).for_each(|(h, _)| add(h));
    }

    // ------------------------------------------------------------------ free-tree eras

    fn tree(v: &Vmap, t: TreeId) -> &VaTree {
        match t {
            TreeId::Free => &v.free,
            TreeId::Busy(n) => &v.nodes[n].busy,
            TreeId::Lazy(n) => &v.nodes[n].lazy,
            TreeId::Purge => &v.purge_tree,
        }
    }

    fn trees(v: &Vmap) -> impl Iterator<Item = TreeId> {
        let nr = v.nodes.len();
        [TreeId::Free, TreeId::Purge].into_iter().chain((0..nr).flat_map(|n| [TreeId::Busy(n), TreeId::Lazy(n)]))
    }

    /// The tree `h` is linked in, if any: the root its parent links lead to, confirmed by a
    /// descent from that root to `h` (an object that left its tree may keep stale links).
    fn member(v: &Vmap, h: u32) -> Option<TreeId> {
        let a = &v.arena;
        let x = a.try_area(h)?;
        let mut r = h;
        for _ in 0..MAX_DEPTH {
            let p = a.try_area(r)?.parent();
            if p == NIL {
                break;
            }
            r = p;
        }
        let t = Self::trees(v).find(|&t| Self::tree(v, t).root == r)?;
        (Self::tree(v, t).find_start(a, x.va_start) == h).then_some(t)
    }

    fn check_touched(&mut self, v: &Vmap) -> Result<(), String> {
        let a = &v.arena;
        self.touched.sort_unstable();
        self.touched.dedup();
        let mut members = std::mem::take(&mut self.members);
        members.clear();
        let touched = std::mem::take(&mut self.touched);
        let mut r = Ok(());
        for &h in touched.iter().filter(|&&h| a.try_area(h).is_some()) {
            let m = Self::member(v, h);
            if let Some(t) = m {
                members.push((t, h));
            }
            if let Err(e) = self.object(v, h, m) {
                r = Err(e);
                break;
            }
        }
        self.touched = touched;
        r?;
        members.sort_unstable();
        let mut i = 0;
        let mut r = Ok(());
        while i < members.len() && r.is_ok() {
            let t = members[i].0;
            let j = i + members[i..].iter().take_while(|m| m.0 == t).count();
            r = self.region_check(v, t, &members[i..j]);
            i = j;
        }
        self.members = members;
        r?;
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
        if v.profile.lazy_in_busy() && self.lazy.len() != v.lazy_list.len() {
            return Err(format!(
                "{} busy areas are marked lazy but the lazy list holds {}",
                self.lazy.len(),
                v.lazy_list.len()
            ));
        }
        Ok(())
    }

    /// What concerns one touched object `h` (in tree `m`, if any): the running lazy sums, the
    /// busy index under its start, its vmap node, and no overlap with the other side.
    fn object(&mut self, v: &Vmap, h: u32, m: Option<TreeId>) -> Result<(), String> {
        let a = &v.arena;
        let x = *a.area(h);
        let marked = matches!(m, Some(TreeId::Busy(_))) && v.profile.lazy_in_busy() && x.flags() & F_LAZY != 0;
        let lazy = marked || matches!(m, Some(TreeId::Lazy(_) | TreeId::Purge));
        if let Some((_, old)) = self.lazy.remove_entry(&h) {
            self.lazy_sum -= old;
        }
        if lazy {
            let p = x.size() >> PAGE_SHIFT;
            self.lazy.insert(h, p);
            self.lazy_sum += p;
        }
        let indexed = v.busy_index.find(a, x.va_start);
        match m {
            Some(TreeId::Busy(nid)) => {
                if indexed != NIL && indexed != h {
                    return Err(format!("busy index: the area at {:#x} is not found under its start", x.va_start));
                }
                if v.profile == Profile::Linux69 && v.addr_to_node_id(x.va_start) as usize != nid {
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
            Some(_) if v.profile != Profile::Linux51 => {
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

    /// The region of tree `t` around the paths to `hs` (see the module comment).
    fn region_check(&mut self, v: &Vmap, t: TreeId, hs: &[(TreeId, u32)]) -> Result<(), String> {
        let a = &v.arena;
        let tree = Self::tree(v, t);
        let what = match t {
            TreeId::Free => "free tree",
            TreeId::Busy(_) => "busy tree",
            TreeId::Lazy(_) => "lazy tree",
            TreeId::Purge => "purge tree",
        };
        let augmented = t == TreeId::Free;
        self.region.clear();
        for &(_, h) in hs {
            let mut n = h;
            while n != NIL {
                let x = a.area(n);
                self.region.push(n);
                for c in [x.left, x.right] {
                    if c != NIL {
                        self.region.push(c);
                        let cx = a.area(c);
                        self.region.extend([cx.left, cx.right].into_iter().filter(|&g| g != NIL));
                    }
                }
                n = x.parent();
            }
        }
        self.region.sort_unstable();
        self.region.dedup();
        // The tree's ends.
        if tree.root == NIL {
            if tree.first != NIL || tree.last != NIL {
                return Err(format!("{what}: empty tree with a list"));
            }
        } else {
            let r = a.area(tree.root);
            if r.parent() != NIL || !r.is_black() {
                return Err(format!("{what}: the root has a parent or is red"));
            }
            let ends = (leftmost(a, tree.root), rightmost(a, tree.root));
            if ends != (tree.first, tree.last) || a.area(tree.first).prev != NIL || a.area(tree.last).next != NIL {
                return Err(format!("{what}: the list's ends are not the tree's"));
            }
        }
        for &n in &self.region {
            local(a, tree, n, augmented, what)?;
        }
        self.memo.clear();
        self.memo.resize(self.region.len(), u32::MAX);
        self.black_height(a, tree.root, what).map(|_| ())
    }

    /// Black height of the subtree at `n`, checking each node of the region on the way; below
    /// the region, the untouched subtrees are valid and one descent gives theirs.
    fn black_height(&mut self, a: &Arena, n: u32, what: &str) -> Result<u32, String> {
        if n == NIL {
            return Ok(0);
        }
        let x = *a.area(n);
        let Ok(i) = self.region.binary_search(&n) else {
            let (mut c, mut y) = (0, n);
            while y != NIL {
                let yv = a.area(y);
                c += u32::from(yv.is_black());
                y = yv.left;
            }
            return Ok(c);
        };
        if self.memo[i] != u32::MAX {
            return Ok(self.memo[i]);
        }
        let l = self.black_height(a, x.left, what)?;
        let r = self.black_height(a, x.right, what)?;
        if l != r {
            return Err(format!("{what}: black heights differ under [{:#x}, {:#x})", x.va_start, x.va_end));
        }
        self.memo[i] = l + u32::from(x.is_black());
        Ok(self.memo[i])
    }

    // ------------------------------------------------------------------ maple-rfc

    fn check_rfc(&mut self, v: &Vmap, m: &crate::maple_rfc::MapleRfc, op: &Op, out: &str) -> Result<(), String> {
        // The ranges an allocation or a free walked; anything else is checked whole.
        let range = match *op {
            Op::Alloc { size, .. } => match out.strip_prefix("alloc -> 0x") {
                Some(hex) => u64::from_str_radix(hex.trim_end(), 16).ok().map(|s| (s, s.saturating_add(size))),
                None => Some((0, 0)),
            },
            Op::Free(addr) | Op::Vfree(addr) => Some((addr, addr.saturating_add(1))),
            _ => None,
        };
        let Some((s, e)) = range else { return self.full(v) };
        if m.counters.purges != self.rfc_purges || m.nodes.len() != self.rfc_lazy.len() {
            return self.full(v);
        }
        if s < e {
            let r = [(s.saturating_sub(1), e)];
            m.occupied.validate_ranges(&r).map_err(|x| format!("occupied tree: {x}"))?;
            let nid = m.addr_to_node_id(s) as usize;
            if let Some(n) = m.nodes.get(nid) {
                n.busy.validate_ranges(&r).map_err(|x| format!("busy tree {nid}: {x}"))?;
            }
        }
        // The lazy lists only grow between purges: add the new tails' pages.
        let mut total = 0;
        for (n, seen) in m.nodes.iter().zip(self.rfc_lazy.iter_mut()) {
            if n.lazy.len() < seen.0 {
                return Err("a lazy list shrank without a purge".into());
            }
            seen.1 += n.lazy[seen.0..].iter().map(|&va| m.arena.get(va).size() >> PAGE_SHIFT).sum::<u64>();
            seen.0 = n.lazy.len();
            total += seen.1;
        }
        if total != m.vmap_lazy_nr {
            return Err(format!("vmap_lazy_nr {} but lazy areas hold {total} pages", m.vmap_lazy_nr));
        }
        Ok(())
    }
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
    // The list around it is the in-order walk, linked both ways, in order (free blocks
    // neither overlap nor touch).
    let (pr, nx) = (rb_prev(a, n), rb_next(a, n));
    if x.prev != pr || x.next != nx {
        return Err(format!("{what}: the list links of {} differ from the tree's in-order neighbours", at()));
    }
    if (pr == NIL && t.first != n) || (pr != NIL && a.area(pr).next != n) {
        return Err(format!("{what}: broken next link before {}", at()));
    }
    if (nx == NIL && t.last != n) || (nx != NIL && a.area(nx).prev != n) {
        return Err(format!("{what}: broken prev link after {}", at()));
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
