//! Each pool's history in one replay, and the kernel's decay arithmetic run again over it with
//! some areas of the before file on the other node (their `vn_id`, which vmallocinfo does not
//! show): the list `decay_va_pool_node` would have left.
//!
//! ```text
//!   a purge:   decay     give back len >> 2 entries from the head (all of them: full)
//!              populate  push the node's purged areas at the head, in ascending order
//!   between:   node_pool_del_va takes the head (a pop); a reading gives an entry back
//!
//!   model:   [ p3 p2 p1 | k9 .. k1 ]   len 12: the next decay gives back p3 p2 p1
//!   kernel:  [ p3 p2    | k9 .. k1 ]   len 11, p1 on the other node: p3 p2 only
//! ```
//!
//! A reading is refused where it contradicts what the kernel did: a pop of an entry that was
//! not its pool's head, or an allocation over an entry that its pool still held.

use super::hash::{HashMap, HashSet};

/// One purge of one pool: its list before the decay and after the purge, head first. `behind`:
/// the capture's first purge, whose decay the model reads as giving back entries from before
/// the capture that no allocation shows, in front of the ones it knows (it keeps those).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PoolRec {
    pub line: usize,
    /// The traced purge this is (a part of): the line of its event, the same for every part
    /// of a purge replayed in parts.
    pub purge: usize,
    pub full: bool,
    pub behind: bool,
    /// Whether this purge decayed the pool's node here: a purge replayed in parts (its
    /// allocations saw it part-way) decays each node in one of them, and pools in the others.
    pub decays: bool,
    /// Where this part's walk of the node's taken list stopped (`Some(0)`: not begun), the
    /// rest walked by a later part; `None`: walked to its end ([`crate::Vmap::purge_walked`]).
    pub walked: Option<u64>,
    pub before: Vec<u64>,
    pub after: Vec<u64>,
}

impl PoolRec {
    /// The entries this purge pooled (in the list after it, not before), head first.
    pub fn pushed(&self) -> impl Iterator<Item = u64> + '_ {
        let before: HashSet<u64> = self.before.iter().copied().collect();
        self.after.iter().copied().filter(move |e| !before.contains(e))
    }
}

/// What one replay saw of the pools: each pool's purges (by node and pool index), the entries
/// the kernel took from a pool's head as the model did, and every allocation.
#[derive(Clone, Debug, Default)]
pub(super) struct PoolHistory {
    pub recs: std::collections::BTreeMap<(u32, usize), Vec<PoolRec>>,
    /// Start -> the lines where `node_pool_del_va` gave that entry, in the kernel as in the model.
    pub pops: HashMap<u64, Vec<usize>>,
    /// (line, start, end) of every allocation, in trace order.
    pub allocs: Vec<(usize, u64, u64)>,
    /// (line, entry): the kernel's pool held the entry at that line (read before).
    pub held: Vec<(usize, u64)>,
    /// (line, the model's head, align): a request whose pool head the model moved to the tail
    /// (`node_pool_del_va` with a misaligned head; the free tree served).
    pub rots: Vec<(usize, u64, u64)>,
}

/// What a pool's history shows besides its purges ([`PoolHistory::held_in`]): the entries the
/// kernel's pool held at a line, and the requests that found a misaligned head, by line.
#[derive(Clone, Debug, Default)]
pub(super) struct PoolSeen {
    held: Vec<(usize, u64)>,
    rots: Vec<(usize, u64)>,
}

impl PoolHistory {
    fn popped_between(&self, after: usize, upto: usize, a: u64) -> bool {
        self.pops.get(&a).is_some_and(|v| v.iter().any(|&l| l > after && l <= upto))
    }

    /// Whether the allocation traced at `line` was at `a` (`allocs` is in trace order).
    fn allocated_at(&self, line: usize, a: u64) -> bool {
        let from = self.allocs.partition_point(|&(l, ..)| l < line);
        self.allocs[from..].iter().take_while(|&&(l, ..)| l == line).any(|&(_, s, _)| s == a)
    }

    fn allocated_over(&self, after: usize, before: usize, a: u64, len: u64) -> bool {
        // `allocs` is in trace order: only the lines in between are looked at.
        let from = self.allocs.partition_point(|&(l, ..)| l <= after);
        let to = self.allocs.partition_point(|&(l, ..)| l < before);
        self.allocs.get(from..to).unwrap_or_default().iter().any(|&(_, s, e)| s < a + len && a < e)
    }

    /// Whether the model's pool with history `recs` met a request with a misaligned head.
    pub(super) fn turns_in(&self, recs: &[PoolRec]) -> bool {
        !self.held_in(recs).rots.is_empty()
    }

    /// The entries of `held` and the requests of `rots` in the pool with history `recs`, by
    /// line: what [`Self::rerun_held`] takes, read once for many readings of one pool.
    pub(super) fn held_in(&self, recs: &[PoolRec]) -> PoolSeen {
        let ours: HashSet<u64> = recs.iter().flat_map(|r| r.before.iter().chain(&r.after)).copied().collect();
        let mut held: Vec<(usize, u64)> = self.held.iter().copied().filter(|(_, e)| ours.contains(e)).collect();
        held.sort_unstable();
        let mut rots: Vec<(usize, u64)> =
            self.rots.iter().filter(|(_, e, _)| ours.contains(e)).map(|&(l, _, align)| (l, align)).collect();
        rots.sort_unstable();
        PoolSeen { held, rots }
    }

    /// [`Self::rerun_held`] reading the pool's held entries first.
    #[cfg(test)]
    pub(super) fn rerun(
        &self,
        recs: &[PoolRec],
        now: &[u64],
        out: &HashSet<u64>,
        inn: &HashMap<usize, Vec<u64>>,
        len: u64,
        line: usize,
    ) -> Option<Vec<u64>> {
        self.rerun_held(recs, &self.held_in(recs), now, out, inn, &[], len, line)
    }

    /// The kernel's list of the pool with history `recs` now (head first), had the entries of
    /// `out` never been pooled there, each of `inn` (by the line of the purge that pooled it on
    /// the other node) been pooled there by that purge, and `tail` been in the pool from the
    /// start behind every entry the model knows there (entries from before the capture that
    /// the first purge kept, its decay giving back only unseen ones in front of them: the
    /// oldest, so the last to go). `now` is the model's list now, `len` the size of an entry,
    /// `line` the current line, `held` the entries the kernel's pool held at a line
    /// ([`Self::held_in`]). `None` where the reading contradicts the kernel: an entry it took
    /// from the pool's head was not at the head (or given back already, or of `out`), or it
    /// allocated over an entry still pooled, or did not hold one it held. A head the model
    /// moved to the tail (misaligned) must have been the kernel's head.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rerun_held(
        &self,
        recs: &[PoolRec],
        seen: &PoolSeen,
        now: &[u64],
        out: &HashSet<u64>,
        inn: &HashMap<usize, Vec<u64>>,
        tail: &[u64],
        len: u64,
        line: usize,
    ) -> Option<Vec<u64>> {
        // No first purge in this pool's history (it held nothing then, in the model): the tail
        // is there from the start.
        let mut k: Vec<u64> = if recs.iter().any(|r| r.behind) { Vec::new() } else { tail.to_vec() };
        // The line each entry was given back by the model's decay, and by the kernel's.
        let mut gone_m: HashMap<u64, usize> = HashMap::default();
        let mut gone_k: HashMap<u64, usize> = HashMap::default();
        let mut prev: &[u64] = &[];
        let mut prev_line = 0;
        let steps = recs.iter().map(Some).chain(std::iter::once(None));
        for rec in steps {
            let (next, upto): (&[u64], usize) = match rec {
                Some(r) => (&r.before, r.line),
                None => (now, line),
            };
            // The entries the kernel's pool held at a line in between (`held` is by line).
            let held = &seen.held;
            let from = held.partition_point(|&(l, _)| l <= prev_line);
            let to = held.partition_point(|&(l, _)| l <= upto);
            let due = held.get(from..to).unwrap_or_default();
            if !due.is_empty() {
                let kset: HashSet<u64> = k.iter().copied().collect();
                if due.iter().any(|(_, e)| !kset.contains(e)) {
                    return None;
                }
            }
            let from = seen.rots.partition_point(|&(l, _)| l <= prev_line);
            let to = seen.rots.partition_point(|&(l, _)| l <= upto);
            let rots = seen.rots.get(from..to).unwrap_or_default();
            self.between(&mut k, &Step { prev, next, out, rots, after: prev_line, upto })?;
            let Some(r) = rec else { break };
            let n = match (r.decays, r.full, r.behind) {
                (false, ..) | (true, false, true) => 0,
                (true, true, _) => k.len(),
                (true, false, false) => k.len() >> 2,
            };
            for e in k.drain(..n) {
                gone_k.insert(e, r.line);
            }
            let aset: HashSet<u64> = r.after.iter().copied().collect();
            for &e in r.before.iter().filter(|e| !aset.contains(e)) {
                gone_m.insert(e, r.line);
            }
            let mut pushed: Vec<u64> = r.pushed().filter(|e| !out.contains(e)).collect();
            pushed.extend(inn.get(&r.line).into_iter().flatten().copied());
            pushed.sort_unstable_by(|a, b| b.cmp(a));
            pushed.dedup();
            let pset: HashSet<u64> = pushed.iter().copied().collect();
            k.retain(|e| !pset.contains(e));
            pushed.extend(k);
            k = pushed;
            if r.behind {
                k.extend(tail.iter().copied());
            }
            prev = &r.after;
            prev_line = r.line;
        }
        // An entry the kernel still held after the model's decay gave it back: nothing the
        // kernel allocated may lie over it in between.
        let kset: HashSet<u64> = k.iter().copied().collect();
        for (&e, &lm) in &gone_m {
            let lk = if kset.contains(&e) { usize::MAX } else { gone_k.get(&e).copied().unwrap_or(lm) };
            // (The allocation at `line` is the one being read.)
            if lk > lm && self.allocated_over(lm, lk.min(line), e, len) {
                return None;
            }
        }
        Some(k)
    }

    /// The model's list went from `prev` to `next` between two purges: the kernel's `k` loses
    /// the same entries (a pop must be its head, ahead only of entries also gone), moves the
    /// same heads to the tail (`node_pool_del_va` with a misaligned head: that head must be
    /// the kernel's too), and entries added outside a purge's walk (the rest of a purge split
    /// at a node) go to its head. Where the model's pool met requests with a misaligned head
    /// (`rots`, by line, with their alignment), the kernel's met them too, each at its own
    /// head: moved to the tail if misaligned as well; if aligned, the kernel gave it, so it is
    /// the kernel's answer there, or the reading is refused.
    fn between(&self, k: &mut Vec<u64>, w: &Step<'_>) -> Option<()> {
        if !w.rots.is_empty() {
            return self.in_line_order(k, w);
        }
        let Step { prev, next, out, after, upto, .. } = *w;
        let in_next: HashSet<u64> = next.iter().copied().collect();
        let in_prev: HashSet<u64> = prev.iter().copied().collect();
        let removed: HashSet<u64> = prev.iter().copied().filter(|e| !in_next.contains(e)).collect();
        let stayed: Vec<u64> = prev.iter().copied().filter(|e| in_next.contains(e)).collect();
        let kept_order: Vec<u64> = next.iter().copied().filter(|e| in_prev.contains(e)).collect();
        // Heads moved to the tail, in order: the kept order is the stayed one turned by r.
        let r = (0..stayed.len().max(1)).find(|&r| {
            stayed.len() == kept_order.len()
                && stayed[r..].iter().chain(&stayed[..r]).zip(&kept_order).all(|(a, b)| a == b)
        })?;
        let rotated: HashSet<u64> = stayed[..r].iter().copied().collect();
        for &x in prev.iter().filter(|e| removed.contains(e)) {
            let pop = self.popped_between(after, upto, x);
            if out.contains(&x) {
                if pop {
                    return None;
                }
                continue;
            }
            match k.iter().position(|&e| e == x) {
                Some(i) => {
                    if pop && !k[..i].iter().all(|e| removed.contains(e) || rotated.contains(e)) {
                        return None;
                    }
                    k.remove(i);
                }
                None if pop => return None,
                None => {}
            }
        }
        // Entries the kernel's pool gave in between that the model's no longer held (its decay
        // gave them back): popped from the kernel's head too.
        k.retain(|e| in_prev.contains(e) || !self.popped_between(after, upto, *e));
        for &x in &stayed[..r] {
            let i = k.iter().position(|&e| e == x)?;
            if !k[..i].iter().all(|e| rotated.contains(e)) {
                return None;
            }
            k.remove(i);
            k.push(x);
        }
        add_outside_walk(k, next, &in_prev, out);
        Some(())
    }

    /// [`Self::between`] where the model's pool met requests with a misaligned head: the
    /// kernel's pool met the same requests and pops in line order, each request its own head
    /// (`node_pool_del_va` looks at the head only): a misaligned one moved to the tail, an
    /// aligned one given, so the kernel's answer there, or the reading is refused. A pop takes
    /// the kernel's head; an entry gone otherwise (a decay's reading, an allocation over it)
    /// leaves wherever it stood.
    fn in_line_order(&self, k: &mut Vec<u64>, w: &Step<'_>) -> Option<()> {
        let Step { prev, next, out, rots, after, upto } = *w;
        let in_next: HashSet<u64> = next.iter().copied().collect();
        let in_prev: HashSet<u64> = prev.iter().copied().collect();
        let pop_at = |a: u64| self.pops.get(&a).and_then(|v| v.iter().copied().find(|&l| l > after && l <= upto));
        // (line, the entry popped or none: a request with alignment `align`).
        let mut ev: Vec<(usize, Option<u64>, u64)> = rots.iter().map(|&(l, a)| (l, None, a)).collect();
        for &x in prev.iter().filter(|e| !in_next.contains(e)) {
            match pop_at(x) {
                Some(_) if out.contains(&x) => return None,
                Some(l) => ev.push((l, Some(x), 0)),
                None => k.retain(|&e| e != x),
            }
        }
        // Entries the kernel's pool gave in between that the model's no longer held.
        for &e in k.iter().filter(|e| !in_prev.contains(e)) {
            if let Some(l) = pop_at(e) {
                ev.push((l, Some(e), 0));
            }
        }
        ev.sort_unstable();
        for (line, pop, align) in ev {
            match pop {
                Some(x) => {
                    if k.first() != Some(&x) {
                        return None;
                    }
                    k.remove(0);
                }
                None => {
                    let Some(&h) = k.first() else { continue };
                    if h % align != 0 {
                        k.rotate_left(1);
                    } else if self.allocated_at(line, h) {
                        k.remove(0);
                    } else {
                        return None;
                    }
                }
            }
        }
        add_outside_walk(k, next, &in_prev, out);
        Some(())
    }
}

/// The model's pool between two purges (or the last one and now): its list after the first
/// (`prev`) and before the second (`next`), the entries read out of it, the requests that met a
/// misaligned head, by line, and the lines (`after`, `upto`].
struct Step<'a> {
    prev: &'a [u64],
    next: &'a [u64],
    out: &'a HashSet<u64>,
    rots: &'a [(usize, u64)],
    after: usize,
    upto: usize,
}

/// Entries the model's pool gained outside a purge's walk (the rest of a purge split at a
/// node): at the kernel's head too.
fn add_outside_walk(k: &mut Vec<u64>, next: &[u64], in_prev: &HashSet<u64>, out: &HashSet<u64>) {
    let mut added: Vec<u64> =
        next.iter().copied().filter(|e| !in_prev.contains(e) && !out.contains(e) && !k.contains(e)).collect();
    if !added.is_empty() {
        added.append(k);
        *k = added;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = 0x1000;

    fn rec(line: usize, before: &[u64], after: &[u64]) -> PoolRec {
        PoolRec { line, decays: true, before: before.to_vec(), after: after.to_vec(), ..PoolRec::default() }
    }

    // Twelve entries pooled by the purge of line 10 (pushed ascending, so the highest is the
    // head), then purges at 20 and 30. By the kernel's rule the model gives back 12 >> 2 = 3
    // (0xc..0xa) at 20 and 9 >> 2 = 2 (0x9, 0x8) at 30. With 0x1 on the other node the kernel's
    // pool held 11: 2 at 20 (0xc, 0xb), then 9 >> 2 = 2 at 30 (0xa, 0x9), so it still holds
    // 0x8 .. 0x2.
    fn twelve() -> Vec<PoolRec> {
        let all: Vec<u64> = (1..=12).rev().map(|i| i * P).collect();
        vec![rec(10, &[], &all), rec(20, &all, &all[3..]), rec(30, &all[3..], &all[5..])]
    }

    #[test]
    fn one_entry_fewer_gives_back_fewer() {
        let h = PoolHistory::default();
        let recs = twelve();
        let now = recs[2].after.clone();
        let same = h.rerun(&recs, &now, &HashSet::default(), &HashMap::default(), P, 40).unwrap();
        assert_eq!(same, now);
        let out: HashSet<u64> = [P].into_iter().collect();
        let k = h.rerun(&recs, &now, &out, &HashMap::default(), P, 40).unwrap();
        assert_eq!(k, (2..=8).rev().map(|i| i * P).collect::<Vec<_>>());
    }

    #[test]
    fn an_entry_pooled_on_the_other_node_goes_in_by_address() {
        let h = PoolHistory::default();
        let recs = twelve();
        let now = recs[2].after.clone();
        // 0x7_8 (between 0x7 and 0x8, pushed at line 10 elsewhere): 13 entries, 3 then 2 given
        // back (0xc, 0xb, 0xa; 0x9, 0x8), the rest kept in address order.
        let extra = 7 * P + P / 2;
        let inn: HashMap<usize, Vec<u64>> = [(10, vec![extra])].into_iter().collect();
        let k = h.rerun(&recs, &now, &HashSet::default(), &inn, P, 40).unwrap();
        let mut want: Vec<u64> = (1..=7).rev().map(|i| i * P).collect();
        want.insert(0, extra);
        assert_eq!(k, want);
    }

    // The purge of line 20 replayed in two parts (allocations saw it part-way): at line 15 it
    // had decayed the other node only (this pool unchanged, no decay counted), at line 20 this
    // node's decay gave back 3. Counted again with 0x1 elsewhere: 2 then, as in one part; a
    // first part counted as a decay would give back 2 at 15 and 10 >> 2 = 2 more at 20.
    #[test]
    fn a_purge_in_parts_decays_each_pool_in_the_part_that_decayed_its_node() {
        let h = PoolHistory::default();
        let all: Vec<u64> = (1..=12).rev().map(|i| i * P).collect();
        let part = PoolRec { decays: false, ..rec(15, &all, &all) };
        let recs = vec![rec(10, &[], &all), part, rec(20, &all, &all[3..]), rec(30, &all[3..], &all[5..])];
        let now = recs[3].after.clone();
        let same = h.rerun(&recs, &now, &HashSet::default(), &HashMap::default(), P, 40).unwrap();
        assert_eq!(same, now);
        let out: HashSet<u64> = [P].into_iter().collect();
        let k = h.rerun(&recs, &now, &out, &HashMap::default(), P, 40).unwrap();
        assert_eq!(k, (2..=8).rev().map(|i| i * P).collect::<Vec<_>>());
    }

    // A request whose alignment the model's head 0x7 did not meet moved it to the tail after
    // the purge of line 30: followed as the model did; with 0x1 elsewhere the kernel's head was
    // 0x8, not 0x7, so that reading is refused.
    #[test]
    fn a_head_moved_to_the_tail_must_be_the_kernels_head() {
        let h = PoolHistory::default();
        let recs = twelve();
        let mut now: Vec<u64> = recs[2].after[1..].to_vec();
        now.push(7 * P);
        let k = h.rerun(&recs, &now, &HashSet::default(), &HashMap::default(), P, 40).unwrap();
        assert_eq!(k, now);
        assert_eq!(h.rerun(&recs, &now, &[P].into_iter().collect(), &HashMap::default(), P, 40), None);
    }

    // Eight entries from before the capture read at later allocations (the pool at the first
    // purge): that purge's decay gave back others in front of them, so the model keeps all
    // eight, and so does the count run again (not 8 >> 2 = 2); then 8 >> 2 = 2 at line 20.
    #[test]
    fn the_first_purge_keeps_the_entries_known_from_before_the_capture() {
        let h = PoolHistory::default();
        let known: Vec<u64> = (1..=8).rev().map(|i| 2 * i * P).collect();
        let first = PoolRec {
            line: 10,
            behind: true,
            decays: true,
            before: known.clone(),
            after: known.clone(),
            ..PoolRec::default()
        };
        let recs = vec![first, rec(20, &known, &known[2..])];
        let k = h.rerun(&recs, &known[2..], &HashSet::default(), &HashMap::default(), P, 30).unwrap();
        assert_eq!(k, known[2..]);
    }

    // The model's pool [p3 p2 p1] after the first purge, whose decays give back none (3 >> 2 = 0);
    // with the kernel's tail from before the capture [x u1 .. u5] behind them: 9 >> 2 = 2 at line
    // 20 (p3, p2), then 7 >> 2 = 1 at line 30 (p1): x is its head.
    #[test]
    fn a_tail_from_before_the_capture_goes_last() {
        let h = PoolHistory::default();
        let p: Vec<u64> = (1..=3).rev().map(|i| i * P).collect();
        let first = PoolRec { line: 10, behind: true, decays: true, after: p.clone(), ..PoolRec::default() };
        let recs = vec![first, rec(20, &p, &p), rec(30, &p, &p)];
        let x = 0x100 * P;
        let tail: Vec<u64> = std::iter::once(x).chain(1..=5).collect();
        let none = (HashSet::default(), HashMap::default());
        let k = h.rerun_held(&recs, &h.held_in(&recs), &p, &none.0, &none.1, &tail, P, 40).unwrap();
        assert_eq!(k, tail);
        // Without the tail the kernel's pool is the model's.
        assert_eq!(h.rerun_held(&recs, &h.held_in(&recs), &p, &none.0, &none.1, &[], P, 40).unwrap(), p);
    }

    // The first purge (line 10) pools a (misaligned for 4 pages, the higher: the head) and b
    // (aligned) in front of what the pool held before the capture; requests for 4-page
    // alignment at 20 and 40 find a misaligned head (the model's: a, then a again), and 30
    // takes b. The kernel's pool met the
    // same requests at its own head: [a b p x] -> 20 turns a -> [b p x a] -> 30 gives b -> 40
    // turns p (misaligned too) -> [x a p]. With no tail it is the model's: [a].
    #[test]
    fn requests_that_met_a_misaligned_head_turn_the_kernels_own_head() {
        let (a, b, x) = (0x105 * P, 0x104 * P, 0x200 * P);
        let first = PoolRec { line: 10, behind: true, decays: true, after: vec![a, b], ..PoolRec::default() };
        let recs = vec![first];
        let mut h = PoolHistory { rots: vec![(20, a, 4 * P), (40, a, 4 * P)], ..PoolHistory::default() };
        h.pops.insert(b, vec![30]);
        h.allocs.push((30, b, b + P));
        let none = (HashSet::default(), HashMap::default());
        let seen = h.held_in(&recs);
        // 1: a stand-in of an unseen entry (misaligned for any alignment above a byte).
        let k = h.rerun_held(&recs, &seen, &[a], &none.0, &none.1, &[1, x], P, 50).unwrap();
        assert_eq!(k, vec![x, a, 1]);
        assert_eq!(h.rerun_held(&recs, &seen, &[a], &none.0, &none.1, &[], P, 50).unwrap(), vec![a]);
        // An aligned head at a turn would have been given there: refused.
        let aligned = 0x300 * P;
        assert_eq!(h.rerun_held(&recs, &seen, &[a], &none.0, &none.1, &[aligned, x], P, 50), None);
    }

    #[test]
    fn a_pop_or_an_allocation_the_reading_contradicts_refuses_it() {
        let recs = twelve();
        let now = recs[2].after.clone();
        let out: HashSet<u64> = [P].into_iter().collect();
        // The kernel allocated over 0xa (given back by the model at 20) at line 25: with 0x1
        // elsewhere its pool still held 0xa then.
        let mut h = PoolHistory::default();
        h.allocs.push((25, 10 * P, 11 * P));
        assert_eq!(h.rerun(&recs, &now, &out, &HashMap::default(), P, 40), None);
        // After the kernel's own decay at 30 gave it back, the same allocation is no contradiction.
        let mut h = PoolHistory::default();
        h.allocs.push((35, 10 * P, 11 * P));
        assert!(h.rerun(&recs, &now, &out, &HashMap::default(), P, 40).is_some());
        // A pop of 0x7 at line 35 (the model's head then): the kernel's head was 0x8.
        let mut h = PoolHistory::default();
        h.pops.insert(7 * P, vec![35]);
        let now_after_pop: Vec<u64> = now[1..].to_vec();
        assert!(h.rerun(&recs, &now_after_pop, &HashSet::default(), &HashMap::default(), P, 40).is_some());
        assert_eq!(h.rerun(&recs, &now_after_pop, &out, &HashMap::default(), P, 40), None);
        // The entry read as the other node's, taken from this pool: refused.
        let mut h = PoolHistory::default();
        h.pops.insert(2 * P, vec![35]);
        let without_2: Vec<u64> = now.iter().copied().filter(|&e| e != 2 * P).collect();
        assert_eq!(h.rerun(&recs, &without_2, &[2 * P].into_iter().collect(), &HashMap::default(), P, 40), None);
    }
}
