//! The test suite of the core, as one test binary: each file under `tests/suite/` is a module.
//! (The release profile links every test binary with LTO, so one binary instead of five keeps
//! `cargo test --release` quick.)
//!
//! * [`fit_merge`]: the fit types, the merge cases and the worked example of the spec;
//! * [`errors`]: every refused request, malformed traces, the top of the 64-bit space;
//! * [`session`]: `Session` loading, checkpoints, frames and truncation;
//! * [`pcpu51`]: linux-5.1's `pcpu_get_vm_areas` against a brute-force search;
//! * [`properties`]: proptest operation sequences against an interval model, and the tree
//!   search against the linear search.
//!
//! Run one group with e.g. `cargo test --release -p vmapviz-core --test suite fit_merge::`.
//! The red-black cases and the other tests that drive the crate-private tree primitives
//! directly are unit tests of the library (`core/src/raw_tests/`).

mod errors;
mod fit_merge;
mod pcpu51;
mod properties;
mod session;
mod speed;
