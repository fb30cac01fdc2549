//! bhoedjang98's FM/MC (`ni.send = fmmc`, preset `bhoedjang98_fmmc`): fixed 256-byte packets whose
//! first holds a handler word, host credits from a central manager returned by a rotating token,
//! and an NI receive queue that swaps to host memory.

mod common;

use common::{assert_workload_conserved, delivered, fabric, scheme_plan};
use mcastlab_core::plan::Discipline;
use mcastlab_core::sim::{run_plan, run_workload, Measure, Params, Workload, WorkloadOutcome};
use mcastlab_core::EndpointId;

fn fmmc(overrides: &[&str]) -> Params {
    Params::with_overrides("bhoedjang98_fmmc", overrides).unwrap()
}

/// §5.3: "FM/MC does not allow the user to completely fill the first packet of a message" (one
/// word holds the handler): 252 bytes fit one 256-byte packet, 253 need two; every packet is sent
/// whole.
#[test]
fn the_first_packet_holds_the_handler_and_packets_are_fixed_size() {
    let p = fmmc(&[]);
    assert_eq!((p.packets_for(252), p.packets_for(253), p.packets_for(256)), (1, 2, 2));
    assert_eq!(p.packet_bytes(10, 0), 256, "a 10-byte message still sends a whole packet");
    let lfc = Params::with_overrides("bhoedjang98", &["link.mtu_bytes=256"]).unwrap();
    assert_eq!((lfc.packets_for(256), lfc.packet_bytes(10, 0)), (1, 10), "LFC packets are variable-length");
}

/// By hand: one sender (the manager's own host, endpoint 0) broadcasts 3 packets to the 7 others
/// with 2 buffers per host and batches of 2. It starts with no credits, so all 3 packets wait (3
/// host waits) and it asks for 2 (granted: every other host has 2 free); it sends 2 packets and
/// asks again for the third; now every other host has 0 free, so the request waits at the
/// manager until the token, which starts from the manager once a packet is in some host's memory
/// and goes round the 8 NIs (8 hops a round), has brought buffers back; then the manager grants
/// the third packet's credit (or two).
#[test]
fn credits_and_the_token_by_hand() {
    let (f, r) = fabric("hypercube:dim=1");
    let dests: Vec<EndpointId> = (1..8).map(EndpointId).collect();
    let p = fmmc(&["fmmc.host_buffers=2", "fmmc.credit_batch=2"]);
    let bytes = 3 * 256 - 4; // three packets exactly
    assert_eq!(p.packets_for(bytes), 3);
    let plan = scheme_plan(&f, &*r, "binary", EndpointId(0), &dests, 3, Discipline::NiFpfs).unwrap();
    let res = run_plan(&f, &*r, &plan, &p, bytes, 1).unwrap();
    delivered(&res);
    let s = res.fmmc.clone().unwrap();
    assert_eq!((s.credit_requests, s.requests_queued, s.host_waits), (2, 1, 3), "{s:?}");
    assert!(s.credits_granted >= 3 && s.token_rounds >= 1 && s.token_hops >= 8, "{s:?}");
    assert_eq!(s.token_hops % 8, 0, "every round visits the 8 NIs: {s:?}");
    assert_eq!(s.swapped_packets, 0);
    // With plenty of buffers nothing waits and the token only returns what was used.
    let plenty = run_plan(&f, &*r, &plan, &fmmc(&[]), bytes, 1).unwrap();
    let t = plenty.fmmc.clone().unwrap();
    assert_eq!((t.credit_requests, t.requests_queued, t.host_waits, t.credits_granted), (1, 0, 3, 8));
    assert!(delivered(&plenty) < delivered(&res), "waiting for the token costs time");
}

/// A tiny NI receive queue under an all-to-all swaps packets to host memory and back; every
/// message still arrives exactly once. With a large queue nothing is swapped.
#[test]
fn a_full_ni_queue_swaps_to_host_memory() {
    let (f, r) = fabric("hypercube:dim=2");
    let w = Workload::parse("all_to_all:scheme=binary,bytes=4KiB").unwrap();
    let small = run_workload(&f, &*r, &w, &fmmc(&["fmmc.ni_buffers=2"]), &Measure::default(), 1).unwrap();
    assert_eq!(small.run.outcome, WorkloadOutcome::Drained, "{:?}", small.run.outcome);
    assert_workload_conserved(&small);
    let s = small.run.fmmc.clone().unwrap();
    assert!(s.swapped_packets > 0 && s.max_ni_queue <= 2, "{s:?}");
    let big = run_workload(&f, &*r, &w, &fmmc(&["fmmc.ni_buffers=100000"]), &Measure::default(), 1).unwrap();
    assert_eq!(big.run.outcome, WorkloadOutcome::Drained);
    assert_eq!(big.run.fmmc.clone().unwrap().swapped_packets, 0);
    assert!(big.run.end_ps < small.run.end_ps, "swapping costs DMA time");
}

#[test]
fn bad_fmmc_parameters_are_named_before_the_run() {
    let (f, r) = fabric("hypercube:dim=1");
    let plan = scheme_plan(&f, &*r, "binary", EndpointId(0), &[EndpointId(1)], 1, Discipline::NiFpfs).unwrap();
    let e = run_plan(&f, &*r, &plan, &fmmc(&["fmmc.manager=8"]), 100, 1).unwrap_err().to_string();
    assert!(e.starts_with("parameter `fmmc.manager`") && e.contains("does not exist"), "{e}");
    for (o, key) in [
        ("fmmc.ni_buffers=1", "fmmc.ni_buffers"),
        ("fmmc.host_buffers=0", "fmmc.host_buffers"),
        ("fmmc.credit_batch=0", "fmmc.credit_batch"),
        ("fmmc.handler_bytes=256", "fmmc.handler_bytes"),
    ] {
        let e = Params::with_overrides("bhoedjang98_fmmc", &[o]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("parameter `{key}`")), "{o}: {e}");
    }
}

/// The comparison the paper makes (§5.3) runs: both protocols deliver an all-to-all of binary
/// trees with 256-byte packets (LFC with recovery, its fair variant).
#[test]
fn lfc_and_fmmc_both_run_the_papers_all_to_all() {
    let (f, r) = fabric("hypercube:dim=2");
    let w = Workload::parse("all_to_all:scheme=binary,bytes=4KiB").unwrap();
    let lfc = Params::with_overrides("bhoedjang98", &["link.mtu_bytes=256", "lfc.recovery=eager"]).unwrap();
    for p in [lfc, fmmc(&[])] {
        let res = run_workload(&f, &*r, &w, &p, &Measure::default(), 1).unwrap();
        assert_eq!(res.run.outcome, WorkloadOutcome::Drained, "{}", p.preset);
        assert_workload_conserved(&res);
        assert!(res.run.sender_bytes_per_s > 0.0);
    }
}

/// A unicast takes FM's host-level sliding window, not the manager's credits: with a window of
/// one buffer, a 3-packet unicast sends a packet, waits for the receiver to free its buffer and
/// say so, and so on (2 packets held back, no credit request); unicast traffic drains.
#[test]
fn unicasts_use_the_host_window_not_the_manager() {
    let (f, r) = fabric("hypercube:dim=1");
    let bytes = 3 * 256 - 4;
    let plan = scheme_plan(&f, &*r, "separate", EndpointId(0), &[EndpointId(5)], 3, Discipline::NiFpfs).unwrap();
    let one = run_plan(&f, &*r, &plan, &fmmc(&["fmmc.unicast_window=1"]), bytes, 1).unwrap();
    let wide = run_plan(&f, &*r, &plan, &fmmc(&[]), bytes, 1).unwrap();
    let (s, t) = (one.fmmc.clone().unwrap(), wide.fmmc.clone().unwrap());
    assert_eq!((s.host_waits, s.credit_requests, s.token_rounds), (2, 0, 0), "{s:?}");
    assert_eq!((t.host_waits, t.credit_requests), (0, 0), "{t:?}");
    assert!(delivered(&one) > delivered(&wide));
    let w = Workload::parse("uniform:load=0.01,bytes=1KiB").unwrap();
    let res = run_workload(&f, &*r, &w, &fmmc(&["fmmc.unicast_window=2"]), &Measure::default(), 1).unwrap();
    assert_eq!(res.run.outcome, WorkloadOutcome::Drained, "{:?}", res.run.outcome);
    assert_workload_conserved(&res);
    assert_eq!(res.run.fmmc.clone().unwrap().credit_requests, 0);
}
