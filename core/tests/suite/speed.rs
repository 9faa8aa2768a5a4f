//! The fast paths of issue 17 against the plain formulas they replace.

use vmapviz_core::{Profile, Vmap};

// `addr_to_node_id` against its division formula is a unit test of the library
// (`core/src/raw_tests/node_id.rs`): it sets `zone_size`, which is the crate's to write.

/// A tree in order: (start, end, depth, black, `subtree_max_size` in the free tree (`augmented`),
/// else 0: the word holds flags there), with an explicit stack of (node, depth).
fn tree_shape(v: &Vmap, root: u32, augmented: bool) -> Vec<(u64, u64, u32, bool, u64)> {
    use vmapviz_core::NIL;
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let (mut cur, mut d) = (root, 0u32);
    while cur != NIL || !stack.is_empty() {
        while cur != NIL {
            stack.push((cur, d));
            cur = v.arena().area(cur).left();
            d += 1;
        }
        let (x, dx) = stack.pop().unwrap();
        let a = v.arena().area(x);
        out.push((a.va_start, a.va_end, dx, a.is_black(), if augmented { a.subtree_max_size() } else { 0 }));
        cur = a.right();
        d = dx + 1;
    }
    out
}

/// `push_hex` and `push_line` print what the formatter prints, for every digit count.
#[test]
fn push_hex_and_push_line_match_the_formatter() {
    use vmapviz_core::replay::{push_hex, push_line};
    let mut vals = vec![0u64, 1, 9, 10, 15, 16, 0xa0, 0xff, u64::MAX, 0x8000_0000_0000_0000];
    for k in 0..64 {
        vals.push(1 << k);
        vals.push((1u64 << k).wrapping_sub(1));
        vals.push(0xfedc_ba98_7654_3210u64 >> k);
        vals.push(0x0123_4567_89ab_cdefu64 >> k);
    }
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..5000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vals.push(x);
        vals.push(x >> (x % 64));
    }
    for v in vals {
        let mut s = String::from("#");
        push_hex(&mut s, v);
        assert_eq!(s, format!("#{v:#x}"));
        let mut s = String::from("é");
        push_line(&mut s, "free ", v, " ok\n");
        assert_eq!(s, format!("éfree {v:#x} ok\n"));
        // Longer than the line buffer: the same text.
        let long = "ü".repeat(40);
        let mut s = String::new();
        push_line(&mut s, &long, v, "ß");
        assert_eq!(s, format!("{long}{v:#x}ß"));
    }
}

/// A busy area clipped out of a free block is linked next to its neighbour, found through the
/// busy index, instead of at the end of a descent (`busy_insert_after_clip`). Both ways must
/// build the very same tree: the page shows its shape. Every workload of the kernel's test
/// module, on each single-node profile, replayed with the hints and without, has the same busy
/// tree (in order: start, depth, colour) after every operation.
#[test]
fn busy_link_hints_build_the_tree_the_descent_builds() {
    use vmapviz_core::workload::{generate, list, WorkloadKind, WorkloadParams};
    use vmapviz_core::{NoObserver, Replayer};

    fn shape(v: &Vmap) -> Vec<(u64, u32, bool)> {
        v.nodes().iter().flat_map(|n| tree_shape(v, n.busy.root(), false)).map(|(s, _, d, b, _)| (s, d, b)).collect()
    }

    // The 13 tests of the kernel's test module and the module itself (all of them in turn).
    let tests: Vec<&str> = list().into_iter().filter(|w| w.kind != WorkloadKind::Teaching).map(|w| w.name).collect();
    assert!(tests.len() >= 14);
    let mut compared = 0;
    for profile in [Profile::Linux52, Profile::Linux61, Profile::Linux69] {
        for &name in &tests {
            let params = WorkloadParams { seed: 7, loops: 150, keep: Some(120), profile, ..WorkloadParams::default() };
            let ops = generate(name, &params).unwrap();
            let (mut on, mut off) = (Replayer::new(profile), Replayer::new(profile));
            let (mut out_on, mut out_off) = (String::new(), String::new());
            for (k, op) in ops.iter().enumerate() {
                let a = on.apply(op, &mut out_on, &mut NoObserver);
                // (After the workload's `profile` line too: it makes a new allocator.)
                off.vmap.set_busy_link_hints(false);
                let b = off.apply(op, &mut out_off, &mut NoObserver);
                assert_eq!(a.is_ok(), b.is_ok(), "{profile} {name} op {k}");
                assert_eq!(shape(&on.vmap), shape(&off.vmap), "{profile} {name}: the busy trees differ after op {k}");
                compared += 1;
            }
            assert_eq!(out_on, out_off, "{profile} {name}");
        }
    }
    assert!(compared > 5000, "{compared} operations compared");
}

/// A tree's gap (`VaTree::gap`) links a range between the neighbours of the object erased last
/// without the descent, when it fits there: in the free tree, the range of a freed area where
/// the last whole-block clip erased a block; in the busy tree, a new area where the last free
/// removed one. Both ways must build the very same trees. Random churn with direct frees (half
/// of them the newest area, so that a gap is often the one being filled), lazy frees and
/// purges, over a space full of holes, on each free-tree profile: the replay with the gaps and
/// a replay without them (the free tree's forgotten before every operation, the busy links by
/// descent) have the same free and busy trees (in order: start, end, depth, colour, and
/// `subtree_max_size` in the free tree) and print the same after every operation. Each
/// gap is used often and declined often, so both branches are exercised.
#[test]
fn gap_links_build_the_trees_the_descent_builds() {
    use vmapviz_core::check::check_invariants;
    use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
    use vmapviz_core::{NoObserver, Op, Replayer, NIL};

    let mut used = 0u32;
    let mut declined = 0u32;
    let (mut busy_used, mut busy_allocs) = (0u32, 0u32);
    for profile in [Profile::Linux52, Profile::Linux61, Profile::Linux69] {
        for seed in 1..=4u64 {
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
            let mut rnd = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let (mut on, mut off) = (Replayer::new(profile), Replayer::new(profile));
            let (mut out_on, mut out_off) = (String::new(), String::new());
            let mut live: Vec<(u64, u64)> = Vec::new();
            let mut apply = |op: Op, on: &mut Replayer, off: &mut Replayer, k: usize| -> Option<u64> {
                let before = out_on.len();
                let busy_gap = on.vmap.nodes()[0].busy.gap();
                let a = on.apply(&op, &mut out_on, &mut NoObserver);
                off.vmap.forget_free_gap();
                off.vmap.set_busy_link_hints(false);
                let b = off.apply(&op, &mut out_off, &mut NoObserver);
                assert_eq!(a, b, "{profile} seed {seed} op {k}: {op:?}");
                assert_eq!(out_on, out_off, "{profile} seed {seed} op {k}: {op:?}");
                let (t_on, t_off) = (
                    tree_shape(&on.vmap, on.vmap.free_tree().root(), true),
                    tree_shape(&off.vmap, off.vmap.free_tree().root(), true),
                );
                assert_eq!(t_on, t_off, "{profile} seed {seed}: the free trees differ after op {k}: {op:?}");
                check_invariants(&on.vmap).unwrap_or_else(|e| panic!("{profile} seed {seed} op {k}: {e}"));
                for (n_on, n_off) in on.vmap.nodes().iter().zip(off.vmap.nodes()) {
                    let (t_on, t_off) = (
                        tree_shape(&on.vmap, n_on.busy.root(), false),
                        tree_shape(&off.vmap, n_off.busy.root(), false),
                    );
                    assert_eq!(t_on, t_off, "{profile} seed {seed}: the busy trees differ after op {k}: {op:?}");
                }
                let line = &out_on[before..];
                let got = line.strip_prefix("alloc -> 0x").and_then(|h| u64::from_str_radix(h.trim_end(), 16).ok());
                // The new area went into the busy gap: its list neighbours are the gap's (with
                // a successor: past the last area, an earlier hint links it).
                if let (Some(addr), Some(gap), [_]) = (got, busy_gap, on.vmap.nodes()) {
                    busy_allocs += 1;
                    let list: Vec<u32> = on.vmap.nodes()[0].busy.iter(on.vmap.arena()).map(|(h, _)| h).collect();
                    let at = list.iter().position(|&h| on.vmap.arena().area(h).va_start == addr).unwrap();
                    let prev = if at == 0 { NIL } else { list[at - 1] };
                    if at + 1 < list.len() && (prev, list[at + 1]) == gap {
                        busy_used += 1;
                    }
                }
                got
            };
            let alloc = |pages: u64, align: u64| Op::Alloc {
                size: (pages + 1) * 4096,
                align,
                vstart: VMALLOC_START,
                vend: VMALLOC_END,
            };
            apply(Op::Init { start: 1, end: u64::MAX }, &mut on, &mut off, 0);
            // Holes: 600 areas, every other one freed.
            for k in 0..600 {
                let pages = 1 + rnd(3);
                let a = apply(alloc(pages, 4096), &mut on, &mut off, k).unwrap();
                live.push((a, (pages + 1) * 4096));
            }
            let mut k = 600;
            let mut i = 0;
            live.retain(|&(a, _)| {
                i += 1;
                if i % 2 == 0 {
                    return true;
                }
                let mut o = String::new();
                on.apply(&Op::Free(a), &mut o, &mut NoObserver).unwrap();
                off.apply(&Op::Free(a), &mut o, &mut NoObserver).unwrap();
                false
            });
            for _ in 0..4000 {
                k += 1;
                let r = rnd(100);
                if r < 45 || live.is_empty() {
                    let pages = 1 + rnd(4);
                    let align = if rnd(8) == 0 { 4096 << rnd(5) } else { 4096 };
                    if let Some(a) = apply(alloc(pages, align), &mut on, &mut off, k) {
                        live.push((a, (pages + 1) * 4096));
                    }
                } else if r < 95 {
                    let j = if rnd(2) == 0 { live.len() - 1 } else { rnd(live.len() as u64) as usize };
                    let (a, size) = live.swap_remove(j);
                    if on.vmap.free_gap_fits(a, a + size) {
                        used += 1;
                    } else {
                        declined += 1;
                    }
                    let op = if rnd(4) == 0 { Op::Vfree(a) } else { Op::Free(a) };
                    apply(op, &mut on, &mut off, k);
                } else {
                    apply(Op::Purge, &mut on, &mut off, k);
                }
            }
        }
    }
    assert!(used > 1000 && declined > 1000, "free gap used {used} times, declined {declined} times");
    assert!(
        busy_used > 1000 && busy_allocs - busy_used > 1000,
        "busy gap used {busy_used} times in {busy_allocs} allocations"
    );
}
