//! Writing a fabric as ibnetdiscover text ([`export`]), so that an imported fabric round trips and
//! a generated one can be handed to InfiniBand tools (ibsim, OpenSM).

use super::{parse_hex, MAX_PORTS, SPEEDS, SYNTH_CA_GUID, SYNTH_SWITCH_GUID, WIDTHS};
use crate::error::FabricError;
use crate::fabric::{Fabric, Link, Terminal};
use crate::ids::{EndpointId, SwitchId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Whether a name can be written as a quoted ibnetdiscover id and read back unchanged: the
/// parser takes everything between two quotes on one line, so only quotes and line breaks are out.
fn valid_id(s: &str) -> bool {
    !s.is_empty() && !s.contains(['"', '\n', '\r'])
}

/// Descriptions are quoted but not escaped (the parser reads up to the last quote of the line),
/// so only line breaks would break the line structure; those become spaces.
fn clean_desc(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn hexn(g: &Option<String>) -> Option<u64> {
    g.as_deref().and_then(parse_hex)
}

/// Width/speed token (`4xQDR`) for a link, if anything about it is known and writable.
fn ws_token(l: &Link) -> Option<String> {
    if l.width.is_none() && l.speed.is_none() {
        return None;
    }
    let w = match &l.width {
        Some(w) if WIDTHS.iter().any(|(x, _)| x == w) => w.clone(),
        Some(_) => return None,
        None => "??".into(),
    };
    let s = match &l.speed {
        Some(s) if SPEEDS.iter().any(|(x, _)| x == s) => s.clone(),
        Some(_) => return None,
        None => "???".into(),
    };
    Some(format!("{w}{s}"))
}

/// What the export writes for one node.
struct OutNode {
    id: String,
    guid: Option<u64>,
    port0_guid: Option<u64>,
    desc: Option<String>,
    lid: Option<u32>,
    lmc: Option<u8>,
    kind: Option<String>,
    vendid: Option<String>,
    devid: Option<String>,
    sysimg: Option<u64>,
}

impl OutNode {
    /// A node of a generated fabric: only an id, GUIDs and the mcastlab name as description.
    fn synthesized(id: String, guid: Option<u64>, port0_guid: Option<u64>, desc: &str) -> OutNode {
        OutNode {
            id,
            guid,
            port0_guid,
            desc: Some(desc.to_string()),
            lid: None,
            lmc: None,
            kind: None,
            vendid: None,
            devid: None,
            sysimg: None,
        }
    }
}

/// One CA of the export: a group of endpoints that are ports of one imported CA, or one
/// synthesized single-port CA per endpoint.
struct OutCa {
    node: OutNode,
    ports: u16,
    router: bool,
    /// CA port → (endpoint, port GUID).
    members: BTreeMap<u16, (EndpointId, Option<u64>)>,
    synthesized: bool,
}

/// Hands out GUIDs that no node of the fabric uses yet.
struct GuidAlloc {
    used: BTreeSet<u64>,
}

impl GuidAlloc {
    /// The first free GUID at or after `start` (stepping by `step`) such that `g..g+span` is free.
    fn take(&mut self, start: u64, step: u64, span: u64, ids: &BTreeSet<String>, prefix: &str) -> u64 {
        let mut g = start;
        loop {
            let free = (0..span).all(|d| !self.used.contains(&g.wrapping_add(d)));
            if free && !ids.contains(&format!("{prefix}{g:016x}")) {
                for d in 0..span {
                    self.used.insert(g.wrapping_add(d));
                }
                return g;
            }
            g = g.wrapping_add(step);
        }
    }
}

/// Writes a fabric in ibnetdiscover format: a comment preamble, then switch records, then CA
/// records, each port line in ascending port order and every link from both of its ends.
///
/// Imported nodes keep their ids, GUIDs, LIDs and descriptions, so an imported fabric survives a
/// round trip unchanged (except for the order of links). Nodes of generated fabrics get ids from
/// synthesized GUIDs ([`SYNTH_SWITCH_GUID`] + index for switch `i`, [`SYNTH_CA_GUID`] + 256·index
/// for endpoint `i`, one single-port CA per endpoint) and their mcastlab name as description, so
/// `Fabric::find_endpoint("<old name>")` still finds them after a round trip.
///
/// Fails for fabrics ibnetdiscover cannot describe: directed (unidirectional) links and switches
/// with more than 255 ports.
pub fn export(f: &Fabric) -> Result<String, FabricError> {
    if let Some((i, l)) = f.links().iter().enumerate().find(|(_, l)| l.directed) {
        return Err(FabricError::Invalid(format!(
            "ibnetdiscover format cannot express directed (unidirectional) links: link {i} ({} -> {})",
            f.terminal_str(&l.a),
            f.terminal_str(&l.b)
        )));
    }
    if let Some(s) = f.switches().iter().find(|s| s.ports > MAX_PORTS) {
        return Err(FabricError::Invalid(format!(
            "switch {} has {} ports; InfiniBand switches have at most {MAX_PORTS}",
            s.name, s.ports
        )));
    }

    // GUIDs already present, so synthesized ones never collide with them.
    let mut alloc = GuidAlloc { used: BTreeSet::new() };
    for ib in
        f.switches().iter().filter_map(|s| s.ib.as_ref()).chain(f.endpoints().iter().filter_map(|e| e.ib.as_ref()))
    {
        for g in [&ib.node_guid, &ib.port_guid] {
            if let Some(g) = hexn(g) {
                alloc.used.insert(g);
            }
        }
    }
    let mut ids: BTreeSet<String> = BTreeSet::new();

    // Switches: imported ones (with `ib`) keep their id; others are synthesized.
    let mut sw_nodes: Vec<Option<OutNode>> = Vec::with_capacity(f.num_switches());
    for s in f.switches() {
        match &s.ib {
            Some(ib) if valid_id(&s.name) && !ids.contains(&s.name) => {
                ids.insert(s.name.clone());
                sw_nodes.push(Some(OutNode {
                    id: s.name.clone(),
                    guid: hexn(&ib.node_guid),
                    port0_guid: hexn(&ib.port_guid),
                    desc: ib.desc.clone(),
                    lid: ib.lid,
                    lmc: ib.lmc,
                    kind: ib.kind.clone().filter(|k| k == "base" || k == "enhanced"),
                    vendid: ib.vendid.clone(),
                    devid: ib.devid.clone(),
                    sysimg: hexn(&ib.sysimg_guid),
                }));
            }
            _ => sw_nodes.push(None),
        }
    }

    // CAs: group imported endpoints by CA id (`<id>` or `<id>/<port>`).
    let mut cas: Vec<OutCa> = Vec::new();
    let mut ca_by_id: BTreeMap<String, usize> = BTreeMap::new();
    let mut ca_of_ep: Vec<(usize, u16)> = Vec::with_capacity(f.num_endpoints());
    for (i, e) in f.endpoints().iter().enumerate() {
        let eid = EndpointId(i as u32);
        let grouped = e.ib.as_ref().and_then(|ib| {
            let p = ib.ca_port.filter(|p| *p >= 1 && *p <= MAX_PORTS)?;
            let base = e.name.strip_suffix(&format!("/{p}")).unwrap_or(&e.name);
            if !valid_id(base) {
                return None;
            }
            match ca_by_id.get(base) {
                Some(&c) => {
                    let ca = cas.get(c)?;
                    (!ca.members.contains_key(&p)).then(|| (Some(c), base.to_string(), p, ib))
                }
                None => (!ids.contains(base)).then(|| (None, base.to_string(), p, ib)),
            }
        });
        match grouped {
            Some((existing, base, p, ib)) => {
                let c = match existing {
                    Some(c) => c,
                    None => {
                        ids.insert(base.clone());
                        ca_by_id.insert(base.clone(), cas.len());
                        cas.push(OutCa {
                            node: OutNode {
                                id: base,
                                guid: hexn(&ib.node_guid),
                                port0_guid: None,
                                desc: ib.desc.clone(),
                                lid: None,
                                lmc: None,
                                kind: None,
                                vendid: ib.vendid.clone(),
                                devid: ib.devid.clone(),
                                sysimg: hexn(&ib.sysimg_guid),
                            },
                            ports: 0,
                            router: ib.kind.as_deref() == Some("Rt"),
                            members: BTreeMap::new(),
                            synthesized: false,
                        });
                        cas.len() - 1
                    }
                };
                if let Some(ca) = cas.get_mut(c) {
                    ca.ports = ca.ports.max(p).max(ib.ca_ports.unwrap_or(0).min(MAX_PORTS));
                    ca.members.insert(p, (eid, hexn(&ib.port_guid)));
                }
                ca_of_ep.push((c, p));
            }
            None => {
                cas.push(OutCa {
                    node: OutNode::synthesized(String::new(), None, None, &e.name),
                    ports: 1,
                    router: false,
                    members: BTreeMap::from([(1, (eid, None))]),
                    synthesized: true,
                });
                ca_of_ep.push((cas.len() - 1, 1));
            }
        }
    }

    // Synthesized ids and GUIDs, now that every kept id is known.
    let mut sw_out: Vec<OutNode> = Vec::with_capacity(f.num_switches());
    for (i, (s, n)) in f.switches().iter().zip(sw_nodes).enumerate() {
        match n {
            Some(n) => sw_out.push(n),
            None => {
                let g = alloc.take(SYNTH_SWITCH_GUID.wrapping_add(i as u64), 1, 1, &ids, "S-");
                let id = format!("S-{g:016x}");
                ids.insert(id.clone());
                sw_out.push(OutNode::synthesized(id, Some(g), Some(g), &s.name));
            }
        }
    }
    for ca in cas.iter_mut().filter(|c| c.synthesized) {
        let first = ca.members.values().next().map(|m| m.0 .0 as u64).unwrap_or(0);
        let g = alloc.take(SYNTH_CA_GUID.wrapping_add(first << 8), 256, 2, &ids, "H-");
        ca.node.id = format!("H-{g:016x}");
        ca.node.guid = Some(g);
        ids.insert(ca.node.id.clone());
        for m in ca.members.values_mut() {
            m.1 = Some(g.wrapping_add(1));
        }
    }
    // Per-endpoint facts: LID/LMC of the CA port.
    let ep_ib = |e: EndpointId| f.endpoints().get(e.idx()).and_then(|x| x.ib.as_ref());
    let ep_keeps_ib =
        |e: EndpointId| ca_of_ep.get(e.idx()).and_then(|(c, _)| cas.get(*c)).is_some_and(|c| !c.synthesized);

    let mut out = String::new();
    out.push_str("#\n");
    let _ = writeln!(out, "# Topology file: generated by mcastlab from fabric \"{}\"", clean_desc(f.name()));
    out.push_str("#\n");
    if let Some(ca) = cas.first() {
        if let (Some(g), Some((_, Some(pg)))) = (ca.node.guid, ca.members.values().next()) {
            let _ = writeln!(out, "# Initiated from node {g:016x} port {pg:016x}");
        }
    }

    let push_headers = |out: &mut String, n: &OutNode| {
        if let Some(v) = &n.vendid {
            let _ = writeln!(out, "vendid={v}");
        }
        if let Some(v) = &n.devid {
            let _ = writeln!(out, "devid={v}");
        }
        if let Some(v) = n.sysimg {
            let _ = writeln!(out, "sysimgguid=0x{v:x}");
        }
    };
    let quoted_desc = |d: &Option<String>| d.as_ref().map(|d| format!("\"{}\"", clean_desc(d)));

    // Switch records.
    for (si, n) in sw_out.iter().enumerate() {
        let s = SwitchId(si as u32);
        out.push('\n');
        push_headers(&mut out, n);
        if let Some(g) = n.guid {
            match n.port0_guid {
                Some(pg) => {
                    let _ = writeln!(out, "switchguid=0x{g:x}({pg:x})");
                }
                None => {
                    let _ = writeln!(out, "switchguid=0x{g:x}");
                }
            }
        }
        let _ = write!(out, "Switch\t{} \"{}\"", f.switch(s).ports, n.id);
        let mut tail: Vec<String> = Vec::new();
        tail.extend(quoted_desc(&n.desc));
        if let Some(k) = &n.kind {
            tail.push(format!("{k} port 0"));
        }
        if let Some(l) = n.lid {
            tail.push(format!("lid {l}"));
        }
        if let Some(m) = n.lmc {
            tail.push(format!("lmc {m}"));
        }
        if !tail.is_empty() {
            let _ = write!(out, "\t\t# {}", tail.join(" "));
        }
        out.push('\n');
        for p in f.switch_ports(s) {
            let Some(pp) = f.port(s, p) else { continue };
            let link = f.link(pp.link);
            let mut comment: Vec<String> = Vec::new();
            match pp.peer {
                Terminal::Switch { switch: t, port: q } => {
                    let Some(tn) = sw_out.get(t.idx()) else { continue };
                    let _ = write!(out, "[{}]\t\"{}\"[{}]", p.0, tn.id, q.0);
                    comment.extend(quoted_desc(&tn.desc));
                    if let Some(l) = tn.lid {
                        comment.push(format!("lid {l}"));
                    }
                }
                Terminal::Endpoint { endpoint: e } => {
                    let Some(&(c, cp)) = ca_of_ep.get(e.idx()) else { continue };
                    let Some(ca) = cas.get(c) else { continue };
                    let _ = write!(out, "[{}]\t\"{}\"[{}]", p.0, ca.node.id, cp);
                    if let Some(Some(pg)) = ca.members.get(&cp).map(|m| m.1) {
                        let _ = write!(out, "({pg:x}) ");
                    }
                    comment.extend(quoted_desc(&ca.node.desc));
                    if let Some(l) = ep_ib(e).filter(|_| ep_keeps_ib(e)).and_then(|ib| ib.lid) {
                        comment.push(format!("lid {l}"));
                    }
                }
            }
            comment.extend(ws_token(link));
            if !comment.is_empty() {
                let _ = write!(out, "\t\t# {}", comment.join(" "));
            }
            out.push('\n');
        }
    }

    // CA records.
    for ca in &cas {
        out.push('\n');
        push_headers(&mut out, &ca.node);
        if let Some(g) = ca.node.guid {
            let _ = writeln!(out, "{}=0x{g:x}", if ca.router { "rtguid" } else { "caguid" });
        }
        let _ = write!(out, "{}\t{} \"{}\"", if ca.router { "Rt" } else { "Ca" }, ca.ports.max(1), ca.node.id);
        if let Some(d) = quoted_desc(&ca.node.desc) {
            let _ = write!(out, "\t\t# {d}");
        }
        out.push('\n');
        for (&cp, &(e, pg)) in &ca.members {
            let (s, p) = f.attachment(e);
            let Some(sn) = sw_out.get(s.idx()) else { continue };
            let _ = write!(out, "[{cp}]");
            if let Some(pg) = pg {
                let _ = write!(out, "({pg:x}) ");
            }
            let _ = write!(out, "\t\"{}\"[{}]", sn.id, p.0);
            let mut comment: Vec<String> = Vec::new();
            if let Some(ib) = ep_ib(e).filter(|_| !ca.synthesized) {
                if let (Some(l), Some(m)) = (ib.lid, ib.lmc) {
                    comment.push(format!("lid {l} lmc {m}"));
                }
            }
            comment.extend(quoted_desc(&sn.desc));
            if let Some(l) = sn.lid {
                comment.push(format!("lid {l}"));
            }
            if let Some(link) = f.link_at(s, p) {
                comment.extend(ws_token(f.link(link)));
            }
            if !comment.is_empty() {
                let _ = write!(out, "\t\t# {}", comment.join(" "));
            }
            out.push('\n');
        }
    }
    Ok(out)
}
