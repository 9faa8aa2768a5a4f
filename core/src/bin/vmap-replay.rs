//! `vmap-replay`: replay a trace and print exactly what the kernel's code prints; or print a
//! generated workload, or an imported capture, as a trace.
//!
//! ```text
//! vmap-replay [--check] [--check-every N] [--bench] [--profile NAME] FILE|-
//! vmap-replay --workload NAME [--seed S] [--loops N] [--profile P] [--cpus N] [--threads N]
//!             [--keep N] [--nr-pages N] [--mask M] [--sequential] [--repeat R]
//!             [--preset performance|stress|smoke] [--json]
//! vmap-replay --list-workloads
//! vmap-replay --import ftrace|vmallocinfo|json [--profile P] [--json] FILE|-
//! vmap-replay --import capture [--profile P] [--report json] BUNDLE_DIR
//! vmap-replay --report fragmentation|callers [--profile P] [--cpus N] [--json] [--full] FILE|BUNDLE_DIR
//! vmap-replay --diff A B [--profile P] [--cpus N] [--json] [--full]
//! ```

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use vmapviz_core::check::{check_invariants, Checked};
use vmapviz_core::check_inc::{IncrementalCheck, WithCheck, DEFAULT_EVERY};
use vmapviz_core::counters::{CounterObserver, Counters};
use vmapviz_core::events::Observer;
use vmapviz_core::import::{self, ImportFormat};
use vmapviz_core::profile::ProfileName;
use vmapviz_core::trace::{escaped, parse_line, parse_trace, quote, Op, TraceLine, MAX_TRACE_BYTES};
use vmapviz_core::workload::{self, Preset, TextSink, WorkloadParams};
use vmapviz_core::{NoObserver, Profile, Replayer};

const USAGE: &str = "usage: vmap-replay [--check] [--check-every N] [--bench] [--counters] [--profile NAME] FILE|-
       vmap-replay --workload NAME [--seed S] [--loops N] [--profile NAME] [--cpus N] [--threads N]
                   [--keep N] [--nr-pages N] [--mask M] [--sequential] [--repeat R]
                   [--preset performance|stress|smoke] [--json]
       vmap-replay --list-workloads
       vmap-replay --import ftrace|vmallocinfo|json [--profile NAME] [--json] FILE|-
       vmap-replay --import capture [--profile NAME] [--report json] BUNDLE_DIR
  FILE|-          the trace to replay (- for standard input)
  --check         after each operation, verify the invariants on what it touched (the tree paths,
                  list links, busy index entries, pools, lazy count; maple-rfc: the maple nodes on
                  the paths); all of them every max(4096, live areas) operations and at the end
  --check-every N verify all of them after every N-th operation and at the end; with --check, the
                  interval of that full check (the backstop) instead of max(4096, live areas)
  --bench         time the replay loop only; prints ops=N ns_per_op=X on stderr (the trace is read
                  whole first: at most 64 MiB)
  --counters      count the work (nodes visited, list walked, rotations, ...) and print totals on stderr
  --profile NAME  PROFILES, or
                  maple-tree (a trace of maple tree operations); a `profile` line in the trace that
                  names another profile is an error
  a line is at most 1 MiB long (JSON imports excepted); --bench and --import read at most 64 MiB
 maple-rfc (the June 2026 RFC v1, unmerged; spec section 11): trace lines `bump on|off` (the per-CPU
  bump overlay, default on) and `early SIZE ALIGN VSTART VEND` (an allocation before the perf-mode
  switch, only first); `dump` prints the occupied maple tree, `busy` adds chunk lines. Exact: the maple
  tree (v6.16), the window loop, seeding, the bump overlay. Modelled [infer]: busy-tree flags, lazy list
  in vfree order, purge/decay erasing occupied ranges, pcpu on the stale free tree (an overlap is refused
  as \"stale free tree overlap\"); the busy overlap check reads the busy tree of the
  address's node only, as the RFC does (an overlap it misses is inserted and reported)
 workloads (print the trace on stdout; numbers decimal or 0x-hex):
  --workload NAME       a test of lib/test_vmalloc.c, `test_vmalloc` (the whole module) or a teaching scenario
  --list-workloads      list the workloads with a description
  --seed S              random seed (default 0)
  --loops N             test_loop_count (default 1000000)
  --cpus N              online CPUs (default 1)
  --threads N           workers, nr_threads (default: one per CPU in 5.1/5.2, else 1)
  --keep N              size knob: long_busy's kept areas, full_fit's J, pcpu objects, kvfree_rcu grace period
  --nr-pages N          nr_pages
  --mask M              run_test_mask for test_vmalloc (default: the era's)
  --sequential          sequential_test_order=1
  --repeat R            test_repeat_count
  --preset MODE         test_vmalloc.sh mode: performance, stress or smoke (applied before the other options)
  --json                print the trace in its JSON form instead of text
 import (print the trace on stdout, the report on stderr):
  --import FORMAT       ftrace (/sys/kernel/tracing/trace), vmallocinfo (/proc/vmallocinfo) or json
  --import capture DIR  a bundle of scripts/capture.sh (vmallocinfo.before, trace.txt, vmallocinfo.after,
                        cpus.txt, uname.txt; each may be .gz): replayed from the before state (profile
                        NEWEST unless --profile) and compared with the kernel allocation by allocation;
                        the report on stderr ends with `capture: A allocations, E equal, X explained, U
                        unexplained; final busy equal|differs; purges P of Q equal`; with --report json,
                        the report's figures and each explained and unexplained allocation as JSON on
                        stdout in place of the trace (the text report still on stderr)";

#[derive(Default)]
struct Args {
    check: bool,
    /// Check the invariants after every N-th operation (`--check` is N = 1).
    check_every: Option<u64>,
    bench: bool,
    profile: Option<Profile>,
    /// `--profile maple-tree`: the trace is a maple-tree trace (its `profile` line optional).
    maple_tree: bool,
    file: Option<String>,
    workload: Option<String>,
    list_workloads: bool,
    params: WorkloadParams,
    preset: Option<Preset>,
    import: Option<ImportFormat>,
    /// `--import capture`: the file is a bundle directory.
    capture: bool,
    json: bool,
    counters: bool,
    /// `--report fragmentation|callers`.
    report: Option<String>,
    /// `--diff A B`: A (B is the file).
    diff: Option<String>,
    /// `--full`: every area and caller of a report.
    full: bool,
    /// `--cpus N` as given (reports: online CPUs for lazy_max_pages).
    cpus_given: Option<u32>,
}

/// A workload option, applied after the preset.
type Setter = Box<dyn Fn(&mut WorkloadParams)>;

/// The value of an option (`--opt VALUE`).
fn value(it: &mut impl Iterator<Item = String>, opt: &str) -> Result<String, String> {
    it.next().ok_or_else(|| format!("{opt} needs a value"))
}

fn number(it: &mut impl Iterator<Item = String>, opt: &str) -> Result<u64, String> {
    let v = value(it, opt)?;
    vmapviz_core::trace::parse_num(&v).map_err(|e| format!("{opt}: {e}"))
}

fn small(it: &mut impl Iterator<Item = String>, opt: &str) -> Result<u32, String> {
    let n = number(it, opt)?;
    u32::try_from(n).map_err(|_| format!("{opt}: {n} is too large"))
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args::default();
    // Options given after a preset win, whatever their order on the command line.
    let mut later: Vec<Setter> = Vec::new();
    while let Some(s) = it.next() {
        match s.as_str() {
            "--check" => a.check = true,
            "--check-every" => {
                let n = number(&mut it, "--check-every")?;
                if n == 0 {
                    return Err("--check-every takes a count of at least 1".into());
                }
                a.check_every = Some(n);
            }
            "--counters" => a.counters = true,
            "--bench" => a.bench = true,
            "--profile" => {
                let n = value(&mut it, "--profile")?;
                match ProfileName::parse(&n) {
                    Some(ProfileName::Era(p)) => (a.profile, a.maple_tree) = (Some(p), false),
                    Some(ProfileName::MapleTree) => (a.profile, a.maple_tree) = (None, true),
                    None => return Err(format!("unknown profile `{}` (known: {})", quote(&n), ProfileName::known())),
                }
            }
            "--workload" => a.workload = Some(value(&mut it, "--workload")?),
            "--list-workloads" => a.list_workloads = true,
            "--seed" => {
                let v = number(&mut it, "--seed")?;
                later.push(Box::new(move |p| p.seed = v));
            }
            "--loops" => {
                let v = number(&mut it, "--loops")?;
                later.push(Box::new(move |p| p.loops = v));
            }
            "--cpus" => {
                let v = small(&mut it, "--cpus")?;
                a.cpus_given = Some(v);
                later.push(Box::new(move |p| p.cpus = v));
            }
            "--threads" => {
                let v = small(&mut it, "--threads")?;
                later.push(Box::new(move |p| p.nr_threads = Some(v)));
            }
            "--keep" => {
                let v = number(&mut it, "--keep")?;
                later.push(Box::new(move |p| p.keep = Some(v)));
            }
            "--nr-pages" => {
                let v = number(&mut it, "--nr-pages")?;
                later.push(Box::new(move |p| p.nr_pages = Some(v)));
            }
            "--mask" => {
                let v = number(&mut it, "--mask")?;
                later.push(Box::new(move |p| p.run_test_mask = Some(v)));
            }
            "--sequential" => later.push(Box::new(|p| p.sequential_test_order = true)),
            "--repeat" => {
                let v = small(&mut it, "--repeat")?;
                later.push(Box::new(move |p| p.test_repeat_count = v));
            }
            "--preset" => {
                let n = value(&mut it, "--preset")?;
                a.preset =
                    Some(Preset::parse(&n).ok_or_else(|| {
                        format!("unknown preset `{}` (known: performance, stress, smoke)", quote(&n))
                    })?);
            }
            "--import" => {
                let n = value(&mut it, "--import")?;
                if n == "capture" {
                    a.capture = true;
                } else {
                    a.import = Some(ImportFormat::parse(&n).ok_or_else(|| {
                        format!("unknown import format `{}` (known: ftrace, vmallocinfo, json, capture)", quote(&n))
                    })?);
                }
            }
            "--json" => a.json = true,
            "--report" => {
                let n = value(&mut it, "--report")?;
                if n != "fragmentation" && n != "callers" && n != "json" {
                    return Err(format!("unknown report `{}` (known: fragmentation, callers, json)", quote(&n)));
                }
                a.report = Some(n);
            }
            "--diff" => a.diff = Some(value(&mut it, "--diff")?),
            "--full" => a.full = true,
            "-h" | "--help" => return Err(String::new()),
            _ if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => {
                if a.file.replace(s).is_some() {
                    return Err("only one trace file".into());
                }
            }
        }
    }
    if let Some(p) = a.profile {
        a.params.profile = p;
    }
    // The CPU count first (a stress preset uses it), then the preset, then the other options.
    let mut cpus = a.params.clone();
    for f in &later {
        f(&mut cpus);
    }
    a.params.cpus = cpus.cpus;
    if let Some(pr) = a.preset {
        pr.apply(&mut a.params);
    }
    for f in &later {
        f(&mut a.params);
    }
    if a.maple_tree {
        if a.bench {
            return Err(NO_MAPLE_BENCH.into());
        }
        if a.workload.is_some() || a.import.is_some() {
            return Err(
                "--profile maple-tree names a maple-tree trace; workloads and imports are allocator traces".into()
            );
        }
    }
    if a.workload.is_none() && !a.list_workloads && a.file.is_none() {
        return Err("no trace file given".into());
    }
    Ok(a)
}

/// `eprintln!` with every control or invisible character of the message escaped: messages
/// quote input (file names, tokens), and a crafted input must not write terminal escapes.
macro_rules! say {
    ($($t:tt)*) => {
        eprintln!("{}", escaped(&format!($($t)*)))
    };
}

/// The input as messages name it, with the separator: `FILE: ` (nothing for stdin, `-`).
fn named(args: &Args) -> String {
    match args.file.as_deref() {
        None | Some("-") => String::new(),
        Some(f) => format!("{f}: "),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                say!("vmap-replay: {e}");
            }
            eprintln!("{}", usage(USAGE));
            eprintln!("{}", usage(REPORT_USAGE));
            return ExitCode::from(2);
        }
    };
    if args.list_workloads {
        for w in workload::list() {
            println!("{w}");
        }
        return ExitCode::SUCCESS;
    }
    if let Some(name) = &args.workload {
        return print_workload(name, &args);
    }
    let file = args.file.clone().unwrap_or_default();
    if args.report.as_deref() == Some("json") && !args.capture {
        say!("vmap-replay: --report json is a capture's report: with --import capture BUNDLE_DIR");
        return ExitCode::from(2);
    }
    if (args.report.is_some() && !args.capture) || args.diff.is_some() {
        return print_report(&file, &args);
    }
    if args.capture {
        return print_capture(&file, &args);
    }
    if args.import.is_some() || args.bench {
        // The importers read the whole capture; `--bench` parses first so that only the
        // replay is timed. Both read within the limits (JSON: the total only).
        let line_limit = args.import != Some(ImportFormat::Json);
        let bytes = match read_input(&file, line_limit) {
            Ok(b) => b,
            Err((code, msg)) => {
                say!("vmap-replay: {}{msg}", named(&args));
                return ExitCode::from(code);
            }
        };
        if let Some(fmt) = args.import {
            return print_import(fmt, &bytes, &args);
        }
        return bench_file(&file, &bytes, &args);
    }
    let input: Box<dyn BufRead> = if file == "-" {
        Box::new(BufReader::with_capacity(1 << 16, std::io::stdin().lock()))
    } else {
        match std::fs::File::open(&file) {
            Ok(f) => Box::new(BufReader::with_capacity(1 << 16, f)),
            Err(e) => {
                say!("vmap-replay: {file}: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // The backstop: exactly every N-th operation when told, else every max(4096, live objects).
    let mut inc = args.check_every.map_or_else(IncrementalCheck::default, IncrementalCheck::new);
    let code = match (args.counters, args.check) {
        (true, true) => {
            let mut c = CounterObserver::default();
            let code = replay_stream(input, &mut out, &args, &mut WithCheck { inner: &mut c, check: &mut inc });
            let _ = out.flush();
            print_counters(&c.total);
            code
        }
        (true, false) => {
            let mut c = CounterObserver::default();
            let code = replay_stream(input, &mut out, &args, &mut c);
            let _ = out.flush();
            print_counters(&c.total);
            code
        }
        (false, true) => replay_stream(input, &mut out, &args, &mut inc),
        (false, false) => replay_stream(input, &mut out, &args, &mut NoObserver),
    };
    let _ = out.flush();
    code
}

/// The longest trace line accepted, in bytes (a `pcpu` line of thousands of areas fits).
const MAX_LINE_BYTES: usize = 1 << 20;

const NO_MAPLE_BENCH: &str = "--bench times the allocator's traces; for the maple tree alone use vmap-maple-bench";

/// A line over [`MAX_LINE_BYTES`], the same message in every mode.
fn line_too_long(line: usize) -> String {
    format!("line {line}: longer than {} MiB: this is not a trace", MAX_LINE_BYTES >> 20)
}

/// An input over [`MAX_TRACE_BYTES`] (`--bench`, `--import`: they hold the whole input).
fn input_too_large(line: usize) -> String {
    format!("line {line}: the input is over {} MiB, the limit (crossed on this line)", MAX_TRACE_BYTES >> 20)
}

/// Trace lines read one at a time from a stream, with bounded memory: each line is checked
/// for length, NUL bytes and UTF-8 before it is handed out.
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
    line: usize,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines { input, buf: Vec::new(), line: 0 }
    }

    /// The next line (without its line break), `Ok(None)` at the end of the input. An error
    /// carries the exit code: 2 for input that cannot be read as text, 1 for a bad line.
    fn next_line(&mut self) -> Result<Option<(usize, &str)>, (u8, String)> {
        self.buf.clear();
        self.line += 1;
        let line = self.line;
        // Read at most one byte past the limit, so an endless line costs bounded memory.
        let n = (&mut self.input)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| (2, format!("line {line}: reading the input: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        if self.buf.len() > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
            return Err((1, line_too_long(line)));
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        if let Some(at) = self.buf.iter().position(|&b| b == 0) {
            return Err((2, format!("line {line}: binary data (a NUL byte at byte {}): this is not a trace", at + 1)));
        }
        // A byte-order mark before the first line is not part of it (the page drops it too).
        let skip = if line == 1 && self.buf.starts_with("\u{feff}".as_bytes()) { 3 } else { 0 };
        match std::str::from_utf8(&self.buf[skip..]) {
            Ok(t) => Ok(Some((line, t))),
            Err(e) => {
                Err((2, format!("line {line}: byte {} of the line is not UTF-8 text", skip + e.valid_up_to() + 1)))
            }
        }
    }
}

/// Replay a trace as it is read: parse a line, apply it, write its output. Memory follows the
/// allocator's live state, not the length of the trace, and output appears as it is produced.
fn replay_stream<O: Observer + EndOp>(input: impl BufRead, out: &mut impl Write, args: &Args, obs: &mut O) -> ExitCode {
    let at = named(args);
    let mut lines = Lines::new(input);
    let mut r = Replayer::new(args.profile.unwrap_or_default());
    let mut text = String::with_capacity(256);
    let mut seen_op = false;
    let mut applied = 0u64;
    loop {
        let (line, op) = match lines.next_line() {
            Ok(None) => {
                // A periodic check also looks at the final state.
                if args.check || args.check_every.is_some() {
                    if let Err(e) = obs.finish(&r.vmap) {
                        let _ = out.flush();
                        say!("vmap-replay: at the end of the trace: invariant violated: {e}");
                        return ExitCode::from(3);
                    }
                }
                if args.counters {
                    if let Some(m) = r.vmap.rfc() {
                        print_rfc_counters(m);
                    }
                }
                return ExitCode::SUCCESS;
            }
            Ok(Some((line, l))) if !seen_op && is_maple_profile(l) => {
                // `profile maple-tree` (issue 13): the rest of the trace acts on one maple tree.
                if let Some(f) = args.profile {
                    let _ = out.flush();
                    say!(
                        "vmap-replay: {at}line {line}: the trace says `profile maple-tree` but --profile {f} was given: drop one of them (refusing to measure the wrong era)"
                    );
                    return ExitCode::from(1);
                }
                let first = l.to_owned();
                return replay_maple(line, first, &mut lines, out, args);
            }
            Ok(Some((line, l))) if args.maple_tree => match parse_line(l) {
                // `--profile maple-tree`: the first operation starts the maple-tree replay.
                Ok(None) => continue,
                Ok(Some(Op::Profile(p))) => {
                    let _ = out.flush();
                    say!("vmap-replay: {at}line {line}: {}", import::profile_conflict(p, "--profile maple-tree"));
                    return ExitCode::from(1);
                }
                _ => return replay_maple(line, l.to_owned(), &mut lines, out, args),
            },
            Ok(Some((line, l))) => match parse_line(l) {
                Ok(None) => continue,
                Ok(Some(op)) => (line, op),
                Err(msg) => {
                    let _ = out.flush();
                    say!("vmap-replay: {at}line {line}: {msg}");
                    return ExitCode::from(1);
                }
            },
            Err((code, msg)) => {
                let _ = out.flush();
                say!("vmap-replay: {at}{msg}");
                return ExitCode::from(code);
            }
        };
        if let Err(msg) = check_profile_line(&op, seen_op, args.profile) {
            let _ = out.flush();
            say!("vmap-replay: {at}line {line}: {msg}");
            return ExitCode::from(1);
        }
        seen_op = true;
        text.clear();
        let res = r.apply(&op, &mut text, obs);
        if op.is_timed() {
            obs.end_op();
        }
        if out.write_all(text.as_bytes()).is_err() {
            // A closed pipe (`| head`): stop quietly.
            return ExitCode::SUCCESS;
        }
        if let Err(e) = res {
            let _ = out.flush();
            say!("vmap-replay: {at}line {line}: {e}");
            return ExitCode::from(1);
        }
        applied += 1;
        let checked = if args.check {
            obs.after_op(&r.vmap, &op, &text)
        } else if args.check_every.is_some_and(|n| applied.is_multiple_of(n)) {
            check_invariants(&r.vmap)
        } else {
            Ok(())
        };
        {
            if let Err(e) = checked {
                let _ = out.flush();
                say!("vmap-replay: {at}line {line}: invariant violated after `{op}`: {e}");
                return ExitCode::from(3);
            }
        }
    }
}

/// Whether a line is `profile maple-tree`.
fn is_maple_profile(l: &str) -> bool {
    let mut t = l.split_whitespace();
    t.next() == Some("profile") && t.next() == Some("maple-tree") && t.next().is_none()
}

/// A `profile maple-tree` trace, streamed from its profile line on (see core/src/maple/trace.rs).
fn replay_maple<R: BufRead>(
    line: usize,
    first: String,
    lines: &mut Lines<R>,
    out: &mut impl Write,
    args: &Args,
) -> ExitCode {
    let at = named(args);
    let mut r = vmapviz_core::maple::MapleReplay::new();
    r.check = args.check;
    r.check_every = args.check_every.or(args.check.then_some(DEFAULT_EVERY));
    let mut next = Some((line, first));
    loop {
        let (n, l) = match next.take() {
            Some(x) => x,
            None => match lines.next_line() {
                Ok(None) => {
                    if let Err(e) = r.finish() {
                        let _ = out.flush();
                        say!("vmap-replay: at the end of the trace: {e}");
                        return ExitCode::from(3);
                    }
                    return ExitCode::SUCCESS;
                }
                Ok(Some((n, l))) => (n, l.to_string()),
                Err((code, msg)) => {
                    let _ = out.flush();
                    say!("vmap-replay: {at}{msg}");
                    return ExitCode::from(code);
                }
            },
        };
        if let Err(e) = r.apply_line(n, &l, out) {
            let _ = out.flush();
            say!("vmap-replay: {at}{e}");
            return ExitCode::from(1);
        }
    }
}

/// A `profile` line must come first, and must not contradict `--profile`.
fn check_profile_line(op: &Op, seen_op: bool, flag: Option<Profile>) -> Result<(), String> {
    let Op::Profile(p) = op else { return Ok(()) };
    if seen_op {
        return Err("`profile` must come before every other operation".into());
    }
    match flag {
        Some(f) if f != *p => Err(import::profile_conflict(*p, &format!("--profile {f}"))),
        _ => Ok(()),
    }
}

/// `--bench`: parse the whole trace first, then time the replay loop only.
fn bench_file(file: &str, bytes: &[u8], args: &Args) -> ExitCode {
    let at = named(args);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let col = at - bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
            say!("vmap-replay: {file}: line {line}: byte {col} of the line is not UTF-8 text");
            return ExitCode::from(2);
        }
    };
    if vmapviz_core::maple::is_maple_trace(text) {
        say!("vmap-replay: {NO_MAPLE_BENCH}");
        return ExitCode::from(2);
    }
    let lines = match parse_trace(text) {
        Ok(l) => l,
        Err(e) => {
            say!("vmap-replay: {at}{e}");
            return ExitCode::from(1);
        }
    };
    if let (Some(first), Some(f)) = (lines.first(), args.profile) {
        if let Err(msg) = check_profile_line(&first.op, false, Some(f)) {
            say!("vmap-replay: {at}line {}: {msg}", first.line);
            return ExitCode::from(1);
        }
    }
    let mut r = Replayer::new(args.profile.unwrap_or_default());
    let mut out = String::with_capacity(BENCH_OUT_CAP);
    // Counted here, outside the timed function: the kernel reference's harness counts its
    // operations outside `kharness_bench` too, so the two instruction counts cover the same work.
    let ops = lines.iter().filter(|l| l.op.is_timed()).count();
    // Prints are part of the output but not of the timed work: left out before the clock starts.
    let lines: Vec<TraceLine> = lines.into_iter().filter(|l| !l.op.is_print()).collect();
    let code = bench(&mut r, &lines, ops, &mut out);
    let _ = std::io::stdout().write_all(out.as_bytes());
    code
}

/// The whole input of `--bench` and `--import`, the limits applied while reading: at most
/// [`MAX_TRACE_BYTES`] in all and, with `line_limit`, [`MAX_LINE_BYTES`] a line (JSON need not
/// break lines), so a huge input costs bounded memory and the error names the line. The error
/// carries the exit code: 2 for input that cannot be read, 1 over a limit.
fn read_input(file: &str, line_limit: bool) -> Result<Vec<u8>, (u8, String)> {
    let mut input: Box<dyn BufRead> = if file == "-" {
        Box::new(BufReader::with_capacity(1 << 16, std::io::stdin().lock()))
    } else {
        match std::fs::File::open(file) {
            Ok(f) => Box::new(BufReader::with_capacity(1 << 16, f)),
            Err(e) => return Err((2, format!("{file}: {e}"))),
        }
    };
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        line += 1;
        let start = buf.len();
        // One byte past each limit at most.
        let room = (MAX_TRACE_BYTES - start) as u64 + 1;
        let cap = if line_limit { room.min(MAX_LINE_BYTES as u64 + 1) } else { room };
        let n = (&mut input)
            .take(cap)
            .read_until(b'\n', &mut buf)
            .map_err(|e| (2, format!("line {line}: reading the input: {e}")))?;
        if n == 0 {
            return Ok(buf);
        }
        if line_limit && buf.len() - start > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
            return Err((1, line_too_long(line)));
        }
        if buf.len() > MAX_TRACE_BYTES {
            return Err((1, input_too_large(line)));
        }
    }
}

fn print_workload(name: &str, args: &Args) -> ExitCode {
    let stdout = std::io::stdout();
    if args.json {
        let w = match workload::generate(name, &args.params) {
            Ok(w) => w,
            Err(e) => {
                say!("vmap-replay: {e}");
                return ExitCode::from(1);
            }
        };
        let mut out = BufWriter::new(stdout.lock());
        let _ = out.write_all(import::to_json(&w).as_bytes());
        let _ = out.write_all(b"\n");
        return ExitCode::SUCCESS;
    }
    let mut sink = TextSink::new(BufWriter::with_capacity(1 << 20, stdout.lock()));
    if let Err(e) = workload::generate_into(name, &args.params, &mut sink) {
        say!("vmap-replay: {e}");
        return ExitCode::from(1);
    }
    let _ = sink.out.flush();
    match sink.err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            say!("vmap-replay: writing the trace: {e}");
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}

fn print_import(fmt: ImportFormat, bytes: &[u8], args: &Args) -> ExitCode {
    let at = named(args);
    let imported = match import::import_bytes(fmt, bytes, args.profile) {
        Ok(i) => i,
        Err(e) => {
            say!("vmap-replay: {at}{e}");
            return ExitCode::from(1);
        }
    };
    // An input that gives no operation (settings aside) is refused, as the workbench refuses it.
    if imported.ops.iter().all(Op::is_setting) {
        eprint!("{}", escaped(&imported.report.to_string()));
        say!("vmap-replay: {at}nothing to import: the input gives no operation");
        return ExitCode::from(1);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let text = if args.json { import::to_json(&imported.ops) + "\n" } else { imported.to_text() };
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    eprint!("{}", escaped(&imported.report.to_string()));
    ExitCode::SUCCESS
}

/// `--import capture DIR`: read the bundle's parts (each plain or `.gz`), replay, print the
/// capture's operations as a trace on stdout and the comparison on stderr.
fn print_capture(dir: &str, args: &Args) -> ExitCode {
    use vmapviz_core::capture::{self, Bundle, Part};
    let base = std::path::Path::new(dir);
    if !base.is_dir() {
        say!("vmap-replay: {dir}: not a directory (a capture bundle is a directory; see scripts/capture.sh)");
        return ExitCode::from(2);
    }
    // Each part: (its path as named in messages, its text), or None when absent.
    let read = |name: &str| -> Result<Option<(String, String)>, String> {
        for n in [name.to_string(), format!("{name}.gz")] {
            let path = base.join(&n);
            match std::fs::read(&path) {
                Ok(bytes) => {
                    let shown = path.display().to_string();
                    return capture::part_text(&shown, &bytes).map(|t| Some((shown, t))).map_err(|e| e.to_string());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        Ok(None)
    };
    let mut parts = Vec::new();
    for name in capture::PARTS {
        match read(name) {
            Ok(p) => parts.push(p),
            Err(e) => {
                say!("vmap-replay: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let need = |i: usize| -> Result<Part<'_>, String> {
        parts[i].as_ref().map(|(n, t)| Part { name: n, text: t }).ok_or_else(|| {
            format!(
                "{}: missing (nor {}.gz): every bundle has it",
                base.join(capture::PARTS[i]).display(),
                capture::PARTS[i]
            )
        })
    };
    let opt = |i: usize| parts[i].as_ref().map(|(n, t)| Part { name: n, text: t });
    let bundle = match (need(0), need(1), need(3)) {
        (Ok(before), Ok(trace), Ok(cpus)) => Bundle { before, trace, after: opt(2), cpus, uname: opt(4) },
        (a, b, c) => {
            for e in [a.err(), b.err(), c.err()].into_iter().flatten() {
                say!("vmap-replay: {e}");
            }
            return ExitCode::from(1);
        }
    };
    let profile = args.profile.unwrap_or(Profile::newest_release());
    let start = Instant::now();
    let (ops, report) = match capture::replay_capture(bundle, profile) {
        Ok(r) => r,
        Err(e) => {
            say!("vmap-replay: {e}");
            return ExitCode::from(1);
        }
    };
    let took = start.elapsed();
    if args.report.as_deref() == Some("json") {
        // The report's figures and each explained and unexplained allocation, in place of the trace.
        let mut out = BufWriter::new(std::io::stdout().lock());
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        let _ = out.flush();
        eprintln!("replayed in {:.2} s", took.as_secs_f64());
        eprint!("{}", escaped(&report.to_string()));
        return ExitCode::SUCCESS;
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let _ = writeln!(
        out,
        "# the capture's operations: the start state of the before file, then each event (the comparison, \
         which follows the kernel where they differ, is the report on stderr)"
    );
    let text = if args.json { import::to_json(&ops) + "\n" } else { vmapviz_core::trace::format_trace(&ops) };
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    eprintln!("replayed in {:.2} s", took.as_secs_f64());
    eprint!("{}", escaped(&report.to_string()));
    ExitCode::SUCCESS
}

/// The usage text with the registry's profiles: `PROFILES` (every era's name, the default
/// marked) and `NEWEST` (the newest kernel release modelled).
fn usage(text: &str) -> String {
    let names: Vec<String> = Profile::ALL
        .iter()
        .map(|&p| if p == Profile::default() { format!("{p} (default)") } else { p.to_string() })
        .collect();
    text.replace("PROFILES", &names.join(", ")).replace("NEWEST", Profile::newest_release().name())
}

const REPORT_USAGE: &str = " reports (print on stdout; --json for JSON):
  --report fragmentation FILE|DIR  the fragmentation figures of a /proc/vmallocinfo file, a trace (at its
                        end), or a capture bundle (before, after the replay, after as the kernel printed it):
                        per window (vmalloc; modules when areas are there) busy, lazy, pooled, free space,
                        free blocks, the largest free block, free blocks by power-of-two pages; lazy pages
                        against lazy_max_pages; each vmap node's pools (6.9+). Profile NEWEST unless
                        --profile (a trace: its own)
  --report callers FILE|DIR  the callers holding the most space (offset dropped), by bytes
  --diff A B            two /proc/vmallocinfo files: areas that appeared, disappeared, became lazy; the
                        figures of both; a summary line
  --cpus N              online CPUs for lazy_max_pages (default: the capture's or the trace's, else 1)
  --full                every area and caller (default: the first 20 of each list)";

/// `--report` and `--diff`.
fn print_report(file: &str, args: &Args) -> ExitCode {
    use vmapviz_core::report;
    let o = report::Options { profile: args.profile, cpus: args.cpus_given, json: args.json, full: args.full };
    let r = match (&args.diff, args.report.as_deref()) {
        (Some(_), Some(_)) => Err("--diff and --report: one at a time".to_string()),
        (Some(a), None) => report::diff_report(a, file, &o).map_err(|e| e.to_string()),
        (None, Some("callers")) => report::callers_report(file, &o).map_err(|e| e.to_string()),
        _ => report::fragmentation_report(file, &o).map_err(|e| e.to_string()),
    };
    match r {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vmap-replay: {e}");
            ExitCode::from(1)
        }
    }
}

/// The work counters' totals, on standard error (standard output keeps the replay format).
fn print_counters(c: &Counters) {
    let per = |x: u64| if c.ops > 0 { x as f64 / c.ops as f64 } else { 0.0 };
    eprintln!("counters: ops={}", c.ops);
    for (name, v) in [
        ("nodes_visited", c.nodes_visited.0),
        ("list_walked", c.list_walked.0),
        ("comparisons", c.comparisons.0),
        ("rotations", c.rotations.0),
        ("recolors", c.recolors.0),
        ("propagations", c.propagations.0),
        ("cache_lines", c.cache_lines.0),
    ] {
        eprintln!("counters: {name}={v} per_op={:.2}", per(v));
    }
    // The maple trees' figures (maple-rfc; zero for the free-tree eras), from the same events.
    if c.slots_scanned.0 + c.window_iterations.0 + c.bump_hits.0 > 0 {
        for (name, v) in [
            ("slots_scanned", c.slots_scanned.0),
            ("wasted_descents", c.wasted_descents.0),
            ("ascents", c.ascents.0),
            ("window_iterations", c.window_iterations.0),
            ("splits", c.splits.0),
            ("rebalances", c.rebalances.0),
            ("spanning_stores", c.spanning_stores.0),
            ("bump_hits", c.bump_hits.0),
        ] {
            eprintln!("counters: {name}={v} per_op={:.2}", per(v));
        }
    }
}

/// maple-rfc's state and bookkeeping figures (spec section 11.11), on standard error; the
/// search and store work (nodes visited, slots scanned, window iterations, splits, ...) is
/// counted from the step events with every other profile's counters.
fn print_rfc_counters(m: &vmapviz_core::maple_rfc::MapleRfc) {
    let c = &m.counters;
    for (name, v) in [
        ("occupied_stores", c.occupied_stores),
        ("bump_misses", c.bump_misses),
        ("refills", c.refills),
        ("fast_reject_hits", c.fast_reject_hits),
        ("chunk_walk_steps", c.chunk_walk_steps),
        ("released_before_flush", c.released_before_flush),
        ("overlap_warnings", c.overlap_warnings),
        ("overlaps_missed", c.overlaps_missed),
        ("pool_hits", c.pool_hits),
        ("purges", c.purges),
    ] {
        eprintln!("counters: maple_rfc.{name}={v}");
    }
    let s = m.structure();
    eprintln!(
        "counters: maple_rfc.occupied height={} nodes={} leaf_fill_pct={:.1} busy_tree_nodes={} free_tree_nodes={} chunks={}",
        s.occupied_height, s.occupied_nodes, s.leaf_fill_pct, s.busy_nodes, s.free_nodes, s.chunks
    );
    let live = m.live_areas() as f64;
    let per = if live > 0.0 { m.index_bytes() as f64 / live } else { 0.0 };
    eprintln!(
        "counters: maple_rfc.bytes live_areas={} index_bytes={} bytes_per_live_area={per:.1} (48 B objects + 256 B maple nodes + chunk descriptors)",
        m.live_areas(),
        m.index_bytes()
    );
}

/// Closes an operation for observers that count per operation, and runs the check of
/// `--check` for the observers that carry one.
trait EndOp {
    fn end_op(&mut self) {}
    fn after_op(&mut self, v: &impl Checked, _op: &Op, _out: &str) -> Result<(), String> {
        check_invariants(v)
    }
    fn finish(&mut self, v: &impl Checked) -> Result<(), String> {
        check_invariants(v)
    }
}
impl EndOp for NoObserver {}
impl EndOp for CounterObserver {
    fn end_op(&mut self) {
        CounterObserver::end_op(self);
    }
}
impl EndOp for IncrementalCheck {
    fn after_op(&mut self, v: &impl Checked, op: &Op, out: &str) -> Result<(), String> {
        IncrementalCheck::after_op(self, v, op, out)
    }
    fn finish(&mut self, v: &impl Checked) -> Result<(), String> {
        IncrementalCheck::finish(self, v)
    }
}
impl EndOp for WithCheck<'_, CounterObserver> {
    fn end_op(&mut self) {
        self.inner.end_op();
    }
    fn after_op(&mut self, v: &impl Checked, op: &Op, out: &str) -> Result<(), String> {
        self.check.after_op(v, op, out)
    }
    fn finish(&mut self, v: &impl Checked) -> Result<(), String> {
        self.check.finish(v)
    }
}

/// The bench's output buffer is emptied every [`BENCH_CHUNK`] lines once it holds this many
/// bytes (a cache-sized buffer, like a `BufWriter` flushing to `/dev/null`).
const BENCH_OUT_DRAIN: usize = 4 * 1024;

/// Lines replayed per call of [`Replayer::run`] in the bench: each call enters the era's loop
/// anew (the era's dispatch, the loop's prologue and epilogue, the boot test), about a hundred
/// instructions; at 256 lines that is under half an instruction per operation.
const BENCH_CHUNK: usize = 256;

/// The bench's output buffer: room for the drain's threshold and one chunk of the longest
/// lines an `alloc` or `free` prints (64 bytes, `push_line`'s reserve), so that it never grows.
const BENCH_OUT_CAP: usize = BENCH_OUT_DRAIN + 64 * BENCH_CHUNK;

/// The timed loop. Never inlined: `scripts/bench-perf.sh --callgrind` counts instructions
/// inside this function only.
#[inline(never)]
fn bench(r: &mut Replayer, lines: &[TraceLine], ops: usize, out: &mut String) -> ExitCode {
    let t = Instant::now();
    // The output is formatted inside the timed loop but written nowhere: drain it every
    // BENCH_CHUNK lines once it holds 4 KiB, as a buffered writer to a sink would, so that the
    // loop does not also time the growth of a 27 MB string (first-touch page faults and
    // cold-line writes, ~0.45 LL misses per op); one test per chunk keeps the check off the
    // count. `Replayer::run` applies each chunk in a loop compiled for the profile.
    for chunk in lines.chunks(BENCH_CHUNK) {
        if let Err(e) = r.run(chunk, out, &mut NoObserver) {
            say!("vmap-replay: {e}");
            return ExitCode::from(1);
        }
        if out.len() >= BENCH_OUT_DRAIN {
            out.clear();
        }
    }
    let ns = t.elapsed().as_nanos() as f64;
    out.clear();
    eprintln!("ops={ops} ns_per_op={:.1}", if ops > 0 { ns / ops as f64 } else { 0.0 });
    ExitCode::SUCCESS
}
