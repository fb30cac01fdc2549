//! `kary_ntree`: the k-ary n-tree of Petrini and Vanneschi, as coll03 §2 uses it (the Quadrics
//! QsNET is the quaternary case, k = 4, built from 4×4 Elite switches seen as 8-port switches).
//!
//! A k-ary n-tree has `k^n` endpoints and `n·k^(n−1)` switches of `2k` ports, `k^(n−1)` switches on
//! each of `n` levels. Levels follow coll03 (§5.2.1): **level 0 is the switch level the endpoints
//! attach to** and level `n−1` is the top.
//!
//! # Labelling
//!
//! Every switch carries a label `(l, h, r)` ([`SwitchLabel`]):
//! - `l` is its level;
//! - `h` (`n−1−l` base-k digits) names the subtree it serves: the `k^(l+1)` endpoints `x` with
//!   `x div k^(l+1) = h`. A switch is an ancestor of exactly those endpoints;
//! - `r` (`l` base-k digits, `0..k^l`) says which of the `k^l` equivalent switches of that subtree
//!   it is (a subtree of height `l+1` has `k^l` switches on its top level).
//!
//! `w = h·k^l + r` is the switch's left-to-right position on its level and its switch index is
//! `l·k^(n−1) + w`, so switches are numbered level by level, bottom first. Two switches on adjacent
//! levels are linked iff their `w` differ only in base-k digit `l` (Petrini's butterfly rule):
//!
//! - down port `a+1` (`a` in `0..k`) of level-`(l+1)` switch `(h', r')` goes to up port
//!   `(r' div k^l) + k + 1` of level-`l` switch `(h'·k + a, r' mod k^l)`;
//! - down port `a+1` of level-0 switch `h` carries endpoint `h·k + a`.
//!
//! Ports `1..=k` therefore always go down and `k+1..=2k` go up; the top level's up ports stay
//! unconnected (a k-ary n-tree is not extended upwards).
//!
//! # Names and numbering
//!
//! Endpoint `x` is numbered left to right and named `n<x>` (the paper's node `x`). A switch is
//! named `S<l>:<h>.<r>` with `h` and `r` in decimal, e.g. `S1:0.0` is the top leftmost switch of
//! the 16-endpoint quaternary tree.
//!
//! Links are listed in a fixed order so that their ids can be computed ([`KaryNtree::down_link`]):
//! link `l·k^n + w·k + a` joins down port `a+1` of the level-`l` switch at position `w` to what
//! lies below it (the endpoint for `l = 0`). Its `a` side is the upper end, so channel direction 0
//! of every link points down.
//!
//! # coll03 helpers
//!
//! The *broadcast tree* (coll03 Definition 1) is everything on a descending path from the top
//! leftmost switch (`r = 0`) to the endpoints. Down links keep `r' mod k^l`, so descending from
//! `r = 0` only reaches switches with `r = 0`: the broadcast tree is exactly the switches with
//! `r = 0` on every level ([`KaryNtree::broadcast_tree`]), one per subtree, with their down links.
//! The *root switch* of a contiguous group `[x, x']` (Definition 2) is the nearest common ancestor
//! on the broadcast tree: level `l` = smallest `l` with `x div k^(l+1) = x' div k^(l+1)`, label
//! `(l, x div k^(l+1), 0)` ([`KaryNtree::group_root`]).

use super::GeneratorEntry;
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "kary_ntree",
    summary: "k-ary n-tree fat-tree; k=4 is the Quadrics quaternary fat-tree (coll03 §2)",
    params: "k=4 n=2",
    positional: None,
    endpoint_order: "left to right: endpoint x (named n<x>) is port (x mod k)+1 of level-0 switch x div k",
    default_routing: "nca",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KaryNtreeParams {
    pub k: u32,
    pub n: u32,
}

impl Default for KaryNtreeParams {
    fn default() -> Self {
        KaryNtreeParams { k: 4, n: 2 }
    }
}

/// Most endpoints a generated tree may have (as for tori: beyond this, memory, not the model, is
/// the limit).
pub const MAX_ENDPOINTS: u64 = 1 << 24;
/// Most links (`n·k^n`) a generated tree may have; deep binary trees hit this before the endpoint
/// limit.
pub const MAX_LINKS: u64 = 1 << 25;
/// Largest arity: `2k` ports must fit the 16-bit port numbers.
pub const MAX_K: u32 = (u16::MAX / 2) as u32;

/// The label of a switch (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SwitchLabel {
    /// Level, 0 = the switches the endpoints attach to.
    pub level: u32,
    /// Subtree served: endpoints `x` with `x div k^(level+1) = h`.
    pub h: u32,
    /// Which of the subtree's `k^level` top switches this is (0 = on the broadcast tree).
    pub r: u32,
}

/// A validated k-ary n-tree shape: the labelling arithmetic shared by the generator, the `nca`
/// routing and the coll03 multicast helpers. Every method is total on its inputs (out-of-range ids
/// give `None` or an error), so callers can pass user input straight through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KaryNtree {
    k: u32,
    n: u32,
    /// `k^(n−1)`: switches per level.
    per_level: u32,
}

fn param(param: &'static str, message: String) -> FabricError {
    FabricError::Param { param, message }
}

impl KaryNtree {
    /// Checks `k ≥ 2`, `n ≥ 1`, `2k` ports fit `u16`, at most [`MAX_ENDPOINTS`] endpoints and
    /// [`MAX_LINKS`] links.
    pub fn new(k: u32, n: u32) -> Result<KaryNtree, FabricError> {
        super::at_least("k", k as u64, 2)?;
        super::at_most("k", k as u64, MAX_K as u64, "the 2k ports of a switch must fit 16-bit port numbers")?;
        super::at_least("n", n as u64, 1)?;
        // Multiply step by step so that huge `n` stops early instead of overflowing.
        let mut endpoints: u64 = 1;
        for _ in 0..n {
            endpoints *= k as u64;
            if endpoints > MAX_ENDPOINTS {
                return Err(param("n", format!("{k}^{n} endpoints exceed the limit of {MAX_ENDPOINTS}")));
            }
        }
        let links = endpoints * n as u64;
        if links > MAX_LINKS {
            return Err(param("n", format!("{n}·{k}^{n} = {links} links exceed the limit of {MAX_LINKS}")));
        }
        Ok(KaryNtree { k, n, per_level: (endpoints / k as u64) as u32 })
    }

    pub fn from_params(p: &KaryNtreeParams) -> Result<KaryNtree, FabricError> {
        KaryNtree::new(p.k, p.n)
    }

    /// The shape recorded in a fabric's topology (whether the fabric still matches it is
    /// [`super::matches_generated`]'s job).
    pub fn from_fabric(f: &Fabric) -> Result<KaryNtree, FabricError> {
        match f.topology() {
            Topology::KaryNtree(p) => KaryNtree::from_params(p),
            other => Err(FabricError::Invalid(format!("`{}` is not a kary_ntree fabric", other.kind()))),
        }
    }

    pub fn k(&self) -> u32 {
        self.k
    }
    /// Number of switch levels.
    pub fn n(&self) -> u32 {
        self.n
    }
    /// `k^n`.
    pub fn num_endpoints(&self) -> u32 {
        self.per_level * self.k
    }
    /// `n·k^(n−1)`.
    pub fn num_switches(&self) -> u32 {
        self.per_level * self.n
    }
    /// `k^(n−1)`.
    pub fn switches_per_level(&self) -> u32 {
        self.per_level
    }
    /// `n·k^n`: `k^n` endpoint links plus `k^n` links between each pair of adjacent levels.
    pub fn num_links(&self) -> u32 {
        self.num_endpoints() * self.n
    }
    /// `2k`.
    pub fn ports(&self) -> u16 {
        (2 * self.k) as u16
    }

    /// `k^e`; callers keep `e ≤ n`, which [`KaryNtree::new`] made sure fits.
    fn pow(&self, e: u32) -> u32 {
        self.k.pow(e)
    }

    /// The id of a labelled switch, `None` if the label is out of range.
    pub fn switch_id(&self, label: SwitchLabel) -> Option<SwitchId> {
        let SwitchLabel { level, h, r } = label;
        if level >= self.n || h >= self.pow(self.n - 1 - level) || r >= self.pow(level) {
            return None;
        }
        Some(SwitchId(level * self.per_level + h * self.pow(level) + r))
    }

    /// The label of a switch, `None` if the id is out of range.
    pub fn label(&self, s: SwitchId) -> Option<SwitchLabel> {
        let level = s.0 / self.per_level;
        if level >= self.n {
            return None;
        }
        let w = s.0 % self.per_level;
        let span = self.pow(level);
        Some(SwitchLabel { level, h: w / span, r: w % span })
    }

    /// The generated name of a labelled switch, `S<l>:<h>.<r>`.
    pub fn switch_name(label: SwitchLabel) -> String {
        format!("S{}:{}.{}", label.level, label.h, label.r)
    }

    /// The generated name of endpoint `x`, `n<x>`.
    pub fn endpoint_name(x: EndpointId) -> String {
        format!("n{}", x.0)
    }

    /// The level-0 switch and port endpoint `x` is attached to.
    pub fn attachment(&self, x: EndpointId) -> Option<(SwitchId, PortNum)> {
        (x.0 < self.num_endpoints()).then(|| (SwitchId(x.0 / self.k), PortNum((x.0 % self.k + 1) as u16)))
    }

    /// The switch below down port `a+1` (`a` in `0..k`) of a switch at level ≥ 1, and the up port
    /// it arrives on.
    pub fn child(&self, s: SwitchId, a: u32) -> Option<(SwitchId, PortNum)> {
        let SwitchLabel { level, h, r } = self.label(s)?;
        if level == 0 || a >= self.k {
            return None;
        }
        let below = self.pow(level - 1);
        let c = SwitchLabel { level: level - 1, h: h * self.k + a, r: r % below };
        Some((self.switch_id(c)?, PortNum((r / below + self.k + 1) as u16)))
    }

    /// The switch above up port `k+1+j` (`j` in `0..k`) of a switch below the top, and the down
    /// port it arrives on.
    pub fn parent(&self, s: SwitchId, j: u32) -> Option<(SwitchId, PortNum)> {
        let SwitchLabel { level, h, r } = self.label(s)?;
        if level + 1 >= self.n || j >= self.k {
            return None;
        }
        let p = SwitchLabel { level: level + 1, h: h / self.k, r: j * self.pow(level) + r };
        Some((self.switch_id(p)?, PortNum((h % self.k + 1) as u16)))
    }

    /// The link on down port `a+1` of switch `s` (see the module doc for the link order).
    pub fn down_link(&self, s: SwitchId, a: u32) -> Option<LinkId> {
        let label = self.label(s)?;
        if a >= self.k {
            return None;
        }
        let w = s.0 % self.per_level;
        Some(LinkId(label.level * self.num_endpoints() + w * self.k + a))
    }

    /// True if switch `s` is an ancestor of endpoint `x` (the level-0 switch `x` hangs on counts):
    /// `x div k^(l+1) = h`.
    pub fn is_ancestor(&self, s: SwitchId, x: EndpointId) -> bool {
        match self.label(s) {
            Some(SwitchLabel { level, h, .. }) => x.0 < self.num_endpoints() && x.0 / self.pow(level + 1) == h,
            None => false,
        }
    }

    /// Level of the nearest common ancestors of two endpoints, `None` if one is out of range.
    /// A minimal route between them crosses `2·level + 1` switches.
    pub fn nca_level(&self, x: EndpointId, y: EndpointId) -> Option<u32> {
        let n = self.num_endpoints();
        (x.0 < n && y.0 < n).then(|| nca_level_unchecked(self.k, x.0, y.0))
    }

    /// The switches of the broadcast tree (coll03 Definition 1), by increasing id: the `r = 0`
    /// switch of every subtree, `Σ k^(n−1−l)` in all.
    pub fn broadcast_tree(&self) -> Vec<SwitchId> {
        let mut v = Vec::new();
        for level in 0..self.n {
            for h in 0..self.pow(self.n - 1 - level) {
                v.extend(self.switch_id(SwitchLabel { level, h, r: 0 }));
            }
        }
        v
    }

    /// The links of the broadcast tree, by increasing id: the down links of its switches, which
    /// include every endpoint link.
    pub fn broadcast_tree_links(&self) -> Vec<LinkId> {
        let mut v = Vec::new();
        for s in self.broadcast_tree() {
            v.extend((0..self.k).filter_map(|a| self.down_link(s, a)));
        }
        v.sort_unstable();
        v
    }

    /// True if `s` is on the broadcast tree (`r = 0`).
    pub fn on_broadcast_tree(&self, s: SwitchId) -> bool {
        self.label(s).is_some_and(|l| l.r == 0)
    }

    /// The root switch of the contiguous group `[first, last]` (coll03 Definition 2) with its level:
    /// the nearest common ancestor of the group that lies on the broadcast tree. A one-endpoint
    /// group's root is its level-0 switch.
    pub fn group_root(&self, first: EndpointId, last: EndpointId) -> Result<(u32, SwitchId), FabricError> {
        if first > last {
            return Err(param("group", format!("[{}, {}] is empty (first > last)", first.0, last.0)));
        }
        let Some(level) = self.nca_level(first, last) else {
            return Err(param(
                "group",
                format!("[{}, {}] goes beyond the {} endpoints", first.0, last.0, self.num_endpoints()),
            ));
        };
        let h = first.0 / self.pow(level + 1);
        // In range: level < n and h < k^(n-1-level) because first < k^n.
        let s = SwitchId(level * self.per_level + h * self.pow(level));
        Ok((level, s))
    }
}

/// `x` and `y` share their base-k digits above digit `l`; the smallest such `l`.
fn nca_level_unchecked(k: u32, x: u32, y: u32) -> u32 {
    let (mut a, mut b, mut l) = (x / k, y / k, 0);
    while a != b {
        a /= k;
        b /= k;
        l += 1;
    }
    l
}

/// The switches of the broadcast tree of the k-ary n-tree (see [`KaryNtree::broadcast_tree`]).
pub fn broadcast_tree(k: u32, n: u32) -> Result<Vec<SwitchId>, FabricError> {
    Ok(KaryNtree::new(k, n)?.broadcast_tree())
}

/// Level and switch of the root switch of group `[first, last]` (see [`KaryNtree::group_root`]).
pub fn group_root(k: u32, n: u32, first: EndpointId, last: EndpointId) -> Result<(u32, SwitchId), FabricError> {
    KaryNtree::new(k, n)?.group_root(first, last)
}

/// Level of the nearest common ancestors of endpoints `x` and `y` in any k-ary tree: the smallest
/// `l` with `x div k^(l+1) = y div k^(l+1)`. Needs only `k ≥ 2`, since it does not depend on `n`.
pub fn nca_level(k: u32, x: EndpointId, y: EndpointId) -> Result<u32, FabricError> {
    super::at_least("k", k as u64, 2)?;
    Ok(nca_level_unchecked(k, x.0, y.0))
}

pub fn build(p: &KaryNtreeParams) -> Result<Fabric, FabricError> {
    let t = KaryNtree::from_params(p)?;
    super::check_size(&Topology::KaryNtree(p.clone()))?;
    let (k, n) = (t.k, t.n);
    let ports = t.ports();
    let mut switches = Vec::with_capacity(t.num_switches() as usize);
    for s in 0..t.num_switches() {
        let label = t.label(SwitchId(s)).ok_or_else(|| FabricError::Invalid(format!("switch {s} has no label")))?;
        switches.push(Switch {
            name: KaryNtree::switch_name(label),
            ports,
            level: Some(label.level),
            coords: None,
            ib: None,
        });
    }
    let endpoints: Vec<Endpoint> =
        (0..t.num_endpoints()).map(|x| Endpoint { name: KaryNtree::endpoint_name(EndpointId(x)), ib: None }).collect();
    // The order here is the one `down_link` computes: level by level, position, down port.
    let mut links = Vec::with_capacity(t.num_links() as usize);
    for level in 0..n {
        for w in 0..t.per_level {
            let s = level * t.per_level + w;
            for a in 0..k {
                let down = Terminal::switch(s, (a + 1) as u16);
                let below = if level == 0 {
                    Terminal::endpoint(w * k + a)
                } else {
                    let (c, up) = t
                        .child(SwitchId(s), a)
                        .ok_or_else(|| FabricError::Invalid(format!("switch {s} port {} has no child", a + 1)))?;
                    Terminal::Switch { switch: c, port: up }
                };
                links.push(Link::new(down, below));
            }
        }
    }
    let topo = Topology::KaryNtree(p.clone());
    let name = super::canonical_spec(&topo);
    Fabric::new(name, topo, switches, endpoints, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        let t = KaryNtree::new(3, 3).unwrap();
        for s in 0..t.num_switches() {
            let l = t.label(SwitchId(s)).unwrap();
            assert_eq!(t.switch_id(l), Some(SwitchId(s)));
        }
        assert_eq!(t.label(SwitchId(t.num_switches())), None);
        assert_eq!(t.switch_id(SwitchLabel { level: 1, h: 3, r: 0 }), None);
        assert_eq!(t.switch_id(SwitchLabel { level: 1, h: 0, r: 3 }), None);
    }

    #[test]
    fn parent_and_child_agree() {
        let t = KaryNtree::new(4, 3).unwrap();
        for s in 0..t.num_switches() {
            for j in 0..t.k() {
                if let Some((p, down)) = t.parent(SwitchId(s), j) {
                    let (c, up) = t.child(p, down.0 as u32 - 1).unwrap();
                    assert_eq!((c, up), (SwitchId(s), PortNum((t.k() + 1 + j) as u16)));
                }
            }
        }
    }
}
