//! Benchmark (not a test): simulator speed under load, one JSON line per run.
//!
//!     cargo run --release -p mcastlab-core --example bench_sweep
//!     cargo run --release -p mcastlab-core --example bench_sweep -- sweep 'mesh:8x8' 8
//!     cargo run --release -p mcastlab-core --example bench_sweep -- point 'mesh:8x8' 8 0.1
//!     cargo run --release -p mcastlab-core --example bench_sweep -- loaded 'mport_ntree:m=8,n=3' 'uniform:load=0.3'
//!
//! With no arguments it runs the reference cases:
//! - the uniform-traffic latency-versus-load sweep on `mesh:8x8` with `dor`, in BookSim's run
//!   length (`../shared/reference/booksim.md`: 3 × 10,000 warm-up cycles, 5 × 10,000 measured,
//!   drain), 2 VCs of 8 flits, no software overheads, 1-flit and 8-flit packets, at the loads of
//!   its tables: wall time of the whole sweep (runs in parallel on every core) and of each run
//!   alone, events and flit-router traversals per second;
//! - `mport_ntree:m=8,n=3` (zhou07 parameters) under uniform unicasts and under degree-15
//!   hardware multicasts (`ib_cyclic`): events per second.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing;
use mcastlab_core::sim::{run_workload, sweep, Measure, Params, RunRow, Workload};
use std::time::Instant;

/// BookSim's mesh configuration in this simulator's terms, on a 1 ns cycle (one byte-wide flit
/// per ns): no software overheads or I/O bus, 2 VCs of 8 flits, `packet` flits per packet.
fn mesh_params(packet: u32) -> Params {
    let mtu = format!("link.mtu_bytes={packet}");
    let o = [
        "link.bandwidth=1GB/s",
        "switch.routing_delay=1ns",
        "switch.crossbar_delay=1ns",
        "host.t_hs=0ns",
        "host.t_hr=0ns",
        "ni.t_ns=0ns",
        "ni.t_nr=0ns",
        "ni.dma_bandwidth=inf",
        "switch.vcs=2",
        "switch.buffer_flits=8",
        &mtu,
    ];
    Params::with_overrides("sivaram98", &o).unwrap()
}

fn line(case: &str, r: &RunRow, wall: f64) {
    let traversals = r.flit_hops as f64;
    println!(
        "{{\"case\": \"{case}\", \"fabric\": \"{}\", \"workload\": \"{}\", \"offered\": {}, \"outcome\": \"{}\", \
         \"saturated\": {}, \"latency_cycles\": {}, \"accepted\": {:.4}, \"events\": {}, \"flit_hops\": {}, \
         \"sim_cycles\": {}, \"wall_s\": {wall:.3}, \"events_per_s\": {:.0}, \"flit_hops_per_s\": {:.0}}}",
        r.fabric,
        r.workload,
        r.offered_load.unwrap_or(0.0),
        serde_json::to_value(&r.outcome).unwrap()["kind"].as_str().unwrap_or("?"),
        r.saturated,
        r.latency_mean_ps.map_or("null".into(), |l| format!("{:.3}", l / r.cycle_ps as f64)),
        r.accepted_load,
        r.events,
        r.flit_hops,
        r.end_ps / r.cycle_ps,
        r.events as f64 / wall,
        traversals / wall,
    );
}

fn mesh_sweep(spec: &str, packet: u32, loads: &[f64]) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, None).unwrap();
    let p = mesh_params(packet);
    let m = Measure::default();
    let w = Workload::parse(&format!("uniform:load={},bytes={packet}", loads[0])).unwrap();
    let t = Instant::now();
    let rows = sweep(&f, &*r, &w, &p, &m, 0, loads).unwrap();
    let parallel = t.elapsed().as_secs_f64();
    let mut serial = 0.0;
    for (&l, res) in loads.iter().zip(&rows) {
        let t = Instant::now();
        let again = run_workload(&f, &*r, &w.with_load(l), &p, &m, 0).unwrap();
        let wall = t.elapsed().as_secs_f64();
        serial += wall;
        assert_eq!(again.run, res.run, "a sweep point is the run alone");
        line(&format!("mesh sweep L={packet}"), &res.run, wall);
    }
    let events: u64 = rows.iter().map(|x| x.run.events).sum();
    let hops: u64 = rows.iter().map(|x| x.run.flit_hops).sum();
    println!(
        "{{\"case\": \"mesh sweep L={packet} total\", \"loads\": {}, \"sweep_wall_s\": {parallel:.3}, \
         \"threads\": {}, \"serial_wall_s\": {serial:.3}, \"events\": {events}, \"flit_hops\": {hops}, \
         \"events_per_s_serial\": {:.0}, \"flit_hops_per_s_serial\": {:.0}}}",
        loads.len(),
        rayon::current_num_threads(),
        events as f64 / serial,
        hops as f64 / serial,
    );
}

fn loaded(spec: &str, workload: &str, preset: &str) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, None).unwrap();
    let p = Params::preset(preset).unwrap();
    let m = Measure::default();
    let w = Workload::parse(workload).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t = Instant::now();
    let res = run_workload(&f, &*r, &w, &p, &m, 0).unwrap();
    line("loaded", &res.run, t.elapsed().as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    match args.first().map(String::as_str) {
        None => {
            let l1: Vec<f64> = [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.27, 0.29, 0.3, 0.35].into();
            let l8: Vec<f64> = [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.36, 0.4].into();
            mesh_sweep("mesh:8x8", 1, &l1);
            mesh_sweep("mesh:8x8", 8, &l8);
            loaded("mport_ntree:m=8,n=3", "uniform:load=0.3", "zhou07");
            loaded("mport_ntree:m=8,n=3", "multicast_load:degree=15,load=0.3,scheme=ib_cyclic", "zhou07");
        }
        Some("sweep") => {
            let packet: u32 = get(2, "8").parse().expect("packet flits");
            let loads = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4];
            mesh_sweep(&get(1, "mesh:8x8"), packet, &loads);
        }
        Some("point") => {
            let packet: u32 = get(2, "8").parse().expect("packet flits");
            let load: f64 = get(3, "0.1").parse().expect("load");
            let f = generate(&get(1, "mesh:8x8")).unwrap();
            let r = routing::build(&f, None).unwrap();
            let w = Workload::parse(&format!("uniform:load={load},bytes={packet}")).unwrap();
            let t = Instant::now();
            let res = run_workload(&f, &*r, &w, &mesh_params(packet), &Measure::default(), 0).unwrap();
            line("mesh point", &res.run, t.elapsed().as_secs_f64());
        }
        Some("loaded") => loaded(&get(1, "mport_ntree:m=8,n=3"), &get(2, "uniform:load=0.3"), &get(3, "zhou07")),
        Some(other) => {
            eprintln!("unknown case `{other}`: use sweep, point or loaded");
            std::process::exit(2)
        }
    }
}
