//! sivaram98 §6.3 generator and §2.2 up*/down* routing: port rules, legality, minimality,
//! loop and deadlock freedom, determinism.

use mcastlab_core::check::{check, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::{generate, irregular::IrregularParams};
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::io::json;
use mcastlab_core::routing::path::{all_paths, deterministic};
use mcastlab_core::routing::updown::UpDown;
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::{EndpointId, FabricError, SwitchId};
use proptest::prelude::*;
use std::collections::{BTreeSet, VecDeque};

fn irregular(p: &IrregularParams) -> Result<Fabric, FabricError> {
    mcastlab_core::fabric::generators::irregular::build(p)
}

/// The paper's generator rules, checked on a built fabric.
fn assert_port_rules(f: &Fabric, p: &IrregularParams) {
    assert_eq!(f.num_switches(), p.switches as usize);
    assert_eq!(f.num_endpoints(), p.endpoints as usize);
    assert!(f.switches().iter().all(|s| s.ports as u32 == p.ports));
    let free = (p.switches * p.ports - p.endpoints) as u64;
    let expect_links = if p.switches == 1 { 0 } else { (free * p.connectivity as u64 / 100) / 2 };
    let mut switch_links = 0;
    let mut used = BTreeSet::new();
    for l in f.links() {
        assert!(!l.directed, "links are full duplex");
        for t in [l.a, l.b] {
            if let Terminal::Switch { switch, port } = t {
                assert!(used.insert((switch, port)), "a port carries at most one link");
            }
        }
        if let (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) = (l.a, l.b) {
            assert_ne!(a, b, "no link between ports of one switch");
            switch_links += 1;
        }
    }
    assert_eq!(switch_links as u64, expect_links);
    // Switch graph connected.
    let mut seen = vec![false; f.num_switches()];
    seen[0] = true;
    let mut q = VecDeque::from([SwitchId(0)]);
    while let Some(s) = q.pop_front() {
        for (_, t, _, _) in f.switch_neighbors(s) {
            if !seen[t.idx()] {
                seen[t.idx()] = true;
                q.push_back(t);
            }
        }
    }
    assert!(seen.iter().all(|x| *x), "switch graph is connected");
    // Endpoint numbering by (switch, port).
    let order: Vec<_> = f.endpoint_ids().map(|e| f.attachment(e)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn default_is_sivaram98_system() {
    let f = generate("irregular").unwrap();
    let p = IrregularParams::default();
    assert_eq!((p.switches, p.ports, p.endpoints, p.connectivity), (8, 8, 32, 80));
    assert_port_rules(&f, &p);
    // (64 - 32) * 80% = 25.6 -> 24 ports -> 12 links.
    assert_eq!(f.links().iter().filter(|l| matches!(l.b, Terminal::Switch { .. })).count(), 12);
}

#[test]
fn same_spec_same_bytes_different_seed_differs() {
    let a = json::to_string(&generate("irregular:seed=5").unwrap());
    let b = json::to_string(&generate("irregular:seed=5,switches=8").unwrap());
    let c = json::to_string(&generate("irregular:seed=6").unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn json_round_trip_is_exact() {
    for spec in ["irregular:seed=3", "torus:4x4", "torus:3x5,unidirectional", "mesh:3x4", "hypercube"] {
        let f = generate(spec).unwrap();
        let text = json::to_string(&f);
        let g = json::from_str(&text, "x.json").unwrap();
        assert_eq!(f, g);
        assert_eq!(text, json::to_string(&g), "{spec}");
    }
}

#[test]
fn invalid_parameters_name_the_parameter() {
    let cases: &[(&str, &str)] = &[
        ("irregular:endpoints=100", "endpoints"),
        ("irregular:endpoints=0", "endpoints"),
        ("irregular:switches=0", "switches"),
        ("irregular:ports=0", "ports"),
        ("irregular:connectivity=0", "connectivity"),
        ("irregular:connectivity=101", "connectivity"),
        ("irregular:switches=8,ports=5,endpoints=38,connectivity=50", "connectivity"),
    ];
    for (spec, param) in cases {
        match generate(spec) {
            Err(FabricError::Param { param: p, .. }) => assert_eq!(p, *param, "{spec}"),
            other => panic!("{spec}: expected a `{param}` error, got {other:?}"),
        }
    }
    let e = generate("irregular:bogus=1").unwrap_err().to_string();
    assert!(e.contains("unknown field `bogus`"), "{e}");
    let e = generate("irregular:switches=x").unwrap_err().to_string();
    assert!(e.contains("invalid type"), "{e}");
    let e = generate("nosuch").unwrap_err().to_string();
    assert!(e.contains("unknown generator `nosuch`") && e.contains("irregular"), "{e}");
}

fn updown_of(f: &Fabric) -> Box<dyn Routing> {
    routing::build(f, Some("updown")).unwrap()
}

/// A route is legal if it never goes up after going down.
fn legal(f: &Fabric, ud: &UpDown, hops: &[mcastlab_core::routing::path::PathHop]) -> bool {
    let mut went_down = false;
    for h in &hops[..hops.len() - 1] {
        let l = f.link_at(h.switch, h.out_port).unwrap();
        let down = ud.is_down(l, h.switch).unwrap();
        if went_down && !down {
            return false;
        }
        went_down |= down;
    }
    true
}

/// Shortest legal route length by brute force: BFS over (switch, went_down) states.
fn brute_legal_distance(f: &Fabric, ud: &UpDown, s: SwitchId, d: SwitchId) -> u32 {
    let mut dist = vec![[u32::MAX; 2]; f.num_switches()];
    dist[s.idx()][0] = 0;
    let mut q = VecDeque::from([(s, 0usize)]);
    while let Some((u, down)) = q.pop_front() {
        if u == d {
            return dist[u.idx()][down];
        }
        for (_, t, _, l) in f.switch_neighbors(u) {
            let goes_down = ud.is_down(l, u).unwrap();
            if down == 1 && !goes_down {
                continue;
            }
            let nd = usize::from(goes_down);
            if dist[t.idx()][nd] == u32::MAX {
                dist[t.idx()][nd] = dist[u.idx()][down] + 1;
                q.push_back((t, nd));
            }
        }
    }
    u32::MAX
}

fn assert_updown_properties(f: &Fabric) {
    let r = updown_of(f);
    let ud = r.as_any().downcast_ref::<UpDown>().unwrap();
    for src in f.endpoint_ids() {
        for dst in f.endpoint_ids() {
            if src == dst {
                continue;
            }
            let (paths, count) = all_paths(f, r.as_ref(), src, dst, 10_000).unwrap();
            assert!(count >= 1);
            let (ss, _) = f.attachment(src);
            let (ds, _) = f.attachment(dst);
            let best = brute_legal_distance(f, ud, ss, ds);
            for p in &paths {
                assert!(legal(f, ud, &p.hops), "illegal route {}", p.render(f));
                assert_eq!(p.hops.len() as u32 - 1, best, "not minimal among legal routes: {}", p.render(f));
                let mut seen = BTreeSet::new();
                assert!(p.hops.iter().all(|h| seen.insert(h.switch)), "loop in {}", p.render(f));
            }
            let det = deterministic(f, r.as_ref(), src, dst).unwrap();
            assert!(paths.contains(&det));
        }
    }
    let c = check(f, r.as_ref(), &CheckOptions::default());
    assert!(matches!(c.reachability, Reachability::Verified { .. }), "{c:?}");
    assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{c:?}");
}

#[test]
fn updown_on_default_fabric() {
    assert_updown_properties(&generate("irregular").unwrap());
}

#[test]
fn updown_levels_and_directions() {
    let f = generate("irregular:seed=2").unwrap();
    let r = updown_of(&f);
    let ud = r.as_any().downcast_ref::<UpDown>().unwrap();
    assert_eq!(ud.level(ud.root()), 0);
    for s in f.switch_ids() {
        if let Some(p) = ud.parent(s) {
            assert_eq!(ud.level(p) + 1, ud.level(s));
        } else {
            assert_eq!(s, ud.root());
        }
    }
    let mut tree = 0;
    for (i, l) in f.links().iter().enumerate() {
        let (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) = (l.a, l.b) else { continue };
        let role = ud.link_role(mcastlab_core::LinkId(i as u32)).unwrap();
        let expect_up = if (ud.level(a), a) < (ud.level(b), b) { a } else { b };
        assert_eq!(role.up_end, expect_up);
        tree += usize::from(role.tree);
    }
    assert_eq!(tree, f.num_switches() - 1, "a spanning tree has S-1 links");
}

#[test]
fn explicit_root_is_used_and_bad_root_is_an_error() {
    let f = generate("irregular").unwrap();
    let r = routing::build(&f, Some("updown:root=s5")).unwrap();
    assert_eq!(r.spec(), "updown:root=s5");
    let r = routing::build(&f, Some("updown:root=3")).unwrap();
    assert_eq!(r.as_any().downcast_ref::<UpDown>().unwrap().root(), SwitchId(3));
    let e = routing::build(&f, Some("updown:root=zz")).unwrap_err().to_string();
    assert!(e.contains("root") && e.contains("zz"), "{e}");
    let e = routing::build(&f, Some("updown:rot=1")).unwrap_err().to_string();
    assert!(e.contains("unknown field `rot`"), "{e}");
    let e = routing::build(&f, Some("dor")).unwrap_err().to_string();
    assert!(e.contains("does not apply"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_irregular_fabrics(s in 1u32..12, k in 3u32..10, fill in 0u32..100, c in 40u32..=100, seed in 0u64..1000) {
        let p_max = s * k - 2 * (s - 1);
        let p = IrregularParams { switches: s, ports: k, endpoints: (p_max * fill / 100).max(2).min(p_max), connectivity: c, seed };
        match irregular(&p) {
            Ok(f) => {
                assert_port_rules(&f, &p);
                if f.num_endpoints() <= 40 {
                    assert_updown_properties(&f);
                }
            }
            Err(FabricError::Param { param, .. }) => prop_assert!(param == "connectivity" || param == "ports"),
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn generation_is_deterministic(seed in 0u64..10_000) {
        let spec = format!("irregular:switches=10,ports=6,endpoints=20,seed={seed}");
        prop_assert_eq!(json::to_string(&generate(&spec).unwrap()), json::to_string(&generate(&spec).unwrap()));
    }
}

#[test]
fn a_single_switch_has_no_links() {
    let f = generate("irregular:switches=1,ports=8,endpoints=4").unwrap();
    assert_eq!(f.num_links(), 4);
    let r = updown_of(&f);
    assert!(check(&f, r.as_ref(), &CheckOptions::default()).ok());
}

#[test]
fn endpoint_lookup() {
    let f = generate("irregular").unwrap();
    assert_eq!(f.find_endpoint("3").unwrap(), EndpointId(3));
    let name = f.endpoint(EndpointId(7)).name.clone();
    assert_eq!(f.find_endpoint(&name).unwrap(), EndpointId(7));
    assert!(f.find_endpoint("32").is_err());
    assert!(f.find_endpoint("nobody").is_err());
}

/// Every applicable engine's printed spec builds the same routing again: `updown:root=r(0,0)`
/// (a mesh switch's label has a comma) was refused by the spec parser as a malformed item.
#[test]
fn printed_routing_specs_parse_back_to_the_same_routing() {
    for spec in ["mesh:3x3", "torus:3x3", "mport_ntree:m=4,n=2", "kary_ntree:k=2,n=2", "irregular", "hypercube:dim=2"] {
        let f = generate(spec).unwrap();
        for engine in routing::applicable(&f) {
            let Ok(r) = routing::build(&f, Some(engine)) else { continue };
            let printed = r.spec();
            let again = routing::build(&f, Some(&printed)).unwrap_or_else(|e| panic!("{spec}: `{printed}`: {e}"));
            assert_eq!(again.spec(), printed, "{spec}");
        }
        // A root named explicitly, by index, prints a spec that reads back to the same root.
        let r = routing::build(&f, Some("updown:root=1")).unwrap();
        let again = routing::build(&f, Some(&r.spec())).unwrap();
        let root = |r: &dyn Routing| r.as_any().downcast_ref::<UpDown>().unwrap().root();
        assert_eq!(root(again.as_ref()), SwitchId(1), "{spec}: {}", r.spec());
    }
    let f = generate("mesh:3x3").unwrap();
    assert_eq!(routing::build(&f, Some("updown:root=0")).unwrap().spec(), "updown:root=r(0,0)");
}
