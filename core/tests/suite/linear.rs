//! Paths that take a trace stay linear whatever mix of accepted and refused operations it
//! holds: 4n operations take about 4 times as long as n (a quadratic return takes 16 times).
//! Best of three each, n and 4n in one run, so the machine's load cancels out.

use crate::common;

use vmapviz_core::session::Session;

fn assert_linear(what: &str, n: usize, run: impl Fn(usize)) {
    common::assert_linear_with(what, &|| run(n), &|| run(4 * n));
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
        assert_linear(&format!("{profile} pcpu groups"), 8_000, |n| {
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
        // n large enough that the small run is well above the timer's and the allocator's noise
        // (5,000 areas took 2 ms, and a loaded machine once made 4n look 12 times as long).
        assert_linear(&format!("{profile} pcpu areas"), 15_000, |n| {
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

// ---------------------------------------------------------------------------------------------
// Issue 36 item 1: every path that takes a trace, on a mix of accepted and refused operations.
// (linux-5.1 is left out on purpose: its allocator walks the whole busy list per allocation,
// O(N) an operation in the kernel itself, so the replay of a growing state is quadratic there.)
// ---------------------------------------------------------------------------------------------

const WINDOW: &str = "0xffffc90000000000 0xffffe8ffffffffff";

/// n operations of `profile`, a quarter of each kind: an allocation that succeeds (the state
/// grows), a vfree of an address no area starts at (the kernel warns, nothing changes), an
/// allocation that cannot fit its one-page window (FAIL, after the retry's purge), and every
/// eighth group a `purge`.
fn mixed(profile: &str, n: usize) -> String {
    let mut t = format!("profile {profile}\n");
    for k in 0..n / 4 {
        t += &format!("alloc 0x2000 0x1 {WINDOW}\nvfree 0x1000\nalloc 0x3000 0x1 0x10000 0x11000\n");
        t += if k % 8 == 7 { "purge\n" } else { "vfree 0x3000\n" };
    }
    t
}

/// `vmap-replay ARGS FILE` on `text`; its stdout. Fails the test on a non-zero exit.
fn cli(args: &[&str], text: &str, file: &std::path::Path) -> String {
    std::fs::write(file, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vmap-replay")).args(args).arg(file).output().unwrap();
    assert!(out.status.success(), "vmap-replay {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The CLI's modes: the streaming replay, `--check` (incremental, with its backstop),
/// `--check-every`, `--counters` and `--bench`, under the eras with an augmented tree, vmap
/// nodes and maple trees.
#[test]
fn every_cli_mode_is_linear_on_mixed_traces() {
    let dir = std::env::temp_dir().join(format!("vmapviz-linear-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.trace");
    for profile in ["linux-5.2", "linux-6.9", "maple-rfc"] {
        for mode in [&[][..], &["--check"], &["--check-every", "1000"], &["--counters"], &["--bench"]] {
            assert_linear(&format!("vmap-replay {mode:?} {profile}"), 8_000, |n| {
                let out = cli(mode, &mixed(profile, n), &file);
                if mode != ["--bench"] {
                    assert_eq!(out.matches("-> FAIL").count(), n / 4, "{profile} {mode:?}: every small window fails");
                    assert_eq!(out.matches(" unknown").count(), n / 4 + n / 4 - n / 32, "{profile} {mode:?}");
                }
            });
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The page's paths: a link, a paste or a file is `Session::load` then the summaries the player
/// reads; "Add an operation" is `Session::push_checked`, which tries the operation on a copy of
/// the state at the end, so one more operation costs O(live state): m of them on a trace of 4n
/// operations cost about 4 times as much as on a trace of n.
#[test]
fn the_page_paths_are_linear_on_mixed_traces() {
    for profile in ["linux-5.2", "linux-6.9", "maple-rfc"] {
        assert_linear(&format!("Session::load {profile}"), 8_000, |n| {
            let s = Session::load(&mixed(profile, n)).expect("loads");
            assert_eq!(s.len(), n + 1);
            let warned = (0..s.len()).filter(|&k| s.summary(k).warning.is_some()).count();
            assert!(warned >= n / 4, "{profile}: {warned} warned of {n}");
        });
        assert_linear(&format!("push_checked {profile}"), 8_000, |n| {
            let mut s = Session::load(&mixed(profile, n)).expect("loads");
            for _ in 0..200 {
                s.push_checked(&format!("alloc 0x2000 0x1 {WINDOW}")).expect("accepted");
                // A vfree of nothing is the caller's mistake: refused, nothing changes.
                assert!(s.push_checked("vfree 0x1000").is_err());
            }
            assert_eq!(s.len(), n + 1 + 200);
        });
    }
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
