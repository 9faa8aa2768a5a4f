//! A capture bundle's parts: read, checked, parsed (all or nothing).

use crate::import::{self, parse_event, split_ftrace, FtraceEvent, ImportReport, KERNEL_HALF};
use crate::profile::Profile;
use crate::trace::quote;

/// The file names of a bundle (each may also be gzipped, with `.gz` added).
pub const PARTS: [&str; 5] = ["vmallocinfo.before", "trace.txt", "vmallocinfo.after", "cpus.txt", "uname.txt"];

/// One part of a bundle: its name (for messages) and its text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Part<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// A bundle's parts; the "after" file and `uname.txt` may be missing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bundle<'a> {
    pub before: Part<'a>,
    pub trace: Part<'a>,
    pub after: Option<Part<'a>>,
    pub cpus: Part<'a>,
    pub uname: Option<Part<'a>>,
}

/// A part that is missing or damaged: the file, the line (0: the whole file), what is wrong.
pub type CaptureError = crate::error::FileError;

pub(super) fn cerr(file: &str, line: usize, msg: impl Into<String>) -> CaptureError {
    CaptureError { file: file.to_string(), line, msg: msg.into() }
}

/// The bytes of a part: gunzipped when they start with the gzip magic, else as they are; then
/// UTF-8 text. Errors name the file (and the line of a byte that is not UTF-8).
pub fn part_text(name: &str, bytes: &[u8]) -> Result<String, CaptureError> {
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut out = Vec::new();
        let mut d = flate2::read::MultiGzDecoder::new(bytes).take(import_limit() as u64 + 1);
        d.read_to_end(&mut out).map_err(|e| cerr(name, 0, format!("damaged gzip data: {e}")))?;
        if out.len() > import_limit() {
            return Err(cerr(name, 0, format!("more than {} MiB once unzipped", import_limit() >> 20)));
        }
        out
    } else {
        bytes.to_vec()
    };
    if raw.is_empty() {
        return Err(cerr(name, 0, "empty file"));
    }
    String::from_utf8(raw).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        cerr(name, line, format!("binary data: byte {at} is not UTF-8 text"))
    })
}

pub(super) fn import_limit() -> usize {
    crate::trace::MAX_TRACE_BYTES
}

/// `0-3,5,7-8` (a kernel cpulist) as the CPU numbers it names.
pub fn parse_cpulist(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.trim().split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let num = |t: &str| -> Result<u32, String> {
            if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) || t.len() > 6 {
                return Err(format!("`{}` is not a CPU list such as 0-3,5", quote(s.trim())));
            }
            t.parse::<u32>().map_err(|_| format!("`{}` is not a CPU number", quote(t)))
        };
        let (a, b) = (num(a)?, num(b)?);
        if b < a || b >= crate::era::MAX_CPUS as u32 {
            return Err(format!("`{}`: bad range {a}-{b}", quote(part)));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `cpus.txt`: the possible CPUs on its first line, the online ones on its second (each a
/// cpulist, as `/sys/devices/system/cpu/{possible,online}` print them; a `possible:` or
/// `online:` label before each is allowed).
pub fn parse_cpus(p: Part<'_>) -> Result<(Vec<u32>, Vec<u32>), CaptureError> {
    let lines: Vec<(usize, &str)> = p
        .text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if lines.len() != 2 {
        return Err(cerr(
            p.name,
            lines.get(2).map_or(0, |l| l.0),
            format!("expected two lines, the possible CPUs then the online ones (such as 0-3), found {}", lines.len()),
        ));
    }
    let mut lists = Vec::new();
    for (k, (line, l)) in lines.into_iter().enumerate() {
        let label = ["possible:", "online:"][k];
        let body = l.strip_prefix(label).unwrap_or(l);
        lists.push(parse_cpulist(body).map_err(|m| cerr(p.name, line, m))?);
    }
    let online = lists.pop().unwrap_or_default();
    let possible = lists.pop().unwrap_or_default();
    if let Some(c) = online.iter().find(|c| !possible.contains(c)) {
        return Err(cerr(p.name, 2, format!("CPU {c} is online but not possible")));
    }
    Ok((possible, online))
}

/// One event of the trace, by line.
#[derive(Clone, Debug)]
pub(super) struct Ev {
    pub(super) line: usize,
    pub(super) cpu: u32,
    /// The task that traced it.
    pub(super) pid: u64,
    pub(super) ev: FtraceEvent,
    /// Traced before the before file was read to its end (the trace has the marker
    /// [`BEFORE_READ`]): the file may already show what it did.
    pub(super) in_read: bool,
}

/// What `scripts/capture.sh` writes into `trace_marker` once the before file is read: the
/// events are on while it is read, and those traced before this marker may or may not be in it.
pub const BEFORE_READ: &str = "vmapviz: vmallocinfo.before read";

/// What `scripts/capture.sh` writes into `trace_marker` once `drop_caches` drained the pools
/// (the vmap node shrinker's full decay, `vmap_node_shrink_scan`): from there on no pool holds
/// an entry from before the capture.
pub const POOLS_DRAINED: &str = "vmapviz: pools drained";

/// The markers among a trace's lines.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Markers {
    /// [`BEFORE_READ`] was among them.
    pub(super) before_read: bool,
    /// The line of [`POOLS_DRAINED`], if it was among them.
    pub(super) drained: Option<usize>,
}

/// Notes on the trace's lines (lost events), by line.
pub(super) type Notes = Vec<(usize, String)>;

pub(super) fn parse_trace_part(p: Part<'_>) -> Result<(Vec<Ev>, Notes, Markers), CaptureError> {
    let mut evs: Vec<Ev> = Vec::new();
    let mut notes = Vec::new();
    let markers = parse_trace_lines(p, 0, &mut evs, &mut notes)?;
    if evs.is_empty() {
        return Err(cerr(p.name, 0, "no vmalloc event (enable events/vmalloc before the workload)"));
    }
    Ok((evs, notes, markers))
}

/// The events and notes of `p`'s lines, numbered from `first + 1` (a trace read in pieces),
/// added to `evs` and `notes`; the markers among them (the before file's, [`BEFORE_READ`],
/// marks every event before it, `evs`' earlier ones too).
pub(super) fn parse_trace_lines(
    p: Part<'_>,
    first: usize,
    evs: &mut Vec<Ev>,
    notes: &mut Notes,
) -> Result<Markers, CaptureError> {
    let mut markers = Markers::default();
    for (i, raw) in p.text.lines().enumerate() {
        let line = first + i + 1;
        let t = raw.trim();
        if let Some(h) = t.strip_prefix("# entries-in-buffer/entries-written:") {
            // "N/M   #P:K": more written than in the buffer means the ring buffer overwrote events.
            let nums: Vec<&str> = h.split_whitespace().next().unwrap_or("").split('/').collect();
            if let [a, b] = nums[..] {
                if a != b {
                    notes.push((
                        line,
                        format!("{a} events in the buffer but {b} written: the ring buffer lost the oldest ones"),
                    ));
                }
            }
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with("CPU:") && t.contains("[LOST") {
            notes.push((line, format!("the ring buffer lost events here ({}): the replay may diverge", quote(t))));
            continue;
        }
        let l = split_ftrace(raw).ok_or_else(|| {
            cerr(p.name, line, "not an ftrace line: expected `TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS`")
        })?;
        if l.event == "tracing_mark_write" {
            match l.rest.trim() {
                BEFORE_READ => {
                    markers.before_read = true;
                    for e in evs.iter_mut() {
                        e.in_read = true;
                    }
                }
                POOLS_DRAINED => markers.drained = markers.drained.or(Some(line)),
                _ => {}
            }
            continue;
        }
        if import::is_other_shrinker(&l) {
            continue;
        }
        let ev = parse_event(&l).map_err(|m| cerr(p.name, line, m))?;
        evs.push(Ev { line, cpu: l.cpu, pid: l.pid, ev, in_read: false });
    }
    Ok(markers)
}

/// A `vmallocinfo` with real addresses: its areas in file order.
pub(super) fn parse_info(p: Part<'_>) -> Result<Vec<import::InfoLine>, CaptureError> {
    let mut rep = ImportReport::new(import::ImportFormat::Vmallocinfo);
    let areas = import::parse_vmallocinfo(p.text, &mut rep).map_err(|e| cerr(p.name, e.line, e.msg))?;
    if areas.is_empty() {
        return Err(cerr(p.name, 0, "no area: this is not /proc/vmallocinfo"));
    }
    for a in &areas {
        if a.start < KERNEL_HALF || a.end <= a.start {
            return Err(cerr(
                p.name,
                a.line,
                "the addresses are hidden or hashed (kptr_restrict): read it as root with kptr_restrict=1 \
                 (scripts/capture.sh does)",
            ));
        }
        if a.end - a.start != a.size {
            return Err(cerr(
                p.name,
                a.line,
                format!("the range spans {} bytes but the size column says {}", a.end - a.start, a.size),
            ));
        }
    }
    Ok(areas)
}

/// Parsed parts, ready to replay.
#[derive(Clone, Default)]
pub(super) struct Parsed<'a> {
    pub(super) bundle: Bundle<'a>,
    pub(super) before: Vec<import::InfoLine>,
    pub(super) after: Option<Vec<import::InfoLine>>,
    pub(super) events: Vec<Ev>,
    pub(super) trace_notes: Vec<(usize, String)>,
    pub(super) possible: Vec<u32>,
    pub(super) online: Vec<u32>,
    /// The sizes of the per-CPU allocator's chunk areas the two files show (caller
    /// `pcpu_get_vm_areas`), largest first: [`Parsed::set_pcpu_sizes`].
    pub(super) pcpu_sizes: Vec<u64>,
    /// The trace line of the marker [`POOLS_DRAINED`], where the capture drained the pools.
    pub(super) drained: Option<usize>,
}

impl Parsed<'_> {
    /// Every chunk of the per-CPU allocator has the same areas, so their sizes are read once
    /// from the lines of either file whose caller is `pcpu_get_vm_areas` (busy or vmap areas,
    /// not the lazy ones, which print no caller).
    pub(super) fn set_pcpu_sizes(&mut self) {
        let shown = self.before.iter().chain(self.after.iter().flatten());
        let mut sizes: Vec<u64> = shown
            .filter(|a| a.kind != import::InfoKind::Unpurged && a.label.starts_with("pcpu_get_vm_areas+"))
            .map(|a| a.end - a.start)
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();
        self.pcpu_sizes = sizes;
    }
}

/// Parse every part (all or nothing: the first damaged part is the error).
pub(super) fn parse_bundle<'a>(b: Bundle<'a>) -> Result<Parsed<'a>, CaptureError> {
    let (possible, online) = parse_cpus(b.cpus)?;
    let before = parse_info(b.before)?;
    let after = b.after.map(parse_info).transpose()?;
    let (events, trace_notes, markers) = parse_trace_part(b.trace)?;
    let max_cpu = possible.last().copied().unwrap_or(0);
    if let Some(e) = events.iter().find(|e| e.cpu > max_cpu || !online.contains(&e.cpu)) {
        return Err(cerr(
            b.trace.name,
            e.line,
            format!("CPU {} is not online in {} (online: {:?})", e.cpu, b.cpus.name, online),
        ));
    }
    let drained = markers.drained;
    let mut p =
        Parsed { bundle: b, before, after, events, trace_notes, possible, online, pcpu_sizes: Vec::new(), drained };
    p.set_pcpu_sizes();
    Ok(p)
}

/// The first kernel with the `vmalloc` trace events (`alloc_vmap_area`, `purge_vmap_area_lazy`,
/// `free_vmap_area_noflush`).
pub(super) const FIRST_TRACED: (u32, u32) = (6, 3);

/// `uname -r`'s version (`6.18.44-fc` -> (6, 18)), if it starts with one.
pub(super) fn kernel_version(release: &str) -> Option<(u32, u32)> {
    let mut it = release.trim().split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// The profile whose era a traced kernel belongs to (6.3 and later).
pub(super) fn era_of((major, minor): (u32, u32)) -> Profile {
    Profile::of_release((major, minor))
}

/// `uname.txt` against the replay: a kernel without the `vmalloc` events cannot have made the
/// trace, and one of another era than `profile` is replayed by another profile.
pub(super) fn check_uname(u: &Part<'_>, profile: Profile) -> Result<(), CaptureError> {
    let release = u.text.lines().next().unwrap_or("").trim();
    let Some(v) = kernel_version(release) else {
        return Err(cerr(u.name, 1, format!("`{}` is not a kernel release (`uname -r`)", quote(release))));
    };
    if v < FIRST_TRACED {
        return Err(cerr(
            u.name,
            1,
            format!(
                "kernel {}.{} has no vmalloc trace events (they came in {}.{}): this bundle's trace cannot be its",
                v.0, v.1, FIRST_TRACED.0, FIRST_TRACED.1
            ),
        ));
    }
    let era = era_of(v);
    if era != profile {
        return Err(cerr(
            u.name,
            1,
            format!("kernel {}.{} is of the era of {era}, not {profile}: replay it with --profile {era}", v.0, v.1),
        ));
    }
    Ok(())
}
