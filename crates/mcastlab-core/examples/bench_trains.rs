//! Benchmark (not a test): one workload run at a given granularity, its rows written as JSON, so
//! that flits and packet trains can be timed (CPU time: run it under `time`) and their rows
//! compared file to file.
//!
//!     cargo build --release -p mcastlab-core --example bench_trains
//!     ./target/release/examples/bench_trains FABRIC ROUTING WORKLOAD PRESET GRANULARITY OUT.json [LOAD ...]
//!
//! More parameter overrides, space-separated, go in the environment variable `BENCH_OVERRIDES`.
//! With loads, the workload is swept over them (one run each, as `mcastlab` sweeps do) and
//! OUT.json holds the list of results. The measurement is the default one, with per-destination
//! rows.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing;
use mcastlab_core::sim::{run_workload, sweep, Detail, Measure, Params, Workload};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [fabric, routing_spec, workload, preset, granularity, out, loads @ ..] = a.as_slice() else {
        eprintln!("usage: bench_trains FABRIC ROUTING WORKLOAD PRESET GRANULARITY OUT.json [LOAD ...]");
        std::process::exit(2);
    };
    let f = generate(fabric).expect("fabric");
    let r = routing::build(&f, Some(routing_spec.as_str()).filter(|s| *s != "default")).expect("routing");
    let w = Workload::parse(workload).expect("workload");
    // More overrides, space-separated, in BENCH_OVERRIDES (`switch.switching=cut_through ...`).
    let extra = std::env::var("BENCH_OVERRIDES").unwrap_or_default();
    let mut o: Vec<String> = extra.split_whitespace().map(String::from).collect();
    o.push(format!("switch.granularity={granularity}"));
    let o: Vec<&str> = o.iter().map(String::as_str).collect();
    let p = Params::with_overrides(preset, &o).expect("params");
    let m = Measure { detail: Detail::Destinations, ..Measure::default() };
    let json = if loads.is_empty() {
        serde_json::to_string(&run_workload(&f, r.as_ref(), &w, &p, &m, 1).expect("run")).unwrap()
    } else {
        let l: Vec<f64> = loads.iter().map(|x| x.parse().expect("load")).collect();
        serde_json::to_string(&sweep(&f, r.as_ref(), &w, &p, &m, 1, &l).expect("sweep")).unwrap()
    };
    std::fs::write(out, json).expect("write");
}
