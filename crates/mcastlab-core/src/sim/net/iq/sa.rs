//! Switch allocation (SA) of the iq router: the bids of a router's input VCs, at most one per
//! input and output (of an input's VCs bidding for one output, the first after the input's
//! pointer), matched so that at most one flit leaves each input and enters each output; the
//! winners cross the crossbar (see the module doc of `sim::net::iq` for where SA sits in a cycle).
//!
//! Under BookSim's configuration (iSLIP, routers of at most 64 inputs and 64 outputs whose VCs
//! fit one occupancy word) the bids are entered in bit masks as the pass makes them — per output
//! a word of the inputs bidding for it — and matched from those ([`IqNet::match_masks`]) without
//! the allocator's list of requests: the same winners, in the same order, with the same pointer
//! moves as [`allocate`] gives (the lone-VC test compares the two flit by flit).

use super::alloc::{after, allocate, first_after, next, Request};
use super::IqNet;
use crate::ids::SwitchId;
use crate::sim::ids::VcId;
use crate::sim::net::NetCtx;

/// The requests of the router being visited as bit masks (requesters and resources below 64), SA's
/// bids or VA's asks: entries are meaningful only for the resources and requesters of the current
/// visit, which set them before they read them, so only the scalars are reset.
pub(crate) struct Masks {
    /// Outputs with a bid, inputs with a bid, and whether an input bids for two outputs or more.
    asked: u64,
    from: u64,
    repeat: bool,
    /// The outputs in the order first bid for (iSLIP grants in that order), and how many.
    order: [u8; 64],
    n: usize,
    /// Per output, the inputs bidding for it; per input, the outputs granting it (iSLIP).
    pub(super) asking: [u64; 64],
    pub(super) grants: [u64; 64],
    /// Per (output, input), where its bid is in the list of bids.
    pub(super) index: [u16; 64 * 64],
}

impl Default for Masks {
    fn default() -> Self {
        Masks {
            asked: 0,
            from: 0,
            repeat: false,
            order: [0; 64],
            n: 0,
            asking: [0; 64],
            grants: [0; 64],
            index: [0; 64 * 64],
        }
    }
}

impl IqNet {
    /// The SA bids of input VC `ivc` (input `i`, VC `vc`, the input's SA pointer at `ptr`): one
    /// per branch holding its VC whose next flit is here and has a credit. Of the VCs of one input
    /// bidding for the same output, the first after the pointer keeps the bid.
    #[inline(always)]
    pub(super) fn bids<const MASKS: bool>(&mut self, ivc: VcId, i: u32, vc: u32, ptr: u32, c: u64) {
        // (A unicast's one branch bids in `vc_work`.)
        for k in 0..self.vcs[ivc.idx()].branches as usize {
            self.bid::<MASKS>(ivc, k, (i, vc, ptr), c);
        }
    }

    /// The SA bid of branch `k` of input VC `ivc`, if it has one (see [`IqNet::bids`]).
    #[inline(always)]
    fn bid<const MASKS: bool>(&mut self, ivc: VcId, k: usize, at: (u32, u32, u32), c: u64) {
        let (i, vc, ptr) = at;
        let b = &self.vcs[ivc.idx()];
        let br = b.branch(k);
        let out = br.out as usize;
        let Some(ovc) = br.ovc else { return };
        if br.sa_at > c || br.sent == b.flits || !b.here(br.sent - b.freed) {
            return;
        }
        if self.vcs[ovc.idx()].credits == 0 {
            return;
        }
        // The VC rides along (above the branch index) for the input's round-robin pointer.
        self.put_bid::<MASKS>(Request { req: i, res: out as u32, a: ivc.raw(), b: vc << 16 | k as u32 }, ptr);
    }

    /// Enters SA bid `bid` (of the input being visited, whose pointer is at `ptr`) unless a VC of
    /// the same input nearer after the pointer bids for the same output; it then replaces a
    /// farther one. `MASKS`: the bids are also entered in the masks [`IqNet::match_masks`] reads
    /// (which then also tell whether the input already bids for the output).
    #[inline(always)]
    pub(super) fn put_bid<const MASKS: bool>(&mut self, bid: Request, ptr: u32) {
        let (out, vc, v) = (bid.res as usize, bid.b >> 16, self.cfg.v);
        let at = self.scratch.sa.len();
        if MASKS {
            let m = &mut self.scratch.masks;
            let (q, res) = (bid.req as usize & 63, out & 63);
            let (qb, rb) = (1u64 << q, 1u64 << res);
            if m.asked & rb == 0 {
                m.asked |= rb;
                m.asking[res] = qb;
                m.order[m.n & 63] = res as u8;
                m.n += 1;
            } else if m.asking[res] & qb == 0 {
                m.asking[res] |= qb;
            } else {
                let there = &mut self.scratch.sa[m.index[res << 6 | q] as usize];
                if after(vc, ptr, v) < after(there.b >> 16, ptr, v) {
                    *there = bid;
                }
                return;
            }
            m.repeat |= m.from & qb != 0;
            m.from |= qb;
            m.index[res << 6 | q] = at as u16;
        } else {
            let stamp = self.scratch.stamp;
            if self.scratch.seen[out] == stamp {
                let there = &mut self.scratch.sa[self.scratch.seen_at[out] as usize];
                if after(vc, ptr, v) < after(there.b >> 16, ptr, v) {
                    *there = bid;
                }
                return;
            }
            self.scratch.seen[out] = stamp;
            self.scratch.seen_at[out] = at as u32;
        }
        self.scratch.sa.push(bid);
    }

    /// SA: the allocator lets at most one flit leave each input and enter each output; the
    /// winners cross the crossbar.
    #[inline]
    pub(super) fn allocate_switch(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        match self.scratch.sa.len() {
            0 => {}
            1 => {
                // A lone bid wins: the allocator's pointer moves, without the allocator. (Its
                // fields are read one by one: they were just written so.)
                let s = &self.scratch.sa[0];
                let q = Request { req: s.req, res: s.res, a: s.a, b: s.b };
                let rp = &self.routers[r.idx()];
                let (nin, nout, ib, ob) =
                    (rp.inputs.len() as u32, rp.outputs.len() as u32, rp.in_base as usize, rp.out_base as usize);
                self.ptrs.sa_in[ib + q.req as usize] = next(q.res, nout);
                self.ptrs.sa_out[ob + q.res as usize] = next(q.req, nin);
                self.scratch.sa.clear();
                self.sa_won(cx, r, ib, q, c);
            }
            _ => self.match_switch(cx, r, c),
        }
    }

    fn match_switch(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        let rp = &self.routers[r.idx()];
        let (nin, nout) = (rp.inputs.len() as u32, rp.outputs.len() as u32);
        let (ib, ob) = (rp.in_base as usize, rp.out_base as usize);
        self.scratch.winners.clear();
        allocate(
            self.cfg.allocator,
            &self.scratch.sa,
            nin,
            nout,
            &mut self.ptrs.sa_in[ib..ib + nin as usize],
            &mut self.ptrs.sa_out[ob..ob + nout as usize],
            &mut self.scratch.alloc,
            &mut self.scratch.winners,
        );
        for j in 0..self.scratch.winners.len() {
            let q = self.scratch.sa[self.scratch.winners[j] as usize];
            self.sa_won(cx, r, ib, q, c);
        }
        self.scratch.sa.clear();
    }

    /// Request `q` won SA: the input's VC pointer moves past the winning VC, and its flit goes.
    /// Inline for the winners of a match too: out of line it cost 0.3 % more instructions on the
    /// mesh at 0.1 and 1.6 % more at 0.3 (and 0.2 % fewer on the torus at 0.1).
    #[inline(always)]
    pub(super) fn sa_won(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, in_base: usize, q: Request, c: u64) {
        self.ptrs.sa_vc[in_base + q.req as usize] = next(q.b >> 16, self.cfg.v);
        self.traverse(cx, r, VcId::from_index(q.a as usize), (q.b & 0xffff) as usize, c);
    }

    /// SA of router `r` on the bids' masks: a lone bid wins; with one bid per input every output
    /// takes the first of its bidders after its pointer (winners by output); one input bidding
    /// alone takes the first of its outputs after its pointer; otherwise iSLIP's one iteration
    /// (every output grants the first bidder after its pointer, every input granted accepts the
    /// first grant after its own; winners in the order first granted, outputs granting in the
    /// order first bid for). These are the rules, and the order, of `alloc::match_masks`, which
    /// `allocate` reaches for two bids or more on such a router (for two, `match_pair` gives the
    /// same).
    #[inline]
    pub(super) fn match_masks(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        let m = &mut self.scratch.masks;
        let (asked, from, repeat, n) = (m.asked, m.from, m.repeat, m.n);
        (m.asked, m.from, m.repeat, m.n) = (0, 0, false, 0);
        if self.scratch.sa.len() < 2 {
            // None, or a lone bid (which wins as `allocate_switch` lets it).
            self.allocate_switch(cx, r, c);
            return;
        }
        let rp = &self.routers[r.idx()];
        let (nin, nout) = (rp.inputs.len() as u32, rp.outputs.len() as u32);
        let (ib, ob) = (rp.in_base as usize, rp.out_base as usize);
        if !repeat {
            let mut left = asked;
            while left != 0 {
                let res = left.trailing_zeros();
                left &= left - 1;
                let q = first_after(self.scratch.masks.asking[res as usize], self.ptrs.sa_out[ob + res as usize]);
                self.masked_win(cx, r, (q, res), (nin, nout, ib, ob), c);
            }
        } else if from.is_power_of_two() {
            let q = from.trailing_zeros();
            let res = first_after(asked, self.ptrs.sa_in[ib + q as usize]);
            self.masked_win(cx, r, (q, res), (nin, nout, ib, ob), c);
        } else {
            let (mut granted, mut by, mut k) = (0u64, [0u8; 64], 0);
            for j in 0..n {
                let res = self.scratch.masks.order[j & 63] as usize;
                let q = first_after(self.scratch.masks.asking[res], self.ptrs.sa_out[ob + res]) as usize;
                let qb = 1u64 << q;
                if granted & qb == 0 {
                    granted |= qb;
                    self.scratch.masks.grants[q] = 1 << res;
                    by[k & 63] = q as u8;
                    k += 1;
                } else {
                    self.scratch.masks.grants[q] |= 1 << res;
                }
            }
            for &q in &by[..k] {
                let q = q as u32;
                let res = first_after(self.scratch.masks.grants[q as usize & 63], self.ptrs.sa_in[ib + q as usize]);
                self.masked_win(cx, r, (q, res), (nin, nout, ib, ob), c);
            }
        }
        self.scratch.sa.clear();
    }

    /// Input `q` wins output `res` in [`IqNet::match_masks`] (`ports`: the router's inputs and
    /// outputs, and their offsets in the pointer arrays): both pointers move one past the
    /// partner, and the bid's flit crosses.
    #[inline(always)]
    fn masked_win(
        &mut self,
        cx: &mut NetCtx<'_>,
        r: SwitchId,
        win: (u32, u32),
        ports: (u32, u32, usize, usize),
        c: u64,
    ) {
        let ((q, res), (nin, nout, ib, ob)) = (win, ports);
        self.ptrs.sa_in[ib + q as usize] = next(res, nout);
        self.ptrs.sa_out[ob + res as usize] = next(q, nin);
        let bid = self.scratch.sa[self.scratch.masks.index[((res & 63) << 6 | (q & 63)) as usize] as usize];
        self.sa_won(cx, r, ib, bid, c);
    }
}
