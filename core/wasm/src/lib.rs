//! Thin wasm-bindgen facade over `vmapviz-core`: a [`Vmapviz`] session whose methods return
//! JSON text. 64-bit addresses and sizes travel as lower-case `0x` hex strings (JSON numbers
//! lose precision above 2^53); ids, counts and depths stay numbers.

use serde::Serialize;
use serde_json::Value;
use vmapviz_core::check::check_invariants;
use vmapviz_core::contention::sweep as contention_sweep_core;
use vmapviz_core::counters::{CounterObserver, Counters};
use vmapviz_core::sweep::{sweep, SweepShape};
use vmapviz_core::{Profile, Session};
use wasm_bindgen::prelude::*;

/// Keys whose values are small integers (ids, counts, depths), kept as JSON numbers.
const NUMBER_KEYS: &[&str] = &[
    "id", "parent", "left", "right", "survivor", "removed", "old_top", "new_top", "prev", "next", "node", "pool",
    "case", "taken", "kept", "count", "purged", "index", "line", "tree", "depth", "cpus", "cpu", "nr_nodes", "lazy_nr",
    "lazy_max", "root", "ops",
];

fn hexify(v: Value, key: &str) -> Value {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(u) if !NUMBER_KEYS.contains(&key) => Value::String(format!("{u:#x}")),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|x| hexify(x, key)).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, x)| {
                    let y = hexify(x, &k);
                    (k, y)
                })
                .collect(),
        ),
        other => other,
    }
}

/// Serialise with addresses as hex strings.
pub fn to_json<T: Serialize>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(v) => hexify(v, "").to_string(),
        Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
    }
}

fn profile(name: &str) -> Result<Profile, JsError> {
    if name.is_empty() {
        return Ok(Profile::default());
    }
    Profile::parse(name)
        .ok_or_else(|| JsError::new(&format!("unknown profile `{name}` (known: linux-5.2, linux-6.1, linux-6.9)")))
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

    /// JSON frames of op `k`, or `null`.
    pub fn frames(&self, k: usize) -> String {
        match self.s.frames(k) {
            Some(f) => to_json(&f),
            None => "null".into(),
        }
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

    /// JSON `{ per_op: [Counters...], total: Counters }` for ops `from..to` (events counted on
    /// a replay; costs time proportional to the range).
    pub fn counters(&self, from: usize, to: usize) -> String {
        #[derive(Serialize)]
        struct Out {
            per_op: Vec<Counters>,
            total: Counters,
        }
        let to = to.min(self.s.len());
        let from = from.min(to);
        let mut r = self.s.replayer_before(from);
        let mut c = CounterObserver::default();
        let mut sink = String::new();
        let mut per_op = Vec::with_capacity(to - from);
        for l in &self.s.ops()[from..to] {
            let _ = r.apply(&l.op, &mut sink, &mut c);
            sink.clear();
            per_op.push(c.end_op());
        }
        to_json(&Out { per_op, total: c.total })
    }

    /// An invariant violation of the current state, or `undefined`.
    pub fn check(&self) -> Option<String> {
        check_invariants(&self.s.current().vmap).err()
    }
}

/// JSON cost sweep: average counters per operation for each live count (comma-separated).
/// `shape` is `long_busy` or `random`.
#[wasm_bindgen]
pub fn cost_sweep(profile_name: &str, shape: &str, lives: &str, rounds: usize) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let shape = SweepShape::parse(shape).ok_or_else(|| JsError::new("shape must be long_busy or random"))?;
    let lives = parse_list(lives)?;
    Ok(to_json(&sweep(p, shape, &lives, rounds.min(100_000))))
}

/// JSON contention model for each CPU count (comma-separated).
#[wasm_bindgen]
pub fn contention(profile_name: &str, cpus: &str, pairs_per_cpu: usize) -> Result<String, JsError> {
    let p = profile(profile_name)?;
    let cpus: Vec<u32> = parse_list(cpus)?.into_iter().map(|c| c.clamp(1, 1024) as u32).collect();
    Ok(to_json(&contention_sweep_core(p, &cpus, pairs_per_cpu.min(100_000))))
}

fn parse_list(s: &str) -> Result<Vec<usize>, JsError> {
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<usize>().map_err(|_| JsError::new(&format!("`{x}` is not a count"))))
        .collect()
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
