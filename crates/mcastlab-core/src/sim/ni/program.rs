//! The static program of a run's messages: every multicast (or unicast) a run carries is an
//! *instance* of a *template*.
//!
//! A template is one [`Plan`] made ready for timing: its transmissions' replication trees
//! (appended to the run's [`Trees`]), the host-send groups, the triggers, and each sending NI's
//! send order. It is static and may be shared by any number of instances: a uniform-traffic run
//! on 64 endpoints needs at most 64·63 templates however many packets it carries, so memory grows
//! with the distinct plans, not with the run's length (a workload of random multicast groups,
//! whose every message is a new plan, is the exception: its templates grow with its messages,
//! a few kilobytes each for a degree-15 binomial tree). What changes while one message is under
//! way is in `message.rs`.
//!
//! A run of one plan is one template with one instance created at time 0; its transmission and
//! packet numbering is the plan's own, so single-plan results are those of the engine before
//! workloads existed.

use crate::ids::EndpointId;
use crate::plan::{Discipline, Plan, Trigger};
use crate::sim::ids::{GroupId, NodeId, PacketId, TemplateId, TxId};
use crate::sim::trees::Trees;
use std::collections::BTreeMap;

/// One plan, ready to be instantiated.
#[derive(Clone, Debug)]
pub(crate) struct Template {
    /// First transmission and number of transmissions in the run's numbering.
    pub tx0: u32,
    pub ntx: u32,
    /// First tree node and number of nodes.
    pub node0: u32,
    pub nnodes: u32,
    pub source: EndpointId,
    /// In the plan's order.
    pub destinations: Vec<EndpointId>,
    /// Per tree node (template-local): the index in `destinations` of the endpoint the node
    /// ejects to, if it is a destination. A tail or a delivery knows its node, so finding its
    /// destination is one read (a search over the destinations was a third of a 65,535-endpoint
    /// broadcast's run time).
    pub node_dest: Vec<Option<u32>>,
    /// Host-send groups the source's host starts when the message is created, in order.
    pub start_groups: Vec<GroupId>,
    /// Transmissions the source starts (whose host send is therefore already under way).
    pub start_tx: Vec<TxId>,
    /// Per sending endpoint (ascending): its NI's packet copies, in send order (run-wide ids).
    pub senders: Vec<(EndpointId, Vec<PacketId>)>,
}

impl Template {
    /// The index among the destinations of the endpoint behind tree node `node`, if it is one.
    #[inline]
    pub(crate) fn dest_at(&self, node: NodeId) -> Option<usize> {
        self.node_dest[local_node(self, node)].map(|d| d as usize)
    }
}

/// What the templates say about sends and triggers, indexed by run-wide transmission.
#[derive(Default)]
pub(crate) struct Program {
    pub templates: Vec<Template>,
    /// Host-send groups: transmissions whose packets one host send makes available.
    pub groups: Vec<Vec<TxId>>,
    /// Group of each transmission that is a host send (`None` for NI forwarding).
    pub group_of: Vec<Option<GroupId>>,
    pub sender: Vec<EndpointId>,
    /// Index of the transmission's sender in its template's `senders`.
    pub slot: Vec<u32>,
    /// Transmissions forwarding transmission `t` per packet / after the whole message.
    pub per_packet: Vec<Vec<TxId>>,
    pub after_message: Vec<Vec<TxId>>,
    /// The transmission whose packets a per-packet forward sends on (`None` otherwise).
    pub forwards: Vec<Option<TxId>>,
    /// The source starts the transmission (oral's initial sends).
    pub starts: Vec<bool>,
    /// NIs that take each copy of the transmission (its tree's ejections), counted once per
    /// template rather than once per message.
    pub receivers: Vec<u32>,
}

impl Program {
    /// Appends the static program of `plan`, whose trees start at transmission `tx0` and node
    /// `node0` of `trees`; returns the template's id.
    pub(crate) fn add(&mut self, plan: &Plan, trees: &Trees, tx0: u32, node0: u32, m: u32) -> TemplateId {
        let nt = plan.transmissions.len() as u32;
        let mut t = Template {
            tx0,
            ntx: nt,
            node0,
            nnodes: trees.len() as u32 - node0,
            source: plan.source,
            destinations: plan.destinations.clone(),
            node_dest: Vec::new(),
            start_groups: Vec::new(),
            start_tx: Vec::new(),
            senders: Vec::new(),
        };
        let mut index: Vec<(EndpointId, u32)> =
            t.destinations.iter().enumerate().map(|(i, &d)| (d, i as u32)).collect();
        index.sort_unstable();
        let dest = |ep: EndpointId| index.binary_search_by_key(&ep, |&(e, _)| e).ok().map(|k| index[k].1);
        t.node_dest = trees.nodes()[node0 as usize..].iter().map(|n| n.eject.and_then(dest)).collect();
        let mut source_group = Vec::new();
        for (i, tr) in plan.transmissions.iter().enumerate() {
            let g = TxId::from_index((tx0 + i as u32) as usize);
            self.sender.push(tr.sender);
            self.per_packet.push(Vec::new());
            self.after_message.push(Vec::new());
            self.forwards.push(match tr.trigger {
                Trigger::PerPacket { from } => Some(TxId::from_index((tx0 + from) as usize)),
                _ => None,
            });
            self.group_of.push(None);
            self.starts.push(tr.trigger == Trigger::Start);
            self.receivers.push(trees.ejections(g).len() as u32);
            match tr.trigger {
                Trigger::Start if plan.discipline != Discipline::Host => source_group.push(g),
                Trigger::Start | Trigger::AfterMessage { .. } => {
                    self.group_of[g.idx()] = Some(GroupId::from_index(self.groups.len()));
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
            let g = GroupId::from_index(self.groups.len());
            for &tx in &source_group {
                self.group_of[tx.idx()] = Some(g);
            }
            self.groups.push(source_group);
        }
        for &tx in &t.start_tx {
            let g = self.group_of[tx.idx()].expect("a transmission the source starts is a host send");
            if !t.start_groups.contains(&g) {
                t.start_groups.push(g);
            }
        }
        t.senders = send_orders(plan, tx0, m);
        self.slot.resize((tx0 + nt) as usize, 0);
        for (k, (_, seq)) in t.senders.iter().enumerate() {
            for &pid in seq {
                self.slot[pid.tx(m).idx()] = k as u32;
            }
        }
        self.templates.push(t);
        TemplateId::from_index(self.templates.len() - 1)
    }

    pub(crate) fn template(&self, t: TemplateId) -> &Template {
        &self.templates[t.idx()]
    }
}

/// Each sending NI's copies in the step model's order (`plan::steps`): per packet, then per
/// child under FPFS; per child, then per packet under FCFS and host forwarding (sivaram98 §4.2).
fn send_orders(plan: &Plan, tx0: u32, m: u32) -> Vec<(EndpointId, Vec<PacketId>)> {
    let mut by_sender: BTreeMap<EndpointId, Vec<TxId>> = BTreeMap::new();
    for (i, t) in plan.transmissions.iter().enumerate() {
        by_sender.entry(t.sender).or_default().push(TxId::from_index((tx0 + i as u32) as usize));
    }
    by_sender
        .into_iter()
        .map(|(ep, list)| {
            let mut seq = Vec::with_capacity(list.len() * m as usize);
            match plan.discipline {
                Discipline::NiFpfs => (0..m).for_each(|j| seq.extend(list.iter().map(|&t| PacketId::new(t, j, m)))),
                Discipline::NiFcfs | Discipline::Host => {
                    list.iter().for_each(|&t| seq.extend((0..m).map(|j| PacketId::new(t, j, m))))
                }
            }
            (ep, seq)
        })
        .collect()
}

/// Template-local index of node `node` of a template starting at node `node0`.
#[inline]
pub(crate) fn local_node(t: &Template, node: NodeId) -> usize {
    (node.raw() - t.node0) as usize
}

/// Template-local index of packet copy `pid` of a template starting at transmission `tx0`.
#[inline]
pub(crate) fn local_pid(t: &Template, pid: PacketId, m: u32) -> usize {
    (pid.0 - t.tx0 * m) as usize
}
