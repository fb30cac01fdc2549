//! Benchmark (not a test): the iq router (preset `booksim_iq`) against BookSim 2.0 on the 8×8 mesh
//! with dimension-order routing and uniform random traffic, `../shared/reference/booksim.md`
//! experiment 3, in BookSim's run length and measurement protocol (3 × 10,000 warm-up cycles,
//! 5 × 10,000 measured, drain with generation; unstable when the mean latency of finished plus the
//! age of unfinished packets exceeds 500 cycles).
//!
//!     cargo run --release -p mcastlab-core --example bench_booksim             # everything
//!     cargo run --release -p mcastlab-core --example bench_booksim -- speed    # the reference run
//!     cargo run --release -p mcastlab-core --example bench_booksim -- speed mesh:8x8 0.3
//!     cargo run --release -p mcastlab-core --example bench_booksim -- speed torus:8x8 0.1
//!     cargo run --release -p mcastlab-core --example bench_booksim -- table 8  # one packet size
//!     cargo run --release -p mcastlab-core --example bench_booksim -- seeds    # seed spread
//!     cargo run --release -p mcastlab-core --example bench_booksim -- point 8 0.3
//!
//! `speed` is BookSim's speed reference (booksim.md §1): 80,000 cycles at 0.1 flits/node/cycle
//! with 8-flit packets, which BookSim runs at about 0.85 million flit-router traversals per
//! second on this kind of machine. `table` runs every offered load of BookSim's table, one run
//! per load on every core, and the saturation search (highest stable load in steps of 0.01), and
//! prints both simulators side by side.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::sim::{run_workload, sweep, Measure, Params, RunRow, Time, Workload, WorkloadOutcome};
use std::time::Instant;

#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_s;

/// BookSim's flit-router traversals per second on the reference run (booksim.md §1).
const BOOKSIM_SPEED: f64 = 0.85e6;

/// booksim.md §4.3, experiment 3 (mesh88), seed 0: offered load (flits/node/cycle), average
/// packet latency and accepted rate; `None` where BookSim reports the run unstable.
const BOOKSIM_L1: &[(f64, Option<(f64, f64)>)] = &[
    (0.01, Some((33.399, 0.0100))),
    (0.05, Some((33.636, 0.0499))),
    (0.10, Some((34.164, 0.0998))),
    (0.15, Some((35.182, 0.1497))),
    (0.20, Some((36.994, 0.1998))),
    (0.25, Some((41.328, 0.2499))),
    (0.26, Some((43.075, 0.2598))),
    (0.27, Some((45.485, 0.2699))),
    (0.28, Some((49.352, 0.2799))),
    (0.29, Some((60.704, 0.2898))),
    (0.30, None),
];
const BOOKSIM_L8: &[(f64, Option<(f64, f64)>)] = &[
    (0.01, Some((40.440, 0.0099))),
    (0.05, Some((41.531, 0.0502))),
    (0.10, Some((43.039, 0.1001))),
    (0.15, Some((44.963, 0.1502))),
    (0.20, Some((48.031, 0.1998))),
    (0.25, Some((52.453, 0.2503))),
    (0.30, Some((60.789, 0.3000))),
    (0.35, Some((239.007, 0.3493))),
    (0.36, None),
    (0.40, None),
];

fn setup() -> (Fabric, Box<dyn Routing>, Params, Measure) {
    setup_on("mesh:8x8")
}

/// [`setup`] on fabric `spec` (the 8×8 mesh or torus), with its default routing (`dor`).
fn setup_on(spec: &str) -> (Fabric, Box<dyn Routing>, Params, Measure) {
    let f = generate(spec).unwrap_or_else(|e| fail(&format!("fabric `{spec}`: {e}")));
    let r = routing::build(&f, None).unwrap_or_else(|e| fail(&format!("routing of `{spec}`: {e}")));
    let p = Params::preset("booksim_iq").unwrap();
    let m = Measure { latency_limit: Some(Time(500 * p.flit_ps())), ..Measure::default() };
    (f, r, p, m)
}

fn workload(packet: u32, load: f64) -> Workload {
    let spec = format!("uniform:self=1,load={load},bytes={packet}");
    Workload::parse(&spec).unwrap_or_else(|e| fail(&format!("workload `{spec}`: {e}")))
}

fn stable(r: &RunRow) -> bool {
    !matches!(r.outcome, WorkloadOutcome::Unstable { .. })
}

fn cycles(r: &RunRow, ps: Option<f64>) -> Option<f64> {
    ps.map(|x| x / r.cycle_ps as f64)
}

/// BookSim's speed reference: one run of 8-flit packets at `load` on fabric `spec`, timed alone.
fn speed(spec: &str, load: f64) {
    let (f, r, p, m) = setup_on(spec);
    let (t, cpu0) = (Instant::now(), cpu_s());
    let res = run_workload(&f, &*r, &workload(8, load), &p, &m, 0).unwrap_or_else(|e| fail(&format!("{spec}: {e}")));
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_s().zip(cpu0).map(|(b, a)| b - a);
    let row = &res.run;
    if row.outcome != WorkloadOutcome::Drained {
        // (A saturated run has no rate to compare: its traversals stop at the instability limit.)
        fail(&format!(
            "speed {spec} {load}: the run did not drain ({:?}); choose a load below saturation",
            row.outcome
        ));
    }
    // Every packet crossed its injection link and then one router per channel after it.
    let traversals = row.flit_hops - row.messages * row.message_flits;
    let rate = traversals as f64 / wall;
    println!(
        "{{\"case\": \"booksim reference run\", \"fabric\": \"{spec}\", \"offered\": {load}, \"packet_flits\": 8, \"sim_cycles\": {}, \
         \"latency_cycles\": {:.3}, \"accepted\": {:.4}, \"flit_router_traversals\": {traversals}, \"events\": {}, \
         \"wall_s\": {wall:.3}, \"cpu_s\": {}, \"traversals_per_s\": {rate:.0}, \"vs_booksim\": {:.1}, \
         \"traversals_per_cpu_s\": {}, \"vs_booksim_cpu\": {}}}",
        row.end_ps / row.cycle_ps,
        cycles(row, row.latency_mean_ps).unwrap_or(f64::NAN),
        row.accepted_load,
        row.events,
        cpu.map_or("null".into(), |c| format!("{c:.3}")),
        rate / BOOKSIM_SPEED,
        cpu.map_or("null".into(), |c| format!("{:.0}", traversals as f64 / c)),
        cpu.map_or("null".into(), |c| format!("{:.1}", traversals as f64 / c / BOOKSIM_SPEED)),
    );
}

/// The latency-versus-load table for one packet size, and the saturation rate, next to BookSim's.
fn table(packet: u32) {
    let (f, r, p, m) = setup();
    let reference = if packet == 1 { BOOKSIM_L1 } else { BOOKSIM_L8 };
    let booksim_sat = reference.iter().rev().find(|x| x.1.is_some()).map(|x| x.0).unwrap();
    let mut loads: Vec<f64> = reference.iter().map(|x| x.0).collect();
    // The saturation search: every 0.01 step from 0.05 below BookSim's rate to 0.03 above.
    for k in -5..=3 {
        let l = ((booksim_sat + k as f64 * 0.01) * 100.0).round() / 100.0;
        if !loads.iter().any(|&x| (x - l).abs() < 1e-9) {
            loads.push(l);
        }
    }
    loads.sort_by(|a, b| a.total_cmp(b));
    let t = Instant::now();
    let rows = sweep(&f, &*r, &workload(packet, loads[0]), &p, &m, 0, &loads).unwrap();
    let wall = t.elapsed().as_secs_f64();
    println!("\nL = {packet} flits; {} runs in {wall:.1} s on {} threads", loads.len(), rayon::current_num_threads());
    println!("| offered | mcastlab latency | BookSim latency | difference | mcastlab accepted | BookSim accepted | mcastlab sim cycles |");
    println!("|---|---|---|---|---|---|---|");
    for (l, res) in loads.iter().zip(&rows) {
        let row = &res.run;
        let ours = if stable(row) {
            format!("{:.3}", cycles(row, row.latency_mean_ps).unwrap_or(f64::NAN))
        } else {
            format!("unstable @ {}", row.end_ps / row.cycle_ps)
        };
        let theirs = reference.iter().find(|x| (x.0 - l).abs() < 1e-9);
        let (b_lat, b_acc, diff) = match theirs {
            Some((_, Some((lat, acc)))) => {
                let d = cycles(row, row.latency_mean_ps).filter(|_| stable(row)).map(|x| (x - lat) / lat * 100.0);
                (format!("{lat:.3}"), format!("{acc:.4}"), d.map_or("–".into(), |d| format!("{d:+.1} %")))
            }
            Some((_, None)) => ("unstable".into(), "–".into(), "–".into()),
            None => ("(not run)".into(), "–".into(), "–".into()),
        };
        let acc = if stable(row) { format!("{:.4}", row.accepted_load) } else { "–".into() };
        println!("| {l:.2} | {ours} | {b_lat} | {diff} | {acc} | {b_acc} | {} |", row.end_ps / row.cycle_ps);
    }
    let sat = saturation(&loads, &rows.iter().map(|x| stable(&x.run)).collect::<Vec<_>>());
    println!(
        "saturation (highest stable load, 0.01 steps): mcastlab {sat:.2}, BookSim {booksim_sat:.2} ({:+.1} %)",
        (sat - booksim_sat) / booksim_sat * 100.0
    );
}

/// The highest load below which every load run is stable.
fn saturation(loads: &[f64], stable: &[bool]) -> f64 {
    let first_unstable = stable.iter().position(|s| !s).unwrap_or(loads.len());
    loads[..first_unstable].last().copied().unwrap_or(0.0)
}

/// booksim.md §5's seed spread on this mesh: seeds 0–4 at the loads it lists.
fn seeds() {
    let (f, r, p, m) = setup();
    let cases: [(u32, f64); 8] =
        [(1, 0.20), (1, 0.27), (1, 0.29), (1, 0.30), (8, 0.20), (8, 0.30), (8, 0.35), (8, 0.36)];
    println!(
        "| L | offered | avg packet latency: seed 0 / mean / min–max | accepted: mean (min–max) | unstable seeds |"
    );
    println!("|---|---|---|---|---|");
    for (packet, load) in cases {
        let runs: Vec<RunRow> =
            (0..5u64).map(|seed| run_workload(&f, &*r, &workload(packet, load), &p, &m, seed).unwrap().run).collect();
        let kept: Vec<&RunRow> = runs.iter().filter(|x| stable(x)).collect();
        let unstable: Vec<u64> = runs.iter().filter(|x| !stable(x)).map(|x| x.seed).collect();
        let lat: Vec<f64> = kept.iter().filter_map(|x| cycles(x, x.latency_mean_ps)).collect();
        let acc: Vec<f64> = kept.iter().map(|x| x.accepted_load).collect();
        let stats = |v: &[f64], digits: usize| {
            if v.is_empty() {
                return "–".to_string();
            }
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let (lo, hi) = (v.iter().copied().fold(f64::MAX, f64::min), v.iter().copied().fold(f64::MIN, f64::max));
            format!("{mean:.digits$} ({lo:.digits$}–{hi:.digits$})")
        };
        let seed0 = cycles(&runs[0], runs[0].latency_mean_ps).filter(|_| stable(&runs[0]));
        println!(
            "| {packet} | {load:.2} | {} / {} | {} | {:?} |",
            seed0.map_or("–".into(), |x| format!("{x:.2}")),
            stats(&lat, 2),
            stats(&acc, 4),
            unstable
        );
    }
}

fn point(packet: u32, load: f64) {
    let (f, r, p, m) = setup();
    let t = Instant::now();
    let res = run_workload(&f, &*r, &workload(packet, load), &p, &m, 0).unwrap_or_else(|e| fail(&e.to_string()));
    let row = &res.run;
    println!(
        "{{\"offered\": {load}, \"packet_flits\": {packet}, \"outcome\": {}, \"latency_cycles\": {:?}, \
         \"generated\": {:.4}, \"accepted\": {:.4}, \"sim_cycles\": {}, \"flit_hops\": {}, \"events\": {}, \
         \"wall_s\": {:.3}}}",
        serde_json::to_string(&row.outcome).unwrap(),
        cycles(row, row.latency_mean_ps),
        row.generated_load,
        row.accepted_load,
        row.end_ps / row.cycle_ps,
        row.flit_hops,
        row.events,
        t.elapsed().as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    // Argument `i` (default `d`) as a number, or the benchmark stops naming it.
    let number = |i: usize, d: &str, what: &str| -> f64 {
        let text = get(i, d);
        text.parse().unwrap_or_else(|_| fail(&format!("{what} `{text}`: not a number")))
    };
    let flits = |i: usize| -> u32 {
        let text = get(i, "8");
        text.parse().unwrap_or_else(|_| fail(&format!("packet flits `{text}`: not a whole number")))
    };
    match args.first().map(String::as_str) {
        None => {
            speed("mesh:8x8", 0.1);
            table(1);
            table(8);
        }
        Some("speed") => speed(&get(1, "mesh:8x8"), number(2, "0.1", "load")),
        Some("seeds") => seeds(),
        Some("table") => table(flits(1)),
        Some("point") => point(flits(1), number(2, "0.1", "load")),
        Some(other) => {
            eprintln!("unknown case `{other}`: use speed, table, seeds or point");
            std::process::exit(2)
        }
    }
}

/// Stops the benchmark with `message` on standard error and exit status 2 (a bad argument or a
/// run that cannot be measured), rather than a panic and its backtrace.
fn fail(message: &str) -> ! {
    eprintln!("bench_booksim: {message}");
    std::process::exit(2)
}
