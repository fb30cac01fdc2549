//! Per-packet route choices: which branches a head takes at a tree node, for both network models.
//!
//! A node of a replication tree either copies the packet to all its children or, as a *fork*
//! (`sim::trees`), sends it down one of them, picked when the head is routed at that switch:
//!
//! * [`ChoiceRule::Random`]: uniformly, drawn from the ChaCha8 stream of the run seed keyed by
//!   the message's serial number, the packet and the node ([`Trees::draw`]). The key names the
//!   packet, not the moment, so a run is the same whatever the order of simultaneous events, the
//!   thread count of a sweep, or the network model; each packet of a message draws on its own,
//!   as BookSim draws per packet.
//! * [`ChoiceRule::Adaptive`]: the child whose output holds the most free credits (the model says
//!   how many, `free`), ties to the earlier child: the routing's order, its deterministic hop
//!   first (for `nca`, dmodk's up port, then the others by port number).

use super::super::ids::{MsgId, NodeId, PacketId};
use super::super::refs::MessageRefs;
use super::super::trees::Trees;
use crate::routing::ChoiceRule;

/// The branches a head of packet `pid` of `msg`, arrived through `node`, takes: every child, or
/// the one a fork picks. `free(child)` counts the free credits towards a child (adaptive rule).
#[inline]
pub(crate) fn branches<'t>(
    trees: &'t Trees,
    refs: &MessageRefs,
    node: NodeId,
    msg: MsgId,
    pid: PacketId,
    free: impl Fn(NodeId) -> u64,
) -> &'t [NodeId] {
    let n = trees.node(node);
    let kids = trees.children(n);
    let k = match n.fork {
        None => return kids,
        Some(ChoiceRule::Random) => trees.draw(node, refs.serial(msg), pid),
        Some(ChoiceRule::Adaptive) => most_free(kids.iter().map(|&c| free(c))),
    };
    std::slice::from_ref(&kids[k])
}

/// The index of the largest count, the first of equal ones.
fn most_free(counts: impl Iterator<Item = u64>) -> usize {
    let mut best = (0, None);
    for (k, c) in counts.enumerate() {
        if best.1.is_none_or(|b| c > b) {
            best = (k, Some(c));
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::most_free;

    #[test]
    fn the_most_free_child_wins_and_ties_go_to_the_first() {
        assert_eq!(most_free([3, 5, 5, 1].into_iter()), 1);
        assert_eq!(most_free([4, 4].into_iter()), 0);
        assert_eq!(most_free([0, 0, 1].into_iter()), 2);
    }
}
