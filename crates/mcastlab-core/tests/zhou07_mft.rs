//! InfiniBand hardware multicast: zhou07's cyclic MFTs (§3.3.2), OpenSM's default spanning tree
//! (reference/opensm.md §1.4–1.9) and the unicast baseline, plus OpenSM's MFT dump formats (§3.3,
//! §3.4).
//!
//! Exact examples: zhou07 Fig. 7, OpenSM's tree on the same group and on ibsim's two-path fabric
//! (lowest minimal port), a real `ibroute -M` dump reproduced byte for byte. Properties over random
//! sources and groups on IBFT(4,3), (8,2), (8,3): every plan delivers exactly once and conforms;
//! the cyclic tree uses exactly the unicasts' links, once each; OpenSM's tree ignores the source.
//! On irregular fabrics routed by up*/down*, OpenSM's min-hop tree is shown to open a deadlock
//! cycle through a down-then-up turn, and a tree without such a turn is shown to be free.

use mcastlab_core::check::{check_with_turns, CheckOptions, Deadlock};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::io::ibnetdiscover;
use mcastlab_core::io::mft_dump::{guid_table_order, ibroute_mft, opensm_mcfdbs, switch_guids};
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, MftEntry, Plan, SwitchState};
use mcastlab_core::routing::mport_lmc::MportLmc;
use mcastlab_core::routing::updown::UpDown;
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes;
use mcastlab_core::schemes::ib_cyclic::cyclic_mft;
use mcastlab_core::schemes::ib_opensm::{opensm_tree, HopTable, MlidPool};
use mcastlab_core::{EndpointId, PlanError, PortNum, SwitchId};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

mod common;

const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/");

fn ibft(m: u32, n: u32) -> (Fabric, Box<dyn Routing>) {
    let f = generate(&format!("mport_ntree:m={m},n={n}")).unwrap();
    let r = routing::build(&f, None).unwrap();
    assert_eq!(r.spec(), "mport_lmc");
    (f, r)
}

fn ep(f: &Fabric, name: &str) -> EndpointId {
    f.find_endpoint(name).unwrap()
}

fn sw(f: &Fabric, name: &str) -> SwitchId {
    f.find_switch(name).unwrap()
}

fn plan(f: &Fabric, r: &dyn Routing, scheme: &str, src: EndpointId, dests: &[EndpointId]) -> Result<Plan, PlanError> {
    common::scheme_plan(f, r, scheme, src, dests, 1, Discipline::NiFpfs)
}

/// MFT rows as `switch name → ports`.
fn rows(f: &Fabric, mft: &[MftEntry]) -> BTreeMap<String, Vec<u16>> {
    mft.iter().map(|e| (f.switch(e.switch).name.clone(), e.ports.iter().map(|p| p.0).collect())).collect()
}

fn expect_rows(v: &[(&str, &[u16])]) -> BTreeMap<String, Vec<u16>> {
    v.iter().map(|(s, p)| (s.to_string(), p.to_vec())).collect()
}

fn mlid_of(p: &Plan) -> u32 {
    match p.transmissions[..] {
        [ref t] => match t.carrier {
            Carrier::Mft { mlid } => mlid,
            ref c => panic!("expected an MFT carrier, got {c:?}"),
        },
        _ => panic!("expected one transmission, got {}", p.transmissions.len()),
    }
}

/// zhou07 Fig. 7: P(000) multicasts to P(200), P(201), P(210), P(211) on IBFT(4, 3).
fn fig7() -> (Fabric, Box<dyn Routing>, EndpointId, Vec<EndpointId>) {
    let (f, r) = ibft(4, 3);
    let src = ep(&f, "P(000)");
    let dests = ["P(200)", "P(201)", "P(210)", "P(211)"].iter().map(|n| ep(&f, n)).collect();
    (f, r, src, dests)
}

#[test]
fn fig7_cyclic_mft_is_the_union_of_the_four_paths() {
    let (f, r, src, dests) = fig7();
    let lmc = r.as_any().downcast_ref::<MportLmc>().unwrap();
    // "The lid set of the multicast group is {33, 37, 41, 45}."
    let lids: Vec<u32> = dests.iter().map(|d| lmc.select_lid(src, *d)).collect();
    assert_eq!(lids, vec![33, 37, 41, 45]);
    let p = plan(&f, r.as_ref(), "ib_cyclic", src, &dests).unwrap();
    assert_eq!(mlid_of(&p), 0xC000, "0xC000 + PID(P(000))");
    // Exactly the six rows the paper lists, and no switch off the paths.
    let want = expect_rows(&[
        ("SW<00,2>", &[3]),
        ("SW<00,1>", &[3]),
        ("SW<00,0>", &[3]),
        ("SW<20,1>", &[1, 2]),
        ("SW<20,2>", &[1, 2]),
        ("SW<21,2>", &[1, 2]),
    ]);
    assert_eq!(rows(&f, &p.switch_state.mft), want);
    assert!(p.switch_state.mft.iter().all(|e| e.mlid == 0xC000));
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.ok(), "{rep:?}");
    assert_eq!((rep.messages, rep.hardware_multicasts, rep.steps), (1, 1, 1));
    // One packet on each channel of the tree: the source's link, three switch links up to
    // SW<00,0> and over to SW<20,1>, SW<20,1>'s two down links, and four endpoint links.
    assert_eq!(rep.link_visits, 10);
    assert_eq!(rep.used_links, 10);
}

#[test]
fn fig7_group_gets_the_same_descending_tree_from_opensm() {
    let (f, r, src, dests) = fig7();
    let p = plan(&f, r.as_ref(), "ib_opensm", src, &dests).unwrap();
    assert_eq!(mlid_of(&p), 0xC000);
    // Member switches SW<00,2>, SW<20,2>, SW<21,2>: every top switch is 2 hops from each (cost 3),
    // every other switch is farther from one of them; the first top switch in GUID-table order
    // (synthesized GUIDs follow the index) is SW<00,0>. Each non-root row holds its upstream port.
    let want = expect_rows(&[
        ("SW<00,0>", &[1, 3]),
        ("SW<00,1>", &[1, 3]),
        ("SW<00,2>", &[1, 3]),
        ("SW<20,1>", &[1, 2, 3]),
        ("SW<20,2>", &[1, 2, 3]),
        ("SW<21,2>", &[1, 2, 3]),
    ]);
    assert_eq!(rows(&f, &p.switch_state.mft), want);
    let members: Vec<EndpointId> = dests.iter().copied().chain([src]).collect();
    assert_eq!(opensm_tree(&f, &members, 0xC000).root, Some(sw(&f, "SW<00,0>")));
    // From P(000) the packet takes the very channels of the cyclic tree (the arrival port is never
    // an output), which is why zhou07 finds both schemes equal for one-to-many (§4, case 1).
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.ok(), "{rep:?}");
    let cyc = plan(&f, r.as_ref(), "ib_cyclic", src, &dests).unwrap();
    assert_eq!(channels(&f, r.as_ref(), &p), channels(&f, r.as_ref(), &cyc));
}

/// Channels a plan's carriers occupy, with multiplicity.
fn channels(f: &Fabric, r: &dyn Routing, p: &Plan) -> Vec<u32> {
    let w = Walker::new(f, r, &p.switch_state);
    let mut v: Vec<u32> =
        p.transmissions.iter().flat_map(|t| w.walk(t.sender, &t.carrier).channels(f)).map(|c| c.0).collect();
    v.sort_unstable();
    v
}

#[test]
fn opensm_picks_the_lowest_minimal_port_between_parallel_links() {
    // ibsim's net.2sw2path4hca: Switch1 and Switch2 joined on ports 3 and 5.
    let text = std::fs::read_to_string(format!("{REFERENCE}topologies/linux-rdma-ibsim/net.2sw2path4hca")).unwrap();
    let f = ibnetdiscover::parse(&text, "net.2sw2path4hca").unwrap();
    let r = routing::build(&f, None).unwrap();
    let (hca1, hca2) = (ep(&f, "Hca1"), ep(&f, "Hca2"));
    let p = plan(&f, r.as_ref(), "ib_opensm", hca1, &[hca2]).unwrap();
    // Both switches cost 2; Switch1 comes first in GUID-table order and is the root. Port 3, not
    // 5, carries the branch; Switch2's row holds its upstream port 3 and Hca2's port 1.
    assert_eq!(rows(&f, &p.switch_state.mft), expect_rows(&[("Switch1", &[1, 3]), ("Switch2", &[1, 3])]));
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.exactly_once, "{rep:?}");
}

#[test]
fn opensm_root_is_a_centre_of_the_member_switches() {
    // IBFT(8, 3): members below one level-1 subtree get a level-1 root (2 hops + 1), not a top
    // switch (3 + 1); members on one leaf get that leaf.
    let (f, _) = ibft(8, 3);
    let lvl = |s: SwitchId| f.switch(s).level.unwrap();
    let tree = opensm_tree(&f, &[ep(&f, "P(000)"), ep(&f, "P(030)"), ep(&f, "P(011)")], 0xC000);
    let root = tree.root.unwrap();
    assert_eq!(lvl(root), 1);
    assert!(f.switch(root).name.starts_with("SW<0"), "{}", f.switch(root).name);
    let tree = opensm_tree(&f, &[ep(&f, "P(000)"), ep(&f, "P(003)")], 0xC000);
    assert_eq!(tree.root, Some(sw(&f, "SW<00,2>")));
    assert_eq!(rows(&f, &tree.mft), expect_rows(&[("SW<00,2>", &[1, 4])]));
    // Fewer than two members: OpenSM builds nothing.
    let tree = opensm_tree(&f, &[ep(&f, "P(000)")], 0xC000);
    assert_eq!((tree.root, tree.mft.len()), (None, 0));
}

#[test]
fn hop_table_matches_plain_bfs() {
    // More than 64 targets so that several bit-parallel batches run.
    let f = generate("irregular:switches=150,ports=6,endpoints=300,seed=3").unwrap();
    let targets: Vec<SwitchId> = f.switch_ids().filter(|s| s.0 % 5 != 1).collect();
    assert!(targets.len() > 64);
    let h = HopTable::new(&f, &targets);
    for &t in &targets {
        let d = bfs(&f, t);
        for s in f.switch_ids() {
            assert_eq!(h.least(s, t), Some(d[s.idx()]), "from {s} to {t}");
        }
    }
    for s in f.switch_ids() {
        let far = targets.iter().map(|t| bfs(&f, *t)[s.idx()]).max().unwrap();
        assert_eq!(h.farthest(s), far);
    }
    assert_eq!(h.least(SwitchId(0), SwitchId(1)), None, "switch 1 is not a target");
}

fn bfs(f: &Fabric, from: SwitchId) -> Vec<u16> {
    let mut d = vec![u16::MAX; f.num_switches()];
    d[from.idx()] = 0;
    let mut q = std::collections::VecDeque::from([from]);
    while let Some(u) = q.pop_front() {
        for (_, t, _, _) in f.switch_neighbors(u) {
            if d[t.idx()] == u16::MAX {
                d[t.idx()] = d[u.idx()] + 1;
                q.push_back(t);
            }
        }
    }
    d
}

#[test]
fn mlid_pool_is_first_fit_with_requests_and_holes() {
    let mut pool = MlidPool::default();
    assert_eq!(pool.allocate(None).unwrap(), 0xC000);
    assert_eq!(pool.allocate(Some(0xC005)).unwrap(), 0xC005);
    assert_eq!(pool.allocate(Some(0xC000)).unwrap(), 0xC001, "a taken request falls back to first fit");
    assert_eq!(pool.allocate(Some(0xBFFF)).unwrap(), 0xC002, "a request outside the range is ignored");
    pool.release(0xC001);
    assert_eq!(pool.allocate(None).unwrap(), 0xC001, "holes are reused");
    let mut small = MlidPool::with_mft_cap(2).unwrap();
    assert_eq!(small.allocate(Some(0xC001)).unwrap(), 0xC001);
    assert_eq!(small.allocate(None).unwrap(), 0xC000);
    assert!(matches!(small.allocate(None), Err(PlanError::Param { param: "mlid", .. })));
    assert!(matches!(MlidPool::with_mft_cap(0), Err(PlanError::Param { param: "mft_cap", .. })));
}

#[test]
fn scheme_parameters_and_applicability() {
    let (f, r, src, dests) = fig7();
    let m = |s: &str| mlid_of(&plan(&f, r.as_ref(), s, src, &dests).unwrap());
    assert_eq!(m("ib_opensm:ipoib"), 0xC001, "the IPoIB broadcast group holds 0xC000");
    assert_eq!(m("ib_opensm:mlid=0xC010"), 0xC010);
    assert_eq!(m("ib_opensm:mlid=49153"), 0xC001);
    assert_eq!(m("ib_cyclic:mlid=0xc0ff"), 0xC0FF);
    let err = |s: &str| plan(&f, r.as_ref(), s, src, &dests).unwrap_err();
    assert!(matches!(err("ib_opensm:mlid=0xBFFF"), PlanError::Param { param: "mlid", .. }));
    assert!(matches!(err("ib_cyclic:mlid=banana"), PlanError::Param { param: "mlid", .. }));
    assert!(matches!(err("ib_cyclic:mlid=0x10000"), PlanError::Param { param: "mlid", .. }));
    assert!(matches!(err("ib_cyclic:bogus=1"), PlanError::Spec(_)));
    assert!(matches!(err("ib_unicast:order=random"), PlanError::Param { param: "order", .. }));
    // ib_cyclic needs the LID routing, not just the fabric.
    let updown = routing::build(&f, Some("updown")).unwrap();
    assert!(matches!(
        plan(&f, updown.as_ref(), "ib_cyclic", src, &dests),
        Err(PlanError::Param { param: "routing", .. })
    ));
    // Fabric applicability.
    let torus = generate("torus:4x4").unwrap();
    let tr = routing::build(&torus, None).unwrap();
    let one = [EndpointId(1)];
    for s in ["ib_cyclic", "ib_unicast"] {
        assert!(
            matches!(plan(&torus, tr.as_ref(), s, EndpointId(0), &one), Err(PlanError::NotApplicable { .. })),
            "{s}"
        );
    }
    assert!(plan(&torus, tr.as_ref(), "ib_opensm", EndpointId(0), &one).is_ok(), "OpenSM's builder takes any fabric");
    let ring = generate("torus:4x4,unidirectional").unwrap();
    let rr = routing::build(&ring, None).unwrap();
    assert!(matches!(plan(&ring, rr.as_ref(), "ib_opensm", EndpointId(0), &one), Err(PlanError::NotApplicable { .. })));
    let applicable = schemes::applicable(&f);
    for s in ["ib_unicast", "ib_opensm", "ib_cyclic"] {
        assert!(applicable.contains(&s), "{s} applies to IBFT(4,3)");
    }
    // The default MLID of a source whose PID leaves the MLID range is refused, naming `mlid`.
    let (big, br) = ibft(64, 3);
    let far = EndpointId(0xFFFF - 0xC000);
    assert!(matches!(
        plan(&big, br.as_ref(), "ib_cyclic", far, &[EndpointId(0)]),
        Err(PlanError::Param { param: "mlid", .. })
    ));
    assert!(plan(&big, br.as_ref(), "ib_cyclic:mlid=0xC000", far, &[EndpointId(0)]).is_ok());
}

#[test]
fn unicast_baseline_sends_one_lid_routed_unicast_per_destination() {
    let (f, r, src, dests) = fig7();
    let p = plan(&f, r.as_ref(), "ib_unicast", src, &dests).unwrap();
    assert_eq!(p.transmissions.len(), 4);
    assert!(p.transmissions.iter().all(|t| t.sender == src));
    let got: Vec<EndpointId> = p
        .transmissions
        .iter()
        .map(|t| match t.carrier {
            Carrier::Unicast { dst } => dst,
            ref c => panic!("{c:?}"),
        })
        .collect();
    assert_eq!(got, dests);
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.ok());
    // Four packets each climb the same three up links: the source link carries all four.
    assert_eq!(rep.busiest[0].visits, 4);
    assert_eq!(rep.steps, 4);
    // Imported InfiniBand fabrics qualify too.
    let text = std::fs::read_to_string(format!("{REFERENCE}topologies/linux-rdma-ibsim/net.2sw2path4hca")).unwrap();
    let g = ibnetdiscover::parse(&text, "net").unwrap();
    let gr = routing::build(&g, None).unwrap();
    assert!(plan(&g, gr.as_ref(), "ib_unicast", EndpointId(0), &[EndpointId(3)]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Dump formats

#[test]
fn fig7_mft_in_opensm_mcfdbs_format() {
    let (f, r, src, dests) = fig7();
    let p = plan(&f, r.as_ref(), "ib_cyclic", src, &dests).unwrap();
    // Synthesized GUIDs are 0x0002000000000000 + index; under 256 switches the byte-reversed key
    // order is index order. SW<00,0> = 0, SW<00,1> = 4, SW<20,1> = 8, SW<00,2> = 12,
    // SW<20,2> = 16, SW<21,2> = 17.
    let want = "\nSwitch 0x0002000000000000\nLID    : Out Port(s)\n0xC000 : 0x003 \n\
                \nSwitch 0x0002000000000004\nLID    : Out Port(s)\n0xC000 : 0x003 \n\
                \nSwitch 0x0002000000000008\nLID    : Out Port(s)\n0xC000 : 0x001  0x002 \n\
                \nSwitch 0x000200000000000c\nLID    : Out Port(s)\n0xC000 : 0x003 \n\
                \nSwitch 0x0002000000000010\nLID    : Out Port(s)\n0xC000 : 0x001  0x002 \n\
                \nSwitch 0x0002000000000011\nLID    : Out Port(s)\n0xC000 : 0x001  0x002 \n";
    assert_eq!(opensm_mcfdbs(&f, &p.switch_state.mft).unwrap(), want);
    // Two MLIDs on one switch come in MLID order on consecutive lines; empty rows are omitted.
    let s = sw(&f, "SW<20,1>");
    let two = vec![
        MftEntry { mlid: 0xC021, switch: s, ports: vec![PortNum(4)] },
        MftEntry { mlid: 0xC000, switch: s, ports: vec![PortNum(2), PortNum(1)] },
        MftEntry { mlid: 0xC001, switch: s, ports: vec![] },
    ];
    assert_eq!(
        opensm_mcfdbs(&f, &two).unwrap(),
        "\nSwitch 0x0002000000000008\nLID    : Out Port(s)\n0xC000 : 0x001  0x002 \n0xC021 : 0x004 \n"
    );
    // ibroute -M: the range ends at MulticastFDBTop (end of the highest used block, 0xC03F).
    let text = ibroute_mft(&f, &two, s, 9, false).unwrap();
    let want = "Multicast mlids [0xc000-0xc03f] of switch Lid 9 guid 0x0002000000000008 (SW<20,1>):\n\
                \x20    Ports: 0 1 2 3 4 \n MLid\n\
                0xc000        x x     \n\
                0xc021              x \n\
                2 valid mlids dumped \n";
    assert_eq!(text, want);
    let brief = ibroute_mft(&f, &two, s, 9, true).unwrap();
    assert_eq!(
        brief,
        "Multicast mlids [0xc000-0xc03f] of switch Lid 9 guid 0x0002000000000008 (SW<20,1>):\n MLid       Port Mask\n\
         0xc000      0006\n0xc021      0010\n2 valid mlids dumped \n"
    );
    // A switch without entries: OpenSM sets its top to 0xBFFF, so the range is empty.
    let empty = ibroute_mft(&f, &two, sw(&f, "SW<00,0>"), 3, false).unwrap();
    assert!(empty.starts_with("Multicast mlids [0xc000-0xbfff] of switch Lid 3 "), "{empty}");
    assert!(empty.ends_with("0 valid mlids dumped \n"));
}

#[test]
fn ibroute_reproduces_a_real_sb7700_dump() {
    // reference/opensm.md §3.4 quotes `ibroute -M` on a 36-port SB7700 (verbatim, indented by
    // two spaces in the note). Rebuild that switch and its four MFT rows and print them.
    let note = std::fs::read_to_string(format!("{REFERENCE}opensm.md")).unwrap();
    let start = note.find("  Multicast mlids [0xc000-0xc01f]").expect("the example is in the note");
    let want: String = note[start..]
        .lines()
        .take_while(|l| !l.trim_start().starts_with("```"))
        .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect();
    let f = single_switch(36, "248a070300f88040", "MF0;lpdswitch1:MSB7700/U1");
    let s = SwitchId(0);
    let row =
        |mlid: u32, ports: &[u16]| MftEntry { mlid, switch: s, ports: ports.iter().map(|p| PortNum(*p)).collect() };
    let all = [0, 3, 6, 7, 8, 13, 15, 33, 34];
    let mft = vec![row(0xC000, &all), row(0xC004, &all), row(0xC005, &all), row(0xC00B, &[13, 15, 33, 34])];
    assert_eq!(ibroute_mft(&f, &mft, s, 1, false).unwrap(), want);
}

/// One switch with `ports` ports, an endpoint on each, imported identity.
fn single_switch(ports: u16, guid: &str, desc: &str) -> Fabric {
    use mcastlab_core::fabric::{Endpoint, IbInfo, Link, Switch, Topology};
    let ib = IbInfo { node_guid: Some(guid.into()), desc: Some(desc.into()), ..Default::default() };
    let switches = vec![Switch { name: format!("S-{guid}"), ports, level: None, coords: None, ib: Some(ib) }];
    let endpoints = (0..ports as u32).map(|i| Endpoint { name: format!("h{i}"), ib: None }).collect();
    let links = (0..ports).map(|i| Link::new(Terminal::switch(0, i + 1), Terminal::endpoint(i as u32))).collect();
    Fabric::new("sb7700".into(), Topology::Custom {}, switches, endpoints, links).unwrap()
}

#[test]
fn dumps_reject_what_a_switch_cannot_hold() {
    let (f, _) = ibft(4, 3);
    let bad = |e: MftEntry| opensm_mcfdbs(&f, &[e]).unwrap_err();
    let s = SwitchId(0);
    assert!(matches!(
        bad(MftEntry { mlid: 0xBFFF, switch: s, ports: vec![PortNum(1)] }),
        PlanError::Param { param: "mlid", .. }
    ));
    assert!(matches!(
        bad(MftEntry { mlid: 0xFFFF, switch: s, ports: vec![PortNum(1)] }),
        PlanError::Param { param: "mlid", .. }
    ));
    assert!(matches!(
        bad(MftEntry { mlid: 0xC000, switch: SwitchId(99), ports: vec![] }),
        PlanError::Param { param: "switch", .. }
    ));
    assert!(matches!(
        bad(MftEntry { mlid: 0xC000, switch: s, ports: vec![PortNum(5)] }),
        PlanError::Param { param: "ports", .. }
    ));
    assert!(matches!(ibroute_mft(&f, &[], SwitchId(20), 1, false), Err(PlanError::Param { param: "switch", .. })));
}

#[test]
fn switch_guids_are_those_the_ibnetdiscover_export_writes() {
    let x5 = std::fs::read_to_string(format!("{REFERENCE}topologies/ltaulell-HPC_toolset/X5.topofile")).unwrap();
    let imported = ibnetdiscover::parse(&x5, "X5").unwrap();
    for f in [generate("mport_ntree:m=4,n=3").unwrap(), generate("irregular:switches=9,seed=2").unwrap(), imported] {
        let back = ibnetdiscover::parse(&ibnetdiscover::export(&f).unwrap(), "export").unwrap();
        let written: Vec<u64> = back
            .switches()
            .iter()
            .map(|s| u64::from_str_radix(s.ib.as_ref().unwrap().node_guid.as_deref().unwrap(), 16).unwrap())
            .collect();
        assert_eq!(written, switch_guids(&f), "{}", f.name());
    }
}

#[test]
fn guid_table_order_sorts_by_the_byte_reversed_guid() {
    // IBFT(16, 3) has 320 switches: GUIDs 0x0002000000000000 + i, keyed by their low byte first.
    let f = generate("mport_ntree:m=16,n=3").unwrap();
    assert_eq!(f.num_switches(), 320);
    let order: Vec<u32> = guid_table_order(&f).iter().map(|s| s.0).collect();
    assert_eq!(&order[..6], &[0, 256, 1, 257, 2, 258]);
    assert_eq!(&order[126..130], &[63, 319, 64, 65]);
    assert_eq!(order.len(), 320);
}

// ---------------------------------------------------------------------------------------------
// Properties on m-port n-trees

/// A source and a non-empty group drawn from raw numbers.
fn group(f: &Fabric, src: u32, raw: &BTreeSet<u32>) -> (EndpointId, Vec<EndpointId>) {
    let n = f.num_endpoints() as u32;
    let src = src % n;
    let mut d: Vec<u32> = raw.iter().map(|x| x % n).filter(|x| *x != src).collect();
    d.sort_unstable();
    d.dedup();
    if d.is_empty() {
        d.push((src + 1) % n);
    }
    (EndpointId(src), d.into_iter().map(EndpointId).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn ib_plans_deliver_exactly_once_and_conform(
        which in 0usize..3,
        src in 0u32..1000,
        raw in proptest::collection::btree_set(0u32..1000, 1..48),
        other in 0u32..1000,
    ) {
        let (m, n) = [(4, 3), (8, 2), (8, 3)][which];
        let (f, r) = ibft(m, n);
        let (src, dests) = group(&f, src, &raw);
        let mut mft_of_opensm: Option<SwitchState> = None;
        for scheme in ["ib_unicast", "ib_cyclic", "ib_opensm"] {
            let p = plan(&f, r.as_ref(), scheme, src, &dests).unwrap();
            let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
            prop_assert!(rep.exactly_once && rep.conforms && rep.problems.is_empty(), "{scheme}: {rep:?}");
            prop_assert!(rep.ok(), "{scheme}: {:?}", rep.deadlock);
            if scheme == "ib_opensm" {
                mft_of_opensm = Some(p.switch_state.clone());
            }
            // Deterministic: the same inputs give the same plan, bit for bit.
            prop_assert_eq!(plan(&f, r.as_ref(), scheme, src, &dests).unwrap().to_json(), p.to_json());
        }
        // The cyclic tree occupies exactly the channels of the unicasts, each once; so does the
        // OpenSM tree (zhou07 §4 case 1: the two are equal for one source).
        let uni = plan(&f, r.as_ref(), "ib_unicast", src, &dests).unwrap();
        let cyc = plan(&f, r.as_ref(), "ib_cyclic", src, &dests).unwrap();
        let osm = plan(&f, r.as_ref(), "ib_opensm", src, &dests).unwrap();
        let mut union = channels(&f, r.as_ref(), &uni);
        union.dedup();
        prop_assert_eq!(&channels(&f, r.as_ref(), &cyc), &union);
        prop_assert_eq!(channels(&f, r.as_ref(), &osm).len(), union.len());

        // Another source of the same group (members = source ∪ destinations).
        let members: BTreeSet<EndpointId> = dests.iter().copied().chain([src]).collect();
        let members: Vec<EndpointId> = members.into_iter().collect();
        let src2 = members[other as usize % members.len()];
        let dests2: Vec<EndpointId> = members.iter().copied().filter(|e| *e != src2).collect();
        let osm2 = plan(&f, r.as_ref(), "ib_opensm", src2, &dests2).unwrap();
        prop_assert_eq!(Some(osm2.switch_state), mft_of_opensm, "OpenSM's tree belongs to the group");
        let cyc2 = plan(&f, r.as_ref(), "ib_cyclic", src2, &dests2).unwrap();
        prop_assert_eq!(mlid_of(&cyc2) == mlid_of(&cyc), src2 == src, "one MLID per (source, group)");
        let rep2 = check_plan(&f, r.as_ref(), &cyc2, &Default::default()).unwrap();
        prop_assert!(rep2.ok());
    }

    #[test]
    fn cyclic_mft_rows_are_the_unicast_tables_on_the_paths(
        src in 0u32..128,
        raw in proptest::collection::btree_set(0u32..128, 1..30),
    ) {
        // §3.3.2 by the letter: every row is the set of LFT entries (Eqs. 1, 2) of the selected
        // LIDs whose paths cross the switch, and a row exists only on those switches.
        let (f, r) = ibft(8, 3);
        let lmc = r.as_any().downcast_ref::<MportLmc>().unwrap();
        let (src, dests) = group(&f, src, &raw);
        let mft = cyclic_mft(&f, lmc, src, &dests, 0xC000).unwrap();
        let mut want: BTreeMap<SwitchId, BTreeSet<u16>> = BTreeMap::new();
        for d in &dests {
            let lid = lmc.select_lid(src, *d);
            let path = mcastlab_core::routing::path::deterministic(&f, r.as_ref(), src, *d).unwrap();
            for h in &path.hops {
                let lft = lmc.lft(h.switch);
                prop_assert_eq!(lft[lid as usize - 1], h.out_port.0);
                want.entry(h.switch).or_default().insert(h.out_port.0);
            }
        }
        let got: BTreeMap<SwitchId, BTreeSet<u16>> =
            mft.iter().map(|e| (e.switch, e.ports.iter().map(|p| p.0).collect())).collect();
        prop_assert_eq!(got, want);
    }
}

// ---------------------------------------------------------------------------------------------
// Irregular fabrics under up*/down*: OpenSM's min-hop tree against the base routing

/// Whether a walk of `plan` turns from a down link into an up link, per the up*/down* directions.
fn down_then_up_turns(f: &Fabric, r: &dyn Routing, plan: &Plan) -> Vec<(SwitchId, PortNum, PortNum)> {
    let ud = r.as_any().downcast_ref::<UpDown>().unwrap();
    let w = Walker::new(f, r, &plan.switch_state);
    let mut out = Vec::new();
    for t in &plan.transmissions {
        for h in w.walk(t.sender, &t.carrier).hops {
            let (Some(li), Some(lo)) = (f.link_at(h.switch, h.in_port), f.link_at(h.switch, h.out_port)) else {
                continue;
            };
            let Some(Terminal::Switch { switch: from, .. }) = f.port(h.switch, h.in_port).map(|p| p.peer) else {
                continue;
            };
            let came_down = ud.is_down(li, from);
            let goes_down = ud.is_down(lo, h.switch);
            if came_down == Some(true) && goes_down == Some(false) {
                out.push((h.switch, h.in_port, h.out_port));
            }
        }
    }
    out
}

#[test]
fn opensm_min_hop_tree_on_updown_goes_down_then_up_and_deadlocks() {
    // irregular seed 2 routed by up*/down*; endpoint 0 multicasts to the odd endpoints.
    let f = generate("irregular:switches=8,ports=8,endpoints=16,seed=2").unwrap();
    let r = routing::build(&f, None).unwrap();
    assert!(r.spec().starts_with("updown"));
    let dests: Vec<EndpointId> = (1..16).step_by(2).map(EndpointId).collect();
    let p = plan(&f, r.as_ref(), "ib_opensm", EndpointId(0), &dests).unwrap();
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.exactly_once, "a min-hop tree still delivers exactly once");
    assert!(!rep.conforms && !rep.nonconforming.is_empty());
    let bad = down_then_up_turns(&f, r.as_ref(), &p);
    assert!(!bad.is_empty(), "the tree turns from a down link into an up link");
    let Deadlock::Cycle { cycle, rendered } = &rep.deadlock else { panic!("expected a cycle, got {:?}", rep.deadlock) };
    assert!(cycle.len() >= 2 && rendered.len() == cycle.len());
    // The cycle closes through a turn the routing does not have: one of the tree's down→up turns.
    let (_, turns) = check_with_turns(&f, r.as_ref(), &CheckOptions::default());
    let known: BTreeSet<_> = turns.unwrap().into_iter().map(|t| (t.switch, t.in_port, t.out_port)).collect();
    let mut foreign = Vec::new();
    for i in 0..cycle.len() {
        let (a, b) = (cycle[i].channel, cycle[(i + 1) % cycle.len()].channel);
        let (_, at) = f.channel_ends(a);
        let (from, _) = f.channel_ends(b);
        let (Terminal::Switch { switch: s, port: pin }, Terminal::Switch { switch: s2, port: pout }) = (at, from)
        else {
            panic!("cycle through an endpoint")
        };
        assert_eq!(s, s2, "consecutive cycle channels meet at a switch");
        if !known.contains(&(s, pin, pout)) {
            foreign.push((s, pin, pout));
        }
    }
    assert!(!foreign.is_empty(), "a routing-only cycle would mean up*/down* itself deadlocks");
    assert!(foreign.iter().all(|t| bad.contains(t)), "{foreign:?} vs {bad:?}");
}

#[test]
fn a_tree_without_down_then_up_turns_is_free_on_the_same_fabric() {
    let f = generate("irregular:switches=8,ports=8,endpoints=16,seed=2").unwrap();
    let r = routing::build(&f, None).unwrap();
    // OpenSM's tree for {e1, e10, e11}: conforming, so nothing is added to the routing's
    // dependencies.
    let p = plan(&f, r.as_ref(), "ib_opensm", EndpointId(1), &[EndpointId(10), EndpointId(11)]).unwrap();
    assert!(p.switch_state.mft.len() >= 3, "a tree across several switches");
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.ok(), "{rep:?}");
    assert!(down_then_up_turns(&f, r.as_ref(), &p).is_empty());
    // A hand-made MFT along the up*/down* spanning tree (every edge from parent to child is a
    // down link): a packet climbs to the root, then only descends. Deadlock-free by construction.
    let ud = r.as_any().downcast_ref::<UpDown>().unwrap();
    let mut rows: BTreeMap<SwitchId, BTreeSet<PortNum>> = BTreeMap::new();
    for s in f.switch_ids() {
        if let Some(par) = ud.parent(s) {
            let (p, _, q, _) = f.switch_neighbors(s).into_iter().filter(|n| n.1 == par).min_by_key(|n| n.3).unwrap();
            rows.entry(s).or_default().insert(p);
            rows.entry(par).or_default().insert(q);
        }
        for e in f.endpoints_at(s) {
            rows.entry(s).or_default().insert(f.attachment(*e).1);
        }
    }
    let mft: Vec<MftEntry> =
        rows.into_iter().map(|(s, p)| MftEntry { mlid: 0xC000, switch: s, ports: p.into_iter().collect() }).collect();
    let src = EndpointId(0);
    let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
    let tx = vec![mcastlab_core::plan::Transmission {
        sender: src,
        trigger: mcastlab_core::plan::Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC000 },
        delivers: dests.clone(),
    }];
    let p = Plan::from_transmissions(&f, "custom", src, dests, 1, Discipline::NiFpfs, tx)
        .unwrap()
        .with_switch_state(&f, SwitchState { mft, ..Default::default() })
        .unwrap();
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.exactly_once, "{rep:?}");
    assert!(down_then_up_turns(&f, r.as_ref(), &p).is_empty());
    assert!(matches!(rep.deadlock, Deadlock::Free { .. }), "{:?}", rep.deadlock);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn opensm_trees_on_irregular_fabrics(
        seed in 1u64..500,
        src in 0u32..64,
        raw in proptest::collection::btree_set(0u32..64, 1..24),
    ) {
        // Exactly once whatever the routing; a cycle needs a down→up turn (up*/down* plus turns
        // that never go from down to up stays acyclic); no such turn means no cycle.
        let f = generate(&format!("irregular:switches=10,ports=6,endpoints=24,seed={seed}")).unwrap();
        let r = routing::build(&f, None).unwrap();
        let (src, dests) = group(&f, src, &raw);
        let p = plan(&f, r.as_ref(), "ib_opensm", src, &dests).unwrap();
        let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
        prop_assert!(rep.exactly_once && rep.problems.is_empty(), "{rep:?}");
        let down_up = !down_then_up_turns(&f, r.as_ref(), &p).is_empty();
        match &rep.deadlock {
            Deadlock::Cycle { .. } => prop_assert!(down_up, "a cycle without a down→up turn"),
            Deadlock::Free { .. } => {}
            Deadlock::Skipped { reason } => prop_assert!(false, "skipped: {reason}"),
        }
        if !down_up {
            prop_assert!(matches!(rep.deadlock, Deadlock::Free { .. }), "{:?}", rep.deadlock);
        }
    }
}
