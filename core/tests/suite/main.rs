//! The core's tests, as one test binary: each file under `tests/suite/` is a module, each one
//! test binary of its own before. One binary compiles and links the core's generic code once
//! where each binary did it again (see BENCHMARKS.md "The test suite"). The tests that also run
//! on wasm32-wasip1 are the other binary, `tests/wasi/` (scripts/test-wasi.mjs).
//!
//! Run one module with e.g. `cargo test --profile checked -p vmapviz-core --test suite fit_merge::`.
//! The red-black cases and the other tests that drive the crate-private tree primitives
//! directly are unit tests of the library (`core/src/raw_tests/`).

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod errors;
mod fit_merge;
mod follow;
mod frag;
mod fuzz;
mod layers;
mod linear;
mod maple_conformance;
mod maple_events;
mod maple_gen;
mod maple_props;
mod maple_rfc_frames;
mod maple_rfc_spec;
mod maple_session;
mod maple_trace;
mod pcpu51;
mod profiles_compare;
mod properties;
mod push_checked;
mod session;
mod speed;
mod state_chunks;
mod stream;
mod v618;
mod workloads;
