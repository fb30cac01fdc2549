//! Endpoints: a host CPU, an NI processor and a DMA engine, each a server that runs one job at a
//! time in the order the jobs reached it, and the NI's choice of its next packet copy.

use super::Model;
use std::collections::VecDeque;

/// Which server of an endpoint; the order of the variants is the order in which servers finishing
/// at the same instant are handled (after the lower endpoint numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    Host = 0,
    Ni = 1,
    Dma = 2,
}

/// A job, for message `msg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    HostSend { msg: usize, group: usize },
    HostRecv { msg: usize, tx: usize, node: usize },
    NiSend { msg: usize, tx: usize, j: u32 },
    NiRecv { msg: usize, tx: usize, j: u32, node: usize },
    DmaToNi { msg: usize, group: usize, j: u32 },
    DmaToHost { msg: usize, tx: usize, j: u32, node: usize },
}

#[derive(Clone, Debug, Default)]
pub struct Server {
    pub waiting: VecDeque<Job>,
    /// The job running and when it ends.
    pub running: Option<(Job, u64)>,
    pub busy_ps: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Endpoint {
    pub servers: [Server; 3],
    /// The NI has a send job queued or running.
    pub sending: bool,
    /// `ni.send = step`: the NI waits until every receiver of its last copy has taken it.
    pub blocked: bool,
}

impl Model<'_> {
    fn duration(&self, job: Job) -> u64 {
        let p = self.params;
        let dma = |j: u32| p.ni.dma_bandwidth.time_for_bytes(p.packet_bytes(self.bytes, j));
        match job {
            Job::HostSend { .. } => p.host.t_hs.ps(),
            Job::HostRecv { .. } => p.host.t_hr.ps(),
            Job::NiSend { .. } => p.ni.t_ns.ps(),
            Job::NiRecv { .. } => p.ni.t_nr.ps(),
            Job::DmaToNi { j, .. } | Job::DmaToHost { j, .. } => dma(j),
        }
    }

    /// Gives `job` to a server; an idle server starts it at once.
    pub(super) fn enqueue(&mut self, ep: u32, unit: Unit, job: Job) {
        self.eps[ep as usize].servers[unit as usize].waiting.push_back(job);
        self.start_next(ep, unit);
    }

    fn start_next(&mut self, ep: u32, unit: Unit) {
        let s = &self.eps[ep as usize].servers[unit as usize];
        if s.running.is_some() {
            return;
        }
        let Some(&job) = s.waiting.front() else { return };
        let d = self.duration(job);
        let s = &mut self.eps[ep as usize].servers[unit as usize];
        s.waiting.pop_front();
        s.running = Some((job, self.now + d));
        s.busy_ps += d;
    }

    /// The server, among those whose job ends now, that comes first (lowest endpoint, then host,
    /// NI, DMA). Found by scanning every server.
    pub(super) fn next_finishing(&self) -> Option<(u32, Unit)> {
        for (ep, e) in self.eps.iter().enumerate() {
            for unit in [Unit::Host, Unit::Ni, Unit::Dma] {
                if let Some((_, end)) = e.servers[unit as usize].running {
                    assert!(end >= self.now, "a job of endpoint {ep} ended at {end} between two steps");
                    if end == self.now {
                        return Some((ep as u32, unit));
                    }
                }
            }
        }
        None
    }

    /// Ends the running job of one server and does what its end causes.
    pub(super) fn finish(&mut self, ep: u32, unit: Unit) {
        let (job, _) = self.eps[ep as usize].servers[unit as usize].running.take().expect("a job ends");
        match job {
            Job::HostSend { msg, group } => {
                for j in 0..self.m {
                    self.enqueue(ep, Unit::Dma, Job::DmaToNi { msg, group, j });
                }
            }
            Job::DmaToNi { msg, group, j } => {
                let prog = self.msgs[msg].prog.clone();
                for &tx in &prog.groups[group] {
                    self.msgs[msg].avail[tx][j as usize] = true;
                }
                self.advance(ep);
            }
            Job::NiSend { msg, tx, j } => {
                self.inject(msg, tx, j);
                self.eps[ep as usize].sending = false;
                self.advance(ep);
            }
            Job::NiRecv { msg, tx, j, node } => self.ni_received(ep, msg, tx, j, node),
            Job::DmaToHost { msg, tx, j: _, node } => {
                let got = &mut self.msgs[msg].got[tx][node];
                *got += 1;
                if *got == self.m {
                    self.enqueue(ep, Unit::Host, Job::HostRecv { msg, tx, node });
                }
            }
            Job::HostRecv { msg, tx, node: _ } => self.host_received(ep, msg, tx),
        }
        self.start_next(ep, unit);
    }

    fn ni_received(&mut self, ep: u32, msg: usize, tx: usize, j: u32, node: usize) {
        self.enqueue(ep, Unit::Dma, Job::DmaToHost { msg, tx, j, node });
        let prog = self.msgs[msg].prog.clone();
        for &fwd in &prog.per_packet[tx] {
            if prog.sender[fwd] == ep {
                self.msgs[msg].avail[fwd][j as usize] = true;
            }
        }
        self.advance(ep);
        if self.step_sends {
            let left = &mut self.msgs[msg].acks[tx][j as usize];
            if *left > 0 {
                *left -= 1;
                if *left == 0 {
                    let s = prog.sender[tx];
                    self.eps[s as usize].blocked = false;
                    self.advance(s);
                }
            }
        }
    }

    fn host_received(&mut self, ep: u32, msg: usize, tx: usize) {
        let now = self.now;
        let x = &mut self.msgs[msg];
        x.deliveries[ep as usize] += 1;
        x.first_delivery[ep as usize].get_or_insert(now);
        let prog = x.prog.clone();
        for &fwd in &prog.after_message[tx] {
            if prog.sender[fwd] == ep && !self.msgs[msg].host_started[fwd] {
                self.msgs[msg].host_started[fwd] = true;
                let group = prog.group_of[fwd].expect("a host-forwarded transmission is a host send");
                self.enqueue(ep, Unit::Host, Job::HostSend { msg, group });
            }
        }
    }

    /// If the NI is free to send, queues its next copy: of the oldest message (creation order)
    /// whose next copy in that message's own send order it may send.
    pub(super) fn advance(&mut self, ep: u32) {
        let e = &self.eps[ep as usize];
        if e.sending || e.blocked {
            return;
        }
        for msg in 0..self.msgs.len() {
            let x = &self.msgs[msg];
            let Some(order) = x.prog.send_order.get(&ep) else { continue };
            let at = x.cursor[&ep];
            let Some(&(tx, j)) = order.get(at) else { continue };
            if !x.avail[tx][j as usize] {
                continue;
            }
            let receivers = x.prog.trees[tx].ejections() as u32;
            let x = &mut self.msgs[msg];
            *x.cursor.get_mut(&ep).unwrap() += 1;
            let step = self.step_sends && receivers > 0;
            if step {
                x.acks[tx][j as usize] = receivers;
            }
            let e = &mut self.eps[ep as usize];
            e.sending = true;
            e.blocked = step;
            self.enqueue(ep, Unit::Ni, Job::NiSend { msg, tx, j });
            return;
        }
    }

    /// A new message: its source's host starts the message's first host sends.
    pub(super) fn create(&mut self, msg: usize) {
        let prog = self.msgs[msg].prog.clone();
        for &g in &prog.start_groups {
            for &tx in &prog.groups[g] {
                self.msgs[msg].host_started[tx] = true;
            }
            self.enqueue(prog.source, Unit::Host, Job::HostSend { msg, group: g });
        }
    }

    /// A packet's tail is in the NI's memory: the NI processor takes it in its turn.
    pub(super) fn tail_in(&mut self, msg: usize, tx: usize, j: u32, node: usize, ep: u32) {
        self.out.packets_received += 1;
        self.msgs[msg].packets[ep as usize] += 1;
        self.enqueue(ep, Unit::Ni, Job::NiRecv { msg, tx, j, node });
    }

    pub(super) fn endpoints_idle(&self) -> bool {
        self.eps.iter().all(|e| e.servers.iter().all(|s| s.running.is_none() && s.waiting.is_empty()))
    }
}
