//! The iq network's timing wheel: what becomes usable in a later cycle — a flit in the buffer it
//! was sent to, or a credit at the sender of a freed buffer slot — is filed under that cycle and
//! applied when the cycle's step begins.
//!
//! Every delay is bounded (pipeline, link and credit latencies), so a ring of slots one longer
//! than the longest delay holds them all, and applying them costs one pass over a short list
//! per cycle instead of a per-buffer queue of times looked at on every bid: a buffer then only
//! counts how many of its flits have arrived, and a sender how many credits it holds.

use crate::sim::ids::VcId;

/// What an entry makes usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// A flit in input VC `ivc`'s buffer.
    Flit(VcId),
    /// A credit for the sender of input VC `ivc` (the same VC, seen from its sender).
    Credit(VcId),
}

impl Due {
    /// One word per entry: the VC's index and which of the two it is.
    #[inline(always)]
    fn encode(self) -> u32 {
        match self {
            Due::Flit(v) => v.raw() << 1,
            Due::Credit(v) => v.raw() << 1 | 1,
        }
    }
    #[inline(always)]
    pub(crate) fn decode(x: u32) -> Due {
        let vc = VcId::from_index((x >> 1) as usize);
        if x & 1 == 0 {
            Due::Flit(vc)
        } else {
            Due::Credit(vc)
        }
    }
}

pub(crate) struct Wheel {
    slots: Vec<Vec<u32>>,
    mask: u64,
    /// Entries filed and not yet taken.
    pending: u64,
    /// The list handed out by `take`, returned to a slot on the next call (keeps the slots'
    /// capacity, so the steady state allocates nothing).
    spare: Vec<u32>,
}

impl Wheel {
    /// A wheel for delays of at most `max_delay` cycles.
    pub(crate) fn new(max_delay: u64) -> Wheel {
        let n = (max_delay + 1).next_power_of_two();
        Wheel { slots: (0..n).map(|_| Vec::new()).collect(), mask: n - 1, pending: 0, spare: Vec::new() }
    }

    /// Files `due` under cycle `at` (later than the current cycle by at most the maximum delay).
    #[inline]
    pub(crate) fn push(&mut self, at: u64, due: Due) {
        self.slots[(at & self.mask) as usize].push(due.encode());
        self.pending += 1;
    }

    /// Everything filed under cycle `c`, in filing order (encoded: see [`Due::decode`]); hand the
    /// list back with [`Wheel::recycle`].
    pub(crate) fn take(&mut self, c: u64) -> Vec<u32> {
        let slot = &mut self.slots[(c & self.mask) as usize];
        let mut list = std::mem::take(&mut self.spare);
        list.clear();
        std::mem::swap(slot, &mut list);
        self.pending -= list.len() as u64;
        list
    }

    /// Returns a list from [`Wheel::take`], to be reused.
    pub(crate) fn recycle(&mut self, list: Vec<u32>) {
        self.spare = list;
    }

    /// Whether anything is filed for a later cycle.
    pub(crate) fn pending(&self) -> bool {
        self.pending > 0
    }
}

#[cfg(test)]
mod tests {
    use super::{Due, Wheel};
    use crate::sim::ids::VcId;

    fn vc(i: usize) -> VcId {
        VcId::from_index(i)
    }

    fn take(w: &mut Wheel, c: u64) -> Vec<Due> {
        let list = w.take(c);
        let out = list.iter().map(|&x| Due::decode(x)).collect();
        w.recycle(list);
        out
    }

    #[test]
    fn entries_come_back_in_their_cycle_and_in_filing_order() {
        let mut w = Wheel::new(5); // 8 slots
        w.push(3, Due::Flit(vc(7)));
        w.push(1, Due::Credit(vc(2)));
        w.push(3, Due::Credit(vc(7)));
        assert_eq!(take(&mut w, 1), vec![Due::Credit(vc(2))]);
        w.push(9, Due::Flit(vc(1))); // the slot of cycle 1, reused 8 cycles on
        assert!(take(&mut w, 2).is_empty());
        assert_eq!(take(&mut w, 3), vec![Due::Flit(vc(7)), Due::Credit(vc(7))]);
        assert!(w.pending());
        assert_eq!(take(&mut w, 9), vec![Due::Flit(vc(1))]);
        assert!(!w.pending());
    }
}
