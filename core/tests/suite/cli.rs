//! `vmap-replay` as a user runs it: streaming replay, bounded messages, hostile inputs that
//! must end quickly with a clear message, and the `--profile` conflict.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use vmapviz_core::{parse_trace, NoObserver, Replayer};

fn run(args: &[&str], stdin: &[u8]) -> (Output, Duration) {
    let t0 = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vmap-replay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut inp = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = inp.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out, t0.elapsed())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What the library prints for a trace (the reference for the streaming CLI).
fn library_output(trace: &str) -> String {
    let mut r = Replayer::default();
    let mut out = String::new();
    for l in parse_trace(trace).unwrap() {
        if r.apply(&l.op, &mut out, &mut NoObserver).is_err() {
            break;
        }
    }
    out
}

#[test]
fn streaming_replay_prints_what_the_library_prints() {
    let mut trace = String::from("# a comment\n\n");
    for i in 0..2_000u64 {
        trace.push_str("alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff\r\n");
        if i % 3 == 0 {
            trace.push_str(&format!("vfree {:#x}\n", 0xffffc90000000000u64 + i * 0x3000));
        }
    }
    trace.push_str("dump\nbusy\n");
    let (out, _) = run(&["--check", "-"], trace.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), library_output(&trace.replace('\r', "")));
}

#[test]
fn output_before_an_error_is_printed_and_the_error_names_the_line() {
    let (out, _) = run(&["-"], b"alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nbogus 1\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "alloc -> 0xffffc90000000000\n");
    assert!(text(&out.stderr).contains("line 2: unknown command `bogus`"), "{}", text(&out.stderr));
}

#[test]
fn not_utf8_names_the_line_and_the_byte() {
    let (out, _) = run(&["-"], b"purge\npurge \xff\n");
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(e.contains("line 2: byte 7 of the line is not UTF-8"), "{e}");
    let (out, _) = run(&["--bench", "-"], b"purge\npurge \xff\n");
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(e.contains("line 2: byte 7 of the line is not UTF-8"), "{e}");
}

#[test]
fn a_huge_token_or_line_gives_a_short_message() {
    let mut t = b"free 0x".to_vec();
    t.extend(std::iter::repeat_n(b'f', 1 << 20));
    t.push(b'\n');
    let (out, _) = run(&["-"], &t);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.len() < 300, "{} bytes: {}", out.stderr.len(), text(&out.stderr));
    // A line past the 1 MiB limit is refused without being held whole.
    let mut t = b"# ".to_vec();
    t.extend(std::iter::repeat_n(b'x', 3 << 20));
    let (out, _) = run(&["-"], &t);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("line 1: longer than 1 MiB"), "{}", text(&out.stderr));
}

#[test]
fn hostile_inputs_end_quickly_under_every_profile() {
    let endless = "alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n\
                   alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n\
                   alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n\
                   free 0xffffc90000002000\n\
                   alloc 0x8000000000001000 0x8000000000000000 0xffffc90000000000 0xffffe8ffffffffff\n";
    let pcpu = "pcpu 0x8000000000000000 0x0:0x8000000000000000\n";
    let echo = format!("free 0x{}\n", "1".repeat(1_000_000));
    for p in ["linux-5.1", "linux-5.2", "linux-6.1", "linux-6.9"] {
        for input in [endless, pcpu, echo.as_str()] {
            let (out, took) = run(&["--check", "--profile", p, "-"], input.as_bytes());
            assert!(took < Duration::from_secs(5), "{p}: {took:?}");
            assert!(out.stderr.len() < 600, "{p}: {} bytes of message", out.stderr.len());
            assert_ne!(out.status.code(), Some(3), "{p}: invariant broken: {}", text(&out.stderr));
        }
    }
    let (out, _) = run(&["--profile", "linux-5.2", "-"], endless.as_bytes());
    assert!(text(&out.stderr).contains("line 5: linux-5.2 would never return from this search"));
    // The importer path: an ftrace capture with the same request.
    let capture = "  t-1 [000] ..... 1.0: alloc_vmap_area: va_start: 18446683600570023936 size=8192 align=1 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0\n\
                   t-1 [000] ..... 1.1: alloc_vmap_area: va_start: 18446683600570032128 size=8192 align=1 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0\n\
                   t-1 [000] ..... 1.2: alloc_vmap_area: va_start: 18446683600570040320 size=8192 align=1 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0\n\
                   t-1 [000] ..... 1.25: free_vmap_area_noflush: va_start=0xffffc90000002000 nr_lazy=2 nr_lazy_max=8192\n\
                   t-1 [000] ..... 1.3: alloc_vmap_area: va_start: 18446683600570040320 size=9223372036854779904 align=9223372036854775808 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=1\n";
    let (_, took) = run(&["--import", "ftrace", "--profile", "linux-5.2", "-"], capture.as_bytes());
    assert!(took < Duration::from_secs(5), "the importer took {took:?}");
}

#[test]
fn a_profile_flag_that_contradicts_the_trace_is_an_error() {
    let trace = b"profile linux-6.1\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n";
    let (out, _) = run(&["--profile", "linux-5.2", "-"], trace);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("line 1: the trace says `profile linux-6.1` but --profile linux-5.2"));
    assert_eq!(text(&out.stdout), "");
    let (out, _) = run(&["--bench", "--profile", "linux-5.2", "-"], trace);
    assert_eq!(out.status.code(), Some(1));
    // The same profile twice is fine.
    let (out, _) = run(&["--profile", "linux-6.1", "-"], trace);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "alloc -> 0xffffc90000000000\n");
}

#[test]
fn check_every_checks_periodically_and_at_the_end() {
    let mut trace = String::new();
    for _ in 0..100 {
        trace.push_str("alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n");
    }
    let (out, _) = run(&["--check-every", "7", "-"], trace.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 100);
    let (out, _) = run(&["--check-every", "0", "-"], trace.as_bytes());
    assert_eq!(out.status.code(), Some(2));
}

/// An import that gives no operation (a `profile` aside) is refused, as the workbench refuses
/// it: a report of what was left out, no trace, exit 1.
#[test]
fn an_import_with_no_operation_is_refused() {
    let unmatched = "          <idle>-0     [000] .....    98.123456: free_vmap_area_noflush: va_start=12345 nr_lazy=0 nr_lazy_max=8192\n";
    for (fmt, input, profile) in [
        ("json", "{\"ops\":[]}\n", None),
        ("json", "{\"profile\":\"linux-6.1\",\"ops\":[]}\n", None),
        ("ftrace", unmatched, None),
        ("ftrace", unmatched, Some("linux-6.1")),
    ] {
        let mut args = vec!["--import", fmt];
        if let Some(p) = profile {
            args.extend(["--profile", p]);
        }
        args.push("-");
        let (out, _) = run(&args, input.as_bytes());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{fmt} {profile:?}: {err}");
        assert!(out.stdout.is_empty(), "{fmt}: {}", text(&out.stdout));
        assert!(err.contains("nothing to import"), "{fmt}: {err}");
    }
    // One operation is enough.
    let (out, _) = run(&["--import", "json", "-"], b"{\"ops\":[{\"op\":\"purge\"}]}\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A byte-order mark before the first line (an editor's UTF-8 file) is dropped, as the page drops
/// it: the CLI and the page accept the same inputs. Elsewhere it is still a bad character.
#[test]
fn a_byte_order_mark_before_the_first_line_is_dropped_as_the_page_does() {
    let trace = "\u{feff}alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\npurge\n";
    let want = library_output(&trace[3..]);
    for args in [&["-"][..], &["--check", "-"][..], &["--bench", "-"][..]] {
        let (out, _) = run(args, trace.as_bytes());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        if args[0] != "--bench" {
            assert_eq!(text(&out.stdout), want, "{args:?}");
        }
    }
    let (out, _) = run(&["-"], "\u{feff}profile maple-tree\nstore 0x1000 0x1fff\n".as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "store 0x1000 0x1fff ok\n");
    let (out, _) = run(&["-"], "purge\n\u{feff}purge\n".as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

/// Every name a trace's `profile` line takes, `--profile` takes too, `maple-tree` included; and the
/// flag may stand for the trace's profile line (issue 35: `--profile maple-tree` was "unknown").
#[test]
fn profile_flag_takes_every_name_a_profile_line_takes() {
    use vmapviz_core::profile::ProfileName;
    let names: Vec<&str> = ProfileName::names().collect();
    assert!(names.contains(&"maple-tree") && names.contains(&"maple-rfc") && names.contains(&"linux-6.18"));
    for name in &names {
        let trace = format!("profile {name}\n");
        let (out, _) = run(&["-"], trace.as_bytes());
        assert!(out.status.success(), "`profile {name}`: {}", text(&out.stderr));
        let (out, _) = run(&["--profile", name, "-"], trace.as_bytes());
        assert!(out.status.success(), "--profile {name} with `profile {name}`: {}", text(&out.stderr));
    }
    // A maple-tree trace with or without its profile line under the flag.
    let maple = "store 0x1000 0x1fff\nempty 0x0 0xffff 0x1000\n";
    let want = "store 0x1000 0x1fff ok\nempty 0x0 0xffff 0x1000 -> 0x0 0xfff\n";
    for trace in [format!("profile maple-tree\n{maple}"), format!("# no profile line\n\n{maple}")] {
        let (out, _) = run(&["--profile", "maple-tree", "-"], trace.as_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want);
    }
    // The flag against another profile line, either way round.
    let (out, _) = run(&["--profile", "maple-tree", "-"], b"profile linux-6.9\npurge\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("line 1: the trace says `profile linux-6.9` but --profile maple-tree was given"),
        "{}",
        text(&out.stderr)
    );
    let (out, _) = run(&["--profile", "linux-6.9", "-"], format!("profile maple-tree\n{maple}").as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    // Not an allocator trace: no --bench, no import, no workload under it.
    for args in [
        &["--bench", "--profile", "maple-tree", "-"][..],
        &["--import", "json", "--profile", "maple-tree", "-"][..],
        &["--workload", "fix_size_alloc_test", "--profile", "maple-tree"][..],
    ] {
        let (out, _) = run(args, maple.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("maple"), "{args:?}: {}", text(&out.stderr));
    }
    // An unknown name lists the same names, in the CLI and in a trace.
    let known = ProfileName::known();
    let (out, _) = run(&["--profile", "linux-4.19", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(&format!("unknown profile `linux-4.19` (known: {known})")));
    let (out, _) = run(&["-"], b"profile linux-4.19\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&format!("line 1: unknown profile `linux-4.19` (known: {known})")));
    // `profile maple-tree` after an operation says where it belongs.
    let (out, _) = run(&["-"], b"purge\nprofile maple-tree\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("line 2: `profile maple-tree` starts a maple-tree trace"));
}

const MIB: usize = 1 << 20;

/// Run with `head`, then `pattern` repeated up to `offered` bytes, on standard input, written for
/// as long as the process reads; the output and the bytes it took (a pipe's buffer included).
fn run_offering(args: &[&str], head: &[u8], pattern: &[u8], offered: usize) -> (Output, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vmap-replay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut inp = child.stdin.take().unwrap();
    let head = head.to_vec();
    let chunk: Vec<u8> = pattern.iter().copied().cycle().take(MIB / pattern.len() * pattern.len()).collect();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        if inp.write_all(&head).is_err() {
            return sent;
        }
        sent += head.len();
        while sent < offered {
            let n = chunk.len().min(offered - sent);
            if inp.write_all(&chunk[..n]).is_err() {
                break;
            }
            sent += n;
        }
        sent
    });
    let out = child.wait_with_output().unwrap();
    (out, writer.join().unwrap())
}

/// `--bench` and `--import` read within the 64 MiB limit: the whole input is refused on the line
/// that crosses it, and reading stops there (issue 36: 1.5 GB of stdin gave "out of memory").
/// Lines of 64 bytes: 1,048,576 of them are exactly 64 MiB, the next one crosses.
#[test]
fn bench_and_import_stop_reading_at_64_mib() {
    let line = format!("#{}\n", "x".repeat(62));
    assert_eq!(line.len(), 64);
    let crossing = (64 * MIB) / 64 + 1;
    for args in [
        &["--bench", "-"][..],
        &["--import", "ftrace", "-"][..],
        &["--import", "vmallocinfo", "-"][..],
        &["--import", "json", "-"][..],
    ] {
        let (out, took) = run_offering(args, b"", line.as_bytes(), 256 * MIB);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            format!("vmap-replay: line {crossing}: the input is over 64 MiB, the limit (crossed on this line)\n"),
            "{args:?}"
        );
        assert!(took < 66 * MIB, "{args:?}: read {took} bytes of 256 MiB");
    }
    // Exactly 64 MiB is accepted.
    let mut at_limit = line.repeat(crossing - 2).into_bytes();
    at_limit.extend_from_slice(format!("purge{}\n", " ".repeat(58)).as_bytes());
    assert_eq!(at_limit.len(), 64 * MIB);
    let (out, _) = run(&["--bench", "-"], &at_limit);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A line over 1 MiB is refused with the same message by the streaming replay, `--bench` and the
/// text imports, and reading stops there; one of exactly 1 MiB (its line break aside) is not.
/// (JSON need not break lines: only the total applies to it.)
#[test]
fn a_line_over_1_mib_is_refused_the_same_way_in_every_mode() {
    let want = "vmap-replay: line 2: longer than 1 MiB: this is not a trace\n";
    for args in [
        &["-"][..],
        &["--check", "-"][..],
        &["--bench", "-"][..],
        &["--import", "ftrace", "-"][..],
        &["--import", "vmallocinfo", "-"][..],
    ] {
        // Issue 36's 100 MB comment line, offered without end.
        let (out, took) = run_offering(args, b"purge\n#", b"x", 100 * MIB);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).ends_with(want), "{args:?}: {}", text(&out.stderr));
        assert!(took < 4 * MIB, "{args:?}: read {took} bytes of 100 MiB");
    }
    let long = |len: usize| format!("purge\n#{}\npurge\n", "x".repeat(len - 1));
    for args in [&["-"][..], &["--bench", "-"][..]] {
        let (out, _) = run(args, long(MIB).as_bytes());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let (out, _) = run(args, long(MIB + 1).as_bytes());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&out.stderr), want, "{args:?}");
    }
    // JSON: one line of 2 MiB is read (and judged as JSON).
    let json = format!("{{\"ops\": [{}{{\"op\":\"purge\"}}]}}\n", "{\"op\":\"purge\"},".repeat(3 * MIB / 15));
    assert!(json.len() > 2 * MIB);
    let (out, _) = run(&["--import", "json", "-"], json.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `vmap-bench --gen SHAPE SEED`: a trace in one of ../shared/perf's shapes, whose frees all
/// name busy areas (the replay answers `ok` to each, never `unknown`), with the shape's sizes,
/// and the same text for the same seed; a bad shape or a missing seed is a usage error.
#[test]
fn vmap_bench_generates_perf_shapes_of_other_seeds() {
    let gen = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_vmap-bench")).args(args).output().unwrap();
    for shape in ["fixed", "long_busy", "mixed"] {
        let out = gen(&["--gen", shape, "3", "--ops", "30000"]);
        assert!(out.status.success(), "{shape}: {}", text(&out.stderr));
        let trace = text(&out.stdout);
        assert_eq!(trace, text(&gen(&["--gen", shape, "3", "--ops", "30000"]).stdout), "{shape}: one seed, one trace");
        assert_ne!(trace, text(&gen(&["--gen", shape, "4", "--ops", "30000"]).stdout), "{shape}: another seed");
        let ops = trace.lines().filter(|l| l.starts_with("alloc ") || l.starts_with("free ")).count();
        assert!((30_000..30_003).contains(&ops), "{shape}: {ops} operations");
        let mut r = Replayer::new(vmapviz_core::Profile::Linux52);
        let mut replayed = String::new();
        for l in parse_trace(&trace).unwrap() {
            r.apply(&l.op, &mut replayed, &mut NoObserver).unwrap();
        }
        let frees: Vec<&str> = replayed.lines().filter(|l| l.starts_with("free ")).collect();
        assert!(frees.len() > 5_000 && frees.iter().all(|l| l.ends_with(" ok")), "{shape}: a free of no busy area");
        let sizes: std::collections::BTreeSet<&str> =
            trace.lines().filter_map(|l| l.strip_prefix("alloc ")).filter_map(|l| l.split(' ').next()).collect();
        match shape {
            "fixed" => assert_eq!(sizes.into_iter().collect::<Vec<_>>(), ["0x1000"]),
            "long_busy" => assert!(sizes.contains("0x65000") && sizes.contains("0x2000") && sizes.len() == 3),
            _ => assert!(sizes.len() > 200 && sizes.contains("0x100000")),
        }
    }
    for bad in [&["--gen", "nope", "1"][..], &["--gen", "fixed"], &["--gen", "fixed", "x"]] {
        let out = gen(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(text(&out.stderr).contains("fixed"), "{bad:?}: {}", text(&out.stderr));
    }
}

/// An allocation taken where the kernel took it (`alloc ... = ADDR`, the model's answer
/// differing) reports no touches: the incremental check must not trust its cached heights
/// after it (the free tree and busy tree changed), under every profile that follows a capture.
#[test]
fn check_after_a_steered_allocation_agrees_with_the_full_check() {
    let mut trace = String::new();
    for _ in 0..6 {
        trace.push_str("alloc 0x1000 0x1000 0x0 0x100000\n");
    }
    trace.push_str("alloc 0x1000 0x1000 0x0 0x100000 = 0xd000\nfree 0x1000\n");
    for i in 0..40u64 {
        trace.push_str(&format!("alloc 0x1000 0x1000 0x0 0x100000 = {:#x}\n", 0x20000 + 0x2000 * i));
        trace.push_str(&format!("free {:#x}\n", 0x2000 + 0x1000 * (i % 4)));
        trace.push_str("alloc 0x1000 0x1000 0x0 0x100000\n");
    }
    for p in ["linux-5.1", "linux-5.2", "linux-6.1", "linux-6.9", "linux-6.18"] {
        let (full, _) = run(&["--profile", p, "--check-every", "1", "-"], trace.as_bytes());
        assert!(full.status.success(), "{p} --check-every 1: {}", text(&full.stderr));
        let (inc, _) = run(&["--profile", p, "--check", "-"], trace.as_bytes());
        assert!(inc.status.success(), "{p} --check: {}", text(&inc.stderr));
        assert_eq!(text(&inc.stdout), text(&full.stdout), "{p}");
    }
}

/// `alloc ... = ADDR` is checked against the model before it applies: ADDR outside the
/// request's window, misaligned, or over a busy area is refused with the line's number, and
/// nothing of it applies (what follows is not replayed).
#[test]
fn a_steered_allocation_the_model_contradicts_is_refused() {
    let mut head = String::new();
    for _ in 0..6 {
        head.push_str("alloc 0x1000 0x1000 0x0 0x100000\n");
    }
    for (line, why) in [
        ("alloc 0x1000 0x1000 0x100000 0x200000 = 65536", "outside the window [0x100000, 0x200000)"),
        ("alloc 0x1000 0x1000 0x0 0x100000 = 0x7800", "0x7800 is not aligned to 0x1000"),
        ("alloc 0x1000 0x1000 0x0 0x100000 = 0x3000", "is not free at 0x3000: busy in node 0 ([0x3000, 0x4000))"),
        ("alloc 0x3000 0x1000 0x0 0x100000 = 0x5000", "is not free at 0x5000"),
        ("alloc 0x4000 0x1000 0x0 0x100000 = 0x4000", "is not free at 0x4000"),
        ("alloc 0x1000 0x1000 0x0 0xffffffffffffffff = 0xfffffffffffff000", "outside the window"),
        ("alloc 0x0 0x1000 0x0 0x100000 = 0x8000", "not a request the kernel accepts"),
    ] {
        for p in ["linux-5.2", "linux-6.1", "linux-6.9", "linux-6.18"] {
            let trace = format!("{head}{line}\nbusy\n");
            let (out, _) = run(&["--profile", p, "-"], trace.as_bytes());
            let e = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{p} `{line}`: {e}");
            assert!(e.contains("line 7: `") && e.contains(why) && e.contains("nothing changes"), "{p} `{line}`: {e}");
            assert_eq!(text(&out.stdout).lines().count(), 6, "{p} `{line}`: the refused line printed");
        }
    }
    // Inside the window, aligned, free: taken where the kernel took it.
    let (out, _) =
        run(&["--check", "-"], format!("{head}alloc 0x1000 0x1000 0x0 0x100000 = 0x8000\nbusy\n").as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("alloc -> 0x8000\n"), "{}", text(&out.stdout));
}

/// `pooled`, `unpool`, `lazy` and `purge keep` are checked too: a range that is not whole
/// pages, a node that does not exist, an area that is not there.
#[test]
fn other_steering_lines_the_model_contradicts_are_refused() {
    let s = 0xffffc90000000000u64;
    let head = format!("profile linux-6.18\ncpus 4\nalloc 0x2000 0x1 {s:#x} 0xffffe8ffffffffff\n");
    for (line, why) in [
        (format!("pooled 1 {:#x} 0x1800", s + 0x10000), "not a page-aligned range"),
        (format!("pooled 9 {:#x} 0x1000", s + 0x10000), "node 9 does not exist"),
        (format!("unpool {s:#x} 0xffffffffffffffff"), "not a page-aligned range"),
        (format!("unpool {s:#x} 0xfffffffffffff000"), "passes 2^64"),
        (format!("lazy {:#x} node 1", s + 0x1000), "no busy area starts at"),
        (format!("lazy {s:#x} node 4"), "node 4 does not exist"),
        (format!("vfree {s:#x}\npurge keep {s:#x} {s:#x}"), "twice"),
        ("purge keep 0x1234".to_string(), "keep 0x1234: no area on a lazy list starts there"),
        ("purge decayed 7".to_string(), "node 7 does not exist"),
    ] {
        let trace = format!("{head}{line}\n");
        let (out, _) = run(&["-"], trace.as_bytes());
        let e = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "`{line}`: {e}");
        assert!(e.contains(why) && e.contains("nothing changes"), "`{line}`: {e}");
    }
}

/// Errors of a trace file and of `--import vmallocinfo` / `--import ftrace` name the file; the
/// input's control bytes (ESC, NUL, CR, C1) and a byte-order mark are printed escaped, never raw.
#[test]
fn errors_name_the_file_and_escape_control_bytes() {
    let dir = std::env::temp_dir().join(format!("vmapviz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[&str], &[u8], &str); 5] = [
        ("t.trace", &[], b"purge\nalloc 0x1000\x1b[2J 0x1 0x0 0x100000\n", "t.trace: line 2: "),
        ("r.trace", &[], b"purge\nbogus\x1b]0;x\x07\r 1\n", "t.trace: line 2: unknown command `bogus\\x1b]0;x\\x07`"),
        ("b.trace", &[], "purge\n\u{feff}purge\n".as_bytes(), "line 2: unknown command `\\u{feff}purge`"),
        (
            "v.info",
            &["--import", "vmallocinfo"],
            b"0xffffc90000000000-0xffffc90000002000\x1b[31m 8192 f vmalloc\n",
            "v.info: ",
        ),
        (
            "f.txt",
            &["--import", "ftrace"],
            "x-1 [000] .... 1.0: alloc_vmap_area: va_start=\u{9b}31m\n".as_bytes(),
            "f.txt: ",
        ),
    ];
    for (name, flags, input, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, input).unwrap();
        let p = path.to_str().unwrap();
        let mut args: Vec<&str> = flags.to_vec();
        args.push(p);
        let (out, _) = run(&args, b"");
        let e = text(&out.stderr);
        assert!(!out.status.success(), "{name}: {e}");
        let want = want.replace("t.trace", name);
        assert!(e.contains(&format!("{}: ", dir.join(name).display())) || e.contains(&want), "{name}: {e}");
        assert!(e.contains(&want), "{name}: {e}");
        assert!(
            !out.stderr.iter().any(|&b| b < 0x20 && b != b'\n') && !e.contains('\u{9b}') && !e.contains('\u{feff}'),
            "{name}: a control byte printed raw: {e:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--import capture --report json`: the report's figures and each explained and unexplained
/// allocation as JSON on stdout; the text report on stderr unchanged; only with a capture.
#[test]
fn a_capture_report_as_json() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/capture-6.18-small");
    let out = Command::new(env!("CARGO_BIN_EXE_vmap-replay"))
        .args(["--import", "capture", "--report", "json"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let n = |k: &str| j[k].as_u64().unwrap_or_else(|| panic!("{k} in {j}"));
    // The allocation events of the bundle's trace.txt, counted here from the file itself.
    let gz = std::fs::read(dir.join("trace.txt.gz")).unwrap();
    let mut events = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut events).unwrap();
    let allocs = events.lines().filter(|l| !l.starts_with('#') && l.contains(" alloc_vmap_area: ")).count() as u64;
    // Each is an allocation of the report but those the before file already shows (some of the
    // events, of any kind, traced while it was read).
    assert!(n("allocations") <= allocs && allocs <= n("allocations") + n("in_before_file"), "{allocs} events: {j}");
    assert!(n("allocations") > 1000, "the small capture's two thousand allocations");
    assert_eq!(n("equal") + n("explained") + n("unexplained"), n("allocations"));
    assert_eq!(j["explanations"].as_array().unwrap().len() as u64, n("explained"));
    assert_eq!(j["unexplained_lines"].as_array().unwrap().len() as u64, n("unexplained"));
    // The text report is still on stderr, its summary line the same figures.
    let err = text(&out.stderr);
    let want = format!(
        "capture: {} allocations, {} equal, {} explained, {} unexplained;",
        n("allocations"),
        n("equal"),
        n("explained"),
        n("unexplained")
    );
    assert!(err.lines().any(|l| l.starts_with(&want)), "{want} in {err}");
    // Without a capture it is refused with a usage error.
    let out = Command::new(env!("CARGO_BIN_EXE_vmap-replay")).args(["--report", "json", "x.trace"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--report json is a capture's report"), "{}", text(&out.stderr));
}
