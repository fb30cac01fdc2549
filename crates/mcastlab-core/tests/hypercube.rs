//! bhoedjang98's switch hypercube with e-cube routing: structure, routes, verification.

use mcastlab_core::check::{check, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::{generate, parse_spec};
use mcastlab_core::fabric::{Fabric, Terminal, Topology};
use mcastlab_core::routing::path::{all_paths, deterministic};
use mcastlab_core::routing::{self};
use mcastlab_core::{EndpointId, FabricError, PortNum, SwitchId};
use proptest::prelude::*;

fn inter_switch_links(f: &Fabric) -> usize {
    f.links().iter().filter(|l| matches!((l.a, l.b), (Terminal::Switch { .. }, Terminal::Switch { .. }))).count()
}

#[test]
fn bhoedjang98_default_cluster() {
    for spec in ["hypercube", "hypercube:dim=4,endpoints_per_switch=4", "hypercube:4"] {
        let f = generate(spec).unwrap();
        // Same fabric whichever way it is spelled; the name regenerates it.
        assert_eq!(parse_spec(f.name()).unwrap(), parse_spec("hypercube:dim=4,endpoints_per_switch=4").unwrap());
        assert_eq!(f.num_switches(), 16);
        assert!(f.switches().iter().all(|s| s.ports == 8), "8-port Myrinet switches");
        assert_eq!(f.num_endpoints(), 64);
        assert_eq!(inter_switch_links(&f), 32);
        assert_eq!(f.num_links(), 64 + 32);
        assert_eq!(routing::default_engine(&f), "ecube");
    }
    let f = generate("hypercube").unwrap();
    assert_eq!(f.endpoint(EndpointId(13)).name, "h3.1");
    assert_eq!(f.attachment(EndpointId(13)), (SwitchId(3), PortNum(2)));
    assert_eq!(f.switch(SwitchId(6)).coords, Some(vec![0, 1, 1, 0]));
}

#[test]
fn ecube_corrects_the_lowest_differing_bit_first() {
    let f = generate("hypercube").unwrap();
    let r = routing::build(&f, None).unwrap();
    assert_eq!(r.engine(), "ecube");
    for src in f.endpoint_ids() {
        for dst in f.endpoint_ids() {
            if src == dst {
                continue;
            }
            let p = deterministic(&f, r.as_ref(), src, dst).unwrap();
            let (s, d) = (src.0 / 4, dst.0 / 4);
            let switches: Vec<u32> = p.hops.iter().map(|h| h.switch.0).collect();
            assert_eq!(switches.len() as u32, (s ^ d).count_ones() + 1, "{src}->{dst}: Hamming distance");
            let mut at = s;
            for w in switches.windows(2) {
                assert_eq!(w[0], at);
                let low = (at ^ d).trailing_zeros();
                at ^= 1 << low;
                assert_eq!(w[1], at, "{src}->{dst}: bit {low} is corrected next");
            }
            assert_eq!(at, d);
            // Deterministic: exactly one path.
            assert_eq!(all_paths(&f, r.as_ref(), src, dst, 4).unwrap().1, 1);
        }
    }
    // Switch 0 -> switch 13 (0b1101): 0 -> 1 -> 5 -> 13.
    let p = deterministic(&f, r.as_ref(), EndpointId(0), EndpointId(13 * 4 + 2)).unwrap();
    assert_eq!(p.hops.iter().map(|h| h.switch.0).collect::<Vec<_>>(), [0, 1, 5, 13]);
    assert_eq!(p.hops.last().unwrap().out_port, PortNum(3));
}

#[test]
fn ecube_is_verified_and_deadlock_free() {
    for spec in [
        "hypercube",
        "hypercube:dim=0,endpoints_per_switch=3",
        "hypercube:dim=1",
        "hypercube:dim=5,endpoints_per_switch=2",
        "hypercube:dim=3,endpoints_per_switch=1",
    ] {
        let f = generate(spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "{spec}: {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{spec}: {c:?}");
        if let (Reachability::Verified { longest_route, .. }, Topology::Hypercube(h)) = (&c.reachability, f.topology())
        {
            assert_eq!(*longest_route as u32, h.dim + 1, "{spec}: the diameter plus the last switch");
        }
    }
}

#[test]
fn ecube_applies_only_to_hypercubes() {
    let f = generate("torus:4x4").unwrap();
    assert!(routing::build(&f, Some("ecube")).is_err());
    let f = generate("hypercube:3").unwrap();
    assert!(routing::applicable(&f).contains(&"ecube"));
    assert!(routing::build(&f, Some("ecube:x=1")).is_err());
}

#[test]
fn invalid_parameters_are_reported() {
    for (spec, param) in [
        ("hypercube:dim=21", "dim"),
        ("hypercube:endpoints_per_switch=0", "endpoints_per_switch"),
        ("hypercube:endpoints_per_switch=2000", "endpoints_per_switch"),
    ] {
        match generate(spec) {
            Err(FabricError::Param { param: p, .. }) => assert_eq!(p, param, "{spec}"),
            other => panic!("{spec}: expected a parameter error, got {other:?}"),
        }
    }
    for spec in ["hypercube:dim=-1", "hypercube:dim=four", "hypercube:dims=4", "hypercube:4,5"] {
        assert!(matches!(generate(spec), Err(FabricError::Spec(_))), "{spec}");
    }
    assert!(parse_spec("hypercube:dim=3,endpoints_per_switch=2").is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// 2^d switches of c+d ports, c·2^d endpoints, d·2^(d−1) inter-switch links, and port c+1+i
    /// of switch s reaches switch s XOR 2^i on the same port.
    #[test]
    fn counts_and_wiring_follow_the_formulas(d in 0u32..=7, c in 1u32..=6) {
        let f = generate(&format!("hypercube:dim={d},endpoints_per_switch={c}")).unwrap();
        prop_assert_eq!(f.num_switches(), 1usize << d);
        prop_assert_eq!(f.num_endpoints(), (c as usize) << d);
        let inter = if d == 0 { 0 } else { (d as usize) << (d - 1) };
        prop_assert_eq!(inter_switch_links(&f), inter);
        prop_assert_eq!(f.num_links(), ((c as usize) << d) + inter);
        for s in f.switch_ids() {
            prop_assert_eq!(f.switch(s).ports as u32, c + d);
            prop_assert_eq!(f.endpoints_at(s).len() as u32, c);
            for i in 0..d {
                let port = PortNum((c + 1 + i) as u16);
                let peer = f.port(s, port).map(|pp| pp.peer);
                prop_assert_eq!(peer, Some(Terminal::Switch { switch: SwitchId(s.0 ^ (1 << i)), port }));
            }
        }
    }
}
