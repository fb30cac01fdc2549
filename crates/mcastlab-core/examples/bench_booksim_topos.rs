//! Benchmark (not a test): BookSim's torus and fat-tree configurations (issue 12) next to
//! mcastlab's own defaults, with the iq router, uniform random traffic (self-traffic included),
//! 8-flit packets and BookSim's run length and measurement (3 × 10,000 warm-up cycles, 5 × 10,000
//! measured, drain with generation, unstable past a 500-cycle mean latency).
//!
//!     cargo run --release -p mcastlab-core --example bench_booksim_topos            # every row
//!     cargo run --release -p mcastlab-core --example bench_booksim_topos -- dateline  # rows whose configuration names it
//!
//! For each configuration it prints the zero-load latency (the closed form of booksim.md §6.2
//! averaged over every source and destination, and the measured mean at 0.01 flits/node/cycle)
//! and the saturation rate: the highest stable offered load, found in 0.05 steps and then refined
//! in 0.01 steps. `../shared/reference/booksim.md` holds no measured torus or fat-tree numbers,
//! only BookSim's timing model, so the closed form is the BookSim figure here. The closed form
//! follows the deterministic route; under `tie=random` and `up=random|adaptive` every legal route
//! is minimal and as long, so it holds for the routes those rules pick per packet too.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::Carrier;
use mcastlab_core::routing;
use mcastlab_core::sim::{sweep, Measure, Params, Time, Workload, WorkloadOutcome};
use mcastlab_core::EndpointId;
use std::time::Instant;

const PACKET: u64 = 8;

fn workload(load: f64) -> Workload {
    Workload::parse(&format!("uniform:self=1,load={load},bytes={PACKET}")).unwrap()
}

fn main() {
    let cases = [
        ("torus:8x8", "mcastlab defaults", "booksim_iq", "dor"),
        ("torus:8x8", "BookSim links, dateline classes, ties +", "booksim_torus", "dor"),
        ("torus:8x8", "BookSim links and classes, ties +", "booksim_torus", "dor:classes=entry"),
        ("torus:8x8", "BookSim links and classes, ties by parity", "booksim_torus", "dor:tie=parity,classes=entry"),
        ("torus:8x8", "BookSim links and classes, ties at random", "booksim_torus", "dor:tie=random,classes=entry"),
        ("kary_ntree:k=4,n=3", "mcastlab defaults", "booksim_iq", "nca"),
        ("kary_ntree:k=4,n=3", "BookSim links, up port dmodk", "booksim_fattree", "nca"),
        ("kary_ntree:k=4,n=3", "BookSim links, up port at random", "booksim_fattree", "nca:up=random"),
        ("kary_ntree:k=4,n=3", "BookSim links, up port adaptive", "booksim_fattree", "nca:up=adaptive"),
    ];
    let only = std::env::args().nth(1);
    println!("| fabric | configuration | preset | routing | zero-load closed form | measured at 0.01 | saturation | runs, wall |");
    println!("|---|---|---|---|---|---|---|---|");
    for (fabric, what, preset, rspec) in cases {
        if only.as_ref().is_some_and(|o| !what.contains(o.as_str())) {
            continue;
        }
        let t = Instant::now();
        let f = generate(fabric).unwrap();
        let r = routing::build(&f, Some(rspec)).unwrap();
        let p = Params::preset(preset).unwrap();
        let m = Measure { latency_limit: Some(Time(500 * p.flit_ps())), ..Measure::default() };
        // booksim.md §6.2: T0 = (1 + d_t) + (H − 1)·(4 + d) + 4 + d_t + (L − 1), with d_t the
        // terminal links' cycles and d the router links' (none of these presets sets a wrap delay).
        let cyc = p.flit_ps();
        let d = 1 + p.link.propagation.ps() / cyc;
        let dt = 1 + p.link.terminal_propagation.unwrap_or(p.link.propagation).ps() / cyc;
        let n = f.num_endpoints() as u32;
        let mut sum = 0u64;
        for a in 0..n {
            for b in 0..n {
                let tree = Walker::new(&f, &*r, &Default::default())
                    .walk(EndpointId(a), &Carrier::Unicast { dst: EndpointId(b) });
                let h = tree.hops.len() as u64;
                sum += 1 + dt + (h - 1) * (4 + d) + 4 + dt + PACKET - 1;
            }
        }
        let closed = sum as f64 / (n as f64 * n as f64);
        let at = |loads: &[f64]| sweep(&f, &*r, &workload(loads[0]), &p, &m, 0, loads).unwrap();
        let low = at(&[0.01]);
        let measured = low[0].run.latency_mean_ps.unwrap() / low[0].run.cycle_ps as f64;
        let stable = |o: &WorkloadOutcome| !matches!(o, WorkloadOutcome::Unstable { .. });
        let coarse: Vec<f64> = (1..=19).map(|i| i as f64 * 0.05).collect();
        let rows = at(&coarse);
        let first_bad = rows.iter().position(|x| !stable(&x.run.outcome)).unwrap_or(coarse.len());
        let base = if first_bad == 0 { 0.0 } else { coarse[first_bad - 1] };
        let fine: Vec<f64> = (1..=4).map(|i| ((base + i as f64 * 0.01) * 100.0).round() / 100.0).collect();
        let rows_fine = at(&fine);
        let extra = rows_fine.iter().position(|x| !stable(&x.run.outcome)).unwrap_or(fine.len());
        let sat = if extra == 0 { base } else { fine[extra - 1] };
        println!(
            "| `{fabric}` | {what} | `{preset}` | `{rspec}` | {closed:.2} | {measured:.2} | {sat:.2} | {}, {:.1} s |",
            1 + coarse.len() + fine.len(),
            t.elapsed().as_secs_f64()
        );
    }
}
