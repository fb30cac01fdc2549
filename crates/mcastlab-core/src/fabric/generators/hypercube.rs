//! `hypercube`: switches at the corners of a d-dimensional hypercube, `endpoints_per_switch`
//! endpoints on each (bhoedjang98's Myrinet cluster: 16 8-port switches, d = 4, 4 endpoints each).
//!
//! Switch `s` (0..2^d) is named `h<s>` with its bits as coordinates (bit 0 first). Ports
//! `1..=c` carry its endpoints; port `c+1+i` links to the neighbour across dimension `i`
//! (`s XOR 2^i`). Endpoint numbering: endpoint `s·c + j` is port `j+1` of switch `s`, named `h<s>.<j>`.

use super::{at_least, at_most, GeneratorEntry};
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use serde::{Deserialize, Serialize};

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "hypercube",
    summary: "switches in a d-dimensional hypercube with c endpoints each (bhoedjang98)",
    params: "dim=4 endpoints_per_switch=4",
    positional: Some("dim"),
    endpoint_order: "endpoint s*c + j is port j+1 of switch s; named h<s>.<j>",
    default_routing: "ecube",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HypercubeParams {
    pub dim: u32,
    pub endpoints_per_switch: u32,
}

impl Default for HypercubeParams {
    fn default() -> Self {
        HypercubeParams { dim: 4, endpoints_per_switch: 4 }
    }
}

pub fn build(p: &HypercubeParams) -> Result<Fabric, FabricError> {
    at_most("dim", p.dim as u64, 20, "at most 2^20 switches")?;
    at_least("endpoints_per_switch", p.endpoints_per_switch as u64, 1)?;
    at_most("endpoints_per_switch", p.endpoints_per_switch as u64, 1024, "ports are 16-bit")?;
    let (d, c) = (p.dim, p.endpoints_per_switch);
    at_most("endpoints_per_switch", (c as u64) << d, 1 << 24, "at most 16M endpoints in all")?;
    super::check_size(&Topology::Hypercube(p.clone()))?;
    let n = 1u32 << d;
    let ports = (c + d) as u16;
    let mut switches = Vec::with_capacity(n as usize);
    let mut endpoints = Vec::new();
    let mut links = Vec::new();
    for s in 0..n {
        let coords = (0..d).map(|i| (s >> i) & 1).collect();
        switches.push(Switch { name: format!("h{s}"), ports, level: None, coords: Some(coords), ib: None });
        for j in 0..c {
            let e = s * c + j;
            endpoints.push(Endpoint { name: format!("h{s}.{j}"), ib: None });
            links.push(Link::new(Terminal::switch(s, (j + 1) as u16), Terminal::endpoint(e)));
        }
    }
    for s in 0..n {
        for i in 0..d {
            let t = s ^ (1 << i);
            if s < t {
                let port = (c + 1 + i) as u16;
                links.push(Link::new(Terminal::switch(s, port), Terminal::switch(t, port)));
            }
        }
    }
    let topo = Topology::Hypercube(p.clone());
    let name = super::canonical_spec(&topo);
    Fabric::new(name, topo, switches, endpoints, links)
}
