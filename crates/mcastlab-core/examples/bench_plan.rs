//! Benchmark (not a test): build a scheme's plan for a large group and run the step model.
//!
//!     cargo run --release -p mcastlab-core --example bench_plan -- 'torus:1024x1024' kbinomial 4

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::steps::steps;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "torus:1024x1024".into());
    let scheme = args.get(1).cloned().unwrap_or_else(|| "kbinomial".into());
    let packets: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(4);
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let r = routing::build(&f, None).unwrap();
    let t_fabric = t0.elapsed().as_secs_f64();
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let t1 = Instant::now();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets,
        discipline: Discipline::NiFpfs,
    };
    let p = schemes::plan(&input, &scheme).unwrap();
    let t_plan = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let st = steps(&p).unwrap();
    let t_steps = t2.elapsed().as_secs_f64();
    println!(
        "{{\"spec\": \"{spec}\", \"scheme\": \"{}\", \"destinations\": {}, \"packets\": {packets}, \"fabric_s\": {t_fabric:.3}, \"plan_s\": {t_plan:.3}, \"steps_s\": {t_steps:.3}, \"completion_steps\": {}}}",
        p.scheme,
        dests.len(),
        st.completion
    );
}
