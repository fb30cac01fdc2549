//! Benchmark (not a test): OpenSM's MFTs for 1,000 multicast groups of mixed sizes on one fabric,
//! the capacity report, the `opensm.mcfdbs` text and a flood check of every MLID.
//!
//!     cargo run --release -p mcastlab-core --example bench_mcast_groups -- 'mport_ntree:m=36,n=3' 1000
//!
//! Group sizes are drawn (ChaCha8 stream `bench_mcast_groups`, seed 1) log-uniformly from 2 to
//! every endpoint, members uniformly; one in ten groups also has a switch member. Prints one JSON
//! object with the time of each stage; the flood check runs on 20 groups of at most 100 members.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::{EndpointId, SwitchId};
use mcastlab_core::io::mft_dump::opensm_mcfdbs;
use mcastlab_core::mcast::groups::{Group, JOIN_FULL};
use mcastlab_core::mcast::select::Member;
use mcastlab_core::mcast::{build, capacity, verify};
use mcastlab_core::rng::stream;
use rand::seq::index::sample;
use rand::Rng;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "mport_ntree:m=36,n=3".into());
    let count: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let t0 = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let fabric_s = t0.elapsed().as_secs_f64();
    let n = f.num_endpoints();
    let mut rng = stream(1, "bench_mcast_groups", 0);
    let mut groups = Vec::with_capacity(count);
    let mut total = 0usize;
    for i in 0..count {
        let size = (2f64 * ((n as f64 / 2.0).powf(rng.random::<f64>()))).round() as usize;
        let size = size.clamp(2, n);
        let mut members: Vec<(Member, u8)> =
            sample(&mut rng, n, size).into_iter().map(|e| (Member::Port(EndpointId(e as u32)), JOIN_FULL)).collect();
        if i % 10 == 0 {
            members.push((Member::Switch(SwitchId(rng.random_range(0..f.num_switches() as u32))), JOIN_FULL));
        }
        total += members.len();
        groups.push(Group { name: format!("g{i}"), mlid: None, ipoib: i == 0, members });
    }
    let t = Instant::now();
    let hops = build::hop_matrix(&f, None).unwrap();
    let hops_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let tables = build::build(&f, &hops, &groups).unwrap();
    let mfts_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let report = capacity::admit(&f, &groups, &tables, &capacity::Limits::default()).unwrap();
    let capacity_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let text = opensm_mcfdbs(&f, &tables.mft).unwrap();
    let dump_s = t.elapsed().as_secs_f64();
    eprintln!("hop matrix {hops_s:.3} s, MFTs {mfts_s:.3} s, capacity {capacity_s:.3} s, mcfdbs {dump_s:.3} s");
    // Flood check of 20 groups of at most 100 members from every member (the check floods once
    // per member, so it is quadratic in a group's size).
    let t = Instant::now();
    let ok = tables
        .groups
        .iter()
        .filter(|g| g.members <= 100)
        .take(20)
        .all(|g| verify::check_mlid(&f, &tables.mft, g.mlid, None).ok);
    let check20_s = t.elapsed().as_secs_f64();
    println!(
        "{{\"fabric\": \"{spec}\", \"switches\": {}, \"endpoints\": {n}, \"groups\": {count}, \"members\": {total}, \
         \"mft_rows\": {}, \"mcfdbs_bytes\": {}, \"hardware\": {}, \"software\": {}, \"fabric_s\": {fabric_s:.3}, \
         \"hop_matrix_s\": {hops_s:.3}, \"mfts_s\": {mfts_s:.3}, \"capacity_s\": {capacity_s:.3}, \"mcfdbs_s\": {dump_s:.3}, \
         \"check20_s\": {check20_s:.3}, \"check20_ok\": {ok}}}",
        f.num_switches(),
        tables.mft.len(),
        text.len(),
        report.hardware,
        report.software
    );
}
