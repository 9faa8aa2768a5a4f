//! `maple-rfc` against its spec where an independent model disagreed (issue 31): the 2025
//! rounding of the pool decay, the busy-tree overlap check of the target node only, `vend = 0`,
//! the node an `early` area records, bump areas in the pools. Each trace's expected output is
//! argued from the spec (`../shared/spec/maple-rfc.md` §11, `vmalloc.md` §5.3) in a comment;
//! the invariants are checked after every line.

use vmapviz_core::check::check_invariants;
use vmapviz_core::{parse_trace, Event, Recorder, Replayer, Vmap};

/// Replay `text` line by line with the invariants after each; the output and the events.
fn run(text: &str) -> (String, Vec<Event>, Replayer) {
    let lines = parse_trace(text).unwrap();
    let mut r = Replayer::default();
    let mut out = String::new();
    let mut rec = Recorder::default();
    for l in &lines {
        r.apply(&l.op, &mut out, &mut rec).unwrap_or_else(|e| panic!("line {} {}: {e}", l.line, l.op));
        check_invariants(&r.vmap).unwrap_or_else(|e| panic!("line {} {}: {e}\n{out}", l.line, l.op));
    }
    (out, rec.events, r)
}

const W: &str = "0xffffc90000000000 0xffffe8ffffffffff";

/// vmalloc.md §5.3 step 1: 6.9 (through 6.14) starts its counter at `len >> 2` and tests it
/// after the decrement, so a non-full decay of 1-3 entries takes them all; the 2025 rule
/// (`n_decay >>= 2` unless full, tested first) takes none. From 4 entries on both take
/// `len >> 2`; a full decay takes everything under both.
#[test]
fn decay_rules_differ_only_for_pools_of_one_to_three() {
    let want_v69 = [0, 1, 2, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3];
    let want_2025 = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3];
    for len in 0..want_v69.len() {
        assert_eq!(Vmap::n_decay_v69(len, false), want_v69[len], "6.9, {len}");
        assert_eq!(Vmap::n_decay_v618(len, false), want_2025[len], "2025, {len}");
        assert_eq!(Vmap::n_decay_v69(len, true), len);
        assert_eq!(Vmap::n_decay_v618(len, true), len);
    }
}

/// §11.1: the profile's base is a 2026 tree, so `decay_va_pool_node` has the 2025 rounding.
/// Two CPUs (two vmap nodes), bump off. CPU 0 allocates [S, S+0x2000) (the lowest hole,
/// §11.4.3) with node 0's id; vfree makes it lazy in node 0; the first purge pools it in node 0's
/// pool 1 (§5.3 `purge_vmap_node`: valid id, not full), still occupied. The second purge decays
/// that one-entry pool: 1 >> 2 = 0, the entry stays, so its range stays occupied and CPU 1 (node
/// 1, whose pool is empty) gets the next hole, S+0x2000. linux-6.9 keeps its own rule: the
/// second purge empties the pool into the free tree and CPU 1 gets S again.
#[test]
fn a_one_entry_pool_survives_a_purge() {
    let body =
        format!("cpus 2\nalloc 0x2000 0x1 {W}\nvfree 0xffffc90000000000\npurge\npurge\ncpu 1\nalloc 0x2000 0x1 {W}\n");
    let (out, _, _) = run(&format!("profile maple-rfc\nbump off\n{body}dump\n"));
    assert_eq!(
        out,
        "alloc -> 0xffffc90000000000\nvfree 0xffffc90000000000 ok\npurge 1\npurge 0\nalloc -> 0xffffc90000002000\n\
         dump height=1 nodes=1\nnode 0 leaf min=0x0 max=0xffffffffffffffff end=3 | \
         0:0xffffc8ffffffffff:N 1:0xffffc90000001fff:E 2:0xffffc90000003fff:E 3:0xffffffffffffffff:N\nenddump\n"
    );
    let (out, _, _) = run(&format!("profile linux-6.9\n{body}"));
    assert_eq!(
        out,
        "alloc -> 0xffffc90000000000\nvfree 0xffffc90000000000 ok\npurge 1\npurge 0\nalloc -> 0xffffc90000000000\n"
    );
}

/// From 4 entries both rules take `len >> 2` = 1 from the head, and the kept ones stay at the
/// head in their order (the pool is detached and put back whole, §5.3 step 3). Four areas of
/// CPU 0 vfreed in address order are pooled head first (§5.3 `purge_vmap_node` pushes at the
/// head): pool = [S+6, S+4, S+2, S] (units of 0x1000). The second purge gives back S+6 (a NULL
/// store), keeps [S+4, S+2, S]; the next pool hit takes the head, S+4.
#[test]
fn a_four_entry_pool_gives_back_its_head() {
    let mut t = String::from("profile maple-rfc\nbump off\ncpus 2\n");
    for _ in 0..4 {
        t += &format!("alloc 0x2000 0x1 {W}\n");
    }
    for i in 0..4u64 {
        t += &format!("vfree {:#x}\n", 0xffffc90000000000u64 + i * 0x2000);
    }
    t += &format!("purge\npurge\nalloc 0x2000 0x1 {W}\ncpu 1\nalloc 0x2000 0x1 {W}\n");
    let (out, _, _) = run(&t);
    let allocs: Vec<&str> = out.lines().skip(10).collect();
    // CPU 1 (empty pool) gets the lowest hole: S+6, the range the decay gave back.
    assert_eq!(allocs, ["alloc -> 0xffffc90000004000", "alloc -> 0xffffc90000006000"], "{out}");
}

/// §11.4.1 step 3: the overlap check of `insert_vmap_area_busy_locked` reads the neighbours in
/// the busy tree of `addr_to_node(addr)` only (`validate_vmap_area_range_insert_mt_locked` on
/// `vn->busy.mt`, patch 04). Two CPUs: 64 KiB zones alternate between nodes 0 and 1
/// (vmalloc.md §5.3); MODULES_VADDR / 64 KiB is even, so its zone is node 0's. The early area
/// [M, M+0x20000) spans node 0's and node 1's zones and is kept by node 0's busy tree (its
/// start). The module area is outside the seeded window (§11.2.3), so the occupied tree offers M:
/// node 0's tree holds the early area there, the WARN fires, FAIL. From M+0x10000 on the
/// lowest hole is M+0x10000, node 1's; node 1's tree is empty, so the area is inserted over the
/// early one (the syzbot check cannot see it), and the model says so with an event.
#[test]
fn the_overlap_check_reads_the_target_node_only() {
    let (out, events, r) = run("profile maple-rfc\ncpus 2\n\
         early 0x20000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
         alloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
         alloc 0x2000 0x1000 0xffffffffa0010000 0xffffffffff000000\nbusy\n");
    assert_eq!(
        out,
        "early -> 0xffffffffa0000000\nalloc -> FAIL\nalloc -> 0xffffffffa0010000\n\
         node 0\nbusy 0xffffffffa0000000 0xffffffffa0020000\nnode 1\nbusy 0xffffffffa0010000 0xffffffffa0012000\nend\n"
    );
    let missed: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::BusyOverlapMissed { .. })).collect();
    assert_eq!(missed.len(), 1);
    match missed[0] {
        Event::BusyOverlapMissed { start, end, node, other_start, other_end, other_node } => {
            assert_eq!((start.0, end.0, *node), (0xffffffffa0010000, 0xffffffffa0012000, 1));
            assert_eq!((other_start.0, other_end.0, *other_node), (0xffffffffa0000000, 0xffffffffa0020000, 0));
        }
        _ => unreachable!(),
    }
    let m = r.vmap.rfc().unwrap();
    assert_eq!((m.counters.overlap_warnings, m.counters.overlaps_missed), (1, 1));
    assert!(m.diverged().unwrap().contains("node 0"), "{:?}", m.diverged());
    // One CPU: one node, one busy tree; the check sees the early area both times.
    let (out, _, r) = run("profile maple-rfc\n\
         early 0x20000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
         alloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
         alloc 0x2000 0x1000 0xffffffffa0010000 0xffffffffff000000\n");
    assert_eq!(out, "early -> 0xffffffffa0000000\nalloc -> FAIL\nalloc -> FAIL\n");
    assert_eq!(r.vmap.rfc().unwrap().diverged(), None);
}

/// `vend = 0`: `__alloc_vmap_area` begins with `WARN_ON_ONCE(!size || !align || vstart >= vend)`
/// → -EINVAL (patch 05; patch 07 keeps it above the perf-mode branch, whose `vend - 1` would
/// wrap to ULONG_MAX), so `find_hole_window` never runs; `alloc_vmap_area` purges once, retries,
/// fails (§11.4.1, as EC). Nothing is allocated: the next request gets the lowest hole, S.
#[test]
fn vend_zero_is_refused_before_the_window_loop() {
    let (out, events, _) =
        run(&format!("profile maple-rfc\nbump off\nalloc 0x2000 0x1 0xffffc90000000000 0x0\nalloc 0x2000 0x1 {W}\n"));
    assert_eq!(out, "alloc -> FAIL\nalloc -> 0xffffc90000000000\n");
    let windows = events.iter().filter(|e| matches!(e, Event::WindowStart { .. })).count();
    assert_eq!(windows, 1, "only the second allocation searches");
    let purges = events.iter().filter(|e| matches!(e, Event::PurgeStart { .. })).count();
    assert_eq!(purges, 1, "the purge and retry of alloc_vmap_area");
}

/// An `early` allocation goes through `alloc_vmap_area` like any other, so `node_alloc` runs:
/// in the default window with several nodes it records `encode_vn_id(cpu % nr)` (§5.3
/// `node_alloc`; the pools are empty this early). CPU 1 allocates S (zone of node 0): its busy
/// tree is node 0's (the address), but vfree puts it on node 1's lazy list (§5.3 Free: the
/// recorded id wins), and the purge pools it in node 1: still occupied. CPU 0 (node 0, empty
/// pool) then gets the next hole, S+0x2000.
#[test]
fn an_early_area_records_its_cpus_node() {
    let (out, _, _) = run(&format!(
        "profile maple-rfc\ncpus 2\ncpu 1\nearly 0x2000 0x1 {W}\nbusy\nbump off\nvfree 0xffffc90000000000\nbusy\npurge\ncpu 0\nalloc 0x2000 0x1 {W}\n"
    ));
    assert_eq!(
        out,
        "early -> 0xffffc90000000000\nnode 0\nbusy 0xffffc90000000000 0xffffc90000002000\nnode 1\nend\n\
         vfree 0xffffc90000000000 ok\nnode 0\nnode 1\nlazy 0xffffc90000000000 0xffffc90000002000\nend\n\
         purge 1\nalloc -> 0xffffc90000002000\n"
    );
    // Outside the default window `node_alloc` records nothing: the lazy list is the address's
    // node's (M's zone is node 0's).
    let (out, _, _) = run("profile maple-rfc\ncpus 2\ncpu 1\nearly 0x2000 0x1 0xffffffffa0000000 0xffffffffff000000\n\
         vfree 0xffffffffa0000000\nbusy\n");
    assert_eq!(out, "early -> 0xffffffffa0000000\nvfree 0xffffffffa0000000 ok\nnode 0\nlazy 0xffffffffa0000000 0xffffffffa0002000\nnode 1\nend\n");
}

/// A purged bump area goes to a pool like any area with a valid node id: `purge_vmap_node`
/// (§5.3) pools by `decode_vn_id` and size, and patch 11 encodes the node id into bump areas
/// for exactly that ("so the existing per-node pool machinery … see a valid id"). §11.5.5's
/// "its object is freed" is `reclaim_list_global`, reached by a full purge, a pool's decay or
/// an area over 256 pages. Bump on, two CPUs: the first vmalloc takes a chunk [S, S+64 MiB) and
/// bumps S; vfree, purge: pooled in node 0 (S's zone), the chunk keeps the range. Bump off, CPU 0:
/// `node_alloc` takes S from the pool (no bump path). Without the pool it would be the first
/// hole above the chunk, S+64 MiB.
#[test]
fn a_purged_bump_area_goes_to_its_nodes_pool() {
    let (out, _, r) = run(&format!(
        "profile maple-rfc\ncpus 2\nalloc 0x2000 0x1 {W}\nvfree 0xffffc90000000000\npurge\nbump off\nalloc 0x2000 0x1 {W}\nbusy\n"
    ));
    assert_eq!(
        out,
        "alloc -> 0xffffc90000000000\nvfree 0xffffc90000000000 ok\npurge 1\nalloc -> 0xffffc90000000000\n\
         node 0\nbusy 0xffffc90000000000 0xffffc90000002000\nnode 1\n\
         chunk 0xffffc90000000000 0xffffc90004000000 bump=0xffffc90000002000 pages=0 cpu=0 current\nend\n"
    );
    // Inside its live chunk the area's range is held (by the chunk's range): nothing diverged.
    assert_eq!(r.vmap.rfc().unwrap().diverged(), None);
    // A reclaim's full decay frees a pooled bump area without an erase (the chunk keeps it).
    let (out, _, r) = run(&format!(
        "profile maple-rfc\ncpus 2\nalloc 0x2000 0x1 {W}\nvfree 0xffffc90000000000\npurge\nreclaim\nbump off\nalloc 0x2000 0x1 {W}\n"
    ));
    assert_eq!(
        out,
        "alloc -> 0xffffc90000000000\nvfree 0xffffc90000000000 ok\npurge 1\nreclaim 0\nalloc -> 0xffffc90004000000\n"
    );
    // The bump area's object is gone; the one live object is the new area's.
    assert_eq!(r.vmap.rfc().unwrap().live_areas(), 1);
}
