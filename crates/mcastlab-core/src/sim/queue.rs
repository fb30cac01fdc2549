//! Event queues and the order of events at one instant.
//!
//! Every component (a network model, the endpoints) keeps its own queue of its own events; the
//! engine runs the earliest event of all queues next. Time is integer picoseconds. Events at the
//! same instant run in a fixed order that depends only on the state of the model, never on when
//! they happened to be scheduled: the [`Phase`] of the event, then the object it acts on. So
//! simultaneous requests for one output VC are granted in input-buffer order, jobs that reach one
//! server at the same instant queue in that order too, and a link's round robin sees every VC
//! granted at that instant. An event scheduled for the current instant by one that is running (a
//! zero-length job, a credit returned with no delay) runs next if its rank is lower than every
//! pending one. This is the rule the flit-by-flit reference model in the tests
//! (`tests/reference_model/`) implements phase by phase; ordering by scheduling order instead, as
//! a plain `(time, seq)` queue does, made the winner of a tie depend on the history of the two
//! requests, which no independent model can reproduce.
//!
//! Two pending events with the same key (time, phase, object) are copies of one event (a
//! superseded link service, a repeated room check), so their relative order cannot change
//! anything, and the phases of different components never coincide: merging the components'
//! queues by key gives the order one queue of all events would give. Events are small `Copy`
//! values naming the object they act on by index; nothing is boxed per event.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The order of events at one instant, across every component. A component's events each belong
/// to one phase; a new kind of event takes its place here, with the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Phase {
    /// The NIs take in packet tails (by tree node).
    NiTail = 0,
    /// Endpoint servers finish their jobs (by endpoint, then host, NI, DMA).
    EndpointJob = 1,
    /// Acknowledgements close circuits (coll03, by circuit): before anything at the same instant
    /// asks for the VCs they free.
    CircuitAck = 2,
    /// Flits of dropped packets arrive (by worm).
    FlitArrive = 3,
    /// Switches finish decoding headers (by input buffer).
    Decode = 4,
    /// Waiting packets are checked for room (by output VC).
    RoomCheck = 5,
    /// Links arbitrate and send (by channel).
    LinkService = 6,
    /// Packet trains: the branches whose tails leave now are done (by worm).
    TrainTail = 7,
    /// NI protocols' control packets reach their NIs (by control packet), after everything else
    /// at their instant: they carry credits and acknowledgements, which only let NIs do more.
    NiControl = 8,
    /// NI protocols' timers fire (by endpoint).
    NiWake = 9,
}

/// Where an event stands among the events of its instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rank(u64);

impl Rank {
    /// In `phase`, acting on object `object`.
    #[inline]
    pub(crate) fn new(phase: Phase, object: u32) -> Rank {
        Rank((phase as u64) << 56 | object as u64)
    }
    /// After every other event at its instant, even those scheduled later (see
    /// [`EventQueue::push_last`]).
    pub(crate) const LAST: Rank = Rank(u64::MAX);
}

/// An event that knows its rank among the events of its instant.
pub(crate) trait Ranked: Copy {
    fn rank(self) -> Rank;
}

/// A heap entry ordered by one `u128` key, `time << 64 | rank`: a single comparison per sift
/// step.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    key: u128,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// A binary min-heap of `(time, rank, event)`.
pub(crate) struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new() }
    }
}

/// The key of an event: time, then rank.
#[inline]
pub(crate) fn key(time: u64, rank: Rank) -> u128 {
    (time as u128) << 64 | rank.0 as u128
}

impl<E: Ranked> EventQueue<E> {
    #[inline(always)]
    pub(crate) fn push(&mut self, time: u64, ev: E) {
        self.heap.push(Reverse(Entry { key: key(time, ev.rank()), ev }));
    }
    /// Schedules `ev` after every other event at `time`, even those scheduled later: the iq
    /// network's cycle step sees everything that happens at the cycle's instant (a packet an NI
    /// hands over then is injected in that cycle, as a cycle-accurate source does). At most one
    /// such event may be pending per instant.
    pub(crate) fn push_last(&mut self, time: u64, ev: E) {
        self.heap.push(Reverse(Entry { key: key(time, Rank::LAST), ev }));
    }
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<(u64, E)> {
        self.heap.pop().map(|Reverse(e)| ((e.key >> 64) as u64, e.ev))
    }
    /// The key of the next event (time, then rank), to merge queues by.
    #[inline(always)]
    pub(crate) fn peek_key(&self) -> Option<u128> {
        self.heap.peek().map(|Reverse(e)| e.key)
    }
    /// Bytes the heap holds (its capacity), for the memory budget.
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.heap.capacity() * std::mem::size_of::<Reverse<Entry<E>>>()) as u64
    }
}

/// The time of a key.
#[inline]
pub(crate) fn time_of(key: u128) -> u64 {
    (key >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Ev {
        Job(u32),
        Decode(u32),
        Service(u32),
        Step,
    }

    impl Ranked for Ev {
        fn rank(self) -> Rank {
            match self {
                Ev::Job(x) => Rank::new(Phase::EndpointJob, x),
                Ev::Decode(x) => Rank::new(Phase::Decode, x),
                Ev::Service(x) => Rank::new(Phase::LinkService, x),
                Ev::Step => Rank::LAST,
            }
        }
    }

    #[test]
    fn ties_run_in_phase_then_object_order_whatever_the_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, Ev::Service(0));
        q.push(10, Ev::Decode(7));
        q.push(5, Ev::Service(9));
        q.push(10, Ev::Decode(3));
        q.push(10, Ev::Job(4));
        q.push(10, Ev::Job(2));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Ev::Service(9)),
                (10, Ev::Job(2)),
                (10, Ev::Job(4)),
                (10, Ev::Decode(3)),
                (10, Ev::Decode(7)),
                (10, Ev::Service(0)),
            ]
        );
    }

    #[test]
    fn a_step_runs_after_everything_else_at_its_instant() {
        let mut q = EventQueue::default();
        q.push_last(10, Ev::Step);
        q.push(10, Ev::Decode(1));
        q.push(11, Ev::Decode(2));
        q.push(10, Ev::Service(7));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order[..3], [(10, Ev::Decode(1)), (10, Ev::Service(7)), (10, Ev::Step)]);
        assert_eq!(order[3], (11, Ev::Decode(2)));
    }

    #[test]
    fn two_queues_merged_by_key_give_one_queue_s_order() {
        let (mut a, mut b) = (EventQueue::default(), EventQueue::default());
        a.push(10, Ev::Service(1));
        b.push(10, Ev::Job(5));
        a.push(3, Ev::Decode(2));
        b.push_last(10, Ev::Step);
        let mut order = Vec::new();
        loop {
            let pick_a = match (a.peek_key(), b.peek_key()) {
                (None, None) => break,
                (Some(x), Some(y)) => x < y,
                (x, _) => x.is_some(),
            };
            order.push(if pick_a { a.pop() } else { b.pop() }.unwrap());
        }
        assert_eq!(order, vec![(3, Ev::Decode(2)), (10, Ev::Job(5)), (10, Ev::Service(1)), (10, Ev::Step)]);
    }
}
