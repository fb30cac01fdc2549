//! The allocator's path for up to 64 requesters and 64 resources (every router of the
//! benchmarks): who asks each resource, and who each requester was granted, as one word each, so
//! that a round-robin choice is a shift and a bit scan.

use super::{next, Request, Scratch};
use crate::sim::params::Allocator;

/// Of the places in `mask` (nonzero, places below 64), the first at or after pointer `p`
/// (below 64), wrapping: the round-robin choice.
#[inline(always)]
pub(crate) fn first_after(mask: u64, p: u32) -> u32 {
    let ahead = mask & (u64::MAX << (p & 63));
    if ahead != 0 {
        ahead.trailing_zeros()
    } else {
        mask.trailing_zeros()
    }
}

/// One round of round-robin choices, the first phase of a separable allocator: each chooser `x`
/// of `choosers` (in that order, places below 64) takes the first of `options(x)` (nonzero)
/// after `ptr(x)`. Records in `chosen_by[y]` the choosers that took `y`, and lists in `taken` the
/// places taken, in the order first taken (the order the second phase works in, which is part
/// of a run's results); returns how many.
#[inline(always)]
pub(crate) fn choose_round(
    choosers: impl Iterator<Item = u32>,
    options: impl Fn(u32) -> u64,
    ptr: impl Fn(u32) -> u32,
    chosen_by: &mut [u64; 64],
    taken: &mut [u8; 64],
) -> usize {
    let (mut seen, mut n) = (0u64, 0);
    for x in choosers {
        let y = first_after(options(x), ptr(x));
        let yb = 1u64 << y;
        if seen & yb == 0 {
            seen |= yb;
            chosen_by[y as usize] = 1 << x;
            taken[n & 63] = y as u8;
            n += 1;
        } else {
            chosen_by[y as usize] |= 1 << x;
        }
    }
    n
}

/// [`match_many`] on bit masks, for up to 256 requests between at most 64 requesters and 64
/// resources (every router of the benchmarks): the requesters asking each resource are one word,
/// and a round-robin choice is a shift and a bit scan. Returns false, having changed nothing, for
/// input-first with a requester asking twice among several (the list path does it).
///
/// The winners come in the list path's order, which is part of a run's results (the order flits
/// cross the crossbar in): with one request per requester, by resource; otherwise (iSLIP) by
/// requester, in the order they were first granted, resources granting in the order they were
/// first asked.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn match_masks(
    kind: Allocator,
    reqs: &[Request],
    n_req: u32,
    n_res: u32,
    req_ptr: &mut [u32],
    res_ptr: &mut [u32],
    s: &mut Scratch,
    winners: &mut Vec<u32>,
) -> bool {
    // Per resource, its requesters; the resources in the order first asked; whether a requester
    // asks twice.
    let (mut asked, mut from, mut repeat) = (0u64, 0u64, false);
    let (mut order, mut n) = ([0u8; 64], 0);
    for (k, r) in reqs.iter().enumerate() {
        let (q, res) = (r.req & 63, r.res & 63);
        let (qb, rb) = (1u64 << q, 1u64 << res);
        repeat |= from & qb != 0;
        from |= qb;
        if asked & rb == 0 {
            asked |= rb;
            s.asking[res as usize] = qb;
            order[n & 63] = res as u8;
            n += 1;
        } else {
            s.asking[res as usize] |= qb;
        }
        s.index[(res << 6 | q) as usize] = k as u8;
    }
    // Requester q wins resource res: both pointers move one past the partner.
    let win = |q: u32, res: u32, req_ptr: &mut [u32], res_ptr: &mut [u32], winners: &mut Vec<u32>, index: &[u8]| {
        req_ptr[q as usize] = next(res, n_res);
        res_ptr[res as usize] = next(q, n_req);
        winners.push(index[((res & 63) << 6 | (q & 63)) as usize] as u32);
    };
    if !repeat {
        // One request per requester: no requester has a choice to make under either allocator,
        // so every resource takes the first of its requesters after its pointer.
        while asked != 0 {
            let res = asked.trailing_zeros();
            asked &= asked - 1;
            let q = first_after(s.asking[res as usize], res_ptr[res as usize]);
            win(q, res, req_ptr, res_ptr, winners, &s.index);
        }
        return true;
    }
    if from.is_power_of_two() {
        // One requester (a head asking for any of its VCs): every resource grants it, or it
        // first picks, so it takes the first of them after its own pointer.
        let q = from.trailing_zeros();
        let res = first_after(asked, req_ptr[q as usize]);
        win(q, res, req_ptr, res_ptr, winners, &s.index);
        return true;
    }
    if kind != Allocator::Islip {
        return false;
    }
    // iSLIP: every resource grants the first of its requesters after its pointer; every requester
    // granted accepts the first of its grants after its own.
    let mut by = [0u8; 64];
    let asking = &s.asking;
    let m = choose_round(
        order[..n].iter().map(|&res| res as u32),
        |res| asking[res as usize & 63],
        |res| res_ptr[res as usize],
        &mut s.grants,
        &mut by,
    );
    for &q in &by[..m] {
        let q = q as u32;
        let res = first_after(s.grants[q as usize & 63], req_ptr[q as usize]);
        win(q, res, req_ptr, res_ptr, winners, &s.index);
    }
    true
}
