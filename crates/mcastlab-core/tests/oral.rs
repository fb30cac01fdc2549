//! oral §3 on the 4×4 torus: the U-torus example (Φ′, center rank 5, the two subsets), the S-torus
//! Hamiltonian rankings Θ and Θ′, and the four torus schemes' plans.

use mcastlab_core::check::Deadlock;
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::{Carrier, Discipline, Plan};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::torus_order::{hamiltonian_rank, theta_prime};
use mcastlab_core::schemes::{self, order};
use mcastlab_core::{EndpointId, PlanError};

mod common;

/// oral's 1-based `(σ1, σ0)` on a 4-ary torus → endpoint index.
fn e(s1: u32, s0: u32) -> EndpointId {
    EndpointId((s0 - 1) + 4 * (s1 - 1))
}

fn group() -> (EndpointId, Vec<EndpointId>) {
    let all = [(1, 1), (1, 2), (1, 3), (2, 2), (2, 4), (3, 1), (3, 3), (4, 1), (4, 2), (4, 4)];
    let root = e(2, 2);
    (root, all.iter().map(|&(a, b)| e(a, b)).filter(|x| *x != root).collect())
}

fn torus() -> (Fabric, Box<dyn Routing>) {
    let f = generate("torus:4x4").unwrap();
    let r = routing::build(&f, None).unwrap();
    (f, r)
}

fn plan(f: &Fabric, r: &dyn Routing, scheme: &str, src: EndpointId, dests: &[EndpointId]) -> Result<Plan, PlanError> {
    common::scheme_plan(f, r, scheme, src, dests, 1, Discipline::NiFpfs)
}

fn dst(p: &Plan, i: usize) -> EndpointId {
    match p.transmissions[i].carrier {
        Carrier::Unicast { dst } => dst,
        ref c => panic!("expected a unicast, got {c:?}"),
    }
}

#[test]
fn phi_prime_is_the_rotated_dimension_order() {
    let (root, dests) = group();
    let phi = order::chain(root, &dests, "index").unwrap();
    let expect = [(2, 2), (2, 4), (3, 1), (3, 3), (4, 1), (4, 2), (4, 4), (1, 1), (1, 2), (1, 3)];
    assert_eq!(phi, expect.iter().map(|&(a, b)| e(a, b)).collect::<Vec<_>>());
}

#[test]
fn utorus_first_step_goes_to_center_rank_5_and_splits_the_subsets() {
    let (f, r) = torus();
    let (root, dests) = group();
    let p = plan(&f, r.as_ref(), "utorus", root, &dests).unwrap();
    // center = 0 + ceil((9 - 0 + 1) / 2) = 5: node (4,2).
    assert_eq!(p.transmissions[0].sender, root);
    assert_eq!(dst(&p, 0), e(4, 2));
    // Who covers whom: the descendants of (4,2) are exactly {(4,4),(1,1),(1,2),(1,3)}.
    let mut covered = vec![e(4, 2)];
    for (i, t) in p.transmissions.iter().enumerate() {
        if covered.contains(&t.sender) && i > 0 {
            covered.push(dst(&p, i));
        }
    }
    covered.sort();
    let mut expect: Vec<_> = [(4, 2), (4, 4), (1, 1), (1, 2), (1, 3)].iter().map(|&(a, b)| e(a, b)).collect();
    expect.sort();
    assert_eq!(covered, expect);
    let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
    assert!(rep.ok());
    assert_eq!(rep.steps, 4, "⌈log2 10⌉ steps");
}

#[test]
fn storus_rankings_theta_and_theta_prime() {
    let ranks = [
        ((1, 3), 4),
        ((1, 1), 6),
        ((1, 2), 7),
        ((2, 2), 8),
        ((2, 4), 10),
        ((3, 1), 12),
        ((3, 3), 14),
        ((4, 4), 16),
        ((4, 1), 17),
        ((4, 2), 18),
    ];
    for ((s1, s0), l) in ranks {
        assert_eq!(hamiltonian_rank(4, s0 - 1, s1 - 1), l, "({s1},{s0})");
    }
    let (f, r) = torus();
    let (root, dests) = group();
    let theta = theta_prime(&f, root, &dests).unwrap();
    let expect = [(2, 2), (2, 4), (3, 1), (3, 3), (4, 4), (4, 1), (4, 2), (1, 3), (1, 1), (1, 2)];
    assert_eq!(theta, expect.iter().map(|&(a, b)| e(a, b)).collect::<Vec<_>>());
    // The SCI variant re-sends along Θ′: a chain of 9 unicasts, 9 steps.
    let p = plan(&f, r.as_ref(), "storus", root, &dests).unwrap();
    let order: Vec<_> = (0..p.transmissions.len()).map(|i| dst(&p, i)).collect();
    assert_eq!(order, theta[1..].to_vec());
    assert_eq!(check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap().steps, 9);
}

#[test]
fn md_and_mu_torus_partition_the_group() {
    let (f, r) = torus();
    let src = EndpointId(0);
    let dests: Vec<_> = (1..16).map(EndpointId).collect();
    // Md-torus on a full 4x4 broadcast: the source sends to the heads of the three other rows,
    // then each row is a path of 3 hops.
    let md = plan(&f, r.as_ref(), "mdtorus", src, &dests).unwrap();
    let heads: Vec<_> =
        md.transmissions.iter().enumerate().filter(|(_, t)| t.sender == src).map(|(i, _)| dst(&md, i)).collect();
    assert_eq!(heads, vec![EndpointId(4), EndpointId(8), EndpointId(12), EndpointId(1)]);
    let rep = check_plan(&f, r.as_ref(), &md, &Default::default()).unwrap();
    assert!(rep.ok());
    // Mu-torus, r = 4: partitions of 4 consecutive nodes, the same heads here.
    let mu = plan(&f, r.as_ref(), "mutorus:r=4", src, &dests).unwrap();
    let heads_mu: Vec<_> =
        mu.transmissions.iter().enumerate().filter(|(_, t)| t.sender == src).map(|(i, _)| dst(&mu, i)).collect();
    assert_eq!(heads_mu, heads);
    assert!(check_plan(&f, r.as_ref(), &mu, &Default::default()).unwrap().ok());
    // r = 1 is separate addressing.
    let sep = plan(&f, r.as_ref(), "mutorus:r=1", src, &dests).unwrap();
    assert!(sep.transmissions.iter().all(|t| t.sender == src));
}

#[test]
fn torus_schemes_are_exact_on_random_groups() {
    for spec in ["torus:4x4", "torus:5x5", "torus:3x4x2", "mesh:4x3"] {
        let f = generate(spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let n = f.num_endpoints() as u32;
        for seed in 0..6u64 {
            let src = EndpointId((seed as u32 * 7) % n);
            let dests = schemes::group::random_group(&f, src, 20.0 + 13.0 * seed as f64, seed).unwrap();
            for scheme in ["utorus", "storus", "mdtorus", "mutorus:r=3"] {
                match plan(&f, r.as_ref(), scheme, src, &dests) {
                    Ok(p) => {
                        let rep = check_plan(&f, r.as_ref(), &p, &Default::default()).unwrap();
                        assert!(rep.ok(), "{spec} {scheme}: {rep:?}");
                    }
                    Err(PlanError::NotApplicable { .. }) => {
                        assert!(scheme == "storus" && spec != "torus:4x4" && spec != "torus:5x5")
                    }
                    Err(e) => panic!("{spec} {scheme}: {e}"),
                }
            }
        }
    }
}

#[test]
fn torus_schemes_refuse_other_fabrics() {
    let f = generate("irregular").unwrap();
    let r = routing::build(&f, None).unwrap();
    let err = plan(&f, r.as_ref(), "utorus", EndpointId(0), &[EndpointId(1)]).unwrap_err().to_string();
    assert!(err.contains("does not apply") && err.contains("kbinomial"), "{err}");
}

#[test]
fn path_schemes_as_worms_cover_the_group_with_fewer_messages() {
    let (f, r) = torus();
    let (root, dests) = group();
    for scheme in ["storus", "mdtorus", "mutorus:r=4"] {
        let sep = if scheme.contains(':') { "," } else { ":" };
        let sci = plan(&f, &*r, &format!("{scheme}{sep}variant=sci"), root, &dests).unwrap();
        let worm = plan(&f, &*r, &format!("{scheme}{sep}variant=worm"), root, &dests).unwrap();
        let rs = check_plan(&f, &*r, &sci, &Default::default()).unwrap();
        let rw = check_plan(&f, &*r, &worm, &Default::default()).unwrap();
        assert!(rs.exactly_once && rw.exactly_once, "{scheme}: {:?} {:?}", rw.duplicates, rw.missing);
        assert!(rw.problems.is_empty(), "{scheme}: {:?}", rw.problems);
        assert!(rw.worms > 0 && rs.worms == 0, "{scheme}");
        assert!(rw.messages < rs.messages, "{scheme}: {} worm messages vs {} SCI", rw.messages, rs.messages);
        assert!(rw.steps <= rs.steps, "{scheme}");
    }
    // S-torus: one worm along Θ′ reaches all nine destinations in one step.
    let worm = plan(&f, &*r, "storus:variant=worm", root, &dests).unwrap();
    assert_eq!(worm.transmissions.len(), 1);
    let Carrier::Path { dests: along } = &worm.transmissions[0].carrier else { panic!("a path worm") };
    assert_eq!(along.as_slice(), &theta_prime(&f, root, &dests).unwrap()[1..]);
    assert_eq!(check_plan(&f, &*r, &worm, &Default::default()).unwrap().steps, 1);
}

/// The Θ′ path turns from dimension 1 back to dimension 0, which dimension-order routing never
/// does: the worm does not conform to the fabric's base routing and, added to its dependencies,
/// closes a cycle. Robinson et al. prove S-torus deadlock-free for their own path routing, not
/// for DOR; mcastlab checks against the fabric's routing and says so. Md-torus worms stay within
/// rings (dimension 0) and conform.
#[test]
fn storus_worm_leaves_dimension_order_and_mdtorus_worms_do_not() {
    let (f, r) = torus();
    let (root, dests) = group();
    let s =
        check_plan(&f, &*r, &plan(&f, &*r, "storus:variant=worm", root, &dests).unwrap(), &Default::default()).unwrap();
    assert!(!s.conforms);
    assert!(s.nonconforming.iter().any(|m| m.contains("is not a turn of dor")), "{:?}", s.nonconforming);
    assert!(matches!(s.deadlock, Deadlock::Cycle { ref cycle, .. } if cycle.len() >= 2), "{:?}", s.deadlock);
    let m = check_plan(&f, &*r, &plan(&f, &*r, "mdtorus:variant=worm", root, &dests).unwrap(), &Default::default())
        .unwrap();
    assert!(m.ok(), "{:?} {:?}", m.nonconforming, m.deadlock);
}

#[test]
fn unknown_variant_is_an_error_naming_it() {
    let (f, r) = torus();
    let (root, dests) = group();
    let e = plan(&f, &*r, "storus:variant=hologram", root, &dests).unwrap_err().to_string();
    assert!(e.contains("variant"), "{e}");
}
