//! The follower: fed a recorded bundle in pieces, it ends on the capture replay of the whole
//! bundle; the events it holds stop at --max-events.

use std::path::Path;
use std::time::{Duration, Instant};

use vmapviz_core::capture::{replay_capture, Bundle, Part};
use vmapviz_live::bundle::read_bundle;
use vmapviz_live::feed::Feed;
use vmapviz_live::follow::{self, Shared};

fn mixed() -> [Option<String>; 5] {
    read_bundle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/captures/linux-6.18-mixed")).unwrap()
}

#[test]
fn followed_in_pieces_it_ends_on_the_whole_bundles_replay() {
    let p = mixed();
    let (before, trace, after, cpus, uname) = (&p[0], &p[1], &p[2], &p[3], &p[4]);
    let whole = Bundle {
        before: Part { name: "b", text: before.as_deref().unwrap() },
        trace: Part { name: "t", text: trace.as_deref().unwrap() },
        after: after.as_deref().map(|t| Part { name: "a", text: t }),
        cpus: Part { name: "c", text: cpus.as_deref().unwrap() },
        uname: uname.as_deref().map(|t| Part { name: "u", text: t }),
    };
    let (ops, report) = replay_capture(whole, vmapviz_core::Profile::newest_release()).unwrap();
    let want: Vec<String> = vmapviz_core::trace::format_trace(&ops).lines().map(str::to_string).collect();

    let shared = Shared::new();
    shared.update(|i| {
        i.before = before.clone().unwrap();
        i.cpus = cpus.clone().unwrap();
        i.uname = uname.clone();
    });
    let feed = Feed::new();
    let t = {
        let (s, f) = (shared.clone(), feed.clone());
        std::thread::spawn(move || follow::run(s, f))
    };
    let lines: Vec<String> = trace.as_deref().unwrap().lines().map(str::to_string).collect();
    let mut seen_partial = false;
    for chunk in lines.chunks(1500) {
        assert!(shared.push(chunk, usize::MAX));
        std::thread::sleep(Duration::from_millis(250));
        let now = feed.lines();
        if !now.is_empty() && now.len() < want.len() {
            seen_partial = true;
        }
    }
    shared.update(|i| {
        i.after = after.clone();
        i.ended = true;
    });
    let t0 = Instant::now();
    while !t.is_finished() {
        assert!(t0.elapsed() < Duration::from_secs(30), "the follower ends after the source");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen_partial, "a replay of part of the events was published on the way");
    assert_eq!(*feed.lines(), want);
    let f: serde_json::Value = serde_json::from_str(&feed.last_report().unwrap()).unwrap();
    assert_eq!(f["summary"], report.summary_line());
    assert_eq!(f["allocations"], 4311);
    assert_eq!(f["events"], 8637);
    assert_eq!(f["ended"], true);
}

#[test]
fn the_events_held_stop_at_max_events() {
    let p = mixed();
    let lines: Vec<String> = p[1].as_deref().unwrap().lines().map(str::to_string).collect();
    let shared = Shared::new();
    // The header's 12 comment lines are not events.
    assert!(shared.push(&lines[..62], 100));
    assert!(shared.push(&lines[62..200], 100));
    assert!(!shared.push(&lines[200..300], 100), "full: not held");
    let mut got = (0, 0);
    shared.update(|i| got = (i.events, i.trace.lines().count()));
    assert_eq!(got, (188, 200));
}

/// The follower formats only the operations after those a round shares with the last result
/// (`Round::same`: the carried replay's, a start-over's included): they must be the last
/// result's first operations, and the feed's lines then those of the whole result. Checked at
/// every round of captures fed in pieces, with the default margin and with a small one (more
/// of each result carried).
#[test]
fn only_the_operations_after_the_carried_ones_are_formatted_again() {
    use vmapviz_core::capture::StreamReplay;
    use vmapviz_core::trace::format_trace;
    use vmapviz_live::follow::{format_from, profile_of};
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    let dirs = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/captures/linux-6.18-mixed"),
        data.join("capture-6.18-workload"),
        data.join("capture-6.18-drained-s1"),
        data.join("capture-6.18-seed7"),
    ];
    let (mut carried, mut over_carried, mut formatted) = (0, 0, 0);
    for dir in &dirs {
        let p = read_bundle(dir).unwrap();
        let uname = p[4].as_deref();
        let lines: Vec<&str> = p[1].as_deref().unwrap().lines().collect();
        for (margin, piece) in [(None, 700), (Some(64), 97)] {
            let mut s = StreamReplay::new(p[0].as_deref().unwrap(), p[3].as_deref().unwrap(), uname, profile_of(uname))
                .unwrap();
            if let Some(m) = margin {
                s.set_margin(m);
            }
            let feed = Feed::new();
            let mut last: Vec<vmapviz_core::trace::Op> = Vec::new();
            let chunks: Vec<&[&str]> = lines.chunks(piece).collect();
            for (i, chunk) in chunks.iter().enumerate() {
                s.push(&(chunk.join("\n") + "\n")).unwrap();
                if i + 1 == chunks.len() {
                    s.end(p[2].as_deref()).unwrap();
                }
                let Ok(r) = s.round() else { continue };
                let ops = r.ops();
                let same = r.same;
                assert!(same <= last.len(), "{}: round {i}: {same} kept, {} before", dir.display(), last.len());
                assert_eq!(ops[..same], last[..same], "{}: round {i}: the carried operations changed", dir.display());
                carried += same;
                if r.over {
                    over_carried += same;
                }
                formatted += ops.len() - same;
                feed.publish_from(same, r.ops_from(same).map(ToString::to_string).collect(), "{}".into());
                let want: Vec<String> = format_trace(&ops).lines().map(str::to_string).collect();
                assert_eq!(*feed.lines(), want, "{}: round {i}", dir.display());
                assert_eq!(format_from(&ops, same), want[same..], "{}: round {i}", dir.display());
                last = ops;
            }
        }
    }
    // Most of each result was the last one's: a start-over's too (it replays the same start).
    assert!(formatted < carried, "{formatted} operations formatted, {carried} carried over");
    assert!(over_carried > 0, "a start-over shares its first operations with the result before it");
    assert!(carried > 0, "some rounds carried operations over");
}
