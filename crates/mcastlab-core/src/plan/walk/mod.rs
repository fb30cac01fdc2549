//! Decoding carriers into the tree of channels they occupy.
//!
//! Each carrier kind has one file here with the switch-side decode its paper describes (route a
//! unicast, strip a multi-drop header, AND a bit string with reachability strings, look up an
//! MFT, ...). [`Walker::walk`] applies that decode switch by switch from the sender and records
//! every turn as a [`TreeHop`] with the hop that fed it, so the result is the exact replication
//! tree. The checker derives deliveries, conformance, link visits and channel dependencies from
//! it; the simulator replays it with timing.

mod bitstring;
mod mft;
mod path;
pub mod range;
mod unicast;

use super::carrier::Carrier;
use super::state::{SwitchReach, SwitchState};
use crate::fabric::{Channel, Fabric, Terminal};
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::routing::path::hop_limit;
use crate::routing::{Arrival, Hop, Routing, Turn};
use std::collections::BTreeMap;

/// One turn of a carrier inside a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeHop {
    pub switch: SwitchId,
    pub in_port: PortNum,
    pub in_vc: u8,
    pub out_port: PortNum,
    pub out_vc: u8,
    /// The hop whose output channel brought the carrier to this switch (None at the sender's
    /// switch).
    pub parent: Option<u32>,
}

impl TreeHop {
    pub fn turn(&self) -> Turn {
        Turn {
            switch: self.switch,
            in_port: self.in_port,
            in_vc: self.in_vc,
            out_port: self.out_port,
            out_vc: self.out_vc,
        }
    }
}

/// The replication tree of one carrier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CarrierTree {
    /// The sender's injection channel.
    pub injection: Option<Channel>,
    /// Every turn, parents before children.
    pub hops: Vec<TreeHop>,
    /// Endpoints a copy was ejected to, in the order reached (a repeat is a duplicate delivery).
    pub reached: Vec<EndpointId>,
    /// What went wrong while decoding (no route, a port leading nowhere, a forwarding loop).
    pub problems: Vec<String>,
    /// What the switches can carry out but is wrong all the same (an MFT branch into a switch
    /// that drops the packet: a wasted link). The checker fails the plan on these; the simulator
    /// still runs it, since the hardware would.
    pub defects: Vec<String>,
    /// With [`Walker::every_choice`]: the hops (`None`: the injection) whose child hops are
    /// alternatives, one of which a packet takes, rather than copies. Empty otherwise.
    pub forks: Vec<Option<u32>>,
    /// With [`Walker::every_choice`]: a switch where a multidestination worm's leg was offered
    /// more than one legal hop (the walker took the first; the simulator cannot choose there).
    pub worm_choice: Option<SwitchId>,
}

impl CarrierTree {
    /// Channels in traversal order, injection first; a channel appears once per copy crossing it.
    pub fn channels(&self, f: &Fabric) -> Vec<Channel> {
        let mut v: Vec<Channel> = self.injection.into_iter().collect();
        v.extend(self.hops.iter().filter_map(|h| f.port(h.switch, h.out_port).and_then(|p| p.out)));
        v
    }
}

/// Decodes carriers for one fabric, routing and switch state.
pub struct Walker<'a> {
    f: &'a Fabric,
    r: &'a dyn Routing,
    mft: BTreeMap<(u32, SwitchId), &'a [PortNum]>,
    reach: BTreeMap<SwitchId, &'a SwitchReach>,
    /// Bound on the hops of one carrier, so a looping table cannot run forever.
    max_hops: usize,
    /// Decode a unicast into every route the routing allows, not only its first choice.
    every_choice: bool,
}

impl<'a> Walker<'a> {
    pub fn new(f: &'a Fabric, r: &'a dyn Routing, state: &'a SwitchState) -> Walker<'a> {
        let max_hops = hop_limit(f, r).max(2 * f.num_channels() + 4);
        Walker { f, r, mft: state.mft_index(), reach: state.reach_index(), max_hops, every_choice: false }
    }

    /// For a routing that chooses per packet at run time: a unicast decodes into the tree of
    /// every legal route (each switch offering several hops is a fork, `CarrierTree::forks`), and
    /// a worm's leg offered several hops is recorded (`CarrierTree::worm_choice`).
    pub fn every_choice(mut self) -> Walker<'a> {
        self.every_choice = true;
        self
    }

    /// The tree `carrier` takes when `sender` injects it.
    pub fn walk(&self, sender: EndpointId, carrier: &Carrier) -> CarrierTree {
        let (s0, p0) = self.f.attachment(sender);
        let mut t = CarrierTree { injection: self.f.port(s0, p0).and_then(|pp| pp.inc), ..Default::default() };
        let start = At { switch: s0, arrival: Arrival { port: p0, vc: 0 }, parent: None };
        match carrier {
            Carrier::Unicast { dst } if self.every_choice => unicast::walk_every(self, &mut t, start, sender, *dst),
            Carrier::Unicast { dst } => unicast::walk(self, &mut t, start, sender, *dst),
            Carrier::Ssr { drop } => path::walk_drops(self, &mut t, start, sender, std::slice::from_ref(drop)),
            Carrier::Multidrop { drops } => path::walk_drops(self, &mut t, start, sender, drops),
            Carrier::Path { dests } => path::walk_dests(self, &mut t, start, sender, dests),
            Carrier::Bitstring { dests } => bitstring::walk(self, &mut t, start, dests),
            Carrier::Mft { mlid } => mft::walk(self, &mut t, start, *mlid),
            Carrier::Range { lo, hi } => range::walk(self, &mut t, start, sender, *lo, *hi),
        }
        t
    }

    /// Records the turn `at → hop` and says where it leads.
    fn emit(&self, t: &mut CarrierTree, at: At, hop: Hop) -> Next {
        let idx = t.hops.len() as u32;
        t.hops.push(TreeHop {
            switch: at.switch,
            in_port: at.arrival.port,
            in_vc: at.arrival.vc,
            out_port: hop.port,
            out_vc: hop.vc,
            parent: at.parent,
        });
        let name = &self.f.switch(at.switch).name;
        match self.f.port(at.switch, hop.port) {
            None => {
                t.problems.push(format!("port {} of {name} is not connected", hop.port));
                Next::Lost
            }
            Some(pp) if pp.out.is_none() => {
                t.problems.push(format!("port {} of {name} cannot send (directed link)", hop.port));
                Next::Lost
            }
            Some(pp) => match pp.peer {
                Terminal::Endpoint { endpoint } => {
                    t.reached.push(endpoint);
                    Next::Ejected(endpoint)
                }
                Terminal::Switch { switch, port } => {
                    Next::Switch(At { switch, arrival: Arrival { port, vc: hop.vc }, parent: Some(idx) })
                }
            },
        }
    }

    fn too_long(&self, t: &mut CarrierTree) -> bool {
        if t.hops.len() > self.max_hops {
            t.problems.push(format!("the carrier exceeds {} hops: it loops", self.max_hops));
            true
        } else {
            false
        }
    }
}

/// Where a copy of the carrier is: at a switch, having arrived as `arrival` through `parent`.
#[derive(Clone, Copy, Debug)]
struct At {
    switch: SwitchId,
    arrival: Arrival,
    parent: Option<u32>,
}

enum Next {
    Switch(At),
    Ejected(#[allow(dead_code)] EndpointId),
    Lost,
}
