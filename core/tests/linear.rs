//! Paths that take a trace stay linear whatever mix of accepted and refused operations it
//! holds: 4n operations take about 4 times as long as n (a quadratic return takes 16 times).
//! Best of three each, n and 4n in one run, so the machine's load cancels out.

use std::time::Instant;

use vmapviz_core::session::Session;

fn best(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn assert_linear(what: &str, n: usize, run: impl Fn(usize)) {
    let small = best(|| run(n));
    let large = best(|| run(4 * n));
    assert!(large < 10.0 * small.max(2e-3), "{what}: {n} ops {small:.4}s, {} ops {large:.4}s: not linear", 4 * n);
}

/// `profile linux-6.9` and n frees of an address no area starts at: each one replays as the kernel
/// would ("unknown") with a warning; the page then reads every operation's summary.
#[test]
fn opening_a_trace_of_warned_frees_and_reading_every_summary_is_linear() {
    let text = |n: usize| format!("profile linux-6.9\n{}", "vfree 0x1000\n".repeat(n));
    assert_linear("warned vfree", 20_000, |n| {
        let s = Session::load(&text(n)).expect("loads");
        assert_eq!(s.len(), n + 1);
        let warned = (0..s.len()).filter(|&k| s.summary(k).warning.is_some()).count();
        assert_eq!(warned, n, "every vfree of an unknown address warns");
    });
}
