//! `Session::push_checked`, the one rule behind the page's three inputs (the allocate and free
//! forms and "Add an operation"): a request that is the caller's mistake is refused and changes
//! nothing; everything else is applied exactly as `push_text` applies it.

use proptest::prelude::*;
use vmapviz_core::session::Session;

const WINDOW: &str = "0xffffc90000000000 0xffffe8ffffffffff";

fn session(lines: &[&str]) -> Session {
    Session::load(&lines.join("\n")).expect("the set-up trace replays")
}

fn base() -> Session {
    // Three two-page areas at 0xffffc90000000000, ...2000, ...4000; the middle one vfreed (lazy).
    session(&[
        &format!("alloc 0x2000 0x1 {WINDOW}"),
        &format!("alloc 0x2000 0x1 {WINDOW}"),
        &format!("alloc 0x2000 0x1 {WINDOW}"),
        "vfree 0xffffc90000002000",
    ])
}

/// Refused with a message containing `want`, and the session is exactly as before.
fn refused(line: &str, want: &str) {
    let mut s = base();
    let (len, trace, out) = (s.len(), s.trace_text(), s.output().to_string());
    let e = s.push_checked(line).expect_err(line);
    assert!(e.to_string().contains(want), "`{line}`: {e}");
    assert_eq!((s.len(), s.trace_text(), s.output().to_string()), (len, trace, out), "`{line}` changed the session");
}

#[test]
fn caller_mistakes_are_refused_and_change_nothing() {
    refused("free 0xffffc90000001000", "No busy area starts at 0xffffc90000001000: it lies inside the busy area [0xffffc90000000000, 0xffffc90000002000)");
    refused("free 0x1234", "No busy area starts at 0x1234 at the end of the trace");
    refused("vfree 0xffffc90000100000", "No busy area starts at 0xffffc90000100000");
    refused("free 0xffffc90000002000", "already freed lazily");
    refused("vfree 0xffffc90000002000", "already freed lazily");
    refused(
        "alloc 0x2000 0x1 0xffffe8ffffffffff 0xffffc90000000000",
        "the window is empty: vstart 0xffffe8ffffffffff must be below vend 0xffffc90000000000",
    );
    refused("alloc 0x2000 0x1 0x5000 0x5000", "the window is empty");
    refused(&format!("alloc 0x2000 0x3 {WINDOW}"), "align 0x3 is not a power of two");
    refused(&format!("alloc 0x0 0x1 {WINDOW}"), "alloc size is 0");
    refused(&format!("alloc 0x1800 0x1 {WINDOW}"), "not a multiple of PAGE_SIZE");
    refused("allocate 0x2000", "");
    refused("", "empty line");
}

#[test]
fn the_same_requests_replay_from_a_trace_with_the_kernels_warning() {
    // What a trace says the kernel did stays replayable: push_text records these.
    for line in ["free 0x1234", "vfree 0xffffc90000002000", "alloc 0x2000 0x1 0xffffe8ffffffffff 0xffffc90000000000"] {
        let mut s = base();
        s.push_text(line).expect(line);
        assert!(s.summary(s.len() - 1).warning.is_some(), "`{line}` has no warning");
    }
}

#[test]
fn under_linux_6_1_the_einval_requests_are_refused_too() {
    // 6.1 answers size 0 and a bad alignment with -EINVAL (a warning in a trace), 5.2 with BUG().
    for (line, want) in [
        (format!("alloc 0x0 0x1 {WINDOW}"), "alloc size is 0"),
        (format!("alloc 0x2000 0x3 {WINDOW}"), "not a power of two"),
        ("vfree 0xffffc90000000800".to_string(), "not page aligned"),
    ] {
        let mut s = session(&["profile linux-6.1", &format!("alloc 0x2000 0x1 {WINDOW}")]);
        let e = s.push_checked(&line).expect_err(&line);
        assert!(e.to_string().contains(want), "`{line}`: {e}");
        assert_eq!(s.len(), 2);
        let mut t = session(&["profile linux-6.1", &format!("alloc 0x2000 0x1 {WINDOW}")]);
        t.push_text(&line).expect(&line);
        assert!(t.summary(2).warning.is_some());
    }
}

#[test]
fn an_allocation_that_finds_no_room_is_the_allocators_answer_and_is_kept() {
    // A one-page window that is full: the request is right, the allocator says FAIL.
    let mut s = session(&[
        "init 0x100000 0x102000",
        "alloc 0x1000 0x1 0x100000 0x102000",
        "alloc 0x1000 0x1 0x100000 0x102000",
    ]);
    s.push_checked("alloc 0x1000 0x1 0x100000 0x102000").expect("kept");
    assert_eq!(s.len(), 4);
    assert!(s.output().ends_with("alloc -> FAIL\n"), "{}", s.output());
    assert!(s.summary(3).warning.is_some());
}

#[test]
fn accepted_lines_are_applied_as_push_text_applies_them() {
    let mut s = base();
    for line in ["free 0xffffc90000000000", &format!("alloc 0x4000 0x1 {WINDOW}"), "purge", "dump"] {
        let mut t = s.clone();
        s.push_checked(line).expect(line);
        t.push_text(line).expect(line);
        assert_eq!((s.trace_text(), s.output()), (t.trace_text(), t.output()));
    }
    assert_eq!(s.len(), 8);
}

/// Random lines over a small space: push_checked either applies exactly what push_text does,
/// or refuses a line that push_text rejects or records with a warning.
fn line() -> impl Strategy<Value = String> {
    let addr = (0u64..24).prop_map(|p| 0x100000 + p * 0x800);
    prop_oneof![
        (0u64..4, prop_oneof![Just(0u64), Just(1), Just(3), Just(0x1000), Just(0x4000)], 0u64..3, 0u64..3).prop_map(
            |(n, a, lo, hi)| format!(
                "alloc {:#x} {a:#x} {:#x} {:#x}",
                n * 0x1000,
                0x100000 + lo * 0x4000,
                0x100000 + hi * 0x6000 + 0x2000
            )
        ),
        addr.clone().prop_map(|a| format!("free {a:#x}")),
        addr.prop_map(|a| format!("vfree {a:#x}")),
        Just("purge".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn push_checked_is_push_text_minus_the_callers_mistakes(lines in prop::collection::vec(line(), 1..40)) {
        let mut s = session(&["init 0x100000 0x112000"]);
        for l in &lines {
            let mut t = s.clone();
            let plain = t.push_text(l);
            match s.push_checked(l) {
                Ok(()) => {
                    prop_assert!(plain.is_ok(), "`{}` accepted, push_text: {:?}", l, plain);
                    prop_assert_eq!(s.output(), t.output());
                    prop_assert_eq!(s.trace_text(), t.trace_text());
                }
                Err(_) => {
                    let warned = plain.is_ok() && t.summary(t.len() - 1).warning.is_some();
                    prop_assert!(plain.is_err() || warned, "`{}` refused though push_text applied it cleanly", l);
                }
            }
        }
    }
}
