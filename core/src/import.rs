//! Importers: captures from a real kernel, and the JSON form of a trace, turned into trace
//! operations ([`Op`]). Every importer is all-or-nothing: the first bad line gives a
//! [`ParseError`] naming it, and nothing is produced.
//!
//! * **ftrace** text of the `vmalloc` events (spec §8), as read from `/sys/kernel/tracing/trace`:
//!   `alloc_vmap_area` → `alloc`, `free_vmap_area_noflush` → `vfree` (of an area allocated in the
//!   capture), `purge_vmap_area_lazy` → `purge` unless the replay already purged by itself (over
//!   its threshold, or before an allocation's retry). The CPU count comes from the CPU column and
//!   `nr_lazy_max`. The importer replays while it reads, so each `vfree` names the address *the
//!   replay* gave the area; every difference from the kernel's address is reported with its
//!   likeliest cause, and a request the replay refuses is left out and reported by line.
//! * **/proc/vmallocinfo**: each line becomes a busy area placed exactly at its address
//!   (`alloc SIZE 0x1 START START+SIZE`), labelled with its caller; `unpurged vm_area` lines are
//!   vfreed at once (lazy). Hidden or hashed addresses (`kptr_restrict`) are laid out one after
//!   the other from `VMALLOC_START`, in file order, each as long as its size column.
//! * **JSON**: `{"profile": "linux-6.1", "ops": [{"op": "alloc", "size": "0x2000", ...}, ...]}`,
//!   numbers as strings (`"0x…"` or decimal, since JavaScript numbers cannot hold a u64) or as
//!   JSON integers. Text → JSON → text gives the same operations.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use ts_rs::TS;

use crate::era::Vmap;
use crate::events::{Event, IndexView, NoObserver, Observer};
use crate::profile::Profile;
use crate::trace::{bounded, parse_num, parse_trace, quote, Op, ParseError, TraceLine, MAX_TRACE_BYTES};
use crate::vmalloc::{fls, PAGE_SIZE, VMALLOC_END, VMALLOC_START};

/// The input formats an import understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportFormat {
    /// The trace language itself.
    Trace,
    Json,
    Ftrace,
    Vmallocinfo,
}

impl ImportFormat {
    pub const ALL: [ImportFormat; 4] =
        [ImportFormat::Trace, ImportFormat::Json, ImportFormat::Ftrace, ImportFormat::Vmallocinfo];

    pub fn name(self) -> &'static str {
        match self {
            ImportFormat::Trace => "trace",
            ImportFormat::Json => "json",
            ImportFormat::Ftrace => "ftrace",
            ImportFormat::Vmallocinfo => "vmallocinfo",
        }
    }

    pub fn parse(s: &str) -> Option<ImportFormat> {
        ImportFormat::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// What an import did besides producing operations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub format: ImportFormat,
    /// Input records (events, areas, operations) that became operations.
    pub mapped: usize,
    /// Records left out: (1-based line, reason).
    pub skipped: Vec<(usize, String)>,
    /// Remarks: (line, text); line 0 is about the whole input.
    pub notes: Vec<(usize, String)>,
    /// ftrace: `purge_vmap_area_lazy` events seen (each is a `purge` unless the replay had
    /// already purged by itself: over its threshold, or before an allocation's retry).
    pub purge_events: usize,
    /// ftrace: allocations whose replayed address differs from the kernel's.
    pub mismatches: usize,
}

impl ImportReport {
    pub(crate) fn new(format: ImportFormat) -> Self {
        ImportReport { format, mapped: 0, skipped: Vec::new(), notes: Vec::new(), purge_events: 0, mismatches: 0 }
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "import {}: {} mapped, {} skipped", self.format.name(), self.mapped, self.skipped.len())?;
        if self.format == ImportFormat::Ftrace {
            writeln!(
                f,
                "  {} purge events (replayed as `purge` unless the replay had purged by itself); {} address mismatches",
                self.purge_events, self.mismatches
            )?;
        }
        for (line, why) in &self.skipped {
            writeln!(f, "  skipped line {line}: {why}")?;
        }
        for (line, n) in &self.notes {
            if *line == 0 {
                writeln!(f, "  note: {n}")?;
            } else {
                writeln!(f, "  note, line {line}: {n}")?;
            }
        }
        Ok(())
    }
}

/// A trace's `profile` line against a profile given from outside (`given`: `--profile P` on the
/// command line, `profile P` for the workbench's choice): one message for both.
pub fn profile_conflict(said: Profile, given: &str) -> String {
    format!(
        "the trace says `profile {said}` but {given} was given: drop one of them (refusing to measure the wrong era)"
    )
}

/// An imported trace: operations, the report, and (vmallocinfo) caller labels by op index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    pub ops: Vec<Op>,
    pub report: ImportReport,
    pub labels: Vec<(usize, String)>,
}

impl Imported {
    /// The trace text, each label as a `#` comment before its operation.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let mut labels = self.labels.iter().peekable();
        for (i, op) in self.ops.iter().enumerate() {
            while let Some((_, l)) = labels.next_if(|(at, _)| *at <= i) {
                // A label is text from the input: keep it on one comment line.
                s.push_str("# ");
                s.extend(l.chars().map(|c| if c.is_control() { ' ' } else { c }));
                s.push('\n');
            }
            s.push_str(&op.to_string());
            s.push('\n');
        }
        s
    }
}

fn err(line: usize, msg: impl Into<String>) -> ParseError {
    ParseError { line, msg: bounded(msg.into()) }
}

/// Checks every importer makes first: the size limit (naming the line where it is crossed)
/// and binary data (a NUL byte).
fn check_text(text: &str) -> Result<(), ParseError> {
    if text.len() > MAX_TRACE_BYTES {
        let line = text.as_bytes()[..MAX_TRACE_BYTES].iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(err(
            line,
            format!("input is {} bytes; the limit is {} MiB, crossed on this line", text.len(), MAX_TRACE_BYTES >> 20),
        ));
    }
    if let Some(i) = text.find('\0') {
        let line = text[..i].matches('\n').count() + 1;
        return Err(err(line, "binary data (a NUL byte): this is not a text capture"));
    }
    Ok(())
}

/// Bytes as text, or an error naming the line of the first byte that is not UTF-8.
pub fn text_from_bytes(bytes: &[u8]) -> Result<&str, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(err(line, format!("binary data: byte {at} is not UTF-8 text")))
        }
    }
}

/// Guess the format of a text from its first line that is not blank or a `#` comment.
pub fn detect_format(text: &str) -> ImportFormat {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    if first.starts_with('{') {
        ImportFormat::Json
    } else if parse_vmallocinfo_range(first.split_whitespace().next().unwrap_or("")).is_ok() {
        ImportFormat::Vmallocinfo
    } else if split_ftrace(first).is_some() {
        ImportFormat::Ftrace
    } else {
        ImportFormat::Trace
    }
}

/// Import in any format. `profile`, when given, is the first operation (and, for ftrace, sets
/// the CPU count from the capture); a trace whose own `profile` names another is an error at that
/// line, as it is for `vmap-replay --profile`.
pub fn import(format: ImportFormat, text: &str, profile: Option<Profile>) -> Result<Imported, ParseError> {
    match format {
        ImportFormat::Ftrace => import_ftrace(text, profile),
        ImportFormat::Vmallocinfo => import_vmallocinfo(text, profile),
        ImportFormat::Trace | ImportFormat::Json => {
            let lines = if format == ImportFormat::Json {
                json_lines(text)?
            } else {
                check_text(text)?;
                parse_trace(text)?
            };
            let mut ops = Vec::with_capacity(lines.len() + 1);
            if let Some(p) = profile {
                match lines.first() {
                    Some(&TraceLine { line, op: Op::Profile(q) }) if q != p => {
                        return Err(err(line, profile_conflict(q, &format!("profile {p}"))));
                    }
                    Some(TraceLine { op: Op::Profile(_), .. }) => {}
                    _ => ops.push(Op::Profile(p)),
                }
            }
            ops.extend(lines.into_iter().map(|l| l.op));
            let mut report = ImportReport::new(format);
            report.mapped = ops.len();
            Ok(Imported { ops, report, labels: Vec::new() })
        }
    }
}

/// [`import`] from bytes (a dropped file): non-UTF-8 input is an error naming its line.
pub fn import_bytes(format: ImportFormat, bytes: &[u8], profile: Option<Profile>) -> Result<Imported, ParseError> {
    import(format, text_from_bytes(bytes)?, profile)
}

// ----------------------------------------------------------------------
// ftrace
// ----------------------------------------------------------------------

/// One line of `/sys/kernel/tracing/trace` split into its columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FtraceLine<'a> {
    pub task: &'a str,
    pub pid: u64,
    pub cpu: u32,
    pub timestamp: &'a str,
    pub event: &'a str,
    pub rest: &'a str,
}

fn is_timestamp(t: &str) -> bool {
    let Some(t) = t.strip_suffix(':') else { return false };
    let (a, b) = t.split_once('.').unwrap_or((t, "0"));
    !a.is_empty() && !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
}

/// Split a line of the shape `TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: REST` (the flags column,
/// 4 or 5 characters, may be absent; a `(TGID)` column after the task is allowed). `None` when
/// the line does not have that shape.
pub fn split_ftrace(line: &str) -> Option<FtraceLine<'_>> {
    for (i, _) in line.match_indices('[') {
        let close = match line[i + 1..].find(']') {
            Some(c) => i + 1 + c,
            None => continue,
        };
        let cpu_s = &line[i + 1..close];
        if cpu_s.is_empty() || cpu_s.len() > 6 || !cpu_s.bytes().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if i == 0 || !line.as_bytes()[i - 1].is_ascii_whitespace() {
            continue;
        }
        let mut head = line[..i].trim();
        if head.ends_with(')') {
            // record-tgid: "task-pid (  tgid)"
            head = head[..head.rfind('(')?].trim_end();
        }
        let (task, pid) = head.rsplit_once('-')?;
        if pid.is_empty() || !pid.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut rest = line[close + 1..].trim_start();
        let mut tok = rest.split_whitespace().next()?;
        if !is_timestamp(tok) {
            // The latency-flags column.
            rest = rest[tok.len()..].trim_start();
            tok = rest.split_whitespace().next()?;
            if !is_timestamp(tok) {
                return None;
            }
        }
        let timestamp = &tok[..tok.len() - 1];
        rest = rest[tok.len()..].trim_start();
        let colon = rest.find(':')?;
        let event = &rest[..colon];
        if event.is_empty() || event.contains(char::is_whitespace) {
            return None;
        }
        return Some(FtraceLine {
            task: task.trim(),
            pid: pid.parse().ok()?,
            cpu: cpu_s.parse().ok()?,
            timestamp,
            event,
            rest: rest[colon + 1..].trim(),
        });
    }
    None
}

/// `key=value` fields of an event, in order; every key in `want` must appear exactly once and
/// nothing else may.
fn fields<const N: usize>(event: &str, rest: &str, want: [&str; N]) -> Result<[u64; N], String> {
    let mut out = [None; N];
    for tok in rest.split_whitespace() {
        let (k, v) = tok.split_once('=').ok_or_else(|| format!("{event}: `{}` is not KEY=VALUE", quote(tok)))?;
        let i = want.iter().position(|w| *w == k).ok_or_else(|| format!("{event}: unexpected field `{}`", quote(k)))?;
        if out[i].is_some() {
            return Err(format!("{event}: field `{}` appears twice", quote(k)));
        }
        out[i] = Some(parse_num(v).map_err(|e| format!("{event}: {}: {e}", quote(k)))?);
    }
    let mut vals = [0u64; N];
    for i in 0..N {
        vals[i] = out[i].ok_or_else(|| format!("{event}: missing field `{}`", want[i]))?;
    }
    Ok(vals)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AllocReq {
    pub(crate) size: u64,
    pub(crate) align: u64,
    pub(crate) vstart: u64,
    pub(crate) vend: u64,
}

// The capture replay (feature `capture`) reads every field; the ftrace import some.
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
#[derive(Clone, Copy, Debug)]
pub(crate) enum FtraceEvent {
    Alloc {
        addr: u64,
        req: AllocReq,
        failed: bool,
    },
    Free {
        va_start: u64,
        nr_lazy: u64,
        nr_lazy_max: u64,
    },
    Purge {
        start: u64,
        end: u64,
        num_purged: u64,
    },
    /// `mm_shrink_slab_start` of the vmap node shrinker (`vmap_node_shrink_scan`): whether
    /// `do_shrink_slab` went on to call it, which gives back every node's pools whole, and the
    /// entries its count found in them (`cache items`: every pool's length, summed).
    Shrink {
        cache_items: u64,
        scanned: bool,
    },
}

/// `do_shrink_slab`'s batch for a shrinker that sets none (`SHRINK_BATCH`).
const SHRINK_BATCH: u64 = 128;

/// Lines of the `vmscan` events that say nothing of the vmalloc allocator: the end of a
/// shrinker's run, and the start of any shrinker's but the vmap nodes' (a capture whose filter
/// on it could not be set records them all).
pub(crate) fn is_other_shrinker(l: &FtraceLine<'_>) -> bool {
    l.event == "mm_shrink_slab_end"
        || (l.event == "mm_shrink_slab_start" && !l.rest.trim_start().starts_with("vmap_node_shrink_scan+"))
}

/// The number after `key ` in a `mm_shrink_slab_start` line.
fn shrink_field(rest: &str, key: &str) -> Result<u64, String> {
    let (_, after) = rest.split_once(key).ok_or_else(|| format!("mm_shrink_slab_start: no `{}` field", key.trim()))?;
    let n = after.split_whitespace().next().unwrap_or("");
    let v: i64 = n.parse().map_err(|_| format!("mm_shrink_slab_start: {}`{}` is not a number", key, quote(n)))?;
    Ok(v.max(0) as u64)
}

pub(crate) fn parse_event(l: &FtraceLine<'_>) -> Result<FtraceEvent, String> {
    match l.event {
        "alloc_vmap_area" => {
            let rest = l
                .rest
                .strip_prefix("va_start:")
                .ok_or("alloc_vmap_area: expected `va_start: N size=… align=… vstart=… vend=… failed=…`")?;
            let rest = rest.trim_start();
            let (addr_s, kv) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let addr = parse_num(addr_s).map_err(|e| format!("alloc_vmap_area: va_start: {e}"))?;
            let [size, align, vstart, vend, failed] =
                fields("alloc_vmap_area", kv, ["size", "align", "vstart", "vend", "failed"])?;
            if size == 0 {
                return Err("alloc_vmap_area: size 0 (the kernel refuses it before tracing: -EINVAL)".into());
            }
            if size % PAGE_SIZE != 0 {
                return Err(format!("alloc_vmap_area: size {size} is not a multiple of PAGE_SIZE (4096)"));
            }
            if !align.is_power_of_two() {
                return Err(format!("alloc_vmap_area: align {align} is not a power of two"));
            }
            if failed > 1 {
                return Err(format!("alloc_vmap_area: failed={failed} (expected 0 or 1)"));
            }
            Ok(FtraceEvent::Alloc { addr, req: AllocReq { size, align, vstart, vend }, failed: failed == 1 })
        }
        "free_vmap_area_noflush" => {
            let [va_start, nr_lazy, nr_lazy_max] =
                fields("free_vmap_area_noflush", l.rest, ["va_start", "nr_lazy", "nr_lazy_max"])?;
            Ok(FtraceEvent::Free { va_start, nr_lazy, nr_lazy_max })
        }
        "purge_vmap_area_lazy" => {
            let [start, end, num_purged] = fields("purge_vmap_area_lazy", l.rest, ["start", "end", "num_purged"])?;
            Ok(FtraceEvent::Purge { start, end, num_purged })
        }
        "mm_shrink_slab_start" => {
            // do_shrink_slab scans while total_scan >= batch_size || total_scan >= freeable
            // (the `cache items` it printed): the vmap node shrinker's first scan returns
            // SHRINK_STOP, after its full decay.
            let freeable = shrink_field(l.rest, "cache items ")?;
            let total_scan = shrink_field(l.rest, "total_scan ")?;
            Ok(FtraceEvent::Shrink {
                cache_items: freeable,
                scanned: total_scan >= SHRINK_BATCH || total_scan >= freeable,
            })
        }
        other => Err(format!(
            "unknown ftrace event `{}` (only the vmalloc events alloc_vmap_area, free_vmap_area_noflush and \
             purge_vmap_area_lazy, and the vmap node shrinker's mm_shrink_slab_start, can be imported: enable \
             only events/vmalloc)",
            quote(other)
        )),
    }
}

/// At most this many mismatch notes are kept (the count is always exact).
const MAX_NOTES: usize = 100;

fn note(report: &mut ImportReport, line: usize, text: String) {
    if report.notes.len() < MAX_NOTES {
        report.notes.push((line, text));
    } else if report.notes.len() == MAX_NOTES {
        report.notes.push((0, "further notes left out".into()));
    }
}

/// Counts the purges the replay makes by itself (`PurgeStart` events).
#[derive(Default)]
struct PurgeWatch {
    purges: usize,
}

impl Observer for PurgeWatch {
    fn event(&mut self, ev: Event, _index: IndexView<'_>) {
        if let Event::PurgeStart { .. } = ev {
            self.purges += 1;
        }
    }
}

/// What is known at a line when the kernel and the replay differ there.
#[derive(Clone, Copy)]
struct Why {
    /// The replay purged by itself and no kernel purge event has matched it yet.
    own_purge: bool,
    /// The ring buffer lost events before this line.
    lost: bool,
}

/// The address mismatches of an ftrace import, each with its likeliest cause.
#[derive(Default)]
struct Mismatches {
    first: Option<(usize, &'static str)>,
    causes: Vec<(&'static str, usize)>,
}

impl Mismatches {
    fn record(&mut self, report: &mut ImportReport, line: usize, text: String, why: Why, kernel_higher: bool) {
        let c = if self.first.is_some() {
            "follows from an earlier difference: the replay's address space has differed since"
        } else if why.own_purge {
            "purge timing: the replay purged lazy areas at once when its threshold was crossed, the kernel purges \
             later from a worker"
        } else if why.lost {
            "the ring buffer lost events before this line"
        } else if kernel_higher {
            "the kernel's space held areas no event of the capture allocated: allocated before the capture started, \
             or by pcpu_get_vm_areas (which has no trace event)"
        } else {
            "the replay held space the kernel had free: the kernel freed or purged something with no event in the \
             capture"
        };
        report.mismatches += 1;
        note(report, line, format!("{text} ({c})"));
        if self.first.is_none() {
            self.first = Some((line, c));
        }
        match self.causes.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => self.causes.push((c, 1)),
        }
    }
}

/// The ftrace importer (see the module documentation). Failed allocation attempts: the kernel
/// traces every attempt, and after a failed one it purges and tries again; the replayed
/// `alloc` does the same by itself, so the next attempt of the same request by the same task
/// (the retry) is folded into the first instead of becoming a second `alloc`.
pub fn import_ftrace(text: &str, profile: Option<Profile>) -> Result<Imported, ParseError> {
    check_text(text)?;
    let mut report = ImportReport::new(ImportFormat::Ftrace);
    // Pass 1: parse everything (all or nothing).
    let mut events: Vec<(usize, FtraceLine<'_>, FtraceEvent)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(lost) = t.strip_prefix("CPU:").filter(|r| r.contains("[LOST") && r.ends_with("EVENTS]")) {
            report.skipped.push((line, format!("the ring buffer lost events on CPU {lost}: the replay may diverge")));
            continue;
        }
        let l = split_ftrace(raw)
            .ok_or_else(|| err(line, "not an ftrace line: expected `TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS`"))?;
        // A shrinker's line that says nothing of vmalloc, or a note written into `trace_marker`
        // (a capture's, say where the pools were drained and the before file read).
        if is_other_shrinker(&l) || l.event == "tracing_mark_write" {
            continue;
        }
        let ev = parse_event(&l).map_err(|m| err(line, m))?;
        events.push((line, l, ev));
    }
    // The CPU count: the highest CPU column, and fls(cpus) from lazy_max_pages().
    let max_cpu = events.iter().map(|e| e.1.cpu).max().unwrap_or(0);
    let mut cpus = u64::from(max_cpu) + 1;
    if let Some(lazy_max) = events.iter().find_map(|e| match e.2 {
        FtraceEvent::Free { nr_lazy_max, .. } => Some(nr_lazy_max),
        _ => None,
    }) {
        let per = 32 * 1024 * 1024 / PAGE_SIZE;
        let k = lazy_max / per;
        if lazy_max % per == 0 && (1..=17).contains(&k) {
            let low = 1u64 << (k - 1);
            if u64::from(fls(cpus)) > k {
                note(
                    &mut report,
                    0,
                    format!("nr_lazy_max={lazy_max} means fewer than {} CPUs, but CPU {max_cpu} appears", 1u64 << k),
                );
            }
            cpus = cpus.max(low);
        } else {
            note(&mut report, 0, format!("nr_lazy_max={lazy_max} is not fls(cpus) * 8192: ignored"));
        }
    }
    let cpus = cpus.min(crate::era::MAX_CPUS);

    // Pass 2: emit while replaying.
    let replay_profile = profile.unwrap_or_default();
    let mut vmap = Vmap::new(replay_profile);
    let mut ops = Vec::new();
    let mut summary = Vec::new();
    let set_cpu_lines = replay_profile.has_vmap_nodes();
    if let Some(p) = profile {
        ops.push(Op::Profile(p));
    }
    vmap.set_cpus(cpus).map_err(|e| err(0, e.to_string()))?;
    // `cpus 1` is what a replay starts with: written only when a profile is, or when it says more.
    if profile.is_some() || cpus > 1 {
        ops.push(Op::Cpus(cpus));
    }
    summary.push(format!("cpus {cpus}: from the CPU column (highest CPU {max_cpu}) and nr_lazy_max"));
    let mut cur_cpu = 0u32;
    // Kernel address -> replayed address, for areas allocated in the capture and still busy.
    let mut live: HashMap<u64, u64> = HashMap::new();
    // Per task: a failed attempt whose retry is still to come (request, replayed result).
    let mut retry: HashMap<u64, (AllocReq, Option<u64>)> = HashMap::new();
    // Purges the replay made by itself (threshold, retry) that no kernel purge event has
    // matched yet, and the line of the oldest of them.
    let mut watch = PurgeWatch::default();
    let mut own_purges = 0usize;
    let mut own_purge_line = 0usize;
    let mut purges_replayed = 0usize;
    let mut lost_line = 0usize;
    let mut mm = Mismatches::default();
    let lost_lines: Vec<usize> = report.skipped.iter().map(|s| s.0).collect();
    let mut lost_iter = lost_lines.into_iter().peekable();
    for (line, l, ev) in events {
        while let Some(x) = lost_iter.next_if(|&x| x < line) {
            lost_line = x;
        }
        if let FtraceEvent::Purge { .. } = ev {
            report.purge_events += 1;
            if own_purges > 0 {
                // The replay already purged here (over its threshold at once, or in an
                // allocation's retry); the kernel's purge of the same lazy areas.
                own_purges -= 1;
            } else {
                // A purge the replay did not make by itself (vm_unmap_aliases, a deferred drain,
                // a retry the replay did not need): make it.
                vmap.purge(&mut NoObserver);
                ops.push(Op::Purge);
                purges_replayed += 1;
            }
            continue;
        }
        let pending = retry.remove(&l.pid);
        if set_cpu_lines && l.cpu != cur_cpu {
            vmap.set_cpu(u64::from(l.cpu)).map_err(|e| err(line, e.to_string()))?;
            ops.push(Op::Cpu(u64::from(l.cpu)));
            cur_cpu = l.cpu;
        }
        let before = watch.purges;
        let why = Why { own_purge: own_purges > 0, lost: lost_line > 0 };
        match ev {
            FtraceEvent::Alloc { addr, req, failed } => {
                if let Some((preq, got)) = pending {
                    if preq == req {
                        report.mapped += 1;
                        // The kernel's retry after its purge: the replayed alloc already retried.
                        match (failed, got) {
                            (false, Some(y)) => {
                                live.insert(addr, y);
                                if y != addr {
                                    mm.record(
                                        &mut report,
                                        line,
                                        format!("kernel retry got {addr:#x}, replay {y:#x}"),
                                        why,
                                        addr > y,
                                    );
                                }
                            }
                            (false, None) => {
                                mm.record(
                                    &mut report,
                                    line,
                                    format!("kernel retry got {addr:#x}, replay FAIL"),
                                    why,
                                    false,
                                );
                            }
                            (true, Some(y)) => {
                                live.insert(y, y);
                                mm.record(
                                    &mut report,
                                    line,
                                    format!("kernel failed twice, replay got {y:#x}"),
                                    why,
                                    true,
                                );
                            }
                            (true, None) => {}
                        }
                        continue;
                    }
                }
                let AllocReq { size, align, vstart, vend } = req;
                let got = match vmap.alloc(size, align, vstart, vend, &mut watch) {
                    Ok(y) => Some(y),
                    Err(e) if e.is_kernel_bug() => {
                        report.skipped.push((line, format!("the replay refuses this allocation: {e}")));
                        continue;
                    }
                    Err(_) => None,
                };
                report.mapped += 1;
                ops.push(Op::Alloc { size, align, vstart, vend });
                if watch.purges > before {
                    if own_purges == 0 {
                        own_purge_line = line;
                    }
                    own_purges += watch.purges - before;
                }
                if failed {
                    retry.insert(l.pid, (req, got));
                    continue;
                }
                match got {
                    Some(y) => {
                        if y != addr {
                            mm.record(&mut report, line, format!("kernel got {addr:#x}, replay {y:#x}"), why, addr > y);
                        }
                        live.insert(addr, y);
                    }
                    None => {
                        mm.record(&mut report, line, format!("kernel got {addr:#x}, replay FAIL"), why, false);
                    }
                }
            }
            FtraceEvent::Free { va_start, .. } => match live.remove(&va_start) {
                Some(y) => match vmap.vfree(y, &mut watch) {
                    Err(e) if e.is_kernel_bug() => {
                        report.skipped.push((line, format!("the replay refuses this vfree: {e}")));
                    }
                    r => {
                        if let Err(e) = r {
                            note(&mut report, line, format!("replay: {e}"));
                        }
                        report.mapped += 1;
                        ops.push(Op::Vfree(y));
                        if watch.purges > before {
                            if own_purges == 0 {
                                own_purge_line = line;
                            }
                            own_purges += watch.purges - before;
                        }
                    }
                },
                None => report.skipped.push((
                    line,
                    format!(
                        "vfree {va_start:#x}: freed area allocated before the capture started (or by \
                         pcpu_get_vm_areas, which has no trace event)"
                    ),
                )),
            },
            FtraceEvent::Purge { .. } => {}
            FtraceEvent::Shrink { scanned, .. } => {
                if scanned {
                    report.skipped.push((
                        line,
                        "the vmap node shrinker gave back every pool here (vmap_node_shrink_scan): \
                         `--import capture` replays it"
                            .into(),
                    ));
                }
            }
        }
    }
    report.skipped.sort_by_key(|s| s.0);
    if report.purge_events > 0 {
        summary.push(format!(
            "{} purge events: {} matched a purge the replay made by itself (over its lazy threshold, or before an \
             allocation's retry), {purges_replayed} replayed as `purge`",
            report.purge_events,
            report.purge_events - purges_replayed
        ));
    }
    if own_purges > 0 {
        summary.push(format!(
            "the replay purged {own_purges} time(s) by itself (first at line {own_purge_line}) with no kernel purge \
             event after it: the kernel's threshold or its worker differed, or the capture ends first"
        ));
    }
    if let Some((line, c)) = mm.first {
        let mut s =
            format!("{} allocations landed elsewhere in the replay; the first, at line {line}: {c}", report.mismatches);
        if mm.causes.len() > 1 {
            for (c, n) in &mm.causes {
                s.push_str(&format!("; {n} × {c}"));
            }
        }
        let before_capture = report.skipped.iter().filter(|s| s.1.contains("before the capture started")).count();
        if before_capture > 0 {
            s.push_str(&format!(
                ". {before_capture} frees name areas the capture never allocated: the capture did not start at boot"
            ));
        }
        summary.push(s);
    }
    // The explanation comes first, whatever the number of per-line notes.
    report.notes.splice(0..0, summary.into_iter().map(|s| (0, s)));
    Ok(Imported { ops, report, labels: Vec::new() })
}

// ----------------------------------------------------------------------
// /proc/vmallocinfo
// ----------------------------------------------------------------------

pub(crate) fn parse_vmallocinfo_range(tok: &str) -> Result<(u64, u64), String> {
    let (a, b) = tok.split_once('-').ok_or_else(|| format!("`{}` is not a range 0xSTART-0xEND", quote(tok)))?;
    if !a.starts_with("0x") || !b.starts_with("0x") {
        return Err(format!("`{}` is not a range 0xSTART-0xEND", quote(tok)));
    }
    let s = parse_num(a).map_err(|e| format!("range start: {e}"))?;
    let e = parse_num(b).map_err(|e| format!("range end: {e}"))?;
    Ok((s, e))
}

/// The lowest address of the kernel half of a 64-bit address space: a `%pK` value below it
/// (and not zero) is a hash, not an address.
pub(crate) const KERNEL_HALF: u64 = 0xffff_8000_0000_0000;

/// What kind of area a line describes, from the words `s_show` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InfoKind {
    /// `vmalloc` (`VM_ALLOC`).
    Vmalloc,
    /// `ioremap` (`VM_IOREMAP`).
    Ioremap,
    /// `vmap` (`VM_MAP`).
    Vmap,
    /// A `vm_map_ram` line (an area with no `vm_struct`).
    VmMapRam,
    /// An `unpurged vm_area` line: lazily freed, waiting for the purge.
    Unpurged,
    /// A `vm_struct` with none of the words above (`sparse`, `xen`, `user` alone, or none).
    Other,
}

/// Words `s_show` prints after the caller: the flag words and `pages=`, `phys=`, `N<node>=`.
pub(crate) fn is_attribute(tok: &str) -> bool {
    matches!(
        tok,
        "ioremap"
            | "vmalloc"
            | "vmap"
            | "user"
            | "dma-coherent"
            | "vpages"
            | "xen"
            | "sparse"
            | "vm_map_ram"
            | "unpurged"
    ) || tok.strip_prefix("pages=").is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        || tok.strip_prefix("phys=").is_some_and(|p| p.starts_with("0x"))
        || tok.strip_prefix('N').and_then(|t| t.split_once('=')).is_some_and(|(n, c)| {
            !n.is_empty()
                && !c.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && c.bytes().all(|b| b.is_ascii_digit())
        })
}

/// `%pS` of a caller: `symbol+0xOFF/0xSIZE`, or a bare address when there is no symbol.
fn is_caller(tok: &str) -> bool {
    (tok.contains('+') && tok.contains('/')) || (tok.starts_with("0x") && parse_num(tok).is_ok())
}

#[derive(Clone, Debug)]
pub(crate) struct InfoLine {
    pub(crate) line: usize,
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) size: u64,
    pub(crate) label: String,
    pub(crate) kind: InfoKind,
}

/// One line after its range and size: the caller label and the kind; words `s_show` never
/// prints are noted by line (and kept out of the label), never dropped silently.
fn classify(line: usize, rest: &[&str], report: &mut ImportReport) -> (String, InfoKind) {
    match rest {
        ["unpurged", "vm_area"] => return ("unpurged vm_area".into(), InfoKind::Unpurged),
        ["vm_map_ram"] => return ("vm_map_ram".into(), InfoKind::VmMapRam),
        _ => {}
    }
    let mut words = rest;
    let mut label = String::new();
    if let Some((c, more)) = words.split_first() {
        if !is_attribute(c) {
            if !is_caller(c) {
                note(
                    report,
                    line,
                    format!("`{}` does not look like a caller (symbol+0xOFF/0xSIZE); kept as the label", quote(c)),
                );
            }
            label = c.to_string();
            words = more;
            if let Some((m, more)) = words.split_first() {
                if m.starts_with('[') && m.ends_with(']') {
                    label = format!("{c} {m}");
                    words = more;
                }
            }
        }
    }
    let mut kind = InfoKind::Other;
    for w in words {
        match *w {
            "vmalloc" => kind = InfoKind::Vmalloc,
            "ioremap" if kind == InfoKind::Other => kind = InfoKind::Ioremap,
            "vmap" if kind == InfoKind::Other => kind = InfoKind::Vmap,
            w if is_attribute(w) => {}
            w => note(report, line, format!("unknown word `{}` (not one that s_show prints): ignored", quote(w))),
        }
    }
    if label.is_empty() {
        label = rest.join(" ");
    }
    (label, kind)
}

/// The `/proc/vmallocinfo` importer (see the module documentation). Lazily freed areas
/// (`unpurged vm_area`) are allocated and then vfreed, so they are lazy in the replay too; when
/// they hold more pages than `lazy_max_pages()` allows one CPU, a `cpus N` line keeps them lazy.
///
/// The addresses are used when they are real: all kernel addresses, each range as long as its
/// size column (then a reversed or wrong range is an error naming the line), and no two areas
/// overlapping (a later overlapping line, a snapshot race, is skipped and reported). When they
/// are hidden (zeros) or hashed (`%pK` under `kptr_restrict`: an end can be below its start),
/// the areas are laid out one after the other from `VMALLOC_START`, in file order, each as long
/// as its size column, and the report says so.
pub fn import_vmallocinfo(text: &str, profile: Option<Profile>) -> Result<Imported, ParseError> {
    let mut report = ImportReport::new(ImportFormat::Vmallocinfo);
    let areas = parse_vmallocinfo(text, &mut report)?;
    import_vmallocinfo_areas(areas, report, profile)
}

/// The lines of a `/proc/vmallocinfo`, in file order: range, size column, label and kind
/// (all or nothing: the first bad line is the error).
pub(crate) fn parse_vmallocinfo(text: &str, report: &mut ImportReport) -> Result<Vec<InfoLine>, ParseError> {
    check_text(text)?;
    let mut areas = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut toks = t.split_whitespace();
        let range = toks.next().unwrap_or("");
        let (start, end) = parse_vmallocinfo_range(range).map_err(|m| err(line, m))?;
        let size_s = toks.next().ok_or_else(|| err(line, "missing the size column after the range"))?;
        if !size_s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(err(line, format!("size `{}` is not a decimal number", quote(size_s))));
        }
        let size = parse_num(size_s).map_err(|m| err(line, format!("size: {m}")))?;
        if size == 0 {
            return Err(err(line, "size 0: no area has size 0"));
        }
        if size % PAGE_SIZE != 0 {
            return Err(err(line, format!("size {size} is not a multiple of PAGE_SIZE (4096)")));
        }
        let rest: Vec<&str> = toks.collect();
        let (label, kind) = classify(line, &rest, report);
        areas.push(InfoLine { line, start, end, size, label, kind });
    }
    Ok(areas)
}

fn import_vmallocinfo_areas(
    areas: Vec<InfoLine>,
    mut report: ImportReport,
    profile: Option<Profile>,
) -> Result<Imported, ParseError> {
    // Real addresses, or hidden / hashed ones?
    let zeroed = areas.iter().filter(|a| (a.start, a.end) == (0, 0)).count();
    let hashed = areas.iter().find(|a| (a.start, a.end) != (0, 0) && (a.start < KERNEL_HALF || a.end < KERNEL_HALF));
    let why_layout = if areas.is_empty() {
        None
    } else if zeroed == areas.len() {
        Some("the addresses are hidden (all zero: kptr_restrict=2)".to_string())
    } else if zeroed > 0 {
        Some(format!("{zeroed} of {} addresses are hidden (zero)", areas.len()))
    } else if let Some(a) = hashed {
        let what = if a.end <= a.start {
            format!("its end {:#x} is not above its start {:#x}", a.end, a.start)
        } else {
            format!("{:#x} is not a kernel address", a.start.min(a.end))
        };
        Some(format!("the addresses are hashed (%pK under kptr_restrict; line {}: {what})", a.line))
    } else {
        None
    };
    let mut skip = vec![false; areas.len()];
    if why_layout.is_none() {
        for a in &areas {
            if a.end <= a.start {
                return Err(err(a.line, format!("range end {:#x} is not above its start {:#x}", a.end, a.start)));
            }
            if a.end - a.start != a.size {
                return Err(err(
                    a.line,
                    format!("the range spans {} bytes but the size column says {}", a.end - a.start, a.size),
                ));
            }
        }
        // The kernel lists each vmap node's areas, then the lazy ones: sorted per list, not as a
        // whole. The file is read a page at a time, so an area can change between two reads.
        let mut order: Vec<usize> = (0..areas.len()).collect();
        order.sort_by_key(|&i| (areas[i].start, areas[i].line));
        let mut kept: Option<usize> = None;
        for i in order {
            if let Some(k) = kept {
                if areas[i].start < areas[k].end {
                    skip[i] = true;
                    report.skipped.push((
                        areas[i].line,
                        format!(
                            "[{:#x}, {:#x}) overlaps the area of line {} (the file changed while it was read): \
                             left out",
                            areas[i].start, areas[i].end, areas[k].line
                        ),
                    ));
                    continue;
                }
            }
            kept = Some(i);
        }
        report.skipped.sort_by_key(|s| s.0);
    }

    // Lazily freed pages stay lazy only while vmap_lazy_nr <= lazy_max_pages() = fls(cpus) * 8192.
    let per_fls = 32 * 1024 * 1024 / PAGE_SIZE;
    let lazy: Vec<&InfoLine> =
        areas.iter().zip(&skip).filter(|(a, s)| !**s && a.kind == InfoKind::Unpurged).map(|(a, _)| a).collect();
    let lazy_pages: u64 = lazy.iter().map(|a| a.size / PAGE_SIZE).sum();
    let need_fls = lazy_pages.div_ceil(per_fls).max(1);
    let mut summary = Vec::new();
    let mut ops = Vec::new();
    if let Some(p) = profile {
        ops.push(Op::Profile(p));
    }
    let mut vmap = Vmap::new(profile.unwrap_or_default());
    if need_fls > 1 && need_fls <= u64::from(fls(crate::era::MAX_CPUS)) {
        let cpus = 1u64 << (need_fls - 1);
        vmap.set_cpus(cpus).map_err(|e| err(0, e.to_string()))?;
        ops.push(Op::Cpus(cpus));
        summary.push(format!(
            "cpus {cpus} assumed (the file does not say): the {} lazily freed areas hold {lazy_pages} pages, \
             more than lazy_max_pages() = {per_fls} allows one CPU; with {cpus} CPUs it is {} and they stay lazy",
            lazy.len(),
            vmap.lazy_max_pages()
        ));
    }
    if let Some(why) = &why_layout {
        summary.push(format!(
            "{why}: the areas are laid out one after the other from VMALLOC_START in file order, each as long \
             as its size column; the addresses and the gaps between areas are not the kernel's"
        ));
    }
    let mut labels = Vec::new();
    let mut cursor = VMALLOC_START;
    let mut counts = [0usize; 6];
    for (a, _) in areas.iter().zip(&skip).filter(|(_, s)| !**s) {
        let start = if why_layout.is_some() { cursor } else { a.start };
        let Some(end) = start.checked_add(a.size) else {
            return Err(err(a.line, "the area does not fit below 2^64"));
        };
        if why_layout.is_some() && end > VMALLOC_END {
            return Err(err(a.line, "the areas laid out from VMALLOC_START do not fit in the vmalloc window"));
        }
        cursor = end;
        labels.push((ops.len(), a.label.clone()));
        ops.push(Op::Alloc { size: a.size, align: 1, vstart: start, vend: end });
        match vmap.alloc(a.size, 1, start, end, &mut NoObserver) {
            Ok(got) if got == start => {}
            Ok(got) => return Err(err(a.line, format!("the replay placed the area at {got:#x}, not {start:#x}"))),
            Err(e) => return Err(err(a.line, format!("the area cannot be placed at {start:#x}: {e}"))),
        }
        if a.kind == InfoKind::Unpurged {
            ops.push(Op::Vfree(start));
            vmap.vfree(start, &mut NoObserver)
                .map_err(|e| err(a.line, format!("the lazily freed area cannot be vfreed: {e}")))?;
        }
        counts[a.kind as usize] += 1;
        report.mapped += 1;
    }
    if why_layout.is_some() || need_fls > 1 {
        let [vmalloc, ioremap, vmap_n, ram, unpurged, other] = counts;
        summary.push(format!(
            "{} areas: {} busy (vmalloc {vmalloc}, ioremap {ioremap}, vmap {vmap_n}, vm_map_ram {ram}, other \
             {other}) and {unpurged} lazily freed (`unpurged vm_area`: alloc then vfree, so lazy)",
            report.mapped,
            report.mapped - unpurged,
        ));
    }
    if lazy_pages > 0 && vmap.vmap_lazy_nr != lazy_pages {
        summary.push(format!(
            "the {lazy_pages} lazily freed pages exceed lazy_max_pages() = {} for {} CPU(s): the replay purged them",
            vmap.lazy_max_pages(),
            vmap.cpus
        ));
    }
    // What was assumed comes first, whatever the number of per-line notes.
    report.notes.splice(0..0, summary.into_iter().map(|s| (0, s)));
    Ok(Imported { ops, report, labels })
}

// ----------------------------------------------------------------------
// JSON
// ----------------------------------------------------------------------

/// A u64 in JSON: written as a `"0x…"` string, read from a string (hex or decimal) or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Num(u64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:#x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a u64 as a string (\"0x...\" or decimal) or a non-negative integer")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                u64::try_from(v).map(Num).map_err(|_| E::custom(format!("{v} is negative")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Err(E::custom(format!(
                    "{} is not an integer (write large numbers as \"0x...\" strings)",
                    quote(&v.to_string())
                )))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                parse_num(v).map(Num).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A small count (`cpus`, `cpu`), written as a JSON integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Count(u64);

impl Serialize for Count {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        Num::deserialize(d).map(|n| Count(n.0))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonArea {
    offset: Num,
    size: Num,
}

fn de_areas<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<JsonArea>, D::Error> {
    let v = Vec::<JsonArea>::deserialize(d)?;
    if v.is_empty() {
        return Err(de::Error::custom("`pcpu` takes at least one area"));
    }
    Ok(v)
}

fn de_profile<'de, D: Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
    let s = String::deserialize(d)?;
    Profile::parse(&s).ok_or_else(|| de::Error::custom(format!("unknown profile `{}`", quote(&s))))
}

/// Present means a value, even `null` (an error when read as a profile).
fn de_some_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de serde_json::value::RawValue>, D::Error> {
    <&serde_json::value::RawValue>::deserialize(d).map(Some)
}

fn ser_profile<S: Serializer>(p: &Profile, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum JsonOp {
    Profile {
        #[serde(serialize_with = "ser_profile", deserialize_with = "de_profile")]
        name: Profile,
    },
    Init {
        start: Num,
        end: Num,
    },
    Cpus {
        n: Count,
    },
    Online {
        n: Count,
    },
    Cpu {
        n: Count,
    },
    Alloc {
        size: Num,
        align: Num,
        vstart: Num,
        vend: Num,
    },
    Free {
        addr: Num,
    },
    Vfree {
        addr: Num,
    },
    Purge,
    Reclaim,
    Pcpu {
        align: Num,
        #[serde(deserialize_with = "de_areas")]
        areas: Vec<JsonArea>,
    },
    Dump,
    Busy,
    Pools,
    Bump {
        on: bool,
    },
    Early {
        size: Num,
        align: Num,
        vstart: Num,
        vend: Num,
    },
    /// A line that follows a capture (`crate::capture::follow`), in the trace language.
    #[cfg(feature = "capture")]
    Follow {
        line: String,
    },
}

/// The outer object; each op is kept raw so that an error in it can name its own line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonTraceIn<'a> {
    #[serde(default, borrow, deserialize_with = "de_some_raw")]
    profile: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    ops: Vec<&'a serde_json::value::RawValue>,
}

impl From<&Op> for JsonOp {
    fn from(op: &Op) -> JsonOp {
        match *op {
            Op::Profile(p) => JsonOp::Profile { name: p },
            Op::Init { start, end } => JsonOp::Init { start: Num(start), end: Num(end) },
            Op::Cpus(n) => JsonOp::Cpus { n: Count(n) },
            Op::Online(n) => JsonOp::Online { n: Count(n) },
            Op::Cpu(n) => JsonOp::Cpu { n: Count(n) },
            Op::Alloc { size, align, vstart, vend } => {
                JsonOp::Alloc { size: Num(size), align: Num(align), vstart: Num(vstart), vend: Num(vend) }
            }
            Op::Free(a) => JsonOp::Free { addr: Num(a) },
            Op::Vfree(a) => JsonOp::Vfree { addr: Num(a) },
            Op::Purge => JsonOp::Purge,
            Op::Reclaim => JsonOp::Reclaim,
            Op::Pcpu { align, ref areas } => JsonOp::Pcpu {
                align: Num(align),
                areas: areas.iter().map(|&(o, s)| JsonArea { offset: Num(o), size: Num(s) }).collect(),
            },
            Op::Dump => JsonOp::Dump,
            Op::Busy => JsonOp::Busy,
            Op::Pools => JsonOp::Pools,
            Op::Bump(on) => JsonOp::Bump { on },
            Op::Early { size, align, vstart, vend } => {
                JsonOp::Early { size: Num(size), align: Num(align), vstart: Num(vstart), vend: Num(vend) }
            }
            #[cfg(feature = "capture")]
            Op::Follow(ref f) => JsonOp::Follow { line: f.to_string() },
        }
    }
}

impl TryFrom<JsonOp> for Op {
    type Error = String;

    fn try_from(j: JsonOp) -> Result<Op, String> {
        Ok(match j {
            JsonOp::Profile { name } => Op::Profile(name),
            JsonOp::Init { start, end } => Op::Init { start: start.0, end: end.0 },
            JsonOp::Cpus { n } => Op::Cpus(n.0),
            JsonOp::Online { n } => Op::Online(n.0),
            JsonOp::Cpu { n } => Op::Cpu(n.0),
            JsonOp::Alloc { size, align, vstart, vend } => {
                Op::Alloc { size: size.0, align: align.0, vstart: vstart.0, vend: vend.0 }
            }
            JsonOp::Free { addr } => Op::Free(addr.0),
            JsonOp::Vfree { addr } => Op::Vfree(addr.0),
            JsonOp::Purge => Op::Purge,
            JsonOp::Reclaim => Op::Reclaim,
            JsonOp::Pcpu { align, areas } => {
                Op::Pcpu { align: align.0, areas: areas.into_iter().map(|a| (a.offset.0, a.size.0)).collect() }
            }
            JsonOp::Dump => Op::Dump,
            JsonOp::Busy => Op::Busy,
            JsonOp::Pools => Op::Pools,
            JsonOp::Bump { on } => Op::Bump(on),
            JsonOp::Early { size, align, vstart, vend } => {
                Op::Early { size: size.0, align: align.0, vstart: vstart.0, vend: vend.0 }
            }
            #[cfg(feature = "capture")]
            JsonOp::Follow { line } => {
                let toks: Vec<&str> = line.split_whitespace().collect();
                let (cmd, rest) = toks.split_first().ok_or("an empty `follow` line")?;
                Op::Follow(Box::new(crate::capture::follow::Follow::parse(cmd, rest)?))
            }
        })
    }
}

/// The JSON form of a trace: a leading `profile` operation becomes the `"profile"` key; one op
/// per line.
pub fn to_json(ops: &[Op]) -> String {
    let (profile, rest) = match ops.first() {
        Some(Op::Profile(p)) => (Some(*p), &ops[1..]),
        _ => (None, ops),
    };
    let mut s = String::from("{");
    if let Some(p) = profile {
        s.push_str(&format!("\"profile\": \"{}\", ", p.name()));
    }
    s.push_str("\"ops\": [");
    for (i, op) in rest.iter().enumerate() {
        s.push_str(if i == 0 { "\n  " } else { ",\n  " });
        // Serialising these plain structs cannot fail.
        s.push_str(&serde_json::to_string(&JsonOp::from(op)).unwrap_or_default());
    }
    s.push_str(if rest.is_empty() { "]}" } else { "\n]}" });
    s
}

/// A serde_json error at the line it names, for JSON text that starts at `line`, `col` (1-based
/// line, 0-based column) of the input. serde_json's own " at line L column C" is dropped.
fn json_error(e: &serde_json::Error, line: usize, col: usize) -> ParseError {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => quoted_token(&msg[..i]),
        None => quoted_token(&msg),
    };
    let what = match e.classify() {
        serde_json::error::Category::Eof => "truncated JSON",
        serde_json::error::Category::Syntax => "invalid JSON",
        serde_json::error::Category::Data => "invalid JSON trace",
        serde_json::error::Category::Io => "JSON",
    };
    let l = e.line().max(1);
    let c = if l == 1 { col + e.column() } else { e.column() };
    err(line + l - 1, format!("{what}: {msg} (column {c})"))
}

/// serde's message with the input it quotes (`unknown variant `X`, expected …`, `invalid type:
/// string "X", expected …`) cut as [`quote`] cuts a token. The token runs from the first quote
/// mark to the last one before serde's own tail, so a quote mark inside it changes nothing.
fn quoted_token(msg: &str) -> String {
    let serde = ["unknown variant ", "unknown field ", "invalid type: ", "invalid value: "];
    if !serde.iter().any(|p| msg.starts_with(p)) {
        return msg.to_string();
    }
    let tail = [", expected ", ", there are no "].iter().filter_map(|t| msg.rfind(t)).max().unwrap_or(msg.len());
    let head = &msg[..tail];
    let Some(open) = head.find(['`', '"']) else { return msg.to_string() };
    let mark = &head[open..=open];
    match head[open + 1..].strip_suffix(mark) {
        Some(tok) => format!("{}{mark}{}{mark}{}", &msg[..open], quote(tok), &msg[tail..]),
        None => msg.to_string(),
    }
}

/// Read the JSON form of a trace (all or nothing; errors name the JSON line).
pub fn from_json(text: &str) -> Result<Vec<Op>, ParseError> {
    Ok(json_lines(text)?.into_iter().map(|l| l.op).collect())
}

/// The 1-based line and 0-based column of a byte offset, for offsets met in increasing order
/// (one going backwards starts again from the top).
#[derive(Default)]
struct LineCursor {
    at: usize,
    line: usize,
    line_start: usize,
}

impl LineCursor {
    fn seek(&mut self, text: &str, to: usize) -> (usize, usize) {
        if to < self.at {
            *self = LineCursor::default();
        }
        let skipped = &text.as_bytes()[self.at..to];
        if let Some(last) = skipped.iter().rposition(|&b| b == b'\n') {
            self.line += skipped.iter().filter(|&&b| b == b'\n').count();
            self.line_start = self.at + last + 1;
        }
        self.at = to;
        (self.line + 1, to - self.line_start)
    }
}

/// [`from_json`], each operation with the line it starts on (the `"profile"` key's, for it).
fn json_lines(text: &str) -> Result<Vec<TraceLine>, ParseError> {
    check_text(text)?;
    if text.trim().is_empty() {
        return Err(err(1, "empty input: expected a JSON object {\"ops\": [...]}"));
    }
    let t: JsonTraceIn<'_> = serde_json::from_str(text).map_err(|e| json_error(&e, 1, 0))?;
    // A raw value is a slice of the input: its offset gives the line and column. The ops come in
    // input order, so a cursor that only moves forward keeps the whole import linear.
    let offset = |raw: &serde_json::value::RawValue| {
        (raw.get().as_ptr() as usize).wrapping_sub(text.as_ptr() as usize).min(text.len())
    };
    let mut cur = LineCursor::default();
    let mut at = |raw: &serde_json::value::RawValue| cur.seek(text, offset(raw));
    let mut ops = Vec::with_capacity(t.ops.len() + 1);
    if let Some(raw) = t.profile {
        // The "profile" key may come after "ops": a cursor of its own.
        let (line, col) = LineCursor::default().seek(text, offset(raw));
        let p =
            de_profile(&mut serde_json::Deserializer::from_str(raw.get())).map_err(|e| json_error(&e, line, col))?;
        ops.push(TraceLine { line, op: Op::Profile(p) });
    }
    for (i, raw) in t.ops.into_iter().enumerate() {
        let (line, col) = at(raw);
        let j: JsonOp = serde_json::from_str(raw.get()).map_err(|e| json_error(&e, line, col))?;
        let op = Op::try_from(j).map_err(|m| err(line, format!("ops[{i}]: {m}")))?;
        if matches!(op, Op::Profile(_)) && !ops.is_empty() {
            return Err(err(
                line,
                format!("ops[{i}]: `profile` must come before every other operation (or use the \"profile\" key)"),
            ));
        }
        ops.push(TraceLine { line, op });
    }
    Ok(ops)
}
