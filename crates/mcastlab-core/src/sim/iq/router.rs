//! One cycle of one iq router: RC, VA and SA in that order (see the module doc of `sim::iq` for
//! what each stage does and why the order gives BookSim's timing), and the crossbar traversal of
//! the flits that win SA.
//!
//! The stages of a router read only its own input buffers and output VCs; what they send to
//! neighbours (flits, credits) becomes usable there at least one cycle later. So the routers of one
//! step can be visited in any order with the same result, and a step visits only those holding
//! flits.

use super::alloc::{allocate, Request, Scratch as AllocScratch};
use super::{Branch, Flit, IqNet, VcState};
use crate::sim::engine::Simulation;
use crate::sim::queue::Event;
use crate::sim::result::FlitRecord;
use crate::sim::NONE;

/// Working space of the stages, reused from router to router.
#[derive(Default)]
pub(crate) struct Scratch {
    alloc: AllocScratch,
    reqs: Vec<Request>,
    winners: Vec<u32>,
    /// Per output of the router being visited: the stamp of the input that already bids for it.
    seen: Vec<u64>,
    stamp: u64,
    /// The other half of the double-buffered list of routers with work.
    spare: Vec<u32>,
    /// The occupied input VCs of the router being visited.
    vcs: Vec<u32>,
}

impl Scratch {
    pub(crate) fn size(&mut self, _max_in: usize, max_out: usize) {
        self.seen = vec![0; max_out];
    }
}

impl IqNet {
    /// Visits every router with flits; those left empty drop out of the list, and those that
    /// received their first flit during the step join it for the next one.
    pub(crate) fn step_routers(&mut self, sim: &mut Simulation<'_>, c: u64) {
        let list = std::mem::take(&mut self.on_routers);
        let mut keep = std::mem::take(&mut self.scratch.spare);
        keep.clear();
        let mut vcs = std::mem::take(&mut self.scratch.vcs);
        for &r in &list {
            self.occupied(r, &mut vcs);
            self.route_stage(sim, &vcs, c);
            self.va_stage(r, &vcs, c);
            self.sa_stage(sim, r, &vcs, c);
            let rp = &mut self.routers[r as usize];
            if rp.flits > 0 {
                keep.push(r);
            } else {
                rp.active = false;
            }
        }
        self.scratch.vcs = vcs;
        keep.append(&mut self.woken);
        self.on_routers = keep;
        self.scratch.spare = list;
    }

    /// The input VCs of router `r` holding flits, as global indices, in input order (a copy of
    /// its occupancy bits: the stages may empty a VC, never fill one).
    fn occupied(&self, r: u32, out: &mut Vec<u32>) {
        let v = self.cfg.v;
        let rp = &self.routers[r as usize];
        out.clear();
        for w in 0..self.words {
            let mut bits = self.occ[r as usize * self.words + w];
            while bits != 0 {
                let local = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                out.push(rp.inputs[(local / v) as usize] * v + local % v);
            }
        }
    }

    /// RC: routes the head at the front of every idle input VC; drops the arrived flits of packets
    /// routed nowhere.
    fn route_stage(&mut self, sim: &mut Simulation<'_>, vcs: &[u32], c: u64) {
        for &ivc in vcs {
            match self.ivcs[ivc as usize].state {
                VcState::Idle => {
                    if let Some(&f) = self.ivcs[ivc as usize].fifo.front().filter(|f| f.arrive <= c) {
                        self.route(sim, ivc, f, c);
                    }
                }
                VcState::Sink => self.drop_arrived(sim, ivc, c),
                VcState::Routed => {}
            }
        }
    }

    /// The head flit `f` of input VC `ivc` is routed: one branch per child of its tree node.
    fn route(&mut self, sim: &mut Simulation<'_>, ivc: u32, f: Flit, c: u64) {
        debug_assert_eq!(f.idx, 0, "only a head flit reaches the front of an idle VC");
        let n = sim.trees.nodes[f.node as usize];
        let b = &mut self.ivcs[ivc as usize];
        b.freed = 0;
        if n.count == 0 {
            b.state = VcState::Sink;
            self.drop_arrived(sim, ivc, c);
            return;
        }
        let mut branches = std::mem::take(&mut b.branches);
        branches.clear();
        for k in n.first..n.first + n.count {
            let child = sim.trees.children[k as usize];
            let node = sim.trees.nodes[child as usize];
            let (lo, hi) = self.vc_range(node.vc, node.eject != NONE);
            let out = self.out_local[node.chan as usize];
            branches.push(Branch { node: child, chan: node.chan, out, lo, hi, ovc: NONE, sa_at: 0, sent: 0 });
        }
        let b = &mut self.ivcs[ivc as usize];
        b.branches = branches;
        b.state = VcState::Routed;
        b.va_at = c + self.cfg.rc;
        self.routers[self.to_router[(ivc / self.cfg.v) as usize] as usize].va_wait += n.count;
        // Each further copy is another packet in the network, acting for its message.
        for _ in 1..n.count {
            sim.live += 1;
            sim.add_ref(f.msg);
        }
    }

    /// A packet routed nowhere leaves its buffer flit by flit as it arrives.
    fn drop_arrived(&mut self, sim: &mut Simulation<'_>, ivc: u32, c: u64) {
        while let Some(&f) = self.ivcs[ivc as usize].fifo.front().filter(|f| f.arrive <= c) {
            self.pop_flit(ivc, c);
            if f.idx + 1 == f.flits {
                let b = &mut self.ivcs[ivc as usize];
                b.state = VcState::Idle;
                b.freed = 0;
                sim.live -= 1;
                sim.unref(f.msg);
                return;
            }
        }
    }

    /// Removes the front flit of `ivc` and sends its slot's credit upstream.
    fn pop_flit(&mut self, ivc: u32, c: u64) {
        let chan = ivc / self.cfg.v;
        let b = &mut self.ivcs[ivc as usize];
        b.fifo.pop_front();
        b.freed += 1;
        if b.fifo.is_empty() {
            let (w, bit) = self.occ_bit(ivc);
            self.occ[w] &= !bit;
        }
        self.routers[self.to_router[chan as usize] as usize].flits -= 1;
        let back = c + 1 + self.lat[chan as usize] + self.cfg.credit;
        self.ovcs[ivc as usize].returns.push_back(back);
    }

    /// VA: branches without an output VC ask for every free VC of their class.
    fn va_stage(&mut self, r: u32, vcs: &[u32], c: u64) {
        let v = self.cfg.v;
        let rp = &self.routers[r as usize];
        if rp.va_wait == 0 {
            return;
        }
        let (nin, nout) = (rp.inputs.len() as u32, rp.outputs.len() as u32);
        let mut reqs = std::mem::take(&mut self.scratch.reqs);
        reqs.clear();
        for &ivc in vcs {
            let b = &self.ivcs[ivc as usize];
            if b.state != VcState::Routed || b.va_at > c {
                continue;
            }
            let local = self.in_local[(ivc / v) as usize] * v + ivc % v;
            for (k, br) in b.branches.iter().enumerate() {
                if br.ovc != NONE {
                    continue;
                }
                for w in br.lo..br.hi {
                    if self.ovcs[(br.chan * v + w) as usize].holder == NONE {
                        reqs.push(Request { req: local, res: br.out * v + w, a: ivc, b: k as u32 });
                    }
                }
            }
        }
        if !reqs.is_empty() {
            let rp = &self.routers[r as usize];
            let (ib, ob) = ((rp.in_base * v) as usize, (rp.out_base * v) as usize);
            let mut winners = std::mem::take(&mut self.scratch.winners);
            winners.clear();
            allocate(
                self.cfg.allocator,
                &reqs,
                nin * v,
                nout * v,
                &mut self.va_in_ptr[ib..ib + (nin * v) as usize],
                &mut self.va_out_ptr[ob..ob + (nout * v) as usize],
                &mut self.scratch.alloc,
                &mut winners,
            );
            for &k in &winners {
                let q = reqs[k as usize];
                let br = &mut self.ivcs[q.a as usize].branches[q.b as usize];
                br.ovc = br.chan * v + q.res % v;
                br.sa_at = c + self.cfg.va;
                self.ovcs[br.ovc as usize].holder = q.a;
            }
            self.routers[r as usize].va_wait -= winners.len() as u32;
            self.scratch.winners = winners;
        }
        self.scratch.reqs = reqs;
    }

    /// SA: every branch holding its VC whose next flit is here and has a credit bids; the winners
    /// cross the crossbar.
    fn sa_stage(&mut self, sim: &mut Simulation<'_>, r: u32, vcs: &[u32], c: u64) {
        let v = self.cfg.v;
        let rp = &self.routers[r as usize];
        let (nin, nout, in_base, out_base) =
            (rp.inputs.len() as u32, rp.outputs.len() as u32, rp.in_base as usize, rp.out_base as usize);
        let mut reqs = std::mem::take(&mut self.scratch.reqs);
        reqs.clear();
        // Per input with flits, its VCs in round-robin order from the input's pointer (an input's
        // VCs are next to each other in `vcs`).
        let mut last = NONE;
        for &ivc in vcs {
            let chan = ivc / v;
            if chan == last {
                continue;
            }
            last = chan;
            let i = self.in_local[chan as usize];
            self.scratch.stamp += 1;
            let stamp = self.scratch.stamp;
            let first = self.sa_vc_ptr[in_base + i as usize];
            for k in 0..v {
                let ivc = chan * v + (first + k) % v;
                self.bids(ivc, i, c, stamp, &mut reqs);
            }
        }
        if reqs.is_empty() {
            self.scratch.reqs = reqs;
            return;
        }
        let mut winners = std::mem::take(&mut self.scratch.winners);
        winners.clear();
        allocate(
            self.cfg.allocator,
            &reqs,
            nin,
            nout,
            &mut self.sa_in_ptr[in_base..in_base + nin as usize],
            &mut self.sa_out_ptr[out_base..out_base + nout as usize],
            &mut self.scratch.alloc,
            &mut winners,
        );
        for &k in &winners {
            let q = reqs[k as usize];
            self.sa_vc_ptr[in_base + q.req as usize] = (q.a % v + 1) % v;
            self.traverse(sim, q.a, q.b as usize, c);
        }
        self.scratch.winners = winners;
        self.scratch.reqs = reqs;
    }

    /// The SA bids of input VC `ivc` (input `i` of its router): one per branch that may send,
    /// unless another VC of the same input already bids for that output.
    #[inline]
    fn bids(&mut self, ivc: u32, i: u32, c: u64, stamp: u64, reqs: &mut Vec<Request>) {
        let b = &self.ivcs[ivc as usize];
        if b.state != VcState::Routed {
            return;
        }
        let Some(front) = b.fifo.front() else { return };
        let flits = front.flits;
        for k in 0..b.branches.len() {
            let b = &self.ivcs[ivc as usize];
            let br = b.branches[k];
            if br.ovc == NONE || br.sa_at > c || br.sent == flits || self.scratch.seen[br.out as usize] == stamp {
                continue;
            }
            if !b.fifo.get((br.sent - b.freed) as usize).is_some_and(|f| f.arrive <= c) {
                continue;
            }
            if !self.ovcs[br.ovc as usize].has_credit(c) {
                continue;
            }
            self.scratch.seen[br.out as usize] = stamp;
            reqs.push(Request { req: i, res: br.out, a: ivc, b: k as u32 });
        }
    }

    /// Branch `k` of input VC `ivc` won SA: its next flit leaves the buffer (once every branch has
    /// read it), crosses the crossbar and the link, and lands in the next buffer or the NI.
    fn traverse(&mut self, sim: &mut Simulation<'_>, ivc: u32, k: usize, c: u64) {
        let v = self.cfg.v;
        let b = &mut self.ivcs[ivc as usize];
        let br = &mut b.branches[k];
        let f = b.fifo[(br.sent - b.freed) as usize];
        br.sent += 1;
        let (chan, ovc, node) = (br.chan, br.ovc, br.node);
        let o = &mut self.ovcs[ovc as usize];
        o.credits -= 1;
        let tail = f.idx + 1 == f.flits;
        if tail {
            o.holder = NONE;
        }
        let arrive = c + self.cfg.sa + self.cfg.st + self.lat[chan as usize];
        self.count_flit(sim, chan, ovc % v, &f);
        let to = self.to_router[chan as usize];
        if to == NONE {
            // The NI takes the flit as it arrives and returns the credit at once.
            let back = arrive + 1 + self.lat[chan as usize] + self.cfg.credit;
            self.ovcs[ovc as usize].returns.push_back(back);
            if tail {
                sim.add_ref(f.msg);
                sim.q.push(arrive * self.cfg.cycle, Event::NiTail { msg: f.msg, pid: f.pid, node });
                sim.live -= 1;
                sim.unref(f.msg);
            }
        } else {
            self.deliver(sim, ovc, Flit { node, arrive, ..f }, to);
        }
        self.release_read(ivc, c);
    }

    /// Frees the flits every branch of `ivc` has read; the VC goes idle after the packet's tail.
    fn release_read(&mut self, ivc: u32, c: u64) {
        let b = &self.ivcs[ivc as usize];
        let read = b.branches.iter().map(|br| br.sent).min().unwrap_or(0);
        let flits = b.fifo.front().map_or(0, |f| f.flits);
        let mut freed = b.freed;
        while freed < read {
            self.pop_flit(ivc, c);
            freed += 1;
        }
        if freed == flits {
            let b = &mut self.ivcs[ivc as usize];
            b.state = VcState::Idle;
            b.freed = 0;
            b.branches.clear();
        }
    }

    /// Flit `f` enters input VC `ivc` of router `to` (usable from `f.arrive`).
    #[inline]
    pub(crate) fn deliver(&mut self, sim: &mut Simulation<'_>, ivc: u32, f: Flit, to: u32) {
        let fifo = &mut self.ivcs[ivc as usize].fifo;
        fifo.push_back(f);
        let len = fifo.len() as u32;
        if len == 1 {
            let (w, bit) = self.occ_bit(ivc);
            self.occ[w] |= bit;
        }
        if len > sim.max_buf {
            sim.max_buf = len;
            sim.max_buf_at = ivc;
        }
        self.routers[to as usize].flits += 1;
        self.wake(to);
    }

    /// Counts flit `f` going out on `chan`/`vc` now, for link statistics, the watchdog and traces.
    #[inline]
    pub(crate) fn count_flit(&self, sim: &mut Simulation<'_>, chan: u32, vc: u32, f: &Flit) {
        sim.link_flits[chan as usize] += 1;
        if f.idx == 0 {
            sim.link_packets[chan as usize] += 1;
        }
        sim.flit_hops += 1;
        sim.last_move = sim.now;
        if let Some(t) = &mut sim.trace {
            t.push(FlitRecord { time: sim.now, channel: chan, vc: vc as u8, msg: f.msg, pid: f.pid, flit: f.idx });
        }
    }
}
