//! The VCs of each router grouped by what their front packet does, and BookSim's pass over
//! them: per-router words in the layout of the occupancy bits, kept once per packet, let the pass
//! loop over each group instead of testing every VC for what it is doing (at mesh 0.3, 4.7 %
//! less CPU than the general pass; `bench_booksim`'s outputs are the same bit for bit, and the
//! shortcut test in `router.rs` runs both flit for flit).

use super::bids::Pick;
use super::va::Ask;
use super::{IqNet, VcState};
use crate::ids::SwitchId;
use crate::sim::ids::IqVcId;
use crate::sim::net::NetCtx;

/// Per router, in the layout of `IqNet::occ`, the input VCs by what their front packet does: a
/// unicast routed and asking for its output VC, a unicast holding it with its tail still to
/// send, or a multicast. Set and cleared once per packet (RC, VA's grant, the tail's departure),
/// so that BookSim's pass ([`IqNet::pass_by_phase`]) visits each group on a loop of its own
/// instead of testing every VC for which it is, a test the branch predictor could not learn.
#[derive(Clone, Debug, Default)]
pub(crate) struct Phases {
    /// Per occupancy word, the three groups side by side (one bounds check and one cache line
    /// for the pass's three reads, where three vectors took three of each).
    words: Vec<PhaseWords>,
}

/// The groups of one occupancy word: unicasts asking, unicasts sending, multicasts.
#[derive(Clone, Copy, Debug, Default)]
struct PhaseWords {
    asking: u64,
    sending: u64,
    multicast: u64,
}

impl Phases {
    pub(crate) fn new(words: usize) -> Phases {
        Phases { words: vec![PhaseWords::default(); words] }
    }

    /// RC routed the packet of the input VC at bit mask `m` of word `w`: a unicast now asks for
    /// its output VC; a multicast is marked as one (the general pass handles it).
    #[inline]
    pub(crate) fn routed(&mut self, w: usize, m: u64, unicast: bool) {
        let x = &mut self.words[w];
        if unicast {
            x.asking |= m;
        } else {
            x.multicast |= m;
        }
    }

    /// VA granted the unicast at `m` of word `w` its output VC: it sends from now on.
    #[inline]
    pub(crate) fn granted(&mut self, w: usize, m: u64) {
        let x = &mut self.words[w];
        x.asking &= !m;
        x.sending |= m;
    }

    /// The packet at `m` of word `w` has left its buffer: the VC is idle.
    #[inline]
    pub(crate) fn done(&mut self, w: usize, m: u64) {
        let x = &mut self.words[w];
        x.sending &= !m;
        x.multicast &= !m;
    }
}

impl IqNet {
    /// The pass of BookSim's pipeline (one occupancy word, RC and VA a cycle or more) on the VCs
    /// grouped by phase ([`super::Phases`]): unicasts holding their output VC bid, unicasts
    /// without one ask, the others (heads to route, packets routed nowhere) go through
    /// [`IqNet::vc_work`]; a router holding a multicast's flits takes the general pass. Each group
    /// is visited in increasing VC order, and the groups do not meet within a cycle (a head
    /// routed now asks from the next cycle on; bids and asks are entered in the order the general
    /// pass enters them), so the outcome is the general pass's.
    #[inline(never)]
    pub(super) fn pass_by_phase(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        let w = r.idx();
        let (occ, groups) = (self.occ[w], self.phase.words[w]);
        if groups.multicast & occ != 0 {
            self.pass::<true, true, true, true>(cx, r, c);
            return;
        }
        let v = self.cfg.v;
        let rp = &self.routers[r.idx()];
        let in_base = rp.in_base;
        let base = (in_base * v) as usize;
        let (asking, sending) = (groups.asking, groups.sending);
        // A unicast that holds its output VC and has a flit here (its bit in `occ`) has sent
        // none of it yet (each flit it sends leaves the buffer), so it bids if SA may start and
        // the VC has a credit.
        let mut bits = sending & occ;
        while bits != 0 {
            let local = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (ivc, i) = (IqVcId::from_index(base + local), self.wiring.input_of[local]);
            let x = &self.vcs[ivc.idx()];
            let br = &x.first;
            debug_assert!(x.state == VcState::Routed && x.branches == 1 && br.sent < x.flits && x.arrived > 0);
            debug_assert_eq!(br.sent, x.freed);
            let Some(ovc) = br.ovc else { continue };
            if br.sa_at <= c && self.credits[ovc.idx()] != 0 {
                let vc = local as u32 - i * v;
                self.put_bid(ivc, (i, br.out as u32), Pick { vc: vc as u16, k: 0 }, in_base + i);
            }
        }
        // Asking unicasts hold a flit (they can send none before VA grants them a VC), and the
        // router's count of branches waiting for VA includes them.
        debug_assert_eq!(asking & !occ, 0);
        let mut bits = asking;
        while bits != 0 {
            let local = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let ivc = IqVcId::from_index(base + local);
            let x = &self.vcs[ivc.idx()];
            if x.va_at <= c && self.may_ask(&x.first) {
                self.scratch.asks.push(Ask { req: local as u32, ivc, k: 0 });
            }
        }
        let mut bits = occ & !asking & !sending;
        while bits != 0 {
            let local = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (ivc, i) = (IqVcId::from_index(base + local), self.wiring.input_of[local]);
            let vc = local as u32 - i * v;
            self.vc_work::<true, false>(cx, r, ivc, (i, vc, in_base + i), c, false);
        }
    }
}
