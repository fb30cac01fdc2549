//! The fast engine against the flit-by-flit reference model (`tests/reference_model/`), exactly:
//! every flit on every channel at the same picosecond, every destination's delivery time, every
//! server's busy time, on small random cases — fabrics (irregular, mesh, torus with dateline VCs,
//! fat-trees), switching modes, buffer sizes, overheads, unicast-tree schemes under every
//! discipline, worms (multi-drop, bit-string, path) and hardware multicast (MFTs), and workloads
//! of messages from several sources at random times. Then FIFO order per link and VC, and
//! determinism of workload runs.

mod common;
mod reference_model;

use common::{fabric, Tally};
use mcastlab_core::error::PlanError;
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Channel, Fabric, Terminal};
use mcastlab_core::plan::{Carrier, Discipline, MftEntry, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{
    run_workload, Detail, FlitRecord, Measure, Outcome, Params, RunResult, Simulation, Time, Workload,
};
use mcastlab_core::{EndpointId, SwitchId};
use proptest::prelude::*;
use reference_model::{Message, Model};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The parameters of one random case, every time a whole number of nanoseconds (so the
/// reference's step stays near 1 ns and a case takes a few hundred steps).
#[derive(Clone, Debug)]
struct Knobs {
    switching: usize,
    buffer: u32,
    extra_vcs: u8,
    flit_bytes: u32,
    flit_ns: u64,
    mtu_flits: u32,
    propagation: u64,
    crossbar: u64,
    routing: u64,
    credit: u64,
    overheads: [u64; 4],
    dma_ns_per_byte: u64,
    step: bool,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        (0usize..3, 1u32..10, 0u8..2, 1u32..4, 1u64..3, 1u32..9),
        (0u64..4, 0u64..3, 0u64..4, 0u64..3),
        (prop::array::uniform4(0u64..4), 0u64..4, any::<bool>(), any::<bool>()),
    )
        .prop_map(|(a, b, c)| {
            let (switching, buffer, extra_vcs, flit_bytes, flit_ns, mtu_flits) = a;
            let (propagation, crossbar, routing, credit) = b;
            let (o, dma_ns_per_byte, step, busy) = c;
            // Overheads of 0 crowd the network; the others are a few flit times.
            let overheads = if busy { [0; 4] } else { o.map(|x| x * 3) };
            Knobs {
                switching,
                buffer,
                extra_vcs,
                flit_bytes,
                flit_ns,
                mtu_flits,
                propagation,
                crossbar,
                routing,
                credit,
                overheads,
                dma_ns_per_byte,
                step,
            }
        })
}

const MODES: [&str; 3] = ["wormhole", "cut_through", "store_and_forward"];

impl Knobs {
    /// The parameters for a routing that needs `classes` VCs.
    fn params(&self, classes: u8) -> Params {
        let vcs = classes.max(1) + self.extra_vcs;
        let mtu = self.mtu_flits * self.flit_bytes;
        // Cut-through and store-and-forward need a whole packet in a buffer.
        let buffer = if self.switching == 0 { self.buffer } else { self.mtu_flits + self.buffer - 1 };
        let bw = self.flit_bytes as u64 * 8_000 / self.flit_ns; // Mb/s: one flit per flit_ns
        let dma = match self.dma_ns_per_byte {
            0 => "inf".to_string(),
            // 1, 2 or 4 ns per byte.
            k => format!("{}Mb/s", 8_000 >> (k - 1)),
        };
        let [t_hs, t_hr, t_ns, t_nr] = self.overheads;
        let o = [
            format!("switch.switching={}", MODES[self.switching]),
            format!("switch.buffer_flits={buffer}"),
            format!("switch.vcs={vcs}"),
            format!("switch.routing_delay={}ns", self.routing),
            format!("switch.crossbar_delay={}ns", self.crossbar),
            format!("switch.credit_delay={}ns", self.credit),
            format!("link.bandwidth={bw}Mb/s"),
            format!("link.flit_bytes={}", self.flit_bytes),
            format!("link.mtu_bytes={mtu}"),
            format!("link.propagation={}ns", self.propagation),
            format!("host.t_hs={t_hs}ns"),
            format!("host.t_hr={t_hr}ns"),
            format!("ni.t_ns={t_ns}ns"),
            format!("ni.t_nr={t_nr}ns"),
            format!("ni.dma_bandwidth={dma}"),
            format!("ni.send={}", if self.step { "step" } else { "pipelined" }),
            "limits.watchdog=3us".to_string(),
        ];
        Params::with_overrides("sivaram98", &o.iter().map(String::as_str).collect::<Vec<_>>()).unwrap()
    }
}

/// The first place two flit traces differ, with some context.
fn trace_diff(engine: &[FlitRecord], reference: &[FlitRecord]) -> Option<String> {
    let key = |r: &FlitRecord| (r.time, r.channel, r.vc, r.msg, r.pid, r.flit);
    let mut a: Vec<_> = engine.iter().map(key).collect();
    let mut b: Vec<_> = reference.iter().map(key).collect();
    a.sort_unstable();
    b.sort_unstable();
    let at = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let lo = at.saturating_sub(3);
    Some(format!(
        "flit traces differ at record {at} of {}/{} (time, channel, vc, msg, pid, flit):\n engine    {:?}\n reference {:?}",
        a.len(),
        b.len(),
        &a[lo..(at + 4).min(a.len())],
        &b[lo..(at + 4).min(b.len())]
    ))
}

/// Runs `plan` in both models and asserts that they agree on everything both report; in a run
/// that delivered, conservation too.
fn agree(f: &Fabric, r: &dyn Routing, plan: &Plan, p: &Params, bytes: u64) -> RunResult {
    let mut sim = Simulation::new(f, r, plan, p, bytes, 1).unwrap();
    sim.record_flits(true);
    let res = sim.run();
    let reference = Model::run(f, r, p, bytes, &[Message { created: 0, plan }], res.end_ps);
    if let Some(d) = trace_diff(sim.flit_trace(), &reference.trace) {
        panic!("{d}\n{}", describe(plan, p));
    }
    let drained = common::drained(&res);
    common::assert_fifo(sim.flit_trace(), p, bytes, drained);
    common::assert_fifo(&reference.trace, p, bytes, drained);
    assert_eq!(res.flit_hops, sim.flit_trace().len() as u64, "every flit hop is in the trace");
    assert_eq!(reference.destinations.len(), 1, "one message");
    let dests = &reference.destinations[0];
    assert_eq!(res.per_destination.len(), dests.len(), "destination rows\n{}", describe(plan, p));
    for (d, want) in res.per_destination.iter().zip(dests) {
        assert_eq!(f.endpoint_by_name(&d.endpoint), Some(EndpointId(want.endpoint)));
        let got = (d.latency_ps, d.deliveries, d.packets);
        assert_eq!(got, (want.at, want.deliveries, want.packets), "{}\n{}", d.endpoint, describe(plan, p));
    }
    assert_eq!(
        res.extra_deliveries.is_empty(),
        reference.extra_deliveries[0] == 0,
        "deliveries outside the group: {:?} / {}",
        res.extra_deliveries,
        reference.extra_deliveries[0]
    );
    assert_eq!(res.max_buffer_flits, reference.max_occupancy, "largest buffer occupancy\n{}", describe(plan, p));
    assert_eq!(res.packets_sent, reference.packets_sent);
    assert_eq!(res.packets_received, reference.packets_received);
    assert_eq!(res.flit_hops, reference.flit_hops);
    assert_eq!(res.link_visits, reference.link_packets.iter().sum::<u64>());
    // The engine has a row for every endpoint that was busy at all: both ways round.
    let mut busy = vec![[0; 3]; f.num_endpoints()];
    for e in &res.endpoints {
        let i = f.endpoint_by_name(&e.endpoint).unwrap().0 as usize;
        busy[i] = [e.host_busy_ps, e.ni_busy_ps, e.dma_busy_ps];
        assert_ne!(busy[i], [0; 3], "a row for {}, which was never busy", e.endpoint);
    }
    assert_eq!(busy, reference.busy, "busy times (host, NI, DMA) of every endpoint");
    let delivered = matches!(res.outcome, Outcome::Delivered);
    if !reference.stuck {
        assert!(delivered || matches!(res.outcome, Outcome::Undelivered { .. }), "{:?}", res.outcome);
    }
    if delivered {
        common::assert_conserved(f, r, plan, &res);
        assert!(reference.credits_restored, "a credit or a VC was not given back");
    }
    res
}

fn describe(plan: &Plan, p: &Params) -> String {
    format!(
        "plan {} from {:?} to {:?}, {} packets, {:?}\nparams {}",
        plan.scheme,
        plan.source,
        plan.destinations,
        plan.packets,
        plan.discipline,
        serde_json::to_string(p).unwrap()
    )
}

#[test]
fn a_unicast_and_a_binomial_tree_agree_to_the_picosecond() {
    let (f, r) = fabric("irregular:switches=3,ports=6,endpoints=8,seed=4");
    let dests: Vec<EndpointId> = (1..8).map(EndpointId).collect();
    for scheme in ["separate", "binomial"] {
        for (mode, buffer) in [("wormhole", 2), ("cut_through", 4), ("store_and_forward", 4)] {
            let p = Params::with_overrides(
                "sivaram98",
                &[
                    &format!("switch.switching={mode}"),
                    &format!("switch.buffer_flits={buffer}"),
                    "link.mtu_bytes=4",
                    "host.t_hs=0ns",
                    "host.t_hr=0ns",
                    "ni.t_ns=0ns",
                    "ni.t_nr=0ns",
                ],
            )
            .unwrap();
            let input = SchemeInput {
                fabric: &f,
                routing: &*r,
                source: EndpointId(0),
                destinations: &dests,
                packets: 3,
                discipline: Discipline::NiFpfs,
            };
            let plan = schemes::plan(&input, scheme).unwrap();
            agree(&f, &*r, &plan, &p, 11);
        }
    }
}

/// A small fabric of one of the families the schemes serve, with its default routing.
fn small_fabric(family: usize, seed: u64, size: u32) -> (Fabric, Box<dyn Routing>) {
    let spec = match family {
        0 => format!("irregular:switches={},ports=8,endpoints={},seed={seed}", 1 + size % 6, 3 + size % 6 + size % 5),
        1 => ["mesh:3x3", "torus:3x3", "mesh:2x3", "torus:4", "torus:3x4"][size as usize % 5].to_string(),
        2 => ["hypercube:dim=3", "kary_ntree:k=2,n=2", "mport_ntree:m=4,n=2", "torus:4x4", "mport_ntree:m=4,n=3"]
            [size as usize % 5]
            .to_string(),
        _ => format!("irregular:switches={},ports=6,endpoints={},seed={seed}", 2 + size % 3, 4 + size % 4),
    };
    fabric(&spec)
}

/// A source and a non-empty group drawn from `pick`'s bits.
fn group(f: &Fabric, pick: u64) -> (EndpointId, Vec<EndpointId>) {
    let n = f.num_endpoints() as u64;
    let src = EndpointId((pick % n) as u32);
    let mut dests: Vec<EndpointId> =
        f.endpoint_ids().filter(|e| *e != src && (pick >> (8 + e.0 % 48)) & 1 == 1).collect();
    if dests.is_empty() {
        dests.push(EndpointId(((pick / n + 1 + src.0 as u64) % n) as u32));
        if dests[0] == src {
            dests[0] = EndpointId((src.0 + 1) % n as u32);
        }
    }
    (src, dests)
}

const DISCIPLINES: [Discipline; 3] = [Discipline::Host, Discipline::NiFcfs, Discipline::NiFpfs];

/// How one random case went.
#[derive(Debug, PartialEq)]
enum Case {
    /// Both models ran it and agreed.
    Compared,
    /// The scheme does not apply to the fabric (its registry entry refuses the fabric).
    NotApplicable,
}

/// Builds `scheme`'s plan and runs both models. A scheme that does not apply to the fabric is
/// the only case not compared; any other refusal to build the plan fails.
#[allow(clippy::too_many_arguments)]
fn scheme_case(
    f: &Fabric,
    r: &dyn Routing,
    scheme: &str,
    src: EndpointId,
    dests: &[EndpointId],
    m: u32,
    short: u32,
    disc: Discipline,
    k: &Knobs,
) -> Case {
    let p = k.params(r.vc_classes());
    let bytes = (m as u64 * p.link.mtu_bytes as u64).saturating_sub(short as u64 % p.link.mtu_bytes as u64).max(1);
    let m = p.packets_for(bytes);
    let input = SchemeInput { fabric: f, routing: r, source: src, destinations: dests, packets: m, discipline: disc };
    match schemes::plan(&input, scheme) {
        Ok(plan) => {
            agree(f, r, &plan, &p, bytes);
            Case::Compared
        }
        Err(PlanError::NotApplicable { .. }) => Case::NotApplicable,
        Err(e) => panic!("{scheme} on {} from {src:?} to {dests:?}: {e}", f.name()),
    }
}

/// Counts a case under its scheme: `compared scheme` or `not applicable scheme`.
fn tally_case(scheme: &str, case: Case) {
    let how = if case == Case::Compared { "compared" } else { "not applicable" };
    common::tally(&format!("{how} {scheme}"));
}

const TREES: [&str; 6] = ["separate", "chain", "binary", "binomial", "kbinomial", "kbinomial:k=2"];

const TREE_CASES: u32 = 4000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(TREE_CASES))]

    fn unicast_tree_cases(
        family in 0usize..4, seed in 0u64..400, size in 0u32..12, pick in any::<u64>(),
        scheme in 0usize..6, disc in 0usize..3, m in 1u32..5, short in 0u32..64, k in knobs(),
    ) {
        let (f, r) = small_fabric(family, seed, size);
        let (src, dests) = group(&f, pick);
        tally_case(TREES[scheme], scheme_case(&f, &*r, TREES[scheme], src, &dests, m, short, DISCIPLINES[disc], &k));
    }
}

/// Asserts that every case of a property run of `cases` cases (and any replayed from the
/// regressions file) was compared, and that each of `schemes` was compared in at least `share` of
/// its expected `cases / schemes.len()` (the strategies draw schemes uniformly), so that a
/// scheme that silently stopped being compared fails.
fn assert_all_compared(t: &Tally, cases: u32, schemes: &[&str], share: f64) {
    println!("{t:?}");
    assert!(t.total() >= cases as u64, "{} cases run, {cases} asked for", t.total());
    let compared: Vec<String> = schemes.iter().map(|s| format!("compared {s}")).collect();
    t.assert_only(&compared.iter().map(String::as_str).collect::<Vec<_>>());
    let least = (share * cases as f64 / schemes.len() as f64) as u64;
    for c in &compared {
        assert!(t.get(c) >= least, "{c}: {} cases, fewer than {least}", t.get(c));
    }
}

/// Unicast trees apply to every fabric: every case is compared (with seed 20261121: 648 to 688
/// per scheme of the expected 667; at least 3/4 of it is required).
#[test]
fn unicast_tree_plans_agree() {
    Tally::start();
    unicast_tree_cases();
    assert_all_compared(&Tally::take(), TREE_CASES, &TREES, 0.75);
}

/// Which fabrics a worm is drawn on: those its routing was designed for.
#[derive(Clone, Copy)]
enum Fabrics {
    /// Small irregular fabrics under up*/down* (sivaram98 §5).
    Irregular,
    /// Small 2D meshes and tori under dimension order (oral §3).
    MeshOrTorus,
    /// k-ary 2D tori, the only fabrics S-torus's ranking is defined for.
    SquareTorus,
}

/// Worms on fabrics whose routing they were designed for: multi-drop, single-switch-replication
/// and bit-string worms under up*/down* (sivaram98 §5), path worms on tori and meshes (oral §3).
const WORMS: [(&str, Fabrics); 9] = [
    ("multidrop", Fabrics::Irregular),
    ("multidrop:schedule=less_greedy", Fabrics::Irregular),
    ("ssr", Fabrics::Irregular),
    ("bitstring", Fabrics::Irregular),
    ("storus:variant=worm", Fabrics::SquareTorus),
    ("mdtorus:variant=worm", Fabrics::MeshOrTorus),
    ("mutorus:r=2,variant=worm", Fabrics::MeshOrTorus),
    ("mdtorus:variant=sci", Fabrics::MeshOrTorus),
    ("utorus", Fabrics::MeshOrTorus),
];

/// Hardware multicast with InfiniBand MFTs (zhou07, OpenSM) and its unicast baseline.
const MFTS: [&str; 4] = ["ib_cyclic", "ib_opensm", "ib_unicast", "ib_opensm:ipoib=true"];

const WORM_CASES: u32 = 2000;
const MFT_CASES: u32 = 2000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(WORM_CASES))]

    fn worm_cases(
        seed in 0u64..400, size in 0u32..12, pick in any::<u64>(), scheme in 0usize..9, disc in 0usize..3,
        m in 1u32..4, short in 0u32..64, k in knobs(),
    ) {
        let (name, fabrics) = WORMS[scheme];
        let (f, r) = match fabrics {
            Fabrics::Irregular => small_fabric(3, seed, size),
            Fabrics::MeshOrTorus => small_fabric(1, seed, size % 3),
            Fabrics::SquareTorus => fabric(["torus:3x3", "torus:4x4"][size as usize % 2]),
        };
        let (src, dests) = group(&f, pick);
        tally_case(name, scheme_case(&f, &*r, name, src, &dests, m, short, DISCIPLINES[disc], &k));
    }
}

/// Every worm is drawn on fabrics it applies to, so every case is compared (with seed 20261121:
/// 190 to 242 per scheme of the expected 222; at least 3/4 of it is required). S-torus used to be
/// drawn on meshes too, where it does not apply, and was skipped there without a word.
#[test]
fn worm_plans_agree() {
    Tally::start();
    worm_cases();
    let names = WORMS.map(|w| w.0);
    assert_all_compared(&Tally::take(), WORM_CASES, &names, 0.75);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(MFT_CASES))]

    fn hardware_multicast_cases(
        tree in 0usize..3, pick in any::<u64>(), scheme in 0usize..4, disc in 0usize..3,
        m in 1u32..4, short in 0u32..64, k in knobs(),
    ) {
        let spec = ["mport_ntree:m=4,n=2", "mport_ntree:m=4,n=3", "mport_ntree:m=8,n=2"][tree];
        let (f, r) = fabric(spec);
        let (src, dests) = group(&f, pick);
        tally_case(MFTS[scheme], scheme_case(&f, &*r, MFTS[scheme], src, &dests, m, short, DISCIPLINES[disc], &k));
    }
}

/// MFT schemes apply to every m-port n-tree: every case is compared (with seed 20261121: 488 to
/// 516 per scheme of the expected 500; at least 3/4 of it is required).
#[test]
fn hardware_multicast_plans_agree() {
    Tally::start();
    hardware_multicast_cases();
    assert_all_compared(&Tally::take(), MFT_CASES, &MFTS, 0.75);
}

/// The messages a workload run created, from its rows: (serial, creation time, source, sorted
/// destinations, deliveries outside them), and each (message, destination)'s latency, deliveries
/// and packets.
type Created = Vec<(u64, u64, EndpointId, Vec<EndpointId>, u32)>;
type Got = BTreeMap<(u64, u32), (Option<u64>, u32, u32)>;

fn created_messages(f: &Fabric, res: &mcastlab_core::sim::WorkloadResult) -> (Created, Got) {
    let id = |name: &str| f.endpoint_by_name(name).unwrap();
    let mut dests: BTreeMap<u64, Vec<EndpointId>> = BTreeMap::new();
    let mut got = Got::new();
    for d in &res.destinations {
        let e = id(&d.destination);
        dests.entry(d.serial).or_default().push(e);
        assert!(got.insert((d.serial, e.0), (d.latency_ps, d.deliveries, d.packets)).is_none(), "{d:?} twice");
    }
    let mut msgs: Created = res
        .samples
        .iter()
        .map(|s| {
            let mut d = dests.remove(&s.serial).unwrap_or_default();
            d.sort_unstable();
            assert_eq!(d.len(), s.destinations, "destination rows of message {}", s.serial);
            (s.serial, s.created_ps, id(&s.source), d, s.extra_deliveries)
        })
        .collect();
    assert!(dests.is_empty(), "destination rows of messages without a message row: {dests:?}");
    msgs.sort_unstable_by_key(|m| m.0);
    (msgs, got)
}

/// The plan the workload built for one message (a plain unicast under `uniform`).
fn workload_plan(f: &Fabric, r: &dyn Routing, w: &Workload, src: EndpointId, dests: &[EndpointId], m: u32) -> Plan {
    if matches!(w.traffic, mcastlab_core::sim::Traffic::Uniform(_)) {
        let t = Transmission {
            sender: src,
            trigger: Trigger::Start,
            carrier: Carrier::Unicast { dst: dests[0] },
            delivers: dests.to_vec(),
        };
        return Plan::from_transmissions(f, "unicast", src, dests.to_vec(), m, w.discipline, vec![t]).unwrap();
    }
    let input =
        SchemeInput { fabric: f, routing: r, source: src, destinations: dests, packets: m, discipline: w.discipline };
    schemes::plan(&input, &w.scheme).unwrap()
}

/// Why a workload case compared no message.
#[derive(Debug, PartialEq)]
enum Uncompared {
    /// `run_workload` refused the workload with these parameters (the error).
    Refused(String),
    /// The engine's run did not drain (its outcome's kind).
    NotDrained(String),
    /// The run created no message in its measurement window (outcome `no_message`), or none at
    /// all.
    NoMessage,
}

/// Runs a workload in the engine, replays the messages it created in the reference model, and
/// compares every destination's latency, deliveries and packets and every message's deliveries
/// outside its group. Returns the number of messages compared, or why none was.
fn workload_agrees(f: &Fabric, r: &dyn Routing, spec: &str, p: &Params, cycles: u64) -> Result<usize, Uncompared> {
    let w = Workload::parse(spec).unwrap();
    let cycle = p.flit_ps();
    let measure = Measure {
        warmup: Some(Time(20 * cycle)),
        batch: Some(Time(cycles * cycle)),
        batches: 1,
        latency_limit: Some(Time(1_000_000_000)),
        detail: Detail::Destinations,
        ..Measure::default()
    };
    let res = run_workload(f, r, &w, p, &measure, 7).map_err(|e| Uncompared::Refused(e.to_string()))?;
    if matches!(res.run.outcome, mcastlab_core::sim::WorkloadOutcome::NoMessage { .. }) {
        return Err(Uncompared::NoMessage);
    }
    if res.run.outcome != mcastlab_core::sim::WorkloadOutcome::Drained {
        let kind = serde_json::to_value(&res.run.outcome).unwrap()["kind"].as_str().unwrap().to_string();
        return Err(Uncompared::NotDrained(kind));
    }
    let bytes = w.message_bytes.unwrap_or(p.link.mtu_bytes as u64);
    let m = p.packets_for(bytes);
    let (msgs, got) = created_messages(f, &res);
    if msgs.is_empty() {
        return Err(Uncompared::NoMessage);
    }
    assert_eq!(msgs.len() as u64, res.run.messages, "a message row per message");
    let plans: Vec<Rc<Plan>> = msgs.iter().map(|(_, _, s, d, _)| Rc::new(workload_plan(f, r, &w, *s, d, m))).collect();
    let messages: Vec<Message<'_>> =
        msgs.iter().zip(&plans).map(|((_, created, ..), plan)| Message { created: *created, plan }).collect();
    let last = msgs.iter().map(|x| x.1).max().unwrap();
    let reference = Model::run(f, r, p, bytes, &messages, last + 1_000_000_000);
    assert!(!reference.stuck);
    assert_eq!(reference.destinations.len(), msgs.len(), "the reference's messages");
    let mut compared = 0;
    for (i, ((serial, created, src, _, extra), dests)) in msgs.iter().zip(&reference.destinations).enumerate() {
        let context = || {
            format!(
                "message {serial} from {src:?} created at {created} ps; workload {spec}; params {}",
                serde_json::to_string(p).unwrap()
            )
        };
        assert_eq!(*extra, reference.extra_deliveries[i], "deliveries outside the group; {}", context());
        for d in dests {
            let want = (d.at.map(|t| t - created), d.deliveries, d.packets);
            assert_eq!(got.get(&(*serial, d.endpoint)), Some(&want), "destination e{}; {}", d.endpoint, context());
            compared += 1;
        }
    }
    assert_eq!(compared, got.len(), "the engine has destination rows the reference does not");
    Ok(msgs.len())
}

const WORKLOADS: [&str; 6] = [
    "uniform:load={load}",
    "multicast_load:degree=2,load={load},scheme=binomial,discipline=fpfs",
    "multicast_load:degree=3,load={load},scheme=chain,discipline=fcfs",
    "many_to_many:senders_pct=50,group_pct=60,load={load},scheme=kbinomial,discipline=host",
    "all_to_all:scheme=binomial,discipline=fpfs,count=2",
    "blast:source=1,count=3,scheme=binary,discipline=fpfs",
];

const WORKLOAD_CASES: u32 = 400;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(WORKLOAD_CASES))]

    fn workload_cases(
        family in 0usize..3, seed in 0u64..400, size in 0u32..12, kind in 0usize..6, load in 1u32..8,
        bytes in 1u64..3, k in knobs(),
    ) {
        let (f, r) = small_fabric(family, seed, size);
        let p = k.params(r.vc_classes());
        let spec = WORKLOADS[kind].replace("{load}", &format!("{}", load as f64 * 0.05));
        let spec = format!("{spec},bytes={}", bytes * p.link.mtu_bytes as u64 - (bytes - 1));
        let how = match workload_agrees(&f, &*r, &spec, &p, 120) {
            Ok(_) => COMPARED.to_string(),
            Err(Uncompared::Refused(e)) if e.starts_with("parameter `degree`") => DEGREE.to_string(),
            Err(Uncompared::NotDrained(o)) if o == "drain_limit" => OVERLOADED.to_string(),
            Err(Uncompared::NoMessage) => NO_MESSAGE.to_string(),
            Err(other) => format!("{other:?}"),
        };
        common::tally(&how);
    }
}

const COMPARED: &str = "compared";
const DEGREE: &str = "the multicast degree exceeds the fabric's endpoints - 1 (refused)";
const OVERLOADED: &str = "overloaded: the measured messages did not finish within the drain limit";
const NO_MESSAGE: &str = "no message created in the window";

/// Every case is compared, or left out for one of three stated reasons (any other outcome, a
/// deadlock or a refusal of another kind, fails): with seed 20261121, 378 of 401 cases are
/// compared, 17 are overloaded, 5 create no message in their window and 1 asks a 3-endpoint fabric for degree-3
/// multicasts. At least 85 % must be compared (the share's standard deviation over 400 cases is
/// about 1.2 %).
#[test]
fn workloads_of_messages_at_random_times_agree() {
    Tally::start();
    workload_cases();
    let t = Tally::take();
    println!("{t:?}");
    t.assert_only(&[COMPARED, DEGREE, OVERLOADED, NO_MESSAGE]);
    assert!(t.total() >= WORKLOAD_CASES as u64);
    assert!(t.get(COMPARED) * 100 >= t.total() * 85, "only {} of {} cases compared", t.get(COMPARED), t.total());
}

#[test]
fn the_largest_buffer_occupancy_counts_packets_queued_behind_the_front_one() {
    // Two one-flit packets from e0 to e1 through one switch, sent a flit time apart, decoded 5 ns
    // after reaching the front: the second waits behind the first for 4 ns, so the input buffer
    // holds 2 flits. The engine used to count a packet's flits only once a branch of it looked
    // at them, and reported 1.
    let (f, r) = fabric("irregular:switches=1,ports=4,endpoints=2");
    let p = Params::with_overrides(
        "sivaram98",
        &[
            "link.bandwidth=8Gb/s",
            "link.mtu_bytes=1",
            "switch.routing_delay=5ns",
            "switch.switching=store_and_forward",
            "switch.buffer_flits=4",
            "host.t_hs=0ns",
            "host.t_hr=0ns",
            "ni.t_ns=0ns",
            "ni.t_nr=0ns",
            "ni.dma_bandwidth=inf",
        ],
    )
    .unwrap();
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: EndpointId(0),
        destinations: &[EndpointId(1)],
        packets: 2,
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "separate").unwrap();
    let res = agree(&f, &*r, &plan, &p, 2);
    assert_eq!(res.max_buffer_flits, 2);
    assert_eq!(res.outcome, Outcome::Delivered);
}

/// FNV-1a over the measurements of a workload run (not its inputs, which include the seed):
/// every message's creation time, source and latency, every destination's latency, deliveries
/// and packets.
fn measurements_hash(res: &mcastlab_core::sim::WorkloadResult) -> u64 {
    let mut text = String::new();
    for x in &res.samples {
        text += &format!("{} {} {} {:?};", x.serial, x.created_ps, x.source, x.latency_ps);
    }
    for d in &res.destinations {
        text += &format!("{} {} {:?} {} {};", d.serial, d.destination, d.latency_ps, d.deliveries, d.packets);
    }
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn the_same_seed_gives_the_same_measurements_and_another_seed_others(
        family in 0usize..3, fseed in 0u64..400, size in 0u32..12, kind in 0usize..4, seed in 0u64..1000,
        k in knobs(),
    ) {
        let (f, r) = small_fabric(family, fseed, size);
        let p = k.params(r.vc_classes());
        let w = Workload::parse(&WORKLOADS[kind].replace("{load}", "0.2")).unwrap();
        let measure = Measure {
            warmup: Some(Time(20 * p.flit_ps())),
            batch: Some(Time(200 * p.flit_ps())),
            batches: 1,
            latency_limit: Some(Time(1_000_000_000)),
            detail: Detail::Destinations,
            ..Measure::default()
        };
        let run = |seed: u64| {
            let res = run_workload(&f, &*r, &w, &p, &measure, seed).ok().filter(|x| !x.samples.is_empty());
            res.map(|x| measurements_hash(&x))
        };
        let a = run(seed);
        prop_assume!(a.is_some(), "the workload cannot run here, or made no message");
        prop_assert_eq!(a, run(seed));
        prop_assert_ne!(a, run(seed + 1));
    }
}

#[test]
fn the_reference_model_is_deterministic_too() {
    let (f, r) = fabric("torus:3x3");
    // oral's parameters with an 8 Gb/s link, so that every time is a whole nanosecond (at
    // 5.3 Gb/s a flit takes 3019 ps and the reference would step picosecond by picosecond), and
    // a 4 Gb/s I/O bus for the same reason.
    let o =
        ["link.bandwidth=8Gb/s", "ni.dma_bandwidth=4Gb/s", "host.t_hs=0ns", "ni.t_ns=0ns", "switch.buffer_flits=40"];
    let p = Params::with_overrides("oral", &o).unwrap();
    let dests: Vec<EndpointId> = (0..8).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: EndpointId(8),
        destinations: &dests,
        packets: 3,
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "binomial").unwrap();
    let run = || Model::run(&f, &*r, &p, 3 * 64, &[Message { created: 0, plan: &plan }], u64::MAX);
    let (a, b) = (run(), run());
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.destinations, b.destinations);
    assert!(a.trace.iter().any(|x| x.vc == 1), "the dateline VC is used");
    agree(&f, &*r, &plan, &p, 3 * 64);
}

#[test]
fn simultaneous_requests_for_one_output_vc_are_granted_in_input_buffer_order() {
    // Two switches with three endpoints each (e0..e2 on h0, e3..e5 on h1). e0 multicasts one
    // packet to e1 and e2 through h0's MFT; both forward it at once, e1 to e3 and e2 to e4. The
    // two copies reach h0 at the same instant, are decoded at the same instant, and ask for the
    // link to h1 together: the copy in the lower input buffer (channel · V + vc) goes first.
    let (f, r) = fabric("hypercube:dim=1,endpoints_per_switch=3");
    let e = EndpointId;
    let uni = |from: u32, to: u32| Transmission {
        sender: e(from),
        trigger: Trigger::PerPacket { from: 0 },
        carrier: Carrier::Unicast { dst: e(to) },
        delivers: vec![e(to)],
    };
    let mft = Transmission {
        sender: e(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC001 },
        delivers: vec![e(1), e(2)],
    };
    let ports = vec![f.attachment(e(1)).1, f.attachment(e(2)).1];
    let state = SwitchState { mft: vec![MftEntry { mlid: 0xC001, switch: SwitchId(0), ports }], reachability: vec![] };
    let dests = vec![e(1), e(2), e(3), e(4)];
    let plan =
        Plan::from_transmissions(&f, "custom", e(0), dests, 1, Discipline::NiFpfs, vec![mft, uni(1, 3), uni(2, 4)])
            .unwrap()
            .with_switch_state(&f, state)
            .unwrap();
    let p = Params::with_overrides("sivaram98", &["link.mtu_bytes=8", "ni.dma_bandwidth=inf"]).unwrap();
    agree(&f, &*r, &plan, &p, 8);
    let mut sim = Simulation::new(&f, &*r, &plan, &p, 8, 1).unwrap();
    sim.record_flits(true);
    sim.run();
    let injection = |x: u32| f.port(SwitchId(0), f.attachment(e(x)).1).unwrap().inc.unwrap().0;
    let h0_to_h1 = |c: &u32| {
        let (from, to) = f.channel_ends(Channel(*c));
        matches!(from, Terminal::Switch { switch: SwitchId(0), .. }) && matches!(to, Terminal::Switch { .. })
    };
    let to_h1 = (0..f.num_channels() as u32).find(h0_to_h1).unwrap();
    let injected: Vec<u64> =
        [1, 2].iter().map(|&x| sim.flit_trace().iter().find(|r| r.channel == injection(x)).unwrap().time).collect();
    assert_eq!(injected[0], injected[1], "e1 and e2 forward at the same instant");
    let heads: Vec<&FlitRecord> = sim.flit_trace().iter().filter(|x| x.channel == to_h1 && x.flit == 0).collect();
    assert_eq!(heads.len(), 2);
    // Both decodes finish at the same instant: the heads reached h0 together.
    let winner = if injection(1) < injection(2) { 1 } else { 2 };
    assert_eq!(heads[0].pid, winner, "the copy from the lower input buffer goes first");
    assert!(heads[1].time > heads[0].time);
}

#[test]
fn a_packet_without_an_mft_entry_is_dropped_flit_by_flit_in_both_models() {
    // e0's MFT packet goes to e1 and over the link to h1, whose MFT has no entry for the group:
    // h1 drops it, freeing each flit as it arrives, and the flits' credits go back to h0.
    let (f, r) = fabric("hypercube:dim=1,endpoints_per_switch=3");
    let e = EndpointId;
    let link_port = f
        .switch_ports(SwitchId(0))
        .find(|&p| f.port(SwitchId(0), p).is_some_and(|x| matches!(x.peer, Terminal::Switch { .. })))
        .unwrap();
    let ports = vec![f.attachment(e(1)).1, link_port];
    let state = SwitchState { mft: vec![MftEntry { mlid: 0xC002, switch: SwitchId(0), ports }], reachability: vec![] };
    let mft = Transmission {
        sender: e(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC002 },
        delivers: vec![e(1)],
    };
    let plan = Plan::from_transmissions(&f, "custom", e(0), vec![e(1)], 3, Discipline::NiFpfs, vec![mft])
        .unwrap()
        .with_switch_state(&f, state)
        .unwrap();
    for mode in MODES {
        let p = Params::with_overrides(
            "sivaram98",
            &[
                "link.mtu_bytes=6",
                "switch.buffer_flits=6",
                "ni.t_ns=0ns",
                "host.t_hs=0ns",
                "ni.dma_bandwidth=inf",
                &format!("switch.switching={mode}"),
            ],
        )
        .unwrap();
        let res = agree(&f, &*r, &plan, &p, 18);
        assert_eq!(res.outcome, Outcome::Delivered, "{mode}");
        assert_eq!((res.in_flight_packets, res.buffered_flits), (0, 0), "{mode}");
        // Three packets over the injection link, to e1 and to h1 (where they end).
        assert_eq!(res.link_visits, 9, "{mode}");
    }
}

#[test]
fn the_papers_presets_agree_on_their_own_fabrics() {
    // Each preset's own numbers (the I/O bus left out where its per-packet time is not a whole
    // number of nanoseconds, which would make the reference step picosecond by picosecond).
    let cases = [
        ("zhou07", "mport_ntree:m=4,n=2", "ib_cyclic", &[][..]),
        ("zhou07", "mport_ntree:m=4,n=2", "binomial", &[][..]),
        ("sivaram98", "irregular:switches=3,ports=8,endpoints=8,seed=2", "bitstring", &["ni.dma_bandwidth=inf"][..]),
        ("sivaram98", "irregular:switches=3,ports=8,endpoints=8,seed=2", "kbinomial", &["ni.dma_bandwidth=inf"][..]),
        // The reference model has no circuits held until the acknowledgement (coll03 §2); those
        // are checked against closed forms in sim_quadrics.rs.
        ("coll03", "kary_ntree:k=2,n=2", "ib_opensm", &["ni.dma_bandwidth=inf", "switch.circuit_until_ack=false"][..]),
        ("oral", "torus:3x3", "mdtorus:variant=worm", &["link.bandwidth=8Gb/s", "ni.dma_bandwidth=inf"][..]),
    ];
    for (preset, spec, scheme, o) in cases {
        let (f, r) = fabric(spec);
        let p = Params::with_overrides(preset, o).unwrap();
        let bytes = 2 * p.link.mtu_bytes as u64;
        let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
        let input = SchemeInput {
            fabric: &f,
            routing: &*r,
            source: EndpointId(0),
            destinations: &dests,
            packets: 2,
            discipline: Discipline::NiFpfs,
        };
        let plan = schemes::plan(&input, scheme).unwrap();
        let res = agree(&f, &*r, &plan, &p, bytes);
        assert_eq!(res.outcome, Outcome::Delivered, "{preset} {scheme}");
    }
}

#[test]
fn a_deadlocked_ring_sends_the_same_flits_in_both_models_until_it_locks() {
    // The shared ring chain (tests/common): e0 → e3 → e2 → e1 on a unidirectional 4-ring with one VC
    // class, every forward three hops round the ring, 2-flit buffers: the worms close the ring's
    // cycle of channel dependencies and lock. Both models send the same flits until then, and the
    // reference still holds packets when the engine's watchdog stops.
    let f = generate("torus:4,unidirectional=true").unwrap();
    let r = routing::build(&f, Some("dor:datelines=false")).unwrap();
    let plan = common::ring_chain(&f, 8);
    let o = ["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=10ns", "ni.t_nr=10ns", "ni.dma_bandwidth=inf"];
    let p = Params::with_overrides(
        "sivaram98",
        &[&o[..], &["link.mtu_bytes=16", "switch.buffer_flits=2", "limits.watchdog=1us"]].concat(),
    )
    .unwrap();
    let mut sim = Simulation::new(&f, &*r, &plan, &p, 8 * 16, 1).unwrap();
    sim.record_flits(true);
    let res = sim.run();
    assert!(matches!(res.outcome, Outcome::Deadlock { .. }), "{:?}", res.outcome);
    let reference = Model::run(&f, &*r, &p, 8 * 16, &[Message { created: 0, plan: &plan }], res.end_ps);
    assert!(reference.stuck);
    assert_eq!(trace_diff(sim.flit_trace(), &reference.trace), None);
    assert!(!reference.trace.is_empty());
}

#[test]
fn workloads_agree_message_by_message() {
    // The property above skips workloads that cannot run or drain with its random parameters;
    // these must compare many messages.
    let (f, r) = fabric("irregular:switches=3,ports=8,endpoints=9,seed=3");
    let o = ["link.bandwidth=8Gb/s", "host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=3ns", "ni.t_nr=3ns"];
    let p =
        Params::with_overrides("sivaram98", &[&o[..], &["link.mtu_bytes=8", "ni.dma_bandwidth=inf"]].concat()).unwrap();
    for (spec, at_least) in [
        ("uniform:load=0.3,bytes=12", 150),
        ("multicast_load:degree=3,load=0.3,scheme=binomial,discipline=fpfs,bytes=12", 40),
        ("all_to_all:scheme=kbinomial,discipline=fcfs,count=2,bytes=12", 18),
    ] {
        let n = workload_agrees(&f, &*r, spec, &p, 600).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
        assert!(n >= at_least, "{spec}: {n} messages compared");
    }
}
