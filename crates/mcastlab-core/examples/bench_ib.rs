//! Benchmark (not a test): issue 11's scale case as one workflow — OpenSM's unicast routing, the
//! MFTs of many multicast groups over that routing's hop matrix, the capacity report and the
//! joint unicast + multicast deadlock check.
//!
//!     cargo run --release -p mcastlab-core --example bench_ib -- 'mport_ntree:m=36,n=3' minhop 1000
//!
//! Arguments: fabric spec, unicast engine (`minhop`, `updn`, ...), number of groups, and `k`: one
//! group in `k` also has a switch member (default 10; 0 = none). Group sizes are drawn (ChaCha8
//! stream `bench_ib`, seed 1) log-uniformly from 2 to every endpoint, members uniformly; group 0
//! is the IPoIB broadcast group. The verdicts of unicast alone and of the trees alone are printed
//! too (untimed). Prints the seconds of each stage on stderr and one JSON object on stdout. Stages:
//! `unicast` (the engine's hop matrix and LFTs), `unicast_turns` (the LFTs' channel
//! dependencies), `mfts` (every group's tree over the engine's hop matrix — no per-tree BFS),
//! `capacity`, `joint` (the joint check on VL 0), and the `opensm.mcfdbs` text (not in the total).

use mcastlab_core::check::joint::joint_deadlock;
use mcastlab_core::check::Deadlock;
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::{EndpointId, SwitchId};
use mcastlab_core::io::mft_dump::opensm_mcfdbs;
use mcastlab_core::mcast::groups::{Group, JOIN_FULL};
use mcastlab_core::mcast::select::Member;
use mcastlab_core::mcast::{build, capacity};
use mcastlab_core::plan::MftEntry;
use mcastlab_core::rng::stream;
use mcastlab_core::routing;
use rand::seq::index::sample;
use rand::Rng;
use std::time::Instant;

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("error: {e}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().cloned().unwrap_or_else(|| "mport_ntree:m=36,n=3".into());
    let engine = args.get(1).cloned().unwrap_or_else(|| "minhop".into());
    let count: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let switch_every: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(10);
    let t = Instant::now();
    let f = generate(&spec).unwrap_or_else(|e| fail(e));
    let fabric_s = t.elapsed().as_secs_f64();
    let n = f.num_endpoints();
    let mut rng = stream(1, "bench_ib", 0);
    let mut groups = Vec::with_capacity(count);
    let mut members_total = 0usize;
    for i in 0..count {
        let size = (2f64 * ((n as f64 / 2.0).powf(rng.random::<f64>()))).round() as usize;
        let size = size.clamp(2, n);
        let mut members: Vec<(Member, u8)> =
            sample(&mut rng, n, size).into_iter().map(|e| (Member::Port(EndpointId(e as u32)), JOIN_FULL)).collect();
        if switch_every > 0 && i % switch_every == 0 {
            members.push((Member::Switch(SwitchId(rng.random_range(0..f.num_switches() as u32))), JOIN_FULL));
        }
        members_total += members.len();
        groups.push(Group { name: format!("g{i}"), mlid: None, ipoib: i == 0, members });
    }

    let t = Instant::now();
    let r = routing::build(&f, Some(&engine)).unwrap_or_else(|e| fail(e));
    let unicast_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let unicast = r.turns(&f).unwrap_or_else(|| fail("this engine does not enumerate its turns"));
    let turns_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let hops = build::hops_for_routing(&f, r.as_ref());
    let tables = build::build(&f, &*hops, &groups).unwrap_or_else(|e| fail(e));
    let mfts_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let report = capacity::admit(&f, &groups, &tables, &capacity::Limits::default()).unwrap_or_else(|e| fail(e));
    let capacity_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let trees: [(&[MftEntry], u8); 1] = [(&tables.mft, 0)];
    let d = joint_deadlock(&f, &unicast, &trees);
    let joint_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let text = opensm_mcfdbs(&f, &tables.mft).unwrap_or_else(|e| fail(e));
    let dump_s = t.elapsed().as_secs_f64();
    let say = |d: &Deadlock| match d {
        Deadlock::Free { .. } => "free".to_string(),
        Deadlock::Cycle { rendered, .. } => format!("cycle of {}", rendered.len()),
        Deadlock::Skipped { reason } => format!("skipped: {reason}"),
    };
    let verdict = say(&d);
    if let Deadlock::Cycle { rendered, .. } = &d {
        eprintln!("joint cycle: {}", rendered.join(" | "));
    }
    // The two halves alone (not timed): a joint cycle that neither has is the case the joint
    // check exists for.
    let alone_unicast = say(&joint_deadlock(&f, &unicast, &[]));
    let alone_mcast = say(&joint_deadlock(&f, &[], &trees));
    let three = mfts_s + capacity_s + joint_s;
    let total = unicast_s + turns_s + three;
    eprintln!(
        "unicast {unicast_s:.3} s, turns {turns_s:.3} s, MFTs {mfts_s:.3} s, capacity {capacity_s:.3} s, \
         joint {joint_s:.3} s; MFTs+capacity+joint {three:.3} s, with unicast {total:.3} s; mcfdbs {dump_s:.3} s"
    );
    println!(
        "{{\"fabric\": \"{spec}\", \"switches\": {}, \"endpoints\": {n}, \"routing\": \"{}\", \"groups\": {count}, \"switch_member_every\": {switch_every}, \
         \"members\": {members_total}, \"mft_rows\": {}, \"unicast_turns\": {}, \"hardware\": {}, \"software\": {}, \
         \"deadlock\": \"{verdict}\", \"unicast_alone\": \"{alone_unicast}\", \"multicast_alone\": \"{alone_mcast}\", \"fabric_s\": {fabric_s:.3}, \"unicast_s\": {unicast_s:.3}, \
         \"unicast_turns_s\": {turns_s:.3}, \"mfts_s\": {mfts_s:.3}, \"capacity_s\": {capacity_s:.3}, \
         \"joint_s\": {joint_s:.3}, \"mfts_capacity_joint_s\": {three:.3}, \"total_s\": {total:.3}, \
         \"mcfdbs_bytes\": {}, \"mcfdbs_s\": {dump_s:.3}}}",
        f.num_switches(),
        r.spec(),
        tables.mft.len(),
        unicast.len(),
        report.hardware,
        report.software,
        text.len()
    );
}
