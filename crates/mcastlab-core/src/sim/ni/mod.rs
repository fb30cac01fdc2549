//! Endpoints: hosts, NIs, their I/O bus and the messages they send — everything on the far side of
//! the network's links.
//!
//! The contract with the engine: a message starts at a host (`start_message`, from a template the
//! engine built with `add_template`); the endpoints keep their own events in their own queue
//! (`next_key`, `fire`); the packet copies their NIs hand to the network come out as
//! [`Packet`]s, each holding its message; the tails the network brings back come in as
//! [`Arrival`]s (`arrive`); a message that nothing holds any more is finished (`finish_message`)
//! and recorded for the caller. The endpoints never see links, switches or measurement.
//!
//! | file | what |
//! |---|---|
//! | `server.rs` | host, NI and DMA servers: jobs, their costs, first come first served |
//! | `send.rs` | what NIs and hosts do with packets: send orders, forwarding triggers, delivery |
//! | `protocol/` | NI send protocols (`ni.send`), one file each, registered in one list |
//! | `program.rs` | templates: plans made ready for timing, shared by every message that follows one |
//! | `message.rs` | messages under way, and the records of finished ones |

mod message;
mod program;
pub(crate) mod protocol;
mod send;
mod server;

pub(crate) use message::Completed;
pub(crate) use program::Template;

use super::ids::{MsgId, NodeId, PacketId, TemplateId};
use super::net::{Arrival, Packet};
use super::params::Params;
use super::queue::{EventQueue, Phase, Rank, Ranked};
use super::refs::MessageRefs;
use super::slab::Slab;
use super::trees::Trees;
use super::units::Rate;
use crate::ids::EndpointId;
use crate::plan::Plan;
use message::{refill, Msg};
use program::Program;
use protocol::{Protocol, Protocols};
use server::{Endpoint, Job, Unit};

/// Something that happens at the endpoints at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NiEvent {
    /// The tail of copy `pid` of message `msg` has reached the NI behind tree node `node`.
    Tail { msg: MsgId, pid: PacketId, node: NodeId },
    /// Packet trains: every copy that tree node `node`'s switch ejects reaches its NI.
    Tails { msg: MsgId, pid: PacketId, node: NodeId },
    /// An endpoint's host, NI or DMA engine finished its current job.
    Done { ep: EndpointId, unit: Unit },
}

impl Ranked for NiEvent {
    #[inline]
    fn rank(self) -> Rank {
        match self {
            NiEvent::Tail { node, .. } | NiEvent::Tails { node, .. } => Rank::new(Phase::NiTail, node.raw()),
            NiEvent::Done { ep, unit } => Rank::new(Phase::EndpointJob, ep.0 * 3 + unit as u32),
        }
    }
}

/// What the endpoints are lent while they handle an event or start a message.
pub(crate) struct NiCtx<'c> {
    pub now: u64,
    pub trees: &'c Trees,
    pub refs: &'c mut MessageRefs,
    /// Packet copies handed to the network, in order.
    pub injections: &'c mut Vec<Packet>,
}

/// The host, NI and I/O bus costs of a run, and how its messages are cut into packets.
#[derive(Clone, Debug)]
pub(crate) struct Costs {
    pub t_hs: u64,
    pub t_hr: u64,
    pub t_ns: u64,
    pub t_nr: u64,
    pub dma: Rate,
    pub message_bytes: u64,
    /// Packets per message.
    pub packets: u32,
    params: Params,
}

impl Costs {
    pub(crate) fn new(params: &Params, message_bytes: u64) -> Costs {
        Costs {
            t_hs: params.host.t_hs.ps(),
            t_hr: params.host.t_hr.ps(),
            t_ns: params.ni.t_ns.ps(),
            t_nr: params.ni.t_nr.ps(),
            dma: params.ni.dma_bandwidth,
            message_bytes,
            packets: params.packets_for(message_bytes),
            params: params.clone(),
        }
    }

    /// Payload bytes of packet `j` of a message.
    #[inline]
    pub(crate) fn packet_bytes(&self, j: u32) -> u64 {
        self.params.packet_bytes(self.message_bytes, j)
    }

    /// Flits of packet `j` of a message.
    #[inline]
    pub(crate) fn flits(&self, j: u32) -> u32 {
        self.params.flits_for(self.packet_bytes(j))
    }

    /// Every cost is zero and the I/O bus is left out: jobs take no time.
    pub(crate) fn free(&self) -> bool {
        self.t_hs == 0 && self.t_hr == 0 && self.t_ns == 0 && self.t_nr == 0 && self.dma.is_unlimited()
    }
}

/// Per-endpoint counts of what happened, for results.
#[derive(Clone, Debug, Default)]
pub(crate) struct EndpointStats {
    /// When each host first had a whole message, and how many it had.
    pub first_delivery: Vec<Option<u64>>,
    pub deliveries: Vec<u32>,
    /// Packets each NI received.
    pub packets_at: Vec<u32>,
    /// Packet copies the NIs sent and received.
    pub packets_sent: u64,
    pub packets_received: u64,
}

/// Every endpoint of a run and the messages under way.
pub(crate) struct Endpoints {
    eps: Vec<Endpoint>,
    queue: EventQueue<NiEvent>,
    prog: Program,
    msgs: Slab<MsgId, Msg>,
    next_serial: u64,
    /// Records of finished messages, kept for a workload run to collect (`None`: not kept).
    completed: Option<Vec<Completed>>,
    protocol: Protocols,
    costs: Costs,
    /// Jobs finish as they are queued instead of through events (zero costs under packet trains:
    /// `Endpoints::set_inline`).
    inline: bool,
    stats: EndpointStats,
}

impl Endpoints {
    pub(crate) fn new(endpoints: usize, params: &Params, message_bytes: u64) -> Endpoints {
        Endpoints {
            eps: vec![Endpoint::default(); endpoints],
            queue: EventQueue::default(),
            prog: Program::default(),
            msgs: Slab::default(),
            next_serial: 0,
            completed: None,
            protocol: Protocols::new(params, endpoints),
            costs: Costs::new(params, message_bytes),
            inline: false,
            stats: EndpointStats {
                first_delivery: vec![None; endpoints],
                deliveries: vec![0; endpoints],
                packets_at: vec![0; endpoints],
                ..EndpointStats::default()
            },
        }
    }

    /// Starts the endpoints over, fresh, keeping the templates (the static program).
    pub(crate) fn restart(&mut self, params: &Params) {
        let prog = std::mem::take(&mut self.prog);
        let keep = self.completed.is_some();
        *self = Endpoints::new(self.eps.len(), params, self.costs.message_bytes);
        self.prog = prog;
        self.completed = keep.then(Vec::new);
    }

    pub(crate) fn costs(&self) -> &Costs {
        &self.costs
    }

    pub(crate) fn stats(&self) -> &EndpointStats {
        &self.stats
    }

    /// Host, NI and DMA busy time of endpoint `e` so far, picoseconds.
    pub(crate) fn busy(&self, e: usize) -> (u64, u64, u64) {
        let x = &self.eps[e];
        (x.host.busy_ps, x.ni.busy_ps, x.dma.busy_ps)
    }

    pub(crate) fn template(&self, t: TemplateId) -> &Template {
        self.prog.template(t)
    }

    /// Keeps the records of finished messages for the caller (`take_completed`).
    pub(crate) fn keep_completed(&mut self) {
        self.completed = Some(Vec::new());
    }

    /// The records of the messages finished since the last call, in the order they finished.
    pub(crate) fn take_completed(&mut self) -> Vec<Completed> {
        self.completed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Zero-cost jobs finish as they are queued, in order, as their `Done` events at this instant
    /// would (packet trains with free endpoints: `granularity.rs` in `net::flit`).
    pub(crate) fn set_inline(&mut self, on: bool) {
        self.inline = on;
    }

    /// Makes `plan` (its trees already appended to `trees` from transmission `tx0` and node
    /// `node0` on) available to messages; returns its template.
    pub(crate) fn add_template(&mut self, plan: &Plan, trees: &Trees, tx0: u32, node0: u32) -> TemplateId {
        self.prog.add(plan, trees, tx0, node0, self.costs.packets)
    }

    /// Creates a message of template `tpl` now: the source's host starts its sends. Returns the
    /// message's serial number (creation order, from 0).
    pub(crate) fn start_message(&mut self, cx: &mut NiCtx<'_>, tpl: TemplateId) -> u64 {
        let serial = self.next_serial;
        self.next_serial += 1;
        let t = self.prog.template(tpl);
        let (m, now) = (self.costs.packets as usize, cx.now);
        let (ntx, nodes, nd, ns) = (t.ntx as usize, t.nnodes as usize, t.destinations.len(), t.senders.len());
        let msg = self.msgs.alloc(|x| {
            x.tpl = tpl;
            x.serial = serial;
            x.created = now;
            refill(&mut x.avail, ntx * m, false);
            refill(&mut x.got, nodes, 0);
            refill(&mut x.host_started, ntx, false);
            refill(&mut x.cursor, ns, 0);
            refill(&mut x.latency, nd, None);
            refill(&mut x.deliveries, nd, 0);
            refill(&mut x.packets, nd, 0);
            x.extra_deliveries = 0;
            x.extra_packets = 0;
        });
        cx.refs.start(msg);
        self.protocol.message_started(msg, ntx * m);
        let t = self.prog.template(tpl);
        let (tx0, src) = (t.tx0, t.source);
        for k in 0..t.start_tx.len() {
            let tx = self.prog.template(tpl).start_tx[k];
            self.msgs[msg].host_started[(tx.raw() - tx0) as usize] = true;
        }
        for k in 0..self.prog.template(tpl).start_groups.len() {
            let group = self.prog.template(tpl).start_groups[k];
            self.enqueue(cx, src, Unit::Host, Job::HostSend { msg, group });
        }
        cx.refs.finish_if_idle(msg); // a plan with nothing to send
        serial
    }

    /// Message `msg` is finished: its record goes to the caller (if kept) and its slot is reused.
    pub(crate) fn finish_message(&mut self, msg: MsgId, now: u64) {
        if let Some(out) = &mut self.completed {
            let x = &mut self.msgs[msg];
            out.push(Completed {
                serial: x.serial,
                tpl: x.tpl,
                created: x.created,
                finished: now,
                latency: x.latency.clone(),
                deliveries: x.deliveries.clone(),
                packets: x.packets.clone(),
                extra_deliveries: x.extra_deliveries,
                extra_packets: x.extra_packets,
            });
        }
        self.msgs.release(msg);
    }

    /// The key (time, rank) of the endpoints' next event.
    #[inline]
    pub(crate) fn next_key(&self) -> Option<u128> {
        self.queue.peek_key()
    }

    /// Handles the next event, at `cx.now`.
    pub(crate) fn fire(&mut self, cx: &mut NiCtx<'_>) {
        let (_, ev) = self.queue.pop().expect("the engine fires a pending event");
        match ev {
            NiEvent::Tail { msg, pid, node } => self.on_tail(cx, msg, pid, node),
            NiEvent::Tails { msg, pid, node } => {
                let nd = cx.trees.node(node);
                for &child in cx.trees.children(nd) {
                    if cx.trees.node(child).eject.is_some() {
                        self.on_tail(cx, msg, pid, child);
                    }
                }
            }
            NiEvent::Done { ep, unit } => self.on_done(cx, ep, unit),
        }
    }

    /// A tail the network brings: it reaches its NI at the time it says.
    pub(crate) fn arrive(&mut self, a: Arrival) {
        match a {
            Arrival::Tail { at, msg, pid, node } => self.queue.push(at, NiEvent::Tail { msg, pid, node }),
            Arrival::Tails { at, msg, pid, node } => self.queue.push(at, NiEvent::Tails { msg, pid, node }),
        }
    }

    /// Bytes held: the event queue, messages, endpoints and kept records (capacities).
    pub(crate) fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        self.queue.heap_bytes()
            + (self.msgs.slots() * size_of::<Msg>()) as u64
            + (self.eps.len() * size_of::<Endpoint>()) as u64
            + self.completed.as_ref().map_or(0, |c| (c.capacity() * size_of::<Completed>()) as u64)
    }
}
