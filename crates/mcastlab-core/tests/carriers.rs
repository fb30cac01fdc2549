//! Carriers decoded switch by switch: hardware multicast tables (loops, the arrival-port rule),
//! header validation, plan files with switch state, and the NI buffer need of forwarding
//! disciplines.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::{Carrier, Discipline, Drop, MftEntry, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::{EndpointId, PortNum, SwitchId};
use std::collections::VecDeque;

fn fabric() -> (Fabric, Box<dyn Routing>) {
    let f = generate("irregular").unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
}

/// MFT rows of a broadcast along a BFS spanning tree of the switches, plus every endpoint port;
/// `extra` switch-to-switch links (by their two ends) are added to both ends' rows.
fn spanning_mft(f: &Fabric, mlid: u32, extra: usize) -> Vec<MftEntry> {
    let n = f.num_switches();
    let mut ports: Vec<Vec<PortNum>> = vec![Vec::new(); n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::from([SwitchId(0)]);
    seen[0] = true;
    let mut non_tree = Vec::new();
    while let Some(s) = q.pop_front() {
        for (p, peer, peer_port, _) in f.switch_neighbors(s) {
            if !seen[peer.idx()] {
                seen[peer.idx()] = true;
                ports[s.idx()].push(p);
                ports[peer.idx()].push(peer_port);
                q.push_back(peer);
            } else if s < peer {
                non_tree.push((s, p, peer, peer_port));
            }
        }
    }
    for &(s, p, t, tp) in non_tree.iter().take(extra) {
        ports[s.idx()].push(p);
        ports[t.idx()].push(tp);
    }
    for s in f.switch_ids() {
        for p in f.switch_ports(s) {
            if matches!(f.port(s, p).map(|pp| pp.peer), Some(Terminal::Endpoint { .. })) {
                ports[s.idx()].push(p);
            }
        }
        ports[s.idx()].sort_unstable();
        ports[s.idx()].dedup();
    }
    ports.into_iter().enumerate().map(|(s, ports)| MftEntry { mlid, switch: SwitchId(s as u32), ports }).collect()
}

fn mft_broadcast(f: &Fabric, extra: usize) -> Plan {
    let src = EndpointId(0);
    let dests: Vec<EndpointId> = f.endpoint_ids().filter(|e| *e != src).collect();
    let tx = vec![Transmission {
        sender: src,
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC000 },
        delivers: dests.clone(),
    }];
    Plan::from_transmissions(f, "custom", src, dests, 1, Discipline::Host, tx)
        .unwrap()
        .with_switch_state(f, SwitchState { mft: spanning_mft(f, 0xC000, extra), reachability: Vec::new() })
        .unwrap()
}

#[test]
fn a_spanning_tree_mft_delivers_once_and_never_returns_through_the_arrival_port() {
    let (f, r) = fabric();
    let rep = check_plan(&f, &*r, &mft_broadcast(&f, 0), &Default::default()).unwrap();
    assert!(rep.exactly_once, "{:?} {:?}", rep.duplicates, rep.missing);
    assert!(rep.problems.is_empty(), "{:?}", rep.problems);
    assert_eq!(rep.hardware_multicasts, 1);
    assert_eq!(rep.steps, 1);
    // Every switch-to-switch tree link is crossed exactly once, in one direction.
    assert_eq!(rep.used_links, f.num_switches() - 1 + f.num_endpoints());
}

#[test]
fn an_mft_with_a_cycle_is_caught_as_a_loop() {
    let (f, r) = fabric();
    let rep = check_plan(&f, &*r, &mft_broadcast(&f, 1), &Default::default()).unwrap();
    assert!(!rep.ok());
    assert!(rep.problems.iter().any(|p| p.contains("loops")), "{:?}", rep.problems);
    assert!(!rep.duplicates.is_empty());
}

#[test]
fn plans_with_switch_state_round_trip_through_json() {
    let (f, _) = fabric();
    let p = mft_broadcast(&f, 0);
    let text = p.to_json();
    assert!(text.contains("\"switch_state\""));
    assert_eq!(Plan::from_json(&text, "p.json", &f).unwrap(), p);
    // A row naming a port that does not exist is refused when the file is read.
    let bad = text.replacen("\"ports\": [", "\"ports\": [\n        99,", 1);
    let e = Plan::from_json(&bad, "p.json", &f).unwrap_err().to_string();
    assert!(e.contains("MFT port 99"), "{e}");
}

#[test]
fn worm_headers_must_match_what_they_deliver() {
    let (f, _) = fabric();
    let src = EndpointId(0);
    let (s5, p5) = f.attachment(EndpointId(5));
    let make = |carrier: Carrier, delivers: Vec<EndpointId>| {
        let tx = vec![Transmission { sender: src, trigger: Trigger::Start, carrier, delivers }];
        Plan::from_transmissions(&f, "custom", src, vec![EndpointId(5)], 1, Discipline::Host, tx)
    };
    let good = make(Carrier::Ssr { drop: Drop { switch: s5, ports: vec![p5] } }, vec![EndpointId(5)]);
    assert!(good.is_ok());
    let e = make(Carrier::Ssr { drop: Drop { switch: s5, ports: vec![p5] } }, vec![EndpointId(6)]).unwrap_err();
    assert!(e.to_string().contains("addresses other endpoints"), "{e}");
    // A switch-to-switch port in a drop string.
    let (p, ..) = f.switch_neighbors(s5)[0];
    let e = make(Carrier::Ssr { drop: Drop { switch: s5, ports: vec![p] } }, vec![EndpointId(5)]).unwrap_err();
    assert!(e.to_string().contains("does not lead to an endpoint"), "{e}");
    let e = make(Carrier::Path { dests: vec![EndpointId(5), EndpointId(5)] }, vec![EndpointId(5)]).unwrap_err();
    assert!(e.to_string().contains("distinct"), "{e}");
    let e = make(Carrier::Mft { mlid: 0xC000 }, vec![]).unwrap_err();
    assert!(e.to_string().contains("nobody"), "{e}");
}

/// sivaram98 §6.1: an NI keeps a packet until it has sent every copy. In a binomial tree over 8
/// nodes the node at offset 4 has two children; under FCFS it receives all three packets before
/// it has served its first child, under FPFS it passes each packet on before the next arrives.
#[test]
fn ni_buffer_need_depends_on_the_discipline() {
    let (f, r) = fabric();
    let dests: Vec<EndpointId> = (1..=7).map(EndpointId).collect();
    let need = |d: Discipline| {
        let input = SchemeInput {
            fabric: &f,
            routing: &*r,
            source: EndpointId(0),
            destinations: &dests,
            packets: 3,
            discipline: d,
        };
        let p = schemes::plan(&input, "binomial").unwrap();
        check_plan(&f, &*r, &p, &Default::default()).unwrap().ni_buffer_packets
    };
    assert_eq!(need(Discipline::NiFcfs), 3);
    assert_eq!(need(Discipline::NiFpfs), 1);
    assert_eq!(need(Discipline::Host), 0);
}
