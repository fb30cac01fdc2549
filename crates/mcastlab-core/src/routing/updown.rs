//! `updown`: up*/down* routing (Autonet; sivaram98 §2.2), the base routing of irregular fabrics.
//!
//! A BFS spanning tree is grown from a root switch. The "up" end of every inter-switch link is the
//! end closer to the root; at equal BFS level, the end on the switch with the lower id. A legal
//! route takes zero or more links upwards, then zero or more downwards, never up after down; this
//! makes the channel dependency graph acyclic. Among legal routes the tables keep the minimal ones
//! (as the paper's routing tables do): at each switch every output port that still lies on a
//! shortest legal route is a candidate (the adaptive choice), and the deterministic choice is
//! candidate `dst mod count`, which spreads destinations over equivalent ports.
//!
//! Root choice when none is given: the switch of smallest eccentricity in the switch graph (a
//! centre, which keeps the tree shallow); ties go to the switch with the most inter-switch links,
//! then to the lowest id. Name a root with `updown:root=<index|name|guid>`.
//!
//! BFS tree: each non-root switch's parent is its lowest-id neighbour one level closer to the root;
//! the tree link is the lowest-numbered link between them. All other links are cross links.

use super::{Arrival, Hop, Routing, RoutingEntry, Turn};
use crate::error::RoutingError;
use crate::fabric::{eccentricity, spec, Fabric};
use crate::ids::{Address, LinkId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::VecDeque;

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "updown",
    summary: "up*/down* routing on a BFS spanning tree (Autonet, sivaram98 §2.2); minimal legal routes, adaptive",
    params: "root=<switch> (default: a centre of the switch graph)",
    applies_to: "any connected fabric with full-duplex links",
    applies,
    build,
};

/// Most bytes the two switch-to-switch distance tables may take. They are S² entries each (the
/// shortest legal and all-down route from every switch to every switch), which is what makes
/// table lookups O(1); 2 GiB allows 23,170 switches. The bound also keeps every distance (below
/// 2·S) clear of the 16-bit `INF`.
pub const MAX_TABLE_BYTES: u64 = 2 << 30;

fn applies(f: &Fabric) -> Result<(), String> {
    if f.links().iter().any(|l| l.directed) {
        return Err("up*/down* needs full-duplex links (this fabric has directed links)".into());
    }
    let n = f.num_switches() as u64;
    let bytes = n * n * 2 * std::mem::size_of::<u16>() as u64;
    if bytes > MAX_TABLE_BYTES {
        return Err(format!(
            "its distance tables for {n} switches would take {:.1} GiB ({n}² entries, twice), more than the {} GiB \
             allowed (about 23,170 switches)",
            bytes as f64 / (1u64 << 30) as f64,
            MAX_TABLE_BYTES >> 30
        ));
    }
    Ok(())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default, deserialize_with = "any_string")]
    root: Option<String>,
}

/// Accepts `root=3` (a number) as well as `root=s3`.
fn any_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.map(|v| match v {
        Value::String(s) => s,
        other => other.to_string(),
    }))
}

/// Direction facts of one inter-switch link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LinkRole {
    /// The switch at the link's "up" end.
    pub up_end: SwitchId,
    /// True for a link of the BFS spanning tree, false for a cross link.
    pub tree: bool,
}

/// Unreachable marker in distance tables.
const INF: u16 = u16::MAX;

#[derive(Debug)]
pub struct UpDown {
    root: SwitchId,
    root_name: String,
    /// The root as the spec writes it (its name, or its index where the name would not read back).
    root_ref: String,
    level: Vec<u32>,
    parent: Vec<Option<SwitchId>>,
    /// Per link: `Some` for inter-switch links (self-loops excluded).
    roles: Vec<Option<LinkRole>>,
    /// Per switch: (port, neighbour, link goes down from here).
    nbrs: Vec<Vec<(PortNum, SwitchId, bool)>>,
    /// `dist_any[d * S + s]`: length of the shortest legal route from switch s to switch d.
    dist_any: Vec<u16>,
    /// `dist_down[d * S + s]`: length of the shortest all-down route from s to d.
    dist_down: Vec<u16>,
    /// Endpoint → its switch (copied so `next_hops` needs no fabric).
    ep_switch: Vec<(SwitchId, PortNum)>,
    /// For each switch and port: true if a packet arriving there came down a link.
    came_down: Vec<Vec<bool>>,
    switches: usize,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let params: Params = spec::typed("routing", "updown", p)?;
    let root = match &params.root {
        Some(r) => f.find_switch(r).map_err(|e| RoutingError::Param {
            engine: "updown",
            param: "root",
            message: e.to_string(),
        })?,
        None => default_root(f),
    };
    Ok(Box::new(UpDown::new(f, root)))
}

/// BFS hop distances from `s` over inter-switch links.
fn bfs(f: &Fabric, s: SwitchId) -> Vec<u32> {
    let mut d = vec![u32::MAX; f.num_switches()];
    d[s.idx()] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for (_, t, _, _) in f.switch_neighbors(u) {
            if d[t.idx()] == u32::MAX {
                d[t.idx()] = d[u.idx()] + 1;
                q.push_back(t);
            }
        }
    }
    d
}

/// A centre of the switch graph: smallest eccentricity, then most inter-switch links, then lowest id.
/// The eccentricities come from the bounding algorithm of [`eccentricity::extreme`], exact but
/// without a BFS from every switch (which made the default root quadratic in the switches).
pub fn default_root(f: &Fabric) -> SwitchId {
    let all = vec![true; f.num_switches()];
    // No budget: the root must be found, and the worst case is the BFS per switch this did before.
    let (_, centre) = eccentricity::extreme(f, &all, &all, eccentricity::Extreme::Min, None).unwrap_or_default();
    centre
        .into_iter()
        .min_by_key(|s| (std::cmp::Reverse(f.switch_neighbors(*s).len()), *s))
        .expect("a fabric has switches")
}

impl UpDown {
    pub fn new(f: &Fabric, root: SwitchId) -> UpDown {
        let n = f.num_switches();
        let level = bfs(f, root);
        let mut parent = vec![None; n];
        let mut roles = vec![None; f.num_links()];
        let mut nbrs = vec![Vec::new(); n];
        let mut came_down: Vec<Vec<bool>> =
            f.switch_ids().map(|s| vec![false; f.switch(s).ports as usize + 1]).collect();
        let up_end = |a: SwitchId, b: SwitchId| -> SwitchId {
            if (level[a.idx()], a) < (level[b.idx()], b) {
                a
            } else {
                b
            }
        };
        for s in f.switch_ids() {
            let nb = f.switch_neighbors(s);
            if s != root {
                let par =
                    nb.iter().filter(|(_, t, _, _)| level[t.idx()] + 1 == level[s.idx()]).map(|(_, t, _, _)| *t).min();
                parent[s.idx()] = par;
            }
            for &(p, t, q, l) in &nb {
                let up = up_end(s, t);
                roles[l.idx()] = Some(LinkRole { up_end: up, tree: false });
                // Moving s -> t goes down iff s is the up end.
                nbrs[s.idx()].push((p, t, up == s));
                // A packet arriving at t through port q came down iff s is the up end.
                came_down[t.idx()][q.0 as usize] = up == s;
            }
        }
        for s in f.switch_ids() {
            if let Some(par) = parent[s.idx()] {
                let tree_link: Option<LinkId> =
                    f.switch_neighbors(s).iter().filter(|(_, t, _, _)| *t == par).map(|(_, _, _, l)| *l).min();
                if let Some(l) = tree_link {
                    if let Some(r) = roles[l.idx()].as_mut() {
                        r.tree = true;
                    }
                }
            }
        }
        // Distances towards every destination switch.
        let mut dist_any = vec![INF; n * n];
        let mut dist_down = vec![INF; n * n];
        // Reverse adjacency over down moves: for t, the switches s with a down link s -> t.
        let mut down_pred: Vec<Vec<SwitchId>> = vec![Vec::new(); n];
        for (s, links) in nbrs.iter().enumerate() {
            for &(_, t, down) in links {
                if down {
                    down_pred[t.idx()].push(SwitchId(s as u32));
                }
            }
        }
        // Up moves strictly decrease (level, id): process switches in increasing (level, id).
        let mut order: Vec<SwitchId> = f.switch_ids().collect();
        order.sort_by_key(|s| (level[s.idx()], *s));
        for d in 0..n {
            let dd = &mut dist_down[d * n..(d + 1) * n];
            dd[d] = 0;
            let mut q = VecDeque::from([SwitchId(d as u32)]);
            while let Some(t) = q.pop_front() {
                for &s in &down_pred[t.idx()] {
                    if dd[s.idx()] == INF {
                        dd[s.idx()] = dd[t.idx()] + 1;
                        q.push_back(s);
                    }
                }
            }
            let (da, dd) = (&mut dist_any[d * n..(d + 1) * n], &dist_down[d * n..(d + 1) * n]);
            for &s in &order {
                let mut best = dd[s.idx()];
                for &(_, t, down) in &nbrs[s.idx()] {
                    if !down && da[t.idx()] != INF {
                        best = best.min(da[t.idx()] + 1);
                    }
                }
                da[s.idx()] = best;
            }
        }
        UpDown {
            root,
            root_name: f.switch(root).name.clone(),
            root_ref: f.switch_spec_ref(root, &[]),
            level,
            parent,
            roles,
            nbrs,
            dist_any,
            dist_down,
            ep_switch: f.endpoint_ids().map(|e| f.attachment(e)).collect(),
            came_down,
            switches: n,
        }
    }

    pub fn root(&self) -> SwitchId {
        self.root
    }
    /// BFS level of a switch (root = 0).
    pub fn level(&self, s: SwitchId) -> u32 {
        self.level[s.idx()]
    }
    /// Parent in the BFS spanning tree (None for the root).
    pub fn parent(&self, s: SwitchId) -> Option<SwitchId> {
        self.parent[s.idx()]
    }
    /// Direction and tree membership of an inter-switch link (None for endpoint links and self-loops).
    pub fn link_role(&self, l: LinkId) -> Option<LinkRole> {
        self.roles[l.idx()]
    }
    /// True if moving from `from` over link `l` goes down.
    pub fn is_down(&self, l: LinkId, from: SwitchId) -> Option<bool> {
        self.roles[l.idx()].map(|r| r.up_end == from)
    }
    /// Length (in inter-switch links) of the shortest legal route from `s` to switch `d`.
    pub fn legal_distance(&self, s: SwitchId, d: SwitchId) -> u32 {
        self.dist_any[d.idx() * self.switches + s.idx()] as u32
    }
    /// Length of the shortest all-down route from `s` to `d` (None if there is none).
    pub fn down_distance(&self, s: SwitchId, d: SwitchId) -> Option<u32> {
        let v = self.dist_down[d.idx() * self.switches + s.idx()];
        (v != INF).then_some(v as u32)
    }
    /// Legal minimal next hops at `at` towards switch `d` (empty at `d` itself).
    pub fn switch_hops(&self, at: SwitchId, came_down: bool, d: SwitchId, out: &mut Vec<PortNum>) {
        out.clear();
        let n = self.switches;
        let da = &self.dist_any[d.idx() * n..(d.idx() + 1) * n];
        let dd = &self.dist_down[d.idx() * n..(d.idx() + 1) * n];
        let target = if came_down { dd[at.idx()] } else { da[at.idx()] };
        if target == INF || target == 0 {
            return;
        }
        for &(p, t, down) in &self.nbrs[at.idx()] {
            let rest = if down {
                dd[t.idx()]
            } else if came_down {
                INF
            } else {
                da[t.idx()]
            };
            if rest != INF && rest + 1 == target {
                out.push(p);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

impl Routing for UpDown {
    fn engine(&self) -> &'static str {
        "updown"
    }
    fn spec(&self) -> String {
        format!("updown:root={}", self.root_ref)
    }
    fn num_addresses(&self) -> usize {
        self.ep_switch.len()
    }
    fn next_hops(&self, at: SwitchId, arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        let Some(&(dsw, dport)) = self.ep_switch.get(to.0 as usize) else { return };
        if at == dsw {
            out.push(Hop { port: dport, vc: 0 });
            return;
        }
        let came_down = self.came_down[at.idx()].get(arrived.port.0 as usize).copied().unwrap_or(false);
        let mut ports = Vec::new();
        self.switch_hops(at, came_down, dsw, &mut ports);
        if ports.is_empty() {
            return;
        }
        let first = to.0 as usize % ports.len();
        out.push(Hop { port: ports[first], vc: 0 });
        for (i, &p) in ports.iter().enumerate() {
            if i != first {
                out.push(Hop { port: p, vc: 0 });
            }
        }
    }
    /// The up*/down* rule: any turn but one from a link taken downwards into a link taken upwards.
    fn allows_turn(&self, f: &Fabric, t: &Turn) -> bool {
        let came_down = self.came_down.get(t.switch.idx()).and_then(|v| v.get(t.in_port.0 as usize)).copied();
        let goes_down = f.link_at(t.switch, t.out_port).and_then(|l| self.is_down(l, t.switch));
        match (came_down, goes_down) {
            (Some(came_down), Some(goes_down)) => t.in_vc == 0 && t.out_vc == 0 && (goes_down || !came_down),
            _ => false,
        }
    }
    fn facts(&self) -> Vec<(String, String)> {
        let tree = self.roles.iter().flatten().filter(|r| r.tree).count();
        let cross = self.roles.iter().flatten().filter(|r| !r.tree).count();
        vec![
            ("root".into(), self.root_name.clone()),
            ("levels".into(), (self.level.iter().max().copied().unwrap_or(0) + 1).to_string()),
            ("tree links".into(), tree.to_string()),
            ("cross links".into(), cross.to_string()),
        ]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
