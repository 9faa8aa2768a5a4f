//! Fit types (spec §2.6, §2.7), merge cases (§3.2) and the worked example of §2.8, checked
//! through the step events and `dump` output. Every expected value below is derived by hand
//! from the spec; the derivation is in the comments.
//!
//! Event notation (only the events that describe the clip, merge and augmentation steps):
//! `fit #ID [S,E) nva=N size=Z TYPE`, `clip #ID TYPE [S,E)->[S',E') lva #ID [A,B)`,
//! `merge KIND survivor=#ID removed=#ID|- -> [S,E)`, `prop #ID OLD->NEW` (a propagation step
//! that changed the value), `stop #ID VALUE` (propagation stopped: value unchanged),
//! `erase #ID [S,E)`, `link #ID under #P left|right`, `add #ID [S,E)`, `aug #ID OLD->NEW`,
//! `mergestart [S,E) prev=#ID|- next=#ID|-`.

use vmapviz_core::addr::Addr;
use vmapviz_core::events::{Branch, Dir, Event, FitType, MergeKind, Recorder, RollBackStep};
use vmapviz_core::replay::dump_free_tree;
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::{check::check_invariants, NoObserver, Profile, Vmap};

const BOTH: [Profile; 2] = [Profile::Linux52, Profile::Linux61];

fn vmap(p: Profile, start: u64, end: u64) -> Vmap {
    let mut v = Vmap::new(p);
    v.init(start, end).unwrap();
    v
}

fn dump(v: &Vmap) -> String {
    let mut s = String::new();
    dump_free_tree(v, &mut s);
    s
}

fn opt(id: &Option<u32>) -> String {
    id.map_or("-".into(), |i| format!("#{i}"))
}

/// The clip/merge/augmentation steps among `events`.
fn steps(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            Some(match e {
                Event::Fit { id, va_start, va_end, nva, size, fit, .. } => {
                    format!("fit #{id} [{va_start:#x},{va_end:#x}) nva={nva:#x} size={size:#x} {}", fit.short())
                }
                Event::Clip { id, fit, old_start, old_end, new_start, new_end, lva, .. } => {
                    let mut s = format!(
                        "clip #{id} {} [{old_start:#x},{old_end:#x})->[{new_start:#x},{new_end:#x})",
                        fit.short()
                    );
                    if let Some(l) = lva {
                        s += &format!(" lva #{} [{:#x},{:#x})", l.id, l.va_start, l.va_end);
                    }
                    s
                }
                Event::Merge { merge, survivor, removed, new_start, new_end, .. } => {
                    let kind = match merge {
                        MergeKind::Next => "next",
                        MergeKind::Prev => "prev",
                        MergeKind::Both => "both",
                    };
                    format!(
                        "merge {kind} survivor=#{survivor} removed={} -> [{new_start:#x},{new_end:#x})",
                        opt(removed)
                    )
                }
                Event::MergeStart { va_start, va_end, prev, next, .. } => {
                    format!("mergestart [{va_start:#x},{va_end:#x}) prev={} next={}", opt(prev), opt(next))
                }
                Event::Propagate { id, old, new, .. } => format!("prop #{id} {old:#x}->{new:#x}"),
                Event::PropagateStop { id, value, .. } => format!("stop #{id} {value:#x}"),
                Event::AugmentSet { id, old, new, .. } => format!("aug #{id} {old:#x}->{new:#x}"),
                Event::Erase { id, va_start, va_end, .. } => format!("erase #{id} [{va_start:#x},{va_end:#x})"),
                Event::AddBlock { id, va_start, va_end, .. } => format!("add #{id} [{va_start:#x},{va_end:#x})"),
                Event::Link { id, parent, side, .. } => {
                    let side = match side {
                        Some(Dir::Left) => "left",
                        Some(Dir::Right) => "right",
                        None => "root",
                    };
                    format!("link #{id} under {} {side}", opt(parent))
                }
                _ => return None,
            })
        })
        .collect()
}

/// The search steps (`find_vmap_lowest_match`) among `events`.
fn search(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Visit { id, branch, .. } => Some(format!(
                "visit #{id} {}",
                match branch {
                    Branch::Left => "left",
                    Branch::This => "this",
                    Branch::Right => "right",
                    Branch::RollBack => "rollback",
                }
            )),
            Event::RollBack { id, step, new_vstart, .. } => Some(format!(
                "up #{id} {}{}",
                match step {
                    RollBackStep::This => "this",
                    RollBackStep::Right => "right",
                    RollBackStep::Up => "up",
                },
                new_vstart.map_or(String::new(), |v| format!(" vstart={v:#x}"))
            )),
            Event::SearchNone => Some("none".into()),
            _ => None,
        })
        .collect()
}

fn alloc_rec(v: &mut Vmap, size: u64, align: u64, vstart: u64, vend: u64) -> (u64, Vec<Event>) {
    let mut rec = Recorder::default();
    let addr = v.alloc(size, align, vstart, vend, &mut rec).expect("the allocation fits");
    check_invariants(v).unwrap();
    (addr, rec.events)
}

fn free_rec(v: &mut Vmap, addr: u64) -> Vec<Event> {
    let mut rec = Recorder::default();
    v.free(addr, &mut rec).expect("a busy area starts there");
    check_invariants(v).unwrap();
    rec.events
}

fn fit_of(events: &[Event]) -> FitType {
    events.iter().find_map(|e| if let Event::Fit { fit, .. } = e { Some(*fit) } else { None }).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Fit types
// ---------------------------------------------------------------------------------------------

#[test]
fn fl_fit_consumes_the_whole_block() {
    for p in BOTH {
        // The only block [0x1000, 0x5000) (id 0), request 0x4000 at 0x1000: FL. The block is
        // erased from the tree (the root, no children: case 1a, nothing to propagate).
        let mut v = vmap(p, 0x1000, 0x5000);
        let (addr, ev) = alloc_rec(&mut v, 0x4000, 1, 0x1000, 0x5000);
        assert_eq!(addr, 0x1000);
        assert_eq!(fit_of(&ev), FitType::FlFit);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0x1000,0x5000) nva=0x1000 size=0x4000 FL",
                "clip #0 FL [0x1000,0x5000)->[0x5000,0x5000)",
                "erase #0 [0x1000,0x5000)",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "end\n");
    }
}

#[test]
fn fl_fit_of_a_red_leaf_stops_propagation_at_the_parent() {
    for p in BOTH {
        // Busy 0x1000 (#1), 0x2000 (#2), 0x3000 (#3); the block [0x4000,0x10000) is #0. Freeing
        // 0x2000 inserts the object #2 as the red left child of #0. The next page goes left
        // (left max 0x1000 >= 0x1000, vstart 0x1000 < 0x4000) and fits #2 exactly (FL). Erasing
        // the red leaf needs no fix-up; the propagation from #0 finds 0xc000 unchanged.
        let mut v = vmap(p, 0x1000, 0x10000);
        for want in [0x1000, 0x2000, 0x3000] {
            assert_eq!(alloc_rec(&mut v, 0x1000, 1, 0x1000, 0x10000).0, want);
        }
        free_rec(&mut v, 0x2000);
        assert_eq!(dump(&v), "node 0x4000 0x10000 0xc000 B depth=0\nnode 0x2000 0x3000 0x1000 R depth=1\nend\n");
        let (addr, ev) = alloc_rec(&mut v, 0x1000, 1, 0x1000, 0x10000);
        assert_eq!(addr, 0x2000);
        assert_eq!(search(&ev), ["visit #0 left", "visit #2 this"]);
        assert_eq!(
            steps(&ev),
            [
                "fit #2 [0x2000,0x3000) nva=0x2000 size=0x1000 FL",
                "clip #2 FL [0x2000,0x3000)->[0x3000,0x3000)",
                "erase #2 [0x2000,0x3000)",
                "stop #0 0xc000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x4000 0x10000 0xc000 B depth=0\nend\n");
    }
}

#[test]
fn le_fit_moves_the_block_start() {
    for p in BOTH {
        let mut v = vmap(p, 0x1000, 0x11000);
        let (addr, ev) = alloc_rec(&mut v, 0x2000, 1, 0x1000, 0x11000);
        assert_eq!(addr, 0x1000);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0x1000,0x11000) nva=0x1000 size=0x2000 LE",
                "clip #0 LE [0x1000,0x11000)->[0x3000,0x11000)",
                "prop #0 0x10000->0xe000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x3000 0x11000 0xe000 B depth=0\nend\n");
    }
}

#[test]
fn re_fit_moves_the_block_end() {
    for p in BOTH {
        // vstart 0x2000 inside [0x1000,0x5000): nva = 0x2000 and nva + 0x3000 = the block end.
        let mut v = vmap(p, 0x1000, 0x5000);
        let (addr, ev) = alloc_rec(&mut v, 0x3000, 1, 0x2000, 0x5000);
        assert_eq!(addr, 0x2000);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0x1000,0x5000) nva=0x2000 size=0x3000 RE",
                "clip #0 RE [0x1000,0x5000)->[0x1000,0x2000)",
                "prop #0 0x4000->0x1000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x1000 0x2000 0x1000 B depth=0\nend\n");
    }
}

#[test]
fn re_fit_by_alignment() {
    for p in BOTH {
        // [0x1000,0x5000), size 0x3000 align 0x2000 from vstart 0x1000: nva = 0x2000, which ends
        // exactly at 0x5000. The root is tested by is_within_this_va whatever the length.
        let mut v = vmap(p, 0x1000, 0x5000);
        let (addr, ev) = alloc_rec(&mut v, 0x3000, 0x2000, 0x1000, 0x5000);
        assert_eq!(addr, 0x2000);
        assert_eq!(fit_of(&ev), FitType::ReFit);
        assert_eq!(dump(&v), "node 0x1000 0x2000 0x1000 B depth=0\nend\n");
    }
}

#[test]
fn ne_fit_splits_the_block_and_links_the_left_part() {
    for p in BOTH {
        // [0x1000,0x9000) (#0), request [0x2000,0x4000): NE. #0 becomes [0x4000,0x9000) and is
        // propagated first (0x8000 -> 0x5000); the new lva #1 = [0x1000,0x2000) is linked as the
        // red left child of #0 (black parent: no fix-up), starts at 0, propagates to 0x1000, and
        // #0 keeps 0x5000 (stop). The busy area is then object #2.
        let mut v = vmap(p, 0x1000, 0x9000);
        let (addr, ev) = alloc_rec(&mut v, 0x2000, 1, 0x2000, 0x9000);
        assert_eq!(addr, 0x2000);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0x1000,0x9000) nva=0x2000 size=0x2000 NE",
                "clip #0 NE [0x1000,0x9000)->[0x4000,0x9000) lva #1 [0x1000,0x2000)",
                "prop #0 0x8000->0x5000",
                "link #1 under #0 left",
                "prop #1 0x0->0x1000",
                "stop #0 0x5000",
            ],
            "{p}"
        );
        assert!(ev.iter().any(|e| matches!(e, Event::Allocated { id: 2, addr: Addr(0x2000), .. })));
        assert_eq!(dump(&v), "node 0x4000 0x9000 0x5000 B depth=0\nnode 0x1000 0x2000 0x1000 R depth=1\nend\n");
    }
}

#[test]
fn ne_fit_by_alignment() {
    for p in BOTH {
        // [0x1000,0x20000), size 0x1000 align 0x8000: nva = 0x8000 -> NE.
        let mut v = vmap(p, 0x1000, 0x20000);
        let (addr, ev) = alloc_rec(&mut v, 0x1000, 0x8000, 0x1000, 0x20000);
        assert_eq!(addr, 0x8000);
        assert_eq!(fit_of(&ev), FitType::NeFit);
        assert_eq!(dump(&v), "node 0x9000 0x20000 0x17000 B depth=0\nnode 0x1000 0x8000 0x7000 R depth=1\nend\n");
    }
}

#[test]
fn search_length_at_page_alignment_differs_between_eras() {
    // Free tree: #0 = [0x5000,0x10000) with the red left child #2 = [0x2000,0x3000).
    // alloc(0x1000, align 0x1000):
    //  - linux-5.2 prunes with size + align - 1 = 0x1fff: the left subtree's max 0x1000 is too
    //    small, so the root is tested and fits: LE at 0x5000;
    //  - linux-6.1 prunes with size (align <= PAGE_SIZE): it goes left and finds the hole: FL.
    for (p, want, fit) in [(Profile::Linux52, 0x5000, FitType::LeFit), (Profile::Linux61, 0x2000, FitType::FlFit)] {
        let mut v = vmap(p, 0x1000, 0x10000);
        for _ in 0..4 {
            alloc_rec(&mut v, 0x1000, 1, 0x1000, 0x10000);
        }
        free_rec(&mut v, 0x2000);
        let (addr, ev) = alloc_rec(&mut v, 0x1000, 0x1000, 0x1000, 0x10000);
        assert_eq!((addr, fit_of(&ev)), (want, fit), "{p}");
        let length =
            ev.iter().find_map(|e| if let Event::SearchStart { length, .. } = e { Some(length.0) } else { None });
        assert_eq!(length, Some(if p == Profile::Linux52 { 0x1fff } else { 0x1000 }));
    }
}

// ---------------------------------------------------------------------------------------------
// Spec §2.8: the worked example
// ---------------------------------------------------------------------------------------------

#[test]
fn worked_example_spec_2_8() {
    const S: u64 = VMALLOC_START;
    const MAX: u64 = u64::MAX;
    for p in BOTH {
        let mut v = Vmap::new(p);
        v.ensure_init();
        assert_eq!(dump(&v), "node 0x1 0xffffffffffffffff 0xfffffffffffffffe B depth=0\nend\n");

        // Step 1-3: NE at S. R = [S + 0x2000, MAX) is propagated first (2^64 - 2 ->
        // MAX - S - 0x2000 = 0x36ffffffdfff), lva = [1, S) is linked red on the left, starts
        // at 0 and propagates S - 1 up to R (larger than R's own size).
        let (addr, ev) = alloc_rec(&mut v, 0x2000, 1, S, VMALLOC_END);
        assert_eq!(addr, S);
        assert_eq!(search(&ev), ["visit #0 this"]);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0x1,0xffffffffffffffff) nva=0xffffc90000000000 size=0x2000 NE",
                "clip #0 NE [0x1,0xffffffffffffffff)->[0xffffc90000002000,0xffffffffffffffff) \
                 lva #1 [0x1,0xffffc90000000000)",
                "prop #0 0xfffffffffffffffe->0x36ffffffdfff",
                "link #1 under #0 left",
                "prop #1 0x0->0xffffc8ffffffffff",
                "prop #0 0x36ffffffdfff->0xffffc8ffffffffff",
            ],
            "{p}"
        );
        assert_eq!(MAX - (S + 0x2000), 0x36ffffffdfff);
        assert_eq!(
            dump(&v),
            "node 0xffffc90000002000 0xffffffffffffffff 0xffffc8ffffffffff B depth=0\n\
             node 0x1 0xffffc90000000000 0xffffc8ffffffffff R depth=1\nend\n"
        );

        // Step 4: A goes left to lva (its max >= 0x2000 and S < R.start); lva does not fit
        // (it ends at S), has no right child: roll back to R, which fits: LE at S + 0x2000.
        // R's max stays S - 1 (its left child's size): the propagation stops at once.
        let (addr, ev) = alloc_rec(&mut v, 0x2000, 1, S, VMALLOC_END);
        assert_eq!(addr, S + 0x2000);
        assert_eq!(search(&ev), ["visit #0 left", "visit #1 rollback", "up #0 this"]);
        assert_eq!(
            steps(&ev),
            [
                "fit #0 [0xffffc90000002000,0xffffffffffffffff) nva=0xffffc90000002000 size=0x2000 LE",
                "clip #0 LE [0xffffc90000002000,0xffffffffffffffff)->[0xffffc90000004000,0xffffffffffffffff)",
                "stop #0 0xffffc8ffffffffff",
            ],
            "{p}"
        );
        // Step 5: the final state.
        assert_eq!(
            dump(&v),
            "node 0xffffc90000004000 0xffffffffffffffff 0xffffc8ffffffffff B depth=0\n\
             node 0x1 0xffffc90000000000 0xffffc8ffffffffff R depth=1\nend\n"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Merge cases (merge_or_add_vmap_area)
// ---------------------------------------------------------------------------------------------

/// Space [0x1000, 0x10000); busy A=0x1000 (#1), B=0x2000 (#2), C=0x3000 (#3), D=0x4000 (#4);
/// the free block #0 = [0x5000, 0x10000).
fn four_pages(p: Profile) -> Vmap {
    let mut v = vmap(p, 0x1000, 0x10000);
    for want in [0x1000, 0x2000, 0x3000, 0x4000] {
        assert_eq!(v.alloc(0x1000, 1, 0x1000, 0x10000, &mut NoObserver).unwrap(), want);
    }
    assert_eq!(dump(&v), "node 0x5000 0x10000 0xb000 B depth=0\nend\n");
    v
}

#[test]
fn merge_none_inserts_a_new_block() {
    for p in BOTH {
        // B touches no free block: the object #2 is linked as #0's red left child, starts at 0
        // and propagates; #0 keeps 0xb000.
        let mut v = four_pages(p);
        let ev = free_rec(&mut v, 0x2000);
        assert_eq!(
            steps(&ev),
            [
                "mergestart [0x2000,0x3000) prev=- next=#0",
                "add #2 [0x2000,0x3000)",
                "link #2 under #0 left",
                "prop #2 0x0->0x1000",
                "stop #0 0xb000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x5000 0x10000 0xb000 B depth=0\nnode 0x2000 0x3000 0x1000 R depth=1\nend\n");
    }
}

#[test]
fn merge_with_next_grows_the_next_block_down() {
    for p in BOTH {
        // D ends where #0 starts: #0 becomes [0x4000, 0x10000) and survives; its max grows.
        let mut v = four_pages(p);
        let ev = free_rec(&mut v, 0x4000);
        assert_eq!(
            steps(&ev),
            [
                "mergestart [0x4000,0x5000) prev=- next=#0",
                "merge next survivor=#0 removed=- -> [0x4000,0x10000)",
                "prop #0 0xb000->0xc000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x4000 0x10000 0xc000 B depth=0\nend\n");
    }
}

#[test]
fn merge_with_prev_grows_the_previous_block_up() {
    for p in BOTH {
        // Free B first (#2 = [0x2000,0x3000), red left child of #0). C starts where #2 ends
        // and ends below #0: #2 grows to [0x2000,0x4000); #0's max stays 0xb000.
        let mut v = four_pages(p);
        free_rec(&mut v, 0x2000);
        let ev = free_rec(&mut v, 0x3000);
        assert_eq!(
            steps(&ev),
            [
                "mergestart [0x3000,0x4000) prev=#2 next=#0",
                "merge prev survivor=#2 removed=- -> [0x2000,0x4000)",
                "prop #2 0x1000->0x2000",
                "stop #0 0xb000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x5000 0x10000 0xb000 B depth=0\nnode 0x2000 0x4000 0x2000 R depth=1\nend\n");
    }
}

#[test]
fn merge_with_prev_at_the_end_of_the_list() {
    for p in BOTH {
        // Space [0x1000,0x3000) fully busy (#1 = 0x1000, #2 = 0x2000), empty free tree. Free
        // 0x1000: the first block (root). Free 0x2000: linked to the right of the root, so the
        // "next" is the list head (none) and the previous is the last block: merge prev.
        let mut v = vmap(p, 0x1000, 0x3000);
        v.alloc(0x1000, 1, 0x1000, 0x3000, &mut NoObserver).unwrap();
        v.alloc(0x1000, 1, 0x1000, 0x3000, &mut NoObserver).unwrap();
        assert_eq!(dump(&v), "end\n");
        let ev = free_rec(&mut v, 0x1000);
        assert_eq!(
            steps(&ev),
            [
                "mergestart [0x1000,0x2000) prev=- next=-",
                "add #1 [0x1000,0x2000)",
                "link #1 under - root",
                "prop #1 0x0->0x1000"
            ],
            "{p}"
        );
        let ev = free_rec(&mut v, 0x2000);
        assert_eq!(
            steps(&ev),
            [
                "mergestart [0x2000,0x3000) prev=#1 next=-",
                "merge prev survivor=#1 removed=- -> [0x1000,0x3000)",
                "prop #1 0x1000->0x2000",
            ],
            "{p}"
        );
        assert_eq!(dump(&v), "node 0x1000 0x3000 0x2000 B depth=0\nend\n");
    }
}

#[test]
fn merge_with_both_neighbours() {
    // Free B (#2 becomes #0's left child) and D (#0 grows to [0x4000,0x10000)); then C closes
    // the gap: next (#0) grows down to 0x3000, then prev (#2) takes the whole range and the
    // next object #0 is erased (the root with only a left child: erase case 1b, #2 becomes the
    // black root). The final tree is the same in both eras; the order of the steps is not.
    let expect = [
        (
            Profile::Linux52,
            // E52: propagate after each merge, erase next last.
            vec![
                "mergestart [0x3000,0x4000) prev=#2 next=#0",
                "merge next survivor=#0 removed=- -> [0x3000,0x10000)",
                "prop #0 0xc000->0xd000",
                "merge both survivor=#2 removed=#0 -> [0x2000,0x10000)",
                "prop #2 0x1000->0xe000",
                "prop #0 0xd000->0xe000",
                "erase #0 [0x3000,0x10000)",
            ],
        ),
        (
            Profile::Linux61,
            // EB (after May 2020): erase next first, grow prev, propagate once at the end.
            vec![
                "mergestart [0x3000,0x4000) prev=#2 next=#0",
                "merge next survivor=#0 removed=- -> [0x3000,0x10000)",
                "erase #0 [0x3000,0x10000)",
                "merge both survivor=#2 removed=#0 -> [0x2000,0x10000)",
                "prop #2 0x1000->0xe000",
            ],
        ),
    ];
    for (p, want) in expect {
        let mut v = four_pages(p);
        free_rec(&mut v, 0x2000);
        free_rec(&mut v, 0x4000);
        assert_eq!(dump(&v), "node 0x4000 0x10000 0xc000 B depth=0\nnode 0x2000 0x3000 0x1000 R depth=1\nend\n");
        let ev = free_rec(&mut v, 0x3000);
        assert_eq!(steps(&ev), want, "{p}");
        assert_eq!(dump(&v), "node 0x2000 0x10000 0xe000 B depth=0\nend\n", "{p}");
    }
}

#[test]
fn lazy_purge_merges_back_in_era_order() {
    // The same four pages, all vfreed B, D, C: 5.2 purges newest first (C, D, B), 6.1 keeps a
    // coalesced purge tree ([0x2000,0x5000) as one block) and returns it ascending.
    for p in BOTH {
        let mut v = four_pages(p);
        for a in [0x2000, 0x4000, 0x3000] {
            v.vfree(a, &mut NoObserver).unwrap();
            check_invariants(&v).unwrap();
        }
        let mut rec = Recorder::default();
        let r = v.purge(&mut rec);
        check_invariants(&v).unwrap();
        let merges: Vec<String> = steps(&rec.events).into_iter().filter(|s| s.starts_with("merge")).collect();
        match p {
            Profile::Linux52 => {
                assert_eq!(r.entries, 3);
                assert_eq!(
                    merges,
                    [
                        // C: no free neighbour yet (B and D are still lazy, i.e. busy).
                        "mergestart [0x3000,0x4000) prev=- next=#0",
                        // D: between C (#3) and #0: both.
                        "mergestart [0x4000,0x5000) prev=#3 next=#0",
                        "merge next survivor=#0 removed=- -> [0x4000,0x10000)",
                        "merge both survivor=#3 removed=#0 -> [0x3000,0x10000)",
                        // B: touches #3 on its right: next.
                        "mergestart [0x2000,0x3000) prev=- next=#3",
                        "merge next survivor=#3 removed=- -> [0x2000,0x10000)",
                    ]
                );
            }
            _ => {
                assert_eq!(r.entries, 1);
                assert_eq!(
                    merges,
                    [
                        "mergestart [0x2000,0x5000) prev=- next=#0",
                        "merge next survivor=#0 removed=- -> [0x2000,0x10000)",
                    ]
                );
            }
        }
        assert_eq!(dump(&v), "node 0x2000 0x10000 0xe000 B depth=0\nend\n");
    }
}
