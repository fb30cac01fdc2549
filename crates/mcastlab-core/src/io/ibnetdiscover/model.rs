//! The records a parse produces (nodes and port lines, in file order, with their lines) and how
//! they become a [`Fabric`]: ids and GUIDs unique, every port line resolved against its peer, both
//! ends of every link naming each other, then switches, endpoints (one per cabled CA or router
//! port) and links in file order.

use super::perr;
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, IbInfo, Link, Switch, Terminal, Topology};
use crate::ids::{EndpointId, PortNum, SwitchId};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeType {
    Switch,
    Ca,
    Rt,
}

impl NodeType {
    pub(super) fn name(self) -> &'static str {
        match self {
            NodeType::Switch => "Switch",
            NodeType::Ca => "Ca",
            NodeType::Rt => "Rt",
        }
    }
    pub(super) fn from_word(w: &str) -> Option<NodeType> {
        match w {
            "Switch" => Some(NodeType::Switch),
            "Ca" | "Hca" => Some(NodeType::Ca),
            "Rt" => Some(NodeType::Rt),
            _ => None,
        }
    }
}

/// One header value with the line it came from.
pub(super) type Lined<T> = Option<(T, usize)>;
/// A node port: (index of the node in file order, port number).
type NodePort = (usize, u16);

/// A node record: its node line with the header lines before it.
pub(super) struct Node {
    pub(super) ty: NodeType,
    pub(super) nports: u16,
    pub(super) id: String,
    pub(super) line: usize,
    pub(super) desc: Option<String>,
    pub(super) vendid: Option<String>,
    pub(super) devid: Option<String>,
    pub(super) sysimg: Option<String>,
    /// Node GUID and the line that gave it (header, or the node line when derived from the id).
    pub(super) guid: Lined<String>,
    pub(super) port0_guid: Option<String>,
    pub(super) lid: Option<u32>,
    pub(super) lmc: Option<u8>,
    /// `base` / `enhanced` (switch port 0).
    pub(super) esp0: Option<String>,
}

/// One port line of a node record (`node` indexes the nodes in file order).
pub(super) struct PortLine {
    pub(super) line: usize,
    pub(super) node: usize,
    pub(super) port: u16,
    pub(super) own_guid: Option<String>,
    pub(super) peer_id: String,
    pub(super) peer_port: u16,
    pub(super) peer_guid: Option<String>,
    pub(super) lid: Option<u32>,
    pub(super) lmc: Option<u8>,
    pub(super) width: Option<String>,
    pub(super) speed: Option<String>,
}

/// GUID bookkeeping: every node GUID, switch port-0 GUID and CA port GUID belongs to one node.
struct Guids<'a> {
    file: &'a str,
    owner: BTreeMap<String, (usize, usize)>,
    port: BTreeMap<NodePort, (String, usize)>,
}

impl Guids<'_> {
    fn claim(&mut self, nodes: &[Node], g: &str, node: usize, line: usize) -> Result<(), FabricError> {
        match self.owner.get(g) {
            Some(&(o, ol)) if o != node => Err(perr(
                self.file,
                line,
                format!(
                    "duplicate GUID 0x{g}: also used by \"{}\" (line {ol})",
                    nodes.get(o).map(|n| n.id.as_str()).unwrap_or("?")
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.owner.insert(g.to_string(), (node, line));
                Ok(())
            }
        }
    }
    fn set_port(&mut self, nodes: &[Node], node: usize, port: u16, g: &str, line: usize) -> Result<(), FabricError> {
        if let Some((old, ol)) = self.port.get(&(node, port)) {
            if old != g {
                let id = nodes.get(node).map(|n| n.id.as_str()).unwrap_or("?");
                return Err(perr(
                    self.file,
                    line,
                    format!("port GUID of \"{id}\"[{port}] is 0x{g} here but 0x{old} at line {ol}"),
                ));
            }
            return Ok(());
        }
        self.claim(nodes, g, node, line)?;
        self.port.insert((node, port), (g.to_string(), line));
        Ok(())
    }
}

/// Cross-references the records and builds the fabric.
pub(super) fn build(nodes: Vec<Node>, ports: Vec<PortLine>, file: &str) -> Result<(Fabric, Vec<String>), FabricError> {
    if !nodes.iter().any(|n| n.ty == NodeType::Switch) {
        return Err(FabricError::File {
            file: file.to_string(),
            message: "no Switch record found (empty file, or not ibnetdiscover/ibsim output)".into(),
        });
    }
    let node_at = |i: usize| nodes.get(i).ok_or_else(|| FabricError::Invalid(format!("internal: node #{i}")));

    // Unique ids and GUIDs, in file order.
    let mut by_id: BTreeMap<&str, usize> = BTreeMap::new();
    let mut guids = Guids { file, owner: BTreeMap::new(), port: BTreeMap::new() };
    for (i, n) in nodes.iter().enumerate() {
        if let Some(&j) = by_id.get(n.id.as_str()) {
            let first = node_at(j)?.line;
            return Err(perr(file, n.line, format!("duplicate node id \"{}\" (first defined at line {first})", n.id)));
        }
        by_id.insert(&n.id, i);
        if let Some((g, gl)) = &n.guid {
            guids.claim(&nodes, g, i, *gl)?;
        }
        if let Some(g) = &n.port0_guid {
            guids.claim(&nodes, g, i, n.guid.as_ref().map(|x| x.1).unwrap_or(n.line))?;
        }
    }

    // Resolve every port line: ranges, peers, duplicates, GUIDs.
    let mut explicit: BTreeMap<NodePort, (NodePort, usize)> = BTreeMap::new();
    let mut peer_of: Vec<usize> = Vec::with_capacity(ports.len());
    for (k, pl) in ports.iter().enumerate() {
        let n = node_at(pl.node)?;
        if pl.port == 0 {
            return Err(perr(file, pl.line, "port [0] is the management port and carries no cable"));
        }
        if pl.port > n.nports {
            return Err(perr(
                file,
                pl.line,
                format!("port [{}] is beyond the {} ports \"{}\" declares (line {})", pl.port, n.nports, n.id, n.line),
            ));
        }
        let Some(&m) = by_id.get(pl.peer_id.as_str()) else {
            return Err(perr(
                file,
                pl.line,
                format!("link to nowhere: peer \"{}\" is not defined anywhere in the file", pl.peer_id),
            ));
        };
        let pn = node_at(m)?;
        if pl.peer_port == 0 || pl.peer_port > pn.nports {
            return Err(perr(
                file,
                pl.line,
                format!(
                    "peer port [{}] is beyond the {} ports \"{}\" declares (line {})",
                    pl.peer_port, pn.nports, pn.id, pn.line
                ),
            ));
        }
        if (pl.node, pl.port) == (m, pl.peer_port) {
            return Err(perr(file, pl.line, format!("port [{}] is cabled to itself", pl.port)));
        }
        if n.ty != NodeType::Switch && pn.ty != NodeType::Switch {
            return Err(perr(
                file,
                pl.line,
                format!("\"{}\" is cabled directly to \"{}\": endpoints must attach to switches", n.id, pn.id),
            ));
        }
        if let Some((_, prev)) = explicit.insert((pl.node, pl.port), ((m, pl.peer_port), k)) {
            let pline = ports.get(prev).map(|p| p.line).unwrap_or(0);
            return Err(perr(
                file,
                pl.line,
                format!("port [{}] of \"{}\" is listed twice (also at line {pline})", pl.port, n.id),
            ));
        }
        if n.ty != NodeType::Switch {
            if let Some(g) = &pl.own_guid {
                guids.set_port(&nodes, pl.node, pl.port, g, pl.line)?;
            }
        }
        if pn.ty != NodeType::Switch {
            if let Some(g) = &pl.peer_guid {
                guids.set_port(&nodes, m, pl.peer_port, g, pl.line)?;
            }
        }
        peer_of.push(m);
    }

    // Both ends must name each other.
    for (k, pl) in ports.iter().enumerate() {
        let n = node_at(pl.node)?;
        let m = peer_of.get(k).copied().unwrap_or(0);
        let pn = node_at(m)?;
        match explicit.get(&(m, pl.peer_port)) {
            Some(&(z, _)) if z == (pl.node, pl.port) => {}
            Some(&((z, zp), zk)) => {
                let zl = ports.get(zk).map(|p| p.line).unwrap_or(0);
                let zid = node_at(z).map(|x| x.id.as_str()).unwrap_or("?");
                return Err(perr(
                    file,
                    pl.line,
                    format!(
                        "link ends disagree: line {} says \"{}\"[{}] is cabled to \"{}\"[{}], but line {} says \
                         \"{}\"[{}] is cabled to \"{}\"[{}]",
                        pl.line, n.id, pl.port, pn.id, pl.peer_port, zl, pn.id, pl.peer_port, zid, zp
                    ),
                ));
            }
            None => {
                return Err(perr(
                    file,
                    pl.line,
                    format!(
                        "link \"{}\"[{}] - \"{}\"[{}] is listed from one end only: the record of \"{}\" (line {}) \
                         has no port line [{}] (ibnetdiscover lists every link from both ends; truncated file?)",
                        n.id, pl.port, pn.id, pl.peer_port, pn.id, pn.line, pl.peer_port
                    ),
                ));
            }
        }
    }

    // Switches in file order.
    let mut switch_of: BTreeMap<usize, SwitchId> = BTreeMap::new();
    let mut switches = Vec::new();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.ty == NodeType::Switch) {
        switch_of.insert(i, SwitchId(switches.len() as u32));
        switches.push(Switch {
            name: n.id.clone(),
            ports: n.nports,
            level: None,
            coords: None,
            ib: Some(IbInfo {
                node_guid: n.guid.as_ref().map(|g| g.0.clone()),
                port_guid: n.port0_guid.clone(),
                sysimg_guid: n.sysimg.clone(),
                vendid: n.vendid.clone(),
                devid: n.devid.clone(),
                desc: n.desc.clone(),
                lid: n.lid,
                lmc: n.lmc,
                ca_ports: None,
                ca_port: None,
                kind: n.esp0.clone(),
            }),
        });
    }

    // Endpoints: every cabled CA/router port, CAs in file order, ports ascending.
    let mut notes = Vec::new();
    let mut endpoint_of: BTreeMap<NodePort, EndpointId> = BTreeMap::new();
    let mut endpoints = Vec::new();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.ty != NodeType::Switch) {
        let cabled: Vec<(u16, usize)> =
            explicit.range((i, 0)..=(i, u16::MAX)).map(|(&(_, p), &(_, k))| (p, k)).collect();
        if cabled.is_empty() {
            notes.push(format!("{file}:{}: {} \"{}\" has no cabled port; skipped", n.line, n.ty.name(), n.id));
            continue;
        }
        for &(p, k) in &cabled {
            let pl = ports.get(k);
            let name = if cabled.len() == 1 { n.id.clone() } else { format!("{}/{p}", n.id) };
            endpoint_of.insert((i, p), EndpointId(endpoints.len() as u32));
            endpoints.push(Endpoint {
                name,
                ib: Some(IbInfo {
                    node_guid: n.guid.as_ref().map(|g| g.0.clone()),
                    port_guid: guids.port.get(&(i, p)).map(|g| g.0.clone()),
                    sysimg_guid: n.sysimg.clone(),
                    vendid: n.vendid.clone(),
                    devid: n.devid.clone(),
                    desc: n.desc.clone(),
                    lid: pl.and_then(|x| x.lid),
                    lmc: pl.and_then(|x| x.lmc),
                    ca_ports: Some(n.nports),
                    ca_port: Some(p),
                    kind: Some(n.ty.name().to_string()),
                }),
            });
        }
    }

    // ibnetdiscover always runs from a CA, so real output has one; a fabric without endpoints
    // is also useless to every later stage (and is what a file cut after its first switch is).
    if endpoints.is_empty() {
        return Err(FabricError::File {
            file: file.to_string(),
            message: "no endpoint: no CA or router port is cabled to a switch".into(),
        });
    }

    // Links, once each, in order of first mention; a switch end comes first.
    let term = |node: usize, port: u16| -> Option<Terminal> {
        if let Some(s) = switch_of.get(&node) {
            Some(Terminal::Switch { switch: *s, port: PortNum(port) })
        } else {
            endpoint_of.get(&(node, port)).map(|e| Terminal::Endpoint { endpoint: *e })
        }
    };
    let mut links: Vec<Link> = Vec::new();
    let mut link_of: BTreeMap<(NodePort, NodePort), usize> = BTreeMap::new();
    for (k, pl) in ports.iter().enumerate() {
        let x = (pl.node, pl.port);
        let y = (peer_of.get(k).copied().unwrap_or(0), pl.peer_port);
        let key = if x <= y { (x, y) } else { (y, x) };
        if let Some(&li) = link_of.get(&key) {
            if let Some(l) = links.get_mut(li) {
                if l.width.is_none() {
                    l.width = pl.width.clone();
                }
                if l.speed.is_none() {
                    l.speed = pl.speed.clone();
                }
            }
            continue;
        }
        let (Some(a), Some(b)) = (term(x.0, x.1), term(y.0, y.1)) else {
            return Err(perr(file, pl.line, "internal error: unresolved link end"));
        };
        let (a, b) = if matches!(a, Terminal::Endpoint { .. }) { (b, a) } else { (a, b) };
        link_of.insert(key, links.len());
        links.push(Link { a, b, directed: false, width: pl.width.clone(), speed: pl.speed.clone() });
    }

    let name = std::path::Path::new(file)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| file.to_string());
    let topo = Topology::Imported { format: "ibnetdiscover".into(), source: file.to_string() };
    let f = Fabric::new(name, topo, switches, endpoints, links).map_err(|e| match e {
        FabricError::Parse { .. } | FabricError::File { .. } => e,
        other => FabricError::File { file: file.to_string(), message: other.to_string() },
    })?;
    Ok((f, notes))
}
