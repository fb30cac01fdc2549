//! Separable allocators with round-robin pointers, shared by the iq router's VC allocation (input
//! VCs × output VCs) and switch allocation (input ports × output ports) stages.
//!
//! A stage hands over its requests of one cycle — requester and resource as indices local to the
//! router — and the pointers of that router; the allocator returns the winning requests. One
//! iteration only (BookSim's `alloc_iters = 1`): a requester that loses stays unmatched this cycle
//! even if a resource it wanted stays free. Round robin here means: of the candidates, the one
//! whose index comes first counting up (wrapping) from the pointer.
//!
//! Pointers move only when a match is made, to one past the partner: that is what makes iSLIP's
//! grant pointers desynchronize under load, so that a saturated allocator reaches a full match.

use crate::sim::params::Allocator;
use masks::match_masks;
pub(super) use masks::{choose_round, first_after};

mod masks;

/// One request: `req` wants `res`; `a` and `b` say what it stands for to the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Request {
    pub req: u32,
    pub res: u32,
    pub a: u32,
    pub b: u32,
}

/// Per-requester and per-resource choices (a request's index), kept between calls so a cycle
/// allocates nothing. Every entry is empty between calls; the touched lists say which to reset.
pub(crate) struct Scratch {
    by_res: Vec<Option<u32>>,
    by_req: Vec<Option<u32>>,
    res_touched: Vec<u32>,
    req_touched: Vec<u32>,
    /// The mask path's requesters per resource, grants per requester, and request index per
    /// (resource, requester) pair (all below 64): an entry is meaningful only for the resources
    /// and requesters of the current call, which set it before they read it, so none is ever
    /// cleared.
    asking: [u64; 64],
    grants: [u64; 64],
    index: [u8; 64 * 64],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            by_res: Vec::new(),
            by_req: Vec::new(),
            res_touched: Vec::new(),
            req_touched: Vec::new(),
            asking: [0; 64],
            grants: [0; 64],
            index: [0; 64 * 64],
        }
    }
}

impl Scratch {
    fn fit(&mut self, n_req: u32, n_res: u32) {
        if self.by_req.len() < n_req as usize {
            self.by_req.resize(n_req as usize, None);
        }
        if self.by_res.len() < n_res as usize {
            self.by_res.resize(n_res as usize, None);
        }
    }
}

/// How far `x` lies after pointer `p` in a round-robin order of `n` places.
#[inline]
pub(crate) fn after(x: u32, p: u32, n: u32) -> u32 {
    if x >= p {
        x - p
    } else {
        x + n - p
    }
}

/// The place after `x` in a round-robin order of `n` places.
#[inline]
pub(crate) fn next(x: u32, n: u32) -> u32 {
    // Without a branch: whether a pointer wraps is data (cachegrind's model mispredicted the
    // test 0.76 M times at mesh 0.3).
    let y = x + 1;
    y * u32::from(y != n)
}

/// Keeps in `slot` whichever of the request already there and request `k` comes first after `p`
/// by `key`; returns whether the slot was empty before.
#[inline]
fn keep_first(slot: &mut Option<u32>, k: u32, reqs: &[Request], key: impl Fn(&Request) -> u32, p: u32, n: u32) -> bool {
    let Some(there) = *slot else {
        *slot = Some(k);
        return true;
    };
    if after(key(&reqs[k as usize]), p, n) < after(key(&reqs[there as usize]), p, n) {
        *slot = Some(k);
    }
    false
}

/// Matches `reqs` (at most one per requester and resource pair) with `kind`; pushes the indices
/// of the winning requests onto `winners` and moves the pointers of the matched requesters
/// (`req_ptr`, over resources) and resources (`res_ptr`, over requesters).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn allocate(
    kind: Allocator,
    reqs: &[Request],
    n_req: u32,
    n_res: u32,
    req_ptr: &mut [u32],
    res_ptr: &mut [u32],
    s: &mut Scratch,
    winners: &mut Vec<u32>,
) {
    match reqs {
        [] => {}
        [r] => {
            // A lone request wins under every allocator (the common case: handled inline).
            req_ptr[r.req as usize] = next(r.res, n_res);
            res_ptr[r.res as usize] = next(r.req, n_req);
            winners.push(0);
        }
        [a, b] if n_req <= 64 && n_res <= 64 => match_pair(a, b, n_req, n_res, req_ptr, res_ptr, winners),
        _ => match_many(kind, reqs, n_req, n_res, req_ptr, res_ptr, s, winners),
    }
}

/// [`allocate`] for two requests `a` and `b` (the common case of a busy router: two inputs
/// bidding in SA), without the general machinery. Every allocator agrees on two requests: from
/// one requester, it takes the first resource after its pointer; for one resource, the resource
/// takes the first requester after its pointer; otherwise both win, listed by resource as
/// [`match_many`] lists them for up to 64 requesters and resources (the order the winners cross
/// the crossbar in is part of a run's results).
#[inline(always)]
fn match_pair(
    a: &Request,
    b: &Request,
    n_req: u32,
    n_res: u32,
    req_ptr: &mut [u32],
    res_ptr: &mut [u32],
    winners: &mut Vec<u32>,
) {
    // The winners, by index in [a, b]: (first, second or none).
    let (first, second) = if a.req == b.req {
        let p = req_ptr[a.req as usize];
        (u32::from(after(b.res, p, n_res) < after(a.res, p, n_res)), None)
    } else if a.res == b.res {
        let p = res_ptr[a.res as usize];
        (u32::from(after(b.req, p, n_req) < after(a.req, p, n_req)), None)
    } else if a.res < b.res {
        (0, Some(1))
    } else {
        (1, Some(0))
    };
    for k in std::iter::once(first).chain(second) {
        let r = if k == 0 { a } else { b };
        req_ptr[r.req as usize] = next(r.res, n_res);
        res_ptr[r.res as usize] = next(r.req, n_req);
        winners.push(k);
    }
}

/// [`allocate`] for two requests or more.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn match_many(
    kind: Allocator,
    reqs: &[Request],
    n_req: u32,
    n_res: u32,
    req_ptr: &mut [u32],
    res_ptr: &mut [u32],
    s: &mut Scratch,
    winners: &mut Vec<u32>,
) {
    if reqs.len() <= 256
        && n_req <= 64
        && n_res <= 64
        && match_masks(kind, reqs, n_req, n_res, req_ptr, res_ptr, s, winners)
    {
        return;
    }
    if reqs.iter().all(|r| r.req == reqs[0].req) {
        // One requester (a head asking for any of its VCs): whichever allocator, every resource
        // grants it, or it first picks, so it takes the first of them after its own pointer.
        let p = req_ptr[reqs[0].req as usize];
        let k = (0..reqs.len()).min_by_key(|&k| after(reqs[k].res, p, n_res)).expect("two requests or more");
        let r = reqs[k];
        req_ptr[r.req as usize] = next(r.res, n_res);
        res_ptr[r.res as usize] = next(r.req, n_req);
        winners.push(k as u32);
        return;
    }
    s.fit(n_req, n_res);
    match kind {
        Allocator::Islip => {
            // Grant: every resource picks a requester; accept: every requester picks a grant.
            for (k, r) in reqs.iter().enumerate() {
                let p = res_ptr[r.res as usize];
                if keep_first(&mut s.by_res[r.res as usize], k as u32, reqs, |q| q.req, p, n_req) {
                    s.res_touched.push(r.res);
                }
            }
            for &res in &s.res_touched {
                let k = s.by_res[res as usize].expect("a touched resource has a choice");
                let q = reqs[k as usize].req;
                if keep_first(&mut s.by_req[q as usize], k, reqs, |q| q.res, req_ptr[q as usize], n_res) {
                    s.req_touched.push(q);
                }
            }
        }
        Allocator::InputFirst => {
            // Every requester picks one request, then every resource one of those.
            for (k, r) in reqs.iter().enumerate() {
                let p = req_ptr[r.req as usize];
                if keep_first(&mut s.by_req[r.req as usize], k as u32, reqs, |q| q.res, p, n_res) {
                    s.req_touched.push(r.req);
                }
            }
            for &q in &s.req_touched {
                let k = s.by_req[q as usize].expect("a touched requester has a choice");
                let res = reqs[k as usize].res;
                if keep_first(&mut s.by_res[res as usize], k, reqs, |q| q.req, res_ptr[res as usize], n_req) {
                    s.res_touched.push(res);
                }
            }
            // The winners are the resources' choices; recast them per requester.
            for &q in &s.req_touched {
                s.by_req[q as usize] = None;
            }
            s.req_touched.clear();
            for &res in &s.res_touched {
                let k = s.by_res[res as usize].expect("a touched resource has a choice");
                let q = reqs[k as usize].req;
                s.by_req[q as usize] = Some(k);
                s.req_touched.push(q);
            }
        }
    }
    for &q in &s.req_touched {
        let k = s.by_req[q as usize].expect("a touched requester has a choice");
        let r = reqs[k as usize];
        req_ptr[q as usize] = next(r.res, n_res);
        res_ptr[r.res as usize] = next(q, n_req);
        winners.push(k);
        s.by_req[q as usize] = None;
    }
    for &res in &s.res_touched {
        s.by_res[res as usize] = None;
    }
    s.req_touched.clear();
    s.res_touched.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_pairs(n: u32) -> Vec<Request> {
        (0..n).flat_map(|i| (0..n).map(move |o| Request { req: i, res: o, a: 0, b: 0 })).collect()
    }

    fn run(kind: Allocator, reqs: &[Request], n: u32, rp: &mut [u32], sp: &mut [u32]) -> Vec<(u32, u32)> {
        let mut s = Scratch::default();
        let mut w = Vec::new();
        allocate(kind, reqs, n, n, rp, sp, &mut s, &mut w);
        let mut m: Vec<(u32, u32)> = w.iter().map(|&k| (reqs[k as usize].req, reqs[k as usize].res)).collect();
        m.sort_unstable();
        m
    }

    #[test]
    fn islip_desynchronizes_to_a_full_match() {
        // Everyone wants everything: in the first cycle both outputs grant input 0, which accepts
        // output 0 only; then output 0's pointer has moved past input 0 and output 1's has not,
        // so the second cycle is a full match.
        let reqs = all_pairs(2);
        let (mut rp, mut sp) = (vec![0; 2], vec![0; 2]);
        assert_eq!(run(Allocator::Islip, &reqs, 2, &mut rp, &mut sp), vec![(0, 0)]);
        assert_eq!((rp.clone(), sp.clone()), (vec![1, 0], vec![1, 0]));
        assert_eq!(run(Allocator::Islip, &reqs, 2, &mut rp, &mut sp), vec![(0, 1), (1, 0)]);
        assert_eq!(run(Allocator::Islip, &reqs, 2, &mut rp, &mut sp).len(), 2, "stays matched");
    }

    #[test]
    fn unaccepted_grants_leave_the_pointers_alone() {
        // Output 1 grants input 0, which prefers output 0: output 1's pointer does not move.
        let reqs = all_pairs(2);
        let (mut rp, mut sp) = (vec![0; 2], vec![0; 2]);
        run(Allocator::Islip, &reqs, 2, &mut rp, &mut sp);
        assert_eq!(sp[1], 0);
    }

    #[test]
    fn input_first_lets_each_requester_choose_first() {
        // Input pointers both at output 1: both pick output 1, which takes input 0 (its pointer).
        let reqs = all_pairs(2);
        let (mut rp, mut sp) = (vec![1, 1], vec![0, 0]);
        assert_eq!(run(Allocator::InputFirst, &reqs, 2, &mut rp, &mut sp), vec![(0, 1)]);
        assert_eq!((rp, sp), (vec![0, 1], vec![0, 1]));
    }

    #[test]
    fn a_lone_requester_takes_the_first_resource_after_its_pointer() {
        // Requester 1 asks for resources 0, 2 and 3; its pointer is at 3, so it gets 3 (iSLIP:
        // all three grant it; input-first: it picks 3), and both pointers move past the match.
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            let reqs: Vec<Request> = [0, 2, 3].iter().map(|&res| Request { req: 1, res, a: 0, b: 0 }).collect();
            let (mut rp, mut sp) = (vec![0, 3, 0, 0], vec![0, 0, 0, 0]);
            assert_eq!(run(kind, &reqs, 4, &mut rp, &mut sp), vec![(1, 3)], "{kind:?}");
            assert_eq!((rp, sp), (vec![0, 0, 0, 0], vec![0, 0, 0, 2]), "{kind:?}");
        }
    }

    /// A seeded stream of numbers below the argument (an LCG: the tests need variety, not quality).
    fn numbers(seed: u64) -> impl FnMut(u32) -> u32 {
        let mut x = seed;
        move |n| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % n as u64) as u32
        }
    }

    /// A random case on `n` requesters and resources, in random order: by `round`, requests of
    /// one requester, one request per requester, or any (now and then up to 60 tries, past the
    /// small paths), and random pointers of both sides.
    fn random_case(rnd: &mut impl FnMut(u32) -> u32, n: u32, round: u32) -> (Vec<Request>, Vec<u32>, Vec<u32>) {
        let (lone, distinct, fixed) = (round % 4 == 1, round % 4 == 2, rnd(n));
        let mut reqs: Vec<Request> = Vec::new();
        for _ in 0..rnd(if round % 8 == 7 { 60 } else { 12 }) + 1 {
            let q = if lone { fixed } else { rnd(n) };
            let r = rnd(n);
            if !reqs.iter().any(|o| o.req == q && (o.res == r || distinct)) {
                reqs.push(Request { req: q, res: r, a: 0, b: 0 });
            }
        }
        let rp = (0..n).map(|_| rnd(n)).collect();
        let sp = (0..n).map(|_| rnd(n)).collect();
        (reqs, rp, sp)
    }

    /// Both sides' pointers move one past the partner of each match `(requester, resource)`.
    fn move_past(m: &[(u32, u32)], n: u32, rp: &mut [u32], sp: &mut [u32]) {
        for &(q, r) in m {
            rp[q as usize] = (r + 1) % n;
            sp[r as usize] = (q + 1) % n;
        }
    }

    /// iSLIP and input-first written out directly from their definitions, for comparison.
    fn reference(kind: Allocator, reqs: &[Request], n: u32, rp: &mut [u32], sp: &mut [u32]) -> Vec<(u32, u32)> {
        let asks = |q: u32, r: u32| reqs.iter().any(|x| x.req == q && x.res == r);
        let first_after = |cands: Vec<u32>, p: u32| cands.into_iter().min_by_key(|&x| after(x, p, n));
        let mut m = Vec::new();
        match kind {
            Allocator::Islip => {
                let grant: Vec<Option<u32>> =
                    (0..n).map(|r| first_after((0..n).filter(|&q| asks(q, r)).collect(), sp[r as usize])).collect();
                for q in 0..n {
                    let got: Vec<u32> = (0..n).filter(|&r| grant[r as usize] == Some(q)).collect();
                    if let Some(r) = first_after(got, rp[q as usize]) {
                        m.push((q, r));
                    }
                }
            }
            Allocator::InputFirst => {
                let pick: Vec<Option<u32>> =
                    (0..n).map(|q| first_after((0..n).filter(|&r| asks(q, r)).collect(), rp[q as usize])).collect();
                for r in 0..n {
                    let got: Vec<u32> = (0..n).filter(|&q| pick[q as usize] == Some(r)).collect();
                    if let Some(q) = first_after(got, sp[r as usize]) {
                        m.push((q, r));
                    }
                }
            }
        }
        move_past(&m, n, rp, sp);
        m.sort_unstable();
        m
    }

    #[test]
    fn every_path_agrees_with_the_definitions() {
        // Random request sets with random pointers, on 6 requesters and resources.
        let mut rnd = numbers(7);
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            for round in 0..4_000 {
                let (reqs, rp, sp) = random_case(&mut rnd, 6, round);
                let (mut rp1, mut sp1, mut rp2, mut sp2) = (rp.clone(), sp.clone(), rp, sp);
                let got = run(kind, &reqs, 6, &mut rp1, &mut sp1);
                let want = reference(kind, &reqs, 6, &mut rp2, &mut sp2);
                assert_eq!((got, rp1, sp1), (want, rp2, sp2), "{kind:?} {reqs:?}");
            }
        }
    }

    /// At the word path's limits: 64 requesters and 64 resources, every one of them in a
    /// request, and 64, 255, 256 (the most the word path takes) or 257 requests (the general
    /// path), with random pointers: both allocators match as their definitions say.
    #[test]
    fn the_word_path_s_limits_agree_with_the_definitions() {
        let (n, mut rnd) = (64, numbers(11));
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            for count in [64, 255, 256, 257] {
                for _ in 0..20 {
                    // A random permutation first (every requester and resource appears), then
                    // distinct random pairs up to `count`.
                    let shift = rnd(n);
                    let mut reqs: Vec<Request> =
                        (0..n).map(|q| Request { req: q, res: (q + shift) % n, a: 0, b: 0 }).collect();
                    while reqs.len() < count {
                        let (q, r) = (rnd(n), rnd(n));
                        if !reqs.iter().any(|o| o.req == q && o.res == r) {
                            reqs.push(Request { req: q, res: r, a: 0, b: 0 });
                        }
                    }
                    let rp: Vec<u32> = (0..n).map(|_| rnd(n)).collect();
                    let sp: Vec<u32> = (0..n).map(|_| rnd(n)).collect();
                    let (mut rp1, mut sp1, mut rp2, mut sp2) = (rp.clone(), sp.clone(), rp, sp);
                    let got = run(kind, &reqs, n, &mut rp1, &mut sp1);
                    let want = reference(kind, &reqs, n, &mut rp2, &mut sp2);
                    assert!(!got.is_empty(), "{kind:?}, {count} requests: no match");
                    assert_eq!((got, rp1, sp1), (want, rp2, sp2), "{kind:?}, {count} requests");
                }
            }
        }
    }

    /// A separable match's first phase: each of `askers`, in order, picks one with `pick`; the
    /// picked, in the order first picked, each with those who picked it.
    fn grouped(askers: &[u32], pick: impl Fn(u32) -> u32) -> Vec<(u32, Vec<u32>)> {
        let mut out: Vec<(u32, Vec<u32>)> = Vec::new();
        for &a in askers {
            let p = pick(a);
            match out.iter_mut().find(|g| g.0 == p) {
                Some(g) => g.1.push(a),
                None => out.push((p, vec![a])),
            }
        }
        out
    }

    /// The winners in the order a match lists them (the order flits cross the crossbar in, part
    /// of a run's results), written out from the rules: one requester: its first resource after
    /// its pointer; one request per requester, on up to 64 requesters and resources: by resource
    /// (on larger ones such a match is listed by the general rule, as it always was); otherwise
    /// iSLIP lists requesters in the order they are first granted, resources granting in the
    /// order they are first asked, and input-first lists resources in the order they are first
    /// picked, requesters picking in the order they first ask.
    fn ordered_reference(kind: Allocator, reqs: &[Request], n: u32, rp: &mut [u32], sp: &mut [u32]) -> Vec<(u32, u32)> {
        let first_after = |cands: &[u32], p: u32| cands.iter().copied().min_by_key(|&x| after(x, p, n));
        let mut seen_q: Vec<u32> = Vec::new();
        let mut seen_r: Vec<u32> = Vec::new();
        for r in reqs {
            if !seen_q.contains(&r.req) {
                seen_q.push(r.req);
            }
            if !seen_r.contains(&r.res) {
                seen_r.push(r.res);
            }
        }
        let of_q = |q: u32| -> Vec<u32> { reqs.iter().filter(|x| x.req == q).map(|x| x.res).collect() };
        let of_r = |r: u32| -> Vec<u32> { reqs.iter().filter(|x| x.res == r).map(|x| x.req).collect() };
        let mut m = Vec::new();
        if seen_q.len() == 1 {
            let q = seen_q[0];
            m.push((q, first_after(&of_q(q), rp[q as usize]).unwrap()));
        } else if seen_q.len() == reqs.len() && n <= 64 {
            let mut res = seen_r.clone();
            res.sort_unstable();
            for r in res {
                m.push((first_after(&of_r(r), sp[r as usize]).unwrap(), r));
            }
        } else if kind == Allocator::Islip {
            for (q, rs) in grouped(&seen_r, |r| first_after(&of_r(r), sp[r as usize]).unwrap()) {
                m.push((q, first_after(&rs, rp[q as usize]).unwrap()));
            }
        } else {
            for (r, qs) in grouped(&seen_q, |q| first_after(&of_q(q), rp[q as usize]).unwrap()) {
                m.push((first_after(&qs, sp[r as usize]).unwrap(), r));
            }
        }
        move_past(&m, n, rp, sp);
        m
    }

    #[test]
    fn every_path_lists_its_winners_in_the_rules_order() {
        // Random request sets with random pointers on 6 and on 64 requesters and resources (the
        // mask path's edge), and on 70 (the list path).
        let mut rnd = numbers(11);
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            for n in [6, 64, 70] {
                for round in 0..2_000 {
                    let (reqs, rp, sp) = random_case(&mut rnd, n, round);
                    if reqs.len() < 2 {
                        continue;
                    }
                    let (mut rp1, mut sp1, mut rp2, mut sp2) = (rp.clone(), sp.clone(), rp, sp);
                    let mut w = Vec::new();
                    match_many(kind, &reqs, n, n, &mut rp1, &mut sp1, &mut Scratch::default(), &mut w);
                    let got: Vec<(u32, u32)> =
                        w.iter().map(|&k| (reqs[k as usize].req, reqs[k as usize].res)).collect();
                    let want = ordered_reference(kind, &reqs, n, &mut rp2, &mut sp2);
                    assert_eq!((got, rp1, sp1), (want, rp2, sp2), "{kind:?} n={n} {reqs:?}");
                }
            }
        }
    }

    #[test]
    fn two_requests_give_the_general_match_in_its_order() {
        // Every pair of distinct (requester, resource) requests on 3 x 3, every pointer setting:
        // the pair path's winners, in order, and pointers are the general path's.
        let all: Vec<Request> = all_pairs(3);
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            for a in &all {
                for b in all.iter().filter(|b| *b != a) {
                    for p in 0..81u32 {
                        let ptrs = |base: u32| vec![base % 3, base / 3 % 3, base / 9 % 3];
                        let (mut rp1, mut sp1) = (ptrs(p), ptrs(p / 27 + p % 7));
                        let (mut rp2, mut sp2) = (rp1.clone(), sp1.clone());
                        let (mut w1, mut w2) = (Vec::new(), Vec::new());
                        let reqs = [*a, *b];
                        allocate(kind, &reqs, 3, 3, &mut rp1, &mut sp1, &mut Scratch::default(), &mut w1);
                        match_many(kind, &reqs, 3, 3, &mut rp2, &mut sp2, &mut Scratch::default(), &mut w2);
                        assert_eq!((w1, rp1, sp1), (w2, rp2, sp2), "{kind:?} {reqs:?} {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_match_never_repeats_a_requester_or_resource() {
        let reqs = all_pairs(5);
        for kind in [Allocator::Islip, Allocator::InputFirst] {
            let (mut rp, mut sp) = (vec![3, 1, 4, 1, 0], vec![2, 0, 4, 3, 1]);
            for _ in 0..20 {
                let m = run(kind, &reqs, 5, &mut rp, &mut sp);
                let mut ins: Vec<u32> = m.iter().map(|x| x.0).collect();
                let mut outs: Vec<u32> = m.iter().map(|x| x.1).collect();
                ins.dedup();
                outs.sort_unstable();
                outs.dedup();
                assert_eq!((ins.len(), outs.len()), (m.len(), m.len()), "{kind:?} {m:?}");
            }
        }
    }
}
