//! Shared machinery of the coll03 hardware multicast trees (`qs_greedy`, `qs_optimal`): the problem
//! state, a step's effect on it, a lower bound on the remaining depth, and the realization of a tree
//! as a [`Plan`] of parallel [`Carrier::Range`] multicasts.
//!
//! The algorithms of coll03 §5 only decide *which* groups each step reaches; they never match
//! senders to groups ("no matching between source nodes and destination groups is done"). To build a
//! plan a sender must be chosen for every group ([`assign_senders`]). Every climb to a root switch
//! at level `l` starts with `l` broadcast-tree up links (see `plan/walk/range.rs`), and the forward
//! overlap test is exactly Hall's condition for giving the step's groups senders whose
//! broadcast-tree up paths are disjoint. The matching first searches, depth first with a small
//! budget, for senders whose whole climbs are link-disjoint (preferring holders below the root
//! switch, whose climb ends there); if that fails, it serves groups from the highest root level down
//! so that the broadcast-tree parts stay disjoint (always possible when the test passed) and the
//! climbs above the root levels share as few links as possible.

use super::qs_groups::{sort_heuristic, Holders, QsGroup, QsNet};
use crate::error::PlanError;
use crate::fabric::generators::kary_ntree::KaryNtree;
use crate::fabric::{Fabric, Topology};
use crate::ids::EndpointId;
use crate::plan::walk::range::range_route;
use crate::plan::{Carrier, Plan, Transmission, Trigger};
use crate::schemes::interface::SchemeInput;
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
fn climb_links(tree: &KaryNtree, sender: EndpointId, g: &QsGroup) -> Vec<Link> {
    let mut out = Vec::new();
    climb_links_into(tree, sender, g, &mut out);
    out
}

/// [`climb_links`] into a reused buffer.
fn climb_links_into(tree: &KaryNtree, sender: EndpointId, g: &QsGroup, out: &mut Vec<Link>) {
    out.clear();
    if let Some(route) = range_route(tree, sender, g.lo, g.hi) {
        let k = tree.k();
        out.extend((0..route.top).map(|m| (m, sender.0 / k.pow(m + 1), route.steer % k.pow(m + 1))));
    }
}

/// Sender choices the link-disjoint search of one step may try before falling back.
pub const ASSIGN_BUDGET: u64 = 200;

/// A climb link: (level, block of `k^(level+1)` endpoints the switch serves, `r mod k^(level+1)`).
type Link = (u32, u32, u32);

/// Holders grouped by their level-0 switch: holders on one switch climb alike to any group (every
/// link of a climb is fixed by the sender's blocks of `k^(m+1)`, `m ≥ 0`), so a switch is chosen
/// first and one of its holders after.
struct Classes<'h> {
    /// (level-0 switch, its holders), by switch.
    of: Vec<(u32, &'h [EndpointId])>,
}

impl<'h> Classes<'h> {
    fn new(k: u32, holders: &'h [EndpointId]) -> Classes<'h> {
        let mut of = Vec::new();
        let mut i = 0;
        while i < holders.len() {
            let s = holders[i].0 / k;
            let j = i + holders[i..].partition_point(|x| x.0 / k == s);
            of.push((s, &holders[i..j]));
            i = j;
        }
        Classes { of }
    }

    /// Switches below the root switch of `g` first, then the others, each by index.
    fn order(&self, k: u32, g: &QsGroup) -> impl Iterator<Item = usize> {
        let below = k.pow(g.level);
        let first = g.lo.0 / k / below * below;
        let (a, b) = (self.of.partition_point(|c| c.0 < first), self.of.partition_point(|c| c.0 < first + below));
        (a..b).chain(0..a).chain(b..self.of.len())
    }
}

/// Chooses a sender for every group of a step (see the module documentation). `holders` must be
/// ascending. First a depth-first search looks for senders whose climbs share no up link (then the
/// broadcast-tree parts are disjoint too, which is what the forward-overlap test promises). If it
/// fails within [`ASSIGN_BUDGET`] tries, groups are served from the highest root level down by the
/// switch whose climb shares the fewest links with those chosen before, never a broadcast-tree link
/// (Hall's condition guarantees one): the QsNET's adaptive ascent would then share or reroute the
/// remaining up links.
pub fn assign_senders(tree: &KaryNtree, holders: &[EndpointId], step: &[QsGroup]) -> Result<Vec<QsSend>, PlanError> {
    let mut order: Vec<QsGroup> = step.to_vec();
    order.sort_unstable_by(|a, b| b.level.cmp(&a.level).then(a.lo.cmp(&b.lo)));
    let classes = Classes::new(tree.k(), holders);
    let mut search = Assign {
        tree,
        classes: &classes,
        left: classes.of.iter().map(|c| c.1.len()).collect(),
        used: HashSet::new(),
        chosen: Vec::with_capacity(order.len()),
        tries: 0,
    };
    let chosen = if search.dfs(&order) { search.chosen } else { fewest_shared(tree, &classes, &order)? };
    let mut taken = vec![0usize; classes.of.len()];
    Ok(order
        .iter()
        .zip(chosen)
        .map(|(g, c)| {
            taken[c] += 1;
            QsSend { sender: classes.of[c].1[taken[c] - 1], group: *g }
        })
        .collect())
}

struct Assign<'a> {
    tree: &'a KaryNtree,
    classes: &'a Classes<'a>,
    /// Holders still free per switch.
    left: Vec<usize>,
    used: HashSet<Link>,
    chosen: Vec<usize>,
    tries: u64,
}

impl Assign<'_> {
    /// Switches for `order[chosen.len()..]` whose climbs avoid every used link.
    fn dfs(&mut self, order: &[QsGroup]) -> bool {
        let Some(g) = order.get(self.chosen.len()) else { return true };
        let mut links = Vec::new();
        for c in self.classes.order(self.tree.k(), g) {
            if self.left[c] == 0 {
                continue;
            }
            climb_links_into(self.tree, self.classes.of[c].1[0], g, &mut links);
            if links.iter().any(|l| self.used.contains(l)) {
                continue;
            }
            self.tries += 1;
            if self.tries > ASSIGN_BUDGET {
                return false;
            }
            self.left[c] -= 1;
            self.used.extend(links.iter().copied());
            self.chosen.push(c);
            if self.dfs(order) {
                return true;
            }
            self.chosen.pop();
            for l in &links {
                self.used.remove(l);
            }
            self.left[c] += 1;
            if self.tries > ASSIGN_BUDGET {
                return false;
            }
        }
        false
    }
}

/// The fallback matching: groups from the highest root level down, each from the switch whose climb
/// shares no broadcast-tree link (`r = 0` links, the constrained part) and the fewest other links
/// with the climbs chosen before.
fn fewest_shared(tree: &KaryNtree, classes: &Classes<'_>, order: &[QsGroup]) -> Result<Vec<usize>, PlanError> {
    let mut left: Vec<usize> = classes.of.iter().map(|c| c.1.len()).collect();
    let mut used: HashSet<Link> = HashSet::new();
    let mut out = Vec::with_capacity(order.len());
    let mut links = Vec::new();
    for g in order {
        let mut best: Option<(usize, usize)> = None;
        for c in classes.order(tree.k(), g).filter(|&c| left[c] > 0) {
            climb_links_into(tree, classes.of[c].1[0], g, &mut links);
            let clash = |l: &&Link| used.contains(*l);
            if links.iter().filter(clash).any(|l| l.2 == 0) {
                continue;
            }
            let shared = links.iter().filter(clash).count();
            if best.is_none_or(|(_, s)| shared < s) {
                best = Some((c, shared));
            }
            if shared == 0 {
                break;
            }
        }
        let (c, _) = best.ok_or_else(|| {
            PlanError::Group(format!("no holder can send to {} in parallel (forward overlap)", g.text()))
        })?;
        left[c] -= 1;
        used.extend(climb_links(tree, classes.of[c].1[0], g));
        out.push(c);
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
