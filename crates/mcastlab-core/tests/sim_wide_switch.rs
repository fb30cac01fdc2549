//! Switches at and past the limits of the iq router's word paths: SA on words for up to 64
//! inputs and outputs (the list path beyond), occupancy words of 64 VCs. At 64 ports, each
//! output bid for by a different input in the same cycle filled the list of outputs first bid
//! for; its count, read modulo 64, then emptied it: the match saw none of them, left their bids
//! standing, and those outputs never entered a match again (the bitcomp run below went unstable,
//! 5 µs mean latency at the limit). Found reading `bids.rs` for a speed change (session 13); the
//! unit test is in `bids.rs`.

mod common;

use mcastlab_core::sim::{run_workload, Detail, Measure, Params, Time, Workload, WorkloadOutcome};

fn short(p: &Params) -> Measure {
    let c = p.flit_ps();
    Measure {
        warmup: Some(Time(200 * c)),
        batch: Some(Time(1_000 * c)),
        batches: 2,
        latency_limit: Some(Time(5_000 * c)),
        detail: Detail::Destinations,
        ..Measure::default()
    }
}

/// One switch of `ports` ports, one endpoint on each, under `workload` with `allocator`: every
/// message arrives once and whole, and the run drains.
fn drains(ports: u32, allocator: &str, workload: &str) {
    let spec = format!("irregular:switches=1,ports={ports},endpoints={ports}");
    let (f, _) = common::fabric(&spec);
    assert_eq!((f.switches().len(), f.switches()[0].ports), (1, ports as u16));
    drains_on(&spec, 2, allocator, workload);
}

/// [`drains`] on fabric `spec` with `vcs` VCs a port.
fn drains_on(spec: &str, vcs: u32, allocator: &str, workload: &str) {
    let (f, r) = common::fabric(spec);
    let over = ["switch.router=iq".to_string(), format!("switch.allocator={allocator}"), format!("switch.vcs={vcs}")];
    let p = Params::with_overrides("booksim_iq", &over.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    let res = run_workload(&f, &*r, &Workload::parse(workload).unwrap(), &p, &short(&p), 1).unwrap();
    let what = format!("{spec}, {vcs} VCs, {allocator}, {workload}");
    assert_eq!(res.run.outcome, WorkloadOutcome::Drained, "{what}: {:?}", res.run.outcome);
    common::assert_workload_conserved(&res);
}

/// `bitcomp` on one 64-port switch: endpoint i sends to 63 − i, so every output has exactly one
/// input bidding for it; at this load, many cycles have all 64 heads bidding together.
#[test]
fn a_64_port_switch_whose_outputs_are_all_bid_for_at_once_delivers_everything() {
    for allocator in ["islip", "input_first"] {
        drains(64, allocator, "permutation:pattern=bitcomp,load=0.9,bytes=8");
    }
}

/// Just below, at and past the word paths' limit (63 and 64 ports on words, 65 and 128 on the
/// list path; 2 VCs a port, so the occupancy of 64 ports and more spans several words), under
/// uniform traffic near saturation and under a permutation.
#[test]
fn switches_around_64_ports_deliver_everything_under_load() {
    for allocator in ["islip", "input_first"] {
        for ports in [63, 64, 65, 128] {
            drains(ports, allocator, "uniform:self=1,load=0.6,bytes=16");
        }
        drains(128, allocator, "permutation:pattern=bitcomp,load=0.9,bytes=8");
    }
}

/// Ports of many VCs: 32, 64 and 65 a port on a small irregular fabric (VA's words cover an
/// output's VCs up to 64; one port's VCs then fill or pass an occupancy word).
#[test]
fn ports_of_up_to_65_vcs_deliver_everything_under_load() {
    for vcs in [32, 64, 65] {
        drains_on("irregular:switches=3,ports=6,endpoints=8,seed=4", vcs, "islip", "uniform:self=1,load=0.5,bytes=32");
    }
}

/// Random irregular fabrics of wide switches (33 to 70 ports, so some on the word paths, some on
/// the list path, some at 63–65), 1 to 65 VCs a port, either allocator, under uniform unicasts,
/// bit-string worms (copied at switches; they need two switches or more) or OpenSM multicast
/// trees to up to 4 destinations, at light load (copies leave an input one after another, see
/// `sim/net/iq/mod.rs`: bit-string worms of degree 3 on 3 switches of 70 ports and 1 VC accept
/// 0.015 of 0.02 offered, where the simple router takes all of it), so multicast loads here stay
/// between 0.005 and 0.011: every run drains and every copy arrives once.
mod random {
    use super::*;
    use proptest::prelude::*;
    use proptest::sample::select;

    fn case(switches: u32, ports: u32, vcs: u32, islip: bool, kind: usize, load_pct: u32, seed: u64) {
        let endpoints = (switches * ports / 2).max(2);
        let spec = format!("irregular:switches={switches},ports={ports},endpoints={endpoints},seed={seed}");
        let (degree, load) = (1 + seed as u32 % 4, f64::from(load_pct) / 100.0);
        let scheme = if kind == 1 && switches > 1 { "bitstring" } else { "ib_opensm" };
        let w = match kind {
            0 => format!("uniform:self=1,load={load},bytes=16"),
            _ => format!("multicast_load:degree={degree},load={},scheme={scheme},bytes=16", 0.003 + load / 5.0),
        };
        drains_on(&spec, vcs, if islip { "islip" } else { "input_first" }, &w);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn wide_routers_deliver_every_copy_once(
            switches in 1u32..4,
            ports in select(vec![33u32, 63, 64, 65, 70]),
            vcs in select(vec![1u32, 2, 3, 64, 65]),
            islip in any::<bool>(),
            kind in 0usize..3,
            load_pct in 1u32..5,
            seed in 1u64..1000,
        ) {
            case(switches, ports, vcs, islip, kind, load_pct, seed);
        }
    }
}
