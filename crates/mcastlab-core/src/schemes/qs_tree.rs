//! Shared machinery of the coll03 hardware multicast trees (`qs_greedy`, `qs_optimal`): the problem
//! state, a step's effect on it, a lower bound on the remaining depth, and the realization of a tree
//! as a [`Plan`] of parallel [`Carrier::Range`] multicasts.
//!
//! The algorithms of coll03 §5 only decide *which* groups each step reaches; they never match
//! senders to groups ("no matching between source nodes and destination groups is done"). To build a
//! plan a sender must be chosen for every group ([`assign_senders`]): groups are served from the
//! highest root level down, each by a holder whose block of `k^l` endpoints no earlier (higher or
//! equal level) sender occupies — the greedy matching that Hall's condition `N_l ≤ V_l` (no forward
//! overlap) guarantees to succeed. Among the allowed holders, one below the group's root switch is
//! preferred (its climb stays on the broadcast tree), then one whose climb shares no up link with
//! the step's other climbs (see `plan/walk/range.rs` for the route), so a step's multicasts are
//! link-disjoint whenever such holders exist.

use super::qs_groups::{sort_heuristic, Holders, QsGroup, QsNet};
use super::SchemeInput;
use crate::error::PlanError;
use crate::fabric::generators::kary_ntree::KaryNtree;
use crate::fabric::{Fabric, Topology};
use crate::ids::EndpointId;
use crate::plan::walk::range::range_route;
use crate::plan::{Carrier, Plan, Transmission, Trigger};
use fixedbitset::FixedBitSet;
use serde::Serialize;
use std::collections::HashSet;

/// A hardware-based multicast tree: the groups reached in each step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QsTree {
    pub steps: Vec<Vec<QsGroup>>,
}

impl QsTree {
    /// Number of steps.
    pub fn depth(&self) -> u32 {
        self.steps.len() as u32
    }
}

/// `applies` of the hardware tree schemes: an unedited `kary_ntree`, since the range carrier's
/// broadcast tree and root switches are defined by the generator's labelling.
pub fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::KaryNtree(_) => crate::fabric::generators::matches_generated(f),
        other => Err(format!("Quadrics hardware multicast needs a kary_ntree fabric (this one is `{}`)", other.kind())),
    }
}

/// The start of a problem: the source holds the message; the groups (disjoint, inside the network)
/// are pending, except a group made only of the source, which is already reached.
pub fn start(net: &QsNet, source: EndpointId, groups: &[QsGroup]) -> Result<(Holders, Vec<QsGroup>), PlanError> {
    if source.0 >= net.size() {
        return Err(PlanError::Group(format!("source {} is not in 0..{}", source.0, net.size())));
    }
    let mut checked: Vec<QsGroup> = groups.iter().map(|g| net.group(g.lo, g.hi)).collect::<Result<_, _>>()?;
    checked.sort_unstable();
    if let Some(w) = checked.windows(2).find(|w| w[0].hi >= w[1].lo) {
        return Err(PlanError::Group(format!("groups {} and {} overlap", w[0].text(), w[1].text())));
    }
    let holders = Holders::from_endpoints(net, &[source]);
    checked.retain(|g| !(g.lo == source && g.hi == source));
    sort_heuristic(&mut checked);
    Ok((holders, checked))
}

/// The state after a step reaches `reached` (pieces of pending groups): new holders, and the
/// pending endpoints cut into maximal groups again, in heuristic order.
pub fn advance(net: &QsNet, holders: &Holders, pending: &[QsGroup], reached: &[QsGroup]) -> (Holders, Vec<QsGroup>) {
    let mut h = holders.clone();
    for g in reached {
        h.add_range(net, g.lo, g.hi);
    }
    let mut cut: Vec<QsGroup> = reached.to_vec();
    cut.sort_unstable();
    let mut left = Vec::with_capacity(pending.len() + reached.len());
    for p in pending {
        let mut from = p.lo.0;
        let first = cut.partition_point(|g| g.lo < p.lo);
        for g in cut[first..].iter().take_while(|g| g.hi <= p.hi) {
            if g.lo.0 > from {
                left.push(net.group_of(from, g.lo.0 - 1));
            }
            from = g.hi.0 + 1;
        }
        if from <= p.hi.0 {
            left.push(net.group_of(from, p.hi.0));
        }
    }
    // Only the source can be both holder and pending (when it belongs to a group).
    left.retain(|g| !(g.lo == g.hi && h.contains(g.lo)));
    sort_heuristic(&mut left);
    (h, left)
}

/// A lower bound on the steps still needed: in one step `h` holders reach at most `h` groups, and
/// at best the largest ones, which then hold the message too. Splitting only adds groups, so
/// repeatedly reaching the largest remaining groups is never slower than a real tree.
pub fn lower_bound(holders: u32, pending: &[QsGroup]) -> u32 {
    let mut sizes: Vec<u64> = pending.iter().map(|g| g.len() as u64).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let (mut h, mut i, mut steps) = (holders as u64, 0usize, 0u32);
    while i < sizes.len() {
        let take = (h as usize).min(sizes.len() - i);
        h += sizes[i..i + take].iter().sum::<u64>();
        i += take;
        steps += 1;
    }
    steps
}

/// The destination groups of a scheme input: the destinations cut into maximal contiguous groups
/// (the source, not being a destination, breaks contiguity like any non-member).
pub fn problem(input: &SchemeInput<'_>, scheme: &str) -> Result<(KaryNtree, QsNet, Vec<QsGroup>), PlanError> {
    let tree = KaryNtree::from_fabric(input.fabric).map_err(|e| PlanError::NotApplicable {
        scheme: scheme.to_string(),
        reason: e.to_string(),
        applicable: String::new(),
    })?;
    let net = QsNet::from_tree(&tree);
    let groups = net.decompose(input.destinations)?;
    Ok((tree, net, groups))
}

/// One multicast of a tree step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct QsSend {
    pub sender: EndpointId,
    pub group: QsGroup,
}

/// Up links of the climb of a range multicast, as `(level, block of k^(level+1), r mod k^(level+1))`:
/// the level-`m` switch a climb leaves from is fixed by the sender's block and by the up ports taken
/// below it, and the port by the steering endpoint's digit `m`.
fn climb_links(tree: &KaryNtree, sender: EndpointId, g: &QsGroup) -> Vec<(u32, u32, u32)> {
    let Some(route) = range_route(tree, sender, g.lo, g.hi) else { return Vec::new() };
    let k = tree.k();
    (0..route.top).map(|m| (m, sender.0 / k.pow(m + 1), route.steer % k.pow(m + 1))).collect()
}

/// Sender choices the link-disjoint search of one step may try before falling back.
pub const ASSIGN_BUDGET: u64 = 20_000;

/// Chooses a sender for every group of a step (see the module documentation). `holders` must be
/// ascending. First a depth-first search looks for senders whose climbs share no up link (the
/// broadcast-tree part of the climbs is then disjoint too, which is the forward-overlap condition);
/// holders on one level-0 switch climb alike, so only one of them is tried per group. If that fails
/// within [`ASSIGN_BUDGET`] tries, the Hall matching is used, which keeps the broadcast-tree up paths
/// disjoint and lets climbs above the root levels share links (the QsNET would serialize them).
pub fn assign_senders(tree: &KaryNtree, holders: &[EndpointId], step: &[QsGroup]) -> Result<Vec<QsSend>, PlanError> {
    let mut order: Vec<QsGroup> = step.to_vec();
    order.sort_unstable_by(|a, b| b.level.cmp(&a.level).then(a.lo.cmp(&b.lo)));
    let mut search = Assign {
        tree,
        holders,
        busy: FixedBitSet::with_capacity(tree.num_endpoints() as usize),
        used: HashSet::new(),
        chosen: Vec::with_capacity(order.len()),
        tries: 0,
    };
    if search.dfs(&order) {
        return Ok(order.iter().zip(search.chosen).map(|(g, sender)| QsSend { sender, group: *g }).collect());
    }
    hall_matching(tree, holders, &order)
}

/// Holders below the root switch of `g` first (their climb stays on the broadcast tree), then the
/// others, each in ascending order.
fn candidates<'h>(tree: &KaryNtree, holders: &'h [EndpointId], g: &QsGroup) -> impl Iterator<Item = EndpointId> + 'h {
    let below = tree.k().pow(g.level + 1);
    let root_lo = EndpointId(g.lo.0 / below * below);
    let root_hi = EndpointId(root_lo.0 + below - 1);
    let (a, b) = (holders.partition_point(|x| *x < root_lo), holders.partition_point(|x| *x <= root_hi));
    holders[a..b].iter().chain(&holders[..a]).chain(&holders[b..]).copied()
}

struct Assign<'a> {
    tree: &'a KaryNtree,
    holders: &'a [EndpointId],
    busy: FixedBitSet,
    used: HashSet<(u32, u32, u32)>,
    chosen: Vec<EndpointId>,
    tries: u64,
}

impl Assign<'_> {
    /// Senders for `order[chosen.len()..]` whose climbs avoid every used link.
    fn dfs(&mut self, order: &[QsGroup]) -> bool {
        let Some(g) = order.get(self.chosen.len()) else { return true };
        let mut tried: HashSet<Vec<(u32, u32, u32)>> = HashSet::new();
        for t in candidates(self.tree, self.holders, g) {
            if self.busy.contains(t.idx()) {
                continue;
            }
            let links = climb_links(self.tree, t, g);
            if links.iter().any(|l| self.used.contains(l)) || !tried.insert(links.clone()) {
                continue;
            }
            self.tries += 1;
            if self.tries > ASSIGN_BUDGET {
                return false;
            }
            self.busy.insert(t.idx());
            self.used.extend(links.iter().copied());
            self.chosen.push(t);
            if self.dfs(order) {
                return true;
            }
            self.chosen.pop();
            for l in &links {
                self.used.remove(l);
            }
            self.busy.set(t.idx(), false);
            if self.tries > ASSIGN_BUDGET {
                return false;
            }
        }
        false
    }
}

/// Groups from the highest root level down, each served by a free holder whose block of `k^l`
/// endpoints no earlier sender occupies (preferring one below the root): Hall's condition, i.e. no
/// forward overlap, makes this always succeed.
fn hall_matching(tree: &KaryNtree, holders: &[EndpointId], order: &[QsGroup]) -> Result<Vec<QsSend>, PlanError> {
    let net = QsNet::from_tree(tree);
    let mut busy = FixedBitSet::with_capacity(net.size() as usize);
    let mut occupied: Vec<FixedBitSet> =
        (0..net.levels()).map(|l| FixedBitSet::with_capacity(net.size().div_ceil(net.span(l)) as usize)).collect();
    let mut out = Vec::with_capacity(order.len());
    for g in order {
        let sender = candidates(tree, holders, g)
            .find(|&t| !busy.contains(t.idx()) && !occupied[g.level as usize].contains(net.block(t, g.level) as usize))
            .ok_or_else(|| {
                PlanError::Group(format!("no holder can send to {} in parallel (forward overlap)", g.text()))
            })?;
        busy.insert(sender.idx());
        for l in 1..=g.level {
            occupied[l as usize].insert(net.block(sender, l) as usize);
        }
        out.push(QsSend { sender, group: *g });
    }
    Ok(out)
}

/// Senders for every step of a tree, starting from `source`.
pub fn assign_tree(tree: &KaryNtree, source: EndpointId, t: &QsTree) -> Result<Vec<Vec<QsSend>>, PlanError> {
    let mut holders = vec![source];
    let mut out = Vec::with_capacity(t.steps.len());
    for step in &t.steps {
        let sends = assign_senders(tree, &holders, step)?;
        for g in step {
            holders.extend((g.lo.0..=g.hi.0).map(EndpointId));
        }
        holders.sort_unstable();
        holders.dedup();
        out.push(sends);
    }
    Ok(out)
}

/// The plan of a hardware tree: one [`Carrier::Range`] transmission per group and step, the source's
/// started at once, every other one after the whole message reached its sender.
pub fn build_plan(input: &SchemeInput<'_>, scheme: String, tree: &KaryNtree, t: &QsTree) -> Result<Plan, PlanError> {
    let mut reached_by: Vec<Option<u32>> = vec![None; tree.num_endpoints() as usize];
    let mut tx: Vec<Transmission> = Vec::new();
    for sends in assign_tree(tree, input.source, t)? {
        let first = tx.len();
        for s in &sends {
            let trigger = match reached_by[s.sender.idx()] {
                Some(from) => Trigger::AfterMessage { from },
                None => Trigger::Start,
            };
            tx.push(Transmission {
                sender: s.sender,
                trigger,
                carrier: Carrier::Range { lo: s.group.lo, hi: s.group.hi },
                delivers: (s.group.lo.0..=s.group.hi.0).map(EndpointId).collect(),
            });
        }
        for (i, s) in sends.iter().enumerate() {
            for x in s.group.lo.0..=s.group.hi.0 {
                reached_by[x as usize] = Some((first + i) as u32);
            }
        }
    }
    Plan::from_transmissions(
        input.fabric,
        &scheme,
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        tx,
    )
}
