//! The difference of two `/proc/vmallocinfo` snapshots: areas that appeared, disappeared, or
//! became lazy (a busy line in A, an `unpurged vm_area` line of the same range in B).
//!
//! Areas are matched by range. A busy area whose caller changed at the same range is a new
//! area (the old one disappeared); a lazy area busy again at its range was purged and its
//! range handed out again (both lists). When either file hides its addresses (all zero under
//! `kptr_restrict=2`) areas are matched by caller and size instead, and no area can be seen
//! becoming lazy (an `unpurged vm_area` line names no caller). Hashed addresses (`%pK`) are
//! matched as they are: the hash of one address is the same in both files of one boot.

use std::collections::HashMap;

use serde::Serialize;
use ts_rs::TS;

use crate::addr::Addr;
use crate::callers::kind_name;
use crate::import::{parse_vmallocinfo, ImportFormat, ImportReport, InfoKind, InfoLine, KERNEL_HALF};
use crate::trace::ParseError;

/// One area of a diff, as its line reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct DiffArea {
    /// Its line in the file it is taken from (B for appeared, A otherwise).
    pub line: usize,
    pub start: Addr,
    pub end: Addr,
    pub bytes: u64,
    /// The caller as printed (`symbol+0xOFF/0xSIZE`), or the line's words when it has none.
    pub caller: String,
    pub kind: String,
}

/// How areas were matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    Address,
    CallerAndSize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct VmDiff {
    pub matched_by: MatchedBy,
    /// In B, not in A (busy or already lazy in B), address order.
    pub appeared: Vec<DiffArea>,
    /// In A, not in B (freed and purged, or lazy and purged), address order.
    pub disappeared: Vec<DiffArea>,
    /// Busy in A, lazy in B (the caller is A's).
    pub became_lazy: Vec<DiffArea>,
    /// Lines the same in both.
    pub unchanged: u64,
}

impl VmDiff {
    pub fn bytes(list: &[DiffArea]) -> u64 {
        list.iter().map(|a| a.bytes).sum()
    }
}

fn area(l: &InfoLine) -> DiffArea {
    DiffArea {
        line: l.line,
        start: Addr(l.start),
        end: Addr(l.end),
        bytes: l.size,
        caller: l.label.clone(),
        kind: kind_name(l.kind).into(),
    }
}

/// The diff of two texts (all or nothing: the first bad line of either is the error, `Err(0,
/// e)` for A, `Err(1, e)` for B).
pub fn diff_texts(a: &str, b: &str) -> Result<VmDiff, (usize, ParseError)> {
    let mut r = ImportReport::new(ImportFormat::Vmallocinfo);
    let la = parse_vmallocinfo(a, &mut r).map_err(|e| (0, e))?;
    let lb = parse_vmallocinfo(b, &mut r).map_err(|e| (1, e))?;
    Ok(diff(&la, &lb))
}

/// What the addresses of a file are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AddressKind {
    /// Kernel addresses (`kptr_restrict` 1 read by root, or 0 on old kernels).
    Real,
    /// `%pK` hashes (`kptr_restrict` 0): consistent within one boot, not addresses.
    Hashed,
    /// Zeros (`kptr_restrict` 2, or a reader without `CAP_SYSLOG`).
    Hidden,
}

pub(crate) fn address_kind(lines: &[InfoLine]) -> AddressKind {
    if lines.iter().any(|l| (l.start, l.end) == (0, 0)) {
        AddressKind::Hidden
    } else if lines.iter().any(|l| l.start < KERNEL_HALF || l.end < KERNEL_HALF || l.end <= l.start) {
        AddressKind::Hashed
    } else {
        AddressKind::Real
    }
}

/// [`AddressKind`] of a `/proc/vmallocinfo` text.
pub fn address_kind_of(text: &str) -> Result<AddressKind, ParseError> {
    let mut r = ImportReport::new(ImportFormat::Vmallocinfo);
    Ok(address_kind(&parse_vmallocinfo(text, &mut r)?))
}

pub(crate) fn diff(a: &[InfoLine], b: &[InfoLine]) -> VmDiff {
    let (ka, kb) = (address_kind(a), address_kind(b));
    // Hashes of one boot match each other, not addresses.
    let hidden = ka == AddressKind::Hidden || kb == AddressKind::Hidden || (ka != kb && !a.is_empty() && !b.is_empty());
    let matched_by = if hidden { MatchedBy::CallerAndSize } else { MatchedBy::Address };
    let key = |l: &InfoLine| -> (u64, u64, String) {
        if hidden {
            (0, l.size, l.label.clone())
        } else {
            (l.start, l.end, String::new())
        }
    };
    let mut in_b: HashMap<(u64, u64, String), Vec<usize>> = HashMap::new();
    for (i, l) in b.iter().enumerate().rev() {
        in_b.entry(key(l)).or_default().push(i);
    }
    let mut d =
        VmDiff { matched_by, appeared: Vec::new(), disappeared: Vec::new(), became_lazy: Vec::new(), unchanged: 0 };
    let mut paired = vec![false; b.len()];
    for x in a {
        let Some(j) = in_b.get_mut(&key(x)).and_then(|v| v.pop()) else {
            d.disappeared.push(area(x));
            continue;
        };
        paired[j] = true;
        let y = &b[j];
        let (xl, yl) = (x.kind == InfoKind::Unpurged, y.kind == InfoKind::Unpurged);
        match (xl, yl) {
            (false, true) => d.became_lazy.push(area(x)),
            (true, true) => d.unchanged += 1,
            (false, false) if x.label == y.label => d.unchanged += 1,
            _ => {
                d.disappeared.push(area(x));
                d.appeared.push(area(y));
            }
        }
    }
    d.appeared.extend(b.iter().zip(&paired).filter(|(_, p)| !**p).map(|(l, _)| area(l)));
    for list in [&mut d.appeared, &mut d.disappeared, &mut d.became_lazy] {
        list.sort_by_key(|x| (x.start, x.line));
    }
    d
}

fn render_list(out: &mut String, title: &str, list: &[DiffArea], limit: Option<usize>) {
    out.push_str(&format!(
        "{title}: {} areas, {} bytes ({})\n",
        list.len(),
        VmDiff::bytes(list),
        crate::frag::human(VmDiff::bytes(list))
    ));
    let shown = limit.map_or(list.len(), |n| n.min(list.len()));
    for x in &list[..shown] {
        out.push_str(&format!(
            "  {:#018x}-{:#018x} {:>10}  {:<8} {}\n",
            x.start.0,
            x.end.0,
            x.bytes,
            x.kind,
            crate::trace::quote(&x.caller)
        ));
    }
    if shown < list.len() {
        out.push_str(&format!("  … and {} more (--full lists them all)\n", list.len() - shown));
    }
}

/// The three lists as text, each cut to `limit` areas.
pub fn render(d: &VmDiff, limit: Option<usize>) -> String {
    let mut out = String::new();
    if d.matched_by == MatchedBy::CallerAndSize {
        out.push_str(
            "addresses hidden (zero), or hashed in one file only: areas matched by caller and size; none can be \
             seen becoming lazy\n",
        );
    }
    render_list(&mut out, "appeared", &d.appeared, limit);
    render_list(&mut out, "disappeared", &d.disappeared, limit);
    render_list(&mut out, "became lazy", &d.became_lazy, limit);
    out
}

/// One line: the counts and bytes of each list, and the vmalloc window's free space, free
/// blocks, largest hole (below the top) and lazy pages on both sides.
pub fn summary(d: &VmDiff, a: &crate::frag::Fragmentation, b: &crate::frag::Fragmentation) -> String {
    let h = crate::frag::human;
    let win = |f: &crate::frag::Fragmentation| {
        f.windows
            .first()
            .map(|w| (w.free_bytes, w.largest_hole.map_or(0, |l| l.bytes), w.free_blocks))
            .unwrap_or_default()
    };
    let (fa, la, ba) = win(a);
    let (fb, lb, bb) = win(b);
    format!(
        "diff: {} appeared (+{}), {} disappeared (-{}), {} became lazy ({}), {} unchanged; vmalloc free {} -> {}, \
         {} -> {} blocks, largest hole {} -> {}; lazy pages {} -> {}",
        d.appeared.len(),
        h(VmDiff::bytes(&d.appeared)),
        d.disappeared.len(),
        h(VmDiff::bytes(&d.disappeared)),
        d.became_lazy.len(),
        h(VmDiff::bytes(&d.became_lazy)),
        d.unchanged,
        h(fa),
        h(fb),
        ba,
        bb,
        h(la),
        h(lb),
        a.lazy.pages,
        b.lazy.pages
    )
}
