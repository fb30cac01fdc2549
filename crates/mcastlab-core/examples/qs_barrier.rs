//! Experiment (not a test): coll03 §6's barrier setting in the simulator — the hardware-based
//! multicast tree (`qs_greedy`) against the QsNET software tree (`qs_software`) on 16 and 32 nodes
//! with 0–4 faulty nodes, coll03 preset (circuits held until the combined acknowledgement).
//!
//!     cargo run --release -p mcastlab-core --example qs_barrier            # 8-byte token, 100 fault sets
//!     cargo run --release -p mcastlab-core --example qs_barrier -- 8 50    # bytes, fault sets per row
//!     cargo run --release -p mcastlab-core --example qs_barrier -- bandwidth
//!
//! The 16-node network is `kary_ntree:k=4,n=2`; the 32-node cluster is nodes 0–31 of
//! `kary_ntree:k=4,n=3` (a quaternary fat-tree has 4^n nodes). The source is node 0; faulty nodes
//! are drawn uniformly among the others (seeded, the same sets for both schemes). A barrier is
//! modelled as one multicast of a small token from the source plus its combined acknowledgements:
//! `delivered` is when the last destination's host has the token, `acked` when the last sender
//! holds the acknowledgement of its last copy (for the hardware tree, the hardware's own notion of
//! completion). Forwarding is host-level (each node's host sends after it received), under both
//! the host discipline and a smart-NI source.
//!
//! `bandwidth` prints coll03 §6's broadcast setting instead (Figs. 9–10): message size over
//! completion time on the 32-node cluster, with no faulty node and with nodes 9 and 20 faulty, for
//! both schemes, with circuits held until the acknowledgement and without.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_plan, Outcome, Params};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Mean and extremes of a set of times, in µs.
fn stats(v: &[u64]) -> (f64, f64, f64) {
    let us = |x: u64| x as f64 / 1e6;
    let mean = v.iter().map(|&x| us(x)).sum::<f64>() / v.len() as f64;
    (mean, us(*v.iter().min().unwrap()), us(*v.iter().max().unwrap()))
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("bandwidth") {
        return bandwidth();
    }
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("bytes and fault sets")).collect();
    let bytes = args.first().copied().unwrap_or(8);
    let sets = args.get(1).copied().unwrap_or(100) as usize;
    let params = Params::preset("coll03").unwrap();
    println!("| nodes | faulty | discipline | scheme | steps (mean) | delivered µs (mean, min–max) | acked µs (mean, min–max) |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (spec, nodes) in [("kary_ntree:k=4,n=2", 16u32), ("kary_ntree:k=4,n=3", 32)] {
        let f = generate(spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        for faulty in 0..=4usize {
            let mut rng = ChaCha8Rng::seed_from_u64(1000 * nodes as u64 + faulty as u64);
            let draws: Vec<Vec<EndpointId>> = (0..if faulty == 0 { 1 } else { sets })
                .map(|_| {
                    let mut others: Vec<u32> = (1..nodes).collect();
                    others.shuffle(&mut rng);
                    let down = &others[..faulty];
                    (1..nodes).filter(|x| !down.contains(x)).map(EndpointId).collect()
                })
                .collect();
            for d in [Discipline::Host, Discipline::NiFpfs] {
                for scheme in ["qs_greedy", "qs_software"] {
                    let (mut deliv, mut acked, mut steps) = (Vec::new(), Vec::new(), 0u64);
                    for dests in &draws {
                        let input = SchemeInput {
                            fabric: &f,
                            routing: r.as_ref(),
                            source: EndpointId(0),
                            destinations: dests,
                            packets: 1,
                            discipline: d,
                        };
                        let plan = schemes::plan(&input, scheme).unwrap();
                        steps += depth(&plan) as u64;
                        let res = run_plan(&f, r.as_ref(), &plan, &params, bytes, 1).unwrap();
                        assert_eq!(res.outcome, Outcome::Delivered, "{scheme} {dests:?}");
                        deliv.push(res.completion_ps.unwrap());
                        acked.push(res.acked_ps.unwrap());
                    }
                    let (dm, dlo, dhi) = stats(&deliv);
                    let (am, alo, ahi) = stats(&acked);
                    println!(
                        "| {nodes} | {faulty} | {d:?} | {scheme} | {:.2} | {dm:.2} ({dlo:.2}–{dhi:.2}) | {am:.2} ({alo:.2}–{ahi:.2}) |",
                        steps as f64 / draws.len() as f64
                    );
                }
            }
        }
    }
}

/// Steps of a plan: the longest chain of transmissions from the source.
fn depth(plan: &mcastlab_core::plan::Plan) -> u32 {
    let mut at = vec![0u32; plan.transmissions.len()];
    let mut step_of = std::collections::BTreeMap::new();
    step_of.insert(plan.source, 0u32);
    for (i, t) in plan.transmissions.iter().enumerate() {
        at[i] = step_of[&t.sender] + 1;
        for d in &t.delivers {
            step_of.insert(*d, at[i]);
        }
    }
    at.into_iter().max().unwrap_or(0)
}

/// Broadcast bandwidth (message bytes / completion) on the 32-node cluster, smart-NI source.
fn bandwidth() {
    let f = generate("kary_ntree:k=4,n=3").unwrap();
    let r = routing::build(&f, None).unwrap();
    println!("| faulty | scheme | circuits | 32 KiB MB/s | 64 KiB MB/s | 256 KiB MB/s |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for faulty in [vec![], vec![9u32, 20]] {
        let dests: Vec<EndpointId> = (1..32).filter(|x| !faulty.contains(x)).map(EndpointId).collect();
        for scheme in ["qs_greedy", "qs_software"] {
            for circuits in [true, false] {
                let p = Params::with_overrides("coll03", &[&format!("switch.circuit_until_ack={circuits}")]).unwrap();
                let mut row = format!("| {faulty:?} | {scheme} | {circuits} |");
                for bytes in [32u64 << 10, 64 << 10, 256 << 10] {
                    let input = SchemeInput {
                        fabric: &f,
                        routing: r.as_ref(),
                        source: EndpointId(0),
                        destinations: &dests,
                        packets: p.packets_for(bytes),
                        discipline: Discipline::NiFpfs,
                    };
                    let plan = schemes::plan(&input, scheme).unwrap();
                    let res = run_plan(&f, r.as_ref(), &plan, &p, bytes, 1).unwrap();
                    let t = res.completion_ps.expect("delivered") as f64 / 1e12;
                    row += &format!(" {:.1} |", bytes as f64 / t / 1e6);
                }
                println!("{row}");
            }
        }
    }
}
