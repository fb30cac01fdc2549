//! Benchmark (not a test): the memory of a long uniform-traffic run (issue 12, deliverable 6).
//! One run of `uniform:load=LOAD` on FABRIC under PRESET for CYCLES cycles (a fifth warm-up,
//! the rest one measurement batch), then: peak RSS of the process (`VmHWM`), the switch
//! ports and the flits in flight (mean buffered flits over the run's samples), and the RSS per
//! port and per flit in flight.
//!
//!     cargo build --release -p mcastlab-core --example bench_memory
//!     /usr/bin/time -v ./target/release/examples/bench_memory 'mport_ntree:m=64,n=3' booksim_iq 0.1 10000

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing;
use mcastlab_core::sim::{run_workload, Measure, Params, Time, Workload};
use std::time::Instant;

/// The process's peak resident set (`VmHWM` of /proc/self/status, Linux), bytes.
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kb.unwrap_or(0) * 1024
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [fabric, preset, load, cycles] = a.as_slice() else {
        eprintln!("usage: bench_memory FABRIC PRESET LOAD CYCLES");
        std::process::exit(2);
    };
    let cycles: u64 = cycles.parse().expect("cycles");
    let t0 = Instant::now();
    let f = generate(fabric).expect("fabric");
    let r = routing::build(&f, None).expect("routing");
    let p = Params::preset(preset).expect("preset");
    let after_fabric = peak_rss_bytes();
    let fabric_s = t0.elapsed().as_secs_f64();
    let w = Workload::parse(&format!("uniform:load={load}")).expect("workload");
    let c = p.flit_ps();
    let warmup = cycles / 5;
    let m = Measure {
        warmup: Some(Time(warmup * c)),
        batch: Some(Time((cycles - warmup) * c)),
        batches: 1,
        ..Measure::default()
    };
    let t1 = Instant::now();
    let res = run_workload(&f, r.as_ref(), &w, &p, &m, 1).expect("run");
    let run_s = t1.elapsed().as_secs_f64();
    let peak = peak_rss_bytes();
    let ports: u64 = f.switches().iter().map(|s| s.ports as u64).sum();
    let run = &res.run;
    let in_flight = run.buffer_mean_flits.max(1.0);
    println!("fabric {fabric}: {} switches, {ports} switch ports, {} endpoints", f.num_switches(), f.num_endpoints());
    println!("fabric + routing: {fabric_s:.2} s, peak RSS {:.1} MiB", after_fabric as f64 / (1 << 20) as f64);
    println!(
        "run: {cycles} cycles at {load}: {:?}, {} messages, {} flit hops, {} events, {run_s:.1} s wall",
        run.outcome, run.messages, run.flit_hops, run.events
    );
    println!(
        "templates: {} built, {} recycled (limits.kept_templates = {:?})",
        run.templates_built, run.templates_recycled, p.limits.kept_templates
    );
    println!(
        "peak RSS {:.1} MiB; flits in flight (mean buffered) {:.0}; {:.0} B per switch port; {:.0} B per flit in flight; \
         growth over the fabric's {:.0} B per message created",
        peak as f64 / (1 << 20) as f64,
        run.buffer_mean_flits,
        peak as f64 / ports as f64,
        peak as f64 / in_flight,
        (peak.saturating_sub(after_fabric)) as f64 / run.messages.max(1) as f64
    );
}
