//! The maple tree's player session for the page: a `profile maple-tree` trace replayed with
//! checkpoints (`vmapviz_core::maple::MapleSession`), its states and its frames as JSON. Like the
//! rest of the facade, every shape returned is a named type deriving `TS` (written to
//! `web/src/contract/` by `core/wasm/tests/contract.rs`): pivots, limits and gaps travel as
//! `0x` hex text ([`Addr`](vmapviz_core::addr::Addr)); ids, depths, slots and counts as numbers.
//!
//! A tree is the core's [`MapleTreeJson`] (nodes in pre-order, `type` `leaf`/`arange`/`range`,
//! `k` `E`/`N`/`C` as in the conformance dumps); an event is the core's [`MapleEvent`], tagged by
//! `kind`.

use std::fmt::Write as _;

use serde::Serialize;
use ts_rs::TS;
use vmapviz_core::maple::{
    is_maple_trace, MapleEvent, MapleOpFrames, MapleSession, MapleSnap, MapleTreeJson, NodeKind,
};
use vmapviz_core::session::OpSummary;
use wasm_bindgen::prelude::*;

use crate::to_json;

/// One step of a maple operation: the event and the index into `trees` of the tree after it.
#[derive(Serialize, TS)]
pub struct MapleFrameJson<'a> {
    pub event: &'a MapleEvent,
    pub tree: usize,
}

/// What `MapleView::frames(k)` returns (or `null` past the end); `trees[0]` is the tree before
/// the operation, the last one the tree after it.
#[derive(Serialize, TS)]
pub struct MapleFramesJson<'a> {
    pub index: usize,
    pub line: usize,
    pub text: &'a str,
    pub output: &'a str,
    pub trees: Vec<MapleTreeJson>,
    pub frames: Vec<MapleFrameJson<'a>>,
}

impl<'a> MapleFramesJson<'a> {
    pub fn of(f: &'a MapleOpFrames) -> MapleFramesJson<'a> {
        MapleFramesJson {
            index: f.index,
            line: f.line,
            text: &f.text,
            output: &f.output,
            trees: f.trees.iter().map(MapleTreeJson::from_snap).collect(),
            frames: f.frames.iter().map(|fr| MapleFrameJson { event: &fr.event, tree: fr.tree }).collect(),
        }
    }
}

/// A tree snapshot as JSON: the core's [`MapleTreeJson`], the shape a `maple-rfc` state's
/// occupied tree has too.
pub fn snap_json(s: &MapleSnap) -> String {
    to_json(&MapleTreeJson::from_snap(s))
}

/// Op `k`'s summary (the vmalloc session's shape; a maple trace has no warnings).
fn summary(s: &MapleSession, k: usize) -> Option<OpSummary> {
    s.op(k).map(|l| OpSummary {
        index: k,
        line: l.line,
        text: l.text.clone(),
        output: s.op_output(k).to_string(),
        warning: None,
    })
}

/// True when a trace's first line (past blanks and comments) is `profile maple-tree`.
#[wasm_bindgen(js_name = isMapleTrace)]
pub fn is_maple(text: &str) -> bool {
    is_maple_trace(text)
}

/// A `profile maple-tree` trace replayed with checkpoints, for the player.
#[wasm_bindgen]
pub struct MapleView {
    s: MapleSession,
}

#[wasm_bindgen]
impl MapleView {
    /// Parse and replay a whole trace; throws `line N: ...` and keeps nothing on error.
    pub fn load(text: &str) -> Result<MapleView, JsError> {
        MapleSession::load(text).map(|s| MapleView { s }).map_err(|e| JsError::new(&e.to_string()))
    }

    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// The tree before op `k` (`k == len()` for the current tree), as JSON.
    pub fn state(&self, k: usize) -> String {
        snap_json(&self.s.state_before(k))
    }

    /// Op `k`'s frames as JSON, or `null`.
    pub fn frames(&self, k: usize) -> String {
        self.s.frames(k).map_or_else(|| "null".into(), |f| to_json(&MapleFramesJson::of(&f)))
    }

    /// JSON summaries of ops `from..to`.
    pub fn summaries(&self, from: usize, to: usize) -> String {
        let to = to.min(self.s.len());
        let v: Vec<OpSummary> = (from.min(to)..to).filter_map(|k| summary(&self.s, k)).collect();
        to_json(&v)
    }

    /// Append one operation line; its JSON summary, or the core's message (nothing changes).
    pub fn push(&mut self, line: &str) -> Result<String, JsError> {
        self.s.push_text(line).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(to_json(&summary(&self.s, self.s.len() - 1)))
    }

    pub fn truncate(&mut self, k: usize) {
        self.s.truncate(k);
    }

    pub fn trace_text(&self) -> String {
        self.s.trace_text()
    }

    /// Everything the replay printed (the conformance output).
    pub fn output(&self) -> String {
        self.s.output()
    }

    /// The conformance dump of the tree before op `k` (`k == len()`: the current tree).
    pub fn dump(&self, k: usize) -> String {
        let s = self.s.state_before(k);
        let mut out = format!("dump height={} nodes={}\n", s.height, s.nodes.len());
        if s.nodes.is_empty() {
            out.push_str("root NULL\n");
        }
        for n in &s.nodes {
            let ty = match n.kind {
                NodeKind::Leaf => "leaf",
                NodeKind::Arange => "arange",
                NodeKind::Range => "range",
            };
            let _ = write!(out, "node {} {ty} min={:#x} max={:#x} end={}", n.depth, n.min, n.max, n.end);
            if n.kind == NodeKind::Arange {
                let _ = write!(out, " mgap={}", n.meta_gap);
            }
            out.push_str(" |");
            for (i, p) in n.pivots.iter().enumerate() {
                let k = if n.kind == NodeKind::Leaf {
                    if n.entries.get(i).copied().flatten().is_some() {
                        'E'
                    } else {
                        'N'
                    }
                } else {
                    'C'
                };
                let _ = write!(out, " {i}:{p:#x}:{k}");
                if let Some(g) = n.gaps.get(i) {
                    let _ = write!(out, ":{g:#x}");
                }
            }
            out.push('\n');
        }
        out.push_str("enddump\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use vmapviz_core::addr::Addr;
    use vmapviz_core::maple::StoreType;

    /// The wire form the maple view reads, written out by hand: event kinds and their fields,
    /// `null` for a root store's node, hex limits, numbers for slots and counts.
    #[test]
    fn event_and_frame_wire_form() {
        let ev = |e: MapleEvent| to_json(&e);
        assert_eq!(
            ev(MapleEvent::StoreTypeChosen { store: StoreType::StoreRoot, node: u32::MAX, new_end: 0 }),
            r#"{"kind":"store_type","store":"wr_store_root","node":null,"new_end":0}"#
        );
        assert_eq!(
            ev(MapleEvent::StoreTypeChosen { store: StoreType::SplitStore, node: 3, new_end: 16 }),
            r#"{"kind":"store_type","store":"wr_split_store","node":3,"new_end":16}"#
        );
        assert_eq!(
            ev(MapleEvent::SlotScanned { node: 1, slot: 2, gap: Addr(0x3000), fits: true }),
            r#"{"kind":"scan","node":1,"slot":2,"gap":"0x3000","fits":true}"#
        );
        assert_eq!(
            ev(MapleEvent::HoleFound { index: Addr(0x1000), last: Addr(u64::MAX) }),
            r#"{"kind":"found","index":"0x1000","last":"0xffffffffffffffff"}"#
        );
        assert_eq!(ev(MapleEvent::PushToSibling { left: false }), r#"{"kind":"push_sibling","left":false}"#);
        assert_eq!(ev(MapleEvent::NoHole { err: -16 }), r#"{"kind":"no_hole","err":-16}"#);
        let mut s = MapleSession::new();
        s.push_text("store 0x1000 0x1fff").unwrap();
        let v = MapleView { s };
        let f = v.frames(0);
        assert!(
            f.starts_with(
                r#"{"index":0,"line":2,"text":"store 0x1000 0x1fff","output":"store 0x1000 0x1fff ok\n","trees":[{"height":0,"nodes":[]},"#
            ),
            "{f}"
        );
        assert!(
            f.contains(
                r#""frames":[{"event":{"kind":"store_begin","first":"0x1000","last":"0x1fff","erase":false},"tree":0}"#
            ),
            "{f}"
        );
        assert_eq!(
            v.summaries(0, 9),
            r#"[{"index":0,"line":2,"text":"store 0x1000 0x1fff","output":"store 0x1000 0x1fff ok\n","warning":null}]"#
        );
    }

    #[test]
    fn json_is_valid_and_hex() {
        let mut s = MapleSession::new();
        for i in 0..40u64 {
            s.push_text(&format!("store {:#x} {:#x}", i * 0x3000, i * 0x3000 + 0xfff)).unwrap();
        }
        s.push_text("erase 0x3000 0x8fff").unwrap();
        s.push_text("empty 0x0 0xffffffff 0x4000").unwrap();
        s.push_text("dump").unwrap();
        let v = MapleView { s };
        let st: Value = serde_json::from_str(&v.state(v.len())).unwrap();
        assert!(st["height"].as_u64().unwrap() >= 2);
        assert_eq!(st["nodes"][0]["type"], "arange");
        assert_eq!(st["nodes"][0]["min"], "0x0");
        assert_eq!(st["nodes"][0]["max"], "0xffffffffffffffff");
        for k in 0..v.len() {
            let f: Value = serde_json::from_str(&v.frames(k)).unwrap();
            assert_eq!(f["index"], k);
            let trees = f["trees"].as_array().unwrap().len();
            for fr in f["frames"].as_array().unwrap() {
                assert!((fr["tree"].as_u64().unwrap() as usize) < trees, "op {k}: a frame names a tree sent");
            }
            if f["text"].as_str().unwrap().starts_with("store") {
                assert!(trees >= 2, "op {k}: a store of a new range changes the tree");
            }
        }
        let f: Value = serde_json::from_str(&v.frames(v.len() - 2)).unwrap();
        let kinds: Vec<&str> =
            f["frames"].as_array().unwrap().iter().map(|x| x["event"]["kind"].as_str().unwrap()).collect();
        assert!(kinds.contains(&"scan") && kinds.last() == Some(&"found"), "{kinds:?}");
        assert_eq!(v.frames(v.len()), "null");
        let sums: Value = serde_json::from_str(&v.summaries(0, 2)).unwrap();
        assert_eq!(sums[1]["text"], "store 0x3000 0x3fff");
        assert_eq!(sums[1]["line"], 3);
        // The facade's dump is the core's.
        assert_eq!(v.dump(v.len() - 1), v.s.op_output(v.len() - 1));
        assert!(v.dump(v.len()).contains("node 0 arange"));
    }
}
