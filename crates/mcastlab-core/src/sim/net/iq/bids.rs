//! SA's bids as words, for routers of up to 64 inputs and 64 outputs (every router of the
//! benchmarks): the pass enters each bid straight into a word per output of the inputs bidding
//! for it, and the allocator runs on those words. The list of requests this replaces (larger
//! routers keep it), with its per-input deduplication, the allocator's rebuilding of the same
//! words from it and its list of winners, cost more than the matching itself (callgrind).
//!
//! The winners come in the order the list path (`alloc::allocate` on the bids as the pass listed
//! them: inputs in ascending order, an input's outputs in the order it first bid for them) gives,
//! which is part of a run's results (the order flits cross the crossbar in): with one bid per
//! input, by output; with one input bidding, its one winner; otherwise iSLIP lists inputs in the
//! order they are first granted, outputs granting in the order they were first bid for, and
//! input-first lists outputs in the order they are first picked, inputs picking in ascending
//! order. A test compares it with the list path on random bids.

use super::alloc::{after, choose_round, first_after, next, Request};
use super::{IqNet, Pointers};
use crate::sim::ids::IqVcId;
use crate::sim::params::Allocator;

/// Which of an input's bids for one output goes to SA: VC `vc` of the input, its branch `k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pick {
    pub vc: u16,
    pub k: u16,
}

/// One cycle's SA bids of one router, and the matched (input, output) pairs. The outputs bid
/// for are listed in `order`; every other entry is meaningful only for those outputs and the
/// inputs bidding for them, which set it before it is read. A match empties the outputs' words,
/// so that a bid finds its output's word empty or holding this cycle's bidders.
pub(super) struct Bids {
    /// Per output, the inputs bidding for it.
    asking: [u64; 64],
    /// The outputs in the order first bid for (iSLIP's grants are made, and so listed, in it),
    /// and how many (64 when every output is bid for: read modulo 64, as it once was, that
    /// emptied the list and left those outputs out of every later match).
    order: [u8; 64],
    n_order: usize,
    /// Per output · 64 + input, the bid entered.
    pick: Box<[Pick; 64 * 64]>,
    /// Per input, the outputs it bids for (filled by a match that needs them) and the outputs
    /// granting it (iSLIP); per output, the inputs picking it (input-first).
    outs: [u64; 64],
    grants: [u64; 64],
    picked_by: [u64; 64],
    /// The matched (input, output) pairs, in the order they cross, when an input bids twice.
    won: [(u8, u8); 64],
}

impl Default for Bids {
    fn default() -> Self {
        Bids {
            asking: [0; 64],
            order: [0; 64],
            n_order: 0,
            pick: Box::new([Pick::default(); 64 * 64]),
            outs: [0; 64],
            grants: [0; 64],
            picked_by: [0; 64],
            won: [(0, 0); 64],
        }
    }
}

impl Bids {
    /// Enters bid `bid` (a VC and branch) of input `i` for output `o` (both below 64), unless a VC
    /// of the same input nearer after the input's pointer (over its `v` VCs, read by `ptr` only
    /// then) bids for the same output; it then replaces a farther one.
    #[inline(always)]
    pub(super) fn put(&mut self, (i, o): (u32, u32), bid: Pick, ptr: impl FnOnce() -> u32, v: u32) {
        let (i, o) = (i as usize & 63, o as usize & 63);
        let at = o << 6 | i;
        let asking = self.asking[o];
        if asking & 1 << i != 0 {
            let (there, p) = (&mut self.pick[at], ptr());
            if after(bid.vc as u32, p, v) < after(there.vc as u32, p, v) {
                *there = bid;
            }
            return;
        }
        if asking == 0 {
            self.order[self.n_order & 63] = o as u8;
            self.n_order += 1;
        }
        self.asking[o] = asking | 1 << i;
        self.pick[at] = bid;
    }

    /// Whether no bid was entered since the last match.
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.n_order == 0
    }

    /// The bid entered for input `i` and output `o`.
    #[inline(always)]
    pub(super) fn pick(&self, i: u8, o: u8) -> Pick {
        self.pick[((o as usize & 63) << 6) | (i as usize & 63)]
    }

    /// Matches the bids with `kind` on the ports `p` (see the module doc for the order), whose
    /// pointers are in `ptrs`, and empties them. With one bid per input, no input has a choice to
    /// make under either allocator: every output takes the first of its bidders after its
    /// pointer, output by output in ascending order, and those choices are left to the caller
    /// ([`Bids::take_granted`]), so that a winner may cross before the next is chosen (crossing
    /// changes nothing a choice reads) without being listed first.
    #[inline(always)]
    pub(super) fn begin(&mut self, kind: Allocator, p: Ports, ptrs: &mut Pointers) -> Match {
        let m = if self.n_order == 1 {
            // One output (most matches below saturation): every input bidding bids for it alone.
            Match::ByOutput(1 << self.order[0])
        } else {
            let s = self.shape();
            if s.repeat {
                let n = self.decide_repeat(s, kind, p, ptrs);
                for &o in &self.order[..self.n_order] {
                    self.asking[o as usize & 63] = 0;
                }
                Match::Listed(n)
            } else {
                Match::ByOutput(s.asked)
            }
        };
        self.n_order = 0;
        m
    }

    /// With one bid per input ([`Match::ByOutput`]), the input output `o` takes, the first of its
    /// bidders after its pointer; both pointers move one past the partner, and the output's word
    /// is emptied.
    #[inline(always)]
    pub(super) fn take_granted(&mut self, o: u32, p: Ports, ptrs: &mut Pointers) -> u32 {
        let asking = std::mem::take(&mut self.asking[o as usize & 63]);
        let i = first_after(asking, ptrs.sa_out[p.out_base + o as usize]);
        p.moved(i, o, ptrs);
        i
    }

    /// The `j`th pair (input, output) of a [`Match::Listed`].
    #[inline(always)]
    pub(super) fn won(&self, j: usize) -> (u8, u8) {
        self.won[j & 63]
    }

    /// Who bids (gathered once per match: kept by the pass, it cost the pass more than this).
    #[inline(always)]
    fn shape(&self) -> Shape {
        // Whether an input bids twice is found without counting bits: the build targets CPUs
        // without an instruction for it.
        let (mut asked, mut from, mut repeat) = (0u64, 0u64, 0u64);
        for &o in &self.order[..self.n_order] {
            let asking = self.asking[o as usize & 63];
            asked |= 1 << o;
            repeat |= from & asking;
            from |= asking;
        }
        Shape { asked, from, repeat: repeat != 0 }
    }

    /// Matches bids of shape `s`, in which an input bids for two outputs or more, with `kind` on
    /// the ports `p`; lists the matched pairs in `won`, moves their pointers and returns how many.
    fn decide_repeat(&mut self, s: Shape, kind: Allocator, p: Ports, ptrs: &mut Pointers) -> usize {
        if s.from.is_power_of_two() {
            // One input: every output grants it, or it first picks, so it takes the first of its
            // outputs after its own pointer.
            let i = s.from.trailing_zeros();
            let o = first_after(s.asked, ptrs.sa_in[p.in_base + i as usize]);
            self.matched(0, i, o, p, ptrs)
        } else if kind == Allocator::Islip {
            self.islip(p, ptrs)
        } else {
            self.input_first(s.from, p, ptrs)
        }
    }

    /// iSLIP: every output grants the first of its bidders after its pointer; every input granted
    /// accepts the first of its grants after its own. Returns how many pairs matched.
    fn islip(&mut self, p: Ports, ptrs: &mut Pointers) -> usize {
        let mut by = [0u8; 64];
        let n = choose_round(
            self.order[..self.n_order].iter().map(|&o| o as u32),
            |o| self.asking[o as usize & 63],
            |o| ptrs.sa_out[p.out_base + o as usize],
            &mut self.grants,
            &mut by,
        );
        let mut m = 0;
        for &i in &by[..n] {
            let o = first_after(self.grants[i as usize & 63], ptrs.sa_in[p.in_base + i as usize]);
            m = self.matched(m, i as u32, o, p, ptrs);
        }
        m
    }

    /// Input-first: every input (of `from`) picks the first of its outputs after its pointer;
    /// every output picked takes the first of its pickers after its own. Returns how many pairs
    /// matched.
    fn input_first(&mut self, from: u64, p: Ports, ptrs: &mut Pointers) -> usize {
        let mut left = from;
        while left != 0 {
            self.outs[left.trailing_zeros() as usize] = 0;
            left &= left - 1;
        }
        for &o in &self.order[..self.n_order] {
            let mut bidders = self.asking[o as usize & 63];
            while bidders != 0 {
                self.outs[bidders.trailing_zeros() as usize] |= 1 << o;
                bidders &= bidders - 1;
            }
        }
        let mut order = [0u8; 64];
        let mut left = from;
        let inputs = std::iter::from_fn(|| {
            let i = (left != 0).then(|| left.trailing_zeros());
            left &= left.wrapping_sub(1);
            i
        });
        let n = choose_round(
            inputs,
            |i| self.outs[i as usize & 63],
            |i| ptrs.sa_in[p.in_base + i as usize],
            &mut self.picked_by,
            &mut order,
        );
        let mut m = 0;
        for &o in &order[..n] {
            let i = first_after(self.picked_by[o as usize & 63], ptrs.sa_out[p.out_base + o as usize]);
            m = self.matched(m, i, o as u32, p, ptrs);
        }
        m
    }

    /// Input `i` wins output `o`, as match number `m`. Returns the number of matches now.
    fn matched(&mut self, m: usize, i: u32, o: u32, p: Ports, ptrs: &mut Pointers) -> usize {
        p.moved(i, o, ptrs);
        self.won[m & 63] = (i as u8, o as u8);
        m + 1
    }
}

/// What [`Bids::begin`] decided: with one bid per input, the outputs bid for, whose choices the
/// caller makes in ascending order; otherwise how many matched pairs [`Bids::won`] lists.
#[derive(Clone, Copy, Debug)]
pub(super) enum Match {
    ByOutput(u64),
    Listed(usize),
}

/// Who bids in a cycle: the outputs bid for, the inputs bidding, and whether an input bids for
/// two outputs or more (then the allocators differ).
#[derive(Clone, Copy, Debug)]
struct Shape {
    asked: u64,
    from: u64,
    repeat: bool,
}

/// A router's ports as SA sees them: how many inputs and outputs, and where their pointers are in
/// the network's pointer arrays.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ports {
    pub n_in: u32,
    pub n_out: u32,
    pub in_base: usize,
    pub out_base: usize,
}

impl Ports {
    /// Input `i` and output `o` were matched: both pointers move one past the partner.
    #[inline(always)]
    fn moved(self, i: u32, o: u32, ptrs: &mut Pointers) {
        ptrs.sa_in[self.in_base + i as usize] = next(o, self.n_out);
        ptrs.sa_out[self.out_base + o as usize] = next(i, self.n_in);
    }
}

/// The pass's side: bids found, entered.
impl IqNet {
    /// The SA bids of input VC `ivc` (input `i`, VC `vc`, the input's pointers at `port`): one
    /// per branch holding its VC whose next flit is here and has a credit. Of the VCs of one input
    /// bidding for the same output, the first after the pointer keeps the bid.
    #[inline(always)]
    pub(super) fn bids(&mut self, ivc: IqVcId, at: (u32, u32, u32), c: u64) {
        // (A unicast's one branch bids in `vc_work`.)
        for k in 0..self.vcs[ivc.idx()].branches as usize {
            self.bid(ivc, k, at, c);
        }
    }

    /// The SA bid of branch `k` of input VC `ivc`, if it has one (see [`IqNet::bids`]).
    #[inline(always)]
    fn bid(&mut self, ivc: IqVcId, k: usize, at: (u32, u32, u32), c: u64) {
        let (i, vc, port) = at;
        let b = &self.vcs[ivc.idx()];
        let br = b.branch(k);
        let out = br.out as usize;
        let Some(ovc) = br.ovc else { return };
        if br.sa_at > c || br.sent == b.flits || !b.here(br.sent - b.freed) {
            return;
        }
        if self.credits[ovc.idx()] == 0 {
            return;
        }
        self.put_bid(ivc, (i, out as u32), Pick { vc: vc as u16, k: k as u16 }, port);
    }

    /// Enters the SA bid of input VC `ivc` (VC `bid.vc` of input `i`, whose pointers are at
    /// `port`), branch `bid.k`, for output `o`, unless a VC of the same input nearer after the
    /// input's VC pointer bids for the same output; it then replaces a farther one. The pointer is
    /// read only then: read by the pass for every input it visits (with the test for a new input
    /// this took), it cost 2.7 % more instructions on the 8x8 mesh at 0.1 and 4.4 % at 0.3.
    #[inline(always)]
    pub(super) fn put_bid(&mut self, ivc: IqVcId, (i, o): (u32, u32), bid: Pick, port: u32) {
        if self.scratch.masks {
            let (bids, ptrs) = (&mut self.scratch.bids, &self.ptrs);
            bids.put((i, o), bid, || ptrs.sa_vc[port as usize], self.cfg.v);
        } else {
            // The VC rides along (above the branch index) for the input's round-robin pointer.
            let b = (bid.vc as u32) << 16 | bid.k as u32;
            self.list_bid(Request { req: i, res: o, a: ivc.raw(), b }, port);
        }
    }

    /// [`IqNet::put_bid`] on the list of bids, for routers of more than 64 inputs or outputs.
    fn list_bid(&mut self, bid: Request, port: u32) {
        let ptr = self.ptrs.sa_vc[port as usize];
        // An input's bids come one after another: its first finds another input's last.
        if self.scratch.sa.last().map(|q| q.req) != Some(bid.req) {
            self.scratch.stamp += 1;
        }
        let (out, vc, stamp, v) = (bid.res as usize, bid.b >> 16, self.scratch.stamp, self.cfg.v);
        if self.scratch.seen[out] == stamp {
            let q = &mut self.scratch.sa[self.scratch.seen_at[out] as usize];
            if after(vc, ptr, v) < after(q.b >> 16, ptr, v) {
                *q = bid;
            }
            return;
        }
        self.scratch.seen[out] = stamp;
        self.scratch.seen_at[out] = self.scratch.sa.len() as u32;
        self.scratch.sa.push(bid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::net::iq::alloc::{allocate, Request, Scratch};
    use proptest::collection::{btree_map, vec};
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// A cycle's bids as the pass enters them: per (input, VC, branch), in that order, the output.
    type Bids1 = BTreeMap<(u32, u32, u32), u32>;

    /// A matched pair as it crosses: input, output, and the VC and branch whose flit goes.
    type Crossing = (u32, u32, u16, u16);

    /// The mask path as `IqNet::match_bids` drives it, on `n` inputs and outputs of `v` VCs.
    fn by_masks(kind: Allocator, n: u32, v: u32, bids: &Bids1, ptrs: &mut Pointers) -> Vec<Crossing> {
        let mut b = Bids::default();
        for (&(i, vc, k), &o) in bids {
            b.put((i, o), Pick { vc: vc as u16, k: k as u16 }, || ptrs.sa_vc[i as usize], v);
        }
        let p = Ports { n_in: n, n_out: n, in_base: 0, out_base: 0 };
        let mut out = Vec::new();
        let mut cross = |b: &Bids, (i, o): (u8, u8), ptrs: &mut Pointers| {
            let pick = b.pick(i, o);
            ptrs.sa_vc[i as usize] = next(pick.vc as u32, v);
            out.push((i as u32, o as u32, pick.vc, pick.k));
        };
        match b.begin(kind, p, ptrs) {
            Match::ByOutput(mut left) => {
                while left != 0 {
                    let o = left.trailing_zeros();
                    left &= left - 1;
                    let i = b.take_granted(o, p, ptrs);
                    cross(&b, (i as u8, o as u8), ptrs);
                }
            }
            Match::Listed(m) => (0..m).for_each(|j| cross(&b, b.won(j), ptrs)),
        }
        assert!(b.is_empty() && b.asking.iter().all(|&a| a == 0), "a match leaves no bid behind");
        out
    }

    /// The list path: the bids listed and deduplicated per input as `IqNet::list_bid` does, then
    /// matched by `alloc::allocate`.
    fn by_list(kind: Allocator, n: u32, v: u32, bids: &Bids1, ptrs: &mut Pointers) -> Vec<Crossing> {
        let mut reqs: Vec<Request> = Vec::new();
        for (&(i, vc, k), &o) in bids {
            let (bid, ptr) = (Request { req: i, res: o, a: 0, b: vc << 16 | k }, ptrs.sa_vc[i as usize]);
            match reqs.iter_mut().find(|q| q.req == i && q.res == o) {
                Some(q) if after(vc, ptr, v) < after(q.b >> 16, ptr, v) => *q = bid,
                Some(_) => {}
                None => reqs.push(bid),
            }
        }
        let mut w = Vec::new();
        allocate(kind, &reqs, n, n, &mut ptrs.sa_in, &mut ptrs.sa_out, &mut Scratch::default(), &mut w);
        w.iter()
            .map(|&k| {
                let q = reqs[k as usize];
                ptrs.sa_vc[q.req as usize] = next(q.b >> 16, v);
                (q.req, q.res, (q.b >> 16) as u16, (q.b & 0xffff) as u16)
            })
            .collect()
    }

    /// SA's pointers: per input over outputs, per output over inputs, per input over VCs.
    type Ptrs = (Vec<u32>, Vec<u32>, Vec<u32>);

    /// A random cycle: ports (few, or near the mask path's limit of 64), VCs, bids of up to three
    /// branches per VC, and every pointer. Half the cycles of the large routers are dense (60 to
    /// 2·n·v bids, most outputs bid for at once), where the limits of the words are.
    fn cycle() -> impl Strategy<Value = (u32, u32, Bids1, Ptrs)> {
        (prop_oneof![2u32..8, 60u32..=64], 1u32..5, any::<bool>()).prop_flat_map(|(n, v, dense)| {
            let size = if dense && n >= 60 { 60..(2 * n * v) as usize } else { 0..28 };
            let bids = btree_map((0..n, 0..v, 0..3u32), 0..n, size);
            let ptrs = (vec(0..n, n as usize), vec(0..n, n as usize), vec(0..v, n as usize));
            (Just(n), Just(v), bids, ptrs)
        })
    }

    /// Every one of 64 outputs bid for in one cycle (the dense random cycles below reach it only
    /// now and then): the list of outputs first bid for is full, and each allocator still matches
    /// them all, as the list path does.
    #[test]
    fn all_64_outputs_bid_for_at_once_are_all_matched() {
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            for shift in [0, 1, 63] {
                let bids: Bids1 = (0..64u32).map(|i| ((i, i % 2, 0), (i + shift) % 64)).collect();
                let mut a =
                    Pointers { sa_vc: vec![0; 64], sa_in: vec![0; 64], sa_out: vec![0; 64], ..Pointers::default() };
                let mut b =
                    Pointers { sa_vc: vec![0; 64], sa_in: vec![0; 64], sa_out: vec![0; 64], ..Pointers::default() };
                let got = by_masks(kind, 64, 2, &bids, &mut a);
                assert_eq!(got.len(), 64, "{kind:?}, shift {shift}: every output matched");
                assert_eq!(got, by_list(kind, 64, 2, &bids, &mut b), "{kind:?}, shift {shift}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// The mask path gives the list path's crossings, in its order, and its pointers.
        #[test]
        fn the_mask_path_crosses_as_the_list_path((n, v, bids, ptrs) in cycle(), islip in any::<bool>()) {
            let kind = if islip { Allocator::Islip } else { Allocator::InputFirst };
            let (sa_in, sa_out, sa_vc) = ptrs;
            let mut a = Pointers { sa_vc, sa_in, sa_out, ..Pointers::default() };
            let mut b = Pointers { sa_vc: a.sa_vc.clone(), sa_in: a.sa_in.clone(), sa_out: a.sa_out.clone(), ..Pointers::default() };
            let got = by_masks(kind, n, v, &bids, &mut a);
            let want = by_list(kind, n, v, &bids, &mut b);
            prop_assert_eq!(got, want);
            prop_assert_eq!((a.sa_vc, a.sa_in, a.sa_out), (b.sa_vc, b.sa_in, b.sa_out));
        }
    }
}
