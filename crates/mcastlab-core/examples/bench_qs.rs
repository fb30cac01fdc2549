//! Benchmark (not a test): coll03 hardware-based multicast trees on quaternary fat-trees.
//!
//!     cargo run --release -p mcastlab-core --example bench_qs               # timings
//!     cargo run --release -p mcastlab-core --example bench_qs -- table1     # coll03 Table 1 rows (JSON)
//!     cargo run --release -p mcastlab-core --example bench_qs -- fig7       # coll03 Fig. 7 rows (JSON)
//!
//! Timings: `qs_greedy` on 4096 endpoints with 1% faulty (the algorithm alone, and the whole plan:
//! sender matching and plan validation), `qs_optimal` on 1024 endpoints over random fault sets
//! (1%, 5% and 10% faulty), and how often a step's multicasts share an (adaptive) up link.

use mcastlab_core::experiments::qs_table::{self, QsTableConfig};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::generators::kary_ntree::KaryNtree;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions};
use mcastlab_core::plan::Discipline;
use mcastlab_core::rng;
use mcastlab_core::routing;
use mcastlab_core::schemes::qs::qs_groups::QsNet;
use mcastlab_core::schemes::qs::{qs_greedy, qs_optimal, qs_tree};
use mcastlab_core::schemes::SchemeInput;
use rand::Rng;
use std::time::Instant;

/// Source and destinations of a random fault set: `faulty` endpoints out, a random working source.
fn draw(size: u32, faulty: u32, index: u64) -> (EndpointId, Vec<EndpointId>) {
    let mut r = rng::stream(1, "bench-qs", index);
    let mut v: Vec<u32> = (0..size).collect();
    for i in 0..faulty as usize {
        let j = r.random_range(i..size as usize);
        v.swap(i, j);
    }
    let mut working = v[faulty as usize..].to_vec();
    working.sort_unstable();
    let source = working[r.random_range(0..working.len())];
    (EndpointId(source), working.into_iter().filter(|x| *x != source).map(EndpointId).collect())
}

/// `{"min": …, "median": …, "p99": …, "max": …}` in microseconds.
fn summary(mut us: Vec<f64>) -> String {
    us.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| us[((us.len() - 1) as f64 * q).round() as usize];
    format!(
        "{{\"min_us\": {:.1}, \"median_us\": {:.1}, \"p99_us\": {:.1}, \"max_us\": {:.1}}}",
        at(0.0),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

fn greedy_4096() {
    let f = generate("kary_ntree:k=4,n=6").unwrap();
    let r = routing::build(&f, None).unwrap();
    let tree = KaryNtree::from_fabric(&f).unwrap();
    let net = QsNet::from_tree(&tree);
    let (mut solve, mut plan, mut depth) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..200 {
        let (source, dests) = draw(4096, 41, i);
        let input = SchemeInput {
            fabric: &f,
            routing: r.as_ref(),
            source,
            destinations: &dests,
            packets: 1,
            discipline: Discipline::NiFpfs,
        };
        let t0 = Instant::now();
        let groups = net.decompose(&dests).unwrap();
        let t = qs_greedy::solve(&net, source, &groups).unwrap();
        solve.push(t0.elapsed().as_secs_f64() * 1e6);
        let t1 = Instant::now();
        let p = qs_tree::build_plan(&input, "qs_greedy".into(), &tree, &t).unwrap();
        plan.push(t1.elapsed().as_secs_f64() * 1e6 + solve.last().unwrap());
        depth.push(t.depth());
        assert_eq!(p.transmissions.len(), t.steps.iter().map(|s| s.len()).sum::<usize>());
    }
    let mean = depth.iter().sum::<u32>() as f64 / depth.len() as f64;
    println!(
        "{{\"bench\": \"qs_greedy\", \"endpoints\": 4096, \"faulty\": 41, \"trees\": 200, \"mean_depth\": {mean:.3}, \"solve\": {}, \"solve_and_plan\": {}}}",
        summary(solve),
        summary(plan)
    );
}

fn optimal_1024() {
    let net = QsNet::new(4, 5, 1024).unwrap();
    for faulty in [10u32, 51, 102] {
        let (mut times, mut proven, mut improved, mut explored) = (Vec::new(), 0, 0, 0u64);
        for i in 0..100 {
            let (source, dests) = draw(1024, faulty, 1000 + i);
            let groups = net.decompose(&dests).unwrap();
            let t0 = Instant::now();
            let o = qs_optimal::solve(&net, source, &groups, qs_optimal::DEFAULT_BUDGET).unwrap();
            times.push(t0.elapsed().as_secs_f64() * 1e6);
            proven += o.proven as u32;
            improved += (o.tree.depth() < o.greedy_depth) as u32;
            explored = explored.max(o.explored);
        }
        println!(
            "{{\"bench\": \"qs_optimal\", \"endpoints\": 1024, \"faulty\": {faulty}, \"trees\": 100, \"proven\": {proven}, \"better_than_greedy\": {improved}, \"max_explored\": {explored}, \"time\": {}}}",
            summary(times)
        );
    }
}

fn contention(spec: &str, size: u32, faulty: u32, trees: u64) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, None).unwrap();
    let tree = KaryNtree::from_fabric(&f).unwrap();
    let net = QsNet::from_tree(&tree);
    let (mut steps, mut shared, mut ok) = (0u64, 0u64, 0u64);
    for i in 0..trees {
        let (source, dests) = draw(size, faulty, 5000 + i);
        let input = SchemeInput {
            fabric: &f,
            routing: r.as_ref(),
            source,
            destinations: &dests,
            packets: 1,
            discipline: Discipline::NiFpfs,
        };
        let t = qs_greedy::solve(&net, source, &net.decompose(&dests).unwrap()).unwrap();
        let p = qs_tree::build_plan(&input, "qs_greedy".into(), &tree, &t).unwrap();
        let rep = check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap();
        ok += rep.ok() as u64;
        steps += rep.steps;
        // Steps (of this plan) with a channel used twice: at least one when max > 1.
        shared += (rep.max_step_contention > 1) as u64;
    }
    println!(
        "{{\"bench\": \"qs_greedy_links\", \"spec\": \"{spec}\", \"faulty\": {faulty}, \"plans\": {trees}, \"plans_ok\": {ok}, \"steps\": {steps}, \"plans_with_a_shared_up_link\": {shared}}}"
    );
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("table1") | Some("fig7") => {
            let fig7 = std::env::args().nth(1).as_deref() == Some("fig7");
            let cfg = if fig7 { QsTableConfig::fig7() } else { QsTableConfig::table1() };
            let t0 = Instant::now();
            for row in qs_table::qs_table(&cfg).unwrap() {
                println!("{}", serde_json::to_string(&row).unwrap());
            }
            eprintln!("{:.1} s", t0.elapsed().as_secs_f64());
        }
        _ => {
            greedy_4096();
            optimal_1024();
            contention("kary_ntree:k=4,n=6", 4096, 41, 20);
            contention("kary_ntree:k=4,n=4", 256, 26, 200);
            contention("kary_ntree:k=4,n=3", 64, 6, 500);
        }
    }
}
