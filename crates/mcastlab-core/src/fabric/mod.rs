//! The fabric: switches with numbered ports, endpoints (host + NI) and the links between ports.
//!
//! A [`Fabric`] is immutable once built and always valid: every link joins existing ports, no port
//! carries two links, every endpoint is attached to exactly one switch port, and every endpoint can
//! reach every other one. Builders (generators, importers, the JSON loader) go through
//! [`Fabric::new`], which checks all of that and builds the lookup indexes.

pub mod generators;
pub mod spec;
pub mod topology;

use crate::error::FabricError;
use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
pub use topology::Topology;

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

/// The serialized form of a fabric (JSON schema `mcastlab-fabric` version 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricData {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub topology: Topology,
    pub switches: Vec<Switch>,
    pub endpoints: Vec<Endpoint>,
    pub links: Vec<Link>,
}

/// Schema name written in every JSON fabric.
pub const FORMAT_NAME: &str = "mcastlab-fabric";
/// Current schema version; see docs/formats.md.
pub const FORMAT_VERSION: u32 = 1;

/// A validated fabric with lookup indexes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "FabricData", into = "FabricData")]
pub struct Fabric {
    data: FabricData,
    /// `port_base[s] + (p - 1)` indexes `port_link` for switch s, port p.
    port_base: Vec<u32>,
    port_link: Vec<Option<LinkId>>,
    /// Switch and port each endpoint is attached to.
    attach: Vec<(SwitchId, PortNum)>,
    /// Endpoints attached to each switch, in port order.
    at_switch: Vec<Vec<EndpointId>>,
    name_to_endpoint: BTreeMap<String, EndpointId>,
    name_to_switch: BTreeMap<String, SwitchId>,
}

impl PartialEq for Fabric {
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl TryFrom<FabricData> for Fabric {
    type Error = FabricError;
    fn try_from(d: FabricData) -> Result<Self, FabricError> {
        if d.format != FORMAT_NAME {
            return Err(FabricError::Invalid(format!("`format` is `{}`, expected `{FORMAT_NAME}`", d.format)));
        }
        if d.version != FORMAT_VERSION {
            return Err(FabricError::Invalid(format!(
                "schema version {} is not supported (this mcastlab reads version {FORMAT_VERSION})",
                d.version
            )));
        }
        Fabric::new(d.name, d.topology, d.switches, d.endpoints, d.links)
    }
}

impl From<Fabric> for FabricData {
    fn from(f: Fabric) -> Self {
        f.data
    }
}

fn term_str(t: &Terminal, sw: &[Switch], ep: &[Endpoint]) -> String {
    match *t {
        Terminal::Switch { switch, port } => match sw.get(switch.idx()) {
            Some(s) => format!("{}[{}]", s.name, port.0),
            None => format!("switch #{}[{}]", switch.0, port.0),
        },
        Terminal::Endpoint { endpoint } => match ep.get(endpoint.idx()) {
            Some(e) => e.name.clone(),
            None => format!("endpoint #{}", endpoint.0),
        },
    }
}

impl Fabric {
    /// Validates the parts and builds the indexes.
    pub fn new(
        name: String,
        topology: Topology,
        switches: Vec<Switch>,
        endpoints: Vec<Endpoint>,
        links: Vec<Link>,
    ) -> Result<Fabric, FabricError> {
        if switches.is_empty() {
            return Err(FabricError::Invalid("a fabric needs at least one switch".into()));
        }
        let mut port_base = Vec::with_capacity(switches.len());
        let mut total = 0u32;
        let mut name_to_switch = BTreeMap::new();
        for (i, s) in switches.iter().enumerate() {
            if s.ports == 0 {
                return Err(FabricError::Invalid(format!("switch {} has no ports", s.name)));
            }
            if name_to_switch.insert(s.name.clone(), SwitchId(i as u32)).is_some() {
                return Err(FabricError::Invalid(format!("duplicate switch name `{}`", s.name)));
            }
            port_base.push(total);
            total += s.ports as u32;
        }
        let mut name_to_endpoint = BTreeMap::new();
        for (i, e) in endpoints.iter().enumerate() {
            if name_to_endpoint.insert(e.name.clone(), EndpointId(i as u32)).is_some() {
                return Err(FabricError::Invalid(format!("duplicate endpoint name `{}`", e.name)));
            }
        }
        let mut port_link: Vec<Option<LinkId>> = vec![None; total as usize];
        let mut ep_link: Vec<Option<(LinkId, SwitchId, PortNum)>> = vec![None; endpoints.len()];
        for (li, l) in links.iter().enumerate() {
            let lid = LinkId(li as u32);
            let desc = || {
                format!(
                    "link {} ({} - {})",
                    li,
                    term_str(&l.a, &switches, &endpoints),
                    term_str(&l.b, &switches, &endpoints)
                )
            };
            for t in [&l.a, &l.b] {
                match *t {
                    Terminal::Switch { switch, port } => {
                        let s = switches.get(switch.idx()).ok_or_else(|| {
                            FabricError::Invalid(format!("{}: switch #{} does not exist", desc(), switch.0))
                        })?;
                        if port.0 == 0 || port.0 > s.ports {
                            return Err(FabricError::Port {
                                switch: s.name.clone(),
                                port: port.0,
                                message: format!("port beyond the switch's {} ports ({})", s.ports, desc()),
                            });
                        }
                        let slot = &mut port_link[(port_base[switch.idx()] + port.0 as u32 - 1) as usize];
                        if let Some(other) = slot {
                            return Err(FabricError::Port {
                                switch: s.name.clone(),
                                port: port.0,
                                message: format!("carries two links ({} and link {})", desc(), other.0),
                            });
                        }
                        *slot = Some(lid);
                    }
                    Terminal::Endpoint { endpoint } => {
                        if endpoint.idx() >= endpoints.len() {
                            return Err(FabricError::Invalid(format!(
                                "{}: endpoint #{} does not exist",
                                desc(),
                                endpoint.0
                            )));
                        }
                    }
                }
            }
            match (l.a, l.b) {
                (Terminal::Endpoint { .. }, Terminal::Endpoint { .. }) => {
                    return Err(FabricError::Invalid(format!(
                        "{}: endpoints must attach to switches, not to each other",
                        desc()
                    )))
                }
                (Terminal::Endpoint { endpoint }, Terminal::Switch { switch, port })
                | (Terminal::Switch { switch, port }, Terminal::Endpoint { endpoint }) => {
                    if l.directed {
                        return Err(FabricError::Invalid(format!("{}: endpoint links are full duplex", desc())));
                    }
                    if ep_link[endpoint.idx()].is_some() {
                        return Err(FabricError::Invalid(format!(
                            "endpoint {} is attached twice",
                            endpoints[endpoint.idx()].name
                        )));
                    }
                    ep_link[endpoint.idx()] = Some((lid, switch, port));
                }
                _ => {}
            }
        }
        let mut attach = Vec::with_capacity(endpoints.len());
        let mut at_switch = vec![Vec::new(); switches.len()];
        for (i, a) in ep_link.iter().enumerate() {
            match a {
                Some((_, s, p)) => {
                    attach.push((*s, *p));
                    at_switch[s.idx()].push((p.0, EndpointId(i as u32)));
                }
                None => {
                    return Err(FabricError::Invalid(format!(
                        "endpoint {} is not attached to any switch",
                        endpoints[i].name
                    )))
                }
            }
        }
        let at_switch = at_switch
            .into_iter()
            .map(|mut v: Vec<(u16, EndpointId)>| {
                v.sort();
                v.into_iter().map(|(_, e)| e).collect()
            })
            .collect();
        let f = Fabric {
            data: FabricData {
                format: FORMAT_NAME.into(),
                version: FORMAT_VERSION,
                name,
                topology,
                switches,
                endpoints,
                links,
            },
            port_base,
            port_link,
            attach,
            at_switch,
            name_to_endpoint,
            name_to_switch,
        };
        f.check_connected()?;
        Ok(f)
    }

    /// Every switch must be reachable from every other one along usable channels, so that every
    /// endpoint can reach every other endpoint.
    fn check_connected(&self) -> Result<(), FabricError> {
        let n = self.num_switches();
        for forward in [true, false] {
            let mut seen = vec![false; n];
            let mut stack = vec![SwitchId(0)];
            seen[0] = true;
            while let Some(s) = stack.pop() {
                for p in self.switch_ports(s) {
                    let Some(pp) = self.port(s, p) else { continue };
                    let usable = if forward { pp.out.is_some() } else { pp.inc.is_some() };
                    if let (true, Terminal::Switch { switch: t, .. }) = (usable, pp.peer) {
                        if !seen[t.idx()] {
                            seen[t.idx()] = true;
                            stack.push(t);
                        }
                    }
                }
            }
            if let Some(bad) = seen.iter().position(|x| !x) {
                let reached = seen.iter().filter(|x| **x).count();
                return Err(FabricError::Disconnected {
                    message: format!(
                        "switch {} cannot {} switch {} ({} of {} switches reachable)",
                        self.switch(SwitchId(bad as u32)).name,
                        if forward { "be reached from" } else { "reach" },
                        self.switch(SwitchId(0)).name,
                        reached,
                        n
                    ),
                });
            }
        }
        Ok(())
    }

    pub fn data(&self) -> &FabricData {
        &self.data
    }
    pub fn name(&self) -> &str {
        &self.data.name
    }
    pub fn topology(&self) -> &Topology {
        &self.data.topology
    }
    pub fn switches(&self) -> &[Switch] {
        &self.data.switches
    }
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.data.endpoints
    }
    pub fn links(&self) -> &[Link] {
        &self.data.links
    }
    pub fn num_switches(&self) -> usize {
        self.data.switches.len()
    }
    pub fn num_endpoints(&self) -> usize {
        self.data.endpoints.len()
    }
    pub fn num_links(&self) -> usize {
        self.data.links.len()
    }
    pub fn switch(&self, s: SwitchId) -> &Switch {
        &self.data.switches[s.idx()]
    }
    pub fn endpoint(&self, e: EndpointId) -> &Endpoint {
        &self.data.endpoints[e.idx()]
    }
    pub fn link(&self, l: LinkId) -> &Link {
        &self.data.links[l.idx()]
    }
    pub fn switch_ids(&self) -> impl Iterator<Item = SwitchId> + '_ {
        (0..self.num_switches() as u32).map(SwitchId)
    }
    pub fn endpoint_ids(&self) -> impl Iterator<Item = EndpointId> + '_ {
        (0..self.num_endpoints() as u32).map(EndpointId)
    }
    /// Port numbers `1..=ports` of a switch.
    pub fn switch_ports(&self, s: SwitchId) -> impl Iterator<Item = PortNum> {
        (1..=self.switch(s).ports).map(PortNum)
    }
    /// Number of channels (two per link; directed links use only the a→b one).
    pub fn num_channels(&self) -> usize {
        self.data.links.len() * 2
    }

    /// Switch and port an endpoint is attached to.
    #[inline]
    pub fn attachment(&self, e: EndpointId) -> (SwitchId, PortNum) {
        self.attach[e.idx()]
    }
    /// Endpoints attached to a switch, in port order.
    pub fn endpoints_at(&self, s: SwitchId) -> &[EndpointId] {
        &self.at_switch[s.idx()]
    }
    /// The link on a switch port, if any.
    #[inline]
    pub fn link_at(&self, s: SwitchId, p: PortNum) -> Option<LinkId> {
        if p.0 == 0 || p.0 > self.switch(s).ports {
            return None;
        }
        self.port_link[(self.port_base[s.idx()] + p.0 as u32 - 1) as usize]
    }
    /// What lies behind a switch port (None if the port is unconnected or out of range).
    #[inline]
    pub fn port(&self, s: SwitchId, p: PortNum) -> Option<PortPeer> {
        let link = self.link_at(s, p)?;
        let l = self.link(link);
        let here = Terminal::Switch { switch: s, port: p };
        // A self-loop cable joins two ports of one switch; `a` identifies the side.
        let at_a = l.a == here;
        let peer = if at_a { l.b } else { l.a };
        let (out, inc) = if at_a {
            (Some(Channel::new(link, 0)), (!l.directed).then(|| Channel::new(link, 1)))
        } else {
            ((!l.directed).then(|| Channel::new(link, 1)), Some(Channel::new(link, 0)))
        };
        Some(PortPeer { link, peer, out, inc })
    }
    /// Source and sink terminals of a channel.
    pub fn channel_ends(&self, c: Channel) -> (Terminal, Terminal) {
        let l = self.link(c.link());
        if c.dir() == 0 {
            (l.a, l.b)
        } else {
            (l.b, l.a)
        }
    }
    /// Human-readable channel: `SW<00,2>[3] -> SW<00,1>[1]`.
    pub fn channel_str(&self, c: Channel) -> String {
        let (a, b) = self.channel_ends(c);
        format!("{} -> {}", self.terminal_str(&a), self.terminal_str(&b))
    }
    pub fn terminal_str(&self, t: &Terminal) -> String {
        term_str(t, &self.data.switches, &self.data.endpoints)
    }
    /// Inter-switch neighbours of a switch: (port, peer switch, peer port, link), self-loops excluded.
    pub fn switch_neighbors(&self, s: SwitchId) -> Vec<(PortNum, SwitchId, PortNum, LinkId)> {
        let mut v = Vec::new();
        for p in self.switch_ports(s) {
            if let Some(pp) = self.port(s, p) {
                if let Terminal::Switch { switch: t, port: q } = pp.peer {
                    if t != s {
                        v.push((p, t, q, pp.link));
                    }
                }
            }
        }
        v
    }

    pub fn endpoint_by_name(&self, name: &str) -> Option<EndpointId> {
        self.name_to_endpoint.get(name).copied()
    }
    pub fn switch_by_name(&self, name: &str) -> Option<SwitchId> {
        self.name_to_switch.get(name).copied()
    }

    /// Resolves a user's endpoint reference: an index `0..N-1`, a name (`P(200)`, `e5`,
    /// `H-<guid>`), a GUID (`0x...`, node or port GUID), or a unique ibnetdiscover description.
    pub fn find_endpoint(&self, key: &str) -> Result<EndpointId, FabricError> {
        let key = key.trim();
        if let Ok(i) = key.parse::<u32>() {
            if (i as usize) < self.num_endpoints() {
                return Ok(EndpointId(i));
            }
            return Err(FabricError::UnknownEndpoint(format!(
                "{key} (index out of range 0..{})",
                self.num_endpoints()
            )));
        }
        if let Some(e) = self.endpoint_by_name(key) {
            return Ok(e);
        }
        let guid = key.trim_start_matches("0x").trim_start_matches("0X").to_ascii_lowercase();
        let guid = guid.trim_start_matches('0');
        let mut hits: Vec<EndpointId> = Vec::new();
        for (i, e) in self.data.endpoints.iter().enumerate() {
            if let Some(ib) = &e.ib {
                let m = |g: &Option<String>| g.as_deref().map(|g| g.trim_start_matches('0') == guid).unwrap_or(false);
                if (!guid.is_empty() && (m(&ib.port_guid) || m(&ib.node_guid))) || ib.desc.as_deref() == Some(key) {
                    hits.push(EndpointId(i as u32));
                }
            }
        }
        match hits.len() {
            1 => Ok(hits[0]),
            0 => Err(FabricError::UnknownEndpoint(key.to_string())),
            n => Err(FabricError::UnknownEndpoint(format!(
                "{key} (ambiguous: {n} endpoints match, e.g. {} and {})",
                self.endpoint(hits[0]).name,
                self.endpoint(hits[1]).name
            ))),
        }
    }

    /// Resolves a switch reference: an index, a name or a GUID.
    pub fn find_switch(&self, key: &str) -> Result<SwitchId, FabricError> {
        let key = key.trim();
        if let Ok(i) = key.parse::<u32>() {
            if (i as usize) < self.num_switches() {
                return Ok(SwitchId(i));
            }
        }
        if let Some(s) = self.switch_by_name(key) {
            return Ok(s);
        }
        let guid = key.trim_start_matches("0x").to_ascii_lowercase();
        let guid = guid.trim_start_matches('0');
        let mut by_desc = Vec::new();
        for (i, s) in self.data.switches.iter().enumerate() {
            if let Some(ib) = &s.ib {
                if let Some(g) = ib.node_guid.as_deref() {
                    if !guid.is_empty() && g.trim_start_matches('0') == guid {
                        return Ok(SwitchId(i as u32));
                    }
                }
                if ib.desc.as_deref() == Some(key) {
                    by_desc.push(SwitchId(i as u32));
                }
            }
        }
        match by_desc.len() {
            1 => Ok(by_desc[0]),
            0 => Err(FabricError::UnknownSwitch(key.to_string())),
            n => Err(FabricError::UnknownSwitch(format!("{key} (ambiguous: {n} switches have this description)"))),
        }
    }
}
