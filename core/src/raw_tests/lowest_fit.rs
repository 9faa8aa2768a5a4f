//! The free tree's lowest-fit memos (`vmalloc::LowestFits`): the block after a memo's `pred`
//! answers once the lowest fit is gone, a planted wrong `pred` fails the check, and a workload
//! that only evicts memos rests them while two sizes in turn keep theirs. Every expected
//! answer here is the lowest free block the request fits in, found by a scan of the free list
//! written from the kernel's rule (with `align` 1 the search returns the lowest block in
//! address order whose room from `max(va_start, vstart)` holds `size`), not by the memo code.

use crate::area::NIL;
use crate::check::check_invariants;
use crate::events::NoObserver;
use crate::profile::Profile;
use crate::replay::Replayer;
use crate::trace::Op;
use crate::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};

fn apply(r: &mut Replayer, op: &Op) -> String {
    let mut out = String::new();
    r.apply(op, &mut out, &mut NoObserver).unwrap();
    check_invariants(&r.vmap).unwrap();
    out
}

fn addr_of(out: &str) -> u64 {
    u64::from_str_radix(out.trim().trim_start_matches("alloc -> 0x"), 16).unwrap()
}

fn unaligned(size: u64) -> Op {
    Op::Alloc { size, align: 1, vstart: VMALLOC_START, vend: VMALLOC_END }
}

/// The lowest free block `size` bytes fit in from `VMALLOC_START`, by a scan of the list.
fn lowest_fit(r: &Replayer, size: u64) -> u32 {
    let a = &r.vmap.arena;
    r.vmap
        .free
        .iter(a)
        .map(|(h, _)| h)
        .find(|&h| {
            let v = a.get(h);
            v.va_start.max(VMALLOC_START).checked_add(size).is_some_and(|e| e <= v.va_end)
        })
        .unwrap_or(NIL)
}

/// 32 one-page holes between one-page busy areas from `VMALLOC_START` up.
fn holes() -> Replayer {
    let mut r = Replayer::new(Profile::Linux52);
    let addrs: Vec<u64> = (0..64).map(|_| addr_of(&apply(&mut r, &unaligned(PAGE_SIZE)))).collect();
    for a in addrs.iter().step_by(2) {
        apply(&mut r, &Op::Free(*a));
    }
    r
}

#[test]
fn a_full_fit_leaves_the_hole_after_it_as_the_answer() {
    let mut r = holes();
    // The first allocation clips the block below the window (whose top page is the first
    // hole), the others each fill the lowest hole (a full fit, which erases it): from the
    // second on, the memo answers from `pred`, and its answer is the next hole.
    for k in 0..20 {
        let want = lowest_fit(&r, PAGE_SIZE);
        let want_addr = r.vmap.arena.get(want).va_start.max(VMALLOC_START);
        if k > 0 {
            let answer = r.vmap.free.low.answer_of(&r.vmap.arena, PAGE_SIZE, VMALLOC_START);
            assert_eq!(answer, Some(want), "allocation {k}: the memo answers the lowest hole");
            let (_, _, node, _, pred) = r.vmap.free.low.states().next().unwrap();
            assert!(node == NIL && pred != NIL, "allocation {k}: a bound with a pred");
        }
        assert_eq!(addr_of(&apply(&mut r, &unaligned(PAGE_SIZE))), want_addr);
    }
}

#[test]
fn a_wrong_pred_fails_the_check() {
    let mut r = holes();
    apply(&mut r, &unaligned(PAGE_SIZE));
    check_invariants(&r.vmap).unwrap();
    // A pred above the lowest fit: the block after it is a hole that fits, but not the lowest.
    let lowest = lowest_fit(&r, PAGE_SIZE);
    let above = r.vmap.arena.get(lowest).next;
    assert_ne!(above, NIL);
    r.vmap.free.low.plant_pred(above);
    let e = check_invariants(&r.vmap).unwrap_err();
    assert!(e.contains("lowest-fit memo"), "{e}");
}

#[test]
fn three_sizes_in_turn_rest_the_memos_two_keep_them() {
    // Three sizes in turn from the top of the space: each search evicts a memo that never
    // answered, so within a few rounds the memos are dropped and the searches stop recording.
    let mut r = holes();
    let sizes = [2 * PAGE_SIZE, 3 * PAGE_SIZE, 5 * PAGE_SIZE];
    let mut rested_at = None;
    for k in 0..30 {
        let a = addr_of(&apply(&mut r, &unaligned(sizes[k % 3])));
        apply(&mut r, &Op::Free(a));
        if r.vmap.free.low.resting() {
            assert_eq!(r.vmap.free.low.states().count(), 0, "resting: no memo is kept");
            rested_at.get_or_insert(k);
        }
    }
    assert!(rested_at.is_some_and(|k| k < 12), "rested at {rested_at:?}");
    // Two sizes in turn: both memos answer, and they are never dropped.
    let mut r = holes();
    for k in 0..600 {
        let size = sizes[k % 2];
        if k >= 2 {
            let want = lowest_fit(&r, size);
            assert_eq!(r.vmap.free.low.answer_of(&r.vmap.arena, size, VMALLOC_START), Some(want));
        }
        let a = addr_of(&apply(&mut r, &unaligned(size)));
        apply(&mut r, &Op::Free(a));
        assert!(!r.vmap.free.low.resting());
    }
    assert_eq!(r.vmap.free.low.states().count(), 2);
}

#[test]
fn the_memos_come_back_after_their_rest() {
    let mut r = holes();
    let sizes = [2 * PAGE_SIZE, 3 * PAGE_SIZE, 5 * PAGE_SIZE];
    let mut k = 0;
    while !r.vmap.free.low.resting() {
        let a = addr_of(&apply(&mut r, &unaligned(sizes[k % 3])));
        apply(&mut r, &Op::Free(a));
        k += 1;
        assert!(k < 100);
    }
    // One size from now on: after the rest, its search records again, and the memo answers.
    let mut searches = 0;
    while r.vmap.free.low.states().count() == 0 {
        let a = addr_of(&apply(&mut r, &unaligned(PAGE_SIZE)));
        apply(&mut r, &Op::Free(a));
        searches += 1;
        assert!(searches <= 1000);
    }
    assert!((200..=300).contains(&searches), "recorded again after {searches} searches");
    assert_eq!(r.vmap.free.low.answer_of(&r.vmap.arena, PAGE_SIZE, VMALLOC_START), Some(lowest_fit(&r, PAGE_SIZE)));
}

/// A free tree of fewer than `MEMO_MIN_BLOCKS` blocks (16 in wasm and in these tests, 0
/// natively) keeps no memo: its searches descend, and memos filled while it was larger are
/// dropped when it gets small; the answers stay the lowest fits.
#[test]
fn a_small_free_tree_keeps_no_memo() {
    use crate::vmalloc::MEMO_MIN_BLOCKS;
    assert_eq!(MEMO_MIN_BLOCKS, 16);
    let mut r = Replayer::new(Profile::Linux52);
    for k in 0..40 {
        let size = [2, 3][k % 2] * PAGE_SIZE;
        // (The space is set up by the first operation.)
        let want = (k > 0).then(|| r.vmap.arena.get(lowest_fit(&r, size)).va_start.max(VMALLOC_START));
        let a = addr_of(&apply(&mut r, &unaligned(size)));
        assert!(want.is_none_or(|w| w == a));
        apply(&mut r, &Op::Free(a));
        assert!(r.vmap.free.len() < MEMO_MIN_BLOCKS);
        assert_eq!(r.vmap.free.low.states().count(), 0);
    }
    // 32 holes: the memos fill; the holes taken again one by one, the tree gets small and the
    // memos go.
    let mut r = holes();
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(addr_of(&apply(&mut r, &unaligned(PAGE_SIZE))));
    }
    assert!(r.vmap.free.len() >= MEMO_MIN_BLOCKS && r.vmap.free.low.states().count() > 0);
    while r.vmap.free.len() >= MEMO_MIN_BLOCKS {
        held.push(addr_of(&apply(&mut r, &unaligned(PAGE_SIZE))));
    }
    assert!(r.vmap.free.low.states().count() > 0, "no search since the tree got small");
    let want = lowest_fit(&r, PAGE_SIZE);
    let a = addr_of(&apply(&mut r, &unaligned(PAGE_SIZE)));
    assert_eq!(a, r.vmap.arena.get(want).va_start);
    assert_eq!(r.vmap.free.low.states().count(), 0, "the memos went with the first search");
}

/// A request whose padded length wraps to 0 (`size + align - 1` = 2^64): the kernel's loop,
/// written here with its NULL subtree read as size 0, walks down until it steps to NULL, and
/// the search's events name the same nodes and branches (the search takes this case apart
/// from its usual loop, which reads a NULL subtree's size with no test).
#[test]
fn a_wrapped_length_walks_down_as_the_kernel_does() {
    use crate::events::{Branch, Event, Recorder};
    use crate::vmalloc::{find_vmap_lowest_match, SearchRule};
    let r = holes();
    let (a, t) = (&r.vmap.arena, &r.vmap.free);
    let (size, align) = (0u64.wrapping_sub(PAGE_SIZE - 1), PAGE_SIZE);
    let length = size.wrapping_add(align - 1);
    assert_eq!(length, 0);
    let smax = |h: u32| if h == NIL { 0 } else { a.area(h).subtree_max_size() };
    let hole = a.area(t.first()).va_end + PAGE_SIZE;
    for vstart in [0, VMALLOC_START, hole, hole + 40 * PAGE_SIZE, u64::MAX - PAGE_SIZE] {
        let (mut want, mut node) = (Vec::new(), t.root());
        while node != NIL {
            let v = a.area(node);
            let nva = u128::from(v.va_start.max(vstart)).next_multiple_of(u128::from(align));
            if smax(v.left) >= length && vstart < v.va_start {
                want.push((v.id, Branch::Left));
                node = v.left;
            } else if nva + u128::from(size) <= u128::from(v.va_end) {
                unreachable!("no block holds 2^64 - 4095 bytes");
            } else if smax(v.right) >= length {
                want.push((v.id, Branch::Right));
                node = v.right;
            } else {
                unreachable!("every subtree has a size >= 0");
            }
        }
        for rule in [SearchRule { adjust_search_size: false, move_vstart: false }, Profile::Linux61.search_rule()] {
            let mut rec = Recorder::default();
            assert_eq!(find_vmap_lowest_match(a, t, size, align, vstart, length, rule, &mut rec), Ok(NIL));
            let (last, visits) = rec.events.split_last().unwrap();
            assert_eq!(*last, Event::SearchNone);
            let got: Vec<(u32, Branch)> = visits
                .iter()
                .map(|e| match e {
                    Event::Visit { id, branch, .. } => (*id, *branch),
                    e => panic!("not a visit: {e:?}"),
                })
                .collect();
            assert_eq!(got, want, "vstart {vstart:#x}");
            assert!(want.len() >= 4, "a walk down a tree of 30-odd blocks");
        }
    }
}
