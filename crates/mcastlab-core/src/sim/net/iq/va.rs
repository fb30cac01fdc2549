//! VC allocation (VA) of the iq router: every routed branch without an output VC asks for every
//! free VC of its class on its output, and the allocator grants at most one VC per input VC and
//! per output VC (see the module doc of `sim::net::iq` for where VA sits in a cycle).
//!
//! A branch's ask is recorded once, not once per VC: which VCs are free is read at match time from
//! [`Held`], one bit per VC, instead of from each VC's record (eight records, eight cache lines,
//! on an 8-VC port). Nothing changes a holder between the pass that records the asks and the
//! match (holders are taken here and given up when a tail wins SA, after VA), so the free VCs are
//! those the asks would have seen. When one input VC asks alone, as nearly always below
//! saturation, every allocator gives it the first free VC after its own pointer; that is computed
//! directly. Otherwise the asks become one request per free VC for the general allocator.

use super::alloc::{after, allocate, next, Request};
use super::{Branch, IqNet};
use crate::ids::SwitchId;
use crate::sim::ids::IqVcId;

/// Which VCs a packet holds (a router's output VCs, one bit per VC index): an index of
/// `Vc::holder.is_some()`, kept beside it so that VA reads one word per port, not one record per
/// VC. Injection VCs are held through their source and never appear here.
#[derive(Clone, Debug, Default)]
pub(crate) struct Held {
    words: Vec<u64>,
}

impl Held {
    /// No VC held among `n`.
    pub(crate) fn new(n: usize) -> Held {
        Held { words: vec![0; n.div_ceil(64)] }
    }

    #[inline]
    pub(crate) fn take(&mut self, vc: IqVcId) {
        self.words[vc.idx() / 64] |= 1 << (vc.idx() % 64);
    }

    #[inline]
    pub(crate) fn give_back(&mut self, vc: IqVcId) {
        self.words[vc.idx() / 64] &= !(1 << (vc.idx() % 64));
    }

    /// Which of the `width` (at most 64) VCs from index `lo` on nobody holds, as bits from `lo`.
    #[inline]
    fn free_bits(&self, lo: usize, width: u32) -> u64 {
        let (w, shift) = (lo / 64, lo % 64);
        let mut held = self.words[w] >> shift;
        if shift != 0 && w + 1 < self.words.len() {
            held |= self.words[w + 1] << (64 - shift);
        }
        let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        !held & mask
    }

    /// Whether a packet holds `vc`.
    pub(crate) fn is_held(&self, vc: IqVcId) -> bool {
        self.words[vc.idx() / 64] >> (vc.idx() % 64) & 1 == 1
    }

    /// Whether some VC index in `lo..hi` is held by nobody.
    #[inline]
    fn any_free(&self, lo: usize, hi: usize) -> bool {
        let mut at = lo;
        while at < hi {
            let (w, shift) = (at / 64, at % 64);
            let span = (64 - shift).min(hi - at);
            let mask = if span == 64 { u64::MAX } else { (1u64 << span) - 1 };
            if (!self.words[w] >> shift) & mask != 0 {
                return true;
            }
            at += span;
        }
        false
    }

    /// Calls `f` with every VC index in `lo..hi` that nobody holds, in increasing order.
    #[inline]
    fn each_free(&self, lo: usize, hi: usize, mut f: impl FnMut(usize)) {
        let mut at = lo;
        while at < hi {
            let (w, shift) = (at / 64, at % 64);
            let span = (64 - shift).min(hi - at);
            let mask = if span == 64 { u64::MAX } else { (1u64 << span) - 1 };
            let mut bits = (!self.words[w] >> shift) & mask;
            while bits != 0 {
                f(at + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            at += span;
        }
    }
}

/// A branch asking for an output VC: branch `k` of input VC `ivc`, which is input VC `req` of its
/// router (input index · V + VC).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ask {
    pub req: u32,
    pub ivc: IqVcId,
    pub k: u32,
}

impl IqNet {
    /// Records the asks of input VC `ivc` (input `i`): its branches without an output VC that
    /// have a free VC to ask for (see [`IqNet::may_ask`]).
    pub(crate) fn va_asks(&mut self, ivc: IqVcId, i: u32) {
        let b = &self.vcs[ivc.idx()];
        let req = i * self.cfg.v + b.site.vc as u32;
        for k in 0..b.branches as usize {
            let br = b.branch(k);
            if br.ovc.is_none() && self.may_ask(br) {
                self.scratch.asks.push(Ask { req, ivc, k: k as u32 });
            }
        }
    }

    /// Whether some VC that branch `br` may take is free. An ask with none makes no request, so it
    /// can neither win nor move a pointer, whichever allocator runs: leaving it out changes
    /// nothing, and at high load it is half the asks (the mesh at 0.3: 1.10 M of 2.29 M).
    #[inline(always)]
    pub(crate) fn may_ask(&self, br: &Branch) -> bool {
        let first = (self.wiring.slot[br.chan.idx()] * self.cfg.v) as usize;
        self.held.any_free(first + br.lo as usize, first + br.hi as usize)
    }

    /// VA of router `r` in cycle `c`, if any branch asked: each winner holds its output VC from
    /// now on and may bid in SA `va_delay` later.
    #[inline]
    pub(crate) fn allocate_vcs(&mut self, r: SwitchId, c: u64) {
        if !self.scratch.asks.is_empty() {
            self.match_vcs(r, c);
        }
    }

    fn match_vcs(&mut self, r: SwitchId, c: u64) {
        if let (&[a], true) = (&self.scratch.asks[..], self.cfg.v <= 64) {
            // One branch asks alone (nearly every VA below saturation), for at most 64 VCs.
            self.scratch.asks.clear();
            self.lone_ask(r, a, c);
            return;
        }
        let v = self.cfg.v;
        let rp = &self.routers[r.idx()];
        let (nin, nout) = (rp.inputs.len() as u32 * v, rp.outputs.len() as u32 * v);
        let (ib, ob) = ((rp.in_base * v) as usize, (rp.out_base * v) as usize);
        let asks = std::mem::take(&mut self.scratch.asks);
        let mut granted = 0;
        if asks.iter().all(|a| a.req == asks[0].req) {
            // One requester: whichever allocator, every VC it asks grants it, or it first picks,
            // so it takes the first of them after its own pointer (the first such, in ask order).
            let req = asks[0].req;
            let p = self.ptrs.va_in[ib + req as usize];
            let mut best: Option<(u32, u32, usize)> = None;
            for (j, a) in asks.iter().enumerate() {
                self.each_free_res(a, |res| {
                    let key = after(res, p, nout);
                    if best.is_none_or(|(b, _, _)| key < b) {
                        best = Some((key, res, j));
                    }
                });
            }
            if let Some((_, res, j)) = best {
                self.ptrs.va_in[ib + req as usize] = next(res, nout);
                self.ptrs.va_out[ob + res as usize] = next(req, nin);
                self.grant(asks[j], res, c);
                granted = 1;
            }
        } else {
            let mut reqs = std::mem::take(&mut self.scratch.va);
            for a in &asks {
                self.each_free_res(a, |res| reqs.push(Request { req: a.req, res, a: a.ivc.raw(), b: a.k }));
            }
            self.scratch.winners.clear();
            allocate(
                self.cfg.allocator,
                &reqs,
                nin,
                nout,
                &mut self.ptrs.va_in[ib..ib + nin as usize],
                &mut self.ptrs.va_out[ob..ob + nout as usize],
                &mut self.scratch.alloc,
                &mut self.scratch.winners,
            );
            for j in 0..self.scratch.winners.len() {
                let q = reqs[self.scratch.winners[j] as usize];
                self.grant(Ask { req: q.req, ivc: IqVcId::from_index(q.a as usize), k: q.b }, q.res, c);
            }
            granted = self.scratch.winners.len() as u32;
            reqs.clear();
            self.scratch.va = reqs;
        }
        self.routers[r.idx()].va_wait -= granted;
        let mut asks = asks;
        asks.clear();
        self.scratch.asks = asks;
    }

    /// VA of router `r` when `a` is the only ask and its class has at most 64 VCs: the one-requester
    /// rule of [`IqNet::match_vcs`] on a word of free VCs.
    #[inline]
    pub(crate) fn lone_ask(&mut self, r: SwitchId, a: Ask, c: u64) {
        let v = self.cfg.v;
        let br = self.vcs[a.ivc.idx()].branch(a.k as usize);
        let (lo, width) = (br.lo as u32, (br.hi - br.lo) as u32);
        let free = self.held.free_bits((self.wiring.slot[br.chan.idx()] * v + lo) as usize, width);
        if free == 0 {
            return;
        }
        let base = br.out as u32 * v + lo;
        let rp = &mut self.routers[r.idx()];
        rp.va_wait -= 1;
        let (nin, nout) = (rp.inputs.len() as u32 * v, rp.outputs.len() as u32 * v);
        let (ib, ob) = ((rp.in_base * v) as usize, (rp.out_base * v) as usize);
        let res = base + lone_pick(free, base, self.ptrs.va_in[ib + a.req as usize]);
        self.ptrs.va_in[ib + a.req as usize] = next(res, nout);
        self.ptrs.va_out[ob + res as usize] = next(a.req, nin);
        self.grant(a, res, c);
    }

    /// Calls `f` with the resource number (output index · V + VC) of every free VC ask `a` may
    /// take, in increasing order.
    #[inline]
    fn each_free_res(&self, a: &Ask, f: impl FnMut(u32)) {
        let v = self.cfg.v;
        let br = self.vcs[a.ivc.idx()].branch(a.k as usize);
        let first = self.vc_of(br.chan, 0).idx();
        let base = br.out as u32 * v;
        let mut f = f;
        self.held.each_free(first + br.lo as usize, first + br.hi as usize, |idx| f(base + (idx - first) as u32));
    }

    /// Ask `a` wins output VC `res` (output index · V + VC) in cycle `c`.
    fn grant(&mut self, a: Ask, res: u32, c: u64) {
        let v = self.cfg.v;
        let b = &mut self.vcs[a.ivc.idx()];
        let (unicast, w, m) = (b.branches == 1, b.word as usize, 1u64 << b.bit);
        let br = b.branch_mut(a.k as usize);
        let ovc = IqVcId::of(self.wiring.slot[br.chan.idx()], res - br.out as u32 * v, v);
        br.ovc = Some(ovc);
        br.sa_at = c + self.cfg.va;
        self.held.take(ovc);
        if unicast {
            self.phase.granted(w, m);
        }
    }
}

/// Of the free VCs `free` (nonzero; bit w is resource `base + w`), the offset of the first at or
/// after pointer `p`, wrapping: every resource lies in `base..base + 64`, so those from `p` on
/// come first in increasing order, then the others.
#[inline]
fn lone_pick(free: u64, base: u32, p: u32) -> u32 {
    let ahead = if p <= base {
        free
    } else if p - base >= 64 {
        0
    } else {
        free & (u64::MAX << (p - base))
    };
    if ahead != 0 {
        ahead.trailing_zeros()
    } else {
        free.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::{after, lone_pick, Held};
    use crate::sim::ids::IqVcId;

    fn free(h: &Held, lo: usize, hi: usize) -> Vec<usize> {
        let mut out = Vec::new();
        h.each_free(lo, hi, |x| out.push(x));
        out
    }

    #[test]
    fn free_vcs_are_listed_in_order_across_word_boundaries() {
        let mut h = Held::new(300);
        for x in [3, 63, 64, 130, 255] {
            h.take(IqVcId::from_index(x));
        }
        assert_eq!(free(&h, 0, 6), vec![0, 1, 2, 4, 5]);
        assert_eq!(free(&h, 60, 67), vec![60, 61, 62, 65, 66]);
        // A range of 255 VCs (the most a port may have) over four words, five of them held.
        let all = free(&h, 1, 256);
        assert_eq!(all.len(), 255 - 5);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        h.give_back(IqVcId::from_index(64));
        assert_eq!(free(&h, 64, 65), vec![64]);
        assert_eq!(free(&h, 128, 192).len(), 63);
        // The word view of the same: bit w for VC lo + w.
        let bits = |lo: usize, width: u32| h.free_bits(lo, width);
        assert_eq!(bits(0, 6), 0b110111);
        assert_eq!(bits(60, 7), 0b1110111, "63 held, 64 given back");
        assert_eq!(bits(128, 64), !(1u64 << 2));
        assert_eq!(bits(250, 6), 0b011111);
    }

    #[test]
    fn a_lone_ask_takes_the_first_free_vc_after_the_pointer() {
        // Against the one-requester rule written out: the free resource nearest after the pointer,
        // for every pointer on a router of 10 outputs x 8 VCs and classes anywhere in it.
        let n = 80;
        let mut x = 5u64;
        for _ in 0..2_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (width, out) = (1 + (x >> 40) % 8, (x >> 20) % 10);
            let lo = (x >> 50) % (9 - width);
            let base = (out * 8 + lo) as u32;
            let free = (x >> 3) & ((1 << width) - 1);
            if free == 0 {
                continue;
            }
            for p in 0..n {
                let want = (0..width as u32).filter(|w| free >> w & 1 == 1).min_by_key(|w| after(base + w, p, n));
                assert_eq!(Some(lone_pick(free, base, p)), want, "free {free:b} base {base} p {p}");
            }
        }
    }
}
