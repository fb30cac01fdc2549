//! Many InfiniBand multicast groups at once (issue 11): MFTs against an independent, plainly
//! recursive rendering of OpenSM's algorithm (`reference/opensm.md` §1.5–1.7) on the three
//! reference topologies, MLID allocation, member selectors, dumps read back byte for byte, the
//! MFT checker catching a loop and a missed member, capacity, and bad input.

use mcastlab_core::fabric::{Fabric, Terminal};
use mcastlab_core::ids::{EndpointId, SwitchId};
use mcastlab_core::io::mft_dump::{guid_table_order, ibroute_mft, opensm_mcfdbs};
use mcastlab_core::io::{self};
use mcastlab_core::mcast::select::{member_name, Member, Selector};
use mcastlab_core::mcast::{build, capacity, dump, groups, verify};
use mcastlab_core::plan::MftEntry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const TOPOLOGIES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/topologies/");

fn load(rel: &str) -> Fabric {
    io::load(std::path::Path::new(&format!("{TOPOLOGIES}{rel}"))).unwrap()
}
fn x5() -> Fabric {
    load("ltaulell-HPC_toolset/X5.topofile")
}
fn lab3() -> Fabric {
    load("jabl-ibtopotool/3.topo")
}
fn ibsim2() -> Fabric {
    load("linux-rdma-ibsim/net.2sw2path4hca")
}

fn tables(f: &Fabric, text: &str) -> Result<build::Tables, String> {
    let specs = groups::parse(text, "g.txt").map_err(|e| e.to_string())?;
    let g = groups::resolve(f, &specs).map_err(|e| e.to_string())?;
    let hops = build::hop_matrix(f, None).map_err(|e| e.to_string())?;
    build::build(f, &*hops, &g).map_err(|e| e.to_string())
}

/// (switch name, MLID) → ports.
fn rows(f: &Fabric, mft: &[MftEntry]) -> BTreeMap<(String, u32), Vec<u16>> {
    mft.iter().map(|e| ((f.switch(e.switch).name.clone(), e.mlid), e.ports.iter().map(|p| p.0).collect())).collect()
}

// ---- an independent reference: OpenSM's recursion, written as the C code reads -------------

fn bfs(f: &Fabric, from: SwitchId) -> Vec<u16> {
    let mut d = vec![u16::MAX; f.num_switches()];
    d[from.idx()] = 0;
    let mut q = VecDeque::from([from]);
    while let Some(s) = q.pop_front() {
        for p in f.switch_ports(s) {
            if let Some(Terminal::Switch { switch: t, .. }) = f.port(s, p).map(|pp| pp.peer) {
                if d[t.idx()] == u16::MAX {
                    d[t.idx()] = d[s.idx()] + 1;
                    q.push_back(t);
                }
            }
        }
    }
    d
}

fn reference(f: &Fabric, members: &[Member], mlid: u32) -> BTreeMap<(String, u32), Vec<u16>> {
    let mut out = BTreeMap::new();
    let mut ms: Vec<Member> = members.to_vec();
    ms.sort();
    ms.dedup();
    if ms.len() < 2 {
        return out;
    }
    // hops[t][s]: from s to t.
    let hops: Vec<Vec<u16>> = f.switch_ids().map(|t| bfs(f, t)).collect();
    let target = |m: &Member| match m {
        Member::Port(e) => f.attachment(*e).0,
        Member::Switch(s) => *s,
    };
    let is_member: BTreeSet<SwitchId> =
        ms.iter().filter_map(|m| if let Member::Switch(s) = m { Some(*s) } else { None }).collect();
    let mut best = (u32::MAX, SwitchId(0));
    for s in guid_table_order(f) {
        let cost = ms
            .iter()
            .map(|m| {
                let t = target(m);
                hops[t.idx()][s.idx()].min(0xFF) as u32 + u32::from(!is_member.contains(&t))
            })
            .max()
            .unwrap();
        if cost < best.0 {
            best = (cost, s);
        }
    }
    let mut mft: BTreeMap<SwitchId, BTreeSet<u16>> = BTreeMap::new();
    fn branch(
        f: &Fabric,
        hops: &[Vec<u16>],
        s: SwitchId,
        members: Vec<Member>,
        depth: u32,
        up: u16,
        mft: &mut BTreeMap<SwitchId, BTreeSet<u16>>,
    ) {
        let depth = depth + 1;
        let mut lists: BTreeMap<u16, Vec<Member>> = BTreeMap::new();
        for m in members {
            let p = match m {
                Member::Switch(t) if t == s => 0,
                Member::Port(e) if f.attachment(e).0 == s => f.attachment(e).1 .0,
                _ => {
                    let t = match m {
                        Member::Port(e) => f.attachment(e).0,
                        Member::Switch(t) => t,
                    };
                    let least = hops[t.idx()][s.idx()];
                    f.switch_ports(s)
                        .find(|p| match f.port(s, *p).map(|pp| pp.peer) {
                            Some(Terminal::Switch { switch: n, .. }) if n != s => hops[t.idx()][n.idx()] + 1 == least,
                            _ => false,
                        })
                        .unwrap()
                        .0
                }
            };
            lists.entry(p).or_default().push(m);
        }
        let row = mft.entry(s).or_default();
        if depth > 1 {
            row.insert(up);
        }
        for p in lists.keys() {
            row.insert(*p);
        }
        for (p, list) in lists {
            if p == 0 {
                continue;
            }
            if let Some(Terminal::Switch { switch, port }) = f.port(s, mcastlab_core::PortNum(p)).map(|pp| pp.peer) {
                branch(f, hops, switch, list, depth, port.0, mft);
            }
        }
    }
    branch(f, &hops, best.1, ms, 0, 0, &mut mft);
    for (s, ports) in mft {
        out.insert((f.switch(s).name.clone(), mlid), ports.into_iter().collect());
    }
    out
}

/// Deterministic member sets over a fabric: strides through the endpoints, plus switch members.
fn groups_text(f: &Fabric, switch_members: &[String]) -> (String, Vec<Vec<Member>>) {
    let n = f.num_endpoints() as u32;
    let mut text = String::new();
    let mut sets = Vec::new();
    for (gi, stride) in [1u32, 2, 3, 5, 7, 11].into_iter().enumerate() {
        let mut names = Vec::new();
        let mut set = Vec::new();
        for i in (gi as u32 % stride..n).step_by(stride as usize) {
            names.push(format!("index:{i}"));
            set.push(Member::Port(EndpointId(i)));
        }
        if let Some(sw) = switch_members.get(gi % switch_members.len().max(1)) {
            names.push(format!("switch:{sw}"));
            set.push(Member::Switch(f.find_switch(sw).unwrap()));
        }
        text.push_str(&format!("g{gi} : {}\n", names.join(" ")));
        sets.push(set);
    }
    (text, sets)
}

fn compare_with_reference(f: &Fabric, switch_members: &[String]) {
    let (text, sets) = groups_text(f, switch_members);
    let t = tables(f, &text).unwrap();
    let mut want = BTreeMap::new();
    for (i, set) in sets.iter().enumerate() {
        assert_eq!(t.groups[i].mlid, 0xC000 + i as u32);
        want.extend(reference(f, set, 0xC000 + i as u32));
    }
    assert_eq!(rows(f, &t.mft), want);
    assert!(t.groups.iter().all(|g| g.dropped.is_empty()));
    // Every MLID verified by flooding from every member.
    for (i, set) in sets.iter().enumerate() {
        let c = verify::check_mlid(f, &t.mft, 0xC000 + i as u32, Some(set));
        assert!(c.ok, "{c:?}");
    }
}

#[test]
fn x5_groups_with_switch_members_match_the_reference_algorithm() {
    let f = x5();
    let enhanced: Vec<String> = f
        .switches()
        .iter()
        .filter(|s| s.ib.as_ref().and_then(|ib| ib.kind.as_deref()) == Some("enhanced"))
        .map(|s| s.name.clone())
        .collect();
    assert!(enhanced.len() >= 2);
    compare_with_reference(&f, &enhanced);
}

#[test]
fn lab3_groups_match_the_reference_and_its_base_port0_switch_cannot_join() {
    let f = lab3();
    compare_with_reference(&f, &["S-f4521403005764b0".to_string()]);
    let e = tables(&f, "g : switch:S-e41d2d030003e470 index:0\n").unwrap_err();
    assert!(e.contains("g.txt:1") && e.contains("base port 0"), "{e}");
}

#[test]
fn parallel_links_take_the_lowest_minimal_port_and_cost_ties_go_to_the_first_switch_in_table_order() {
    let f = ibsim2();
    let t = tables(&f, "a : Hca1 Hca2\n").unwrap();
    let r = rows(&f, &t.mft);
    // Both switches cost 2 (one hop + the CA hop): the tie goes to the first in GUID-table order.
    let first = &f.switch(guid_table_order(&f)[0]).name;
    assert_eq!(t.groups[0].root.as_deref(), Some(first.as_str()));
    assert_eq!(r[&("Switch1".into(), 0xC000)], vec![1, 3]);
    assert_eq!(r[&("Switch2".into(), 0xC000)], vec![1, 3], "port 3, never the parallel port 5");
    assert_eq!(
        r,
        reference(&f, &[Member::Port(EndpointId(0)), Member::Port(f.find_endpoint("Hca2").unwrap())], 0xC000)
    );
    // Every stride group of the third reference topology, with both switches joining in turn.
    compare_with_reference(&f, &["Switch1".to_string(), "Switch2".to_string()]);
}

#[test]
fn switch_members_set_port_0_and_one_member_groups_program_nothing() {
    let f = ibsim2();
    let t = tables(&f, "both : switch:Switch1 switch:Switch2\nsolo : Hca3\nmix : Switch2 Hca1\n").unwrap();
    let r = rows(&f, &t.mft);
    assert_eq!(r[&("Switch1".into(), 0xC000)], vec![0, 3]);
    assert_eq!(r[&("Switch2".into(), 0xC000)], vec![0, 3]);
    assert_eq!(t.groups[1].root, None);
    assert!(t.groups[1].note.as_deref().unwrap().contains("1 member"));
    assert!(!t.mft.iter().any(|e| e.mlid == 0xC001));
    // A switch member that is the root with a CA elsewhere: port 0 and the way to the CA.
    let mix: Vec<_> = t.mft.iter().filter(|e| e.mlid == 0xC002).collect();
    assert_eq!(mix.len(), 2);
    assert!(rows(&f, &t.mft).get(&("Switch2".into(), 0xC002)).unwrap().contains(&0));
}

#[test]
fn mlids_go_to_explicit_requests_then_ipoib_then_first_fit() {
    let f = ibsim2();
    let t = tables(&f, "a : Hca1 Hca2\nb mlid=0xC001 : Hca1 Hca3\nbcast ipoib : Hca1 Hca2 Hca3 Hca4\nc : Hca2 Hca4\n")
        .unwrap();
    let got: Vec<(String, u32)> = t.groups.iter().map(|g| (g.name.clone(), g.mlid)).collect();
    assert_eq!(got, vec![("a".into(), 0xC002), ("b".into(), 0xC001), ("bcast".into(), 0xC000), ("c".into(), 0xC003)]);
    let e = tables(&f, "a mlid=0xC005 : Hca1 Hca2\nb mlid=0xC005 : Hca1 Hca3\n").unwrap_err();
    assert!(e.contains("g.txt:2") && e.contains("0xC005") && e.contains("already used"), "{e}");
    let e = tables(&f, "a mlid=0xBFFF : Hca1 Hca2\n").unwrap_err();
    assert!(e.contains("g.txt:1") && e.contains("outside"), "{e}");
    let e = tables(&f, "a mlid=0xFFFF : Hca1 Hca2\n").unwrap_err();
    assert!(e.contains("outside"), "{e}");
}

#[test]
fn lid_gid_and_guid_selectors_name_the_same_port() {
    let f = x5();
    let sel = Selector::new(&f);
    let e = f.endpoint_by_name("H-003048c749cd0000").unwrap();
    for key in ["lid:72", "lid:0x48", "fe80::30:48c7:49cd:1", "0x003048c749cd0001", "H-003048c749cd0000"] {
        assert_eq!(sel.resolve(key), Ok(Member::Port(e)), "{key}");
    }
    // The switch at LID 9 is its port 0; so is its node GUID.
    let s = f.find_switch("S-0008f10500200b50").unwrap();
    assert_eq!(sel.resolve("lid:9"), Ok(Member::Switch(s)));
    assert_eq!(sel.resolve("0x0008f10500200b50"), Ok(Member::Switch(s)));
    assert!(sel.resolve("72").unwrap_err().contains("ambiguous"));
    assert!(sel.resolve("lid:9999").unwrap_err().contains("no port has LID 9999"));
    assert!(sel.resolve("fe80::1:2:3:4").unwrap_err().contains("no port has GUID"));
    // find_endpoint refuses a bare number on a fabric with LIDs, and takes lid:/index:.
    assert!(f.find_endpoint("72").unwrap_err().to_string().contains("ambiguous"));
    assert_eq!(f.find_endpoint("lid:72").unwrap(), e);
    assert_eq!(f.find_endpoint("index:3").unwrap(), EndpointId(3));
}

#[test]
fn saquery_member_records_import_as_groups() {
    let f = x5();
    let text = "MCMemberRecord member dump:\n\t\tMGID....................ff12:401b:ffff::ffff:ffff\n\t\tMlid....................0xC000\n\t\tPortGid.................fe80::30:48c7:49cd:1\n\t\tScopeState..............0x21\n\t\tProxyJoin...............0x0\nMCMemberRecord member dump:\n\t\tMGID....................ff12:401b:ffff::ffff:ffff\n\t\tMlid....................0xC000\n\t\tPortGid.................fe80::2:c903:8:e85\n\t\tScopeState..............0x24\nMCMemberRecord member dump:\n\t\tMGID....................ff12:601b:ffff::1\n\t\tMlid....................0xC003\n\t\tPortGid.................fe80::2:c903:8:e85\n\t\tScopeState..............0x21\n";
    let specs = groups::parse(text, "sa.txt").unwrap();
    assert_eq!(specs.len(), 2);
    assert!(specs[0].ipoib && specs[0].mlid == Some(0xC000));
    assert_eq!(specs[0].members[1].join, groups::JOIN_SEND_ONLY);
    let g = groups::resolve(&f, &specs).unwrap();
    assert_eq!(g[0].members.len(), 2);
    let bad = text.replace("\t\tPortGid.................fe80::2:c903:8:e85\n\t\tScopeState..............0x21\n", "");
    let e = groups::parse(&bad, "sa.txt").unwrap_err().to_string();
    assert!(e.contains("sa.txt:") && e.contains("PortGid"), "{e}");
}

#[test]
fn json_groups_with_join_states_and_bad_members() {
    let f = ibsim2();
    let j =
        r#"{"groups": [{"name": "a", "mlid": "0xC010", "members": ["Hca1", {"member": "Hca2", "join": "sendonly"}]}]}"#;
    let t = tables(&f, j).unwrap();
    assert_eq!(t.groups[0].mlid, 0xC010);
    for (bad, needle) in [
        (r#"[{"name": "a", "members": ["Hca1", "nobody"]}]"#, "group a member 1"),
        (r#"[{"name": "a", "members": ["Hca1", "Hca1"]}]"#, "duplicate member"),
        (r#"[{"name": "a", "members": [3]}]"#, "ambiguous"),
        (r#"[{"name": "a", "mlid": 65535, "members": []}]"#, "outside"),
        (r#"[{"name": "a", "members": ["Hca1"], "extra": 1}]"#, "unknown key `extra`"),
    ] {
        let e = tables(&f, bad).unwrap_err();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    let e = tables(&f, "a : Hca1 Hca1\n").unwrap_err();
    assert!(e.contains("g.txt:1") && e.contains("duplicate"), "{e}");
    let e = tables(&f, "a : Hca1 Hca2@bogus\n").unwrap_err();
    assert!(e.contains("JoinState"), "{e}");
    // An option given twice on a text line: the last MLID silently won.
    for (line, needle) in [
        ("a mlid=0xC001 mlid=0xC002 : Hca1 Hca2\n", "`mlid=` is given twice"),
        ("a ipoib ipoib : Hca1 Hca2\n", "`ipoib` is given twice"),
    ] {
        let e = tables(&f, line).unwrap_err();
        assert!(e.contains("g.txt:1") && e.contains(needle), "{line}: {e}");
    }
}

#[test]
fn dumps_round_trip_byte_for_byte() {
    let f = x5();
    let (text, _) = groups_text(&f, &["S-0008f10500200b50".to_string()]);
    let t = tables(&f, &text).unwrap();
    let mcfdbs = opensm_mcfdbs(&f, &t.mft).unwrap();
    let back = dump::parse(&f, &mcfdbs, "opensm.mcfdbs").unwrap();
    assert_eq!(opensm_mcfdbs(&f, &back).unwrap(), mcfdbs);
    for brief in [false, true] {
        let mut all = String::new();
        for s in guid_table_order(&f).into_iter().filter(|s| t.mft.iter().any(|e| e.switch == *s)) {
            all.push_str(&ibroute_mft(&f, &t.mft, s, 1, brief).unwrap());
        }
        let back = dump::parse(&f, &all, "ibroute.txt").unwrap();
        let mut again = String::new();
        for s in guid_table_order(&f).into_iter().filter(|s| back.iter().any(|e| e.switch == *s)) {
            again.push_str(&ibroute_mft(&f, &back, s, 1, brief).unwrap());
        }
        assert_eq!(again, all, "brief={brief}");
    }
}

#[test]
fn bad_dumps_name_their_line() {
    let f = ibsim2();
    let t = tables(&f, "a : Hca1 Hca2\n").unwrap();
    let good = opensm_mcfdbs(&f, &t.mft).unwrap();
    let cut = &good[..good.rfind(" 0x").unwrap() + 3];
    let e = dump::parse(&f, cut, "d").unwrap_err().to_string();
    assert!(e.contains("d:") && e.contains("truncated"), "{e}");
    let e = dump::parse(&f, &good.replacen("Switch 0x", "Switch 0x9", 1), "d").unwrap_err().to_string();
    assert!(e.contains("not in the fabric") || e.contains("not a GUID"), "{e}");
    let e = dump::parse(&f, "\nSwitch 0x00000000deadbeef\nLID    : Out Port(s)\n0xC000 : 0x001 \n", "d")
        .unwrap_err()
        .to_string();
    assert!(e.contains("d:2") && e.contains("not in the fabric"), "{e}");
    let s = guid_table_order(&f)[0];
    let ib = ibroute_mft(&f, &t.mft, s, 1, false).unwrap();
    let no_footer: String = ib.lines().filter(|l| !l.contains("valid mlids")).map(|l| format!("{l}\n")).collect();
    let e = dump::parse(&f, &no_footer, "d").unwrap_err().to_string();
    assert!(e.contains("d:1") && e.contains("footer"), "{e}");
}

#[test]
fn check_catches_a_loop_and_a_missed_member() {
    let f = ibsim2();
    let t = tables(&f, "a : Hca1 Hca2 Hca3 Hca4\n").unwrap();
    assert!(verify::check_mlid(&f, &t.mft, 0xC000, None).ok);
    // Both parallel links in both masks: Switch1 → Switch2 twice, a loop.
    let mut looped = t.mft.clone();
    for e in &mut looped {
        e.ports.push(mcastlab_core::PortNum(5));
        e.ports.sort();
    }
    let c = verify::check_mlid(&f, &looped, 0xC000, None);
    assert!(!c.ok && !c.loops.is_empty(), "{c:?}");
    assert!(c.loops[0].contains("entered on port"));
    // Drop Hca2's port from its switch: a member the group names is missed.
    let members = groups::resolve(&f, &groups::parse("a : Hca1 Hca2 Hca3 Hca4\n", "g").unwrap()).unwrap();
    let ms: Vec<Member> = members[0].members.iter().map(|(m, _)| *m).collect();
    let (s2, p2) = f.attachment(f.find_endpoint("Hca2").unwrap());
    let mut missed = t.mft.clone();
    for e in missed.iter_mut().filter(|e| e.switch == s2) {
        e.ports.retain(|p| *p != p2);
    }
    let c = verify::check_mlid(&f, &missed, 0xC000, Some(&ms));
    assert!(!c.ok && c.unreached.iter().any(|u| u.ends_with("-> Hca2")), "{c:?}");
    // Through the dump text too.
    let text = opensm_mcfdbs(&f, &looped).unwrap();
    let back = dump::parse(&f, &text, "d").unwrap();
    assert!(!verify::check_mlid(&f, &back, 0xC000, None).ok);
}

#[test]
fn a_dump_that_checks_nothing_fails_instead_of_passing() {
    let f = ibsim2();
    let text = "a : Hca1 Hca2 Hca3 Hca4\n";
    let t = tables(&f, text).unwrap();
    let members = groups::resolve(&f, &groups::parse(text, "g").unwrap()).unwrap();
    let by_mlid: BTreeMap<u32, Vec<Member>> =
        BTreeMap::from([(0xC000, members[0].members.iter().map(|(m, _)| *m).collect())]);
    // The whole dump, with and without the groups: one MLID, passed.
    let all = verify::check_dump(&f, &t.mft, &by_mlid);
    assert_eq!(all.len(), 1);
    assert!(all[0].ok && all[0].members == 4, "{all:?}");
    assert!(verify::check_dump(&f, &t.mft, &BTreeMap::new())[0].ok);
    // An empty dump against the groups: the group's MLID has no row, so no member reaches another.
    let none = verify::check_dump(&f, &[], &by_mlid);
    assert_eq!(none.len(), 1);
    assert!(!none[0].ok && none[0].unreached.len() > 1, "{none:?}");
    // A row that forwards to no endpoint (a switch's port towards the other switch only): the
    // MLID has no member to flood from, and fails rather than passing unchecked.
    let (s1, _) = f.attachment(f.find_endpoint("Hca1").unwrap());
    let inter = t
        .mft
        .iter()
        .find(|e| e.switch == s1)
        .unwrap()
        .ports
        .iter()
        .copied()
        .find(|p| matches!(f.port(s1, *p).map(|pp| pp.peer), Some(Terminal::Switch { .. })));
    let lone = vec![MftEntry { switch: s1, mlid: 0xC001, ports: vec![inter.unwrap()] }];
    let c = verify::check_dump(&f, &lone, &BTreeMap::new());
    assert_eq!((c.len(), c[0].members, c[0].ok), (1, 0, false), "{c:?}");
    // The dump's tree checked against a group of three of its four members: Hca4 gets copies it
    // is not a member for, a failure (it was listed and passed).
    let three: Vec<Member> = by_mlid[&0xC000].iter().copied().filter(|m| member_name(&f, *m) != "Hca4").collect();
    assert_eq!(three.len(), 3);
    let c = verify::check_mlid(&f, &t.mft, 0xC000, Some(&three));
    assert!(!c.ok && c.strays == ["Hca4"] && c.unreached.is_empty(), "{c:?}");
}

#[test]
fn capacity_sends_groups_past_the_mlid_ceiling_and_the_hca_limit_to_software() {
    let f = ibsim2();
    let text: String = (0..40).map(|i| format!("g{i} : Hca1 Hca{}\n", 2 + i % 3)).collect::<String>() + "solo : Hca4\n";
    let specs = groups::parse(&text, "g").unwrap();
    let g = groups::resolve(&f, &specs).unwrap();
    let hops = build::hop_matrix(&f, None).unwrap();
    let t = build::build(&f, &*hops, &g).unwrap();
    let lim = capacity::Limits { mft_cap: 32, ..Default::default() };
    let r = capacity::admit(&f, &g, &t, &lim).unwrap();
    assert_eq!((r.hardware, r.software, r.none), (32, 8, 1));
    assert_eq!(r.mlid_ceiling, 0xC01F);
    assert!(r.first_limit.as_deref().unwrap().contains("g32"), "{:?}", r.first_limit);
    assert_eq!((r.mft_blocks_used, r.mft_blocks_available), (1, 1));
    let lim = capacity::Limits { hca_groups: 10, ..Default::default() };
    let r = capacity::admit(&f, &g, &t, &lim).unwrap();
    assert_eq!(r.hardware, 10, "Hca1 receives every group");
    assert!(r.first_limit.as_deref().unwrap().contains("max_mcast_grp"));
    // Send-only members take no attachment.
    let text: String = (0..20).map(|i| format!("g{i} : Hca1@sendonly Hca{}\n", 2 + i % 3)).collect();
    let g = groups::resolve(&f, &groups::parse(&text, "g").unwrap()).unwrap();
    let t = build::build(&f, &*hops, &g).unwrap();
    let r = capacity::admit(&f, &g, &t, &capacity::Limits { hca_groups: 10, ..Default::default() }).unwrap();
    assert_eq!(r.hardware, 20);
}

#[test]
fn hop_matrix_refuses_engines_with_their_own_builder_and_names_it() {
    let f = ibsim2();
    for (engine, needle) in [("dfsssp", "Dijkstra"), ("nue", "least-loaded"), ("torus-2QoS", "spanning tree")] {
        let e = build::hop_matrix(&f, Some(engine)).err().expect("refused").to_string();
        assert!(e.contains(engine) && e.contains(needle) && e.contains("mcast_mgr_build_spanning_tree"), "{e}");
    }
    let e = build::hop_matrix(&f, Some("ftree")).err().expect("refused").to_string();
    assert!(e.contains("minhop"), "{e}");
    assert!(build::hop_matrix(&f, Some("minhop")).is_ok());
}

#[test]
fn minhop_engine_matrix_and_the_bfs_table_give_the_same_trees() {
    for f in [x5(), lab3(), ibsim2()] {
        let (text, _) = groups_text(&f, &[]);
        let specs = groups::parse(&text, "g").unwrap();
        let g = groups::resolve(&f, &specs).unwrap();
        let table = build::build(&f, &*build::hop_matrix(&f, None).unwrap(), &g).unwrap();
        let engine = build::build(&f, &*build::hop_matrix(&f, Some("minhop")).unwrap(), &g).unwrap();
        assert_eq!(table, engine, "{}", f.name());
    }
}

/// An 8-switch ring routed by updn from switch 0 (ranks 0,1,2,3,4,3,2,1), one CA per switch, and
/// a group on the CAs of switches 1, 3 and 5. Worked by hand with OpenSM's rules (opensm.md §1.6,
/// §1.7, §2.2):
/// * minhop: cost(S) = max hops to {1,3,5} + 1 is 3 only at switch 3 (2, 0, 2); the tree is
///   3 → 2 → 1 and 3 → 4 → 5.
/// * updn: the turn at the bottom switch 4 (down 3→4, then up 4→5) is illegal, so switch 3 is
///   6 hops from 5 and costs 7. Switch 4 (3, 1, 1) and switch 0 (1, 3, 3) cost 4, the least; the
///   first in switch-table order (byte-reversed GUID: switch 0) wins. From 0: CA 1 and CA 3 go
///   through port→1 (up-legal 0←1←2←3, 3 hops), CA 5 through port→7 (the way through 1 would
///   turn at 4). The tree is 0 → 1 → 2 → 3 and 0 → 7 → 6 → 5, avoiding switch 4.
#[test]
fn updn_trees_follow_updns_hop_matrix_not_minhops() {
    let f = mcastlab_core::fabric::generators::generate("torus:8").unwrap();
    let sw = |i: u32| SwitchId(i);
    let ep = |i: u32| EndpointId(i);
    for i in 0..8 {
        assert_eq!(f.attachment(ep(i)).0, sw(i), "one CA per switch, in order");
    }
    let to = |a: u32, b: u32| {
        f.switch_neighbors(sw(a)).into_iter().find(|(_, n, _, _)| *n == sw(b)).map(|(p, ..)| p.0).unwrap()
    };
    let ca = |a: u32| f.attachment(ep(a)).1 .0;
    let sorted = |mut v: Vec<u16>| {
        v.sort();
        v
    };
    let name = |i: u32| f.switch(sw(i)).name.clone();
    let specs = groups::parse("g : index:1 index:3 index:5\n", "g").unwrap();
    let g = groups::resolve(&f, &specs).unwrap();

    let minhop = build::build(&f, &*build::hop_matrix(&f, Some("minhop")).unwrap(), &g).unwrap();
    assert_eq!(minhop.groups[0].root.as_deref(), Some(name(3).as_str()));
    let want_minhop: BTreeMap<(String, u32), Vec<u16>> = [
        (3, vec![to(3, 2), to(3, 4), ca(3)]),
        (2, vec![to(2, 3), to(2, 1)]),
        (1, vec![to(1, 2), ca(1)]),
        (4, vec![to(4, 3), to(4, 5)]),
        (5, vec![to(5, 4), ca(5)]),
    ]
    .into_iter()
    .map(|(s, p)| ((name(s), 0xC000), sorted(p)))
    .collect();
    assert_eq!(rows(&f, &minhop.mft), want_minhop);
    assert_eq!(build::build(&f, &*build::hop_matrix(&f, None).unwrap(), &g).unwrap(), minhop);

    let updn = build::build(&f, &*build::hop_matrix(&f, Some("updn:roots=0")).unwrap(), &g).unwrap();
    assert_eq!(updn.groups[0].root.as_deref(), Some(name(0).as_str()));
    let want_updn: BTreeMap<(String, u32), Vec<u16>> = [
        (0, vec![to(0, 1), to(0, 7)]),
        (1, vec![to(1, 0), ca(1), to(1, 2)]),
        (2, vec![to(2, 1), to(2, 3)]),
        (3, vec![to(3, 2), ca(3)]),
        (7, vec![to(7, 0), to(7, 6)]),
        (6, vec![to(6, 7), to(6, 5)]),
        (5, vec![to(5, 6), ca(5)]),
    ]
    .into_iter()
    .map(|(s, p)| ((name(s), 0xC000), sorted(p)))
    .collect();
    assert_eq!(rows(&f, &updn.mft), want_updn);
    assert!(verify::check_mlid(&f, &updn.mft, 0xC000, None).ok);

    // The scheme under a routing reads the same matrix.
    let members = [ep(3), ep(5)];
    for (routing, want) in [("updn:roots=0", &updn), ("minhop", &minhop)] {
        let r = mcastlab_core::routing::build(&f, Some(routing)).unwrap();
        let input = mcastlab_core::schemes::SchemeInput {
            fabric: &f,
            routing: r.as_ref(),
            source: ep(1),
            destinations: &members,
            packets: 1,
            discipline: mcastlab_core::plan::Discipline::Host,
        };
        let plan = mcastlab_core::schemes::plan(&input, "ib_opensm").unwrap();
        assert_eq!(rows(&f, &plan.switch_state.mft), rows(&f, &want.mft), "{routing}");
    }
}

#[test]
fn the_ipoib_group_takes_0xc000_wherever_it_is_listed_and_its_tree_is_opensms() {
    let f = x5();
    let all: Vec<String> = (0..f.num_endpoints()).map(|i| format!("index:{i}")).collect();
    let text = format!("job : index:0 index:5\nbcast ipoib : {}\n", all.join(" "));
    let t = tables(&f, &text).unwrap();
    assert_eq!((t.groups[0].mlid, t.groups[1].mlid), (0xC001, 0xC000));
    let members: Vec<Member> = (0..f.num_endpoints() as u32).map(|i| Member::Port(EndpointId(i))).collect();
    let mut want = reference(&f, &members, 0xC000);
    want.extend(reference(&f, &[Member::Port(EndpointId(0)), Member::Port(EndpointId(5))], 0xC001));
    assert_eq!(rows(&f, &t.mft), want);
    assert!(verify::check_mlid(&f, &t.mft, 0xC000, Some(&members)).ok);
}

#[test]
fn one_lid_plan_for_selectors_lft_dumps_and_ibroute_headers() {
    use mcastlab_core::io::lids::lid_plan;
    // A generated fabric carries no LIDs: the plan numbers endpoints 1..=E, then switches.
    let f = mcastlab_core::fabric::generators::generate("torus:4").unwrap();
    let plan = lid_plan(&f);
    let e = f.num_endpoints() as u32;
    assert_eq!((plan.endpoint[2], plan.switch[1]), (3, e + 2));
    let sel = Selector::new(&f);
    assert_eq!(sel.resolve("lid:3"), Ok(Member::Port(EndpointId(2))));
    assert_eq!(sel.resolve(&format!("lid:{}", e + 2)), Ok(Member::Switch(SwitchId(1))));
    // The LFT dump and the ibroute -M header name switch 1 by that same LID.
    let r = mcastlab_core::routing::build(&f, Some("minhop")).unwrap();
    let lfts = io::lft_dump::write_lfts(&f, &io::lft_dump::lfts_of(&f, r.as_ref()));
    let name = &f.switch(SwitchId(1)).name;
    assert!(lfts.contains(&format!("of switch Lid {} guid", e + 2)), "{lfts}");
    let t = tables(&f, &format!("g : index:0 index:2 switch:{name}\n")).unwrap();
    let ib = build::ibroute_text(&f, &t.mft, false).unwrap();
    assert!(ib.contains(&format!("of switch Lid {} guid", e + 2)), "{ib}");
    // An imported fabric: its own LIDs everywhere (X5's switch S-0008f10500200b50 has LID 9).
    let x = x5();
    let s = x.find_switch("S-0008f10500200b50").unwrap();
    assert_eq!(lid_plan(&x).switch[s.idx()], 9);
    assert!(lid_plan(&x).imported);
}

#[test]
fn a_groups_file_without_a_group_is_refused_but_an_empty_list_is_not() {
    // Every form a file can hold no group in; each says so naming the file.
    for text in ["", "  \n", "# only a comment\n\n# another\n", "[]", "{\"groups\": []}", " [ ] "] {
        let e = groups::parse_file(text, "g.txt").unwrap_err().to_string();
        assert_eq!(e, "g.txt: no groups", "{text:?}");
    }
    // A program's own list may hold none, on purpose.
    assert!(groups::parse("{\"groups\": []}", "<groups list>").unwrap().is_empty());
    // A file with a group is read as before, and a bad one is still refused by its line.
    assert_eq!(groups::parse_file("# g\nall : H-1 H-2\n", "g.txt").unwrap().len(), 1);
    let e = groups::parse_file("\nall H-1\n", "g.txt").unwrap_err().to_string();
    assert!(e.contains(": g.txt:2: expected `NAME"), "{e}");
}
