//! Every registered scheme, on every kind of fabric it applies to, for random sources and groups:
//! the plan delivers exactly once with no decoding problem, and — where the scheme's paper claims
//! it for the fabric's base routing — conforms to that routing and is deadlock-free. New schemes are
//! covered by registering them; a scheme whose paper makes no such claim must be listed in
//! `claims_conformance` with the reason.

use mcastlab_core::check::Deadlock;
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, group::random_group, SchemeInput, SCHEMES};
use mcastlab_core::EndpointId;
use proptest::prelude::*;

/// Whether the scheme's paper claims that its carriers follow the fabric's base routing (and so
/// inherit its deadlock freedom). The exceptions, with the reason:
/// - S-torus and Mu-torus path worms follow the group's ranking, not dimension order (Robinson et
///   al. prove S-torus deadlock-free for their own path routing, oral §3);
/// - OpenSM's min-hop tree ignores the routing's turn restrictions (opensm.md §1.7); zhou07 uses it
///   on fat-trees only, where every tree path is up-then-down.
fn claims_conformance(scheme: &str, fabric: &str) -> bool {
    match scheme {
        "storus:variant=worm" | "mutorus:variant=worm" => false,
        "ib_opensm" => fabric.starts_with("mport_ntree"),
        _ => true,
    }
}

/// Every scheme spec to try: defaults, plus the worm variants of oral's path schemes.
fn specs() -> Vec<String> {
    let mut v: Vec<String> = SCHEMES.iter().map(|s| s.name.to_string()).collect();
    for s in SCHEMES {
        if s.params.contains("variant=sci|worm") {
            v.push(format!("{}:variant=worm", s.name));
        }
    }
    v
}

const FABRICS: &[&str] = &[
    "irregular:switches=8,ports=8,endpoints=24",
    "irregular:switches=12,ports=6,endpoints=20,connectivity=60",
    "torus:4x4",
    "mesh:3x4",
    "mport_ntree:m=4,n=3",
    "kary_ntree:k=2,n=4",
    "kary_ntree:k=4,n=2",
    "hypercube",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
    #[test]
    fn every_applicable_scheme_is_exact(fab in 0..FABRICS.len(), seed in 0u64..1000, pct in 5.0f64..100.0,
                                        src_pick in 0u32..1000, packets in 1u32..4) {
        let base = FABRICS[fab];
        let spec = if base.starts_with("irregular") { format!("{base},seed={}", seed % 50) } else { base.to_string() };
        let f = generate(&spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let src = EndpointId(src_pick % f.num_endpoints() as u32);
        let dests = random_group(&f, src, pct, seed).unwrap();
        let applicable = schemes::applicable(&f);
        let specs: Vec<String> =
            specs().into_iter().filter(|s| applicable.contains(&s.split(':').next().unwrap())).collect();
        let mut checked = 0;
        for scheme in &specs {
            let input = SchemeInput {
                fabric: &f, routing: &*r, source: src, destinations: &dests, packets,
                discipline: Discipline::NiFpfs,
            };
            // A scheme that applies to the fabric serves every group: a refusal fails (it used
            // to be skipped; none is refused).
            let plan = schemes::plan(&input, scheme)
                .map_err(|e| TestCaseError::fail(format!("{scheme} on {spec} refused the group: {e}")))?;
            let rep = check_plan(&f, &*r, &plan, &Default::default()).unwrap();
            checked += 1;
            prop_assert!(rep.exactly_once, "{scheme} on {spec}: dup {:?} missing {:?} extra {:?}",
                rep.duplicates, rep.missing, rep.extra);
            prop_assert!(rep.problems.is_empty(), "{scheme} on {spec}: {:?}", rep.problems);
            if claims_conformance(scheme, &spec) {
                prop_assert!(rep.conforms, "{scheme} on {spec}: {:?}", rep.nonconforming);
                prop_assert!(matches!(rep.deadlock, Deadlock::Free { .. }), "{scheme} on {spec}: {:?}", rep.deadlock);
            }
        }
        // Every applicable scheme was checked, and the unicast tree schemes apply everywhere.
        prop_assert_eq!(checked, specs.len(), "{}", spec);
        prop_assert!(checked >= 5, "only {checked} schemes checked on {spec}");
    }
}
