//! Workloads as packet trains (issue 12): a workload run at `switch.granularity = auto` under
//! cut-through or store-and-forward runs as exact packet trains, and must give the flit engine's
//! rows field for field — every message's creation and latency, every destination's delivery,
//! accepted and generated load, link, host and NI busy times, buffer means and maxima, backlog,
//! batches, outcome and end time — all but `events` (and `estimated_events`, the events of the
//! zero-load plan runs, and the granularity itself, which differ by construction).
//!
//! Random small cases: fat-trees, irregular fabrics and a mesh; every workload kind, with many
//! sources creating messages at random times (Bernoulli and Poisson arrivals at random loads) or
//! all at once (bursts), so packets of different messages contend for links and buffers; one to
//! four packets per message with a short last one; buffers from one packet to several; random
//! link, routing, crossbar and credit times; endpoints with and without host and NI times.
//! Measurement reads the network between events (link counts at window edges, buffer occupancy
//! at every tick), so those readings are compared too.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing;
use mcastlab_core::sim::{
    run_workload, Detail, Granularity, Measure, Params, Switching, Time, Workload, WorkloadResult,
};
use proptest::prelude::*;
use serde_json::Value;

mod common;

const FABRICS: &[&str] = &[
    "mport_ntree:m=4,n=2",
    "kary_ntree:k=2,n=3",
    "irregular:switches=4,ports=6,endpoints=10",
    "irregular:switches=6,ports=5,endpoints=12,connectivity=60",
    "mesh:3x3",
];

/// Schemes every fabric above applies (range multicasts are left to the flit engine, and the
/// workload driver would run them flit by flit: `sim::run`).
const SCHEMES: &[&str] = &["separate", "chain", "binomial", "kbinomial", "binary"];

#[derive(Clone, Debug)]
struct Knobs {
    fabric: usize,
    fabric_seed: u64,
    kind: usize,
    scheme: usize,
    discipline: usize,
    load: f64,
    poisson: bool,
    seed: u64,
    packets: u64,
    short_last: u64,
    flit_bytes: u32,
    mtu_flits: u32,
    spare_buffer: u32,
    saf: bool,
    ps_per_byte: u64,
    prop_pct: u64,
    credit_pct: u64,
    routing_ps: u64,
    xbar_ps: u64,
    overheads: Option<(u64, u64, u64, u64)>,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    let traffic =
        (0..FABRICS.len(), 0u64..40, 0usize..6, 0..SCHEMES.len(), 0usize..3, 0.02f64..0.9, any::<bool>(), 0u64..1000);
    let net = (1u64..5, 0u64..64, 1u32..9, 1u32..6, 0u32..3, any::<bool>(), 1u64..9);
    let timing = (
        1u64..=100,
        0u64..=100,
        1u64..3000,
        0u64..500,
        prop::option::of((0u64..3000, 0u64..3000, 0u64..2000, 0u64..2000)),
    );
    (traffic, net, timing).prop_map(
        |(
            (fabric, fabric_seed, kind, scheme, discipline, load, poisson, seed),
            (packets, short_last, flit_bytes, mtu_flits, spare_buffer, saf, ps_per_byte),
            (prop_pct, credit_pct, routing_ps, xbar_ps, overheads),
        )| Knobs {
            fabric,
            fabric_seed,
            kind,
            scheme,
            discipline,
            load,
            poisson,
            seed,
            packets,
            short_last,
            flit_bytes,
            mtu_flits,
            spare_buffer,
            saf,
            ps_per_byte,
            prop_pct,
            credit_pct,
            routing_ps,
            xbar_ps,
            overheads,
        },
    )
}

/// sivaram98's parameters with the case's link, buffer, switch and endpoint times, flit by flit.
/// Credits come back within one flit time (`link.propagation + switch.credit_delay`, both
/// drawn), so trains are exact for every packet length; the routing delay is above zero.
fn params(k: &Knobs) -> Params {
    let mut p = Params::preset("sivaram98").unwrap();
    p.switch.granularity = Granularity::Flit;
    p.link.flit_bytes = k.flit_bytes;
    p.link.mtu_bytes = k.flit_bytes * k.mtu_flits;
    p.link.bandwidth = mcastlab_core::sim::Rate(1_000_000_000_000 / k.ps_per_byte);
    let flit = p.flit_ps();
    let prop = (flit * k.prop_pct / 100).max(1);
    p.link.propagation = Time(prop);
    p.switch.credit_delay = Time((flit - prop) * k.credit_pct / 100);
    p.switch.routing_delay = Time(k.routing_ps);
    p.switch.crossbar_delay = Time(k.xbar_ps);
    p.switch.buffer_flits = k.mtu_flits * (1 + k.spare_buffer);
    p.switch.vcs = 1;
    p.switch.switching = if k.saf { Switching::StoreAndForward } else { Switching::CutThrough };
    let (hs, hr, ns, nr) = k.overheads.unwrap_or_default();
    (p.host.t_hs, p.host.t_hr, p.ni.t_ns, p.ni.t_nr) = (Time(hs), Time(hr), Time(ns), Time(nr));
    p.ni.dma_bandwidth = mcastlab_core::sim::Rate::UNLIMITED;
    p
}

/// The case's workload spec on a fabric of `n` endpoints.
fn workload(k: &Knobs, n: usize, mtu: u64) -> String {
    let s = SCHEMES[k.scheme];
    let d = ["host", "fcfs", "fpfs"][k.discipline];
    let process = if k.poisson { "poisson" } else { "bernoulli" };
    let load = k.load;
    let w = match k.kind {
        0 => format!("uniform:load={load},process={process}"),
        1 => {
            format!("multicast_load:degree={},load={load},process={process},scheme={s}", 1 + k.seed as usize % (n - 1))
        }
        2 => format!("many_to_many:senders_pct=50,group_pct=60,load={load},process={process},scheme={s}"),
        3 => format!("all_to_all:scheme={s}"),
        4 => format!("blast:source={},count=3,scheme={s}", k.seed as usize % n),
        _ => format!("single:source={},group_pct=70,scheme={s}", k.seed as usize % n),
    };
    let bytes = (k.packets * mtu).saturating_sub((k.short_last % mtu).min(mtu - 1)).max(1);
    format!("{w},discipline={d},bytes={bytes}")
}

/// The rows as JSON without what differs between granularities by construction.
fn comparable(r: &WorkloadResult) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    let run = v["run"].as_object_mut().unwrap();
    for key in ["events", "estimated_events", "granularity"] {
        run.remove(key);
    }
    run["params"]["switch"].as_object_mut().unwrap().remove("granularity");
    v
}

fn compare(k: &Knobs) -> Result<(), TestCaseError> {
    let p = params(k);
    let base = FABRICS[k.fabric];
    let spec = if base.starts_with("irregular") { format!("{base},seed={}", k.fabric_seed) } else { base.into() };
    let f = generate(&spec).unwrap();
    let r = routing::build(&f, None).unwrap();
    let w = Workload::parse(&workload(k, f.num_endpoints(), p.link.mtu_bytes as u64)).unwrap();
    let c = p.flit_ps();
    let m = Measure {
        warmup: Some(Time(100 * c)),
        batch: Some(Time(300 * c)),
        batches: 2,
        detail: Detail::Destinations,
        ..Measure::default()
    };
    let flit = run_workload(&f, r.as_ref(), &w, &p, &m, k.seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut pa = p.clone();
    pa.switch.granularity = Granularity::Auto;
    let auto = run_workload(&f, r.as_ref(), &w, &pa, &m, k.seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(flit.run.granularity, Granularity::Flit);
    // Every case meets the conditions for exact trains, so `auto` must have chosen them.
    prop_assert_eq!(auto.run.granularity, Granularity::Packet, "{} on {}", w.spec(), spec);
    if let Some(d) = common::first_difference(&comparable(&auto), &comparable(&flit), "") {
        return Err(TestCaseError::fail(format!("{} on {spec}: trains vs flits: {d}", w.spec())));
    }
    common::tally(if auto.run.events < flit.run.events { FEWER } else { NOT_FEWER });
    Ok(())
}

const CASES: u32 = 2000;
const FEWER: &str = "trains ran fewer events";
const NOT_FEWER: &str = "trains ran as many events or more";

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, .. ProptestConfig::default() })]

    fn workload_cases(k in knobs()) {
        compare(&k)?;
    }
}

/// Every random workload runs as trains and matches the flit engine; trains must also save
/// events in most cases (otherwise they would be pointless), which is the check that the
/// comparison did not pass by running flits twice.
#[test]
fn workloads_as_packet_trains_give_the_flit_engines_rows() {
    common::Tally::start();
    workload_cases();
    let t = common::Tally::take();
    println!("{t:?}");
    t.assert_only(&[FEWER, NOT_FEWER]);
    assert!(t.total() >= CASES as u64);
    assert!(t.get(FEWER) * 10 >= t.total() * 9, "{t:?}");
}
