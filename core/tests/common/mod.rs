//! Shared by the tests that compare the cost of n and 4n operations in one run.

use std::time::Instant;

/// The best of three timings of `f`, in seconds.
pub fn best(f: &dyn Fn()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `large` (4n operations) costs less than 10 times `small` (n): a linear path takes about 4
/// times, a quadratic one 16. Timed in one run, best of three each, so the machine's load
/// mostly cancels out; on a busy machine (other test threads, other builds) one round can still
/// be thrown, so up to three rounds are taken and a quadratic path fails all of them.
pub fn assert_linear_with(what: &str, small: &dyn Fn(), large: &dyn Fn()) {
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (ts, tl) = (best(small), best(large));
        if tl < 10.0 * ts.max(2e-3) {
            return;
        }
        seen.push(format!("n {ts:.4}s, 4n {tl:.4}s"));
    }
    panic!("{what}: not linear in three rounds ({})", seen.join("; "));
}
