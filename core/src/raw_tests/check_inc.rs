//! The incremental check (`check_inc`) catches a corruption on the operation after it, well
//! before its backstop (set far away here): each test builds a state, damages one field an
//! operation depends on, applies one more operation and expects that operation's check to fail.

use crate::area::NIL;
use crate::check_inc::IncrementalCheck;
use crate::maple::MapleTree;
use crate::maple::ValidateError;
use crate::profile::Profile;
use crate::replay::Replayer;
use crate::trace::Op;
use crate::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};

const FAR: u64 = 1 << 40;

fn alloc(size: u64) -> Op {
    Op::Alloc { size, align: PAGE_SIZE, vstart: VMALLOC_START, vend: VMALLOC_END }
}

/// Apply `op` with the check as observer, then check.
fn step(r: &mut Replayer, c: &mut IncrementalCheck, op: &Op) -> Result<(), String> {
    let mut out = String::new();
    r.apply(op, &mut out, c).map_err(|e| e.to_string())?;
    c.after_op(&r.vmap, op, &out)
}

/// A free tree of many blocks: 64 areas of one page, every other one freed. Returns the
/// replayer, the check (synced, no error) and the addresses still busy.
fn fragmented(p: Profile) -> (Replayer, IncrementalCheck, Vec<u64>) {
    let mut r = Replayer::new(p);
    let mut c = IncrementalCheck::new(FAR);
    step(&mut r, &mut c, &Op::Profile(p)).unwrap();
    let mut addrs = Vec::new();
    for _ in 0..64 {
        let mut out = String::new();
        r.apply(&alloc(PAGE_SIZE), &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &alloc(PAGE_SIZE), &out).unwrap();
        addrs.push(u64::from_str_radix(out.trim().trim_start_matches("alloc -> 0x"), 16).unwrap());
    }
    let mut busy = Vec::new();
    for (i, a) in addrs.into_iter().enumerate() {
        if i % 2 == 0 {
            step(&mut r, &mut c, &Op::Free(a)).unwrap();
        } else {
            busy.push(a);
        }
    }
    assert!(p == Profile::Linux51 || r.vmap.free.len > 16, "the free tree has many blocks");
    (r, c, busy)
}

/// The free tree's node right of the root: beside the path of a lowest-fit allocation (which
/// goes left), so the next operation reads it but does not rewrite it.
fn root_right(r: &Replayer) -> u32 {
    let x = r.vmap.arena.get(r.vmap.free.root).right;
    assert_ne!(x, NIL);
    x
}

#[test]
fn clean_runs_pass_under_every_profile() {
    for p in [Profile::Linux51, Profile::Linux52, Profile::Linux61, Profile::Linux69] {
        let (mut r, mut c, busy) = fragmented(p);
        for a in busy {
            step(&mut r, &mut c, &Op::Vfree(a)).unwrap();
        }
        step(&mut r, &mut c, &Op::Purge).unwrap();
        step(&mut r, &mut c, &alloc(3 * PAGE_SIZE)).unwrap();
        c.finish(&r.vmap).unwrap();
    }
}

/// maple-rfc S5 (spec §11.4.1, §11.10): an `early` area outside the seeded window, vfreed (lazy),
/// is not in the occupied tree, so a later module-area allocation takes its range before the
/// purge. The RFC's kernel does that; the check accepts it.
#[test]
fn an_early_lazy_area_overlapped_after_the_switch_is_not_a_violation() {
    let text = "profile maple-rfc\nearly 0x3000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
                vfree 0xffffffffa0000000\nalloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000\n";
    let mut r = Replayer::new(Profile::MapleRfc);
    let mut c = IncrementalCheck::new(1);
    let mut out = String::new();
    for l in crate::trace::parse_trace(text).unwrap() {
        out.clear();
        r.apply(&l.op, &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &l.op, &out).unwrap();
    }
    assert_eq!(out, "alloc -> 0xffffffffa0000000\n", "the module allocation reuses the lazy range");
    c.finish(&r.vmap).unwrap();
}

#[test]
fn a_wrong_subtree_max_size_is_caught_next_op() {
    let (mut r, mut c, _) = fragmented(Profile::Linux61);
    let x = root_right(&r);
    let m = r.vmap.arena.get(x).subtree_max_size();
    r.vmap.arena.at(x).set_subtree_max_size(m + PAGE_SIZE);
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("subtree_max_size"), "{e}");
    assert_eq!(c.full_checks, 1, "caught by the incremental check, not the backstop");
}

#[test]
fn a_wrong_colour_is_caught_next_op() {
    let (mut r, mut c, _) = fragmented(Profile::Linux61);
    let x = root_right(&r);
    let v = *r.vmap.arena.get(x);
    r.vmap.arena.at(x).set_parent_color(v.parent(), !v.is_black());
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("black heights differ") || e.contains("red child"), "{e}");
}

#[test]
fn a_broken_list_link_is_caught_next_op() {
    let (mut r, mut c, _) = fragmented(Profile::Linux52);
    let x = root_right(&r);
    r.vmap.arena.at(x).prev = NIL;
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("list links"), "{e}");
}

#[test]
fn a_wrong_lazy_count_is_caught_next_op() {
    let (mut r, mut c, busy) = fragmented(Profile::Linux69);
    step(&mut r, &mut c, &Op::Vfree(busy[0])).unwrap();
    r.vmap.vmap_lazy_nr += 1;
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("vmap_lazy_nr"), "{e}");
}

#[test]
fn a_wrong_pool_entry_is_caught_next_op() {
    // linux-6.9 with 2 CPUs (2 vmap nodes): a purge puts lazy areas of a node into its pools.
    let mut r = Replayer::new(Profile::Linux69);
    let mut c = IncrementalCheck::new(FAR);
    for op in [Op::Profile(Profile::Linux69), Op::Cpus(2)] {
        step(&mut r, &mut c, &op).unwrap();
    }
    let mut addrs = Vec::new();
    for _ in 0..8 {
        let mut out = String::new();
        r.apply(&alloc(2 * PAGE_SIZE), &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &alloc(2 * PAGE_SIZE), &out).unwrap();
        addrs.push(u64::from_str_radix(out.trim().trim_start_matches("alloc -> 0x"), 16).unwrap());
    }
    for a in addrs {
        step(&mut r, &mut c, &Op::Vfree(a)).unwrap();
    }
    step(&mut r, &mut c, &Op::Purge).unwrap();
    // The pool of 2-page areas (index 1) of node 0, the node CPU 0 allocates from.
    let front = *r.vmap.nodes[0].pools.get(1).and_then(|p| p.front()).expect("a pooled area");
    // Its entry now names an area of another size (a wrong entry at the pool's head).
    r.vmap.arena.at(front).va_end += PAGE_SIZE;
    let e = step(&mut r, &mut c, &alloc(2 * PAGE_SIZE)).unwrap_err();
    assert!(e.contains("wrong size for pool"), "{e}");
}

/// A maple tree of 400 ranges (three levels), stored the way the maple-tree traces store.
fn grown() -> MapleTree {
    let mut t = MapleTree::new(true);
    for i in 0..400u64 {
        let a = 0x10_0000 + i * 0x3000;
        t.store_range(a, a + 0xfff, Some(crate::maple::MapleEntry::Zero)).unwrap();
    }
    t.validate().unwrap();
    t
}

#[test]
fn a_wrong_maple_gap_is_caught_on_the_path_of_the_next_store() {
    let mut t = grown();
    // The root's last child's gap: the next store (at the low end) walks the root, which is
    // checked whole, but does not descend into that child.
    let root = t.root_id().unwrap();
    let end = t.node_end(root);
    t.corrupt_gap(root, end);
    t.store_range(0x10_0000, 0x10_0fff, None).unwrap();
    let e = t.validate_ranges(&[(0x0f_ffff, 0x10_1000)]).unwrap_err();
    assert!(matches!(e, ValidateError::Gap { .. } | ValidateError::MetaGap { .. }), "{e:?}");
}

#[test]
fn a_wrong_maple_pivot_is_caught_on_the_path_of_the_next_store() {
    let mut t = grown();
    // The root's second pivot made equal to its first: the store at the low end descends
    // through slot 0, and the check of the root (on its path) sees the disorder.
    let root = t.root_id().unwrap();
    t.corrupt_pivot(root, 1);
    t.store_range(0x10_0000, 0x10_0fff, None).unwrap();
    let e = t.validate_ranges(&[(0x0f_ffff, 0x10_1000)]).unwrap_err();
    assert!(matches!(e, ValidateError::Pivot { .. }), "{e:?}");
}

/// The black heights the check caches for subtrees outside an operation's region (so as not to
/// descend into them) equal a recount after every operation of `test_vmalloc` (every test of
/// the module, 4 CPUs, small loops; 5.1 and 5.2 purge many lazy areas out of the busy tree in
/// one operation) under each rbtree profile, and the check passes: every node whose subtree an
/// insert, erase, rotation or recolour changed was in a region.
#[test]
fn cached_black_heights_stay_exact() {
    for p in Profile::ALL.into_iter().filter(|&p| p != Profile::MapleRfc) {
        let params = crate::workload::WorkloadParams {
            seed: 7,
            loops: 400,
            cpus: 4,
            keep: Some(600),
            run_test_mask: Some(0x7fff_ffff),
            profile: p,
            ..Default::default()
        };
        let ops = crate::workload::generate("test_vmalloc", &params).unwrap();
        let mut r = Replayer::new(p);
        let mut c = IncrementalCheck::new(FAR);
        let mut out = String::new();
        for op in &ops {
            out.clear();
            r.apply(op, &mut out, &mut c).unwrap();
            c.after_op(&r.vmap, op, &out).unwrap_or_else(|e| panic!("{p}: after {op}: {e}"));
            if let Some(m) = c.stale_black_height(&r.vmap) {
                panic!("{p}: after {op}: {m}");
            }
        }
        assert!(ops.len() > 5000, "{p}: {} operations", ops.len());
        assert_eq!(c.full_checks, 1, "{p}: the incremental check alone");
        c.finish(&r.vmap).unwrap();
    }
}

/// The backstop of the default check comes every max(4096, live objects) operations: a
/// corruption no operation's region reaches (a red leaf of the busy tree at its far end turned
/// black while the churn stays at the low end) is caught by it, within that many operations.
#[test]
fn the_adaptive_backstop_catches_what_no_operation_reaches() {
    let p = Profile::Linux52;
    let mut r = Replayer::new(p);
    let mut c = IncrementalCheck::default();
    step(&mut r, &mut c, &Op::Profile(p)).unwrap();
    let mut addrs = Vec::new();
    for _ in 0..6000 {
        let mut out = String::new();
        r.apply(&alloc(PAGE_SIZE), &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &alloc(PAGE_SIZE), &out).unwrap();
        addrs.push(u64::from_str_radix(out.trim().trim_start_matches("alloc -> 0x"), 16).unwrap());
    }
    let live = r.vmap.arena.live() as u64;
    assert!(live > 4096, "{live} objects: the interval is theirs, not 4096");
    // A full check now: the next one is `live` operations away.
    c.finish(&r.vmap).unwrap();
    // The last red leaf of the busy tree in address order (the high end).
    let busy = &r.vmap.nodes[0].busy;
    let (leaf, _) = busy
        .iter(&r.vmap.arena)
        .filter(|(_, x)| !x.is_black() && x.left == NIL && x.right == NIL)
        .last()
        .expect("a red leaf");
    let v = *r.vmap.arena.get(leaf);
    r.vmap.arena.at(leaf).set_parent_color(v.parent(), true);
    let full = c.full_checks;
    // Churn at the low end: free the lowest area and allocate it again.
    let mut n = 0u64;
    let e = loop {
        let op = if n.is_multiple_of(2) { Op::Free(addrs[0]) } else { alloc(PAGE_SIZE) };
        n += 1;
        if let Err(e) = step(&mut r, &mut c, &op) {
            break e;
        }
        assert!(n <= live + 6000, "not caught");
    };
    assert!(e.contains("black heights differ"), "{e}");
    assert_eq!(c.full_checks, full + 1, "caught by the backstop");
    assert!(n > 4096 && n <= live, "caught after {n} operations, {live} objects live");
}

/// maple-rfc with the bump overlay off: 400 one-page areas in the occupied tree (three levels),
/// the first four vfreed (lazy, not yet purged). The check is synced and has seen the lazy areas.
fn rfc_with_lazy_areas() -> (Replayer, IncrementalCheck) {
    let mut r = Replayer::new(Profile::MapleRfc);
    let mut c = IncrementalCheck::new(FAR);
    for op in [Op::Profile(Profile::MapleRfc), Op::Bump(false)] {
        step(&mut r, &mut c, &op).unwrap();
    }
    let mut addrs = Vec::new();
    for _ in 0..400 {
        let mut out = String::new();
        r.apply(&alloc(PAGE_SIZE), &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &alloc(PAGE_SIZE), &out).unwrap();
        addrs.push(u64::from_str_radix(out.trim().trim_start_matches("alloc -> 0x"), 16).unwrap());
    }
    for &a in &addrs[..4] {
        step(&mut r, &mut c, &Op::Vfree(a)).unwrap();
    }
    assert!(r.vmap.rfc().unwrap().occupied().height() >= 2);
    (r, c)
}

#[test]
fn maple_rfc_a_wrong_lazy_count_is_caught_next_op_and_after_a_purge() {
    let (mut r, mut c) = rfc_with_lazy_areas();
    r.vmap.era.maple_mut().unwrap().vmap_lazy_nr += 1;
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("vmap_lazy_nr"), "{e}");
    // After a purge the sums restart from the lists: a count the purge left wrong is seen.
    let (mut r, mut c) = rfc_with_lazy_areas();
    r.vmap.era.maple_mut().unwrap().vmap_lazy_nr += 1;
    let e = step(&mut r, &mut c, &Op::Purge).unwrap_err();
    assert!(e.contains("vmap_lazy_nr"), "{e}");
}

/// A purge is checked on the paths of the areas it took, not skipped and not checked whole: a
/// pivot of the occupied tree's root made out of order is seen by the purge (which walks the
/// root to erase the lazy areas), with the backstop far away.
#[test]
fn maple_rfc_a_purge_checks_the_occupied_paths_of_the_areas_it_took() {
    let (mut r, mut c) = rfc_with_lazy_areas();
    let full = c.full_checks;
    let m = r.vmap.era.maple_mut().unwrap();
    let root = m.occupied().root_id().unwrap();
    m.occupied_mut().corrupt_pivot(root, 1);
    let e = step(&mut r, &mut c, &Op::Purge).unwrap_err();
    assert!(e.contains("occupied tree") && e.contains("pivot"), "{e}");
    assert_eq!(c.full_checks, full, "found by the purge's own check");
}

/// Operations that only print the state are not checked whole (a trace of many `dump` lines
/// with --check would cost O(state) a line); one that places a pcpu group is checked on the
/// group's paths.
#[test]
fn maple_rfc_reads_and_pcpu_groups_are_not_checked_whole() {
    let (mut r, mut c) = rfc_with_lazy_areas();
    let full = c.full_checks;
    for op in [
        Op::Dump,
        Op::Busy,
        Op::Pools,
        Op::Purge,
        Op::Pcpu { align: PAGE_SIZE, areas: vec![(0, PAGE_SIZE), (2 * PAGE_SIZE, PAGE_SIZE)] },
    ] {
        step(&mut r, &mut c, &op).unwrap();
    }
    assert_eq!(c.full_checks, full);
}

/// The walks to a tree's list ends are made only when its root, `first` or `last` changed
/// since they last agreed: a wrong `last` (here the block before the real last one, which an
/// allocation at the low end does not touch) is such a change, so the next operation on the
/// tree walks and catches it.
#[test]
fn a_wrong_list_end_is_caught_next_op() {
    let (mut r, mut c, _) = fragmented(Profile::Linux69);
    let last = r.vmap.free.last;
    let before = r.vmap.arena.get(last).prev;
    assert_ne!(before, NIL);
    r.vmap.free.last = before;
    let e = step(&mut r, &mut c, &alloc(PAGE_SIZE)).unwrap_err();
    assert!(e.contains("the list's ends are not the tree's"), "{e}");
    assert_eq!(c.full_checks, 1, "caught by the incremental check, not the backstop");
}

/// maple-rfc: an allocation that fails purges and retries (`purge_nodes(true, AllocRetry)`).
/// With every lazy list and pool empty the purge changes nothing; with a lazy area to reclaim
/// it erases that area's range. Neither is a full check: the purge is checked on the paths of
/// the areas it took.
#[test]
fn an_idle_maple_rfc_purge_is_not_a_full_check() {
    let w = "0xffffc90000000000 0xffffc90000001000";
    let text = format!(
        "profile maple-rfc\nbump off\nalloc 0x1000 0x1000 {w}\nalloc 0x1000 0x1000 {w}\n\
         vfree 0xffffc90000000000\nalloc 0x1000 0x1000 {w}\n"
    );
    let mut r = Replayer::new(Profile::MapleRfc);
    let mut c = IncrementalCheck::new(FAR);
    let mut outs = Vec::new();
    let mut fulls = Vec::new();
    for l in crate::trace::parse_trace(&text).unwrap() {
        let mut out = String::new();
        r.apply(&l.op, &mut out, &mut c).unwrap();
        c.after_op(&r.vmap, &l.op, &out).unwrap();
        outs.push(out);
        fulls.push(c.full_checks);
    }
    // The one-page window holds one area: the second allocation fails (after its idle purge);
    // the vfree leaves the area lazy, so the third one's purge reclaims it and it succeeds.
    assert_eq!(outs[3], "alloc -> FAIL\n");
    assert_eq!(outs[5], "alloc -> 0xffffc90000000000\n");
    assert_eq!(r.vmap.rfc().unwrap().counters.purges, 2);
    assert_eq!(fulls[3], fulls[2], "the idle purge: incremental");
    assert_eq!(fulls[5], fulls[4], "the purge that reclaimed: on its paths");
    c.finish(&r.vmap).unwrap();
}

/// A lowest-fit memo that names a block other than the lowest fit (a hook that missed a
/// change would leave one) fails a check within the next MEMO_EVERY operations, even ones
/// that do not touch the free tree.
#[test]
fn a_wrong_lowest_fit_memo_fails_within_memo_every_operations() {
    let (mut r, mut c, busy) = fragmented(Profile::Linux52);
    // An unaligned request fills a memo with the lowest one-page hole...
    let unaligned = Op::Alloc { size: PAGE_SIZE, align: 1, vstart: VMALLOC_START, vend: VMALLOC_END };
    step(&mut r, &mut c, &unaligned).unwrap();
    let free: Vec<u32> = r.vmap.free.iter(&r.vmap.arena).map(|(h, _)| h).collect();
    assert!(r.vmap.free.low.states().count() == 1 && free.len() > 2);
    // ... then it names the last free block instead.
    let last = *free.last().unwrap();
    let key = r.vmap.arena.get(last).va_start;
    let v = &mut *r.vmap;
    v.free.low.record(&v.arena, PAGE_SIZE, VMALLOC_START, last);
    assert_eq!(r.vmap.free.low.states().next(), Some((PAGE_SIZE, VMALLOC_START, last, key, NIL)));
    // Lazy frees (5.2: the areas stay in the busy tree): the free tree, and so every memo
    // hook, is untouched; the check compares the memos within MEMO_EVERY operations.
    let e = busy
        .iter()
        .take(crate::check_inc::MEMO_EVERY as usize)
        .find_map(|&a| step(&mut r, &mut c, &Op::Vfree(a)).err())
        .expect("a check of the memos");
    assert!(e.contains("lowest-fit memo"), "{e}");
}
