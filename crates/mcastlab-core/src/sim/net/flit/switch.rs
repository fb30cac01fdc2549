//! Switches: input-buffered, one FIFO buffer per input port and VC, with replication.
//!
//! What is modelled: a packet arriving in an input buffer is a *worm* (sivaram98's term for a
//! packet in flight, flits strung over buffers). Only the worm at the front of a buffer is
//! routed; its header is decoded `switch.routing_delay` after the head flit arrived (after the
//! tail under store-and-forward) and yields its *branches*: the output channels the plan walker
//! found for this switch (one for a unicast, several where a worm or hardware multicast
//! replicates). Each branch asks for its output VC and then reads the worm's flits at its own pace
//! — a blocked branch does not hold back the others — and a flit's buffer slot is freed, and its
//! credit sent upstream, only once every branch has read it (sivaram98 §5.1.2's asynchronous
//! replication with a per-chunk read count, chunk = flit here). The next worm in the FIFO is
//! decoded once the previous one has left completely, so packets streaming through one input
//! each pay the routing delay (as in an input-queued router such as BookSim's). A switch whose
//! decode yields no branch (an MFT without an entry) drops the packet, freeing its flits as they
//! arrive.
//!
//! Not modelled: header length (a worm's header, however long its destination list or bit
//! string, rides in the packet's flits like payload, and per-branch header rewriting costs no
//! time beyond the routing delay) and separate VC- and switch-allocation pipeline stages.
//!
//! Quadrics hardware multicast (coll03 §3) differs in two ways, each in its own file: a range
//! multicast that replicates at a switch asks for all its output VCs at once and waits until it
//! can have them all (`gang.rs`), and with `switch.circuit_until_ack` every packet keeps the VCs
//! it took until the combined acknowledgement of its copies comes back (`circuit.rs`).
//!
//! Flit arrivals cost no event: a sent flit's arrival time is queued on the worm it joins and
//! taken in when a branch looks for a flit (or the header's decode is scheduled at the head's
//! arrival); only a branch that has read everything is woken, at the arrival of its next flit.
//! State lives in index-addressed slabs (worms, branches) whose slots, and the lists inside them,
//! are reused: the steady state allocates nothing.

use super::state::{BranchState, Decode};
use super::{FlitEvent, FlitNet};
use crate::sim::ids::{VcId, WormId};
use crate::sim::net::{choice, NetCtx};

impl FlitNet {
    /// Flit `i` of a packet will arrive at `at` in worm `id`'s buffer.
    #[inline(always)]
    pub(super) fn flit_sent_to(&mut self, cx: &mut NetCtx<'_>, id: WormId, i: u32, at: u64) {
        let w = &mut self.worms[id];
        if i == 0 {
            w.head_at = Some(at);
        }
        if i + 1 == w.flits {
            w.tail_at = Some(at);
        }
        if matches!(w.decode, Decode::Dropped) {
            self.queue.push(at, FlitEvent::FlitArrive { worm: id });
            return;
        }
        w.incoming.push_back(at);
        if matches!(w.decode, Decode::Routed) {
            // Wake the branches that have read everything sent so far: this flit is next.
            for k in 0..self.worms[id].branches.len() {
                let b = &self.branches[self.worms[id].branches[k]];
                if matches!(b.state, BranchState::Active) && b.sent == i {
                    let chan = cx.trees.node(b.node).chan;
                    self.kick_at(cx, chan, at);
                }
            }
        } else if i == 0 || i + 1 == self.worms[id].flits {
            self.try_route(cx, id);
        }
    }

    /// Takes in the flits that have arrived by now.
    #[inline(always)]
    pub(super) fn absorb_arrivals(&mut self, now: u64, id: WormId) {
        let w = &mut self.worms[id];
        let mut n = 0;
        while let Some(&t) = w.incoming.front() {
            if t > now {
                break;
            }
            w.incoming.pop_front();
            n += 1;
        }
        if n > 0 {
            w.arrived += n;
            let buf = w.buf.expect("flits arrive in a buffer");
            let b = &mut self.bufs[buf.idx()];
            b.occ += n;
            self.stats.note_occupancy(b.occ, buf);
        }
    }

    /// Flits in buffer `buf` now: those taken in (`occ`) and those that have landed in packets
    /// no branch has looked at yet (a packet queued behind the front one, or one whose branches
    /// wait for their VCs).
    pub(super) fn held(&self, now: u64, buf: VcId) -> u32 {
        if self.timing.packet {
            return self.train_held(now, buf);
        }
        let b = &self.bufs[buf.idx()];
        let landed = |w: &WormId| self.worms[*w].incoming.iter().take_while(|t| **t <= now).count() as u32;
        b.occ + b.queue.iter().map(landed).sum::<u32>()
    }

    /// Before slots of the front packet of `buf` are freed, takes in the flits that have landed
    /// in the packets queued behind it, so the occupancy peak is recorded. Occupancy only grows
    /// between frees, so its peaks are just before them (a flit arriving at the instant another
    /// leaves holds a slot too: the freed slot is usable upstream only after the credit delay);
    /// the front packet's landed flits are taken in already (the branch that frees them has just
    /// looked), but those behind it would otherwise wait until they reach the front.
    #[inline]
    fn take_in_queued(&mut self, now: u64, buf: VcId) {
        if self.bufs[buf.idx()].queue.len() > 1 {
            self.take_in_behind_front(now, buf);
        }
    }

    /// Kept out of line so that freeing slots, which runs once per flit and buffer, stays small.
    #[inline(never)]
    fn take_in_behind_front(&mut self, now: u64, buf: VcId) {
        for k in 1..self.bufs[buf.idx()].queue.len() {
            let w = self.bufs[buf.idx()].queue[k];
            self.absorb_arrivals(now, w);
        }
    }

    /// A flit has arrived in a buffer whose packet is dropped (decoded to no branch).
    pub(super) fn on_flit_arrive(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let w = &mut self.worms[id];
        w.arrived += 1;
        let (buf, arrived) = (w.buf.expect("a dropped packet is in a buffer"), w.arrived);
        self.bufs[buf.idx()].occ += 1;
        self.free_slots(cx, id, arrived);
    }

    /// Schedules the header decode of a worm at the front of its buffer, once its head (under
    /// store-and-forward, its tail) is there.
    pub(super) fn try_route(&mut self, cx: &NetCtx<'_>, id: WormId) {
        let w = &self.worms[id];
        let ready = if self.timing.store_and_forward { w.tail_at } else { w.head_at };
        let buf = w.buf.expect("a worm to decode is in a buffer");
        let Some(ready) = ready else { return };
        if !matches!(w.decode, Decode::Waiting) || self.bufs[buf.idx()].queue.front() != Some(&id) {
            return;
        }
        self.worms[id].decode = Decode::Pending;
        self.queue.push(ready.max(cx.now) + self.timing.routing, FlitEvent::Route { worm: id, buf });
    }

    /// The header is decoded: one branch per output the tree has at this switch.
    pub(super) fn on_route(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let w = &mut self.worms[id];
        w.decode = Decode::Routed;
        let (node, msg, pid) = (w.node.expect("a worm in a buffer came through a tree node"), w.msg, w.pid);
        let n = cx.trees.node(node);
        let kids = choice::branches(cx.trees, cx.refs, node, msg, pid, |k| self.free_credits(cx, k));
        if kids.is_empty() {
            self.worms[id].decode = Decode::Dropped;
            if self.timing.packet {
                return self.train_sink(cx, id);
            }
            self.absorb_arrivals(cx.now, id);
            let w = &mut self.worms[id];
            let arrived = w.arrived;
            let rest: Vec<u64> = w.incoming.drain(..).collect();
            for t in rest {
                self.queue.push(t, FlitEvent::FlitArrive { worm: id });
            }
            self.free_slots(cx, id, arrived);
            return;
        }
        for &child in kids {
            self.new_branch(id, child);
        }
        if self.timing.circuits {
            self.open_circuit(cx, id);
        }
        let count = kids.len();
        if count > 1 && cx.trees.gang(n.tx) {
            for k in 0..count {
                let b = self.worms[id].branches[k];
                self.branches[b].gang = true;
            }
            self.request_gang(cx, id);
            return;
        }
        for k in 0..count {
            let b = self.worms[id].branches[k];
            self.request_vc(cx, b);
        }
    }

    /// Credits the sender of tree node `k`'s VC knows of by now, free slots at its far end (the
    /// adaptive rule's measure; an NI's unlimited ones count as the most).
    fn free_credits(&self, cx: &NetCtx<'_>, k: crate::sim::ids::NodeId) -> u64 {
        let node = cx.trees.node(k);
        let o = &self.outvcs[self.vc_id(node.chan, node.vc as u32).idx()];
        match o.credits.count() {
            None => u64::MAX,
            Some(c) => {
                c as u64 + o.returns.iter().take_while(|(t, _)| *t <= cx.now).map(|&(_, n)| n as u64).sum::<u64>()
            }
        }
    }

    /// Branch reading flit `i` may free a slot: slots are freed up to the slowest branch.
    #[inline(always)]
    pub(super) fn read_flit(&mut self, cx: &mut NetCtx<'_>, id: WormId, i: u32) {
        let w = &self.worms[id];
        if i != w.freed {
            return; // another branch is further behind
        }
        let slowest = w.branches.iter().map(|&b| self.branches[b].sent).min().unwrap_or(w.arrived);
        self.free_slots(cx, id, slowest);
    }

    /// Frees the worm's slots up to `upto` flits and returns their credits upstream.
    #[inline(always)]
    fn free_slots(&mut self, cx: &mut NetCtx<'_>, id: WormId, upto: u32) {
        let w = &mut self.worms[id];
        if upto <= w.freed {
            return;
        }
        let n = upto - w.freed;
        w.freed = upto;
        let (buf, sink, done) =
            (w.buf.expect("slots are freed in a buffer"), matches!(w.decode, Decode::Dropped), w.freed == w.flits);
        self.take_in_queued(cx.now, buf);
        self.bufs[buf.idx()].occ -= n;
        self.return_credits(cx, buf, n);
        if sink && done {
            if self.timing.circuits {
                self.ack_dropped(cx, id);
            }
            self.retire(cx, id);
        }
    }

    /// Removes a worm whose branches have all sent their tail.
    pub(super) fn maybe_retire(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let w = &self.worms[id];
        if w.done as usize == w.branches.len() {
            self.retire(cx, id);
        }
    }

    fn retire(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let (buf, msg) = (self.worms[id].buf, self.worms[id].msg);
        for k in 0..self.worms[id].branches.len() {
            let b = self.worms[id].branches[k];
            self.branches.release(b);
        }
        self.worms[id].alive = false;
        self.worms.release(id);
        self.stats.in_flight -= 1;
        if let Some(buf) = buf {
            let q = &mut self.bufs[buf.idx()].queue;
            debug_assert_eq!(q.front(), Some(&id), "only the front worm of a FIFO can leave");
            q.pop_front();
            if let Some(&next) = q.front() {
                self.try_route(cx, next);
            }
        }
        cx.refs.release(msg);
    }
}
