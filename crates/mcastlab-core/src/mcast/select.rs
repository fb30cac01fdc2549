//! Member selectors: what a groups file, `saquery -m` or a Python list may name as a member of
//! a multicast group, resolved to a [`Member`] (a CA port or a switch's port 0).
//!
//! Accepted forms (docs/formats.md, "Multicast groups"):
//! * `lid:33` — the port whose base LID (or LID range under LMC) holds 33; a switch's LID is its
//!   port 0. LIDs are the fabric's LID plan ([`lid_plan`]): the imported ones, else the dense
//!   numbering the LFT and MFT dumps use.
//! * `index:7` — endpoint index 7.
//! * `fe80::2:c903:0:1491` — a GID; its low 64 bits (the interface id) are the port GUID.
//! * `0x0002c90300080e85` — a port GUID, or the node GUID of a single-port CA, or a switch's node
//!   GUID (= its port-0 GUID), which means the switch itself.
//! * `switch:NAME` or a switch name — the switch's port 0.
//! * an endpoint name (`H-...`, `e5`, `P(3)`) or a unique ibnetdiscover description.
//!
//! A plain number is refused: on an InfiniBand fabric it could be a LID or an index, and taking
//! the wrong one silently programs the wrong port.

use crate::fabric::Fabric;
use crate::ids::{EndpointId, SwitchId};
use crate::io::lids::{lid_plan, LidOwner};
use std::collections::HashMap;

/// One member port of a multicast group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Member {
    /// A CA (or router) port: one endpoint.
    Port(EndpointId),
    /// A switch's port 0 (enhanced switch port 0 joined the group, e.g. an in-switch agent).
    Switch(SwitchId),
}

/// Lookup tables from LIDs and GUIDs to members, built once per fabric.
pub struct Selector<'f> {
    fabric: &'f Fabric,
    /// (first LID, last LID) → member, sorted by first LID, from the fabric's LID plan.
    lids: Vec<(u32, u32, Member)>,
    /// Port GUID (CA port) or node GUID (switch) → member.
    port_guids: HashMap<u64, Member>,
    /// CA node GUID → its ports.
    node_guids: HashMap<u64, Vec<EndpointId>>,
}

fn hex(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    if t.is_empty() || t.len() > 16 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(t, 16).ok()
}

/// Reads a LID: decimal, or hexadecimal with `0x`.
pub fn parse_lid(s: &str) -> Option<u32> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

/// The interface id (low 64 bits) of a textual IPv6 GID such as `fe80::2:c903:0:1491`; None if
/// the text is not an IPv6 address.
pub fn gid_interface_id(s: &str) -> Option<u64> {
    let a: std::net::Ipv6Addr = s.trim().parse().ok()?;
    Some((u128::from(a) & u128::from(u64::MAX)) as u64)
}

impl<'f> Selector<'f> {
    pub fn new(f: &'f Fabric) -> Selector<'f> {
        let lids = lid_plan(f)
            .ranges()
            .into_iter()
            .map(|(lo, hi, o)| {
                let m = match o {
                    LidOwner::Endpoint(e) => Member::Port(e),
                    LidOwner::Switch(s) => Member::Switch(s),
                };
                (lo, hi, m)
            })
            .collect();
        let mut port_guids = HashMap::new();
        let mut node_guids: HashMap<u64, Vec<EndpointId>> = HashMap::new();
        for e in f.endpoint_ids() {
            let Some(ib) = &f.endpoint(e).ib else { continue };
            if let Some(g) = ib.port_guid.as_deref().and_then(hex) {
                port_guids.insert(g, Member::Port(e));
            }
            if let Some(g) = ib.node_guid.as_deref().and_then(hex) {
                node_guids.entry(g).or_default().push(e);
            }
        }
        let guids = crate::io::mft_dump::switch_guids(f);
        for s in f.switch_ids() {
            port_guids.insert(guids[s.idx()], Member::Switch(s));
        }
        Selector { fabric: f, lids, port_guids, node_guids }
    }

    /// The member `key` names (see the module doc); the error says why nothing or several match.
    pub fn resolve(&self, key: &str) -> Result<Member, String> {
        let f = self.fabric;
        let key = key.trim();
        if key.is_empty() {
            return Err("empty member".into());
        }
        if let Some(l) = key.strip_prefix("lid:") {
            let lid = parse_lid(l).ok_or_else(|| format!("`{key}`: `{l}` is not a LID"))?;
            let i = self.lids.partition_point(|(_, hi, _)| *hi < lid);
            return match self.lids.get(i) {
                Some((lo, _, m)) if *lo <= lid => self.switch_ok(*m, key),
                _ => Err(format!("`{key}`: no port has LID {lid}")),
            };
        }
        if let Some(i) = key.strip_prefix("index:") {
            let n: u32 = i.trim().parse().map_err(|_| format!("`{key}`: `{i}` is not an index"))?;
            if (n as usize) < f.num_endpoints() {
                return Ok(Member::Port(EndpointId(n)));
            }
            return Err(format!("`{key}`: {}", f.endpoint_index_range()));
        }
        if let Some(name) = key.strip_prefix("switch:") {
            let s = f.find_switch(name).map_err(|e| format!("`{key}`: {e}"))?;
            return self.switch_ok(Member::Switch(s), key);
        }
        if key.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "`{key}` is ambiguous: write lid:{key} for a LID or index:{key} for an endpoint index"
            ));
        }
        if key.contains("::") || key.matches(':').count() >= 2 {
            let g = gid_interface_id(key).ok_or_else(|| format!("`{key}` is not a GID"))?;
            return match self.port_guids.get(&g) {
                Some(m) => self.switch_ok(*m, key),
                None => Err(format!("`{key}`: no port has GUID 0x{g:016x} (the GID's interface id)")),
            };
        }
        if let Some(e) = f.endpoint_by_name(key) {
            return Ok(Member::Port(e));
        }
        if let Some(s) = f.switch_by_name(key) {
            return self.switch_ok(Member::Switch(s), key);
        }
        if key.starts_with("0x") || key.starts_with("0X") || (key.len() == 16 && hex(key).is_some()) {
            let g = hex(key).ok_or_else(|| format!("`{key}` is not a GUID"))?;
            if let Some(m) = self.port_guids.get(&g) {
                return self.switch_ok(*m, key);
            }
            return match self.node_guids.get(&g).map(Vec::as_slice) {
                Some([e]) => Ok(Member::Port(*e)),
                Some(ports) => Err(format!(
                    "`{key}` is the node GUID of a CA with {} cabled ports: name one port GUID",
                    ports.len()
                )),
                None => Err(format!("`{key}`: no port or node has this GUID")),
            };
        }
        f.find_endpoint(key).map(Member::Port).map_err(|e| e.to_string())
    }

    /// A switch can join only through an enhanced port 0; a base port 0 has no multicast
    /// membership (it handles only management packets).
    fn switch_ok(&self, m: Member, key: &str) -> Result<Member, String> {
        if let Member::Switch(s) = m {
            let sw = self.fabric.switch(s);
            if sw.ib.as_ref().and_then(|ib| ib.kind.as_deref()) == Some("base") {
                return Err(format!(
                    "`{key}` names switch {} whose port 0 is a base port 0: it cannot be a multicast member",
                    sw.name
                ));
            }
        }
        Ok(m)
    }
}

/// A member's name for reports: the endpoint name, or `switch:NAME`.
pub fn member_name(f: &Fabric, m: Member) -> String {
    match m {
        Member::Port(e) => f.endpoint(e).name.clone(),
        Member::Switch(s) => format!("switch:{}", f.switch(s).name),
    }
}
