//! The maple tree's player session for the page: a `profile maple-tree` trace replayed with
//! checkpoints (`vmapviz_core::maple::MapleSession`), its states and its frames as JSON. Like the
//! rest of the facade, 64-bit values (pivots, limits, gaps, indices) travel as lower-case `0x`
//! hex strings; ids, depths, slots and counts are numbers. The JSON is written here directly,
//! so this file does not depend on the facade's generic number rewriting.
//!
//! A tree (`MapleSnap`): `{"height":H,"nodes":[{"id","parent","parent_slot","depth","type",
//! "min","max","end","mgap","slots":[{"piv","k","child","gap"}]}]}`, nodes in pre-order,
//! `type` `leaf`/`arange`/`range`, `k` `E`/`N`/`C` as in the conformance dumps, `child` a node
//! id or null, `gap` hex (arange) or null.

use std::fmt::Write as _;

use vmapviz_core::maple::{
    is_maple_trace, MapleEvent, MapleOpFrames, MapleSession, MapleSnap, MapleTreeJson, NodeKind, StoreType,
};
use wasm_bindgen::prelude::*;

fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn hex(v: u64) -> String {
    format!("\"{v:#x}\"")
}

/// A tree snapshot as JSON: the core's [`MapleTreeJson`], the shape a `maple-rfc` state's
/// occupied tree has too.
pub fn snap_json(s: &MapleSnap) -> String {
    serde_json::to_string(&MapleTreeJson::from_snap(s)).unwrap_or_else(|_| "null".into())
}

fn store_name(s: StoreType) -> &'static str {
    match s {
        StoreType::StoreRoot => "wr_store_root",
        StoreType::SpanningStore => "wr_spanning_store",
        StoreType::ExactFit => "wr_exact_fit",
        StoreType::NewRoot => "wr_new_root",
        StoreType::Rebalance => "wr_rebalance",
        StoreType::NodeStore => "wr_node_store",
        StoreType::SplitStore => "wr_split_store",
        StoreType::Append => "wr_append",
        StoreType::SlotStore => "wr_slot_store",
    }
}

/// One event as JSON: `{"kind":…, fields}`.
pub fn event_json(e: &MapleEvent) -> String {
    match *e {
        MapleEvent::StoreBegin { first, last, erase } => {
            format!(
                "{{\"kind\":\"store_begin\",\"first\":{},\"last\":{},\"erase\":{erase}}}",
                hex(first.0),
                hex(last.0)
            )
        }
        MapleEvent::StoreTypeChosen { store, node, new_end } => {
            let node = if node == u32::MAX { "null".to_string() } else { node.to_string() };
            format!(
                "{{\"kind\":\"store_type\",\"store\":\"{}\",\"node\":{node},\"new_end\":{new_end}}}",
                store_name(store)
            )
        }
        MapleEvent::Split { node, b_end, cut, mid } => {
            format!("{{\"kind\":\"split\",\"node\":{node},\"b_end\":{b_end},\"cut\":{cut},\"mid\":{mid}}}")
        }
        MapleEvent::PushToSibling { left } => format!("{{\"kind\":\"push_sibling\",\"left\":{left}}}"),
        MapleEvent::Rebalance { node } => format!("{{\"kind\":\"rebalance\",\"node\":{node}}}"),
        MapleEvent::Spanning { first, last } => {
            format!("{{\"kind\":\"spanning\",\"first\":{},\"last\":{}}}", hex(first.0), hex(last.0))
        }
        MapleEvent::GapUpdate { node, slot, gap, stop } => {
            format!(
                "{{\"kind\":\"gap_update\",\"node\":{node},\"slot\":{slot},\"gap\":{},\"stop\":{stop}}}",
                hex(gap.0)
            )
        }
        MapleEvent::NodeVisited { node, min, max } => {
            format!("{{\"kind\":\"visit\",\"node\":{node},\"min\":{},\"max\":{}}}", hex(min.0), hex(max.0))
        }
        MapleEvent::SlotScanned { node, slot, gap, fits } => {
            format!("{{\"kind\":\"scan\",\"node\":{node},\"slot\":{slot},\"gap\":{},\"fits\":{fits}}}", hex(gap.0))
        }
        MapleEvent::Descend { node, slot } => format!("{{\"kind\":\"descend\",\"node\":{node},\"slot\":{slot}}}"),
        MapleEvent::Skip { node, slot } => format!("{{\"kind\":\"skip\",\"node\":{node},\"slot\":{slot}}}"),
        MapleEvent::Ascend { node } => format!("{{\"kind\":\"ascend\",\"node\":{node}}}"),
        MapleEvent::HoleFound { index, last } => {
            format!("{{\"kind\":\"found\",\"index\":{},\"last\":{}}}", hex(index.0), hex(last.0))
        }
        MapleEvent::NoHole { err } => format!("{{\"kind\":\"no_hole\",\"err\":{err}}}"),
        MapleEvent::StoreDone { height, nodes } => {
            format!("{{\"kind\":\"store_done\",\"height\":{height},\"nodes\":{nodes}}}")
        }
    }
}

/// One operation's frames as JSON: `{index, line, text, output, trees: [tree], frames:
/// [{event, tree}]}`; `trees[0]` is the tree before the operation, the last one after it.
pub fn frames_json(f: &MapleOpFrames) -> String {
    let mut o = format!(
        "{{\"index\":{},\"line\":{},\"text\":{},\"output\":{},\"trees\":[",
        f.index,
        f.line,
        q(&f.text),
        q(&f.output)
    );
    for (i, t) in f.trees.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str(&snap_json(t));
    }
    o.push_str("],\"frames\":[");
    for (i, fr) in f.frames.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(o, "{{\"event\":{},\"tree\":{}}}", event_json(&fr.event), fr.tree);
    }
    o.push_str("]}");
    o
}

fn summary_json(s: &MapleSession, k: usize) -> String {
    match s.op(k) {
        Some(l) => format!(
            "{{\"index\":{k},\"line\":{},\"text\":{},\"output\":{},\"warning\":null}}",
            l.line,
            q(&l.text),
            q(s.op_output(k))
        ),
        None => "null".into(),
    }
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
        self.s.frames(k).map_or_else(|| "null".into(), |f| frames_json(&f))
    }

    /// JSON summaries of ops `from..to`.
    pub fn summaries(&self, from: usize, to: usize) -> String {
        let to = to.min(self.s.len());
        let v: Vec<String> = (from.min(to)..to).map(|k| summary_json(&self.s, k)).collect();
        format!("[{}]", v.join(","))
    }

    /// Append one operation line; its JSON summary, or the core's message (nothing changes).
    pub fn push(&mut self, line: &str) -> Result<String, JsError> {
        self.s.push_text(line).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(summary_json(&self.s, self.s.len() - 1))
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
