//! Paths that take a trace stay linear whatever mix of accepted and refused operations it
//! holds: 4n operations take about 4 times as long as n (a quadratic return takes 16 times).
//! Best of three each, n and 4n in one run, so the machine's load cancels out.

use std::time::Instant;

use vmapviz_core::session::Session;

fn best(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn assert_linear(what: &str, n: usize, run: impl Fn(usize)) {
    let small = best(|| run(n));
    let large = best(|| run(4 * n));
    assert!(large < 10.0 * small.max(2e-3), "{what}: {n} ops {small:.4}s, {} ops {large:.4}s: not linear", 4 * n);
}

/// `profile linux-6.9` and n frees of an address no area starts at: each one replays as the kernel
/// would ("unknown") with a warning; the page then reads every operation's summary.
#[test]
fn opening_a_trace_of_warned_frees_and_reading_every_summary_is_linear() {
    let text = |n: usize| format!("profile linux-6.9\n{}", "vfree 0x1000\n".repeat(n));
    assert_linear("warned vfree", 20_000, |n| {
        let s = Session::load(&text(n)).expect("loads");
        assert_eq!(s.len(), n + 1);
        let warned = (0..s.len()).filter(|&k| s.summary(k).warning.is_some()).count();
        assert_eq!(warned, n, "every vfree of an unknown address warns");
    });
}

/// Replay `text` as the CLI does (parse, then apply line by line); the output.
fn replay(text: &str) -> String {
    use vmapviz_core::{events::NoObserver, profile::Profile, replay::Replayer, trace::parse_trace};
    let lines = parse_trace(text).expect("parses");
    let mut r = Replayer::new(Profile::Linux52);
    let mut out = String::new();
    for l in &lines {
        if let vmapviz_core::trace::Op::Profile(p) = l.op {
            r = Replayer::new(p);
            continue;
        }
        r.apply(&l.op, &mut out, &mut NoObserver).expect("replays");
    }
    out
}

/// n `pcpu` groups of two adjacent pages: each one is carved from the top of the free space
/// (pcpu_get_vm_areas walks down from the window's end and the highest block fits at once), so a
/// group costs a few tree walks whatever the number of areas before it.
#[test]
fn many_pcpu_groups_are_linear() {
    for profile in ["maple-rfc", "linux-6.9"] {
        let text = |n: usize| format!("profile {profile}\n{}", "pcpu 0x1000 0x0:0x1000 0x1000:0x1000\n".repeat(n));
        assert_linear(&format!("{profile} pcpu groups"), 2_000, |n| {
            let out = replay(&text(n));
            // pcpu_get_vm_areas' window ends at VMALLOC_END & ~(align - 1); group k (from 1) ends
            // where group k - 1 began: base = that end - 0x2000 * k.
            let top = vmapviz_core::vmalloc::VMALLOC_END & !0xfff;
            let want: String = (1..=n as u64)
                .map(|k| format!("pcpu -> {:#x} {:#x}\n", top - 0x2000 * k, top - 0x2000 * k + 0x1000))
                .collect();
            assert!(out == want, "{profile}: {n} groups packed down from VMALLOC_END");
        });
    }
}

/// One `pcpu` line of n one-page areas a page apart: the argument checks (every pair disjoint)
/// and the carve of each area must not cost O(n) an area.
#[test]
fn one_pcpu_line_of_many_areas_is_linear() {
    for profile in ["maple-rfc", "linux-6.9"] {
        let text = |n: usize| {
            let areas: Vec<String> = (0..n as u64).map(|i| format!("{:#x}:0x1000", i * 0x2000)).collect();
            format!("profile {profile}\npcpu 0x1000 {}\n", areas.join(" "))
        };
        assert_linear(&format!("{profile} pcpu areas"), 5_000, |n| {
            let out = replay(&text(n));
            assert_eq!(out.matches("pcpu -> 0x").count(), 1, "{profile}: the group placed");
            assert_eq!(out.matches(" 0x").count(), n, "{profile}: one address an area");
        });
    }
}

/// A `profile maple-tree` trace of whole-range stores and erases (issue 36: 2 M lines took 300 s
/// in the page): loading it, reading every operation's output and stepping to states spread
/// over it cost O(n). Each store leaves one range [0, ULONG_MAX]; each erase an empty tree.
#[test]
fn a_maple_tree_trace_of_whole_range_stores_and_erases_is_linear() {
    use vmapviz_core::maple::MapleSession;
    let text = |n: usize| {
        format!("profile maple-tree\n{}", "store 0x0 0xffffffffffffffff\nerase 0x0 0xffffffffffffffff\n".repeat(n / 2))
    };
    assert_linear("maple-tree whole-range store/erase", 40_000, |n| {
        let s = MapleSession::load(&text(n)).expect("loads");
        assert_eq!(s.len(), n);
        let stored = (0..s.len()).filter(|&k| s.op_output(k) == "store 0x0 0xffffffffffffffff ok\n").count();
        assert_eq!(stored, n / 2);
        for k in (0..n).step_by(n / 16) {
            assert!(s.frames(k).is_some());
        }
    });
}

/// A trace that keeps every area alive: the checkpoints' copies of the allocator are thinned
/// past `CHECKPOINT_OBJECTS` (memory bounded by the budget, not by 256 copies of a growing
/// state), and every state asked for is still the one a plain replay of that prefix reaches.
#[test]
fn checkpoints_of_a_trace_that_keeps_its_areas_alive_stay_within_the_budget() {
    use vmapviz_core::session::snapshot_state;
    use vmapviz_core::session::CHECKPOINT_OBJECTS;
    use vmapviz_core::{events::NoObserver, replay::Replayer, trace::parse_trace};
    let n = 300_000;
    let text = "alloc 0x1000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n".repeat(n);
    let s = Session::load(&text).expect("loads");
    assert_eq!(s.len(), n);
    // 256 copies at n / 256 apart would hold about 256 * n / 2 = 38 M objects: thinned, the
    // spacing doubled at least three times, the copies (n / every of at most n objects) fit.
    let every = s.checkpoint_every();
    assert!(every >= 8 * (n / 256), "spacing {every}");
    assert!((n / every + 1) * (n / 2) <= 2 * CHECKPOINT_OBJECTS, "spacing {every}");
    let lines = parse_trace(&text).unwrap();
    for k in [0, 1, every - 1, every, every + 1, 123_457, n - 1, n] {
        let mut r = Replayer::default();
        let mut out = String::new();
        for l in &lines[..k] {
            r.apply(&l.op, &mut out, &mut NoObserver).unwrap();
        }
        let st = s.state_before(k);
        assert_eq!(st.busy.len(), k, "state before op {k}");
        assert!(st == snapshot_state(&r.vmap), "state before op {k} differs from a plain replay");
    }
}
