//! Carriers decoded switch by switch: hardware multicast tables (loops, the arrival-port rule),
//! header validation, plan files with switch state, and the NI buffer need of forwarding
//! disciplines.

use mcastlab_core::fabric::Fabric;
use mcastlab_core::io::plan_json::read_plan;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::{Carrier, Discipline, Drop, Plan, Transmission, Trigger};
use mcastlab_core::routing::Routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::EndpointId;

mod common;

fn fabric() -> (Fabric, Box<dyn Routing>) {
    common::fabric("irregular")
}

/// An MFT broadcast from endpoint 0 along a BFS spanning tree (tests/common), with `extra`
/// switch links off the tree added to the rows, one packet, host forwarding.
fn mft_broadcast(f: &Fabric, extra: usize) -> Plan {
    common::mft_broadcast(f, 1, Discipline::Host, extra)
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
    assert_eq!(read_plan(&text, "p.json", &f).unwrap(), p);
    // A row naming a port that does not exist is refused when the file is read.
    let bad = text.replacen("\"ports\": [", "\"ports\": [\n        99,", 1);
    let e = read_plan(&bad, "p.json", &f).unwrap_err().to_string();
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
