//! The routes the simulator replays: every transmission's carrier decoded by the plan walker
//! ([`crate::plan::walk::Walker`]) into its replication tree, flattened into index arrays.
//!
//! A tree *node* is one channel a copy of the packet crosses: node 0 of a transmission is the
//! sender's injection channel, and every turn the walker records becomes a node for its output
//! channel, with the node that brought the packet to that switch as parent. The children of a
//! node are therefore exactly the output branches a switch replicates the packet to when it
//! arrives through that node's channel, so each header is decoded exactly as the checker decodes
//! it. Nothing here knows about timing.
//!
//! Under a routing that chooses per packet (`dor:tie=random`, `nca:up=random|adaptive`:
//! [`Routing::run_time_choice`]) a unicast decodes into the tree of *every* legal route, and a
//! node whose switch offers several hops is a *fork*: its children are alternatives, of which
//! each packet takes one, chosen as its head is routed there (`sim::net::choice`). All of a
//! route's ejection nodes deliver to the same NI, so they stand for the first of them (the
//! deterministic route's) towards the endpoints ([`Trees::delivery`]): a message of several
//! packets on several routes is received once. A multidestination worm whose leg meets such a
//! choice is refused ([`SimError::RunTimeChoice`]); carriers decoded by tables or bit strings
//! never meet one.

use super::ids::{NodeId, PacketId, TxId};
use crate::error::SimError;
use crate::fabric::{Channel, Fabric, Terminal};
use crate::ids::EndpointId;
use crate::plan::walk::Walker;
use crate::plan::{Carrier, Plan};
use crate::routing::{ChoiceRule, Routing};

/// One channel of a replication tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Transmission the node belongs to.
    pub tx: TxId,
    /// Channel the packet crosses.
    pub chan: Channel,
    /// VC class on that channel.
    pub vc: u8,
    /// The endpoint behind the channel; `None` when it leads to a switch.
    pub eject: Option<EndpointId>,
    /// `children[first .. first + count]` are the branches at the switch the channel leads to.
    pub first: u32,
    pub count: u32,
    /// A fork: its children are alternative routes, one per packet, picked by this rule.
    pub fork: Option<ChoiceRule>,
}

/// All transmissions' trees, of every plan (template) the run carries, one after the other: a
/// transmission index is global to the run, so packet ids and node indices need no translation on
/// the hot paths.
#[derive(Default)]
pub(crate) struct Trees {
    nodes: Vec<Node>,
    children: Vec<NodeId>,
    /// Per transmission: its injection node.
    root: Vec<NodeId>,
    /// Per transmission: its ejection nodes (one per copy delivered to an endpoint).
    ejections: Vec<Vec<NodeId>>,
    /// Per transmission: a Quadrics range multicast, whose replication asks for all its output
    /// VCs at once (`gang.rs`).
    gang: Vec<bool>,
    /// The ejection nodes of alternative routes with the node they deliver as, by node (appended
    /// in node order, so sorted); empty without forks.
    alias: Vec<(NodeId, NodeId)>,
    /// The run's seed, from which random forks draw.
    seed: u64,
}

impl Trees {
    /// No trees yet; random forks will draw from `seed`.
    pub(crate) fn new(seed: u64) -> Trees {
        Trees { seed, ..Trees::default() }
    }

    /// The ejection node a copy arriving through ejection node `n` is delivered as: `n` itself,
    /// or for an alternative route the first route's ejection node (see the module doc).
    #[inline]
    pub(crate) fn delivery(&self, n: NodeId) -> NodeId {
        if self.alias.is_empty() {
            return n;
        }
        match self.alias.binary_search_by_key(&n, |&(a, _)| a) {
            Ok(k) => self.alias[k].1,
            Err(_) => n,
        }
    }

    /// Which child of fork `n` (node `node`) packet `pid` of the message numbered `serial`
    /// takes under a random rule: uniform, from the ChaCha8 stream of the run seed keyed by
    /// those three (`rng::stream`), so the draw is the same whatever the event order or model.
    pub(crate) fn draw(&self, node: NodeId, serial: u64, pid: PacketId) -> usize {
        use rand::Rng;
        let n = self.node(node).count;
        let key = serial.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ ((pid.0 as u64) << 32 | node.raw() as u64);
        crate::rng::stream(self.seed, "route-choice", key).random_range(0..n) as usize
    }
    /// Tree node `n`.
    #[inline(always)]
    pub(crate) fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.idx()]
    }

    /// The branches at the switch node `n`'s channel leads to: its children, in the walker's order.
    #[inline]
    pub(crate) fn children(&self, n: &Node) -> &[NodeId] {
        &self.children[n.first as usize..(n.first + n.count) as usize]
    }

    /// The injection node of transmission `tx`.
    #[inline]
    pub(crate) fn root(&self, tx: TxId) -> NodeId {
        self.root[tx.idx()]
    }

    /// The ejection nodes of transmission `tx` (one per copy delivered to an endpoint).
    #[inline]
    pub(crate) fn ejections(&self, tx: TxId) -> &[NodeId] {
        &self.ejections[tx.idx()]
    }

    /// Whether transmission `tx` is a Quadrics range multicast, whose replication asks for all its
    /// output VCs at once.
    #[inline]
    pub(crate) fn gang(&self, tx: TxId) -> bool {
        self.gang[tx.idx()]
    }

    /// Transmissions so far.
    pub(crate) fn transmissions(&self) -> usize {
        self.root.len()
    }

    /// Tree nodes so far.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Every tree node.
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Decodes every carrier of `plan` and appends its trees (transmission `i` of the plan becomes
    /// transmission `root.len() + i` of the run). A carrier the switches cannot decode (no route,
    /// a port leading nowhere, a forwarding loop) is an error, because no timing can be given to
    /// it; nothing is appended then.
    pub(crate) fn add(&mut self, f: &Fabric, r: &dyn Routing, plan: &Plan) -> Result<(), SimError> {
        let choice = r.run_time_choice();
        let walker = match &choice {
            Some(_) => Walker::new(f, r, &plan.switch_state).every_choice(),
            None => Walker::new(f, r, &plan.switch_state),
        };
        let mut trees = Vec::with_capacity(plan.transmissions.len());
        for (i, tr) in plan.transmissions.iter().enumerate() {
            let tree = walker.walk(tr.sender, &tr.carrier);
            if let Some(p) = tree.problems.first() {
                return Err(SimError::Undecodable { transmission: i, message: p.clone() });
            }
            if let (Some(c), Some(at)) = (&choice, tree.worm_choice) {
                return Err(SimError::RunTimeChoice {
                    routing: r.spec(),
                    option: c.option.clone(),
                    transmission: i,
                    switch: f.switch(at).name.clone(),
                });
            }
            let Some(inj) = tree.injection else {
                return Err(SimError::Undecodable {
                    transmission: i,
                    message: format!("endpoint {} cannot send into the fabric", f.endpoint(tr.sender).name),
                });
            };
            trees.push((inj, tree));
        }
        let rule = choice.map(|c| c.rule);
        for ((inj, tree), tr) in trees.into_iter().zip(&plan.transmissions) {
            self.push(f, inj, &tree, rule);
            self.gang.push(matches!(tr.carrier, Carrier::Range { .. }));
        }
        Ok(())
    }

    /// Appends one decoded transmission.
    fn push(&mut self, f: &Fabric, inj: Channel, tree: &crate::plan::walk::CarrierTree, rule: Option<ChoiceRule>) {
        let t = self;
        let tx = TxId::from_index(t.root.len());
        let base = t.nodes.len() as u32;
        let node = |k: u32| NodeId::from_index((base + k) as usize);
        t.root.push(node(0));
        t.nodes.push(Node { tx, chan: inj, vc: 0, eject: None, first: 0, count: 0, fork: None });
        let mut ejections = Vec::new();
        for (k, h) in tree.hops.iter().enumerate() {
            let pp = f.port(h.switch, h.out_port).expect("the walker reports unconnected ports as problems");
            let chan = pp.out.expect("the walker reports directed links as problems");
            let eject = match pp.peer {
                Terminal::Endpoint { endpoint } => {
                    ejections.push(node(1 + k as u32));
                    Some(endpoint)
                }
                Terminal::Switch { .. } => None,
            };
            t.nodes.push(Node { tx, chan, vc: h.out_vc, eject, first: 0, count: 0, fork: None });
        }
        if let Some(rule) = rule.filter(|_| !tree.forks.is_empty()) {
            for &p in &tree.forks {
                t.nodes[(base + p.map_or(0, |p| 1 + p)) as usize].fork = Some(rule);
            }
            // Every route ends at the one destination: its ejections are one delivery.
            if let Some((&first, rest)) = ejections.split_first() {
                t.alias.extend(rest.iter().map(|&e| (e, first)));
                ejections.truncate(1);
            }
        }
        // Children lists, grouped by parent in hop order (the walker's order of branches).
        let parent_of = |h: &crate::plan::walk::TreeHop| h.parent.map(|p| 1 + p).unwrap_or(0);
        let mut kids: Vec<(u32, u32)> =
            tree.hops.iter().enumerate().map(|(k, h)| (parent_of(h), 1 + k as u32)).collect();
        kids.sort_by_key(|&(p, _)| p);
        let mut at = 0;
        while at < kids.len() {
            let p = kids[at].0;
            let first = t.children.len() as u32;
            while at < kids.len() && kids[at].0 == p {
                t.children.push(node(kids[at].1));
                at += 1;
            }
            let node = &mut t.nodes[(base + p) as usize];
            node.first = first;
            node.count = t.children.len() as u32 - first;
        }
        t.ejections.push(ejections);
    }
}
