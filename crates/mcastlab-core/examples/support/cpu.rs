//! CPU time for the benchmarks that compare against BookSim (`bench_booksim`, `bench_lean_router`),
//! included by `#[path]`: one definition of what they measure.

/// CPU time (user + system) of this thread so far, seconds (Linux; `None` elsewhere). On a shared
/// machine the wall time includes waiting for a core; the CPU time does not.
pub fn cpu_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
}
