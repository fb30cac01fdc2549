//! Benchmark (not a test): the reachability strings of sivaram98 Fig. 18 and one bit-string
//! multicast (plan and full check) on a large irregular fabric.
//!
//!     cargo run --release -p mcastlab-core --example bench_bitstring -- 'irregular:switches=512,ports=16,endpoints=4096' 50

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions};
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::routing::updown::UpDown;
use mcastlab_core::schemes::bitstring::reachability_strings;
use mcastlab_core::schemes::group::random_group;
use mcastlab_core::schemes::{self, SchemeInput};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "irregular:switches=512,ports=16,endpoints=4096".into());
    let percent: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50.0);
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let r = routing::build(&f, Some("updown")).unwrap();
    let t_fabric = t0.elapsed().as_secs_f64();
    let ud = r.as_any().downcast_ref::<UpDown>().expect("updown");
    let t1 = Instant::now();
    let reach = reachability_strings(&f, ud);
    let t_reach = t1.elapsed().as_secs_f64();
    let listed: usize = reach.iter().map(|s| s.down.len()).sum();
    let dests = random_group(&f, EndpointId(0), percent, 1).unwrap();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets: 1,
        discipline: Discipline::Host,
    };
    let t2 = Instant::now();
    let p = schemes::plan(&input, "bitstring").unwrap();
    let t_plan = t2.elapsed().as_secs_f64();
    let t3 = Instant::now();
    let rep = check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap();
    let t_check = t3.elapsed().as_secs_f64();
    // For comparison: the multi-drop worms of the same group (POCs of Fig. 13 and the phases).
    let t4 = Instant::now();
    let md = schemes::plan(&input, "multidrop:schedule=less_greedy").unwrap();
    let t_md = t4.elapsed().as_secs_f64();
    println!(
        "{{\"spec\": \"{spec}\", \"switches\": {}, \"endpoints\": {}, \"down_ports\": {listed}, \"destinations\": {}, \"fabric_route_s\": {t_fabric:.3}, \"reach_s\": {t_reach:.4}, \"plan_s\": {t_plan:.4}, \"check_s\": {t_check:.3}, \"ok\": {}, \"link_visits\": {}, \"multidrop_plan_s\": {t_md:.4}, \"multidrop_worms\": {}}}",
        f.num_switches(),
        f.num_endpoints(),
        dests.len(),
        rep.ok(),
        rep.link_visits,
        md.transmissions.len()
    );
}
