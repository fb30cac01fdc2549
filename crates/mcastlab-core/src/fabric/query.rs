//! Structure queries of a built fabric: its parts and counts, switch ports and what lies behind
//! them, attachments, channels and inter-switch neighbours.

use super::{Channel, Endpoint, Fabric, FabricData, Link, PortPeer, Switch, Terminal, Topology};
use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};

impl Fabric {
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
}
