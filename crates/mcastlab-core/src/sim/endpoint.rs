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
//! Not modelled: NI buffer limits and NI-level flow control (LFC credits, FM/MC's credit
//! manager: bhoedjang98), separate send and receive DMA engines, and programmed I/O.

use super::engine::Simulation;
use super::queue::{Event, Unit};
use super::trees::Trees;
use super::NONE;
use crate::plan::{Discipline, Plan, Trigger};
use std::collections::VecDeque;

/// Work for one of an endpoint's servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// Host: start sending the message of host-send group `group`.
    HostSend { group: u32 },
    /// Host: take the complete message that arrived through ejection node `node`.
    HostRecv { node: u32 },
    /// NI: send packet copy `pid`.
    NiSend { pid: u32 },
    /// NI: take packet `pid`, arrived through `node`.
    NiRecv { pid: u32, node: u32 },
    /// DMA: packet `j` of group `group` from host to NI memory.
    DmaToNi { group: u32, j: u32 },
    /// DMA: packet `pid` (arrived through `node`) from NI to host memory.
    DmaToHost { pid: u32, node: u32 },
}

/// A server with a FIFO of jobs; the front job is the one running.
#[derive(Clone, Debug, Default)]
pub(crate) struct Server {
    pub busy: bool,
    pub queue: VecDeque<Job>,
    pub busy_ps: u64,
}

/// One endpoint's servers and its NI's send program.
#[derive(Clone, Debug, Default)]
pub(crate) struct Endpoint {
    pub host: Server,
    pub ni: Server,
    pub dma: Server,
    /// Packet copies this NI sends, in order.
    pub seq: Vec<u32>,
    pub next: usize,
    /// A send job is queued or running.
    pub sending: bool,
    /// `ni.send = step`: waiting for the receivers of the last copy.
    pub blocked: bool,
}

/// What the plan says about sends and triggers, in index form.
pub(crate) struct Program {
    /// Host-send groups: transmissions whose packets one host send makes available.
    pub groups: Vec<Vec<u32>>,
    /// Group of each transmission that is a host send (`NONE` for NI forwarding).
    pub group_of: Vec<u32>,
    pub sender: Vec<u32>,
    /// Transmissions forwarding transmission `t` per packet / after the whole message.
    pub per_packet: Vec<Vec<u32>>,
    pub after_message: Vec<Vec<u32>>,
    /// Per packet copy: the NI may send it.
    pub avail: Vec<bool>,
    /// Per packet copy under `ni.send = step`: receiving NIs that have not yet taken it.
    pub acks: Vec<u32>,
    /// Per ejection node: packets DMA'd to the host.
    pub got: Vec<u32>,
    pub host_started: Vec<bool>,
}

impl Program {
    pub(crate) fn build(plan: &Plan, trees: &Trees, m: u32) -> Program {
        let nt = plan.transmissions.len();
        let mut p = Program {
            groups: Vec::new(),
            group_of: vec![NONE; nt],
            sender: plan.transmissions.iter().map(|t| t.sender.0).collect(),
            per_packet: vec![Vec::new(); nt],
            after_message: vec![Vec::new(); nt],
            avail: vec![false; nt * m as usize],
            acks: vec![0; nt * m as usize],
            got: vec![0; trees.nodes.len()],
            host_started: vec![false; nt],
        };
        let mut source_group = Vec::new();
        for (i, t) in plan.transmissions.iter().enumerate() {
            let i = i as u32;
            match t.trigger {
                Trigger::Start if plan.discipline != Discipline::Host => source_group.push(i),
                Trigger::Start | Trigger::AfterMessage { .. } => {
                    p.group_of[i as usize] = p.groups.len() as u32;
                    p.groups.push(vec![i]);
                }
                Trigger::PerPacket { .. } => {}
            }
            match t.trigger {
                Trigger::PerPacket { from } => p.per_packet[from as usize].push(i),
                Trigger::AfterMessage { from } => p.after_message[from as usize].push(i),
                Trigger::Start => {}
            }
        }
        if !source_group.is_empty() {
            let g = p.groups.len() as u32;
            for &t in &source_group {
                p.group_of[t as usize] = g;
            }
            p.groups.push(source_group);
        }
        p
    }

    /// The endpoints with their NI send order (the step model's order, `plan::steps`).
    pub(crate) fn endpoints(plan: &Plan, n: usize, m: u32) -> Vec<Endpoint> {
        let mut eps = vec![Endpoint::default(); n];
        let mut by_sender: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, t) in plan.transmissions.iter().enumerate() {
            by_sender[t.sender.idx()].push(i as u32);
        }
        for (e, list) in by_sender.iter().enumerate() {
            let seq = &mut eps[e].seq;
            match plan.discipline {
                Discipline::NiFpfs => (0..m).for_each(|j| seq.extend(list.iter().map(|t| t * m + j))),
                Discipline::NiFcfs | Discipline::Host => {
                    list.iter().for_each(|t| seq.extend((0..m).map(|j| t * m + j)))
                }
            }
        }
        eps
    }
}

impl Simulation<'_> {
    /// Time zero: the source's host starts its sends.
    pub(crate) fn start_source(&mut self) {
        let plan = self.plan;
        let src = plan.source.0;
        let mut started = Vec::new();
        for (i, t) in plan.transmissions.iter().enumerate() {
            let g = self.prog.group_of[i];
            if t.trigger == Trigger::Start && !started.contains(&g) {
                started.push(g);
                self.prog.host_started[i] = true;
                self.enqueue(src, Unit::Host, Job::HostSend { group: g });
            } else if t.trigger == Trigger::Start {
                self.prog.host_started[i] = true;
            }
        }
    }

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
        self.server(ep, unit).queue.push_back(job);
        self.start_next(ep, unit);
    }

    fn start_next(&mut self, ep: u32, unit: Unit) {
        let s = self.server(ep, unit);
        let Some(&job) = s.queue.front().filter(|_| !s.busy) else { return };
        s.busy = true;
        let d = self.duration(job);
        self.server(ep, unit).busy_ps += d;
        self.q.push(self.now + d, Event::Done { ep, unit });
    }

    pub(crate) fn on_done(&mut self, ep: u32, unit: Unit) {
        let s = self.server(ep, unit);
        s.busy = false;
        let job = s.queue.pop_front().expect("a finished server has a job");
        self.finish(ep, job);
        self.start_next(ep, unit);
    }

    fn finish(&mut self, ep: u32, job: Job) {
        match job {
            Job::HostSend { group } => {
                for j in 0..self.m {
                    self.enqueue(ep, Unit::Dma, Job::DmaToNi { group, j });
                }
            }
            Job::DmaToNi { group, j } => {
                for k in 0..self.prog.groups[group as usize].len() {
                    let t = self.prog.groups[group as usize][k];
                    self.prog.avail[(t * self.m + j) as usize] = true;
                }
                self.ni_advance(ep);
            }
            Job::NiSend { pid } => {
                self.inject(pid);
                self.eps[ep as usize].sending = false;
                self.ni_advance(ep);
            }
            Job::NiRecv { pid, node } => self.ni_received(ep, pid, node),
            Job::DmaToHost { pid: _, node } => {
                self.prog.got[node as usize] += 1;
                if self.prog.got[node as usize] == self.m {
                    self.enqueue(ep, Unit::Host, Job::HostRecv { node });
                }
            }
            Job::HostRecv { node } => self.host_received(ep, node),
        }
    }

    /// The tail of a packet is in the NI's memory: the NI processor takes it next.
    pub(crate) fn on_ni_tail(&mut self, pid: u32, node: u32) {
        self.packets_received += 1;
        let ep = self.trees.nodes[node as usize].eject;
        self.packets_at[ep as usize] += 1;
        self.enqueue(ep, Unit::Ni, Job::NiRecv { pid, node });
    }

    fn ni_received(&mut self, ep: u32, pid: u32, node: u32) {
        self.enqueue(ep, Unit::Dma, Job::DmaToHost { pid, node });
        let (tx, j) = (pid / self.m, pid % self.m);
        let mut any = false;
        for k in 0..self.prog.per_packet[tx as usize].len() {
            let t = self.prog.per_packet[tx as usize][k];
            if self.prog.sender[t as usize] == ep {
                self.prog.avail[(t * self.m + j) as usize] = true;
                any = true;
            }
        }
        if any {
            self.ni_advance(ep);
        }
        if self.timing.step_sends {
            let a = &mut self.prog.acks[pid as usize];
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

    fn host_received(&mut self, ep: u32, node: u32) {
        self.deliveries[ep as usize] += 1;
        self.first_delivery[ep as usize].get_or_insert(self.now);
        let tx = self.trees.nodes[node as usize].tx;
        for k in 0..self.prog.after_message[tx as usize].len() {
            let t = self.prog.after_message[tx as usize][k];
            if self.prog.sender[t as usize] == ep && !self.prog.host_started[t as usize] {
                self.prog.host_started[t as usize] = true;
                let group = self.prog.group_of[t as usize];
                self.enqueue(ep, Unit::Host, Job::HostSend { group });
            }
        }
    }

    /// Queues the NI's next send if it is its turn and its packet is there.
    fn ni_advance(&mut self, ep: u32) {
        let e = &self.eps[ep as usize];
        if e.sending || e.blocked || e.next == e.seq.len() {
            return;
        }
        let pid = e.seq[e.next];
        if !self.prog.avail[pid as usize] {
            return;
        }
        let receivers = self.trees.ejections[(pid / self.m) as usize].len() as u32;
        let step = self.timing.step_sends && receivers > 0;
        let e = &mut self.eps[ep as usize];
        e.next += 1;
        e.sending = true;
        e.blocked = step;
        if step {
            self.prog.acks[pid as usize] = receivers;
        }
        self.enqueue(ep, Unit::Ni, Job::NiSend { pid });
    }

    /// The NI hands a packet copy to its link: a worm in NI memory with one branch, the
    /// transmission's injection channel.
    fn inject(&mut self, pid: u32) {
        let tx = pid / self.m;
        let flits = self.params.flits_for(self.params.packet_bytes(self.message_bytes, pid % self.m));
        let w = self.new_worm(pid, NONE, NONE, flits);
        self.worms[w].arrived = flits;
        self.worms[w].routed = true;
        let b = self.new_branch(w, self.trees.root[tx as usize]);
        self.packets_sent += 1;
        self.last_move = self.now;
        self.request_vc(b);
    }
}
