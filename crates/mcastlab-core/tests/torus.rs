//! Tori and meshes with dimension-order routing: structure, coordinates, datelines.

use mcastlab_core::check::{check, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::generators::torus::{coords_of, index_of};
use mcastlab_core::fabric::Terminal;
use mcastlab_core::routing::path::deterministic;
use mcastlab_core::routing::{self};
use mcastlab_core::{EndpointId, FabricError};

#[test]
fn counts_and_coordinates() {
    for (spec, nodes, links) in [
        ("torus:4x4", 16, 16 + 32),
        ("torus:4x4,unidirectional", 16, 16 + 32),
        ("mesh:4x4", 16, 16 + 24),
        ("torus:3x4x5", 60, 60 + 180),
    ] {
        let f = generate(spec).unwrap();
        assert_eq!(f.num_switches(), nodes, "{spec}");
        assert_eq!(f.num_endpoints(), nodes, "{spec}");
        assert_eq!(f.num_links(), links, "{spec}");
    }
    let f = generate("torus:4x4").unwrap();
    assert_eq!(f.switch(mcastlab_core::SwitchId(6)).coords, Some(vec![2, 1]));
    assert_eq!(f.endpoint(EndpointId(6)).name, "n(2,1)");
    assert_eq!(index_of(&[4, 4], &coords_of(&[4, 4], 13)), 13);
    let uni = generate("torus:4x4,unidirectional").unwrap();
    assert!(uni.links().iter().filter(|l| matches!(l.b, Terminal::Switch { .. })).all(|l| l.directed));
}

#[test]
fn dor_routes_dimension_zero_first_and_shortest_way() {
    let f = generate("torus:4x4").unwrap();
    let r = routing::build(&f, None).unwrap();
    assert_eq!(r.engine(), "dor");
    // (0,0) -> (3,2): dim 0 backwards one hop (wrap), then dim 1 forward two hops.
    let p = deterministic(&f, r.as_ref(), EndpointId(0), EndpointId(3 + 4 * 2)).unwrap();
    let nodes: Vec<u32> = p.hops.iter().map(|h| h.switch.0).collect();
    assert_eq!(nodes, vec![0, 3, 7, 11]);
    assert_eq!(p.hops[0].vc, 1, "the wrap link is on class 1");
    assert_eq!(p.hops[1].vc, 0, "turning into dimension 1 returns to class 0");
    // Unidirectional: only + moves; (1,0) -> (0,0) goes round the ring.
    let u = generate("torus:4x4,unidirectional").unwrap();
    let r = routing::build(&u, None).unwrap();
    let p = deterministic(&u, r.as_ref(), EndpointId(1), EndpointId(0)).unwrap();
    let nodes: Vec<u32> = p.hops.iter().map(|h| h.switch.0).collect();
    assert_eq!(nodes, vec![1, 2, 3, 0]);
}

#[test]
fn datelines_make_tori_deadlock_free_and_their_absence_shows_the_cycle() {
    for spec in ["torus:4x4", "torus:4x4,unidirectional", "torus:5x3", "torus:2x3x4", "torus:8"] {
        let f = generate(spec).unwrap();
        let with = routing::build(&f, Some("dor")).unwrap();
        let c = check(&f, with.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "{spec}: {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{spec}: {c:?}");
        let without = routing::build(&f, Some("dor:datelines=false")).unwrap();
        let c = check(&f, without.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }));
        match c.deadlock {
            Deadlock::Cycle { cycle, .. } => {
                // The witness is a real cycle: consecutive channels meet at a switch.
                for w in 0..cycle.len() {
                    let (_, b) = f.channel_ends(cycle[w].channel);
                    let (a, _) = f.channel_ends(cycle[(w + 1) % cycle.len()].channel);
                    let sw = |t: Terminal| match t {
                        Terminal::Switch { switch, .. } => switch,
                        _ => panic!("endpoint channel in a cycle"),
                    };
                    assert_eq!(sw(b), sw(a));
                }
                assert!(cycle.len() >= 2);
            }
            other => panic!("{spec}: expected a cycle without datelines, got {other:?}"),
        }
    }
}

#[test]
fn mesh_needs_no_datelines() {
    let f = generate("mesh:4x5").unwrap();
    let r = routing::build(&f, None).unwrap();
    assert_eq!(r.vc_classes(), 1);
    let c = check(&f, r.as_ref(), &CheckOptions::default());
    assert!(c.ok(), "{c:?}");
}

#[test]
fn updown_also_routes_a_bidirectional_torus_but_not_a_unidirectional_one() {
    let f = generate("torus:4x4").unwrap();
    let r = routing::build(&f, Some("updown")).unwrap();
    assert!(check(&f, r.as_ref(), &CheckOptions::default()).ok());
    let u = generate("torus:4x4,unidirectional").unwrap();
    assert!(routing::build(&u, Some("updown")).is_err());
}

#[test]
fn invalid_dims() {
    for spec in ["torus:1x4", "torus:0", "mesh:4x1"] {
        assert!(matches!(generate(spec), Err(FabricError::Param { param: "dims", .. })), "{spec}");
    }
    assert!(generate("torus:4xa").unwrap_err().to_string().contains("dims"));
    assert!(generate("mesh:4x4,unidirectional").unwrap_err().to_string().contains("unknown field"));
}

/// The switches a deterministic route visits and the VC class of every hop it takes (the last hop
/// is the ejection).
fn traced(spec: &str, routing_spec: &str, src: (u32, u32), dst: (u32, u32)) -> (Vec<(u32, u32)>, Vec<u8>) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, Some(routing_spec)).unwrap();
    let dims = [8, 8];
    let id = |(x, y): (u32, u32)| EndpointId(index_of(&dims, &[x, y]));
    let p = deterministic(&f, r.as_ref(), id(src), id(dst)).unwrap();
    let at = p
        .hops
        .iter()
        .map(|h| {
            let c = coords_of(&dims, h.switch.0);
            (c[0], c[1])
        })
        .collect();
    (at, p.hops.iter().map(|h| h.vc).collect())
}

#[test]
fn tie_and_class_rules_follow_a_hand_computed_path_on_the_8x8_torus() {
    // (6,1) -> (2,5): both dimensions are tied (distance 4 = k/2 each way).
    let plus_x = vec![(6, 1), (7, 1), (0, 1), (1, 1)];
    // tie=plus: + in both dimensions; x wraps 7 -> 0, y does not wrap.
    let (at, vcs) = traced("torus:8x8", "dor", (6, 1), (2, 5));
    let y_plus = vec![(2, 1), (2, 2), (2, 3), (2, 4), (2, 5)];
    assert_eq!(at, [plus_x.clone(), y_plus.clone()].concat());
    // dateline: class 0 until the wrap link, 1 on and after it; back to 0 in dimension 1.
    assert_eq!(vcs, vec![0, 1, 1, 1, 0, 0, 0, 0, 0]);
    // entry (BookSim): class 1 for the whole x ring since 6 > 2, class 0 in y since 1 < 5.
    let (at_e, vcs) = traced("torus:8x8", "dor:classes=entry", (6, 1), (2, 5));
    assert_eq!(at_e, at);
    assert_eq!(vcs, vec![1, 1, 1, 1, 0, 0, 0, 0, 0]);
    // tie=parity: x from 6 (even) goes +, y from 1 (odd) goes − and wraps 0 -> 7.
    let (at, vcs) = traced("torus:8x8", "dor:tie=parity", (6, 1), (2, 5));
    assert_eq!(at, [plus_x, vec![(2, 1), (2, 0), (2, 7), (2, 6), (2, 5)]].concat());
    assert_eq!(vcs, vec![0, 1, 1, 1, 0, 1, 1, 1, 0]);
    // entry with the − direction: 1 < 5, so class 0 all along y although the route wraps
    // (BookSim's mirror rule for the − direction).
    let (_, vcs) = traced("torus:8x8", "dor:tie=parity,classes=entry", (6, 1), (2, 5));
    assert_eq!(vcs, vec![1, 1, 1, 1, 0, 0, 0, 0, 0]);
    // From an odd x the parity rule goes − in x: (1,2) -> (5,2) via 0 and 7.
    let (at, vcs) = traced("torus:8x8", "dor:tie=parity", (1, 2), (5, 2));
    assert_eq!(at, vec![(1, 2), (0, 2), (7, 2), (6, 2), (5, 2)]);
    assert_eq!(vcs, vec![0, 1, 1, 1, 0]);
    // tie=random offers both ways at the tie, + first, each with its class; one hop on, only one.
    let f = generate("torus:8x8").unwrap();
    let r = routing::build(&f, Some("dor:tie=random,classes=entry")).unwrap();
    let mut hops = Vec::new();
    let start = routing::Arrival { port: mcastlab_core::PortNum(1), vc: 0 };
    r.next_hops(mcastlab_core::SwitchId(6 + 8), start, mcastlab_core::Address(2 + 8 * 5), &mut hops);
    let got: Vec<(u16, u8)> = hops.iter().map(|h| (h.port.0, h.vc)).collect();
    assert_eq!(got, vec![(2, 1), (3, 1)]);
    let after = routing::Arrival { port: mcastlab_core::PortNum(3), vc: 1 };
    r.next_hops(mcastlab_core::SwitchId(7 + 8), after, mcastlab_core::Address(2 + 8 * 5), &mut hops);
    assert_eq!(hops.iter().map(|h| (h.port.0, h.vc)).collect::<Vec<_>>(), vec![(2, 1)]);
    assert_eq!(r.spec(), "dor:datelines=true,tie=random,classes=entry");
    assert_eq!(r.run_time_choice().map(|c| c.option).as_deref(), Some("tie=random"));
}

#[test]
fn every_tie_and_class_rule_is_reachable_and_deadlock_free_and_one_class_is_not() {
    for spec in ["torus:8x8", "torus:4x4", "torus:6x3", "torus:5x4", "torus:2x4x4"] {
        let f = generate(spec).unwrap();
        for tie in ["plus", "+", "parity", "random"] {
            for classes in ["dateline", "entry"] {
                let rs = format!("dor:tie={tie},classes={classes}");
                let r = routing::build(&f, Some(&rs)).unwrap();
                let c = check(&f, r.as_ref(), &CheckOptions::default());
                assert!(matches!(c.reachability, Reachability::Verified { .. }), "{spec} {rs}: {c:?}");
                assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{spec} {rs}: {c:?}");
            }
            // One class closes the ring: a ring of k ≥ 5 has minimal arcs of two links from every
            // coordinate, which chain all the way round. On rings of 4 the only two-link arcs are
            // the ties, and the parity rule starts `+` ones only at even and `−` ones only at odd
            // coordinates, so no arc continues another: one class is enough there.
            let rs = format!("dor:datelines=false,tie={tie}");
            let r = routing::build(&f, Some(&rs)).unwrap();
            let c = check(&f, r.as_ref(), &CheckOptions::default());
            assert!(matches!(c.reachability, Reachability::Verified { .. }), "{spec} {rs}");
            let rings_of_4 = ["torus:4x4", "torus:2x4x4"].contains(&spec);
            if tie == "parity" && rings_of_4 {
                assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{spec} {rs}: {:?}", c.deadlock);
            } else {
                assert!(matches!(c.deadlock, Deadlock::Cycle { .. }), "{spec} {rs}: {:?}", c.deadlock);
            }
        }
    }
    // A class rule with a single class is refused, naming the option.
    let f = generate("torus:4x4").unwrap();
    let e = routing::build(&f, Some("dor:datelines=false,classes=entry")).unwrap_err().to_string();
    assert!(e.contains("classes"), "{e}");
    let e = routing::build(&f, Some("dor:tie=left")).unwrap_err().to_string();
    assert!(e.contains("tie") || e.contains("left"), "{e}");
}
