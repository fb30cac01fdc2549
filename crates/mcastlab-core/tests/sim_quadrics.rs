//! The simulator's Quadrics hardware multicast (coll03 §2–§3) against closed forms at zero load,
//! exactly (to the picosecond): a range multicast asks for all its output VCs at once and is
//! serialized behind another whose output set overlaps (Fig. 1(b)–(d)) but not behind a disjoint
//! one; with `switch.circuit_until_ack` every packet keeps its circuit until the combined
//! acknowledgement of its copies is back, so the source learns of the last delivery one backward
//! trip after it and its next packet leaves only then; multi-step `qs_greedy` trees complete as the
//! closed form says on an idle network; and random hardware trees are conserved and never deadlock.
//!
//! Notation (coll03 preset): F = flit time, P = propagation, R = routing delay, X = crossbar delay,
//! A = `switch.ack_delay`, L = flits per packet, H = switches on a copy's path, D = one packet over
//! the I/O bus. A packet's network time over H switches is N = (F+P) + H·(R+X+F+P) + (L−1)·F (the
//! injection link has no crossbar) and its acknowledgement takes H·(P+A) + P back to the sender
//! (every switch combines, the sender's NI does not).

use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::routing::Routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_plan, Params, RunResult, Simulation};
use mcastlab_core::EndpointId;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

mod common;
use common::{assert_conserved, delivered};

fn e(x: u32) -> EndpointId {
    EndpointId(x)
}

fn tree(k: u32, n: u32) -> (Fabric, Box<dyn Routing>) {
    common::fabric(&format!("kary_ntree:k={k},n={n}"))
}

fn coll03(overrides: &[&str]) -> Params {
    Params::with_overrides("coll03", overrides).unwrap()
}

fn range(sender: u32, lo: u32, hi: u32, trigger: Trigger) -> Transmission {
    Transmission {
        sender: e(sender),
        trigger,
        carrier: Carrier::Range { lo: e(lo), hi: e(hi) },
        delivers: (lo..=hi).map(e).collect(),
    }
}

/// A plan of hand-written transmissions; its destinations are everything they deliver.
fn plan(f: &Fabric, source: u32, m: u32, d: Discipline, tx: Vec<Transmission>) -> Plan {
    let dests: BTreeSet<EndpointId> = tx.iter().flat_map(|t| t.delivers.iter().copied()).collect();
    Plan::from_transmissions(f, "hand", e(source), dests.into_iter().collect(), m, d, tx).unwrap()
}

/// The coll03 numbers every formula below uses (ps).
struct Numbers {
    f: u64,
    p: u64,
    r: u64,
    x: u64,
    a: u64,
    t_hs: u64,
    t_hr: u64,
    t_ns: u64,
    t_nr: u64,
    /// Flits and I/O bus time of the packets of the message at hand.
    l: u64,
    d: u64,
}

fn numbers(p: &Params, packet_bytes: u64) -> Numbers {
    Numbers {
        f: p.flit_ps(),
        p: p.link.propagation.ps(),
        r: p.switch.routing_delay.ps(),
        x: p.switch.crossbar_delay.ps(),
        a: p.switch.ack_delay.ps(),
        t_hs: p.host.t_hs.ps(),
        t_hr: p.host.t_hr.ps(),
        t_ns: p.ni.t_ns.ps(),
        t_nr: p.ni.t_nr.ps(),
        l: p.flits_for(packet_bytes) as u64,
        d: p.ni.dma_bandwidth.time_for_bytes(packet_bytes),
    }
}

impl Numbers {
    /// Network time of one packet over `h` switches, head injected to tail in the NI.
    fn net(&self, h: u64) -> u64 {
        (self.f + self.p) + h * (self.r + self.x + self.f + self.p) + (self.l - 1) * self.f
    }
    /// The combined acknowledgement's trip from the destinations' NIs back to the sender.
    fn ack(&self, h: u64) -> u64 {
        h * (self.p + self.a) + self.p
    }
    /// From the tail in a destination's NI to the message in its host.
    fn recv(&self) -> u64 {
        self.t_nr + self.d + self.t_hr
    }
    /// From a host send's start to the packet's head on the injection link (one packet).
    fn send(&self) -> u64 {
        self.t_hs + self.d + self.t_ns
    }
}

fn latency(res: &RunResult, x: u32) -> u64 {
    let name = format!("n{x}");
    res.per_destination.iter().find(|d| d.endpoint == name).and_then(|d| d.latency_ps).unwrap()
}

/// Switches on the path of each copy of transmission `t`, per endpoint number reached.
fn depths(f: &Fabric, r: &dyn Routing, plan: &Plan, t: usize) -> BTreeMap<u32, u64> {
    common::depths(f, r, plan, t).into_iter().map(|(x, h)| (x.0, h)).collect()
}

/// The one path length of a range multicast (every copy descends to the leaves from one root).
fn range_depth(f: &Fabric, r: &dyn Routing, plan: &Plan, t: usize) -> u64 {
    let d = depths(f, r, plan, t);
    let h = *d.values().next().unwrap();
    assert!(d.values().all(|&x| x == h), "{d:?}");
    h
}

// ---------------------------------------------------------------------------------------------
// One range multicast: deliveries, the combined acknowledgement, the next packet.
// ---------------------------------------------------------------------------------------------

#[test]
fn the_source_learns_of_the_last_delivery_one_combined_acknowledgement_later() {
    // Sender below the root switch (16 nodes: [1, 15] from node 0, the climb is one hop and
    // the copy to nodes 1–3 turns around at the root), and a sender outside the root's subtree
    // (64 nodes: node 0 to [16, 31], whose root is a level-1 switch the sender reaches over the
    // top level).
    for (k, n, src, lo, hi, h_want) in [(4, 2, 0, 1, 15, 3), (4, 3, 0, 16, 31, 5), (4, 3, 5, 8, 50, 5)] {
        let (f, r) = tree(k, n);
        for bytes in [8u64, 320] {
            let p = coll03(&[]);
            let k = numbers(&p, bytes);
            let pl = plan(&f, src, 1, Discipline::NiFpfs, vec![range(src, lo, hi, Trigger::Start)]);
            let h = range_depth(&f, &*r, &pl, 0);
            assert_eq!(h, h_want);
            let res = run_plan(&f, &*r, &pl, &p, bytes, 1).unwrap();
            let last = k.send() + k.net(h);
            for x in lo..=hi {
                assert_eq!(latency(&res, x), last + k.recv(), "n{x}, {bytes} B");
            }
            assert_eq!(res.acked_ps, Some(last + k.ack(h)), "{lo}..{hi} from {src}, {bytes} B");
            // The network is empty again once the acknowledgement is back, not before.
            assert_eq!(delivered(&res), last + k.recv());
            assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0));
        }
    }
}

#[test]
fn the_next_packet_leaves_when_the_previous_ones_acknowledgement_is_back() {
    // One transaction at a time: packet j+1 waits in NI memory for packet j's circuit, so the
    // source sends one packet per round trip N + ack (longer than t_ns here) instead of one per
    // t_ns.
    let (f, r) = tree(4, 2);
    let p = coll03(&[]);
    let k = numbers(&p, 320);
    for m in [1u32, 2, 3, 5] {
        let pl = plan(&f, 0, m, Discipline::NiFpfs, vec![range(0, 1, 15, Trigger::Start)]);
        let res = run_plan(&f, &*r, &pl, &p, m as u64 * 320, 1).unwrap();
        let round = k.net(3) + k.ack(3);
        assert!(round > k.t_ns && round > k.d, "the test needs the acknowledgement to be the bottleneck");
        let first = k.send();
        assert_eq!(res.acked_ps, Some(first + m as u64 * round), "m={m}");
        assert_eq!(delivered(&res), first + (m as u64 - 1) * round + k.net(3) + k.recv(), "m={m}");
        // Without held circuits the packets leave about t_ns apart (a packet's decode at the first
        // switch also waits for the previous one to leave its input buffer).
        let q = coll03(&["switch.circuit_until_ack=false"]);
        let pipelined = run_plan(&f, &*r, &pl, &q, m as u64 * 320, 1).unwrap();
        assert_eq!(pipelined.acked_ps, None);
        let fastest = first + (m as u64 - 1) * k.t_ns + k.net(3) + k.recv();
        let got = delivered(&pipelined);
        assert!(got >= fastest && got <= fastest + (m as u64 - 1) * (k.r + k.x), "m={m}: {got} vs {fastest}");
        if m > 1 {
            assert!(got < delivered(&res));
        }
    }
}

#[test]
fn unicasts_hold_their_circuit_too_under_the_coll03_preset() {
    // coll03 §2 says it of every packet: the source's second unicast waits for the first's
    // acknowledgement (the source's two copies leave from one injection VC).
    let (f, r) = tree(4, 2);
    let p = coll03(&[]);
    let k = numbers(&p, 320);
    let pl = plan(
        &f,
        0,
        1,
        Discipline::NiFpfs,
        vec![common::unicast(0, Trigger::Start, 5), common::unicast(0, Trigger::Start, 10)],
    );
    let (h0, h1) = (depths(&f, &*r, &pl, 0)[&5], depths(&f, &*r, &pl, 1)[&10]);
    assert_eq!((h0, h1), (3, 3));
    let res = run_plan(&f, &*r, &pl, &p, 320, 1).unwrap();
    let ack0 = k.send() + k.net(h0) + k.ack(h0);
    assert!(ack0 > k.send() + k.t_ns, "the second copy is ready before the first is acknowledged");
    assert_eq!(latency(&res, 5), k.send() + k.net(h0) + k.recv());
    assert_eq!(latency(&res, 10), ack0 + k.net(h1) + k.recv());
    assert_eq!(res.acked_ps, Some(ack0 + k.net(h1) + k.ack(h1)));
    // Pipelined transactions when circuits are released with the tail: the second copy leaves
    // t_ns after the first (and is decoded at the first switch once the first has left it).
    let q = coll03(&["switch.circuit_until_ack=false"]);
    let res = run_plan(&f, &*r, &pl, &q, 320, 1).unwrap();
    let fastest = k.send() + k.t_ns + k.net(h1) + k.recv();
    assert!((fastest..fastest + k.r + k.x).contains(&latency(&res, 10)), "{}", latency(&res, 10));
}

#[test]
fn other_presets_hold_no_circuits_and_report_no_acknowledgement() {
    let (f, r) = tree(4, 2);
    for preset in ["sivaram98", "oral", "zhou07", "bhoedjang98"] {
        let mut p = Params::preset(preset).unwrap();
        assert!(!p.switch.circuit_until_ack, "{preset}");
        // A switch multicast reaches many NIs at once, which LFC's per-pair credits (the
        // bhoedjang98 preset's NIs) refuse (tests/sim_lfc.rs): this test is about the switches.
        p.set("ni.send", "pipelined").unwrap();
        let pl = plan(&f, 0, 1, Discipline::NiFpfs, vec![range(0, 1, 15, Trigger::Start)]);
        let res = run_plan(&f, &*r, &pl, &p, 64, 1).unwrap();
        delivered(&res);
        assert_eq!(res.acked_ps, None, "{preset}");
        let json = serde_json::to_value(&res).unwrap();
        assert!(json.get("acked_ps").is_none(), "{preset}: the field is left out of the JSON");
    }
    let p = Params::preset("coll03").unwrap();
    assert!(p.switch.circuit_until_ack);
}

// ---------------------------------------------------------------------------------------------
// coll03 Fig. 1(b)–(d): two multicasts meet at their root switch.
// ---------------------------------------------------------------------------------------------

/// Node 15 reaches nodes 3 and 4 with one range multicast; both then forward at the same
/// instant, node 3 to `[5, hi3]` and node 4 to `[lo4, 14]`. Both groups are rooted at the
/// top-left switch S1:0.0 of the 16-node tree, where their heads arrive together through different
/// input ports (3 and 4 hang on different level-0 switches): node 3's group needs the root's down
/// ports 2–3 (children 4–7 and 8–11), node 4's group ports 3–4 when `lo4 ≤ 11`, only port 4
/// otherwise.
fn fig1_plan(f: &Fabric, hi3: u32, lo4: u32) -> Plan {
    let from0 = Trigger::AfterMessage { from: 0 };
    plan(
        f,
        15,
        1,
        Discipline::NiFpfs,
        vec![range(15, 3, 4, Trigger::Start), range(3, 5, hi3, from0), range(4, lo4, 14, from0)],
    )
}

/// Root down port (1-based child) of the 16-node tree leading to node `x`.
fn root_port(x: u32) -> u32 {
    x / 4 + 1
}

/// Each group's latency without the other: the second step starts at T0, when nodes 3 and 4 start
/// injecting.
fn fig1_alone(k: &Numbers) -> (u64, u64) {
    let t0 = k.send() + k.net(3) + k.recv() + k.send();
    (t0, t0 + k.net(3) + k.recv())
}

#[test]
fn fig1_overlapping_multicasts_serialize_at_their_root_switch() {
    let (f, r) = tree(4, 2);
    let pl = fig1_plan(&f, 9, 10);
    for t in 0..3 {
        assert_eq!(range_depth(&f, &*r, &pl, t), 3);
    }
    for circuits in [true, false] {
        let p = coll03(&[&format!("switch.circuit_until_ack={circuits}")]);
        for bytes in [8u64, 320] {
            let k = numbers(&p, bytes);
            let res = run_plan(&f, &*r, &pl, &p, bytes, 1).unwrap();
            delivered(&res);
            let (t0, alone) = fig1_alone(&k);
            // Both heads are decoded at the root at g; the winner takes ports {2, 3} or {3, 4}
            // at once and the loser, needing port 3 too, waits for it *with all its ports*.
            let g = t0 + 2 * (k.f + k.p) + 2 * k.r + k.x;
            let groups = [(3u32, 5u32, 9u32), (4, 10, 14)];
            let winner = groups.iter().position(|&(_, lo, _)| latency(&res, lo) == alone);
            let Some(w) = winner else { panic!("neither group went first: {:?}", res.per_destination) };
            let (_, wlo, whi) = groups[w];
            let (_, llo, lhi) = groups[1 - w];
            for x in wlo..=whi {
                assert_eq!(latency(&res, x), alone, "winner n{x}");
            }
            for x in llo..=lhi {
                let delay = if circuits {
                    // Released when the winner's combined acknowledgement leaves the root: the
                    // tails land (N after T0), then two backward hops (level 0, root).
                    t0 + k.net(3) + 2 * (k.p + k.a) - g
                } else if root_port(x) == 3 {
                    // Released when the winner's tail is sent on port 3; below it the loser's copy
                    // follows the winner's into the same input buffer of S0:2, where it is decoded
                    // R after the winner's tail has left (one FIFO per input VC).
                    (k.l - 1) * k.f + k.r
                } else {
                    (k.l - 1) * k.f
                };
                assert_eq!(latency(&res, x), alone + delay, "loser n{x}, circuits={circuits}, {bytes} B");
            }
            if circuits {
                let t_rel = t0 + k.net(3) + 2 * (k.p + k.a);
                assert_eq!(res.acked_ps, Some(t_rel - g + t0 + k.net(3) + k.ack(3)));
            }
        }
    }
}

#[test]
fn disjoint_multicasts_at_one_root_switch_proceed_in_parallel() {
    // Node 4's group shrinks to [12, 14] (port 4 only): no port in common with [5, 9] (ports 2
    // and 3), so both go through the root at the same instant and neither is delayed.
    let (f, r) = tree(4, 2);
    let pl = fig1_plan(&f, 9, 12);
    for circuits in [true, false] {
        let p = coll03(&[&format!("switch.circuit_until_ack={circuits}")]);
        for bytes in [8u64, 320] {
            let k = numbers(&p, bytes);
            let res = run_plan(&f, &*r, &pl, &p, bytes, 1).unwrap();
            let (t0, alone) = fig1_alone(&k);
            for x in (5..=9).chain(12..=14) {
                assert_eq!(latency(&res, x), alone, "n{x}, circuits={circuits}, {bytes} B");
            }
            assert_eq!(delivered(&res), alone);
            if circuits {
                assert_eq!(res.acked_ps, Some(t0 + k.net(3) + k.ack(3)));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Multi-step hardware trees (qs_greedy) on an idle network.
// ---------------------------------------------------------------------------------------------

/// What a one-packet plan gives on an idle network if no two transmissions in flight at the same
/// time share a channel: every sender works through its transmissions in plan order (host send,
/// I/O bus, NI send, one at a time on each), each waits for the previous one's acknowledgement
/// (its injection VC), and each copy takes N over its H switches.
struct Expected {
    inject: Vec<u64>,
    acked: Vec<u64>,
    latency: BTreeMap<u32, u64>,
}

fn expected(f: &Fabric, r: &dyn Routing, pl: &Plan, k: &Numbers) -> Expected {
    #[derive(Default, Clone, Copy)]
    struct Sender {
        host: u64,
        dma: u64,
        ni: u64,
        vc: u64,
    }
    let mut senders: BTreeMap<u32, Sender> = BTreeMap::new();
    let (mut inject, mut acked, mut latency) = (Vec::new(), Vec::new(), BTreeMap::new());
    let mut reached: BTreeMap<u32, u64> = BTreeMap::new();
    for (i, t) in pl.transmissions.iter().enumerate() {
        let h = range_depth(f, r, pl, i);
        let s = senders.entry(t.sender.0).or_default();
        let ni_ready = match t.trigger {
            // The smart NI's source: one host send and one bus transfer for all its copies.
            Trigger::Start if pl.discipline != Discipline::Host => k.t_hs + k.d,
            Trigger::Start | Trigger::AfterMessage { .. } => {
                let at = if t.trigger == Trigger::Start { 0 } else { reached[&t.sender.0] };
                s.host = s.host.max(at) + k.t_hs;
                s.dma = s.dma.max(s.host) + k.d;
                s.dma
            }
            Trigger::PerPacket { .. } => unreachable!("hardware trees forward whole messages"),
        };
        s.ni = s.ni.max(ni_ready) + k.t_ns;
        let go = s.ni.max(s.vc);
        s.vc = go + k.net(h) + k.ack(h);
        inject.push(go);
        acked.push(s.vc);
        for d in &t.delivers {
            latency.insert(d.0, go + k.net(h) + k.recv());
            reached.insert(d.0, go + k.net(h) + k.recv());
        }
    }
    Expected { inject, acked, latency }
}

/// Whether two transmissions whose circuits are open at the same time (different senders) share
/// a channel, in which case the closed form does not apply.
fn concurrent_share_a_channel(f: &Fabric, r: &dyn Routing, pl: &Plan, x: &Expected) -> bool {
    let walker = Walker::new(f, r, &pl.switch_state);
    let chans: Vec<BTreeSet<_>> =
        pl.transmissions.iter().map(|t| walker.walk(t.sender, &t.carrier).channels(f).into_iter().collect()).collect();
    let n = pl.transmissions.len();
    (0..n).any(|i| {
        (i + 1..n).any(|j| {
            let overlap = x.inject[i] < x.acked[j] && x.inject[j] < x.acked[i];
            overlap && !chans[i].is_disjoint(&chans[j])
        })
    })
}

/// A small deterministic generator for the fault sets (the test draws, it does not search).
fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn multi_step_qs_greedy_trees_complete_as_the_closed_form_says() {
    let mut checked = 0;
    let mut cases = 0;
    let mut depth_seen = BTreeSet::new();
    for (k_ary, n_lev, nodes) in [(4u32, 2u32, 16u32), (4, 3, 32), (2, 3, 8), (3, 2, 9)] {
        let (f, r) = tree(k_ary, n_lev);
        let mut st = 7 + nodes as u64;
        for _ in 0..40 {
            let source = (lcg(&mut st) % nodes as u64) as u32;
            let faulty = 1 + lcg(&mut st) % 4;
            let mut dests: BTreeSet<u32> = (0..nodes).filter(|&x| x != source).collect();
            for _ in 0..faulty {
                let x = (lcg(&mut st) % nodes as u64) as u32;
                dests.remove(&x);
            }
            let dests: Vec<EndpointId> = dests.into_iter().map(e).collect();
            for d in [Discipline::Host, Discipline::NiFpfs] {
                let input = SchemeInput {
                    fabric: &f,
                    routing: &*r,
                    source: e(source),
                    destinations: &dests,
                    packets: 1,
                    discipline: d,
                };
                let pl = schemes::plan(&input, "qs_greedy").unwrap();
                let bytes = [8u64, 320][cases % 2];
                cases += 1;
                let p = coll03(&[]);
                let k = numbers(&p, bytes);
                let x = expected(&f, &*r, &pl, &k);
                if concurrent_share_a_channel(&f, &*r, &pl, &x) {
                    continue;
                }
                let res = run_plan(&f, &*r, &pl, &p, bytes, 1).unwrap();
                for dr in &res.per_destination {
                    let id: u32 = dr.endpoint[1..].parse().unwrap();
                    assert_eq!(dr.latency_ps, Some(x.latency[&id]), "{} in {:?}", dr.endpoint, pl.transmissions);
                }
                assert_eq!(res.acked_ps, x.acked.iter().copied().max());
                let steps = {
                    let mut reached_at: BTreeMap<u32, u32> = BTreeMap::new();
                    reached_at.insert(source, 0);
                    for t in &pl.transmissions {
                        let s = reached_at[&t.sender.0] + 1;
                        t.delivers.iter().for_each(|d| {
                            reached_at.insert(d.0, s);
                        });
                    }
                    *reached_at.values().max().unwrap()
                };
                depth_seen.insert(steps);
                checked += 1;
            }
        }
    }
    // The closed form must have been the rule, not the exception, and cover deep trees. The
    // cases are fixed (the generator above): 308 of 320 are contention-free and checked, the
    // other 12 have concurrent transmissions sharing a channel; at least 300 must be checked.
    assert_eq!(cases, 320);
    assert!(checked >= 300, "only {checked} of {cases} cases were contention-free");
    assert!(depth_seen.contains(&2) && depth_seen.contains(&3), "tree depths seen: {depth_seen:?}");
}

// ---------------------------------------------------------------------------------------------
// Invariants on random hardware trees.
// ---------------------------------------------------------------------------------------------

/// FIFO per link and VC in a run's flit trace (tests/common), which must hold every flit hop.
fn check_trace(sim: &Simulation<'_>, res: &RunResult) {
    assert_eq!(res.flit_hops, sim.flit_trace().len() as u64, "every flit hop is in the trace");
    common::assert_fifo(sim.flit_trace(), sim.params(), sim.message_bytes(), common::drained(res));
}

const TREES: &[(u32, u32)] = &[(2, 2), (2, 3), (3, 2), (4, 2), (4, 3)];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_hardware_trees_deliver_every_packet_once_and_never_deadlock(
        shape in 0usize..5, pick in any::<u64>(), src in any::<u32>(), m in 1u32..4, short in 0u64..320,
        cut_through in any::<bool>(), buffer in 1u32..200, circuits in any::<bool>(), overheads in any::<bool>(),
        software in 0u32..4, host in any::<bool>(),
    ) {
        let (k, n) = TREES[shape];
        let (f, r) = tree(k, n);
        let nodes = f.num_endpoints() as u32;
        let source = src % nodes;
        // About a fifth of the nodes are missing from the group (faulty, or another job's).
        let dests: Vec<EndpointId> =
            (0..nodes).filter(|&x| x != source && (pick >> (x % 64)) % 5 != 0).map(e).collect();
        prop_assume!(!dests.is_empty());
        let d = if host { Discipline::Host } else { Discipline::NiFpfs };
        let input = SchemeInput { fabric: &f, routing: &*r, source: e(source), destinations: &dests, packets: m, discipline: d };
        // One run in four is the software tree, whose unicasts hold circuits too.
        let scheme = if software == 0 { "qs_software" } else { "qs_greedy" };
        let pl = schemes::plan(&input, scheme).unwrap();
        let mut o = vec![
            format!("switch.circuit_until_ack={circuits}"),
            format!("switch.switching={}", if cut_through { "cut_through" } else { "wormhole" }),
            format!("switch.buffer_flits={}", if cut_through { 160 + buffer } else { buffer }),
        ];
        if !overheads {
            // Without software overheads the steps' multicasts crowd the network.
            o.extend(["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns"].map(String::from));
        }
        let p = Params::with_overrides("coll03", &o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
        let mut sim = Simulation::new(&f, &*r, &pl, &p, m as u64 * 320 - short, 1).unwrap();
        sim.record_flits(true);
        let res = sim.run();
        assert_conserved(&f, &*r, &pl, &res);
        check_trace(&sim, &res);
    }
}

/// Concurrent range multicasts chosen without regard to overlaps: the endpoints other than the
/// source are cut into contiguous runs (a cut after `x` when bits `2x` and `2x+1` of `cuts` are
/// set, so runs are about four long), the source
/// reaches the first run, and the other runs are dealt to the source and the first run's members,
/// which all forward at once. Their port sets overlap at many switches.
fn crowded_ranges(f: &Fabric, source: u32, cuts: u64, m: u32, d: Discipline) -> Plan {
    let nodes = f.num_endpoints() as u32;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for x in (0..nodes).filter(|&x| x != source) {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == x && (cuts >> (2 * (run.1 % 32))) & 3 != 3 => run.1 = x,
            _ => runs.push((x, x)),
        }
    }
    let (lo, hi) = runs[0];
    let mut senders: Vec<(u32, Trigger)> = vec![(source, Trigger::Start)];
    senders.extend((lo..=hi).map(|x| (x, Trigger::AfterMessage { from: 0 })));
    let mut tx = vec![range(source, lo, hi, Trigger::Start)];
    for (i, &(a, b)) in runs[1..].iter().enumerate() {
        let (s, trigger) = senders[i % senders.len()];
        tx.push(range(s, a, b, trigger));
    }
    plan(f, source, m, d, tx)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn crowded_concurrent_range_multicasts_are_conserved_and_never_deadlock(
        shape in 0usize..5, cuts in any::<u64>(), src in any::<u32>(), m in 1u32..4,
        cut_through in any::<bool>(), buffer in 1u32..200, circuits in any::<bool>(), host in any::<bool>(),
    ) {
        let (k, n) = TREES[shape];
        let (f, r) = tree(k, n);
        let source = src % f.num_endpoints() as u32;
        let d = if host { Discipline::Host } else { Discipline::NiFpfs };
        let pl = crowded_ranges(&f, source, cuts, m, d);
        let o = [
            format!("switch.circuit_until_ack={circuits}"),
            format!("switch.switching={}", if cut_through { "cut_through" } else { "wormhole" }),
            format!("switch.buffer_flits={}", if cut_through { 160 + buffer } else { buffer }),
            "host.t_hs=0ns".into(), "host.t_hr=0ns".into(), "ni.t_ns=0ns".into(), "ni.t_nr=0ns".into(),
            "ni.dma_bandwidth=inf".into(),
        ];
        let p = Params::with_overrides("coll03", &o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
        let mut sim = Simulation::new(&f, &*r, &pl, &p, m as u64 * 320, 1).unwrap();
        sim.record_flits(true);
        let res = sim.run();
        assert_conserved(&f, &*r, &pl, &res);
        check_trace(&sim, &res);
    }
}

#[test]
fn the_same_inputs_give_the_same_result_bit_for_bit() {
    let (f, r) = tree(4, 3);
    let dests: Vec<EndpointId> = (1..40).filter(|x| x % 7 != 3).map(e).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: e(0),
        destinations: &dests,
        packets: 3,
        discipline: Discipline::NiFpfs,
    };
    let pl = schemes::plan(&input, "qs_greedy").unwrap();
    let p = coll03(&["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns"]);
    let a = serde_json::to_string(&run_plan(&f, &*r, &pl, &p, 960, 1).unwrap()).unwrap();
    let b = serde_json::to_string(&run_plan(&f, &*r, &pl, &p, 960, 1).unwrap()).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"acked_ps\""));
}

#[test]
fn every_scheme_that_applies_to_a_quaternary_fat_tree_is_conserved_with_circuits() {
    // Held circuits and combined acknowledgements under every carrier the k-ary n-tree admits
    // (unicasts, InfiniBand MFTs, ranges), several packets, small buffers and no overheads: the
    // acknowledgements of every copy come back and every circuit closes.
    let (f, r) = tree(4, 2);
    let dests: Vec<EndpointId> = [1u32, 2, 5, 6, 7, 9, 12, 13, 15].map(e).to_vec();
    let p = coll03(&["switch.buffer_flits=8", "host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns"]);
    // Every scheme that applies plans this group (a refusal used to be skipped without a word;
    // none is refused).
    let applicable = schemes::applicable(&f);
    assert!(
        ["binomial", "ib_opensm", "qs_greedy", "qs_software"].iter().all(|s| applicable.contains(s)),
        "{applicable:?}"
    );
    for s in &applicable {
        for d in [Discipline::Host, Discipline::NiFpfs] {
            let input =
                SchemeInput { fabric: &f, routing: &*r, source: e(0), destinations: &dests, packets: 3, discipline: d };
            let pl = schemes::plan(&input, s).unwrap_or_else(|err| panic!("{s} {d:?}: {err}"));
            let res = run_plan(&f, &*r, &pl, &p, 3 * 320, 1).unwrap();
            assert_conserved(&f, &*r, &pl, &res);
        }
    }
}

#[test]
fn a_dropped_copy_still_lets_the_circuits_upstream_close() {
    // An MFT multicast from node 0: S0:0.0 copies to node 1 and up to S1:0.0, which sends it down
    // to S0:1.0, which has no entry and drops it. The dropping switch answers for the copy once
    // it has discarded the tail (as an NI would, one switch earlier), so the source's
    // acknowledgement comes back as if that copy had been delivered over 2 switches — also for
    // packets longer than a buffer, whose tail is still upstream when the head is dropped.
    use mcastlab_core::plan::{MftEntry, SwitchState};
    use mcastlab_core::{PortNum, SwitchId};
    let (f, r) = tree(4, 2);
    let mlid = 0xC000;
    let entry = |s: u32, ports: &[u16]| MftEntry {
        mlid,
        switch: SwitchId(s),
        ports: ports.iter().map(|&p| PortNum(p)).collect(),
    };
    assert_eq!((f.switch(SwitchId(0)).name.as_str(), f.switch(SwitchId(4)).name.as_str()), ("S0:0.0", "S1:0.0"));
    let tx = vec![Transmission {
        sender: e(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid },
        delivers: vec![e(1)],
    }];
    let pl = Plan::from_transmissions(&f, "hand", e(0), vec![e(1)], 1, Discipline::NiFpfs, tx)
        .unwrap()
        .with_switch_state(&f, SwitchState { mft: vec![entry(0, &[2, 5]), entry(4, &[2])], reachability: Vec::new() })
        .unwrap();
    for bytes in [8u64, 320] {
        let p = coll03(&[]);
        let k = numbers(&p, bytes);
        let res = run_plan(&f, &*r, &pl, &p, bytes, 1).unwrap();
        assert_eq!(delivered(&res), k.send() + k.net(1) + k.recv());
        // The drop is decided R after the head arrives; flits that came before are discarded
        // then, later ones as they come.
        let dropped = k.net(2) - (k.l - 1) * k.f + k.r.max((k.l - 1) * k.f);
        assert_eq!(res.acked_ps, Some(k.send() + dropped + k.ack(2)), "{bytes} B");
        assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0));
    }
}

#[test]
fn many_hardware_multicasts_at_once_drain_with_every_copy_delivered_once() {
    // Every node multicasts to all others with a hardware tree at the same instant (16 range
    // multicasts to overlapping ranges, all turning around at the top-left switch), then open-loop
    // multicasts of random groups: serialization and held circuits everywhere, no deadlock.
    use mcastlab_core::sim::{run_workload, Detail, Measure, Time, Workload};
    let (f, r) = tree(4, 2);
    let p = coll03(&["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns", "switch.buffer_flits=16"]);
    let us = |x: u64| Some(Time(x * 1_000_000));
    let m = Measure { warmup: us(5), batch: us(20), batches: 2, detail: Detail::Messages, ..Measure::default() };
    for w in ["all_to_all:scheme=qs_greedy,bytes=640", "multicast_load:degree=6,load=0.05,scheme=qs_greedy"] {
        common::assert_workload_conserved(&run_workload(&f, &*r, &Workload::parse(w).unwrap(), &p, &m, 1).unwrap());
    }
}
