//! Construction: [`Fabric::new`], the only door to a fabric, checks the parts and builds the lookup
//! indexes, then that the switches are mutually reachable.

use super::display::term_str;
use super::{Endpoint, Fabric, FabricData, Link, Switch, Terminal, Topology, FORMAT_NAME, FORMAT_VERSION};
use crate::error::FabricError;
use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};
use std::collections::BTreeMap;

/// Why an endpoint name would be read as something else wherever endpoints are looked up
/// ([`Fabric::find_endpoint`]), or `None`: a number (or `index:N`) is an index, `lid:...` and
/// `...::...` are LID selectors, and surrounding spaces are dropped.
fn shadowed_endpoint_name(name: &str) -> Option<&'static str> {
    let key = name.trim();
    if key != name {
        Some("loses its surrounding spaces in a lookup")
    } else if key.strip_prefix("index:").unwrap_or(key).parse::<u32>().is_ok() {
        Some("reads as an endpoint index")
    } else if key.starts_with("lid:") || key.contains("::") {
        Some("reads as a LID selector (`lid:N`, `switch::port`)")
    } else {
        None
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
        // A file's few bytes can declare 65,535 ports per switch: refuse before the per-port
        // tables are allocated (and before their u32 offsets could overflow).
        let size = super::limits::Size {
            switches: switches.len() as u64,
            endpoints: endpoints.len() as u64,
            links: links.len() as u64,
            switch_ports: switches.iter().map(|s| s.ports as u64).sum(),
        };
        size.check(&name)?;
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
        let ib_nodes = switches
            .iter()
            .map(|s| ("switch", &s.name, &s.ib))
            .chain(endpoints.iter().map(|e| ("endpoint", &e.name, &e.ib)));
        // Each node's LIDs (its base LID and, with an LMC, the 2^LMC after it): a LID two nodes
        // claim would send one's unicast traffic to the other, and an LFT would list it twice.
        let mut owned: Vec<(u32, u32, &str, &String)> = Vec::new();
        for (kind, name, ib) in ib_nodes {
            let Some(ib) = ib else { continue };
            if let Some(why) = super::lid_lmc_problem(ib.lid.map(u64::from), ib.lmc.map(u64::from)) {
                return Err(FabricError::Invalid(format!("{kind} `{name}`: {why}")));
            }
            if let Some(lid) = ib.lid.filter(|&l| l > 0) {
                owned.push((lid, lid + (1u32 << ib.lmc.unwrap_or(0)) - 1, kind, name));
            }
        }
        owned.sort_unstable();
        if let Some(w) = owned.windows(2).find(|w| w[1].0 <= w[0].1) {
            let ((_, _, k0, n0), (lid, _, k1, n1)) = (w[0], w[1]);
            return Err(FabricError::Invalid(format!(
                "LID {lid} (0x{lid:04x}) belongs to both {k0} `{n0}` and {k1} `{n1}`: a LID names one port"
            )));
        }
        let mut name_to_endpoint = BTreeMap::new();
        for (i, e) in endpoints.iter().enumerate() {
            if let Some(why) = shadowed_endpoint_name(&e.name) {
                return Err(FabricError::Invalid(format!(
                    "endpoint #{i} is named `{}`, which {why}, so the name could never select it: rename it",
                    e.name
                )));
            }
            if name_to_endpoint.insert(e.name.clone(), EndpointId(i as u32)).is_some() {
                return Err(FabricError::Invalid(format!("duplicate endpoint name `{}`", e.name)));
            }
        }
        let mut port_link: Vec<Option<LinkId>> = vec![None; total as usize];
        let mut ep_link: Vec<Option<(LinkId, SwitchId, PortNum)>> = vec![None; endpoints.len()];
        for (li, l) in links.iter().enumerate() {
            let lid = LinkId(li as u32);
            if let Some(why) = l.width_speed_problem() {
                return Err(FabricError::Invalid(format!(
                    "link {li} ({} - {}): {why}",
                    term_str(&l.a, &switches, &endpoints),
                    term_str(&l.b, &switches, &endpoints)
                )));
            }
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
}
