//! The router's shortcuts (the lone-VC visit, and under BookSim's pipeline the pass by phase;
//! `router.rs`) give the general path's results: the same flit trace, flit for flit, and the
//! same results, with them and without them (`Simulation::without_router_shortcuts`).

use crate::fabric::generators::generate;
use crate::plan::{Discipline, Plan};
use crate::routing;
use crate::schemes::{self, SchemeInput};
use crate::sim::{FlitRecord, Outcome, Params, RunResult, Simulation};
use crate::EndpointId;

/// The shortcuts change nothing (the lone-VC visit, and under BookSim's pipeline the pass by
/// phase): software multicast trees on the 8x8 mesh (whose unicast sends meet at routers, so
/// visits take the shortcut and the general path in turn), an InfiniBand hardware multicast
/// tree and a path-based multidestination worm (packets copied to several outputs, where the
/// pass by phase hands the router to the general pass) give the same results and the same
/// flit trace, flit for flit, with them and without them, under BookSim's pipeline and with a
/// zero-cycle RC or VA stage (where the shortcut must decline a head or an ask).
#[test]
fn the_router_shortcuts_give_the_general_path_s_results() {
    let f = generate("mesh:8x8").unwrap();
    let r = routing::build(&f, None).unwrap();
    let dests: Vec<EndpointId> = (1..64).map(EndpointId).collect();
    let run = |plan: &Plan, p: &Params, shortcuts: bool| -> (RunResult, Vec<FlitRecord>) {
        let mut sim = Simulation::new(&f, &*r, plan, p, 64, 1).unwrap();
        sim.record_flits(true);
        if !shortcuts {
            sim.without_router_shortcuts();
        }
        let res = sim.run();
        (res, sim.flit_trace().to_vec())
    };
    for scheme in ["kbinomial:k=2", "kbinomial:k=4", "ib_opensm", "mdtorus"] {
        let input = SchemeInput {
            fabric: &f,
            routing: &*r,
            source: EndpointId(0),
            destinations: &dests,
            packets: 8,
            discipline: Discipline::NiFpfs,
        };
        let plan = schemes::plan(&input, scheme).unwrap();
        for overrides in [&[][..], &["switch.routing_delay=0"], &["switch.va_delay=0"]] {
            let p = Params::with_overrides("booksim_iq", overrides).unwrap();
            let (fast, slow) = (run(&plan, &p, true), run(&plan, &p, false));
            assert!(fast.1.len() > 5_000, "{scheme} {overrides:?}: {} flits", fast.1.len());
            assert_eq!(fast.1, slow.1, "{scheme} {overrides:?}: flit traces");
            assert_eq!(fast.0, slow.0, "{scheme} {overrides:?}: results");
        }
    }
}

/// The same under parameters that change what the shortcuts may assume: stages of 0 cycles (a
/// stage's decision usable in its own cycle), longer RC and VA stages, a credit delay, one and
/// three VCs, input-first allocation, link latency, shallow buffers and one-flit packets, on a
/// mesh, BookSim's torus (its 1- and 2-cycle links) and a fat-tree with adaptive up-ports (forks
/// resolved at RC). Written for session 14's review of the iq router; it found nothing.
#[test]
fn the_shortcuts_give_the_general_path_s_results_under_other_parameters() {
    let overrides: &[&[&str]] = &[
        &[],
        &["switch.credit_delay=3ns"],
        &["switch.sa_delay=0ns", "switch.crossbar_delay=0ns"],
        &["switch.routing_delay=0ns", "switch.va_delay=0ns"],
        &["switch.routing_delay=0ns", "switch.va_delay=0ns", "switch.sa_delay=0ns", "switch.crossbar_delay=0ns"],
        &["switch.routing_delay=2ns", "switch.va_delay=3ns"],
        &["switch.vcs=3"],
        &["switch.allocator=input_first"],
        &["link.propagation=3ns"],
        &["switch.buffer_flits=2flits"],
        &["link.mtu_bytes=1B"],
        &["link.mtu_bytes=32B", "switch.buffer_flits=4flits"],
        &["switch.vcs=3", "switch.buffer_flits=1flits", "link.mtu_bytes=1B"],
    ];
    let cases: &[(&str, Option<&str>, &str, &[&str])] = &[
        ("mesh:4x4", None, "booksim_iq", &["kbinomial:k=2", "ib_opensm", "mdtorus"]),
        ("torus:4x4", None, "booksim_torus", &["kbinomial:k=2", "ib_opensm"]),
        ("kary_ntree:k=4,n=2", Some("nca:up=adaptive"), "booksim_fattree", &["kbinomial:k=2", "kbinomial:k=4"]),
    ];
    let mut runs = 0;
    for &(spec, routing_spec, preset, names) in cases {
        let f = generate(spec).unwrap();
        let r = routing::build(&f, routing_spec).unwrap();
        let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
        // One VC everywhere but on the torus, whose datelines need two.
        let one_vc: &[&[&str]] = if spec.starts_with("torus") { &[] } else { &[&["switch.vcs=1"]] };
        for scheme in names {
            let input = SchemeInput {
                fabric: &f,
                routing: &*r,
                source: EndpointId(0),
                destinations: &dests,
                packets: 6,
                discipline: Discipline::NiFpfs,
            };
            let plan = schemes::plan(&input, scheme).unwrap();
            for o in overrides.iter().chain(one_vc) {
                let p = Params::with_overrides(preset, o).unwrap();
                let bytes = plan.packets as u64 * p.link.mtu_bytes as u64;
                let run = |shortcuts: bool| -> (RunResult, Vec<FlitRecord>) {
                    let mut sim = Simulation::new(&f, &*r, &plan, &p, bytes, 1).unwrap();
                    sim.record_flits(true);
                    if !shortcuts {
                        sim.without_router_shortcuts();
                    }
                    let res = sim.run();
                    (res, sim.flit_trace().to_vec())
                };
                let (fast, slow) = (run(true), run(false));
                let what = format!("{spec} {scheme} {o:?}");
                assert_eq!(fast.0.outcome, Outcome::Delivered, "{what}");
                assert_eq!(fast.1, slow.1, "{what}: flit traces");
                assert_eq!(fast.0, slow.0, "{what}: results");
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 3 * 14 + 2 * 13 + 2 * 14, "every combination ran");
}
