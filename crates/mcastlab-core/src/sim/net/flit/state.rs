//! The records the flit network keeps: output ports and VCs (the sending side of every channel),
//! input buffers, worms and their branches, circuit ends. Plain data; what is done with them is in
//! the files named after each concern.

use crate::sim::ids::{BranchId, CircuitId, MsgId, NodeId, PacketId, VcId, WormId};
use std::collections::VecDeque;

/// The serializer of one channel.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutPort {
    /// The channel is sending a flit until then.
    pub busy_until: u64,
    /// Time of the scheduled `Service` event, if any. Any other `Service` event of this channel
    /// in the queue is stale and ignored.
    pub pending_at: Option<u64>,
    /// Next VC to offer the link to.
    pub rr: u32,
}

/// Who holds an output VC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum VcHolder {
    #[default]
    Free,
    /// A branch sending its packet on it.
    Branch(BranchId),
    /// A circuit whose packet has passed but whose acknowledgement has not (coll03,
    /// `switch.circuit_until_ack`).
    Circuit,
}

/// The credits a sender knows of for the far buffer of one VC: the free slots there, or, into an
/// NI (which drains its link at line rate into its own memory), no limit at all. An unlimited
/// sender's count stays at the largest value and is never taken from, so the per-flit checks
/// (`is_zero`, `at_least`) are one comparison either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Credits {
    count: u32,
    unlimited: bool,
}

impl Credits {
    pub(crate) fn limited(count: u32) -> Credits {
        Credits { count, unlimited: false }
    }
    pub(crate) fn unlimited() -> Credits {
        Credits { count: u32::MAX, unlimited: true }
    }
    #[inline(always)]
    pub(crate) fn is_zero(self) -> bool {
        self.count == 0
    }
    /// Whether at least `n` slots are free.
    #[inline(always)]
    pub(crate) fn at_least(self, n: u32) -> bool {
        self.count >= n
    }
    #[inline(always)]
    pub(crate) fn take(&mut self, n: u32) {
        if !self.unlimited {
            self.count -= n;
        }
    }
    #[inline(always)]
    pub(crate) fn give(&mut self, n: u32) {
        if !self.unlimited {
            self.count += n;
        }
    }
    /// The count, `None` when unlimited.
    #[inline]
    pub(crate) fn count(self) -> Option<u32> {
        (!self.unlimited).then_some(self.count)
    }
    pub(crate) fn is_unlimited(self) -> bool {
        self.unlimited
    }
}

/// One VC of a channel, seen from its sender.
#[derive(Clone, Debug)]
pub(crate) struct OutVc {
    pub holder: VcHolder,
    pub credits: Credits,
    /// Credits on their way back: (time they arrive, count), in time order. They are taken in
    /// when the sender looks, so a returning credit costs no event unless someone waits for it.
    pub returns: VecDeque<(u64, u32)>,
    /// Branches waiting for the VC, oldest first.
    pub waiters: VecDeque<BranchId>,
}

impl OutVc {
    pub(crate) fn new(credits: Credits) -> OutVc {
        OutVc { holder: VcHolder::Free, credits, returns: VecDeque::new(), waiters: VecDeque::new() }
    }

    /// Takes in the credits that have arrived by `now`.
    #[inline]
    pub(crate) fn absorb(&mut self, now: u64) {
        while let Some(&(t, n)) = self.returns.front() {
            if t > now {
                break;
            }
            self.credits.give(n);
            self.returns.pop_front();
        }
    }

    /// When the sender will know of at least `need` free slots, if credits on their way suffice.
    pub(crate) fn room_at(&self, need: u32) -> Option<u64> {
        let mut have = self.credits.count()?;
        for &(t, n) in &self.returns {
            have += n;
            if have >= need {
                return Some(t);
            }
        }
        None
    }

    /// Whether the sender holds or will have a credit by `now` (for diagnostics, without
    /// mutating).
    pub(crate) fn has_credit_at(&self, now: u64) -> bool {
        match self.credits.count() {
            None => true,
            Some(c) => c + self.returns.iter().filter(|(t, _)| *t <= now).map(|(_, n)| n).sum::<u32>() > 0,
        }
    }
}

/// A packet in one buffer (or, with `buf == None`, in its sender's NI memory).
#[derive(Clone, Debug, Default)]
pub(crate) struct Worm {
    /// Message instance it belongs to.
    pub msg: MsgId,
    pub pid: PacketId,
    /// Tree node whose channel brought it here (`None` in the sender's NI).
    pub node: Option<NodeId>,
    /// Input buffer, or `None` in NI memory.
    pub buf: Option<VcId>,
    pub flits: u32,
    /// Flits that have arrived.
    pub arrived: u32,
    /// Flits every branch has read, whose slots are free again.
    pub freed: u32,
    pub decode: Decode,
    pub branches: Vec<BranchId>,
    /// Branches that have sent their tail.
    pub done: u32,
    /// Not yet retired (freed slots keep stale contents).
    pub alive: bool,
    /// Arrival times of flits sent to this worm and not yet taken in (in order).
    pub incoming: VecDeque<u64>,
    /// Arrival time of the head and of the tail, once sent.
    pub head_at: Option<u64>,
    pub tail_at: Option<u64>,
    /// With `switch.circuit_until_ack`: the circuits it belongs to.
    pub circuits: CircuitEnds,
    /// Packet trains: how far its branches have got.
    pub train: TrainMarks,
}

/// Where a worm's header decode stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Decode {
    /// Not yet scheduled (not at the front of its buffer, or its head has not arrived).
    #[default]
    Waiting,
    /// Scheduled: done `switch.routing_delay` after the head (the tail, store-and-forward).
    Pending,
    /// Decoded into its branches (a worm in its sender's NI is born so).
    Routed,
    /// Decoded to no branch (an MFT without an entry): dropped flit by flit.
    Dropped,
}

impl Worm {
    /// Whether its header has been decoded (into branches, or to none).
    pub(crate) fn routed(&self) -> bool {
        matches!(self.decode, Decode::Routed | Decode::Dropped)
    }
}

/// A worm's circuits (coll03): its own once its header is decoded, and the one a hop upstream
/// that awaits its acknowledgement.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CircuitEnds {
    pub own: Option<CircuitId>,
    pub up: Option<CircuitId>,
}

/// Packet trains: branches started, and the time of the pending event that ends the branches
/// finishing then.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TrainMarks {
    pub started: u32,
    pub tail_ev: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum BranchState {
    /// Waiting for its output VC.
    #[default]
    Waiting,
    /// Holds its output VC.
    Active,
    /// Its tail has been sent.
    Done,
}

/// One output branch of a worm.
#[derive(Clone, Debug, Default)]
pub(crate) struct Branch {
    pub worm: WormId,
    /// Tree node of the output channel.
    pub node: NodeId,
    /// Flits sent so far.
    pub sent: u32,
    /// The worm this branch creates in the next buffer.
    pub down: Option<WormId>,
    pub state: BranchState,
    /// Part of a range multicast's all-or-nothing request for its output VCs (`gang.rs`).
    pub gang: bool,
    /// Packet trains: when it sent its head.
    pub start: Option<u64>,
}

/// A FIFO input buffer of one port and VC.
#[derive(Clone, Debug, Default)]
pub(crate) struct InBuf {
    pub queue: VecDeque<WormId>,
    /// Flits held.
    pub occ: u32,
}

/// One switch's (or the sending NI's) end of a packet copy's circuit (coll03).
#[derive(Clone, Debug, Default)]
pub(crate) struct Circuit {
    /// The circuit one hop upstream, `None` at the sender's NI.
    pub parent: Option<CircuitId>,
    /// Branches whose acknowledgement has not arrived yet.
    pub pending: u32,
    /// Output VCs the circuit takes, released when it closes.
    pub vcs: Vec<VcId>,
    /// This end is the sender's NI: acknowledgements reach it without a switch's combining delay,
    /// and its closing completes the transaction.
    pub at_ni: bool,
    pub msg: MsgId,
}
