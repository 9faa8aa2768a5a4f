//! Cost sweeps for charts: work per operation against the number of live areas.
//!
//! For each live count L the sweep builds L busy areas, then runs `ops` alloc/vfree rounds
//! with the [`CounterObserver`] and reports the average counters per operation.
//! * `LongBusy`: test_vmalloc's long_busy_list (L one-page areas kept, then 100 + 1 pages
//!   allocated and lazily freed per round);
//! * `Random`: L areas of 1–100 pages, then each round frees a random one and allocates a
//!   random size (the "random" test where the 2019 authors measured 101 min against 57 s).

use serde::Serialize;
use ts_rs::TS;

use crate::counters::{CounterObserver, Counters};
use crate::era::Vmap;
use crate::events::NoObserver;
use crate::profile::Profile;
use crate::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use crate::workload::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepShape {
    LongBusy,
    Random,
}

impl SweepShape {
    pub fn parse(s: &str) -> Option<SweepShape> {
        match s {
            "long_busy" => Some(SweepShape::LongBusy),
            "random" => Some(SweepShape::Random),
            _ => None,
        }
    }
}

/// One point of a sweep: live areas and the average counters of one operation.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct SweepPoint {
    pub profile: Profile,
    /// maple-rfc: whether the per-CPU bump overlay was on; `None` for the other profiles.
    pub bump: Option<bool>,
    pub live: usize,
    pub ops: u64,
    pub nodes_visited: f64,
    pub list_walked: f64,
    pub comparisons: f64,
    pub rotations: f64,
    pub propagations: f64,
    pub cache_lines: f64,
    /// nodes visited + list steps + propagations + rotations.
    pub work: f64,
}

fn point(profile: Profile, bump: Option<bool>, live: usize, c: &Counters) -> SweepPoint {
    let n = c.ops.max(1) as f64;
    SweepPoint {
        profile,
        bump,
        live,
        ops: c.ops,
        nodes_visited: c.nodes_visited.0 as f64 / n,
        list_walked: c.list_walked.0 as f64 / n,
        comparisons: c.comparisons.0 as f64 / n,
        rotations: c.rotations.0 as f64 / n,
        propagations: c.propagations.0 as f64 / n,
        cache_lines: c.cache_lines.0 as f64 / n,
        work: c.work() as f64 / n,
    }
}

fn vmalloc<O: crate::events::Observer>(v: &mut Vmap, pages: u64, obs: &mut O) -> Option<u64> {
    v.alloc((pages + 1) * PAGE_SIZE, 1, VMALLOC_START, VMALLOC_END, obs).ok()
}

/// Average counters per operation for each live count.
pub fn sweep(profile: Profile, shape: SweepShape, lives: &[usize], rounds: usize) -> Vec<SweepPoint> {
    sweep_bump(profile, None, shape, lives, rounds)
}

/// [`sweep`] with maple-rfc's bump overlay set on or off (`None`: the profile's default; ignored
/// by the other profiles, whose points say `bump: None`).
pub fn sweep_bump(
    profile: Profile,
    bump: Option<bool>,
    shape: SweepShape,
    lives: &[usize],
    rounds: usize,
) -> Vec<SweepPoint> {
    lives
        .iter()
        .map(|&live| {
            let mut v = Vmap::new(profile);
            if let Some(on) = bump {
                v.set_bump(on);
            }
            let bump = v.bump_on();
            let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
            let mut held = Vec::with_capacity(live);
            for _ in 0..live {
                let pages = if shape == SweepShape::Random { rng.below(100) + 1 } else { 1 };
                if let Some(a) = vmalloc(&mut v, pages, &mut NoObserver) {
                    held.push(a);
                }
            }
            let mut c = CounterObserver::default();
            for _ in 0..rounds {
                match shape {
                    SweepShape::LongBusy => {
                        let a = vmalloc(&mut v, 100, &mut c);
                        c.end_op();
                        let b = vmalloc(&mut v, 1, &mut c);
                        c.end_op();
                        for x in [a, b].into_iter().flatten() {
                            let _ = v.vfree(x, &mut c);
                            c.end_op();
                        }
                    }
                    SweepShape::Random => {
                        if !held.is_empty() {
                            let i = rng.below(held.len() as u64) as usize;
                            let _ = v.vfree(held.swap_remove(i), &mut c);
                            c.end_op();
                        }
                        if let Some(a) = vmalloc(&mut v, rng.below(100) + 1, &mut c) {
                            held.push(a);
                        }
                        c.end_op();
                    }
                }
            }
            point(profile, bump, live, &c.total)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_walk_grows_with_live_areas_and_the_tree_does_not() {
        let old = sweep(Profile::Linux51, SweepShape::Random, &[100, 3000], 200);
        let new = sweep(Profile::Linux52, SweepShape::Random, &[100, 3000], 200);
        assert!(old[1].list_walked > 10.0 * old[0].list_walked.max(1.0), "{old:?}");
        assert!(new[1].work < 3.0 * new[0].work, "{new:?}");
        assert_eq!(new[0].list_walked, 0.0);
        assert_eq!(new[0].bump, None);
    }

    #[test]
    fn maple_rfc_sweeps_with_the_overlay_off_and_on() {
        let off = sweep_bump(Profile::MapleRfc, Some(false), SweepShape::Random, &[100, 1000], 100);
        let on = sweep_bump(Profile::MapleRfc, Some(true), SweepShape::Random, &[100, 1000], 100);
        assert_eq!(
            off.iter().map(|p| (p.live, p.bump, p.ops)).collect::<Vec<_>>(),
            [(100, Some(false), 200), (1000, Some(false), 200)]
        );
        assert_eq!(on.iter().map(|p| (p.live, p.bump)).collect::<Vec<_>>(), [(100, Some(true)), (1000, Some(true))]);
        assert_eq!(sweep(Profile::MapleRfc, SweepShape::Random, &[10], 5)[0].bump, Some(true));
        // No rbtree is searched under maple-rfc: its free-tree counters stay at zero.
        assert!(off.iter().chain(&on).all(|p| p.rotations == 0.0 && p.list_walked == 0.0), "{off:?} {on:?}");
    }
}
