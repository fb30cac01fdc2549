//! sivaram98 §5: switch-based multicast with multidestination worms — POCs (Fig. 13, 14), SSR and
//! multi-drop worms scheduled by the Greedy and Less Greedy algorithms (Fig. 15, 16), header
//! encodings (Fig. 12), the bit-string tree worm and its reachability strings (Fig. 17, 18); then
//! property tests over random irregular fabrics.
//!
//! # The Fig. 14(a) fixture
//!
//! The figure is an image, so the fabric is rebuilt from what the text says about Fig. 14–17.
//! Switches are named `s1`..`s10` as in the paper (fabric index = number − 1, which keeps the
//! paper's id order for the up*/down* tie rule), each with 8 ports (ports 1 and 2 carry the
//! processors `p<i>.1`, `p<i>.2`). The multicast: source `p10.1`, destinations both processors of
//! every switch except 10 and 6 (§5.2.4).
//!
//! Links and the statements that pin them:
//! - `6–4`, `6–1`: Fig. 17(b) text — two of switch 6's down ports lead towards 7, one through 1 and
//!   one directly to 4. Switch 6 is the root: it holds no destination, and its down ports reach
//!   1 and 4 and through them everything the bit-string worm of Fig. 17(a) covers.
//! - `1–4`, `1–7`: "switch 1 forwards copies of the worm along its down ports to switches 4 and 7".
//!   1 and 4 are both children of the root, so `1–4` is a same-level cross link, down from 1 (the
//!   lower id) to 4.
//! - `1–2`: footnote 1 — 1's down links also reach switch 2; and 2 must hang under 1, not under 4:
//!   under 4 it would make 4 (weight 6 with 8 and 2) outweigh 1, and Fig. 14(d) strips `⟨1,7⟩`
//!   before `⟨4,8⟩`.
//! - `5–3`, `3–9`, `4–8`: the chains `⟨5,3,9⟩` (one worm covers 5, 3, 9 in Fig. 15(b)) and `⟨4,8⟩`.
//! - `6–5`, `5–10`: 5 must be the heaviest switch (its chain is stripped first) although its chain
//!   holds 6 processors like 1's subtree (1, 7, 2). Hanging the source's switch 10 under 5 gives
//!   it weight 7 and is the only placement of 10 that needs no link the text does not imply; 10
//!   then forms a chain of its own, stripped last — the chain the figure leaves out.
//! - Port order: at 6 the port to 1 (5) is above the port to 4 (3), so Fig. 18 step 2 leaves 6's
//!   port to 4 an all-zero restricted string (footnote 1). At 1 the port to 7 (5) is above the port
//!   to 4 (4), the case of §5.3.2 where 1 sends copies to both 4 and 7 and only header modification
//!   stops 4 from forwarding a second copy to 7 once the `4–7` link exists. At 1 the port to 7 is
//!   below the port to 2, so the depth-first search of Fig. 13 step 1 meets 7 first; that breaks
//!   the tie between the equally heavy children 7 and 2 in favour of `⟨1,7⟩`.
//! - Fig. 17(b) variation: one more link `4–7` (port 6 of 4, port 4 of 7), down from 4.
//!
//! BFS levels (root 6): 1, 4, 5 at level 1; 2, 3, 7, 8, 10 at level 2; 9 at level 3.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use mcastlab_core::plan::carrier::drop_header_bits;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions, PlanReport};
use mcastlab_core::plan::steps::steps;
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, Plan, SwitchState};
use mcastlab_core::routing::updown::UpDown;
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::bitstring::reachability_strings;
use mcastlab_core::schemes::group::random_group;
use mcastlab_core::schemes::{self, poc, SchemeInput};
use mcastlab_core::{EndpointId, PlanError, PortNum, SwitchId};
use proptest::prelude::*;

mod common;

/// Inter-switch links of Fig. 14(a): (switch, port, switch, port), paper numbers.
const LINKS: &[(u32, u16, u32, u16)] = &[
    (6, 3, 4, 3),
    (6, 4, 5, 3),
    (6, 5, 1, 3),
    (1, 4, 4, 4),
    (1, 5, 7, 3),
    (1, 6, 2, 3),
    (4, 5, 8, 3),
    (5, 4, 3, 3),
    (5, 5, 10, 3),
    (3, 4, 9, 3),
];
/// The extra cross link of the Fig. 17(b) variation.
const LINK_4_7: (u32, u16, u32, u16) = (4, 6, 7, 4);

fn fig14(with_4_7: bool) -> Fabric {
    let switches =
        (1..=10).map(|i| Switch { name: format!("s{i}"), ports: 8, level: None, coords: None, ib: None }).collect();
    let mut endpoints = Vec::new();
    let mut links = Vec::new();
    for i in 1..=10u32 {
        for j in 1..=2u16 {
            links.push(Link::new(Terminal::switch(i - 1, j), Terminal::endpoint(endpoints.len() as u32)));
            endpoints.push(Endpoint { name: format!("p{i}.{j}"), ib: None });
        }
    }
    let extra = with_4_7.then_some(&LINK_4_7);
    for &(a, pa, b, pb) in LINKS.iter().chain(extra) {
        links.push(Link::new(Terminal::switch(a - 1, pa), Terminal::switch(b - 1, pb)));
    }
    let name = if with_4_7 { "sivaram98-fig17b" } else { "sivaram98-fig14a" };
    Fabric::new(name.into(), Topology::Custom {}, switches, endpoints, links).unwrap()
}

fn sw(i: u32) -> SwitchId {
    SwitchId(i - 1)
}
fn p(f: &Fabric, i: u32, j: u32) -> EndpointId {
    f.endpoint_by_name(&format!("p{i}.{j}")).unwrap()
}
/// Paper number of a switch.
fn num(s: SwitchId) -> u32 {
    s.0 + 1
}

fn route(f: &Fabric) -> Box<dyn Routing> {
    routing::build(f, Some("updown:root=s6")).unwrap()
}

fn updown(r: &dyn Routing) -> &UpDown {
    r.as_any().downcast_ref::<UpDown>().unwrap()
}

/// Source p10.1; destinations: both processors of every switch but 10 and 6.
fn group(f: &Fabric) -> (EndpointId, Vec<EndpointId>) {
    let dests = [1, 2, 3, 4, 5, 7, 8, 9].iter().flat_map(|&i| [p(f, i, 1), p(f, i, 2)]).collect();
    (p(f, 10, 1), dests)
}

fn plan_for(f: &Fabric, r: &dyn Routing, scheme: &str) -> Result<Plan, PlanError> {
    let (src, dests) = group(f);
    let input = SchemeInput {
        fabric: f,
        routing: r,
        source: src,
        destinations: &dests,
        packets: 1,
        discipline: Discipline::Host,
    };
    schemes::plan(&input, scheme)
}

fn report(f: &Fabric, r: &dyn Routing, plan: &Plan) -> PlanReport {
    check_plan(f, r, plan, &PlanCheckOptions::default()).unwrap()
}

/// Paper numbers of the switches a worm drops at.
fn drop_switches(c: &Carrier) -> Vec<u32> {
    match c {
        Carrier::Ssr { drop } => vec![num(drop.switch)],
        Carrier::Multidrop { drops } => drops.iter().map(|d| num(d.switch)).collect(),
        other => panic!("not a switch-addressed worm: {other:?}"),
    }
}

/// Per step of the step model: every worm sent, as (sender, drop switches), in plan order.
fn walkthrough(f: &Fabric, plan: &Plan) -> Vec<Vec<(String, Vec<u32>)>> {
    let st = steps(plan).unwrap();
    let mut out = vec![Vec::new(); st.completion as usize];
    for s in &st.sends {
        let t = &plan.transmissions[s.transmission as usize];
        out[s.step as usize - 1].push((f.endpoint(t.sender).name.clone(), drop_switches(&t.carrier)));
    }
    out
}

fn step(sends: &[(&str, &[u32])]) -> Vec<(String, Vec<u32>)> {
    sends.iter().map(|(s, d)| (s.to_string(), d.to_vec())).collect()
}

// ---------------------------------------------------------------------------------------------
// Fig. 13 / 14: POCs

#[test]
fn fixture_levels_and_link_directions() {
    let f = fig14(false);
    let r = route(&f);
    let ud = updown(r.as_ref());
    let levels: Vec<u32> = (1..=10).map(|i| ud.level(sw(i))).collect();
    assert_eq!(levels, vec![1, 2, 2, 1, 1, 0, 2, 2, 3, 2]);
    assert_eq!(ud.root(), sw(6));
    // Step 1 of Fig. 13: T has no same-level link, so 1's children are 7 then 2 (port order).
    let t = poc::down_dag(&f, ud);
    let kids = |i: u32| t.children[sw(i).idx()].iter().map(|s| num(*s)).collect::<Vec<_>>();
    assert_eq!(kids(6), vec![4, 5, 1]);
    assert_eq!(kids(1), vec![7, 2]);
    assert_eq!(kids(5), vec![3, 10]);
    assert!(poc::is_poc_link(&f, ud, sw(1), sw(7)));
    assert!(!poc::is_poc_link(&f, ud, sw(1), sw(4)), "same-level cross links are not POC links");
}

#[test]
fn fig14_reduced_dag_weights_and_chains() {
    let f = fig14(false);
    let r = route(&f);
    let ud = updown(r.as_ref());
    let (src, dests) = group(&f);
    let per = poc::participants(&f, src, &dests);
    let rho: Vec<usize> = per.iter().map(Vec::len).collect();
    let t = poc::down_dag(&f, ud);
    let red = poc::reduce(&t, &rho);
    // Switch 6 does not participate; removing the root draws no edges, so T' has roots 4, 5, 1.
    assert!(!red.switches.contains(&sw(6)));
    assert_eq!(red.switches.len(), 9);
    let w = |i: u32| red.weight[sw(i).idx()];
    // Step 4: two processors per participating switch (one on 10, the source).
    assert_eq!([w(5), w(1), w(4), w(3), w(9), w(10), w(7), w(2), w(8)], [7, 6, 4, 4, 2, 1, 2, 2, 2]);
    // Fig. 14(d): the chains in stripping order, then the source's chain.
    let chains = poc::pocs(&f, ud, src, &dests);
    let ids: Vec<Vec<u32>> = chains.iter().map(|c| c.switches.iter().map(|s| num(*s)).collect()).collect();
    assert_eq!(ids, vec![vec![5, 3, 9], vec![1, 7], vec![4, 8], vec![2], vec![10]]);
    assert_eq!(chains[4].processors, vec![src]);
    assert_eq!(
        chains[0].processors,
        vec![p(&f, 5, 1), p(&f, 5, 2), p(&f, 3, 1), p(&f, 3, 2), p(&f, 9, 1), p(&f, 9, 2)]
    );
    // The POC ordering of the unicast trees follows the chains.
    let order = poc::order(&f, ud, src, &dests);
    let sws: Vec<u32> = order.iter().map(|e| num(f.attachment(*e).0)).collect();
    assert_eq!(sws, vec![10, 5, 5, 3, 3, 9, 9, 1, 1, 7, 7, 4, 4, 8, 8, 2, 2]);
    let kb = plan_for(&f, r.as_ref(), "kbinomial:order=poc").unwrap();
    // 17 nodes, one packet: k = 2 ties with the binomial tree at L1 = 5 and needs fewer buffers.
    assert_eq!(kb.scheme, "kbinomial:k=2,order=poc,discipline=host");
    // The source's first child sits N(4, 2) = 12 places from the right end of the POC chain.
    assert_eq!(kb.transmissions[0].carrier, Carrier::Unicast { dst: order[17 - 12] });
    assert!(report(&f, r.as_ref(), &kb).ok());
}

#[test]
fn reduction_keeps_the_path_through_removed_switches() {
    // Source on the root 6, destinations on 9 and 7: 5, 3 and 1 drop out, so T' has the edges
    // 6 → 9 (standing for the path 6, 5, 3, 9) and 6 → 7 (for 6, 1, 7).
    let f = fig14(false);
    let r = route(&f);
    let ud = updown(r.as_ref());
    let chains = poc::pocs(&f, ud, p(&f, 6, 1), &[p(&f, 9, 1), p(&f, 7, 2)]);
    let ids: Vec<(Vec<u32>, Vec<u32>)> = chains
        .iter()
        .map(|c| (c.switches.iter().map(|s| num(*s)).collect(), c.path.iter().map(|s| num(*s)).collect()))
        .collect();
    // 6 weighs 3 (itself, 9, 7): one chain 6 → 9 through 5, 3 (preorder: 5 before 1), then 7.
    assert_eq!(ids, vec![(vec![6, 9], vec![6, 5, 3, 9]), (vec![7], vec![7])]);
}

// ---------------------------------------------------------------------------------------------
// Fig. 15 / 16: phases

#[test]
fn fig15b_multidrop_greedy_two_steps() {
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "multidrop").unwrap();
    assert_eq!(plan.scheme, "multidrop:schedule=greedy");
    let w = walkthrough(&f, &plan);
    // Step 1: the source covers 5, 3, 9 with one worm. Step 2: the source covers 1 and 7, one
    // destination on 5 covers 4 and 8, the other one on 5 covers 2.
    assert_eq!(w[0], step(&[("p10.1", &[5, 3, 9])]));
    assert_eq!(w[1], step(&[("p10.1", &[1, 7]), ("p5.1", &[4, 8]), ("p5.2", &[2])]));
    assert_eq!(w.len(), 2);
    let rep = report(&f, r.as_ref(), &plan);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.steps, rep.worms), (2, 4));
}

#[test]
fn fig16b_multidrop_less_greedy() {
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "multidrop:schedule=less_greedy").unwrap();
    let w = walkthrough(&f, &plan);
    // As Fig. 15(b), except that the second worm leaving switch 5 would start from the same
    // switch: a destination on switch 3 sends it instead.
    assert_eq!(w[0], step(&[("p10.1", &[5, 3, 9])]));
    assert_eq!(w[1], step(&[("p10.1", &[1, 7]), ("p5.1", &[4, 8]), ("p3.1", &[2])]));
    assert_eq!(w.len(), 2);
    assert!(report(&f, r.as_ref(), &plan).ok());
}

#[test]
fn fig15a_ssr_greedy_three_steps() {
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "ssr:schedule=greedy").unwrap();
    let w = walkthrough(&f, &plan);
    assert_eq!(w[0], step(&[("p10.1", &[5])]));
    // "the source and each destination on switch 5 cover all destinations on switches 3, 9, and 1"
    assert_eq!(w[1], step(&[("p10.1", &[3]), ("p5.1", &[9]), ("p5.2", &[1])]));
    // "and so on": the four remaining worms go to the first four holders.
    assert_eq!(w[2], step(&[("p10.1", &[7]), ("p5.1", &[4]), ("p5.2", &[8]), ("p3.1", &[2])]));
    let rep = report(&f, r.as_ref(), &plan);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.steps, rep.worms), (3, 8));
}

#[test]
fn fig16a_ssr_less_greedy_four_steps() {
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "ssr:schedule=less_greedy").unwrap();
    let w = walkthrough(&f, &plan);
    assert_eq!(w[0], step(&[("p10.1", &[5])]));
    // "the source and one destination on switch 5 cover all destinations on switches 3 and 9"
    assert_eq!(w[1], step(&[("p10.1", &[3]), ("p5.1", &[9])]));
    // "the source covers both destinations on switch 1, one destination on switch 5 covers both
    // destinations on switch 7, and so on"
    assert_eq!(w[2], step(&[("p10.1", &[1]), ("p5.1", &[7]), ("p3.1", &[4]), ("p9.1", &[8])]));
    assert_eq!(w[3], step(&[("p10.1", &[2])]));
    assert_eq!(report(&f, r.as_ref(), &plan).steps, 4);
}

#[test]
fn less_greedy_starts_at_most_one_worm_per_switch_and_step() {
    let f = fig14(false);
    let r = route(&f);
    for scheme in ["ssr:schedule=less_greedy", "multidrop:schedule=less_greedy"] {
        let plan = plan_for(&f, r.as_ref(), scheme).unwrap();
        let st = steps(&plan).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for s in &st.sends {
            let sender = plan.transmissions[s.transmission as usize].sender;
            assert!(
                seen.insert((s.step, f.attachment(sender).0)),
                "{scheme}: two worms from one switch in step {}",
                s.step
            );
        }
    }
}

#[test]
fn forwarded_worms_wait_for_the_whole_message() {
    let f = fig14(false);
    let r = route(&f);
    let (src, dests) = group(&f);
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: src,
        destinations: &dests,
        packets: 3,
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "multidrop").unwrap();
    assert_eq!(plan.discipline, Discipline::NiFpfs);
    for t in &plan.transmissions {
        match t.trigger {
            mcastlab_core::plan::Trigger::Start => assert_eq!(t.sender, src),
            mcastlab_core::plan::Trigger::AfterMessage { .. } => {}
            other => panic!("host-level forwarding expected, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fig. 12: header encodings

#[test]
fn fig12_headers_of_the_example_worms() {
    let f = fig14(false);
    let r = route(&f);
    // 4-bit switch ids (the fabric's index: paper number − 1) and an 8-bit port string per drop.
    let md = plan_for(&f, r.as_ref(), "multidrop").unwrap();
    let Carrier::Multidrop { drops } = &md.transmissions[0].carrier else { panic!() };
    assert_eq!(
        drop_header_bits(drops, 4, 8),
        ["1", "0100", "11000000", "1", "0010", "11000000", "1", "1000", "11000000"].concat()
    );
    let ssr = plan_for(&f, r.as_ref(), "ssr").unwrap();
    let Carrier::Ssr { drop } = &ssr.transmissions[0].carrier else { panic!() };
    assert_eq!(drop.ports, vec![PortNum(1), PortNum(2)]);
    assert_eq!(drop_header_bits(std::slice::from_ref(drop), 4, 8), "1010011000000");
    // A drop for one processor sets one bit: an SSR worm for p2.2 alone.
    let single = plan_for_group(&f, r.as_ref(), "ssr", p(&f, 10, 1), &[p(&f, 2, 2)]);
    let Carrier::Ssr { drop } = &single.transmissions[0].carrier else { panic!() };
    assert_eq!(drop_header_bits(std::slice::from_ref(drop), 4, 8), "1000101000000");
}

fn plan_for_group(f: &Fabric, r: &dyn Routing, scheme: &str, src: EndpointId, dests: &[EndpointId]) -> Plan {
    common::scheme_plan(f, r, scheme, src, dests, 1, Discipline::Host).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Fig. 17 / 18: the bit-string worm

fn reach_of(st: &SwitchState, i: u32) -> &mcastlab_core::plan::SwitchReach {
    st.reachability.iter().find(|r| r.switch == sw(i)).unwrap()
}
fn down_string(st: &SwitchState, i: u32, port: u16) -> Vec<EndpointId> {
    reach_of(st, i).down.iter().find(|(q, _)| q.0 == port).unwrap().1.iter().collect()
}
fn on(f: &Fabric, sws: &[u32]) -> Vec<EndpointId> {
    let mut v: Vec<EndpointId> = sws.iter().flat_map(|&i| [p(f, i, 1), p(f, i, 2)]).collect();
    v.sort_unstable();
    v
}

#[test]
fn fig18_reachability_strings_of_the_example() {
    let f = fig14(false);
    let r = route(&f);
    let st = SwitchState { mft: vec![], reachability: reachability_strings(&f, updown(r.as_ref())) };
    // Footnote 1: 1's total string holds 4's and 2's processors (1–4 is a same-level down link, so
    // 4 must be done before 1 although both are on level 1).
    let total1: Vec<EndpointId> = reach_of(&st, 1).total.iter().collect();
    assert_eq!(total1, on(&f, &[1, 2, 4, 7, 8]));
    // At 6 the port to 1 (5) keeps them; the port to 4 (3) is listed with an all-zero string.
    assert_eq!(down_string(&st, 6, 5), on(&f, &[1, 2, 4, 7, 8]));
    assert_eq!(down_string(&st, 6, 3), vec![]);
    assert_eq!(down_string(&st, 6, 4), on(&f, &[3, 5, 9, 10]));
    assert_eq!(reach_of(&st, 6).total.len(), 20, "the root reaches every processor");
    // Every down port is listed (endpoint ports included); up ports are not.
    let ports6: Vec<u16> = reach_of(&st, 6).down.iter().map(|(q, _)| q.0).collect();
    assert_eq!(ports6, vec![1, 2, 3, 4, 5]);
    let ports1: Vec<u16> = reach_of(&st, 1).down.iter().map(|(q, _)| q.0).collect();
    assert_eq!(ports1, vec![1, 2, 4, 5, 6], "port 3 of switch 1 goes up to 6");
}

#[test]
fn fig17a_one_bitstring_worm_delivers_exactly_once() {
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "bitstring").unwrap();
    assert_eq!(plan.transmissions.len(), 1);
    let rep = report(&f, r.as_ref(), &plan);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.steps, rep.worms, rep.duplicates.len()), (1, 1, 0));
    // It climbs 10 → 5 → 6 (5's total string lacks 1's subtree) and turns down at the root.
    let t = Walker::new(&f, r.as_ref(), &plan.switch_state).walk(plan.source, &plan.transmissions[0].carrier);
    let first: Vec<u32> = t.hops.iter().take(2).map(|h| num(h.switch)).collect();
    assert_eq!(first, vec![10, 5]);
    assert_eq!(num(t.hops[2].switch), 6);
    // 6 never uses its port to 4: 4 is reached through 1.
    assert!(!t.hops.iter().any(|h| h.switch == sw(6) && h.out_port == PortNum(3)));
}

#[test]
fn fig17b_cross_link_4_7_header_modification_keeps_exactly_once() {
    let f = fig14(true);
    let r = route(&f);
    let ud = updown(r.as_ref());
    assert_eq!(ud.level(sw(7)), 2);
    let plan = plan_for(&f, r.as_ref(), "bitstring").unwrap();
    let rep = report(&f, r.as_ref(), &plan);
    assert!(rep.ok(), "{rep:#?}");
    // At 1 the port to 7 (5) keeps 7's processors; the port to 4 (4) gives them up, so the copy
    // sent to 4 carries only 4's and 8's destinations and 4 does not forward to 7.
    assert_eq!(down_string(&plan.switch_state, 1, 4), on(&f, &[4, 8]));
    assert_eq!(down_string(&plan.switch_state, 1, 5), on(&f, &[7]));
    assert_eq!(down_string(&plan.switch_state, 4, 6), on(&f, &[7]));
    let t = Walker::new(&f, r.as_ref(), &plan.switch_state).walk(plan.source, &plan.transmissions[0].carrier);
    assert!(!t.hops.iter().any(|h| h.switch == sw(4) && h.out_port == PortNum(6)), "4 does not forward to 7");
}

#[test]
fn fig17b_without_restriction_switch_7_gets_two_copies() {
    // Negative test: give switch 1's down ports their unrestricted strings (everything each port
    // reaches, as if step 2 of Fig. 18 were skipped there). Cutting the header to those strings no
    // longer separates the copies: 1 sends 7's destinations both straight to 7 and along to 4,
    // which forwards them to 7 again — the duplicate of Fig. 17(b).
    let f = fig14(true);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "bitstring").unwrap();
    let mut st = plan.switch_state.clone();
    let totals: Vec<_> = st.reachability.iter().map(|x| x.total.clone()).collect();
    let one = st.reachability.iter_mut().find(|x| x.switch == sw(1)).unwrap();
    for (port, set) in one.down.iter_mut() {
        if let Some(Terminal::Switch { switch, .. }) = f.port(sw(1), *port).map(|pp| pp.peer) {
            *set = totals[switch.idx()].clone();
        }
    }
    let t = Walker::new(&f, r.as_ref(), &st).walk(plan.source, &plan.transmissions[0].carrier);
    let mut reached = t.reached.clone();
    reached.sort_unstable();
    let mut dups: Vec<EndpointId> = reached.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    dups.dedup();
    assert_eq!(dups, on(&f, &[7]));
    // The restricted strings of the plan itself do not duplicate.
    let ok = Walker::new(&f, r.as_ref(), &plan.switch_state).walk(plan.source, &plan.transmissions[0].carrier);
    assert_eq!(ok.reached.len(), 16);
}

// ---------------------------------------------------------------------------------------------
// Errors and applicability

#[test]
fn switch_schemes_need_updown_and_inter_switch_links() {
    let torus = generate("torus:4x4").unwrap();
    let r = routing::build(&torus, None).unwrap();
    for s in ["ssr", "multidrop", "bitstring"] {
        let e = plan_for_result(&torus, r.as_ref(), s).unwrap_err();
        assert!(matches!(e, PlanError::NotApplicable { .. }), "{s}: {e}");
    }
    let single = generate("irregular:switches=1,ports=8,endpoints=4").unwrap();
    let r1 = routing::build(&single, None).unwrap();
    let e = plan_for_result(&single, r1.as_ref(), "multidrop").unwrap_err();
    assert!(e.to_string().contains("switch-to-switch"), "{e}");
    // order=poc on a non-up*/down* routing names the routing.
    let e = plan_for_result(&torus, r.as_ref(), "kbinomial:order=poc").unwrap_err();
    assert!(matches!(e, PlanError::Param { param: "routing", .. }), "{e}");
}

#[test]
fn bad_parameters_are_named() {
    let f = fig14(false);
    let r = route(&f);
    let e = plan_for(&f, r.as_ref(), "ssr:schedule=fast").unwrap_err();
    assert!(e.to_string().contains("fast"), "{e}");
    let e = plan_for(&f, r.as_ref(), "multidrop:bogus=1").unwrap_err();
    assert!(e.to_string().contains("bogus"), "{e}");
    let e = plan_for(&f, r.as_ref(), "bitstring:k=2").unwrap_err();
    assert!(e.to_string().contains('k'), "{e}");
    let e = plan_for(&f, r.as_ref(), "chain:order=zigzag").unwrap_err();
    assert!(e.to_string().contains("poc"), "{e}");
}

fn plan_for_result(f: &Fabric, r: &dyn Routing, scheme: &str) -> Result<Plan, PlanError> {
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: f,
        routing: r,
        source: EndpointId(0),
        destinations: &dests,
        packets: 1,
        discipline: Discipline::Host,
    };
    schemes::plan(&input, scheme)
}

#[test]
fn plans_are_deterministic() {
    let f = generate("irregular:switches=24,ports=8,endpoints=64,seed=5").unwrap();
    let r = routing::build(&f, None).unwrap();
    let dests = random_group(&f, EndpointId(3), 40.0, 9).unwrap();
    for s in ["ssr", "multidrop:schedule=less_greedy", "bitstring", "kbinomial:order=poc"] {
        let a = plan_for_group(&f, r.as_ref(), s, EndpointId(3), &dests);
        let b = plan_for_group(&f, r.as_ref(), s, EndpointId(3), &dests);
        assert_eq!(a.to_json(), b.to_json(), "{s}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties over random irregular fabrics

fn random_case() -> impl Strategy<Value = (String, u32, f64, u64)> {
    // At most k − 3 endpoints per k-port switch leaves enough free ports to connect the switches.
    (2u32..=30, 5u32..=8, 1u32..=2, any::<u64>(), 0u32..1000, 5.0f64..100.0, any::<u64>()).prop_map(
        |(s, k, per, seed, src, pct, gseed)| {
            (format!("irregular:switches={s},ports={k},endpoints={},seed={seed}", s * per), src, pct, gseed)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn worm_schemes_are_correct_on_random_fabrics((spec, src, pct, gseed) in random_case()) {
        let f = generate(&spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let src = EndpointId(src % f.num_endpoints() as u32);
        let dests = random_group(&f, src, pct, gseed).unwrap();
        let mut worms = std::collections::BTreeMap::new();
        for s in ["ssr", "ssr:schedule=less_greedy", "multidrop", "multidrop:schedule=less_greedy", "bitstring",
                  "kbinomial:order=poc"] {
            let plan = plan_for_group(&f, r.as_ref(), s, src, &dests);
            let rep = report(&f, r.as_ref(), &plan);
            prop_assert!(rep.ok(), "{spec} {s}: {rep:#?}");
            prop_assert!(rep.duplicates.is_empty());
            worms.insert(s, rep.worms);
        }
        prop_assert!(worms["multidrop"] <= worms["ssr"]);
        let switches: std::collections::BTreeSet<_> = dests.iter().map(|d| f.attachment(*d).0).collect();
        prop_assert_eq!(worms["ssr"], switches.len());
    }

    #[test]
    fn pocs_are_pocs((spec, src, pct, gseed) in random_case()) {
        let f = generate(&spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let ud = updown(r.as_ref());
        let src = EndpointId(src % f.num_endpoints() as u32);
        let dests = random_group(&f, src, pct, gseed).unwrap();
        let chains = poc::pocs(&f, ud, src, &dests);
        let mut covered: Vec<EndpointId> = Vec::new();
        let mut sws: Vec<SwitchId> = Vec::new();
        for c in &chains {
            // Definition 5: each switch of the path joined to the next by a down link one level down.
            for w in c.path.windows(2) {
                prop_assert!(poc::is_poc_link(&f, ud, w[0], w[1]), "{spec}: {:?}", c.path);
            }
            // The chain's switches appear on its path in order.
            let mut it = c.path.iter();
            prop_assert!(c.switches.iter().all(|s| it.any(|x| x == s)));
            // Every switch of the chain takes part; the processors are those on its switches.
            for s in &c.switches {
                prop_assert!(c.processors.iter().any(|e| f.attachment(*e).0 == *s));
            }
            covered.extend(&c.processors);
            sws.extend(&c.switches);
        }
        covered.sort_unstable();
        let mut all = dests.clone();
        all.push(src);
        all.sort_unstable();
        prop_assert_eq!(covered, all, "the chains cover the group exactly once");
        let n = sws.len();
        sws.sort_unstable();
        sws.dedup();
        prop_assert_eq!(n, sws.len(), "a switch is on one chain");
    }
}

#[test]
fn checker_allows_non_minimal_updown_turns_but_not_down_then_up() {
    // The bit-string worm of Fig. 17(a) takes two turns no minimal route takes: it climbs 10 → 5
    // → 6 and comes straight back down to 5 (a U-turn at 6), and 1 hands 4's destinations over
    // the same-level link 1 → 4 although 6 reaches 4 directly. Both are legal up*/down* turns.
    let f = fig14(false);
    let r = route(&f);
    let plan = plan_for(&f, r.as_ref(), "bitstring").unwrap();
    let t = Walker::new(&f, r.as_ref(), &plan.switch_state).walk(plan.source, &plan.transmissions[0].carrier);
    let uturn = t.hops.iter().any(|h| h.switch == sw(6) && h.in_port == PortNum(4) && h.out_port == PortNum(4));
    assert!(uturn);
    assert!(report(&f, r.as_ref(), &plan).conforms);
    // A hand-made MFT multicast that goes down 1 → 7 and then up 7 → 4 breaks the rule: the
    // checker must still reject it.
    let f = fig14(true);
    let r = route(&f);
    let mft = |s: u32, ports: &[u16]| mcastlab_core::plan::MftEntry {
        mlid: 0xc000,
        switch: sw(s),
        ports: ports.iter().map(|p| PortNum(*p)).collect(),
    };
    let entries = vec![mft(10, &[3]), mft(5, &[3]), mft(6, &[5]), mft(1, &[5]), mft(7, &[1, 4]), mft(4, &[1])];
    let dests = vec![p(&f, 7, 1), p(&f, 4, 1)];
    let tx = mcastlab_core::plan::Transmission {
        sender: p(&f, 10, 1),
        trigger: mcastlab_core::plan::Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xc000 },
        delivers: dests.clone(),
    };
    let plan = Plan::from_transmissions(&f, "custom", p(&f, 10, 1), dests, 1, Discipline::Host, vec![tx])
        .unwrap()
        .with_switch_state(&f, SwitchState { mft: entries, reachability: vec![] })
        .unwrap();
    let rep = report(&f, r.as_ref(), &plan);
    assert!(rep.exactly_once, "{rep:#?}");
    assert!(!rep.conforms);
    assert_eq!(rep.nonconforming.len(), 1, "{:?}", rep.nonconforming);
    assert!(rep.nonconforming[0].contains("s7 port 3 -> port 4"), "{:?}", rep.nonconforming);
}
