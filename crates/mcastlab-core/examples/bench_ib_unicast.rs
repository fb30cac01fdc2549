//! Benchmark (not a test): OpenSM's unicast LFTs and the joint unicast + multicast deadlock check
//! (issue 11) on a large fabric with many multicast trees.
//!
//!     cargo run --release -p mcastlab-core --example bench_ib_unicast -- 'mport_ntree:m=32,n=3' minhop 1000 64
//!
//! Arguments: fabric spec, unicast engine, number of trees, members per tree. Members are drawn
//! with the `rng::stream` ChaCha8 stream (seed 1, label "bench_ib_unicast"), one stream per tree;
//! each tree is OpenSM's default tree (`ib_opensm::opensm_tree`) with MLIDs from 0xC000. Prints
//! one JSON object with the seconds of each stage and the verdict.

use mcastlab_core::check::joint::{joint_deadlock, Sl2Vl};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::MftEntry;
use mcastlab_core::routing;
use mcastlab_core::schemes::ib_opensm::opensm_tree;
use rand::seq::index::sample;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "mport_ntree:m=32,n=3".into());
    let engine = args.get(1).cloned().unwrap_or_else(|| "minhop".into());
    let trees: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let members: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(64);
    let t = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let fabric_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let r = routing::build(&f, Some(&engine)).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let lft_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let unicast = r.turns(&f).expect("the OpenSM engines enumerate their turns");
    let turns_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let n = f.num_endpoints();
    let mfts: Vec<Vec<MftEntry>> = (0..trees)
        .into_par_iter()
        .map(|i| {
            let mut rng = mcastlab_core::rng::stream(1, "bench_ib_unicast", i);
            let m: Vec<EndpointId> =
                sample(&mut rng, n, members.min(n)).into_iter().map(|e| EndpointId(e as u32)).collect();
            opensm_tree(&f, &m, 0xC000 + (i as u32 % 0x3FFF)).mft
        })
        .collect();
    let trees_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let sl = Sl2Vl::default();
    let with_vl: Vec<(&[MftEntry], u8)> = mfts.iter().map(|m| (m.as_slice(), sl.vl(0))).collect();
    let d = joint_deadlock(&f, &unicast, &with_vl);
    let joint_s = t.elapsed().as_secs_f64();
    let verdict = match &d {
        mcastlab_core::check::Deadlock::Free { .. } => "free".to_string(),
        mcastlab_core::check::Deadlock::Cycle { rendered, .. } => format!("cycle of {}", rendered.len()),
        mcastlab_core::check::Deadlock::Skipped { reason } => format!("skipped: {reason}"),
    };
    println!(
        "{{\"fabric\": \"{spec}\", \"endpoints\": {n}, \"switches\": {}, \"routing\": \"{}\", \"trees\": {trees}, \
         \"members\": {members}, \"fabric_s\": {fabric_s:.3}, \"hop_matrix_and_lfts_s\": {lft_s:.3}, \
         \"unicast_turns_s\": {turns_s:.3}, \"trees_s\": {trees_s:.3}, \"joint_check_s\": {joint_s:.3}, \
         \"total_s\": {:.3}, \"deadlock\": \"{verdict}\"}}",
        f.num_switches(),
        r.spec(),
        lft_s + turns_s + trees_s + joint_s
    );
}
