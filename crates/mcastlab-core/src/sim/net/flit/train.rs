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
//! order (`sim::ni`), at the same instant either way. When two buffers reach the largest
//! occupancy at the same instant the flit engine names the one whose event ran first; trains
//! name one of them and say so (`FlitNet::max_buffer_tied`).
//!
//! The conditions under which all this holds, and the choice between flits and trains, are in
//! `granularity.rs`.

use super::state::{BranchState, Decode, VcHolder};
use super::{FlitEvent, FlitNet};
use crate::sim::ids::{BranchId, NodeId, VcId, WormId};
use crate::sim::net::{Arrival, NetCtx};
use std::collections::VecDeque;

/// Credits coming back to a sender: `count` of them, the first at `start`, then one per
/// `period` (0: all at once).
#[derive(Clone, Copy, Debug)]
pub(super) struct CreditTrain {
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
pub(super) struct Trains {
    /// Per output VC: credits on their way back, in time order (trains never overlap: a buffer
    /// frees one worm after the other).
    returns: Vec<VecDeque<CreditTrain>>,
    /// Per input buffer (indexed like output VCs): when its last slot so far was freed.
    last_free: Vec<Option<u64>>,
    /// When the largest buffer occupancy was first reached, and whether another buffer reached
    /// it at the same instant.
    max_at_time: Option<u64>,
    pub max_tied: bool,
    /// The flit engine's last per-channel service (one flit time after a channel's last tail).
    pub last_service: u64,
    /// Scratch: the ejection nodes whose copies leave at one tail event.
    ejected: Vec<NodeId>,
}

impl Trains {
    pub(super) fn new(outvcs: usize) -> Trains {
        Trains { returns: vec![VecDeque::new(); outvcs], last_free: vec![None; outvcs], ..Trains::default() }
    }
}

impl FlitNet {
    /// Flits of worm `w` in its buffer by time `t` (they arrive one flit time apart).
    fn arrived_by(&self, w: WormId, t: u64) -> u32 {
        let worm = &self.worms[w];
        match worm.head_at {
            Some(head) if t >= head => ((t - head) / self.timing.flit + 1).min(worm.flits as u64) as u32,
            _ => 0,
        }
    }

    /// Takes in the credits of `ov` that are back by now.
    fn absorb_trains(&mut self, now: u64, ov: VcId) {
        let q = &mut self.trains.returns[ov.idx()];
        while let Some(tr) = q.front_mut() {
            let n = tr.back_by(now);
            if n == 0 {
                break;
            }
            self.outvcs[ov.idx()].credits.give(n);
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
    fn room_at(&self, ov: VcId, need: u32) -> Option<u64> {
        let mut have = self.outvcs[ov.idx()].credits.count()?;
        for tr in &self.trains.returns[ov.idx()] {
            if have + tr.count >= need {
                return Some(tr.start + (need - have - 1) as u64 * tr.period);
            }
            have += tr.count;
        }
        None
    }

    /// `fits` at packet granularity: the whole packet fits in the next buffer now; otherwise a
    /// look is scheduled for when it will.
    pub(super) fn train_fits(&mut self, cx: &NetCtx<'_>, ov: VcId, b: BranchId) -> bool {
        let flits = self.worms[self.branches[b].worm].flits;
        if self.outvcs[ov.idx()].credits.is_unlimited() {
            return true; // into an NI
        }
        self.absorb_trains(cx.now, ov);
        if self.outvcs[ov.idx()].credits.at_least(flits) {
            return true;
        }
        if let Some(t) = self.room_at(ov, flits) {
            self.queue.push(t, FlitEvent::RoomCheck { vc: ov });
        }
        false
    }

    /// Credits of `ov` return as a train; a waiting packet is looked at again when they suffice.
    fn return_train(&mut self, now: u64, ov: VcId, tr: CreditTrain) {
        self.trains.returns[ov.idx()].push_back(tr);
        let o = &self.outvcs[ov.idx()];
        if matches!(o.holder, VcHolder::Free) {
            if let Some(&b) = o.waiters.front() {
                let need = self.worms[self.branches[b].worm].flits;
                if let Some(t) = self.room_at(ov, need) {
                    self.queue.push(t.max(now), FlitEvent::RoomCheck { vc: ov });
                }
            }
        }
    }

    /// The VC is granted: the branch starts when its link is free (now, or after the flit in
    /// progress).
    pub(super) fn train_grant(&mut self, cx: &mut NetCtx<'_>, ov: VcId, b: BranchId) {
        self.outvcs[ov.idx()].holder = VcHolder::Branch(b);
        self.branches[b].state = BranchState::Active;
        let chan = crate::fabric::Channel(ov.chan(self.timing.vcs));
        let s = self.ports[chan.idx()].busy_until.max(cx.now);
        if s == cx.now {
            self.train_start(cx, b);
        } else {
            self.queue.push(s, FlitEvent::TrainStart { branch: b, chan });
        }
    }

    /// Branch `b` sends its packet from now on, one flit per flit time.
    pub(super) fn train_start(&mut self, cx: &mut NetCtx<'_>, b: BranchId) {
        let (wid, node) = (self.branches[b].worm, self.branches[b].node);
        let n = cx.trees.node(node);
        let ov = self.vc_id(n.chan, n.vc as u32);
        let (msg, pid, flits, buf) = {
            let w = &self.worms[wid];
            (w.msg, w.pid, w.flits, w.buf)
        };
        let (f, now) = (self.timing.flit, cx.now);
        let tail = now + (flits as u64 - 1) * f;
        self.branches[b].start = Some(now);
        let port = &mut self.ports[n.chan.idx()];
        port.busy_until = tail + f;
        self.trains.last_service = self.trains.last_service.max(tail + f);
        self.outvcs[ov.idx()].credits.take(flits);
        self.stats.link_flits[n.chan.idx()] += flits as u64;
        self.stats.link_packets[n.chan.idx()] += 1;
        self.stats.flit_hops += flits as u64;
        // Every started train completes, so its tail is the last flit move it guarantees.
        self.stats.last_move = self.stats.last_move.max(tail);
        if n.eject.is_none() {
            let delay = self.delay[n.chan.idx()];
            cx.refs.hold(msg);
            let d = self.new_worm(msg, pid, Some(node), Some(ov), flits);
            self.bufs[ov.idx()].queue.push_back(d);
            self.branches[b].down = Some(d);
            self.worms[d].head_at = Some(now + delay);
            if !self.timing.store_and_forward {
                // Store-and-forward decodes after the tail: scheduled when the tail leaves, as
                // the flit engine does, so that decodes of one instant keep its order.
                self.worms[d].tail_at = Some(tail + delay);
                self.try_route(cx, d);
            }
        }
        if buf.is_some() {
            self.worms[wid].train.started += 1;
            if self.worms[wid].train.started as usize == self.worms[wid].branches.len() {
                self.all_started(cx.now, wid);
            }
        }
        if flits == 1 {
            self.train_tails(cx, wid);
        } else if self.worms[wid].train.tail_ev != Some(tail) {
            self.worms[wid].train.tail_ev = Some(tail);
            self.queue.push(tail, FlitEvent::TrainTail { worm: wid });
        }
    }

    /// Every branch of worm `w` has started (the slowest now): its flits are freed one per flit
    /// time from now, and its buffer's occupancy peaks now, just before the first of them goes.
    fn all_started(&mut self, now: u64, w: WormId) {
        let (buf, flits) = (self.worms[w].buf.expect("a started worm in a buffer"), self.worms[w].flits);
        let f = self.timing.flit;
        self.note_buffer_peak(now, w);
        self.trains.last_free[buf.idx()] = Some(now + (flits as u64 - 1) * f);
        self.worms[w].freed = flits;
        self.worms[w].arrived = flits;
        self.return_train(now, buf, CreditTrain { start: now + self.credit_after(buf), count: flits, period: f });
    }

    /// Flits that have landed by `t` in the packets of buffer `buf` from queue position `from` on.
    fn landed_from(&self, buf: VcId, from: usize, t: u64) -> u32 {
        self.bufs[buf.idx()].queue.iter().skip(from).map(|&x| self.arrived_by(x, t)).sum()
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
    fn note_buffer_peak(&mut self, now: u64, w: WormId) {
        let (buf, head) = (self.worms[w].buf.expect("in a buffer"), self.worms[w].head_at.expect("its head is sent"));
        let f = self.timing.flit;
        debug_assert_eq!(self.bufs[buf.idx()].queue.front(), Some(&w));
        let peak = self.landed_from(buf, 0, now);
        let behind_then = self.trains.last_free[buf.idx()].map_or(0, |last| self.landed_from(buf, 1, last));
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
                    let s = self.branches[b].start.expect("every branch of the worm has started");
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

    /// Flits in buffer `buf` at `now`, at packet granularity, as the flit engine counts them
    /// between the events before `now` and those at it: landed by `now` (arrival times are known
    /// in advance, so one landing at `now` counts) and not freed before `now` (a packet's flits go
    /// one per flit time from its slowest branch's start; a dropped packet's as they land).
    pub(super) fn train_held(&self, now: u64, buf: VcId) -> u32 {
        let f = self.timing.flit;
        let held = |&x: &WormId| {
            let w = &self.worms[x];
            let landed = self.arrived_by(x, now);
            let freed = if matches!(w.decode, Decode::Dropped) {
                now.checked_sub(1).map_or(0, |t| self.arrived_by(x, t))
            } else if w.train.started as usize == w.branches.len() && !w.branches.is_empty() {
                let s = w.branches.iter().map(|&b| self.branches[b].start.unwrap_or(now)).max().unwrap_or(now);
                // Flits `i` with `s + i·flit < now`.
                (now.saturating_sub(s).div_ceil(f)).min(w.flits as u64) as u32
            } else {
                0
            };
            landed - freed
        };
        self.bufs[buf.idx()].queue.iter().map(held).sum()
    }

    /// Buffer `buf` held `peak` flits at `at` (as the flit engine counts them).
    fn note_peak(&mut self, buf: VcId, peak: u32, at: u64) {
        let max = self.stats.max_buf;
        if peak > max || (peak == max && self.trains.max_at_time.is_none_or(|m| at < m)) {
            self.stats.max_buf = peak;
            self.stats.max_buf_at = Some(buf);
            self.trains.max_at_time = Some(at);
            self.trains.max_tied = false;
        } else if peak == max && Some(at) == self.trains.max_at_time && Some(buf) != self.stats.max_buf_at {
            self.trains.max_tied = true;
        }
    }

    /// The branches of worm `w` whose tail leaves now have finished: their VCs are free, the
    /// copies they carried to NIs arrive one link delay later, and the worm leaves its buffer
    /// when all its branches are done.
    pub(super) fn train_tails(&mut self, cx: &mut NetCtx<'_>, w: WormId) {
        let (msg, pid, node, flits) = {
            let x = &self.worms[w];
            (x.msg, x.pid, x.node, x.flits)
        };
        let tail_start = cx.now - (flits as u64 - 1) * self.timing.flit;
        let mut ejected = std::mem::take(&mut self.trains.ejected);
        let (mut eject_children, mut arrive) = (0u32, 0u64);
        let mut k = 0;
        while k < self.worms[w].branches.len() {
            let b = self.worms[w].branches[k];
            k += 1;
            let br = &self.branches[b];
            let nd = cx.trees.node(br.node);
            if nd.eject.is_some() {
                eject_children += 1;
            }
            if !matches!(br.state, BranchState::Active) || br.start != Some(tail_start) {
                continue;
            }
            if nd.eject.is_some() {
                ejected.push(br.node);
                arrive = cx.now + self.delay[nd.chan.idx()];
            } else if self.timing.store_and_forward {
                let d = br.down.expect("a started branch into a switch has a worm there");
                self.worms[d].tail_at = Some(cx.now + self.delay[nd.chan.idx()]);
                self.try_route(cx, d);
            }
            self.branches[b].state = BranchState::Done;
            self.branches[b].sent = flits;
            self.worms[w].done += 1;
            let ov = self.vc_id(nd.chan, nd.vc as u32);
            self.outvcs[ov.idx()].holder = VcHolder::Free;
            self.grant_waiter_trains(cx, ov);
        }
        if !ejected.is_empty() {
            match node {
                // Every copy this switch ejects left together: one event hands them all over.
                Some(node) if ejected.len() as u32 == eject_children => {
                    for _ in 1..ejected.len() {
                        cx.refs.hold(msg);
                    }
                    self.arrive(cx, Arrival::Tails { at: arrive, msg, pid, node }, msg);
                }
                _ => {
                    for &e in &ejected {
                        self.arrive(cx, Arrival::Tail { at: arrive, msg, pid, node: e }, msg);
                    }
                }
            }
        }
        ejected.clear();
        self.trains.ejected = ejected;
        self.maybe_retire(cx, w);
    }

    /// Gives a free VC to its oldest waiter if the packet fits (range multicasts never run here).
    fn grant_waiter_trains(&mut self, cx: &mut NetCtx<'_>, ov: VcId) {
        let o = &self.outvcs[ov.idx()];
        if !matches!(o.holder, VcHolder::Free) {
            return;
        }
        if let Some(&b) = o.waiters.front() {
            if self.train_fits(cx, ov, b) {
                self.outvcs[ov.idx()].waiters.pop_front();
                self.train_grant(cx, ov, b);
            }
        }
    }

    /// A worm decoded to no branch at packet granularity: the flits in its buffer are freed now
    /// and the rest as they arrive; it leaves with its tail (a `FlitArrive` then retires it).
    pub(super) fn train_sink(&mut self, cx: &mut NetCtx<'_>, w: WormId) {
        let (buf, flits, head, tail) = {
            let x = &self.worms[w];
            (
                x.buf.expect("a dropped packet is in a buffer"),
                x.flits,
                x.head_at.expect("decoded after its head"),
                x.tail_at.expect("sent whole"),
            )
        };
        let (f, now) = (self.timing.flit, cx.now);
        let n = self.arrived_by(w, now);
        // Occupancy peaks as the flits that are here go: all of them now, then each as it lands.
        let peak = self.landed_from(buf, 0, now);
        self.note_peak(buf, peak, now);
        self.trains.last_free[buf.idx()] = Some(if n < flits { tail } else { now });
        if n > 0 {
            self.return_train(now, buf, CreditTrain { start: now + self.credit_after(buf), count: n, period: 0 });
        }
        if n < flits {
            let first = head + n as u64 * f + self.credit_after(buf);
            self.return_train(now, buf, CreditTrain { start: first, count: flits - n, period: f });
        }
        self.worms[w].arrived = flits;
        self.worms[w].freed = flits;
        if n == flits {
            self.maybe_retire(cx, w);
        } else {
            self.queue.push(tail, FlitEvent::FlitArrive { worm: w });
        }
    }
}
