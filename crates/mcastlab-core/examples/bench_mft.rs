//! Benchmark (not a test): InfiniBand MFTs for a broadcast — source P(0…) to every other
//! endpoint — built by `ib_cyclic` and `ib_opensm`, then (unless `--no-check`) checked.
//!
//!     cargo run --release -p mcastlab-core --example bench_mft -- 'mport_ntree:m=64,n=3'
//!     cargo run --release -p mcastlab-core --example bench_mft -- 'mport_ntree:m=64,n=3' --no-check
//!
//! Prints one JSON object per scheme: the time to build the plan (MFT included) and, separately,
//! the time of `check_plan` with its verdict.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = !args.iter().any(|a| a == "--no-check");
    let spec = args.iter().find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| "mport_ntree:m=64,n=3".into());
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let r = routing::build(&f, None).unwrap();
    let fabric_s = t0.elapsed().as_secs_f64();
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets: 1,
        discipline: Discipline::NiFpfs,
    };
    for scheme in ["ib_cyclic", "ib_opensm"] {
        let t1 = Instant::now();
        let p = schemes::plan(&input, scheme).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
        let plan_s = t1.elapsed().as_secs_f64();
        let mut line = format!(
            "{{\"spec\": \"{spec}\", \"scheme\": \"{}\", \"destinations\": {}, \"mft_rows\": {}, \"fabric_s\": {fabric_s:.3}, \"plan_s\": {plan_s:.3}",
            p.scheme,
            dests.len(),
            p.switch_state.mft.len()
        );
        if check {
            let t2 = Instant::now();
            let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
            let check_s = t2.elapsed().as_secs_f64();
            line.push_str(&format!(
                ", \"check_s\": {check_s:.3}, \"ok\": {}, \"exactly_once\": {}, \"used_links\": {}, \"link_visits\": {}",
                rep.ok(),
                rep.exactly_once,
                rep.used_links,
                rep.link_visits
            ));
        }
        line.push('}');
        println!("{line}");
    }
}
