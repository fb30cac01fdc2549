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
use crate::plan::walk::{CarrierTree, Walker};
use crate::plan::{Carrier, Plan};
use crate::routing::{ChoiceRule, Routing};
use smallvec::SmallVec;

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

/// What the trees say about one transmission, in one record (as separate tables each field read
/// per message was a cache miss of its own).
#[derive(Clone, Debug)]
struct TxTree {
    /// Its injection node.
    root: NodeId,
    /// Its index within its template, which (with the node's index within the transmission) keys
    /// a random fork's draw, so the draw does not depend on where the template lies in these
    /// tables.
    local: u32,
    /// A Quadrics range multicast, whose replication asks for all its output VCs at once
    /// (`gang.rs`).
    gang: bool,
    /// Its ejection nodes (one per copy delivered to an endpoint); inline for a unicast's one.
    ejections: SmallVec<[NodeId; 2]>,
}

/// All transmissions' trees, of every plan (template) the run carries, one after the other: a
/// transmission index is global to the run, so packet ids and node indices need no translation on
/// the hot paths. A template's trees take one contiguous range of each table ([`Span`]); a
/// retired template's ranges are written over by the next template of the same shape
/// (`ni::program`), so the tables grow with the templates held, not with the run's messages.
#[derive(Default)]
pub(crate) struct Trees {
    nodes: Vec<Node>,
    children: Vec<NodeId>,
    /// Per transmission.
    txs: Vec<TxTree>,
    /// The ejection nodes of alternative routes with the node they deliver as, by node (appended
    /// in node order, so sorted); empty without forks.
    alias: Vec<(NodeId, NodeId)>,
    /// The run's seed, from which random forks draw, and its packets per message.
    seed: u64,
    packets: u32,
    /// `put_tx`'s (parent, child) list, kept for its capacity (a list per template placed).
    kids: Vec<(u32, u32)>,
}

impl Trees {
    /// No trees yet; random forks will draw from `seed`, for messages of `packets` packets.
    pub(crate) fn new(seed: u64, packets: u32) -> Trees {
        Trees { seed, packets, ..Trees::default() }
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
    /// takes under a random rule: uniform, from the ChaCha8 stream of the run seed keyed by the
    /// serial, the packet's number, and the transmission and node by their places within the
    /// template (`rng::stream`), so the draw is the same whatever the event order, the model, or
    /// where the template lies (recycled templates move).
    pub(crate) fn draw(&self, node: NodeId, serial: u64, pid: PacketId) -> usize {
        use rand::Rng;
        let x = self.node(node);
        let local_node = node.raw() - self.root(x.tx).raw();
        let place = (self.txs[x.tx.idx()].local as u64) << 32 | local_node as u64;
        let key = serial.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ (pid.packet(self.packets) as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9)
            ^ place.wrapping_mul(0x94d0_49bb_1331_11eb);
        crate::rng::stream(self.seed, "route-choice", key).random_range(0..x.count) as usize
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
        self.txs[tx.idx()].root
    }

    /// The ejection nodes of transmission `tx` (one per copy delivered to an endpoint).
    #[inline]
    pub(crate) fn ejections(&self, tx: TxId) -> &[NodeId] {
        &self.txs[tx.idx()].ejections
    }

    /// Whether transmission `tx` is a Quadrics range multicast, whose replication asks for all its
    /// output VCs at once.
    #[inline]
    pub(crate) fn gang(&self, tx: TxId) -> bool {
        self.txs[tx.idx()].gang
    }

    /// Tree nodes so far.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Every tree node.
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Decodes every carrier of `plan` into its replication tree. A carrier the switches cannot
    /// decode (no route, a port leading nowhere, a forwarding loop) is an error, because no timing
    /// can be given to it; nothing is placed then.
    pub(crate) fn decode(&self, f: &Fabric, r: &dyn Routing, plan: &Plan) -> Result<Decoded, SimError> {
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
            trees.push((inj, tree, matches!(tr.carrier, Carrier::Range { .. })));
        }
        Ok(Decoded { trees, rule: choice.map(|c| c.rule) })
    }

    /// Where the next template's trees would be appended, for `d`.
    pub(crate) fn end_span(&self, d: &Decoded) -> Span {
        Span {
            tx0: self.txs.len() as u32,
            ntx: d.trees.len() as u32,
            node0: self.nodes.len() as u32,
            nnodes: d.nodes(),
            child0: self.children.len() as u32,
        }
    }

    /// Places the decoded trees at `span` (transmission `i` of the plan becomes transmission
    /// `span.tx0 + i` of the run): appended when the span starts at the end of every array, or
    /// written over the trees of a template no message uses any more (`Endpoints::recycle`),
    /// which had exactly this many transmissions and nodes.
    pub(crate) fn place(&mut self, f: &Fabric, d: &Decoded, span: Span) {
        debug_assert_eq!((span.ntx, span.nnodes), (d.trees.len() as u32, d.nodes()));
        // The old trees' alternative routes go; the new ones' are inserted in node order below.
        let range = span.node0..span.node0 + span.nnodes;
        let (lo, hi) = (self.alias_at(range.start), self.alias_at(range.end));
        let mut alias = Vec::new();
        let (mut node, mut child) = (span.node0, span.child0);
        for (i, (inj, tree, gang)) in d.trees.iter().enumerate() {
            let tx = TxId::from_index((span.tx0 as usize) + i);
            let (root, ejections) = self.put_tx(f, tx, *inj, tree, d.rule, (&mut node, &mut child), &mut alias);
            put(&mut self.txs, tx.idx(), TxTree { root, local: i as u32, gang: *gang, ejections });
        }
        self.alias.splice(lo..hi, alias);
    }

    /// The position in `alias` of the first entry for a node at or after `n`.
    fn alias_at(&self, n: u32) -> usize {
        self.alias.partition_point(|&(a, _)| a.raw() < n)
    }

    /// Writes the nodes of one decoded transmission `tx` from `*node` on and their children
    /// lists from `*child` on (both advanced past what it takes); its alternative routes'
    /// ejections go to `alias`. Returns its root and ejection nodes.
    #[allow(clippy::too_many_arguments)]
    fn put_tx(
        &mut self,
        f: &Fabric,
        tx: TxId,
        inj: Channel,
        tree: &CarrierTree,
        rule: Option<ChoiceRule>,
        (node, child): (&mut u32, &mut u32),
        alias: &mut Vec<(NodeId, NodeId)>,
    ) -> (NodeId, SmallVec<[NodeId; 2]>) {
        let t = self;
        let base = *node;
        let at = |k: u32| NodeId::from_index((base + k) as usize);
        put(&mut t.nodes, base as usize, Node { tx, chan: inj, vc: 0, eject: None, first: 0, count: 0, fork: None });
        let mut ejections = SmallVec::new();
        for (k, h) in tree.hops.iter().enumerate() {
            let pp = f.port(h.switch, h.out_port).expect("the walker reports unconnected ports as problems");
            let chan = pp.out.expect("the walker reports directed links as problems");
            let eject = match pp.peer {
                Terminal::Endpoint { endpoint } => {
                    ejections.push(at(1 + k as u32));
                    Some(endpoint)
                }
                Terminal::Switch { .. } => None,
            };
            let n = Node { tx, chan, vc: h.out_vc, eject, first: 0, count: 0, fork: None };
            put(&mut t.nodes, (base + 1) as usize + k, n);
        }
        if let Some(rule) = rule.filter(|_| !tree.forks.is_empty()) {
            for &p in &tree.forks {
                t.nodes[(base + p.map_or(0, |p| 1 + p)) as usize].fork = Some(rule);
            }
            // Every route ends at the one destination: its ejections are one delivery.
            if let Some((&first, rest)) = ejections.split_first() {
                alias.extend(rest.iter().map(|&e| (e, first)));
                ejections.truncate(1);
            }
        }
        // Children lists, grouped by parent in hop order (the walker's order of branches).
        let parent_of = |h: &crate::plan::walk::TreeHop| h.parent.map(|p| 1 + p).unwrap_or(0);
        let mut kids = std::mem::take(&mut t.kids);
        kids.clear();
        kids.extend(tree.hops.iter().enumerate().map(|(k, h)| (parent_of(h), 1 + k as u32)));
        kids.sort_by_key(|&(p, _)| p);
        let mut k = 0;
        while k < kids.len() {
            let p = kids[k].0;
            let first = *child;
            while k < kids.len() && kids[k].0 == p {
                put(&mut t.children, *child as usize, at(kids[k].1));
                *child += 1;
                k += 1;
            }
            let n = &mut t.nodes[(base + p) as usize];
            n.first = first;
            n.count = *child - first;
        }
        t.kids = kids;
        *node += 1 + tree.hops.len() as u32;
        (at(0), ejections)
    }
}

/// A plan's carriers decoded, not yet placed: per transmission its injection channel, its tree
/// and whether it is a Quadrics range multicast.
pub(crate) struct Decoded {
    trees: Vec<(Channel, CarrierTree, bool)>,
    rule: Option<ChoiceRule>,
}

impl Decoded {
    /// Tree nodes the trees take: per transmission its injection node and one per hop.
    pub(crate) fn nodes(&self) -> u32 {
        self.trees.iter().map(|(_, t, _)| 1 + t.hops.len() as u32).sum()
    }
}

/// Where one template's trees lie in the run's arrays: transmissions, nodes and children lists,
/// each one contiguous range (a tree has one child entry per node but its root, so the children
/// take `nnodes - ntx` entries from `child0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub tx0: u32,
    pub ntx: u32,
    pub node0: u32,
    pub nnodes: u32,
    pub child0: u32,
}

/// Sets `v[i]` to `x`, or appends it when `i` is one past the end: the one way to write a
/// template's entries whether they are new or reuse a retired template's place.
pub(crate) fn put<T>(v: &mut Vec<T>, i: usize, x: T) {
    if i == v.len() {
        v.push(x);
    } else {
        v[i] = x;
    }
}
