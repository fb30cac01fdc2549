//! `irregular`: the random switch networks of sivaram98 §6.3.
//!
//! `s` switches of `k` ports carry `p` endpoints; of the `s·k − p` remaining ports, the percentage
//! `connectivity` (rounded down to an even count) is joined pairwise by full-duplex links, the rest
//! stay open. Links never join two ports of one switch, each port carries at most one link, several
//! links may join the same pair of switches (as the paper allows), and the switch graph is always
//! connected: a random spanning tree is laid first, the remaining links are drawn at random.
//!
//! Endpoint numbering: endpoints are ordered by (switch, port); endpoint `i` is named `p<s>.<j>`,
//! the `j`-th (1-based) endpoint on switch `s`, as the paper labels processors `p_{s,j}`.

use super::{at_least, at_most, GeneratorEntry};
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use crate::rng;
use rand::seq::SliceRandom;
use rand::Rng;
use serde::{Deserialize, Serialize};

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "irregular",
    summary: "random irregular switch network (sivaram98 §6.3)",
    params: "switches=8 ports=8 endpoints=32 connectivity=80 seed=1",
    positional: None,
    endpoint_order: "by (switch, port); endpoint i is named p<switch>.<j>",
    default_routing: "updown",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IrregularParams {
    pub switches: u32,
    pub ports: u32,
    pub endpoints: u32,
    /// Percentage (1..=100) of the ports left after attaching endpoints that get a link.
    pub connectivity: u32,
    pub seed: u64,
}

impl Default for IrregularParams {
    fn default() -> Self {
        IrregularParams { switches: 8, ports: 8, endpoints: 32, connectivity: 80, seed: 1 }
    }
}

/// Most switches of a generated irregular fabric: the spanning-tree draw is quadratic in them
/// (rewriting it would change every seeded fabric), and 65,536 takes about a second.
pub const MAX_SWITCHES: u64 = 1 << 16;

/// Retries of the random link drawing before giving up (a draw fails only when the last free
/// ports all sit on one switch).
const ATTEMPTS: u64 = 64;

pub fn build(p: &IrregularParams) -> Result<Fabric, FabricError> {
    at_least("switches", p.switches as u64, 1)?;
    at_most(
        "switches",
        p.switches as u64,
        MAX_SWITCHES,
        "the random spanning tree draws each switch's parent among all earlier ones (switches² steps)",
    )?;
    at_least("ports", p.ports as u64, 1)?;
    at_most("ports", p.ports as u64, u16::MAX as u64, "port numbers are 16-bit")?;
    at_least("connectivity", p.connectivity as u64, 1)?;
    // A fabric without endpoints has no one to send or receive a multicast.
    at_least("endpoints", p.endpoints as u64, 1)?;
    at_most("connectivity", p.connectivity as u64, 100, "it is a percentage")?;
    let (s, k, n) = (p.switches as u64, p.ports as u64, p.endpoints as u64);
    if n > s * k {
        return Err(FabricError::Param {
            param: "endpoints",
            message: format!("{n} endpoints do not fit on {s} switches of {k} ports (p > s·k)"),
        });
    }
    super::check_size(&Topology::Irregular(p.clone()))?;
    let free = s * k - n;
    // A single switch has nothing to link to: links never join two ports of one switch.
    let link_ports = if s == 1 { 0 } else { (free * p.connectivity as u64 / 100) & !1 };
    let links = link_ports / 2;
    if s > 1 && links < s - 1 {
        return Err(FabricError::Param {
            param: "connectivity",
            message: format!(
                "{}% of the {free} free ports gives {links} links, too few to connect {s} switches (need {})",
                p.connectivity,
                s - 1
            ),
        });
    }
    for attempt in 0..ATTEMPTS {
        if let Some(f) = try_build(p, links as usize, attempt)? {
            return Ok(f);
        }
    }
    Err(FabricError::Param {
        param: "connectivity",
        message: format!("could not place {links} links between distinct switches in {ATTEMPTS} attempts"),
    })
}

fn try_build(p: &IrregularParams, links: usize, attempt: u64) -> Result<Option<Fabric>, FabricError> {
    let s = p.switches as usize;
    let k = p.ports as usize;
    let mut rng = rng::stream(p.seed, "irregular", attempt);
    // Each switch hands out its ports in a random order.
    let mut free_ports: Vec<Vec<u16>> = (0..s)
        .map(|_| {
            let mut v: Vec<u16> = (1..=k as u16).collect();
            v.shuffle(&mut rng);
            v
        })
        .collect();
    // Each entry: (switch a, port on a, switch b, port on b).
    let mut pairs: Vec<(usize, u16, usize, u16)> = Vec::with_capacity(links);
    let mut join = |a: usize, b: usize, free_ports: &mut Vec<Vec<u16>>| {
        let pa = free_ports[a].pop().expect("switch has a free port");
        let pb = free_ports[b].pop().expect("switch has a free port");
        pairs.push((a, pa, b, pb));
    };
    // A random spanning tree keeps the switch graph connected.
    let mut order: Vec<usize> = (0..s).collect();
    order.shuffle(&mut rng);
    for i in 1..s {
        let cands: Vec<usize> = order[..i].iter().copied().filter(|&t| !free_ports[t].is_empty()).collect();
        if cands.is_empty() || free_ports[order[i]].is_empty() {
            return Err(FabricError::Param {
                param: "ports",
                message: format!("{k}-port switches cannot form a connected network of {s} switches"),
            });
        }
        let t = cands[rng.random_range(0..cands.len())];
        join(order[i], t, &mut free_ports);
    }
    // The remaining links join two random free ports on different switches.
    for _ in (s - 1)..links {
        let total: usize = free_ports.iter().map(Vec::len).sum();
        let pick = |free_ports: &Vec<Vec<u16>>, r: usize, skip: Option<usize>| -> usize {
            let mut r = r;
            for (i, v) in free_ports.iter().enumerate() {
                if Some(i) == skip {
                    continue;
                }
                if r < v.len() {
                    return i;
                }
                r -= v.len();
            }
            unreachable!("index within the free-port count")
        };
        let a = pick(&free_ports, rng.random_range(0..total), None);
        let rest = total - free_ports[a].len();
        if rest == 0 {
            return Ok(None);
        }
        let b = pick(&free_ports, rng.random_range(0..rest), Some(a));
        join(a, b, &mut free_ports);
    }
    let mut link_vec = Vec::with_capacity(links + p.endpoints as usize);
    for &(a, pa, b, pb) in &pairs {
        link_vec.push(Link::new(Terminal::switch(a as u32, pa), Terminal::switch(b as u32, pb)));
    }
    let shuffled = free_ports;
    // Endpoints go to random free ports, then are numbered by (switch, port).
    let mut open: Vec<(u32, u16)> =
        shuffled.iter().enumerate().flat_map(|(i, v)| v.iter().map(move |&q| (i as u32, q))).collect();
    open.sort_unstable();
    open.shuffle(&mut rng);
    let mut chosen: Vec<(u32, u16)> = open[..p.endpoints as usize].to_vec();
    chosen.sort_unstable();
    let mut endpoints = Vec::with_capacity(chosen.len());
    let mut per_switch = vec![0u32; s];
    for (i, &(sw, port)) in chosen.iter().enumerate() {
        per_switch[sw as usize] += 1;
        endpoints.push(Endpoint { name: format!("p{}.{}", sw, per_switch[sw as usize]), ib: None });
        link_vec.push(Link::new(Terminal::switch(sw, port), Terminal::endpoint(i as u32)));
    }
    let switches = (0..s)
        .map(|i| Switch { name: format!("s{i}"), ports: k as u16, level: None, coords: None, ib: None })
        .collect();
    let topo = Topology::Irregular(p.clone());
    let name = super::canonical_spec(&topo);
    Fabric::new(name, topo, switches, endpoints, link_vec).map(Some)
}
