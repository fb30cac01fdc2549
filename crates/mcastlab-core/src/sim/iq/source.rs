//! Sources: how an endpoint injects into the iq network (booksim.md §6.7).
//!
//! Each endpoint keeps an unbounded FIFO of the packets its NI has handed over. The packet at the
//! front picks an injection VC round robin, starting after the VC of the previous packet, among
//! the VCs no unsent tail holds that have a credit; its flits then go out on that VC, one per
//! cycle while credits last, and the next packet may start once its tail is out. A flit put on
//! the link in cycle t is usable by the router in cycle t + 1 + d, the same rule as between
//! routers. Queueing here counts in a message's latency, as in BookSim, since a message's clock
//! starts when it is created.

use super::{Flit, IqNet, SOURCE};
use crate::sim::engine::Simulation;
use crate::sim::NONE;

impl IqNet {
    /// Every source with packets sends at most one flit; sources left empty drop out of the list.
    pub(crate) fn step_sources(&mut self, sim: &mut Simulation<'_>, c: u64) {
        let mut list = std::mem::take(&mut self.on_sources);
        list.retain(|&e| {
            self.inject_flit(sim, e, c);
            let s = &mut self.sources[e as usize];
            s.active = s.cur.is_some() || !s.queue.is_empty();
            s.active
        });
        self.on_sources = list;
    }

    /// Source `e` starts its next packet if it can, then sends a flit if it has a credit.
    fn inject_flit(&mut self, sim: &mut Simulation<'_>, e: u32, c: u64) {
        let v = self.cfg.v;
        let s = &self.sources[e as usize];
        let chan = s.chan;
        if s.cur.is_none() {
            let Some(&pkt) = s.queue.front() else { return };
            let last = s.last_vc;
            let Some(vc) = (1..=v).map(|k| (last + k) % v).find(|&vc| {
                let o = &mut self.ovcs[(chan * v + vc) as usize];
                o.holder == NONE && o.has_credit(c)
            }) else {
                return;
            };
            self.ovcs[(chan * v + vc) as usize].holder = SOURCE;
            let s = &mut self.sources[e as usize];
            s.queue.pop_front();
            s.cur = Some((pkt, vc, 0));
            s.last_vc = vc;
        }
        let Some((pkt, vc, sent)) = self.sources[e as usize].cur else { return };
        let ovc = chan * v + vc;
        if !self.ovcs[ovc as usize].has_credit(c) {
            return;
        }
        self.ovcs[ovc as usize].credits -= 1;
        let f = Flit {
            msg: pkt.msg,
            pid: pkt.pid,
            node: pkt.node,
            idx: sent,
            flits: pkt.flits,
            arrive: c + 1 + self.lat[chan as usize],
        };
        self.count_flit(sim, chan, vc, &f);
        self.deliver(sim, ovc, f, self.to_router[chan as usize]);
        let s = &mut self.sources[e as usize];
        if sent + 1 == pkt.flits {
            s.cur = None;
            self.ovcs[ovc as usize].holder = NONE;
        } else {
            s.cur = Some((pkt, vc, sent + 1));
        }
    }
}
