//! Packets an MFT routes nowhere (`VcState::Sink`) under the iq router: each is dropped flit by
//! flit as it arrives, whole, and no more. The drop ended at the VC's packet length before RC
//! had set it for the dropped packet, so it used the previous packet's: on a VC nothing had been
//! routed through it never ended (the run deadlocked with nothing blocked), behind a shorter
//! packet it ended early and the leftover body flits were routed as heads (a panic), behind a
//! longer one it would eat into the next packet. Found by a review of the iq router (session
//! 14); the flit engine's drop is tested against the reference model in `sim_reference.rs`.

mod common;

use common::fabric;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::{Carrier, Discipline, MftEntry, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::sim::{Outcome, Params, Simulation};
use mcastlab_core::{EndpointId, SwitchId};

/// Group 0xC002's MFT at h0: to `to`'s port and over the link to h1, whose MFT has no entry for
/// the group, so h1's input VC drops whatever the group sends it.
fn mft_to_h1_and(f: &Fabric, to: EndpointId) -> SwitchState {
    let link = f
        .switch_ports(SwitchId(0))
        .find(|&p| f.port(SwitchId(0), p).is_some_and(|x| matches!(x.peer, Terminal::Switch { .. })))
        .unwrap();
    let ports = vec![f.attachment(to).1, link];
    SwitchState { mft: vec![MftEntry { mlid: 0xC002, switch: SwitchId(0), ports }], reachability: vec![] }
}

/// e0's MFT packets go to e1 and to h1, where they end: the first thing h1's VC ever holds is
/// a packet to drop.
#[test]
fn iq_drops_a_packet_routed_nowhere_on_a_fresh_vc() {
    let (f, r) = fabric("hypercube:dim=1,endpoints_per_switch=3");
    let e = EndpointId;
    let mft = Transmission {
        sender: e(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC002 },
        delivers: vec![e(1)],
    };
    for packets in [1u32, 3] {
        let plan =
            Plan::from_transmissions(&f, "custom", e(0), vec![e(1)], packets, Discipline::NiFpfs, vec![mft.clone()])
                .unwrap()
                .with_switch_state(&f, mft_to_h1_and(&f, e(1)))
                .unwrap();
        let p = Params::with_overrides("booksim_iq", &[]).unwrap();
        let res = Simulation::new(&f, &*r, &plan, &p, 8 * packets as u64, 1).unwrap().run();
        assert_eq!(res.outcome, Outcome::Delivered, "{packets} packets: {:?}", res.outcome);
        assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0), "{packets} packets");
        // Each packet crosses the injection link, e2's ejection link and the link to h1.
        assert_eq!(res.link_visits, 3 * packets as u64, "{packets} packets");
    }
}

/// A unicast to e3 crosses h1's only VC first, in 5-flit packets (13 bytes in 8-byte packets);
/// then e1's MFT message, sent once e1 has e0's, drops 8-flit packets there.
#[test]
fn iq_drops_a_packet_routed_nowhere_behind_one_of_another_length() {
    let (f, r) = fabric("hypercube:dim=1,endpoints_per_switch=3");
    let e = EndpointId;
    let at = |x: u32| f.attachment(e(x)).0;
    assert_eq!((at(1), at(2), at(3)), (SwitchId(0), SwitchId(0), SwitchId(1)));
    let tx = vec![
        common::unicast(0, Trigger::Start, 3),
        common::unicast(0, Trigger::Start, 1),
        Transmission {
            sender: e(1),
            trigger: Trigger::AfterMessage { from: 1 },
            carrier: Carrier::Mft { mlid: 0xC002 },
            delivers: vec![e(2)],
        },
    ];
    let plan = Plan::from_transmissions(&f, "custom", e(0), vec![e(1), e(2), e(3)], 2, Discipline::NiFpfs, tx)
        .unwrap()
        .with_switch_state(&f, mft_to_h1_and(&f, e(2)))
        .unwrap();
    for overrides in [&["switch.vcs=1"][..], &["switch.vcs=1", "switch.routing_delay=0ns"]] {
        let p = Params::with_overrides("booksim_iq", overrides).unwrap();
        let res = Simulation::new(&f, &*r, &plan, &p, 13, 1).unwrap().run();
        assert_eq!(res.outcome, Outcome::Delivered, "{overrides:?}: {:?}", res.outcome);
        assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0), "{overrides:?}");
    }
}
