//! A switch at the SA word path's limit: 64 ports, each output bid for by a different input in
//! the same cycle. The list of outputs first bid for then holds all 64; when its count was read
//! modulo 64 the match saw none of them, left their bids standing, and those outputs never entered
//! a match again (this run went unstable: 5 µs mean latency at the limit). Found reading
//! `bids.rs` for a speed change (session 13); the unit test is in `bids.rs`.

mod common;

use mcastlab_core::sim::{run_workload, Detail, Measure, Params, Time, Workload, WorkloadOutcome};

/// `bitcomp` on one 64-port switch: endpoint i sends to 63 − i, so every output has exactly one
/// input bidding for it; at this load, many cycles have all 64 heads bidding together.
#[test]
fn a_64_port_switch_whose_outputs_are_all_bid_for_at_once_delivers_everything() {
    let (f, r) = common::fabric("irregular:switches=1,ports=64,endpoints=64");
    assert_eq!(f.switches().len(), 1, "one switch");
    assert_eq!(f.switches()[0].ports, 64, "of 64 ports");
    let p = Params::with_overrides("booksim_iq", &["switch.router=iq"]).unwrap();
    let c = p.flit_ps();
    let m = Measure {
        warmup: Some(Time(200 * c)),
        batch: Some(Time(400 * c)),
        batches: 2,
        latency_limit: Some(Time(5_000 * c)),
        detail: Detail::Destinations,
        ..Measure::default()
    };
    let w = Workload::parse("permutation:pattern=bitcomp,load=0.9,bytes=8").unwrap();
    let res = run_workload(&f, &*r, &w, &p, &m, 1).unwrap();
    assert_eq!(res.run.outcome, WorkloadOutcome::Drained, "{:?}", res.run.outcome);
    common::assert_workload_conserved(&res);
}
