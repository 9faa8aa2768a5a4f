//! The fast paths of issue 17 against the plain formulas they replace.

use vmapviz_core::{Profile, Vmap};

/// `addr_to_node_id` is `(addr / zone_size) % nr_vmap_nodes`, whatever the node count and
/// zone size (power of two or not).
#[test]
fn addr_to_node_id_is_the_division_formula() {
    let addrs: Vec<u64> = {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut v = vec![0, 1, 0xfff, 0x1000, 0xffff, 0x10000, 0xffffc90000000000, u64::MAX, u64::MAX - 0x1000];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x);
            v.push(x & 0xffff_ffff);
        }
        v
    };
    for cpus in [1u64, 2, 3, 4, 5, 7, 8, 64, 100, 128, 200] {
        for zone in [None, Some(1u64), Some(4096), Some(3 * 4096), Some(12345)] {
            let mut v = Vmap::new(Profile::Linux69);
            v.set_cpus(cpus).unwrap();
            v.init(1, u64::MAX).unwrap();
            if let Some(z) = zone {
                v.zone_size = z;
            }
            let nr = v.nodes.len() as u64;
            assert_eq!(nr, cpus.min(128));
            for &a in &addrs {
                let want = ((a / v.zone_size) % nr) as u32;
                assert_eq!(v.addr_to_node_id(a), want, "addr {a:#x} zone {:#x} nodes {nr}", v.zone_size);
            }
        }
    }
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
    use vmapviz_core::{NoObserver, Replayer, NIL};

    fn shape(v: &Vmap) -> Vec<(u64, u32, bool)> {
        let mut out = Vec::new();
        for n in &v.nodes {
            // In order, with an explicit stack of (node, depth).
            let mut stack = Vec::new();
            let (mut cur, mut d) = (n.busy.root, 0u32);
            while cur != NIL || !stack.is_empty() {
                while cur != NIL {
                    stack.push((cur, d));
                    cur = v.arena.get(cur).left();
                    d += 1;
                }
                let (x, dx) = stack.pop().unwrap();
                let a = v.arena.get(x);
                out.push((a.va_start, dx, a.is_black()));
                cur = a.right();
                d = dx + 1;
            }
        }
        out
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
                off.vmap.busy_link_hints = false;
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
