//! Plans: what one multicast does, independent of timing.
//!
//! A [`Plan`] is a list of [`Transmission`]s. Each has a sender, a [`Trigger`] saying when it may
//! leave, a [`Carrier`] saying how the network carries it, and the endpoints it delivers to.
//! Transmissions of one sender leave in list order. Every scheme produces a Plan, and so can a user
//! (`Plan::from_transmissions`); the checker ([`check`]) and later the simulator take nothing else.

pub mod budget;
pub mod carrier;
pub mod check;
pub mod creation;
pub mod state;
pub mod steps;
pub mod walk;

pub use carrier::{Carrier, Drop};
pub use state::{mft_conflict, EndpointSet, MftConflict, MftEntry, SwitchReach, SwitchState};

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use serde::{Deserialize, Serialize};

/// When a transmission may start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Trigger {
    /// The source starts it at time zero.
    Start,
    /// The sender's host has received the whole message from transmission `from` (host-level
    /// store-and-forward, sivaram98 §3.3).
    AfterMessage { from: u32 },
    /// The sender's NI forwards each packet of transmission `from` as it arrives (smart NI,
    /// sivaram98 §4).
    PerPacket { from: u32 },
}

/// One message of a multicast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transmission {
    pub sender: EndpointId,
    pub trigger: Trigger,
    pub carrier: Carrier,
    /// Endpoints whose host receives the message from this transmission.
    pub delivers: Vec<EndpointId>,
}

/// Where multi-packet messages are forwarded (sivaram98 §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    /// The host receives the whole message, then sends it to each child (conventional NI).
    Host,
    /// Smart NI, first-child-first-served: all packets to the first child, then the next.
    NiFcfs,
    /// Smart NI, first-packet-first-served: each packet to every child before the next packet.
    #[default]
    NiFpfs,
}

impl Discipline {
    pub fn parse(s: &str) -> Result<Discipline, PlanError> {
        match s {
            "host" => Ok(Discipline::Host),
            "fcfs" | "ni_fcfs" => Ok(Discipline::NiFcfs),
            "fpfs" | "ni_fpfs" => Ok(Discipline::NiFpfs),
            other => Err(PlanError::Param {
                param: "discipline",
                message: format!("`{other}` is not one of host, fcfs, fpfs"),
            }),
        }
    }
    /// The trigger a forwarding node uses under this discipline.
    pub fn forward_trigger(self, from: u32) -> Trigger {
        match self {
            Discipline::Host => Trigger::AfterMessage { from },
            Discipline::NiFcfs | Discipline::NiFpfs => Trigger::PerPacket { from },
        }
    }
}

/// Schema name and version of plan JSON files.
pub const PLAN_FORMAT: &str = "mcastlab-plan";
pub const PLAN_VERSION: u32 = 1;

/// The `scheme` of a plan no registered scheme built (written by hand, `Plan.from_transmissions`).
pub const CUSTOM_SCHEME: &str = "custom";

/// A multicast plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub format: String,
    pub version: u32,
    /// Scheme spec that built it (`kbinomial:k=2`), or `custom`.
    pub scheme: String,
    /// Name of the fabric it was built for (checked against the fabric it is used with).
    pub fabric: String,
    pub source: EndpointId,
    pub destinations: Vec<EndpointId>,
    /// Packets per message (m in sivaram98 §4.3).
    pub packets: u32,
    pub discipline: Discipline,
    pub transmissions: Vec<Transmission>,
    /// Switch state the carriers rely on (MFTs, reachability strings); empty for unicast plans.
    #[serde(default, skip_serializing_if = "SwitchState::is_empty")]
    pub switch_state: SwitchState,
}

impl Plan {
    /// Wraps transmissions (from a scheme or a user) into a plan after structural validation:
    /// endpoints exist, the source is not a destination, destinations are distinct and non-empty,
    /// triggers refer to earlier transmissions, and a forwarder only forwards what reached it.
    #[allow(clippy::too_many_arguments)]
    pub fn from_transmissions(
        fabric: &Fabric,
        scheme: &str,
        source: EndpointId,
        destinations: Vec<EndpointId>,
        packets: u32,
        discipline: Discipline,
        transmissions: Vec<Transmission>,
    ) -> Result<Plan, PlanError> {
        validate_group(fabric, source, &destinations)?;
        validate_packets(packets)?;
        let n = fabric.num_endpoints() as u32;
        for (i, t) in transmissions.iter().enumerate() {
            let invalid = |message: String| PlanError::Invalid { transmission: i, message };
            let ep_ok = |e: EndpointId| e.0 < n;
            if !ep_ok(t.sender)
                || !t.carrier.named_endpoints().iter().all(|e| ep_ok(*e))
                || !t.delivers.iter().all(|e| ep_ok(*e))
            {
                return Err(invalid("names an endpoint outside the fabric".into()));
            }
            match t.trigger {
                Trigger::Start => {
                    if t.sender != source {
                        return Err(invalid(format!(
                            "only the source may start; sender is {}",
                            fabric.endpoint(t.sender).name
                        )));
                    }
                }
                Trigger::AfterMessage { from } | Trigger::PerPacket { from } => {
                    let Some(prev) = transmissions.get(from as usize).filter(|_| (from as usize) < i) else {
                        return Err(invalid(format!(
                            "trigger refers to transmission {from}, which does not come before it"
                        )));
                    };
                    if !prev.delivers.contains(&t.sender) {
                        return Err(invalid(format!(
                            "sender {} forwards transmission {from}, which does not deliver to it",
                            fabric.endpoint(t.sender).name
                        )));
                    }
                }
            }
            let expected = carrier_targets(fabric, &t.carrier).map_err(&invalid)?;
            if let Some(mut expected) = expected {
                let mut claimed = t.delivers.clone();
                expected.sort_unstable();
                claimed.sort_unstable();
                if expected != claimed {
                    return Err(invalid(format!(
                        "the {} header addresses other endpoints than it delivers to",
                        t.carrier.kind()
                    )));
                }
            } else if t.delivers.is_empty() {
                return Err(invalid("delivers to nobody".into()));
            }
        }
        Ok(Plan {
            format: PLAN_FORMAT.into(),
            version: PLAN_VERSION,
            scheme: scheme.to_string(),
            fabric: fabric.name().to_string(),
            source,
            destinations,
            packets,
            discipline,
            transmissions,
            switch_state: SwitchState::default(),
        })
    }

    /// Attaches the switch state the carriers rely on, after checking that every switch and port
    /// it names exists.
    pub fn with_switch_state(mut self, fabric: &Fabric, state: SwitchState) -> Result<Plan, PlanError> {
        let bad = |message: String| PlanError::Invalid { transmission: 0, message: format!("switch state: {message}") };
        let ns = fabric.num_switches() as u32;
        let port_ok = |s: crate::ids::SwitchId, p: crate::ids::PortNum| fabric.port(s, p).is_some();
        if let Some(c) = state::mft_conflict(&state.mft) {
            return Err(bad(format!(
                "MFT rows {} and {} both give MLID 0x{:04X} on switch {}: a switch holds one row per MLID",
                c.first,
                c.second,
                c.mlid,
                fabric.switches().get(c.switch.idx()).map_or_else(|| c.switch.0.to_string(), |s| s.name.clone())
            )));
        }
        for e in &state.mft {
            if e.switch.0 >= ns {
                return Err(bad(format!("MFT entry for switch {} outside the fabric", e.switch.0)));
            }
            if let Some(p) = e.ports.iter().enumerate().find(|(i, p)| e.ports[..*i].contains(p)).map(|(_, p)| p) {
                return Err(bad(format!(
                    "MFT row of MLID 0x{:04X} on switch {} lists port {p} twice",
                    e.mlid, e.switch.0
                )));
            }
            if let Some(p) = e.ports.iter().find(|p| !port_ok(e.switch, **p)) {
                return Err(bad(format!("MFT port {p} of {} is not connected", fabric.switch(e.switch).name)));
            }
        }
        let ne = fabric.num_endpoints();
        for r in &state.reachability {
            if r.switch.0 >= ns {
                return Err(bad(format!("reachability strings for switch {} outside the fabric", r.switch.0)));
            }
            if let Some((p, _)) = r.down.iter().find(|(p, _)| !port_ok(r.switch, *p)) {
                return Err(bad(format!("reachability port {p} of {} is not connected", fabric.switch(r.switch).name)));
            }
            let too_far = |s: &EndpointSet| s.iter().any(|e| e.idx() >= ne);
            if too_far(&r.total) || r.down.iter().any(|(_, s)| too_far(s)) {
                return Err(bad(format!(
                    "a reachability string of {} names an endpoint outside the fabric",
                    fabric.switch(r.switch).name
                )));
            }
        }
        self.switch_state = state;
        Ok(self)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plan serializes");
        s.push('\n');
        s
    }
}

/// The endpoints a carrier's header addresses (None for an MFT multicast, whose reach the switch
/// state decides), after checking that the header is well-formed.
fn carrier_targets(fabric: &Fabric, c: &Carrier) -> Result<Option<Vec<EndpointId>>, String> {
    let distinct = |v: &[EndpointId]| {
        let mut s = v.to_vec();
        s.sort_unstable();
        s.dedup();
        s.len() == v.len()
    };
    match c {
        Carrier::Unicast { dst } => Ok(Some(vec![*dst])),
        Carrier::Path { dests } | Carrier::Bitstring { dests } => {
            if dests.is_empty() || !distinct(dests) {
                return Err(format!("a {} header needs distinct destinations", c.kind()));
            }
            Ok(Some(dests.clone()))
        }
        Carrier::Ssr { drop } => drop_targets(fabric, std::slice::from_ref(drop)).map(Some),
        Carrier::Multidrop { drops } => drop_targets(fabric, drops).map(Some),
        Carrier::Mft { .. } => Ok(None),
        Carrier::Range { lo, hi } => {
            if lo > hi {
                return Err(format!("a range header needs lo ≤ hi (got {}..{})", lo.0, hi.0));
            }
            Ok(Some((lo.0..=hi.0).map(EndpointId).collect()))
        }
    }
}

fn drop_targets(fabric: &Fabric, drops: &[Drop]) -> Result<Vec<EndpointId>, String> {
    if drops.is_empty() {
        return Err("a worm header needs at least one drop".into());
    }
    let mut out = Vec::new();
    for d in drops {
        if d.switch.0 as usize >= fabric.num_switches() {
            return Err(format!("drop switch {} is not in the fabric", d.switch.0));
        }
        if d.ports.is_empty() {
            return Err(format!("the drop at {} has no ports", fabric.switch(d.switch).name));
        }
        for p in &d.ports {
            match fabric.port(d.switch, *p).map(|pp| pp.peer) {
                Some(crate::fabric::Terminal::Endpoint { endpoint }) => out.push(endpoint),
                _ => return Err(format!("port {p} of {} does not lead to an endpoint", fabric.switch(d.switch).name)),
            }
        }
    }
    Ok(out)
}

/// Checks a message's packet count: at least one (a null message is one header-only packet).
pub fn validate_packets(packets: u32) -> Result<(), PlanError> {
    match packets {
        0 => Err(PlanError::Param { param: "packets", message: "must be at least 1".into() }),
        _ => Ok(()),
    }
}

/// Checks a multicast group: endpoints exist, the group is non-empty, distinct, without the source.
/// Destination lists up to this long are checked for repeats by comparing with the entries before
/// (at most 120 comparisons) instead of a bitmap over the fabric's endpoints.
const SHORT_GROUP: usize = 16;

pub fn validate_group(fabric: &Fabric, source: EndpointId, destinations: &[EndpointId]) -> Result<(), PlanError> {
    let n = fabric.num_endpoints() as u32;
    if source.0 >= n {
        return Err(PlanError::Group(format!("source {} is not in the fabric (0..{n})", source.0)));
    }
    if destinations.is_empty() {
        return Err(PlanError::Group("the destination set is empty".into()));
    }
    // A short list is checked against itself; a long one against a bitmap over the endpoints. The
    // simulator validates one plan per message on fabrics whose templates are not all kept, and a
    // bitmap over every endpoint per unicast was a fifth of building its plan (docs/performance.md).
    let short = destinations.len() <= SHORT_GROUP;
    let mut seen = if short { Vec::new() } else { vec![false; n as usize] };
    for (i, d) in destinations.iter().enumerate() {
        if d.0 >= n {
            return Err(PlanError::Group(format!("destination {} is not in the fabric (0..{n})", d.0)));
        }
        if *d == source {
            return Err(PlanError::Group(format!(
                "the source {} is among the destinations",
                fabric.endpoint(source).name
            )));
        }
        let twice = if short { destinations[..i].contains(d) } else { std::mem::replace(&mut seen[d.idx()], true) };
        if twice {
            return Err(PlanError::Group(format!("destination {} is listed twice", fabric.endpoint(*d).name)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::generators::generate;

    /// Both ways of finding a repeated destination (a short list, a long one) give the same
    /// answers, in list order: the first bad entry is the one reported.
    #[test]
    fn a_group_is_refused_for_the_same_first_fault_whatever_its_length() {
        let f = generate("torus:8x8").unwrap();
        let ep = |i: u32| EndpointId(i);
        let msg = |dests: &[u32]| {
            let d: Vec<EndpointId> = dests.iter().map(|&i| ep(i)).collect();
            validate_group(&f, ep(0), &d).err().map(|e| e.to_string())
        };
        // Padding that makes the list long (past SHORT_GROUP) without a fault of its own.
        let pad: Vec<u32> = (40..40 + SHORT_GROUP as u32).collect();
        for (dests, want) in [
            (vec![1, 2, 3], None),
            (vec![1, 2, 1], Some("is listed twice")),
            (vec![1, 99, 1], Some("destination 99 is not in the fabric")),
            (vec![1, 2, 2, 0], Some("is listed twice")),
            (vec![1, 0, 2, 2], Some("is among the destinations")),
        ] {
            let short = msg(&dests);
            let long = msg(&[dests.clone(), pad.clone()].concat());
            assert!(dests.len() <= SHORT_GROUP && dests.len() + pad.len() > SHORT_GROUP);
            assert_eq!(short, long, "{dests:?}");
            match want {
                None => assert_eq!(short, None, "{dests:?}"),
                Some(w) => assert!(short.as_deref().is_some_and(|m| m.contains(w)), "{dests:?}: {short:?}"),
            }
        }
        // A repeat within the padding is found by the long path.
        let mut long: Vec<u32> = pad.clone();
        long.push(pad[3]);
        assert!(msg(&long).is_some_and(|m| m.contains("listed twice")));
    }
}
