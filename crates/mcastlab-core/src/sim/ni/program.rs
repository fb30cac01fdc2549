//! The static program of a run's messages: every multicast (or unicast) a run carries is an
//! *instance* of a *template*.
//!
//! A template is one [`Plan`] made ready for timing: its transmissions' replication trees
//! (appended to the run's [`Trees`]), the host-send groups, the triggers, and each sending NI's
//! send order. It is static and may be shared by any number of instances: a uniform-traffic run
//! on 64 endpoints needs at most 64·63 templates however many packets it carries, so memory grows
//! with the distinct plans, not with the run's length. What changes while one message is under way
//! is in `message.rs`.
//!
//! A workload keeps the templates it built for the pairs that come again, up to
//! `limits.kept_templates`; beyond that, a template no message uses any more is *retired*
//! ([`Program::retire`]) and the next template of the same shape (transmissions, tree nodes and
//! host-send groups) takes its id and its places in every table, written over in place. Random
//! pairs on a 65,536-endpoint fabric almost never repeat, so without this every message would
//! add its template for the rest of the run (about 840 bytes each, issue 12). What a run reports
//! never depends on where a template lies (`tests/sim_template_recycling.rs`).
//!
//! A run of one plan is one template with one instance created at time 0; its transmission and
//! packet numbering is the plan's own, so single-plan results are those of the engine before
//! workloads existed.

use super::message::TxState;
use crate::ids::EndpointId;
use crate::plan::{Discipline, Plan, Trigger};
use crate::sim::ids::{GroupId, NodeId, PacketId, TemplateId, TxId};
use crate::sim::trees::{put, Span, Trees};
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// How a template finds which of its destinations a tree node ejects to.
#[derive(Clone, Debug)]
pub(crate) enum DestIndex {
    /// Up to [`SCAN_DESTINATIONS`] destinations: searched for the node's endpoint, in place (they
    /// sit in the template's own cache lines; a table per node was a line more per message).
    Scan,
    /// More: per tree node (template-local), the index, read in one step (a search over the
    /// destinations was a third of a 65,535-endpoint broadcast's run time).
    ByNode(Vec<Option<u32>>),
}

/// Per sending NI, its packet copies in send order; inline for one sender of up to two copies.
pub(crate) type Senders = SmallVec<[(EndpointId, SmallVec<[PacketId; 2]>); 1]>;

/// One plan, ready to be instantiated. A message reads its template at every step; the lists a
/// unicast has (one destination, one sender and its send order, one start group) are stored
/// inline, so that reading them is not a cache miss into a heap block of their own per template
/// (a uniform run on 64 endpoints cycles through one template per source-destination pair,
/// 4,096 with self-sends: megabytes of them).
#[derive(Clone, Debug)]
pub(crate) struct Template {
    /// First transmission and number of transmissions in the run's numbering.
    pub tx0: u32,
    pub ntx: u32,
    /// First tree node and number of nodes.
    pub node0: u32,
    pub nnodes: u32,
    /// First entry of its trees' children lists (`Span::child0`).
    pub child0: u32,
    /// First host-send group and number of groups.
    pub group0: u32,
    pub ngroups: u32,
    pub source: EndpointId,
    /// In the plan's order.
    pub destinations: SmallVec<[EndpointId; 2]>,
    /// Which destination a tree node ejects to.
    pub dest_index: DestIndex,
    /// Host-send groups the source's host starts when the message is created, in order.
    pub start_groups: SmallVec<[GroupId; 2]>,
    /// Transmissions the source starts (whose host send is therefore already under way).
    pub start_tx: SmallVec<[TxId; 2]>,
    /// Per sending endpoint (ascending): its NI's packet copies, in send order (run-wide ids).
    pub senders: Senders,
}

impl Template {
    /// The index among the destinations of endpoint `ep`, behind ejection node `node`, if it is
    /// one.
    #[inline]
    pub(crate) fn dest_at(&self, node: NodeId, ep: EndpointId) -> Option<usize> {
        match &self.dest_index {
            DestIndex::Scan => scan(&self.destinations, ep),
            DestIndex::ByNode(v) => v[local_node(self.node0, node)],
        }
        .map(|d| d as usize)
    }

    /// Where its trees lie.
    pub(crate) fn span(&self) -> Span {
        Span { tx0: self.tx0, ntx: self.ntx, node0: self.node0, nnodes: self.nnodes, child0: self.child0 }
    }
}

/// Where a template goes: a new one at the end of every table, or the place of a retired
/// template of the same shape (`Endpoints::recycle`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub span: Span,
    pub group0: u32,
    /// The retired template whose id and place are reused.
    pub reuse: Option<TemplateId>,
}

/// What the program says about one transmission. One record, rather than a table per field:
/// a message's step reads several of them at once (sender, slot, triggers), and with a table
/// each, each was a cache miss of its own into megabytes of templates.
#[derive(Clone, Debug)]
pub(crate) struct TxProg {
    pub sender: EndpointId,
    /// Index of the transmission's sender in its template's `senders`.
    pub slot: u32,
    /// Its host-send group if it is a host send (`None` for NI forwarding).
    pub group_of: Option<GroupId>,
    /// The transmission whose packets a per-packet forward sends on (`None` otherwise).
    pub forwards: Option<TxId>,
    /// The state each message starts the transmission in: its copies pending (its tree's
    /// ejections, counted once per template rather than once per message, times the packets)
    /// and whether its host send is under way (the source's own transmissions).
    pub init: TxState,
    /// The source starts the transmission (oral's initial sends).
    pub starts: bool,
    /// Transmissions forwarding it per packet / after the whole message.
    pub per_packet: SmallVec<[TxId; 2]>,
    pub after_message: SmallVec<[TxId; 2]>,
}

/// What every message of a template reads at its steps, in one cache line of its own.
///
/// A uniform run on 64 endpoints cycles through one template per pair (4,032 of them), each
/// template with its transmission's record, host-send group, liveness count and trees: about half
/// a kilobyte per pair, megabytes in all, so each of a message's steps met those records cold, a
/// dozen lines a message, each a miss beyond the second-level cache (the first read of a template
/// was the run's dearest source line). This record holds what the steps read, and, for a
/// template of one transmission sent by one NI in packet order (every unicast: [`Hot::single`]),
/// that transmission's facts too, so such a message reads nothing else of its template. The
/// full records stay the reference: this one is written from them in [`Program::add`]. It is
/// one line exactly (asserted below): `Single`'s flag gives its `Option` a spare value.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(crate) struct Hot {
    pub tx0: u32,
    pub ntx: u32,
    pub node0: u32,
    pub nnodes: u32,
    pub source: EndpointId,
    pub dests: Dests,
    /// Sending NIs (`Template::senders`) and transmissions the source starts (`start_tx`).
    pub nsenders: u32,
    pub nstart_tx: u32,
    /// Messages under way (`Program::started` / `finished`), or `None` once it is retired.
    live: Option<u32>,
    /// For a template of one transmission, whose one host-send group the source starts, sent by
    /// one NI in packet order, with no forwarding: that transmission's facts, so that a message
    /// needs no other record of its template.
    pub single: Option<Single>,
}

const _: () = assert!(std::mem::size_of::<Hot>() == 64, "a template's hot record is one cache line");

impl Hot {
    /// Its first transmission (the one transmission of a [`Hot::single`] template).
    #[inline]
    pub(crate) fn first_tx(&self) -> TxId {
        TxId::from_index(self.tx0 as usize)
    }

    /// Its first tree node: the root of its first transmission's tree (`Trees::place`).
    #[inline]
    pub(crate) fn first_node(&self) -> NodeId {
        NodeId::from_index(self.node0 as usize)
    }
}

/// A template's destinations as its messages' steps need them: the one destination, or how many
/// there are when not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dests {
    One(EndpointId),
    Other(u32),
}

impl Dests {
    /// The one destination, if there is exactly one.
    #[inline]
    pub(crate) fn one(self) -> Option<EndpointId> {
        match self {
            Dests::One(d) => Some(d),
            Dests::Other(_) => None,
        }
    }

    pub(crate) fn len(self) -> usize {
        match self {
            Dests::One(_) => 1,
            Dests::Other(n) => n as usize,
        }
    }
}

/// The facts of a [`Hot::single`] template's one transmission (`tx0`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Single {
    /// Its one host-send group, holding only `tx0`, which the source starts.
    pub group: GroupId,
    /// Its one sending NI.
    pub sender: EndpointId,
    /// Its initial copies pending (`TxProg::init`) and its receiving NIs (its tree's ejections).
    pub pending: u32,
    pub receivers: u32,
    /// Whether the source starts it (`TxProg::starts`).
    pub starts: bool,
}

/// What the templates say about sends and triggers.
#[derive(Default)]
pub(crate) struct Program {
    pub templates: Vec<Template>,
    /// Per template: what its messages read at every step (`Hot`).
    hot: Vec<Hot>,
    /// Host-send groups: transmissions whose packets one host send makes available.
    pub groups: Vec<SmallVec<[TxId; 2]>>,
    /// Per run-wide transmission.
    pub txs: Vec<TxProg>,
    /// Retired templates, by shape (transmissions, tree nodes, host-send groups): their places
    /// are free for a new template of the same shape (last retired, first reused).
    retired: BTreeMap<(u32, u32, u32), Vec<TemplateId>>,
}

/// Host-send groups `plan` needs: one per transmission its host sends (the source's initial
/// sends under host forwarding, every after-message forward), plus one for the source's initial
/// sends an NI discipline hands to the NI together.
pub(crate) fn groups_needed(plan: &Plan) -> u32 {
    let mut own = 0;
    let mut source_group = false;
    for tr in &plan.transmissions {
        match tr.trigger {
            Trigger::Start if plan.discipline != Discipline::Host => source_group = true,
            Trigger::Start | Trigger::AfterMessage { .. } => own += 1,
            Trigger::PerPacket { .. } => {}
        }
    }
    own + source_group as u32
}

impl Program {
    /// Where a new template of `span`'s shape would go, at the end of every table.
    pub(crate) fn end_place(&self, span: Span) -> Place {
        Place { span, group0: self.groups.len() as u32, reuse: None }
    }

    /// Writes the static program of `plan`, whose trees are already placed at `at.span` of
    /// `trees`, at `at`; returns the template's id.
    pub(crate) fn add(&mut self, plan: &Plan, trees: &Trees, at: Place, m: u32) -> TemplateId {
        let Span { tx0, ntx: nt, node0, nnodes, child0 } = at.span;
        let mut t = Template {
            tx0,
            ntx: nt,
            node0,
            nnodes,
            child0,
            group0: at.group0,
            ngroups: groups_needed(plan),
            source: plan.source,
            destinations: SmallVec::from_slice(&plan.destinations),
            dest_index: DestIndex::Scan,
            start_groups: SmallVec::new(),
            start_tx: SmallVec::new(),
            senders: Senders::new(),
        };
        if t.destinations.len() > SCAN_DESTINATIONS {
            let nodes = &trees.nodes()[node0 as usize..(node0 + nnodes) as usize];
            t.dest_index = DestIndex::ByNode(dests_by_index(&t.destinations, nodes.iter().map(|n| n.eject)));
        }
        let mut next_group = at.group0;
        let mut new_group = |groups: &mut Vec<SmallVec<[TxId; 2]>>, members: SmallVec<[TxId; 2]>| {
            let g = GroupId::from_index(next_group as usize);
            put(groups, g.idx(), members);
            next_group += 1;
            g
        };
        let mut source_group = SmallVec::new();
        for (i, tr) in plan.transmissions.iter().enumerate() {
            let g = TxId::from_index((tx0 + i as u32) as usize);
            let forwards = match tr.trigger {
                Trigger::PerPacket { from } => Some(TxId::from_index((tx0 + from) as usize)),
                _ => None,
            };
            let pending = trees.ejections(g).len() as u32 * m;
            let starts = tr.trigger == Trigger::Start;
            let tx = TxProg {
                sender: tr.sender,
                slot: 0,
                group_of: None,
                forwards,
                init: TxState { pending, host_started: starts, started: false },
                starts,
                per_packet: SmallVec::new(),
                after_message: SmallVec::new(),
            };
            put(&mut self.txs, g.idx(), tx);
            match tr.trigger {
                Trigger::Start if plan.discipline != Discipline::Host => source_group.push(g),
                Trigger::Start | Trigger::AfterMessage { .. } => {
                    self.txs[g.idx()].group_of = Some(new_group(&mut self.groups, smallvec::smallvec![g]));
                }
                Trigger::PerPacket { .. } => {}
            }
            match tr.trigger {
                Trigger::PerPacket { from } => self.txs[(tx0 + from) as usize].per_packet.push(g),
                Trigger::AfterMessage { from } => self.txs[(tx0 + from) as usize].after_message.push(g),
                Trigger::Start => t.start_tx.push(g),
            }
        }
        if !source_group.is_empty() {
            let g = new_group(&mut self.groups, source_group);
            for &tx in &self.groups[g.idx()] {
                self.txs[tx.idx()].group_of = Some(g);
            }
        }
        debug_assert_eq!(next_group, at.group0 + t.ngroups);
        for &tx in &t.start_tx {
            let g = self.txs[tx.idx()].group_of.expect("a transmission the source starts is a host send");
            if !t.start_groups.contains(&g) {
                t.start_groups.push(g);
            }
        }
        t.senders = send_orders(plan, tx0, m);
        for (k, (_, seq)) in t.senders.iter().enumerate() {
            for &pid in seq {
                self.txs[pid.tx(m).idx()].slot = k as u32;
            }
        }
        let hot = self.hot_of(&t, trees, m);
        let id = at.reuse.unwrap_or(TemplateId::from_index(self.templates.len()));
        put(&mut self.templates, id.idx(), t);
        put(&mut self.hot, id.idx(), hot);
        id
    }

    /// The [`Hot`] record of template `t`, whose transmissions and groups are written.
    fn hot_of(&self, t: &Template, trees: &Trees, m: u32) -> Hot {
        Hot {
            tx0: t.tx0,
            ntx: t.ntx,
            node0: t.node0,
            nnodes: t.nnodes,
            source: t.source,
            dests: match t.destinations.as_slice() {
                &[one] => Dests::One(one),
                all => Dests::Other(all.len() as u32),
            },
            nsenders: t.senders.len() as u32,
            nstart_tx: t.start_tx.len() as u32,
            live: Some(0),
            single: self.single_of(t, trees, m),
        }
    }

    /// [`Hot::single`] of template `t`, if it is one.
    fn single_of(&self, t: &Template, trees: &Trees, m: u32) -> Option<Single> {
        if t.ntx != 1 || t.start_groups.len() != 1 || t.senders.len() != 1 {
            return None;
        }
        let tx0 = TxId::from_index(t.tx0 as usize);
        let (g, (sender, seq), p) = (t.start_groups[0], &t.senders[0], &self.txs[tx0.idx()]);
        let in_order =
            seq.len() == m as usize && seq.iter().enumerate().all(|(j, &pid)| pid == PacketId::new(tx0, j as u32, m));
        if self.groups[g.idx()].as_slice() != [tx0]
            || !in_order
            || !p.per_packet.is_empty()
            || !p.after_message.is_empty()
        {
            return None;
        }
        debug_assert_eq!((p.sender, p.slot, p.init.started), (*sender, 0, false));
        debug_assert_eq!(trees.root(tx0).raw(), t.node0, "a template's first tree starts at its first node");
        debug_assert_eq!(p.init.host_started, p.starts);
        Some(Single {
            group: g,
            sender: *sender,
            pending: p.init.pending,
            receivers: trees.ejections(tx0).len() as u32,
            starts: p.starts,
        })
    }

    /// What the messages of template `t` read at every step.
    #[inline(always)]
    pub(crate) fn hot(&self, t: TemplateId) -> &Hot {
        &self.hot[t.idx()]
    }

    /// The index among template `t`'s destinations of endpoint `ep`, behind ejection node
    /// `node`, if it is one (`Template::dest_at`; a single destination from the hot record).
    #[inline]
    pub(crate) fn dest_at(&self, t: TemplateId, node: NodeId, ep: EndpointId) -> Option<usize> {
        match self.hot(t).dests {
            Dests::One(d) => (ep == d).then_some(0),
            Dests::Other(_) => self.template(t).dest_at(node, ep),
        }
    }

    pub(crate) fn template(&self, t: TemplateId) -> &Template {
        &self.templates[t.idx()]
    }

    /// A message of template `t` starts / finishes.
    #[inline]
    pub(crate) fn started(&mut self, t: TemplateId) {
        let live = self.hot[t.idx()].live.as_mut().expect("a message starts on a template that is not retired");
        *live += 1;
    }
    #[inline]
    pub(crate) fn finished(&mut self, t: TemplateId) {
        if let Some(live) = self.hot[t.idx()].live.as_mut() {
            *live -= 1;
        }
    }

    /// No message is under way any more (a run started over).
    pub(crate) fn forget_messages(&mut self) {
        self.hot.iter_mut().filter_map(|h| h.live.as_mut()).for_each(|l| *l = 0);
    }

    /// Retires template `t` if no message of it is under way and it is not retired already: its
    /// id and place go to the next template of its shape, so whoever retires it must forget it.
    /// Returns whether it did.
    pub(crate) fn retire(&mut self, t: TemplateId) -> bool {
        let h = &mut self.hot[t.idx()];
        if h.live != Some(0) {
            return false;
        }
        h.live = None;
        let x = self.template(t);
        self.retired.entry((x.ntx, x.nnodes, x.ngroups)).or_default().push(t);
        true
    }

    /// The place of a retired template of this shape, taken, if there is one.
    pub(crate) fn reusable(&mut self, ntx: u32, nnodes: u32, ngroups: u32) -> Option<Place> {
        let list = self.retired.get_mut(&(ntx, nnodes, ngroups))?;
        let t = list.pop()?;
        let x = self.template(t);
        Some(Place { span: x.span(), group0: x.group0, reuse: Some(t) })
    }
}

/// Destination lists up to this long are searched in place for a node's endpoint; longer ones
/// get a table per tree node.
const SCAN_DESTINATIONS: usize = 8;

/// The index of `ep` among `destinations`, searched.
#[inline]
fn scan(destinations: &[EndpointId], ep: EndpointId) -> Option<u32> {
    destinations.iter().position(|&d| d == ep).map(|i| i as u32)
}

/// Per tree node, the index in `destinations` of the endpoint it ejects to (`ejects`), if it is
/// a destination, found through a sorted index.
fn dests_by_index(destinations: &[EndpointId], ejects: impl Iterator<Item = Option<EndpointId>>) -> Vec<Option<u32>> {
    let mut index: Vec<(EndpointId, u32)> = destinations.iter().enumerate().map(|(i, &d)| (d, i as u32)).collect();
    index.sort_unstable();
    let dest = |ep: EndpointId| index.binary_search_by_key(&ep, |&(e, _)| e).ok().map(|k| index[k].1);
    ejects.map(|e| e.and_then(dest)).collect()
}

/// Each sending NI's copies in the step model's order (`plan::steps`): per packet, then per
/// child under FPFS; per child, then per packet under FCFS and host forwarding (sivaram98 §4.2).
fn send_orders(plan: &Plan, tx0: u32, m: u32) -> Senders {
    let txs = &plan.transmissions;
    let order = by_sender(txs, |t| t.sender);
    let tx = |i: u32| TxId::from_index((tx0 + i) as usize);
    order
        .chunk_by(|&a, &b| txs[a as usize].sender == txs[b as usize].sender)
        .map(|list| {
            let mut seq = SmallVec::with_capacity(list.len() * m as usize);
            match plan.discipline {
                Discipline::NiFpfs => (0..m).for_each(|j| seq.extend(list.iter().map(|&i| PacketId::new(tx(i), j, m)))),
                Discipline::NiFcfs | Discipline::Host => {
                    list.iter().for_each(|&i| seq.extend((0..m).map(|j| PacketId::new(tx(i), j, m))))
                }
            }
            (txs[list[0] as usize].sender, seq)
        })
        .collect()
}

/// The indices of `items`, senders ascending and each one's in their own order: each sender's
/// transmissions in a run (a stable sort, which a plan with one sender, as most of a workload's
/// are, skips; it replaces a map per template).
fn by_sender<T>(items: &[T], sender: impl Fn(&T) -> EndpointId) -> Vec<u32> {
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    if items.windows(2).any(|w| sender(&w[0]) != sender(&w[1])) {
        order.sort_by_key(|&i| sender(&items[i as usize]));
    }
    order
}

/// Template-local index of node `node` of a template starting at node `node0` (from its
/// `Template` or its `Hot` record, whichever the caller has read).
#[inline]
pub(crate) fn local_node(node0: u32, node: NodeId) -> usize {
    (node.raw() - node0) as usize
}

/// Template-local index of packet copy `pid` of a template starting at transmission `tx0`.
#[inline]
pub(crate) fn local_pid(tx0: u32, pid: PacketId, m: u32) -> usize {
    (pid.0 - tx0 * m) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn destinations_found_by_scan_and_by_index_agree() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for len in 0..24 {
            let mut all: Vec<EndpointId> = (0..40).map(EndpointId).collect();
            all.shuffle(&mut rng);
            let dests = &all[..len];
            let ejects: Vec<Option<EndpointId>> =
                (0..60).map(|_| rng.random_bool(0.8).then(|| EndpointId(rng.random_range(0..45)))).collect();
            let scanned: Vec<Option<u32>> = ejects.iter().map(|e| e.and_then(|e| scan(dests, e))).collect();
            assert_eq!(scanned, dests_by_index(dests, ejects.iter().copied()), "{len} destinations");
            assert_eq!(scanned.iter().flatten().count(), ejects.iter().flatten().filter(|e| dests.contains(e)).count());
        }
    }

    #[test]
    fn senders_group_in_ascending_order_keeping_each_one_s_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for len in 0..30 {
            let senders: Vec<EndpointId> = (0..len).map(|_| EndpointId(rng.random_range(0..5))).collect();
            let mut want: std::collections::BTreeMap<EndpointId, Vec<u32>> = Default::default();
            for (i, &s) in senders.iter().enumerate() {
                want.entry(s).or_default().push(i as u32);
            }
            let order = by_sender(&senders, |&s| s);
            let got: Vec<(EndpointId, Vec<u32>)> = order
                .chunk_by(|&a, &b| senders[a as usize] == senders[b as usize])
                .map(|l| (senders[l[0] as usize], l.to_vec()))
                .collect();
            assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }
}
