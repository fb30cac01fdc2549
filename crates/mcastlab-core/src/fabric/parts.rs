//! The parts a fabric is made of, as the JSON schema spells them: switches, endpoints, links between
//! terminals, and the InfiniBand identity of imported nodes; plus the channels (one direction of a
//! link) and what lies behind a switch port, which the queries hand out.

use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};

/// Largest unicast LID (IBA: LIDs are 16-bit; 0xC000..=0xFFFE are multicast LIDs, 0xFFFF is the
/// permissive LID). LID 0 means "not assigned yet" (a subnet without an SM) and is accepted.
pub const MAX_UNICAST_LID: u32 = 0xBFFF;
/// Largest LMC (IBA: a 3-bit field, so a port owns at most 2^7 LIDs).
pub const MAX_LMC: u8 = 7;

/// Why a LID or LMC is out of range, or None when it is valid: the one range check the
/// ibnetdiscover reader (naming file and line) and [`crate::fabric::Fabric::new`] (naming the
/// node, for JSON fabrics) share.
pub fn lid_lmc_problem(lid: Option<u64>, lmc: Option<u64>) -> Option<String> {
    if let Some(l) = lid.filter(|l| *l > MAX_UNICAST_LID as u64) {
        return Some(format!(
            "LID {l} is outside the unicast range 1..={MAX_UNICAST_LID} (0x{MAX_UNICAST_LID:X}; 0 = not assigned)"
        ));
    }
    if let Some(m) = lmc.filter(|m| *m > MAX_LMC as u64) {
        return Some(format!("LMC {m} is outside 0..={MAX_LMC} (a 3-bit field)"));
    }
    if let (Some(l), Some(m)) = (lid.filter(|l| *l > 0), lmc) {
        let last = l + (1u64 << m) - 1;
        if last > MAX_UNICAST_LID as u64 {
            return Some(format!(
                "LID {l} with LMC {m} owns LIDs up to {last}, past the last unicast LID {MAX_UNICAST_LID}"
            ));
        }
    }
    None
}

/// InfiniBand identity of a node (switch or CA port), kept so that an imported fabric exports
/// back to ibnetdiscover format and can be addressed by GUID or description.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbInfo {
    /// Node GUID (switch GUID or CA GUID), lowercase hex without `0x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_guid: Option<String>,
    /// Port GUID (CA port, or switch port 0), lowercase hex without `0x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_guid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sysimg_guid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devid: Option<String>,
    /// Node description (the quoted text after `#`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    /// Base LID (CA port) or port-0 LID (switch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lmc: Option<u8>,
    /// CA: number of ports of the CA node; this endpoint is port `ca_port` of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_ports: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_port: Option<u16>,
    /// Switch: "base" or "enhanced" port 0; CA: "Ca" or "Rt".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// A switch with `ports` ports numbered `1..=ports`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Switch {
    /// Unique name (generator label such as `SW<00,2>`, or the ibnetdiscover id `S-<guid>`).
    pub name: String,
    pub ports: u16,
    /// Tree level as the generator defines it (zhou07: 0 = top; coll03: 0 = leaves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// Coordinates in a torus, mesh or hypercube (dimension 0 first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbInfo>,
}

/// An endpoint: one host with its network interface, attached to one switch port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// Unique name (`P(200)`, `(1,2)`, `e5`, or `H-<guid>` / `H-<guid>/<port>` when imported).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbInfo>,
}

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Terminal {
    Switch { switch: SwitchId, port: PortNum },
    Endpoint { endpoint: EndpointId },
}

impl Terminal {
    pub fn switch(s: u32, p: u16) -> Self {
        Terminal::Switch { switch: SwitchId(s), port: PortNum(p) }
    }
    pub fn endpoint(e: u32) -> Self {
        Terminal::Endpoint { endpoint: EndpointId(e) }
    }
}

/// A cable between two terminals. Full duplex unless `directed`, in which case data flows only
/// from `a` to `b` (unidirectional SCI ringlets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub a: Terminal,
    pub b: Terminal,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directed: bool,
    /// InfiniBand link width (`4x`) and speed (`QDR`) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<String>,
}

impl Link {
    pub fn new(a: Terminal, b: Terminal) -> Self {
        Link { a, b, directed: false, width: None, speed: None }
    }
}

/// A unidirectional channel: link `l` traversed a→b (`dir == 0`) or b→a (`dir == 1`), dense
/// index `2·l + dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Channel(pub u32);

impl Channel {
    pub fn new(link: LinkId, dir: u8) -> Self {
        Channel(link.0 * 2 + dir as u32)
    }
    pub fn link(self) -> LinkId {
        LinkId(self.0 / 2)
    }
    pub fn dir(self) -> u8 {
        (self.0 % 2) as u8
    }
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// What lies behind a switch port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortPeer {
    pub link: LinkId,
    /// The terminal at the far end.
    pub peer: Terminal,
    /// Channel leaving this switch through the port (None if the link is directed inwards).
    pub out: Option<Channel>,
    /// Channel entering this switch through the port (None if the link is directed outwards).
    pub inc: Option<Channel>,
}
