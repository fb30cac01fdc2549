//! Unicast: the base routing's deterministic choice at every switch ([`walk`]), or, for a routing
//! that chooses per packet at run time, every route it allows ([`walk_every`]).

use super::{At, CarrierTree, Next, Walker};
use crate::ids::EndpointId;

/// The most hops the tree of every route of one unicast may have. A minimal routing's routes
/// fan out at most at each switch of the climb (a k-ary n-tree: about k^(n−1) routes of ≤ 2n
/// hops); past this bound the tree would cost more memory than the run it serves.
const MAX_EVERY_CHOICE_HOPS: usize = 1 << 16;

pub(super) fn walk(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, dst: EndpointId) {
    let address = w.r.address(sender, dst);
    let mut at = start;
    let mut buf = Vec::new();
    // A route of a few hops takes one allocation rather than growing through two.
    t.hops.reserve(16);
    loop {
        if w.too_long(t) {
            return;
        }
        w.r.next_hops(at.switch, at.arrival, address, &mut buf);
        let Some(&hop) = buf.first() else {
            no_route(w, t, at, dst);
            return;
        };
        match w.emit(t, at, hop) {
            Next::Switch(n) => at = n,
            Next::Ejected(e) => {
                wrong_endpoint(w, t, e, dst);
                return;
            }
            Next::Lost => return,
        }
    }
}

/// Every route the routing allows from `start` to `dst`, depth first in the routing's order of
/// hops (so the first route is the deterministic one): a switch offering several hops records
/// the hop that brought the packet there as a fork.
pub(super) fn walk_every(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, dst: EndpointId) {
    let address = w.r.address(sender, dst);
    let mut stack = vec![(start, 0usize)];
    while let Some((at, depth)) = stack.pop() {
        if depth > w.max_hops {
            t.problems.push(format!("a route exceeds {} hops: it loops", w.max_hops));
            return;
        }
        let mut hops = Vec::new();
        w.r.next_hops(at.switch, at.arrival, address, &mut hops);
        if hops.is_empty() {
            no_route(w, t, at, dst);
            return;
        }
        if hops.len() > 1 {
            t.forks.push(at.parent);
        }
        if t.hops.len() + hops.len() > MAX_EVERY_CHOICE_HOPS {
            t.problems.push(format!(
                "the legal routes to {} take more than {MAX_EVERY_CHOICE_HOPS} hops together, too many to decode \
                 for a per-packet choice",
                w.f.endpoint(dst).name
            ));
            return;
        }
        let mut next = Vec::with_capacity(hops.len());
        for hop in hops {
            match w.emit(t, at, hop) {
                Next::Switch(n) => next.push((n, depth + 1)),
                Next::Ejected(e) => wrong_endpoint(w, t, e, dst),
                Next::Lost => {}
            }
        }
        // Reversed, so the routing's first hop is explored first.
        stack.extend(next.into_iter().rev());
    }
}

fn no_route(w: &Walker<'_>, t: &mut CarrierTree, at: At, dst: EndpointId) {
    t.problems.push(format!(
        "{}: the routing offers no port toward {}",
        w.f.switch(at.switch).name,
        w.f.endpoint(dst).name
    ));
}

fn wrong_endpoint(w: &Walker<'_>, t: &mut CarrierTree, e: EndpointId, dst: EndpointId) {
    if e != dst {
        t.problems.push(format!("delivered to {} instead of {}", w.f.endpoint(e).name, w.f.endpoint(dst).name));
    }
}
