//! The core's tests that also run on wasm32-wasip1 (scripts/test-wasi.mjs, where an arena
//! handle is an address and `usize` 32 bits), as one test binary; natively they run too, with
//! `tests/suite/`.
//!
//! * [`conformance`]: every vector of ../shared byte for byte;
//! * [`capture`]: capture bundles, the replay's trials, the real captures;
//! * [`import`]: the importers' 64-bit sizes and addresses;
//! * [`maple_rfc`]: the maple-rfc era's own structures.

#[path = "../common/mod.rs"]
mod common;

mod capture;
mod conformance;
mod import;
mod maple_rfc;
