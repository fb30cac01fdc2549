//! The simulator against closed forms at zero load, exactly (to the picosecond): sivaram98 §4.1's
//! conventional and smart-NI latencies, Theorem 2 for k-binomial trees under FPFS, cut-through
//! versus store-and-forward unicast latency, and a hardware multicast's latency; then the run
//! invariants: conservation, FIFO per link and VC, determinism, the deadlock watchdog and budgets.
//!
//! Notation (sivaram98 §4): F = flit time, P = propagation, R = routing delay, X = crossbar delay,
//! L = flits per packet, H = switches on a path, D = one packet over the I/O bus. A packet's
//! network time over H switches under cut-through is N = (F+P) + H·(R+X+F+P) + (L−1)·F (the
//! injection link has no crossbar), and t_step = t_ns + N + t_nr (the paper's step: sender NI
//! overhead, network, receiver NI overhead).

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, MftEntry, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_plan, Outcome, Params, RunResult, Simulation};
use mcastlab_core::{EndpointId, SwitchId};
use proptest::prelude::*;
use std::collections::BTreeMap;

mod common;
use common::{assert_conserved, delivered, fabric, mft_broadcast, ring_chain, unicast};

fn plan_for(f: &Fabric, r: &dyn Routing, scheme: &str, dests: &[EndpointId], m: u32, d: Discipline) -> Plan {
    let input =
        SchemeInput { fabric: f, routing: r, source: EndpointId(0), destinations: dests, packets: m, discipline: d };
    schemes::plan(&input, scheme).unwrap()
}

fn first(n: u32) -> Vec<EndpointId> {
    (1..n).map(EndpointId).collect()
}

fn params(overrides: &[&str]) -> Params {
    Params::with_overrides("sivaram98", overrides).unwrap()
}

/// The sivaram98 numbers every formula below uses (ps).
struct Numbers {
    f: u64,
    p: u64,
    r: u64,
    x: u64,
    l: u64,
    t_hs: u64,
    t_hr: u64,
    t_ns: u64,
    t_nr: u64,
    d: u64,
}

fn numbers(p: &Params) -> Numbers {
    Numbers {
        f: p.flit_ps(),
        p: p.link.propagation.ps(),
        r: p.switch.routing_delay.ps(),
        x: p.switch.crossbar_delay.ps(),
        l: p.mtu_flits() as u64,
        t_hs: p.host.t_hs.ps(),
        t_hr: p.host.t_hr.ps(),
        t_ns: p.ni.t_ns.ps(),
        t_nr: p.ni.t_nr.ps(),
        d: p.ni.dma_bandwidth.time_for_bytes(p.link.mtu_bytes as u64),
    }
}

impl Numbers {
    /// Cut-through network time of one packet over `h` switches.
    fn net(&self, h: u64) -> u64 {
        (self.f + self.p) + h * (self.r + self.x + self.f + self.p) + (self.l - 1) * self.f
    }
    /// Store-and-forward network time of one packet over `h` switches.
    fn net_saf(&self, h: u64) -> u64 {
        (self.l * self.f + self.p) + h * (self.r + self.x + self.l * self.f + self.p)
    }
    fn step(&self, h: u64) -> u64 {
        self.t_ns + self.net(h) + self.t_nr
    }
}

fn ceil_log2(n: u64) -> u64 {
    64 - (n - 1).leading_zeros() as u64
}

/// Every group member on one switch: each unicast crosses exactly one switch (H = 1).
const ONE_SWITCH: &str = "irregular:switches=1,ports=40,endpoints=40";

#[test]
fn sivaram98_4_1_conventional_and_smart_ni_binomial() {
    let (f, r) = fabric(ONE_SWITCH);
    for send in ["pipelined", "step"] {
        for dma in ["inf", "266MB/s"] {
            let p = params(&[&format!("ni.send={send}"), &format!("ni.dma_bandwidth={dma}")]);
            let k = numbers(&p);
            for n in [2u32, 4, 8, 16, 32] {
                let lg = ceil_log2(n as u64);
                // Conventional NI: every level costs t_hs + t_step + t_hr (plus the I/O bus twice).
                let conv = plan_for(&f, &*r, "binomial", &first(n), 1, Discipline::Host);
                let got = delivered(&run_plan(&f, &*r, &conv, &p, 128, 1).unwrap());
                assert_eq!(got, lg * (k.t_hs + k.d + k.step(1) + k.d + k.t_hr), "conventional n={n} {send} {dma}");
                // Smart NI: t_hs once, ⌈log2 n⌉ steps, t_hr once.
                let smart = plan_for(&f, &*r, "binomial", &first(n), 1, Discipline::NiFpfs);
                let got = delivered(&run_plan(&f, &*r, &smart, &p, 128, 1).unwrap());
                assert_eq!(got, k.t_hs + k.d + lg * k.step(1) + k.d + k.t_hr, "smart n={n} {send} {dma}");
                if dma == "inf" {
                    // The paper's formulas verbatim.
                    let t_step = k.t_ns + k.net(1) + k.t_nr;
                    assert_eq!(got, k.t_hs + lg * t_step + k.t_hr);
                }
            }
        }
    }
}

#[test]
fn sivaram98_4_1_smart_ni_in_step_mode_for_every_group_size() {
    // One packet per step: the binomial tree's ⌈log2 n⌉ steps hold for every n, not only powers
    // of two.
    let (f, r) = fabric(ONE_SWITCH);
    let p = params(&["ni.send=step"]);
    let k = numbers(&p);
    for n in 2u32..=40 {
        let plan = plan_for(&f, &*r, "binomial", &first(n), 1, Discipline::NiFpfs);
        let got = delivered(&run_plan(&f, &*r, &plan, &p, 128, 1).unwrap());
        assert_eq!(got, k.t_hs + k.d + ceil_log2(n as u64) * k.step(1) + k.d + k.t_hr, "n={n}");
    }
}

#[test]
fn pipelined_smart_ni_is_faster_than_the_step_bound_off_powers_of_two() {
    // With pipelined sends a node's copies leave t_ns apart rather than a step apart. For n = 5
    // the binomial source sends to ranks 4, 2 and 1 in that order (largest subtree first) and
    // rank 2 forwards to rank 3: rank 3 is reached after 2·t_ns + N + t_nr (the source's second
    // copy) plus one step, rank 1 after 3·t_ns + N + t_nr — both less than the 3 steps of the
    // step model, which charges every copy a whole step.
    let (f, r) = fabric(ONE_SWITCH);
    let p = params(&[]);
    let k = numbers(&p);
    let plan = plan_for(&f, &*r, "binomial", &first(5), 1, Discipline::NiFpfs);
    let got = delivered(&run_plan(&f, &*r, &plan, &p, 128, 1).unwrap());
    let rank3 = 2 * k.t_ns + k.net(1) + k.t_nr + k.step(1);
    let rank1 = 3 * k.t_ns + k.net(1) + k.t_nr;
    assert_eq!(got, k.t_hs + k.d + rank3.max(rank1) + k.d + k.t_hr);
    assert!(got < k.t_hs + k.d + 3 * k.step(1) + k.d + k.t_hr);
}

/// N(s, k) of Lemma 4, written out independently of the scheme's table.
fn n_covered(s: u64, k: u64) -> u64 {
    if s <= k {
        1 << s
    } else {
        1 + (1..=k).map(|i| n_covered(s - i, k)).sum::<u64>()
    }
}

#[test]
fn theorem2_kbinomial_fpfs_completes_in_l1_plus_m_minus_1_times_delta_r_steps() {
    let (f, r) = fabric(ONE_SWITCH);
    let p = params(&["ni.send=step"]);
    let kk = numbers(&p);
    for n in [4u32, 8, 13, 20, 33] {
        for k in 1..=ceil_log2(n as u64) {
            let l1 = (0..).find(|&s| n_covered(s, k) >= n as u64).unwrap();
            for m in [1u32, 2, 3, 5, 8] {
                let scheme = format!("kbinomial:k={k}");
                let plan = plan_for(&f, &*r, &scheme, &first(n), m, Discipline::NiFpfs);
                let delta_r = plan.transmissions.iter().filter(|t| t.sender == EndpointId(0)).count() as u64;
                let steps = l1 + (m as u64 - 1) * delta_r;
                let got = delivered(&run_plan(&f, &*r, &plan, &p, m as u64 * 128, 1).unwrap());
                assert_eq!(got, kk.t_hs + kk.d + steps * kk.step(1) + kk.d + kk.t_hr, "n={n} k={k} m={m}");
            }
        }
    }
}

#[test]
fn pipelined_sends_of_one_stream_leave_t_ns_apart() {
    // One destination, m packets, pipelined NI: the first packet takes a step, each further one
    // adds the sender's per-copy occupancy t_ns (> D, > L·F here) — not a whole step as the
    // step model charges (Theorem 2 with δr = 1 would give m steps).
    let (f, r) = fabric(ONE_SWITCH);
    let p = params(&[]);
    let k = numbers(&p);
    for m in 1u32..=6 {
        let plan = plan_for(&f, &*r, "chain", &first(2), m, Discipline::NiFpfs);
        let got = delivered(&run_plan(&f, &*r, &plan, &p, m as u64 * 128, 1).unwrap());
        assert_eq!(got, k.t_hs + k.d + k.step(1) + (m as u64 - 1) * k.t_ns + k.d + k.t_hr, "m={m}");
    }
}

/// Switches a unicast from `a` to `b` crosses, from the decoded route.
fn switches_on_path(f: &Fabric, r: &dyn Routing, a: EndpointId, b: EndpointId) -> u64 {
    let state = SwitchState::default();
    Walker::new(f, r, &state).walk(a, &Carrier::Unicast { dst: b }).hops.len() as u64
}

#[test]
fn unicast_zero_load_latency_cut_through_versus_store_and_forward() {
    let (f, r) = fabric("mesh:8x8");
    let (a, b) = (EndpointId(0), EndpointId(63));
    let h = switches_on_path(&f, &*r, a, b);
    assert_eq!(h, 15, "14 links across the mesh, 15 routers");
    let plan = plan_for(&f, &*r, "separate", &[b], 1, Discipline::Host);
    // Overheads off, so the latency is the network time alone; a propagation delay on.
    let base = [
        "host.t_hs=0ns",
        "host.t_hr=0ns",
        "ni.t_ns=0ns",
        "ni.t_nr=0ns",
        "ni.dma_bandwidth=inf",
        "link.propagation=3ns",
    ];
    for (mode, saf) in [("wormhole", false), ("cut_through", false), ("store_and_forward", true)] {
        let mut o: Vec<String> = base.iter().map(|s| s.to_string()).collect();
        o.push(format!("switch.switching={mode}"));
        let p = Params::with_overrides("sivaram98", &o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
        let k = numbers(&p);
        let got = delivered(&run_plan(&f, &*r, &plan, &p, 128, 1).unwrap());
        let want = if saf { k.net_saf(h) } else { k.net(h) };
        assert_eq!(got, want, "{mode}");
    }
    // The difference is (L−1)·F per switch: SAF pays the serialization at every hop.
    let k = numbers(&params(&["link.propagation=3ns"]));
    assert_eq!(k.net_saf(h) - k.net(h), h * (k.l - 1) * k.f);
}

#[test]
fn a_hardware_multicast_reaches_each_destination_after_its_own_path_length() {
    let (f, r) = fabric("irregular");
    let p = params(&[]);
    let k = numbers(&p);
    for m in [1u32, 4] {
        let plan = mft_broadcast(&f, m, Discipline::NiFpfs, 0);
        let res = run_plan(&f, &*r, &plan, &p, m as u64 * 128, 1).unwrap();
        delivered(&res);
        let h = common::depths(&f, &*r, &plan, 0);
        assert!(h.values().any(|&x| x >= 3), "the test needs multi-switch paths: {h:?}");
        // The source NI sends packet j at t_hs + D + j·t_ns (t_ns exceeds D and L·F), each packet
        // is replicated at line rate down independent branches, and every receiving NI keeps up.
        for d in &res.per_destination {
            let e = f.endpoint_by_name(&d.endpoint).unwrap();
            let want = k.t_hs + k.d + m as u64 * k.t_ns + k.net(h[&e]) + k.t_nr + k.d + k.t_hr;
            assert_eq!(d.latency_ps, Some(want), "{} m={m}", d.endpoint);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Invariants of any run.
// ---------------------------------------------------------------------------------------------

const SCHEMES: &[&str] = &["separate", "chain", "binary", "binomial", "kbinomial"];
const MODES: &[&str] = &["wormhole", "cut_through", "store_and_forward"];

fn random_params(mode: usize, buffer: u32, send: bool, overheads: bool) -> Params {
    let buffer = if mode == 0 { buffer } else { 128 + buffer };
    let mut o = vec![
        format!("switch.switching={}", MODES[mode]),
        format!("switch.buffer_flits={buffer}"),
        format!("ni.send={}", if send { "step" } else { "pipelined" }),
    ];
    if !overheads {
        // Without software overheads packets crowd the network: contention, blocking, credits.
        o.extend(["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns"].map(String::from));
    }
    Params::with_overrides("sivaram98", &o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap()
}

/// FIFO per link and VC in a run's flit trace (tests/common), which must hold every flit hop;
/// returns the flit sequence of every (channel, VC).
fn check_trace(sim: &Simulation<'_>, res: &RunResult) -> BTreeMap<(u32, u8), Vec<(u32, u32)>> {
    assert_eq!(res.flit_hops, sim.flit_trace().len() as u64, "every flit hop is in the trace");
    common::assert_fifo(sim.flit_trace(), sim.params(), sim.message_bytes(), common::drained(res))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_packet_is_delivered_exactly_once_per_destination(
        switches in 1u32..7, per_switch in 2u32..5, seed in 0u64..1000, pick in any::<u64>(),
        scheme in 0usize..5, disc in 0usize..3, m in 1u32..4, short in 0u64..128,
        mode in 0usize..3, buffer in 1u32..200, send in any::<bool>(), overheads in any::<bool>(),
    ) {
        let spec = format!("irregular:switches={switches},ports=8,endpoints={},seed={seed}", switches * per_switch);
        let (f, r) = fabric(&spec);
        let n = f.num_endpoints() as u64;
        let src = EndpointId((pick % n) as u32);
        let dests: Vec<EndpointId> =
            f.endpoint_ids().filter(|e| *e != src && (pick >> (e.0 % 60)) & 1 == 1).collect();
        prop_assume!(!dests.is_empty());
        let d = [Discipline::Host, Discipline::NiFcfs, Discipline::NiFpfs][disc];
        let input = SchemeInput { fabric: &f, routing: &*r, source: src, destinations: &dests, packets: m, discipline: d };
        let plan = schemes::plan(&input, SCHEMES[scheme]).unwrap();
        let p = random_params(mode, buffer, send, overheads);
        let mut sim = Simulation::new(&f, &*r, &plan, &p, m as u64 * 128 - short, seed).unwrap();
        sim.record_flits(true);
        let res = sim.run();
        assert_conserved(&f, &*r, &plan, &res);
        check_trace(&sim, &res);
    }

    #[test]
    fn hardware_multicasts_replicate_every_packet_once_per_endpoint(
        switches in 2u32..9, seed in 0u64..1000, m in 1u32..4, mode in 0usize..3, buffer in 1u32..200,
    ) {
        let (f, r) = fabric(&format!("irregular:switches={switches},ports=8,endpoints={},seed={seed}", 3 * switches));
        let plan = mft_broadcast(&f, m, Discipline::NiFpfs, 0);
        let p = random_params(mode, buffer, false, false);
        let mut sim = Simulation::new(&f, &*r, &plan, &p, m as u64 * 128, seed).unwrap();
        sim.record_flits(true);
        let res = sim.run();
        assert_conserved(&f, &*r, &plan, &res);
        check_trace(&sim, &res);
    }
}

#[test]
fn flits_keep_their_order_on_every_link_and_vc() {
    // A binomial broadcast on a torus with dateline VCs, no software overheads and small
    // wormhole buffers: many packets compete for links and the two VCs share them.
    let (f, r) = fabric("torus:4x4");
    // From the last node, so that many routes cross the wrap-around links.
    let (src, dests) = (EndpointId(15), first(15));
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: src,
        destinations: &dests,
        packets: 4,
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "binomial").unwrap();
    let p = params(&[
        "host.t_hs=0ns",
        "host.t_hr=0ns",
        "ni.t_ns=0ns",
        "ni.t_nr=0ns",
        "switch.buffer_flits=4",
        "switch.vcs=2",
    ]);
    let mut sim = Simulation::new(&f, &*r, &plan, &p, 4 * 128, 1).unwrap();
    sim.record_flits(true);
    let res = sim.run();
    assert_conserved(&f, &*r, &plan, &res);
    let per_lane = check_trace(&sim, &res);
    assert!(per_lane.keys().any(|(_, vc)| *vc == 1), "the dateline VC is exercised");
    assert_eq!(res.flit_hops, sim.flit_trace().len() as u64);
}

fn busy_run(seed: u64) -> RunResult {
    let (f, r) = fabric("irregular");
    let plan = plan_for(&f, &*r, "kbinomial", &first(32), 3, Discipline::NiFpfs);
    let p = params(&["ni.t_ns=100ns", "ni.t_nr=100ns", "switch.buffer_flits=16"]);
    run_plan(&f, &*r, &plan, &p, 3 * 128, seed).unwrap()
}

#[test]
fn the_same_inputs_give_the_same_result_bit_for_bit() {
    let a = serde_json::to_string(&busy_run(7)).unwrap();
    let b = serde_json::to_string(&busy_run(7)).unwrap();
    assert_eq!(a, b);
    // Runs share nothing: several at once in one process give the same result too.
    let parallel: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..3).map(|_| s.spawn(|| serde_json::to_string(&busy_run(7)).unwrap())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(parallel.iter().all(|x| *x == a));
    // The seed is recorded with the results.
    assert!(b.contains("\"seed\":7"));
    // Running in slices (as a caller showing progress does) changes nothing.
    let (f, r) = fabric("irregular");
    let plan = plan_for(&f, &*r, "kbinomial", &first(32), 3, Discipline::NiFpfs);
    let p = params(&["ni.t_ns=100ns", "ni.t_nr=100ns", "switch.buffer_flits=16"]);
    let mut sim = Simulation::new(&f, &*r, &plan, &p, 3 * 128, 7).unwrap();
    assert!(!sim.advance(1000));
    assert_eq!(sim.progress().0, 1000);
    let partial = sim.results();
    assert!(matches!(&partial.outcome, Outcome::Budget { message } if message.contains("stopped by the caller")));
    while !sim.advance(777) {}
    assert_eq!(serde_json::to_string(&sim.results()).unwrap(), a);
}

#[test]
fn the_watchdog_stops_a_deadlocked_ring_with_the_cycle_of_waiting_buffers() {
    let f = generate("torus:4,unidirectional=true").unwrap();
    let long = [
        "host.t_hs=0ns",
        "host.t_hr=0ns",
        "ni.t_ns=10ns",
        "ni.t_nr=10ns",
        "ni.dma_bandwidth=inf",
        "link.mtu_bytes=256",
        "switch.buffer_flits=2",
    ];
    let plan = ring_chain(&f, 8);
    // Without datelines one VC class carries everything round the ring.
    let r = routing::build(&f, Some("dor:datelines=false")).unwrap();
    let p = params(&long);
    let res = run_plan(&f, &*r, &plan, &p, 8 * 256, 1).unwrap();
    let Outcome::Deadlock { diagnosis, reason, .. } = &res.outcome else { panic!("{:?}", res.outcome) };
    assert!(reason.contains("nothing can move"), "{reason}");
    // Every ring buffer (port 3 faces the previous router) is on the cycle of waiting buffers,
    // with the injection buffers whose worms stretch into the ring.
    for i in 0..4 {
        let ring = format!("r({i})[3] vc 0");
        assert!(diagnosis.cycle.contains(&ring), "{ring} not in {diagnosis:?}");
    }
    assert!(!diagnosis.blocked.is_empty());
    assert!(res.in_flight_packets > 0 && res.buffered_flits > 0 && res.completion_ps.is_none());
    // The checker predicts it: the routing's channel dependency graph has the ring cycle.
    let rep = mcastlab_core::plan::check::check_plan(&f, &*r, &plan, &Default::default()).unwrap();
    assert!(!rep.ok());
    // With datelines (two VC classes) the same plan completes.
    let r2 = routing::build(&f, Some("dor")).unwrap();
    let p2 = params(&[long.as_slice(), &["switch.vcs=2"]].concat());
    assert_conserved(&f, &*r2, &plan, &run_plan(&f, &*r2, &plan, &p2, 8 * 256, 1).unwrap());
}

#[test]
fn the_watchdog_fires_when_flits_stop_while_hosts_still_work() {
    // The same ring chain, after a first message to e1 whose long host receive overhead keeps
    // events coming after the ring has locked up: the watchdog, not an empty queue, ends it.
    let f = generate("torus:4,unidirectional=true").unwrap();
    let r = routing::build(&f, Some("dor:datelines=false")).unwrap();
    let e = EndpointId;
    let tx = vec![
        unicast(0, Trigger::Start, 1),
        unicast(0, Trigger::Start, 3),
        unicast(3, Trigger::PerPacket { from: 1 }, 2),
        unicast(2, Trigger::PerPacket { from: 2 }, 1),
    ];
    // FCFS: e0 sends the whole message to e1 before starting the chain.
    let plan = Plan::from_transmissions(&f, "custom", e(0), vec![e(1), e(2), e(3)], 8, Discipline::NiFcfs, tx).unwrap();
    let p = params(&[
        "host.t_hs=0ns",
        "host.t_hr=50us",
        "ni.t_ns=10ns",
        "ni.t_nr=10ns",
        "ni.dma_bandwidth=inf",
        "link.mtu_bytes=256",
        "switch.buffer_flits=2",
        "limits.watchdog=10us",
    ]);
    let res = run_plan(&f, &*r, &plan, &p, 8 * 256, 1).unwrap();
    let Outcome::Deadlock { at_ps, reason, diagnosis } = &res.outcome else { panic!("{:?}", res.outcome) };
    assert!(reason.contains("no flit moved for limits.watchdog"), "{reason}");
    assert!(diagnosis.cycle.contains(&"r(0)[3] vc 0".to_string()), "{diagnosis:?}");
    // It stops 10 µs after the last flit moved, before e1's host is done with its message.
    assert_eq!(res.end_ps, *at_ps);
    assert!(res.per_destination.iter().all(|d| d.latency_ps.is_none()));
}

#[test]
fn budgets_stop_a_run_and_keep_what_was_measured() {
    let full = busy_run(1);
    let (f, r) = fabric("irregular");
    let plan = plan_for(&f, &*r, "kbinomial", &first(32), 3, Discipline::NiFpfs);
    let budget = full.events / 2;
    let p =
        params(&["ni.t_ns=100ns", "ni.t_nr=100ns", "switch.buffer_flits=16", &format!("limits.max_events={budget}")]);
    let res = run_plan(&f, &*r, &plan, &p, 3 * 128, 1).unwrap();
    let Outcome::Budget { message } = &res.outcome else { panic!("{:?}", res.outcome) };
    assert!(message.contains(&format!("limits.max_events = {budget}")), "{message}");
    assert_eq!(res.events, budget);
    assert!(res.events < full.events && res.flit_hops > 0 && res.flit_hops < full.flit_hops);
    assert!(res.completion_ps.is_none());
    // A time budget between the first and the last delivery of the full run: the destinations
    // reached before it keep their latencies, equal to the full run's.
    let lat: Vec<u64> = full.per_destination.iter().map(|d| d.latency_ps.unwrap()).collect();
    let mid = (lat.iter().min().unwrap() + lat.iter().max().unwrap()) / 2;
    let p = params(&["ni.t_ns=100ns", "ni.t_nr=100ns", "switch.buffer_flits=16", &format!("limits.max_time={mid}ps")]);
    let res = run_plan(&f, &*r, &plan, &p, 3 * 128, 1).unwrap();
    assert!(matches!(&res.outcome, Outcome::Budget { message } if message.contains("limits.max_time")));
    assert!(res.end_ps <= mid);
    let early: Vec<_> = res.per_destination.iter().filter(|d| d.latency_ps.is_some()).collect();
    assert!(!early.is_empty() && early.len() < 31, "{} delivered", early.len());
    for d in early {
        let same = full.per_destination.iter().find(|x| x.endpoint == d.endpoint).unwrap();
        assert_eq!(d.latency_ps, same.latency_ps);
    }
}

/// On one switch, with long packets and an NI that needs t_ns = 1.5 packet times per copy: e0
/// sends to e1 (which forwards to e2), to e5, to e6, then a hardware multicast to e2 and e3. The
/// forward e1 → e2 holds e2's port when the multicast is decoded, so the multicast's e2 branch
/// must wait; its e3 branch need not.
fn contended_multicast(f: &Fabric) -> Plan {
    let e = EndpointId;
    let mft = Transmission {
        sender: e(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC001 },
        delivers: vec![e(2), e(3)],
    };
    let tx = vec![
        unicast(0, Trigger::Start, 1),
        unicast(1, Trigger::PerPacket { from: 0 }, 2),
        unicast(0, Trigger::Start, 5),
        unicast(0, Trigger::Start, 6),
        mft,
    ];
    let (s, ports) = (SwitchId(0), vec![f.attachment(e(2)).1, f.attachment(e(3)).1]);
    Plan::from_transmissions(f, "custom", e(0), vec![e(1), e(2), e(3), e(5), e(6)], 1, Discipline::NiFpfs, tx)
        .unwrap()
        .with_switch_state(
            f,
            SwitchState { mft: vec![MftEntry { mlid: 0xC001, switch: s, ports }], reachability: vec![] },
        )
        .unwrap()
}

/// Send time of the tail flit of transmission `tx` on the channel into endpoint `to`.
fn tail_sent(sim: &Simulation<'_>, f: &Fabric, tx: u32, to: EndpointId) -> u64 {
    let (s, p) = f.attachment(to);
    let chan = f.port(s, p).unwrap().out.unwrap().0;
    let flits = sim.params().mtu_flits();
    sim.flit_trace().iter().find(|r| r.channel == chan && r.pid == tx && r.flit + 1 == flits).unwrap().time
}

#[test]
fn replicated_branches_proceed_independently_and_free_a_flit_only_when_all_have_read_it() {
    let f = generate("irregular:switches=1,ports=8,endpoints=8").unwrap();
    let r = routing::build(&f, None).unwrap();
    let plan = contended_multicast(&f);
    let quiet = ["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=7500ns", "ni.t_nr=7500ns", "ni.dma_bandwidth=inf"];
    let run = |extra: &[&str]| {
        let p = params(&[quiet.as_slice(), &["link.mtu_bytes=1000", "switch.routing_delay=100ns"], extra].concat());
        let mut sim = Simulation::new(&f, &*r, &plan, &p, 1000, 1).unwrap();
        sim.record_flits(true);
        let res = sim.run();
        assert_eq!(res.outcome, Outcome::Delivered);
        let k = numbers(&p);
        // Unhindered, the multicast leaves e0's NI after its fourth copy (4·t_ns), is decoded
        // F + P + R later, and its tail leaves 999 flit times after its head.
        let free = 4 * k.t_ns + k.f + k.p + k.r + 999 * k.f;
        (tail_sent(&sim, &f, 4, EndpointId(3)), tail_sent(&sim, &f, 4, EndpointId(2)), free, res.max_buffer_flits)
    };
    // Deep buffers: the e3 branch is not held back by the blocked e2 branch.
    let (e3, e2, free, _) = run(&[]);
    assert_eq!(e3, free);
    assert!(e2 > free, "the e2 branch waited for the forward to e2");
    // A 4-flit buffer: flits stay until both branches have read them, so once the waiting e2
    // branch lets the buffer fill, the e3 branch starves too.
    let (e3, e2_small, free, max_buf) = run(&["switch.buffer_flits=4"]);
    assert!(max_buf <= 4);
    assert!(e3 > free && e3 <= e2_small, "e3 {e3} free {free} e2 {e2_small}");
}
