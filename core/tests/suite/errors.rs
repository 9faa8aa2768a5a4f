//! Every refused request (spec "Errors", §2.2, §10) and the edges of the 64-bit space.
//!
//! For each error: the typed error, whether it is a kernel crash (`is_kernel_bug`), what a replay
//! prints or where it stops, and that nothing changed (a full state snapshot and the `dump`
//! output compared before and after).

use vmapviz_core::check::check_invariants;
use vmapviz_core::events::{Event, FitType, Recorder};
use vmapviz_core::replay::{dump_busy, dump_free_tree, Outcome};
use vmapviz_core::session::{snapshot_state, StateSnap};
use vmapviz_core::trace::{parse_line, parse_trace};
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Op, Profile, Replayer, Vmap, VmapError};

const MAX: u64 = u64::MAX;
/// The eras this suite covers (the tree-based allocators).
const PROFILES: [Profile; 3] = [Profile::Linux52, Profile::Linux61, Profile::Linux69];

/// Everything observable about an allocator: the snapshot plus the two printed views.
#[derive(Debug, PartialEq)]
struct Observed {
    snap: StateSnap,
    dump: String,
    busy: String,
    lazy_list: usize,
}

fn observe(v: &Vmap) -> Observed {
    let mut dump = String::new();
    dump_free_tree(v, &mut dump);
    let mut busy = String::new();
    dump_busy(v, &mut busy);
    Observed { snap: snapshot_state(v), dump, busy, lazy_list: v.lazy_list().len() }
}

/// A small allocator with some history: busy areas, a hole, and (optionally) a lazy area.
fn busy_state(p: Profile, with_lazy: bool) -> Vmap {
    let mut v = Vmap::new(p);
    v.init(0x10000, 0x100000).unwrap();
    for _ in 0..4 {
        v.alloc(0x2000, 1, 0x10000, 0x100000, &mut NoObserver).unwrap();
    }
    // 0x10000, 0x12000, 0x14000, 0x16000 busy; free 0x12000 -> a hole.
    v.free(0x12000, &mut NoObserver).unwrap();
    if with_lazy {
        v.vfree(0x16000, &mut NoObserver).unwrap();
    }
    check_invariants(&v).unwrap();
    v
}

fn replayer(p: Profile) -> Replayer {
    let mut r = Replayer::new(p);
    *r.vmap = busy_state(p, false);
    r
}

/// Apply `op` through a replayer: returns the outcome and the printed text; checks that the
/// state did not change.
fn apply_unchanged(r: &mut Replayer, op: Op) -> (Result<Outcome, VmapError>, String) {
    let before = observe(&r.vmap);
    let mut out = String::new();
    let res = r.apply(&op, &mut out, &mut NoObserver);
    assert_eq!(observe(&r.vmap), before, "{op} changed the state");
    check_invariants(&r.vmap).unwrap();
    (res, out)
}

// ---------------------------------------------------------------------------------------------
// Invalid allocation requests: 5.2 BUGs, later eras return -EINVAL
// ---------------------------------------------------------------------------------------------

fn invalid_alloc(size: u64, align: u64, check: impl Fn(&VmapError, Profile) -> bool) {
    for p in PROFILES {
        let mut v = busy_state(p, true);
        let before = observe(&v);
        let mut rec = Recorder::default();
        let e = v.alloc(size, align, 0x10000, 0x100000, &mut rec).unwrap_err();
        assert!(check(&e, p), "{p}: alloc({size:#x}, {align:#x}) gave {e:?}");
        assert_eq!(e.is_kernel_bug(), p == Profile::Linux52, "{p}: {e:?}");
        assert!(!e.to_string().is_empty());
        // Refused before anything happens: no step events, nothing changed (not even a purge
        // of the lazy area).
        assert!(rec.events.is_empty(), "{p}: {:?}", rec.events);
        assert_eq!(observe(&v), before, "{p}");

        // Through the replayer: 5.2 stops (Err, nothing printed); 6.x prints `alloc -> FAIL`.
        let mut r = replayer(p);
        let (res, out) = apply_unchanged(&mut r, Op::Alloc { size, align, vstart: 0x10000, vend: 0x100000 });
        if p == Profile::Linux52 {
            assert!(matches!(res, Err(ref e) if check(e, p)), "{p}: {res:?}");
            assert_eq!(out, "");
        } else {
            assert!(matches!(res, Ok(Outcome::Warned(ref e)) if check(e, p)), "{p}: {res:?}");
            assert_eq!(out, "alloc -> FAIL\n");
        }
    }
}

/// linux-5.1's `alloc_vmap_area` has the same three BUG_ONs as 5.2's: a replay stops there, prints
/// nothing and changes nothing (it used to print `alloc -> FAIL` and go on past the crash).
#[test]
fn linux51_stops_at_an_invalid_request_as_52_does() {
    for (size, align) in [(0, 1), (0x1001, 1), (0x2000, 3), (0x2000, 0)] {
        let mut r = replayer(Profile::Linux51);
        let mut out = String::new();
        r.apply(&Op::Alloc { size: 0x2000, align: 1, vstart: 0x10000, vend: 0x100000 }, &mut out, &mut NoObserver)
            .unwrap();
        let (res, out) = apply_unchanged(&mut r, Op::Alloc { size, align, vstart: 0x10000, vend: 0x100000 });
        let e = res.expect_err("a kernel crash stops the replay");
        assert!(e.is_kernel_bug(), "{size:#x}/{align:#x}: {e:?}");
        assert!(e.to_string().contains("BUG_ON"), "{e}");
        assert_eq!(out, "");
    }
}

#[test]
fn alloc_size_zero() {
    invalid_alloc(0, 1, |e, p| *e == VmapError::SizeZero { bug_on: p == Profile::Linux52 });
    invalid_alloc(0, 3, |e, p| *e == VmapError::SizeZero { bug_on: p == Profile::Linux52 });
}

#[test]
fn alloc_size_not_a_page_multiple() {
    for size in [1, 0x800, 0x1001, 0x1fff, MAX] {
        invalid_alloc(size, 1, |e, p| *e == VmapError::SizeNotPageMultiple { size, bug_on: p == Profile::Linux52 });
    }
}

#[test]
fn alloc_align_zero_or_not_a_power_of_two() {
    for align in [0, 3, 0x3000, 0x1001, MAX, (1 << 63) | 1] {
        invalid_alloc(0x1000, align, |e, p| *e == VmapError::BadAlign { align, bug_on: p == Profile::Linux52 });
    }
}

#[test]
fn alloc_with_an_empty_window_fails_without_change() {
    for p in PROFILES {
        for (vstart, vend) in [(0x20000, 0x20000), (0x30000, 0x20000), (MAX, 0), (0x100000, 0x10000)] {
            let mut r = replayer(p);
            let (res, out) = apply_unchanged(&mut r, Op::Alloc { size: 0x1000, align: 1, vstart, vend });
            let want = VmapError::NoSpace { size: 0x1000, align: 1, vstart, vend };
            assert_eq!(res, Ok(Outcome::Warned(want.clone())), "{p}");
            assert!(!want.is_kernel_bug());
            assert_eq!(out, "alloc -> FAIL\n");
        }
    }
}

#[test]
fn failing_alloc_purges_lazy_areas_first() {
    // Spec §2.2: on failure the kernel purges, retries, then gives up. The lazy area goes back
    // to the free tree even though the request still fails.
    for p in [Profile::Linux52, Profile::Linux61] {
        let mut v = busy_state(p, true);
        assert_eq!(v.vmap_lazy_nr(), 2);
        let e = v.alloc(0x1000, 1, 0x30000, 0x20000, &mut NoObserver).unwrap_err();
        assert!(matches!(e, VmapError::NoSpace { .. }));
        assert_eq!(v.vmap_lazy_nr(), 0, "{p}");
        assert!(v.lazy_list().is_empty() && v.lazy_areas().is_empty(), "{p}");
        check_invariants(&v).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Bad frees
// ---------------------------------------------------------------------------------------------

fn bad_free(p: Profile, addr: u64, want_any: VmapError) {
    for lazy in [false, true] {
        // After 5.2, vfree refuses an unaligned address before looking it up.
        let want = if lazy && p != Profile::Linux52 && !addr.is_multiple_of(0x1000) {
            VmapError::UnalignedFree { addr }
        } else {
            want_any.clone()
        };
        let mut r = Replayer::new(p);
        *r.vmap = busy_state(p, true);
        let op = if lazy { Op::Vfree(addr) } else { Op::Free(addr) };
        let (res, out) = apply_unchanged(&mut r, op);
        assert_eq!(res, Ok(Outcome::Warned(want.clone())), "{p} lazy={lazy} addr={addr:#x}");
        assert!(!want.is_kernel_bug());
        let word = if lazy { "vfree" } else { "free" };
        assert_eq!(out, format!("{word} {addr:#x} unknown\n"));
        // The typed API agrees.
        let mut v = busy_state(p, true);
        let res = if lazy { v.vfree(addr, &mut NoObserver) } else { v.free(addr, &mut NoObserver) };
        assert_eq!(res, Err(want.clone()));
    }
}

#[test]
fn free_of_an_unknown_address() {
    for p in PROFILES {
        // Never allocated: below the space, in the hole, in the free tail, far away.
        for addr in [0, 0x1000, 0x12000, 0x13000, 0x40000, VMALLOC_START, MAX] {
            bad_free(p, addr, VmapError::UnknownFree { addr, interior_of: None });
        }
    }
}

#[test]
fn free_of_an_interior_address() {
    for p in PROFILES {
        for addr in [0x11000, 0x10001, 0x15fff, 0x14800] {
            let start = addr & !0x1fff;
            bad_free(p, addr, VmapError::UnknownFree { addr, interior_of: Some((start, start + 0x2000)) });
        }
    }
}

#[test]
fn free_of_an_already_freed_address() {
    for p in PROFILES {
        // 0x12000 was freed at once in busy_state.
        bad_free(p, 0x12000, VmapError::UnknownFree { addr: 0x12000, interior_of: None });
        // Free twice in a row.
        let mut v = busy_state(p, false);
        v.free(0x14000, &mut NoObserver).unwrap();
        let before = observe(&v);
        let e = v.free(0x14000, &mut NoObserver).unwrap_err();
        assert_eq!(e, VmapError::UnknownFree { addr: 0x14000, interior_of: None });
        assert_eq!(observe(&v), before);
    }
}

#[test]
fn vfree_of_an_unaligned_address() {
    for p in [Profile::Linux61, Profile::Linux69] {
        // The default space starts at 1: an align-1 request from vstart 0 gets [1, 0x1001).
        let lines = parse_trace(&format!("profile {p}\nalloc 0x1000 1 0 0x10000\n")).unwrap();
        let mut r = Replayer::new(p);
        let mut out = String::new();
        r.run(&lines, &mut out, &mut NoObserver).unwrap();
        assert_eq!(out, "alloc -> 0x1\n");
        // free (free_vmap_area) has no such check, vfree (remove_vm_area) has.
        let (res, out) = apply_unchanged(&mut r, Op::Vfree(1));
        assert!(matches!(res, Ok(Outcome::Warned(_))), "{p}: {res:?}");
        assert_eq!(out, "vfree 0x1 unknown\n", "{p}");
    }
}

#[test]
fn vfree_of_an_unaligned_address_in_5_2() {
    // 5.2's remove_vm_area has no alignment check: the area is found and freed lazily.
    let mut v = Vmap::new(Profile::Linux52);
    assert_eq!(v.alloc(0x1000, 1, 0, 0x10000, &mut NoObserver), Ok(1));
    v.vfree(1, &mut NoObserver).unwrap();
    assert_eq!(v.vmap_lazy_nr(), 1);
    check_invariants(&v).unwrap();
}

#[test]
fn free_of_a_lazily_freed_address() {
    // 0x16000 was vfreed: in 5.2 it is still in the busy tree, marked lazy (a double free is
    // refused as such); later eras took it out of the busy tree, so it is simply unknown.
    bad_free(Profile::Linux52, 0x16000, VmapError::AlreadyLazy { addr: 0x16000 });
    bad_free(
        Profile::Linux52,
        0x17000,
        VmapError::UnknownFree { addr: 0x17000, interior_of: Some((0x16000, 0x18000)) },
    );
    for p in [Profile::Linux61, Profile::Linux69] {
        bad_free(p, 0x16000, VmapError::UnknownFree { addr: 0x16000, interior_of: None });
        bad_free(p, 0x17000, VmapError::UnknownFree { addr: 0x17000, interior_of: None });
    }
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

#[test]
fn init_with_start_not_below_end() {
    for p in PROFILES {
        for (start, end) in [(0x2000, 0x2000), (0x3000, 0x2000), (MAX, MAX), (MAX, 0)] {
            let mut v = busy_state(p, true);
            let before = observe(&v);
            let e = v.init(start, end).unwrap_err();
            assert_eq!(e, VmapError::BadRange { start, end });
            assert!(e.is_kernel_bug());
            assert_eq!(observe(&v), before);
            let mut r = replayer(p);
            let (res, out) = apply_unchanged(&mut r, Op::Init { start, end });
            assert_eq!(res, Err(VmapError::BadRange { start, end }));
            assert_eq!(out, "");
        }
        // And on an allocator that was never initialised: it stays uninitialised.
        let mut v = Vmap::new(p);
        assert!(v.init(5, 5).is_err());
        assert!(!v.is_initialized());
    }
}

#[test]
fn cpus_zero_or_too_many() {
    for p in PROFILES {
        for n in [0, 65537, MAX] {
            let mut r = replayer(p);
            let (res, out) = apply_unchanged(&mut r, Op::Cpus(n));
            let e = res.unwrap_err();
            assert_eq!(e, VmapError::BadCpus { cpus: n });
            assert!(e.is_kernel_bug());
            assert_eq!(out, "");
        }
        // The bounds themselves are fine.
        let mut v = Vmap::new(p);
        v.set_cpus(1).unwrap();
        v.set_cpus(65536).unwrap();
    }
}

#[test]
fn cpu_out_of_range() {
    for p in PROFILES {
        let mut r = replayer(p);
        r.vmap.set_cpus(4).unwrap();
        for n in [4, 5, 1000, MAX] {
            let (res, _) = apply_unchanged(&mut r, Op::Cpu(n));
            let e = res.unwrap_err();
            assert_eq!(e, VmapError::BadCpu { cpu: n, cpus: 4 });
            assert!(e.is_kernel_bug());
        }
        r.vmap.set_cpu(3).unwrap();
        // Taking the current CPU offline is refused too.
        let (res, _) = apply_unchanged(&mut r, Op::Cpus(3));
        assert_eq!(res.unwrap_err(), VmapError::CpuOffline { cpu: 3, cpus: 3 });
        assert_eq!((r.vmap.cpus(), r.vmap.cpu()), (4, 3));
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed traces
// ---------------------------------------------------------------------------------------------

/// `text` must fail to parse at `line`; the message starts with `line N: `.
fn parse_fails_at(text: &str, line: usize) -> String {
    let e = parse_trace(text).expect_err(text);
    assert_eq!(e.line, line, "{text:?}: {e}");
    assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
    assert!(!e.msg.is_empty());
    e.msg
}

const GOOD: &str = "# a comment\n\nalloc 0x1000 1 0 0x100000\n";

#[test]
fn parse_unknown_command() {
    parse_fails_at(&format!("{GOOD}frobnicate 1 2\n"), 4);
    parse_fails_at("allocate 0x1000 1 0 0x100000\n", 1);
    parse_fails_at(&format!("{GOOD}ALLOC 0x1000 1 0 0x100000\n"), 4);
}

#[test]
fn parse_wrong_argument_count() {
    for bad in [
        "alloc 0x1000 1 0",
        "alloc 0x1000 1 0 0x1000 5",
        "alloc",
        "free",
        "free 1 2",
        "vfree",
        "init 1",
        "init 1 2 3",
        "cpus",
        "cpu 1 2",
        "purge 1",
        "dump all",
        "busy 0",
        "profile",
        "profile linux-5.2 linux-6.1",
    ] {
        parse_fails_at(&format!("{GOOD}{bad}\n"), 4);
    }
}

#[test]
fn parse_number_overflowing_u64() {
    // The largest u64 is fine, one more is not, in either base.
    assert!(parse_trace("free 18446744073709551615\nfree 0xffffffffffffffff\n").is_ok());
    for bad in ["free 18446744073709551616", "free 0x10000000000000000", "alloc 0x1000 1 0 99999999999999999999999"] {
        parse_fails_at(&format!("{GOOD}{bad}\n"), 4);
    }
}

#[test]
fn parse_not_a_number() {
    for bad in [
        "free abc",
        "free -1",
        "free 0x",
        "free 1.5",
        "free 0xg",
        "free 1e3",
        "free +5",
        "free 0b101",
        "free 12abc",
        "free ０",
    ] {
        parse_fails_at(&format!("{GOOD}{bad}\n"), 4);
    }
}

#[test]
fn parse_nul_byte() {
    parse_fails_at(&format!("{GOOD}alloc 0x1000\0 1 0 0x1000\n"), 4);
    parse_fails_at("\0", 1);
    parse_fails_at(&format!("{GOOD}# comment \0 with a NUL\n"), 4);
}

#[test]
fn parse_profile_rules() {
    assert!(parse_trace("profile linux-6.1\nalloc 0x1000 1 0 0x10000\n").is_ok());
    // A comment before the profile line is fine; an operation is not.
    assert!(parse_trace("# hello\nprofile linux-6.9\n").is_ok());
    parse_fails_at("alloc 0x1000 1 0 0x10000\nprofile linux-6.1\n", 2);
    parse_fails_at("profile linux-4.19\n", 1);
    // parse_line agrees with parse_trace on single lines.
    assert_eq!(parse_line("  # x"), Ok(None));
    assert_eq!(parse_line(""), Ok(None));
    assert_eq!(parse_line("purge"), Ok(Some(Op::Purge)));
    assert!(parse_line("purge now").is_err());
}

#[test]
fn parse_error_is_all_or_nothing_and_numbers_lines_from_one() {
    // Blank lines and comments count.
    let text = "\n\n# c\nalloc 0x1000 1 0 0x100000\n\nfree 0x1000 0x2000\nalloc 0x1000 1 0 0x100000\n";
    parse_fails_at(text, 6);
    // CRLF line ends are plain whitespace.
    let ok = parse_trace("alloc 0x1000 1 0 0x100000\r\nfree 0x0\r\n").unwrap();
    assert_eq!(ok.len(), 2);
    assert_eq!(ok[1].line, 2);
    // A byte-order mark before the first line is not part of it (an editor's file, pasted);
    // anywhere else it is an unknown character, as before.
    let bom = parse_trace("\u{feff}alloc 0x1000 1 0 0x100000\nfree 0x0\n").unwrap();
    assert_eq!(bom, ok);
    let bom = parse_trace("\u{feff}# a comment\nprofile linux-6.1\nalloc 0x1000 1 0 0x100000\n").unwrap();
    assert_eq!(bom.len(), 2);
    parse_fails_at("alloc 0x1000 1 0 0x100000\n\u{feff}free 0x0\n", 2);
}

// ---------------------------------------------------------------------------------------------
// Replayer::run stops at the first kernel crash
// ---------------------------------------------------------------------------------------------

fn run_stops_at(p: Profile, text: &str, line: usize) {
    let lines = parse_trace(text).unwrap();
    let mut r = Replayer::new(p);
    let mut out = String::new();
    let e = r.run(&lines, &mut out, &mut NoObserver).unwrap_err();
    assert_eq!(e.line, line, "{p}: {e}");
    assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
    // The state and output are those of the lines before.
    let before: Vec<_> = lines.iter().filter(|l| l.line < line).cloned().collect();
    let mut r2 = Replayer::new(p);
    let mut out2 = String::new();
    r2.run(&before, &mut out2, &mut NoObserver).unwrap();
    assert_eq!(out, out2);
    assert_eq!(observe(&r.vmap), observe(&r2.vmap));
}

#[test]
fn run_stops_with_the_line_number() {
    let head = "# head\nalloc 0x2000 1 0x10000 0x100000\nalloc 0x2000 1 0x10000 0x100000\nvfree 0x10000\n";
    // Lines 1-4 above; the bad line is line 5.
    for (p, bad) in [
        (Profile::Linux52, "alloc 0 1 0x10000 0x100000"),
        (Profile::Linux52, "alloc 0x1800 1 0x10000 0x100000"),
        (Profile::Linux52, "alloc 0x1000 3 0x10000 0x100000"),
        (Profile::Linux52, "alloc 0x1000 0 0x10000 0x100000"),
        (Profile::Linux61, "cpus 0"),
        (Profile::Linux61, "cpu 1"),
        (Profile::Linux69, "init 0x5000 0x5000"),
        (Profile::Linux52, "cpus 65537"),
    ] {
        run_stops_at(p, &format!("{head}{bad}\ndump\n"), 5);
    }
    // The same bad allocations in 6.x are kernel failures, not crashes: the replay goes on.
    for bad in ["alloc 0 1 0x10000 0x100000", "alloc 0x1800 1 0x10000 0x100000", "alloc 0x1000 3 0x10000 0x100000"] {
        for p in [Profile::Linux61, Profile::Linux69] {
            let lines = parse_trace(&format!("{head}{bad}\n")).unwrap();
            let mut r = Replayer::new(p);
            let mut out = String::new();
            r.run(&lines, &mut out, &mut NoObserver).unwrap();
            assert!(out.ends_with("vfree 0x10000 ok\nalloc -> FAIL\n"), "{p}: {out}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The top of the 64-bit space (spec §10)
// ---------------------------------------------------------------------------------------------

#[test]
fn allocations_fill_the_top_of_the_space() {
    for p in PROFILES {
        // [2^64 - 0x10000, 2^64 - 1): 15 whole pages; the 16th would end at 2^64 (wraps to 0),
        // which is_within_this_va rejects.
        let mut v = Vmap::new(p);
        v.init(0xffff_ffff_ffff_0000, MAX).unwrap();
        for i in 0..15u64 {
            let a = v.alloc(0x1000, 1, 0, MAX, &mut NoObserver).unwrap();
            assert_eq!(a, 0xffff_ffff_ffff_0000 + i * 0x1000, "{p}");
            check_invariants(&v).unwrap();
        }
        let before = observe(&v);
        assert!(matches!(v.alloc(0x1000, 1, 0, MAX, &mut NoObserver), Err(VmapError::NoSpace { .. })));
        assert_eq!(observe(&v), before);
        let mut d = String::new();
        dump_free_tree(&v, &mut d);
        assert_eq!(d, "node 0xfffffffffffff000 0xffffffffffffffff 0xfff B depth=0\nend\n");
        // Free everything back: one block again.
        for i in 0..15u64 {
            v.free(0xffff_ffff_ffff_0000 + i * 0x1000, &mut NoObserver).unwrap();
        }
        let mut d = String::new();
        dump_free_tree(&v, &mut d);
        assert_eq!(d, "node 0xffffffffffff0000 0xffffffffffffffff 0xffff B depth=0\nend\n");
    }
}

#[test]
fn whole_space_from_zero() {
    for p in PROFILES {
        let mut v = Vmap::new(p);
        v.init(0, MAX).unwrap();
        assert_eq!(v.alloc(0x1000, 1, 0, MAX, &mut NoObserver), Ok(0));
        // The largest page multiple: from 0x1000 it would wrap.
        assert!(v.alloc(0xffff_ffff_ffff_f000, 0x1000, 0, MAX, &mut NoObserver).is_err());
        // With align 1 the largest page multiple that ends below 2^64 - 1 fits.
        let a = v.alloc(0xffff_ffff_ffff_e000, 1, 0, MAX, &mut NoObserver).unwrap();
        assert_eq!(a, 0x1000);
        check_invariants(&v).unwrap();
    }
}

#[test]
fn huge_sizes_on_the_default_space() {
    for p in PROFILES {
        let mut v = Vmap::new(p);
        v.ensure_init();
        // Aligned to a page, [0x1000, 2^64) would be needed: ALIGN + size wraps -> no fit.
        let before = observe(&v);
        assert!(v.alloc(0xffff_ffff_ffff_f000, 0x1000, 0, MAX, &mut NoObserver).is_err());
        assert_eq!(observe(&v), before);
        // Unaligned (align 1) it fits at 1: [1, 2^64 - 0xfff).
        assert_eq!(v.alloc(0xffff_ffff_ffff_f000, 1, 0, MAX, &mut NoObserver), Ok(1));
        check_invariants(&v).unwrap();
    }
}

#[test]
fn huge_alignments_never_panic() {
    // test_vmalloc's align_shift_alloc_test: align = 1 << i for i in 0..64 inside the vmalloc
    // window. Small alignments succeed; from some point ALIGN(VMALLOC_START, align) wraps to 0,
    // which is below vstart: no match, and nothing changes.
    for p in PROFILES {
        let mut v = Vmap::new(p);
        v.ensure_init();
        let mut failed_from = None;
        for i in 0..64u32 {
            let align = 1u64 << i;
            let before = observe(&v);
            match v.alloc(0x1000, align, VMALLOC_START, VMALLOC_END, &mut NoObserver) {
                Ok(a) => {
                    assert!(failed_from.is_none(), "{p}: align 1 << {i} succeeded after a failure");
                    assert_eq!(a % align, 0);
                    assert!(a >= VMALLOC_START && a + 0x1000 <= VMALLOC_END);
                }
                Err(e) => {
                    assert!(matches!(e, VmapError::NoSpace { .. }));
                    assert_eq!(observe(&v), before);
                    failed_from.get_or_insert(i);
                }
            }
            check_invariants(&v).unwrap();
        }
        // VMALLOC_START = 0xffffc90000000000 is a multiple of 2^40. 1 << 41 .. 1 << 44 land at
        // 0xffffca.., 0xffffcc.., 0xffffd0.. and 0xffffe0..; the only multiple of 2^45 in the
        // window (0xffffe00000000000) is then taken and the next one wraps to 0: 1 << 45 fails.
        assert_eq!(failed_from, Some(45), "{p}");
        // 1 << 63 with vstart 0 on the whole space: ALIGN(1, 2^63) = 2^63 fits.
        assert_eq!(v.alloc(0x1000, 1 << 63, 0, MAX, &mut NoObserver), Ok(1 << 63));
        check_invariants(&v).unwrap();
    }
}

#[test]
fn wrapped_align_with_vstart_zero_is_a_spurious_match() {
    // Spec §10: with vstart = 0, ALIGN(start, 2^63) of a block above 2^63 wraps to 0, which
    // passes `nva < vstart`: the search returns the block, classify says NOTHING_FIT, and the
    // request fails after the purge-and-retry without changing anything.
    for p in PROFILES {
        let mut v = Vmap::new(p);
        v.init(0x8000_0000_0000_1000, MAX).unwrap();
        let before = observe(&v);
        let mut rec = Recorder::default();
        let e = v.alloc(0x1000, 1 << 63, 0, MAX, &mut rec).unwrap_err();
        assert!(matches!(e, VmapError::NoSpace { .. }), "{p}: {e:?}");
        let fits: Vec<(u64, FitType)> = rec
            .events
            .iter()
            .filter_map(|e| if let Event::Fit { nva, fit, .. } = e { Some((nva.0, *fit)) } else { None })
            .collect();
        // Tried twice (before and after the purge), both times a spurious match at nva 0.
        assert_eq!(fits, [(0, FitType::NothingFit), (0, FitType::NothingFit)], "{p}");
        assert_eq!(observe(&v), before);
    }
}

#[test]
fn vstart_near_the_top_with_alignment() {
    for p in PROFILES {
        let mut v = Vmap::new(p);
        v.ensure_init();
        let before = observe(&v);
        // ALIGN(0xfffffffffffff001, 0x1000) wraps to 0 < vstart.
        assert!(v.alloc(0x1000, 0x1000, 0xffff_ffff_ffff_f001, MAX, &mut NoObserver).is_err());
        // vstart at the last byte, align 1: 1 + 0x1000 would wrap.
        assert!(v.alloc(0x1000, 1, MAX - 1, MAX, &mut NoObserver).is_err());
        assert_eq!(observe(&v), before);
        // With align 1 the last 0x1000 bytes [2^64 - 0x1001, 2^64 - 1) fit (RE fit).
        assert_eq!(v.alloc(0x1000, 1, 0xffff_ffff_ffff_efff, MAX, &mut NoObserver), Ok(0xffff_ffff_ffff_efff));
        // The page [2^64 - 0x2000, 2^64 - 0x1000) now overlaps it: no fit from there on.
        assert!(v.alloc(0x1000, 0x1000, 0xffff_ffff_ffff_e000, MAX, &mut NoObserver).is_err());
        // One page lower fits (NE fit).
        assert_eq!(v.alloc(0x1000, 0x1000, 0xffff_ffff_ffff_d000, MAX, &mut NoObserver), Ok(0xffff_ffff_ffff_d000));
        check_invariants(&v).unwrap();
    }
}
