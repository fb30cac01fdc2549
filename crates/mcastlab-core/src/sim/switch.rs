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

use super::engine::Simulation;
use super::queue::Event;
use super::NONE;
use std::collections::VecDeque;
use std::ops::{Index, IndexMut};

/// A vector of reusable slots addressed by `u32`.
pub(crate) struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T: Default> Slab<T> {
    /// A slot, reusing a freed one (and whatever capacity it kept) when there is one.
    pub(crate) fn alloc(&mut self, init: impl FnOnce(&mut T)) -> u32 {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.items.push(T::default());
                self.items.len() as u32 - 1
            }
        };
        init(&mut self.items[id as usize]);
        id
    }
    pub(crate) fn release(&mut self, id: u32) {
        self.free.push(id);
    }
    /// Slots ever allocated (live or free), for scanning in diagnostics.
    pub(crate) fn slots(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

impl<T> IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}

/// A packet in one buffer (or, with `buf == NONE`, in its sender's NI memory).
#[derive(Clone, Debug, Default)]
pub(crate) struct Worm {
    /// Message instance it belongs to.
    pub msg: u32,
    /// Packet id: transmission · packets-per-message + packet number.
    pub pid: u32,
    /// Tree node whose channel brought it here (`NONE` in the sender's NI).
    pub node: u32,
    /// Input buffer (channel · V + vc), or `NONE` in NI memory.
    pub buf: u32,
    pub flits: u32,
    /// Flits that have arrived.
    pub arrived: u32,
    /// Flits every branch has read, whose slots are free again.
    pub freed: u32,
    pub routed: bool,
    pub route_pending: bool,
    /// Decoded to no branch: dropped flit by flit.
    pub sink: bool,
    pub branches: Vec<u32>,
    /// Branches that have sent their tail.
    pub done: u32,
    /// Not yet retired (freed slots keep stale contents).
    pub alive: bool,
    /// Arrival times of flits sent to this worm and not yet taken in (in order).
    pub incoming: VecDeque<u64>,
    /// Arrival time of the head and of the tail (`NO_TIME` until sent).
    pub head_at: u64,
    pub tail_at: u64,
    /// With `switch.circuit_until_ack`: this copy's circuit once its header is decoded, and the
    /// circuit one hop upstream that awaits its acknowledgement (`NONE` otherwise).
    pub circuit: u32,
    pub up: u32,
    /// Packet trains (`train.rs`): branches started, and the time of the pending event that
    /// ends the branches finishing then.
    pub started: u32,
    pub tail_ev: u64,
}

/// "Not yet known" for arrival times.
pub(crate) const NO_TIME: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum BranchState {
    /// Waiting for its output VC.
    #[default]
    Waiting,
    /// Holds its output VC.
    Active,
    /// Its tail has been sent.
    Done,
}

/// One output branch of a worm.
#[derive(Clone, Debug, Default)]
pub(crate) struct Branch {
    pub worm: u32,
    /// Tree node of the output channel.
    pub node: u32,
    /// Flits sent so far.
    pub sent: u32,
    /// The worm this branch creates in the next buffer.
    pub down: u32,
    pub state: BranchState,
    /// Part of a range multicast's all-or-nothing request for its output VCs (`gang.rs`).
    pub gang: bool,
    /// Packet trains (`train.rs`): when it sent its head (`NO_TIME` until then).
    pub start: u64,
}

/// A FIFO input buffer of one port and VC.
#[derive(Clone, Debug, Default)]
pub(crate) struct InBuf {
    pub queue: VecDeque<u32>,
    /// Flits held.
    pub occ: u32,
}

impl Simulation<'_> {
    /// A new worm of packet `pid` of message `msg` in buffer `buf` (`NONE`: NI memory), arrived
    /// through `node`.
    pub(crate) fn new_worm(&mut self, msg: u32, pid: u32, node: u32, buf: u32, flits: u32) -> u32 {
        self.live += 1;
        self.add_ref(msg);
        self.worms.alloc(|w| {
            let mut branches = std::mem::take(&mut w.branches);
            let mut incoming = std::mem::take(&mut w.incoming);
            branches.clear();
            incoming.clear();
            *w = Worm {
                msg,
                pid,
                node,
                buf,
                flits,
                branches,
                incoming,
                alive: true,
                head_at: NO_TIME,
                tail_at: NO_TIME,
                circuit: NONE,
                up: NONE,
                ..Worm::default()
            };
        })
    }

    pub(crate) fn new_branch(&mut self, worm: u32, node: u32) -> u32 {
        let b = self.branches.alloc(|b| *b = Branch { worm, node, down: NONE, start: NO_TIME, ..Branch::default() });
        self.worms[worm].branches.push(b);
        b
    }

    /// Flit `i` of a packet will arrive at `at` in worm `id`'s buffer.
    pub(crate) fn flit_sent_to(&mut self, id: u32, i: u32, at: u64) {
        let w = &mut self.worms[id];
        if i == 0 {
            w.head_at = at;
        }
        if i + 1 == w.flits {
            w.tail_at = at;
        }
        if w.sink {
            self.q.push(at, Event::FlitArrive { worm: id });
            return;
        }
        w.incoming.push_back(at);
        if w.routed {
            // Wake the branches that have read everything sent so far: this flit is next.
            for k in 0..self.worms[id].branches.len() {
                let b = &self.branches[self.worms[id].branches[k]];
                if b.state == BranchState::Active && b.sent == i {
                    let chan = self.trees.nodes[b.node as usize].chan;
                    self.kick_at(chan, at);
                }
            }
        } else if i == 0 || i + 1 == self.worms[id].flits {
            self.try_route(id);
        }
    }

    /// Takes in the flits that have arrived by now.
    #[inline]
    pub(crate) fn absorb_arrivals(&mut self, id: u32) {
        let w = &mut self.worms[id];
        let mut n = 0;
        while let Some(&t) = w.incoming.front() {
            if t > self.now {
                break;
            }
            w.incoming.pop_front();
            n += 1;
        }
        if n > 0 {
            w.arrived += n;
            let buf = w.buf;
            let b = &mut self.bufs[buf as usize];
            b.occ += n;
            if b.occ > self.max_buf {
                self.max_buf = b.occ;
                self.max_buf_at = buf;
            }
        }
    }

    /// Flits in buffer `buf` now: those taken in (`occ`) and those that have landed in packets
    /// no branch has looked at yet (a packet queued behind the front one, or one whose branches
    /// wait for their VCs).
    pub(crate) fn held(&self, buf: u32) -> u32 {
        if self.trains_on() {
            return self.train_held(buf);
        }
        let b = &self.bufs[buf as usize];
        let landed = |w: &u32| self.worms[*w].incoming.iter().take_while(|t| **t <= self.now).count() as u32;
        b.occ + b.queue.iter().map(landed).sum::<u32>()
    }

    /// Before slots of the front packet of `buf` are freed, takes in the flits that have landed
    /// in the packets queued behind it, so the occupancy peak is recorded. Occupancy only grows
    /// between frees, so its peaks are just before them (a flit arriving at the instant another
    /// leaves holds a slot too: the freed slot is usable upstream only after the credit delay);
    /// the front packet's landed flits are taken in already (the branch that frees them has just
    /// looked), but those behind it would otherwise wait until they reach the front.
    #[inline]
    fn take_in_queued(&mut self, buf: u32) {
        if self.bufs[buf as usize].queue.len() > 1 {
            self.take_in_behind_front(buf);
        }
    }

    /// Kept out of line so that freeing slots, which runs once per flit and buffer, stays small.
    #[inline(never)]
    fn take_in_behind_front(&mut self, buf: u32) {
        for k in 1..self.bufs[buf as usize].queue.len() {
            let w = self.bufs[buf as usize].queue[k];
            self.absorb_arrivals(w);
        }
    }

    /// A flit has arrived in a buffer whose packet is dropped (decoded to no branch).
    pub(crate) fn on_flit_arrive(&mut self, id: u32) {
        let w = &mut self.worms[id];
        w.arrived += 1;
        let (buf, arrived) = (w.buf, w.arrived);
        self.bufs[buf as usize].occ += 1;
        self.free_slots(id, arrived);
    }

    /// Schedules the header decode of a worm at the front of its buffer, once its head (under
    /// store-and-forward, its tail) is there.
    pub(crate) fn try_route(&mut self, id: u32) {
        let w = &self.worms[id];
        let ready = if self.timing.store_and_forward { w.tail_at } else { w.head_at };
        if w.routed || w.route_pending || ready == NO_TIME || self.bufs[w.buf as usize].queue.front() != Some(&id) {
            return;
        }
        let buf = w.buf;
        self.worms[id].route_pending = true;
        self.q.push(ready.max(self.now) + self.timing.routing, Event::Route { worm: id, buf });
    }

    /// The header is decoded: one branch per output the tree has at this switch.
    pub(crate) fn on_route(&mut self, id: u32) {
        let w = &mut self.worms[id];
        w.route_pending = false;
        w.routed = true;
        let n = self.trees.nodes[w.node as usize];
        if n.count == 0 {
            w.sink = true;
            if self.trains_on() {
                return self.train_sink(id);
            }
            self.absorb_arrivals(id);
            let w = &mut self.worms[id];
            let arrived = w.arrived;
            let rest: Vec<u64> = w.incoming.drain(..).collect();
            for t in rest {
                self.q.push(t, Event::FlitArrive { worm: id });
            }
            self.free_slots(id, arrived);
            return;
        }
        for k in n.first..n.first + n.count {
            let child = self.trees.children[k as usize];
            self.new_branch(id, child);
        }
        if self.timing.circuits {
            self.open_circuit(id);
        }
        if n.count > 1 && self.trees.gang[n.tx as usize] {
            for k in 0..n.count as usize {
                let b = self.worms[id].branches[k];
                self.branches[b].gang = true;
            }
            self.request_gang(id);
            return;
        }
        for k in 0..n.count as usize {
            let b = self.worms[id].branches[k];
            self.request_vc(b);
        }
    }

    /// Branch reading flit `i` may free a slot: slots are freed up to the slowest branch.
    pub(crate) fn read_flit(&mut self, id: u32, i: u32) {
        let w = &self.worms[id];
        if i != w.freed {
            return; // another branch is further behind
        }
        let slowest = w.branches.iter().map(|&b| self.branches[b].sent).min().unwrap_or(w.arrived);
        self.free_slots(id, slowest);
    }

    /// Frees the worm's slots up to `upto` flits and returns their credits upstream.
    fn free_slots(&mut self, id: u32, upto: u32) {
        let w = &mut self.worms[id];
        if upto <= w.freed {
            return;
        }
        let n = upto - w.freed;
        w.freed = upto;
        let (buf, sink, done) = (w.buf, w.sink, w.freed == w.flits);
        self.take_in_queued(buf);
        self.bufs[buf as usize].occ -= n;
        self.return_credits(buf, n);
        if sink && done {
            if self.timing.circuits {
                self.ack_dropped(id);
            }
            self.retire(id);
        }
    }

    /// Removes a worm whose branches have all sent their tail.
    pub(crate) fn maybe_retire(&mut self, id: u32) {
        let w = &self.worms[id];
        if w.done as usize == w.branches.len() {
            self.retire(id);
        }
    }

    fn retire(&mut self, id: u32) {
        let (buf, msg) = (self.worms[id].buf, self.worms[id].msg);
        for k in 0..self.worms[id].branches.len() {
            let b = self.worms[id].branches[k];
            self.branches.release(b);
        }
        self.worms[id].alive = false;
        self.worms.release(id);
        self.live -= 1;
        if buf != NONE {
            let q = &mut self.bufs[buf as usize].queue;
            debug_assert_eq!(q.front(), Some(&id), "only the front worm of a FIFO can leave");
            q.pop_front();
            if let Some(&next) = q.front() {
                self.try_route(next);
            }
        }
        self.unref(msg);
    }
}
