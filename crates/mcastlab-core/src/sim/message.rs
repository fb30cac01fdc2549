//! Messages: every multicast (or unicast) a run carries is an *instance* of a *template*.
//!
//! A template is one [`Plan`] made ready for timing: its transmissions' replication trees
//! (appended to the run's [`Trees`]), the host-send groups, the triggers, and each sending NI's
//! send order. It is static and may be shared by any number of instances: a uniform-traffic run
//! on 64 endpoints needs at most 64·63 templates however many packets it carries, so memory grows
//! with the distinct plans, not with the run's length (a workload of random multicast groups,
//! whose every message is a new plan, is the exception: its templates grow with its messages,
//! a few kilobytes each for a degree-15 binomial tree). An instance ([`Msg`]) holds what changes
//! while one message is under way: which packet copies its NIs may send, how far each NI has got
//! through its send order, which packets reached each host, and when each destination got the
//! whole message.
//!
//! Instances live in a slab and are recycled. A reference count says how many things may still
//! act for the instance — jobs queued at a host, NI or DMA engine, packets in the network, tails
//! on their way into an NI, and entries in an NI's ready set — and when it drops to zero nothing
//! can happen to the message any more: it is complete (or, if some destination never got it, it
//! never will be), its record is handed to the caller and its slot is reused.
//!
//! A run of one plan (`Simulation::new`) is one template with one instance created at time 0;
//! its transmission and packet numbering is the plan's own, so single-plan results are those of
//! the engine before workloads existed.

use super::endpoint::Job;
use super::engine::Simulation;
use super::queue::Unit;
use super::switch::{Slab, NO_TIME};
use super::trees::Trees;
use super::NONE;
use crate::error::SimError;
use crate::plan::steps::steps;
use crate::plan::{Discipline, Plan, Trigger};
use crate::routing::Routing;
use std::collections::BTreeMap;

/// One plan, ready to be instantiated.
#[derive(Clone, Debug, Default)]
pub(crate) struct Template {
    /// First transmission and number of transmissions in the run's numbering.
    pub tx0: u32,
    pub ntx: u32,
    /// First tree node and number of nodes.
    pub node0: u32,
    pub nnodes: u32,
    pub source: u32,
    /// In the plan's order.
    pub destinations: Vec<u32>,
    /// (endpoint, index in `destinations`), sorted, for lookups on delivery.
    pub dest_index: Vec<(u32, u32)>,
    /// Host-send groups the source's host starts when the message is created, in order.
    pub start_groups: Vec<u32>,
    /// Transmissions the source starts (whose host send is therefore already under way).
    pub start_tx: Vec<u32>,
    /// Per sending endpoint (ascending): its NI's packet copies, in send order (run-wide ids).
    pub senders: Vec<(u32, Vec<u32>)>,
}

impl Template {
    /// Index of endpoint `ep` among the destinations.
    pub(crate) fn dest(&self, ep: u32) -> Option<usize> {
        self.dest_index.binary_search_by_key(&ep, |&(e, _)| e).ok().map(|k| self.dest_index[k].1 as usize)
    }
}

/// What the templates say about sends and triggers, indexed by run-wide transmission.
#[derive(Default)]
pub(crate) struct Program {
    pub templates: Vec<Template>,
    /// Host-send groups: transmissions whose packets one host send makes available.
    pub groups: Vec<Vec<u32>>,
    /// Group of each transmission that is a host send (`NONE` for NI forwarding).
    pub group_of: Vec<u32>,
    pub sender: Vec<u32>,
    /// Index of the transmission's sender in its template's `senders`.
    pub slot: Vec<u32>,
    /// Transmissions forwarding transmission `t` per packet / after the whole message.
    pub per_packet: Vec<Vec<u32>>,
    pub after_message: Vec<Vec<u32>>,
}

impl Program {
    /// Appends the static program of `plan`, whose trees start at transmission `tx0` and node
    /// `node0` of `trees`; returns the template's index.
    fn add(&mut self, plan: &Plan, trees: &Trees, tx0: u32, node0: u32, m: u32) -> u32 {
        let nt = plan.transmissions.len() as u32;
        let mut t = Template {
            tx0,
            ntx: nt,
            node0,
            nnodes: trees.nodes.len() as u32 - node0,
            source: plan.source.0,
            destinations: plan.destinations.iter().map(|d| d.0).collect(),
            ..Template::default()
        };
        t.dest_index = t.destinations.iter().enumerate().map(|(i, &d)| (d, i as u32)).collect();
        t.dest_index.sort_unstable();
        let mut source_group = Vec::new();
        for (i, tr) in plan.transmissions.iter().enumerate() {
            let g = tx0 + i as u32;
            self.sender.push(tr.sender.0);
            self.per_packet.push(Vec::new());
            self.after_message.push(Vec::new());
            self.group_of.push(NONE);
            match tr.trigger {
                Trigger::Start if plan.discipline != Discipline::Host => source_group.push(g),
                Trigger::Start | Trigger::AfterMessage { .. } => {
                    self.group_of[g as usize] = self.groups.len() as u32;
                    self.groups.push(vec![g]);
                }
                Trigger::PerPacket { .. } => {}
            }
            match tr.trigger {
                Trigger::PerPacket { from } => self.per_packet[(tx0 + from) as usize].push(g),
                Trigger::AfterMessage { from } => self.after_message[(tx0 + from) as usize].push(g),
                Trigger::Start => t.start_tx.push(g),
            }
        }
        if !source_group.is_empty() {
            let g = self.groups.len() as u32;
            for &tx in &source_group {
                self.group_of[tx as usize] = g;
            }
            self.groups.push(source_group);
        }
        for &tx in &t.start_tx {
            let g = self.group_of[tx as usize];
            if !t.start_groups.contains(&g) {
                t.start_groups.push(g);
            }
        }
        t.senders = send_orders(plan, tx0, m);
        self.slot.resize((tx0 + nt) as usize, NONE);
        for (k, (_, seq)) in t.senders.iter().enumerate() {
            for &pid in seq {
                self.slot[(pid / m) as usize] = k as u32;
            }
        }
        self.templates.push(t);
        self.templates.len() as u32 - 1
    }
}

/// Each sending NI's copies in the step model's order (`plan::steps`): per packet, then per
/// child under FPFS; per child, then per packet under FCFS and host forwarding (sivaram98 §4.2).
fn send_orders(plan: &Plan, tx0: u32, m: u32) -> Vec<(u32, Vec<u32>)> {
    let mut by_sender: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (i, t) in plan.transmissions.iter().enumerate() {
        by_sender.entry(t.sender.0).or_default().push(tx0 + i as u32);
    }
    by_sender
        .into_iter()
        .map(|(ep, list)| {
            let mut seq = Vec::with_capacity(list.len() * m as usize);
            match plan.discipline {
                Discipline::NiFpfs => (0..m).for_each(|j| seq.extend(list.iter().map(|t| t * m + j))),
                Discipline::NiFcfs | Discipline::Host => {
                    list.iter().for_each(|t| seq.extend((0..m).map(|j| t * m + j)))
                }
            }
            (ep, seq)
        })
        .collect()
}

/// One message under way.
#[derive(Clone, Debug, Default)]
pub(crate) struct Msg {
    pub tpl: u32,
    /// Creation order: NIs serve older messages first.
    pub serial: u64,
    pub created: u64,
    /// Things that may still act for this message (see the module doc).
    pub refs: u32,
    /// Per packet copy (template-local id): the NI may send it.
    pub avail: Vec<bool>,
    /// Per packet copy under `ni.send = step`: receiving NIs that have not yet taken it.
    pub acks: Vec<u32>,
    /// Per ejection node (template-local): packets DMA'd to the host.
    pub got: Vec<u32>,
    /// Per transmission (template-local): its host send has been started.
    pub host_started: Vec<bool>,
    /// Per sending NI (template slot): copies it has sent.
    pub cursor: Vec<u32>,
    /// Per destination: time from creation until its host had the whole message (`NO_TIME`
    /// until then), whole-message deliveries and packets its NI received.
    pub latency: Vec<u64>,
    pub deliveries: Vec<u32>,
    pub packets: Vec<u32>,
    /// Deliveries and packets at endpoints outside the destination set.
    pub extra_deliveries: u32,
    pub extra_packets: u32,
}

/// The record of a message nothing can act on any more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Completed {
    pub serial: u64,
    pub tpl: u32,
    pub created: u64,
    /// When its last job, packet or delivery was done.
    pub finished: u64,
    pub latency: Vec<u64>,
    pub deliveries: Vec<u32>,
    pub packets: Vec<u32>,
    pub extra_deliveries: u32,
    pub extra_packets: u32,
}

/// Resizes `v` to `n` copies of `x`, keeping its allocation.
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

impl Simulation<'_> {
    /// Makes `plan` available to messages of this run; returns its template. Checked as a plan
    /// run is: the fabric it was built for, its packet count for this run's message size, a
    /// forwarding order that does not wait on itself, and every carrier decodable.
    pub(crate) fn add_template(&mut self, r: &dyn Routing, plan: &Plan) -> Result<u32, SimError> {
        if plan.fabric != self.f.name() {
            return Err(SimError::param(
                "plan",
                format!("built for fabric `{}`, not `{}`", plan.fabric, self.f.name()),
            ));
        }
        if plan.packets != self.m {
            return Err(SimError::param(
                "message_bytes",
                format!(
                    "a {}-byte message makes {} packet(s) of at most {} bytes (link.mtu_bytes), \
                     but the plan was built for {} packet(s)",
                    self.message_bytes, self.m, self.params.link.mtu_bytes, plan.packets
                ),
            ));
        }
        steps(plan)?; // refuses a plan whose forwarding order waits on itself
        let (tx0, node0) = (self.trees.root.len() as u32, self.trees.nodes.len() as u32);
        self.trees.add(self.f, r, plan)?;
        Ok(self.prog.add(plan, &self.trees, tx0, node0, self.m))
    }

    /// Creates a message of template `tpl` now: the source's host starts its sends. Returns the
    /// message's serial number (creation order, from 0).
    pub(crate) fn start_message(&mut self, tpl: u32) -> u64 {
        let serial = self.next_serial;
        self.next_serial += 1;
        let t = &self.prog.templates[tpl as usize];
        let (m, now) = (self.m as usize, self.now);
        let (ntx, nodes, nd, ns) = (t.ntx as usize, t.nnodes as usize, t.destinations.len(), t.senders.len());
        let msg = self.msgs.alloc(|x| {
            x.tpl = tpl;
            x.serial = serial;
            x.created = now;
            x.refs = 0;
            refill(&mut x.avail, ntx * m, false);
            refill(&mut x.acks, ntx * m, 0);
            refill(&mut x.got, nodes, 0);
            refill(&mut x.host_started, ntx, false);
            refill(&mut x.cursor, ns, 0);
            refill(&mut x.latency, nd, NO_TIME);
            refill(&mut x.deliveries, nd, 0);
            refill(&mut x.packets, nd, 0);
            x.extra_deliveries = 0;
            x.extra_packets = 0;
        });
        let t = &self.prog.templates[tpl as usize];
        let (tx0, src) = (t.tx0, t.source);
        for k in 0..t.start_tx.len() {
            let tx = self.prog.templates[tpl as usize].start_tx[k];
            self.msgs[msg].host_started[(tx - tx0) as usize] = true;
        }
        for k in 0..self.prog.templates[tpl as usize].start_groups.len() {
            let group = self.prog.templates[tpl as usize].start_groups[k];
            self.enqueue(src, Unit::Host, Job::HostSend { msg, group });
        }
        if self.msgs[msg].refs == 0 {
            self.finish_message(msg); // a plan with nothing to send
        }
        serial
    }

    /// Template-local index of run-wide packet copy `pid` of message `msg`.
    #[inline]
    pub(crate) fn local_pid(&self, msg: u32, pid: u32) -> usize {
        (pid - self.prog.templates[self.msgs[msg].tpl as usize].tx0 * self.m) as usize
    }

    /// Template-local index of run-wide tree node `node` of message `msg`.
    #[inline]
    pub(crate) fn local_node(&self, msg: u32, node: u32) -> usize {
        (node - self.prog.templates[self.msgs[msg].tpl as usize].node0) as usize
    }

    /// Something more may act for message `msg`.
    #[inline]
    pub(crate) fn add_ref(&mut self, msg: u32) {
        self.msgs[msg].refs += 1;
    }

    /// One thing acting for message `msg` is done; at zero the message is finished.
    #[inline]
    pub(crate) fn unref(&mut self, msg: u32) {
        let x = &mut self.msgs[msg];
        x.refs -= 1;
        if x.refs == 0 {
            self.finish_message(msg);
        }
    }

    fn finish_message(&mut self, msg: u32) {
        if let Some(out) = &mut self.completed {
            let x = &mut self.msgs[msg];
            out.push(Completed {
                serial: x.serial,
                tpl: x.tpl,
                created: x.created,
                finished: self.now,
                latency: x.latency.clone(),
                deliveries: x.deliveries.clone(),
                packets: x.packets.clone(),
                extra_deliveries: x.extra_deliveries,
                extra_packets: x.extra_packets,
            });
        }
        self.msgs.release(msg);
    }
}

/// The message slab type, named for the engine's field.
pub(crate) type Msgs = Slab<Msg>;
