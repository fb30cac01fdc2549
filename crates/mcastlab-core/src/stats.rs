//! Structural statistics of a fabric for `mcastlab fabric info`.

use crate::fabric::{Fabric, Terminal};
use crate::ids::SwitchId;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::VecDeque;

/// Minimum, mean and maximum of a per-switch count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
}

impl Spread {
    fn of(v: impl Iterator<Item = u64> + Clone) -> Spread {
        let n = v.clone().count().max(1) as f64;
        Spread { min: v.clone().min().unwrap_or(0), mean: v.clone().sum::<u64>() as f64 / n, max: v.max().unwrap_or(0) }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FabricStats {
    pub name: String,
    pub topology: String,
    pub switches: usize,
    pub endpoints: usize,
    pub links: usize,
    pub switch_links: usize,
    pub endpoint_links: usize,
    pub directed_links: usize,
    pub self_loops: usize,
    pub ports: u64,
    pub ports_used: u64,
    /// Inter-switch links per switch.
    pub switch_degree: Spread,
    pub endpoints_per_switch: Spread,
    /// Longest shortest path between two switches, in inter-switch links (None if skipped).
    pub switch_diameter: Option<u32>,
    /// Longest shortest path between two endpoints, in links (injection and ejection included).
    pub endpoint_diameter: Option<u32>,
}

/// Above this many BFS steps the diameter is not computed.
const DIAMETER_BUDGET: u64 = 2_000_000_000;
/// BFS steps the eccentricity bounds may take on a fabric past [`DIAMETER_BUDGET`]: a few BFS of
/// a fabric with millions of parts (about a second), hundreds on a long chain.
const BOUNDED_BUDGET: u64 = 20_000_000;

fn eccentricity(f: &Fabric, s: SwitchId, with_endpoints_only: bool) -> u32 {
    let mut d = vec![u32::MAX; f.num_switches()];
    d[s.idx()] = 0;
    let mut q = VecDeque::from([s]);
    let mut ecc = 0;
    while let Some(u) = q.pop_front() {
        if !with_endpoints_only || !f.endpoints_at(u).is_empty() {
            ecc = ecc.max(d[u.idx()]);
        }
        for p in f.switch_ports(u) {
            if let Some(pp) = f.port(u, p) {
                if let (Some(_), Terminal::Switch { switch: t, .. }) = (pp.out, pp.peer) {
                    if d[t.idx()] == u32::MAX {
                        d[t.idx()] = d[u.idx()] + 1;
                        q.push_back(t);
                    }
                }
            }
        }
    }
    ecc
}

pub fn stats(f: &Fabric) -> FabricStats {
    let mut switch_links = 0;
    let mut directed = 0;
    let mut self_loops = 0;
    let mut deg = vec![0u64; f.num_switches()];
    for l in f.links() {
        if let (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) = (l.a, l.b) {
            switch_links += 1;
            if a == b {
                self_loops += 1;
            } else {
                deg[a.idx()] += 1;
                deg[b.idx()] += 1;
            }
        }
        if l.directed {
            directed += 1;
        }
    }
    let ports: u64 = f.switches().iter().map(|s| s.ports as u64).sum();
    let ports_used =
        f.switch_ids().map(|s| f.switch_ports(s).filter(|&p| f.link_at(s, p).is_some()).count() as u64).sum();
    let work = f.num_switches() as u64 * (f.num_links() as u64 + f.num_switches() as u64);
    let hosts: Vec<bool> = f.switch_ids().map(|s| !f.endpoints_at(s).is_empty()).collect();
    let endpoint_hops = |ed: u32| if f.num_endpoints() > 1 { ed + 2 } else { 0 };
    let (switch_diameter, endpoint_diameter) = if directed == 0 {
        // Full duplex: distances are symmetric, so the bounding algorithm gives the exact
        // diameters, usually with a few BFS. Where a BFS from every switch fits the budget it
        // runs unbounded (never more work than that); past it, it gets BOUNDED_BUDGET steps and
        // the diameter is skipped if the bounds have not met by then (fat trees prune little).
        use crate::fabric::eccentricity::{extreme, Extreme};
        let budget = (work > DIAMETER_BUDGET).then_some(BOUNDED_BUDGET);
        let all = vec![true; f.num_switches()];
        let sd = extreme(f, &all, &all, Extreme::Max, budget).map(|x| x.0);
        let ed = if hosts.iter().any(|h| *h) {
            extreme(f, &hosts, &hosts, Extreme::Max, budget).map(|x| x.0)
        } else {
            Some(0)
        };
        (sd, ed.map(endpoint_hops))
    } else if work <= DIAMETER_BUDGET {
        let sd = f.switch_ids().collect::<Vec<_>>().par_iter().map(|&s| eccentricity(f, s, false)).max().unwrap_or(0);
        let ed = f
            .switch_ids()
            .filter(|&s| !f.endpoints_at(s).is_empty())
            .collect::<Vec<_>>()
            .par_iter()
            .map(|&s| eccentricity(f, s, true))
            .max()
            .unwrap_or(0);
        (Some(sd), Some(endpoint_hops(ed)))
    } else {
        (None, None)
    };
    FabricStats {
        name: f.name().to_string(),
        topology: f.topology().kind().to_string(),
        switches: f.num_switches(),
        endpoints: f.num_endpoints(),
        links: f.num_links(),
        switch_links,
        endpoint_links: f.num_links() - switch_links,
        directed_links: directed,
        self_loops,
        ports,
        ports_used,
        switch_degree: Spread::of(deg.iter().copied()),
        endpoints_per_switch: Spread::of(
            f.switch_ids().map(|s| f.endpoints_at(s).len() as u64).collect::<Vec<_>>().into_iter(),
        ),
        switch_diameter,
        endpoint_diameter,
    }
}
