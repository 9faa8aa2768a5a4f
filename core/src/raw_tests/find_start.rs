//! `VaTree::find_start` (the busy lookup of `free`/`vfree` with one node) against a brute-force
//! model: on random trees of non-overlapping areas, with areas erased again, every probe (each
//! area's start, an address inside, its end, addresses in the gaps) finds exactly the area the
//! model says starts there, and `find_containing` the one the model says contains it.

use crate::rbtree::Plain;
use crate::vmalloc::{insert_vmap_area, unlink_va};
use crate::workload::Rng;
use crate::{Arena, NoObserver, VaTree, NIL};

/// Model: the live areas as `(start, end, index)`.
fn model_start(m: &[(u64, u64, u32)], addr: u64) -> u32 {
    m.iter().find(|x| x.0 == addr).map_or(NIL, |x| x.2)
}

fn model_containing(m: &[(u64, u64, u32)], addr: u64) -> u32 {
    m.iter().find(|x| x.0 <= addr && addr < x.1).map_or(NIL, |x| x.2)
}

#[test]
fn find_start_matches_a_brute_force_model() {
    for seed in 0..40u64 {
        let mut rng = Rng::new(seed);
        let mut a = Arena::new();
        let mut t = VaTree::default();
        let mut m: Vec<(u64, u64, u32)> = Vec::new();
        // Areas on a grid of 16-page slots, each 1..=8 pages at a random page of its slot, so
        // they never overlap and leave gaps of every kind (none, inside a slot, whole slots).
        let slots = 1 + rng.below(300);
        for s in 0..slots {
            if rng.below(4) == 0 {
                continue;
            }
            let start = 0x1000_0000 + s * 16 * 4096 + rng.below(8) * 4096;
            let end = start + (1 + rng.below(8)) * 4096;
            let va = a.alloc(start, end);
            assert!(insert_vmap_area::<Plain, NoObserver>(&mut a, &mut t, va, &mut NoObserver));
            m.push((start, end, va));
        }
        // Erase about a third again (the tree's shape changes, the model follows).
        let mut i = 0;
        while i < m.len() {
            if rng.below(3) == 0 {
                let (_, _, va) = m.swap_remove(i);
                unlink_va::<Plain, NoObserver>(&mut a, &mut t, va, &mut NoObserver);
                a.release(va);
            } else {
                i += 1;
            }
        }
        let mut probes = vec![0, 1, 0x1000_0000 - 1, u64::MAX];
        for &(s, e, _) in &m {
            probes.extend([s, s + 1, s + 4096, e - 1, e, e + 4096, s - 1, s - 4096]);
        }
        for _ in 0..200 {
            probes.push(0x1000_0000 + rng.below(slots * 16 * 4096 + 8 * 4096));
        }
        for addr in probes {
            assert_eq!(t.find_start(&a, addr), model_start(&m, addr), "seed {seed}: find_start({addr:#x})");
            assert_eq!(
                t.find_containing(&a, addr),
                model_containing(&m, addr),
                "seed {seed}: find_containing({addr:#x})"
            );
        }
    }
}
