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

use super::state::{BranchState, VcHolder};
use super::{FlitEvent, FlitNet};
use crate::fabric::Channel;
use crate::sim::ids::{BranchId, VcId};
use crate::sim::net::{Arrival, NetCtx};

impl FlitNet {
    /// Makes sure the channel looks for a flit to send at `t` or as soon after as it is free.
    pub(super) fn kick_at(&mut self, cx: &NetCtx<'_>, chan: Channel, t: u64) {
        let p = &mut self.ports[chan.idx()];
        let t = t.max(p.busy_until).max(cx.now);
        if p.pending_at.is_none_or(|at| at > t) {
            p.pending_at = Some(t);
            self.queue.push(t, FlitEvent::Service { chan });
        }
    }

    /// Round-robin arbitration among the channel's VCs; sends at most one flit. Inlined into the
    /// event loop: most events are link services.
    #[inline(always)]
    pub(super) fn on_service(&mut self, cx: &mut NetCtx<'_>, chan: Channel) {
        if self.ports[chan.idx()].pending_at != Some(cx.now) {
            return; // superseded by an earlier service
        }
        self.ports[chan.idx()].pending_at = None;
        let v = self.timing.vcs;
        // VCs from `rr` on, wrapping round (by a compare, not a division: this runs per flit).
        let mut vc = self.ports[chan.idx()].rr;
        let mut wake: Option<u64> = None;
        for k in 0..v {
            if k > 0 {
                vc = if vc + 1 == v { 0 } else { vc + 1 };
            }
            let ov = self.vc_id(chan, vc);
            let o = &mut self.outvcs[ov.idx()];
            let VcHolder::Branch(holder) = o.holder else {
                continue; // free, or held by a circuit whose packet has passed
            };
            o.absorb(cx.now);
            let (sent, wid) = (self.branches[holder].sent, self.branches[holder].worm);
            self.absorb_arrivals(cx.now, wid);
            let w = &self.worms[wid];
            if sent >= w.arrived {
                // Waits for its next flit: wake at its arrival, or when it is sent.
                if let Some(&t) = w.incoming.front() {
                    wake = Some(wake.map_or(t, |x| x.min(t)));
                }
                continue;
            }
            let o = &self.outvcs[ov.idx()];
            if o.credits.is_zero() {
                // Waits for a credit: the next one on its way, or the next slot freed.
                if let Some(&(t, _)) = o.returns.front() {
                    wake = Some(wake.map_or(t, |x| x.min(t)));
                }
                continue;
            }
            // Occupy the link first: sending may grant this channel's VC to a waiter, whose
            // kick must then find the link busy.
            let p = &mut self.ports[chan.idx()];
            p.rr = if vc + 1 == v { 0 } else { vc + 1 };
            p.busy_until = cx.now + self.ser[chan.idx()];
            p.pending_at = Some(p.busy_until);
            self.queue.push(p.busy_until, FlitEvent::Service { chan });
            self.send_flit(cx, chan, vc, holder);
            return;
        }
        if let Some(t) = wake {
            self.kick_at(cx, chan, t);
        }
    }

    /// Sends flit `sent` of branch `b` on `chan`/`vc`.
    #[inline(always)]
    fn send_flit(&mut self, cx: &mut NetCtx<'_>, chan: Channel, vc: u32, b: BranchId) {
        let ov = self.vc_id(chan, vc);
        let br = &mut self.branches[b];
        let i = br.sent;
        br.sent += 1;
        let (wid, node) = (br.worm, br.node);
        let (msg, pid, flits, buf) = {
            let w = &self.worms[wid];
            (w.msg, w.pid, w.flits, w.buf)
        };
        self.outvcs[ov.idx()].credits.take(1);
        self.stats.count_flit(cx.now, chan, i, || (vc, msg, pid));
        self.stats.count_heads(chan, u64::from(i == 0));
        let arrive = cx.now + self.delay[chan.idx()];
        if cx.trees.node(node).eject.is_some() {
            // The NI only acts on a whole packet, so only the tail's arrival is an event.
            if i + 1 == flits {
                self.arrive(cx, Arrival::Tail { at: arrive, msg, pid, node }, msg);
            }
        } else {
            let down = if i == 0 {
                cx.refs.hold(msg);
                let d = self.new_worm(msg, pid, Some(node), Some(ov), flits);
                self.worms[d].circuits.up = self.worms[wid].circuits.own;
                self.bufs[ov.idx()].queue.push_back(d);
                self.branches[b].down = Some(d);
                d
            } else {
                self.branches[b].down.expect("a branch past its head has a worm downstream")
            };
            self.flit_sent_to(cx, down, i, arrive);
        }
        if buf.is_some() {
            self.read_flit(cx, wid, i);
        }
        if i + 1 == flits {
            self.branches[b].state = BranchState::Done;
            if self.timing.circuits {
                self.hold_for_ack(cx, ov, wid, node, arrive);
            } else {
                self.release_vc(cx, ov);
            }
            self.worms[wid].done += 1;
            self.maybe_retire(cx, wid);
        }
    }

    /// Branch `b` asks for its output VC.
    pub(super) fn request_vc(&mut self, cx: &mut NetCtx<'_>, b: BranchId) {
        let ov = self.branch_vc(cx, b);
        let o = &self.outvcs[ov.idx()];
        if matches!(o.holder, VcHolder::Free) && o.waiters.is_empty() && self.fits(cx, ov, b) {
            self.grant(cx, ov, b);
        } else {
            self.outvcs[ov.idx()].waiters.push_back(b);
        }
    }

    /// Under cut-through and store-and-forward a packet starts a hop only if it fits whole.
    pub(super) fn fits(&mut self, cx: &NetCtx<'_>, ov: VcId, b: BranchId) -> bool {
        if !self.timing.whole_packet {
            return true;
        }
        if self.timing.packet {
            return self.train_fits(cx, ov, b);
        }
        let flits = self.worms[self.branches[b].worm].flits;
        let o = &mut self.outvcs[ov.idx()];
        o.absorb(cx.now);
        if o.credits.at_least(flits) {
            return true;
        }
        // Look again when enough credits are back (later returns schedule their own look).
        if let Some(t) = o.room_at(flits) {
            self.queue.push(t, FlitEvent::RoomCheck { vc: ov });
        }
        false
    }

    pub(super) fn grant(&mut self, cx: &mut NetCtx<'_>, ov: VcId, b: BranchId) {
        if self.timing.packet {
            return self.train_grant(cx, ov, b);
        }
        self.outvcs[ov.idx()].holder = VcHolder::Branch(b);
        self.branches[b].state = BranchState::Active;
        self.kick_at(cx, Channel(ov.chan(self.timing.vcs)), cx.now);
    }

    /// Gives a free VC to the oldest waiter, if it may start (a packet waiting for room behind
    /// it may fit now that credits are back).
    pub(super) fn grant_waiter(&mut self, cx: &mut NetCtx<'_>, ov: VcId) {
        let o = &self.outvcs[ov.idx()];
        if !matches!(o.holder, VcHolder::Free) {
            return;
        }
        if let Some(&b) = o.waiters.front() {
            if self.branches[b].gang {
                self.try_gang(cx, self.branches[b].worm);
            } else if self.fits(cx, ov, b) {
                self.outvcs[ov.idx()].waiters.pop_front();
                self.grant(cx, ov, b);
            }
        }
    }

    pub(super) fn release_vc(&mut self, cx: &mut NetCtx<'_>, ov: VcId) {
        self.outvcs[ov.idx()].holder = VcHolder::Free;
        self.grant_waiter(cx, ov);
    }

    /// `n` slots of the buffer fed by output VC `ov` are free again; the sender learns of it
    /// after the credit delay. Only a sender that is waiting for credits is woken.
    pub(super) fn return_credits(&mut self, cx: &NetCtx<'_>, ov: VcId, n: u32) {
        let t = cx.now + self.credit_after(ov);
        let o = &mut self.outvcs[ov.idx()];
        let starved = o.credits.is_zero() && o.returns.is_empty();
        o.returns.push_back((t, n));
        match o.holder {
            // The packet has passed; whoever waits is woken when the circuit closes.
            VcHolder::Circuit => {}
            VcHolder::Branch(_) => {
                if starved {
                    self.kick_at(cx, Channel(ov.chan(self.timing.vcs)), t);
                }
            }
            VcHolder::Free => {
                if !o.waiters.is_empty() {
                    self.queue.push(t, FlitEvent::RoomCheck { vc: ov });
                }
            }
        }
    }
}
