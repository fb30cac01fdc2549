//! Deadlock diagnosis: when the watchdog fires, say which buffers wait for which.
//!
//! Each input buffer whose front packet cannot proceed waits for another buffer: for the far
//! buffer of a branch that holds its output VC but has no credit left, for the buffer of the
//! packet holding the VC it asked for, or (cut-through) for the far buffer that lacks room for
//! the whole packet. Those edges form a wait-for graph; a cycle in it is the deadlock's witness,
//! the dynamic counterpart of the channel dependency cycle the checker finds statically. A branch
//! that merely waits for flits from upstream adds no edge: its upstream is blocked for its own
//! reason, which the graph already shows.
//!
//! One exception, needed once packets replicate: a VC is released only when its holder's tail
//! has passed, so when the holder has sent every flit it has and waits for the rest from
//! upstream, whoever waits for that VC really waits for the buffer upstream that holds the rest of
//! the holder's packet. The edge then points there (following the packet upstream as far as it is
//! starved). Without it the cycle of concurrent multidestination worms — a worm holding an NI's
//! VC while its other branch is blocked further back — would not close.

use super::state::{BranchState, VcHolder};
use super::FlitNet;
use crate::fabric::Fabric;
use crate::sim::ids::{BranchId, VcId, WormId};
use crate::sim::net::buffer_name;
use crate::sim::net::waits::find_cycle;
use crate::sim::result::Diagnosis;
use crate::sim::trees::Trees;
use std::collections::BTreeMap;

/// What is blocked, and a cycle of buffers each waiting for the next if there is one.
pub(super) fn diagnose(net: &FlitNet, now: u64, f: &Fabric, trees: &Trees) -> Diagnosis {
    let name = |b: VcId| buffer_name(f, net.timing.vcs, b);
    let mut waits: BTreeMap<VcId, Vec<VcId>> = BTreeMap::new();
    let mut blocked = Vec::new();
    for (i, b) in net.bufs.iter().enumerate() {
        let buf = VcId::from_index(i);
        let Some(&w) = b.queue.front() else { continue };
        for (target, why) in blockers(net, now, f, trees, w) {
            blocked.push(format!("{} ({} packet {}): {why}", name(buf), describe(net, w), net.worms[w].pid.0));
            if let Some(target) = target {
                waits.entry(buf).or_default().push(target);
            }
        }
    }
    // Packets still in their sender's NI that cannot get onto the link.
    for (id, w) in net.worms.iter() {
        if w.alive && w.buf.is_none() {
            for (_, why) in blockers(net, now, f, trees, id) {
                blocked.push(format!("NI send queue of packet {}: {why}", w.pid.0));
            }
        }
    }
    let cycle = find_cycle(&waits).into_iter().map(name).collect();
    Diagnosis { cycle, blocked }
}

fn describe(net: &FlitNet, w: WormId) -> &'static str {
    if net.worms[w].routed() {
        "routed"
    } else {
        "unrouted"
    }
}

/// What the branches of worm `w` wait for: (buffer, explanation), no buffer when it is not a
/// switch buffer.
fn blockers(net: &FlitNet, now: u64, f: &Fabric, trees: &Trees, w: WormId) -> Vec<(Option<VcId>, String)> {
    let name = |b: VcId| buffer_name(f, net.timing.vcs, b);
    let arrived = arrived(net, now, w);
    let mut out = Vec::new();
    for &b in &net.worms[w].branches {
        let br = &net.branches[b];
        let node = trees.node(br.node);
        let ov = VcId::of(node.chan.0, node.vc as u32, net.timing.vcs);
        let o = &net.outvcs[ov.idx()];
        match (br.state, o.holder) {
            (BranchState::Done, _) => {}
            (BranchState::Active, _) if !o.has_credit_at(now) && br.sent < arrived => {
                out.push((Some(ov), format!("no credit for {}", name(ov))));
            }
            (BranchState::Active, _) => {}
            (BranchState::Waiting, VcHolder::Circuit) => {
                let why = format!("the VC to {} is held by a circuit until its acknowledgement", name(ov));
                out.push((None, why));
            }
            (BranchState::Waiting, VcHolder::Branch(holder)) => {
                let at = match net.worms[net.branches[holder].worm].buf {
                    None => "an NI's send queue".to_string(),
                    Some(hb) => name(hb),
                };
                let (target, starved) = release_waits_on(net, now, holder);
                let why = match starved {
                    Some(up) => format!("; that packet waits for its flits from {}", name(up)),
                    None => String::new(),
                };
                out.push((target, format!("the VC to {} is held by the packet in {at}{why}", name(ov))));
            }
            (BranchState::Waiting, VcHolder::Free) if o.waiters.front().is_some_and(|&x| net.branches[x].gang) => {
                let why = format!("the VC to {} is kept for a multicast that needs all its outputs", name(ov));
                out.push((None, why));
            }
            (BranchState::Waiting, VcHolder::Free) => {
                out.push((Some(ov), format!("no room for the whole packet in {}", name(ov))));
            }
        }
    }
    out
}

/// Flits of worm `w` that have arrived, landed ones included.
fn arrived(net: &FlitNet, now: u64, w: WormId) -> u32 {
    let worm = &net.worms[w];
    worm.arrived + worm.incoming.iter().filter(|t| **t <= now).count() as u32
}

/// The buffer whose progress releases the VC held by branch `b`: the holder's own buffer, or,
/// while the holder has sent all it has and waits for the rest of its packet, the buffer upstream
/// that holds that rest (followed as long as each is starved the same way). Also returns that
/// upstream buffer when it differs from the holder's.
fn release_waits_on(net: &FlitNet, now: u64, b: BranchId) -> (Option<VcId>, Option<VcId>) {
    let mut w = net.branches[b].worm;
    let own = net.worms[w].buf;
    let mut br = b;
    for _ in 0..net.worms.slots() {
        let worm = &net.worms[w];
        let starved = net.branches[br].sent >= arrived(net, now, w) && arrived(net, now, w) < worm.flits;
        let Some((up_branch, up)) = starved.then(|| upstream(net, w)).flatten() else { break };
        if net.worms[up].buf.is_none() {
            break;
        }
        (w, br) = (up, up_branch);
    }
    let at = net.worms[w].buf;
    (at, (at != own).then_some(at).flatten())
}

/// The branch (and its worm) feeding worm `w` from the previous buffer, if `w` is still fed.
fn upstream(net: &FlitNet, w: WormId) -> Option<(BranchId, WormId)> {
    net.worms
        .iter()
        .filter(|(_, x)| x.alive)
        .flat_map(|(id, x)| x.branches.iter().map(move |&b| (b, id)))
        .find(|&(b, _)| net.branches[b].down == Some(w) && !matches!(net.branches[b].state, BranchState::Done))
}
