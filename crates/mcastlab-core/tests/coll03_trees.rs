//! coll03 §3–6: Quadrics range multicasts, contiguous groups, backward and forward routing overlap,
//! the greedy and optimal hardware-based multicast trees, the software baseline and the Table 1
//! experiment.

use mcastlab_core::experiments::qs_table::{self, QsTableConfig, SourcePick};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::generators::kary_ntree::KaryNtree;
use mcastlab_core::fabric::{Channel, Fabric, Terminal};
use mcastlab_core::io::plan_json::read_plan;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions, PlanReport};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{Carrier, Discipline, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::qs::qs_groups::{Holders, Overlap, QsGroup, QsNet};
use mcastlab_core::schemes::qs::qs_tree::{self, QsTree};
use mcastlab_core::schemes::qs::{qs_greedy, qs_optimal, qs_software};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::{EndpointId, PlanError};

fn e(x: u32) -> EndpointId {
    EndpointId(x)
}

fn net16() -> QsNet {
    QsNet::new(4, 2, 16).unwrap()
}

fn g(net: &QsNet, lo: u32, hi: u32) -> QsGroup {
    net.group(e(lo), e(hi)).unwrap()
}

fn texts(v: &[QsGroup]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v.iter().map(|g| g.text()).collect()
}

fn step_texts(t: &QsTree) -> Vec<Vec<String>> {
    t.steps.iter().map(|s| texts(s)).collect()
}

fn fabric(k: u32, n: u32) -> (Fabric, Box<dyn Routing>) {
    let f = generate(&format!("kary_ntree:k={k},n={n}")).unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
}

fn plan(f: &Fabric, r: &dyn Routing, scheme: &str, source: u32, dests: &[u32]) -> Result<Plan, PlanError> {
    let d: Vec<EndpointId> = dests.iter().map(|x| e(*x)).collect();
    let input = SchemeInput {
        fabric: f,
        routing: r,
        source: e(source),
        destinations: &d,
        packets: 1,
        discipline: Discipline::NiFpfs,
    };
    schemes::plan(&input, scheme)
}

fn report(f: &Fabric, r: &dyn Routing, p: &Plan) -> PlanReport {
    check_plan(f, r, p, &PlanCheckOptions::default()).unwrap()
}

#[test]
fn eq1_example_groups_2_5_and_7_15_overlap_at_level_1() {
    let net = net16();
    let (a, b) = (g(&net, 2, 5), g(&net, 7, 15));
    assert_eq!((a.level, b.level), (1, 1));
    // (⌊2/4⌋ ≠ ⌊5/4⌋) ∧ (⌊7/4⌋ ≠ ⌊15/4⌋) ∧ ((⌊5/4⌋ = ⌊7/4⌋) ∨ (⌊2/4⌋ = ⌊15/4⌋)) = (0≠1)∧(1≠3)∧((1=1)∨(0=3))
    assert_eq!((net.block(e(2), 1), net.block(e(5), 1), net.block(e(7), 1), net.block(e(15), 1)), (0, 1, 1, 3));
    assert!(net.backward_overlap_at(&a, &b, 1));
    assert_eq!(net.backward_overlap(&a, &b), Some(1));
    assert_eq!(net.backward_overlap(&b, &a), Some(1), "Eq. 1 is symmetric");
    // [0, 0] uses a single link at level 1: no overlap with either.
    assert_eq!(net.backward_overlap(&g(&net, 0, 0), &a), None);
    // Fig. 5's groups [3, 7] and [9, 12] meet at the root switch but on different ports.
    assert_eq!(net.backward_overlap(&g(&net, 3, 7), &g(&net, 9, 12)), None);
}

#[test]
fn capabilities_needs_and_differences_of_the_forward_overlap_example() {
    let net = net16();
    let holders = Holders::from_endpoints(&net, &[e(2), e(0)]);
    let groups = [g(&net, 3, 7), g(&net, 9, 12)];
    let c = holders.capabilities();
    let n = net.needs(&groups);
    assert_eq!(c, vec![1, 1]);
    assert_eq!(n, vec![2, 0]);
    assert_eq!(QsNet::differences(&c, &n), vec![-1, 1]);
    assert_eq!(net.forward_overlap(&holders, &groups), Some(1));
    assert_eq!(net.check(&holders, &groups), Some(Overlap::Forward(1)));
    // Sum of capabilities = number of holders.
    assert_eq!(c.iter().sum::<u32>(), 2);
}

#[test]
fn figure_6_capabilities_of_two_node_groups() {
    let net = net16();
    // [6, 7]: root at level 0, c = (1, 1). [7, 8]: root at level 1, c = (2, 0).
    assert_eq!(g(&net, 6, 7).level, 0);
    assert_eq!(Holders::from_endpoints(&net, &[e(6), e(7)]).capabilities(), vec![1, 1]);
    assert_eq!(g(&net, 7, 8).level, 1);
    assert_eq!(Holders::from_endpoints(&net, &[e(7), e(8)]).capabilities(), vec![2, 0]);
    // [7, 8] can reach two level-1 roots in parallel, [6, 7] cannot.
    let two_high = [g(&net, 0, 4), g(&net, 10, 15)];
    assert_eq!(net.forward_overlap(&Holders::from_endpoints(&net, &[e(7), e(8)]), &two_high), None);
    assert_eq!(net.forward_overlap(&Holders::from_endpoints(&net, &[e(6), e(7)]), &two_high), Some(1));
}

/// Fig. 4 (reconstructed from §5.2.1's text): 16 nodes, source 8, groups [0,0], [2,5], [7,15]
/// (nodes 1 and 6 faulty, the source inside its own run). The overlap the figure circles arises
/// when [2,5] and [7,15] are tried together; its two repairs are spelled out in the text.
#[test]
fn figure_4_backward_overlap_resolution_and_two_step_tree() {
    let net = net16();
    let c = vec![g(&net, 7, 15), g(&net, 2, 5)];
    let Some(Overlap::Backward(ov)) = net.check(&Holders::from_endpoints(&net, &[e(8), e(0)]), &c) else {
        panic!("expected a backward overlap")
    };
    assert_eq!((c[ov.left].text(), c[ov.right].text(), ov.level), ("[2, 5]".into(), "[7, 15]".into(), 1));
    let (right, left) = net.resolve_backward(&c, &ov);
    assert_eq!(texts(&right), ["[2, 5]", "[7, 7]", "[8, 15]"]);
    assert_eq!(texts(&left), ["[2, 3]", "[4, 5]", "[7, 15]"]);

    let groups = [g(&net, 0, 0), g(&net, 2, 5), g(&net, 7, 15)];
    let greedy = qs_greedy::solve(&net, e(8), &groups).unwrap();
    // The text's rightmost branch: 8 → [7, 15], then [0, 0] and [2, 5] in parallel.
    assert_eq!(step_texts(&greedy), vec![vec!["[7, 15]"], vec!["[0, 0]", "[2, 5]"]]);
    let opt = qs_optimal::solve(&net, e(8), &groups, 1000).unwrap();
    assert_eq!((opt.tree.depth(), opt.greedy_depth, opt.lower_bound, opt.proven), (2, 2, 2, true));
}

/// Fig. 5 (reconstructed from §5.2.2's text): 16 nodes, source 2, groups [0,0], [3,7], [9,12].
/// After the source reached [0, 0] the holders {2, 0} cannot reach [3,7] and [9,12] in parallel.
#[test]
fn figure_5_forward_overlap_resolution_and_two_step_tree() {
    let net = net16();
    let holders = Holders::from_endpoints(&net, &[e(2), e(0)]);
    let c = vec![g(&net, 3, 7), g(&net, 9, 12)];
    assert_eq!(net.check(&holders, &c), Some(Overlap::Forward(1)));
    // Any repair of these two needs a third group: both touch two blocks of 4, one holder block.
    assert_eq!(net.min_groups_after_repair(&holders, &c), 3);
    // The two repairs of the text. The paper explores splitting [3, 7] first; here the least
    // promising group goes first (the greedy's choice, see `QsNet::split_order`).
    let alts = net.resolve_forward(&c, 1);
    assert_eq!(alts.len(), 2);
    assert_eq!(texts(&alts[0]), ["[3, 7]", "[9, 11]", "[12, 12]"]);
    assert_eq!(texts(&alts[1]), ["[3, 3]", "[4, 7]", "[9, 12]"]);
    // Groups exactly at the overlapping level come before higher ones.
    let net64 = QsNet::new(4, 3, 64).unwrap();
    let mixed = [g(&net64, 0, 20), g(&net64, 22, 25), g(&net64, 27, 40)];
    assert_eq!(mixed.iter().map(|g| g.level).collect::<Vec<_>>(), [2, 1, 2]);
    assert_eq!(QsNet::split_order(&mixed, 1), [1, 2, 0]);
    assert_eq!(QsNet::first_to_split(&mixed, 1), Some(1));
    assert_eq!(QsNet::first_to_split(&mixed, 2), Some(2), "at level 2: [27, 40] is smaller than [0, 20]");
    assert_eq!(QsNet::first_to_split(&mixed, 3), None);

    let groups = [g(&net, 0, 0), g(&net, 3, 7), g(&net, 9, 12)];
    let greedy = qs_greedy::solve(&net, e(2), &groups).unwrap();
    assert_eq!(step_texts(&greedy), vec![vec!["[3, 7]"], vec!["[0, 0]", "[9, 12]"]]);
    let opt = qs_optimal::solve(&net, e(2), &groups, 1000).unwrap();
    assert_eq!((opt.tree.depth(), opt.proven), (2, true));
    // Reaching [0, 0] first (the branch the figure explores) costs a third step.
    let (h, p) = qs_tree::start(&net, e(2), &groups).unwrap();
    let (h, p) = qs_tree::advance(&net, &h, &p, &[g(&net, 0, 0)]);
    assert_eq!(h.capabilities(), vec![1, 1]);
    assert_eq!(texts(&p), ["[3, 7]", "[9, 12]"]);
    assert_eq!(qs_greedy::greedy_step(&net, &h, &p).len(), 2, "after a split two pieces fit");
    assert!(net.check(&h, &p).is_some());
}

/// A decoded carrier: (switch, in port, out port) of every hop, endpoints reached, problems.
type Decoded = (Vec<(String, u16, u16)>, Vec<u32>, Vec<String>);

fn hops(f: &Fabric, r: &dyn Routing, sender: u32, c: &Carrier) -> Decoded {
    let state = SwitchState::default();
    let t = Walker::new(f, r, &state).walk(e(sender), c);
    let h = t.hops.iter().map(|h| (f.switch(h.switch).name.clone(), h.in_port.0, h.out_port.0)).collect();
    (h, t.reached.iter().map(|x| x.0).collect(), t.problems)
}

fn range(lo: u32, hi: u32) -> Carrier {
    Carrier::Range { lo: e(lo), hi: e(hi) }
}

fn hop(s: &str, i: u16, o: u16) -> (String, u16, u16) {
    (s.to_string(), i, o)
}

#[test]
fn range_from_below_the_root_turns_around_there() {
    // Node 2 → [3, 7] (Fig. 5): up to S1:0.0 by the broadcast-tree up port 5, then ports 1 and 2;
    // port 1 is the one it came up through.
    let (f, r) = fabric(4, 2);
    let (h, reached, problems) = hops(&f, r.as_ref(), 2, &range(3, 7));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        h,
        vec![
            hop("S0:0.0", 3, 5),
            hop("S1:0.0", 1, 1),
            hop("S1:0.0", 1, 2),
            hop("S0:0.0", 5, 4),
            hop("S0:1.0", 5, 1),
            hop("S0:1.0", 5, 2),
            hop("S0:1.0", 5, 3),
            hop("S0:1.0", 5, 4),
        ]
    );
    assert_eq!(reached, vec![3, 4, 5, 6, 7]);
}

#[test]
fn range_from_outside_comes_down_off_the_broadcast_tree() {
    let (f, r) = fabric(4, 2);
    // Node 12 → [0, 0]: root S0:0.0 (level 0). The steering endpoint is 1 (a single endpoint on
    // port 1 steers by digit 1), so it climbs through up port 6 to S1:0.1, not the broadcast tree's
    // S1:0.0, and enters S0:0.0 through its port 6.
    let (h, reached, problems) = hops(&f, r.as_ref(), 12, &range(0, 0));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(h, vec![hop("S0:3.0", 1, 6), hop("S1:0.1", 4, 1), hop("S0:0.0", 6, 1)]);
    assert_eq!(reached, vec![0]);

    // 64 nodes, node 40 → [3, 9]: root S1:0.0 at level 1, steering endpoint 8 (last child touched is
    // child 2). Up the broadcast tree to S1:2.0, up port 7 to S2:0.8, down to S1:0.0 through its up
    // port 7, then down the broadcast tree to 3, 4..7, 8, 9.
    let (f, r) = fabric(4, 3);
    let (h, reached, problems) = hops(&f, r.as_ref(), 40, &range(3, 9));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(&h[..4], &[hop("S0:10.0", 1, 5), hop("S1:2.0", 3, 7), hop("S2:0.8", 3, 1), hop("S1:0.0", 7, 1)]);
    assert_eq!(reached, vec![3, 4, 5, 6, 7, 8, 9]);
    let t = KaryNtree::from_fabric(&f).unwrap();
    let route = mcastlab_core::plan::walk::range::range_route(&t, e(40), e(3), e(9)).unwrap();
    assert_eq!((route.level, route.steer, route.top, f.switch(route.root).name.as_str()), (1, 8, 2, "S1:0.0"));
    // Every switch the copies pass below the root is on the broadcast tree.
    let root_hop = h.iter().position(|x| x.0 == "S1:0.0").unwrap();
    for (s, _, _) in &h[root_hop..] {
        assert!(t.on_broadcast_tree(f.switch_by_name(s).unwrap()), "{s}");
    }
}

#[test]
fn range_plans_are_checked_like_other_carriers() {
    let (f, r) = fabric(4, 2);
    let tx = vec![
        Transmission {
            sender: e(2),
            trigger: Trigger::Start,
            carrier: range(3, 7),
            delivers: (3..=7).map(e).collect(),
        },
        Transmission {
            sender: e(4),
            trigger: Trigger::AfterMessage { from: 0 },
            carrier: range(9, 12),
            delivers: (9..=12).map(e).collect(),
        },
        Transmission { sender: e(2), trigger: Trigger::Start, carrier: range(0, 0), delivers: vec![e(0)] },
    ];
    let dests: Vec<EndpointId> = [0, 3, 4, 5, 6, 7, 9, 10, 11, 12].map(e).to_vec();
    let p = Plan::from_transmissions(&f, "custom", e(2), dests.clone(), 1, Discipline::NiFpfs, tx.clone()).unwrap();
    let rep = report(&f, r.as_ref(), &p);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.steps, rep.hardware_multicasts, rep.max_step_contention), (2, 3, 1));
    assert!(rep.notes.iter().any(|n| n.contains("turnaround")), "{:?}", rep.notes);
    // JSON round trip.
    assert_eq!(read_plan(&p.to_json(), "p.json", &f).unwrap(), p);

    // The header must name what the plan says it delivers, and lo ≤ hi.
    let mut bad = tx.clone();
    bad[0].delivers.pop();
    assert!(matches!(
        Plan::from_transmissions(&f, "custom", e(2), dests.clone(), 1, Discipline::NiFpfs, bad),
        Err(PlanError::Invalid { transmission: 0, .. })
    ));
    let mut bad = tx.clone();
    bad[0].carrier = range(7, 3);
    assert!(Plan::from_transmissions(&f, "custom", e(2), dests.clone(), 1, Discipline::NiFpfs, bad).is_err());
    let mut bad = tx;
    bad[0].carrier = range(3, 16);
    assert!(Plan::from_transmissions(&f, "custom", e(2), dests, 1, Discipline::NiFpfs, bad).is_err());

    // A range multicast on a fabric without a broadcast tree is a decoding problem, not a panic.
    let g = generate("torus:4x4").unwrap();
    let rg = routing::build(&g, None).unwrap();
    let (_, reached, problems) = hops(&g, rg.as_ref(), 0, &range(1, 3));
    assert!(reached.is_empty() && problems[0].contains("kary_ntree"), "{problems:?}");
}

#[test]
fn figure_5_and_figure_4_destination_sets_as_plans() {
    let (f, r) = fabric(4, 2);
    // Fig. 5: source 2, destinations [0,0], [3,7], [9,12].
    let dests = [0, 3, 4, 5, 6, 7, 9, 10, 11, 12];
    for scheme in ["qs_greedy", "qs_optimal"] {
        let p = plan(&f, r.as_ref(), scheme, 2, &dests).unwrap();
        let rep = report(&f, r.as_ref(), &p);
        assert!(rep.ok(), "{scheme}: {rep:#?}");
        assert_eq!((rep.steps, rep.messages, rep.max_step_contention), (2, 3, 1), "{scheme}");
        let sends: Vec<(u32, String)> = p
            .transmissions
            .iter()
            .map(|t| match t.carrier {
                Carrier::Range { lo, hi } => (t.sender.0, format!("[{}, {}]", lo.0, hi.0)),
                _ => panic!("not a range"),
            })
            .collect();
        // 2 → [3,7]; then the level-1 group first, from the source (below its root), and [0,0] from
        // node 3, which shares its level-0 switch.
        assert_eq!(sends, vec![(2, "[3, 7]".into()), (2, "[9, 12]".into()), (3, "[0, 0]".into())], "{scheme}");
        assert_eq!(p.transmissions[2].trigger, Trigger::AfterMessage { from: 0 });
    }
    // Fig. 4's nodes with source 8 as a plan: the source breaks its run into [7,7] and [9,15];
    // still two steps.
    let dests = [0, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15];
    for scheme in ["qs_greedy", "qs_optimal"] {
        let p = plan(&f, r.as_ref(), scheme, 8, &dests).unwrap();
        let rep = report(&f, r.as_ref(), &p);
        assert!(rep.ok(), "{scheme}: {rep:#?}");
        assert_eq!((rep.steps, rep.max_step_contention), (2, 1), "{scheme}");
    }
}

/// The paper's capability count done the long way: from the top level down, claim one holder per
/// block of k^l endpoints not already holding a claimed holder's up path; each holder once.
fn claimed_capabilities(net: &QsNet, holders: &[u32]) -> Vec<u32> {
    let mut unclaimed: Vec<u32> = holders.to_vec();
    let mut claimed: Vec<u32> = Vec::new();
    let mut c = Vec::new();
    for l in (1..net.levels()).rev() {
        let span = net.span(l);
        let mut count = 0;
        let mut i = 0;
        while i < unclaimed.len() {
            let b = unclaimed[i] / span;
            if claimed.iter().any(|t| t / span == b) {
                i += 1;
                continue;
            }
            claimed.push(unclaimed.remove(i));
            count += 1;
        }
        c.push(count);
    }
    c.push(unclaimed.len() as u32);
    c
}

/// Every level at which Eq. 1 holds for some pair, the first pair in left-to-right scan order.
fn naive_first_overlap(net: &QsNet, c: &[QsGroup]) -> Option<(QsGroup, QsGroup)> {
    let mut order = c.to_vec();
    order.sort();
    for i in 0..order.len() {
        for j in (0..i).rev() {
            if net.backward_overlap(&order[j], &order[i]).is_some() {
                return Some((order[j], order[i]));
            }
        }
    }
    None
}

fn random_groups(size: u32, cuts: &[bool]) -> Vec<(u32, u32)> {
    // Endpoint x is a gap when cuts[x]; runs between gaps are the groups.
    let mut v = Vec::new();
    let mut x = 0;
    while x < size {
        if cuts[x as usize] {
            x += 1;
            continue;
        }
        let lo = x;
        while x + 1 < size && !cuts[(x + 1) as usize] {
            x += 1;
        }
        v.push((lo, x));
        x += 1;
    }
    v
}

/// Each transmission of a plan with the step model's send of its first packet (`sends` lists
/// every packet of every transmission; zipping it with the transmissions paired them only while
/// plans had one packet).
fn first_sends(p: &Plan) -> Vec<(&Transmission, mcastlab_core::plan::steps::Send)> {
    let st = mcastlab_core::plan::steps::steps(p).unwrap();
    assert_eq!(st.sends.len(), p.transmissions.len() * p.packets as usize, "a send per transmission and packet");
    let first: Vec<_> = st.sends.into_iter().filter(|s| s.packet == 0).collect();
    assert_eq!(first.len(), p.transmissions.len());
    first.into_iter().map(|s| (&p.transmissions[s.transmission as usize], s)).collect()
}

/// Groups reached per step of a hardware plan, with their senders.
fn plan_steps(p: &Plan) -> Vec<Vec<(u32, QsGroup)>> {
    let mut by_step: std::collections::BTreeMap<u64, Vec<(u32, QsGroup)>> = Default::default();
    let net = QsNet::for_size(4, 4096).unwrap();
    for (t, s) in first_sends(p) {
        let Carrier::Range { lo, hi } = t.carrier else { panic!("not a range") };
        by_step.entry(s.step).or_default().push((t.sender.0, net.group(lo, hi).unwrap()));
    }
    by_step.into_values().collect()
}

/// Channels used by more than one transmission of the same step, with their use count.
fn shared_channels(f: &Fabric, r: &dyn Routing, p: &Plan) -> Vec<(Channel, usize)> {
    let walker = Walker::new(f, r, &p.switch_state);
    let mut uses: std::collections::BTreeMap<(u64, Channel), usize> = Default::default();
    for (t, s) in first_sends(p) {
        for c in walker.walk(t.sender, &t.carrier).channels(f) {
            *uses.entry((s.step, c)).or_insert(0) += 1;
        }
    }
    uses.into_iter().filter(|(_, n)| *n > 1).map(|((_, c), n)| (c, n)).collect()
}

/// An upward channel that is not a broadcast-tree link: the lower switch is off the broadcast tree
/// or leaves through an up port other than k+1.
fn is_adaptive_up(f: &Fabric, c: Channel) -> bool {
    let t = KaryNtree::from_fabric(f).unwrap();
    match f.channel_ends(c) {
        (Terminal::Switch { switch: lower, port }, Terminal::Switch { switch: upper, .. }) => {
            let (ll, lu) = (t.label(lower).unwrap(), t.label(upper).unwrap());
            lu.level == ll.level + 1 && (ll.r != 0 || port.0 as u32 != t.k() + 1)
        }
        _ => false,
    }
}

fn instance() -> impl Strategy<Value = (u32, Vec<bool>, u32)> {
    (2u32..=4, 0.02f64..0.45).prop_flat_map(|(n, p)| {
        let size = 4usize.pow(n);
        (Just(n), proptest::collection::vec(proptest::bool::weighted(p), size), 0..size as u32)
    })
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn capabilities_closed_form_matches_the_claiming(n in 2u32..=4, bits in proptest::collection::vec(proptest::bool::weighted(0.1), 256)) {
        let net = QsNet::new(4, n, 4u32.pow(n)).unwrap();
        let holders: Vec<u32> = (0..net.size()).filter(|x| bits[*x as usize]).collect();
        prop_assume!(!holders.is_empty());
        let h = Holders::from_endpoints(&net, &holders.iter().map(|x| e(*x)).collect::<Vec<_>>());
        prop_assert_eq!(h.capabilities(), claimed_capabilities(&net, &holders));
        prop_assert_eq!(h.capabilities().iter().sum::<u32>(), holders.len() as u32);
    }

    #[test]
    fn fast_backward_scan_finds_the_naive_first_overlap(n in 2u32..=4, cuts in proptest::collection::vec(proptest::bool::weighted(0.08), 256), pick in proptest::collection::vec(any::<bool>(), 256)) {
        let net = QsNet::new(4, n, 4u32.pow(n)).unwrap();
        let all = random_groups(net.size(), &cuts);
        let c: Vec<QsGroup> = all.iter().enumerate().filter(|(i, _)| pick[*i]).map(|(_, (lo, hi))| g(&net, *lo, *hi)).collect();
        let fast = net.first_backward_overlap(&c).map(|ov| (c[ov.left], c[ov.right]));
        prop_assert_eq!(fast, naive_first_overlap(&net, &c));
        if let Some(ov) = net.first_backward_overlap(&c) {
            prop_assert_eq!(Some(ov.level), net.backward_overlap(&c[ov.left], &c[ov.right]));
            // Each repair removes the overlap between that pair.
            let (right, left) = net.resolve_backward(&c, &ov);
            for alt in [right, left] {
                let mut covered: Vec<u32> = alt.iter().flat_map(|g| g.lo.0..=g.hi.0).collect();
                covered.sort();
                let mut want: Vec<u32> = c.iter().flat_map(|g| g.lo.0..=g.hi.0).collect();
                want.sort();
                prop_assert_eq!(covered, want, "a repair keeps the endpoints");
                prop_assert_eq!(alt.len(), c.len() + 1);
            }
        }
    }

    #[test]
    fn hardware_trees_are_valid_and_greedy_is_never_shallower((n, faulty, source) in instance()) {
        let (f, r) = fabric(4, n);
        let dests: Vec<u32> = (0..4u32.pow(n)).filter(|x| !faulty[*x as usize] && *x != source).collect();
        prop_assume!(!dests.is_empty());
        let mut depth = Vec::new();
        for scheme in ["qs_greedy", "qs_optimal:budget=20000", "qs_software"] {
            let p = plan(&f, r.as_ref(), scheme, source, &dests).unwrap();
            let rep = report(&f, r.as_ref(), &p);
            prop_assert!(rep.exactly_once && rep.problems.is_empty(), "{scheme}: {rep:#?}");
            prop_assert!(rep.conforms, "{scheme}: {:?}", rep.nonconforming);
            prop_assert!(matches!(rep.deadlock, mcastlab_core::check::Deadlock::Free { .. }), "{scheme}: {:?}", rep.deadlock);
            depth.push(rep.steps);
            if scheme == "qs_software" {
                continue;
            }
            let net = QsNet::new(4, n, 4u32.pow(n)).unwrap();
            let mut holders = Holders::from_endpoints(&net, &[e(source)]);
            let mut held = vec![source];
            for step in plan_steps(&p) {
                let groups: Vec<QsGroup> = step.iter().map(|(_, g)| *g).collect();
                for (i, (sender, a)) in step.iter().enumerate() {
                    prop_assert!(held.contains(sender), "{scheme}: sender {sender} does not hold the message");
                    prop_assert!((a.lo.0..=a.hi.0).all(|x| dests.contains(&x)), "{scheme}: {} leaves the destinations", a.text());
                    for (s2, b) in &step[i + 1..] {
                        prop_assert!(sender != s2, "{scheme}: one sender twice in a step");
                        prop_assert!(a.hi < b.lo || b.hi < a.lo, "{scheme}: {} and {} intersect", a.text(), b.text());
                        prop_assert_eq!(net.backward_overlap(a, b), None, "{}: {} {}", scheme, a.text(), b.text());
                    }
                }
                prop_assert_eq!(net.forward_overlap(&holders, &groups), None, "{}", scheme);
                for a in &groups {
                    holders.add_range(&net, a.lo, a.hi);
                    held.extend(a.lo.0..=a.hi.0);
                }
            }
            // The broadcast-tree parts and the descents of a step's multicasts never share a link;
            // only adaptive up links above a root level may (the QsNET balances those at run time).
            for (c, n) in shared_channels(&f, r.as_ref(), &p) {
                prop_assert!(is_adaptive_up(&f, c), "{scheme}: {} is used {n} times in one step", f.channel_str(c));
            }
        }
        prop_assert!(depth[0] >= depth[1], "greedy {} < optimal {}", depth[0], depth[1]);
    }
}

/// 16 nodes, faults {2,3,5,7,9,11,12}, source 8: after 8 → [13,15], three of the four level-0
/// groups must be sent from S0:3.0 (only 8 and 13..15 hold the message), and their steering digits
/// give only two distinct up ports. The decode is fixed by the header, so two climbs share an up link
/// above the root level; the broadcast tree and the descents stay disjoint.
#[test]
fn unavoidable_shared_up_link_is_an_adaptive_one() {
    let (f, r) = fabric(4, 2);
    let dests = [0, 1, 4, 6, 10, 13, 14, 15];
    let p = plan(&f, r.as_ref(), "qs_greedy", 8, &dests).unwrap();
    let rep = report(&f, r.as_ref(), &p);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.steps, rep.max_step_contention), (2, 2));
    let shared = shared_channels(&f, r.as_ref(), &p);
    assert_eq!(shared.len(), 1, "{shared:?}");
    let (c, _) = shared[0];
    assert!(f.channel_str(c).starts_with("S0:3.0"), "{}", f.channel_str(c));
    assert!(is_adaptive_up(&f, c));
    // A broadcast-tree up link and a down link are not adaptive.
    let up5 = f.port(f.switch_by_name("S0:3.0").unwrap(), mcastlab_core::PortNum(5)).unwrap().out.unwrap();
    assert!(!is_adaptive_up(&f, up5));
    let down = f.port(f.switch_by_name("S1:0.1").unwrap(), mcastlab_core::PortNum(1)).unwrap().out.unwrap();
    assert!(!is_adaptive_up(&f, down));
}

#[test]
fn software_baseline_is_a_balanced_unicast_tree_on_any_fabric() {
    let (f, r) = fabric(4, 2);
    // Fig. 2's situation: 13 non-adjacent destinations.
    let dests = [0, 1, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15];
    let p = plan(&f, r.as_ref(), "qs_software", 2, &dests).unwrap();
    let rep = report(&f, r.as_ref(), &p);
    assert!(rep.ok(), "{rep:#?}");
    assert_eq!((rep.unicasts, rep.root_fanout), (13, 4));
    assert_eq!(qs_software::depth(4, 14), 2);
    // The source's children head parts of 4, 3, 3, 3 of the chain 3,4,5,7,9,...,1.
    let firsts: Vec<u32> = p
        .transmissions
        .iter()
        .filter(|t| t.sender == e(2))
        .map(|t| match t.carrier {
            Carrier::Unicast { dst } => dst.0,
            _ => panic!(),
        })
        .collect();
    assert_eq!(firsts, vec![3, 9, 12, 15]);
    // The hardware tree needs 2 steps for the same group (Fig. 3), the software tree's sends 5
    // steps in the step model (the source alone sends 4 messages, one per step).
    let hw = report(&f, r.as_ref(), &plan(&f, r.as_ref(), "qs_greedy", 2, &dests).unwrap());
    assert_eq!(hw.steps, 2);
    assert!(rep.steps > hw.steps);
    // A unicast tree needs only the base routing: it applies to a torus too.
    let t = generate("torus:4x4").unwrap();
    let rt = routing::build(&t, None).unwrap();
    let p = plan(&t, rt.as_ref(), "qs_software:branching=2", 0, &(1..16).collect::<Vec<_>>()).unwrap();
    assert!(report(&t, rt.as_ref(), &p).ok());
    assert!(schemes::applicable(&t).contains(&"qs_software"));
    assert!(!schemes::applicable(&t).contains(&"qs_greedy"));
    assert!(schemes::applicable(&f).contains(&"qs_optimal"));
}

#[test]
fn bad_inputs_are_reported() {
    let (f, r) = fabric(4, 2);
    let t = generate("torus:4x4").unwrap();
    let rt = routing::build(&t, None).unwrap();
    match plan(&t, rt.as_ref(), "qs_greedy", 0, &[1, 2]) {
        Err(PlanError::NotApplicable { reason, .. }) => assert!(reason.contains("kary_ntree"), "{reason}"),
        other => panic!("{other:?}"),
    }
    for (scheme, param) in [("qs_optimal:budget=0", "budget"), ("qs_software:branching=0", "branching")] {
        match plan(&f, r.as_ref(), scheme, 0, &[1, 2]) {
            Err(PlanError::Param { param: p, .. }) => assert_eq!(p, param, "{scheme}"),
            other => panic!("{scheme}: {other:?}"),
        }
    }
    assert!(matches!(plan(&f, r.as_ref(), "qs_greedy:k=3", 0, &[1]), Err(PlanError::Spec(_))));
    assert!(matches!(
        plan(&f, r.as_ref(), "qs_software:order=zigzag", 0, &[1]),
        Err(PlanError::Param { param: "order", .. })
    ));
    assert!(matches!(plan(&f, r.as_ref(), "qs_greedy", 0, &[0, 1]), Err(PlanError::Group(_))));

    let param_of = |r: Result<QsNet, PlanError>| match r {
        Err(PlanError::Param { param, .. }) => param,
        other => panic!("{other:?}"),
    };
    assert_eq!(param_of(QsNet::new(1, 2, 1)), "k");
    assert_eq!(param_of(QsNet::new(4, 0, 1)), "n");
    assert_eq!(param_of(QsNet::new(4, 2, 17)), "size");
    assert_eq!(param_of(QsNet::new(4, 2, 0)), "size");
    assert_eq!(param_of(QsNet::for_size(1, 8)), "k");
    assert_eq!(QsNet::for_size(4, 2048).unwrap().levels(), 6);
    let net = net16();
    assert!(matches!(net.group(e(5), e(3)), Err(PlanError::Param { param: "group", .. })));
    assert!(matches!(net.group(e(3), e(16)), Err(PlanError::Param { param: "group", .. })));
    assert!(matches!(net.decompose(&[e(1), e(16)]), Err(PlanError::Param { param: "group", .. })));
    let overlapping = [g(&net, 0, 5), g(&net, 5, 7)];
    assert!(matches!(qs_greedy::solve(&net, e(9), &overlapping), Err(PlanError::Group(_))));
    assert!(matches!(qs_optimal::solve(&net, e(16), &[g(&net, 0, 1)], 10), Err(PlanError::Group(_))));
    // A group made of the source alone is already reached.
    assert_eq!(qs_greedy::solve(&net, e(4), &[g(&net, 4, 4)]).unwrap().depth(), 0);
    assert_eq!(step_texts(&qs_greedy::solve(&net, e(4), &[g(&net, 4, 6)]).unwrap()), vec![vec!["[4, 6]"]]);
}

#[test]
fn groups_are_maximal_runs() {
    let net = net16();
    let v = net.decompose(&[9, 0, 3, 4, 5, 6, 7, 10, 11, 12, 3].map(e)).unwrap();
    assert_eq!(
        v.iter().map(|g| (g.text(), g.level)).collect::<Vec<_>>(),
        vec![("[0, 0]".to_string(), 0), ("[3, 7]".to_string(), 1), ("[9, 12]".to_string(), 1),]
    );
    assert_eq!(
        net.split_children(&g(&net, 3, 12)).iter().map(|g| g.text()).collect::<Vec<_>>(),
        ["[3, 3]", "[4, 7]", "[8, 11]", "[12, 12]"]
    );
    assert_eq!(net.split_children(&g(&net, 4, 6)), vec![g(&net, 4, 6)]);
    assert_eq!(qs_tree::lower_bound(1, &[g(&net, 0, 0), g(&net, 3, 7), g(&net, 9, 12)]), 2);
    assert_eq!(qs_tree::lower_bound(1, &[]), 0);
    assert_eq!(qs_tree::lower_bound(1, &[g(&net, 0, 0), g(&net, 2, 2), g(&net, 4, 4), g(&net, 6, 6)]), 3);
}

fn small_table() -> QsTableConfig {
    QsTableConfig {
        sizes: vec![16, 64, 256],
        fault_percents: vec![5.0, 20.0],
        trials: 30,
        seed: 7,
        ..QsTableConfig::table1()
    }
}

#[test]
fn table_rows_are_consistent_and_deterministic() {
    assert_eq!(qs_table::faulty_count(1024, 0.2), 2);
    assert_eq!(qs_table::faulty_count(4096, 1.0), 41);
    assert_eq!(qs_table::faulty_count(2048, 1.0), 20);
    assert_eq!(qs_table::faulty_count(16, 0.1), 1);
    let cfg = small_table();
    let rows = qs_table::qs_table(&cfg).unwrap();
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let sum = |h: &[(u32, u32)]| h.iter().map(|(_, c)| c).sum::<u32>();
        assert_eq!((sum(&row.optimal), sum(&row.greedy)), (30, 30), "{row:?}");
        assert!(row.greedy_worst >= row.optimal_worst && row.greedy_optimal <= 30);
        let mean = |h: &[(u32, u32)]| h.iter().map(|(d, c)| d * c).sum::<u32>();
        assert!(mean(&row.greedy) >= mean(&row.optimal));
        assert_eq!(row.unproven, 0, "{row:?}");
        // A fault at either end of the network leaves one run: one step.
        assert!(row.optimal.iter().all(|(d, _)| *d >= 1));
    }
    assert_eq!((rows[0].size, rows[0].levels, rows[0].faulty), (16, 2, 1));
    assert_eq!((rows[5].size, rows[5].levels, rows[5].faulty), (256, 4, 51));
    // Same seed, same rows, whatever the thread count; another seed, other draws.
    let json = serde_json::to_string(&rows).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let again = pool.install(|| qs_table::qs_table(&cfg)).unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), json);
    let other = qs_table::qs_table(&QsTableConfig { seed: 8, ..cfg.clone() }).unwrap();
    assert_ne!(serde_json::to_string(&other).unwrap(), json);
    // The other conventions run too.
    let gap = QsTableConfig { join_source: false, source: SourcePick::First, ..cfg.clone() };
    assert_eq!(qs_table::qs_table(&gap).unwrap().len(), 6);
    // The smallest network: a partial one-switch tree of 3 nodes, one faulty: one step.
    let tiny = QsTableConfig { sizes: vec![qs_table::MIN_SIZE], fault_percents: vec![34.0], ..cfg.clone() };
    let rows = qs_table::qs_table(&tiny).unwrap();
    assert_eq!((rows[0].faulty, rows[0].optimal.clone()), (1, vec![(1, 30)]));
    for (bad, param) in [
        (QsTableConfig { trials: 0, ..cfg.clone() }, "trials"),
        (QsTableConfig { budget: 0, ..cfg.clone() }, "budget"),
        (QsTableConfig { fault_percents: vec![0.0], ..cfg.clone() }, "fault_percents"),
        (QsTableConfig { fault_percents: vec![99.0], sizes: vec![16], ..cfg.clone() }, "fault_percents"),
        (QsTableConfig { sizes: vec![0], ..cfg.clone() }, "sizes"),
        // One faulty node leaves the source alone: no multicast to measure.
        (QsTableConfig { sizes: vec![2], ..cfg.clone() }, "sizes"),
        (QsTableConfig { sizes: vec![u32::MAX], ..cfg.clone() }, "sizes"),
        // 34% of 3 nodes rounds to 1 faulty (valid), 50% to 2: the source would be alone.
        (QsTableConfig { fault_percents: vec![50.0], sizes: vec![3], ..cfg.clone() }, "fault_percents"),
    ] {
        match qs_table::qs_table(&bad) {
            Err(PlanError::Param { param: p, .. }) => assert_eq!(p, param),
            other => panic!("{param}: {other:?}"),
        }
    }
}

/// 16 nodes, faults {2, 6, 10}, source 14: the groups [3,5], [7,9], [11,13] tie in size and level,
/// and the greedy takes the leftmost. From {14, 3, 4, 5} the next step meets a backward overlap
/// between [7,9] and [11,13] whose repair makes five groups for four holders, so [15,15] waits for
/// a third step. Algorithm 1 also tries [7,9] first and finishes in two.
#[test]
fn backtracking_beats_the_greedy_on_a_size_tie() {
    let net = net16();
    let dests = [0, 1, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15];
    let groups = net.decompose(&dests.map(e)).unwrap();
    assert_eq!(texts(&groups), ["[0, 1]", "[3, 5]", "[7, 9]", "[11, 13]", "[15, 15]"]);
    let greedy = qs_greedy::solve(&net, e(14), &groups).unwrap();
    assert_eq!(
        step_texts(&greedy),
        vec![vec!["[3, 5]"], vec!["[0, 1]", "[7, 9]", "[11, 11]", "[12, 13]"], vec!["[15, 15]"]]
    );
    let opt = qs_optimal::solve(&net, e(14), &groups, 1000).unwrap();
    assert_eq!((opt.greedy_depth, opt.tree.depth(), opt.proven), (3, 2, true));
    assert_eq!(step_texts(&opt.tree), vec![vec!["[7, 9]"], vec!["[0, 1]", "[3, 5]", "[11, 13]", "[15, 15]"]]);
    // The same through the schemes, checked on the fabric.
    let (f, r) = fabric(4, 2);
    for (scheme, steps) in [("qs_greedy", 3), ("qs_optimal", 2)] {
        let p = plan(&f, r.as_ref(), scheme, 14, &dests).unwrap();
        let rep = report(&f, r.as_ref(), &p);
        assert!(rep.ok(), "{scheme}: {rep:#?}");
        assert_eq!(rep.steps, steps, "{scheme}");
    }
    // A budget too small to finish keeps the greedy tree and says so.
    let cut = qs_optimal::solve(&net, e(14), &groups, 1).unwrap();
    assert_eq!((cut.tree.depth(), cut.proven), (3, false));
}
