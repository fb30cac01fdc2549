//! Bit-string tree worms (sivaram98 §5.3.3). The header is the destination set and an up-down bit
//! (initially up). Going up, a switch whose total reachability string covers the whole header
//! turns the worm down; otherwise it forwards it on an up port (the lowest-numbered one: the
//! paper allows any). Going down, the worm is replicated to every down port whose restricted
//! reachability string meets the header, and each copy's header is cut to that intersection
//! (header modification), which is what keeps deliveries exactly-once across cross links.

use super::{At, CarrierTree, Next, Walker};
use crate::fabric::Terminal;
use crate::ids::EndpointId;
use crate::plan::state::EndpointSet;
use crate::routing::Hop;

pub(super) fn walk(w: &Walker<'_>, t: &mut CarrierTree, start: At, dests: &[EndpointId]) {
    let header = EndpointSet::from_endpoints(w.f.num_endpoints(), dests);
    // Up phase.
    let mut at = start;
    loop {
        if w.too_long(t) {
            return;
        }
        let Some(rs) = w.reach.get(&at.switch) else {
            t.problems.push(format!("{} has no reachability strings", w.f.switch(at.switch).name));
            return;
        };
        if header.is_subset(&rs.total) {
            break;
        }
        let is_down = |p| rs.down.iter().any(|(q, _)| *q == p);
        let up = w.f.switch_ports(at.switch).find(|&p| {
            !is_down(p)
                && matches!(
                    w.f.port(at.switch, p).map(|pp| (pp.peer, pp.out)),
                    Some((Terminal::Switch { .. }, Some(_)))
                )
        });
        let Some(up) = up else {
            t.problems.push(format!(
                "{}: not every destination is reachable downward and there is no up port",
                w.f.switch(at.switch).name
            ));
            return;
        };
        match w.emit(t, at, Hop { port: up, vc: 0 }) {
            Next::Switch(n) => at = n,
            _ => return,
        }
    }
    // Down phase: depth-first, ports in ascending order.
    let mut stack = vec![(at, header)];
    while let Some((at, h)) = stack.pop() {
        if w.too_long(t) {
            return;
        }
        let Some(rs) = w.reach.get(&at.switch) else {
            t.problems.push(format!("{} has no reachability strings", w.f.switch(at.switch).name));
            continue;
        };
        let mut next = Vec::new();
        for (p, r) in &rs.down {
            let part = h.and(r);
            if part.is_empty() {
                continue;
            }
            if let Next::Switch(n) = w.emit(t, at, Hop { port: *p, vc: 0 }) {
                next.push((n, part));
            }
        }
        stack.extend(next.into_iter().rev());
    }
}
