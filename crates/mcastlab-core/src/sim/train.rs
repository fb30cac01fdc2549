//! Packet trains (`switch.granularity = packet | auto`): the network at packet granularity,
//! with the flit engine's results.
//!
//! Why it is exact. Under virtual cut-through and store-and-forward a branch is granted its
//! output VC only when the next buffer has room for the whole packet, so once it starts it never
//! waits for a credit; with one VC in use per link nothing else shares the link while it sends;
//! every link has the same rate and a packet's flits leave its sender back to back, so each flit
//! is already in the buffer when its turn comes (a branch starts at least a routing delay after
//! the head arrived); and an NI drains its ejection link at line rate. So a branch that starts
//! at `s` sends flit `i` at `s + i·flit`, flit `i` reaches the next buffer at `s + delay + i·flit`,
//! and a worm frees flit `i` when its slowest branch sends it, which returns credit `i` upstream
//! at `max(branch starts) + credit + i·flit`. One event starts a branch (none when the link is
//! free at its grant), one ends the worm's branches that finish together, and one hands every
//! copy a leaf switch ejects together to the NIs. Routing, VC allocation (first come, first
//! served, all or nothing for the whole packet) and the input FIFOs are the flit engine's own
//! code, fed with these times.
//!
//! What is the same as flit by flit: every delivery and latency, link flits, packets and busy
//! times, buffer maxima (a buffer peaks just before the first flit of one of its packets is
//! freed: `note_buffer_peak`), packet counts, and the time of the last event (the flit engine's last event on a channel is the
//! service one flit time after a tail, kept here as a time). Only `events` differs.
//!
//! Same-instant order. Both engines run the events of one instant in `(phase, object)` order
//! (`queue.rs`), never in scheduling order, so trains agree with flits wherever their events
//! come at the same instants with the same ranks: header decodes (`Route`, by input buffer),
//! looks for room (`RoomCheck`, by output VC), packets reaching NIs and endpoint jobs. The
//! events trains do not share with the flit engine are link events (`TrainStart`, `TrainTail`
//! in place of per-flit `Service`s), and their order among themselves cannot matter: what one
//! of them does at its instant is to free a VC and hand it to a waiter that starts now on its
//! own link, or to schedule something strictly later — a decode `switch.routing_delay` on, a
//! credit `link.propagation + switch.credit_delay` on, an arrival one link delay on. That is why
//! trains need a routing delay and a credit delay above zero (`granularity.rs`): with either at
//! zero, a decode or a credit would land inside the link phase of the same instant, where the
//! flit engine's per-channel order decides who wins a VC. Every copy a leaf switch ejects at one
//! instant reaches its NI in one `NiTails` event: what an NI does with a packet concerns only
//! its own endpoint until it sends, which is later or on its own injection link. With zero host,
//! NI and DMA times, endpoint jobs finish as they are queued instead of through events: the
//! order of jobs within an instant then differs from the flit engine's, but nothing they decide
//! depends on it, because each NI hands its copies to its own link in the plan's fixed send
//! order (`endpoint.rs`), at the same instant either way. When two buffers reach the largest
//! occupancy at the same instant the flit engine names the one whose event ran first; trains
//! name one of them and say so ([`Simulation::max_buffer_tied`]).
//!
//! The conditions under which all this holds, and the choice between flits and trains, are in
//! `granularity.rs`.

use super::engine::Simulation;
use super::queue::Event;
use super::switch::{BranchState, NO_TIME};
use super::NONE;
use std::collections::VecDeque;

/// Credits coming back to a sender: `count` of them, the first at `start`, then one per
/// `period` (0: all at once).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreditTrain {
    pub start: u64,
    pub count: u32,
    pub period: u64,
}

impl CreditTrain {
    /// Credits of this train back by `now`.
    fn back_by(&self, now: u64) -> u32 {
        if now < self.start {
            return 0;
        }
        match (now - self.start).checked_div(self.period) {
            None => self.count,
            Some(k) => (k + 1).min(self.count as u64) as u32,
        }
    }
}

/// State only packet trains need.
#[derive(Default)]
pub(crate) struct Trains {
    /// Per output VC: credits on their way back, in time order (trains never overlap: a buffer
    /// frees one worm after the other).
    pub returns: Vec<VecDeque<CreditTrain>>,
    /// Per input buffer (indexed like output VCs): when its last slot so far was freed.
    pub last_free: Vec<u64>,
    /// Endpoint jobs finish as they are queued (`Timing::instant_endpoints`, once running).
    pub inline: bool,
    /// Where and when the largest buffer occupancy was first reached, and whether another
    /// buffer reached it at the same instant.
    pub max_at_time: u64,
    pub max_tied: bool,
    /// The flit engine's last per-channel service (one flit time after a channel's last tail).
    pub last_service: u64,
    /// Scratch: the ejection nodes whose copies leave at one tail event.
    pub ejected: Vec<u32>,
}

impl Trains {
    pub(crate) fn new(outvcs: usize) -> Trains {
        Trains {
            returns: vec![VecDeque::new(); outvcs],
            last_free: vec![NO_TIME; outvcs],
            max_at_time: NO_TIME,
            ..Trains::default()
        }
    }
}

impl Simulation<'_> {
    /// Whether the network runs as packet trains.
    #[inline]
    pub(crate) fn trains_on(&self) -> bool {
        self.timing.packet
    }

    /// Flits of worm `w` in its buffer by time `t` (they arrive one flit time apart).
    fn arrived_by(&self, w: u32, t: u64) -> u32 {
        let worm = &self.worms[w];
        if worm.head_at == NO_TIME || t < worm.head_at {
            0
        } else {
            ((t - worm.head_at) / self.timing.flit + 1).min(worm.flits as u64) as u32
        }
    }

    /// Takes in the credits of `ov` that are back by now.
    fn absorb_trains(&mut self, ov: u32) {
        let now = self.now;
        let q = &mut self.pk.returns[ov as usize];
        while let Some(tr) = q.front_mut() {
            let n = tr.back_by(now);
            if n == 0 {
                break;
            }
            self.outvcs[ov as usize].credits += n;
            if n == tr.count {
                q.pop_front();
            } else {
                tr.start += n as u64 * tr.period;
                tr.count -= n;
                break;
            }
        }
    }

    /// When the sender of `ov` will know of `need` free slots, if the credits on their way do.
    fn room_at(&self, ov: u32, need: u32) -> Option<u64> {
        let mut have = self.outvcs[ov as usize].credits;
        for tr in &self.pk.returns[ov as usize] {
            if have + tr.count >= need {
                return Some(tr.start + (need - have - 1) as u64 * tr.period);
            }
            have += tr.count;
        }
        None
    }

    /// `fits` at packet granularity: the whole packet fits in the next buffer now; otherwise a
    /// look is scheduled for when it will.
    pub(crate) fn train_fits(&mut self, ov: u32, b: u32) -> bool {
        let flits = self.worms[self.branches[b].worm].flits;
        if self.outvcs[ov as usize].credits == u32::MAX {
            return true; // into an NI
        }
        self.absorb_trains(ov);
        if self.outvcs[ov as usize].credits >= flits {
            return true;
        }
        if let Some(t) = self.room_at(ov, flits) {
            self.q.push(t, Event::RoomCheck { outvc: ov });
        }
        false
    }

    /// Credits of `ov` return as a train; a waiting packet is looked at again when they suffice.
    fn return_train(&mut self, ov: u32, tr: CreditTrain) {
        self.pk.returns[ov as usize].push_back(tr);
        let o = &self.outvcs[ov as usize];
        if o.holder == NONE {
            if let Some(&b) = o.waiters.front() {
                let need = self.worms[self.branches[b].worm].flits;
                if let Some(t) = self.room_at(ov, need) {
                    self.q.push(t.max(self.now), Event::RoomCheck { outvc: ov });
                }
            }
        }
    }

    /// The VC is granted: the branch starts when its link is free (now, or after the flit in
    /// progress).
    pub(crate) fn train_grant(&mut self, ov: u32, b: u32) {
        self.outvcs[ov as usize].holder = b;
        self.branches[b].state = BranchState::Active;
        let s = self.ports[(ov / self.v) as usize].busy_until.max(self.now);
        if s == self.now {
            self.train_start(b);
        } else {
            self.q.push(s, Event::TrainStart { branch: b, chan: ov / self.v });
        }
    }

    /// Branch `b` sends its packet from now on, one flit per flit time.
    pub(crate) fn train_start(&mut self, b: u32) {
        let (wid, node) = (self.branches[b].worm, self.branches[b].node);
        let n = self.trees.nodes[node as usize];
        let ov = n.chan * self.v + n.vc as u32;
        let (msg, pid, flits, buf) = {
            let w = &self.worms[wid];
            (w.msg, w.pid, w.flits, w.buf)
        };
        let (f, now) = (self.timing.flit, self.now);
        let tail = now + (flits as u64 - 1) * f;
        self.branches[b].start = now;
        let port = &mut self.ports[n.chan as usize];
        port.busy_until = tail + f;
        self.pk.last_service = self.pk.last_service.max(tail + f);
        let o = &mut self.outvcs[ov as usize];
        if o.credits != u32::MAX {
            o.credits -= flits;
        }
        self.link_flits[n.chan as usize] += flits as u64;
        self.link_packets[n.chan as usize] += 1;
        self.flit_hops += flits as u64;
        // Every started train completes, so its tail is the last flit move it guarantees.
        self.last_move = self.last_move.max(tail);
        if n.eject == NONE {
            let delay = self.delay[n.chan as usize];
            let d = self.new_worm(msg, pid, node, ov, flits);
            self.bufs[ov as usize].queue.push_back(d);
            self.branches[b].down = d;
            self.worms[d].head_at = now + delay;
            if !self.timing.store_and_forward {
                // Store-and-forward decodes after the tail: scheduled when the tail leaves, as
                // the flit engine does, so that decodes of one instant keep its order.
                self.worms[d].tail_at = tail + delay;
                self.try_route(d);
            }
        }
        if buf != NONE {
            self.worms[wid].started += 1;
            if self.worms[wid].started as usize == self.worms[wid].branches.len() {
                self.all_started(wid);
            }
        }
        if flits == 1 {
            self.train_tails(wid);
        } else if self.worms[wid].tail_ev != tail {
            self.worms[wid].tail_ev = tail;
            self.q.push(tail, Event::TrainTail { worm: wid });
        }
    }

    /// Every branch of worm `w` has started (the slowest now): its flits are freed one per flit
    /// time from now, and its buffer's occupancy peaks now, just before the first of them goes.
    fn all_started(&mut self, w: u32) {
        let (buf, flits) = (self.worms[w].buf, self.worms[w].flits);
        let f = self.timing.flit;
        self.note_buffer_peak(w);
        self.pk.last_free[buf as usize] = self.now + (flits as u64 - 1) * f;
        self.worms[w].freed = flits;
        self.worms[w].arrived = flits;
        self.return_train(buf, CreditTrain { start: self.now + self.timing.credit, count: flits, period: f });
    }

    /// Flits that have landed by `t` in the packets of buffer `buf` from queue position `from` on.
    fn landed_from(&self, buf: u32, from: usize, t: u64) -> u32 {
        self.bufs[buf as usize].queue.iter().skip(from).map(|&x| self.arrived_by(x, t)).sum()
    }

    /// Records the occupancy of the buffer of front packet `w` just before its first flit is
    /// freed now, with the instant the flit engine first counted that much.
    ///
    /// The flit engine counts a packet's landed flits when one of its branches looks (when it
    /// starts, then once per flit time), and the landed flits of the packets behind the front
    /// one whenever a slot is freed. Between frees occupancy only grows, and across one packet's
    /// frees (one per flit time, while at most one flit per flit time lands over the one link
    /// into the buffer) it never grows, so each buffer peaks at the first free of some packet:
    /// now, for `w`. That value was first counted at the first look of `w` that saw enough of
    /// its own flits, if those and the flits behind it counted at the buffer's previous free
    /// make it up, otherwise now.
    fn note_buffer_peak(&mut self, w: u32) {
        let (buf, head) = (self.worms[w].buf, self.worms[w].head_at);
        let (f, now) = (self.timing.flit, self.now);
        debug_assert_eq!(self.bufs[buf as usize].queue.front(), Some(&w));
        let peak = self.landed_from(buf, 0, now);
        let last = self.pk.last_free[buf as usize];
        let behind_then = if last == NO_TIME { 0 } else { self.landed_from(buf, 1, last) };
        let own = self.arrived_by(w, now);
        let at = if peak > own + behind_then {
            now
        } else {
            // The look that first saw flit `own - 1`, which landed at `seen`.
            let seen = head + (own as u64 - 1) * f;
            self.worms[w]
                .branches
                .iter()
                .map(|&b| {
                    let s = self.branches[b].start;
                    if s >= seen {
                        s
                    } else {
                        s + (seen - s).div_ceil(f) * f
                    }
                })
                .min()
                .expect("a worm with started branches has branches")
        };
        self.note_peak(buf, peak, at);
    }

    /// Flits in buffer `buf` now, at packet granularity: landed and not yet freed (a packet's
    /// flits go one per flit time from its slowest branch's start; a dropped packet's as they land).
    pub(crate) fn train_held(&self, buf: u32) -> u32 {
        let (f, now) = (self.timing.flit, self.now);
        let held = |&x: &u32| {
            let w = &self.worms[x];
            let landed = self.arrived_by(x, now);
            let freed = if w.sink {
                landed
            } else if w.started as usize == w.branches.len() && !w.branches.is_empty() {
                let s = w.branches.iter().map(|&b| self.branches[b].start).max().unwrap_or(now);
                if now < s {
                    0
                } else {
                    ((now - s) / f + 1).min(w.flits as u64) as u32
                }
            } else {
                0
            };
            landed - freed
        };
        self.bufs[buf as usize].queue.iter().map(held).sum()
    }

    /// Buffer `buf` held `peak` flits at `at` (as the flit engine counts them).
    fn note_peak(&mut self, buf: u32, peak: u32, at: u64) {
        if peak > self.max_buf || (peak == self.max_buf && at < self.pk.max_at_time) {
            self.max_buf = peak;
            self.max_buf_at = buf;
            self.pk.max_at_time = at;
            self.pk.max_tied = false;
        } else if peak == self.max_buf && at == self.pk.max_at_time && buf != self.max_buf_at {
            self.pk.max_tied = true;
        }
    }

    /// The branches of worm `w` whose tail leaves now have finished: their VCs are free, the
    /// copies they carried to NIs arrive one link delay later, and the worm leaves its buffer
    /// when all its branches are done.
    pub(crate) fn train_tails(&mut self, w: u32) {
        let (msg, pid, node, flits) = {
            let x = &self.worms[w];
            (x.msg, x.pid, x.node, x.flits)
        };
        let tail_start = self.now - (flits as u64 - 1) * self.timing.flit;
        let mut ejected = std::mem::take(&mut self.pk.ejected);
        let (mut eject_children, mut arrive) = (0u32, 0u64);
        let mut k = 0;
        while k < self.worms[w].branches.len() {
            let b = self.worms[w].branches[k];
            k += 1;
            let br = &self.branches[b];
            let nd = self.trees.nodes[br.node as usize];
            if nd.eject != NONE {
                eject_children += 1;
            }
            if br.state != BranchState::Active || br.start != tail_start {
                continue;
            }
            if nd.eject != NONE {
                ejected.push(br.node);
                arrive = self.now + self.delay[nd.chan as usize];
            } else if self.timing.store_and_forward {
                let d = br.down;
                self.worms[d].tail_at = self.now + self.delay[nd.chan as usize];
                self.try_route(d);
            }
            self.branches[b].state = BranchState::Done;
            self.branches[b].sent = flits;
            self.worms[w].done += 1;
            let ov = nd.chan * self.v + nd.vc as u32;
            self.outvcs[ov as usize].holder = NONE;
            self.grant_waiter_trains(ov);
        }
        if !ejected.is_empty() {
            if ejected.len() as u32 == eject_children && node != NONE {
                // Every copy this switch ejects left together: one event hands them all over.
                for _ in 0..ejected.len() {
                    self.add_ref(msg);
                }
                self.q.push(arrive, Event::NiTails { msg, pid, node });
            } else {
                for &e in &ejected {
                    self.add_ref(msg);
                    self.q.push(arrive, Event::NiTail { msg, pid, node: e });
                }
            }
        }
        ejected.clear();
        self.pk.ejected = ejected;
        self.maybe_retire(w);
    }

    /// Gives a free VC to its oldest waiter if the packet fits (range multicasts never run here).
    pub(crate) fn grant_waiter_trains(&mut self, ov: u32) {
        let o = &self.outvcs[ov as usize];
        if o.holder != NONE {
            return;
        }
        if let Some(&b) = o.waiters.front() {
            if self.train_fits(ov, b) {
                self.outvcs[ov as usize].waiters.pop_front();
                self.train_grant(ov, b);
            }
        }
    }

    /// A worm decoded to no branch at packet granularity: the flits in its buffer are freed now
    /// and the rest as they arrive; it leaves with its tail.
    pub(crate) fn train_sink(&mut self, w: u32) {
        let (buf, flits, head, tail) = {
            let x = &self.worms[w];
            (x.buf, x.flits, x.head_at, x.tail_at)
        };
        let f = self.timing.flit;
        let n = self.arrived_by(w, self.now);
        // Occupancy peaks as the flits that are here go: all of them now, then each as it lands.
        let peak = self.landed_from(buf, 0, self.now);
        self.note_peak(buf, peak, self.now);
        self.pk.last_free[buf as usize] = if n < flits { tail } else { self.now };
        if n > 0 {
            self.return_train(buf, CreditTrain { start: self.now + self.timing.credit, count: n, period: 0 });
        }
        if n < flits {
            let first = head + n as u64 * f + self.timing.credit;
            self.return_train(buf, CreditTrain { start: first, count: flits - n, period: f });
        }
        self.worms[w].arrived = flits;
        self.worms[w].freed = flits;
        if n == flits {
            self.retire_sink(w);
        } else {
            self.q.push(tail, Event::FlitArrive { worm: w });
        }
    }

    /// The last flit of a dropped packet has arrived and is freed.
    pub(crate) fn retire_sink(&mut self, w: u32) {
        self.maybe_retire(w);
    }

    /// Every copy worm-node `node` ejects reaches its NI now.
    pub(crate) fn on_ni_tails(&mut self, msg: u32, pid: u32, node: u32) {
        let nd = self.trees.nodes[node as usize];
        for k in nd.first..nd.first + nd.count {
            let child = self.trees.children[k as usize];
            if self.trees.nodes[child as usize].eject != NONE {
                self.on_ni_tail(msg, pid, child);
            }
        }
    }
}
