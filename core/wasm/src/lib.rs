//! Thin wasm-bindgen facade over `vmapviz-core`: a [`Vmapviz`] session whose methods return
//! JSON text. 64-bit addresses and sizes travel as lower-case `0x` hex strings (JSON numbers
//! lose precision above 2^53); ids, counts and depths stay numbers. Which is which is decided
//! by each field's type ([`Addr`], [`Hex`]); every shape returned is a named type deriving
//! `TS`, from which `core/wasm/tests/contract.rs` writes `web/src/contract/`.

use std::collections::HashMap;

use serde::Serialize;
use ts_rs::TS;
pub use vmapviz_core::addr::{Addr, Hex};
use vmapviz_core::check::check_invariants;
use vmapviz_core::maple::MapleTreeJson;
use vmapviz_core::session::{
    AreasSnap, BusySnap, Frame, IndexSnap, LazySnap, NodeSnap, Opening, PoolSnap, SessionBuilder, StateSnap,
};
use vmapviz_core::{Profile, Session};
use wasm_bindgen::prelude::*;

#[cfg(feature = "bench")]
mod bench;
mod eras;
#[cfg(feature = "bench")]
pub use bench::BenchReplay;
pub use eras::eras;
#[cfg(feature = "workbench")]
mod figures;
#[cfg(feature = "workbench")]
pub use figures::{FragPoint, FragSeries};
mod maple;
pub use maple::{MapleFrameJson, MapleFramesJson};
#[cfg(feature = "workbench")]
mod frag;
#[cfg(feature = "workbench")]
pub use frag::*;
#[cfg(feature = "workbench")]
mod workbench;
#[cfg(feature = "workbench")]
pub use workbench::*;

/// Serialise as the contract says: each field's type decides its JSON kind ([`Addr`] and
/// [`Hex`] as `"0x…"` text, ids and counts as numbers; see `vmapviz_core::addr`).
pub fn to_json<T: Serialize>(t: &T) -> String {
    match serde_json::to_string(t) {
        Ok(s) => s,
        Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
    }
}

pub(crate) fn profile(name: &str) -> Result<Profile, JsError> {
    if name.is_empty() {
        return Ok(Profile::default());
    }
    Profile::parse(name)
        .ok_or_else(|| JsError::new(&format!("unknown profile `{name}` (known: {})", Profile::NAMES.join(", "))))
}

/// `""` for none, else a profile name.
#[cfg(feature = "workbench")]
pub(crate) fn opt_profile(name: &str) -> Result<Option<Profile>, JsError> {
    if name.is_empty() {
        Ok(None)
    } else {
        profile(name).map(Some)
    }
}

/// A trace opened a step at a time into a session, so that no caller waits long (the page's
/// main thread keeps its frame budget, the workbench's worker posts progress): a text is
/// parsed a slice of lines at a time (all or nothing: the first bad line wins), then its
/// operations are replayed. The workbench's build also starts from operations in hand
/// (`Loader.workload`, `Loader.capture`, `Loader.from_bytes`: no parse) or from a text parsed
/// at once (`Loader.parse`).
///
/// ```text
///   new(text) -> advance(n) ... advance(n) ... -> [2, ops, ops] -> finish()
///                [0, bytes, len]  [1, done, ops]
/// ```
#[wasm_bindgen]
pub struct Loader {
    /// `None` once finished, or after an error (nothing is kept).
    b: Option<SessionBuilder>,
    /// A capture's comparison with its kernel, for `Loader.report`.
    #[cfg(feature = "workbench")]
    report: Option<String>,
}

#[wasm_bindgen]
impl Loader {
    /// A text to parse and replay by `advance`; throws only on a text over the size limit.
    #[wasm_bindgen(constructor)]
    pub fn new(text: String) -> Result<Loader, JsError> {
        SessionBuilder::new(text).map(Loader::of).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Work through at most `n` lines (at least one): returns `[phase, done, total]`, phase 0
    /// parsing (bytes of the text), 1 replaying (operations), 2 done (`[2, ops, ops]`). A
    /// call that finishes the parse replays nothing. Throws `line N: ...` on a bad line or an
    /// operation the kernel would crash on, and keeps nothing.
    pub fn advance(&mut self, n: usize) -> Result<Vec<f64>, JsError> {
        let b = self.b.as_mut().ok_or_else(|| JsError::new("nothing to open: the loader is finished or failed"))?;
        let st = match b.advance(n) {
            Ok(st) => st,
            Err(e) => {
                self.b = None;
                return Err(JsError::new(&e.to_string()));
            }
        };
        Ok(match st {
            Opening::Parsing { done, total } => vec![0.0, done as f64, total as f64],
            Opening::Replaying { done, total } => vec![1.0, done as f64, total as f64],
            Opening::Done => {
                let ops = b.lines().len() as f64;
                vec![2.0, ops, ops]
            }
        })
    }

    /// The session, once `advance` reported done; the loader is left empty (`free` it when
    /// convenient). Throws before, and keeps nothing.
    pub fn finish(&mut self) -> Result<Vmapviz, JsError> {
        let b = self.b.take().ok_or_else(|| JsError::new("nothing to open: the loader is finished or failed"))?;
        match b.status() {
            Opening::Parsing { .. } => Err(JsError::new("the trace is not parsed yet")),
            Opening::Replaying { done, total } => {
                Err(JsError::new(&format!("only {done} of {total} operations are replayed")))
            }
            // `finish` is `Some` once done.
            Opening::Done => b.finish().map(|s| Vmapviz { s }).ok_or_else(|| JsError::new("the trace is not opened")),
        }
    }
}

impl Loader {
    fn of(b: SessionBuilder) -> Loader {
        Loader {
            b: Some(b),
            #[cfg(feature = "workbench")]
            report: None,
        }
    }
}

/// A replayed trace with checkpoints, stepping frames and live editing.
#[wasm_bindgen]
pub struct Vmapviz {
    s: Session,
}

#[wasm_bindgen]
impl Vmapviz {
    /// An empty session of a profile (`""` for the default, linux-5.2).
    #[wasm_bindgen(constructor)]
    pub fn new(profile_name: &str) -> Result<Vmapviz, JsError> {
        Ok(Vmapviz { s: Session::new(profile(profile_name)?) })
    }

    /// Parse and replay a whole trace; throws `line N: ...` and keeps nothing on error.
    pub fn load(text: &str) -> Result<Vmapviz, JsError> {
        Session::load(text).map(|s| Vmapviz { s }).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// JSON state before op `k` (`k == len()` for the current state).
    pub fn state(&self, k: usize) -> String {
        to_json(&self.s.state_before(k))
    }

    /// JSON frames of op `k`, or `null`: `{index, line, text, output, warning, before, after,
    /// frames: [{event, tree, areas}], index_deltas: [IndexDelta], area_deltas: [AreaDelta]}`.
    /// The era's index after each event travels as a change to the one before it (see
    /// [`index_deltas`]: a free tree as a delta, which keeps an operation on a tree of 1,000
    /// nodes to a few KB instead of megabytes; a maple tree whole); so do the busy, lazy and
    /// pooled areas (`area_deltas[i]` takes area snapshot `i` to `i + 1`; snapshot 0 is
    /// `before`'s).
    pub fn frames(&self, k: usize) -> String {
        match self.s.frames(k) {
            Some(f) => to_json(&FramesJson {
                index: f.index,
                line: f.line,
                text: &f.text,
                output: &f.output,
                warning: &f.warning,
                before: &f.before,
                after: &f.after,
                frames: &f.frames,
                index_deltas: index_deltas(&f.before.index, &f.trees),
                area_deltas: area_deltas(&f.areas),
            }),
            None => "null".into(),
        }
    }

    /// One byte per op of `from..to` (clamped): bit 1 an NE split, 2 a merge, 4 a rotation
    /// (`MARK_*` in the core). A replay without snapshots, for the timeline's markers.
    pub fn marks(&self, from: usize, to: usize) -> Vec<u8> {
        self.s.marks(from, to)
    }

    /// JSON summaries (`{index, line, text, output, warning}`) of ops `from..to`.
    pub fn summaries(&self, from: usize, to: usize) -> String {
        let to = to.min(self.s.len());
        let v: Vec<_> = (from.min(to)..to).map(|k| self.s.summary(k)).collect();
        to_json(&v)
    }

    /// Append one trace line; returns its JSON summary, throws on a bad line (nothing changes).
    pub fn push(&mut self, line: &str) -> Result<String, JsError> {
        self.s.push_text(line).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(to_json(&self.s.summary(self.s.len() - 1)))
    }

    /// Append one line typed by a person: like `push`, but a request that is the caller's
    /// mistake (a free of nothing, a double free, an empty window, ...) is refused too.
    pub fn push_checked(&mut self, line: &str) -> Result<String, JsError> {
        self.s.push_checked(line).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(to_json(&self.s.summary(self.s.len() - 1)))
    }

    /// Drop the operations from `k` on.
    pub fn truncate(&mut self, k: usize) {
        self.s.truncate(k);
    }

    /// The trace as text.
    pub fn trace_text(&self) -> String {
        self.s.trace_text()
    }

    /// Everything the replay printed (the conformance output format).
    pub fn output(&self) -> String {
        self.s.output().to_string()
    }

    /// An invariant violation of the current state, or `undefined`.
    pub fn check(&self) -> Option<String> {
        check_invariants(&self.s.current().vmap).err()
    }
}

/// What `frames(k)` returns (or `null` past the end).
#[derive(Serialize, TS)]
pub struct FramesJson<'a> {
    pub index: usize,
    pub line: usize,
    pub text: &'a str,
    pub output: &'a str,
    pub warning: &'a Option<String>,
    pub before: &'a StateSnap,
    pub after: &'a StateSnap,
    pub frames: &'a [Frame],
    pub index_deltas: Vec<IndexDelta<'a>>,
    pub area_deltas: Vec<AreaDelta<'a>>,
}

/// How one snapshot of the free tree differs from the one before it: the root, the nodes that
/// are new or changed (anything but `depth`) and the ids of those that left the tree. The
/// receiver rebuilds the snapshot (pre-order from the root, depths counted on the way).
#[derive(Serialize, TS, Debug, PartialEq)]
pub struct TreeDelta<'a> {
    pub root: Option<u32>,
    pub set: Vec<&'a NodeSnap>,
    pub del: Vec<u32>,
}

/// How one snapshot of the era's index differs from the one before it, tagged by the index's
/// kind: a free tree as a [`TreeDelta`] (`{"kind": "free_tree", root, set, del}`), a maple
/// tree whole (`{"kind": "maple", tree}`: a few KB for the trees a player steps through).
#[derive(Serialize, TS, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexDelta<'a> {
    FreeTree { root: Option<u32>, set: Vec<&'a NodeSnap>, del: Vec<u32> },
    Maple { tree: &'a MapleTreeJson },
}

/// The deltas that take `base` to `snaps[0]`, `snaps[0]` to `snaps[1]`, and so on. Between
/// two free trees, the nodes that changed; a free tree after another kind of index is sent
/// from empty.
pub fn index_deltas<'a>(base: &'a IndexSnap, snaps: &'a [IndexSnap]) -> Vec<IndexDelta<'a>> {
    let mut out = Vec::with_capacity(snaps.len());
    let mut prev = base;
    for s in snaps {
        match s {
            IndexSnap::Maple { tree } => out.push(IndexDelta::Maple { tree }),
            IndexSnap::FreeTree { nodes, .. } => {
                let mut d = tree_deltas(prev.free_nodes(), std::slice::from_ref(nodes));
                if let Some(TreeDelta { root, set, del }) = d.pop() {
                    out.push(IndexDelta::FreeTree { root, set, del });
                }
            }
        }
        prev = s;
    }
    out
}

/// The deltas that take `base` to `trees[0]`, `trees[0]` to `trees[1]`, and so on.
pub fn tree_deltas<'a>(base: &'a [NodeSnap], trees: &'a [Vec<NodeSnap>]) -> Vec<TreeDelta<'a>> {
    let same = |a: &NodeSnap, b: &NodeSnap| {
        (a.va_start, a.va_end, a.subtree_max_size, a.black, a.parent, a.left, a.right)
            == (b.va_start, b.va_end, b.subtree_max_size, b.black, b.parent, b.left, b.right)
    };
    let mut prev: HashMap<u32, &NodeSnap> = base.iter().map(|n| (n.id, n)).collect();
    let mut out = Vec::with_capacity(trees.len());
    for t in trees {
        let now: HashMap<u32, &NodeSnap> = t.iter().map(|n| (n.id, n)).collect();
        let set = t.iter().filter(|n| prev.get(&n.id).is_none_or(|p| !same(p, n))).collect();
        let mut del: Vec<u32> = prev.keys().filter(|id| !now.contains_key(id)).copied().collect();
        del.sort_unstable();
        out.push(TreeDelta { root: t.first().map(|n| n.id), set, del });
        prev = now;
    }
    out
}

/// How one snapshot of the busy, lazy and pooled areas differs from the one before it: the
/// busy areas that are new or changed and the ids of those that left (the receiver keeps them
/// in address order), and the lazy and pooled lists whole when they changed (`null` if not).
#[derive(Serialize, TS, Debug, PartialEq)]
pub struct AreaDelta<'a> {
    pub lazy_nr: u64,
    pub busy_set: Vec<&'a BusySnap>,
    pub busy_del: Vec<u32>,
    pub lazy: Option<&'a [LazySnap]>,
    pub pools: Option<&'a [PoolSnap]>,
}

/// The deltas that take `areas[0]` to `areas[1]`, `areas[1]` to `areas[2]`, and so on.
pub fn area_deltas(areas: &[AreasSnap]) -> Vec<AreaDelta<'_>> {
    let mut out = Vec::with_capacity(areas.len().saturating_sub(1));
    for w in areas.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let prev: HashMap<u32, &BusySnap> = a.busy.iter().map(|x| (x.id, x)).collect();
        let now: HashMap<u32, &BusySnap> = b.busy.iter().map(|x| (x.id, x)).collect();
        let busy_set = b.busy.iter().filter(|x| prev.get(&x.id).is_none_or(|p| p != x)).collect();
        let mut busy_del: Vec<u32> = prev.keys().filter(|id| !now.contains_key(id)).copied().collect();
        busy_del.sort_unstable();
        out.push(AreaDelta {
            lazy_nr: b.lazy_nr,
            busy_set,
            busy_del,
            lazy: (a.lazy != b.lazy).then_some(b.lazy.as_slice()),
            pools: (a.pools != b.pools).then_some(b.pools.as_slice()),
        });
    }
    out
}

/// A test hook: panics, so the instance traps as it would on a bug or an exhausted memory
/// (`e2e/trap.spec.ts` checks that the page makes a new instance and keeps what it showed).
#[wasm_bindgen(js_name = debugTrap)]
pub fn debug_trap() {
    panic!("forced trap (test hook)");
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rebuild snapshots from deltas the way the page does (web/src/bridge.ts): apply the
    /// changes to a map by id, then walk from the root in pre-order counting depths.
    fn rebuild(base: &[NodeSnap], deltas: &[TreeDelta<'_>]) -> Vec<Vec<NodeSnap>> {
        let mut by_id: HashMap<u32, NodeSnap> = base.iter().map(|n| (n.id, n.clone())).collect();
        let mut out = Vec::new();
        for d in deltas {
            for id in &d.del {
                by_id.remove(id);
            }
            for n in &d.set {
                by_id.insert(n.id, (*n).clone());
            }
            let mut tree = Vec::new();
            let mut stack: Vec<(u32, u32)> = d.root.map(|r| (r, 0)).into_iter().collect();
            while let Some((id, depth)) = stack.pop() {
                let n = NodeSnap { depth, ..by_id[&id].clone() };
                stack.extend(n.right.map(|c| (c, depth + 1)));
                stack.extend(n.left.map(|c| (c, depth + 1)));
                tree.push(n);
            }
            assert_eq!(tree.len(), by_id.len(), "every node kept is reachable from the root");
            out.push(tree);
        }
        out
    }

    /// Random allocations and frees (rotations, merges on both sides, NE splits, erases):
    /// every delta rebuilds exactly the core's snapshot.
    #[test]
    fn deltas_rebuild_every_snapshot() {
        let mut s = Session::new(Profile::Linux61);
        s.push_text("init 0x100000 0x400000").unwrap();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut live = Vec::new();
        for i in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 3 == 2 && !live.is_empty() {
                let a: u64 = live.swap_remove((x % live.len() as u64) as usize);
                s.push_text(&format!("free {a:#x}")).unwrap();
            } else {
                let size = ((x >> 8) % 6 + 1) * 0x1000;
                s.push_text(&format!("alloc {size:#x} 0x1000 0x100000 0x400000")).unwrap();
                let out = s.op_output(s.len() - 1);
                let a = out.trim().strip_prefix("alloc -> 0x").unwrap();
                live.push(u64::from_str_radix(a, 16).unwrap());
            }
        }
        let (mut rotations, mut sent, mut whole) = (0, 0, 0);
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            let trees: Vec<Vec<NodeSnap>> = f.trees.iter().map(|t| t.free_nodes().to_vec()).collect();
            let base = f.before.index.free_nodes();
            let deltas = tree_deltas(base, &trees);
            assert_eq!(rebuild(base, &deltas), trees, "op {k}");
            assert_eq!(f.trees.last(), Some(&f.after.index), "op {k} ends on the state after it");
            // The tagged deltas the facade sends are the same changes.
            let tagged = index_deltas(&f.before.index, &f.trees);
            assert_eq!(tagged.len(), deltas.len());
            for (t, d) in tagged.iter().zip(&deltas) {
                let IndexDelta::FreeTree { root, set, del } = t else { panic!("op {k}: a free-tree profile") };
                assert_eq!((root, set, del), (&d.root, &d.set, &d.del), "op {k}");
            }
            rotations += f.frames.iter().filter(|fr| matches!(fr.event, vmapviz_core::Event::Rotate { .. })).count();
            sent += deltas.iter().map(|d| d.set.len()).sum::<usize>();
            whole += trees.iter().map(Vec::len).sum::<usize>();
        }
        assert!(rotations > 10, "the trace rotates ({rotations})");
        assert!(sent * 4 < whole, "deltas are smaller than snapshots: {sent} of {whole} nodes");
    }
    /// The area deltas rebuild every area snapshot (busy kept in address order, lazy and
    /// pools whole when they change), on a 6.9 trace with lazy frees, purges and pools.
    #[test]
    fn area_deltas_rebuild_every_snapshot() {
        let mut s = Session::new(Profile::Linux69);
        s.push_text("cpus 2").unwrap();
        let mut live = Vec::new();
        for i in 0..120u64 {
            if i % 4 == 3 {
                let a: u64 = live.remove((i as usize * 7) % live.len());
                let op = if i % 8 == 3 { "vfree" } else { "free" };
                s.push_text(&format!("{op} {a:#x}")).unwrap();
            } else if i % 17 == 16 {
                s.push_text("purge").unwrap();
            } else {
                s.push_text(&format!("cpu {}", i % 2)).unwrap();
                let size = (i % 3 + 1) * 0x2000;
                s.push_text(&format!("alloc {size:#x} 0x1 0xffffc90000000000 0xffffe8ffffffffff")).unwrap();
                let out = s.op_output(s.len() - 1);
                let a = out.trim().strip_prefix("alloc -> 0x").unwrap();
                live.push(u64::from_str_radix(a, 16).unwrap());
            }
        }
        let mut changed = 0;
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            let mut cur = f.areas[0].clone();
            for (i, d) in area_deltas(&f.areas).iter().enumerate() {
                cur.busy.retain(|b| !d.busy_del.contains(&b.id));
                for b in &d.busy_set {
                    cur.busy.retain(|x| x.id != b.id);
                    cur.busy.push((*b).clone());
                }
                cur.busy.sort_by_key(|b| b.va_start);
                cur.lazy_nr = d.lazy_nr;
                if let Some(l) = d.lazy {
                    cur.lazy = l.to_vec();
                }
                if let Some(p) = d.pools {
                    cur.pools = p.to_vec();
                }
                assert_eq!(cur, f.areas[i + 1], "op {k} snapshot {}", i + 1);
                changed += 1;
            }
        }
        assert!(changed > 100, "{changed} area snapshots");
    }
}
