//! The callers holding the most space in a `/proc/vmallocinfo`: each line's caller (`%pS`:
//! `symbol+0xOFF/0xSIZE [module]`) with the offset dropped, lines of one symbol grouped.

use serde::Serialize;
use ts_rs::TS;

use crate::import::{is_attribute, parse_vmallocinfo, ImportFormat, ImportReport, InfoKind, InfoLine};
use crate::trace::ParseError;

/// One caller's share.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct CallerRow {
    /// `symbol` or `symbol [module]`; a bare address when unsymbolised; `(unpurged vm_area)`,
    /// `(vm_map_ram)` or `(no caller)` for lines without one.
    pub caller: String,
    pub areas: u64,
    /// The size column summed (guard pages included, as `s_show` prints it).
    pub bytes: u64,
    /// `bytes` over the bytes of every line, in percent.
    pub share: f64,
    /// The kinds of its lines: `vmalloc`, `vmap`, `ioremap`, `vm_map_ram`, `unpurged`, `other`.
    pub kinds: Vec<String>,
}

pub(crate) fn kind_name(k: InfoKind) -> &'static str {
    match k {
        InfoKind::Vmalloc => "vmalloc",
        InfoKind::Ioremap => "ioremap",
        InfoKind::Vmap => "vmap",
        InfoKind::VmMapRam => "vm_map_ram",
        InfoKind::Unpurged => "unpurged",
        InfoKind::Other => "other",
    }
}

/// The caller symbol of a line's label: the offset dropped, the module kept.
pub(crate) fn caller_symbol(label: &str, kind: InfoKind) -> String {
    match kind {
        InfoKind::Unpurged => return "(unpurged vm_area)".into(),
        InfoKind::VmMapRam => return "(vm_map_ram)".into(),
        _ => {}
    }
    let mut toks = label.split_whitespace();
    let Some(first) = toks.next() else { return "(no caller)".into() };
    if is_attribute(first) {
        return "(no caller)".into();
    }
    let sym = first.split_once('+').map_or(first, |(s, _)| s);
    match toks.next() {
        Some(m) if m.starts_with('[') && m.ends_with(']') => format!("{sym} {m}"),
        _ => sym.to_string(),
    }
}

/// The table of a `/proc/vmallocinfo` text (all or nothing: the first bad line is the error).
pub fn callers_of(text: &str) -> Result<Vec<CallerRow>, ParseError> {
    let mut report = ImportReport::new(ImportFormat::Vmallocinfo);
    Ok(callers(&parse_vmallocinfo(text, &mut report)?))
}

/// The table, most bytes first (ties: by name).
pub(crate) fn callers(lines: &[InfoLine]) -> Vec<CallerRow> {
    let total: u64 = lines.iter().map(|l| l.size).sum();
    let mut rows: Vec<CallerRow> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for l in lines {
        let c = caller_symbol(&l.label, l.kind);
        let i = *at.entry(c.clone()).or_insert_with(|| {
            rows.push(CallerRow { caller: c, areas: 0, bytes: 0, share: 0.0, kinds: Vec::new() });
            rows.len() - 1
        });
        let r = &mut rows[i];
        r.areas += 1;
        r.bytes += l.size;
        let k = kind_name(l.kind);
        if !r.kinds.iter().any(|x| x == k) {
            r.kinds.push(k.to_string());
        }
    }
    for r in &mut rows {
        r.share = if total > 0 { 100.0 * r.bytes as f64 / total as f64 } else { 0.0 };
        r.kinds.sort();
    }
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.caller.cmp(&b.caller)));
    rows
}

/// The table as aligned text; `limit` rows at most (the rest summed in one line).
pub fn render(rows: &[CallerRow], limit: Option<usize>) -> String {
    let shown = limit.map_or(rows.len(), |n| n.min(rows.len()));
    let cw = rows[..shown].iter().map(|r| r.caller.chars().count()).max().unwrap_or(0).max(6);
    let mut out = format!("{:cw$}  {:>6}  {:>14}  {:>10}  {:>6}  kinds\n", "caller", "areas", "bytes", "", "share");
    for r in &rows[..shown] {
        out.push_str(&format!(
            "{:cw$}  {:>6}  {:>14}  {:>10}  {:>5.1}%  {}\n",
            r.caller,
            r.areas,
            r.bytes,
            crate::frag::human(r.bytes),
            r.share,
            r.kinds.join(",")
        ));
    }
    if shown < rows.len() {
        let rest = &rows[shown..];
        let (n, b): (u64, u64) = rest.iter().fold((0, 0), |(n, b), r| (n + r.areas, b + r.bytes));
        out.push_str(&format!(
            "… and {} more callers: {n} areas, {b} bytes ({}); --full lists them all\n",
            rest.len(),
            crate::frag::human(b)
        ));
    }
    let (n, b): (u64, u64) = rows.iter().fold((0, 0), |(n, b), r| (n + r.areas, b + r.bytes));
    out.push_str(&format!("total: {} callers, {n} areas, {b} bytes ({})\n", rows.len(), crate::frag::human(b)));
    out
}

/// One line of a `/proc/vmallocinfo` with its caller and flags apart, for a view that shows
/// them on the areas it draws.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct CallerArea {
    pub start: crate::addr::Addr,
    pub end: crate::addr::Addr,
    /// The size column (guard page included).
    pub bytes: u64,
    /// The caller as printed (`symbol+0xOFF/0xSIZE [module]`), or [`caller_symbol`]'s
    /// placeholder for a line without one (`(unpurged vm_area)`, `(vm_map_ram)`, `(no caller)`).
    pub caller: String,
    /// The words after the caller: `pages=N`, `phys=`, the type flags, `N<node>=<pages>`.
    pub flags: String,
    /// `vmalloc`, `vmap`, `ioremap`, `vm_map_ram`, `unpurged` or `other`.
    pub kind: String,
}

/// Every line of a `/proc/vmallocinfo` text with its caller and flags (all or nothing: the first
/// bad line is the error).
pub fn areas_of(text: &str) -> Result<Vec<CallerArea>, ParseError> {
    let mut report = ImportReport::new(ImportFormat::Vmallocinfo);
    let lines = parse_vmallocinfo(text, &mut report)?;
    let raw: Vec<&str> = text.lines().collect();
    Ok(lines.iter().map(|l| caller_area(l, raw.get(l.line.wrapping_sub(1)).copied().unwrap_or(""))).collect())
}

/// A line's area: the caller is the parsed label when the line has one; the flags are the
/// words of the raw line after the range, the size and that label.
fn caller_area(l: &InfoLine, raw: &str) -> CallerArea {
    let words: Vec<&str> = raw.split_whitespace().skip(2).collect();
    let label: Vec<&str> = l.label.split_whitespace().collect();
    let has_caller = !matches!(l.kind, InfoKind::Unpurged | InfoKind::VmMapRam)
        && words.first().is_some_and(|w| !is_attribute(w))
        && words.starts_with(&label);
    let (caller, flags) = if has_caller {
        (l.label.clone(), words[label.len()..].join(" "))
    } else {
        (caller_symbol(&l.label, l.kind), words.join(" "))
    };
    CallerArea {
        start: crate::addr::Addr(l.start),
        end: crate::addr::Addr(l.end),
        bytes: l.size,
        caller,
        flags,
        kind: kind_name(l.kind).to_string(),
    }
}
