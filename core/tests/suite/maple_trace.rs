//! `profile maple-tree` traces: bad lines are typed errors naming the line, quoting at most 80
//! characters, and change nothing; kernel-answered requests (FIRST > LAST, size 0) are output.

use vmapviz_core::maple::trace::MapleTraceErrorKind as K;
use vmapviz_core::maple::{is_maple_trace, replay_maple_text, MapleReplay};

fn err_of(line: &str) -> vmapviz_core::maple::MapleTraceError {
    let mut r = MapleReplay::new();
    let mut out = Vec::new();
    r.apply_line(1, "profile maple-tree", &mut out).unwrap();
    r.apply_line(2, "store 0x1000 0x1fff", &mut out).unwrap();
    let before = r.tree.dump();
    let e = r.apply_line(3, line, &mut out).unwrap_err();
    assert_eq!(e.line_no, 3);
    assert!(e.quote.chars().count() <= 81, "quote too long: {}", e.quote.len());
    assert_eq!(r.tree.dump(), before, "a bad line changed the tree");
    assert_eq!(String::from_utf8(out).unwrap(), "store 0x1000 0x1fff ok\n", "a bad line printed something");
    e
}

#[test]
fn bad_lines_are_typed_errors() {
    assert_eq!(err_of("store").kind, K::ArgCount { op: "store", expected: 2, got: 0 });
    assert_eq!(err_of("store 1").kind, K::ArgCount { op: "store", expected: 2, got: 1 });
    assert_eq!(err_of("erase 1 2 3").kind, K::ArgCount { op: "erase", expected: 2, got: 3 });
    assert_eq!(err_of("empty 1 2").kind, K::ArgCount { op: "empty", expected: 3, got: 2 });
    assert_eq!(err_of("dump 1").kind, K::ArgCount { op: "dump", expected: 0, got: 1 });
    assert_eq!(err_of("store 0x10000000000000000 1").kind, K::BadNumber { arg: 1 });
    assert_eq!(err_of("store 1 18446744073709551616").kind, K::BadNumber { arg: 2 });
    assert_eq!(err_of("store 0x 1").kind, K::BadNumber { arg: 1 });
    assert_eq!(err_of("store -1 1").kind, K::BadNumber { arg: 1 });
    assert_eq!(err_of("empty 0 0xfg 1").kind, K::BadNumber { arg: 2 });
    assert_eq!(err_of("profile linux-5.2").kind, K::Profile);
    assert!(matches!(err_of("alloc 1 2").kind, K::UnknownOp(_)));
    let long = format!("store {} 1", "9".repeat(500));
    let e = err_of(&long);
    assert_eq!(e.kind, K::BadNumber { arg: 1 });
    assert!(e.to_string().contains("line 3"));
    let garbage = "\u{1F600}".repeat(300);
    assert!(matches!(err_of(&garbage).kind, K::UnknownOp(_)));
}

#[test]
fn kernel_answers_are_output_not_errors() {
    let out = replay_maple_text(
        "# c\n\nprofile maple-tree\nstore 0x9000 0x8000\nerase 5 4\nempty 0 10 0\nempty 10 0 1\nempty 0 3 8\n\
         store 0xffffffffffffffff 0xffffffffffffffff\nempty 0 0xffffffffffffffff 0x10\ndump\n",
    )
    .unwrap();
    assert_eq!(
        out,
        "store 0x9000 0x8000 err -22\nerase 0x5 0x4 err -22\nempty 0x0 0xa 0x0 -> EINVAL\n\
         empty 0xa 0x0 0x1 -> EINVAL\nempty 0x0 0x3 0x8 -> EINVAL\nstore 0xffffffffffffffff 0xffffffffffffffff ok\n\
         empty 0x0 0xffffffffffffffff 0x10 -> 0x0 0xf\n\
         dump height=1 nodes=1\nnode 0 leaf min=0x0 max=0xffffffffffffffff end=1 | 0:0xfffffffffffffffe:N 1:0xffffffffffffffff:E\nenddump\n"
    );
}

#[test]
fn the_maple_profile_is_recognised_by_its_first_line() {
    assert!(is_maple_trace("# x\n\n  profile   maple-tree\nstore 1 2\n"));
    assert!(!is_maple_trace("profile linux-5.2\n"));
    assert!(!is_maple_trace("store 1 2\nprofile maple-tree\n"));
    assert!(!is_maple_trace(""));
}
