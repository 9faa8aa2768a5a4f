//! `vmap-replay --report fragmentation|callers FILE` and `vmap-replay --diff A B`: the inputs
//! read (a `/proc/vmallocinfo` file, a trace in any importable format, a capture bundle
//! directory; each file plain or gzipped) and the reports as text or JSON. Every error names
//! the file and, when it is about one, the line.

use std::io::Read;
use std::path::Path;

use serde_json::json;

use crate::callers;
use crate::capture;
use crate::era::Vmap;
use crate::events::NoObserver;
use crate::frag::{self, Fragmentation};
use crate::import::{self, ImportFormat};
use crate::profile::Profile;
use crate::replay::Replayer;
use crate::trace::{bounded, parse_trace, quote, Op, ParseError, MAX_TRACE_BYTES};
use crate::vmdiff;

/// A bad input: the file, the line (0: the file as a whole) and what is wrong.
pub type ReportError = crate::error::FileError;

fn rerr(file: &str, line: usize, msg: impl Into<String>) -> ReportError {
    ReportError { file: file.to_string(), line, msg: bounded(msg.into()) }
}

fn from_parse(file: &str, e: ParseError) -> ReportError {
    ReportError { file: file.to_string(), line: e.line, msg: e.msg }
}

/// The options the reports take.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// The era to model (default: the newest kernel release for vmallocinfo files and captures; a trace's own).
    pub profile: Option<Profile>,
    /// Online CPUs for `lazy_max_pages` (default: what the input says, else
    /// [`frag::DEFAULT_ONLINE_CPUS`]).
    pub cpus: Option<u32>,
    pub json: bool,
    /// Every area and caller instead of the first [`LIST_LIMIT`].
    pub full: bool,
}

/// Areas (or callers) listed before "… and N more".
pub const LIST_LIMIT: usize = 20;

impl Options {
    fn limit(&self) -> Option<usize> {
        (!self.full).then_some(LIST_LIMIT)
    }
}

/// A file's text: at most [`MAX_TRACE_BYTES`], gunzipped when it is gzip, UTF-8.
pub fn read_text(path: &str) -> Result<String, ReportError> {
    let f = std::fs::File::open(path).map_err(|e| rerr(path, 0, e.to_string()))?;
    let mut bytes = Vec::new();
    f.take(MAX_TRACE_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|e| rerr(path, 0, format!("reading: {e}")))?;
    if bytes.len() > MAX_TRACE_BYTES {
        return Err(rerr(path, 0, format!("larger than the limit of {} MiB", MAX_TRACE_BYTES >> 20)));
    }
    capture::part_text(path, &bytes).map_err(|e| rerr(path, e.line, e.msg))
}

/// A bundle's parts, each `(path, text)`, `None` when absent, in [`capture::PARTS`] order.
type Parts = Vec<Option<(String, String)>>;

fn read_bundle(dir: &Path) -> Result<Parts, ReportError> {
    let mut parts = Vec::new();
    for name in capture::PARTS {
        let mut got = None;
        for n in [name.to_string(), format!("{name}.gz")] {
            let p = dir.join(&n);
            if p.exists() {
                let shown = p.display().to_string();
                got = Some((shown.clone(), read_text(&shown)?));
                break;
            }
        }
        parts.push(got);
    }
    for i in [0, 1, 3] {
        if parts[i].is_none() {
            let p = dir.join(capture::PARTS[i]);
            return Err(rerr(&p.display().to_string(), 0, "missing (nor .gz): every bundle has it"));
        }
    }
    Ok(parts)
}

fn part(parts: &Parts, i: usize) -> Option<capture::Part<'_>> {
    parts[i].as_ref().map(|(n, t)| capture::Part { name: n, text: t })
}

/// A state's figures and what was assumed to get it.
struct State {
    title: String,
    figures: Fragmentation,
    notes: Vec<String>,
}

fn vmallocinfo_state(
    file: &str,
    text: &str,
    profile: Profile,
    cpus: Option<u64>,
) -> Result<(Vmap, Vec<String>), ReportError> {
    let (v, mut notes) = frag::vmallocinfo_state(text, profile, cpus).map_err(|e| from_parse(file, e))?;
    if vmdiff::address_kind_of(text).map_err(|e| from_parse(file, e))? != vmdiff::AddressKind::Real
        && !v.busy_areas_all().is_empty()
    {
        notes.insert(
            0,
            "WARNING: the addresses are hashed or hidden (kptr_restrict): free blocks, the largest free block and \
             the histogram are of an invented layout, not the kernel's; read the file as root with kptr_restrict=1"
                .into(),
        );
    }
    Ok((v, notes))
}

/// The state at the end of a trace (any importable format but vmallocinfo).
fn trace_state(file: &str, text: &str, fmt: ImportFormat, profile: Option<Profile>) -> Result<Vmap, ReportError> {
    if crate::maple::is_maple_trace(text) {
        return Err(rerr(file, 0, "a maple-tree trace has no address space to measure"));
    }
    let mut r = Replayer::new(profile.unwrap_or_default());
    let mut out = String::new();
    if fmt == ImportFormat::Trace {
        let lines = parse_trace(text).map_err(|e| from_parse(file, e))?;
        if let (Some(p), Some(first)) = (profile, lines.first()) {
            if let Op::Profile(q) = first.op {
                if q != p {
                    return Err(rerr(file, first.line, import::profile_conflict(q, &format!("--profile {p}"))));
                }
            }
        }
        for chunk in lines.chunks(64) {
            r.run(chunk, &mut out, &mut NoObserver).map_err(|e| rerr(file, 0, e.to_string()))?;
            out.clear();
        }
    } else {
        let imported = import::import(fmt, text, profile).map_err(|e| from_parse(file, e))?;
        for (i, op) in imported.ops.iter().enumerate() {
            r.apply(op, &mut out, &mut NoObserver)
                .map_err(|e| rerr(file, 0, format!("operation {} of the import (`{op}`): {e}", i + 1)))?;
            out.clear();
        }
    }
    Ok(r.vmap.into_vmap())
}

/// Online CPUs when not given, for a vmallocinfo file: this machine's when the file is
/// `/proc/vmallocinfo`, else the fewest with which the file's lazy pages stay under
/// `lazy_max_pages` (the importer's assumption; the kernel would have purged otherwise), at
/// least [`frag::DEFAULT_ONLINE_CPUS`].
fn default_cpus(path: &str, v: &Vmap) -> u32 {
    if path == PROC {
        if let Some(n) = machine_cpus("online") {
            return n;
        }
    }
    v.online_cpus().max(frag::DEFAULT_ONLINE_CPUS)
}

const PROC: &str = "/proc/vmallocinfo";

/// This machine's CPUs (`/sys/devices/system/cpu/{possible,online}`), when readable.
fn machine_cpus(which: &str) -> Option<u32> {
    let t = std::fs::read_to_string(format!("/sys/devices/system/cpu/{which}")).ok()?;
    let list = capture::parse_cpulist(&t).ok()?;
    (!list.is_empty()).then_some(list.len() as u32)
}

fn states(path: &str, o: &Options) -> Result<Vec<State>, ReportError> {
    let p = Path::new(path);
    if p.is_dir() {
        return capture_states(p, o);
    }
    let text = read_text(path)?;
    let fmt = import::detect_format(&text);
    if fmt == ImportFormat::Vmallocinfo {
        // This machine's vmap nodes (one per possible CPU) for its own file.
        let nodes = if path == PROC { machine_cpus("possible").map(u64::from) } else { None };
        let (v, notes) = vmallocinfo_state(path, &text, o.profile.unwrap_or(Profile::newest_release()), nodes)?;
        let cpus = o.cpus.unwrap_or_else(|| default_cpus(path, &v));
        return Ok(vec![State { title: "vmallocinfo".into(), figures: frag::fragmentation(&v, cpus), notes }]);
    }
    let v = trace_state(path, &text, fmt, o.profile)?;
    let cpus = o.cpus.unwrap_or(v.online_cpus());
    Ok(vec![State {
        title: format!("end of the {}", fmt.name()),
        figures: frag::fragmentation(&v, cpus),
        notes: Vec::new(),
    }])
}

fn capture_states(dir: &Path, o: &Options) -> Result<Vec<State>, ReportError> {
    let parts = read_bundle(dir)?;
    let profile = o.profile.unwrap_or(Profile::newest_release());
    let cpus_part = part(&parts, 3).expect("checked by read_bundle");
    let (possible, online) = capture::parse_cpus(cpus_part).map_err(|e| rerr(&e.file, e.line, e.msg))?;
    let cpus = o.cpus.unwrap_or(online.len().max(1) as u32);
    let n_possible = possible.last().map_or(1, |&c| u64::from(c) + 1);
    let mut out = Vec::new();
    let (name, text) = parts[0].as_ref().expect("checked by read_bundle");
    let (v, notes) = vmallocinfo_state(name, text, profile, Some(n_possible))?;
    out.push(State { title: "before (file)".into(), figures: frag::fragmentation(&v, cpus), notes });
    let bundle = capture::Bundle {
        before: part(&parts, 0).expect("checked"),
        trace: part(&parts, 1).expect("checked"),
        after: part(&parts, 2),
        cpus: cpus_part,
        uname: part(&parts, 4),
    };
    let (ops, report) = capture::replay_capture(bundle, profile).map_err(|e| rerr(&e.file, e.line, e.msg))?;
    let mut r = Replayer::new(profile);
    let mut sink = String::new();
    for (i, op) in ops.iter().enumerate() {
        r.apply(op, &mut sink, &mut NoObserver)
            .map_err(|e| rerr(&dir.display().to_string(), 0, format!("operation {} of the replay: {e}", i + 1)))?;
        sink.clear();
    }
    out.push(State {
        title: "after (replay)".into(),
        figures: frag::fragmentation(&r.vmap, cpus),
        notes: vec![report.summary_line()],
    });
    if let Some((name, text)) = parts[2].as_ref() {
        let (v, notes) = vmallocinfo_state(name, text, profile, Some(n_possible))?;
        out.push(State { title: "after (file)".into(), figures: frag::fragmentation(&v, cpus), notes });
    }
    Ok(out)
}

/// `--report fragmentation PATH`.
pub fn fragmentation_report(path: &str, o: &Options) -> Result<String, ReportError> {
    let st = states(path, o)?;
    if o.json {
        let v = json!({
            "file": path,
            "states": st.iter().map(|s| json!({"title": s.title, "figures": s.figures, "notes": s.notes})).collect::<Vec<_>>(),
        });
        return Ok(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n");
    }
    let titles: Vec<&str> = st.iter().map(|s| s.title.as_str()).collect();
    let figs: Vec<&Fragmentation> = st.iter().map(|s| &s.figures).collect();
    let mut out = format!("fragmentation of {path} ({})\n", st[0].figures.profile);
    out.push_str(&frag::render_columns(&titles, &figs));
    for s in &st {
        for n in &s.notes {
            out.push_str(&format!("note ({}): {n}\n", s.title));
        }
    }
    Ok(out)
}

/// `--report callers PATH`: a vmallocinfo file, or a capture's before and after files.
pub fn callers_report(path: &str, o: &Options) -> Result<String, ReportError> {
    let p = Path::new(path);
    let mut tables = Vec::new();
    if p.is_dir() {
        let parts = read_bundle(p)?;
        for (i, title) in [(0, "before"), (2, "after")] {
            if let Some((name, text)) = parts[i].as_ref() {
                tables.push((format!("{title} ({name})"), callers::callers_of(text).map_err(|e| from_parse(name, e))?));
            }
        }
    } else {
        let text = read_text(path)?;
        if !text.trim().is_empty() && import::detect_format(&text) != ImportFormat::Vmallocinfo {
            let first = text.lines().position(|l| !l.trim().is_empty() && !l.trim().starts_with('#')).unwrap_or(0);
            return Err(rerr(
                path,
                first + 1,
                format!(
                    "not a /proc/vmallocinfo line (`{}`): callers come from vmallocinfo files or a capture bundle",
                    quote(text.lines().nth(first).unwrap_or("").trim())
                ),
            ));
        }
        tables.push((path.to_string(), callers::callers_of(&text).map_err(|e| from_parse(path, e))?));
    }
    if o.json {
        let v: Vec<_> = tables.iter().map(|(t, rows)| json!({"title": t, "rows": rows})).collect();
        return Ok(serde_json::to_string_pretty(&json!({ "file": path, "tables": v })).unwrap_or_default() + "\n");
    }
    let mut out = String::new();
    for (t, rows) in &tables {
        out.push_str(&format!("callers of {t}, by bytes held\n"));
        out.push_str(&callers::render(rows, o.limit()));
    }
    Ok(out)
}

/// `--diff A B`: two vmallocinfo files.
pub fn diff_report(a: &str, b: &str, o: &Options) -> Result<String, ReportError> {
    let (ta, tb) = (read_text(a)?, read_text(b)?);
    let d = vmdiff::diff_texts(&ta, &tb).map_err(|(i, e)| from_parse([a, b][i], e))?;
    let profile = o.profile.unwrap_or(Profile::newest_release());
    let (va, na) = vmallocinfo_state(a, &ta, profile, None)?;
    let (vb, nb) = vmallocinfo_state(b, &tb, profile, None)?;
    let cpus = o.cpus.unwrap_or_else(|| default_cpus(a, &va).max(default_cpus(b, &vb)));
    let (fa, fb) = (frag::fragmentation(&va, cpus), frag::fragmentation(&vb, cpus));
    let summary = vmdiff::summary(&d, &fa, &fb);
    if o.json {
        let v = json!({"a": a, "b": b, "diff": d, "a_figures": fa, "b_figures": fb, "summary": summary,
                       "a_notes": na, "b_notes": nb});
        return Ok(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n");
    }
    let mut out = format!("A = {a}\nB = {b}\n");
    out.push_str(&vmdiff::render(&d, o.limit()));
    out.push_str(&frag::render_columns(&["A", "B"], &[&fa, &fb]));
    for (t, ns) in [("A", &na), ("B", &nb)] {
        for n in ns {
            out.push_str(&format!("note ({t}): {n}\n"));
        }
    }
    out.push_str(&summary);
    out.push('\n');
    Ok(out)
}
