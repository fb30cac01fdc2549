//! `nca`: nearest-common-ancestor routing on k-ary n-trees (coll03 §2, the QsNET's unicast
//! routing).
//!
//! A minimal route climbs from the source's level-0 switch to one of the nearest common ancestors
//! of source and destination, then descends to the destination. Climbing is adaptive: while the
//! destination is not below the current switch (`x_dst div k^(l+1) ≠ h`, labels as in
//! [`crate::fabric::generators::kary_ntree`]), every up port leads to an equally good ancestor, so
//! all `k` of them are candidates. Descending is deterministic: below a switch there is exactly one
//! way down to each endpoint, down port `((x_dst div k^l) mod k) + 1` at level `l`.
//!
//! The deterministic choice while climbing (the first hop `next_hops` lists) is up port
//! `k + 1 + ((x_dst div k^l) mod k)` at level `l`, "destination mod k": it spreads destinations
//! evenly over the up ports, and the deterministic routes towards one destination all merge into
//! one descending path (at level `l` they use switch `(x_dst div k^(l+1), x_dst mod k^l)`), so no
//! down link carries deterministic traffic for two destinations. The QsNET picks the
//! least loaded link instead, which the adaptive candidate list models.
//!
//! The up-port rule is an option, `up`: `dmodk` (the default) is the deterministic choice above;
//! `random` (a uniformly random up port at every switch, drawn per packet, as BookSim's `fattree`
//! routing does) and `adaptive` (the up port with the most credits, as the QsNET does) both choose
//! from the same legal set of all `k` up ports. The checker's proof covers all three, because it
//! follows every port the legal set offers; the simulator applies `random` and `adaptive` per
//! packet, at every climbing switch as the head is routed ([`Routing::run_time_choice`]):
//! `adaptive` takes the up port whose buffers hold the most free credits, ties going to dmodk's
//! port and then to the lowest port.
//!
//! Deadlock freedom needs no virtual channels: every route goes up, then down, never up again, so
//! every channel dependency points from an up channel to a higher one, from an up channel to a down
//! channel, or from a down channel to a lower one, and the dependency graph is acyclic.

use super::{Arrival, ChoiceRule, Hop, Routing, RoutingEntry, RunTimeChoice, Turn};
use crate::error::RoutingError;
use crate::fabric::generators::kary_ntree::{KaryNtree, SwitchLabel};
use crate::fabric::{spec, Fabric, Topology};
use crate::ids::{Address, PortNum, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "nca",
    summary: "nearest-common-ancestor routing: ascent by up=dmodk|random|adaptive, deterministic descent (coll03 §2)",
    params: "up=dmodk|random|adaptive",
    applies_to: "kary_ntree",
    applies,
    build,
};

fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::KaryNtree(_) => crate::fabric::generators::matches_generated(f),
        other => Err(format!("nca needs a kary_ntree fabric (this one is `{}`)", other.kind())),
    }
}

/// How a climbing packet picks its up port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UpRule {
    /// Up port `(x_dst div k^l) mod k`: deterministic, spreads destinations evenly.
    #[default]
    Dmodk,
    /// A uniformly random up port at every switch, per packet.
    Random,
    /// The up port whose next buffer has the most credits.
    Adaptive,
}

impl UpRule {
    fn name(self) -> &'static str {
        match self {
            UpRule::Dmodk => "dmodk",
            UpRule::Random => "random",
            UpRule::Adaptive => "adaptive",
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Params {
    up: UpRule,
}

/// Enumerating more turns than this is left to the generic exploration (it would only cost memory).
const MAX_ENUMERATED_TURNS: u64 = 1 << 26;

#[derive(Debug)]
pub struct Nca {
    tree: KaryNtree,
    up: UpRule,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let params: Params = spec::typed("routing", "nca", p)?;
    let tree =
        KaryNtree::from_fabric(f).map_err(|e| RoutingError::NotApplicable { engine: "nca", reason: e.to_string() })?;
    Ok(Box::new(Nca { tree, up: params.up }))
}

impl Nca {
    pub fn new(tree: KaryNtree) -> Nca {
        Nca { tree, up: UpRule::Dmodk }
    }

    /// The tree shape the routing works on (labels, broadcast tree, group roots).
    pub fn tree(&self) -> &KaryNtree {
        &self.tree
    }

    /// Up ports `k+1..=2k` of a switch below the top (none on the top level). `2k + 1` fits `u16`
    /// because the generator keeps `k ≤ 32767`.
    fn up_ports(&self, level: u32) -> std::ops::Range<u16> {
        let k = self.tree.k() as u16;
        if level + 1 < self.tree.n() {
            k + 1..2 * k + 1
        } else {
            0..0
        }
    }
}

impl Routing for Nca {
    /// Multicast trees and worms may take any up-then-down turn, not only minimal ones (coll03 numbers levels from the leaves).
    fn allows_turn(&self, f: &Fabric, t: &Turn) -> bool {
        super::fat_tree_allows(f, t, |here, peer| peer > here)
    }
    fn engine(&self) -> &'static str {
        "nca"
    }
    fn spec(&self) -> String {
        match self.up {
            UpRule::Dmodk => "nca".into(),
            other => format!("nca:up={}", other.name()),
        }
    }
    fn run_time_choice(&self) -> Option<RunTimeChoice> {
        let rule = match self.up {
            UpRule::Dmodk => return None,
            UpRule::Random => ChoiceRule::Random,
            UpRule::Adaptive => ChoiceRule::Adaptive,
        };
        Some(RunTimeChoice { option: format!("up={}", self.up.name()), rule })
    }
    fn num_addresses(&self) -> usize {
        self.tree.num_endpoints() as usize
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        let Some(SwitchLabel { level, h, .. }) = self.tree.label(at) else { return };
        let x = to.0;
        if x >= self.tree.num_endpoints() {
            return;
        }
        let k = self.tree.k();
        let below = k.pow(level);
        // Digit `level` of the destination picks both the down port and the preferred up port.
        let digit = (x / below) % k;
        if x / (below * k) == h {
            out.push(Hop { port: PortNum((digit + 1) as u16), vc: 0 });
            return;
        }
        // Not below: climb. The top level serves every endpoint, so here `level + 1 < n`.
        let first = (k + 1 + digit) as u16;
        out.push(Hop { port: PortNum(first), vc: 0 });
        out.extend(self.up_ports(level).filter(|&p| p != first).map(|p| Hop { port: PortNum(p), vc: 0 }));
    }

    /// Every turn: at level `l`, a packet from below (down port or endpoint `a`) may go down any
    /// other down port or up any up port; a packet from above goes down any down port. All of them
    /// occur, because adaptive climbing reaches every ancestor of the source.
    fn turns(&self, _fabric: &Fabric) -> Option<Vec<Turn>> {
        let (k, n) = (self.tree.k() as u64, self.tree.n() as u64);
        let per_switch_top = k * (k - 1);
        let per_switch_inner = per_switch_top + 2 * k * k;
        let total = self.tree.switches_per_level() as u64 * (per_switch_top + (n - 1) * per_switch_inner);
        if total > MAX_ENUMERATED_TURNS {
            return None;
        }
        let k = k as u16;
        let mut v = Vec::with_capacity(total as usize);
        for s in 0..self.tree.num_switches() {
            let switch = SwitchId(s);
            let Some(label) = self.tree.label(switch) else { continue };
            let up: Vec<u16> = self.up_ports(label.level).collect();
            let mut turn = |i: u16, o: u16| {
                v.push(Turn { switch, in_port: PortNum(i), in_vc: 0, out_port: PortNum(o), out_vc: 0 })
            };
            for i in 1..=k {
                for o in (1..=k).filter(|&o| o != i).chain(up.iter().copied()) {
                    turn(i, o);
                }
            }
            for &i in &up {
                for o in 1..=k {
                    turn(i, o);
                }
            }
        }
        v.sort_unstable();
        Some(v)
    }

    fn facts(&self) -> Vec<(String, String)> {
        let t = &self.tree;
        let top = SwitchLabel { level: t.n() - 1, h: 0, r: 0 };
        vec![
            (
                "shape".into(),
                format!(
                    "k={} n={}: {} endpoints, {} switches of {} ports",
                    t.k(),
                    t.n(),
                    t.num_endpoints(),
                    t.num_switches(),
                    t.ports()
                ),
            ),
            ("levels".into(), format!("{} (level 0 holds the endpoints, level {} is the top)", t.n(), t.n() - 1)),
            (
                "ascent".into(),
                format!(
                    "legal: all up ports; rule up={} (deterministic choice: up port (dst div k^l) mod k)",
                    self.up.name()
                ),
            ),
            ("descent".into(), "deterministic: the one down port towards the destination".into()),
            ("broadcast tree root".into(), KaryNtree::switch_name(top)),
        ]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
