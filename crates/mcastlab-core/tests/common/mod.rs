//! What several test files share (each test binary uses its own subset): fabrics with their
//! routing, hand-written plans, the invariants every run must keep (conservation, FIFO order per
//! link and VC) written once with the union of the checks each file made, and a tally of how the
//! cases of a property test went, so that a test can say how many cases it really compared.
#![allow(dead_code)]

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, MftEntry, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{Detail, FlitRecord, Outcome, Params, RunResult, WorkloadOutcome, WorkloadResult};
use mcastlab_core::{EndpointId, PlanError, PortNum, SwitchId};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

/// A generated fabric with its default routing.
pub fn fabric(spec: &str) -> (Fabric, Box<dyn Routing>) {
    fabric_routed(spec, None)
}

/// A generated fabric with the routing `routing` names (`None`: the default).
pub fn fabric_routed(spec: &str, routing: Option<&str>) -> (Fabric, Box<dyn Routing>) {
    let f = generate(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let r = routing::build(&f, routing).unwrap_or_else(|e| panic!("{spec} {routing:?}: {e}"));
    (f, r)
}

/// `scheme`'s plan (a scheme spec such as `kbinomial:k=2`) from `src` to `dests`.
pub fn scheme_plan(
    f: &Fabric,
    r: &dyn Routing,
    scheme: &str,
    src: EndpointId,
    dests: &[EndpointId],
    packets: u32,
    discipline: Discipline,
) -> Result<Plan, PlanError> {
    let input = SchemeInput { fabric: f, routing: r, source: src, destinations: dests, packets, discipline };
    schemes::plan(&input, scheme)
}

/// A unicast from endpoint `from` to endpoint `to`, sent when `trigger` says.
pub fn unicast(from: u32, trigger: Trigger, to: u32) -> Transmission {
    Transmission {
        sender: EndpointId(from),
        trigger,
        carrier: Carrier::Unicast { dst: EndpointId(to) },
        delivers: vec![EndpointId(to)],
    }
}

/// A chain e0 → e3 → e2 → e1 of `m` packets forwarded per packet, for
/// `torus:4,unidirectional=true`: every forward goes three hops round the ring, so with one VC
/// class the forwards' channel dependencies close the ring's cycle.
pub fn ring_chain(f: &Fabric, m: u32) -> Plan {
    let e = EndpointId;
    let tx = vec![
        unicast(0, Trigger::Start, 3),
        unicast(3, Trigger::PerPacket { from: 0 }, 2),
        unicast(2, Trigger::PerPacket { from: 1 }, 1),
    ];
    Plan::from_transmissions(f, "custom", e(0), vec![e(3), e(2), e(1)], m, Discipline::NiFpfs, tx).unwrap()
}

/// MFT rows of a broadcast along a BFS spanning tree of the switches from switch 0, plus every
/// endpoint port; the first `extra` switch-to-switch links off the tree (by their two ends) are
/// added to both ends' rows, each closing a cycle.
pub fn spanning_mft(f: &Fabric, mlid: u32, extra: usize) -> Vec<MftEntry> {
    let n = f.num_switches();
    let mut ports: Vec<Vec<PortNum>> = vec![Vec::new(); n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::from([SwitchId(0)]);
    seen[0] = true;
    let mut non_tree = Vec::new();
    while let Some(s) = q.pop_front() {
        for (p, peer, peer_port, _) in f.switch_neighbors(s) {
            if !seen[peer.idx()] {
                seen[peer.idx()] = true;
                ports[s.idx()].push(p);
                ports[peer.idx()].push(peer_port);
                q.push_back(peer);
            } else if s < peer {
                non_tree.push((s, p, peer, peer_port));
            }
        }
    }
    assert!(non_tree.len() >= extra, "the fabric has {} links off the tree, not {extra}", non_tree.len());
    for &(s, p, t, tp) in non_tree.iter().take(extra) {
        ports[s.idx()].push(p);
        ports[t.idx()].push(tp);
    }
    for s in f.switch_ids() {
        for p in f.switch_ports(s) {
            if matches!(f.port(s, p).map(|pp| pp.peer), Some(Terminal::Endpoint { .. })) {
                ports[s.idx()].push(p);
            }
        }
        ports[s.idx()].sort_unstable();
        ports[s.idx()].dedup();
    }
    ports.into_iter().enumerate().map(|(s, ports)| MftEntry { mlid, switch: SwitchId(s as u32), ports }).collect()
}

/// One MFT multicast (MLID 0xC000) from endpoint 0 to every other endpoint along
/// [`spanning_mft`]'s rows, `packets` packets per message.
pub fn mft_broadcast(f: &Fabric, packets: u32, discipline: Discipline, extra: usize) -> Plan {
    let src = EndpointId(0);
    let dests: Vec<EndpointId> = f.endpoint_ids().filter(|e| *e != src).collect();
    let tx = vec![Transmission {
        sender: src,
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC000 },
        delivers: dests.clone(),
    }];
    Plan::from_transmissions(f, "custom", src, dests, packets, discipline, tx)
        .unwrap()
        .with_switch_state(f, SwitchState { mft: spanning_mft(f, 0xC000, extra), reachability: Vec::new() })
        .unwrap()
}

/// Switches on the path of each copy of transmission `t` (its depth in the replication tree the
/// switches decode), per endpoint reached.
pub fn depths(f: &Fabric, r: &dyn Routing, plan: &Plan, t: usize) -> BTreeMap<EndpointId, u64> {
    let tx = &plan.transmissions[t];
    let tree = Walker::new(f, r, &plan.switch_state).walk(tx.sender, &tx.carrier);
    let mut depth = vec![0u64; tree.hops.len()];
    let mut out = BTreeMap::new();
    for (i, h) in tree.hops.iter().enumerate() {
        depth[i] = h.parent.map(|p| depth[p as usize]).unwrap_or(0) + 1;
        if let Some(Terminal::Endpoint { endpoint }) = f.port(h.switch, h.out_port).map(|p| p.peer) {
            out.insert(endpoint, depth[i]);
        }
    }
    out
}

/// The completion time of a run that must have delivered.
pub fn delivered(res: &RunResult) -> u64 {
    assert_eq!(res.outcome, Outcome::Delivered, "{:?}", res.outcome);
    res.completion_ps.unwrap()
}

/// Conservation in a single-plan run, which must have delivered: every destination of the plan
/// has a row, its NI got every packet exactly once and its host the message once, nobody else got
/// anything, the NIs sent exactly the plan's copies, nothing is left in the network, no buffer
/// ever held more than its size, no link was busy more than all the time, every circuit closed
/// (with `switch.circuit_until_ack`, after the last delivery at the latest; without it there is no
/// acknowledgement), and the link visits and links used are the static checker's.
pub fn assert_conserved(f: &Fabric, r: &dyn Routing, plan: &Plan, res: &RunResult) {
    assert_eq!(res.outcome, Outcome::Delivered, "{:?}", res.outcome);
    assert!(res.max_buffer_flits <= res.params.switch.buffer_flits, "{} flits buffered", res.max_buffer_flits);
    assert!(res.links.iter().all(|l| l.busy_fraction <= 1.0), "a link busy more than all the time");
    let m = plan.packets;
    assert_eq!(res.per_destination.len(), plan.destinations.len(), "a row per destination");
    for (d, want) in res.per_destination.iter().zip(&plan.destinations) {
        assert_eq!(f.endpoint_by_name(&d.endpoint), Some(*want), "rows in the plan's order");
        assert_eq!((d.deliveries, d.packets), (1, m), "{}", d.endpoint);
        assert!(d.latency_ps.is_some(), "{}", d.endpoint);
    }
    assert!(res.extra_deliveries.is_empty(), "{:?}", res.extra_deliveries);
    let copies: u64 = plan.transmissions.iter().map(|t| t.delivers.len() as u64).sum();
    assert_eq!(res.packets_sent, plan.transmissions.len() as u64 * m as u64);
    assert_eq!(res.packets_received, copies * m as u64);
    assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0));
    if res.params.switch.circuit_until_ack {
        let acked = res.acked_ps.expect("every circuit closed");
        assert!(acked <= res.end_ps, "acknowledged at {acked} after the end {}", res.end_ps);
    } else {
        assert_eq!(res.acked_ps, None);
    }
    let rep = mcastlab_core::plan::check::check_plan(f, r, plan, &Default::default()).unwrap();
    assert_eq!(res.link_visits, rep.link_visits, "link visits");
    assert_eq!(res.used_links, rep.used_links, "links used");
}

/// FIFO per link and VC in a flit trace of `bytes`-byte messages: on one (channel, VC) a packet's
/// flits go out in order, from flit 0, and the next packet starts only after the previous one's
/// tail; a channel sends at most one flit per flit time; in a run that drained, every lane ends
/// with a tail. Returns the (packet, flit) sequence of every (channel, VC).
pub fn assert_fifo(
    trace: &[FlitRecord],
    p: &Params,
    bytes: u64,
    drained: bool,
) -> BTreeMap<(u32, u8), Vec<(u32, u32)>> {
    let m = p.packets_for(bytes);
    let flits_of = |pid: u32| p.flits_for(p.packet_bytes(bytes, pid % m));
    let mut sorted = trace.to_vec();
    sorted.sort_by_key(|r| (r.time, r.channel));
    let mut lanes: BTreeMap<(u32, u8), Vec<(u32, u32)>> = BTreeMap::new();
    // Per lane: the message, packet and flit it expects next.
    let mut next: BTreeMap<(u32, u8), (u32, u32, u32)> = BTreeMap::new();
    let mut last_send: BTreeMap<u32, u64> = BTreeMap::new();
    for r in &sorted {
        if let Some(prev) = last_send.insert(r.channel, r.time) {
            assert!(r.time >= prev + p.flit_ps(), "channel {} sends at {prev} and {}", r.channel, r.time);
        }
        let lane = (r.channel, r.vc);
        let (msg, pid, flit) = *next.entry(lane).or_insert((u32::MAX, u32::MAX, 0));
        let continues = msg == r.msg && pid == r.pid && flit == r.flit && flit < flits_of(pid);
        let starts = r.flit == 0 && (pid == u32::MAX || flit == flits_of(pid));
        assert!(continues || starts, "lane {lane:?}: after flit {flit} of packet {pid} comes {r:?}");
        next.insert(lane, (r.msg, r.pid, r.flit + 1));
        lanes.entry(lane).or_default().push((r.pid, r.flit));
    }
    if drained {
        for ((c, v), (_, pid, flit)) in next {
            assert_eq!(flit, flits_of(pid), "lane ({c}, {v}) ends inside packet {pid}");
        }
    }
    lanes
}

/// Whether a run's network emptied: it ended neither in a deadlock nor on a budget.
pub fn drained(res: &RunResult) -> bool {
    !matches!(res.outcome, Outcome::Deadlock { .. } | Outcome::Budget { .. })
}

/// Conservation in a workload run, which must have drained: it made messages and finished every
/// one, every destination copy was delivered exactly once (all packets), nothing went elsewhere,
/// nothing is left in the network, and no buffer ever held more than its size; with message
/// rows, one per message, each delivered to all its destinations exactly once with a latency;
/// with destination rows, one per copy, each delivered once with every packet.
pub fn assert_workload_conserved(res: &WorkloadResult) {
    let r = &res.run;
    let w = &r.workload;
    assert_eq!(r.outcome, WorkloadOutcome::Drained, "{w}");
    assert!(r.messages > 0, "{w}: no message");
    assert_eq!(r.messages_finished, r.messages, "{w}");
    assert_eq!(r.copies_delivered, r.copies_expected, "{w}");
    assert_eq!((r.copies_duplicated, r.copies_missing, r.extra_deliveries), (0, 0, 0), "{w}");
    assert_eq!((r.in_flight_packets, r.buffered_flits), (0, 0), "{w}");
    assert!(r.buffer_max_flits <= r.params.switch.buffer_flits, "{w}: {} flits buffered", r.buffer_max_flits);
    if r.measure.detail != Detail::None {
        assert_eq!(res.samples.len() as u64, r.messages, "{w}: a row per message");
        let copies: usize = res.samples.iter().map(|s| s.destinations).sum();
        assert_eq!(copies as u64, r.copies_expected, "{w}: the message rows' destinations");
    }
    for s in &res.samples {
        assert_eq!((s.delivered, s.duplicated, s.extra_deliveries), (s.destinations, 0, 0), "{w}: {s:?}");
        assert!(s.latency_ps.is_some(), "{w}: {s:?}");
    }
    if r.measure.detail == Detail::Destinations {
        assert_eq!(res.destinations.len() as u64, r.copies_expected, "{w}: a row per copy");
    }
    for d in &res.destinations {
        assert_eq!((d.deliveries, d.packets), (1, r.packets), "{w}: {d:?}");
        assert!(d.latency_ps.is_some(), "{w}: {d:?}");
    }
}

thread_local! {
    static TALLY: RefCell<BTreeMap<String, u64>> = const { RefCell::new(BTreeMap::new()) };
}

/// How the cases of a property test went: a count per outcome (compared, or the reason a case
/// was left out). The counts are kept per thread, and a test and its cases run on one thread:
/// a `#[test]` calls [`Tally::start`], runs its property (a `proptest!` function without
/// `#[test]`), whose cases call [`tally`], then takes the counts with [`Tally::take`] and states
/// what they must be.
#[derive(Debug)]
pub struct Tally(pub BTreeMap<String, u64>);

/// Counts one case under `outcome`.
pub fn tally(outcome: &str) {
    TALLY.with(|t| *t.borrow_mut().entry(outcome.to_string()).or_default() += 1);
}

impl Tally {
    pub fn start() {
        TALLY.with(|t| t.borrow_mut().clear());
    }

    pub fn take() -> Tally {
        Tally(TALLY.with(|t| std::mem::take(&mut *t.borrow_mut())))
    }

    pub fn get(&self, outcome: &str) -> u64 {
        self.0.get(outcome).copied().unwrap_or(0)
    }

    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// Asserts that every case went one of the `allowed` ways.
    pub fn assert_only(&self, allowed: &[&str]) {
        for (k, n) in &self.0 {
            assert!(allowed.contains(&k.as_str()), "{n} case(s) went `{k}`, which is not allowed: {:?}", self.0);
        }
    }
}

/// The first place where two JSON values differ (a path and both sides), for short failure text.
pub fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let w = y.get(k).unwrap_or(&Value::Null);
                if let Some(d) = first_difference(v, w, &format!("{path}.{k}")) {
                    return Some(d);
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| format!("{path}.{k}: only in the second"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{path}: {a} != {b}")),
    }
}
