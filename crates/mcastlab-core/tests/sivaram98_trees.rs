//! sivaram98 §4: the step model, binomial vs linear trees (Fig. 7, 8), Lemma 4, Theorems 2 and 3,
//! and the plan checker on unicast trees.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::io::plan_json::read_plan;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions};
use mcastlab_core::plan::steps::steps;
use mcastlab_core::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::kbinomial::{auto_k, ceil_log2, n_covered, optimal_k, steps_needed};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::{EndpointId, PlanError};
use proptest::prelude::*;

fn fabric() -> (Fabric, Box<dyn Routing>) {
    let f = generate("irregular").unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
}

fn plan(f: &Fabric, r: &dyn Routing, scheme: &str, n_dest: u32, m: u32, d: Discipline) -> Plan {
    let dests: Vec<EndpointId> = (1..=n_dest).map(EndpointId).collect();
    let input =
        SchemeInput { fabric: f, routing: r, source: EndpointId(0), destinations: &dests, packets: m, discipline: d };
    schemes::plan(&input, scheme).unwrap()
}

#[test]
fn lemma4_values() {
    let v: Vec<u128> = (0..7).map(|s| n_covered(s, 2).unwrap()).collect();
    assert_eq!(v, vec![1, 2, 4, 7, 12, 20, 33]);
    assert_eq!(n_covered(5, 5).unwrap(), 32);
    assert_eq!(n_covered(4, 1).unwrap(), 5, "k = 1 is a chain: s + 1 nodes");
}

/// Past 128 bits N(s, k) used to come back as 2^128 − 1, silently capped; it is now an error
/// naming `s`, and the largest exact values are still returned (2^127 = N(127, k ≥ 127)).
#[test]
fn lemma4_refuses_values_past_128_bits_instead_of_capping_them() {
    assert_eq!(n_covered(127, 200).unwrap(), 1u128 << 127);
    for (s, k) in [(128, 200), (200, 128), (u32::MAX, 5)] {
        let e = n_covered(s, k).unwrap_err().to_string();
        assert!(e.starts_with("parameter `s`: ") && e.contains("2^128 - 1"), "{s} {k}: {e}");
    }
    // k = 1 (a chain) never overflows: s + 1.
    assert_eq!(n_covered(u32::MAX, 1).unwrap(), u32::MAX as u128 + 1);
}

#[test]
fn fig7_binomial_6_steps_linear_5() {
    let (f, r) = fabric();
    let b = plan(&f, r.as_ref(), "binomial", 3, 3, Discipline::NiFpfs);
    assert_eq!(steps(&b).unwrap().completion, 6);
    let c = plan(&f, r.as_ref(), "chain", 3, 3, Discipline::NiFpfs);
    assert_eq!(steps(&c).unwrap().completion, 5);
    // Theorem 3 picks the linear tree here: k = 1, L1 = 3, 3 + 2·1 = 5.
    assert_eq!(optimal_k(4, 3).unwrap(), (1, 3, 5));
    let k = plan(&f, r.as_ref(), "kbinomial", 3, 3, Discipline::NiFpfs);
    assert_eq!(steps(&k).unwrap().completion, 5);
}

#[test]
fn fig8_binomial_9_steps_optimum_k2_8_steps() {
    let (f, r) = fabric();
    let b = plan(&f, r.as_ref(), "binomial", 7, 3, Discipline::NiFpfs);
    assert_eq!(steps(&b).unwrap().completion, 3 + (3 - 1) * 3);
    assert_eq!(optimal_k(8, 3).unwrap(), (2, 4, 8));
    assert_eq!(steps_needed(8, 1).unwrap() + 2, 9);
    assert_eq!(steps_needed(8, 3).unwrap() + 2 * 3, 9);
    let k = plan(&f, r.as_ref(), "kbinomial", 7, 3, Discipline::NiFpfs);
    assert_eq!(k.transmissions.iter().filter(|t| t.sender == EndpointId(0)).count(), 2);
    assert_eq!(steps(&k).unwrap().completion, 8);
}

#[test]
fn single_packet_smart_ni_takes_ceil_log2_steps() {
    let (f, r) = fabric();
    for n_dest in 1..31 {
        let b = plan(&f, r.as_ref(), "binomial", n_dest, 1, Discipline::NiFpfs);
        let n = n_dest as u64 + 1;
        assert_eq!(steps(&b).unwrap().completion, 64 - (n - 1).leading_zeros() as u64, "n = {n}");
    }
}

#[test]
fn forwarding_disciplines_in_the_step_model() {
    let (f, r) = fabric();
    let fp = steps(&plan(&f, r.as_ref(), "binomial", 7, 4, Discipline::NiFpfs)).unwrap().completion;
    let fc = steps(&plan(&f, r.as_ref(), "binomial", 7, 4, Discipline::NiFcfs)).unwrap().completion;
    let host = steps(&plan(&f, r.as_ref(), "binomial", 7, 4, Discipline::Host)).unwrap().completion;
    // On a binomial tree the root's sends are the bottleneck under every discipline: L1 + (m-1)·δr
    // = 3 + 3·3 = 12 (sivaram98 prefers FPFS for its buffer needs, §4.2.3, not for latency here).
    assert_eq!((fp, fc), (12, 12));
    // Host-level store and forward, by hand: the root sends its 3 children 4 packets each (steps
    // 1-12); its first child forwards after step 4 to two children (5-8, 9-12); every last send
    // ends at step 12.
    assert_eq!(host, 12);
    // A chain shows the difference: FPFS pipelines (n-1) + (m-1) = 10, host-level 7·4 = 28.
    let fp = steps(&plan(&f, r.as_ref(), "chain", 7, 4, Discipline::NiFpfs)).unwrap().completion;
    let host = steps(&plan(&f, r.as_ref(), "chain", 7, 4, Discipline::Host)).unwrap().completion;
    assert_eq!((fp, host), (10, 28));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Theorem 2: under FPFS a k-binomial tree completes in L1 + (m−1)·δr steps.
    #[test]
    fn theorem2_pipelined_completion(n_dest in 1u32..31, m in 1u32..8, k in 1u32..6) {
        let (f, r) = fabric();
        let p = plan(&f, r.as_ref(), &format!("kbinomial:k={k}"), n_dest, m, Discipline::NiFpfs);
        let n = n_dest as u64 + 1;
        let l1 = steps_needed(n, k).unwrap() as u64;
        let root = p.transmissions.iter().filter(|t| t.sender == EndpointId(0)).count() as u64;
        prop_assert_eq!(steps(&p).unwrap().completion, l1 + (m as u64 - 1) * root);
    }
}

/// Every plane tree shape with `n` nodes, as lists of (parent, child) in BFS-compatible order.
fn shapes(n: usize) -> Vec<Vec<Vec<usize>>> {
    // A tree = ordered list of child subtrees; represent as children lists over preorder ids.
    fn forests(n: usize) -> Vec<Vec<usize>> {
        // Compositions of n into ordered subtree sizes.
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for first in 1..=n {
            for rest in forests(n - first) {
                let mut v = vec![first];
                v.extend(rest);
                out.push(v);
            }
        }
        out
    }
    fn trees(n: usize) -> Vec<Vec<Vec<usize>>> {
        // children[i] = child preorder ids of node i (node 0 = root).
        let mut out = Vec::new();
        for sizes in forests(n - 1) {
            let mut partial: Vec<Vec<Vec<usize>>> = vec![vec![vec![]]];
            let mut offset = 1;
            for &sz in &sizes {
                let mut next = Vec::new();
                for t in &partial {
                    for sub in trees(sz) {
                        let mut t2 = t.clone();
                        t2[0].push(offset);
                        for (i, ch) in sub.iter().enumerate() {
                            while t2.len() <= offset + i {
                                t2.push(vec![]);
                            }
                            t2[offset + i] = ch.iter().map(|c| c + offset).collect();
                        }
                        next.push(t2);
                    }
                }
                partial = next;
                offset += sz;
            }
            for mut t in partial {
                t.resize(n, vec![]);
                out.push(t);
            }
        }
        out
    }
    trees(n)
}

fn steps_of_shape(f: &Fabric, children: &[Vec<usize>], m: u32) -> u64 {
    let n = children.len();
    let mut tx = Vec::new();
    let mut got: Vec<Option<u32>> = vec![None; n];
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(v) = queue.pop_front() {
        for &c in &children[v] {
            let trigger = match got[v] {
                None => Trigger::Start,
                Some(from) => Trigger::PerPacket { from },
            };
            tx.push(Transmission {
                sender: EndpointId(v as u32),
                trigger,
                carrier: Carrier::Unicast { dst: EndpointId(c as u32) },
                delivers: vec![EndpointId(c as u32)],
            });
            got[c] = Some(tx.len() as u32 - 1);
            queue.push_back(c);
        }
    }
    let dests = (1..n as u32).map(EndpointId).collect();
    let p = Plan::from_transmissions(f, "custom", EndpointId(0), dests, m, Discipline::NiFpfs, tx).unwrap();
    steps(&p).unwrap().completion
}

/// Theorem 3 against a brute force over every tree, restricted as in the paper's model to trees
/// in which no vertex has more children than the root (§4.3.2).
#[test]
fn theorem3_matches_brute_force() {
    let (f, _) = fabric();
    for n in 2..=8usize {
        let all = shapes(n);
        for m in 1..=5u32 {
            let mut best_restricted = u64::MAX;
            let mut best_any = u64::MAX;
            for t in &all {
                let s = steps_of_shape(&f, t, m);
                best_any = best_any.min(s);
                let root = t[0].len();
                if t.iter().all(|c| c.len() <= root) {
                    best_restricted = best_restricted.min(s);
                }
            }
            let (_, _, total) = optimal_k(n as u64, m).unwrap();
            assert_eq!(total, best_restricted, "n = {n}, m = {m}");
            assert!(best_any <= total, "n = {n}, m = {m}");
        }
    }
}

#[test]
fn plan_checker_on_unicast_trees() {
    let (f, r) = fabric();
    for scheme in ["separate", "chain", "binary", "binomial", "kbinomial"] {
        let p = plan(&f, r.as_ref(), scheme, 20, 2, Discipline::NiFpfs);
        let rep = check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap();
        assert!(rep.exactly_once && rep.conforms, "{scheme}: {rep:?}");
        assert!(rep.ok(), "{scheme}");
        assert_eq!(rep.messages, 20);
        assert_eq!(rep.packets_sent, 40);
        assert!(rep.link_visits >= 40 * 2, "every packet crosses at least two links");
        // Round trip through JSON.
        let back = read_plan(&p.to_json(), "p.json", &f).unwrap();
        assert_eq!(back, p);
    }
    let sep =
        check_plan(&f, r.as_ref(), &plan(&f, r.as_ref(), "separate", 20, 1, Discipline::NiFpfs), &Default::default())
            .unwrap();
    assert_eq!((sep.root_fanout, sep.steps), (20, 20));
}

#[test]
fn checker_finds_duplicates_and_misses() {
    let (f, r) = fabric();
    let u = |s: u32, d: u32, trigger: Trigger| Transmission {
        sender: EndpointId(s),
        trigger,
        carrier: Carrier::Unicast { dst: EndpointId(d) },
        delivers: vec![EndpointId(d)],
    };
    let tx = vec![u(0, 1, Trigger::Start), u(0, 2, Trigger::Start), u(1, 2, Trigger::PerPacket { from: 0 })];
    let dests = vec![EndpointId(1), EndpointId(2), EndpointId(3)];
    let p = Plan::from_transmissions(&f, "custom", EndpointId(0), dests, 1, Discipline::NiFpfs, tx).unwrap();
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(!rep.exactly_once && !rep.ok());
    assert_eq!(rep.duplicates, vec![(f.endpoint(EndpointId(2)).name.clone(), 2)]);
    assert_eq!(rep.missing, vec![f.endpoint(EndpointId(3)).name.clone()]);
}

#[test]
fn bad_groups_and_plans_are_errors() {
    let (f, r) = fabric();
    let mk = |src: u32, dests: Vec<u32>| {
        let d: Vec<EndpointId> = dests.into_iter().map(EndpointId).collect();
        let input = SchemeInput {
            fabric: &f,
            routing: r.as_ref(),
            source: EndpointId(src),
            destinations: &d,
            packets: 1,
            discipline: Discipline::NiFpfs,
        };
        schemes::plan(&input, "binomial").map(|_| ())
    };
    assert!(matches!(mk(0, vec![]), Err(PlanError::Group(m)) if m.contains("empty")));
    assert!(matches!(mk(0, vec![0, 1]), Err(PlanError::Group(m)) if m.contains("source")));
    assert!(matches!(mk(0, vec![99]), Err(PlanError::Group(m)) if m.contains("not in the fabric")));
    assert!(matches!(mk(0, vec![1, 1]), Err(PlanError::Group(m)) if m.contains("twice")));
    let d = vec![EndpointId(1)];
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &d,
        packets: 1,
        discipline: Discipline::NiFpfs,
    };
    assert!(schemes::plan(&input, "nosuch").unwrap_err().to_string().contains("unknown scheme"));
    assert!(schemes::plan(&input, "kbinomial:k=0").unwrap_err().to_string().contains("k"));
    assert!(read_plan("{", "p.json", &f).unwrap_err().to_string().starts_with("p.json:"));
    // A forwarder that never received the message.
    let tx = vec![Transmission {
        sender: EndpointId(5),
        trigger: Trigger::PerPacket { from: 0 },
        carrier: Carrier::Unicast { dst: EndpointId(1) },
        delivers: vec![EndpointId(1)],
    }];
    assert!(Plan::from_transmissions(&f, "custom", EndpointId(0), d.clone(), 1, Discipline::NiFpfs, tx).is_err());
}

/// Without `k=`, kbinomial takes the k whose tree completes first in the step model for the
/// discipline in use (not Theorem 3's FPFS k everywhere): checked by running the step model on
/// the plan of every candidate k.
#[test]
fn automatic_k_is_the_step_model_optimum_for_each_discipline() {
    let (f, r) = fabric();
    for d in [Discipline::Host, Discipline::NiFcfs, Discipline::NiFpfs] {
        for n_dest in [2u32, 5, 12, 20, 31] {
            for m in [1u32, 3, 8] {
                let n = n_dest as u64 + 1;
                let by_k: Vec<u64> = (1..=ceil_log2(n))
                    .map(|k| {
                        steps(&plan(&f, r.as_ref(), &format!("kbinomial:k={k}"), n_dest, m, d)).unwrap().completion
                    })
                    .collect();
                let best = *by_k.iter().min().unwrap();
                let k = auto_k(n, m, d).unwrap().get();
                assert_eq!(by_k[k as usize - 1], best, "{d:?} n={n} m={m}: k={k}, completions by k {by_k:?}");
                // Ties go to the smaller k.
                assert!(by_k[..k as usize - 1].iter().all(|&c| c > best), "{d:?} n={n} m={m}: {by_k:?}");
                let auto = plan(&f, r.as_ref(), "kbinomial", n_dest, m, d);
                assert!(auto.scheme.starts_with(&format!("kbinomial:k={k},")), "{}", auto.scheme);
            }
        }
    }
    // Host forwarding with long messages: binomial depth, not Theorem 3's chain (k = 1).
    assert_eq!(optimal_k(13, 1024).unwrap().0, 1);
    assert_eq!(steps_needed(13, auto_k(13, 1024, Discipline::Host).unwrap().get()).unwrap(), ceil_log2(13));
}
