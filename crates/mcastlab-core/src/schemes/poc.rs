//! Partial Ordered Chains (sivaram98 Definition 5, §5.2.4, Fig. 13): chains of switches, each
//! joined to the next by an up*/down* "down" link one BFS level deeper.
//!
//! Why they matter: a multi-drop worm whose drop switches lie on one POC, in chain order, is routed
//! piece by piece by the minimal up*/down* tables and still follows one legal up*/down* path
//! (Theorems 4 and 5): between two switches of a POC every minimal route descends one level per
//! link, so it only takes down links. The same chains give the unicast trees an ordering with little
//! link contention (§4.3.4, `order=poc`).
//!
//! Fig. 13 in five steps, as implemented here:
//! 1. [`down_dag`]: the DAG `T` of down links that join switches on consecutive BFS levels (tree
//!    links and cross links between levels; same-level cross links are left out because a chain
//!    must gain one level per link). Children are kept in port order and a depth-first search from
//!    the root numbers the switches (preorder); that order breaks every tie below, so the result is
//!    deterministic.
//! 2. Participating switches: those with the source or a destination attached.
//! 3. [`reduce`]: `T'` keeps only participating switches; removing a switch links its parents to
//!    its children, so a `T'` edge stands for a down path of `T` whose inner switches do not
//!    participate (recorded, so a chain can be expanded back into a POC).
//! 4. The weight of a switch is the number of participating processors on it and on all its
//!    descendants in `T'` (each descendant counted once, even when several paths lead to it).
//! 5. [`pocs`]: chain stripping. Take the heaviest remaining switch, follow its heaviest remaining
//!    child, and so on; remove the chain; repeat until `T'` is empty. Weights are those of step 4,
//!    computed once, as Fig. 13 states them (not recomputed after each strip).

use super::SchemeInput;
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::{EndpointId, SwitchId};
use crate::routing::updown::UpDown;
use fixedbitset::FixedBitSet;

/// The up*/down* routing behind a scheme input: POC-based schemes need its BFS levels and link
/// directions.
pub fn updown<'a>(input: &SchemeInput<'a>, what: &str) -> Result<&'a UpDown, PlanError> {
    input.routing.as_any().downcast_ref::<UpDown>().ok_or_else(|| PlanError::Param {
        param: "routing",
        message: format!("{what} needs up*/down* routing (`updown`), not `{}`", input.routing.spec()),
    })
}

/// `applies` of the switch-based schemes: they need inter-switch links and an up*/down* routing,
/// which irregular, imported and hand-built fabrics get by default.
pub fn applies(f: &Fabric) -> Result<(), String> {
    let engine = crate::routing::default_engine(f);
    if engine != "updown" {
        return Err(format!(
            "it needs an up*/down*-routed fabric (irregular or imported); a {} fabric is routed by `{engine}`",
            f.topology().kind()
        ));
    }
    (crate::routing::updown::ENTRY.applies)(f)?;
    if !f.switch_ids().any(|s| !f.switch_neighbors(s).is_empty()) {
        return Err("it needs switch-to-switch links (this fabric has a single switch)".into());
    }
    Ok(())
}

/// Step 1 of Fig. 13: the DAG `T`.
#[derive(Clone, Debug)]
pub struct DownDag {
    /// Per switch: children over down links to the next BFS level, in port order, each once.
    pub children: Vec<Vec<SwitchId>>,
    /// Per switch: rank in the depth-first preorder from the root (children in port order).
    pub preorder: Vec<u32>,
    /// Per switch: BFS level (root = 0); every edge of `T` goes one level deeper.
    pub level: Vec<u32>,
}

/// Builds `T` from the routing's BFS levels and link directions.
pub fn down_dag(f: &Fabric, ud: &UpDown) -> DownDag {
    let children: Vec<Vec<SwitchId>> = f
        .switch_ids()
        .map(|s| {
            let mut c: Vec<SwitchId> = Vec::new();
            for (_, t, _, l) in f.switch_neighbors(s) {
                let next_level = ud.level(t) == ud.level(s) + 1;
                if next_level && ud.is_down(l, s) == Some(true) && !c.contains(&t) {
                    c.push(t);
                }
            }
            c
        })
        .collect();
    let preorder = dfs_preorder(&children, ud.root());
    DownDag { children, preorder, level: f.switch_ids().map(|s| ud.level(s)).collect() }
}

/// Depth-first preorder ranks from `root`; switches the search does not reach (none in a
/// connected fabric) rank after the others by id.
fn dfs_preorder(children: &[Vec<SwitchId>], root: SwitchId) -> Vec<u32> {
    let mut rank = vec![u32::MAX; children.len()];
    let mut next = 0u32;
    let mut stack = vec![root];
    while let Some(s) = stack.pop() {
        if rank[s.idx()] != u32::MAX {
            continue;
        }
        rank[s.idx()] = next;
        next += 1;
        stack.extend(children[s.idx()].iter().rev().filter(|c| rank[c.idx()] == u32::MAX));
    }
    for r in rank.iter_mut().filter(|r| **r == u32::MAX) {
        *r = next;
        next += 1;
    }
    rank
}

/// Participating processors per switch (Fig. 13 step 2): the source and the destinations, each
/// switch's list in port order.
pub fn participants(f: &Fabric, source: EndpointId, destinations: &[EndpointId]) -> Vec<Vec<EndpointId>> {
    let mut per: Vec<Vec<EndpointId>> = vec![Vec::new(); f.num_switches()];
    for &e in std::iter::once(&source).chain(destinations) {
        per[f.attachment(e).0.idx()].push(e);
    }
    for v in &mut per {
        v.sort_by_key(|e| f.attachment(*e).1);
    }
    per
}

/// `T'` (steps 3 and 4 of Fig. 13).
#[derive(Clone, Debug)]
pub struct Reduced {
    /// Participating switches in DFS preorder.
    pub switches: Vec<SwitchId>,
    /// Per switch: its `T'` children, each with the non-participating switches of the `T` path
    /// the edge replaces (empty for a direct link).
    pub children: Vec<Vec<(SwitchId, Vec<SwitchId>)>>,
    /// Per switch: participating processors on it and its `T'` descendants (0 off `T'`).
    pub weight: Vec<u64>,
}

/// Reduces `T` to the participating switches and weighs them.
pub fn reduce(t: &DownDag, rho: &[usize]) -> Reduced {
    let n = t.children.len();
    let mut switches: Vec<SwitchId> = (0..n as u32).map(SwitchId).filter(|s| rho[s.idx()] > 0).collect();
    switches.sort_by_key(|s| t.preorder[s.idx()]);
    let mut children = vec![Vec::new(); n];
    let mut seen = vec![u32::MAX; n];
    for (k, &s) in switches.iter().enumerate() {
        children[s.idx()] = reduced_children(t, rho, s, k as u32, &mut seen);
    }
    let weight = weights(t, &switches, &children, rho);
    Reduced { switches, children, weight }
}

/// Participating switches reachable from `s` in `T` through non-participating switches only, in
/// depth-first order, each with the inner switches of the path that found it. `seen` holds the
/// stamp of the search that last visited a switch.
fn reduced_children(
    t: &DownDag,
    rho: &[usize],
    s: SwitchId,
    stamp: u32,
    seen: &mut [u32],
) -> Vec<(SwitchId, Vec<SwitchId>)> {
    let mut out = Vec::new();
    // (switch, inner path to it)
    let mut stack: Vec<(SwitchId, Vec<SwitchId>)> =
        t.children[s.idx()].iter().rev().map(|c| (*c, Vec::new())).collect();
    while let Some((c, path)) = stack.pop() {
        if std::mem::replace(&mut seen[c.idx()], stamp) == stamp {
            continue;
        }
        if rho[c.idx()] > 0 {
            out.push((c, path));
            continue;
        }
        for g in t.children[c.idx()].iter().rev() {
            let mut p = path.clone();
            p.push(c);
            stack.push((*g, p));
        }
    }
    out
}

/// Step 4: weight = processors on the switch and its `T'` descendants. Descendant sets are bit
/// sets over the participating switches, filled deepest level first: a `T'` edge always leads to a
/// deeper level, so children are done before their parents. (The DFS preorder is no such order:
/// a cross link may lead to a switch the search found earlier through another parent.)
fn weights(t: &DownDag, switches: &[SwitchId], children: &[Vec<(SwitchId, Vec<SwitchId>)>], rho: &[usize]) -> Vec<u64> {
    let n = t.children.len();
    let mut index = vec![usize::MAX; n];
    for (k, s) in switches.iter().enumerate() {
        index[s.idx()] = k;
    }
    let p = switches.len();
    let mut by_depth: Vec<usize> = (0..p).collect();
    by_depth.sort_by_key(|k| std::cmp::Reverse(t.level[switches[*k].idx()]));
    let mut desc: Vec<FixedBitSet> = vec![FixedBitSet::with_capacity(p); p];
    let mut weight = vec![0u64; n];
    for k in by_depth {
        let s = switches[k];
        let mut d = std::mem::take(&mut desc[k]);
        d.insert(k);
        for (c, _) in &children[s.idx()] {
            d.union_with(&desc[index[c.idx()]]);
        }
        weight[s.idx()] = d.ones().map(|j| rho[switches[j].idx()] as u64).sum();
        desc[k] = d;
    }
    weight
}

/// One chain stripped from `T'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poc {
    /// The participating switches of the chain (`l_i` of Fig. 13), in chain order.
    pub switches: Vec<SwitchId>,
    /// The chain with the removed non-participating switches put back: a POC in the sense of
    /// Definition 5 (each switch joined to the next by a down link one level deeper).
    pub path: Vec<SwitchId>,
    /// The participating processors on the chain (`l'_i`), switch by switch in chain order and
    /// in port order on each switch; the source is among them when its switch is on the chain.
    pub processors: Vec<EndpointId>,
}

/// Fig. 13: the POCs covering the source and destinations, in stripping order (heaviest first).
pub fn pocs(f: &Fabric, ud: &UpDown, source: EndpointId, destinations: &[EndpointId]) -> Vec<Poc> {
    let per = participants(f, source, destinations);
    let rho: Vec<usize> = per.iter().map(Vec::len).collect();
    let t = down_dag(f, ud);
    let r = reduce(&t, &rho);
    strip(&t, &r, &per)
}

/// Step 5: chain stripping. Ties in weight go to the switch earlier in the DFS preorder.
pub fn strip(t: &DownDag, r: &Reduced, per: &[Vec<EndpointId>]) -> Vec<Poc> {
    let key = |s: SwitchId| (std::cmp::Reverse(r.weight[s.idx()]), t.preorder[s.idx()]);
    let mut heads = r.switches.clone();
    heads.sort_by_key(|s| key(*s));
    let mut removed = vec![false; t.children.len()];
    let mut out = Vec::new();
    for &head in &heads {
        if removed[head.idx()] {
            continue;
        }
        let mut poc = Poc { switches: Vec::new(), path: Vec::new(), processors: Vec::new() };
        let mut cur = head;
        loop {
            removed[cur.idx()] = true;
            poc.switches.push(cur);
            poc.path.push(cur);
            poc.processors.extend_from_slice(&per[cur.idx()]);
            let next = r.children[cur.idx()].iter().filter(|(c, _)| !removed[c.idx()]).min_by_key(|(c, _)| key(*c));
            let Some((c, inner)) = next else { break };
            poc.path.extend_from_slice(inner);
            cur = *c;
        }
        out.push(poc);
    }
    out
}

/// The POC ordering of a multicast group for unicast trees (sivaram98 §4.3.4): the source, then
/// the destinations chain by chain in stripping order, switch by switch along each chain.
pub fn order(f: &Fabric, ud: &UpDown, source: EndpointId, destinations: &[EndpointId]) -> Vec<EndpointId> {
    let mut v = Vec::with_capacity(destinations.len() + 1);
    v.push(source);
    for p in pocs(f, ud, source, destinations) {
        v.extend(p.processors.into_iter().filter(|e| *e != source));
    }
    v
}

/// True if `a → b` is a down link of `T` (Definition 5: a down tree or cross link to the next
/// BFS level).
pub fn is_poc_link(f: &Fabric, ud: &UpDown, a: SwitchId, b: SwitchId) -> bool {
    ud.level(b) == ud.level(a) + 1
        && f.switch_neighbors(a).iter().any(|(_, t, _, l)| *t == b && ud.is_down(*l, a) == Some(true))
}
