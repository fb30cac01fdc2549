//! The iq network's timing wheel: what becomes usable in a later cycle — a flit in the buffer it
//! was sent to, or a credit at the sender of a freed buffer slot — is filed under that cycle and
//! applied when the cycle's step begins.
//!
//! Every delay is bounded (pipeline, link and credit latencies), so a ring of slots one longer
//! than the longest delay holds them all, and applying them costs one pass over a short list
//! per cycle instead of a per-buffer queue of times looked at on every bid: a buffer then only
//! counts how many of its flits have arrived, and a sender how many credits it holds.

use crate::sim::ids::IqVcId;

/// What an entry makes usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// A flit in input VC `ivc`'s buffer.
    Flit(IqVcId),
    /// A credit for the sender of input VC `ivc` (the same VC, seen from its sender).
    Credit(IqVcId),
}

/// What is filed under one cycle: flits and credits apart, so that applying them needs no test of
/// which an entry is (the order of a flit against a credit has no effect: a credit only adds to
/// its sender's count; flits keep their filing order among themselves).
#[derive(Default)]
pub(crate) struct Slot {
    pub flits: Vec<IqVcId>,
    pub credits: Vec<IqVcId>,
}

pub(crate) struct Wheel {
    slots: Vec<Slot>,
    mask: u64,
    /// The slot handed out by `take`, returned on the next call (keeps the lists' capacity, so
    /// the steady state allocates nothing).
    spare: Slot,
}

impl Wheel {
    /// A wheel for delays of at most `max_delay` cycles.
    pub(crate) fn new(max_delay: u64) -> Wheel {
        let n = (max_delay + 1).next_power_of_two();
        Wheel { slots: (0..n).map(|_| Slot::default()).collect(), mask: n - 1, spare: Slot::default() }
    }

    /// Files a flit for input VC `vc` under cycle `at`, or (`credit`) a credit for its sender,
    /// choosing the list without a branch (the iq router's crossing sends a flit into a router
    /// or, into an NI, which takes it at once, only its credit: which one is data the branch
    /// predictor cannot learn).
    #[inline(always)]
    pub(crate) fn push_either(&mut self, at: u64, vc: IqVcId, credit: bool) {
        let slot = &mut self.slots[(at & self.mask) as usize];
        let lists = [&mut slot.flits, &mut slot.credits];
        let [flits, credits] = lists;
        let list = if credit { credits } else { flits };
        list.push(vc);
    }

    /// Files `due` under cycle `at` (later than the current cycle by at most the maximum delay).
    #[inline(always)]
    pub(crate) fn push(&mut self, at: u64, due: Due) {
        let slot = &mut self.slots[(at & self.mask) as usize];
        match due {
            Due::Flit(vc) => slot.flits.push(vc),
            Due::Credit(vc) => slot.credits.push(vc),
        }
    }

    /// Everything filed under cycle `c`, flits and credits each in filing order; hand the slot
    /// back with [`Wheel::recycle`].
    pub(crate) fn take(&mut self, c: u64) -> Slot {
        let slot = &mut self.slots[(c & self.mask) as usize];
        let mut out = std::mem::take(&mut self.spare);
        out.flits.clear();
        out.credits.clear();
        std::mem::swap(slot, &mut out);
        out
    }

    /// Returns a slot from [`Wheel::take`], to be reused.
    pub(crate) fn recycle(&mut self, slot: Slot) {
        self.spare = slot;
    }

    /// Whether anything is filed for a later cycle (the slot of the cycle taken last is empty).
    /// Found by looking at every slot rather than kept as a count: a step asks only when no
    /// router holds flits and no source has packets, while a count cost an update per filing,
    /// two per crossing.
    pub(crate) fn pending(&self) -> bool {
        self.slots.iter().any(|s| !s.flits.is_empty() || !s.credits.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::{Due, Wheel};
    use crate::sim::ids::IqVcId;

    fn vc(i: usize) -> IqVcId {
        IqVcId::from_index(i)
    }

    /// Flits, then credits, each in filing order.
    fn take(w: &mut Wheel, c: u64) -> Vec<Due> {
        let slot = w.take(c);
        let out =
            slot.flits.iter().map(|&x| Due::Flit(x)).chain(slot.credits.iter().map(|&x| Due::Credit(x))).collect();
        w.recycle(slot);
        out
    }

    #[test]
    fn entries_come_back_in_their_cycle_and_in_filing_order() {
        let mut w = Wheel::new(5); // 8 slots
        w.push(3, Due::Credit(vc(4)));
        w.push(3, Due::Flit(vc(7)));
        w.push(1, Due::Credit(vc(2)));
        w.push(3, Due::Flit(vc(5)));
        w.push(3, Due::Credit(vc(7)));
        assert_eq!(take(&mut w, 1), vec![Due::Credit(vc(2))]);
        w.push(9, Due::Flit(vc(1))); // the slot of cycle 1, reused 8 cycles on
        assert!(take(&mut w, 2).is_empty());
        // Flits in their filing order, then credits in theirs.
        assert_eq!(take(&mut w, 3), vec![Due::Flit(vc(7)), Due::Flit(vc(5)), Due::Credit(vc(4)), Due::Credit(vc(7))]);
        assert!(w.pending());
        assert_eq!(take(&mut w, 9), vec![Due::Flit(vc(1))]);
        assert!(!w.pending());
    }
}
