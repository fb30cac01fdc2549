//! Sources: how an endpoint injects into the iq network (booksim.md §6.7).
//!
//! Each endpoint keeps an unbounded FIFO of the packets its NI has handed over. The packet at the
//! front picks an injection VC round robin, starting after the VC of the previous packet, among
//! the VCs that have a credit (the source sends one packet at a time, so no unsent tail holds
//! one then); its flits then go out on that VC, one per
//! cycle while credits last, and the next packet may start once its tail is out. A flit put on
//! the link in cycle t is usable by the router in cycle t + 1 + d, the same rule as between
//! routers. Queueing here counts in a message's latency, as in BookSim, since a message's clock
//! starts when it is created.

use super::{Head, IqNet};
use crate::sim::ids::IqVcId;
use crate::sim::net::NetCtx;

impl IqNet {
    /// Every source with packets sends at most one flit; sources left empty drop out of the list
    /// (a plain loop that compacts the list in place: as a `retain` closure the source's step
    /// became a call per flit).
    pub(crate) fn step_sources(&mut self, cx: &mut NetCtx<'_>, c: u64) {
        let mut list = std::mem::take(&mut self.active.sources);
        let mut kept = 0;
        for j in 0..list.len() {
            let e = list[j];
            // Kept without a branch (whether a source has more is data, see `Active`).
            list[kept] = e;
            kept += usize::from(self.inject_flit(cx, e, c));
        }
        list.truncate(kept);
        self.active.sources = list;
    }

    /// Source `e` starts its next packet if it can, then sends a flit if it has a credit. Returns
    /// whether it still has packets (and records it in the source).
    #[inline(always)]
    fn inject_flit(&mut self, cx: &mut NetCtx<'_>, e: u32, c: u64) -> bool {
        let v = self.cfg.v;
        let s = &mut self.sources[e as usize];
        let chan = s.chan;
        let slot = self.wiring.slot[chan.idx()];
        let (pkt, vc, sent) = match s.cur {
            Some(cur) => cur,
            None => {
                let Some(&pkt) = s.queue.front() else {
                    s.active = false;
                    return false;
                };
                let mut vc = s.last_vc;
                let mut found = false;
                for _ in 0..v {
                    vc = if vc + 1 == v { 0 } else { vc + 1 };
                    if self.credits[IqVcId::of(slot, vc, v).idx()] > 0 {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return true;
                }
                s.queue.pop_front();
                s.last_vc = vc;
                (pkt, vc, 0)
            }
        };
        let ovc = IqVcId::of(slot, vc, v);
        let credits = &mut self.credits[ovc.idx()];
        if *credits == 0 {
            s.cur = Some((pkt, vc, sent));
            return true;
        }
        *credits -= 1;
        let more = if sent + 1 == pkt.flits {
            s.cur = None;
            !s.queue.is_empty()
        } else {
            s.cur = Some((pkt, vc, sent + 1));
            true
        };
        s.active = more;
        let head = Head { msg: pkt.msg, pid: pkt.pid, node: pkt.node, flits: pkt.flits };
        self.stats.count_flit(cx.now, chan, sent, || (vc, head.msg, head.pid));
        self.stats.count_heads(chan, u64::from(sent == 0));
        self.deliver(ovc, c + 1 + self.wiring.lat[chan.idx()], (sent == 0).then_some(head));
        more
    }
}
