//! OpenSM's unicast engines `minhop` and `updn` (reference/opensm.md §2.1–2.2), their hop matrix
//! as the multicast builder reads it, and the joint unicast + multicast deadlock check (issue 11).

use mcastlab_core::check::joint::{joint_deadlock, mft_turns, Sl2Vl};
use mcastlab_core::check::{cdg, check, explored_turns, CheckOptions, Deadlock, Reachability};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::plan::MftEntry;
use mcastlab_core::routing::hop_matrix::{default_mcast_builder, for_routing, HopMatrix, NO_PATH};
use mcastlab_core::routing::updn::Updn;
use mcastlab_core::routing::{self, Routing, Turn};
use mcastlab_core::schemes::ib_opensm::opensm_tree;
use mcastlab_core::{EndpointId, PortNum, SwitchId};
use std::collections::{BTreeSet, VecDeque};

fn built(spec: &str, routing: &str) -> (Fabric, Box<dyn Routing>) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, Some(routing)).unwrap();
    (f, r)
}

fn bfs(f: &Fabric, t: SwitchId) -> Vec<u8> {
    let mut d = vec![NO_PATH; f.num_switches()];
    d[t.idx()] = 0;
    let mut q = VecDeque::from([t]);
    while let Some(u) = q.pop_front() {
        for (_, v, _, _) in f.switch_neighbors(u) {
            if d[v.idx()] == NO_PATH {
                d[v.idx()] = d[u.idx()] + 1;
                q.push_back(v);
            }
        }
    }
    d
}

#[test]
fn minhop_matrix_is_bfs_and_per_port_is_one_more_than_the_neighbour() {
    let f = generate("irregular:switches=12,ports=8,endpoints=24,seed=3").unwrap();
    let m = HopMatrix::minhop(&f);
    for t in f.switch_ids() {
        let d = bfs(&f, t);
        for s in f.switch_ids() {
            assert_eq!(m.least(s, t), d[s.idx()]);
            for (p, n, _, _) in f.switch_neighbors(s) {
                assert_eq!(m.hops(s, t, p), d[n.idx()] + 1);
            }
        }
    }
}

#[test]
fn minhop_on_a_fat_tree_is_reachable_and_deadlock_free() {
    let (f, r) = built("kary_ntree:k=4,n=3", "minhop");
    let c = check(&f, r.as_ref(), &CheckOptions::default());
    assert!(matches!(c.reachability, Reachability::Verified { .. }), "{c:?}");
    assert!(matches!(c.deadlock, Deadlock::Free { .. }), "{c:?}");
}

#[test]
fn minhop_on_a_torus_is_not_deadlock_free_and_the_checker_says_so() {
    for spec in ["torus:6", "torus:4x4"] {
        let (f, r) = built(spec, "minhop");
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "{spec}: {c:?}");
        assert!(matches!(c.deadlock, Deadlock::Cycle { .. }), "{spec}: minhop claimed deadlock-free: {c:?}");
    }
}

#[test]
fn updn_is_reachable_and_deadlock_free_on_tori_and_irregular_fabrics() {
    for (spec, routing) in [
        ("torus:6", "updn:roots=0"),
        ("torus:4x4", "updn:roots=0"),
        ("irregular:switches=16,ports=8,endpoints=32,seed=5", "updn:roots=0"),
        ("kary_ntree:k=4,n=3", "updn"),
    ] {
        let (f, r) = built(spec, routing);
        let c = check(&f, r.as_ref(), &CheckOptions::default());
        assert!(c.ok(), "{spec} {routing}: {c:?}");
    }
}

#[test]
fn updn_auto_roots_are_the_top_of_a_fat_tree() {
    let (f, r) = built("kary_ntree:k=4,n=3", "updn");
    let u = r.as_any().downcast_ref::<Updn>().unwrap();
    // The top level is the only one that sees every CA at the same distance.
    let top: BTreeSet<u32> = u.roots().iter().map(|s| f.switch(*s).level.unwrap()).collect();
    assert_eq!(top.len(), 1, "{:?}", u.roots());
    assert_eq!(u.roots().len(), 16, "k^(n-1) top switches");
}

#[test]
fn updn_refuses_when_opensm_finds_no_root() {
    let f = generate("torus:4x4").unwrap();
    let e = routing::build(&f, Some("updn")).unwrap_err().to_string();
    assert!(e.contains("roots="), "{e}");
}

#[test]
fn lft_choice_balances_over_minimal_ports() {
    // A leaf of a 4-ary 2-tree has 4 up ports; the 12 remote CAs spread 3 per port.
    let (f, r) = built("kary_ntree:k=4,n=2", "minhop");
    let leaf = f.attachment(EndpointId(0)).0;
    let mut per_port = std::collections::BTreeMap::<u16, u32>::new();
    let mut hops = Vec::new();
    for e in f.endpoint_ids() {
        if f.attachment(e).0 == leaf {
            continue;
        }
        r.next_hops(leaf, mcastlab_core::routing::Arrival { port: PortNum(0), vc: 0 }, r.address(e, e), &mut hops);
        *per_port.entry(hops[0].port.0).or_default() += 1;
    }
    assert_eq!(per_port.len(), 4, "{per_port:?}");
    assert!(per_port.values().all(|c| *c == 3), "{per_port:?}");
}

#[test]
fn engine_turns_equal_the_explored_turns() {
    for (spec, routing) in
        [("torus:4x4", "minhop"), ("irregular:switches=10,ports=6,endpoints=20,seed=2", "updn:roots=0")]
    {
        let (f, r) = built(spec, routing);
        let inter = |t: &Turn| {
            [t.in_port, t.out_port]
                .iter()
                .all(|p| matches!(f.port(t.switch, *p).map(|pp| pp.peer), Some(Terminal::Switch { .. })))
        };
        let a: BTreeSet<Turn> = r.turns(&f).unwrap().into_iter().filter(inter).collect();
        let b: BTreeSet<Turn> = explored_turns(&f, r.as_ref()).into_iter().filter(inter).collect();
        assert_eq!(a, b, "{spec} {routing}");
    }
}

#[test]
fn for_routing_gives_the_engines_own_matrix() {
    let (f, r) = built("torus:6", "updn:roots=0");
    let m = for_routing(&f, r.as_ref());
    let minhop = HopMatrix::minhop(&f);
    // On a 6-ring rooted at 0 the bottom switch 3 cannot be reached from 2 through 4 (down then
    // up is illegal), so updn's matrix differs from minhop's.
    assert_ne!(*m, minhop);
    let (f2, r2) = built("torus:6", "minhop");
    assert_eq!(*for_routing(&f2, r2.as_ref()), HopMatrix::minhop(&f2));
}

#[test]
fn engines_with_their_own_multicast_builder_are_named() {
    for e in ["dfsssp", "ftree", "torus-2QoS", "minhop", "updn"] {
        let r = default_mcast_builder(e);
        match e {
            "dfsssp" | "torus-2QoS" => assert!(r.unwrap_err().contains("mcast_mgr_build_spanning_tree")),
            _ => assert!(r.is_ok(), "{e}"),
        }
    }
}

fn port_to(f: &Fabric, s: SwitchId, t: SwitchId) -> PortNum {
    f.switch_neighbors(s).into_iter().find(|(_, n, _, _)| *n == t).unwrap().0
}

#[test]
fn a_cycle_that_needs_both_unicast_and_multicast() {
    // 6-ring routed by updn from switch 0: the bottom switch 3 never turns between its two ring
    // links (each such turn goes down then up), so unicast is acyclic. A multicast tree that is
    // a path 2 - 3 - 4 takes exactly those turns; alone it is acyclic too. Together they close
    // the ring.
    let (f, r) = built("torus:6", "updn:roots=0");
    let unicast = r.turns(&f).unwrap();
    assert!(matches!(cdg::deadlock(&f, 1, &unicast), Deadlock::Free { .. }));
    let (s2, s3, s4) = (SwitchId(2), SwitchId(3), SwitchId(4));
    let mlid = 0xC000;
    let row = |s: SwitchId, ports: Vec<PortNum>| MftEntry { mlid, switch: s, ports };
    let ep_port = |s: SwitchId| {
        f.switch_ports(s).find(|p| matches!(f.port(s, *p).map(|pp| pp.peer), Some(Terminal::Endpoint { .. }))).unwrap()
    };
    let tree = vec![
        row(s2, vec![ep_port(s2), port_to(&f, s2, s3)]),
        row(s3, vec![port_to(&f, s3, s2), port_to(&f, s3, s4)]),
        row(s4, vec![ep_port(s4), port_to(&f, s4, s3)]),
    ];
    assert!(matches!(cdg::deadlock(&f, 1, &mft_turns(&f, &tree, 0)), Deadlock::Free { .. }));
    match joint_deadlock(&f, &unicast, &[(&tree, 0)]) {
        Deadlock::Cycle { rendered, .. } => assert!(rendered.len() >= 6, "{rendered:?}"),
        other => panic!("joint check missed the cycle: {other:?}"),
    }
    // On another VL the tree shares no buffers with unicast: free again.
    assert!(matches!(joint_deadlock(&f, &unicast, &[(&tree, 1)]), Deadlock::Free { .. }));
}

#[test]
fn a_fat_tree_with_many_opensm_trees_is_free_under_minhop_and_updn() {
    for routing in ["minhop", "updn"] {
        let (f, r) = built("kary_ntree:k=4,n=3", routing);
        let unicast = r.turns(&f).unwrap();
        let m = for_routing(&f, r.as_ref());
        let n = f.num_endpoints() as u32;
        let trees: Vec<Vec<MftEntry>> = (0..20u32)
            .map(|g| {
                let members: Vec<EndpointId> = (0..n).filter(|e| (e * 7 + g * 3) % 5 < 2).map(EndpointId).collect();
                opensm_tree(&f, &members, 0xC000 + g).mft
            })
            .collect();
        assert!(trees.iter().all(|t| !t.is_empty()));
        let with_vl: Vec<(&[MftEntry], u8)> = trees.iter().map(|t| (t.as_slice(), 0)).collect();
        assert!(m.least(SwitchId(0), SwitchId(1)) != NO_PATH);
        let d = joint_deadlock(&f, &unicast, &with_vl);
        assert!(matches!(d, Deadlock::Free { .. }), "{routing}: {d:?}");
    }
}

#[test]
fn sl2vl_files_parse_and_bad_lines_are_named() {
    let t = Sl2Vl::parse("# comment\n0 0\n1 1 # data\n\n15 2\n").unwrap();
    assert_eq!((t.vl(0), t.vl(1), t.vl(15), t.vl(7)), (0, 1, 2, 0));
    assert!(Sl2Vl::parse("0 0\n16 1\n").unwrap_err().starts_with("line 2:"));
    assert!(Sl2Vl::parse("3 15\n").unwrap_err().starts_with("line 1:"));
    assert!(Sl2Vl::parse("1 1\n1 2\n").unwrap_err().contains("twice"));
    assert!(Sl2Vl::parse("1\n").unwrap_err().starts_with("line 1:"));
}

#[test]
fn lft_dumps_round_trip_byte_for_byte_and_bad_dumps_name_the_line() {
    use mcastlab_core::io::lft_dump::{lfts_of, read_lfts, write_lfts};
    use mcastlab_core::routing::lft_file::LoadedLfts;
    for (spec, routing) in [("kary_ntree:k=4,n=2", "minhop"), ("torus:4x4", "updn:roots=5"), ("torus:4x4", "dor")] {
        let (f, r) = built(spec, routing);
        let text = write_lfts(&f, &lfts_of(&f, r.as_ref()));
        let back = read_lfts(&f, &text, "x.dump").unwrap();
        let loaded = LoadedLfts::new("x.dump", back);
        assert_eq!(write_lfts(&f, &lfts_of(&f, &loaded)), text, "{spec} {routing}");
        // The loaded table routes like the engine.
        let c = check(&f, &loaded, &CheckOptions::default());
        assert!(matches!(c.reachability, Reachability::Verified { .. }), "{c:?}");
        let lines: Vec<&str> = text.lines().collect();
        // Truncated: drop the last footer.
        let cut = lines[..lines.len() - 1].join("\n");
        let e = read_lfts(&f, &cut, "x.dump").unwrap_err();
        assert!(e.starts_with("x.dump:") && e.contains("truncated"), "{e}");
        // Unknown switch GUID on line 1.
        let bad = text.replacen(" guid 0x0", " guid 0xf", 1);
        assert!(read_lfts(&f, &bad, "x.dump").unwrap_err().starts_with("x.dump:1: switch guid"));
        // A port the switch does not have on line 2.
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        let lid = l[1].split_whitespace().next().unwrap().to_string();
        l[1] = format!("{lid} 200");
        let e = read_lfts(&f, &l.join("\n"), "x.dump").unwrap_err();
        assert!(e.starts_with("x.dump:2: switch") && e.contains("port 200"), "{e}");
    }
}

#[test]
fn lft_dumps_cut_between_blocks_or_contradicting_themselves_are_refused() {
    use mcastlab_core::check::joint::check_joint;
    use mcastlab_core::io::lft_dump::{lfts_of, read_lfts, write_lfts};
    use mcastlab_core::routing::lft_file::LoadedLfts;
    let (f, r) = built("kary_ntree:k=4,n=2", "minhop");
    let text = write_lfts(&f, &lfts_of(&f, r.as_ref()));
    let lines: Vec<&str> = text.lines().collect();
    let block_ends: Vec<usize> =
        lines.iter().enumerate().filter(|(_, l)| l.ends_with("lids dumped")).map(|(i, _)| i).collect();
    // Cut after half its switch blocks: every block is whole, half the switches are missing.
    let half = lines[..=block_ends[block_ends.len() / 2 - 1]].join("\n");
    let e = read_lfts(&f, &half, "x.dump").unwrap_err();
    assert!(e.starts_with("x.dump: no block for 4 of the fabric's 8 switches"), "{e}");
    // A switch's block twice (the first block appended again).
    let first = lines[..=block_ends[0]].join("\n");
    let e = read_lfts(&f, &format!("{text}{first}\n"), "x.dump").unwrap_err();
    assert!(
        e.contains(&format!("x.dump:{}: switch", lines.len() + 1))
            && e.contains("second block (its first is at line 1)"),
        "{e}"
    );
    // One LID twice in a block, with another port.
    let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    let lid = l[1].split_whitespace().next().unwrap().to_string();
    l.insert(2, format!("{lid} 001"));
    let e = read_lfts(&f, &l.join("\n"), "x.dump").unwrap_err();
    assert!(e.starts_with("x.dump:3: LID") && e.contains("already given at line 2"), "{e}");
    // Port 0 (the switch itself) towards an endpoint's LID.
    let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    l[1] = format!("{lid} 000");
    let e = read_lfts(&f, &l.join("\n"), "x.dump").unwrap_err();
    assert!(e.starts_with("x.dump:2: port 0"), "{e}");
    // Whole but with an entry deleted: it loads (LIDs not listed are unrouted), and the joint
    // deadlock check refuses it instead of calling it deadlock-free.
    let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    l.remove(1);
    let holed = LoadedLfts::new("x.dump", read_lfts(&f, &l.join("\n"), "x.dump").unwrap());
    let e = check_joint(&f, &holed, &[], 0, &Sl2Vl::default()).unwrap_err().to_string();
    assert!(
        e.starts_with("no route at switch") && e.contains("the LFT has no entry") && e.contains("lfts:x.dump"),
        "{e}"
    );
    let whole = LoadedLfts::new("x.dump", read_lfts(&f, &text, "x.dump").unwrap());
    assert!(check_joint(&f, &whole, &[], 0, &Sl2Vl::default()).is_ok());
}

#[test]
fn loaded_lfts_feed_the_joint_check() {
    use mcastlab_core::check::joint::check_joint;
    use mcastlab_core::io::lft_dump::{lfts_of, read_lfts, write_lfts};
    use mcastlab_core::routing::lft_file::LoadedLfts;
    let (f, r) = built("torus:6", "minhop");
    let loaded = LoadedLfts::new("m.dump", read_lfts(&f, &write_lfts(&f, &lfts_of(&f, r.as_ref())), "m.dump").unwrap());
    let rep = check_joint(&f, &loaded, &[], 0, &Sl2Vl::default()).unwrap();
    assert!(matches!(rep.deadlock, Deadlock::Cycle { .. }), "{rep:?}");
    assert_eq!(rep.unicast_turns_from, "engine");
}

#[test]
fn naming_an_engine_with_its_own_multicast_builder_is_refused() {
    let f = generate("kary_ntree:k=4,n=2").unwrap();
    let e = routing::build(&f, Some("dfsssp")).unwrap_err().to_string();
    assert!(e.contains("dfsssp") && e.contains("mcast_mgr_build_spanning_tree"), "{e}");
}
