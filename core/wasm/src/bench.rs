//! wasm timed against native (feature `bench`, never in the page's builds): the same timed
//! loop as `vmap-replay --bench`, so that Node can time wasm against native on the same trace.
//! The constructor parses and drops the prints (untimed, as natively); `run` replays the rest, with
//! output formatting and no observer, exactly as the native loop does; the caller times it.

use vmapviz_core::trace::{parse_trace_limited, TraceLine};
use vmapviz_core::{NoObserver, Replayer};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct BenchReplay {
    lines: Vec<TraceLine>,
}

#[wasm_bindgen]
impl BenchReplay {
    /// Parse a whole trace (no size limit, as `--bench`).
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Result<BenchReplay, JsError> {
        let mut lines = parse_trace_limited(text, usize::MAX).map_err(|e| JsError::new(&e.to_string()))?;
        // Prints are part of the output but not of the timed work: left out here, untimed, as
        // natively.
        lines.retain(|l| !l.op.is_print());
        Ok(BenchReplay { lines })
    }

    /// Operations the native benchmark divides by (alloc, free, vfree, purge, ...).
    pub fn ops(&self) -> usize {
        self.lines.iter().filter(|l| l.op.is_timed()).count()
    }

    /// One replay from a fresh state under `profile` (`""`: linux-5.2); returns the output's
    /// length in bytes, so that the work cannot be optimised away and runs can be compared.
    pub fn run(&self, profile: &str) -> Result<usize, JsError> {
        let mut r = Replayer::new(crate::profile(profile)?);
        // Drained every 256 lines at 4 KiB, as `vmap-replay --bench` drains its buffer (a
        // writer to a sink), so that neither loop times the growth of a many-megabyte string;
        // room for the threshold and one chunk of 64-byte lines, so that it never grows.
        let mut out = String::with_capacity(4 * 1024 + 64 * 256);
        let mut total = 0;
        // `Replayer::run` applies each chunk in a loop compiled for the profile, as natively.
        for chunk in self.lines.chunks(256) {
            r.run(chunk, &mut out, &mut NoObserver).map_err(|e| JsError::new(&e.to_string()))?;
            if out.len() >= 4 * 1024 {
                total += out.len();
                out.clear();
            }
        }
        Ok(total + out.len())
    }
}
