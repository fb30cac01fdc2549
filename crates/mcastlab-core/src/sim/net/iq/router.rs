//! One cycle of one iq router: RC, VA and SA in that order (see the module doc of `sim::net::iq` for
//! what each stage does and why the order gives BookSim's timing), and the crossbar traversal of
//! the flits that win SA.
//!
//! The stages of a router read only its own input buffers and output VCs; what they send to
//! neighbours (flits, credits) becomes usable there at least one cycle later. So the routers of one
//! step can be visited in any order with the same result, and a step visits only those holding
//! flits, and in each only the VCs holding flits (per-router occupancy bits).
//!
//! When RC and VA take at least a cycle each (BookSim's pipeline), nothing RC or VA decides in a
//! cycle is usable by a later stage in the same cycle, so one pass over the VCs collects the work
//! of all three stages before the two allocators run; with a zero-cycle stage the passes are
//! separate, in stage order.
//!
//! A router with one VC holding flits (most visits below saturation) skips the pass and the
//! allocators where the outcome cannot differ (`lone_vc`): a lone bid wins, a lone ask takes the
//! first free VC after its pointer, a head is routed. That it changes nothing was checked on
//! `bench_booksim`'s table 8, seeds and speed outputs, identical bit for bit to the build without
//! it, and a test below compares runs with and without it, flit by flit.
//!
//! Under BookSim's pipeline the pass goes over the VCs by phase (`phase.rs`): per-router words
//! of the unicasts sending and of those asking for an output VC, kept once per packet, give each
//! group its own loop, so the pass no longer tests every VC for what it is doing (at mesh 0.3,
//! 4.7 % less CPU). The same test covers it.

use super::alloc::{allocate, next, Request, Scratch as AllocScratch};
use super::bids::{Bids, Match, Pick, Ports};
use super::va::Ask;
use super::wheel::Due;
use super::{Branch, Head, IqNet, Vc, VcState, Wheel};
use crate::ids::SwitchId;
use crate::sim::ids::{IqVcId, NodeId};
use crate::sim::net::{choice, NetCtx};
use crate::sim::trees::Trees;

/// Working space of the stages, reused from router to router.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(super) alloc: AllocScratch,
    /// VA: the branches asking for an output VC, and (when several input VCs ask) their requests.
    pub(super) asks: Vec<Ask>,
    pub(super) va: Vec<Request>,
    /// SA: whether every router has at most 64 inputs and 64 outputs, so that its bids are
    /// entered as words (`bids`); otherwise they are listed in `sa`.
    pub(super) masks: bool,
    pub(super) bids: Bids,
    pub(super) sa: Vec<Request>,
    pub(super) winners: Vec<u32>,
    /// Per output of the router being visited: the stamp of the input that already bids for it,
    /// and where in `sa` that bid is.
    pub(super) seen: Vec<u64>,
    pub(super) seen_at: Vec<u32>,
    pub(super) stamp: u64,
}

impl Scratch {
    /// Readies the working space for routers of up to `max_in` inputs and `max_out` outputs.
    pub(crate) fn size(&mut self, max_in: usize, max_out: usize) {
        self.masks = max_in <= 64 && max_out <= 64;
        if !self.masks {
            self.seen = vec![0; max_out];
            self.seen_at = vec![0; max_out];
        }
    }
}

impl IqNet {
    /// Visits every router with flits; those left empty drop out of the list (flits land only
    /// at the start of a step, so no router joins it during the visits).
    pub(crate) fn step_routers(&mut self, cx: &mut NetCtx<'_>, c: u64) {
        if self.cfg.lone_vc && self.cfg.rc > 0 && self.cfg.va > 0 {
            self.visit_all::<true>(cx, c);
        } else {
            self.visit_all::<false>(cx, c);
        }
    }

    /// Visits the routers with work, compacting the list in place to those left with flits
    /// (without a branch: see `Active`). `BOOKSIM` (fixed per step): the shortcuts are on (one
    /// occupancy word per router) and RC and VA take a cycle or more, BookSim's pipeline; the
    /// visits then test none of it.
    #[inline(always)]
    fn visit_all<const BOOKSIM: bool>(&mut self, cx: &mut NetCtx<'_>, c: u64) {
        let mut kept = 0;
        for j in 0..self.active.busy {
            let r = self.active.routers[j];
            self.visit::<BOOKSIM>(cx, r, c);
            self.active.routers[kept] = r;
            // Under `BOOKSIM` a router has one occupancy word (not tested per visit).
            let left = if BOOKSIM { self.occ[r.idx()] != 0 } else { self.holds_flits(r) };
            kept += usize::from(left);
        }
        self.active.busy = kept;
    }

    /// One cycle of router `r` (`BOOKSIM`: see [`IqNet::visit_all`]).
    #[inline(always)]
    fn visit<const BOOKSIM: bool>(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        if self.lone_vc::<BOOKSIM>(cx, r, c) {
            return;
        }
        if BOOKSIM {
            // One occupancy word per router (under the shortcuts' flag, so that the test without
            // shortcuts runs the loop over words instead).
            self.pass_by_phase(cx, r, c);
            self.allocate_vcs(r, c);
        } else if self.cfg.rc > 0 && self.cfg.va > 0 {
            self.pass::<true, true, true, false>(cx, r, c);
            self.allocate_vcs(r, c);
        } else {
            self.pass::<true, false, false, false>(cx, r, c);
            self.pass::<false, true, false, false>(cx, r, c);
            self.allocate_vcs(r, c);
            self.pass::<false, false, true, false>(cx, r, c);
        }
        self.allocate_switch(cx, r, c);
    }

    /// The cycle of router `r` when one input VC holds flits (nearly every visit below
    /// saturation), done without the pass and the allocators where its stages cannot meet another
    /// VC's: a head to route (with `routing_delay` > 0, what RC decides is for later cycles, so VA
    /// and SA have nothing to do), a lone branch asking for a VC (with `va_delay` > 0 it cannot
    /// bid in this cycle; its ask is VA's only one), or a lone branch holding its VC, whose bid, if
    /// it has one, is SA's only request and wins as [`IqNet::allocate_switch`] lets a lone bid
    /// win. Returns false, having changed nothing, for every other router.
    #[inline(always)]
    fn lone_vc<const BOOKSIM: bool>(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) -> bool {
        if !BOOKSIM && !self.cfg.lone_vc {
            return false;
        }
        let bits = self.occ[r.idx()];
        if !bits.is_power_of_two() {
            return false;
        }
        let rp = &self.routers[r.idx()];
        let (v, ib) = (self.cfg.v, rp.in_base);
        let local = bits.trailing_zeros();
        // The router's input VCs are side by side from its first input's (`Wiring::slot`).
        let (ivc, i) = (IqVcId::from_index((ib * v + local) as usize), self.wiring.input_of[local as usize]);
        let b = &self.vcs[ivc.idx()];
        match b.state {
            VcState::Routed if b.branches == 1 => {}
            VcState::Idle if BOOKSIM || self.cfg.rc > 0 => {
                if b.here(0) {
                    self.route(cx, r, ivc, c);
                }
                return true;
            }
            _ => return false,
        }
        let br = &b.first;
        let Some(ovc) = br.ovc else {
            if !BOOKSIM && (self.cfg.va == 0 || v > 64) {
                return false;
            }
            if b.va_at <= c {
                // The VC's number at its router is `local`, the ask's requester.
                self.lone_ask(r, Ask { req: local, ivc, k: 0 }, c);
            }
            return true;
        };
        debug_assert_eq!(rp.va_wait, 0, "the lone VC is the only one that could wait for VA");
        if br.sa_at > c || br.sent == b.flits || !b.here(br.sent - b.freed) || self.credits[ovc.idx()] == 0 {
            return true;
        }
        let (out, vc) = (br.out as u32, local - i * v);
        let (nin, nout, ob) = (rp.inputs.len() as u32, rp.outputs.len() as u32, rp.out_base as usize);
        self.ptrs.sa_in[(ib + i) as usize] = next(out, nout);
        self.ptrs.sa_out[ob + out as usize] = next(i, nin);
        self.ptrs.sa_vc[(ib + i) as usize] = next(vc, v);
        self.traverse(cx, r, ivc, 0, c);
        true
    }

    /// Goes over the VCs holding flits, input by input, doing the stages `RC`, `VA` and `SA` (fixed
    /// at compile time: the common pass, all three, then carries no tests of which it does). Out of
    /// line, with the per-VC work inline in it: left to the optimizer, the pass went into the step
    /// and the bids out of it, which cost 4 % more instructions (callgrind). `ONE_WORD`: the
    /// router's VCs fit one occupancy word, so there is no loop over words; with it the optimizer
    /// keeps the pass's state in registers (2–2.5 % fewer instructions on the benchmarks).
    #[inline(never)]
    pub(super) fn pass<const RC: bool, const VA: bool, const SA: bool, const ONE_WORD: bool>(
        &mut self,
        cx: &mut NetCtx<'_>,
        r: SwitchId,
        c: u64,
    ) {
        let v = self.cfg.v;
        // Only packets routed in an earlier cycle may ask for a VC, and they are counted here.
        let rp = &self.routers[r.idx()];
        let va = VA && rp.va_wait > 0;
        let in_base = rp.in_base;
        let base = (in_base * v) as usize;
        let words = if ONE_WORD { 1 } else { self.cfg.words };
        for w in 0..words {
            // A word is read as the pass reaches it: the stages never fill a VC, and empty at most
            // the one they work on (a packet routed nowhere), so these are the bits as they were
            // when the visit began, less VCs an earlier pass emptied (where later ones have nothing
            // to do: such a VC is idle or drops its packet).
            let mut bits = self.occ[r.idx() * words + w];
            while bits != 0 {
                let local = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (ivc, i) = (IqVcId::from_index(base + local), self.wiring.input_of[local]);
                let vc = local as u32 - i * v;
                self.vc_work::<RC, SA>(cx, r, ivc, (i, vc, in_base + i), c, va);
            }
        }
    }

    /// The stages `RC`, VA (if `va`) and `SA` for input VC `ivc`, which is VC `vc` of input `i` of
    /// router `r`, whose pointers are at `port` in the network's.
    #[inline(always)]
    pub(super) fn vc_work<const RC: bool, const SA: bool>(
        &mut self,
        cx: &mut NetCtx<'_>,
        r: SwitchId,
        ivc: IqVcId,
        at: (u32, u32, u32),
        c: u64,
        va: bool,
    ) {
        let (i, vc, port) = at;
        let x = &self.vcs[ivc.idx()];
        match x.state {
            VcState::Routed if x.branches == 1 => {
                // A unicast (nearly every packet): what VA and SA need of its one branch is read
                // at once, before anything is written (each later read would look the VC up again).
                let (br, flits, freed, arrived) = (x.first, x.flits, x.freed, x.arrived);
                let Some(ovc) = br.ovc else {
                    if va && x.va_at <= c && self.may_ask(&br) {
                        self.scratch.asks.push(Ask { req: i * self.cfg.v + vc, ivc, k: 0 });
                    }
                    return;
                };
                if SA && br.sa_at <= c && br.sent != flits && br.sent - freed < arrived && self.credits[ovc.idx()] != 0
                {
                    self.put_bid(ivc, (i, br.out as u32), Pick { vc: vc as u16, k: 0 }, port);
                }
            }
            VcState::Routed => {
                if va && x.va_at <= c {
                    self.va_asks(ivc, i);
                }
                if SA {
                    self.bids(ivc, (i, vc, port), c);
                }
            }
            VcState::Idle => {
                if RC && x.here(0) {
                    self.route(cx, r, ivc, c);
                }
            }
            VcState::Sink => {
                if RC {
                    self.drop_arrived(cx, r, ivc, c);
                }
            }
        }
    }

    /// RC: the head at the front of input VC `ivc` is routed, one branch per child of its tree
    /// node (at a fork, per-packet route choice, the one child the rule picks).
    fn route(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, ivc: IqVcId, c: u64) {
        let head = self.vcs[ivc.idx()].front();
        debug_assert_eq!(self.vcs[ivc.idx()].freed, 0, "only a head reaches the front of an idle VC");
        let kids =
            choice::branches(cx.trees, cx.refs, head.node, head.msg, head.pid, |k| self.free_credits(cx.trees, k));
        if kids.is_empty() {
            // The drop ends at this packet's last flit: its length must be the VC's before the
            // first flit goes (left at the previous packet's, a drop ended early, or never).
            let b = &mut self.vcs[ivc.idx()];
            b.flits = head.flits;
            b.state = VcState::Sink;
            self.drop_arrived(cx, r, ivc, c);
            return;
        }
        let count = kids.len() as u32;
        for (k, &child) in kids.iter().enumerate() {
            let node = cx.trees.node(child);
            let (lo, hi) = self.vc_range(node.vc, node.eject.is_some());
            let out = self.wiring.out_local[node.chan.idx()] as u16;
            let br = Branch { node: child, chan: node.chan, out, lo, hi, ovc: None, sa_at: 0, sent: 0 };
            let b = &mut self.vcs[ivc.idx()];
            if k == 0 {
                b.first = br;
            } else {
                b.more.push(br);
            }
        }
        let b = &mut self.vcs[ivc.idx()];
        b.branches = count as u16;
        b.flits = head.flits;
        b.state = VcState::Routed;
        b.va_at = c + self.cfg.rc;
        let (w, m) = (b.word as usize, 1u64 << b.bit);
        self.phase.routed(w, m, count == 1);
        self.routers[r.idx()].va_wait += count;
        // Each further copy is another packet in the network, acting for its message.
        for _ in 1..count {
            self.stats.in_flight += 1;
            cx.refs.hold(head.msg);
        }
    }

    /// Credits held towards tree node `k`'s channel on the VCs of its class (the adaptive rule's
    /// measure of a free output).
    fn free_credits(&self, trees: &Trees, k: NodeId) -> u64 {
        let node = trees.node(k);
        let (lo, hi) = self.vc_range(node.vc, node.eject.is_some());
        (lo as u32..hi as u32).map(|w| self.credits[self.vc_of(node.chan, w).idx()] as u64).sum()
    }

    /// A packet routed nowhere leaves its buffer flit by flit as it arrives.
    fn drop_arrived(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, ivc: IqVcId, c: u64) {
        while self.vcs[ivc.idx()].here(0) {
            self.pop_flit(r, ivc, c);
            let b = &mut self.vcs[ivc.idx()];
            if b.freed == b.flits {
                let msg = b.front().msg;
                b.pop_packet();
                b.state = VcState::Idle;
                b.freed = 0;
                self.stats.in_flight -= 1;
                cx.refs.release(msg);
                return;
            }
        }
    }

    /// Removes the front flit of `ivc`, an input VC of router `r` (the caller knows it: not read
    /// from the VC's site, a second cache line), and sends its slot's credit to the sender.
    #[inline(always)]
    fn pop_flit(&mut self, r: SwitchId, ivc: IqVcId, c: u64) {
        let b = &mut self.vcs[ivc.idx()];
        debug_assert_eq!(b.site.router, Some(r), "a buffer with flits is in its router");
        pop_flit(b, ivc, &mut self.wheel, &mut self.occ, c);
    }

    /// SA: the allocator lets at most one flit leave each input and enter each output; the
    /// winners cross the crossbar.
    #[inline]
    fn allocate_switch(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        if self.scratch.masks {
            self.match_bids(cx, r, c);
            return;
        }
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

    /// [`IqNet::allocate_switch`] on the bids as words: the matched pairs cross in the order the
    /// list of bids would give them (see `bids.rs`).
    #[inline(always)]
    fn match_bids(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, c: u64) {
        if self.scratch.bids.is_empty() {
            return;
        }
        let rp = &self.routers[r.idx()];
        let (n_in, n_out) = (rp.inputs.len() as u32, rp.outputs.len() as u32);
        let p = Ports { n_in, n_out, in_base: rp.in_base as usize, out_base: rp.out_base as usize };
        match self.scratch.bids.begin(self.cfg.allocator, p, &mut self.ptrs) {
            Match::ByOutput(mut left) => {
                // A winner crosses before the next output chooses (see `Bids::begin`).
                while left != 0 {
                    let o = left.trailing_zeros();
                    left &= left - 1;
                    let i = self.scratch.bids.take_granted(o, p, &mut self.ptrs);
                    self.bid_won(cx, r, p.in_base, (i as u8, o as u8), c);
                }
            }
            Match::Listed(n) => {
                for j in 0..n {
                    let won = self.scratch.bids.won(j);
                    self.bid_won(cx, r, p.in_base, won, c);
                }
            }
        }
    }

    /// The bid of input `i` (of router `r`, whose first input is `in_base`) for output `o` won SA:
    /// the input's VC pointer moves past the winning VC, and its flit goes.
    #[inline(always)]
    fn bid_won(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, in_base: usize, (i, o): (u8, u8), c: u64) {
        let p = self.scratch.bids.pick(i, o);
        let (at, v) = (in_base + i as usize, self.cfg.v);
        self.ptrs.sa_vc[at] = next(p.vc as u32, v);
        self.traverse(cx, r, IqVcId::from_index(at * v as usize + p.vc as usize), p.k as usize, c);
    }

    /// [`IqNet::allocate_switch`] on the list of bids, for two or more.
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
    fn sa_won(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, in_base: usize, q: Request, c: u64) {
        self.ptrs.sa_vc[in_base + q.req as usize] = next(q.b >> 16, self.cfg.v);
        self.traverse(cx, r, IqVcId::from_index(q.a as usize), (q.b & 0xffff) as usize, c);
    }

    /// Branch `k` of input VC `ivc` (of router `r`) won SA: its next flit leaves the buffer (once
    /// every branch has read it), crosses the crossbar and the link, and lands in the next buffer
    /// or the NI.
    ///
    /// Written on the network's fields borrowed apart, with what it reads loaded before what it
    /// writes: through `&mut self` every store into one vector made the optimizer load the others'
    /// pointers and lengths again, and check the VC's bounds again (the VC record three times, the
    /// channel's latency twice), about a quarter of the crossing's instructions.
    #[inline(always)]
    fn traverse(&mut self, cx: &mut NetCtx<'_>, r: SwitchId, ivc: IqVcId, k: usize, c: u64) {
        let IqNet { cfg, wiring, vcs, credits, held, wheel, occ, phase, stats, .. } = self;
        let b = &mut vcs[ivc.idx()];
        debug_assert_eq!(b.site.router, Some(r), "a buffer with flits is in its router");
        let (single, flits) = (b.branches == 1, b.flits);
        let br = b.branch_mut(k);
        let idx = br.sent;
        br.sent += 1;
        let (chan, node) = (br.chan, br.node);
        let ovc = br.ovc.expect("a branch that won SA holds its output VC");
        let (tail, lat) = (idx + 1 == flits, wiring.lat[chan.idx()]);
        // Whether the VC enters an endpoint, from its number (`Wiring::slot`) rather than its site.
        let into_ni = ovc.raw() >= wiring.router_vcs;
        // A body flit reads only the VC's first cache line: its packet (`front`, in the second) is
        // read for a head, a tail into an NI, and the trace.
        let head = (idx == 0 || tail && into_ni).then(|| b.front());
        // (The VC's number by subtraction: a division per flit costs more than the rest.)
        stats.count_flit(cx.now, chan, idx, || {
            let h = b.front();
            (ovc.raw() - wiring.slot[chan.idx()] * cfg.v, h.msg, h.pid)
        });
        credits[ovc.idx()] -= 1;
        if tail {
            held.give_back(ovc);
        }
        // A router's buffer has the flit `arrive`; an NI takes it as it arrives and returns the
        // credit at once (`IqNet::credit_back` later). Filed without a branch on which (see
        // `Wheel::push_either`).
        let arrive = c + cfg.sa + cfg.st + lat;
        wheel.push_either(arrive + u64::from(into_ni) * cfg.credit_back(lat), ovc, into_ni);
        // The flit leaves the buffer once every branch has read it: a unicast's one branch now.
        if single {
            pop_flit(b, ivc, wheel, occ, c);
        } else {
            let read = (0..b.branches as usize).map(|k| b.branch(k).sent).min().unwrap_or(0);
            while b.freed < read {
                pop_flit(b, ivc, wheel, occ, c);
            }
        }
        if b.freed == flits {
            b.pop_packet();
            b.state = VcState::Idle;
            b.freed = 0;
            phase.done(b.word as usize, 1 << b.bit);
            if b.branches > 1 {
                // (Only a multicast's further branches are there: a unicast leaves the third
                // cache line alone.)
                b.more.clear();
            }
            b.branches = 0;
        }
        let Some(head) = head else { return };
        if idx == 0 {
            stats.count_heads(chan, 1);
            if !into_ni {
                // A head brings its packet to the buffer.
                vcs[ovc.idx()].push_packet(Head { node, ..head });
            }
        }
        if tail && into_ni {
            self.arrive(cx, arrive * self.cfg.cycle, &head, node);
            self.stats.in_flight -= 1;
            cx.refs.release(head.msg);
        }
    }

    /// A flit is sent to input VC `ivc`, where it lands in cycle `arrive`; a head brings its
    /// packet.
    #[inline(always)]
    pub(crate) fn deliver(&mut self, ivc: IqVcId, arrive: u64, head: Option<Head>) {
        if let Some(h) = head {
            self.vcs[ivc.idx()].push_packet(h);
        }
        self.wheel.push(arrive, Due::Flit(ivc));
    }
}

/// Removes the front flit of VC record `b` (VC `ivc`) and files its slot's credit for the sender;
/// the VC's occupancy bit goes with its last arrived flit (cleared without a branch, which was
/// mispredicted about one time in four).
#[inline(always)]
fn pop_flit(b: &mut Vc, ivc: IqVcId, wheel: &mut Wheel, occ: &mut [u64], c: u64) {
    b.arrived -= 1;
    b.freed += 1;
    wheel.push(c + b.back as u64, Due::Credit(ivc));
    occ[b.word as usize] &= !(u64::from(b.arrived == 0) << b.bit);
}
