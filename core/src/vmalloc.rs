//! The free-space side of `mm/vmalloc.c`: the augmented free tree and its list, the
//! lowest-match search, fit classification, clipping, and merge-or-add coalescing.
//!
//! These are free functions over an [`Arena`] and a [`VaTree`], named as in the kernel, so the
//! profiles in [`crate::vmap`] can combine them the way each era does.

use crate::addr::Addr;
pub(crate) use crate::area::{is_within, LowestFit, MEMO_MIN_BLOCKS};
use crate::area::{Arena, VaTree, VmapArea, NIL};
use crate::events::{touch, AugmentCause, Branch, Event, FitType, IndexView, MergeKind, Observer, RollBackStep};
use crate::rbtree::{self, Augment, SubtreeMax};

pub const PAGE_SHIFT: u32 = 12;
pub const PAGE_SIZE: u64 = 1 << PAGE_SHIFT;
/// x86_64, 4-level paging, no KASLR.
pub const VMALLOC_START: u64 = 0xffff_c900_0000_0000;
pub const VMALLOC_END: u64 = 0xffff_e8ff_ffff_ffff;
/// `ULONG_MAX`: the initial free block is `[1, ULONG_MAX)`.
pub const ULONG_MAX: u64 = u64::MAX;

pub use crate::addr::align_up;

/// `fls`: 1-based index of the highest set bit, 0 for 0.
#[inline]
pub fn fls(n: u64) -> u32 {
    64 - n.leading_zeros()
}

#[inline(always)]
fn view<'a>(a: &'a Arena, t: &VaTree) -> IndexView<'a> {
    IndexView::free_tree(a, t.root)
}

/// `is_within_this_va`: can `[nva, nva + size)` with `nva = ALIGN(max(va_start, vstart), align)`
/// sit inside `va`?
#[inline(always)]
pub(crate) fn is_within_this_va(a: &Arena, va: u32, size: u64, align: u64, vstart: u64) -> bool {
    is_within(a.get(va), size, align, vstart)
}

/// The search-length rule of a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchRule {
    /// 5.19+: `adjust_search_size`; before: always pad by `align - 1`.
    pub adjust_search_size: bool,
    /// 5.16+: the roll-back moves `vstart` past an ancestor before entering its right subtree.
    pub move_vstart: bool,
}

impl SearchRule {
    /// The length subtrees are pruned with.
    #[inline(always)]
    pub fn length(&self, size: u64, align: u64, vstart: u64, vend: u64) -> u64 {
        let pad = if self.adjust_search_size {
            // Padding only for big alignments, and not for an exact-range request.
            align > PAGE_SIZE && vend.wrapping_sub(vstart) != size
        } else {
            true
        };
        if pad {
            size.wrapping_add(align).wrapping_sub(1)
        } else {
            size
        }
    }
}

/// The search would never return: [`find_vmap_lowest_match`] climbed back out of the right
/// subtree it had entered and, with `vstart` unchanged (no 5.16 vstart move), would enter it
/// again and repeat the same walk forever. Only a padded length that wraps past 2^64 lets a
/// subtree look large enough while nothing in it fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndlessSearch;

/// Tell the free tree's [`LowestFit`] memos that the free block `x` changed: `change` is
/// [`LowestFit::grown`], [`LowestFit::shrunk`] or [`LowestFit::erased`].
#[inline(always)]
fn low_changed(a: &Arena, t: &mut VaTree, x: u32, change: impl Fn(&mut LowestFit, &VmapArea, u32)) {
    if !t.low.active() {
        return;
    }
    let v = a.get(x);
    for m in &mut t.low.memo {
        change(m, v, x);
    }
}

/// `find_vmap_lowest_match`: the lowest block that can hold the request, found by descending
/// the augmented tree and rolling back up when both children are ruled out.
///
/// ```text
///   A. left max >= length && vstart < va_start   -> go left
///   B. is_within_this_va(va)                      -> found
///   C. right max >= length                        -> go right
///   D. climb: at each ancestor test B, then "right max >= length && vstart <= va_start"
/// ```
///
/// Bound: a descent only goes down, a climb only up, and a climb re-enters a right subtree
/// only at an ancestor it has not re-entered before (5.16+ moves `vstart` past it; for 5.2
/// the one repeating case is [`EndlessSearch`]), so the walk ends after O(height * nodes) steps.
#[allow(clippy::too_many_arguments)] // the kernel's own parameter list, plus the observer
#[cfg_attr(inline_search, inline(always))]
pub(crate) fn find_vmap_lowest_match<O: Observer>(
    a: &Arena,
    t: &VaTree,
    size: u64,
    align: u64,
    mut vstart: u64,
    length: u64,
    rule: SearchRule,
    obs: &mut O,
) -> Result<u32, EndlessSearch> {
    let mut node = t.root;
    if node == NIL {
        return Ok(search_none(a, t, obs));
    }
    if length == 0 {
        return Ok(lowest_match_wrapped(a, t, size, align, vstart, node, obs));
    }
    // A child's size is read with no NIL test (`Arena::smax`: 0 for NIL), and 0 fails the
    // size test when `length` is not 0: so a move below never goes to NIL, and `node` is never
    // NIL at the top of the loop. Only `node` is carried from step to step, not its object
    // too: one register copy fewer a step.
    'descend: loop {
        let mut v = a.get(node);
        // The kernel tests the left subtree's size first; both tests only read, so the one
        // without a dependent load goes first.
        if vstart < v.va_start {
            let l = v.left;
            if a.smax(l) >= length {
                if O::ON {
                    obs.event(visit(a, node, vstart, Branch::Left), view(a, t));
                }
                node = l;
                continue;
            }
        }
        if is_within(v, size, align, vstart) {
            if O::ON {
                obs.event(visit(a, node, vstart, Branch::This), view(a, t));
            }
            return Ok(node);
        }
        let r = v.right;
        if a.smax(r) >= length {
            if O::ON {
                obs.event(visit(a, node, vstart, Branch::Right), view(a, t));
            }
            node = r;
            continue;
        }
        if O::ON {
            obs.event(visit(a, node, vstart, Branch::RollBack), view(a, t));
        }
        // Roll back to the first ancestor that fits or whose right subtree may.
        loop {
            let from = node;
            node = v.parent();
            let Some(up) = a.try_get(node) else {
                break 'descend;
            };
            v = up;
            // Back from its right subtree, the ancestor is known not to fit: the walk went
            // right there only after testing it, and that test fails again now. With `vstart`
            // unchanged it is the same test; a `vstart` moved since (5.16+) is past the
            // ancestor's start (moved to it + 1, or to a node of its right subtree + 1), and a
            // later start leaves less room in the block. So the kernel's test, which fails, is
            // not repeated (an `Up` step either way).
            let back_from_right = from == v.right;
            debug_assert!(!(back_from_right && is_within(v, size, align, vstart)), "climb: the ancestor fits");
            if !back_from_right && is_within(v, size, align, vstart) {
                if O::ON {
                    obs.event(rollback(a, node, vstart, RollBackStep::This, None), view(a, t));
                }
                return Ok(node);
            }
            // The kernel's order: the right subtree's size, then vstart (both only read).
            let r = v.right;
            if a.smax(r) >= length && vstart <= v.va_start {
                // Back from this very right subtree with the same vstart: entering it again
                // repeats the walk exactly, forever (5.16 added the vstart move for this).
                if !rule.move_vstart && from == r {
                    return Err(EndlessSearch);
                }
                let new_vstart = if rule.move_vstart { Some(v.va_start.wrapping_add(1)) } else { None };
                if O::ON {
                    obs.event(rollback(a, node, vstart, RollBackStep::Right, new_vstart), view(a, t));
                }
                if let Some(nv) = new_vstart {
                    vstart = nv;
                }
                node = r;
                continue 'descend;
            }
            if O::ON {
                obs.event(rollback(a, node, vstart, RollBackStep::Up, None), view(a, t));
            }
        }
    }
    Ok(search_none(a, t, obs))
}

/// [`find_vmap_lowest_match`] for a `length` that wrapped to 0 (`size + align - 1` past
/// 2^64): every subtree, an empty one too, passes the size test, so the kernel's walk never
/// rolls back; it goes left while `vstart` is below the node, else stops at a node that
/// fits, else goes right, until it steps to NULL.
#[inline(never)]
#[cold]
fn lowest_match_wrapped<O: Observer>(
    a: &Arena,
    t: &VaTree,
    size: u64,
    align: u64,
    vstart: u64,
    mut node: u32,
    obs: &mut O,
) -> u32 {
    loop {
        let v = a.get(node);
        let (next, branch) = if vstart < v.va_start {
            (v.left, Branch::Left)
        } else if is_within(v, size, align, vstart) {
            if O::ON {
                obs.event(visit(a, node, vstart, Branch::This), view(a, t));
            }
            return node;
        } else {
            (v.right, Branch::Right)
        };
        if O::ON {
            obs.event(visit(a, node, vstart, branch), view(a, t));
        }
        if next == NIL {
            return search_none(a, t, obs);
        }
        node = next;
    }
}

/// The search found nothing: report it, return `NIL`.
#[inline(always)]
fn search_none<O: Observer>(a: &Arena, t: &VaTree, obs: &mut O) -> u32 {
    if O::ON {
        obs.event(Event::SearchNone, view(a, t));
    }
    NIL
}

fn visit(a: &Arena, n: u32, vstart: u64, branch: Branch) -> Event {
    let v = a.get(n);
    Event::Visit {
        id: v.id,
        va_start: Addr(v.va_start),
        va_end: Addr(v.va_end),
        left_max: Addr(a.smax(v.left)),
        right_max: Addr(a.smax(v.right)),
        vstart: Addr(vstart),
        branch,
    }
}

fn rollback(a: &Arena, n: u32, vstart: u64, step: RollBackStep, new_vstart: Option<u64>) -> Event {
    let v = a.get(n);
    Event::RollBack {
        id: v.id,
        va_start: Addr(v.va_start),
        va_end: Addr(v.va_end),
        right_max: Addr(a.smax(v.right)),
        vstart: Addr(vstart),
        step,
        new_vstart: new_vstart.map(Addr),
    }
}

/// `find_vmap_lowest_linear_match`: the first block of the address-sorted list that fits.
pub(crate) fn find_vmap_lowest_linear_match(a: &Arena, t: &VaTree, size: u64, align: u64, vstart: u64) -> u32 {
    let mut n = t.first;
    while n != NIL {
        if is_within_this_va(a, n, size, align, vstart) {
            return n;
        }
        n = a.get(n).next;
    }
    NIL
}

/// `classify_va_fit_type`.
#[inline(always)]
pub(crate) fn classify_va_fit_type(a: &Arena, va: u32, nva: u64, size: u64) -> FitType {
    let v = a.get(va);
    let end = nva.wrapping_add(size);
    if nva < v.va_start || end > v.va_end {
        FitType::NothingFit
    } else if v.va_start == nva {
        if v.va_end == end {
            FitType::FlFit
        } else {
            FitType::LeFit
        }
    } else if v.va_end == end {
        FitType::ReFit
    } else {
        FitType::NeFit
    }
}

/// `augment_tree_propagate_from`: fix `subtree_max_size` upwards from `va`, stopping early.
#[inline(always)]
pub(crate) fn augment_tree_propagate_from<O: Observer>(a: &mut Arena, t: &VaTree, va: u32, obs: &mut O) {
    SubtreeMax::propagate(a, t.root, va, NIL, obs);
}

/// `augment_tree_propagate_from` after a merge grew the block `va` (in a tree whose values
/// were all right before): see [`SubtreeMax::propagate_grown`]. Not after a link or an erase,
/// whose rotations leave values that only the full recompute puts right.
#[inline(always)]
pub(crate) fn augment_tree_propagate_grown<O: Observer>(a: &mut Arena, t: &VaTree, va: u32, obs: &mut O) {
    let now = a.get(va).size();
    SubtreeMax::propagate_grown(a, t.root, va, now, obs);
}

/// `augment_tree_propagate_from` after a clip shrank the block `va` from `old_size`: see
/// [`SubtreeMax::propagate_shrunk`].
#[inline(always)]
pub(crate) fn augment_tree_propagate_shrunk<O: Observer>(
    a: &mut Arena,
    t: &VaTree,
    va: u32,
    old_size: u64,
    obs: &mut O,
) {
    SubtreeMax::propagate_shrunk(a, t.root, va, old_size, obs);
}

/// Result of `find_va_links`: where a range would be linked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Links {
    pub parent: u32,
    /// Linked as `parent.left` (or the root when `parent == NIL`).
    pub left: bool,
}

/// `find_va_links`: descend from `from` (or the root) to the empty link where `[start, end)`
/// belongs. `None` when it overlaps an area already in the tree.
#[inline]
pub(crate) fn find_va_links(a: &Arena, t: &VaTree, start: u64, end: u64, from: u32) -> Option<Links> {
    let mut n = if from == NIL { t.root } else { from };
    let Some(mut v) = a.try_get(n) else {
        return Some(Links { parent: NIL, left: true });
    };
    loop {
        // Left as long as the range lies below: its own loop, so that the two descents stay
        // two loads of two fields (merged into one loop the compiler may select a field
        // offset instead, four more instructions per level). Each level also asks the cache
        // for the child it does not take: run on the path the branch predictor guessed, that
        // request is for the child needed when the guess was wrong. (This loop's loads miss the
        // cache more than any other line's on a tree of 20,000 areas: mixed_s42 264 -> 256
        // ns/op, +15 instructions per operation.)
        while end <= v.va_start {
            a.prefetch(v.right);
            let next = v.left;
            let Some(w) = a.try_get(next) else {
                return Some(Links { parent: n, left: true });
            };
            n = next;
            v = w;
        }
        if start < v.va_end {
            return None;
        }
        a.prefetch(v.left);
        let next = v.right;
        let Some(w) = a.try_get(next) else {
            return Some(Links { parent: n, left: false });
        };
        n = next;
        v = w;
    }
}

/// The link `find_va_links` would find for `[vs, ve)`, taken from the tree's gap (see
/// [`VaTree::gap`]) when the range fits in it; `None` sends the caller to the descent.
///
/// ```text
///        P = gap.0        [vs, ve)        S = gap.1         P.va_end <= vs < ve <= S.va_start
///   P and S are neighbours in order, so exactly one of P.right and S.left is empty, and the
///   descent for a key between them ends there: S.left when it is empty, else P.right.
/// ```
#[inline(always)]
pub(crate) fn gap_links(a: &Arena, t: &VaTree, vs: u64, ve: u64) -> Option<Links> {
    let (p, s) = t.gap?;
    links_between(a, p, s, vs, ve)
}

/// The link of `[vs, ve)` in a tree where `p` and `s` are neighbours in order (`NIL` for
/// none: `s` then is the first node, `p` the last), when the range lies between them; `None`
/// when it does not (or the two are not neighbours after all: then neither link is empty).
#[inline(always)]
pub(crate) fn links_between(a: &Arena, p: u32, s: u32, vs: u64, ve: u64) -> Option<Links> {
    let (pv, sv) = (a.try_get(p), a.try_get(s));
    if vs >= ve || pv.is_some_and(|v| v.va_end > vs) || sv.is_some_and(|v| v.va_start < ve) {
        return None;
    }
    match (pv, sv) {
        (_, Some(v)) if v.left == NIL => Some(Links { parent: s, left: true }),
        (Some(v), _) if v.right == NIL => Some(Links { parent: p, left: false }),
        (None, None) => Some(Links { parent: NIL, left: true }),
        _ => None,
    }
}

/// `get_va_next_sibling`: the list entry that follows the link. `None` for an empty tree;
/// `Some(NIL)` for the list head (no successor).
#[inline(always)]
fn get_va_next_sibling(a: &Arena, l: Links) -> Option<u32> {
    if l.parent == NIL {
        None
    } else if !l.left {
        Some(a.get(l.parent).next)
    } else {
        Some(l.parent)
    }
}

/// `link_va`: link `va` at `l`, run the insert fix-up, and thread it into the list.
/// On an augmented tree the node's `subtree_max_size` is then 0 (the caller propagates).
#[inline(always)]
pub(crate) fn link_va<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, va: u32, l: Links, obs: &mut O) {
    // The future list predecessor: the parent itself when linking to its right, else its prev.
    let after = if l.parent == NIL {
        NIL
    } else if l.left {
        a.get(l.parent).prev
    } else {
        l.parent
    };
    rbtree::link_node(a, t, va, l.parent, l.left);
    t.gap = None;
    if A::AUGMENTED {
        low_changed(a, t, va, LowestFit::grown);
    }
    if O::ON && A::AUGMENTED {
        let v = a.get(va);
        let ev = Event::Link {
            id: v.id,
            va_start: Addr(v.va_start),
            va_end: Addr(v.va_end),
            parent: a.id_of(l.parent),
            side: (l.parent != NIL).then_some(if l.left {
                crate::events::Dir::Left
            } else {
                crate::events::Dir::Right
            }),
        };
        obs.event(ev, view(a, t));
    }
    rbtree::insert_color::<A, O>(a, t, va, obs);
    if A::AUGMENTED {
        // Reset until the caller's propagation from `va` computes the real value.
        rbtree::set_augment(a, t.root, va, 0, (AugmentCause::LinkReset, None), obs);
    }
    t.list_add_after(a, va, after);
    touch(obs, va);
}

/// `unlink_va`: erase from the tree (augmented for the free tree) and from the list. Returns
/// the list neighbours `va` had, `(prev, next)`: the caller may make them the tree's gap.
#[inline(always)]
pub(crate) fn unlink_va<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, va: u32, obs: &mut O) -> (u32, u32) {
    if O::ON && A::AUGMENTED {
        let v = a.get(va);
        obs.event(Event::Erase { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, view(a, t));
    }
    if O::TOUCH {
        // What the erase may restructure lies near the paths to these (see check_inc).
        let v = *a.get(va);
        for h in [va, v.prev, v.next, v.parent()] {
            touch(obs, h);
        }
        if v.right != NIL && v.next != NIL {
            touch(obs, a.get(v.next).parent());
        }
    }
    if A::AUGMENTED {
        low_changed(a, t, va, LowestFit::erased);
    }
    rbtree::erase::<A, O>(a, t, va, obs);
    let links = t.list_del(a, va);
    // Last, so that a caller's own gap right after is the one store.
    t.gap = None;
    links
}

/// `insert_vmap_area`: plain insert from the root (busy, lazy trees). `false` on overlap.
#[inline(always)]
pub(crate) fn insert_vmap_area<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, va: u32, obs: &mut O) -> bool {
    let (s, e) = (a.get(va).va_start, a.get(va).va_end);
    match find_va_links(a, t, s, e, NIL) {
        Some(l) => {
            link_va::<A, O>(a, t, va, l, obs);
            true
        }
        None => false,
    }
}

/// `insert_vmap_area_augment`: insert into the free tree (descending from `from`, or the
/// root), then propagate from the new node.
#[inline]
pub(crate) fn insert_vmap_area_augment<O: Observer>(
    a: &mut Arena,
    t: &mut VaTree,
    va: u32,
    from: u32,
    obs: &mut O,
) -> bool {
    let (s, e) = (a.get(va).va_start, a.get(va).va_end);
    match find_va_links(a, t, s, e, from) {
        Some(l) => {
            link_va::<SubtreeMax, O>(a, t, va, l, obs);
            augment_tree_propagate_from(a, t, va, obs);
            true
        }
        None => false,
    }
}

/// Which era's `merge_or_add_vmap_area` to run. The final tree is the same; the order of
/// propagation (and so the step events) differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeStyle {
    /// 5.2 (and until the May-2020 change): propagate after each merge step.
    E52,
    /// 5.10+: merge first, propagate once from the survivor (augmented trees only).
    Eb,
}

/// `merge_or_add_vmap_area`: put the free range `va` back, coalescing it with the list
/// neighbours it touches.
///
/// ```text
///   prev        va         next
///  [-----)    [----)    [--------)       prev.end == va.start  -> merge with prev
///        ^----^    ^----^                va.end == next.start  -> merge with next
/// ```
///
/// Returns the object that holds the range afterwards (the freed one, `next` or `prev`), or
/// `None` when the range overlaps an area of the tree (nothing changes then).
#[inline(always)]
pub(crate) fn merge_or_add_vmap_area<A: Augment, O: Observer>(
    a: &mut Arena,
    t: &mut VaTree,
    mut va: u32,
    style: MergeStyle,
    obs: &mut O,
) -> Option<u32> {
    let (vs, ve) = (a.get(va).va_start, a.get(va).va_end);
    let links = match gap_links(a, t, vs, ve) {
        Some(l) => l,
        None => find_va_links(a, t, vs, ve, NIL)?,
    };
    let next = get_va_next_sibling(a, links);
    let emit = O::ON && A::AUGMENTED;
    if emit {
        let prev = match next {
            None => NIL,
            Some(NIL) => t.last,
            Some(n) => a.get(n).prev,
        };
        let ev = Event::MergeStart {
            va_start: Addr(vs),
            va_end: Addr(ve),
            prev: a.id_of(prev),
            next: next.and_then(|n| a.id_of(n)),
        };
        obs.event(ev, view(a, t));
    }
    let mut merged = false;
    if let Some(next) = next {
        if next != NIL && a.get(next).va_start == ve {
            // Merge with next: next grows down over va.
            let old_start = a.get(next).va_start;
            a.at(next).va_start = vs;
            if A::AUGMENTED {
                low_changed(a, t, next, LowestFit::grown);
            }
            touch(obs, next);
            if emit {
                let n = a.get(next);
                let ev = Event::Merge {
                    merge: MergeKind::Next,
                    survivor: n.id,
                    removed: None,
                    old_start: Addr(old_start),
                    old_end: Addr(n.va_end),
                    new_start: Addr(n.va_start),
                    new_end: Addr(n.va_end),
                };
                obs.event(ev, view(a, t));
            }
            if style == MergeStyle::E52 && A::AUGMENTED {
                augment_tree_propagate_grown(a, t, next, obs);
            }
            a.release(va);
            va = next;
            merged = true;
        }
        let prev = if next == NIL { t.last } else { a.get(next).prev };
        if prev != NIL && a.get(prev).va_end == a.get(va).va_start {
            let kind = if merged { MergeKind::Both } else { MergeKind::Prev };
            let new_end = a.get(va).va_end;
            let old = (a.get(prev).va_start, a.get(prev).va_end);
            match style {
                MergeStyle::E52 => {
                    a.at(prev).va_end = new_end;
                    if A::AUGMENTED {
                        low_changed(a, t, prev, LowestFit::grown);
                    }
                    touch(obs, prev);
                    if emit {
                        merge_event(a, t, kind, prev, merged.then_some(va), old, obs);
                    }
                    if A::AUGMENTED {
                        augment_tree_propagate_grown(a, t, prev, obs);
                    }
                    if merged {
                        unlink_va::<A, O>(a, t, va, obs);
                    }
                    a.release(va);
                    return Some(prev);
                }
                MergeStyle::Eb => {
                    if merged {
                        unlink_va::<A, O>(a, t, va, obs);
                    }
                    a.at(prev).va_end = new_end;
                    if A::AUGMENTED {
                        low_changed(a, t, prev, LowestFit::grown);
                    }
                    touch(obs, prev);
                    if emit {
                        merge_event(a, t, kind, prev, merged.then_some(va), old, obs);
                    }
                    a.release(va);
                    va = prev;
                    merged = true;
                }
            }
        }
    }
    if !merged {
        if emit {
            let v = a.get(va);
            obs.event(Event::AddBlock { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, view(a, t));
        }
        link_va::<A, O>(a, t, va, links, obs);
        if style == MergeStyle::E52 && A::AUGMENTED {
            augment_tree_propagate_from(a, t, va, obs);
        }
    }
    if style == MergeStyle::Eb && A::AUGMENTED {
        augment_tree_propagate_from(a, t, va, obs);
    }
    Some(va)
}

fn merge_event<O: Observer>(
    a: &Arena,
    t: &VaTree,
    merge: MergeKind,
    survivor: u32,
    removed: Option<u32>,
    old: (u64, u64),
    obs: &mut O,
) {
    let s = a.get(survivor);
    let ev = Event::Merge {
        merge,
        survivor: s.id,
        removed: removed.map(|r| a.get(r).id),
        old_start: Addr(old.0),
        old_end: Addr(old.1),
        new_start: Addr(s.va_start),
        new_end: Addr(s.va_end),
    };
    obs.event(ev, view(a, t));
}

/// `adjust_va_to_fit_type`: carve `[nva, nva + size)` out of the free block `va`.
///
/// ```text
///   FL   |<------- va ------->|         the block goes away
///        |<----- request ---->|
///   LE   |<- request ->|<- va'|         va.start += size
///   RE   |va'->|<-- request ->|         va.end = nva
///   NE   |lva->|<- req ->|<va'|         a new block lva on the left
/// ```
#[inline(always)]
pub(crate) fn adjust_va_to_fit_type<O: Observer>(
    a: &mut Arena,
    t: &mut VaTree,
    va: u32,
    nva: u64,
    size: u64,
    ty: FitType,
    obs: &mut O,
) -> bool {
    let (old_start, old_end, id) = {
        let v = a.get(va);
        (v.va_start, v.va_end, v.id)
    };
    let mut lva = NIL;
    match ty {
        FitType::NothingFit => return false,
        FitType::FlFit => {
            if O::ON {
                let ev = Event::Clip {
                    id,
                    fit: ty,
                    old_start: Addr(old_start),
                    old_end: Addr(old_end),
                    new_start: Addr(old_end),
                    new_end: Addr(old_end),
                    lva: None,
                };
                obs.event(ev, view(a, t));
            }
            t.gap = Some(unlink_va::<SubtreeMax, O>(a, t, va, obs));
            a.release(va);
            return true;
        }
        FitType::LeFit => a.at(va).va_start = old_start.wrapping_add(size),
        FitType::ReFit => a.at(va).va_end = nva,
        FitType::NeFit => {
            lva = a.alloc(old_start, nva);
            a.at(va).va_start = nva.wrapping_add(size);
        }
    }
    low_changed(a, t, va, LowestFit::shrunk);
    if O::ON {
        let v = a.get(va);
        let ev = Event::Clip {
            id,
            fit: ty,
            old_start: Addr(old_start),
            old_end: Addr(old_end),
            new_start: Addr(v.va_start),
            new_end: Addr(v.va_end),
            lva: (lva != NIL).then(|| crate::area::AreaInfo {
                id: a.get(lva).id,
                va_start: Addr(old_start),
                va_end: Addr(nva),
            }),
        };
        obs.event(ev, view(a, t));
    }
    touch(obs, va);
    augment_tree_propagate_shrunk(a, t, va, old_end.wrapping_sub(old_start), obs);
    if lva != NIL {
        // lva ends at nva, below va's new start: the descent from va goes into its left subtree.
        insert_vmap_area_augment(a, t, lva, va, obs);
    }
    true
}
