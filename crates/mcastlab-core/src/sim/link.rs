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
//! endpoints never run out of credits.
//!
//! Not modelled (yet): crossbar input contention (an input reads a flit once for all its
//! branches and an input may feed several outputs at once), per-link bandwidths from the fabric
//! file (every link uses `link.bandwidth`), and pipelined router stages.

use super::engine::Simulation;
use super::queue::Event;
use super::result::FlitRecord;
use super::switch::BranchState;
use super::NONE;
use std::collections::VecDeque;

/// The serializer of one channel.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutPort {
    /// The channel is sending a flit until then.
    pub busy_until: u64,
    /// A `Service` event is scheduled.
    pub pending: bool,
    /// Next VC to offer the link to.
    pub rr: u32,
}

/// One VC of a channel, seen from its sender.
#[derive(Clone, Debug)]
pub(crate) struct OutVc {
    /// Branch holding the VC, or `NONE`.
    pub holder: u32,
    /// Free slots in the far buffer (`u32::MAX`: unlimited).
    pub credits: u32,
    /// Branches waiting for the VC, oldest first.
    pub waiters: VecDeque<u32>,
}

impl OutVc {
    pub(crate) fn new(credits: u32) -> OutVc {
        OutVc { holder: NONE, credits, waiters: VecDeque::new() }
    }
}

impl Simulation<'_> {
    /// Makes sure the channel looks for a flit to send as soon as it is free.
    pub(crate) fn kick(&mut self, chan: u32) {
        let p = &mut self.ports[chan as usize];
        if !p.pending {
            p.pending = true;
            let t = p.busy_until.max(self.now);
            self.q.push(t, Event::Service { chan });
        }
    }

    /// Round-robin arbitration among the channel's VCs; sends at most one flit.
    pub(crate) fn on_service(&mut self, chan: u32) {
        self.ports[chan as usize].pending = false;
        let rr = self.ports[chan as usize].rr;
        for k in 0..self.v {
            let vc = (rr + k) % self.v;
            let ov = chan * self.v + vc;
            let o = &self.outvcs[ov as usize];
            if o.holder == NONE || o.credits == 0 {
                continue;
            }
            let b = &self.branches[o.holder];
            if b.sent < self.worms[b.worm].arrived {
                let holder = o.holder;
                // Occupy the link first: sending may grant this channel's VC to a waiter,
                // whose kick must then find the link busy.
                let p = &mut self.ports[chan as usize];
                p.rr = (vc + 1) % self.v;
                p.busy_until = self.now + self.timing.flit;
                p.pending = true;
                self.q.push(p.busy_until, Event::Service { chan });
                self.send_flit(chan, vc, holder);
                return;
            }
        }
    }

    /// Sends flit `sent` of branch `b` on `chan`/`vc`.
    fn send_flit(&mut self, chan: u32, vc: u32, b: u32) {
        let ov = chan * self.v + vc;
        let br = &mut self.branches[b];
        let i = br.sent;
        br.sent += 1;
        let (wid, node) = (br.worm, br.node);
        let (pid, flits, buf) = {
            let w = &self.worms[wid];
            (w.pid, w.flits, w.buf)
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
            t.push(FlitRecord { time: self.now, channel: chan, vc: vc as u8, pid, flit: i });
        }
        let arrive = self.now + self.delay[chan as usize];
        if self.trees.nodes[node as usize].eject != NONE {
            // The NI only acts on a whole packet, so only the tail's arrival is an event.
            if i + 1 == flits {
                self.q.push(arrive, Event::NiTail { pid, node });
            }
        } else {
            let down = if i == 0 {
                let d = self.new_worm(pid, node, ov, flits);
                self.bufs[ov as usize].queue.push_back(d);
                self.branches[b].down = d;
                d
            } else {
                self.branches[b].down
            };
            self.q.push(arrive, Event::FlitArrive { worm: down });
        }
        if buf != NONE {
            self.read_flit(wid, i);
        }
        if i + 1 == flits {
            self.branches[b].state = BranchState::Done;
            self.release_vc(ov);
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
    fn fits(&self, ov: u32, b: u32) -> bool {
        !self.timing.whole_packet || {
            let flits = self.worms[self.branches[b].worm].flits;
            self.outvcs[ov as usize].credits >= flits
        }
    }

    fn grant(&mut self, ov: u32, b: u32) {
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
            if self.fits(ov, b) {
                self.outvcs[ov as usize].waiters.pop_front();
                self.grant(ov, b);
            }
        }
    }

    fn release_vc(&mut self, ov: u32) {
        self.outvcs[ov as usize].holder = NONE;
        self.grant_waiter(ov);
    }

    /// Credits are back: wake the holder if it was starved of them, or a waiter that needed room.
    pub(crate) fn on_credit(&mut self, ov: u32, n: u32) {
        let o = &mut self.outvcs[ov as usize];
        let before = o.credits;
        o.credits += n;
        if o.holder != NONE {
            if before == 0 {
                self.kick(ov / self.v);
            }
        } else {
            self.grant_waiter(ov);
        }
    }
}
