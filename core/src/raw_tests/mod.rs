//! Tests that drive the crate-private primitives directly: the red-black fix-ups
//! (`rbtree::link_node`/`insert_color`/`erase`), the list-keeping helpers of `vmalloc`, trees
//! built without a `Vmap`, and states no public call can reach (a corrupted gap, for the
//! invariant checks). They live in the library because those primitives are not public: a
//! caller outside the crate could otherwise plant a handle the optimised build follows
//! without a bounds test (see `area::UNCHECKED`).
//!
//! Run them with `cargo test --release -p vmapviz-core --lib raw_tests::`.

mod check_inc;
mod find_start;
mod gap_checks;
mod lowest_fit;
mod node_id;
mod propagate_shortcut;
mod rbtree_cases;
mod relocate;
