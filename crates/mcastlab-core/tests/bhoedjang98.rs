//! bhoedjang98 §3–4: LFC's NI-level multicast forwards along a per-sender spanning tree (binomial
//! by default, binary as in FM/MC, or a linear chain). The paper describes the 61-processor trees:
//! "the binary tree is almost full; it has 6 levels and 30 nodes at the last level. The binomial
//! spanning tree is broader and shallower: it has only 4 nodes at the last (6th) level and a
//! maximum fanout of 6."

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::{Discipline, Plan, Trigger};
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::EndpointId;
use std::collections::BTreeMap;

/// Level (1 = the sender) of every member, and the fan-out of every forwarding node.
fn shape(p: &Plan) -> (BTreeMap<u32, usize>, usize) {
    let mut level: BTreeMap<EndpointId, u32> = BTreeMap::from([(p.source, 1)]);
    let mut fanout: BTreeMap<EndpointId, usize> = BTreeMap::new();
    for t in &p.transmissions {
        let l = level[&t.sender];
        *fanout.entry(t.sender).or_insert(0) += 1;
        for d in &t.delivers {
            level.insert(*d, l + 1);
        }
    }
    let mut per_level = BTreeMap::new();
    for l in level.values() {
        *per_level.entry(*l).or_insert(0) += 1;
    }
    (per_level, fanout.values().copied().max().unwrap_or(0))
}

fn lfc_plan(scheme: &str, src: u32) -> (Plan, bool) {
    let f = generate("hypercube").unwrap();
    let r = routing::build(&f, None).unwrap();
    assert_eq!(r.engine(), "ecube");
    // 61 processors: the sender and 60 others.
    let dests: Vec<EndpointId> = (0..64).filter(|&e| e != src).take(60).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: EndpointId(src),
        destinations: &dests,
        packets: 4,
        discipline: Discipline::NiFcfs,
    };
    let p = schemes::plan(&input, scheme).unwrap();
    let ok = check_plan(&f, &*r, &p, &Default::default()).unwrap().ok();
    (p, ok)
}

#[test]
fn binary_tree_over_61_processors_has_6_levels_and_30_leaves_at_the_last() {
    let (p, ok) = lfc_plan("binary", 0);
    assert!(ok);
    let (levels, fanout) = shape(&p);
    assert_eq!(levels.len(), 6);
    assert_eq!(levels[&6], 30);
    assert_eq!(fanout, 2);
}

#[test]
fn binomial_tree_over_61_processors_has_4_nodes_at_the_6th_level_and_fanout_6() {
    let (p, ok) = lfc_plan("binomial", 0);
    assert!(ok);
    let (levels, fanout) = shape(&p);
    assert_eq!(levels.len(), 6);
    assert_eq!(levels[&6], 4);
    assert_eq!(fanout, 6);
}

#[test]
fn chains_are_61_levels_deep_and_every_tree_is_ni_forwarded_per_sender() {
    let (p, ok) = lfc_plan("chain", 0);
    assert!(ok);
    assert_eq!(shape(&p).0.len(), 61);
    // Every sender has its own tree (rooted at it), forwarded packet by packet by the NIs.
    for src in [0, 17, 63] {
        for scheme in ["binomial", "binary", "chain"] {
            let (p, ok) = lfc_plan(scheme, src);
            assert!(ok, "{scheme} from {src}");
            for t in &p.transmissions {
                if t.sender == p.source {
                    assert_eq!(t.trigger, Trigger::Start);
                } else {
                    assert!(matches!(t.trigger, Trigger::PerPacket { .. }), "{scheme} from {src}: {t:?}");
                }
            }
        }
    }
}
