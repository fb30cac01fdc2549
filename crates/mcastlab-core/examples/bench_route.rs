//! Benchmark (not a test): build a fabric, build its routing, materialize the full forwarding
//! table, optionally run the routing check; print wall times and peak memory (VmHWM).
//!
//!     cargo run --release -p mcastlab-core --example bench_route -- 'mport_ntree:m=64,n=3' [routing] [--check]

use mcastlab_core::check::{check, CheckOptions};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing::{self, table::forwarding_table};
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<f64>().ok()))
        .map(|kib| kib / 1024.0)
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "mport_ntree:m=64,n=3".into());
    let routing_spec = args.get(1).filter(|a| !a.starts_with("--")).cloned();
    let do_check = args.iter().any(|a| a == "--check");
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t_build = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let r = routing::build(&f, routing_spec.as_deref()).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t_routing = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let table = forwarding_table(&f, r.as_ref());
    let t_table = t2.elapsed().as_secs_f64();
    let unrouted = table.ports.iter().filter(|p| **p == 0).count();
    let mut line = format!(
        "{{\"spec\": \"{}\", \"routing\": \"{}\", \"switches\": {}, \"endpoints\": {}, \"links\": {}, \"build_s\": {:.3}, \"routing_s\": {:.3}, \"table_s\": {:.3}, \"table_entries\": {}, \"unrouted_entries\": {}",
        spec,
        r.spec(),
        f.num_switches(),
        f.num_endpoints(),
        f.num_links(),
        t_build,
        t_routing,
        t_table,
        table.ports.len(),
        unrouted
    );
    if do_check {
        let t3 = Instant::now();
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        line.push_str(&format!(
            ", \"check_s\": {:.3}, \"check_ok\": {}, \"reachability\": \"{}\", \"deadlock\": \"{}\"",
            t3.elapsed().as_secs_f64(),
            c.ok(),
            serde_json::to_value(&c.reachability).unwrap()["status"].as_str().unwrap_or("?"),
            serde_json::to_value(&c.deadlock).unwrap()["status"].as_str().unwrap_or("?")
        ));
    }
    line.push_str(&format!(
        ", \"total_s\": {:.3}, \"peak_rss_mib\": {:.1}}}",
        t0.elapsed().as_secs_f64(),
        peak_rss_mib()
    ));
    println!("{line}");
}
