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
