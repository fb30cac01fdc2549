//! Endpoints: a host CPU, an NI processor and one DMA engine on the I/O bus, each a server that
//! works through its jobs one at a time, first come first served, accounting its busy time.
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
//!   forwarding (§4.2). In `ni.send = pipelined` the next copy may start once the previous one
//!   is handed to the link; in `ni.send = step` a copy holds the NI until every NI it reaches has
//!   taken it, one packet per step as in §4.1 and §4.3.
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
//! Not modelled: NI buffer limits and NI-level flow control (LFC credits, FM/MC's credit
//! manager: bhoedjang98), separate send and receive DMA engines, and programmed I/O.

use super::engine::Simulation;
use super::queue::{Event, Unit};
use super::NONE;
use std::collections::{BTreeSet, VecDeque};

/// Work for one of an endpoint's servers, for message instance `msg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// Host: start sending the message of host-send group `group`.
    HostSend { msg: u32, group: u32 },
    /// Host: take the complete message that arrived through ejection node `node`.
    HostRecv { msg: u32, node: u32 },
    /// NI: send packet copy `pid`.
    NiSend { msg: u32, pid: u32 },
    /// NI: take packet `pid`, arrived through `node`.
    NiRecv { msg: u32, pid: u32, node: u32 },
    /// DMA: packet `j` of group `group` from host to NI memory.
    DmaToNi { msg: u32, group: u32, j: u32 },
    /// DMA: packet `pid` (arrived through `node`) from NI to host memory.
    DmaToHost { msg: u32, pid: u32, node: u32 },
}

impl Job {
    fn msg(self) -> u32 {
        match self {
            Job::HostSend { msg, .. }
            | Job::HostRecv { msg, .. }
            | Job::NiSend { msg, .. }
            | Job::NiRecv { msg, .. }
            | Job::DmaToNi { msg, .. }
            | Job::DmaToHost { msg, .. } => msg,
        }
    }
}

/// A server with a FIFO of jobs; the front job is the one running.
#[derive(Clone, Debug, Default)]
pub(crate) struct Server {
    pub busy: bool,
    pub queue: VecDeque<Job>,
    pub busy_ps: u64,
}

/// One endpoint's servers and its NI's send state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Endpoint {
    pub host: Server,
    pub ni: Server,
    pub dma: Server,
    /// Messages whose next copy this NI may send: (serial, message, sender slot), oldest first.
    pub ready: BTreeSet<(u64, u32, u32)>,
    /// A send job is queued or running.
    pub sending: bool,
    /// `ni.send = step`: waiting for the receivers of the last copy.
    pub blocked: bool,
}

impl Simulation<'_> {
    fn server(&mut self, ep: u32, unit: Unit) -> &mut Server {
        let e = &mut self.eps[ep as usize];
        match unit {
            Unit::Host => &mut e.host,
            Unit::Ni => &mut e.ni,
            Unit::Dma => &mut e.dma,
        }
    }

    fn duration(&self, job: Job) -> u64 {
        let p = &self.params;
        let dma =
            |pid_or_j: u32| p.ni.dma_bandwidth.time_for_bytes(p.packet_bytes(self.message_bytes, pid_or_j % self.m));
        match job {
            Job::HostSend { .. } => p.host.t_hs.ps(),
            Job::HostRecv { .. } => p.host.t_hr.ps(),
            Job::NiSend { .. } => p.ni.t_ns.ps(),
            Job::NiRecv { .. } => p.ni.t_nr.ps(),
            Job::DmaToNi { j, .. } => dma(j),
            Job::DmaToHost { pid, .. } => dma(pid),
        }
    }

    pub(crate) fn enqueue(&mut self, ep: u32, unit: Unit, job: Job) {
        self.add_ref(job.msg());
        self.server(ep, unit).queue.push_back(job);
        self.start_next(ep, unit);
    }

    fn start_next(&mut self, ep: u32, unit: Unit) {
        let s = self.server(ep, unit);
        let Some(&job) = s.queue.front().filter(|_| !s.busy) else { return };
        s.busy = true;
        if self.pk.inline {
            return self.run_instantly(ep, unit);
        }
        let d = self.duration(job);
        self.server(ep, unit).busy_ps += d;
        self.q.push(self.now + d, Event::Done { ep, unit });
    }

    /// Packet trains with zero host, NI and DMA times: the server works through its queue now,
    /// in order, as its `Done` events at this instant would (jobs it queues meanwhile join the
    /// end, as they would behind a busy server).
    fn run_instantly(&mut self, ep: u32, unit: Unit) {
        while let Some(job) = self.server(ep, unit).queue.pop_front() {
            self.finish(ep, job);
            self.unref(job.msg());
        }
        self.server(ep, unit).busy = false;
    }

    pub(crate) fn on_done(&mut self, ep: u32, unit: Unit) {
        let s = self.server(ep, unit);
        s.busy = false;
        let job = s.queue.pop_front().expect("a finished server has a job");
        self.finish(ep, job);
        self.start_next(ep, unit);
        self.unref(job.msg());
    }

    fn finish(&mut self, ep: u32, job: Job) {
        match job {
            Job::HostSend { msg, group } => {
                for j in 0..self.m {
                    self.enqueue(ep, Unit::Dma, Job::DmaToNi { msg, group, j });
                }
            }
            Job::DmaToNi { msg, group, j } => {
                for k in 0..self.prog.groups[group as usize].len() {
                    let t = self.prog.groups[group as usize][k];
                    self.make_avail(msg, t * self.m + j);
                }
                self.ni_advance(ep);
            }
            Job::NiSend { msg, pid } => {
                self.inject(msg, pid);
                self.eps[ep as usize].sending = false;
                self.ni_advance(ep);
            }
            Job::NiRecv { msg, pid, node } => self.ni_received(ep, msg, pid, node),
            Job::DmaToHost { msg, pid: _, node } => {
                let k = self.local_node(msg, node);
                let got = &mut self.msgs[msg].got[k];
                *got += 1;
                if *got == self.m {
                    self.enqueue(ep, Unit::Host, Job::HostRecv { msg, node });
                }
            }
            Job::HostRecv { msg, node } => self.host_received(ep, msg, node),
        }
    }

    /// The sender's NI may send copy `pid` of message `msg`; if it is that NI's next copy of the
    /// message, the message joins the NI's ready set.
    fn make_avail(&mut self, msg: u32, pid: u32) {
        let k = self.local_pid(msg, pid);
        let x = &mut self.msgs[msg];
        if std::mem::replace(&mut x.avail[k], true) {
            return;
        }
        let tx = (pid / self.m) as usize;
        let slot = self.prog.slot[tx];
        let (ep, seq) = &self.prog.templates[x.tpl as usize].senders[slot as usize];
        if seq.get(x.cursor[slot as usize] as usize) == Some(&pid)
            && self.eps[*ep as usize].ready.insert((x.serial, msg, slot))
        {
            x.refs += 1;
        }
    }

    /// The tail of a packet is in the NI's memory: the NI processor takes it next.
    pub(crate) fn on_ni_tail(&mut self, msg: u32, pid: u32, node: u32) {
        self.packets_received += 1;
        let ep = self.trees.nodes[node as usize].eject;
        self.packets_at[ep as usize] += 1;
        let tpl = self.msgs[msg].tpl as usize;
        match self.prog.templates[tpl].dest(ep) {
            Some(d) => self.msgs[msg].packets[d] += 1,
            None => self.msgs[msg].extra_packets += 1,
        }
        self.enqueue(ep, Unit::Ni, Job::NiRecv { msg, pid, node });
        self.unref(msg); // the tail event's reference
    }

    fn ni_received(&mut self, ep: u32, msg: u32, pid: u32, node: u32) {
        self.enqueue(ep, Unit::Dma, Job::DmaToHost { msg, pid, node });
        let (tx, j) = (pid / self.m, pid % self.m);
        let mut any = false;
        for k in 0..self.prog.per_packet[tx as usize].len() {
            let t = self.prog.per_packet[tx as usize][k];
            if self.prog.sender[t as usize] == ep {
                self.make_avail(msg, t * self.m + j);
                any = true;
            }
        }
        if any {
            self.ni_advance(ep);
        }
        if self.timing.step_sends {
            let k = self.local_pid(msg, pid);
            let a = &mut self.msgs[msg].acks[k];
            if *a > 0 {
                *a -= 1;
                if *a == 0 {
                    let s = self.prog.sender[tx as usize];
                    self.eps[s as usize].blocked = false;
                    self.ni_advance(s);
                }
            }
        }
    }

    fn host_received(&mut self, ep: u32, msg: u32, node: u32) {
        self.deliveries[ep as usize] += 1;
        self.first_delivery[ep as usize].get_or_insert(self.now);
        let x = &mut self.msgs[msg];
        let t = &self.prog.templates[x.tpl as usize];
        match t.dest(ep) {
            Some(d) => {
                x.deliveries[d] += 1;
                if x.latency[d] == super::switch::NO_TIME {
                    x.latency[d] = self.now - x.created;
                }
            }
            None => x.extra_deliveries += 1,
        }
        let (tx, tx0) = (self.trees.nodes[node as usize].tx, t.tx0);
        for k in 0..self.prog.after_message[tx as usize].len() {
            let t = self.prog.after_message[tx as usize][k];
            let started = &mut self.msgs[msg].host_started[(t - tx0) as usize];
            if self.prog.sender[t as usize] == ep && !*started {
                *started = true;
                let group = self.prog.group_of[t as usize];
                self.enqueue(ep, Unit::Host, Job::HostSend { msg, group });
            }
        }
    }

    /// Queues the NI's next send: the next copy of the oldest message it may send.
    fn ni_advance(&mut self, ep: u32) {
        let e = &mut self.eps[ep as usize];
        if e.sending || e.blocked {
            return;
        }
        let Some((serial, msg, slot)) = e.ready.pop_first() else { return };
        let x = &mut self.msgs[msg];
        let seq = &self.prog.templates[x.tpl as usize].senders[slot as usize].1;
        let at = &mut x.cursor[slot as usize];
        let pid = seq[*at as usize];
        *at += 1;
        let tx0m = self.prog.templates[x.tpl as usize].tx0 * self.m;
        let again = seq.get(*at as usize).is_some_and(|&next| x.avail[(next - tx0m) as usize]);
        let receivers = self.trees.ejections[(pid / self.m) as usize].len() as u32;
        let step = self.timing.step_sends && receivers > 0;
        let e = &mut self.eps[ep as usize];
        if again {
            e.ready.insert((serial, msg, slot));
        }
        e.sending = true;
        e.blocked = step;
        if step {
            let k = self.local_pid(msg, pid);
            self.msgs[msg].acks[k] = receivers;
        }
        self.enqueue(ep, Unit::Ni, Job::NiSend { msg, pid });
        if !again {
            self.unref(msg); // the ready entry's reference
        }
    }

    /// The NI hands a packet copy to its link: a worm in NI memory with one branch, the
    /// transmission's injection channel.
    fn inject(&mut self, msg: u32, pid: u32) {
        let tx = pid / self.m;
        let flits = self.params.flits_for(self.params.packet_bytes(self.message_bytes, pid % self.m));
        // The watchdog's clock restarts when the network had nothing in it; a packet joining
        // packets that are stuck does not count as progress (under load, new packets keep
        // arriving at the NIs of a deadlocked network).
        if self.live == 0 {
            self.last_move = self.now;
        }
        if self.iq.is_some() {
            self.packets_sent += 1;
            self.iq_inject(msg, pid, self.trees.root[tx as usize], flits);
            return;
        }
        let w = self.new_worm(msg, pid, NONE, NONE, flits);
        self.worms[w].arrived = flits;
        self.worms[w].routed = true;
        let b = self.new_branch(w, self.trees.root[tx as usize]);
        if self.timing.circuits {
            self.open_circuit(w);
        }
        self.packets_sent += 1;
        self.request_vc(b);
    }
}
