//! Fragmentation figures of a model state: for each address window seen (vmalloc; modules
//! when areas lie there), the free space the free tree holds there, as the largest free block,
//! the number of free blocks and a histogram by power-of-two pages; the lazily freed pages
//! against `lazy_max_pages()`; each vmap node's pools (6.9+). A pure function of the state.
//!
//! Free space is what the allocator can hand out: free tree blocks (maple-rfc: the NULL
//! ranges of the occupied tree; linux-5.1: the gaps between busy areas), clipped to the window.
//! Lazy and pooled areas are not free (a purge or a pool hit must come first).

use serde::Serialize;
use ts_rs::TS;

use crate::addr::Addr;
use crate::era::Vmap;
use crate::profile::Profile;
use crate::vmalloc::{fls, PAGE_SHIFT, PAGE_SIZE, VMALLOC_END, VMALLOC_START};

/// x86-64 `MODULES_VADDR`: `__START_KERNEL_map` + `KERNEL_IMAGE_SIZE` (1 GiB, KASLR builds).
pub const MODULES_VADDR: u64 = 0xffff_ffff_c000_0000;
/// x86-64 `MODULES_END`.
pub const MODULES_END: u64 = 0xffff_ffff_ff00_0000;

/// Online CPUs assumed when the input does not say (a `/proc/vmallocinfo` file).
pub const DEFAULT_ONLINE_CPUS: u32 = 1;

/// `lazy_max_pages()` of mm/vmalloc.c (6.18): `fls(num_online_cpus())` times 32 MiB in pages.
pub fn lazy_max_pages(online_cpus: u32) -> u64 {
    u64::from(fls(u64::from(online_cpus))) * ((32 << 20) >> PAGE_SHIFT)
}

/// An address window: `[start, end)`, as `alloc_vmap_area`'s `vstart`, `vend` take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub name: &'static str,
    pub start: u64,
    pub end: u64,
}

/// `VMALLOC_START`, `VMALLOC_END` (x86-64, 4-level paging).
pub const VMALLOC: Window = Window { name: "vmalloc", start: VMALLOC_START, end: VMALLOC_END };
/// `MODULES_VADDR`, `MODULES_END` (x86-64).
pub const MODULES: Window = Window { name: "modules", start: MODULES_VADDR, end: MODULES_END };

/// One free block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub struct FreeBlock {
    pub start: Addr,
    pub bytes: u64,
}

/// Free blocks of `min_pages <= pages < max_pages` (whole pages; the first class, 0 to 1, is a
/// block shorter than a page, as the window's top end can leave).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub struct SizeClass {
    pub min_pages: u64,
    pub max_pages: u64,
    pub blocks: u64,
    pub bytes: u64,
}

/// The figures of one window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct WindowFigures {
    pub name: String,
    pub start: Addr,
    pub end: Addr,
    /// Busy areas (lazy ones not counted) starting in the window, and their bytes.
    pub busy_areas: u64,
    pub busy_bytes: u64,
    /// Lazily freed areas waiting for the purge.
    pub lazy_areas: u64,
    pub lazy_bytes: u64,
    /// Areas in the vmap nodes' pools (6.9+).
    pub pooled_areas: u64,
    pub pooled_bytes: u64,
    /// Free space in the window: the sum of every block (clipped to the window).
    pub free_bytes: u64,
    pub free_blocks: u64,
    /// The largest free block (the lowest of equal ones); `None` when nothing is free.
    pub largest_free: Option<FreeBlock>,
    /// The largest free block below the largest one: the holes among the areas packed low by
    /// the lowest-fit search (the largest block is most of a nearly empty window and hides them).
    pub largest_hole: Option<FreeBlock>,
    /// Free blocks by size class, classes with at least one block only, smallest first.
    pub histogram: Vec<SizeClass>,
}

/// Lazily freed pages against the purge threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub struct LazyFigures {
    /// `vmap_lazy_nr`: pages freed lazily and not yet purged.
    pub pages: u64,
    /// Lazily freed areas.
    pub areas: u64,
    /// The online CPU count `lazy_max_pages` was computed with.
    pub online_cpus: u32,
    pub lazy_max_pages: u64,
}

/// One size of a node's pools: areas of exactly `pages` pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub struct PoolSize {
    pub pages: u64,
    pub areas: u64,
}

/// One vmap node's pools (6.9+).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct NodePools {
    pub node: u32,
    pub areas: u64,
    pub bytes: u64,
    /// Non-empty pools, smallest size first.
    pub sizes: Vec<PoolSize>,
}

/// The fragmentation figures of a state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct Fragmentation {
    pub profile: Profile,
    pub windows: Vec<WindowFigures>,
    pub lazy: LazyFigures,
    /// One entry per vmap node in eras that have them (6.9+), else empty.
    pub nodes: Vec<NodePools>,
}

/// The free blocks of a state, `[start, end)` in address order.
pub fn free_ranges(v: &Vmap) -> Vec<(u64, u64)> {
    if let Some(r) = v.rfc() {
        return r
            .occupied
            .ranges()
            .into_iter()
            .filter(|x| x.2.is_none())
            .map(|(a, b, _)| (a, b.saturating_add(1)))
            .collect();
    }
    if !v.profile().has_free_tree() {
        // No free tree: the gaps between busy areas in the space.
        let (lo, hi) = v.space();
        let mut out = Vec::new();
        let mut at = lo;
        for (a, _, _) in v.busy_areas_all() {
            if a.va_start.0 > at {
                out.push((at, a.va_start.0));
            }
            at = at.max(a.va_end.0);
        }
        if hi > at {
            out.push((at, hi));
        }
        return out;
    }
    v.free_tree().iter(v.arena()).map(|(_, a)| (a.va_start, a.va_end)).collect()
}

/// The size class of a block of `pages` pages: `[0, 1)` or `[2^k, 2^(k+1))`.
pub fn size_class(pages: u64) -> (u64, u64) {
    if pages == 0 {
        (0, 1)
    } else {
        let k = 63 - pages.leading_zeros();
        (1 << k, 1u64.checked_shl(k + 1).unwrap_or(u64::MAX))
    }
}

/// Areas `[start, end)` of one kind, for the per-window counts.
fn count_in(w: Window, areas: &[(u64, u64)]) -> (u64, u64) {
    areas.iter().filter(|a| a.0 >= w.start && a.0 < w.end).fold((0, 0), |(n, b), a| (n + 1, b + (a.1 - a.0)))
}

/// The figures of one window over the free blocks and the areas of the state.
pub fn window_figures(
    w: Window,
    free: &[(u64, u64)],
    busy: &[(u64, u64)],
    lazy: &[(u64, u64)],
    pooled: &[(u64, u64)],
) -> WindowFigures {
    let mut hist: Vec<SizeClass> = Vec::new();
    let mut largest: Option<FreeBlock> = None;
    let mut kept: Vec<FreeBlock> = Vec::new();
    let (mut free_bytes, mut blocks) = (0u64, 0u64);
    for &(s, e) in free {
        let (s, e) = (s.max(w.start), e.min(w.end));
        if s >= e {
            continue;
        }
        let bytes = e - s;
        free_bytes += bytes;
        blocks += 1;
        if largest.is_none_or(|l| bytes > l.bytes) {
            largest = Some(FreeBlock { start: Addr(s), bytes });
        }
        kept.push(FreeBlock { start: Addr(s), bytes });
        let (min_pages, max_pages) = size_class(bytes / PAGE_SIZE);
        match hist.iter_mut().find(|c| c.min_pages == min_pages) {
            Some(c) => {
                c.blocks += 1;
                c.bytes += bytes;
            }
            None => hist.push(SizeClass { min_pages, max_pages, blocks: 1, bytes }),
        }
    }
    hist.sort_by_key(|c| c.min_pages);
    let below = largest.map_or(0, |l| l.start.0);
    let mut hole: Option<FreeBlock> = None;
    for b in kept.iter().filter(|b| b.start.0 < below) {
        if hole.is_none_or(|h| b.bytes > h.bytes) {
            hole = Some(*b);
        }
    }
    let (busy_areas, busy_bytes) = count_in(w, busy);
    let (lazy_areas, lazy_bytes) = count_in(w, lazy);
    let (pooled_areas, pooled_bytes) = count_in(w, pooled);
    WindowFigures {
        name: w.name.to_string(),
        start: Addr(w.start),
        end: Addr(w.end),
        busy_areas,
        busy_bytes,
        lazy_areas,
        lazy_bytes,
        pooled_areas,
        pooled_bytes,
        free_bytes,
        free_blocks: blocks,
        largest_free: largest,
        largest_hole: hole,
        histogram: hist,
    }
}

/// The fragmentation figures of `v`, `lazy_max_pages` computed for `online_cpus` CPUs. The
/// vmalloc window always; the modules window when an area (busy, lazy or pooled) starts there.
pub fn fragmentation(v: &Vmap, online_cpus: u32) -> Fragmentation {
    let free = free_ranges(v);
    let all = v.busy_areas_all();
    let busy: Vec<(u64, u64)> = all.iter().filter(|b| !b.1).map(|b| (b.0.va_start.0, b.0.va_end.0)).collect();
    let mut lazy: Vec<(u64, u64)> = all.iter().filter(|b| b.1).map(|b| (b.0.va_start.0, b.0.va_end.0)).collect();
    lazy.extend(v.lazy_areas().into_iter().map(|a| (a.va_start.0, a.va_end.0)));
    let pools = v.pools();
    let pooled: Vec<(u64, u64)> = pools.iter().flat_map(|p| p.2.iter().map(|a| (a.va_start.0, a.va_end.0))).collect();
    let mut windows = vec![window_figures(VMALLOC, &free, &busy, &lazy, &pooled)];
    let in_modules = |a: &(u64, u64)| a.0 >= MODULES.start && a.0 < MODULES.end;
    if busy.iter().chain(&lazy).chain(&pooled).any(in_modules) {
        windows.push(window_figures(MODULES, &free, &busy, &lazy, &pooled));
    }
    let mut nodes = Vec::new();
    if v.profile().has_vmap_nodes() {
        for n in 0..v.nr_vmap_nodes() {
            let mut np = NodePools { node: n, areas: 0, bytes: 0, sizes: Vec::new() };
            for (_, idx, entries) in pools.iter().filter(|p| p.0 == n) {
                let pages = u64::from(*idx) + 1;
                np.areas += entries.len() as u64;
                np.bytes += entries.iter().map(|a| a.va_end.0 - a.va_start.0).sum::<u64>();
                np.sizes.push(PoolSize { pages, areas: entries.len() as u64 });
            }
            np.sizes.sort_by_key(|s| s.pages);
            nodes.push(np);
        }
    }
    Fragmentation {
        profile: v.profile(),
        windows,
        lazy: LazyFigures {
            pages: v.lazy_pages(),
            areas: lazy.len() as u64,
            online_cpus,
            lazy_max_pages: lazy_max_pages(online_cpus),
        },
        nodes,
    }
}

/// A byte count in the largest binary unit that keeps it whole to a tenth (`20.0 KiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A size class's label: `<1`, `1`, `2-3`, `4-7`, ... pages.
pub fn class_label(c: &SizeClass) -> String {
    match (c.min_pages, c.max_pages) {
        (0, 1) => "<1".into(),
        (a, b) if b == a + 1 => a.to_string(),
        (a, b) => format!("{a}-{}", b - 1),
    }
}

/// A row's place: (section, window or node, row kind, size class); rows of several states
/// merge in this order.
type RowKey = (u8, u64, u8, u64);

/// Rows `(place, label, value)` of one state.
pub fn figure_rows(f: &Fragmentation) -> Vec<(RowKey, String, String)> {
    let mut rows = Vec::new();
    for w in &f.windows {
        let n = &w.name;
        let k = |kind: u8, c: u64| (0u8, w.start.0, kind, c);
        rows.push((
            k(0, 0),
            format!("{n}: window"),
            format!("{:#x}-{:#x} ({})", w.start.0, w.end.0, human(w.end.0 - w.start.0)),
        ));
        rows.push((k(1, 0), format!("{n}: busy"), format!("{} areas, {}", w.busy_areas, human(w.busy_bytes))));
        rows.push((k(2, 0), format!("{n}: lazy"), format!("{} areas, {}", w.lazy_areas, human(w.lazy_bytes))));
        if !f.nodes.is_empty() {
            rows.push((
                k(3, 0),
                format!("{n}: pooled"),
                format!("{} areas, {}", w.pooled_areas, human(w.pooled_bytes)),
            ));
        }
        rows.push((k(4, 0), format!("{n}: free"), format!("{} in {} blocks", human(w.free_bytes), w.free_blocks)));
        rows.push((
            k(5, 0),
            format!("{n}: largest free block"),
            match w.largest_free {
                Some(b) => format!("{} at {:#x}", human(b.bytes), b.start.0),
                None => "none".into(),
            },
        ));
        rows.push((
            k(5, 1),
            format!("{n}: largest hole below it"),
            match w.largest_hole {
                Some(b) => format!("{} at {:#x}", human(b.bytes), b.start.0),
                None => "none".into(),
            },
        ));
        for c in &w.histogram {
            rows.push((
                k(6, c.min_pages),
                format!("{n}: free, {} pages", class_label(c)),
                format!("{} blocks, {}", c.blocks, human(c.bytes)),
            ));
        }
    }
    let l = &f.lazy;
    rows.push((
        (1, 0, 0, 0),
        "lazy pages (vmap_lazy_nr)".into(),
        format!(
            "{} of lazy_max_pages {} ({} online CPUs), {} areas",
            l.pages, l.lazy_max_pages, l.online_cpus, l.areas
        ),
    ));
    for n in &f.nodes {
        let sizes: Vec<String> = n.sizes.iter().map(|s| format!("{}p×{}", s.pages, s.areas)).collect();
        rows.push((
            (2, u64::from(n.node), 0, 0),
            format!("node {}: pools", n.node),
            if n.areas == 0 {
                "empty".into()
            } else {
                format!("{} areas, {}: {}", n.areas, human(n.bytes), sizes.join(" "))
            },
        ));
    }
    rows
}

/// Figures of several states as aligned columns, one per state, headed by `titles`. Rows
/// present in some states only read `-` in the others.
pub fn render_columns(titles: &[&str], figs: &[&Fragmentation]) -> String {
    let per: Vec<Vec<(RowKey, String, String)>> = figs.iter().map(|f| figure_rows(f)).collect();
    let mut labels: Vec<(RowKey, String)> = per.iter().flatten().map(|(k, l, _)| (*k, l.clone())).collect();
    labels.sort();
    labels.dedup();
    let cell =
        |i: usize, l: &String| per[i].iter().find(|(_, x, _)| x == l).map_or_else(|| "-".to_string(), |r| r.2.clone());
    let lw = labels.iter().map(|l| l.1.chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..figs.len())
        .map(|i| {
            labels.iter().map(|l| cell(i, &l.1).chars().count()).chain([titles[i].chars().count()]).max().unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = format!("{:lw$}", "");
    for (i, t) in titles.iter().enumerate() {
        line.push_str(&format!("  {:w$}", t, w = widths[i]));
    }
    out.push_str(line.trim_end());
    out.push('\n');
    for (_, l) in &labels {
        let mut line = format!("{l:lw$}");
        for (i, w) in widths.iter().enumerate() {
            line.push_str(&format!("  {:w$}", cell(i, l), w = w));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The model state of a `/proc/vmallocinfo` text (imported as the workbench imports it, with
/// `cpus` possible CPUs set before the first area when given) and the import's notes about the
/// whole file (what it assumed).
pub fn vmallocinfo_state(
    text: &str,
    profile: Profile,
    cpus: Option<u64>,
) -> Result<(Vmap, Vec<String>), crate::trace::ParseError> {
    use crate::trace::{Op, ParseError};
    let imported = crate::import::import_vmallocinfo(text, Some(profile))?;
    let mut r = crate::replay::Replayer::new(profile);
    let mut out = String::new();
    let mut set = cpus.is_none();
    for op in &imported.ops {
        if !set && !matches!(op, Op::Profile(_) | Op::Cpus(_)) {
            set = true;
            let n = cpus.unwrap_or(1);
            if u64::from(r.vmap.cpus()) < n {
                r.vmap.set_cpus(n).map_err(|e| ParseError { line: 0, msg: e.to_string() })?;
            }
        }
        // The importer placed each area in a model of its own already.
        r.apply(op, &mut out, &mut crate::events::NoObserver)
            .map_err(|e| ParseError { line: 0, msg: format!("replaying the import: {e}") })?;
        out.clear();
    }
    let notes = imported.report.notes.iter().filter(|n| n.0 == 0).map(|n| n.1.clone()).collect();
    Ok((r.vmap.into_vmap(), notes))
}
