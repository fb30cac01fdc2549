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
        batch: Some(Time(400 * c)),
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
