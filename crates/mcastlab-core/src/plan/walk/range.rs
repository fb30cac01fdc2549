//! Quadrics hardware multicast to a contiguous range of endpoints (coll03 §3).
//!
//! An Elite switch can copy a packet to several output ports only if they are adjacent, so one
//! multicast reaches a range `lo..=hi` of endpoints. To stay deadlock-free the QsNET starts the
//! copying only at the range's *root switch* (Definition 2: the nearest common ancestor of the
//! range that lies on the broadcast tree, the `r = 0` switches) and copies only along the broadcast
//! tree below it. The decode here does exactly that:
//!
//! 1. **Climb** from the sender's level-0 switch to the root switch `R` at level `l`. The first `l`
//!    up hops take up port `k+1` (the broadcast-tree parent, `j = 0`): that is the only way to
//!    arrive at an `r = 0` switch of level `l`. A sender below `R` is then there. Any other sender
//!    keeps climbing to the nearest common ancestor level of itself and `R`'s subtree and comes
//!    back down to `R`. Above level `l` it steers by the *steering endpoint*
//!    `a = h·k^(l+1) + d·k^l` (`h` = `R`'s subtree, digits below `l` zero), exactly as `nca`'s
//!    deterministic choice would route a unicast to `a`: up port `k+1+digit_m(a)`, down port
//!    `digit_m(a)+1`. The digit `d` is the last child of `R` the range touches (never 0 for
//!    `l ≥ 1`; for a single endpoint on port 1 of a level-0 root, `d = 1`). `d ≠ 0` keeps the
//!    descent off the broadcast tree — its links belong to other multicasts' replication — and two
//!    ranges sharing a root switch touch different children, so their descents (toward different
//!    steering endpoints) share no link either.
//! 2. **Replicate** at `R` and below, on broadcast-tree switches only, to every down port whose
//!    subtree meets `lo..=hi` (these ports are contiguous at every switch). When the sender lies
//!    below `R` in a child the range touches, the copy goes back down the link the packet came up:
//!    the root switch's turnaround, which no unicast route makes (see `plan/check.rs`).
//!
//! Every endpoint of `lo..=hi` gets one copy; a sender inside its own range would get one too.
//!
//! The QsNET chooses the up links above the root level adaptively (least loaded) at run time; the
//! header here holds only the range, so the decode fixes them from (sender, range). Two climbs of one
//! tree step may then share an up link that the hardware would have spread over another port; the
//! broadcast-tree links and the descents never are (the tests check this), and the
//! `max_step_contention` of a plan report shows how often it happens.

use super::{At, CarrierTree, Next, Walker};
use crate::fabric::generators::kary_ntree::{KaryNtree, SwitchLabel};
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::routing::Hop;

/// How a range multicast from one sender travels to its root switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeRoute {
    /// Level of the root switch (0 = the level endpoints attach to).
    pub level: u32,
    /// Subtree index `h` of the root switch: it serves endpoints `x` with `x div k^(level+1) = h`.
    pub subtree: u32,
    /// The root switch, `(level, subtree, 0)`.
    pub root: SwitchId,
    /// The steering endpoint `a` (see the module documentation).
    pub steer: u32,
    /// Highest level the packet reaches: `level` if the sender lies below the root, otherwise
    /// the nearest common ancestor level of the sender and the root's subtree.
    pub top: u32,
}

/// Base-k digit `m` of `x`.
fn digit(k: u32, x: u32, m: u32) -> u32 {
    (x / k.pow(m)) % k
}

/// The route of a range multicast `lo..=hi` sent by `sender`, or `None` when an endpoint lies
/// outside the tree or `lo > hi`.
pub fn range_route(t: &KaryNtree, sender: EndpointId, lo: EndpointId, hi: EndpointId) -> Option<RangeRoute> {
    let n = t.num_endpoints();
    if lo > hi || hi.0 >= n || sender.0 >= n {
        return None;
    }
    let (level, root) = t.group_root(lo, hi).ok()?;
    let k = t.k();
    let subtree = lo.0 / k.pow(level + 1);
    let d = match digit(k, hi.0, level) {
        0 => 1,
        d => d,
    };
    let steer = subtree * k.pow(level + 1) + d * k.pow(level);
    let top = if sender.0 / k.pow(level + 1) == subtree { level } else { t.nca_level(sender, EndpointId(steer))? };
    Some(RangeRoute { level, subtree, root, steer, top })
}

pub(super) fn walk(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, lo: EndpointId, hi: EndpointId) {
    let tree = match KaryNtree::from_fabric(w.f) {
        Ok(tree) => tree,
        Err(e) => {
            t.problems.push(format!("a range multicast needs a kary_ntree fabric ({e})"));
            return;
        }
    };
    let Some(route) = range_route(&tree, sender, lo, hi) else {
        t.problems.push(format!("range {}..{} is not a range of this tree's endpoints", lo.0, hi.0));
        return;
    };
    if let Some(at) = climb(w, t, &tree, start, &route) {
        replicate(w, t, &tree, at, route.level, lo, hi);
    }
}

/// Up `top` levels, then down to the root switch; returns the arrival there.
fn climb(w: &Walker<'_>, t: &mut CarrierTree, tree: &KaryNtree, start: At, route: &RangeRoute) -> Option<At> {
    let k = tree.k();
    let ups = (0..route.top).map(|m| (k + 1 + digit(k, route.steer, m)) as u16);
    let downs = (route.level + 1..=route.top).rev().map(|m| (digit(k, route.steer, m) + 1) as u16);
    let mut at = start;
    for port in ups.chain(downs) {
        match w.emit(t, at, Hop { port: PortNum(port), vc: 0 }) {
            Next::Switch(next) => at = next,
            _ => {
                t.problems.push(format!(
                    "port {port} of {} does not lead toward the root switch",
                    w.f.switch(at.switch).name
                ));
                return None;
            }
        }
    }
    if at.switch != route.root {
        t.problems.push(format!(
            "the climb ended at {} instead of the root switch {}",
            w.f.switch(at.switch).name,
            w.f.switch(route.root).name
        ));
        return None;
    }
    Some(at)
}

/// Copies the packet down the broadcast tree below the root to every endpoint of `lo..=hi`:
/// depth first, ports in ascending order.
fn replicate(
    w: &Walker<'_>,
    t: &mut CarrierTree,
    tree: &KaryNtree,
    root: At,
    level: u32,
    lo: EndpointId,
    hi: EndpointId,
) {
    let k = tree.k();
    let mut stack = vec![(root, level)];
    while let Some((at, m)) = stack.pop() {
        if w.too_long(t) {
            return;
        }
        let Some(SwitchLabel { h, r: 0, .. }) = tree.label(at.switch) else {
            t.problems.push(format!("{} is not on the broadcast tree", w.f.switch(at.switch).name));
            continue;
        };
        let span = k.pow(m);
        let mut next = Vec::new();
        for a in 0..k {
            let first = (h * k + a) * span;
            if first > hi.0 || first + span - 1 < lo.0 {
                continue;
            }
            if let Next::Switch(child) = w.emit(t, at, Hop { port: PortNum((a + 1) as u16), vc: 0 }) {
                if m == 0 {
                    t.problems.push(format!("port {} of {} leads to a switch", a + 1, w.f.switch(at.switch).name));
                } else {
                    next.push((child, m - 1));
                }
            }
        }
        stack.extend(next.into_iter().rev());
    }
}
