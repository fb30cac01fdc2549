//! zhou07: the m-port n-tree IBFT(m, n) (§2.2) and its multiple-LID routing (§3.1–3.3.1).
//!
//! The paper's worked examples on IBFT(4, 3) (Figs. 2 and 4–7) are the unit tests; property tests
//! cover the wiring rule and the route shape on small trees; the closed-form turn enumeration is
//! compared with the generic exploration.

use mcastlab_core::check::{check, explored_turns, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::mport_ntree::{
    self, build, endpoint_digits, endpoint_pid, switch_index, switch_label, MportNtreeParams,
};
use mcastlab_core::fabric::generators::{generate, matches_generated, parse_spec};
use mcastlab_core::fabric::{Fabric, Terminal, Topology};
use mcastlab_core::routing::mport_lmc::{CyclicGroup, MportLmc};
use mcastlab_core::routing::path::deterministic;
use mcastlab_core::routing::{self, Arrival, Routing};
use mcastlab_core::{Address, EndpointId, FabricError, PortNum, SwitchId};
use proptest::prelude::*;
use std::collections::{BTreeSet, VecDeque};

fn ibft(m: u32, n: u32) -> Fabric {
    build(&MportNtreeParams { m, n }).unwrap()
}

fn routing_of(f: &Fabric) -> Box<dyn Routing> {
    routing::build(f, Some("mport_lmc")).unwrap()
}

fn lmc(r: &dyn Routing) -> &MportLmc {
    r.as_any().downcast_ref::<MportLmc>().unwrap()
}

fn ep(f: &Fabric, name: &str) -> EndpointId {
    f.endpoint_by_name(name).unwrap_or_else(|| panic!("no endpoint {name}"))
}

fn sw(f: &Fabric, name: &str) -> SwitchId {
    f.switch_by_name(name).unwrap_or_else(|| panic!("no switch {name}"))
}

/// `(switch name, in port, out port)` of every switch traversal of the deterministic route.
fn route(f: &Fabric, r: &dyn Routing, src: &str, dst: &str) -> (u32, Vec<(String, u16, u16)>) {
    let p = deterministic(f, r, ep(f, src), ep(f, dst)).unwrap();
    let hops = p.hops.iter().map(|h| (f.switch(h.switch).name.clone(), h.in_port.0, h.out_port.0)).collect();
    (MportLmc::lid_of(p.address), hops)
}

fn hops(v: &[(&str, u16, u16)]) -> Vec<(String, u16, u16)> {
    v.iter().map(|&(s, i, o)| (s.to_string(), i, o)).collect()
}

#[test]
fn counts_follow_the_formulas() {
    // 2·(m/2)^n endpoints, (2n−1)·(m/2)^(n−1) switches.
    for (m, n, e, s) in [
        (4u32, 3u32, 16usize, 20usize),
        (8, 3, 128, 80), // the paper's simulated network (§4)
        (8, 2, 32, 12),
        (4, 1, 4, 1),
        (2, 3, 2, 5),
        (16, 2, 128, 24),
        (4, 4, 32, 56),
    ] {
        let f = ibft(m, n);
        assert_eq!((f.num_endpoints(), f.num_switches()), (e, s), "IBFT({m},{n})");
        assert_eq!(mport_ntree::counts(m, n), Some((e as u32, s as u32)));
        let h = (m / 2) as usize;
        let top = h.pow(n - 1);
        assert_eq!(f.num_links(), e + (s - top) * h, "IBFT({m},{n}) links");
        assert!(f.switches().iter().all(|x| x.ports as u32 == m));
    }
}

#[test]
fn paper_labels_pids_and_lids() {
    let f = ibft(4, 3);
    let r = routing_of(&f);
    let z = lmc(r.as_ref());
    // §3: PID(P(200)) = 8, PID(P(211)) = 11; ranks in gcp_g(2, 1) are 0 and 3.
    assert_eq!(ep(&f, "P(200)"), EndpointId(8));
    assert_eq!(ep(&f, "P(211)"), EndpointId(11));
    assert_eq!(endpoint_pid(4, &[2, 1, 1]), 11);
    assert_eq!(endpoint_digits(4, 3, 8), vec![2, 0, 0]);
    assert_eq!(z.rank(EndpointId(8), 1), 0);
    assert_eq!(z.rank(EndpointId(11), 1), 3);
    assert_eq!(z.rank(EndpointId(11), 0), 11, "rank in gcp_g(ε, 0) is the PID");
    // §3.1: LMC = log2(2^2) = 2; BaseLID(P(300)) = 49, LIDset = {49, 50, 51, 52}.
    assert_eq!(z.lmc(), 2);
    assert_eq!(z.lids_per_endpoint(), 4);
    let p300 = ep(&f, "P(300)");
    assert_eq!(z.base_lid(p300), 49);
    assert_eq!(z.lid_set(p300).collect::<Vec<_>>(), vec![49, 50, 51, 52]);
    assert_eq!(z.base_lid(ep(&f, "P(200)")), 33);
    assert_eq!(z.max_lid(), 64);
    assert_eq!(r.num_addresses(), 64);
    // Address(a) is LID a + 1; the owner is a / 2^LMC.
    assert_eq!(r.owner(Address(48)), p300);
    assert_eq!(r.owner(Address(51)), p300);
    assert_eq!(z.lid_owner(49), Some(p300));
    assert_eq!(z.lid_owner(0), None);
    assert_eq!(z.lid_owner(65), None);
    // Switch labels and levels (level 0 is the top).
    let s = sw(&f, "SW<20,1>");
    assert_eq!(switch_label(4, 3, s), (vec![2, 0], 1));
    assert_eq!(switch_index(4, 3, &[2, 0], 1), s.0);
    assert_eq!(f.switch(s).level, Some(1));
    assert_eq!(f.switch(sw(&f, "SW<11,0>")).level, Some(0));
    assert_eq!(f.switch(sw(&f, "SW<31,2>")).level, Some(2));
    // P(p) hangs off port p2 + 1 of leaf SW<p0p1, 2>.
    assert_eq!(f.attachment(ep(&f, "P(211)")), (sw(&f, "SW<21,2>"), PortNum(2)));
}

#[test]
fn paper_gcp_and_lca() {
    let f = ibft(4, 3);
    let r = routing_of(&f);
    let z = lmc(r.as_ref());
    let (a, b) = (ep(&f, "P(200)"), ep(&f, "P(211)"));
    assert_eq!(z.gcp_len(a, b), 1);
    let names: Vec<&str> = z.lca(a, b).iter().map(|&s| f.switch(s).name.as_str()).collect();
    assert_eq!(names, vec!["SW<20,1>", "SW<21,1>"]);
    // No common prefix: the lca set is every root.
    assert_eq!(z.lca(ep(&f, "P(000)"), a).len(), 4);
    // Same leaf: the leaf itself.
    let names: Vec<&str> = z.lca(a, ep(&f, "P(201)")).iter().map(|&s| f.switch(s).name.as_str()).collect();
    assert_eq!(names, vec!["SW<20,2>"]);
    // P(100) and P(111) are both in gcp_g(1, 1).
    assert_eq!(z.gcp_len(ep(&f, "P(100)"), ep(&f, "P(111)")), 1);
}

#[test]
fn paper_cyclic_groups_of_p200() {
    let f = ibft(4, 3);
    let r = routing_of(&f);
    let z = lmc(r.as_ref());
    let groups = z.cyclic_groups(ep(&f, "P(200)"));
    let show = |g: &CyclicGroup| {
        let y: String = g.suffix.iter().map(|d| d.to_string()).collect();
        let members: Vec<&str> = g.members.iter().map(|&e| f.endpoint(e).name.as_str()).collect();
        (g.level, y, g.lid, members)
    };
    let got: Vec<_> = groups.iter().map(show).collect();
    let want = vec![
        (0, "00".to_string(), 33, vec!["P(000)", "P(100)", "P(300)"]),
        (0, "01".to_string(), 34, vec!["P(001)", "P(101)", "P(301)"]),
        (0, "10".to_string(), 35, vec!["P(010)", "P(110)", "P(310)"]),
        (0, "11".to_string(), 36, vec!["P(011)", "P(111)", "P(311)"]),
        (1, "0".to_string(), 33, vec!["P(210)"]),
        (1, "1".to_string(), 34, vec!["P(211)"]),
        (2, String::new(), 33, vec!["P(201)"]),
    ];
    assert_eq!(got, want);
    // Fig. 5: P(000), P(001), P(010), P(011) select LIDs 33, 34, 35, 36 of P(200).
    let dst = ep(&f, "P(200)");
    for (src, lid) in [("P(000)", 33), ("P(001)", 34), ("P(010)", 35), ("P(011)", 36)] {
        assert_eq!(z.select_lid(ep(&f, src), dst), lid, "{src}");
        assert_eq!(r.address(ep(&f, src), dst), Address(lid - 1), "{src}");
    }
    assert_eq!(z.select_lid(dst, dst), 33, "a node sending to itself uses its base LID");
    // Every group member selects the group's LID.
    for g in &groups {
        for &s in &g.members {
            assert_eq!(z.select_lid(s, dst), g.lid);
        }
    }
}

#[test]
fn paper_path_q_and_fig7_paths() {
    let f = ibft(4, 3);
    let r = routing_of(&f);
    // §3.3.1, path Q: P(000) -> P(200) with DLID 33.
    let climb = [("SW<00,2>", 1, 3), ("SW<00,1>", 1, 3), ("SW<00,0>", 1, 3)];
    let q = route(&f, r.as_ref(), "P(000)", "P(200)");
    let mut want = climb.to_vec();
    want.extend([("SW<20,1>", 3, 1), ("SW<20,2>", 3, 1)]);
    assert_eq!(q, (33, hops(&want)));
    // Fig. 7: the other three destinations of the multicast group {33, 37, 41, 45}.
    let mut want = climb.to_vec();
    want.extend([("SW<20,1>", 3, 1), ("SW<20,2>", 3, 2)]);
    assert_eq!(route(&f, r.as_ref(), "P(000)", "P(201)"), (37, hops(&want)));
    let mut want = climb.to_vec();
    want.extend([("SW<20,1>", 3, 2), ("SW<21,2>", 3, 1)]);
    assert_eq!(route(&f, r.as_ref(), "P(000)", "P(210)"), (41, hops(&want)));
    let mut want = climb.to_vec();
    want.extend([("SW<20,1>", 3, 2), ("SW<21,2>", 3, 2)]);
    assert_eq!(route(&f, r.as_ref(), "P(000)", "P(211)"), (45, hops(&want)));
    // §3.3.2: the union of the four LIDs' output ports at each switch of Fig. 7.
    let z = lmc(r.as_ref());
    for (s, ports) in [
        ("SW<00,2>", vec![3]),
        ("SW<00,1>", vec![3]),
        ("SW<00,0>", vec![3]),
        ("SW<20,1>", vec![1, 2]),
        ("SW<20,2>", vec![1, 2]),
        ("SW<21,2>", vec![1, 2]),
    ] {
        let s = sw(&f, s);
        let on_path: BTreeSet<u16> = ["P(200)", "P(201)", "P(210)", "P(211)"]
            .iter()
            .filter_map(|d| {
                let p = deterministic(&f, r.as_ref(), ep(&f, "P(000)"), ep(&f, d)).unwrap();
                p.hops.iter().find(|h| h.switch == s).map(|h| h.out_port.0)
            })
            .collect();
        assert_eq!(on_path.into_iter().collect::<Vec<_>>(), ports);
        // Eqs. (1)/(2) directly, and the LFT, agree.
        let lft = z.lft(s);
        for lid in [33u32, 37, 41, 45] {
            let k = z.out_port(s, lid).unwrap();
            assert_eq!(lft[lid as usize - 1], k.0);
        }
    }
    // Paths R, S, T of Fig. 5: P(001), P(010), P(011) -> P(200) with LIDs 34, 35, 36 climb
    // through distinct roots.
    let roots: BTreeSet<String> = ["P(000)", "P(001)", "P(010)", "P(011)"]
        .iter()
        .map(|s| route(&f, r.as_ref(), s, "P(200)").1[2].0.clone())
        .collect();
    assert_eq!(roots.len(), 4);
}

#[test]
fn lft_matches_next_hops() {
    for (m, n) in [(4, 3), (8, 2), (4, 1), (2, 3)] {
        let f = ibft(m, n);
        let r = routing_of(&f);
        let z = lmc(r.as_ref());
        let mut out = Vec::new();
        for s in f.switch_ids() {
            let lft = z.lft(s);
            assert_eq!(lft.len(), z.max_lid() as usize);
            for (i, &k) in lft.iter().enumerate() {
                r.next_hops(s, Arrival { port: PortNum(1), vc: 0 }, Address(i as u32), &mut out);
                assert_eq!(out.len(), 1);
                assert_eq!(out[0].port.0, k, "IBFT({m},{n}) {} LID {}", f.switch(s).name, i + 1);
                assert_eq!(out[0].vc, 0);
            }
        }
        assert!(z.lft(SwitchId(f.num_switches() as u32)).is_empty());
        r.next_hops(SwitchId(0), Arrival { port: PortNum(1), vc: 0 }, Address(z.max_lid()), &mut out);
        assert!(out.is_empty(), "an address beyond the last LID has no route");
    }
}

#[test]
fn check_verifies_reachability_and_deadlock_freedom() {
    for (m, n) in [(4, 3), (8, 2), (8, 3), (4, 1), (2, 3)] {
        let f = ibft(m, n);
        let r = routing::build(&f, None).unwrap();
        assert_eq!(r.engine(), "mport_lmc", "the generator's default routing");
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "IBFT({m},{n}): {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Free { .. }), "IBFT({m},{n}): {c:?}");
        assert_eq!(c.turns_from, "engine");
        if let Reachability::Verified { longest_route, .. } = c.reachability {
            // A packet climbs at most to the roots and back: 2n − 1 switches.
            assert_eq!(longest_route as u32, 2 * n - 1);
        }
    }
}

#[test]
fn enumerated_turns_equal_explored_turns() {
    for (m, n) in [(4, 2), (4, 3), (8, 2), (8, 3), (4, 4), (2, 3), (8, 1), (16, 2)] {
        let f = ibft(m, n);
        let r = routing_of(&f);
        let mut fast = r.turns(&f).unwrap();
        let mut slow = explored_turns(&f, r.as_ref());
        fast.sort();
        slow.sort();
        assert_eq!(fast.len(), slow.len(), "IBFT({m},{n})");
        assert!(fast == slow, "IBFT({m},{n}): enumerated turns differ from explored ones");
        // The enumeration is already sorted and duplicate-free.
        let raw = r.turns(&f).unwrap();
        assert!(raw.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn invalid_parameters_name_the_parameter() {
    for (m, n, param) in [
        (5, 3, "m"),          // odd
        (0, 3, "m"),          // too small
        (4, 0, "n"),          // no levels
        (65536, 1, "m"),      // port numbers are 16-bit
        (64, 5, "n"),         // 2·32^5 = 2^26 endpoints
        (2, 10_000_000, "n"), // 2 endpoints but 2·10^7 − 1 switches
    ] {
        match build(&MportNtreeParams { m, n }) {
            Err(FabricError::Param { param: p, message }) => {
                assert_eq!(p, param, "IBFT({m},{n}): {message}");
                assert!(!message.is_empty());
            }
            other => panic!("IBFT({m},{n}): expected a parameter error, got {other:?}"),
        }
    }
    // m/2 = 3 or 12 (not a power of two) builds the fabric; zhou07's LID routing refuses it.
    for (m, n) in [(6, 3), (24, 2)] {
        let f = build(&MportNtreeParams { m, n }).unwrap();
        let e = mcastlab_core::routing::build(&f, Some("mport_lmc")).err().unwrap().to_string();
        assert!(e.contains("power of two") && e.contains("LMC"), "{e}");
    }
    // With one level the LMC is 0 for any even m, so m/2 need not be a power of two.
    assert_eq!(ibft(6, 1).num_endpoints(), 6);
    // Through the spec parser.
    assert!(matches!(generate("mport_ntree:m=7"), Err(FabricError::Param { param: "m", .. })));
    assert!(matches!(generate("mport_ntree:m=4,n=0"), Err(FabricError::Param { param: "n", .. })));
    assert!(matches!(generate("mport_ntree:k=4"), Err(FabricError::Spec(_))));
}

#[test]
fn spec_strings_and_applicability() {
    let f = generate("mport_ntree:m=4,n=3").unwrap();
    // The name is the canonical spec; compared as a parsed topology so that the test does not
    // depend on the order in which canonical_spec renders the keys.
    let canon = |name: &str| parse_spec(name).unwrap();
    let want = Topology::MportNtree(MportNtreeParams { m: 4, n: 3 });
    assert_eq!(canon(f.name()), want);
    assert_eq!(f.topology(), &want);
    assert_eq!((f.num_endpoints(), f.num_switches()), (16, 20));
    assert_eq!(f, ibft(4, 3));
    let d = generate("mport_ntree").unwrap();
    assert_eq!((d.num_endpoints(), d.num_switches()), (128, 80), "defaults m=8, n=3");
    assert_eq!(canon(d.name()), Topology::MportNtree(MportNtreeParams { m: 8, n: 3 }));
    assert!(matches_generated(&d).is_ok());
    assert!(routing::applicable(&f).contains(&"mport_lmc"));
    let torus = generate("torus:4x4").unwrap();
    assert!(!routing::applicable(&torus).contains(&"mport_lmc"));
    assert!(routing::build(&torus, Some("mport_lmc")).is_err());
    assert!(routing::build(&f, Some("mport_lmc:x=1")).is_err());
    // Large m: dotted labels.
    let big = ibft(32, 2);
    assert_eq!(big.endpoint(EndpointId(big.num_endpoints() as u32 - 1)).name, "P(31.15)");
    assert!(big.switch_by_name("SW<31,1>").is_some());
    assert!(big.endpoint_by_name("P(12.3)").is_some());
    // The JSON form round-trips.
    let json = serde_json::to_string(&f).unwrap();
    let back: Fabric = serde_json::from_str(&json).unwrap();
    assert_eq!(back, f);
}

#[test]
fn facts_and_infiniband_limits() {
    let f = ibft(8, 3);
    let r = routing_of(&f);
    let facts = r.facts();
    let get = |k: &str| facts.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone());
    assert_eq!(get("LMC").as_deref(), Some("4"));
    assert_eq!(get("LIDs per endpoint").as_deref(), Some("16"));
    assert_eq!(get("max LID").as_deref(), Some("2048"));
    assert!(get("warning").is_none());
    // IBFT(32, 3): LMC = 8 > 7 and 8192·256 LIDs: beyond InfiniBand, formulas still followed.
    let z = MportLmc::new(&MportNtreeParams { m: 32, n: 3 }).unwrap();
    let facts = z.facts();
    assert!(facts.iter().any(|(k, v)| k == "warning" && v.contains("InfiniBand")));
    assert_eq!(z.max_lid(), 8192 * 256);
    // IBFT(64, 4) is a valid fabric, but 2^21 endpoints · 2^15 LIDs overflow 32-bit addresses.
    assert!(mport_ntree::counts(64, 4).is_some());
    assert!(matches!(
        MportLmc::new(&MportNtreeParams { m: 64, n: 4 }),
        Err(mcastlab_core::RoutingError::NotApplicable { .. })
    ));
}

#[test]
fn large_tree_builds_and_enumerates_quickly() {
    // mport_ntree:m=64,n=3: 65,536 endpoints, 5·32^2 = 5,120 switches, 2^26 LIDs. Timings are printed
    // (`--nocapture`), not asserted, because test profiles differ.
    let t = std::time::Instant::now();
    let f = generate("mport_ntree:m=64,n=3").unwrap();
    let built = t.elapsed();
    assert_eq!((f.num_endpoints(), f.num_switches()), (65536, 5120));
    let r = routing_of(&f);
    let z = lmc(r.as_ref());
    assert_eq!(z.lmc(), 10);
    assert_eq!(r.num_addresses(), 1 << 26);
    let t = std::time::Instant::now();
    let turns = r.turns(&f).unwrap();
    let enumerated = t.elapsed();
    assert_eq!(turns.len(), 1024 * 64 * 63 + 4096 * (32 * 31 + 2 * 32 * 32));
    let t = std::time::Instant::now();
    let lft = z.lft(SwitchId(5000));
    let lft_time = t.elapsed();
    assert_eq!(lft.len(), 1 << 26);
    // The full check: 2^26 addresses are beyond the exploration budget, so reachability is
    // skipped and deadlock freedom is decided on the enumerated turns.
    let t = std::time::Instant::now();
    let c = check(&f, r.as_ref(), &CheckOptions::default());
    let checked = t.elapsed();
    assert!(matches!(c.reachability, Reachability::Skipped { .. }), "{c:?}");
    assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{c:?}");
    eprintln!("IBFT(64,3): build {built:?}, turns {enumerated:?}, one LFT {lft_time:?}, check {checked:?}");
    // P(0.0.0) -> P(63.31.31) climbs to a root and down: 5 switches.
    let p = deterministic(&f, r.as_ref(), EndpointId(0), EndpointId(65535)).unwrap();
    assert_eq!(p.hops.len(), 5);
}

/// Label digits of a switch from its name, to check the wiring against the names as printed.
fn parse_switch_name(name: &str, m: u32) -> (Vec<u32>, u32) {
    let inner = name.strip_prefix("SW<").and_then(|s| s.strip_suffix('>')).unwrap();
    let (w, l) = inner.rsplit_once(',').unwrap();
    let digits = if w.is_empty() {
        Vec::new()
    } else if m > 10 {
        w.split('.').map(|d| d.parse().unwrap()).collect()
    } else {
        w.chars().map(|c| c.to_digit(10).unwrap()).collect()
    };
    (digits, l.parse().unwrap())
}

fn parse_endpoint_name(name: &str, m: u32) -> Vec<u32> {
    let inner = name.strip_prefix("P(").and_then(|s| s.strip_suffix(')')).unwrap();
    if m > 10 {
        inner.split('.').map(|d| d.parse().unwrap()).collect()
    } else {
        inner.chars().map(|c| c.to_digit(10).unwrap()).collect()
    }
}

/// BFS hop distances between switches.
fn switch_distances(f: &Fabric, from: SwitchId) -> Vec<u32> {
    let mut d = vec![u32::MAX; f.num_switches()];
    d[from.idx()] = 0;
    let mut q = VecDeque::from([from]);
    while let Some(u) = q.pop_front() {
        for (_, t, _, _) in f.switch_neighbors(u) {
            if d[t.idx()] == u32::MAX {
                d[t.idx()] = d[u.idx()] + 1;
                q.push_back(t);
            }
        }
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn wiring_rule_and_minimal_routes(m in prop::sample::select(vec![2u32, 4, 8]), n in 1u32..=4, seed in any::<u64>()) {
        let f = ibft(m, n);
        let h = m / 2;
        let (e, s) = (2 * h.pow(n), (2 * n - 1) * h.pow(n - 1));
        prop_assert_eq!((f.num_endpoints() as u32, f.num_switches() as u32), (e, s));
        // Labels: names, helper functions and levels agree.
        for sid in f.switch_ids() {
            let (w, l) = parse_switch_name(&f.switch(sid).name, m);
            prop_assert_eq!(switch_label(m, n, sid), (w.clone(), l));
            prop_assert_eq!(f.switch(sid).level, Some(l));
            prop_assert_eq!(w.len() as u32, n - 1);
            for (i, &d) in w.iter().enumerate() {
                let bound = if i == 0 && l > 0 { m } else { h };
                prop_assert!(d < bound);
            }
        }
        // Every link obeys the zhou07 rule, and every switch port is cabled (so, since the rule
        // gives each port exactly one partner, the links are exactly the rule's edges).
        for link in f.links() {
            match (link.a, link.b) {
                (Terminal::Switch { switch: a, port: k }, Terminal::Switch { switch: b, port: k2 }) => {
                    let (w, l) = switch_label(m, n, a);
                    let (w2, l2) = switch_label(m, n, b);
                    prop_assert_eq!(l2, l + 1);
                    let mut removed = w2.clone();
                    removed.remove(l as usize);
                    prop_assert_eq!(&w[..(n - 2) as usize], &removed[..]);
                    prop_assert_eq!(k.0 as u32, w2[l as usize] + 1);
                    prop_assert_eq!(k2.0 as u32, w[(n - 2) as usize] + h + 1);
                }
                (Terminal::Switch { switch, port }, Terminal::Endpoint { endpoint }) => {
                    let (w, l) = switch_label(m, n, switch);
                    let p = parse_endpoint_name(&f.endpoint(endpoint).name, m);
                    prop_assert_eq!(&p, &endpoint_digits(m, n, endpoint.0));
                    prop_assert_eq!(endpoint_pid(m, &p), endpoint.0);
                    prop_assert_eq!(l, n - 1);
                    prop_assert_eq!(&w[..], &p[..(n - 1) as usize]);
                    prop_assert_eq!(port.0 as u32, p[(n - 1) as usize] + 1);
                }
                other => prop_assert!(false, "unexpected link {:?}", other),
            }
        }
        for sid in f.switch_ids() {
            for p in f.switch_ports(sid) {
                prop_assert!(f.link_at(sid, p).is_some());
            }
        }
        // Routes: minimal, ending at the destination, through the selected LID; the climb depends
        // only on the source and the lca level (no duplication in the ascending phase).
        let r = routing_of(&f);
        let z = lmc(r.as_ref());
        let mut rng = seed;
        let mut next = |k: u32| {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((rng >> 33) % k as u64) as u32
        };
        for _ in 0..16 {
            let (src, dst) = (EndpointId(next(e)), EndpointId(next(e)));
            let path = deterministic(&f, r.as_ref(), src, dst).unwrap();
            prop_assert_eq!(path.dst, dst);
            let lid = MportLmc::lid_of(path.address);
            prop_assert!(z.lid_set(dst).contains(&lid));
            prop_assert_eq!(z.lid_owner(lid), Some(dst));
            if src == dst {
                prop_assert_eq!(path.hops.len(), 1);
                continue;
            }
            let alpha = z.gcp_len(src, dst);
            // Up from the leaf (level n−1) to level α, then down: 2·(n−1−α) + 1 switches.
            prop_assert_eq!(path.hops.len() as u32, 2 * (n - 1 - alpha) + 1);
            let (s0, _) = f.attachment(src);
            let (s1, _) = f.attachment(dst);
            prop_assert_eq!(path.hops[0].switch, s0);
            prop_assert_eq!(path.hops.last().unwrap().switch, s1);
            prop_assert_eq!(switch_distances(&f, s0)[s1.idx()], path.hops.len() as u32 - 1, "minimal");
            let top = &path.hops[(n - 1 - alpha) as usize];
            prop_assert!(z.lca(src, dst).contains(&top.switch));
            // The selected LID is BaseLID + the source's rank below the lca level.
            prop_assert_eq!(lid, z.base_lid(dst) + z.rank(src, alpha + 1));
            // Another destination with the same lca level shares the whole climb.
            let other = EndpointId(next(e));
            if other != src && z.gcp_len(src, other) == alpha {
                let p2 = deterministic(&f, r.as_ref(), src, other).unwrap();
                let k = (n - 1 - alpha) as usize;
                prop_assert_eq!(&path.hops[..k], &p2.hops[..k]);
                prop_assert_eq!(path.hops[k].switch, p2.hops[k].switch);
            }
        }
    }
}
