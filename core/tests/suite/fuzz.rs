//! Fuzzing of the whole input path, on stable Rust with proptest.
//!
//! Every generated input goes through the trace parser, every profile's replay with the
//! invariants checked after each operation (and the state compared before and after each
//! refused operation: nothing may half-apply), the session's frames, the JSON form, the
//! three importers and the operations' bytes (damaged too). A case that runs longer than [`HANG`] is a hang: the input is printed and
//! the test process exits.
//!
//! In `npm test` (and `cargo test`) each target runs a bounded number of cases from a fixed
//! seed. To fuzz for hours, raise the count and vary the seed:
//!
//! ```text
//! VMAPVIZ_FUZZ_CASES=1000000 VMAPVIZ_FUZZ_SEED=7 cargo test --release -p vmapviz-core --test suite -- --nocapture fuzz::
//! ```

use std::sync::mpsc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use vmapviz_core::check::check_invariants;
use vmapviz_core::import::{self, ImportFormat};
use vmapviz_core::replay::{dump_busy, dump_free_tree, dump_pools};
use vmapviz_core::trace::{parse_trace, MESSAGE_MAX};
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Op, Profile, Replayer, Session, TraceLine};

/// A case taking longer than this is reported as a hang.
const HANG: Duration = Duration::from_secs(20);

fn cases(default: u32) -> u32 {
    std::env::var("VMAPVIZ_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn runner(target: u8, default_cases: u32) -> TestRunner {
    let seed: u64 = std::env::var("VMAPVIZ_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8] = target;
    let config =
        Config { cases: cases(default_cases), failure_persistence: None, max_shrink_iters: 2_000, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key))
}

/// Run `check` on `input` in a thread; a case that does not end within [`HANG`] ends the
/// test process with the input printed (a hang cannot be shrunk).
fn guarded(input: String, check: fn(&str) -> Result<(), String>) -> Result<(), TestCaseError> {
    let (tx, rx) = mpsc::channel();
    let copy = input.clone();
    std::thread::spawn(move || {
        let _ = tx.send(check(&copy));
    });
    match rx.recv_timeout(HANG) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(TestCaseError::fail(e)),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            eprintln!("HANG: no answer within {HANG:?} for this input:\n{}", bounded(&input));
            std::process::exit(101);
        }
        // The checker panicked: a panic in the core is a defect (the message is on stderr).
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(TestCaseError::fail("the core panicked")),
    }
}

fn bounded(s: &str) -> &str {
    let mut cut = s.len().min(20_000);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

// ----------------------------------------------------------------------------
// Generators
// ----------------------------------------------------------------------------

/// Numbers that sit on the edges the allocator's arithmetic must handle.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => (0u64..64).prop_map(|k| VMALLOC_START + k * 0x1000),
        1 => (0u64..64).prop_map(|k| VMALLOC_END - k * 0x1000),
        2 => (0u64..16).prop_map(|k| k * 0x1000),
        2 => (0u32..64).prop_map(|k| 1u64 << k),
        2 => (0u32..64).prop_map(|k| u64::MAX - (1u64 << k) + 1),
        1 => Just(VMALLOC_END),
        1 => Just(u64::MAX),
        1 => Just(0u64),
        1 => (0u32..64).prop_map(|k| (1u64 << k).wrapping_add(0x1000)),
        1 => any::<u64>(),
    ]
}

/// A page-multiple size, mostly small.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => (1u64..32).prop_map(|p| p * 0x1000),
        2 => number(),
        1 => (0u32..64).prop_map(|k| (1u64 << k).wrapping_add(0x1000)),
    ]
}

fn align() -> impl Strategy<Value = u64> {
    prop_oneof![
        5 => Just(1u64),
        3 => (12u32..24).prop_map(|k| 1u64 << k),
        2 => (0u32..64).prop_map(|k| 1u64 << k),
        1 => number(),
    ]
}

/// A window: mostly the vmalloc window, sometimes hostile.
fn window() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        6 => Just((VMALLOC_START, VMALLOC_END)),
        2 => (0u64..64, 1u64..64).prop_map(|(a, b)| (VMALLOC_START + a * 0x1000, VMALLOC_START + (a + b) * 0x1000)),
        2 => (number(), number()),
        1 => number().prop_map(|a| (a, a)),
    ]
}

fn op_line() -> impl Strategy<Value = String> {
    prop_oneof![
        10 => (size(), align(), window()).prop_map(|(s, a, (vs, ve))| format!("alloc {s:#x} {a:#x} {vs:#x} {ve:#x}")),
        4 => (0u64..64).prop_map(|k| format!("free {:#x}", VMALLOC_START + k * 0x1000)),
        4 => (0u64..64).prop_map(|k| format!("vfree {:#x}", VMALLOC_START + k * 0x1000)),
        1 => number().prop_map(|a| format!("free {a:#x}")),
        1 => number().prop_map(|a| format!("vfree {a:#x}")),
        1 => Just("purge".to_string()),
        1 => Just("reclaim".to_string()),
        1 => (number(), number()).prop_map(|(s, e)| format!("init {s:#x} {e:#x}")),
        1 => prop_oneof![1u64..70, number()].prop_map(|n| format!("cpus {n}")),
        1 => (0u64..70).prop_map(|n| format!("cpu {n}")),
        2 => (align(), prop::collection::vec((0u64..8, size()), 1..4)).prop_map(|(a, areas)| {
            let mut l = format!("pcpu {a:#x}");
            let mut off = 0u64;
            for (gap, s) in areas {
                off = off.wrapping_add(gap * 0x10000);
                l.push_str(&format!(" {off:#x}:{s:#x}"));
                off = off.wrapping_add(s);
            }
            l
        }),
        1 => (align(), number(), number()).prop_map(|(a, o, s)| format!("pcpu {a:#x} {o:#x}:{s:#x}")),
        1 => prop_oneof![Just("dump"), Just("busy"), Just("pools")].prop_map(str::to_string),
        1 => prop_oneof![Just("bump on"), Just("bump off"), Just("bump"), Just("bump 1")].prop_map(str::to_string),
        1 => (size(), align(), window()).prop_map(|(s, a, (vs, ve))| format!("early {s:#x} {a:#x} {vs:#x} {ve:#x}")),
        1 => garbage_line(),
    ]
}

/// A line that is mostly not valid.
fn garbage_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("alloc".to_string()),
        Just("alloc 0x1000 0x1 0x0".to_string()),
        Just("free 0x".to_string()),
        Just("free 0xffffffffffffffffff".to_string()),
        Just("pcpu 0x1000 0x0".to_string()),
        Just("profile linux-4.0".to_string()),
        Just("profile linux-5.2".to_string()),
        "[ -~]{0,40}",
        "\\PC{0,20}",
        (1usize..5000).prop_map(|n| format!("free 0x{}", "f".repeat(n))),
    ]
}

fn profile_line() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just(String::new()),
        1 => prop::sample::select(Profile::ALL.to_vec()).prop_map(|p| format!("profile {p}\n")),
    ]
}

fn trace_text() -> impl Strategy<Value = String> {
    (profile_line(), prop::collection::vec(op_line(), 0..40)).prop_map(|(p, ops)| {
        let mut s = p;
        for l in ops {
            s.push_str(&l);
            s.push('\n');
        }
        s
    })
}

// ----------------------------------------------------------------------------
// Checks
// ----------------------------------------------------------------------------

/// Everything observable of an allocator's state, as text (after its lazy first-use init,
/// which is not an observable change).
fn state_text(r: &Replayer) -> String {
    let mut v = r.vmap.clone();
    v.ensure_init();
    let mut s = String::new();
    dump_free_tree(&v, &mut s);
    dump_busy(&v, &mut s);
    dump_pools(&v, &mut s);
    s.push_str(&format!("cpus {} cpu {} lazy {:?}\n", v.cpus(), v.cpu(), v.lazy_areas()));
    s
}

/// The state after the first `k` operations (a deterministic replay from the start).
fn state_after(lines: &[TraceLine], p: Profile, k: usize) -> String {
    let mut r = Replayer::new(p);
    let mut out = String::new();
    for l in &lines[..k] {
        let _ = r.apply(&l.op, &mut out, &mut NoObserver);
    }
    state_text(&r)
}

/// A trace text through the parser, every profile's replay, the session and the JSON form.
fn check_trace(text: &str) -> Result<(), String> {
    let lines = match parse_trace(text) {
        Ok(l) => l,
        Err(e) => {
            let msg = e.to_string();
            if msg.chars().count() > MESSAGE_MAX + 40 {
                return Err(format!("an error message of {} characters", msg.chars().count()));
            }
            return Ok(());
        }
    };
    let mut default_out = None;
    for p in Profile::ALL {
        let mut r = Replayer::new(p);
        let mut out = String::new();
        for (i, l) in lines.iter().enumerate() {
            let mark = out.len();
            match r.apply(&l.op, &mut out, &mut NoObserver) {
                Ok(_) => {
                    check_invariants(&r.vmap)
                        .map_err(|e| format!("{p}: line {} `{}`: invariant broken: {e}", l.line, l.op))?;
                }
                Err(e) => {
                    if e.to_string().chars().count() > MESSAGE_MAX + 200 {
                        return Err(format!("{p}: line {}: an error message of unbounded length", l.line));
                    }
                    if out.len() != mark {
                        return Err(format!("{p}: line {}: a refused operation printed output", l.line));
                    }
                    if state_text(&r) != state_after(&lines, p, i) {
                        return Err(format!("{p}: line {} `{}`: refused ({e}) but the state changed", l.line, l.op));
                    }
                    break;
                }
            }
        }
        if p == Profile::default() {
            default_out = Some(out);
        }
    }
    // The session (what the page uses) prints what the replay prints, op by op and in frames.
    if let Ok(s) = Session::load(text) {
        let out = default_out.unwrap_or_default();
        if s.output() != out {
            return Err("the session's output differs from the replay's".into());
        }
        let n = s.len();
        for k in [0, n / 2, n.saturating_sub(1)] {
            if k < n {
                let f = s.frames(k).ok_or("frames(k) of an existing op is None")?;
                if f.output != s.op_output(k) {
                    return Err(format!("op {k}: the frames' output differs from the session's"));
                }
            }
        }
    }
    // The JSON form round-trips.
    let ops: Vec<_> = lines.iter().map(|l| l.op.clone()).collect();
    let back = import::from_json(&import::to_json(&ops)).map_err(|e| format!("JSON round trip: {e}"))?;
    if back != ops {
        return Err("the JSON form does not round-trip".into());
    }
    Ok(())
}

/// An importer on any input: no panic, no hang; what it accepts replays with the invariants.
fn check_import(text: &str) -> Result<(), String> {
    for fmt in [ImportFormat::Ftrace, ImportFormat::Vmallocinfo, ImportFormat::Json] {
        if let Ok(imp) = import::import_bytes(fmt, text.as_bytes(), None) {
            let mut r = Replayer::default();
            let mut out = String::new();
            for op in &imp.ops {
                if r.apply(op, &mut out, &mut NoObserver).is_err() {
                    break;
                }
                check_invariants(&r.vmap).map_err(|e| format!("{}: `{op}`: invariant broken: {e}", fmt.name()))?;
            }
        } else if let Err(e) = import::import_bytes(fmt, text.as_bytes(), None) {
            if e.to_string().chars().count() > MESSAGE_MAX + 40 {
                return Err(format!("{}: an error message of unbounded length", fmt.name()));
            }
        }
    }
    Ok(())
}

// ----------------------------------------------------------------------------
// Importer inputs
// ----------------------------------------------------------------------------

fn ftrace_line() -> impl Strategy<Value = String> {
    let head =
        (0u32..4, 1u32..1000).prop_map(|(cpu, t)| format!("  vmalloc_test/0-412  [{cpu:03}] .....  {t}.000001: "));
    prop_oneof![
        4 => (head.clone(), size(), align(), window(), number(), 0u8..3).prop_map(|(h, s, a, (vs, ve), va, f)| {
            format!("{h}alloc_vmap_area: va_start: {va} size={s} align={a} vstart={vs:#x} vend={ve:#x} failed={f}")
        }),
        3 => (head.clone(), (0u64..64), 0u64..100).prop_map(|(h, k, n)| {
            format!("{h}free_vmap_area_noflush: va_start={:#x} nr_lazy={n} nr_lazy_max=32768", VMALLOC_START + k * 0x1000)
        }),
        1 => (head.clone(), number(), number()).prop_map(|(h, s, e)| {
            format!("{h}purge_vmap_area_lazy: start={s:#x} end={e:#x} num_purged=3")
        }),
        1 => (head, garbage_line()).prop_map(|(h, g)| format!("{h}{g}")),
        1 => garbage_line(),
    ]
}

fn vmallocinfo_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (number(), size(), prop::sample::select(vec![
            "pages=1 vmalloc N0=1", "ioremap", "vmap", "vm_map_ram", "unpurged vm_area", "pages=4 vmalloc vpages N0=2 N1=2",
        ])).prop_map(|(s, z, rest)| format!("0x{:016x}-0x{:016x} {:>7} foo+0x1/0x2 {rest}", s, s.wrapping_add(z), z)),
        1 => (number(), number(), number()).prop_map(|(s, e, z)| format!("0x{s:016x}-0x{e:016x} {z} bar+0x1/0x2 vmalloc")),
        1 => garbage_line(),
    ]
}

fn import_text() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::collection::vec(ftrace_line(), 0..30).prop_map(|v| v.join("\n")),
        2 => prop::collection::vec(vmallocinfo_line(), 0..30).prop_map(|v| v.join("\n")),
        1 => trace_text().prop_map(|t| {
            // The JSON form of a (parsable) trace, or the text itself.
            match parse_trace(&t) {
                Ok(l) => import::to_json(&l.iter().map(|l| l.op.clone()).collect::<Vec<_>>()),
                Err(_) => t,
            }
        }),
        1 => "\\PC{0,200}",
    ]
}

// ----------------------------------------------------------------------------
// Mutations of the conformance vectors
// ----------------------------------------------------------------------------

fn conformance_traces() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let mut out = Vec::new();
    for dir in ["conformance", "conformance-nodes"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "trace"))
            .collect();
        paths.sort();
        for p in paths {
            // The short vectors: every operation of a mutant is checked, so length costs twice.
            if let Ok(t) = std::fs::read_to_string(&p) {
                if t.lines().count() <= 400 {
                    out.push(t);
                }
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace one number of a line by an edge value.
    Number { line: usize, tok: usize, value: u64 },
    /// Duplicate a line.
    Dup { line: usize },
    /// Drop a line.
    Drop { line: usize },
    /// Insert a generated line.
    Insert { line: usize, text: String },
    /// Flip a byte.
    Byte { at: usize, value: u8 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 1usize..5, number()).prop_map(|(line, tok, value)| Mutation::Number { line, tok, value }),
        1 => any::<usize>().prop_map(|line| Mutation::Dup { line }),
        1 => any::<usize>().prop_map(|line| Mutation::Drop { line }),
        2 => (any::<usize>(), op_line()).prop_map(|(line, text)| Mutation::Insert { line, text }),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::Byte { at, value }),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in muts {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match m {
            Mutation::Number { line, tok, value } => {
                let l = &mut lines[line % n];
                let mut toks: Vec<String> = l.split_whitespace().map(str::to_string).collect();
                if toks.len() > 1 {
                    let i = 1 + tok % (toks.len() - 1);
                    toks[i] = format!("{value:#x}");
                    *l = toks.join(" ");
                }
            }
            Mutation::Dup { line } => {
                let l = lines[line % n].clone();
                lines.insert(line % n, l);
            }
            Mutation::Drop { line } => {
                lines.remove(line % n);
            }
            Mutation::Insert { line, text } => lines.insert(line % (n + 1), text.clone()),
            Mutation::Byte { at, value } => {
                let mut bytes = lines.join("\n").into_bytes();
                if !bytes.is_empty() {
                    let i = at % bytes.len();
                    bytes[i] = *value;
                }
                lines = String::from_utf8_lossy(&bytes).lines().map(str::to_string).collect();
            }
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

// ----------------------------------------------------------------------------
// Targets
// ----------------------------------------------------------------------------

fn report(name: &str, r: Result<(), proptest::test_runner::TestError<impl std::fmt::Debug>>, t0: Instant) {
    eprintln!("fuzz {name}: {} cases in {:.1} s", cases(0), t0.elapsed().as_secs_f64());
    if let Err(e) = r {
        panic!("fuzz {name}: {e}");
    }
}

// ----------------------------------------------------------------------------
// Steering lines (core/src/capture/follow.rs): each checked against the model before it applies
// ----------------------------------------------------------------------------

/// An address among the first 48 pages of the window, or a hostile number.
fn near() -> impl Strategy<Value = u64> {
    prop_oneof![8 => (0u64..48).prop_map(|k| VMALLOC_START + k * 0x1000), 1 => number()]
}

fn node_n() -> impl Strategy<Value = u64> {
    prop_oneof![12 => 0u64..4, 2 => 4u64..65_536, 1 => 65_536u64..70_000]
}

fn keep_list() -> impl Strategy<Value = String> {
    prop::collection::vec(near(), 0..4).prop_map(|k| {
        let mut s = String::new();
        if !k.is_empty() {
            s.push_str(" keep");
        }
        for a in k {
            s.push_str(&format!(" {a:#x}"));
        }
        s
    })
}

fn steering_line() -> impl Strategy<Value = String> {
    let small = prop_oneof![6 => (1u64..8).prop_map(|p| p * 0x1000), 1 => size()];
    let alloc_win = prop_oneof![
        4 => Just((VMALLOC_START, VMALLOC_END)),
        2 => (0u64..48, 1u64..48).prop_map(|(a, b)| (VMALLOC_START + a * 0x1000, VMALLOC_START + (a + b) * 0x1000)),
        1 => window(),
    ];
    let mark = prop_oneof![3 => Just(""), 1 => Just(" unexplained"), 1 => Just(" explained pool-entry"), 1 => Just(" untraced")];
    prop_oneof![
        6 => (small.clone(), align(), alloc_win, near(), mark)
            .prop_map(|(s, a, (vs, ve), x, m)| format!("alloc {s:#x} {a:#x} {vs:#x} {ve:#x} = {x:#x}{m}")),
        3 => (small.clone(), prop_oneof![Just(1u64), Just(0x1000u64)])
            .prop_map(|(s, a)| format!("alloc {s:#x} {a:#x} {VMALLOC_START:#x} {VMALLOC_END:#x}")),
        2 => near().prop_map(|a| format!("vfree {a:#x}")),
        1 => near().prop_map(|a| format!("free {a:#x}")),
        2 => (near(), small.clone(), prop::option::of(node_n())).prop_map(|(a, s, n)| match n {
            Some(n) => format!("place {a:#x} {:#x} node {n}", a.wrapping_add(s)),
            None => format!("place {a:#x} {:#x}", a.wrapping_add(s)),
        }),
        2 => (near(), node_n()).prop_map(|(a, n)| format!("lazy {a:#x} node {n}")),
        2 => (node_n(), near(), small.clone(), prop_oneof![Just(String::new()), Just(" head".to_string()), (0u32..4).prop_map(|k| format!(" behind {k}"))])
            .prop_map(|(n, a, s, at)| format!("pooled {n} {a:#x} {s:#x}{at}")),
        1 => (near(), small.clone()).prop_map(|(a, s)| format!("hold {a:#x} {:#x}", a.wrapping_add(s))),
        1 => near().prop_map(|a| format!("release {a:#x}")),
        2 => (near(), small).prop_map(|(a, s)| format!("unpool {a:#x} {s:#x}")),
        2 => (
            prop_oneof![Just("purge"), Just("purge behind"), Just("reclaim")],
            prop_oneof![
                Just(String::new()),
                node_n().prop_map(|n| format!(" decayed {n}")),
                node_n().prop_map(|n| format!(" upto {n}")),
                near().prop_map(|a| format!(" through {a:#x}")),
            ],
            keep_list()
        )
            .prop_map(|(c, st, k)| format!("{c}{}{k}", if c == "reclaim" { "" } else { st.as_str() })),
        1 => keep_list().prop_map(|k| format!("purge-rest{k}")),
        1 => Just("defer-drain".to_string()),
        1 => Just("shrink".to_string()),
        1 => Just("purge".to_string()),
        1 => (0u64..4).prop_map(|n| format!("cpu {n}")),
    ]
}

fn steering_text() -> impl Strategy<Value = String> {
    let head = prop_oneof![
        4 => Just("profile linux-6.18\ncpus 4\n"),
        2 => Just("profile linux-6.9\ncpus 2\n"),
        1 => Just("profile linux-6.1\n"),
        1 => Just("profile linux-5.2\n"),
        1 => Just("profile linux-5.1\n"),
        1 => Just("profile maple-rfc\n"),
    ];
    (head, prop::collection::vec(steering_line(), 0..40)).prop_map(|(h, ops)| {
        let mut s = h.to_string();
        for l in ops {
            s.push_str(&l);
            s.push('\n');
        }
        s
    })
}

/// A trace of steering lines: every line applied (a refused one too: it changed nothing, so
/// the rest still applies); after each accepted line the whole check and the incremental one
/// pass, an accepted `alloc ... = ADDR` gave ADDR in its window, aligned (linux-5.1, which has
/// no free tree to take it from, may say it cannot); after each refused line the state and the
/// output are what they were, and the message is bounded.
fn check_steering(text: &str) -> Result<(), String> {
    use vmapviz_core::capture::follow::Follow;
    use vmapviz_core::check_inc::IncrementalCheck;
    let lines = match parse_trace(text) {
        Ok(l) => l,
        // A node number past the parser's range: refused there, briefly.
        Err(e) if e.to_string().chars().count() <= MESSAGE_MAX + 40 => return Ok(()),
        Err(e) => return Err(format!("an error message of {} characters", e.to_string().chars().count())),
    };
    let mut r = Replayer::default();
    let mut inc = IncrementalCheck::default();
    let mut out = String::new();
    for l in &lines {
        let before = state_text(&r);
        let mark = out.len();
        match r.apply(&l.op, &mut out, &mut inc) {
            Ok(_) => {
                check_invariants(&r.vmap).map_err(|e| format!("line {} `{}`: invariant broken: {e}", l.line, l.op))?;
                inc.after_op(&r.vmap, &l.op, &out[mark..])
                    .map_err(|e| format!("line {} `{}`: the incremental check cries wolf: {e}", l.line, l.op))?;
                if let Op::Follow(f) = &l.op {
                    if let Follow::Alloc { size, align, vstart, vend, addr, .. } = **f {
                        let printed = &out[mark..];
                        let failed = printed == "alloc -> FAIL\n";
                        if !(failed && r.vmap.profile() == Profile::Linux51)
                            && printed != format!("alloc -> {addr:#x}\n")
                        {
                            return Err(format!("line {} `{}`: accepted, printed {printed:?}", l.line, l.op));
                        }
                        if addr % align != 0 || addr < vstart || addr.checked_add(size).is_none_or(|e| e > vend) {
                            return Err(format!("line {} `{}`: accepted outside its window", l.line, l.op));
                        }
                    }
                }
            }
            Err(e) => {
                if e.to_string().chars().count() > MESSAGE_MAX + 200 {
                    return Err(format!("line {}: an error message of unbounded length", l.line));
                }
                if out.len() != mark {
                    return Err(format!("line {}: a refused line printed output", l.line));
                }
                if state_text(&r) != before {
                    return Err(format!("line {} `{}`: refused ({e}) but the state changed", l.line, l.op));
                }
                // The check's running sums are set up again after a refusal, as after a profile.
                inc = IncrementalCheck::default();
            }
        }
    }
    Ok(())
}

#[test]
fn fuzz_steering_lines() {
    let t0 = Instant::now();
    let r = runner(4, 3_000).run(&steering_text(), |t| guarded(t, check_steering));
    report("steering lines", r, t0);
}

/// Operations as bytes (core/src/trace_bytes.rs), the input one instance of the core takes
/// from another: a trace's operations (parsed from text, the reference) come back from their
/// bytes; damaged bytes (changed, cut, grown) give an error with a bounded message or
/// operations whose bytes give them again, never a panic.
fn check_bytes(text: &str, damage: &[(usize, u8, u8)]) -> Result<(), String> {
    use vmapviz_core::trace_bytes::{decode, encode};
    let Ok(lines) = parse_trace(text) else { return Ok(()) };
    let ops: Vec<Op> = lines.into_iter().map(|l| l.op).collect();
    let mut b = encode(ops.iter());
    if decode(&b).as_ref() != Ok(&ops) {
        return Err("the operations do not come back from their bytes".into());
    }
    for &(at, x, how) in damage {
        let i = at % (b.len() + 1);
        match how % 3 {
            0 if i < b.len() => b[i] = x,
            1 => b.truncate(i),
            _ => b.insert(i, x),
        }
    }
    match decode(&b) {
        Ok(got) => {
            if decode(&encode(got.iter())).as_ref() != Ok(&got) {
                return Err("decoded operations do not come back from their own bytes".into());
            }
        }
        Err(e) if e.to_string().chars().count() > MESSAGE_MAX + 80 => {
            return Err(format!("an error message of {} characters", e.to_string().chars().count()))
        }
        Err(_) => {}
    }
    Ok(())
}

#[test]
fn fuzz_operations_as_bytes() {
    let t0 = Instant::now();
    let damage = prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..4);
    let r = runner(5, 2_000).run(&(steering_text(), damage), |(t, d)| {
        check_bytes(&t, &d).map_err(|e| TestCaseError::fail(format!("{e}\n{}", bounded(&t))))
    });
    report("operations as bytes", r, t0);
}

#[test]
fn fuzz_traces() {
    let t0 = Instant::now();
    let r = runner(1, 3_000).run(&trace_text(), |t| guarded(t, check_trace));
    report("traces", r, t0);
}

#[test]
fn fuzz_conformance_mutations() {
    let vectors = conformance_traces();
    assert!(!vectors.is_empty(), "no conformance vectors found beside the repository (../shared)");
    let t0 = Instant::now();
    let strategy = (0..vectors.len(), prop::collection::vec(mutation(), 1..6))
        .prop_map(move |(i, muts)| mutate(&vectors[i], &muts));
    let r = runner(2, 300).run(&strategy, |t| guarded(t, check_trace));
    report("conformance mutations", r, t0);
}

#[test]
fn fuzz_importers() {
    let t0 = Instant::now();
    let r = runner(3, 2_000).run(&import_text(), |t| guarded(t, check_import));
    report("importers", r, t0);
}

// ----------------------------------------------------------------------------
// The hostile inputs of issue 11, each a regression test
// ----------------------------------------------------------------------------

/// Replays `text` under `p` in a guarded thread; returns the output and the error, if any.
fn replay_guarded(text: &'static str, p: Profile) -> (String, Option<String>) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let lines = parse_trace(text).unwrap();
        let mut r = Replayer::new(p);
        let mut out = String::new();
        let mut err = None;
        for l in &lines {
            let before = state_text(&r);
            match r.apply(&l.op, &mut out, &mut NoObserver) {
                Ok(_) => check_invariants(&r.vmap).unwrap(),
                Err(e) => {
                    assert_eq!(state_text(&r), before, "a refused operation changed the state");
                    err = Some(e.to_string());
                    break;
                }
            }
        }
        let _ = tx.send((out, err));
    });
    rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| panic!("{p}: no answer within 5 s (a hang)"))
}

/// Three frees leave a small hole between two big blocks; a request whose `size + align - 1`
/// wraps makes the 5.2 roll-back climb out of the right subtree and re-enter it forever.
const ENDLESS_52: &str = "\
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
free 0xffffc90000002000
alloc 0x8000000000001000 0x8000000000000000 0xffffc90000000000 0xffffe8ffffffffff
";

#[test]
fn endless_52_search_is_refused_and_other_eras_fail() {
    let (out, err) = replay_guarded(ENDLESS_52, Profile::Linux52);
    let err = err.expect("linux-5.2 must refuse the request");
    assert!(err.contains("would never return"), "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    for p in [Profile::Linux51, Profile::Linux61, Profile::Linux69] {
        let (out, err) = replay_guarded(ENDLESS_52, p);
        assert_eq!(err, None, "{p}");
        assert!(out.ends_with("alloc -> FAIL\n"), "{p}: {out}");
    }
}

/// The same request with lazy areas to purge: the retry after the purge is where the loop
/// would start, so the refusal must come before the purge changes anything.
const ENDLESS_52_AFTER_PURGE: &str = "\
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
vfree 0xffffc90000002000
alloc 0x8000000000001000 0x8000000000000000 0xffffc90000000000 0xffffe8ffffffffff
";

#[test]
fn endless_52_search_after_a_purge_changes_nothing() {
    let (out, err) = replay_guarded(ENDLESS_52_AFTER_PURGE, Profile::Linux52);
    assert!(err.expect("refused").contains("would never return"));
    assert!(out.ends_with("vfree 0xffffc90000002000 ok\n"), "{out}");
}

#[test]
fn pcpu_51_align_wrap_is_refused() {
    let (out, err) = replay_guarded("pcpu 0x8000000000000000 0x0:0x8000000000000000\n", Profile::Linux51);
    assert_eq!(out, "");
    assert!(err.expect("refused").contains("outside the window"));
    for p in [Profile::Linux52, Profile::Linux61, Profile::Linux69] {
        let (out, err) = replay_guarded("pcpu 0x8000000000000000 0x0:0x8000000000000000\n", p);
        assert_eq!((out.as_str(), err), ("pcpu -> FAIL\n", None), "{p}");
    }
}

#[test]
fn a_huge_token_is_quoted_briefly() {
    let token = "1".repeat(1_000_000);
    let e = parse_trace(&format!("alloc 0x1000 0x1 0x0 {token}\n")).unwrap_err().to_string();
    assert!(e.starts_with("line 1: "), "{e}");
    assert!(e.len() < 200, "{} bytes", e.len());
    assert!(e.contains("1000000 bytes"), "{e}");
    let e = parse_trace(&format!("{token}\n")).unwrap_err().to_string();
    assert!(e.len() < 300, "{} bytes", e.len());
    let e =
        import::import_bytes(ImportFormat::Json, format!("{{\"ops\": [{{\"op\": \"{token}\"}}]}}").as_bytes(), None)
            .unwrap_err()
            .to_string();
    assert!(e.len() <= MESSAGE_MAX + 40, "{} bytes", e.len());
}
