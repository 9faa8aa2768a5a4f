//! The workbench's part of the facade (feature `workbench`): counters, cost sweeps, the
//! contention model, workload generators, importers (a capture bundle's too) and the
//! [`Loader`]'s constructors and questions of the page's worker.
//! The page's first screen does without it, so the main thread's build leaves it out and the
//! workbench loads a second build that has it.

use crate::{opt_profile, profile, to_json, Addr, Loader, Vmapviz};
use serde::Serialize;
use ts_rs::TS;
use vmapviz_core::contention::sweep_bump as contention_sweep_core;
use vmapviz_core::counters::Counters;
use vmapviz_core::import::{self, ImportFormat, Imported};
use vmapviz_core::session::{IndexSnap, SessionBuilder, StateSnap};
use vmapviz_core::sweep::{sweep_bump, SweepShape};
use vmapviz_core::trace::parse_trace;
use vmapviz_core::workload::{self, Preset, WorkloadParams};
use vmapviz_core::{Op, Profile};
use wasm_bindgen::prelude::*;

/// What a thinned state had (web/src/panels/large.ts shows these counts, not the runs').
#[derive(Serialize)]
struct Thinned {
    busy: usize,
    lazy: usize,
    free: usize,
    /// Busy and lazy entries sent.
    runs: usize,
}

#[derive(Serialize)]
struct ThinState {
    #[serde(flatten)]
    state: StateSnap,
    thinned: Thinned,
}

/// `v` sorted by start as at most `max` runs: areas that touch and are `same` first, then, past
/// `max`, across the smallest gaps (far below a pixel of the overview at that count). A run
/// keeps its first area's id and fields.
fn runs<T>(
    mut v: Vec<T>,
    max: usize,
    span: impl Fn(&T) -> (u64, u64),
    same: impl Fn(&T, &T) -> bool,
    set_end: impl Fn(&mut T, u64),
) -> Vec<T> {
    v.sort_by_key(|a| span(a).0);
    let mut out: Vec<T> = Vec::new();
    for a in v {
        match out.last_mut() {
            Some(last) if span(last).1 == span(&a).0 && same(last, &a) => set_end(last, span(&a).1),
            _ => out.push(a),
        }
    }
    if out.len() <= max.max(1) {
        return out;
    }
    let gaps: Vec<u64> = out.windows(2).map(|w| span(&w[1]).0.saturating_sub(span(&w[0]).1)).collect();
    let mut sorted = gaps.clone();
    let n = out.len() - max.max(1) - 1;
    let (_, cut, _) = sorted.select_nth_unstable(n);
    let cut = *cut;
    let mut merged: Vec<T> = Vec::with_capacity(max);
    for (i, a) in out.into_iter().enumerate() {
        match merged.last_mut() {
            Some(last) if gaps[i - 1] <= cut => {
                let end = span(last).1.max(span(&a).1);
                set_end(last, end);
            }
            _ => merged.push(a),
        }
    }
    merged
}

#[wasm_bindgen]
impl Vmapviz {
    /// `state(k)` for a page that cannot take hundreds of thousands of areas: with more than
    /// `max` busy, lazy or free-tree entries, the busy and lazy areas come as at most `max` runs
    /// each ([`runs`]), a free tree of more than `max` nodes is left out, and `thinned` says what
    /// the state had. Otherwise the same JSON as `state(k)`.
    pub fn state_thin(&self, k: usize, max: usize) -> String {
        let mut st = self.s.state_before(k);
        let free = match &st.index {
            IndexSnap::FreeTree { nodes, .. } => nodes.len(),
            IndexSnap::Maple { .. } => 0,
        };
        if st.busy.len() <= max && st.lazy.len() <= max && free <= max {
            return to_json(&st);
        }
        let mut t = Thinned { busy: st.busy.len(), lazy: st.lazy.len(), free, runs: 0 };
        st.busy = runs(
            std::mem::take(&mut st.busy),
            max,
            |a| (a.va_start.0, a.va_end.0),
            |a, b| a.lazy == b.lazy && a.node == b.node,
            |a, e| a.va_end = Addr(e),
        );
        st.lazy = runs(
            std::mem::take(&mut st.lazy),
            max,
            |a| (a.va_start.0, a.va_end.0),
            |a, b| a.node == b.node,
            |a, e| a.va_end = Addr(e),
        );
        if free > max {
            st.index = IndexSnap::FreeTree { root: None, nodes: Vec::new() };
        }
        t.runs = st.busy.len() + st.lazy.len();
        to_json(&ThinState { state: st, thinned: t })
    }

    /// JSON `{ per_op: [Counters...], total: Counters }` for ops `from..to` (events counted on
    /// a replay; costs time proportional to the range).
    pub fn counters(&self, from: usize, to: usize) -> String {
        let (per_op, total) = self.s.counters(from, to);
        to_json(&CountersJson { per_op, total })
    }

    /// The trace in its JSON form (`{"profile": ..., "ops": [...]}`, numbers as hex strings).
    pub fn trace_json(&self) -> String {
        let ops: Vec<Op> = self.s.ops().iter().map(|l| l.op.clone()).collect();
        import::to_json(&ops)
    }
}

/// What `counters(from, to)` returns.
#[derive(Serialize, TS)]
pub struct CountersJson {
    pub per_op: Vec<Counters>,
    pub total: Counters,
}

/// JSON cost sweep: average counters per operation for each live count (comma-separated).
/// `shape` is `long_busy` or `random`; `bump` sets maple-rfc's bump overlay (left out: on).
#[wasm_bindgen]
pub fn cost_sweep(
    profile_name: &str,
    shape: &str,
    lives: &str,
    rounds: usize,
    bump: Option<bool>,
) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let shape = SweepShape::parse(shape).ok_or_else(|| JsError::new("shape must be long_busy or random"))?;
    let lives = parse_list(lives)?;
    Ok(to_json(&sweep_bump(p, bump, shape, &lives, rounds.min(100_000))))
}

/// JSON contention model for each CPU count (comma-separated). `bump` sets maple-rfc's per-CPU
/// bump overlay (left out: on, as `vmap-bench --contention`'s `maple-rfc/bump`); the other
/// profiles ignore it.
#[wasm_bindgen]
pub fn contention(profile_name: &str, cpus: &str, pairs_per_cpu: usize, bump: Option<bool>) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let cpus: Vec<u32> = parse_list(cpus)?.into_iter().map(|c| c.clamp(1, 1024) as u32).collect();
    Ok(to_json(&contention_sweep_core(p, &cpus, pairs_per_cpu.min(100_000), bump.unwrap_or(true))))
}

fn parse_list(s: &str) -> Result<Vec<usize>, JsError> {
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<usize>().map_err(|_| JsError::new(&format!("`{x}` is not a count"))))
        .collect()
}

// ----------------------------------------------------------------------
// Workloads (core/src/workload.rs)
// ----------------------------------------------------------------------

/// JSON catalogue: `{ workloads: [{name, description, bit, kind}], presets: [...], profiles: [...],
/// defaults: WorkloadParams }`.
#[wasm_bindgen]
pub fn workloads() -> String {
    to_json(&CatalogueJson {
        workloads: workload::list(),
        presets: Preset::ALL.iter().map(|p| p.name()).collect(),
        profiles: Profile::ALL.iter().map(|p| p.name()).collect(),
        defaults: WorkloadParams::default(),
    })
}

/// What `workloads()` returns.
#[derive(Serialize, TS)]
pub struct CatalogueJson {
    pub workloads: Vec<workload::WorkloadInfo>,
    pub presets: Vec<&'static str>,
    pub profiles: Vec<&'static str>,
    pub defaults: WorkloadParams,
}

/// What `workload_params(json, preset)` returns.
#[derive(Serialize, TS)]
pub struct ResolvedParamsJson {
    pub params: WorkloadParams,
    pub threads: u32,
    pub mask: u64,
    pub module_tests: usize,
}

fn params(json: &str) -> Result<WorkloadParams, JsError> {
    serde_json::from_str(json).map_err(|e| JsError::new(&format!("workload parameters: {e}")))
}

/// The parameters after a preset (`performance`, `stress`, `smoke`; `""` for none), with what
/// they resolve to: JSON `{ params, threads, mask, module_tests }`.
#[wasm_bindgen]
pub fn workload_params(params_json: &str, preset: &str) -> Result<String, JsError> {
    let mut p = params(params_json)?;
    if !preset.is_empty() {
        Preset::parse(preset)
            .ok_or_else(|| JsError::new(&format!("unknown preset `{preset}` (known: performance, stress, smoke)")))?
            .apply(&mut p);
    }
    let out = ResolvedParamsJson {
        threads: p.threads(),
        mask: p.mask(),
        module_tests: workload::module_tests(p.profile),
        params: p,
    };
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

/// A line-numbered remark of an import report.
#[derive(Serialize, TS)]
pub struct Remark<'a> {
    pub line: usize,
    pub text: &'a str,
}

/// A caller name (vmallocinfo) by operation index.
#[derive(Serialize, TS)]
pub struct Label<'a> {
    pub index: usize,
    pub text: &'a str,
}

/// What `ImportResult.report` holds.
#[derive(Serialize, TS)]
pub struct ImportReportJson<'a> {
    pub format: ImportFormat,
    pub mapped: usize,
    pub skipped: Vec<Remark<'a>>,
    pub notes: Vec<Remark<'a>>,
    pub purge_events: usize,
    pub mismatches: usize,
    pub labels: Vec<Label<'a>>,
}

fn remarks(v: &[(usize, String)]) -> Vec<Remark<'_>> {
    v.iter().map(|(line, text)| Remark { line: *line, text }).collect()
}

fn import_result(i: Imported) -> ImportResult {
    let r = &i.report;
    let report = to_json(&ImportReportJson {
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

/// What `ImportResult.report` holds for a capture: [`ImportReportJson`]'s fields (`mapped`:
/// the kernel's allocations, `mismatches`: the unexplained ones) and the comparison's counts.
#[derive(Serialize)]
struct CaptureReportJson<'a> {
    format: &'static str,
    mapped: usize,
    skipped: Vec<Remark<'a>>,
    notes: Vec<Remark<'a>>,
    purge_events: usize,
    mismatches: usize,
    labels: Vec<Label<'a>>,
    equal: usize,
    explained: usize,
    /// Allocations the trace does not show that the replay made (not among `mapped`).
    untraced: usize,
    summary: String,
}

/// The JSON form of a trace text.
#[wasm_bindgen]
pub fn trace_to_json(text: &str) -> Result<String, JsError> {
    let ops: Vec<Op> = parse_trace(text).map_err(|e| JsError::new(&e.to_string()))?.into_iter().map(|l| l.op).collect();
    Ok(import::to_json(&ops))
}

// ----------------------------------------------------------------------
// Opening in steps, for a progress bar (the page runs it in a Web Worker)
// ----------------------------------------------------------------------

/// [`Loader`]'s workbench part: a text parsed at once, operations in hand (a workload, a
/// capture's replay, another instance's operations as bytes), and what the worker asks of
/// them before and while they are stepped (`advance`, as on the first screen).
#[wasm_bindgen]
impl Loader {
    /// Parse a whole trace now (all or nothing): throws `line N: ...` on the first bad line;
    /// `advance` then replays it.
    pub fn parse(text: String) -> Result<Loader, JsError> {
        let mut l = Loader::new(text)?;
        l.advance(usize::MAX)?;
        Ok(l)
    }

    /// Generate a workload straight into a loader (no trace text in between).
    pub fn workload(name: &str, params_json: &str) -> Result<Loader, JsError> {
        let p = params(params_json)?;
        let ops = workload::generate(name, &p).map_err(|e| JsError::new(&e))?;
        Ok(Loader::from_ops(ops))
    }

    /// A capture bundle (scripts/capture.sh) replayed from its before file and compared with
    /// the kernel (`vmap-replay --import capture`), its operations (the start state, what was
    /// learnt, each allocation with the kernel's answer: core/src/capture/follow.rs) ready to be
    /// stepped into the session; no trace text in between (`text()` prints it when asked). The
    /// comparison is `report()`: the report's notes, its last line the summary. `names`: the
    /// parts' file names, one a line, in the order vmallocinfo.before, trace.txt,
    /// vmallocinfo.after, cpus.txt, uname.txt (empty: missing; each part plain or gzipped).
    /// Errors name the file and the line.
    #[allow(clippy::too_many_arguments)]
    pub fn capture(
        names: &str,
        before: &[u8],
        trace: &[u8],
        after: Option<Vec<u8>>,
        cpus: &[u8],
        uname: Option<Vec<u8>>,
        profile_name: &str,
    ) -> Result<Loader, JsError> {
        use vmapviz_core::capture::{part_text, replay_capture, Bundle, Part, PARTS};
        let given: Vec<&str> = names.split('\n').collect();
        let name = |i: usize| given.get(i).copied().filter(|n| !n.is_empty()).unwrap_or(PARTS[i]);
        let text = |i: usize, b: &[u8]| part_text(name(i), b).map_err(|e| JsError::new(&e.to_string()));
        let (tb, tt, tc) = (text(0, before)?, text(1, trace)?, text(3, cpus)?);
        let ta = after.as_deref().map(|b| text(2, b)).transpose()?;
        let tu = uname.as_deref().map(|b| text(4, b)).transpose()?;
        fn part<'a>(name: &'a str, text: &'a str) -> Part<'a> {
            Part { name, text }
        }
        let b = Bundle {
            before: part(name(0), &tb),
            trace: part(name(1), &tt),
            after: ta.as_deref().map(|t| part(name(2), t)),
            cpus: part(name(3), &tc),
            uname: tu.as_deref().map(|t| part(name(4), t)),
        };
        let profile = opt_profile(profile_name)?.unwrap_or(Profile::newest_release());
        let (ops, r) = replay_capture(b, profile).map_err(|e| JsError::new(&e.to_string()))?;
        let shown = r.to_string();
        let notes: Vec<Remark<'_>> = shown.lines().map(|text| Remark { line: 0, text }).collect();
        let report = to_json(&CaptureReportJson {
            format: "capture",
            mapped: r.allocations,
            skipped: Vec::new(),
            notes,
            purge_events: r.purges,
            mismatches: r.unexplained,
            labels: Vec::new(),
            equal: r.equal,
            explained: r.explained,
            untraced: r.untraced,
            summary: r.summary_line(),
        });
        let mut l = Loader::from_ops(ops);
        l.report = Some(report);
        Ok(l)
    }

    /// Operations another instance of the core handed over as bytes (its `Loader.ops()`: the
    /// page's worker, after a capture's replay), ready to be stepped into a session; nothing to
    /// parse. Throws `operation N (byte B): ...` on bytes that are not such operations.
    pub fn from_bytes(bytes: &[u8]) -> Result<Loader, JsError> {
        let ops = vmapviz_core::trace_bytes::decode(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Loader::from_ops(ops))
    }

    /// The operations as bytes, replayed or not, for `Loader.from_bytes` in another instance
    /// of the core (core/src/trace_bytes.rs).
    pub fn ops(&self) -> Vec<u8> {
        self.b.as_ref().map(SessionBuilder::to_bytes).unwrap_or_default()
    }

    /// The report of `Loader.capture` (JSON: [`ImportReportJson`]'s fields, `mapped` the
    /// kernel's allocations and `mismatches` the unexplained ones, with the comparison's
    /// counts); `undefined` for another loader.
    pub fn report(&self) -> Option<String> {
        self.report.clone()
    }

    /// The trace as text, replayed or not (one operation a line: operation `i` is line `i + 1`).
    pub fn text(&self) -> String {
        self.b.as_ref().map(SessionBuilder::trace_text).unwrap_or_default()
    }

    /// Operations in the trace, once parsed (0 once finished or failed).
    pub fn total(&self) -> usize {
        self.b.as_ref().map_or(0, |b| b.lines().len())
    }

    /// Operations other than settings (`profile`, `cpus`, ...; `Op::is_setting`), once parsed:
    /// 0 when the trace holds nothing to replay.
    pub fn acting(&self) -> usize {
        self.b.as_ref().map_or(0, |b| b.lines().filter(|l| !l.op.is_setting()).count())
    }
}

impl Loader {
    fn from_ops(ops: Vec<Op>) -> Loader {
        Loader::of(SessionBuilder::from_ops(ops))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vmapviz_core::contention::{sweep_bump, ContentionResult};

    fn parse(json: &str) -> Vec<serde_json::Value> {
        match serde_json::from_str::<serde_json::Value>(json) {
            Ok(serde_json::Value::Array(v)) => v,
            other => panic!("not an array: {other:?}"),
        }
    }

    fn field(v: &serde_json::Value, k: &str) -> f64 {
        v.get(k).and_then(serde_json::Value::as_f64).unwrap_or_else(|| panic!("no number {k} in {v}"))
    }

    /// The facade's points are the core's `sweep_bump` points (its JSON, and every CPU count).
    fn same(json: &str, core: &[ContentionResult]) {
        assert_eq!(json, serde_json::to_string(core).unwrap());
        let cpus: Vec<f64> = parse(json).iter().map(|p| field(p, "cpus")).collect();
        assert_eq!(cpus, core.iter().map(|r| f64::from(r.cpus)).collect::<Vec<_>>());
    }

    /// Touching areas of one kind merge; past `max`, the smallest gaps close first.
    #[test]
    fn runs_merge_touching_areas_then_the_nearest() {
        let span = |a: &(u64, u64, bool)| (a.0, a.1);
        let same = |a: &(u64, u64, bool), b: &(u64, u64, bool)| a.2 == b.2;
        let set = |a: &mut (u64, u64, bool), e: u64| a.1 = e;
        // Out of order; [0,1) [1,2) [2,3) touch; [3,4) is another kind; [16,17) after a hole.
        let v = vec![(2, 3, false), (0, 1, false), (1, 2, false), (3, 4, true), (16, 17, false)];
        assert_eq!(runs(v.clone(), 10, span, same, set), vec![(0, 3, false), (3, 4, true), (16, 17, false)]);
        // Pages 0, 2, 4, 100, 200: gaps 1, 1, 95, 99; three runs close the two gaps of 1.
        let w: Vec<(u64, u64, bool)> = [0u64, 2, 4, 100, 200].iter().map(|&p| (p, p + 1, false)).collect();
        assert_eq!(runs(w.clone(), 3, span, same, set), vec![(0, 5, false), (100, 101, false), (200, 201, false)]);
        assert_eq!(runs(w, 1, span, same, set), vec![(0, 201, false)]);
    }

    #[test]
    fn contention_passes_maple_rfcs_bump_switch_to_the_core() {
        let cpus = [1u32, 4, 16];
        let on = contention("maple-rfc", "1,4,16", 60, Some(true)).unwrap();
        let off = contention("maple-rfc", "1,4,16", 60, Some(false)).unwrap();
        same(&on, &sweep_bump(Profile::MapleRfc, &cpus, 60, true));
        same(&off, &sweep_bump(Profile::MapleRfc, &cpus, 60, false));
        // Left out, the overlay is on (as `vmap-bench --contention`'s maple-rfc/bump).
        assert_eq!(contention("maple-rfc", "1,4,16", 60, None).unwrap(), on);
        // The two rows differ where they should: without the overlay every allocation takes the
        // global lock; with it, most are served per CPU under no lock.
        let (on, off) = (parse(&on), parse(&off));
        for (a, b) in on.iter().zip(&off) {
            assert!(field(a, "global_lock_ops") < field(b, "global_lock_ops"), "{a} against {b}");
        }
        // Another profile ignores the switch.
        assert_eq!(
            contention("linux-6.9", "1,4", 40, Some(false)).unwrap(),
            contention("linux-6.9", "1,4", 40, Some(true)).unwrap()
        );
    }
}
