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
//! [`Net`] is the registry: one variant per model, chosen by `switch.router`, dispatched
//! statically (a `match`, no virtual call per event).

pub(crate) mod flit;
pub(crate) mod iq;
mod waits;

use super::ids::{MsgId, NodeId, PacketId, VcId};
use super::params::{Params, Router};
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

    /// Flit `flit` of copy `pid` of `msg` leaves on channel `chan`, VC `vc`, at `now`.
    #[inline]
    pub(crate) fn count_flit(&mut self, now: u64, chan: Channel, vc: u32, msg: MsgId, pid: PacketId, flit: u32) {
        self.link_flits[chan.idx()] += 1;
        if flit == 0 {
            self.link_packets[chan.idx()] += 1;
        }
        self.flit_hops += 1;
        self.last_move = now;
        if let Some(t) = &mut self.trace {
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
pub(crate) trait Network {
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
}

/// The network of a run: one of the models. The flit network, the common one, stays inline (no
/// indirection per event); the iq network is boxed.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Net {
    Flit(FlitNet),
    Iq(Box<IqNet>),
}

impl Net {
    /// The model `params.switch.router` names, for `f` with `classes` VC classes of routing.
    pub(crate) fn new(f: &Fabric, params: &Params, classes: u32) -> Net {
        match params.switch.router {
            Router::Simple => Net::Flit(FlitNet::new(f, params)),
            Router::Iq => Net::Iq(Box::new(IqNet::new(f, params, classes))),
        }
    }

    /// The flit network (the only one with packet trains, circuits and gangs), if it runs.
    pub(crate) fn as_flit(&self) -> Option<&FlitNet> {
        match self {
            Net::Flit(n) => Some(n),
            Net::Iq(_) => None,
        }
    }

    pub(crate) fn as_flit_mut(&mut self) -> Option<&mut FlitNet> {
        match self {
            Net::Flit(n) => Some(n),
            Net::Iq(_) => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $n:ident => $e:expr) => {
        match $self {
            Net::Flit($n) => $e,
            Net::Iq($n) => $e,
        }
    };
}

impl Network for Net {
    #[inline]
    fn next_key(&self) -> Option<u128> {
        dispatch!(self, n => n.next_key())
    }
    #[inline]
    fn fire(&mut self, cx: &mut NetCtx<'_>) {
        dispatch!(self, n => n.fire(cx))
    }
    #[inline]
    fn inject(&mut self, cx: &mut NetCtx<'_>, p: Packet) {
        dispatch!(self, n => n.inject(cx, p))
    }
    fn stats(&self) -> &NetStats {
        dispatch!(self, n => n.stats())
    }
    fn stats_mut(&mut self) -> &mut NetStats {
        dispatch!(self, n => n.stats_mut())
    }
    fn buffered_flits(&self, now: u64) -> u64 {
        dispatch!(self, n => n.buffered_flits(now))
    }
    fn max_buffer(&self, now: u64) -> (u32, Option<VcId>) {
        dispatch!(self, n => n.max_buffer(now))
    }
    fn diagnose(&self, now: u64, f: &Fabric, trees: &Trees) -> Diagnosis {
        dispatch!(self, n => n.diagnose(now, f, trees))
    }
    fn memory_bytes(&self) -> u64 {
        dispatch!(self, n => n.memory_bytes())
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
