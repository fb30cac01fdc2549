//! What one plan asks of the endpoints, read straight from the plan: each transmission's
//! replication tree (decoded by the plan walker, the one decoder the checker and the simulator
//! share), who sends it, what triggers it, which host sends start together, and each NI's send
//! order (sivaram98 §4.2).

use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Discipline, Plan, Trigger};
use mcastlab_core::routing::Routing;
use std::collections::BTreeMap;

/// One channel a copy of a packet crosses.
#[derive(Clone, Debug)]
pub struct TreeNode {
    pub chan: usize,
    pub vc: usize,
    /// The endpoint behind the channel, if it leads to one.
    pub eject: Option<u32>,
    /// The channels the switch behind this one replicates the packet to, in the walker's order.
    pub children: Vec<usize>,
}

/// A transmission's replication tree; node 0 is the sender's injection channel.
#[derive(Clone, Debug)]
pub struct Tree {
    pub nodes: Vec<TreeNode>,
}

impl Tree {
    fn decode(f: &Fabric, r: &dyn Routing, plan: &Plan, tx: usize) -> Tree {
        let t = &plan.transmissions[tx];
        let walked = Walker::new(f, r, &plan.switch_state).walk(t.sender, &t.carrier);
        assert!(walked.problems.is_empty(), "transmission {tx}: {:?}", walked.problems);
        let inj = walked.injection.expect("the sender can inject");
        let mut nodes = vec![TreeNode { chan: inj.idx(), vc: 0, eject: None, children: Vec::new() }];
        for h in &walked.hops {
            let port = f.port(h.switch, h.out_port).expect("a decoded hop leaves through a connected port");
            let eject = match port.peer {
                Terminal::Endpoint { endpoint } => Some(endpoint.0),
                Terminal::Switch { .. } => None,
            };
            let chan = port.out.expect("a decoded hop can send").idx();
            nodes.push(TreeNode { chan, vc: h.out_vc as usize, eject, children: Vec::new() });
        }
        for (k, h) in walked.hops.iter().enumerate() {
            let parent = h.parent.map_or(0, |p| p as usize + 1);
            nodes[parent].children.push(k + 1);
        }
        Tree { nodes }
    }

    /// Nodes that end in an endpoint: the copies one packet of the transmission delivers.
    pub fn ejections(&self) -> usize {
        self.nodes.iter().filter(|n| n.eject.is_some()).count()
    }
}

/// A plan made ready for the reference model.
#[derive(Clone, Debug)]
pub struct Program {
    pub source: u32,
    pub destinations: Vec<u32>,
    pub trees: Vec<Tree>,
    pub sender: Vec<u32>,
    /// Host sends: the transmissions whose packets one host send hands to the NI.
    pub groups: Vec<Vec<usize>>,
    pub group_of: Vec<Option<usize>>,
    /// Groups the source's host starts when the message is created, in order.
    pub start_groups: Vec<usize>,
    /// Per transmission: the transmissions that forward it packet by packet / after the whole
    /// message.
    pub per_packet: Vec<Vec<usize>>,
    pub after_message: Vec<Vec<usize>>,
    /// Per sending endpoint: its NI's copies (transmission, packet) in send order.
    pub send_order: BTreeMap<u32, Vec<(usize, u32)>>,
}

impl Program {
    pub fn new(f: &Fabric, r: &dyn Routing, plan: &Plan) -> Program {
        let n = plan.transmissions.len();
        let trees = (0..n).map(|tx| Tree::decode(f, r, plan, tx)).collect();
        let sender: Vec<u32> = plan.transmissions.iter().map(|t| t.sender.0).collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of = vec![None; n];
        let mut per_packet = vec![Vec::new(); n];
        let mut after_message = vec![Vec::new(); n];
        let mut starts = Vec::new();
        for (tx, t) in plan.transmissions.iter().enumerate() {
            match t.trigger {
                Trigger::Start => starts.push(tx),
                Trigger::PerPacket { from } => per_packet[from as usize].push(tx),
                Trigger::AfterMessage { from } => after_message[from as usize].push(tx),
            }
            // A host send of its own: every host-forwarded transmission, and under the host
            // discipline every one the source starts (sivaram98 §3.3: one host send per child).
            let own = matches!(t.trigger, Trigger::AfterMessage { .. })
                || (t.trigger == Trigger::Start && plan.discipline == Discipline::Host);
            if own {
                group_of[tx] = Some(groups.len());
                groups.push(vec![tx]);
            }
        }
        // A smart NI takes the message from its host once and makes every copy (sivaram98 §4.1).
        if plan.discipline != Discipline::Host && !starts.is_empty() {
            for &tx in &starts {
                group_of[tx] = Some(groups.len());
            }
            groups.push(starts.clone());
        }
        let mut start_groups: Vec<usize> = Vec::new();
        for tx in starts {
            let g = group_of[tx].expect("a started transmission belongs to a host send");
            if !start_groups.contains(&g) {
                start_groups.push(g);
            }
        }
        Program {
            source: plan.source.0,
            destinations: plan.destinations.iter().map(|d| d.0).collect(),
            trees,
            sender,
            groups,
            group_of,
            start_groups,
            per_packet,
            after_message,
            send_order: send_order(plan),
        }
    }
}

/// Per packet, then per child under FPFS; per child, then per packet under FCFS and host
/// forwarding (sivaram98 §4.2); a sender's children are its transmissions in plan order.
fn send_order(plan: &Plan) -> BTreeMap<u32, Vec<(usize, u32)>> {
    let m = plan.packets;
    let mut mine: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (tx, t) in plan.transmissions.iter().enumerate() {
        mine.entry(t.sender.0).or_default().push(tx);
    }
    mine.into_iter()
        .map(|(ep, txs)| {
            let order = match plan.discipline {
                Discipline::NiFpfs => (0..m).flat_map(|j| txs.iter().map(move |&tx| (tx, j))).collect(),
                Discipline::NiFcfs | Discipline::Host => {
                    txs.iter().flat_map(|&tx| (0..m).map(move |j| (tx, j))).collect()
                }
            };
            (ep, order)
        })
        .collect()
}
