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

use super::circuit::HELD;
use super::engine::Simulation;
use super::result::{Diagnosis, Outcome};
use super::switch::BranchState;
use super::NONE;
use std::collections::BTreeMap;

/// Stops the run with a diagnosis of what is blocked.
pub(crate) fn diagnose(sim: &Simulation<'_>, reason: &str) -> Outcome {
    if sim.iq.is_some() {
        return super::iq::diagnose(sim, reason);
    }
    let mut waits: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut blocked = Vec::new();
    for buf in 0..sim.bufs.len() as u32 {
        let Some(&w) = sim.bufs[buf as usize].queue.front() else { continue };
        for (target, why) in blockers(sim, w) {
            blocked.push(format!("{} ({} packet {}): {why}", sim.buffer_name(buf), describe(sim, w), sim.worms[w].pid));
            if target != NONE {
                waits.entry(buf).or_default().push(target);
            }
        }
    }
    // Packets still in their sender's NI that cannot get onto the link.
    for id in 0..sim.worms.slots() as u32 {
        let w = &sim.worms[id];
        if w.alive && w.buf == NONE {
            for (_, why) in blockers(sim, id) {
                blocked.push(format!("NI send queue of packet {}: {why}", w.pid));
            }
        }
    }
    let cycle = find_cycle(&waits).into_iter().map(|b| sim.buffer_name(b)).collect();
    Outcome::Deadlock { at_ps: sim.now, reason: reason.to_string(), diagnosis: Diagnosis { cycle, blocked } }
}

fn describe(sim: &Simulation<'_>, w: u32) -> &'static str {
    if sim.worms[w].routed {
        "routed"
    } else {
        "unrouted"
    }
}

/// What the branches of worm `w` wait for: (buffer, explanation), buffer `NONE` when it is not a
/// switch buffer.
fn blockers(sim: &Simulation<'_>, w: u32) -> Vec<(u32, String)> {
    let worm = &sim.worms[w];
    let arrived = worm.arrived + worm.incoming.iter().filter(|t| **t <= sim.now).count() as u32;
    let mut out = Vec::new();
    for &b in &worm.branches {
        let br = &sim.branches[b];
        let node = sim.trees.nodes[br.node as usize];
        let ov = node.chan * sim.v + node.vc as u32;
        let o = &sim.outvcs[ov as usize];
        match br.state {
            BranchState::Done => {}
            BranchState::Active if o.credits_at(sim.now) == 0 && br.sent < arrived => {
                out.push((ov, format!("no credit for {}", sim.buffer_name(ov))));
            }
            BranchState::Active => {}
            BranchState::Waiting if o.holder == HELD => {
                let why = format!("the VC to {} is held by a circuit until its acknowledgement", sim.buffer_name(ov));
                out.push((NONE, why));
            }
            BranchState::Waiting if o.holder != NONE => {
                let holder = sim.worms[sim.branches[o.holder].worm].buf;
                let at = if holder == NONE { "an NI's send queue".to_string() } else { sim.buffer_name(holder) };
                let (target, starved) = release_waits_on(sim, o.holder);
                let why = match starved {
                    Some(up) => format!("; that packet waits for its flits from {}", sim.buffer_name(up)),
                    None => String::new(),
                };
                out.push((target, format!("the VC to {} is held by the packet in {at}{why}", sim.buffer_name(ov))));
            }
            BranchState::Waiting if o.waiters.front().is_some_and(|&f| sim.branches[f].gang) => {
                let why =
                    format!("the VC to {} is kept for a multicast that needs all its outputs", sim.buffer_name(ov));
                out.push((NONE, why));
            }
            BranchState::Waiting => {
                out.push((ov, format!("no room for the whole packet in {}", sim.buffer_name(ov))));
            }
        }
    }
    out
}

/// Flits of worm `w` that have arrived, landed ones included.
fn arrived(sim: &Simulation<'_>, w: u32) -> u32 {
    let worm = &sim.worms[w];
    worm.arrived + worm.incoming.iter().filter(|t| **t <= sim.now).count() as u32
}

/// The buffer whose progress releases the VC held by branch `b`: the holder's own buffer, or,
/// while the holder has sent all it has and waits for the rest of its packet, the buffer upstream
/// that holds that rest (followed as long as each is starved the same way). Also returns that
/// upstream buffer when it differs from the holder's.
fn release_waits_on(sim: &Simulation<'_>, b: u32) -> (u32, Option<u32>) {
    let mut w = sim.branches[b].worm;
    let own = sim.worms[w].buf;
    let mut br = b;
    for _ in 0..sim.worms.slots() {
        let worm = &sim.worms[w];
        let starved = sim.branches[br].sent >= arrived(sim, w) && arrived(sim, w) < worm.flits;
        let Some((up_branch, up)) = starved.then(|| upstream(sim, w)).flatten() else { break };
        if sim.worms[up].buf == NONE {
            break;
        }
        (w, br) = (up, up_branch);
    }
    let at = sim.worms[w].buf;
    (at, (at != own).then_some(at))
}

/// The branch (and its worm) feeding worm `w` from the previous buffer, if `w` is still fed.
fn upstream(sim: &Simulation<'_>, w: u32) -> Option<(u32, u32)> {
    (0..sim.worms.slots() as u32)
        .filter(|&id| sim.worms[id].alive)
        .flat_map(|id| sim.worms[id].branches.iter().map(move |&b| (b, id)))
        .find(|&(b, _)| sim.branches[b].down == w && sim.branches[b].state != BranchState::Done)
}

/// A cycle in the wait-for graph (iterative depth-first search, nodes in ascending order so the
/// witness is reproducible).
pub(crate) fn find_cycle(g: &BTreeMap<u32, Vec<u32>>) -> Vec<u32> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Finished,
    }
    let mut mark: BTreeMap<u32, Mark> = BTreeMap::new();
    for &start in g.keys() {
        if mark.get(&start).copied().unwrap_or(Mark::New) != Mark::New {
            continue;
        }
        let mut path: Vec<(u32, usize)> = vec![(start, 0)];
        mark.insert(start, Mark::OnPath);
        while let Some(&mut (n, ref mut next)) = path.last_mut() {
            let succ = g.get(&n).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&s) = succ.get(*next) {
                *next += 1;
                match mark.get(&s).copied().unwrap_or(Mark::New) {
                    Mark::OnPath => {
                        let from = path.iter().position(|(x, _)| *x == s).expect("on the path");
                        return path[from..].iter().map(|(x, _)| *x).collect();
                    }
                    Mark::New => {
                        mark.insert(s, Mark::OnPath);
                        path.push((s, 0));
                    }
                    Mark::Finished => {}
                }
            } else {
                mark.insert(n, Mark::Finished);
                path.pop();
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::find_cycle;
    use std::collections::BTreeMap;

    #[test]
    fn finds_the_cycle_and_only_a_cycle() {
        let g: BTreeMap<u32, Vec<u32>> = [(1, vec![2]), (2, vec![3]), (3, vec![4, 2]), (5, vec![1])].into();
        assert_eq!(find_cycle(&g), vec![2, 3]);
        let dag: BTreeMap<u32, Vec<u32>> = [(1, vec![2, 3]), (2, vec![3])].into();
        assert!(find_cycle(&dag).is_empty());
    }
}
