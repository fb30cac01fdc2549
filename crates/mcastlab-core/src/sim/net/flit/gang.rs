//! All-or-nothing output allocation for Quadrics contiguous-port multicasts (coll03 §3).
//!
//! What coll03 says: an Elite switch forwards a multicast packet to a set of contiguous output
//! ports; it serializes incoming multicast packets whose requested output ports overlap, and lets
//! them proceed in parallel otherwise. In Fig. 1(b)–(d) two multicasts reach their common root
//! switch at once with overlapping port sets: the arbiter lets one through, and the other is
//! blocked until its resources are available.
//!
//! What is modelled: where a [`crate::plan::Carrier::Range`] packet replicates (a switch at which
//! its tree has several branches), it asks for the output VCs of all its branches *as one
//! request* and is granted all of them at the same instant, or none. Until then it holds nothing
//! that it could send on. After the grant its branches read the buffered flits at their own pace,
//! as any replicating packet's do (a slot is freed when every branch has read it, so a blocked
//! branch stalls the others once the input buffer is full). At switches where a range packet has a
//! single output (its climb), its request is an ordinary one.
//!
//! Arbitration, and why it cannot deadlock inside a switch: a request that cannot be granted at
//! once joins the waiting queue of every VC it needs, at the same instant. A VC goes to the front
//! of its queue only; a multicast at the front of a free VC's queue keeps it idle (reserved) until
//! its other VCs are free and it is at the front of their queues too. So requests are served in
//! arrival order on every output they share — an earlier request is never overtaken by a later
//! one that overlaps it, which is the "blocked until its resources are available" of Fig. 1(d) and
//! keeps a multicast from starving behind a stream of unicasts — while requests with disjoint
//! output sets proceed in parallel. Since each request enters all its queues at one instant, queue
//! order is one total order (arrival), and no two requests can each wait for the other.
//!
//! Virtual channels: the unit of allocation is the output VC, not the physical port. A range
//! packet asks for its carrier's VC (VC 0: `plan/walk/range.rs` routes every range hop on it) on
//! each port of its set, so two multicasts always serialize on overlapping ports, as Fig. 1 shows,
//! whatever the number of VCs. A packet on another VC of the same port (QsNET has two per link) is
//! not serialized with the multicast; it shares the link's bandwidth flit by flit, as VCs do
//! everywhere in the simulator. Unicasts routed on VC 0 (all of them under `nca`) queue with the
//! multicasts in arrival order.

use super::state::VcHolder;
use super::FlitNet;
use crate::sim::ids::WormId;
use crate::sim::net::NetCtx;

impl FlitNet {
    /// Worm `id`'s branches (a range multicast replicating here) ask for their output VCs as one
    /// request: granted at once if every VC is free, unwanted by earlier requests and (cut-through,
    /// store-and-forward) has room for the whole packet; otherwise queued on every one of them.
    pub(super) fn request_gang(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let n = self.worms[id].branches.len();
        let mut free = true;
        for k in 0..n {
            let b = self.worms[id].branches[k];
            let ov = self.branch_vc(cx, b);
            let o = &self.outvcs[ov.idx()];
            if !(matches!(o.holder, VcHolder::Free) && o.waiters.is_empty() && self.fits(cx, ov, b)) {
                free = false;
                break;
            }
        }
        for k in 0..n {
            let b = self.worms[id].branches[k];
            let ov = self.branch_vc(cx, b);
            if free {
                self.grant(cx, ov, b);
            } else {
                self.outvcs[ov.idx()].waiters.push_back(b);
            }
        }
    }

    /// A VC of a queued range multicast may have become available: grant the whole request if
    /// each of its VCs is free, has it at the front of its queue and has room for it.
    pub(super) fn try_gang(&mut self, cx: &mut NetCtx<'_>, id: WormId) {
        let n = self.worms[id].branches.len();
        for k in 0..n {
            let b = self.worms[id].branches[k];
            let ov = self.branch_vc(cx, b);
            let o = &self.outvcs[ov.idx()];
            if !matches!(o.holder, VcHolder::Free) || o.waiters.front() != Some(&b) || !self.fits(cx, ov, b) {
                return;
            }
        }
        for k in 0..n {
            let b = self.worms[id].branches[k];
            let ov = self.branch_vc(cx, b);
            self.outvcs[ov.idx()].waiters.pop_front();
            self.grant(cx, ov, b);
        }
    }
}
