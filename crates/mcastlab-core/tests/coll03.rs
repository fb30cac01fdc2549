//! coll03 §2–3: k-ary n-trees (the Quadrics quaternary fat-tree), nearest-common-ancestor routing,
//! the broadcast tree and the root switches of contiguous groups.

use mcastlab_core::check::{check, explored_turns, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::kary_ntree::{self, KaryNtree, SwitchLabel};
use mcastlab_core::fabric::generators::{build, canonical_spec, generate, matches_generated, parse_spec};
use mcastlab_core::fabric::{Fabric, Terminal, Topology};
use mcastlab_core::routing::path::{all_paths, deterministic};
use mcastlab_core::routing::{self, Arrival, Hop};
use mcastlab_core::{Address, EndpointId, FabricError, LinkId, PortNum, SwitchId};
use std::collections::BTreeSet;

fn tree(k: u32, n: u32) -> (Fabric, KaryNtree) {
    let f = generate(&format!("kary_ntree:k={k},n={n}")).unwrap();
    let t = KaryNtree::from_fabric(&f).unwrap();
    (f, t)
}

fn e(x: u32) -> EndpointId {
    EndpointId(x)
}

/// Switches reachable from `s` by going down (ports 1..=k) only, with the links used; endpoints
/// reached are returned too. This is the graph-level definition the arithmetic is tested against.
fn descend(f: &Fabric, k: u32, s: SwitchId) -> (BTreeSet<SwitchId>, BTreeSet<LinkId>, BTreeSet<EndpointId>) {
    let (mut sw, mut links, mut eps) = (BTreeSet::from([s]), BTreeSet::new(), BTreeSet::new());
    let mut stack = vec![s];
    while let Some(u) = stack.pop() {
        for p in 1..=k as u16 {
            let Some(pp) = f.port(u, PortNum(p)) else { continue };
            links.insert(pp.link);
            match pp.peer {
                Terminal::Switch { switch, .. } => {
                    if sw.insert(switch) {
                        stack.push(switch);
                    }
                }
                Terminal::Endpoint { endpoint } => {
                    eps.insert(endpoint);
                }
            }
        }
    }
    (sw, links, eps)
}

#[test]
fn quaternary_fat_tree_counts() {
    for n in 1..=5u32 {
        let (f, t) = tree(4, n);
        assert_eq!(f.num_endpoints(), 4usize.pow(n), "n={n}");
        assert_eq!(f.num_switches(), n as usize * 4usize.pow(n - 1), "n={n}");
        assert_eq!(f.num_links(), n as usize * 4usize.pow(n), "n={n}");
        assert!(f.switches().iter().all(|s| s.ports == 8), "Elite switches: 4 down + 4 up ports");
        assert_eq!((t.num_endpoints() as usize, t.num_switches() as usize), (f.num_endpoints(), f.num_switches()));
    }
}

#[test]
fn counts_follow_the_formulas_for_other_arities() {
    for (k, n) in [(2u32, 1u32), (2, 3), (2, 6), (3, 2), (3, 3), (5, 2), (8, 2), (16, 2)] {
        let (f, _) = tree(k, n);
        let kn = (k as usize).pow(n);
        assert_eq!(f.num_endpoints(), kn, "k={k} n={n}");
        assert_eq!(f.num_switches(), n as usize * kn / k as usize, "k={k} n={n}");
        assert_eq!(f.num_links(), n as usize * kn, "k={k} n={n}");
        assert!(f.switches().iter().all(|s| s.ports as u32 == 2 * k));
        // Inter-switch links: k^n between each pair of adjacent levels.
        let inter = f.links().iter().filter(|l| matches!(l.b, Terminal::Switch { .. })).count();
        assert_eq!(inter, (n as usize - 1) * kn);
    }
}

#[test]
fn ports_levels_names_and_link_order() {
    for (k, n) in [(4u32, 3u32), (2, 4), (3, 3), (4, 1)] {
        let (f, t) = tree(k, n);
        for s in f.switch_ids() {
            let label = t.label(s).unwrap();
            let sw = f.switch(s);
            assert_eq!(sw.level, Some(label.level));
            assert_eq!(sw.name, format!("S{}:{}.{}", label.level, label.h, label.r));
            let w = s.0 % t.switches_per_level();
            for p in 1..=2 * k as u16 {
                let peer = f.port(s, PortNum(p)).map(|pp| pp.peer);
                if p as u32 <= k {
                    let a = p as u32 - 1;
                    assert_eq!(f.link_at(s, PortNum(p)), t.down_link(s, a), "link order");
                    match peer {
                        Some(Terminal::Endpoint { endpoint }) => {
                            assert_eq!(label.level, 0);
                            assert_eq!(endpoint.0, label.h * k + a);
                        }
                        Some(Terminal::Switch { switch, port }) => {
                            // Petrini's rule: positions differ only in base-k digit `level - 1`.
                            let c = t.label(switch).unwrap();
                            assert_eq!(c.level + 1, label.level);
                            let wc = switch.0 % t.switches_per_level();
                            let d = k.pow(c.level);
                            assert_eq!(w - (w / d) % k * d, wc - (wc / d) % k * d);
                            assert_eq!((c.h, c.r), (label.h * k + a, label.r % d));
                            assert_eq!(port.0 as u32, label.r / d + k + 1);
                        }
                        None => panic!("down port {p} of {} unconnected", sw.name),
                    }
                } else {
                    let top = label.level + 1 == n;
                    assert_eq!(peer.is_none(), top, "up port {p} of {}", sw.name);
                }
            }
        }
        for x in f.endpoint_ids() {
            assert_eq!(f.endpoint(x).name, format!("n{}", x.0));
            assert_eq!(Some(f.attachment(x)), t.attachment(x));
        }
    }
    let f = generate("kary_ntree").unwrap();
    // The name is the canonical spec; it spells out both defaults and regenerates the fabric.
    // (Key order is left to `canonical_spec`.)
    assert_eq!(f.name(), canonical_spec(f.topology()));
    let mut keys: Vec<&str> = f.name().trim_start_matches("kary_ntree:").split(',').collect();
    keys.sort();
    assert_eq!(keys, ["k=4", "n=2"]);
    assert_eq!(parse_spec(f.name()).unwrap(), *f.topology());
    assert_eq!(f.switch_by_name("S1:0.0"), Some(SwitchId(4)));
    assert_eq!(f.endpoint_by_name("n13"), Some(e(13)));
    assert_eq!(routing::default_engine(&f), "nca");
}

#[test]
fn broadcast_tree_of_the_16_node_network() {
    let (f, t) = tree(4, 2);
    let bt = t.broadcast_tree();
    assert_eq!(bt.len(), 5);
    let names: Vec<&str> = bt.iter().map(|&s| f.switch(s).name.as_str()).collect();
    assert_eq!(names, ["S0:0.0", "S0:1.0", "S0:2.0", "S0:3.0", "S1:0.0"]);
    assert_eq!(kary_ntree::broadcast_tree(4, 2).unwrap(), bt);
    // 4 down links of the top leftmost switch + 16 endpoint links.
    assert_eq!(t.broadcast_tree_links().len(), 20);
}

#[test]
fn broadcast_tree_is_the_descent_from_the_top_leftmost_switch() {
    for (k, n) in [(4u32, 1u32), (4, 2), (4, 3), (2, 4), (3, 3)] {
        let (f, t) = tree(k, n);
        let top_left = t.switch_id(SwitchLabel { level: n - 1, h: 0, r: 0 }).unwrap();
        let (sw, links, eps) = descend(&f, k, top_left);
        assert_eq!(sw.into_iter().collect::<Vec<_>>(), t.broadcast_tree(), "k={k} n={n}");
        assert_eq!(links.into_iter().collect::<Vec<_>>(), t.broadcast_tree_links(), "k={k} n={n}");
        assert_eq!(eps.len(), f.num_endpoints(), "the broadcast tree reaches every node");
        let expected: u32 = (0..n).map(|l| k.pow(n - 1 - l)).sum();
        assert_eq!(t.broadcast_tree().len() as u32, expected);
        for s in f.switch_ids() {
            assert_eq!(t.on_broadcast_tree(s), t.broadcast_tree().contains(&s));
        }
    }
}

/// Checks a group root against the definitions: on the broadcast tree, an ancestor of every member
/// (by descending the fabric), and no broadcast-tree switch one level lower covers the group.
fn assert_root(f: &Fabric, t: &KaryNtree, first: u32, last: u32, level: u32) -> SwitchId {
    let (l, s) = t.group_root(e(first), e(last)).unwrap();
    assert_eq!(l, level, "[{first},{last}]");
    assert_eq!(f.switch(s).level, Some(level));
    assert!(t.on_broadcast_tree(s));
    let (_, _, below) = descend(f, t.k(), s);
    for x in first..=last {
        assert!(below.contains(&e(x)), "[{first},{last}]: root {} is not above n{x}", f.switch(s).name);
        assert!(t.is_ancestor(s, e(x)));
    }
    for lower in t.broadcast_tree() {
        if t.label(lower).unwrap().level < level {
            assert!(!(first..=last).all(|x| t.is_ancestor(lower, e(x))), "a lower common ancestor exists");
        }
    }
    assert_eq!(kary_ntree::group_root(t.k(), t.n(), e(first), e(last)).unwrap(), (l, s));
    s
}

#[test]
fn root_switches_of_the_papers_groups() {
    let (f, t) = tree(4, 2);
    for (first, last, level) in [
        (3, 7, 1),
        (9, 12, 1),
        (2, 5, 1),
        (7, 15, 1),
        (0, 0, 0),
        (8, 8, 0),
        (0, 15, 1),
        (0, 3, 0),
        (7, 8, 1),
        (12, 15, 0),
    ] {
        assert_root(&f, &t, first, last, level);
    }
    let s = assert_root(&f, &t, 8, 8, 0);
    assert_eq!(f.switch(s).name, "S0:2.0");
    let s = assert_root(&f, &t, 3, 7, 1);
    assert_eq!(f.switch(s).name, "S1:0.0", "the second-stage leftmost switch of Figure 1");

    let (f, t) = tree(4, 3);
    let s = assert_root(&f, &t, 0, 63, 2);
    assert_eq!((s, f.switch(s).name.as_str()), (SwitchId(32), "S2:0.0"));
    let s = assert_root(&f, &t, 16, 31, 1);
    assert_eq!(f.switch(s).name, "S1:1.0");
    assert_root(&f, &t, 15, 16, 2);
    assert_root(&f, &t, 20, 23, 0);
    // Every contiguous group of a small tree.
    let (f, t) = tree(3, 3);
    for first in 0..27 {
        for last in first..27 {
            let level = kary_ntree::nca_level(3, e(first), e(last)).unwrap();
            assert_root(&f, &t, first, last, level);
        }
    }
}

#[test]
fn overlapping_broadcast_trees_of_figure_4() {
    // [2,5] and [7,15] share a level-1 link of the broadcast tree (coll03 §5.2.1): both descend
    // from S1:0.0 through its port 2 (nodes 4..7).
    let (f, t) = tree(4, 2);
    let used = |first: u32, last: u32| -> BTreeSet<LinkId> {
        let members = first..=last;
        let (_, root) = t.group_root(e(first), e(last)).unwrap();
        let mut v = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(s) = stack.pop() {
            for a in 0..4 {
                let needed = match t.child(s, a) {
                    Some((c, _)) => {
                        let covers = members.clone().any(|x| t.is_ancestor(c, e(x)));
                        if covers {
                            stack.push(c);
                        }
                        covers
                    }
                    None => members.contains(&(t.label(s).unwrap().h * 4 + a)),
                };
                if needed {
                    v.insert(t.down_link(s, a).unwrap());
                }
            }
        }
        v
    };
    let shared: Vec<LinkId> = used(2, 5).intersection(&used(7, 15)).copied().collect();
    let top = f.switch_by_name("S1:0.0").unwrap();
    assert_eq!(shared, vec![f.link_at(top, PortNum(2)).unwrap()]);
    assert!(used(0, 0).intersection(&used(2, 5)).next().is_none());
}

#[test]
fn nca_level_examples() {
    assert_eq!(kary_ntree::nca_level(4, e(0), e(3)).unwrap(), 0);
    assert_eq!(kary_ntree::nca_level(4, e(3), e(4)).unwrap(), 1);
    assert_eq!(kary_ntree::nca_level(4, e(15), e(16)).unwrap(), 2);
    assert_eq!(kary_ntree::nca_level(4, e(5), e(5)).unwrap(), 0);
    assert_eq!(kary_ntree::nca_level(2, e(0), e(7)).unwrap(), 2);
    let t = KaryNtree::new(4, 2).unwrap();
    assert_eq!(t.nca_level(e(1), e(14)), Some(1));
    assert_eq!(t.nca_level(e(1), e(16)), None);
}

#[test]
fn nca_routing_is_verified_and_deadlock_free() {
    for (k, n) in [(4u32, 1u32), (4, 2), (4, 3), (4, 4), (2, 3)] {
        let (f, _) = tree(k, n);
        let r = routing::build(&f, None).unwrap();
        assert_eq!((r.engine(), r.spec(), r.vc_classes()), ("nca", "nca".to_string(), 1));
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "k={k} n={n}: {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Free { .. }), "k={k} n={n}: {c:?}");
        assert_eq!(c.turns_from, "engine");
        if let Reachability::Verified { longest_route, .. } = c.reachability {
            assert_eq!(longest_route, 2 * (n as usize - 1) + 1);
        }
    }
}

#[test]
fn enumerated_turns_match_the_exploration() {
    for (k, n) in [(4u32, 1u32), (4, 2), (4, 3), (2, 3), (3, 2), (2, 1)] {
        let (f, _) = tree(k, n);
        let r = routing::build(&f, Some("nca")).unwrap();
        let mut engine = r.turns(&f).unwrap();
        engine.sort();
        assert_eq!(engine, explored_turns(&f, r.as_ref()), "k={k} n={n}");
    }
}

#[test]
fn routes_are_minimal_and_adaptive_paths_number_k_to_the_level() {
    for (k, n) in [(4u32, 3u32), (2, 4), (3, 2)] {
        let (f, t) = tree(k, n);
        let r = routing::build(&f, None).unwrap();
        for src in f.endpoint_ids() {
            for dst in f.endpoint_ids() {
                if src == dst {
                    continue;
                }
                let level = t.nca_level(src, dst).unwrap();
                let p = deterministic(&f, r.as_ref(), src, dst).unwrap();
                assert_eq!(p.hops.len() as u32, 2 * level + 1, "{src}->{dst}");
                // Up to the nca level, then down: levels 0,1,..,L,..,1,0.
                let levels: Vec<u32> = p.hops.iter().map(|h| t.label(h.switch).unwrap().level).collect();
                let want: Vec<u32> = (0..=level).chain((0..level).rev()).collect();
                assert_eq!(levels, want);
                // Destination mod k on the way up.
                for (i, h) in p.hops.iter().enumerate().take(level as usize) {
                    assert_eq!(h.out_port.0 as u32, k + 1 + (dst.0 / k.pow(i as u32)) % k);
                }
                let turn = p.hops[level as usize].switch;
                assert!(t.is_ancestor(turn, src) && t.is_ancestor(turn, dst));
                let (paths, count) = all_paths(&f, r.as_ref(), src, dst, usize::MAX).unwrap();
                assert_eq!(count, (k as u128).pow(level), "{src}->{dst}");
                assert!(paths.iter().all(|q| q.hops.len() as u32 == 2 * level + 1));
                let tops: BTreeSet<SwitchId> = paths.iter().map(|q| q.hops[level as usize].switch).collect();
                assert_eq!(tops.len() as u32, k.pow(level), "every nearest common ancestor is used");
            }
        }
    }
}

#[test]
fn deterministic_routes_to_one_destination_share_no_down_link_with_another() {
    let (f, t) = tree(4, 3);
    let r = routing::build(&f, None).unwrap();
    let mut owner: std::collections::BTreeMap<LinkId, EndpointId> = Default::default();
    for dst in f.endpoint_ids() {
        for src in f.endpoint_ids().filter(|&s| s != dst) {
            let p = deterministic(&f, r.as_ref(), src, dst).unwrap();
            let level = t.nca_level(src, dst).unwrap() as usize;
            for h in &p.hops[level..] {
                let l = f.link_at(h.switch, h.out_port).unwrap();
                assert_eq!(*owner.entry(l).or_insert(dst), dst);
            }
        }
    }
}

#[test]
fn next_hops_lists_the_deterministic_up_port_first() {
    let (f, _) = tree(4, 2);
    let r = routing::build(&f, None).unwrap();
    let mut out = Vec::new();
    // From n0's switch towards n14: up port 5 + (14 mod 4) = 7 first, then the other up ports.
    r.next_hops(SwitchId(0), Arrival { port: PortNum(1), vc: 0 }, Address(14), &mut out);
    let ports: Vec<u16> = out.iter().map(|h: &Hop| h.port.0).collect();
    assert_eq!(ports, [7, 5, 6, 8]);
    // Top switch S1:0.2 descends to n14 through port 4 (subtree 3).
    r.next_hops(SwitchId(6), Arrival { port: PortNum(1), vc: 0 }, Address(14), &mut out);
    assert_eq!(out, [Hop { port: PortNum(4), vc: 0 }]);
    // Out-of-range switches or addresses: no route, no panic.
    r.next_hops(SwitchId(99), Arrival { port: PortNum(1), vc: 0 }, Address(1), &mut out);
    assert!(out.is_empty());
    r.next_hops(SwitchId(0), Arrival { port: PortNum(1), vc: 0 }, Address(16), &mut out);
    assert!(out.is_empty());
    let facts = r.facts();
    assert!(facts.iter().any(|(k, v)| k == "broadcast tree root" && v == "S1:0.0"));
    assert!(facts.iter().any(|(k, v)| k == "levels" && v.starts_with('2')));
}

#[test]
fn nca_applies_only_to_unedited_kary_ntrees() {
    let f = generate("torus:4x4").unwrap();
    assert!(routing::build(&f, Some("nca")).is_err());
    assert!(!routing::applicable(&f).contains(&"nca"));
    let f = generate("kary_ntree:k=2,n=3").unwrap();
    assert!(routing::applicable(&f).contains(&"nca"));
    assert!(routing::build(&f, Some("nca:foo=1")).is_err());
    // JSON round trip keeps it routable.
    let g: Fabric = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
    assert!(routing::build(&g, Some("nca")).is_ok());
    // Swap the cables of n0 and n1: still a valid fabric, but not what the parameters generate.
    let d = f.data().clone();
    let mut links = d.links.clone();
    links[0].b = Terminal::endpoint(1);
    links[1].b = Terminal::endpoint(0);
    let edited = Fabric::new(d.name, d.topology, d.switches, d.endpoints, links).unwrap();
    assert!(matches_generated(&edited).is_err());
    assert!(routing::build(&edited, Some("nca")).is_err());
}

#[test]
fn invalid_parameters_are_reported() {
    for (spec, param) in [
        ("kary_ntree:k=1", "k"),
        ("kary_ntree:k=0", "k"),
        ("kary_ntree:n=0", "n"),
        ("kary_ntree:k=40000,n=1", "k"),
        ("kary_ntree:k=2,n=30", "n"),
        ("kary_ntree:k=2,n=4000000000", "n"),
        ("kary_ntree:k=4,n=13", "n"),
        ("kary_ntree:k=4,n=12", "n"),
        ("kary_ntree:k=2,n=21", "n"),
        ("kary_ntree:k=4096,n=3", "n"),
    ] {
        match generate(spec) {
            Err(FabricError::Param { param: p, .. }) => assert_eq!(p, param, "{spec}"),
            other => panic!("{spec}: expected a parameter error, got {other:?}"),
        }
    }
    for spec in ["kary_ntree:k=-1", "kary_ntree:k=four", "kary_ntree:m=3", "kary_ntree:k=4,n=2,arity=4"] {
        assert!(matches!(generate(spec), Err(FabricError::Spec(_))), "{spec}");
    }
    // The largest shapes inside the limits still validate (without building them).
    assert!(KaryNtree::new(kary_ntree::MAX_K, 1).is_ok());
    assert!(KaryNtree::new(2, 20).is_ok());
    // Helpers reject bad input instead of panicking.
    assert!(kary_ntree::nca_level(1, e(0), e(5)).is_err());
    assert!(kary_ntree::nca_level(0, e(0), e(5)).is_err());
    assert!(kary_ntree::group_root(1, 2, e(0), e(1)).is_err());
    assert!(kary_ntree::group_root(4, 2, e(5), e(3)).is_err());
    assert!(kary_ntree::group_root(4, 2, e(3), e(16)).is_err());
    assert!(kary_ntree::broadcast_tree(4, 0).is_err());
    let t = KaryNtree::new(4, 2).unwrap();
    assert_eq!(t.switch_id(SwitchLabel { level: 2, h: 0, r: 0 }), None);
    assert_eq!(t.child(SwitchId(0), 0), None, "level-0 switches have endpoints below");
    assert_eq!(t.parent(SwitchId(4), 0), None, "the top has nothing above");
    assert_eq!(t.down_link(SwitchId(4), 4), None);
    assert!(!t.is_ancestor(SwitchId(99), e(0)));
    let built = build(&Topology::KaryNtree(kary_ntree::KaryNtreeParams { k: 3, n: 2 })).unwrap();
    assert_eq!(built.num_endpoints(), 9);
}

#[test]
fn every_up_port_rule_is_proven_and_random_or_adaptive_are_simulated_per_packet_for_unicasts() {
    let f = generate("kary_ntree:k=4,n=3").unwrap();
    let mut hops = Vec::new();
    for rule in ["dmodk", "random", "adaptive"] {
        let r = routing::build(&f, Some(&format!("nca:up={rule}"))).unwrap();
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "{rule}: {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{rule}: {c:?}");
        // The legal set at a leaf for a far destination: every up port, dmodk's first.
        let start = Arrival { port: PortNum(1), vc: 0 };
        r.next_hops(SwitchId(0), start, Address(63), &mut hops);
        let ports: Vec<u16> = hops.iter().map(|h: &Hop| h.port.0).collect();
        assert_eq!(ports, vec![5 + 63 % 4, 5, 6, 7], "{rule}");
        assert_eq!(r.spec(), if rule == "dmodk" { "nca".to_string() } else { format!("nca:up={rule}") });
        assert_eq!(r.run_time_choice().is_some(), rule != "dmodk");
    }
    let e = routing::build(&f, Some("nca:up=least")).unwrap_err().to_string();
    assert!(e.contains("least"), "{e}");
    // The simulator applies a per-packet rule to unicast packets, and refuses a worm whose leg
    // meets the choice rather than replaying the deterministic one for it.
    use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
    let t = Transmission {
        sender: EndpointId(0),
        trigger: Trigger::Start,
        carrier: Carrier::Unicast { dst: EndpointId(63) },
        delivers: vec![EndpointId(63)],
    };
    let plan =
        Plan::from_transmissions(&f, "unicast", EndpointId(0), vec![EndpointId(63)], 1, Discipline::NiFpfs, vec![t])
            .unwrap();
    let p = mcastlab_core::sim::Params::with_overrides("booksim_iq", &[]).unwrap();
    let r = routing::build(&f, Some("nca:up=random")).unwrap();
    assert!(mcastlab_core::sim::Simulation::new(&f, &*r, &plan, &p, 8, 0).is_ok());
    let worm = Transmission {
        sender: EndpointId(0),
        trigger: Trigger::Start,
        carrier: Carrier::Path { dests: vec![EndpointId(62), EndpointId(63)] },
        delivers: vec![EndpointId(62), EndpointId(63)],
    };
    let dests = vec![EndpointId(62), EndpointId(63)];
    let plan = Plan::from_transmissions(&f, "path", EndpointId(0), dests, 1, Discipline::NiFpfs, vec![worm]).unwrap();
    let e = mcastlab_core::sim::Simulation::new(&f, &*r, &plan, &p, 8, 0).err().expect("refused").to_string();
    assert!(e.contains("up=random") && e.contains("unicast packets only") && e.contains("worm"), "{e}");
    let r = routing::build(&f, Some("nca")).unwrap();
    assert!(mcastlab_core::sim::Simulation::new(&f, &*r, &plan, &p, 8, 0).is_ok());
}
