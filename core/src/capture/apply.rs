//! The lines that follow a real kernel's capture ([`crate::capture::follow`]) applied to the
//! model a replay steers ([`Steered`]): each checked against the model's state before any of
//! it applies, then made through the oracle's operations. The replayer calls [`follow`] for
//! every such line of a trace.

use std::fmt::Write;

use crate::area::NIL;
use crate::capture::follow::{Follow, Mark};
use crate::capture::oracle::{Place, Steered};
use crate::era::PurgeStop;
use crate::error::{Outcome, VmapError};
use crate::events::Observer;
use crate::text::push_line;
use crate::vmalloc::PAGE_SIZE;

fn refused(why: String) -> VmapError {
    VmapError::Unsupported { why }
}

/// Apply one line to `v`, printing its output. A line that cannot apply (the range is not
/// free, no such area or node) is refused and changes nothing: these lines come from a
/// capture's replay, which made each of them on the same state. Only the model's own
/// allocation and the purge have steps to show; the rest is one non-generic function, so that
/// each observer's copy of this one stays small.
#[inline(never)]
pub fn follow<O: Observer>(v: &mut Steered, f: &Follow, out: &mut String, obs: &mut O) -> Result<Outcome, VmapError> {
    vnode_profile(v, f)?;
    admit(v, f).map_err(|why| VmapError::Steering { line: crate::text::quote(&f.to_string()), why })?;
    match *f {
        Follow::Alloc { size, align, vstart, vend, addr, mark } => {
            let model = match follow_alloc(v, [size, align, vstart, vend], addr, mark, out)? {
                Step::Done(o) => {
                    // Taken (or a pool head moved) without touches to report.
                    obs.untracked();
                    return Ok(o);
                }
                Step::Model(m) => m,
            };
            let got = v.alloc(size, align, vstart, vend, obs)?;
            debug_assert_eq!(got, addr);
            push_line(out, "alloc -> ", got, "\n");
            Ok(alloc_outcome(addr, model, mark))
        }
        Follow::Purge { full, behind, stop, ref keep } => {
            let held = purge_begin(v, f, keep, behind)?;
            let r = match stop {
                _ if full => v.reclaim(obs),
                Some(s) => v.purge_to(s, obs),
                None => v.purge(obs),
            };
            purge_end(v, held);
            let _ = writeln!(out, "{} {}", if full { "reclaim" } else { "purge" }, r.entries);
            Ok(Outcome::Done)
        }
        Follow::PurgeRest { ref keep } => {
            vnode_profile(v, f)?;
            if v.purge_stage().is_none() {
                return Err(refused("purge-rest: no purge stopped part-way (`purge decayed|upto N` first)".into()));
            }
            let held = v.hold_lazy(keep);
            let r = v.purge_rest(obs);
            v.restore_lazy(held);
            let _ = writeln!(out, "purge-rest {}", r.entries);
            Ok(Outcome::Done)
        }
        Follow::Shrink => {
            // The decay's steps, as a purge's: every pool given back whole.
            let n = v.shrink_pools(obs);
            let _ = writeln!(out, "shrink {n}");
            Ok(Outcome::Done)
        }
        _ => apply_setup(v, f, out),
    }
}

/// Whether the model's state admits line `f` (checked before anything of it applies): an
/// address the kernel returned lies in the request's window, aligned, over space free or
/// pooled in the model; a range is page aligned; a node exists; an area named is there.
#[inline(never)]
fn admit(v: &Steered, f: &Follow) -> Result<(), String> {
    let paged = |start: u64, size: u64| -> Result<u64, String> {
        if size == 0 || !start.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) {
            return Err(format!("[{start:#x}, +{size:#x}) is not a page-aligned range"));
        }
        start.checked_add(size).ok_or_else(|| format!("{start:#x} + {size:#x} passes 2^64"))
    };
    let nodes = v.nr_vmap_nodes();
    let pooled = v.profile().has_vmap_nodes();
    let node = |n: u32| match n < nodes {
        true => Ok(()),
        false => Err(format!("node {n} does not exist ({nodes} vmap nodes under {})", v.profile())),
    };
    let lazy_start = |a: u64| v.nodes.iter().any(|n| n.lazy.find_start(&v.arena, a) != NIL);
    let keeps = |keep: &[u64]| -> Result<(), String> {
        for (i, &a) in keep.iter().enumerate() {
            if keep[..i].contains(&a) {
                return Err(format!("keep names {a:#x} twice"));
            }
            if !lazy_start(a) {
                return Err(format!("keep {a:#x}: no area on a lazy list starts there ({})", v.locate(a)));
            }
        }
        Ok(())
    };
    match *f {
        Follow::Alloc { size, align, vstart, vend, addr, .. } => {
            if size == 0 || !size.is_multiple_of(PAGE_SIZE) || !align.is_power_of_two() {
                return Err(format!("size {size:#x} and align {align:#x}: not a request the kernel accepts"));
            }
            if addr & (align.max(PAGE_SIZE) - 1) != 0 {
                return Err(format!("{addr:#x} is not aligned to {:#x}", align.max(PAGE_SIZE)));
            }
            let end = addr.checked_add(size).filter(|&e| addr >= vstart && e <= vend);
            let Some(end) = end else {
                return Err(format!("[{addr:#x}, +{size:#x}) is outside the window [{vstart:#x}, {vend:#x})"));
            };
            // linux-5.1 has no free tree: free space is what no busy area covers.
            if !v.profile().has_free_tree() {
                return match v.locate(addr) {
                    p @ (Place::Busy { .. } | Place::Lazy { .. }) => Err(format!("{addr:#x} is not free: {p}")),
                    _ => Ok(()),
                };
            }
            // Free blocks and pool entries, end to end over the range (the entries go back to
            // the free tree, which then holds it whole).
            let mut at = addr;
            while at < end {
                at = match v.locate(at) {
                    Place::Free { end: e, .. } | Place::Pooled { end: e, .. } if e > at => e,
                    p => return Err(format!("[{addr:#x}, {end:#x}) is not free at {at:#x}: {p}")),
                };
            }
            Ok(())
        }
        Follow::Place { start, end, node: n } => {
            paged(start, end.wrapping_sub(start)).map(drop)?;
            if end <= start {
                return Err(format!("[{start:#x}, {end:#x}) is empty"));
            }
            n.map_or(Ok(()), node)
        }
        Follow::Lazy { start, node: n } => {
            node(n)?;
            match v.locate(start) {
                Place::Busy { start: s, .. } if s == start => Ok(()),
                p => Err(format!("no busy area starts at {start:#x} ({p})")),
            }
        }
        Follow::Pooled { node: n, start, size, .. } => {
            if !pooled {
                return Err(format!("{} has no vmap pools", v.profile()));
            }
            node(n)?;
            paged(start, size).map(drop)?;
            if size / PAGE_SIZE > crate::era::MAX_VA_SIZE_PAGES as u64 {
                return Err(format!("{size:#x} is larger than any pool's areas"));
            }
            Ok(())
        }
        Follow::Hold { start, end } => {
            if end <= start {
                return Err(format!("[{start:#x}, {end:#x}) is empty"));
            }
            paged(start, end - start).map(drop)
        }
        Follow::Unpool { start, size } => {
            if !pooled {
                return Err(format!("{} has no vmap pools", v.profile()));
            }
            paged(start, size).map(drop)
        }
        Follow::Shrink => {
            if !pooled {
                return Err(format!("{} has no vmap pools", v.profile()));
            }
            Ok(())
        }
        Follow::Purge { stop, ref keep, .. } => {
            match stop {
                Some(PurgeStop::Decayed(n) | PurgeStop::Processed(n)) if pooled => node(n)?,
                Some(PurgeStop::Through(a)) if pooled && v.purge_list_node(a).is_none() => {
                    return Err(format!("through {a:#x}: no lazy area starts there ({})", v.locate(a)));
                }
                _ => {}
            }
            keeps(keep)
        }
        Follow::PurgeRest { ref keep } => keeps(keep),
        Follow::Release { .. } | Follow::DeferDrain => Ok(()),
    }
}

fn vnode_profile(v: &mut Steered, f: &Follow) -> Result<(), VmapError> {
    if v.rfc().is_some() {
        return Err(refused(format!("`{f}` follows a capture of a vmap-node kernel; this trace runs {}", v.profile())));
    }
    v.ensure_init();
    Ok(())
}

/// The lines that set up state (no steps to show).
#[inline(never)]
fn apply_setup(v: &mut Steered, f: &Follow, out: &mut String) -> Result<Outcome, VmapError> {
    vnode_profile(v, f)?;
    match *f {
        Follow::DeferDrain => v.set_defer_drain(true),
        Follow::Shrink => {}
        Follow::Place { start, end, node } => {
            v.place_busy(start, end, node).map_err(refused)?;
            push_line(out, "place ", start, " ok\n");
        }
        Follow::Lazy { start, node } => {
            v.make_lazy(start, node, Some(node)).map_err(refused)?;
            push_line(out, "lazy ", start, " ok\n");
        }
        Follow::Pooled { node, start, size, head, behind } => {
            if !v.pool_at_pos(start, size, node, head, behind) {
                return Err(refused(format!(
                    "pooled {node} {start:#x} {size:#x}: not a free range with a pool of node {node} ({})",
                    v.locate(start)
                )));
            }
            push_line(out, "pooled ", start, " ok\n");
        }
        Follow::Hold { start, end } => {
            if v.hold_free(start, end).is_none() {
                return Err(refused(format!(
                    "hold [{start:#x}, {end:#x}): not inside one free block ({})",
                    v.locate(start)
                )));
            }
            push_line(out, "hold ", start, " ok\n");
        }
        Follow::Release { start } => {
            let va = v.held_at(start).ok_or_else(|| refused(format!("release {start:#x}: no space held there")))?;
            v.release_held(va);
            push_line(out, "release ", start, " ok\n");
        }
        Follow::Unpool { start, size } => {
            if v.unpool_overlapping(start, size) == 0 {
                return Err(refused(format!(
                    "unpool [{start:#x}, {:#x}): no pool entry there",
                    start.saturating_add(size)
                )));
            }
            push_line(out, "unpool ", start, " ok\n");
        }
        Follow::Alloc { .. } | Follow::Purge { .. } | Follow::PurgeRest { .. } => {}
    }
    Ok(Outcome::Done)
}

type HeldForPurge = (Vec<(u32, u32)>, Vec<(u32, usize, Vec<u32>)>);

/// Before the kernel's purge: the lazy areas freed after it took the lists, off them; with
/// `behind`, every pool's entries (from before the capture) set aside, to go behind the new.
#[inline(never)]
fn purge_begin(v: &mut Steered, f: &Follow, keep: &[u64], behind: bool) -> Result<HeldForPurge, VmapError> {
    vnode_profile(v, f)?;
    let held = v.hold_lazy(keep);
    let pools = if behind { v.hold_pools() } else { Vec::new() };
    Ok((held, pools))
}

#[inline(never)]
fn purge_end(v: &mut Steered, (held, pools): HeldForPurge) {
    v.restore_pools_behind(pools);
    v.restore_lazy(held);
}

enum Step {
    Done(Outcome),
    /// The model's own allocation gives the kernel's address: made by the caller, with steps.
    Model(Option<u64>),
}

fn alloc_outcome(x: u64, model: Option<u64>, mark: Mark) -> Outcome {
    match (mark, model == Some(x)) {
        (Mark::Equal, true) => Outcome::Done,
        _ => Outcome::Warned(VmapError::Followed { kernel: x, model, mark, taken: true }),
    }
}

/// The kernel returned `x`. When the model's answer is `x`, the caller makes the allocation;
/// else `x` is taken where the kernel took it (from a pool entry, or clipped out of its free
/// block), as the capture's replay did: a misaligned pool head moves to the tail as
/// `node_pool_del_va` does; over entries the model pooled, those go back to the free tree
/// first (the kernel's pool no longer held them); if it still cannot be taken, the replay
/// goes on without it (said in the warning).
#[inline(never)]
fn follow_alloc(
    v: &mut Steered,
    [size, align, vstart, vend]: [u64; 4],
    x: u64,
    mark: Mark,
    out: &mut String,
) -> Result<Step, VmapError> {
    vnode_profile(v, &Follow::Alloc { size, align, vstart, vend, addr: x, mark })?;
    let pred = v.predict_alloc(size, align, vstart, vend);
    let model = pred.addr();
    if model == Some(x) {
        return Ok(Step::Model(model));
    }
    if pred.rotate {
        if let Some(n) = pred.node {
            v.rotate_pool_head(n, size);
        }
    }
    let mut taken = v.take_at(x, size, pred.node).is_some();
    if !taken && v.unpool_overlapping(x, size) > 0 {
        taken = v.take_at(x, size, pred.node).is_some();
    }
    if !taken {
        out.push_str("alloc -> FAIL\n");
        return Ok(Step::Done(Outcome::Warned(VmapError::Followed { kernel: x, model, mark, taken: false })));
    }
    push_line(out, "alloc -> ", x, "\n");
    Ok(Step::Done(alloc_outcome(x, model, mark)))
}
