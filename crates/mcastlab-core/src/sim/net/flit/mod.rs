//! The flit network (`switch.router = simple`): an event-driven model of links and
//! input-buffered switches with credit-based flow control, in continuous time (picoseconds).
//!
//! A packet in a buffer is a *worm* (sivaram98's term for a packet in flight, flits strung over
//! buffers); a switch decodes its header into *branches*, one per output the replication tree has
//! there, and each branch asks for its output VC and reads the worm's flits at its own pace. One
//! file per concern:
//!
//! | file | what |
//! |---|---|
//! | `state.rs` | the records: output ports and VCs, credits, input buffers, worms, branches, circuit ends |
//! | `link.rs` | output ports: serialization, VCs, credits, arbitration |
//! | `switch.rs` | input buffers, header decode, replication, freeing slots |
//! | `gang.rs` | Quadrics range multicasts: all output VCs at once, serialized on overlap |
//! | `circuit.rs` | circuits held until the combined acknowledgement (`switch.circuit_until_ack`) |
//! | `train.rs` | packet trains: the same network at packet granularity, exact where packets stream |
//! | `granularity.rs` | when trains are exact, and why each condition is needed |
//! | `diagnose.rs` | which buffers wait for which when the watchdog fires |
//!
//! What it does not know: endpoints, messages and measurement. An NI hands it a packet copy
//! (`inject`); it hands back the tails that reach NIs (`Arrival`s) and holds each message while a
//! copy of it is inside.

mod circuit;
mod diagnose;
mod gang;
mod granularity;
mod link;
mod state;
mod switch;
mod train;

pub(crate) use granularity::{template_unfit, trains_unfit, RunShape};

use super::{Arrival, NetCtx, NetStats, Network, Packet};
use crate::fabric::{Channel, Fabric, Terminal};
use crate::sim::ids::{BranchId, CircuitId, MsgId, VcId, WormId};
use crate::sim::params::{Params, Switching};
use crate::sim::queue::{EventQueue, Phase, Rank, Ranked};
use crate::sim::result::Diagnosis;
use crate::sim::slab::Slab;
use crate::sim::trees::Trees;
use state::{Branch, Circuit, Credits, Decode, InBuf, OutPort, OutVc, Worm};
use train::Trains;

/// Fixed timing values of a run, derived once from the parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub flit: u64,
    pub routing: u64,
    /// `switch.credit_delay`: with the channel's time of flight ([`FlitNet::credit_after`]), how
    /// long after a buffer slot is freed it is usable upstream.
    pub credit: u64,
    pub whole_packet: bool,
    pub store_and_forward: bool,
    /// `switch.circuit_until_ack`, and an acknowledgement's backward link and switch times.
    pub circuits: bool,
    pub ack_link: u64,
    pub ack_switch: u64,
    /// The network runs as packet trains (`train.rs`).
    pub packet: bool,
    /// VCs per port.
    pub vcs: u32,
}

/// Something that happens in the flit network at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlitEvent {
    /// An output link may send its next flit (arbitration among its VCs).
    Service { chan: Channel },
    /// A flit of `worm`, a dropped packet, has arrived in its input buffer.
    FlitArrive { worm: WormId },
    /// A packet waiting for room behind output VC `vc` (cut-through, store-and-forward) may fit
    /// now that credits are back.
    RoomCheck { vc: VcId },
    /// The switch has decoded the header of `worm`, the front packet of input buffer `buf`.
    Route { worm: WormId, buf: VcId },
    /// Packet trains: branch `branch` sends its head on channel `chan` now that the link is free.
    TrainStart { branch: BranchId, chan: Channel },
    /// Packet trains: the branches of `worm` whose tail leaves now are done.
    TrainTail { worm: WormId },
    /// An acknowledgement has reached (and, at a switch, been combined at) the circuit end
    /// `circuit` (`switch.circuit_until_ack`).
    Ack { circuit: CircuitId },
}

impl Ranked for FlitEvent {
    #[inline]
    fn rank(self) -> Rank {
        match self {
            FlitEvent::Ack { circuit } => Rank::new(Phase::CircuitAck, circuit.raw()),
            FlitEvent::FlitArrive { worm } => Rank::new(Phase::FlitArrive, worm.raw()),
            FlitEvent::Route { buf, .. } => Rank::new(Phase::Decode, buf.raw()),
            FlitEvent::RoomCheck { vc } => Rank::new(Phase::RoomCheck, vc.raw()),
            FlitEvent::Service { chan } => Rank::new(Phase::LinkService, chan.0),
            // Packet trains (`train.rs`): what these do at their instant never depends on their
            // order among themselves, only on coming after every decode and room check.
            FlitEvent::TrainStart { chan, .. } => Rank::new(Phase::LinkService, chan.0),
            FlitEvent::TrainTail { worm } => Rank::new(Phase::TrainTail, worm.raw()),
        }
    }
}

/// Circuit ends awaiting acknowledgements, how many are open, and when the last acknowledgement
/// reached its sender.
#[derive(Default)]
pub(crate) struct Circuits {
    pub ends: Slab<CircuitId, Circuit>,
    pub open: u64,
    pub last_ack: Option<u64>,
}

/// Every piece of state of the flit network of one run.
pub(crate) struct FlitNet {
    pub(crate) timing: Timing,
    queue: EventQueue<FlitEvent>,
    /// Per channel: its serializer, and the time from a flit leaving its buffer to its arrival
    /// at the far end.
    ports: Vec<OutPort>,
    /// Per channel: one flit's serialization time (the link's own rate, or `link.bandwidth`).
    ser: Vec<u64>,
    delay: Vec<u64>,
    /// Per channel: its time of flight (`Params::channel_propagation_ps`), which credits cross too.
    prop: Vec<u64>,
    /// Per channel · V + vc: the sender's side of the VC and the buffer at its far end.
    outvcs: Vec<OutVc>,
    bufs: Vec<InBuf>,
    worms: Slab<WormId, Worm>,
    branches: Slab<BranchId, Branch>,
    circuits: Circuits,
    /// Packet-train state (empty at flit granularity).
    trains: Trains,
    stats: NetStats,
}

impl FlitNet {
    /// How long after a slot of buffer `buf` is freed the sender may use it: the credit crosses
    /// the buffer's channel back, then `switch.credit_delay`.
    #[inline(always)]
    pub(super) fn credit_after(&self, buf: VcId) -> u64 {
        self.timing.credit + self.prop[buf.chan(self.timing.vcs) as usize]
    }

    /// The network of `f` under `p`, flit by flit (`set_trains` switches a fresh one to trains).
    fn build(f: &Fabric, p: &Params) -> FlitNet {
        let flit = p.flit_ps();
        let timing = Timing {
            flit,
            routing: p.switch.routing_delay.ps(),
            credit: p.switch.credit_delay.ps(),
            whole_packet: p.switch.switching.needs_whole_packet(),
            store_and_forward: p.switch.switching == Switching::StoreAndForward,
            circuits: p.switch.circuit_until_ack,
            ack_link: p.link.propagation.ps(),
            ack_switch: p.switch.ack_delay.ps(),
            packet: false,
            vcs: p.switch.vcs as u32,
        };
        let v = timing.vcs as usize;
        let nc = f.num_channels();
        let ser = p.channel_flit_ps(f);
        let prop = p.channel_propagation_ps(f);
        let mut delay = Vec::with_capacity(nc);
        let mut outvcs = Vec::with_capacity(nc * v);
        for c in 0..nc {
            let (from, to) = f.channel_ends(Channel(c as u32));
            let xbar = if matches!(from, Terminal::Switch { .. }) { p.switch.crossbar_delay.ps() } else { 0 };
            delay.push(xbar + ser[c] + prop[c]);
            // An NI drains its link at line rate into its own memory: no credits towards it.
            let credits = match to {
                Terminal::Endpoint { .. } => Credits::unlimited(),
                Terminal::Switch { .. } => Credits::limited(p.switch.buffer_flits),
            };
            outvcs.extend((0..v).map(|_| OutVc::new(credits)));
        }
        FlitNet {
            timing,
            queue: EventQueue::default(),
            ports: vec![OutPort::default(); nc],
            ser,
            delay,
            prop,
            bufs: (0..nc * v).map(|_| InBuf::default()).collect(),
            outvcs,
            worms: Slab::default(),
            branches: Slab::default(),
            circuits: Circuits::default(),
            trains: Trains::default(),
            stats: NetStats::new(nc),
        }
    }

    /// Output VC `chan · V + vc`.
    #[inline]
    fn vc_id(&self, chan: Channel, vc: u32) -> VcId {
        VcId::of(chan.0, vc, self.timing.vcs)
    }

    /// A new worm of packet `pid` of message `msg` in buffer `buf` (`None`: NI memory), arrived
    /// through `node`. The caller holds the message for it.
    fn new_worm(
        &mut self,
        msg: MsgId,
        pid: crate::sim::ids::PacketId,
        node: Option<crate::sim::ids::NodeId>,
        buf: Option<VcId>,
        flits: u32,
    ) -> WormId {
        self.stats.in_flight += 1;
        self.worms.alloc(|w| {
            let mut branches = std::mem::take(&mut w.branches);
            let mut incoming = std::mem::take(&mut w.incoming);
            branches.clear();
            incoming.clear();
            *w = Worm { msg, pid, node, buf, flits, branches, incoming, alive: true, ..Worm::default() };
        })
    }

    fn new_branch(&mut self, worm: WormId, node: crate::sim::ids::NodeId) -> BranchId {
        let b = self.branches.alloc(|b| *b = Branch { worm, node, ..Branch::default() });
        self.worms[worm].branches.push(b);
        b
    }

    /// Output VC of branch `b`.
    #[inline]
    fn branch_vc(&self, cx: &NetCtx<'_>, b: BranchId) -> VcId {
        let node = cx.trees.node(self.branches[b].node);
        self.vc_id(node.chan, node.vc as u32)
    }

    /// Hands the tail of the copy through ejection node `node` to its NI at `at`.
    fn arrive(&mut self, cx: &mut NetCtx<'_>, arrival: Arrival, msg: MsgId) {
        cx.refs.hold(msg);
        cx.arrivals.push(arrival);
    }
}

impl Network for FlitNet {
    fn new(f: &Fabric, p: &Params, _classes: u32) -> FlitNet {
        FlitNet::build(f, p)
    }

    #[inline]
    fn next_key(&self) -> Option<u128> {
        self.queue.peek_key()
    }

    /// Inlined into the engine's loop (compiled for this model alone): a flit hop is a few
    /// dozen instructions, and a call per event would be a noticeable share of them.
    #[inline(always)]
    fn fire(&mut self, cx: &mut NetCtx<'_>) {
        let (_, ev) = self.queue.pop().expect("the engine fires a pending event");
        match ev {
            FlitEvent::Service { chan } => self.on_service(cx, chan),
            FlitEvent::FlitArrive { worm } if self.timing.packet => self.maybe_retire(cx, worm),
            FlitEvent::FlitArrive { worm } => self.on_flit_arrive(cx, worm),
            FlitEvent::TrainStart { branch, .. } => self.train_start(cx, branch),
            FlitEvent::TrainTail { worm } => self.train_tails(cx, worm),
            FlitEvent::RoomCheck { vc } => self.grant_waiter(cx, vc),
            FlitEvent::Route { worm, .. } => self.on_route(cx, worm),
            FlitEvent::Ack { circuit } => self.on_ack(cx, circuit),
        }
    }

    /// The NI hands a packet copy to its link: a worm in NI memory with one branch, the
    /// transmission's injection channel. It takes over the packet's hold on its message.
    fn inject(&mut self, cx: &mut NetCtx<'_>, p: Packet) {
        // The watchdog's clock restarts when the network had nothing in it; a packet joining
        // packets that are stuck does not count as progress (under load, new packets keep
        // arriving at the NIs of a deadlocked network).
        if self.stats.in_flight == 0 {
            self.stats.last_move = cx.now;
        }
        let w = self.new_worm(p.msg, p.pid, None, None, p.flits);
        self.worms[w].arrived = p.flits;
        self.worms[w].decode = Decode::Routed;
        let b = self.new_branch(w, p.root);
        if self.timing.circuits {
            self.open_circuit(cx, w);
        }
        self.request_vc(cx, b);
    }

    fn stats(&self) -> &NetStats {
        &self.stats
    }

    fn stats_mut(&mut self) -> &mut NetStats {
        &mut self.stats
    }

    fn buffered_flits(&self, now: u64) -> u64 {
        (0..self.bufs.len()).map(|b| self.held(now, VcId::from_index(b)) as u64).sum()
    }

    fn max_buffer(&self, now: u64) -> (u32, Option<VcId>) {
        let (mut max, mut at) = (self.stats.max_buf, self.stats.max_buf_at);
        for b in 0..self.bufs.len() {
            let h = self.held(now, VcId::from_index(b));
            if h > max {
                (max, at) = (h, Some(VcId::from_index(b)));
            }
        }
        (max, at)
    }

    fn diagnose(&self, now: u64, f: &Fabric, trees: &Trees) -> Diagnosis {
        diagnose::diagnose(self, now, f, trees)
    }

    /// The event queue, worms and branches in flight, the per-port state and the trace.
    /// Capacities are counted (what was allocated), not lengths; small inner lists are not, so
    /// it is a lower bound good to a small factor, which is what a budget against runaway growth
    /// needs.
    fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        let slab = |slots: usize, each: usize| (slots * each) as u64;
        self.queue.heap_bytes()
            + slab(self.worms.slots(), size_of::<Worm>())
            + slab(self.branches.slots(), size_of::<Branch>())
            + slab(self.bufs.len(), size_of::<InBuf>())
            + slab(self.ports.len(), size_of::<OutPort>())
            + slab(self.outvcs.len(), size_of::<OutVc>())
            + self.stats.trace_bytes()
    }

    fn set_trains(&mut self, on: bool) {
        self.timing.packet = on;
        self.trains = if on { Trains::new(self.outvcs.len()) } else { Trains::default() };
    }

    /// Whether the network runs as packet trains.
    #[inline]
    fn trains_on(&self) -> bool {
        self.timing.packet
    }

    /// At packet granularity: whether another buffer reached the largest occupancy at the same
    /// instant as `max_buffer_at` (the flit engine would name the one whose event ran first).
    fn max_buffer_tied(&self) -> bool {
        self.trains.max_tied
    }

    /// The time the flit engine's last event would have: at packet granularity, its service one
    /// flit time after the last tail on a channel (kept as a time, not an event).
    fn drained_at(&self, now: u64) -> u64 {
        if self.timing.packet {
            now.max(self.trains.last_service)
        } else {
            now
        }
    }

    /// At packet granularity: a channel sends flit `i` of a packet that started at `s` at
    /// `s + i·flit`, and its port is busy until one flit time after the tail, so the flits still
    /// due at `now` (the flit engine has run the events before `now`, not those at it) are
    /// `⌊(busy_until − now) / flit⌋` while the port is busy (one packet at a time per channel:
    /// trains use VC 0 only).
    fn link_flits_at(&self, now: u64) -> std::borrow::Cow<'_, [u64]> {
        use std::borrow::Cow;
        if !self.timing.packet || self.trains.last_service <= now {
            return Cow::Borrowed(&self.stats.link_flits);
        }
        let f = self.timing.flit;
        let sent = self
            .stats
            .link_flits
            .iter()
            .zip(&self.ports)
            .map(|(&n, p)| n - p.busy_until.saturating_sub(now) / f)
            .collect();
        Cow::Owned(sent)
    }

    fn service_due(&self, now: u64) -> bool {
        self.timing.packet && self.trains.last_service >= now
    }

    /// With circuits: when the last combined acknowledgement reached its sender, once every
    /// circuit has closed.
    fn acked(&self) -> Option<u64> {
        self.circuits.last_ack.filter(|_| self.circuits.open == 0)
    }
}
