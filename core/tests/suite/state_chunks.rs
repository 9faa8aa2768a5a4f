//! The state snapshot's bump chunks (`StateSnap::chunks`, what the page draws as bands) say what
//! the `busy` command prints for the same state, line for line; and its memory figures match the
//! profile's own books.

use vmapviz_core::trace::format_trace;
use vmapviz_core::workload::{generate, WorkloadParams};
use vmapviz_core::{Profile, Session};

fn chunk_lines(output: &str) -> Vec<String> {
    output.lines().filter(|l| l.starts_with("chunk ")).map(str::to_string).collect()
}

#[test]
fn the_snapshot_chunks_are_the_busy_chunk_lines() {
    let p = WorkloadParams { profile: Profile::MapleRfc, ..Default::default() };
    let text = format_trace(&generate("rfc_s4_bump_overlay", &p).unwrap());
    let s = Session::load(&text).unwrap();
    let mut checked = 0;
    let mut most = 0;
    for k in 0..s.len() {
        if s.ops()[k].op.to_string() != "busy" {
            continue;
        }
        // `busy` at op k prints the state after op k - 1, which is the state before op k + 1.
        let printed = chunk_lines(s.op_output(k));
        let st = s.state_before(k + 1);
        let drawn: Vec<String> = st
            .chunks
            .iter()
            .map(|c| {
                format!(
                    "chunk {} {} bump={} pages={} cpu={} {}",
                    c.base,
                    c.limit,
                    c.bump,
                    c.pages,
                    c.owner_cpu,
                    if c.current { "current" } else { "retired" }
                )
            })
            .collect();
        assert_eq!(drawn, printed, "op {k}");
        most = most.max(printed.len());
        checked += 1;
    }
    // S4 prints `busy` three times, with several chunks (one per CPU, and a retired one).
    assert_eq!(checked, 3);
    assert!(most >= 4, "{most}");
}

#[test]
fn the_free_tree_eras_have_no_chunks_and_72_byte_objects() {
    let s = Session::load("profile linux-6.9\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n").unwrap();
    let st = s.state_before(s.len());
    assert!(st.chunks.is_empty());
    assert_eq!(st.memory.vmap_area_bytes, 72);
    assert_eq!(st.memory.live_areas, st.busy.len() as u64);
    assert_eq!(st.memory.index_bytes, 72 * (st.memory.live_areas + st.index.free_nodes().len() as u64));
    let r = Session::load("profile maple-rfc\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n").unwrap();
    let st = r.state_before(r.len());
    assert_eq!(st.memory.vmap_area_bytes, 48);
    assert_eq!((st.memory.live_areas, st.memory.chunks, st.chunks.len()), (1, 1, 1));
    // The occupied tree the state carries is the one the memory counts.
    assert_eq!(st.memory.occupied_nodes, st.index.maple().unwrap().nodes.len() as u64);
}
