//! Circuits held until the acknowledgement, with acknowledgement combining (coll03 §2–§3), on
//! when `switch.circuit_until_ack` is set.
//!
//! What coll03 says: the header opens a circuit between source and destination that stays in
//! place until the destination's acknowledgement reaches the source, and an EOP token then closes
//! it (§2); for a multicast the Elite switches combine the recipients' acknowledgements and return
//! one to the source, only when all of them have answered (§3, "the worst ack wins").
//!
//! What is modelled: every packet copy in a buffer (and the copy in its sender's NI) gets a
//! [`Circuit`] when its header is decoded: the output VCs it will take, the number of branches
//! whose acknowledgements it awaits, and the circuit one hop upstream. A branch that sends its
//! tail keeps its VC (held by the circuit, `VcHolder::Circuit`) instead of releasing it. An NI acknowledges as soon as a
//! packet's tail is in its memory (the Elan answers in hardware, before any processing). An
//! acknowledgement crossing a link backwards takes `link.propagation`; a switch takes
//! `switch.ack_delay` to combine and pass it on. When the last awaited acknowledgement has been
//! combined, the switch releases the circuit's output VCs and sends one acknowledgement upstream;
//! at the sender's NI the injection VC is released and the transaction is complete.
//!
//! Simplifications, and why:
//! - The circuit of a switch closes when the combined acknowledgement leaves it, not when an EOP
//!   token sent by the source after the acknowledgement comes back down (coll03 does not say
//!   which way the EOP token travels or how long it takes). Each switch is thus released at the
//!   earliest instant the acknowledgement allows; the source's own VC, which decides when its next
//!   packet may go, is released exactly when the acknowledgement arrives, as §2 says.
//! - Acknowledgement tokens take no link bandwidth and never wait: they use the reverse direction
//!   of a link the circuit already owns, and are a few flits against a data packet's hundreds.
//! - All acknowledgements are positive (no network errors are modelled), so combining is waiting
//!   for the last one.
//!
//! Consequence for the sender: its NI's injection VC stays held until the acknowledgement, so its
//! next packet on that VC (of the same message or another) leaves only then — one outstanding
//! transaction per VC. The NI processor still prepares the next packet meanwhile (`t_ns`). Every
//! carrier and the `nca` routing of a k-ary n-tree use VC 0, so in practice one transaction per
//! NI is in flight; setting `switch.circuit_until_ack=false` models fully pipelined transactions.

use super::state::VcHolder;
use super::{FlitEvent, FlitNet};
use crate::sim::ids::{CircuitId, NodeId, VcId, WormId};
use crate::sim::net::NetCtx;

impl FlitNet {
    /// Opens the circuit of worm `id`, whose branches are known (its header is decoded, or it is a
    /// packet in its sender's NI about to be injected).
    pub(super) fn open_circuit(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let (parent, msg, at_ni) = {
            let w = &self.worms[id];
            (w.circuits.up, w.msg, w.buf.is_none())
        };
        let c = self.circuits.ends.alloc(|c| {
            c.vcs.clear();
            c.parent = parent;
            c.at_ni = at_ni;
            c.msg = msg;
        });
        for k in 0..self.worms[id].branches.len() {
            let b = self.worms[id].branches[k];
            let ov = self.branch_vc(cx, b);
            self.circuits.ends[c].vcs.push(ov);
        }
        self.circuits.ends[c].pending = self.circuits.ends[c].vcs.len() as u32;
        self.worms[id].circuits.own = Some(c);
        self.circuits.open += 1;
        cx.refs.hold(msg);
    }

    /// Worm `wid` has sent its tail through node `node` on output VC `ov`, which it keeps until
    /// its circuit closes. When the branch leads to an NI, that NI acknowledges the moment the
    /// tail lands (`arrive`), and the acknowledgement reaches this switch one backward hop later.
    pub(super) fn hold_for_ack(&mut self, cx: &NetCtx<'_>, ov: VcId, wid: WormId, node: NodeId, arrive: u64) {
        self.outvcs[ov.idx()].holder = VcHolder::Circuit;
        if cx.trees.node(node).eject.is_some() {
            let c = self.worms[wid].circuits.own.expect("with circuits every sending worm has one");
            let t = arrive + self.timing.ack_link + self.timing.ack_switch;
            self.queue.push(t, FlitEvent::Ack { circuit: c });
        }
    }

    /// A copy decoded to no branch (dropped) has no circuit of its own: its switch answers for it
    /// once the tail has been taken in and discarded, so the circuits upstream still close.
    pub(super) fn ack_dropped(&mut self, cx: &NetCtx<'_>, id: WormId) {
        if let Some(up) = self.worms[id].circuits.up {
            self.ack_up(cx, up);
        }
    }

    /// An acknowledgement has been combined at circuit `c`; the last one closes it.
    pub(super) fn on_ack(&mut self, cx: &mut NetCtx<'_>, c: CircuitId) {
        let x = &mut self.circuits.ends[c];
        x.pending -= 1;
        if x.pending == 0 {
            self.close_circuit(cx, c);
        }
    }

    /// Releases the circuit's output VCs and passes one acknowledgement upstream (or, at the
    /// sender's NI, completes the transaction).
    fn close_circuit(&mut self, cx: &mut NetCtx<'_>, c: CircuitId) {
        for k in 0..self.circuits.ends[c].vcs.len() {
            let ov = self.circuits.ends[c].vcs[k];
            debug_assert_eq!(
                self.outvcs[ov.idx()].holder,
                VcHolder::Circuit,
                "a circuit closes after every tail has passed"
            );
            self.release_vc(cx, ov);
        }
        let (parent, at_ni, msg) = {
            let x = &self.circuits.ends[c];
            (x.parent, x.at_ni, x.msg)
        };
        if at_ni {
            self.circuits.last_ack = Some(cx.now);
        } else if let Some(parent) = parent {
            self.ack_up(cx, parent);
        }
        self.circuits.ends.release(c);
        self.circuits.open -= 1;
        cx.refs.release(msg);
    }

    /// Sends an acknowledgement from here to circuit `to`, one hop upstream.
    fn ack_up(&mut self, cx: &NetCtx<'_>, to: CircuitId) {
        let combine = if self.circuits.ends[to].at_ni { 0 } else { self.timing.ack_switch };
        self.queue.push(cx.now + self.timing.ack_link + combine, FlitEvent::Ack { circuit: to });
    }
}
