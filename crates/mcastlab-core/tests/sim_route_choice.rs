//! Route choices the simulator makes per packet at run time (issue 12): `dor:tie=random` and
//! `nca:up=random` draw from the routing's legal set with a seeded stream, `nca:up=adaptive` takes
//! the up port with the most free credits as the head is routed, in both switch models. Every
//! packet arrives once, along a route the routing allows; a seed fixes the draws; random up ports
//! spread a stream over a fat tree's up links as the uniform draw says; a tie on a ring of 8 goes
//! both ways; and on BookSim's `bitrev` permutation, which puts every source of a leaf switch
//! on one dmodk up port, adaptive ascent stays stable where dmodk saturates.

use mcastlab_core::fabric::{Channel, Fabric, Terminal};
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::routing::{Arrival, Routing};
use mcastlab_core::sim::{
    run_workload, Detail, Measure, Params, RunResult, Simulation, Time, Workload, WorkloadOutcome,
};
use mcastlab_core::{EndpointId, SwitchId};
use std::collections::{BTreeMap, BTreeSet};

mod common;

/// The two switch models: BookSim's iq router, and the event-driven flit router (which has no
/// separate VA and SA stages).
const MODELS: [&str; 2] = ["iq", "simple"];

fn params(preset: &str, model: &str) -> Params {
    match model {
        "iq" => Params::with_overrides(preset, &["switch.router=iq"]),
        _ => Params::with_overrides(preset, &["switch.router=simple", "switch.va_delay=0ns", "switch.sa_delay=0ns"]),
    }
    .unwrap()
}

/// One message of `packets` packets from `a` to `b`.
fn unicast(f: &Fabric, a: u32, b: u32, packets: u32) -> Plan {
    let t = Transmission {
        sender: EndpointId(a),
        trigger: Trigger::Start,
        carrier: Carrier::Unicast { dst: EndpointId(b) },
        delivers: vec![EndpointId(b)],
    };
    Plan::from_transmissions(f, "unicast", EndpointId(a), vec![EndpointId(b)], packets, Discipline::NiFpfs, vec![t])
        .unwrap()
}

fn run(f: &Fabric, r: &dyn Routing, plan: &Plan, p: &Params, seed: u64, trace: bool) -> (RunResult, Vec<Vec<u32>>) {
    let bytes = plan.packets as u64 * p.link.mtu_bytes as u64;
    let mut sim = Simulation::new(f, r, plan, p, bytes, seed).unwrap();
    sim.record_flits(trace);
    let res = sim.run();
    // Each packet's route: the channels its head flit crossed, in time order.
    let mut routes: BTreeMap<u32, Vec<(u64, u32)>> = BTreeMap::new();
    for x in sim.flit_trace().iter().filter(|x| x.flit == 0) {
        routes.entry(x.pid).or_default().push((x.time, x.channel));
    }
    let routes = routes.into_values().map(|mut v| {
        v.sort_unstable();
        v.into_iter().map(|(_, c)| c).collect()
    });
    (res, routes.collect())
}

/// Packets per channel.
fn link_packets(res: &RunResult) -> BTreeMap<u32, u64> {
    res.links.iter().filter(|l| l.packets > 0).map(|l| (l.channel.0, l.packets)).collect()
}

/// Asserts that `route` (channels, the injection first) leads from `a` to `b` through hops the
/// routing lists as legal where they are taken.
fn assert_legal(f: &Fabric, r: &dyn Routing, a: u32, b: u32, route: &[u32]) {
    let (s0, p0) = f.attachment(EndpointId(a));
    let mut at = (s0, Arrival { port: p0, vc: 0 });
    let mut hops = Vec::new();
    let address = r.address(EndpointId(a), EndpointId(b));
    for (i, &c) in route.iter().enumerate().skip(1) {
        let (from, to) = f.channel_ends(Channel(c));
        let Terminal::Switch { switch, port } = from else { panic!("{a}->{b}: hop {i} leaves an endpoint") };
        assert_eq!(switch, at.0, "{a}->{b}: hop {i} leaves another switch");
        r.next_hops(switch, at.1, address, &mut hops);
        let legal = hops.iter().find(|h| h.port == port);
        let Some(h) = legal else {
            panic!("{a}->{b}: port {port} of switch {switch:?} is not in the legal set {hops:?}")
        };
        match to {
            Terminal::Switch { switch, port } => at = (switch, Arrival { port, vc: h.vc }),
            Terminal::Endpoint { endpoint } => {
                assert_eq!((endpoint, i + 1), (EndpointId(b), route.len()), "{a}->{b}: ejected early or elsewhere")
            }
        }
    }
}

#[test]
fn a_random_rule_is_fixed_by_the_seed_and_every_packet_takes_a_legal_route_once() {
    let cases = [
        ("kary_ntree:k=4,n=3", "nca:up=random", "booksim_fattree", (0, 63)),
        ("kary_ntree:k=4,n=3", "nca:up=adaptive", "booksim_fattree", (0, 63)),
        ("torus:8x8", "dor:tie=random,classes=entry", "booksim_torus", (0, 36)),
        ("torus:8x8", "dor:tie=random", "booksim_iq", (9, 45)),
    ];
    for (spec, rs, preset, (a, b)) in cases {
        let (f, r) = common::fabric_routed(spec, Some(rs));
        let plan = unicast(&f, a, b, 64);
        for model in MODELS {
            let p = params(preset, model);
            let what = format!("{spec} {rs} {model}");
            let (res, routes) = run(&f, &*r, &plan, &p, 5, true);
            assert_eq!(res.per_destination.len(), 1, "{what}");
            assert_eq!((res.per_destination[0].deliveries, res.per_destination[0].packets), (1, 64), "{what}");
            assert_eq!(res.packets_received, 64, "{what}");
            assert_eq!(routes.len(), 64, "{what}: a route per packet");
            for route in &routes {
                assert_legal(&f, &*r, a, b, route);
            }
            let distinct: BTreeSet<&Vec<u32>> = routes.iter().collect();
            // The same seed draws the same routes; another seed other ones (a random rule).
            let again = run(&f, &*r, &plan, &p, 5, true).1;
            assert_eq!(again, routes, "{what}");
            if rs.contains("random") {
                assert!(distinct.len() > 1, "{what}: one route for 64 packets");
                let other = run(&f, &*r, &plan, &p, 6, true).1;
                assert_ne!(other, routes, "{what}: seeds 5 and 6 drew the same 64 routes");
            }
        }
    }
    // A deterministic rule draws nothing: the seed changes no route.
    let (f, r) = common::fabric_routed("kary_ntree:k=4,n=3", Some("nca"));
    let plan = unicast(&f, 0, 63, 64);
    let p = params("booksim_fattree", "iq");
    assert_eq!(link_packets(&run(&f, &*r, &plan, &p, 5, false).0), link_packets(&run(&f, &*r, &plan, &p, 6, false).0));
}

/// Up channels out of switches at `level` (levels count from the leaves) that carried packets.
fn up_links(f: &Fabric, counts: &BTreeMap<u32, u64>, level: u32) -> Vec<u64> {
    let lvl = |t: Terminal| match t {
        Terminal::Switch { switch, .. } => f.switch(switch).level,
        Terminal::Endpoint { .. } => None,
    };
    counts
        .iter()
        .filter(|(&c, _)| {
            let (from, to) = f.channel_ends(Channel(c));
            lvl(from) == Some(level) && lvl(to) == Some(level + 1)
        })
        .map(|(_, &n)| n)
        .collect()
}

/// Random up ports on the 4-ary 3-tree: a stream of N packets from endpoint 0 to endpoint 63
/// climbs to the top, so it takes each of its leaf's 4 up links with probability 1/4 and each of
/// the 16 up links of the 4 level-1 switches with probability 1/16. Each count must be within 5
/// binomial standard deviations of its mean (a fair rule fails this with probability < 10⁻⁵);
/// dmodk puts every packet on one link per level.
#[test]
fn random_up_ports_spread_a_stream_over_the_up_links_as_a_uniform_draw() {
    let n = 1600u64;
    for model in MODELS {
        let p = params("booksim_fattree", model);
        let (f, r) = common::fabric_routed("kary_ntree:k=4,n=3", Some("nca:up=random"));
        let counts = link_packets(&run(&f, &*r, &unicast(&f, 0, 63, n as u32), &p, 1, false).0);
        for (level, ways) in [(0u32, 4u64), (1, 16)] {
            let got = up_links(&f, &counts, level);
            assert_eq!(got.len() as u64, ways, "{model}: level {level} up links used: {got:?}");
            assert_eq!(got.iter().sum::<u64>(), n, "{model}");
            let (mean, q) = (n as f64 / ways as f64, 1.0 / ways as f64);
            let sd = (n as f64 * q * (1.0 - q)).sqrt();
            for &x in &got {
                assert!((x as f64 - mean).abs() < 5.0 * sd, "{model}: level {level}: {got:?}, mean {mean}, sd {sd:.1}");
            }
        }
        let (f, r) = common::fabric_routed("kary_ntree:k=4,n=3", Some("nca"));
        let counts = link_packets(&run(&f, &*r, &unicast(&f, 0, 63, n as u32), &p, 1, false).0);
        assert_eq!(up_links(&f, &counts, 0), vec![n], "{model}: dmodk");
    }
}

/// On a ring of 8, a packet to the switch 4 away is tied: `tie=random` sends it either way with a
/// fair coin (each count within 5 standard deviations of N/2), `tie=plus` always `+`.
#[test]
fn a_tie_on_a_ring_of_8_goes_both_ways_at_random_and_one_way_by_plus() {
    let n = 400u64;
    for model in MODELS {
        let p = params("booksim_torus", model);
        let out_of_0 = |rs: &str| -> BTreeMap<u32, u64> {
            let (f, r) = common::fabric_routed("torus:8", Some(rs));
            let counts = link_packets(&run(&f, &*r, &unicast(&f, 0, 4, n as u32), &p, 3, false).0);
            // Channels from switch 0 to a switch: to switch 1 (+) or 7 (−).
            counts
                .into_iter()
                .filter_map(|(c, k)| match f.channel_ends(Channel(c)) {
                    (Terminal::Switch { switch: SwitchId(0), .. }, Terminal::Switch { switch, .. }) => {
                        Some((switch.0, k))
                    }
                    _ => None,
                })
                .collect()
        };
        let random = out_of_0("dor:tie=random,classes=entry");
        assert_eq!(random.keys().copied().collect::<Vec<_>>(), vec![1, 7], "{model}: {random:?}");
        let sd = (n as f64 * 0.25).sqrt();
        for (&to, &k) in &random {
            assert!((k as f64 - n as f64 / 2.0).abs() < 5.0 * sd, "{model}: {k} of {n} towards switch {to}");
        }
        assert_eq!(out_of_0("dor:tie=plus,classes=entry"), BTreeMap::from([(1, n)]), "{model}");
    }
}

fn short_measure(p: &Params, detail: Detail) -> Measure {
    let c = p.flit_ps();
    Measure {
        warmup: Some(Time(1_000 * c)),
        batch: Some(Time(2_000 * c)),
        batches: 3,
        latency_limit: Some(Time(500 * c)),
        detail,
        ..Measure::default()
    }
}

/// Under load, in both models, every message of a per-packet rule arrives once and whole.
#[test]
fn under_load_every_copy_is_delivered_exactly_once() {
    let cases = [
        ("kary_ntree:k=4,n=3", "nca:up=random", "booksim_fattree", "uniform:self=1,load=0.4,bytes=32"),
        ("kary_ntree:k=4,n=3", "nca:up=adaptive", "booksim_fattree", "uniform:self=1,load=0.4,bytes=32"),
        ("kary_ntree:k=4,n=3", "nca:up=adaptive", "booksim_fattree", "permutation:pattern=bitrev,load=0.3,bytes=64"),
        ("torus:8x8", "dor:tie=random,classes=entry", "booksim_torus", "uniform:self=1,load=0.2,bytes=64"),
    ];
    for (spec, rs, preset, w) in cases {
        let (f, r) = common::fabric_routed(spec, Some(rs));
        for model in MODELS {
            let p = params(preset, model);
            let mut m = short_measure(&p, Detail::Destinations);
            m.latency_limit = Some(Time::from_us(1_000_000));
            let res = run_workload(&f, &*r, &Workload::parse(w).unwrap(), &p, &m, 2).unwrap();
            common::assert_workload_conserved(&res);
            assert!(res.run.messages > 100, "{spec} {rs} {w} {model}: {} messages", res.run.messages);
        }
    }
}

/// BookSim's `bitrev` permutation on the 4-ary 3-tree (64 endpoints, 6-bit numbers): the four
/// endpoints of a leaf switch differ in their two low bits, which bit reversal makes the two
/// high bits of their destinations, so the destinations share their low base-4 digit and dmodk
/// sends all four up one port. At 0.4 flits/cycle/endpoint that link is offered 1.2–1.6 flits per
/// cycle (a leaf holds at most one of the 8 endpoints bitrev maps to themselves), more than the
/// one it carries: dmodk is unstable. Adaptive ascent spreads them over the 4 up ports (0.4 per
/// link on average): it stays stable and accepts the offered load, while dmodk accepts strictly
/// less. In both switch models.
#[test]
fn adaptive_ascent_stays_stable_where_dmodk_concentrates_a_permutation() {
    let w = Workload::parse("permutation:pattern=bitrev,load=0.4,bytes=64").unwrap();
    for model in MODELS {
        let p = params("booksim_fattree", model);
        let m = short_measure(&p, Detail::None);
        let at = |rs: &str| {
            let (f, r) = common::fabric_routed("kary_ntree:k=4,n=3", Some(rs));
            run_workload(&f, &*r, &w, &p, &m, 4).unwrap().run
        };
        let (dmodk, adaptive, random) = (at("nca"), at("nca:up=adaptive"), at("nca:up=random"));
        for (rs, x) in [("dmodk", &dmodk), ("adaptive", &adaptive), ("random", &random)] {
            println!(
                "{model} {rs}: {:?} saturated={} accepted {:.3} latency {:?}",
                x.outcome, x.saturated, x.accepted_load, x.latency_mean_ps
            );
        }
        assert!(matches!(dmodk.outcome, WorkloadOutcome::Unstable { .. }) || dmodk.saturated, "{model}: {dmodk:?}");
        assert_eq!(adaptive.outcome, WorkloadOutcome::Drained, "{model}");
        assert!(!adaptive.saturated, "{model}: {}", adaptive.saturation);
        assert!(adaptive.accepted_load > dmodk.accepted_load, "{model}");
    }
}
