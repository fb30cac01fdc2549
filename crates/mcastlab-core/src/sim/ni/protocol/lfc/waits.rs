//! Who waits for whom among LFC's NIs: an NI with a non-empty blocked-sends queue waits for a
//! credit of that queue's receiver. A cycle of such waits in which every pair's buffers are all
//! full at the receiver and no credit is on its way back is a true deadlock: each credit can
//! only come from a packet that waits on the next NI of the cycle.

use super::Pair;
use crate::ids::EndpointId;
use std::collections::{BTreeMap, BTreeSet};

/// One NI waiting for credits of another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wait {
    pub from: EndpointId,
    pub to: EndpointId,
    /// Copies in the blocked-sends queue.
    pub blocked: usize,
    /// The receiver's buffers for the sender that hold packets, and credits on their way back.
    pub occupied: u32,
    pub returning: u32,
}

/// Every wait, in NI order, and a cycle of waits if there is one (its NIs in order).
pub(super) fn waits(pairs: &BTreeMap<(EndpointId, EndpointId), Pair>) -> (Vec<Wait>, Vec<EndpointId>) {
    let all: Vec<Wait> = pairs
        .iter()
        .filter(|(_, p)| !p.blocked.is_empty())
        .map(|(&(from, to), p)| Wait {
            from,
            to,
            blocked: p.blocked.len(),
            occupied: p.occupied,
            returning: p.returning,
        })
        .collect();
    let edges: BTreeMap<EndpointId, Vec<EndpointId>> = all.iter().fold(BTreeMap::new(), |mut m, w| {
        m.entry(w.from).or_default().push(w.to);
        m
    });
    let cycle = edges.keys().find_map(|&start| cycle_through(&edges, start)).unwrap_or_default();
    (all, cycle)
}

/// Whether `r` is on a cycle of waits each of which only the next NI can end: the pair's
/// credits are all in occupied buffers at the receiver.
pub(super) fn on_true_cycle(pairs: &BTreeMap<(EndpointId, EndpointId), Pair>, r: EndpointId, credits: u32) -> bool {
    let mut edges: BTreeMap<EndpointId, Vec<EndpointId>> = BTreeMap::new();
    for (&(from, to), p) in pairs {
        if !p.blocked.is_empty() && p.occupied == credits {
            edges.entry(from).or_default().push(to);
        }
    }
    cycle_through(&edges, r).is_some()
}

/// A cycle from `start` back to it along `edges` (depth first, in NI order), if any.
fn cycle_through(edges: &BTreeMap<EndpointId, Vec<EndpointId>>, start: EndpointId) -> Option<Vec<EndpointId>> {
    let mut seen = BTreeSet::new();
    let mut path = vec![start];
    let mut stack = vec![(start, 0usize)];
    while let Some((at, i)) = stack.pop() {
        let next = edges.get(&at).and_then(|v| v.get(i)).copied();
        let Some(n) = next else {
            path.pop();
            continue;
        };
        stack.push((at, i + 1));
        if n == start {
            return Some(path);
        }
        if seen.insert(n) {
            path.push(n);
            stack.push((n, 0));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: u32) -> EndpointId {
        EndpointId(i)
    }

    #[test]
    fn finds_the_cycle_and_only_through_its_members() {
        // 0 -> 1 -> 2 -> 0, and 3 -> 0 hanging off it.
        let mut edges = BTreeMap::new();
        edges.insert(e(0), vec![e(1)]);
        edges.insert(e(1), vec![e(2)]);
        edges.insert(e(2), vec![e(0)]);
        edges.insert(e(3), vec![e(0)]);
        assert_eq!(cycle_through(&edges, e(0)), Some(vec![e(0), e(1), e(2)]));
        assert_eq!(cycle_through(&edges, e(3)), None, "3 waits on the cycle but is not on it");
        edges.insert(e(2), vec![e(3)]);
        assert_eq!(cycle_through(&edges, e(0)), Some(vec![e(0), e(1), e(2), e(3)]), "3 joins the cycle");
        edges.remove(&e(3));
        assert_eq!(cycle_through(&edges, e(0)), None, "a chain that ends is no cycle");
    }
}
