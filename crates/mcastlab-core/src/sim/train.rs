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
//! code, fed with these times. With zero host, NI and DMA times (zhou07) endpoint jobs finish as
//! they are queued instead of through events.
//!
//! What is the same as flit by flit: every delivery and latency, link flits, packets and busy
//! times, buffer maxima (the flit engine counts a flit into a buffer when a branch of its worm
//! looks at it, so a worm's peak is the flits that arrived by its slowest branch's start), packet
//! counts, and the time of the last event (the flit engine's last event on a channel is the
//! service one flit time after a tail, kept here as a time). Only `events` differs.
//!
//! Ties. The flit engine orders events of one instant by when they were scheduled; trains
//! schedule fewer, different events, so where two events of one instant could change the outcome
//! depending on their order the engines may disagree: two packets asking for one output VC at the
//! same instant whose decodes were scheduled at the same instant (who is served first; decodes
//! scheduled earlier run first in both engines), and, when endpoint jobs take time, a packet
//! reaching an NI at the instant that endpoint does something else (job order in its FIFOs).
//! Both are noticed when they happen; `auto` then reruns the plan flit by flit (the cost: the
//! trains up to the tie, then the whole flit run), `packet` goes on (its order is as valid, just
//! not the flit engine's) and reports it ([`Simulation::packet_tie`]). When two
//! buffers reach the largest occupancy at the same instant the flit engine names the one whose
//! event ran first; trains name one of them and say so ([`Simulation::max_buffer_tied`]).
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
    /// Per output VC: the instant of the last request for it from a switch, and when that
    /// request's decode was scheduled (tie detection).
    pub asked_at: Vec<(u64, u64)>,
    /// Per endpoint: the instant a packet last reached its NI, and the instant it last did
    /// anything else (tie detection when endpoint jobs take time).
    pub tail_at: Vec<u64>,
    pub busy_at: Vec<u64>,
    /// Inside the handling of a packet reaching an NI (its own job is not a tie).
    pub in_tail: bool,
    /// Endpoint jobs finish as they are queued (`Timing::instant_endpoints`, once running).
    pub inline: bool,
    /// The first instant at which the engines could order events differently, and what.
    pub tie: Option<String>,
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
    pub(crate) fn new(outvcs: usize, endpoints: usize) -> Trains {
        Trains {
            returns: vec![VecDeque::new(); outvcs],
            asked_at: vec![(NO_TIME, NO_TIME); outvcs],
            tail_at: vec![NO_TIME; endpoints],
            busy_at: vec![NO_TIME; endpoints],
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

    /// Records the first order-sensitive coincidence.
    fn tie(&mut self, what: impl FnOnce() -> String) {
        if self.pk.tie.is_none() {
            self.pk.tie = Some(format!("at {} ps: {}", self.now, what()));
        }
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

    /// A switch asks for output VC `ov` for a branch. Two such requests at one instant are
    /// served in the order their header decodes were scheduled, in both engines alike (both
    /// schedule a decode when the head, or under store-and-forward the tail, leaves upstream, or
    /// when the packet ahead leaves the buffer). Decodes scheduled at the same instant are
    /// ordered by what scheduled them, which the engines may order differently: a tie.
    pub(crate) fn note_request(&mut self, ov: u32, b: u32) {
        let w = self.branches[b].worm;
        if self.worms[w].buf == NONE {
            return; // an NI's own sends are ordered by the NI
        }
        let now = (self.now, self.worms[w].route_pushed);
        if std::mem::replace(&mut self.pk.asked_at[ov as usize], now) == now {
            let name = self.buffer_name(ov);
            self.tie(|| format!("two packets ask for the VC to {name} at once"));
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
            self.q.push(s, Event::TrainStart { branch: b });
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
    /// time from now, and its buffer's occupancy peaked when that branch looked at it.
    fn all_started(&mut self, w: u32) {
        let (buf, flits, head) = (self.worms[w].buf, self.worms[w].flits, self.worms[w].head_at);
        let f = self.timing.flit;
        let peak = self.arrived_by(w, self.now);
        // The flit engine counts arrivals when a branch looks: at its starts and every flit
        // time after. The peak was first seen at the first look after flit `peak - 1` arrived.
        let seen = head + (peak as u64 - 1) * f;
        let first = self.worms[w]
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
            .expect("a worm with started branches has branches");
        self.note_peak(buf, peak, first);
        self.worms[w].freed = flits;
        self.worms[w].arrived = flits;
        self.return_train(buf, CreditTrain { start: self.now + self.timing.credit, count: flits, period: f });
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
        if n > 0 {
            self.note_peak(buf, n, self.now);
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
                self.ni_tail_checked(msg, pid, child);
            }
        }
    }

    /// A packet reaches an NI; when endpoint jobs take time, another job of that endpoint at the
    /// same instant is a tie.
    pub(crate) fn ni_tail_checked(&mut self, msg: u32, pid: u32, node: u32) {
        if !self.timing.instant_endpoints {
            let ep = self.trees.nodes[node as usize].eject as usize;
            if self.pk.busy_at[ep] == self.now {
                self.tie(|| format!("a packet reaches endpoint {ep} as it does something else"));
            }
            self.pk.tail_at[ep] = self.now;
        }
        self.pk.in_tail = true;
        self.on_ni_tail(msg, pid, node);
        self.pk.in_tail = false;
    }

    /// Endpoint `ep` queues or finishes a job now (tie detection when jobs take time).
    pub(crate) fn note_endpoint_busy(&mut self, ep: u32) {
        if self.timing.instant_endpoints || self.pk.in_tail {
            return;
        }
        if self.pk.tail_at[ep as usize] == self.now {
            self.tie(|| format!("endpoint {ep} does something as a packet reaches it"));
        }
        self.pk.busy_at[ep as usize] = self.now;
    }
}
