//! The fragmentation figures of a session's states (feature `workbench`): the figures of the
//! state before an operation, and their course over the trace in one pass, every state or one
//! in `every` (a long trace: the page's session of a followed capture in live mode, the
//! large-trace worker's). Every figure is the core's (`vmapviz_core::frag`); the page only
//! draws them. Not in the page's first-screen build: 19 KB more of its compressed wasm.

use crate::{to_json, Vmapviz};
use serde::Serialize;
use ts_rs::TS;
use vmapviz_core::frag::{self, Fragmentation};
use vmapviz_core::{NoObserver, Vmap};
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

/// What `frag_series(from, to, every)` returns: the points of the states `from`, each multiple
/// of `every` between, and `to`, ascending.
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

#[wasm_bindgen]
impl Vmapviz {
    /// JSON [`Fragmentation`] of the state before op `k` (`k == len()`: the current state),
    /// `lazy_max_pages` for the state's online CPUs.
    pub fn fragmentation(&self, k: usize) -> String {
        to_json(&figures(&self.s.replayer_before(k).vmap))
    }

    /// JSON [`FragSeries`] of the states `from..=to` (clamped): `from`, each multiple of
    /// `every` after it (0 counts as 1: every state), and `to`; in one replay from the
    /// checkpoint nearest `from`, a point measured only where one is asked for.
    pub fn frag_series(&self, from: usize, to: usize, every: usize) -> String {
        let to = to.min(self.s.len());
        let from = from.min(to);
        let every = every.max(1);
        let mut r = self.s.replayer_before(from);
        let mut points = Vec::with_capacity((to - from) / every + 2);
        points.push(frag_point(from, &r.vmap));
        let mut sink = String::new();
        for (i, l) in self.s.ops()[from..to].iter().enumerate() {
            // These ops succeeded when pushed, so they succeed again.
            let _ = r.apply(&l.op, &mut sink, &mut NoObserver);
            sink.clear();
            let step = from + i + 1;
            if step.is_multiple_of(every) || step == to {
                points.push(frag_point(step, &r.vmap));
            }
        }
        to_json(&FragSeries { points })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vmapviz_core::frag::VMALLOC;
    use vmapviz_core::{Profile, Session};

    /// 90 operations of linux-6.1 on 2 CPUs: allocations of 1 to 5 pages, every third op a
    /// free or vfree of one of them.
    fn mixed() -> Vmapviz {
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
        Vmapviz { s }
    }

    /// Each point of the series equals the figures of `state_before` there, and those equal a
    /// brute force over the busy, lazy and pooled areas (free space is what none of them covers,
    /// for an era with a free tree and nothing outside the window).
    #[test]
    fn series_points_are_the_states_figures_and_a_brute_force() {
        let v = mixed();
        let series: serde_json::Value = serde_json::from_str(&v.frag_series(0, usize::MAX, 1)).unwrap();
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

    /// A sampled series from any start holds exactly the states `from`, the multiples of
    /// `every` and `to`, each point that of the whole series (checked above) at its step.
    #[test]
    fn a_sampled_series_is_the_whole_series_at_its_steps() {
        let v = mixed();
        let points = |json: String| -> Vec<FragPoint> {
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            v["points"].as_array().unwrap().iter().cloned().map(point).collect()
        };
        let all = points(v.frag_series(0, usize::MAX, 1));
        let n = v.s.len();
        for (from, to, every) in [(0, n, 8), (3, n, 8), (17, 61, 5), (0, n, 0), (40, 40, 7), (n, n, 3), (5, n + 9, 64)]
        {
            let got = points(v.frag_series(from, to, every));
            let to = to.min(n);
            let e = every.max(1);
            let want: Vec<FragPoint> = all
                .iter()
                .filter(|p| {
                    p.step == from || p.step == to || (p.step > from && p.step < to && p.step.is_multiple_of(e))
                })
                .copied()
                .collect();
            assert_eq!(got, want, "from {from} to {to} every {every}");
        }
    }

    fn point(p: serde_json::Value) -> FragPoint {
        let n = |k: &str| p[k].as_u64().unwrap();
        FragPoint {
            step: n("step") as usize,
            largest_free: n("largest_free"),
            largest_hole: n("largest_hole"),
            free_blocks: n("free_blocks"),
            lazy_pages: n("lazy_pages"),
            lazy_max_pages: n("lazy_max_pages"),
        }
    }
}
