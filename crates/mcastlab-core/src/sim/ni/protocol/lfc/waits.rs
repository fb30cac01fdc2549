//! Who waits for whom among LFC's NIs: an NI with a non-empty blocked-sends queue waits for a
//! credit of that queue's receiver.
//!
//! A wait alone is no deadlock: the receiver's buffers may be full of packets that will free
//! themselves. In this model a regular receive buffer stays occupied until the packet's DMA to
//! its host is done and every copy the NI forwards of it has *left* (`Taken::holds`). The DMA
//! finishes on its own, and so does a forward in the transmit queue; only a forward in a
//! blocked-sends queue waits on another NI. So the test for a true deadlock is made on packets
//! (`deadlocked_pairs`): a pair (S, D) of NIs is *stuck* when S has copies blocked for D, every
//! one of S's `lfc.credits` buffers on D holds a packet (none is free, owed, returning or on its
//! way), and each of those packets has a copy blocked at D for some E whose pair (D, E) is stuck
//! too. The stuck pairs are the largest set that satisfies this (start from every full blocked
//! pair, drop pairs with a packet that waits on no pair left, until none drops): every pair in
//! it waits, buffer by buffer, on a cycle of such pairs or on a pair that does, so only recovery
//! can move it. A pair whose held packets wait for a different child that is not stuck, or only
//! for their DMA or their turn on the link, is no deadlock: a false alarm when recovered.
//! Deadlock buffers (recovery) are not regular buffers and do not count; a packet that moved
//! from one into a regular buffer does. The test is exact at a recovery's start and cheap: one
//! pass over the blocked copies and a shrinking loop over the full pairs, in NI order.

use super::Pair;
use crate::ids::EndpointId;
use crate::sim::ids::MsgId;
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

/// A pair of NIs: (sender, receiver).
type PairId = (EndpointId, EndpointId);

/// A received packet: its message and template-local copy id.
type Packet = (MsgId, u32);

/// Whether a blocked queue of `r` is stuck for good (see the module doc): some pair (r, D) is in
/// [`deadlocked_pairs`].
pub(super) fn truly_deadlocked<H>(
    pairs: &BTreeMap<PairId, Pair>,
    credits: u32,
    taking: Option<PairId>,
    holder: H,
    r: EndpointId,
) -> bool
where
    H: Fn(Packet, EndpointId) -> Option<EndpointId>,
{
    deadlocked_pairs(pairs, credits, taking, holder).iter().any(|&(s, _)| s == r)
}

/// The stuck pairs (module doc). `holder(p, at)`: the NI whose regular buffer on `at` packet
/// `p` occupies (`None` if it is in a deadlock buffer or no longer held). `taking`: the pair of a
/// packet its receiver is taking right now, which occupies a buffer though the pair still counts
/// it on its way.
pub(super) fn deadlocked_pairs<H>(
    pairs: &BTreeMap<PairId, Pair>,
    credits: u32,
    taking: Option<PairId>,
    holder: H,
) -> BTreeSet<PairId>
where
    H: Fn(Packet, EndpointId) -> Option<EndpointId>,
{
    // Per pair (S, D): each packet of S held at D that has a forward blocked at D, and for whom.
    let mut waiting: BTreeMap<PairId, BTreeMap<Packet, BTreeSet<EndpointId>>> = BTreeMap::new();
    for (&(d, e), p) in pairs {
        for c in &p.blocked {
            let Some(k) = c.parent else { continue };
            if let Some(s) = holder((c.msg, k), d) {
                waiting.entry((s, d)).or_default().entry((c.msg, k)).or_default().insert(e);
            }
        }
    }
    // Start from the full blocked pairs all of whose buffers hold such a packet.
    let mut stuck: BTreeSet<PairId> = pairs
        .iter()
        .filter(|(&id, p)| {
            let held = p.occupied + u32::from(taking == Some(id));
            !p.blocked.is_empty() && held == credits && waiting.get(&id).is_some_and(|w| w.len() as u32 == credits)
        })
        .map(|(&id, _)| id)
        .collect();
    loop {
        let free: Vec<PairId> = stuck
            .iter()
            .copied()
            .filter(|&(s, d)| waiting[&(s, d)].values().any(|to| !to.iter().any(|&e| stuck.contains(&(d, e)))))
            .collect();
        if free.is_empty() {
            return stuck;
        }
        for id in free {
            stuck.remove(&id);
        }
    }
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

    use crate::sim::ids::{PacketId, TemplateId};
    use crate::sim::ni::protocol::CopyRef;

    fn e(i: u32) -> EndpointId {
        EndpointId(i)
    }

    /// Copy `k` of message `msg` from NI `from` to NI `to`, forwarding packet `parent` (held at
    /// `from`) or from `from`'s own send buffers.
    fn copy(from: u32, to: u32, msg: usize, k: u32, parent: Option<u32>) -> CopyRef {
        CopyRef {
            from: e(from),
            to: e(to),
            msg: MsgId::from_index(msg),
            pid: PacketId::default(),
            k,
            parent,
            tree: TemplateId::from_index(msg),
            serial: msg as u64,
            packet: 0,
        }
    }

    /// Hand-built pair states: blocked queues, regular buffers occupied per pair, and which NI's
    /// buffer each held packet occupies.
    #[derive(Default)]
    struct State {
        pairs: BTreeMap<PairId, Pair>,
        held: BTreeMap<(Packet, EndpointId), EndpointId>,
    }

    impl State {
        fn block(&mut self, c: CopyRef) -> &mut Self {
            self.pairs.entry((c.from, c.to)).or_default().blocked.push_back(c);
            self
        }
        /// Packet `(msg, k)` of `from` sits in a regular buffer of `at`.
        fn hold(&mut self, from: u32, at: u32, msg: usize, k: u32) -> &mut Self {
            self.pairs.entry((e(from), e(at))).or_default().occupied += 1;
            self.held.insert(((MsgId::from_index(msg), k), e(at)), e(from));
            self
        }
        fn stuck(&self, credits: u32, taking: Option<PairId>) -> BTreeSet<PairId> {
            deadlocked_pairs(&self.pairs, credits, taking, |p, at| self.held.get(&(p, at)).copied())
        }
    }

    /// Three NIs in a ring, one credit per pair: NI i holds, in its one buffer of NI i-1, a
    /// packet whose forward to i+1 is blocked, and i's queue to i+1 holds that forward.
    fn ring() -> State {
        let mut s = State::default();
        for i in 0..3u32 {
            let (prev, next) = ((i + 2) % 3, (i + 1) % 3);
            // Message i: its packet k=0 reached NI i from prev; its copy k=1 goes on to next.
            s.hold(prev, i, i as usize, 0).block(copy(i, next, i as usize, 1, Some(0)));
        }
        s
    }

    #[test]
    fn a_ring_of_buffers_each_waiting_on_the_next_is_stuck() {
        let s = ring();
        let all: BTreeSet<PairId> = [(e(0), e(1)), (e(1), e(2)), (e(2), e(0))].into();
        assert_eq!(s.stuck(1, None), all);
        for r in 0..3 {
            assert!(truly_deadlocked(&s.pairs, 1, None, |p, at| s.held.get(&(p, at)).copied(), e(r)));
        }
        assert!(!truly_deadlocked(&s.pairs, 1, None, |p, at| s.held.get(&(p, at)).copied(), e(3)));
        // With two credits per pair every queue could still move: no pair is full.
        assert!(s.stuck(2, None).is_empty());
    }

    #[test]
    fn an_ni_waiting_on_the_ring_is_stuck_too() {
        let mut s = ring();
        // NI 3's one buffer at NI 0 holds a packet whose forward waits in 0's queue to 1.
        s.hold(3, 0, 7, 0).block(copy(0, 1, 7, 1, Some(0))).block(copy(3, 0, 8, 0, None));
        assert!(s.stuck(1, None).contains(&(e(3), e(0))));
        // The ring and the pair hanging off it.
        assert_eq!(s.stuck(1, None).len(), 4);
    }

    #[test]
    fn a_held_packet_waiting_for_another_child_breaks_the_ring() {
        let mut s = ring();
        // NI 1's held packet (message 0) waits for NI 3, not for NI 2; 1's queue to 2 holds a
        // copy of its own. Pair 1→3 is not full (no packet of 1 sits at 3), so it will move.
        s.pairs.get_mut(&(e(1), e(2))).unwrap().blocked = [copy(1, 2, 5, 0, None)].into();
        s.block(copy(1, 3, 0, 1, Some(0)));
        assert!(s.stuck(1, None).is_empty(), "{:?}", s.stuck(1, None));
    }

    #[test]
    fn a_held_packet_waiting_for_nothing_breaks_the_ring() {
        let mut s = ring();
        // Message 0's forward has left (or is in the transmit queue): its packet at NI 1 only
        // waits for its DMA to the host and frees the buffer on its own.
        s.pairs.get_mut(&(e(1), e(2))).unwrap().blocked = [copy(1, 2, 5, 0, None)].into();
        assert!(s.stuck(1, None).is_empty());
        // Likewise with two credits when only one of the two buffers waits on the ring.
        let mut two = ring();
        two.hold(0, 1, 9, 0);
        assert!(two.stuck(2, None).is_empty());
    }

    #[test]
    fn a_packet_being_taken_fills_its_buffer() {
        let mut s = ring();
        // NI 1 is taking message 0's packet now: the pair still counts it on its way.
        let p = s.pairs.get_mut(&(e(0), e(1))).unwrap();
        p.occupied -= 1;
        p.on_way += 1;
        assert!(s.stuck(1, None).is_empty());
        assert_eq!(s.stuck(1, Some((e(0), e(1)))).len(), 3);
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
