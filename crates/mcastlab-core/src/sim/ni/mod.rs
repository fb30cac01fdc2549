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
//! | `protocol/` | NI protocols (`ni.send`: pipelined, step, LFC, FM/MC), one file or folder each, registered in one list |
//! | `costs.rs` | host, NI and I/O bus costs, packetization |
//! | `stats.rs` | counts for results, oral's host metrics |
//! | `program.rs` | templates: plans made ready for timing, shared by every message that follows one |
//! | `message.rs` | messages under way, and the records of finished ones |

mod costs;
mod message;
mod program;
pub(crate) mod protocol;
mod send;
mod server;
mod stats;

pub(crate) use costs::Costs;
pub(crate) use message::Completed;
pub(crate) use program::Template;
pub(crate) use stats::EndpointStats;

use super::ids::{ControlId, MsgId, NodeId, PacketId, TemplateId};
use super::net::{Arrival, Packet};
use super::params::Params;
use super::queue::{key, EventQueue, Phase, Rank, Ranked};
use super::refs::MessageRefs;
use super::slab::Slab;
use super::trees::{Decoded, Trees};
use crate::ids::EndpointId;
use crate::plan::Plan;
use message::{refill, Msg, TxState};
use program::{Place, Program};
pub use protocol::lfc::LfcStats;
pub(crate) use protocol::lfc::Wait;
pub use protocol::FmmcStats;
use protocol::{Action, Control, Protocol, Protocols};
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
    /// A protocol's control packet reaches its NI.
    Control { id: ControlId },
    /// A protocol's timer for an NI.
    Wake { ep: EndpointId },
}

impl Ranked for NiEvent {
    #[inline]
    fn rank(self) -> Rank {
        match self {
            NiEvent::Tail { node, .. } | NiEvent::Tails { node, .. } => Rank::new(Phase::NiTail, node.raw()),
            NiEvent::Done { ep, unit } => Rank::new(Phase::EndpointJob, ep.0 * 3 + unit as u32),
            NiEvent::Control { id } => Rank::new(Phase::NiControl, id.raw()),
            NiEvent::Wake { ep } => Rank::new(Phase::NiWake, ep.0),
        }
    }
}

/// The endpoints' pending events: a heap, and beside it, sorted, the `Done` events of jobs that
/// take no time. Under BookSim's presets every host, NI and DMA job is free, so six of a unicast's
/// seven endpoint events finish at the instant they are queued; a short sorted list takes them
/// more cheaply than the heap. Both are merged by key (time, rank), and no two pending events
/// share a key (a server has at most one job running), so events fire in exactly the order one
/// heap of them all would give.
#[derive(Default)]
struct Pending {
    heap: EventQueue<NiEvent>,
    /// (key, event), largest key first: the next one is at the end.
    instant: Vec<(u128, NiEvent)>,
}

impl Pending {
    #[inline]
    fn push(&mut self, time: u64, ev: NiEvent) {
        self.heap.push(time, ev);
    }

    /// `push` for a job that ends at the instant it starts (its list stays short: jobs queued
    /// while others of the instant are pending). Every job of a message under free endpoints
    /// comes through here: forced inline, since as a call it costs more than it does.
    #[inline(always)]
    fn push_instant(&mut self, time: u64, ev: NiEvent) {
        let k = key(time, ev.rank());
        // Most often the list is empty, or the new job comes before every pending one (a job a
        // `Done` queues at its own endpoint): it goes at the end, with no search and no shift.
        if self.instant.last().is_none_or(|&(x, _)| x > k) {
            return self.instant.push((k, ev));
        }
        let at = self.instant.partition_point(|&(x, _)| x > k);
        self.instant.insert(at, (k, ev));
    }

    #[inline]
    fn peek_key(&self) -> Option<u128> {
        match (self.heap.peek_key(), self.instant.last()) {
            (Some(h), Some(&(i, _))) => Some(h.min(i)),
            (h, i) => h.or(i.map(|&(k, _)| k)),
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<NiEvent> {
        match (self.heap.peek_key(), self.instant.last()) {
            (Some(h), Some(&(i, _))) if i < h => self.instant.pop().map(|(_, ev)| ev),
            (None, Some(_)) => self.instant.pop().map(|(_, ev)| ev),
            _ => self.heap.pop().map(|(_, ev)| ev),
        }
    }

    fn heap_bytes(&self) -> u64 {
        self.heap.heap_bytes() + (self.instant.capacity() * std::mem::size_of::<(u128, NiEvent)>()) as u64
    }
}

/// What the endpoints are lent while they handle an event or start a message.
pub(crate) struct NiCtx<'c> {
    pub now: u64,
    pub trees: &'c Trees,
    pub refs: &'c mut MessageRefs,
    /// Packet copies handed to the network, in order.
    pub injections: &'c mut Vec<Packet>,
    /// The key of the network's next event (`fire` runs the endpoints' events due before it).
    pub net_key: Option<u128>,
    /// How many more events `fire` may run after the one it was called for (the engine's event
    /// count allows no more before its next check), and how many it ran.
    pub more: u64,
    pub ran: u64,
}

/// Every endpoint of a run and the messages under way.
pub(crate) struct Endpoints {
    eps: Vec<Endpoint>,
    queue: Pending,
    prog: Program,
    msgs: Slab<MsgId, Msg>,
    next_serial: u64,
    /// Records of finished messages, kept for a workload run to collect (`None`: not kept).
    completed: Option<Vec<Completed>>,
    /// Records the caller has read and handed back (`give_back`), whose lists the next finishing
    /// messages take over.
    spare: Vec<Completed>,
    protocol: Protocols,
    /// What the protocol asked for and the endpoints have not yet done.
    actions: Vec<Action>,
    /// Control packets under way: (from, to, what).
    controls: Slab<ControlId, Option<(EndpointId, EndpointId, Control)>>,
    costs: Costs,
    /// Every job takes no time (`Costs::free`, BookSim's presets): a job's length is not looked up.
    free: bool,
    /// Jobs finish as they are queued instead of through events (zero costs under packet trains:
    /// `Endpoints::set_inline`).
    inline: bool,
    stats: EndpointStats,
}

impl Endpoints {
    pub(crate) fn new(endpoints: usize, params: &Params, message_bytes: u64) -> Endpoints {
        let costs = Costs::new(params, message_bytes);
        Endpoints {
            eps: vec![Endpoint::default(); endpoints],
            queue: Pending::default(),
            prog: Program::default(),
            msgs: Slab::default(),
            next_serial: 0,
            completed: None,
            spare: Vec::new(),
            protocol: Protocols::new(params, endpoints),
            actions: Vec::new(),
            controls: Slab::default(),
            free: costs.free(),
            costs,
            inline: false,
            stats: EndpointStats {
                first_delivery: vec![None; endpoints],
                deliveries: vec![0; endpoints],
                packets_at: vec![0; endpoints],
                host_send_end: vec![None; endpoints],
                own_taken: vec![0; endpoints],
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
        self.prog.forget_messages();
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
        let [host, ni, dma] = &self.eps[e].servers;
        (host.busy_ps, ni.busy_ps, dma.busy_ps)
    }

    pub(crate) fn template(&self, t: TemplateId) -> &Template {
        self.prog.template(t)
    }

    /// Keeps the records of finished messages for the caller (`take_completed`).
    pub(crate) fn keep_completed(&mut self) {
        self.completed = Some(Vec::new());
    }

    /// Moves the records of the messages finished since the last call, in the order they
    /// finished, to the end of `into`.
    pub(crate) fn take_completed(&mut self, into: &mut Vec<Completed>) {
        if let Some(c) = &mut self.completed {
            // The caller's list is empty at every call: the lists trade places rather than the
            // records being copied (a `memcpy` call here and one in `give_back` per collection
            // were 2.3 M instructions of BookSim's mesh at 0.1, 1.83 G in all).
            if into.is_empty() {
                std::mem::swap(into, c);
            } else {
                into.append(c);
            }
        }
    }

    /// Whether records of finished messages wait for `take_completed`.
    #[inline]
    pub(crate) fn any_completed(&self) -> bool {
        self.completed.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// Takes back records the caller has read (emptying `done`), for finishing messages to reuse.
    pub(crate) fn give_back(&mut self, done: &mut Vec<Completed>) {
        // Finishing messages have mostly used up the spares by now: trade lists, as above.
        if self.spare.is_empty() {
            std::mem::swap(&mut self.spare, done);
        } else {
            self.spare.append(done);
        }
    }

    /// Zero-cost jobs finish as they are queued, in order, as their `Done` events at this instant
    /// would (packet trains with free endpoints: `granularity.rs` in `net::flit`).
    pub(crate) fn set_inline(&mut self, on: bool) {
        // A protocol with its own queues reacts to a copy leaving only after the copy's
        // receiver has set up its buffer, which needs the jobs' own events.
        self.inline = on && !self.protocol.keeps_queues();
    }

    /// What LFC counted, when the run uses it.
    pub(crate) fn lfc_stats(&self) -> Option<LfcStats> {
        self.protocol.lfc().map(|l| l.stats().with_messages(self.stats.messages))
    }

    /// What FM/MC counted, when the run uses it.
    pub(crate) fn fmmc_stats(&self) -> Option<FmmcStats> {
        self.protocol.fmmc().map(|f| f.stats().clone())
    }

    /// Things waiting on the protocol (LFC's blocked copies, FM/MC's held-back packets): with
    /// nothing else left to happen, a deadlock of the endpoints.
    pub(crate) fn blocked_copies(&self) -> usize {
        self.protocol.waiting()
    }

    /// FM/MC: hosts holding packets back for credits, and the manager's smallest free count.
    pub(crate) fn credit_manager_waits(&self) -> Option<(Vec<(EndpointId, u32)>, u32)> {
        self.protocol.fmmc().map(|f| f.waits())
    }

    /// The NIs waiting for credits, and a cycle of such waits if there is one.
    pub(crate) fn credit_waits(&self) -> (Vec<Wait>, Vec<EndpointId>) {
        self.protocol.lfc().map(|l| l.waits()).unwrap_or_default()
    }

    /// Where a template of `plan`, whose trees take `d`, goes: the place of a retired template of
    /// its shape, or the end of every table.
    pub(crate) fn place_for(&mut self, plan: &Plan, trees: &Trees, d: &Decoded) -> Place {
        let end = trees.end_span(d);
        let groups = program::groups_needed(plan);
        self.prog.reusable(end.ntx, end.nnodes, groups).unwrap_or_else(|| self.prog.end_place(end))
    }

    /// Retires template `tpl` when no message of it is under way (`Program::retire`): the next
    /// template of its shape takes its id and place. Returns whether it did.
    pub(crate) fn retire(&mut self, tpl: TemplateId) -> bool {
        self.prog.retire(tpl)
    }

    /// Makes `plan` (its trees already placed in `trees` at `at.span`) available to messages;
    /// returns its template.
    pub(crate) fn add_template(
        &mut self,
        plan: &Plan,
        trees: &Trees,
        at: Place,
    ) -> Result<TemplateId, crate::error::SimError> {
        let tx0 = at.span.tx0;
        if self.protocol.tracks_buffers() {
            // The NIs' forwarding tables come from the plan's tree: one that misses a destination
            // would leave a host waiting for good, which is refused here rather than timed.
            let reached: std::collections::BTreeSet<EndpointId> =
                plan.transmissions.iter().flat_map(|t| t.delivers.iter().copied()).collect();
            if let Some(d) = plan.destinations.iter().find(|d| !reached.contains(d)) {
                return Err(crate::error::SimError::param(
                    "plan",
                    format!(
                        "{}: destination {} is reached by no transmission, so the NIs' forwarding tables \
                         (ni.send={}) have no tree to it",
                        plan.scheme,
                        d.0,
                        if self.protocol.keeps_queues() { "lfc" } else { "fmmc" }
                    ),
                ));
            }
        }
        if self.protocol.keeps_queues() {
            // Credits are per pair of NIs: each copy must have exactly one receiving NI.
            for (i, _) in plan.transmissions.iter().enumerate() {
                let tx = super::ids::TxId::from_index(tx0 as usize + i);
                let n = trees.ejections(tx).len();
                if n != 1 {
                    return Err(crate::error::SimError::param(
                        "ni.send",
                        format!(
                            "lfc gives credits per pair of NIs, so every transmission must reach exactly one NI; \
                             transmission {i} of {} reaches {n} (a multidestination worm or switch multicast): \
                             use ni.send=pipelined or a software/NI tree scheme",
                            plan.scheme
                        ),
                    ));
                }
            }
        }
        Ok(self.prog.add(plan, trees, at, self.costs.packets))
    }

    /// Creates a message of template `tpl` now: the source's host starts its sends. Returns the
    /// message's serial number (creation order, from 0).
    pub(crate) fn start_message(&mut self, cx: &mut NiCtx<'_>, tpl: TemplateId) -> u64 {
        let serial = self.next_serial;
        self.next_serial += 1;
        let h = *self.prog.hot(tpl);
        let (m, now) = (self.costs.packets as usize, cx.now);
        let (ntx, nodes, nd, ns) = (h.ntx as usize, h.nnodes as usize, h.dests.len(), h.nsenders as usize);
        let (tx0, src) = (h.tx0, h.source);
        // Every list of the record is written here, from one look at the template's hot record
        // (and, for more than a single transmission, its transmissions' records): the slot's
        // lists keep their capacity, so a message allocates nothing.
        let txs = &self.prog.txs;
        let msg = self.msgs.alloc(|x| {
            x.tpl = tpl;
            x.serial = serial;
            x.created = now;
            refill(&mut x.avail, ntx * m, false);
            refill(&mut x.got, nodes, 0);
            refill(&mut x.cursor, ns, 0);
            refill(&mut x.latency, nd, None);
            refill(&mut x.deliveries, nd, 0);
            refill(&mut x.packets, nd, 0);
            x.extra_deliveries = 0;
            x.extra_packets = 0;
            x.tx.clear();
            if let Some(one) = h.single {
                x.tx.push(TxState { pending: one.pending, host_started: one.starts, started: false });
            } else {
                x.tx.extend(txs[tx0 as usize..tx0 as usize + ntx].iter().map(|p| p.init));
            }
            x.initial_sent = 0;
        });
        cx.refs.start(msg, serial);
        self.prog.started(tpl);
        self.stats.messages += 1;
        self.protocol.message_started(msg, ntx * m);
        if let Some(one) = h.single {
            self.enqueue(cx, src, Unit::Host, Job::HostSend { msg, group: one.group });
        } else {
            for k in 0..self.prog.template(tpl).start_groups.len() {
                let group = self.prog.template(tpl).start_groups[k];
                self.enqueue(cx, src, Unit::Host, Job::HostSend { msg, group });
            }
        }
        cx.refs.finish_if_idle(msg); // a plan with nothing to send
        serial
    }

    /// Message `msg` is finished: its record goes to the caller (if kept) and its slot is reused.
    /// Once per message, from the engine's mail: inlined there, the call cost more than its work.
    #[inline(always)]
    pub(crate) fn finish_message(&mut self, msg: MsgId, now: u64) {
        self.prog.finished(self.msgs[msg].tpl);
        if let Some(out) = &mut self.completed {
            // The record takes the message's lists and leaves its own (a spare's, or empty) in
            // the slot, which `start_message` refills before anything reads them.
            let x = &mut self.msgs[msg];
            let mut rec = self.spare.pop().unwrap_or_default();
            std::mem::swap(&mut rec.latency, &mut x.latency);
            std::mem::swap(&mut rec.deliveries, &mut x.deliveries);
            std::mem::swap(&mut rec.packets, &mut x.packets);
            rec.serial = x.serial;
            rec.tpl = x.tpl;
            rec.created = x.created;
            rec.finished = now;
            rec.extra_deliveries = x.extra_deliveries;
            rec.extra_packets = x.extra_packets;
            out.push(rec);
        }
        self.msgs.release(msg);
    }

    /// The key (time, rank) of the endpoints' next event.
    #[inline]
    pub(crate) fn next_key(&self) -> Option<u128> {
        self.queue.peek_key()
    }

    /// Handles the next event, at `cx.now`, and then the endpoints' events that the engine would
    /// run next without a look at anything else (counted in `cx.ran`, at most `cx.more`).
    ///
    /// Under BookSim's presets six of a message's seven endpoint events are zero-cost jobs at
    /// one instant, most often each the next event of all: one engine pass per event cost more
    /// than many of the jobs. The next one is taken here only when the engine would take it: no
    /// mail to hand on (so the network and its next key are as they were: `cx.net_key`), and
    /// the endpoints' earliest event a job at this instant ahead of the network's. The engine
    /// counts them as events, so event counts and budgets are as before.
    pub(crate) fn fire(&mut self, cx: &mut NiCtx<'_>) {
        let mut ev = self.queue.pop().expect("the engine fires a pending event");
        loop {
            self.handle(cx, ev);
            if cx.ran == cx.more || !cx.injections.is_empty() || cx.refs.any_finished() {
                return;
            }
            let Some(&(k, next)) = self.queue.instant.last() else { return };
            if super::queue::time_of(k) != cx.now
                || self.queue.heap.peek_key().is_some_and(|h| h < k)
                || cx.net_key.is_some_and(|n| n <= k)
            {
                return;
            }
            self.queue.instant.pop();
            cx.ran += 1;
            ev = next;
        }
    }

    /// Handles event `ev`, at `cx.now` (inlined into `fire`'s loop, its one caller).
    #[inline(always)]
    fn handle(&mut self, cx: &mut NiCtx<'_>, ev: NiEvent) {
        match ev {
            NiEvent::Tail { msg, pid, node } => self.on_tail(cx, msg, pid, cx.trees.delivery(node)),
            NiEvent::Tails { msg, pid, node } => {
                let nd = cx.trees.node(node);
                for &child in cx.trees.children(nd) {
                    if cx.trees.node(child).eject.is_some() {
                        self.on_tail(cx, msg, pid, child);
                    }
                }
            }
            NiEvent::Done { ep, unit } => self.on_done(cx, ep, unit),
            NiEvent::Control { id } => {
                let (_, to, _) = self.controls[id].expect("a control packet in flight");
                self.enqueue(cx, to, Unit::Ni, Job::NiControlIn { id });
            }
            NiEvent::Wake { ep } => {
                self.protocol.wake(ep, cx.now, &mut self.actions);
                self.apply_actions(cx);
            }
        }
    }

    /// Carries out what the protocol asked for, in order (an action may lead to more). Every job
    /// ends here, and most protocols (pipelined, step) never ask for anything: the test is inlined
    /// and the work kept out of line.
    #[inline]
    pub(super) fn apply_actions(&mut self, cx: &mut NiCtx<'_>) {
        if !self.actions.is_empty() {
            self.apply_pending_actions(cx);
        }
    }

    #[inline(never)]
    fn apply_pending_actions(&mut self, cx: &mut NiCtx<'_>) {
        while !self.actions.is_empty() {
            for a in std::mem::take(&mut self.actions) {
                match a {
                    Action::Advance(ep) => self.ni_advance(cx, ep),
                    Action::Control { from, to, what } => {
                        let id = self.controls.alloc(|x| *x = Some((from, to, what)));
                        self.enqueue(cx, from, Unit::Ni, Job::NiControl { id });
                    }
                    Action::Wake { ep, at } => self.queue.push(at.max(cx.now), NiEvent::Wake { ep }),
                    Action::HostResume { ep, packets } => {
                        for _ in 0..packets {
                            let (msg, group, j) =
                                self.eps[ep.idx()].parked.pop_front().expect("a host resumes packets it held back");
                            self.hand_to_ni(cx, ep, msg, group, j);
                            cx.refs.release(msg);
                        }
                    }
                    Action::SwapIn { ep } => self.enqueue(cx, ep, Unit::Dma, Job::SwapIn),
                }
            }
        }
    }

    /// A tail the network brings: it reaches its NI at the time it says. Once per copy, from the
    /// engine's mail: inlined there.
    #[inline(always)]
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
            + (self.spare.len() * size_of::<Completed>()) as u64
    }
}
