//! Carriers: how the network carries one transmission. A carrier is a *header* (what the sender
//! writes into the packet), never a precomputed route: switches decode it (see [`super::walk`]),
//! so checking and simulation see exactly what the papers' hardware would do.

use crate::ids::{EndpointId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};

/// One drop point of a switch-addressed multidestination worm (sivaram98 Fig. 12): a switch and
/// the output ports (its p-bit string) that lead to destinations attached to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drop {
    pub switch: SwitchId,
    pub ports: Vec<PortNum>,
}

/// How the network carries a transmission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Carrier {
    /// An ordinary unicast message to one endpoint, routed by the base routing.
    Unicast { dst: EndpointId },
    /// A single-switch-replication worm (sivaram98 §5.2.1): routed to `drop.switch` like a
    /// unicast, replicated there to the endpoint ports of its p-bit string.
    Ssr { drop: Drop },
    /// A multi-drop path-based worm (sivaram98 §5.2.2–5.2.3): visits the drop switches in order,
    /// each leg routed by the base routing from where the previous one arrived, and leaves a copy
    /// at every port of each drop's bit string. Switches without destinations are not listed.
    Multidrop { drops: Vec<Drop> },
    /// A path-based multidestination worm addressed by its destinations in path order (oral §3,
    /// torus path worms): each router on the way that is a destination keeps a copy.
    Path { dests: Vec<EndpointId> },
    /// A tree-based worm with an N-bit destination string and an up-down bit (sivaram98 §5.3),
    /// decoded with the reachability strings of the plan's switch state.
    Bitstring { dests: Vec<EndpointId> },
    /// An InfiniBand hardware multicast to a multicast LID, replicated by the switches' MFTs
    /// (zhou07 §3.3), which the plan's switch state holds.
    Mft { mlid: u32 },
    /// A Quadrics hardware multicast to the contiguous endpoints `lo..=hi` of a k-ary n-tree
    /// (coll03 §3): it climbs to the range's root switch and is replicated down the broadcast tree
    /// only (see `walk/range.rs`).
    Range { lo: EndpointId, hi: EndpointId },
}

impl Carrier {
    /// Short name of the carrier kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Carrier::Unicast { .. } => "unicast",
            Carrier::Ssr { .. } => "ssr",
            Carrier::Multidrop { .. } => "multidrop",
            Carrier::Path { .. } => "path",
            Carrier::Bitstring { .. } => "bitstring",
            Carrier::Mft { .. } => "mft",
            Carrier::Range { .. } => "range",
        }
    }

    /// A multidestination worm (as opposed to a unicast or a hardware table multicast).
    pub fn is_worm(&self) -> bool {
        matches!(
            self,
            Carrier::Ssr { .. } | Carrier::Multidrop { .. } | Carrier::Path { .. } | Carrier::Bitstring { .. }
        )
    }

    /// Every endpoint or switch the header names, for validation.
    pub fn named_endpoints(&self) -> Vec<EndpointId> {
        match self {
            Carrier::Unicast { dst } => vec![*dst],
            Carrier::Path { dests } | Carrier::Bitstring { dests } => dests.clone(),
            Carrier::Range { lo, hi } => vec![*lo, *hi],
            Carrier::Ssr { .. } | Carrier::Multidrop { .. } | Carrier::Mft { .. } => Vec::new(),
        }
    }
    pub fn named_switches(&self) -> Vec<SwitchId> {
        match self {
            Carrier::Ssr { drop } => vec![drop.switch],
            Carrier::Multidrop { drops } => drops.iter().map(|d| d.switch).collect(),
            _ => Vec::new(),
        }
    }
}

/// The header bits of a switch-addressed worm as sivaram98 Fig. 12 draws them: per drop, a 1-bit
/// multidestination tag, the switch id in `id_bits` bits, then a `p`-bit port string whose bit
/// `i` (1-based port `i`, leftmost first) is set when port `i` leads to a destination.
pub fn drop_header_bits(drops: &[Drop], id_bits: u32, p: u16) -> String {
    let mut s = String::new();
    for d in drops {
        s.push('1');
        s.push_str(&format!("{:0w$b}", d.switch.0, w = id_bits as usize));
        for port in 1..=p {
            s.push(if d.ports.iter().any(|x| x.0 == port) { '1' } else { '0' });
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bits_follow_fig12_layout() {
        // An SSR worm to switch 5 of an 8-port switch, replicating to ports 1 and 2.
        let d = Drop { switch: SwitchId(5), ports: vec![PortNum(1), PortNum(2)] };
        assert_eq!(drop_header_bits(std::slice::from_ref(&d), 4, 8), "1010111000000");
        // Two drops concatenate.
        let e = Drop { switch: SwitchId(3), ports: vec![PortNum(8)] };
        assert_eq!(drop_header_bits(&[d, e], 4, 8), "1010111000000".to_string() + "1001100000001");
    }

    #[test]
    fn carriers_round_trip_through_json() {
        let cs = vec![
            Carrier::Unicast { dst: EndpointId(3) },
            Carrier::Multidrop { drops: vec![Drop { switch: SwitchId(1), ports: vec![PortNum(2)] }] },
            Carrier::Bitstring { dests: vec![EndpointId(1), EndpointId(4)] },
            Carrier::Mft { mlid: 0xc000 },
            Carrier::Range { lo: EndpointId(3), hi: EndpointId(7) },
        ];
        for c in cs {
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Carrier>(&j).unwrap(), c, "{j}");
        }
        assert!(serde_json::from_str::<Carrier>(r#"{"kind":"warp","dst":1}"#).is_err());
    }
}
