//! `SubtreeMax::propagate_grown` and `propagate_shrunk` against the kernel's rule,
//! `augment_tree_propagate_from` (every node on the way recomputed from its size and its
//! children's values). On random free
//! trees, one block changes size as a merge or a clip changes it, and both propagations run on
//! copies of that state: every node's value and every event must come out the same.

use crate::area::{Arena, VaTree, NIL};
use crate::check::check_tree;
use crate::events::{Event, IndexView, NoObserver, Observer, Recorder};
use crate::rbtree::compute_subtree_max_size;
use crate::vmalloc::{
    augment_tree_propagate_from, augment_tree_propagate_grown, augment_tree_propagate_shrunk, insert_vmap_area_augment,
};

const PAGE: u64 = 4096;

/// xorshift64*: a fixed sequence of test cases.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

#[test]
fn propagate_grown_and_shrunk_write_and_report_what_the_full_recompute_does() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut grew, mut shrank, mut changed_root_path, mut stopped_at_once) = (0, 0, 0, 0);
    for round in 0..2000 {
        // Block k in the k-th MiB, 1 to 255 pages long, inserted in a random order; a block
        // then grows or shrinks to 1 to 256 pages without reaching the next MiB.
        let n = 1 + rng.below(120);
        let mut keys: Vec<u64> = (0..n).collect();
        for j in (1..keys.len()).rev() {
            keys.swap(j, rng.below(j as u64 + 1) as usize);
        }
        let mut a = Arena::new();
        let mut t = VaTree::default();
        let mut handles = Vec::new();
        for &k in &keys {
            let s = k << 20;
            let i = a.alloc(s, s + (1 + rng.below(255)) * PAGE);
            assert!(insert_vmap_area_augment(&mut a, &mut t, i, NIL, &mut NoObserver));
            handles.push(i);
        }
        check_tree(&a, &t, true, "built").unwrap();

        let i = handles[rng.below(n) as usize];
        let old_size = a.get(i).size();
        let new_size = (1 + rng.below(256)) * PAGE;
        if rng.below(2) == 0 {
            a.at(i).va_end = a.get(i).va_start + new_size;
        } else {
            // As a clip of the block's start (LE fit), or a merge that grew it downwards.
            let end = a.get(i).va_end;
            a.at(i).va_start = end - new_size.min(end - (end >> 20 << 20));
        }
        let now = a.get(i).size();
        // A copy of the slab (its handles mapped where they are addresses: wasm).
        let (mut a2, reloc) = a.clone_relocated();
        let m = |h: u32| reloc.as_ref().map_or(h, |r| r.map(h));
        let mut t2 = t;
        t2.relocate(&m);

        let mut full = Recorder::default();
        augment_tree_propagate_from(&mut a, &t, i, &mut full);
        let mut quick = Recorder::default();
        if now >= old_size {
            augment_tree_propagate_grown(&mut a2, &t2, m(i), &mut quick);
        } else {
            augment_tree_propagate_shrunk(&mut a2, &t2, m(i), old_size, &mut quick);
        }

        assert_eq!(quick.events, full.events, "round {round}: the events differ");
        for &h in &handles {
            assert_eq!(a2.get(m(h)).subtree_max_size(), a.get(h).subtree_max_size(), "round {round}: a value differs");
        }
        check_tree(&a2, &t2, true, "after").unwrap();

        if now > old_size {
            grew += 1;
        } else if now < old_size {
            shrank += 1;
        }
        match full.events.first() {
            Some(Event::PropagateStop { .. }) => stopped_at_once += 1,
            Some(Event::Propagate { .. }) if !full.events.iter().any(|e| matches!(e, Event::PropagateStop { .. })) => {
                changed_root_path += 1
            }
            _ => {}
        }
    }
    // The cases the shortcut distinguishes all came up: growth, shrinking, a stop at the
    // block itself, and a change carried all the way to the root.
    assert!(grew > 300 && shrank > 300, "grew {grew}, shrank {shrank}");
    assert!(stopped_at_once > 100 && changed_root_path > 50, "{stopped_at_once} {changed_root_path}");
}

/// Checks every propagation step against the kernel's rule at that moment: a `Propagate`
/// wrote exactly the max of the node's size and its children's values, a `PropagateStop` is
/// at a node whose value already was that.
#[derive(Default)]
struct KernelRule {
    steps: usize,
    stops: usize,
}

impl Observer for KernelRule {
    fn event(&mut self, ev: Event, index: IndexView<'_>) {
        let (id, value) = match ev {
            Event::Propagate { id, new, .. } => (id, new.0),
            Event::PropagateStop { id, value } => (id, value.0),
            _ => return,
        };
        let t = index.as_free_tree().expect("a propagation shows the free tree");
        let (a, mut todo) = (t.arena, vec![t.root]);
        let n = loop {
            let n = todo.pop().expect("the node of a propagation event is in the free tree");
            if n == NIL {
                continue;
            }
            if a.get(n).id == id {
                break n;
            }
            todo.extend([a.get(n).left, a.get(n).right]);
        };
        assert_eq!(a.get(n).subtree_max_size(), value);
        assert_eq!(compute_subtree_max_size(a, n), value, "not the max of the size and the children's values");
        match ev {
            Event::Propagate { .. } => self.steps += 1,
            _ => self.stops += 1,
        }
    }
}

/// The precondition of the shortcut (the values were right before the merge or the clip) as
/// the allocator meets it: random allocations (aligned or not) and frees, and lazy frees with
/// their purges, in every era with a free tree, every propagation step checked.
#[test]
fn every_propagation_step_follows_the_kernels_rule() {
    use crate::vmalloc::{VMALLOC_END, VMALLOC_START};
    use crate::{Profile, Vmap};
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for p in Profile::ALL.into_iter().filter(|&p| p.has_free_tree() && p != Profile::MapleRfc) {
        let mut v = Vmap::new(p);
        let mut live = Vec::new();
        let mut obs = KernelRule::default();
        for _ in 0..3000 {
            if live.len() < 60 && rng.below(5) < 3 {
                let size = (1 + rng.below(32)) * PAGE;
                let align = if rng.below(2) == 0 { 1 } else { PAGE << rng.below(5) };
                live.push(v.alloc(size, align, VMALLOC_START, VMALLOC_END, &mut obs).expect("room enough"));
            } else if !live.is_empty() {
                let addr = live.swap_remove(rng.below(live.len() as u64) as usize);
                if rng.below(4) == 0 {
                    v.vfree(addr, &mut obs).expect("busy");
                } else {
                    v.free(addr, &mut obs).expect("busy");
                }
            }
            if rng.below(200) == 0 {
                v.purge(&mut obs);
            }
        }
        assert!(obs.steps > 500 && obs.stops > 500, "{p:?}: {} steps, {} stops", obs.steps, obs.stops);
    }
}
