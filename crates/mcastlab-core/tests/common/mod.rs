//! Hand-written plans that several test files share (each test binary uses its own subset).
#![allow(dead_code)]

use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::EndpointId;

/// A unicast from endpoint `from` to endpoint `to`, sent when `trigger` says.
pub fn unicast(from: u32, trigger: Trigger, to: u32) -> Transmission {
    Transmission {
        sender: EndpointId(from),
        trigger,
        carrier: Carrier::Unicast { dst: EndpointId(to) },
        delivers: vec![EndpointId(to)],
    }
}

/// A chain e0 → e3 → e2 → e1 of `m` packets forwarded per packet, for
/// `torus:4,unidirectional=true`: every forward goes three hops round the ring, so with one VC
/// class the forwards' channel dependencies close the ring's cycle.
pub fn ring_chain(f: &Fabric, m: u32) -> Plan {
    let e = EndpointId;
    let tx = vec![
        unicast(0, Trigger::Start, 3),
        unicast(3, Trigger::PerPacket { from: 0 }, 2),
        unicast(2, Trigger::PerPacket { from: 1 }, 1),
    ];
    Plan::from_transmissions(f, "custom", e(0), vec![e(3), e(2), e(1)], m, Discipline::NiFpfs, tx).unwrap()
}
