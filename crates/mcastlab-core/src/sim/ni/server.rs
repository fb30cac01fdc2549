//! Endpoint servers: a host CPU, an NI processor and one DMA engine on the I/O bus, each a server
//! that works through its jobs one at a time, first come first served, accounting its busy time.
//!
//! What is modelled (sivaram98 §3.2–§4.2):
//! - A host send costs the host `t_hs` once per message; the DMA engine then moves the message to
//!   NI memory packet by packet (`bytes / ni.dma_bandwidth` each), and each packet becomes
//!   available to the NI as its transfer ends. Under the NI disciplines the source's host hands
//!   the message over once and its NI makes every copy for the `Start` transmissions (the smart
//!   NI of §4.1); under the host discipline every transmission is its own host send (§3.3).
//! - The NI processor spends `t_ns` per packet copy it sends and `t_nr` per packet it receives
//!   (after the whole packet is in its memory). It sends in a fixed order, as the step model
//!   does: per packet, then per child under FPFS; per child, then per packet under FCFS and host
//!   forwarding (§4.2). When it may start the next copy is its protocol's decision (`protocol/`):
//!   in `ni.send = pipelined` once the previous one is handed to the link; in `ni.send = step` a
//!   copy holds the NI until every NI it reaches has taken it, one packet per step as in §4.1 and
//!   §4.3.
//! - Triggers: `PerPacket` forwarding sends a packet as soon as the NI has received it (the host
//!   is not involved); `AfterMessage` forwarding waits until the host has the whole message
//!   (every packet DMA'd up and `t_hr` spent), then costs a host send like any other.
//! - Every received packet is DMA'd to host memory; once all packets of a message are there the
//!   host spends `t_hr` and the message is delivered: that instant is the destination's latency.
//!
//! Where this differs from the papers' formulas, and why (tests in `tests/sim_closed_forms.rs`):
//! - sivaram98 §4.1 counts `t_hs` (which "includes initiating the DMA transfers") but not the
//!   transfer itself; here every host↔NI crossing also takes `bytes / ni.dma_bandwidth`. With
//!   `ni.dma_bandwidth = inf` the §4.1 latencies come out verbatim; otherwise each crossing adds
//!   that term (481 ns for a 128-byte packet at 266 MB/s).
//! - §4.1's `⌈log2 n⌉·t_step` and Theorem 2's `L1 + (m−1)·δr` steps charge every copy a whole
//!   step of its sender, which `ni.send = step` reproduces exactly. The same paper's §4.2.3 has a
//!   node's copies leave `t_ns` apart, which `ni.send = pipelined` (the default) models; then the
//!   formulas are exact only where the slowest member is reached through first children (a
//!   one-packet binomial tree over 2^k nodes) and otherwise the multicast ends sooner (n = 5:
//!   `2·t_step + t_ns` instead of `3·t_step`; m packets to one child: `t_step + (m−1)·t_ns`
//!   instead of `m·t_step`).
//! - In `ni.send = step` the sender learns that its copy was taken at the instant the receiver's
//!   `t_nr` ends: the step model has no acknowledgement time.
//!
//! Several messages at once (workloads): each server is first come, first served across
//! messages; an NI keeps a *ready set* of the messages whose next copy (in that message's own
//! send order) it may send, and serves the oldest message first. So a forwarding NI waiting for a
//! late packet of one multicast still sends the copies of another, as an NI with one transmit
//! queue per message would, and a message's copies never overtake each other.
//!
//! The NI processor takes its waiting jobs in the order `ni.order` says: as they came, receives
//! first, or sends (and control packets) first.
//!
//! NI buffer limits and flow control are the protocol's (`protocol/`: LFC's NI credits, FM/MC's
//! host credits, its credit manager and swapping NI queue; their control packets cost the NIs
//! `ni.t_control` each): the servers only run the jobs the protocol's actions ask for (a held-back
//! host packet resumed, a swap to or from host memory, a control packet). With
//! `host.pio_bandwidth` the host processor copies each packet into NI memory itself (programmed
//! I/O, busy meanwhile) instead of the DMA engine; with `host.copy_bandwidth` it copies a received
//! message once before delivering it (bhoedjang98 §5). Not modelled: separate send and receive DMA
//! engines.

use super::protocol::{HostSend, Protocol};
use super::{Endpoints, NiCtx, NiEvent};
use crate::ids::EndpointId;
use crate::sim::ids::{ControlId, GroupId, MsgId, NodeId, PacketId};
use crate::sim::params::NiOrder;
use std::collections::VecDeque;

/// Which of an endpoint's three servers finished a job (and its index in `Endpoint::servers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Host = 0,
    Ni = 1,
    Dma = 2,
}

/// Work for one of an endpoint's servers, for message `msg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Job {
    /// Host: start sending the message of host-send group `group`.
    HostSend { msg: MsgId, group: GroupId },
    /// Host: take the complete message that arrived through ejection node `node`.
    HostRecv { msg: MsgId, node: NodeId },
    /// NI: send packet copy `pid`.
    NiSend { msg: MsgId, pid: PacketId },
    /// NI: take packet `pid`, arrived through `node`.
    NiRecv { msg: MsgId, pid: PacketId, node: NodeId },
    /// DMA: packet `j` of group `group` from host to NI memory.
    DmaToNi { msg: MsgId, group: GroupId, j: u32 },
    /// Host: copy packet `j` of group `group` into NI memory by programmed I/O.
    HostPio { msg: MsgId, group: GroupId, j: u32 },
    /// DMA: packet `pid` (arrived through `node`) from NI to host memory.
    DmaToHost { msg: MsgId, pid: PacketId, node: NodeId },
    /// DMA: a packet the NI's receive queue had no room for, to host memory (FM/MC).
    SwapOut { msg: MsgId, pid: PacketId, node: NodeId },
    /// DMA: the oldest swapped packet back into NI memory.
    SwapIn,
    /// NI: send a protocol's control packet.
    NiControl { id: ControlId },
    /// NI: take a protocol's control packet.
    NiControlIn { id: ControlId },
}

impl Job {
    /// The message the job works for (control packets work for none).
    fn msg(self) -> Option<MsgId> {
        match self {
            Job::HostSend { msg, .. }
            | Job::HostRecv { msg, .. }
            | Job::NiSend { msg, .. }
            | Job::NiRecv { msg, .. }
            | Job::DmaToNi { msg, .. }
            | Job::HostPio { msg, .. }
            | Job::SwapOut { msg, .. }
            | Job::DmaToHost { msg, .. } => Some(msg),
            Job::NiControl { .. } | Job::NiControlIn { .. } | Job::SwapIn => None,
        }
    }

    /// Whether the NI processor counts it as a receive for `ni.order`.
    fn is_receive(self) -> bool {
        matches!(self, Job::NiRecv { .. } | Job::NiControlIn { .. })
    }
}

/// A server: the job it is running, and a FIFO of the jobs waiting behind it.
#[derive(Clone, Debug, Default)]
pub(super) struct Server {
    /// `None`: idle.
    pub running: Option<Job>,
    pub queue: VecDeque<Job>,
    pub busy_ps: u64,
}

/// An NI's ready set: (serial, message, sender slot) entries, each at most once, taken oldest
/// first. It holds a handful at a time (most often none or one), and new messages, the newest,
/// join at its end: a sorted deque does in a few instructions what a `BTreeSet` did with a node
/// allocated whenever the set stopped being empty.
#[derive(Clone, Debug, Default)]
pub(super) struct Ready(VecDeque<(u64, MsgId, u32)>);

impl Ready {
    /// Adds `x`; false if it is there already. Once per copy made available: forced inline, as
    /// a call it cost more than its common case (an append).
    #[inline(always)]
    pub fn insert(&mut self, x: (u64, MsgId, u32)) -> bool {
        let q = &mut self.0;
        if q.back().is_none_or(|&b| b < x) {
            q.push_back(x);
            return true;
        }
        let at = q.partition_point(|&e| e < x);
        if q.get(at) == Some(&x) {
            return false;
        }
        q.insert(at, x);
        true
    }

    /// Takes the smallest (oldest) entry.
    #[inline]
    pub fn pop_first(&mut self) -> Option<(u64, MsgId, u32)> {
        self.0.pop_front()
    }
}

/// One endpoint's servers and its NI's send state.
#[derive(Clone, Debug, Default)]
pub(super) struct Endpoint {
    /// Its host, NI and DMA servers, indexed by [`Unit`] (every job looks its server up: an
    /// index, not a match).
    pub servers: [Server; 3],
    /// Messages whose next copy this NI may send: (serial, message, sender slot), oldest first.
    pub ready: Ready,
    /// Packets the host holds back for want of protocol credits (FM/MC), in order.
    pub parked: VecDeque<(MsgId, GroupId, u32)>,
    /// Packets swapped out of the NI's receive queue, waiting in host memory, in order.
    pub swapped: VecDeque<(MsgId, PacketId, NodeId)>,
    /// A send job is queued or running.
    pub sending: bool,
}

impl Endpoints {
    fn server(&mut self, ep: EndpointId, unit: Unit) -> &mut Server {
        &mut self.eps[ep.idx()].servers[unit as usize]
    }

    fn duration(&self, ep: EndpointId, job: Job) -> u64 {
        let c = &self.costs;
        let m = c.packets;
        let dma = |j: u32| c.dma.time_for_bytes(c.packet_bytes(j % m));
        match job {
            Job::HostSend { .. } => c.t_hs,
            Job::HostRecv { .. } => c.t_hr + c.copy.time_for_bytes(c.message_bytes),
            Job::HostPio { j, .. } => c.pio.time_for_bytes(c.packet_bytes(j % m)),
            Job::NiSend { .. } => c.t_ns,
            Job::NiRecv { .. } => c.t_nr,
            Job::DmaToNi { j, .. } => dma(j),
            Job::DmaToHost { pid, .. } | Job::SwapOut { pid, .. } => dma(pid.0),
            Job::SwapIn => {
                let &(_, pid, _) = self.eps[ep.idx()].swapped.front().expect("a swap-in follows its swap-out");
                dma(pid.0)
            }
            Job::NiControl { .. } | Job::NiControlIn { .. } => c.t_control,
        }
    }

    /// Gives `job` to a server of `ep`. Each of a message's jobs is queued here (six for a
    /// one-packet unicast), most from `finish`: inlined, the call costs more than the work.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit, job: Job) {
        if let Some(m) = job.msg() {
            cx.refs.hold(m);
        }
        let s = self.server(ep, unit);
        if s.running.is_none() && s.queue.is_empty() {
            // An idle server with nothing waiting starts the job at once, whatever `ni.order`
            // says (it has no other job to prefer): the common case, which skips the queue.
            self.begin(cx, ep, unit, job);
        } else {
            s.queue.push_back(job);
            self.start_next(cx, ep, unit);
        }
    }

    /// Starts the server's next job if it is idle. Most calls find it busy (a job queued behind
    /// the running one) or idle with nothing queued (after a job): those tests are inlined, the
    /// start itself is not.
    #[inline]
    fn start_next(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit) {
        let s = self.server(ep, unit);
        if s.running.is_none() && !s.queue.is_empty() {
            self.start_job(cx, ep, unit);
        }
    }

    /// Starts the waiting job `ni.order` prefers (at the NI; elsewhere, and under `arrival`,
    /// the first).
    #[inline(never)]
    fn start_job(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit) {
        let order = self.costs.order;
        let s = self.server(ep, unit);
        let mut at = 0;
        if unit == Unit::Ni && order != NiOrder::Arrival {
            let want_receive = order == NiOrder::ReceiveFirst;
            at = s.queue.iter().position(|j| j.is_receive() == want_receive).unwrap_or(0);
        }
        let Some(job) = s.queue.remove(at) else { return };
        self.begin(cx, ep, unit, job);
    }

    /// The idle server starts `job`: its `Done` event is scheduled (or, inline, it is done now).
    /// Every job of a message starts here, and under free endpoints (BookSim's presets) it only
    /// files its `Done` at this instant: that path is inlined into the callers, the timed one
    /// kept out of line.
    #[inline(always)]
    fn begin(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit, job: Job) {
        self.server(ep, unit).running = Some(job);
        if self.inline {
            return self.run_instantly(cx, ep, unit);
        }
        if self.free {
            return self.queue.push_instant(cx.now, NiEvent::Done { ep, unit });
        }
        self.begin_timed(cx, ep, unit, job);
    }

    /// `begin` for a job whose length is looked up (endpoints with costs).
    #[inline(never)]
    fn begin_timed(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit, job: Job) {
        let d = self.duration(ep, job);
        // Saturating: costs so large that time would pass 2^64 ps end the run at the time budget
        // (`run_loop`), rather than wrapping round to earlier times.
        let s = self.server(ep, unit);
        s.busy_ps = s.busy_ps.saturating_add(d);
        if d == 0 {
            self.queue.push_instant(cx.now, NiEvent::Done { ep, unit });
        } else {
            self.queue.push(cx.now.saturating_add(d), NiEvent::Done { ep, unit });
        }
    }

    /// Zero-cost jobs: the server works through its queue now, in order, as its `Done` events at
    /// this instant would (jobs it queues meanwhile join the end, as they would behind a busy
    /// server, which it stays until its queue is empty).
    #[inline(never)]
    fn run_instantly(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit) {
        let mut next = self.server(ep, unit).running;
        while let Some(job) = next {
            self.finish(cx, ep, job);
            if let Some(m) = job.msg() {
                cx.refs.release(m);
            }
            next = self.server(ep, unit).queue.pop_front();
        }
        self.server(ep, unit).running = None;
    }

    /// The host hands packet `j` of host-send group `group` to its NI: by the DMA engine, or by
    /// its own programmed I/O (`host.pio_bandwidth`). Once per packet a host sends: inlined.
    #[inline(always)]
    pub(super) fn hand_to_ni(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, msg: MsgId, group: GroupId, j: u32) {
        if self.costs.pio.is_unlimited() {
            self.enqueue(cx, ep, Unit::Dma, Job::DmaToNi { msg, group, j });
        } else {
            self.enqueue(cx, ep, Unit::Host, Job::HostPio { msg, group, j });
        }
    }

    pub(super) fn on_done(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, unit: Unit) {
        let job = self.server(ep, unit).running.take().expect("a finished server has a job");
        self.finish(cx, ep, job);
        self.start_next(cx, ep, unit);
        if let Some(m) = job.msg() {
            cx.refs.release(m);
        }
    }

    /// What a job does when it ends. Every job comes through here, from `on_done` or
    /// `run_instantly`: inlined into both, since a call per job cost about ten instructions.
    #[inline(always)]
    fn finish(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, job: Job) {
        match job {
            Job::HostSend { msg, group } => {
                self.stats.host_send_end[ep.idx()] = Some(cx.now);
                let m = self.costs.packets;
                let to = self.prog.hot(self.msgs[msg].tpl).dests.one();
                let h = HostSend { ep, msg, packets: m, to };
                let now = self.protocol.host_credits(h, &mut self.actions);
                for j in 0..m {
                    if j < now {
                        self.hand_to_ni(cx, ep, msg, group, j);
                    } else {
                        cx.refs.hold(msg); // the parked packet's hold
                        self.eps[ep.idx()].parked.push_back((msg, group, j));
                    }
                }
            }
            Job::DmaToNi { msg, group, j } | Job::HostPio { msg, group, j } => {
                if matches!(job, Job::HostPio { .. }) {
                    self.stats.host_send_end[ep.idx()] = Some(cx.now);
                }
                let m = self.costs.packets;
                let h = self.prog.hot(self.msgs[msg].tpl);
                if let Some(one) = h.single {
                    // Its one group, of its one transmission (`Hot`).
                    debug_assert_eq!(group, one.group);
                    self.make_avail(cx, msg, PacketId::new(h.first_tx(), j, m));
                } else {
                    for k in 0..self.prog.groups[group.idx()].len() {
                        let t = self.prog.groups[group.idx()][k];
                        self.make_avail(cx, msg, PacketId::new(t, j, m));
                    }
                }
                self.ni_advance(cx, ep);
            }
            Job::NiSend { msg, pid } => {
                self.inject(cx, msg, pid);
                if self.protocol.tracks_buffers() {
                    let c = self.copy_ref(cx, msg, pid, None);
                    self.protocol.left(c, cx.now, &mut self.actions);
                }
                self.eps[ep.idx()].sending = false;
                self.ni_advance(cx, ep);
            }
            Job::NiRecv { msg, pid, node } => self.ni_received(cx, ep, msg, pid, node),
            Job::DmaToHost { msg, pid, node } => self.dma_to_host_done(cx, ep, msg, pid, node),
            Job::HostRecv { msg, node } => self.host_received(cx, ep, msg, node),
            Job::SwapOut { msg, pid, node } => {
                cx.refs.hold(msg); // held while in host memory
                self.eps[ep.idx()].swapped.push_back((msg, pid, node));
            }
            Job::SwapIn => {
                let (msg, pid, node) = self.eps[ep.idx()].swapped.pop_front().expect("a swap-in follows its swap-out");
                self.enqueue(cx, ep, Unit::Ni, Job::NiRecv { msg, pid, node });
                cx.refs.release(msg);
            }
            Job::NiControl { id } => {
                self.queue.push(cx.now.saturating_add(self.costs.control_latency), NiEvent::Control { id })
            }
            Job::NiControlIn { id } => {
                let (from, to, what) = self.controls[id].take().expect("a control packet in flight");
                self.controls.release(id);
                self.protocol.control(to, from, what, cx.now, &mut self.actions);
            }
        }
        self.apply_actions(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeSet;

    #[test]
    fn the_ready_set_answers_as_a_btreeset_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut ready, mut set) = (Ready::default(), BTreeSet::new());
        for step in 0..20_000 {
            if rng.random_bool(0.55) {
                // Mostly the newest messages, sometimes an older one back, sometimes a repeat.
                let serial = if rng.random_bool(0.7) { step as u64 / 2 } else { rng.random_range(0..=step as u64 / 2) };
                let x = (serial, MsgId::from_index(rng.random_range(0..4)), rng.random_range(0..3));
                assert_eq!(ready.insert(x), set.insert(x), "insert {x:?} at step {step}");
            } else {
                assert_eq!(ready.pop_first(), set.pop_first(), "pop at step {step}");
            }
        }
        while let Some(x) = set.pop_first() {
            assert_eq!(ready.pop_first(), Some(x));
        }
        assert_eq!(ready.pop_first(), None);
    }
}
