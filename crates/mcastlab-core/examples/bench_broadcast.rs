//! Benchmark (not a test): one hardware broadcast, `ib_cyclic` from endpoint 0 to every other
//! endpoint, simulated with the zhou07 preset; one JSON line with wall time, events, flit hops
//! and peak memory.
//!
//!     cargo run --release -p mcastlab-core --example bench_broadcast
//!     cargo run --release -p mcastlab-core --example bench_broadcast -- 'mport_ntree:m=64,n=3' 1048576 switch.granularity=flit
//!
//!     cargo run --release -p mcastlab-core --example bench_broadcast -- 'mport_ntree:m=32,n=3' 1048576 --compare
//!
//! Arguments (all optional, in order): fabric spec, message bytes, then any `key=value`
//! parameter overrides. The default is the case: 1 MiB on `mport_ntree:m=64,n=3`
//! (65,535 destinations, 256 packets of 64 flits) at `switch.granularity=auto`. Peak memory is the
//! process's `VmHWM` (fabric, routing, plan and simulation together). `--compare` also runs the
//! same case flit by flit and says whether the two results are identical but for `events` and
//! the granularity parameter (slow: the flit engine takes minutes on the largest tree).

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{Granularity, Params, RunResult, Simulation};
use std::time::Instant;

/// The process's peak resident set (`VmHWM`), MiB, or 0 where /proc is not available.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// The result as JSON without what differs between granularities by construction.
fn comparable(r: &RunResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("a result serializes");
    let o = v.as_object_mut().expect("an object");
    o.remove("events");
    o.remove("granularity");
    o["params"]["switch"].as_object_mut().expect("an object").remove("granularity");
    v
}

fn die(e: impl std::fmt::Display) -> ! {
    eprintln!("error: {e}");
    std::process::exit(2)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let compare = args.iter().any(|a| a == "--compare");
    args.retain(|a| a != "--compare");
    let spec = args.first().cloned().unwrap_or_else(|| "mport_ntree:m=64,n=3".into());
    let bytes: u64 = args.get(1).map_or(1 << 20, |b| b.parse().unwrap_or_else(|e| die(e)));
    let mut overrides: Vec<&str> = vec!["switch.granularity=auto"];
    overrides.extend(args.iter().skip(2).map(String::as_str));
    let params = Params::with_overrides("zhou07", &overrides).unwrap_or_else(|e| die(e));
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| die(e));
    let r = routing::build(&f, None).unwrap_or_else(|e| die(e));
    let packets = params.packets_for(bytes);
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets,
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "ib_cyclic").unwrap_or_else(|e| die(e));
    let build_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut sim = Simulation::new(&f, r.as_ref(), &plan, &params, bytes, 1).unwrap_or_else(|e| die(e));
    let res = sim.run();
    let run_s = t1.elapsed().as_secs_f64();
    let granularity = sim.granularity();
    let mut compared = String::new();
    if compare {
        let mut flit_params = params.clone();
        flit_params.switch.granularity = Granularity::Flit;
        let t2 = Instant::now();
        let flit = Simulation::new(&f, r.as_ref(), &plan, &flit_params, bytes, 1).unwrap_or_else(|e| die(e)).run();
        let flit_s = t2.elapsed().as_secs_f64();
        let (a, b) = (comparable(&res), comparable(&flit));
        let same_but_max_at = {
            let (mut a, mut b) = (a.clone(), b.clone());
            a.as_object_mut().map(|o| o.remove("max_buffer_at"));
            b.as_object_mut().map(|o| o.remove("max_buffer_at"));
            a == b
        };
        compared = format!(
            ", \"flit_events\": {}, \"flit_run_s\": {flit_s:.3}, \"identical\": {}, \"identical_but_max_buffer_at\": {same_but_max_at}, \"max_buffer_tied\": {}",
            flit.events,
            a == b,
            sim.max_buffer_tied()
        );
    }
    println!(
        "{{\"spec\": \"{spec}\", \"scheme\": \"{}\", \"bytes\": {bytes}, \"packets\": {packets}, \"destinations\": {}, \
         \"granularity\": \"{}\", \"outcome\": \"{:?}\", \"completion_us\": {:.3}, \"end_us\": {:.3}, \"events\": {}, \
         \"flit_hops\": {}, \"max_buffer_flits\": {}, \"build_s\": {build_s:.3}, \"run_s\": {run_s:.3}, \
         \"events_per_s\": {:.0}, \"flit_hops_per_s\": {:.0}, \"peak_rss_mib\": {:.0}{compared}}}",
        plan.scheme,
        dests.len(),
        granularity.name(),
        res.outcome,
        res.completion_ps.unwrap_or(0) as f64 / 1e6,
        res.end_ps as f64 / 1e6,
        res.events,
        res.flit_hops,
        res.max_buffer_flits,
        res.events as f64 / run_s,
        res.flit_hops as f64 / run_s,
        peak_rss_mib(),
    );
}
