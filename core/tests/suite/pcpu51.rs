//! linux-5.1 `pcpu_get_vm_areas` (the pre-2019 downward walk over the busy areas) against a
//! brute-force search. What the walk computes, stated without it:
//!
//! * the start: `next` is the first busy area (in address order) that ends above
//!   `vmap_area_pcpu_hole`; the group's top may reach `next`'s start aligned down (or the
//!   window's end when there is none), so the first candidate base is that minus the end of the
//!   highest area;
//! * the answer: the highest aligned base at or below the first candidate, not below the window,
//!   at which no area of the group overlaps a busy area (lazily freed ones included: in 5.1
//!   they stay in the busy tree until a purge);
//! * when there is none: a purge of the lazy areas and one more try, then failure;
//! * after: `vmap_area_pcpu_hole` is the base plus the highest area's offset.

use proptest::prelude::*;
use proptest::test_runner::Config;
use vmapviz_core::check::check_invariants;
use vmapviz_core::events::{Event, Recorder};
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Profile, Vmap, VmapError};

const PAGE: u64 = 0x1000;

fn busy(v: &Vmap) -> Vec<(u64, u64)> {
    v.busy_areas(0).map(|(a, _)| (a.va_start.0, a.va_end.0)).collect()
}

/// The base the brute force expects for a group, or `None`.
fn expected_base(busy: &[(u64, u64)], hole: u64, align: u64, areas: &[(u64, u64)]) -> Option<u64> {
    let vs = VMALLOC_START.next_multiple_of(align);
    let ve = VMALLOC_END & !(align - 1);
    let last = areas.iter().max_by_key(|a| a.0).unwrap();
    let last_end = last.0 + last.1;
    let top = busy.iter().find(|b| b.1 > hole).map_or(ve, |b| (b.0 & !(align - 1)).min(ve));
    let mut base = top.checked_sub(last_end)?;
    let free_at = |base: u64| {
        areas.iter().all(|&(off, size)| {
            let (s, e) = (base + off, base + off + size);
            !busy.iter().any(|&(bs, be)| bs < e && s < be)
        })
    };
    // The busy areas of these tests sit within a few MiB of the window's top.
    for _ in 0..(1 << 16) {
        if base < vs {
            return None;
        }
        if free_at(base) {
            return Some(base);
        }
        base -= align;
    }
    panic!("the brute force went too far down");
}

#[derive(Clone, Debug)]
enum Step {
    /// `vmalloc()` of `pages` pages at or above `VMALLOC_END - below` pages.
    Alloc { pages: u64, below: u64 },
    /// Free (at once) or vfree (lazily) the `i`-th live area.
    Free { i: usize, lazy: bool },
    /// A group: `align` = 2^`align_log` pages; each area a gap then a size (in `align` units);
    /// `reverse` lists them from the highest down.
    Pcpu { align_log: u32, areas: Vec<(u64, u64)>, reverse: bool },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (1u64..8, 1u64..600).prop_map(|(pages, below)| Step::Alloc { pages, below }),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(i, lazy)| Step::Free { i, lazy }),
        3 => (0u32..4, prop::collection::vec((0u64..3, 1u64..4), 1..4), any::<bool>())
            .prop_map(|(align_log, areas, reverse)| Step::Pcpu { align_log, areas, reverse }),
    ]
}

proptest! {
    #![proptest_config(Config { cases: 600, ..Config::default() })]

    #[test]
    fn the_walk_finds_the_highest_free_base_below_the_hole(steps in prop::collection::vec(step(), 1..40)) {
        let mut v = Vmap::new(Profile::Linux51);
        let mut live: Vec<u64> = Vec::new();
        let mut groups = 0;
        for st in steps {
            match st {
                Step::Alloc { pages, below } => {
                    let vstart = (VMALLOC_END & !(PAGE - 1)) - below * PAGE;
                    if let Ok(a) = v.alloc((pages + 1) * PAGE, 1, vstart, VMALLOC_END, &mut NoObserver) {
                        live.push(a);
                    }
                }
                Step::Free { i, lazy } => {
                    if !live.is_empty() {
                        let a = live.swap_remove(i % live.len());
                        if lazy { v.vfree(a, &mut NoObserver).unwrap() } else { v.free(a, &mut NoObserver).unwrap() }
                    }
                }
                Step::Pcpu { align_log, areas, reverse } => {
                    let align = PAGE << align_log;
                    let mut group = Vec::new();
                    let mut at = 0;
                    for (gap, size) in areas {
                        at += gap * align;
                        group.push((at, size * align));
                        at += size * align;
                    }
                    if reverse {
                        group.reverse();
                    }
                    let before = busy(&v);
                    let want = expected_base(&before, v.vmap_area_pcpu_hole(), align, &group);
                    let offsets: Vec<u64> = group.iter().map(|a| a.0).collect();
                    let sizes: Vec<u64> = group.iter().map(|a| a.1).collect();
                    let got = v.pcpu_get_vm_areas(&offsets, &sizes, align, &mut NoObserver);
                    let base = want.expect("the window is far from full");
                    let addrs = got.unwrap();
                    prop_assert_eq!(&addrs, &offsets.iter().map(|o| base + o).collect::<Vec<_>>());
                    let top = group.iter().max_by_key(|a| a.0).unwrap().0;
                    prop_assert_eq!(v.vmap_area_pcpu_hole(), base + top);
                    let mut after = before.clone();
                    after.extend(group.iter().map(|&(o, s)| (base + o, base + o + s)));
                    after.sort_unstable();
                    prop_assert_eq!(busy(&v), after);
                    live.extend(addrs);
                    groups += 1;
                }
            }
            if let Err(e) = check_invariants(&v) {
                prop_assert!(false, "{}", e);
            }
        }
        let _ = groups;
    }
}

/// The first group of an empty allocator ends at the window's end; the next one sits right
/// below it, and an area freed above the hole is not reused (the walk starts at the hole).
#[test]
fn groups_stack_down_from_the_window_end() {
    let mut v = Vmap::new(Profile::Linux51);
    let ve = VMALLOC_END & !(PAGE - 1);
    let a = v.pcpu_get_vm_areas(&[0, 0x4000], &[0x2000, 0x2000], PAGE, &mut NoObserver).unwrap();
    assert_eq!(a, vec![ve - 0x6000, ve - 0x2000]);
    assert_eq!(v.vmap_area_pcpu_hole(), ve - 0x2000);
    let b = v.pcpu_get_vm_areas(&[0], &[0x3000], PAGE, &mut NoObserver).unwrap();
    assert_eq!(b, vec![ve - 0x9000]);
    // Free the highest area: the next group still goes below the hole.
    v.free(ve - 0x2000, &mut NoObserver).unwrap();
    let c = v.pcpu_get_vm_areas(&[0], &[0x1000], PAGE, &mut NoObserver).unwrap();
    assert_eq!(c, vec![ve - 0xa000]);
}

/// A window full of lazily freed space: the first try fails, the purge frees it, the retry fits.
#[test]
fn a_full_window_purges_the_lazy_areas_and_retries() {
    let mut v = Vmap::new(Profile::Linux51);
    let top = VMALLOC_END & !(PAGE - 1);
    let bottom = top - 0x40 * PAGE;
    v.init(bottom, top).unwrap();
    let a = v.alloc(0x40 * PAGE, PAGE, bottom, top, &mut NoObserver).unwrap();
    assert_eq!(a, bottom);
    v.vfree(a, &mut NoObserver).unwrap();
    assert_eq!(v.vmap_lazy_nr(), 0x40);
    let mut rec = Recorder::default();
    let got = v.pcpu_get_vm_areas(&[0], &[0x2000], PAGE, &mut rec).unwrap();
    assert_eq!(got, vec![top - 0x2000]);
    assert_eq!(v.vmap_lazy_nr(), 0);
    assert!(rec.events.iter().any(|e| matches!(e, Event::PurgeStart { .. })), "{:?}", rec.events);
    // Now really full: no lazy area to purge, so it fails and nothing changes.
    v.alloc(0x3e * PAGE, PAGE, bottom, top, &mut NoObserver).unwrap();
    let before = busy(&v);
    let err = v.pcpu_get_vm_areas(&[0], &[0x2000], PAGE, &mut NoObserver).unwrap_err();
    assert!(matches!(err, VmapError::NoSpace { .. }), "{err:?}");
    assert_eq!(busy(&v), before);
}
