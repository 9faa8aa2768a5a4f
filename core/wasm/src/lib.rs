//! Thin wasm-bindgen facade over `vmapviz-core`: a [`Vmapviz`] session whose methods return
//! JSON text. 64-bit addresses and sizes travel as lower-case `0x` hex strings (JSON numbers
//! lose precision above 2^53); ids, counts and depths stay numbers.

use serde::Serialize;
use serde_json::Value;
use vmapviz_core::check::check_invariants;
use vmapviz_core::contention::sweep as contention_sweep_core;
use vmapviz_core::counters::{CounterObserver, Counters};
use vmapviz_core::import::{self, ImportFormat, Imported};
use vmapviz_core::replay::dump_busy;
use vmapviz_core::sweep::{sweep, SweepShape};
use vmapviz_core::trace::parse_trace;
use vmapviz_core::workload::{self, Preset, WorkloadParams};
use vmapviz_core::{Op, Profile, Session, TraceLine};
use wasm_bindgen::prelude::*;

/// Keys whose values are small integers (ids, counts, depths), kept as JSON numbers.
const NUMBER_KEYS: &[&str] = &[
    "id",
    "parent",
    "left",
    "right",
    "survivor",
    "removed",
    "old_top",
    "new_top",
    "prev",
    "next",
    "node",
    "pool",
    "case",
    "taken",
    "kept",
    "count",
    "purged",
    "index",
    "line",
    "tree",
    "depth",
    "cpus",
    "cpu",
    "nr_nodes",
    "lazy_nr",
    "lazy_max",
    "root",
    "ops",
    "bit",
    "seed",
    "loops",
    "nr_pages",
    "nr_threads",
    "test_repeat_count",
    "run_test_mask",
    "keep",
    "threads",
    "mask",
    "module_tests",
    "live",
    "mapped",
    "purge_events",
    "mismatches",
    "total",
    "done",
];

fn hexify(v: Value, key: &str) -> Value {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(u) if !NUMBER_KEYS.contains(&key) => Value::String(format!("{u:#x}")),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|x| hexify(x, key)).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, x)| {
                    let y = hexify(x, &k);
                    (k, y)
                })
                .collect(),
        ),
        other => other,
    }
}

/// Serialise with addresses as hex strings.
pub fn to_json<T: Serialize>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(v) => hexify(v, "").to_string(),
        Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
    }
}

fn profile(name: &str) -> Result<Profile, JsError> {
    if name.is_empty() {
        return Ok(Profile::default());
    }
    Profile::parse(name).ok_or_else(|| {
        JsError::new(&format!("unknown profile `{name}` (known: linux-5.1, linux-5.2, linux-6.1, linux-6.9)"))
    })
}

/// `""` for none, else a profile name.
fn opt_profile(name: &str) -> Result<Option<Profile>, JsError> {
    if name.is_empty() {
        Ok(None)
    } else {
        profile(name).map(Some)
    }
}

/// A replayed trace with checkpoints, stepping frames and live editing.
#[wasm_bindgen]
pub struct Vmapviz {
    s: Session,
}

#[wasm_bindgen]
impl Vmapviz {
    /// An empty session of a profile (`""` for the default, linux-5.2).
    #[wasm_bindgen(constructor)]
    pub fn new(profile_name: &str) -> Result<Vmapviz, JsError> {
        Ok(Vmapviz { s: Session::new(profile(profile_name)?) })
    }

    /// Parse and replay a whole trace; throws `line N: ...` and keeps nothing on error.
    pub fn load(text: &str) -> Result<Vmapviz, JsError> {
        Session::load(text).map(|s| Vmapviz { s }).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// JSON state before op `k` (`k == len()` for the current state).
    pub fn state(&self, k: usize) -> String {
        to_json(&self.s.state_before(k))
    }

    /// JSON frames of op `k`, or `null`.
    pub fn frames(&self, k: usize) -> String {
        match self.s.frames(k) {
            Some(f) => to_json(&f),
            None => "null".into(),
        }
    }

    /// JSON summaries (`{index, line, text, output, warning}`) of ops `from..to`.
    pub fn summaries(&self, from: usize, to: usize) -> String {
        let to = to.min(self.s.len());
        let v: Vec<_> = (from.min(to)..to).map(|k| self.s.summary(k)).collect();
        to_json(&v)
    }

    /// Append one trace line; returns its JSON summary, throws on a bad line (nothing changes).
    pub fn push(&mut self, line: &str) -> Result<String, JsError> {
        self.s.push_text(line).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(to_json(&self.s.summary(self.s.len() - 1)))
    }

    /// Drop the operations from `k` on.
    pub fn truncate(&mut self, k: usize) {
        self.s.truncate(k);
    }

    /// The trace as text.
    pub fn trace_text(&self) -> String {
        self.s.trace_text()
    }

    /// Everything the replay printed (the conformance output format).
    pub fn output(&self) -> String {
        self.s.output().to_string()
    }

    /// JSON `{ per_op: [Counters...], total: Counters }` for ops `from..to` (events counted on
    /// a replay; costs time proportional to the range).
    pub fn counters(&self, from: usize, to: usize) -> String {
        #[derive(Serialize)]
        struct Out {
            per_op: Vec<Counters>,
            total: Counters,
        }
        let to = to.min(self.s.len());
        let from = from.min(to);
        let mut r = self.s.replayer_before(from);
        let mut c = CounterObserver::default();
        let mut sink = String::new();
        let mut per_op = Vec::with_capacity(to - from);
        for l in &self.s.ops()[from..to] {
            let _ = r.apply(&l.op, &mut sink, &mut c);
            sink.clear();
            per_op.push(c.end_op());
        }
        to_json(&Out { per_op, total: c.total })
    }

    /// What a `busy` line would print before op `k` (6.9: per node, with its lazy areas, which
    /// the state's `lazy` list does not tag with their node).
    pub fn busy_text(&self, k: usize) -> String {
        let r = self.s.replayer_before(k);
        let mut v = r.vmap;
        v.ensure_init();
        let mut out = String::new();
        dump_busy(&v, &mut out);
        out
    }

    /// The trace in its JSON form (`{"profile": ..., "ops": [...]}`, numbers as hex strings).
    pub fn trace_json(&self) -> String {
        let ops: Vec<Op> = self.s.ops().iter().map(|l| l.op.clone()).collect();
        import::to_json(&ops)
    }

    /// An invariant violation of the current state, or `undefined`.
    pub fn check(&self) -> Option<String> {
        check_invariants(&self.s.current().vmap).err()
    }
}

/// JSON cost sweep: average counters per operation for each live count (comma-separated).
/// `shape` is `long_busy` or `random`.
#[wasm_bindgen]
pub fn cost_sweep(profile_name: &str, shape: &str, lives: &str, rounds: usize) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let shape = SweepShape::parse(shape).ok_or_else(|| JsError::new("shape must be long_busy or random"))?;
    let lives = parse_list(lives)?;
    Ok(to_json(&sweep(p, shape, &lives, rounds.min(100_000))))
}

/// JSON contention model for each CPU count (comma-separated).
#[wasm_bindgen]
pub fn contention(profile_name: &str, cpus: &str, pairs_per_cpu: usize) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let cpus: Vec<u32> = parse_list(cpus)?.into_iter().map(|c| c.clamp(1, 1024) as u32).collect();
    Ok(to_json(&contention_sweep_core(p, &cpus, pairs_per_cpu.min(100_000))))
}

fn parse_list(s: &str) -> Result<Vec<usize>, JsError> {
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<usize>().map_err(|_| JsError::new(&format!("`{x}` is not a count"))))
        .collect()
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

// ----------------------------------------------------------------------
// Workloads (core/src/workload.rs)
// ----------------------------------------------------------------------

/// JSON catalogue: `{ workloads: [{name, description, bit, kind}], presets: [...], profiles: [...],
/// defaults: WorkloadParams }`.
#[wasm_bindgen]
pub fn workloads() -> String {
    #[derive(Serialize)]
    struct Out {
        workloads: Vec<workload::WorkloadInfo>,
        presets: Vec<&'static str>,
        profiles: Vec<&'static str>,
        defaults: WorkloadParams,
    }
    to_json(&Out {
        workloads: workload::list(),
        presets: Preset::ALL.iter().map(|p| p.name()).collect(),
        profiles: Profile::ALL.iter().map(|p| p.name()).collect(),
        defaults: WorkloadParams::default(),
    })
}

fn params(json: &str) -> Result<WorkloadParams, JsError> {
    serde_json::from_str(json).map_err(|e| JsError::new(&format!("workload parameters: {e}")))
}

/// The parameters after a preset (`performance`, `stress`, `smoke`; `""` for none), with what
/// they resolve to: JSON `{ params, threads, mask, module_tests }`.
#[wasm_bindgen]
pub fn workload_params(params_json: &str, preset: &str) -> Result<String, JsError> {
    #[derive(Serialize)]
    struct Out {
        params: WorkloadParams,
        threads: u32,
        mask: u64,
        module_tests: usize,
    }
    let mut p = params(params_json)?;
    if !preset.is_empty() {
        Preset::parse(preset)
            .ok_or_else(|| JsError::new(&format!("unknown preset `{preset}` (known: performance, stress, smoke)")))?
            .apply(&mut p);
    }
    let out = Out { threads: p.threads(), mask: p.mask(), module_tests: workload::module_tests(p.profile), params: p };
    Ok(to_json(&out))
}

/// Generate a workload as trace text, its notes as `#` comments.
#[wasm_bindgen]
pub fn workload(name: &str, params_json: &str) -> Result<String, JsError> {
    let p = params(params_json)?;
    workload::generate_annotated(name, &p).map(|w| w.to_text()).map_err(|e| JsError::new(&e))
}

// ----------------------------------------------------------------------
// Import and export (core/src/import.rs)
// ----------------------------------------------------------------------

/// The format a text looks like: `trace`, `json`, `ftrace` or `vmallocinfo`.
#[wasm_bindgen]
pub fn detect_format(text: &str) -> String {
    import::detect_format(text).name().to_string()
}

/// An import: the trace text (vmallocinfo callers as `#` comments), the number of operations
/// and the report as JSON.
#[wasm_bindgen]
pub struct ImportResult {
    text: String,
    ops: usize,
    report: String,
}

#[wasm_bindgen]
impl ImportResult {
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.text.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn ops(&self) -> usize {
        self.ops
    }

    /// JSON `{format, mapped, skipped: [{line, text}], notes: [{line, text}], purge_events,
    /// mismatches, labels: [{index, text}]}`.
    #[wasm_bindgen(getter)]
    pub fn report(&self) -> String {
        self.report.clone()
    }
}

#[derive(Serialize)]
struct Remark<'a> {
    line: usize,
    text: &'a str,
}

#[derive(Serialize)]
struct Label<'a> {
    index: usize,
    text: &'a str,
}

fn remarks(v: &[(usize, String)]) -> Vec<Remark<'_>> {
    v.iter().map(|(line, text)| Remark { line: *line, text }).collect()
}

fn import_result(i: Imported) -> ImportResult {
    #[derive(Serialize)]
    struct Report<'a> {
        format: ImportFormat,
        mapped: usize,
        skipped: Vec<Remark<'a>>,
        notes: Vec<Remark<'a>>,
        purge_events: usize,
        mismatches: usize,
        labels: Vec<Label<'a>>,
    }
    let r = &i.report;
    let report = to_json(&Report {
        format: r.format,
        mapped: r.mapped,
        skipped: remarks(&r.skipped),
        notes: remarks(&r.notes),
        purge_events: r.purge_events,
        mismatches: r.mismatches,
        labels: i.labels.iter().map(|(index, text)| Label { index: *index, text }).collect(),
    });
    ImportResult { text: i.to_text(), ops: i.ops.len(), report }
}

fn format(name: &str, text: impl FnOnce() -> Result<ImportFormat, JsError>) -> Result<ImportFormat, JsError> {
    match name {
        "" | "auto" => text(),
        _ => ImportFormat::parse(name).ok_or_else(|| {
            JsError::new(&format!("unknown format `{name}` (known: auto, trace, json, ftrace, vmallocinfo)"))
        }),
    }
}

/// Import text in a format (`auto` detects it); `profile` (`""` for none) becomes the first
/// operation. All or nothing: throws `line N: ...`.
#[wasm_bindgen]
pub fn import_text(format_name: &str, text: &str, profile_name: &str) -> Result<ImportResult, JsError> {
    let f = format(format_name, || Ok(import::detect_format(text)))?;
    import::import(f, text, opt_profile(profile_name)?).map(import_result).map_err(|e| JsError::new(&e.to_string()))
}

/// [`import_text`] from the bytes of a file: bytes that are not UTF-8 text are an error naming
/// their line.
#[wasm_bindgen]
pub fn import_bytes(format_name: &str, bytes: &[u8], profile_name: &str) -> Result<ImportResult, JsError> {
    let text = import::text_from_bytes(bytes).map_err(|e| JsError::new(&e.to_string()))?;
    import_text(format_name, text, profile_name)
}

/// The JSON form of a trace text.
#[wasm_bindgen]
pub fn trace_to_json(text: &str) -> Result<String, JsError> {
    let ops: Vec<Op> = parse_trace(text).map_err(|e| JsError::new(&e.to_string()))?.into_iter().map(|l| l.op).collect();
    Ok(import::to_json(&ops))
}

// ----------------------------------------------------------------------
// Large traces: a replay in steps, for a progress bar (the page runs it in a Web Worker)
// ----------------------------------------------------------------------

/// A trace parsed at once (all or nothing), then replayed `step(n)` operations at a time into a
/// session; `finish()` gives the session.
#[wasm_bindgen]
pub struct Loader {
    s: Session,
    lines: std::vec::IntoIter<TraceLine>,
    total: usize,
    done: usize,
}

#[wasm_bindgen]
impl Loader {
    /// Parse a trace; throws `line N: ...` on the first bad line.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Result<Loader, JsError> {
        let lines = parse_trace(text).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Loader::from_lines(lines))
    }

    /// Generate a workload straight into a loader (no trace text in between).
    pub fn workload(name: &str, params_json: &str) -> Result<Loader, JsError> {
        let p = params(params_json)?;
        let ops = workload::generate(name, &p).map_err(|e| JsError::new(&e))?;
        Ok(Loader::from_lines(ops.into_iter().enumerate().map(|(i, op)| TraceLine { line: i + 1, op }).collect()))
    }

    /// Operations in the trace.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Operations replayed so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Replay up to `n` more operations; returns how many are done. Throws `line N: ...` when
    /// an operation is one the kernel would crash on.
    pub fn step(&mut self, n: usize) -> Result<usize, JsError> {
        for l in self.lines.by_ref().take(n) {
            self.s.push_line(l).map_err(|e| JsError::new(&e.to_string()))?;
            self.done += 1;
        }
        Ok(self.done)
    }

    /// The replayed session (all operations must be done).
    pub fn finish(self) -> Result<Vmapviz, JsError> {
        if self.done < self.total {
            return Err(JsError::new(&format!("only {} of {} operations are replayed", self.done, self.total)));
        }
        Ok(Vmapviz { s: self.s })
    }
}

impl Loader {
    fn from_lines(lines: Vec<TraceLine>) -> Loader {
        let total = lines.len();
        Loader { s: sized_session(total), lines: lines.into_iter(), total, done: 0 }
    }
}

/// Checkpoint spacing of the template for large traces (`Session::load` of 2^20 operations).
const LARGE_TEMPLATE_OPS: usize = 1 << 20;

thread_local! {
    /// An empty session whose checkpoints are 4096 operations apart (see [`sized_session`]).
    static LARGE_TEMPLATE: std::cell::OnceCell<Session> = const { std::cell::OnceCell::new() };
}

fn large_template() -> Session {
    LARGE_TEMPLATE.with(|t| {
        t.get_or_init(|| {
            let mut s = Session::load(&"cpu 0\n".repeat(LARGE_TEMPLATE_OPS))
                .unwrap_or_else(|_| Session::new(Profile::default()));
            s.truncate(0);
            s
        })
        .clone()
    })
}

/// Prepare what a large load needs (the worker calls it while idle; otherwise the first large
/// load does it, ~0.25 s).
#[wasm_bindgen]
pub fn warm_up() {
    drop(large_template());
}

/// An empty session whose checkpoint spacing suits `n` operations. `Session::load` spaces its
/// checkpoints by the trace's length (about 256 of them), but `Session::new` always every 256
/// operations, which for 10^6 operations would keep ~4,000 copies of the allocator (gigabytes
/// with 15,000 live areas). The core has no constructor taking the spacing, so for more than
/// 2^16 operations this loads as many no-op lines (`cpu 0`) and truncates them away, which keeps
/// the spacing: up to 2^20 operations from a template made once (every 4,096 operations, at
/// most 256 checkpoints), beyond that for `n` itself (~0.25 s per 10^6 operations).
fn sized_session(n: usize) -> Session {
    if n <= 256 * 256 {
        Session::new(Profile::default())
    } else if n <= LARGE_TEMPLATE_OPS {
        large_template()
    } else {
        let mut s = Session::load(&"cpu 0\n".repeat(n)).unwrap_or_else(|_| Session::new(Profile::default()));
        s.truncate(0);
        s
    }
}
