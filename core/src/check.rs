//! Invariants, checked after every operation by tests and `vmap-replay --check`.
//!
//! * every tree: parent links agree with child links, keys in address order, red-black rules
//!   (black root, no red node with a red child, the same black height on every path);
//! * free tree: `subtree_max_size` of every node is exactly the largest size in its subtree;
//! * every list equals its tree's in-order walk; free blocks never overlap nor touch;
//! * a tree's gap (ours) names two neighbours of its list;
//! * free, busy, lazy and pooled areas tile the initialised space exactly;
//! * `vmap_lazy_nr` is the page count of the lazy areas.

use crate::area::{Arena, VaTree, NIL};
use crate::era::Vmap;
use crate::rbtree::compute_subtree_max_size;
use crate::vmalloc::PAGE_SHIFT;

/// Validate one tree and its list; returns the in-order nodes.
pub fn check_tree(a: &Arena, t: &VaTree, augmented: bool, what: &str) -> Result<Vec<u32>, String> {
    let mut order = Vec::new();
    if t.root != NIL {
        if a.area(t.root).parent() != NIL {
            return Err(format!("{what}: the root has a parent"));
        }
        if !a.area(t.root).is_black() {
            return Err(format!("{what}: the root is red"));
        }
        walk(a, t.root, augmented, what, &mut order)?;
    }
    for w in order.windows(2) {
        let (x, y) = (a.area(w[0]), a.area(w[1]));
        if x.va_end > y.va_start {
            return Err(format!(
                "{what}: [{:#x}, {:#x}) and [{:#x}, {:#x}) overlap or are out of order",
                x.va_start, x.va_end, y.va_start, y.va_end
            ));
        }
    }
    // The list must be the in-order walk, with consistent back links.
    let mut n = t.first;
    let mut prev = NIL;
    let mut i = 0;
    while n != NIL {
        if i >= order.len() || order[i] != n {
            return Err(format!("{what}: list entry {i} differs from the tree's in-order walk"));
        }
        if a.area(n).prev != prev {
            return Err(format!("{what}: broken prev link at list entry {i}"));
        }
        prev = n;
        n = a.area(n).next;
        i += 1;
    }
    if i != order.len() || t.last != prev || t.len != order.len() {
        return Err(format!("{what}: list has {i} entries (len {}), tree {}", t.len, order.len()));
    }
    // The gap's two objects are neighbours in the list (NIL standing for its ends).
    if let Some((p, n)) = t.gap {
        let at = |x: u32| order.iter().position(|&o| o == x);
        let ok = match (p, n) {
            (NIL, NIL) => order.is_empty(),
            (NIL, n) => t.first == n,
            (p, NIL) => t.last == p,
            (p, n) => at(p).is_some_and(|k| order.get(k + 1) == Some(&n)),
        };
        if !ok {
            return Err(format!("{what}: the gap ({p:#x}, {n:#x}) is not two neighbours of the list"));
        }
    }
    Ok(order)
}

/// Returns the black height of the subtree.
fn walk(a: &Arena, n: u32, augmented: bool, what: &str, order: &mut Vec<u32>) -> Result<u32, String> {
    let v = a.area(n);
    if v.va_start >= v.va_end {
        return Err(format!("{what}: empty or inverted area [{:#x}, {:#x})", v.va_start, v.va_end));
    }
    let mut bh = [0u32; 2];
    for (k, c) in [v.left, v.right].into_iter().enumerate() {
        if c == NIL {
            continue;
        }
        let cv = a.area(c);
        if cv.parent() != n {
            return Err(format!("{what}: node [{:#x}, {:#x}) has a wrong parent link", cv.va_start, cv.va_end));
        }
        if !v.is_black() && !cv.is_black() {
            return Err(format!("{what}: red node [{:#x}, {:#x}) has a red child", v.va_start, v.va_end));
        }
        if (k == 0 && cv.va_end > v.va_start) || (k == 1 && cv.va_start < v.va_end) {
            return Err(format!("{what}: child [{:#x}, {:#x}) is on the wrong side", cv.va_start, cv.va_end));
        }
    }
    if v.left != NIL {
        bh[0] = walk(a, v.left, augmented, what, order)?;
    }
    order.push(n);
    if v.right != NIL {
        bh[1] = walk(a, v.right, augmented, what, order)?;
    }
    if bh[0] != bh[1] {
        return Err(format!("{what}: black heights differ under [{:#x}, {:#x})", v.va_start, v.va_end));
    }
    if augmented {
        let m = compute_subtree_max_size(a, n);
        if v.subtree_max_size() != m {
            return Err(format!(
                "{what}: subtree_max_size of [{:#x}, {:#x}) is {:#x}, expected {m:#x}",
                v.va_start,
                v.va_end,
                v.subtree_max_size()
            ));
        }
    }
    Ok(bh[0] + u32::from(v.is_black()))
}

/// What [`check_invariants`] checks: the model, and the areas something above it keeps out of
/// every tree and pool (a capture's held space), which account for their part of the space.
pub trait Checked {
    fn model(&self) -> &Vmap;
    fn detached(&self) -> &[u32] {
        &[]
    }
}

impl Checked for Vmap {
    fn model(&self) -> &Vmap {
        self
    }
}

impl Checked for crate::capture::oracle::Steered {
    fn model(&self) -> &Vmap {
        self.vmap()
    }
    fn detached(&self) -> &[u32] {
        self.held()
    }
}

/// Check every invariant of the allocator.
pub fn check_invariants(m: &impl Checked) -> Result<(), String> {
    let v = m.model();
    if !v.is_initialized() {
        return Ok(());
    }
    if let Some(k) = crate::area::null_gap_written() {
        return Err(format!("byte {k} of the null gap (wasm's null object) is not zero"));
    }
    if let Some(r) = v.rfc() {
        return r.check();
    }
    let a = &v.arena;
    let free = check_tree(a, &v.free, true, "free tree")?;
    for w in free.windows(2) {
        if a.area(w[0]).va_end == a.area(w[1]).va_start {
            return Err(format!("free tree: adjacent blocks at {:#x} were not merged", a.area(w[1]).va_start));
        }
    }
    let mut spans: Vec<(u64, u64, &str)> =
        free.iter().map(|&i| (a.area(i).va_start, a.area(i).va_end, "free")).collect();
    let mut lazy_pages = 0u64;
    let mut objects = free.len();
    for (nid, node) in v.nodes.iter().enumerate() {
        for (i, &va) in check_tree(a, &node.busy, false, "busy tree")?.iter().enumerate() {
            let x = a.area(va);
            if v.profile.has_vmap_nodes() && v.addr_to_node_id(x.va_start) as usize != nid {
                return Err(format!("busy area {:#x} is kept by node {nid}, not its address node", x.va_start));
            }
            if x.is_lazy() {
                lazy_pages += x.size() >> PAGE_SHIFT;
            }
            let _ = i;
            spans.push((x.va_start, x.va_end, "busy"));
            objects += 1;
        }
        for &va in check_tree(a, &node.lazy, false, "lazy tree")?.iter() {
            let x = a.area(va);
            lazy_pages += x.size() >> PAGE_SHIFT;
            spans.push((x.va_start, x.va_end, "lazy"));
            objects += 1;
        }
        for (idx, pool) in node.pools.iter().enumerate() {
            for &va in pool {
                let x = a.area(va);
                if ((x.size() - 1) >> PAGE_SHIFT) as usize != idx {
                    return Err(format!("pooled area {:#x} has the wrong size for pool {idx}", x.va_start));
                }
                spans.push((x.va_start, x.va_end, "pooled"));
                objects += 1;
            }
        }
    }
    for &va in m.detached() {
        let x = a.area(va);
        spans.push((x.va_start, x.va_end, "held"));
        objects += 1;
    }
    for va in v.purge_taken_areas() {
        let x = a.area(va);
        lazy_pages += x.size() >> PAGE_SHIFT;
        spans.push((x.va_start, x.va_end, "purging"));
        objects += 1;
    }
    // A node's walk part-way: its pages still count; its areas not pooled are in no tree.
    let (walked_pages, walked_local) = v.era.part_purge().map_or((0, &[][..]), |p| (p.walked_pages, &p.local[..]));
    lazy_pages += walked_pages;
    for &va in walked_local {
        let x = a.area(va);
        spans.push((x.va_start, x.va_end, "purging"));
        objects += 1;
    }
    for &va in check_tree(a, v.purge_tree(), false, "purge tree")?.iter() {
        let x = a.area(va);
        lazy_pages += x.size() >> PAGE_SHIFT;
        spans.push((x.va_start, x.va_end, "lazy"));
        objects += 1;
    }
    check_busy_index(v)?;
    check_lowest_fit(v, &free)?;
    if v.profile.lazy_in_busy() {
        let marked = v.nodes[0].busy.iter(a).filter(|(_, x)| x.is_lazy()).count();
        if marked != v.lazy_list().len() {
            return Err(format!("{marked} busy areas are marked lazy but the lazy list holds {}", v.lazy_list().len()));
        }
    }
    if lazy_pages != v.vmap_lazy_nr {
        return Err(format!("vmap_lazy_nr is {} but the lazy areas hold {lazy_pages} pages", v.vmap_lazy_nr));
    }
    if objects != a.live() {
        return Err(format!("{} vmap_area objects are allocated but {objects} are in a container", a.live()));
    }
    if !v.profile.has_free_tree() {
        // No free tree: free space is the gaps between busy areas.
        spans.sort_unstable();
        if let (Some(f), Some(l)) = (spans.first(), spans.last()) {
            if f.0 < v.space.0 || l.1 > v.space.1 {
                return Err("a busy area lies outside the initialised space".into());
            }
        }
        for w in spans.windows(2) {
            if w[0].1 > w[1].0 {
                return Err(format!("busy areas overlap at {:#x}", w[1].0));
            }
        }
        return Ok(());
    }
    spans.sort_unstable();
    let mut cursor = v.space.0;
    for (s, e, what) in &spans {
        if *s != cursor {
            return Err(if *s < cursor {
                format!("{what} area [{s:#x}, {e:#x}) overlaps the area before it (which ends at {cursor:#x})")
            } else {
                format!("[{cursor:#x}, {s:#x}) is neither free, busy, lazy nor pooled")
            });
        }
        cursor = *e;
    }
    if cursor != v.space.1 {
        return Err(format!("the areas end at {cursor:#x}, not at the end of the space {:#x}", v.space.1));
    }
    Ok(())
}

/// The free tree's lowest-fit memos (`vmalloc::LowestFit`) against the blocks themselves: a
/// memo's block is the lowest one its request fits in; a memo's bound has no block that fits
/// starting below it, and its `pred` is a free block at or below the bound; what the memo
/// answers is that lowest block. And what makes a memo sound at all: for an unaligned request
/// the tree's own search finds that same lowest block, whatever the tree's shape.
fn check_lowest_fit(v: &Vmap, free: &[u32]) -> Result<(), String> {
    let a = &v.arena;
    for (size, vstart, node, key, pred) in v.free.low.states() {
        // Fits with align 1: from the larger of the block's start and vstart, size bytes,
        // without wrapping, before the block's end.
        let fits = |i: u32| {
            let x = a.area(i);
            x.va_start.max(vstart).checked_add(size).is_some_and(|e| e <= x.va_end)
        };
        let lowest = free.iter().copied().find(|&i| fits(i)).unwrap_or(NIL);
        // The memo agrees with the lowest that fits, and the search itself finds that block.
        if !memo_agrees(a, node, key, lowest) || unaligned_search(v, size, vstart) != Ok(lowest) {
            return Err(format!("the lowest-fit memo of size {size:#x} from {vstart:#x} is wrong"));
        }
        if node == NIL && pred != NIL && !(free.contains(&pred) && a.area(pred).va_start <= key && !fits(pred)) {
            return Err(format!("the lowest-fit memo of size {size:#x} from {vstart:#x} has a wrong pred"));
        }
        if v.free.low.answer_of(a, size, vstart).is_some_and(|h| h != lowest) {
            return Err(format!("the lowest-fit memo of size {size:#x} from {vstart:#x} answers a wrong block"));
        }
    }
    Ok(())
}

/// The incremental check's part of [`check_lowest_fit`]: each memo against the search alone,
/// O(log n) a memo. (That the search finds the lowest block that fits is the full check's.)
pub(crate) fn check_lowest_fit_by_search(v: &Vmap) -> Result<(), String> {
    for (size, vstart, node, key, _) in v.free.low.states() {
        let agrees = |found: u32| {
            memo_agrees(&v.arena, node, key, found)
                && v.free.low.answer_of(&v.arena, size, vstart).is_none_or(|h| h == found)
        };
        if !unaligned_search(v, size, vstart).is_ok_and(agrees) {
            return Err(format!("the lowest-fit memo of size {size:#x} from {vstart:#x} disagrees with the search"));
        }
    }
    Ok(())
}

/// The search of `(size, vstart)` with `align` 1 over the whole space, as the era runs it.
fn unaligned_search(v: &Vmap, size: u64, vstart: u64) -> Result<u32, crate::vmalloc::EndlessSearch> {
    let rule = v.profile.search_rule();
    v.lowest_match(size, 1, vstart, rule.length(size, 1, vstart, u64::MAX), rule)
}

/// A memo holding a block (`node`, keyed at its start) names the lowest fit; a memo holding
/// only a bound (`key`) has no fit below it.
fn memo_agrees(a: &crate::area::Arena, node: u32, key: u64, lowest: u32) -> bool {
    if node != NIL {
        node == lowest && key == a.area(node).va_start
    } else {
        lowest == NIL || a.area(lowest).va_start >= key
    }
}

/// The busy index names only busy areas, each under its own start, with its Robin Hood
/// distances right; an area may be missing from it (it is a cache), no entry may be stale.
fn check_busy_index(v: &Vmap) -> Result<(), String> {
    let a = &v.arena;
    v.busy_index.check(a)?;
    let mut busy = std::collections::HashSet::new();
    for node in &v.nodes {
        busy.extend(node.busy.iter(a).map(|(h, _)| h));
    }
    for h in v.busy_index.handles(a) {
        if !busy.contains(&h) {
            return Err(format!("busy index names an area that is not busy (handle {h})"));
        }
        let start = a.area(h).va_start;
        if v.busy_index.find(a, start) != h {
            return Err(format!("busy index: the area at {start:#x} is not found under its start"));
        }
    }
    if v.busy_index.len() > busy.len() {
        return Err(format!("busy index holds {} entries for {} busy areas", v.busy_index.len(), busy.len()));
    }
    Ok(())
}
