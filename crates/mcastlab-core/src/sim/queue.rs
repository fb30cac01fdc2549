//! The event queue: a binary min-heap of `(time, seq, event)`.
//!
//! Time is integer picoseconds. `seq` is the insertion counter, so events at the same time run in
//! the order they were scheduled: the order never depends on anything but the inputs, which makes
//! every run reproducible bit for bit. Events are small `Copy` values naming the object they act
//! on by index; nothing is boxed per event.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Which of an endpoint's three servers finished a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Host,
    Ni,
    Dma,
}

/// Something that happens at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// An output link may send its next flit (arbitration among its VCs).
    Service { chan: u32 },
    /// A flit of `worm` has arrived in its input buffer.
    FlitArrive { worm: u32 },
    /// The tail of packet `pid` of message `msg` has reached the NI behind tree node `node`.
    NiTail { msg: u32, pid: u32, node: u32 },
    /// A packet waiting for room behind output VC `outvc` (cut-through, store-and-forward) may
    /// fit now that credits are back.
    RoomCheck { outvc: u32 },
    /// The switch has decoded the header of `worm`.
    Route { worm: u32 },
    /// An endpoint's host, NI or DMA engine finished its current job.
    Done { ep: u32, unit: Unit },
    /// The iq router network (`sim::iq`) steps one cycle.
    Step,
}

/// A heap entry ordered by one `u128` key, `time << 64 | seq`: a single comparison per sift
/// step (the event itself never takes part in the order).
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
}

impl EventQueue {
    pub(crate) fn push(&mut self, time: u64, ev: Event) {
        self.heap.push(Reverse(Entry { key: (time as u128) << 64 | self.seq as u128, ev }));
        self.seq += 1;
    }
    /// Schedules `ev` after every other event at `time`, even those scheduled later: the iq
    /// network's cycle step sees everything that happens at the cycle's instant (a packet an NI
    /// hands over then is injected in that cycle, as a cycle-accurate source does). At most one
    /// such event may be pending per instant.
    pub(crate) fn push_last(&mut self, time: u64, ev: Event) {
        self.heap.push(Reverse(Entry { key: (time as u128) << 64 | u64::MAX as u128, ev }));
    }
    pub(crate) fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|Reverse(e)| ((e.key >> 64) as u64, e.ev))
    }
    pub(crate) fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(e)| (e.key >> 64) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::Route { worm: 2 });
        q.push(5, Event::Route { worm: 1 });
        q.push(10, Event::Route { worm: 0 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(5, Event::Route { worm: 1 }), (10, Event::Route { worm: 2 }), (10, Event::Route { worm: 0 })]
        );
    }

    #[test]
    fn a_step_runs_after_everything_else_at_its_instant() {
        let mut q = EventQueue::default();
        q.push_last(10, Event::Step);
        q.push(10, Event::Route { worm: 1 });
        q.push(11, Event::Route { worm: 2 });
        q.push(10, Event::Route { worm: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want = [(10, Event::Route { worm: 1 }), (10, Event::Route { worm: 3 }), (10, Event::Step)];
        assert_eq!(order[..3], want);
        assert_eq!(order[3], (11, Event::Route { worm: 2 }));
    }
}
