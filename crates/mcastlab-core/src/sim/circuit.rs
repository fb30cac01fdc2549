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
//! tail keeps its VC (marked [`HELD`]) instead of releasing it. An NI acknowledges as soon as a
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

use super::engine::Simulation;
use super::queue::Event;
use super::NONE;

/// `OutVc::holder` of a VC whose packet has passed but whose circuit awaits its acknowledgement.
pub(crate) const HELD: u32 = NONE - 1;

/// One switch's (or the sending NI's) end of a packet copy's circuit.
#[derive(Clone, Debug, Default)]
pub(crate) struct Circuit {
    /// The circuit one hop upstream, `NONE` at the sender's NI.
    pub parent: u32,
    /// Branches whose acknowledgement has not arrived yet.
    pub pending: u32,
    /// Output VCs the circuit takes (channel · V + vc), released when it closes.
    pub vcs: Vec<u32>,
    /// This end is the sender's NI: acknowledgements reach it without a switch's combining delay,
    /// and its closing completes the transaction.
    pub at_ni: bool,
    pub msg: u32,
}

impl Simulation<'_> {
    /// Opens the circuit of worm `id`, whose branches are known (its header is decoded, or it is a
    /// packet in its sender's NI about to be injected).
    pub(crate) fn open_circuit(&mut self, id: u32) {
        let (parent, msg, at_ni) = {
            let w = &self.worms[id];
            (w.up, w.msg, w.buf == NONE)
        };
        let c = self.circuits.alloc(|c| {
            c.vcs.clear();
            c.parent = parent;
            c.at_ni = at_ni;
            c.msg = msg;
        });
        for k in 0..self.worms[id].branches.len() {
            let b = self.worms[id].branches[k];
            let node = self.trees.nodes[self.branches[b].node as usize];
            self.circuits[c].vcs.push(node.chan * self.v + node.vc as u32);
        }
        self.circuits[c].pending = self.circuits[c].vcs.len() as u32;
        self.worms[id].circuit = c;
        self.circuits_open += 1;
        self.add_ref(msg);
    }

    /// Branch `b` of worm `wid` has sent its tail on output VC `ov`, which it keeps until its
    /// circuit closes. When the branch leads to an NI, that NI acknowledges the moment the tail
    /// lands (`arrive`), and the acknowledgement reaches this switch one backward hop later.
    pub(crate) fn hold_for_ack(&mut self, ov: u32, wid: u32, node: u32, arrive: u64) {
        self.outvcs[ov as usize].holder = HELD;
        if self.trees.nodes[node as usize].eject != NONE {
            let c = self.worms[wid].circuit;
            let t = arrive + self.timing.ack_link + self.timing.ack_switch;
            self.q.push(t, Event::Ack { circuit: c });
        }
    }

    /// A copy decoded to no branch (dropped) has no circuit of its own: its switch answers for it
    /// once the tail has been taken in and discarded, so the circuits upstream still close.
    pub(crate) fn ack_dropped(&mut self, id: u32) {
        let up = self.worms[id].up;
        if up != NONE {
            self.ack_up(up);
        }
    }

    /// An acknowledgement has been combined at circuit `c`; the last one closes it.
    pub(crate) fn on_ack(&mut self, c: u32) {
        let x = &mut self.circuits[c];
        x.pending -= 1;
        if x.pending == 0 {
            self.close_circuit(c);
        }
    }

    /// Releases the circuit's output VCs and passes one acknowledgement upstream (or, at the
    /// sender's NI, completes the transaction).
    fn close_circuit(&mut self, c: u32) {
        for k in 0..self.circuits[c].vcs.len() {
            let ov = self.circuits[c].vcs[k];
            debug_assert_eq!(self.outvcs[ov as usize].holder, HELD, "a circuit closes after every tail has passed");
            self.release_vc(ov);
        }
        let (parent, at_ni, msg) = {
            let x = &self.circuits[c];
            (x.parent, x.at_ni, x.msg)
        };
        if at_ni {
            self.last_ack = Some(self.now);
        } else {
            self.ack_up(parent);
        }
        self.circuits.release(c);
        self.circuits_open -= 1;
        self.unref(msg);
    }

    /// Sends an acknowledgement from here to circuit `to`, one hop upstream.
    fn ack_up(&mut self, to: u32) {
        let combine = if self.circuits[to].at_ni { 0 } else { self.timing.ack_switch };
        self.q.push(self.now + self.timing.ack_link + combine, Event::Ack { circuit: to });
    }
}
