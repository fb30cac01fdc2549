//! The event queue: a binary min-heap of `(time, rank, event)`.
//!
//! Time is integer picoseconds. Events at the same instant run in a fixed order that depends only
//! on the state of the model, never on when they happened to be scheduled: first the NIs take in
//! packet tails, then the endpoints' servers finish their jobs (by endpoint, then host, NI, DMA),
//! then acknowledgements close circuits (coll03, by circuit), then switches finish decoding headers (by input buffer, channel · V + vc), then waiting
//! packets are checked for room (by output VC), and last the links arbitrate and send (by
//! channel). So simultaneous requests for one output VC are granted in input-buffer order, jobs
//! that reach one server at the same instant queue in that order too, and a link's round robin
//! sees every VC granted at that instant. An event scheduled for the current instant by one that
//! is running (a zero-length job, a credit returned with no delay) runs next if its rank is lower
//! than every pending one. This is the rule the flit-by-flit reference model in the tests
//! (`tests/reference_model/`) implements phase by phase; ordering by scheduling order instead, as
//! a plain `(time, seq)` queue does, made the winner of a tie depend on the history of the two
//! requests, which no independent model can reproduce. Events are small `Copy` values naming the
//! object they act on by index; nothing is boxed per event.

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
    /// The switch has decoded the header of `worm`, the front packet of input buffer `buf`.
    Route { worm: u32, buf: u32 },
    /// An endpoint's host, NI or DMA engine finished its current job.
    Done { ep: u32, unit: Unit },
    /// Packet trains: branch `branch` sends its head on channel `chan` now that the link is free.
    TrainStart { branch: u32, chan: u32 },
    /// Packet trains: the branches of `worm` whose tail leaves now are done.
    TrainTail { worm: u32 },
    /// Packet trains: every copy that tree node `node`'s switch ejects reaches its NI.
    NiTails { msg: u32, pid: u32, node: u32 },
    /// An acknowledgement has reached (and, at a switch, been combined at) the circuit end
    /// `circuit` (`switch.circuit_until_ack`).
    Ack { circuit: u32 },
    /// The iq router network (`sim::iq`) steps one cycle.
    Step,
}

impl Event {
    /// Order among events at the same instant: the phase (high byte) and the object it acts on.
    /// Two pending events with the same rank are copies of one event (a superseded link service,
    /// a repeated room check), so their relative order cannot change anything.
    fn rank(self) -> u64 {
        let (phase, object) = match self {
            Event::NiTail { node, .. } => (0, node),
            Event::Done { ep, unit } => (1, ep * 3 + unit as u32),
            // Circuits close before anything at the same instant asks for the VCs they free.
            Event::Ack { circuit } => (2, circuit),
            Event::FlitArrive { worm } => (3, worm),
            Event::Route { buf, .. } => (4, buf),
            Event::RoomCheck { outvc } => (5, outvc),
            Event::Service { chan } => (6, chan),
            // Packet trains (`train.rs`): what these do at their instant never depends on their
            // order among themselves, only on coming after every decode and room check.
            Event::NiTails { node, .. } => (0, node),
            Event::TrainStart { chan, .. } => (6, chan),
            Event::TrainTail { worm } => (7, worm),
            // After everything else at its instant (see `push_last`).
            Event::Step => return u64::MAX,
        };
        (phase as u64) << 56 | object as u64
    }
}

/// A heap entry ordered by one `u128` key, `time << 64 | rank`: a single comparison per sift
/// step.
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
}

impl EventQueue {
    pub(crate) fn push(&mut self, time: u64, ev: Event) {
        self.heap.push(Reverse(Entry { key: (time as u128) << 64 | ev.rank() as u128, ev }));
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
    /// Bytes the heap holds (its capacity), for the memory budget.
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.heap.capacity() * std::mem::size_of::<Reverse<Entry>>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_phase_then_object_order_whatever_the_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::Service { chan: 0 });
        q.push(10, Event::Route { worm: 2, buf: 7 });
        q.push(5, Event::Service { chan: 9 });
        q.push(10, Event::Route { worm: 0, buf: 3 });
        q.push(10, Event::Done { ep: 1, unit: Unit::Host });
        q.push(10, Event::Done { ep: 0, unit: Unit::Dma });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::Service { chan: 9 }),
                (10, Event::Done { ep: 0, unit: Unit::Dma }),
                (10, Event::Done { ep: 1, unit: Unit::Host }),
                (10, Event::Route { worm: 0, buf: 3 }),
                (10, Event::Route { worm: 2, buf: 7 }),
                (10, Event::Service { chan: 0 }),
            ]
        );
    }

    #[test]
    fn a_step_runs_after_everything_else_at_its_instant() {
        let mut q = EventQueue::default();
        q.push_last(10, Event::Step);
        q.push(10, Event::Route { worm: 1, buf: 1 });
        q.push(11, Event::Route { worm: 2, buf: 2 });
        q.push(10, Event::Service { chan: 7 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want = [(10, Event::Route { worm: 1, buf: 1 }), (10, Event::Service { chan: 7 }), (10, Event::Step)];
        assert_eq!(order[..3], want);
        assert_eq!(order[3], (11, Event::Route { worm: 2, buf: 2 }));
    }
}
