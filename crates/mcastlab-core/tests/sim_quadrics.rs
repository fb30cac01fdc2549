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

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_plan, Outcome, Params, RunResult, Simulation};
use mcastlab_core::EndpointId;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn e(x: u32) -> EndpointId {
    EndpointId(x)
}

fn tree(k: u32, n: u32) -> (Fabric, Box<dyn Routing>) {
    let f = generate(&format!("kary_ntree:k={k},n={n}")).unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
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

fn unicast(sender: u32, dst: u32, trigger: Trigger) -> Transmission {
    Transmission { sender: e(sender), trigger, carrier: Carrier::Unicast { dst: e(dst) }, delivers: vec![e(dst)] }
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

fn delivered(res: &RunResult) -> u64 {
    assert_eq!(res.outcome, Outcome::Delivered, "{:?}", res.outcome);
    res.completion_ps.unwrap()
}

fn latency(res: &RunResult, x: u32) -> u64 {
    let name = format!("n{x}");
    res.per_destination.iter().find(|d| d.endpoint == name).and_then(|d| d.latency_ps).unwrap()
}

/// Switches on the path of each copy of transmission `t` (its depth in the replication tree),
/// per endpoint reached.
fn depths(f: &Fabric, r: &dyn Routing, plan: &Plan, t: usize) -> BTreeMap<u32, u64> {
    let tx = &plan.transmissions[t];
    let tree = Walker::new(f, r, &plan.switch_state).walk(tx.sender, &tx.carrier);
    let mut depth = vec![0u64; tree.hops.len()];
    let mut out = BTreeMap::new();
    for (i, h) in tree.hops.iter().enumerate() {
        depth[i] = h.parent.map(|p| depth[p as usize]).unwrap_or(0) + 1;
        if let Some(Terminal::Endpoint { endpoint }) = f.port(h.switch, h.out_port).map(|p| p.peer) {
            out.insert(endpoint.0, depth[i]);
        }
    }
    out
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
    let pl = plan(&f, 0, 1, Discipline::NiFpfs, vec![unicast(0, 5, Trigger::Start), unicast(0, 10, Trigger::Start)]);
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
        let p = Params::preset(preset).unwrap();
        assert!(!p.switch.circuit_until_ack, "{preset}");
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
