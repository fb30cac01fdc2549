//! Network models: how packet copies handed over by the NIs cross links and switches until their
//! tails reach NIs again.
//!
//! The contract ([`Network`]) is small: a model takes a [`Packet`] from an NI (`inject`), keeps
//! its own events in its own queue and handles them when the engine says their time has come
//! (`next_key`, `fire`), hands every tail that reaches an NI back as an [`Arrival`], holds the
//! message of every packet copy inside it (so a message is not finished while part of it is in
//! the network), keeps the counters results are made of ([`NetStats`]), and explains a stall
//! (`diagnose`). It never sees the endpoints, messages or measurement; it reads the replication
//! trees the plans decode to (`sim::trees`), which say where each copy goes at each switch.
//!
//! | model | folder | what |
//! |---|---|---|
//! | [`FlitNet`] | `flit/` | the event-driven router: flits, credits, wormhole / cut-through / store-and-forward, replication with independent branches, packet trains, Quadrics gangs and circuits |
//! | [`IqNet`] | `iq/` | BookSim's input-queued VC router, cycle by cycle |
//!
//! The engine is generic over the model (`sim::engine::Core<N>`), so each model's hot loop is
//! compiled on its own and no event pays for a choice between models; `switch.router` picks the
//! model once per run (`sim::engine`, the registry of models).

mod choice;
pub(crate) mod flit;
pub(crate) mod iq;
mod waits;

use super::ids::{MsgId, NodeId, PacketId, VcId};
use super::params::Params;
use super::refs::MessageRefs;
use super::result::{Diagnosis, FlitRecord};
use super::trees::Trees;
use crate::fabric::{Channel, Fabric, Terminal};
pub(crate) use flit::FlitNet;
pub(crate) use iq::IqNet;

/// A packet copy an NI hands to the network. It carries one hold on its message, which the
/// network takes over.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet {
    pub msg: MsgId,
    pub pid: PacketId,
    /// The injection node of its transmission's replication tree.
    pub root: NodeId,
    pub flits: u32,
}

/// What a network hands to the endpoints: the tail of a copy reaches the NI behind tree node
/// `node` at `at`. Each carries one hold on its message per copy.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arrival {
    /// One copy, through ejection node `node`.
    Tail { at: u64, msg: MsgId, pid: PacketId, node: NodeId },
    /// Every copy the switch behind node `node` ejects, together (packet trains).
    Tails { at: u64, msg: MsgId, pid: PacketId, node: NodeId },
}

/// What a network is lent while it handles an event or an injection.
pub(crate) struct NetCtx<'c> {
    pub now: u64,
    pub trees: &'c Trees,
    pub refs: &'c mut MessageRefs,
    pub arrivals: &'c mut Vec<Arrival>,
}

/// Counters every network keeps, for results and measurement.
#[derive(Clone, Debug, Default)]
pub(crate) struct NetStats {
    /// Per channel: flits and packets sent on it.
    pub link_flits: Vec<u64>,
    pub link_packets: Vec<u64>,
    /// Flit transfers over channels, summed.
    pub flit_hops: u64,
    /// Packet copies inside the network (in NI send queues or switch buffers).
    pub in_flight: u64,
    /// When a flit last moved (the deadlock watchdog's clock).
    pub last_move: u64,
    /// The largest occupancy of any input buffer so far, and which (peaks are recorded as slots
    /// are freed; `max_buffer` adds what the buffers hold when a run stops).
    pub max_buf: u32,
    pub max_buf_at: Option<VcId>,
    /// Every flit sent, when asked for (`Simulation::record_flits`).
    pub trace: Option<Vec<FlitRecord>>,
}

impl NetStats {
    pub(crate) fn new(channels: usize) -> NetStats {
        NetStats { link_flits: vec![0; channels], link_packets: vec![0; channels], ..NetStats::default() }
    }

    /// `heads` head flits leave on channel `chan` (0 or 1: callers that have no branch on the head
    /// add the test's value, since one was mispredicted about one time in six; the iq router
    /// counts in the branch it takes for a head, so a body flit does not touch the counts).
    #[inline(always)]
    pub(crate) fn count_heads(&mut self, chan: Channel, heads: u64) {
        self.link_packets[chan.idx()] += heads;
    }

    /// Flit `flit` of a packet copy leaves on channel `chan` at `now` (its packet is counted by
    /// [`NetStats::count_heads`]). Its VC and the copy (message, copy) that `id` names are asked
    /// for only when the trace is on: the iq router keeps them off a body flit's path (the VC's
    /// number on its channel took a lookup and a multiplication per flit).
    #[inline(always)]
    pub(crate) fn count_flit(
        &mut self,
        now: u64,
        chan: Channel,
        flit: u32,
        id: impl FnOnce() -> (u32, MsgId, PacketId),
    ) {
        self.link_flits[chan.idx()] += 1;
        self.flit_hops += 1;
        self.last_move = now;
        if let Some(t) = &mut self.trace {
            let (vc, msg, pid) = id();
            t.push(FlitRecord { time: now, channel: chan.0, vc: vc as u8, msg: msg.raw(), pid: pid.0, flit });
        }
    }

    /// A buffer now holds `n` flits: the largest occupancy so far?
    #[inline]
    pub(crate) fn note_occupancy(&mut self, n: u32, buf: VcId) {
        if n > self.max_buf {
            self.max_buf = n;
            self.max_buf_at = Some(buf);
        }
    }

    /// Bytes of the trace, for the memory budget.
    pub(crate) fn trace_bytes(&self) -> u64 {
        self.trace.as_ref().map_or(0, |t| (t.capacity() * std::mem::size_of::<FlitRecord>()) as u64)
    }
}

/// A network model.
pub(crate) trait Network: Sized {
    /// The model for fabric `f` under `p`, with `classes` VC classes of routing, flit by flit.
    fn new(f: &Fabric, p: &Params, classes: u32) -> Self;
    /// The key (time, rank) of its next event.
    fn next_key(&self) -> Option<u128>;
    /// Handles its next event, at `cx.now`.
    fn fire(&mut self, cx: &mut NetCtx<'_>);
    /// Takes a packet copy from its sender's NI now.
    fn inject(&mut self, cx: &mut NetCtx<'_>, p: Packet);
    fn stats(&self) -> &NetStats;
    fn stats_mut(&mut self) -> &mut NetStats;
    /// Flits in switch buffers now, counting arrivals not yet taken in.
    fn buffered_flits(&self, now: u64) -> u64;
    /// The largest buffer occupancy so far (with what the buffers hold now) and where.
    fn max_buffer(&self, now: u64) -> (u32, Option<VcId>);
    /// Why nothing moves: which buffers wait for which, and a cycle among them if there is one.
    fn diagnose(&self, now: u64, f: &Fabric, trees: &Trees) -> Diagnosis;
    /// Bytes its state holds, for the memory budget.
    fn memory_bytes(&self) -> u64;

    // What only some models do; the others keep these defaults.

    /// Switches a fresh network to packet trains (`switch.granularity`), or back.
    fn set_trains(&mut self, _on: bool) {}
    /// Whether it runs as packet trains.
    fn trains_on(&self) -> bool {
        false
    }
    /// At packet granularity: whether two buffers reached the largest occupancy at one instant.
    fn max_buffer_tied(&self) -> bool {
        false
    }
    /// The time of the run's last event once its queue is empty (packet trains keep the flit
    /// engine's last link service as a time, not an event).
    fn drained_at(&self, now: u64) -> u64 {
        now
    }
    /// Flits sent on each channel before `now`, as the flit engine counts them at that instant
    /// (packet trains count a packet's flits when it starts, so they take back those still due).
    fn link_flits_at(&self, _now: u64) -> std::borrow::Cow<'_, [u64]> {
        std::borrow::Cow::Borrowed(&self.stats().link_flits)
    }
    /// Whether a link event the flit engine would still have scheduled at `now` (or later) is
    /// kept by this model as a time rather than an event (packet trains: the service one flit
    /// time after a tail).
    fn service_due(&self, _now: u64) -> bool {
        false
    }
    /// With circuits held until acknowledgements: when the last combined acknowledgement reached
    /// its sender, once every circuit has closed.
    fn acked(&self) -> Option<u64> {
        None
    }
}

/// Describes input buffer `buf` as `switch[port] vc v`, or the NI it leads into.
pub(crate) fn buffer_name(f: &Fabric, vcs: u32, buf: VcId) -> String {
    let (_, to) = f.channel_ends(Channel(buf.chan(vcs)));
    let vc = buf.vc(vcs);
    match to {
        Terminal::Switch { .. } => format!("{} vc {vc}", f.terminal_str(&to)),
        Terminal::Endpoint { .. } => format!("NI of {}", f.terminal_str(&to)),
    }
}
