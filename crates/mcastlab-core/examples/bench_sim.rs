//! Benchmark (not a test): simulator speed on two single multicasts, one JSON line each.
//!
//!     cargo run --release -p mcastlab-core --example bench_sim
//!     cargo run --release -p mcastlab-core --example bench_sim -- 'mport_ntree:m=8,n=3' kbinomial zhou07 1048576
//!
//! With no arguments it runs the two reference cases: a k-binomial multicast of 1 MiB from
//! endpoint 0 to all others on `mport_ntree:m=8,n=3` (zhou07 parameters), and a binomial
//! multicast of 4 KiB on a 1,024-endpoint irregular fabric (sivaram98 parameters). Both run
//! flit by flit (`switch.granularity=flit`): this measures the flit engine; each line also gives
//! the wall time of the same run at the presets' default (`auto`, packet trains where exact).

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{Granularity, Params, Simulation};
use std::time::Instant;

fn bench(spec: &str, scheme: &str, preset: &str, bytes: u64) {
    let f = generate(spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let r = routing::build(&f, None).unwrap();
    let mut params = Params::preset(preset).unwrap();
    params.switch.granularity = Granularity::Flit;
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
    let plan = schemes::plan(&input, scheme).unwrap();
    let t0 = Instant::now();
    let mut sim = Simulation::new(&f, r.as_ref(), &plan, &params, bytes, 1).unwrap();
    let setup = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let res = sim.run();
    let run = t1.elapsed().as_secs_f64();
    let auto = Params {
        switch: mcastlab_core::sim::params::SwitchParams { granularity: Granularity::Auto, ..params.switch.clone() },
        ..params.clone()
    };
    let t2 = Instant::now();
    let mut fast = Simulation::new(&f, r.as_ref(), &plan, &auto, bytes, 1).unwrap();
    let fast_res = fast.run();
    let auto_s = t2.elapsed().as_secs_f64();
    assert_eq!(fast_res.completion_ps, res.completion_ps, "auto gives the flit engine's results");
    println!(
        "{{\"spec\": \"{spec}\", \"scheme\": \"{}\", \"preset\": \"{preset}\", \"bytes\": {bytes}, \"packets\": {packets}, \
         \"transmissions\": {}, \"outcome\": \"{:?}\", \"completion_us\": {:.3}, \"events\": {}, \"flit_hops\": {}, \
         \"setup_s\": {setup:.3}, \"run_s\": {run:.3}, \"events_per_s\": {:.0}, \"flit_hops_per_s\": {:.0}, \
         \"auto\": \"{}\", \"auto_events\": {}, \"auto_run_s\": {auto_s:.3}}}",
        plan.scheme,
        plan.transmissions.len(),
        res.outcome,
        res.completion_ps.unwrap_or(0) as f64 / 1e6,
        res.events,
        res.flit_hops,
        res.events as f64 / run,
        res.flit_hops as f64 / run,
        fast.granularity().name(),
        fast_res.events,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        bench("mport_ntree:m=8,n=3", "kbinomial", "zhou07", 1 << 20);
        bench("irregular:switches=256,ports=8,endpoints=1024", "binomial", "sivaram98", 4096);
        return;
    }
    let get = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let bytes = get(3, "1048576").parse().expect("bytes");
    bench(&get(0, "mport_ntree:m=8,n=3"), &get(1, "kbinomial"), &get(2, "zhou07"), bytes);
}
