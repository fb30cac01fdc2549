//! Links: the sending side of every channel — the output port of a switch, or an NI's injection
//! port.
//!
//! What is modelled: a channel carries one flit per flit time (its serialization); a flit sent
//! at `t` is in the far buffer at `t + crossbar + flit time + propagation` (no crossbar term on an
//! NI's injection link). Each channel has per-VC output state: the packet branch holding the VC
//! (wormhole: from its head until its tail has been sent) and the credits of the far buffer,
//! returned one per freed slot after the link's propagation plus `switch.credit_delay`. VCs are
//! granted to waiting branches first come, first served; under cut-through and store-and-forward
//! a VC is only granted when the far buffer has room for the whole packet. The link itself is
//! shared flit by flit among its VCs round robin, starting after the VC served last, among those
//! with a flit present and a credit. An NI drains its ejection link at line rate, so channels into
//! endpoints never run out of credits. Two Quadrics exceptions (coll03 §2–§3): a range multicast
//! replicating at a switch is granted all its output VCs together or none (`gang.rs`), and with
//! `switch.circuit_until_ack` a VC stays held after its tail until the circuit's combined
//! acknowledgement has passed (`circuit.rs`).
//!
//! Not modelled (yet): crossbar input contention (an input reads a flit once for all its
//! branches and an input may feed several outputs at once), per-link bandwidths from the fabric
//! file (every link uses `link.bandwidth`), and pipelined router stages.

use super::circuit::HELD;
use super::engine::Simulation;
use super::queue::Event;
use super::result::FlitRecord;
use super::switch::BranchState;
use super::NONE;
use std::collections::VecDeque;

/// "No service scheduled".
const IDLE: u64 = u64::MAX;

/// The serializer of one channel.
#[derive(Clone, Debug)]
pub(crate) struct OutPort {
    /// The channel is sending a flit until then.
    pub busy_until: u64,
    /// Time of the scheduled `Service` event, or `IDLE`. Any other `Service` event of this
    /// channel in the queue is stale and ignored.
    pub pending_at: u64,
    /// Next VC to offer the link to.
    pub rr: u32,
}

impl Default for OutPort {
    fn default() -> Self {
        OutPort { busy_until: 0, pending_at: IDLE, rr: 0 }
    }
}

/// One VC of a channel, seen from its sender.
#[derive(Clone, Debug)]
pub(crate) struct OutVc {
    /// Branch holding the VC, or `NONE`.
    pub holder: u32,
    /// Free slots in the far buffer known to the sender (`u32::MAX`: unlimited).
    pub credits: u32,
    /// Credits on their way back: (time they arrive, count), in time order. They are taken in
    /// when the sender looks, so a returning credit costs no event unless someone waits for it.
    pub returns: VecDeque<(u64, u32)>,
    /// Branches waiting for the VC, oldest first.
    pub waiters: VecDeque<u32>,
}

impl OutVc {
    pub(crate) fn new(credits: u32) -> OutVc {
        OutVc { holder: NONE, credits, returns: VecDeque::new(), waiters: VecDeque::new() }
    }

    /// Takes in the credits that have arrived by `now`.
    #[inline]
    fn absorb(&mut self, now: u64) {
        while let Some(&(t, n)) = self.returns.front() {
            if t > now {
                break;
            }
            self.credits += n;
            self.returns.pop_front();
        }
    }

    /// When the sender will know of at least `need` free slots, if credits on their way suffice.
    fn room_at(&self, need: u32) -> Option<u64> {
        let mut have = self.credits;
        for &(t, n) in &self.returns {
            have += n;
            if have >= need {
                return Some(t);
            }
        }
        None
    }

    /// Credits the sender holds or will have by `now` (for diagnostics, without mutating).
    pub(crate) fn credits_at(&self, now: u64) -> u32 {
        self.credits.saturating_add(self.returns.iter().filter(|(t, _)| *t <= now).map(|(_, n)| n).sum())
    }
}

impl Simulation<'_> {
    /// Makes sure the channel looks for a flit to send as soon as it is free.
    pub(crate) fn kick(&mut self, chan: u32) {
        self.kick_at(chan, self.now);
    }

    /// Makes sure the channel looks for a flit to send at `t` or as soon after as it is free.
    pub(crate) fn kick_at(&mut self, chan: u32, t: u64) {
        let p = &mut self.ports[chan as usize];
        let t = t.max(p.busy_until).max(self.now);
        if p.pending_at > t {
            p.pending_at = t;
            self.q.push(t, Event::Service { chan });
        }
    }

    /// Round-robin arbitration among the channel's VCs; sends at most one flit.
    pub(crate) fn on_service(&mut self, chan: u32) {
        if self.ports[chan as usize].pending_at != self.now {
            return; // superseded by an earlier service
        }
        self.ports[chan as usize].pending_at = IDLE;
        // VCs from `rr` on, wrapping round (by a compare, not a division: this runs per flit).
        let mut vc = self.ports[chan as usize].rr;
        let mut wake = IDLE;
        for k in 0..self.v {
            if k > 0 {
                vc = if vc + 1 == self.v { 0 } else { vc + 1 };
            }
            let ov = chan * self.v + vc;
            let o = &mut self.outvcs[ov as usize];
            if o.holder >= HELD {
                continue; // free, or held by a circuit whose packet has passed
            }
            o.absorb(self.now);
            let holder = o.holder;
            let (sent, wid) = (self.branches[holder].sent, self.branches[holder].worm);
            self.absorb_arrivals(wid);
            let w = &self.worms[wid];
            if sent >= w.arrived {
                // Waits for its next flit: wake at its arrival, or when it is sent.
                if let Some(&t) = w.incoming.front() {
                    wake = wake.min(t);
                }
                continue;
            }
            let o = &self.outvcs[ov as usize];
            if o.credits == 0 {
                // Waits for a credit: the next one on its way, or the next slot freed.
                if let Some(&(t, _)) = o.returns.front() {
                    wake = wake.min(t);
                }
                continue;
            }
            // Occupy the link first: sending may grant this channel's VC to a waiter, whose
            // kick must then find the link busy.
            let p = &mut self.ports[chan as usize];
            p.rr = if vc + 1 == self.v { 0 } else { vc + 1 };
            p.busy_until = self.now + self.timing.flit;
            p.pending_at = p.busy_until;
            self.q.push(p.busy_until, Event::Service { chan });
            self.send_flit(chan, vc, holder);
            return;
        }
        if wake != IDLE {
            self.kick_at(chan, wake);
        }
    }

    /// Sends flit `sent` of branch `b` on `chan`/`vc`.
    fn send_flit(&mut self, chan: u32, vc: u32, b: u32) {
        let ov = chan * self.v + vc;
        let br = &mut self.branches[b];
        let i = br.sent;
        br.sent += 1;
        let (wid, node) = (br.worm, br.node);
        let (msg, pid, flits, buf) = {
            let w = &self.worms[wid];
            (w.msg, w.pid, w.flits, w.buf)
        };
        let o = &mut self.outvcs[ov as usize];
        if o.credits != u32::MAX {
            o.credits -= 1;
        }
        self.link_flits[chan as usize] += 1;
        if i == 0 {
            self.link_packets[chan as usize] += 1;
        }
        self.flit_hops += 1;
        self.last_move = self.now;
        if let Some(t) = &mut self.trace {
            t.push(FlitRecord { time: self.now, channel: chan, vc: vc as u8, msg, pid, flit: i });
        }
        let arrive = self.now + self.delay[chan as usize];
        if self.trees.nodes[node as usize].eject != NONE {
            // The NI only acts on a whole packet, so only the tail's arrival is an event.
            if i + 1 == flits {
                self.add_ref(msg);
                self.q.push(arrive, Event::NiTail { msg, pid, node });
            }
        } else {
            let down = if i == 0 {
                let d = self.new_worm(msg, pid, node, ov, flits);
                self.worms[d].up = self.worms[wid].circuit;
                self.bufs[ov as usize].queue.push_back(d);
                self.branches[b].down = d;
                d
            } else {
                self.branches[b].down
            };
            self.flit_sent_to(down, i, arrive);
        }
        if buf != NONE {
            self.read_flit(wid, i);
        }
        if i + 1 == flits {
            self.branches[b].state = BranchState::Done;
            if self.timing.circuits {
                self.hold_for_ack(ov, wid, node, arrive);
            } else {
                self.release_vc(ov);
            }
            self.worms[wid].done += 1;
            self.maybe_retire(wid);
        }
    }

    /// Branch `b` asks for its output VC.
    pub(crate) fn request_vc(&mut self, b: u32) {
        let node = self.trees.nodes[self.branches[b].node as usize];
        let ov = node.chan * self.v + node.vc as u32;
        let o = &self.outvcs[ov as usize];
        if o.holder == NONE && o.waiters.is_empty() && self.fits(ov, b) {
            self.grant(ov, b);
        } else {
            self.outvcs[ov as usize].waiters.push_back(b);
        }
    }

    /// Under cut-through and store-and-forward a packet starts a hop only if it fits whole.
    pub(crate) fn fits(&mut self, ov: u32, b: u32) -> bool {
        if !self.timing.whole_packet {
            return true;
        }
        if self.trains_on() {
            return self.train_fits(ov, b);
        }
        let flits = self.worms[self.branches[b].worm].flits;
        let o = &mut self.outvcs[ov as usize];
        o.absorb(self.now);
        if o.credits >= flits {
            return true;
        }
        // Look again when enough credits are back (later returns schedule their own look).
        if let Some(t) = o.room_at(flits) {
            self.q.push(t, Event::RoomCheck { outvc: ov });
        }
        false
    }

    pub(crate) fn grant(&mut self, ov: u32, b: u32) {
        if self.trains_on() {
            return self.train_grant(ov, b);
        }
        self.outvcs[ov as usize].holder = b;
        self.branches[b].state = BranchState::Active;
        self.kick(ov / self.v);
    }

    /// Gives a free VC to the oldest waiter, if it may start.
    fn grant_waiter(&mut self, ov: u32) {
        let o = &self.outvcs[ov as usize];
        if o.holder != NONE {
            return;
        }
        if let Some(&b) = o.waiters.front() {
            if self.branches[b].gang {
                self.try_gang(self.branches[b].worm);
            } else if self.fits(ov, b) {
                self.outvcs[ov as usize].waiters.pop_front();
                self.grant(ov, b);
            }
        }
    }

    pub(crate) fn release_vc(&mut self, ov: u32) {
        self.outvcs[ov as usize].holder = NONE;
        self.grant_waiter(ov);
    }

    /// `n` slots of the buffer fed by output VC `ov` are free again; the sender learns of it
    /// after the credit delay. Only a sender that is waiting for credits is woken.
    pub(crate) fn return_credits(&mut self, ov: u32, n: u32) {
        let t = self.now + self.timing.credit;
        let o = &mut self.outvcs[ov as usize];
        let starved = o.credits == 0 && o.returns.is_empty();
        o.returns.push_back((t, n));
        if o.holder == HELD {
            // The packet has passed; whoever waits is woken when the circuit closes.
        } else if o.holder != NONE {
            if starved {
                self.kick_at(ov / self.v, t);
            }
        } else if !o.waiters.is_empty() {
            self.q.push(t, Event::RoomCheck { outvc: ov });
        }
    }

    /// A cut-through packet waiting for room in the next buffer may fit now.
    pub(crate) fn on_room_check(&mut self, ov: u32) {
        self.grant_waiter(ov);
    }
}
