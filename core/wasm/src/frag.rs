//! The instrument's part of the facade (feature `workbench`): the fragmentation figures of the
//! state before an operation, their course over a whole trace in one pass, the callers of a
//! `/proc/vmallocinfo` (per area and as a table) and the diff of two of them. Every figure is
//! the core's (`vmapviz_core::frag`, `callers`, `vmdiff`); the page only draws them.

use crate::{to_json, Vmapviz};
use serde::Serialize;
use ts_rs::TS;
use vmapviz_core::callers::{areas_of, callers_of, CallerArea, CallerRow};
use vmapviz_core::frag::{self, Fragmentation};
use vmapviz_core::vmdiff::{self, AddressKind, VmDiff};
use vmapviz_core::{NoObserver, Profile, Vmap};
use wasm_bindgen::prelude::*;

/// The vmalloc window's figures after one operation (a point of the chart over time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub struct FragPoint {
    /// The state after this many operations (0: before the first).
    pub step: usize,
    /// Bytes of the largest free block in the vmalloc window (0 when none).
    pub largest_free: u64,
    /// Bytes of the largest free block below it (the holes among the areas packed low).
    pub largest_hole: u64,
    pub free_blocks: u64,
    /// `vmap_lazy_nr` and the threshold it is measured against (`lazy_max_pages()`).
    pub lazy_pages: u64,
    pub lazy_max_pages: u64,
}

/// What `frag_series(from, to)` returns: one point per state from `from` to `to` inclusive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct FragSeries {
    pub points: Vec<FragPoint>,
}

/// [`frag::fragmentation`] of a state as the views draw it: a model not set up yet (nothing
/// allocated) measured booted, the whole space free, as `snapshot_state` draws it.
pub fn figures(v: &Vmap) -> Fragmentation {
    let cpus = v.online_cpus().max(frag::DEFAULT_ONLINE_CPUS);
    if v.is_initialized() {
        return frag::fragmentation(v, cpus);
    }
    let mut booted = v.clone();
    booted.ensure_init();
    frag::fragmentation(&booted, cpus)
}

/// The chart's figures of a state: [`figures`]' vmalloc window and lazy pages, taken from the
/// free blocks alone (the areas are not listed: a point costs the free blocks, not the areas).
pub fn frag_point(step: usize, v: &Vmap) -> FragPoint {
    let booted;
    let v = if v.is_initialized() {
        v
    } else {
        let mut b = v.clone();
        b.ensure_init();
        booted = b;
        &booted
    };
    let w = frag::window_figures(frag::VMALLOC, &frag::free_ranges(v), &[], &[], &[]);
    FragPoint {
        step,
        largest_free: w.largest_free.map_or(0, |b| b.bytes),
        largest_hole: w.largest_hole.map_or(0, |b| b.bytes),
        free_blocks: w.free_blocks,
        lazy_pages: v.lazy_pages(),
        lazy_max_pages: frag::lazy_max_pages(v.online_cpus().max(frag::DEFAULT_ONLINE_CPUS)),
    }
}

/// One side of a diff: its figures and what they assumed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct DiffSide {
    pub figures: Fragmentation,
    pub address_kind: AddressKind,
    /// What the import assumed about the whole file, and a warning when its addresses are
    /// hashed or hidden (the free blocks are then of an invented layout).
    pub notes: Vec<String>,
    /// Every line with its caller and flags.
    pub callers: Vec<CallerRow>,
}

/// What `vm_diff(a, b)` returns.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct VmDiffJson {
    pub diff: VmDiff,
    pub a: DiffSide,
    pub b: DiffSide,
}

/// What `vmallocinfo_callers(text)` returns: the areas with their callers, and the table of the
/// callers holding the most space.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct CallersJson {
    pub areas: Vec<CallerArea>,
    pub table: Vec<CallerRow>,
}

#[wasm_bindgen]
impl Vmapviz {
    /// JSON [`Fragmentation`] of the state before op `k` (`k == len()`: the current state),
    /// `lazy_max_pages` for the state's online CPUs.
    pub fn fragmentation(&self, k: usize) -> String {
        to_json(&figures(&self.s.replayer_before(k).vmap))
    }

    /// JSON [`FragSeries`] of the states `from..=to` (clamped), in one replay from the nearest
    /// checkpoint: the state before op `from`, then after each op.
    pub fn frag_series(&self, from: usize, to: usize) -> String {
        let to = to.min(self.s.len());
        let from = from.min(to);
        let mut r = self.s.replayer_before(from);
        let mut points = Vec::with_capacity(to - from + 1);
        points.push(frag_point(from, &r.vmap));
        let mut sink = String::new();
        for (i, l) in self.s.ops()[from..to].iter().enumerate() {
            // These ops succeeded when pushed, so they succeed again.
            let _ = r.apply(&l.op, &mut sink, &mut NoObserver);
            sink.clear();
            points.push(frag_point(from + i + 1, &r.vmap));
        }
        to_json(&FragSeries { points })
    }
}

/// A file's text: gzipped or plain, UTF-8 (errors name the file and the line).
fn file_text(name: &str, bytes: &[u8]) -> Result<String, JsError> {
    vmapviz_core::capture::part_text(name, bytes).map_err(|e| JsError::new(&e.to_string()))
}

fn side(name: &str, text: &str) -> Result<DiffSide, JsError> {
    let e = |e: vmapviz_core::ParseError| JsError::new(&format!("{name}: {e}"));
    let (v, mut notes) = frag::vmallocinfo_state(text, Profile::newest_release(), None).map_err(e)?;
    let address_kind = vmdiff::address_kind_of(text).map_err(e)?;
    if address_kind != AddressKind::Real && !v.busy_areas_all().is_empty() {
        notes.insert(
            0,
            "the addresses are hashed or hidden (kptr_restrict): its free blocks, largest free block and histogram \
             are of an invented layout, not the kernel's"
                .into(),
        );
    }
    Ok(DiffSide {
        figures: frag::fragmentation(&v, v.online_cpus().max(frag::DEFAULT_ONLINE_CPUS)),
        address_kind,
        notes,
        callers: callers_of(text).map_err(e)?,
    })
}

/// JSON [`VmDiffJson`]: the diff of two `/proc/vmallocinfo` files (each plain or gzipped) and
/// both sides' figures (imported as `newest_release`'s, online CPUs as few as keep their lazy
/// pages under the threshold). Throws `NAME: line N: ...` on the first bad line.
#[wasm_bindgen]
pub fn vm_diff(name_a: &str, a: &[u8], name_b: &str, b: &[u8]) -> Result<String, JsError> {
    let (ta, tb) = (file_text(name_a, a)?, file_text(name_b, b)?);
    let diff = vmdiff::diff_texts(&ta, &tb).map_err(|(i, e)| JsError::new(&format!("{}: {e}", [name_a, name_b][i])))?;
    Ok(to_json(&VmDiffJson { diff, a: side(name_a, &ta)?, b: side(name_b, &tb)? }))
}

/// JSON [`CallersJson`] of a `/proc/vmallocinfo` file (plain or gzipped); throws
/// `NAME: line N: ...`.
#[wasm_bindgen]
pub fn vmallocinfo_callers(name: &str, bytes: &[u8]) -> Result<String, JsError> {
    let text = file_text(name, bytes)?;
    let e = |e: vmapviz_core::ParseError| JsError::new(&format!("{name}: {e}"));
    Ok(to_json(&CallersJson { areas: areas_of(&text).map_err(e)?, table: callers_of(&text).map_err(e)? }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vmapviz_core::frag::VMALLOC;
    use vmapviz_core::Session;

    /// Each point of the series equals the figures of `state_before` there, and those equal a
    /// brute force over the busy, lazy and pooled areas (free space is what none of them covers,
    /// for an era with a free tree and nothing outside the window).
    #[test]
    fn series_points_are_the_states_figures_and_a_brute_force() {
        let mut s = Session::new(Profile::Linux61);
        s.push_text("cpus 2").unwrap();
        let mut live = Vec::new();
        for i in 0..90u64 {
            if i % 3 == 2 {
                let a: u64 = live.remove((i as usize * 5) % live.len());
                s.push_text(&format!("{} {a:#x}", if i % 2 == 0 { "vfree" } else { "free" })).unwrap();
            } else {
                let size = (i % 5 + 1) * 0x1000;
                s.push_text(&format!("alloc {size:#x} 0x1000 0xffffc90000000000 0xffffe8ffffffffff")).unwrap();
                let out = s.op_output(s.len() - 1);
                live.push(u64::from_str_radix(out.trim().strip_prefix("alloc -> 0x").unwrap(), 16).unwrap());
            }
        }
        let v = Vmapviz { s };
        let series: serde_json::Value = serde_json::from_str(&v.frag_series(0, usize::MAX)).unwrap();
        let points = series["points"].as_array().unwrap();
        assert_eq!(points.len(), v.s.len() + 1);
        let mut lazy_seen = 0;
        for (k, p) in points.iter().enumerate() {
            let r = v.s.replayer_before(k);
            assert_eq!(p["step"], k);
            // Before the first allocation the model is measured booted: the whole window free.
            if k == 0 {
                assert_eq!(
                    (p["free_blocks"].as_u64(), p["largest_free"].as_u64()),
                    (Some(1), Some(VMALLOC.end - VMALLOC.start))
                );
            }
            // Brute force: the gaps between the areas (busy, lazy) in the vmalloc window.
            let mut taken: Vec<(u64, u64)> =
                r.vmap.busy_areas_all().iter().map(|a| (a.0.va_start.0, a.0.va_end.0)).collect();
            taken.extend(r.vmap.lazy_areas().iter().map(|a| (a.va_start.0, a.va_end.0)));
            taken.sort();
            let mut gaps = Vec::new();
            let mut at = VMALLOC.start;
            for (a, b) in taken {
                if a > at {
                    gaps.push(a - at);
                }
                at = at.max(b);
            }
            if VMALLOC.end > at {
                gaps.push(VMALLOC.end - at);
            }
            assert_eq!(p["free_blocks"], gaps.len() as u64, "op {k}");
            assert_eq!(p["largest_free"], *gaps.iter().max().unwrap(), "op {k}");
            let top = gaps.iter().position(|g| g == gaps.iter().max().unwrap()).unwrap();
            assert_eq!(p["largest_hole"], gaps[..top].iter().max().copied().unwrap_or(0), "op {k}");
            let lazy: u64 = r.vmap.lazy_areas().iter().map(|a| (a.va_end.0 - a.va_start.0) >> 12).sum();
            assert_eq!(p["lazy_pages"], lazy, "op {k}");
            // fls(2) * 32 MiB in pages.
            assert_eq!(p["lazy_max_pages"], if k == 0 { 8192 } else { 16384 }, "op {k}");
            lazy_seen = lazy_seen.max(lazy);
            // The point is the state's figures (taken the short way).
            let f: serde_json::Value = serde_json::from_str(&v.fragmentation(k)).unwrap();
            let w = &f["windows"][0];
            assert_eq!(w["free_blocks"], p["free_blocks"], "op {k}");
            assert_eq!(w["largest_free"]["bytes"], p["largest_free"], "op {k}");
            assert_eq!(w["largest_hole"]["bytes"].as_u64().unwrap_or(0), p["largest_hole"], "op {k}");
            assert_eq!(f["lazy"]["pages"], p["lazy_pages"], "op {k}");
            assert_eq!(f["lazy"]["lazy_max_pages"], p["lazy_max_pages"], "op {k}");
        }
        assert!(lazy_seen > 0, "the trace frees lazily");
    }

    #[test]
    fn callers_keep_caller_and_flags_apart() {
        let text = "0xffffc90000000000-0xffffc90000003000   12288 foo+0x10/0x40 [mymod] pages=2 vmalloc N0=2\n\
                    0xffffc90000005000-0xffffc90000007000    8192 unpurged vm_area\n\
                    0xffffc90000009000-0xffffc9000000b000    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap\n";
        let j: serde_json::Value = serde_json::from_str(&vmallocinfo_callers("v", text.as_bytes()).unwrap()).unwrap();
        let a = &j["areas"];
        assert_eq!(a[0]["caller"], "foo+0x10/0x40 [mymod]");
        assert_eq!(a[0]["flags"], "pages=2 vmalloc N0=2");
        assert_eq!(a[0]["start"], "0xffffc90000000000");
        assert_eq!(a[1]["caller"], "(unpurged vm_area)");
        assert_eq!(a[2]["flags"], "phys=0x00000000fed00000 ioremap");
        assert_eq!(j["table"][0]["caller"], "foo [mymod]");
    }
}
