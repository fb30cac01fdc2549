//! Path-based worms: SSR (one drop), multi-drop (sivaram98 §5.2) and destination-addressed path
//! worms (oral §3). Each leg to the next drop switch is routed by the base routing from where the
//! previous leg arrived, so the whole worm is one legal route of the routing; at a drop switch the
//! worm leaves a copy at every port of the drop's bit string and the header's first pair is
//! stripped.

use super::{At, CarrierTree, Next, Walker};
use crate::fabric::Terminal;
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::plan::carrier::Drop;
use crate::routing::Hop;

/// Routes from `at` to switch `target` with the address of `toward` (an endpoint attached to
/// it); returns the arrival at `target`.
fn leg(
    w: &Walker<'_>,
    t: &mut CarrierTree,
    mut at: At,
    target: SwitchId,
    toward: EndpointId,
    sender: EndpointId,
) -> Option<At> {
    let address = w.r.address(sender, toward);
    let mut buf = Vec::new();
    while at.switch != target {
        if w.too_long(t) {
            return None;
        }
        w.r.next_hops(at.switch, at.arrival, address, &mut buf);
        let Some(&hop) = buf.first() else {
            t.problems.push(format!(
                "{}: the base routing offers no legal port toward {} from here (arrived on port {})",
                w.f.switch(at.switch).name,
                w.f.switch(target).name,
                at.arrival.port
            ));
            return None;
        };
        if w.every_choice && buf.len() > 1 {
            t.worm_choice.get_or_insert(at.switch);
        }
        match w.emit(t, at, hop) {
            Next::Switch(n) => at = n,
            Next::Ejected(e) => {
                t.problems.push(format!(
                    "the route toward {} ejected at {} before reaching it",
                    w.f.switch(target).name,
                    w.f.endpoint(e).name
                ));
                return None;
            }
            Next::Lost => return None,
        }
    }
    Some(at)
}

/// Leaves a copy at each port of a drop.
fn drop_copies(w: &Walker<'_>, t: &mut CarrierTree, at: At, ports: &[PortNum]) {
    for &p in ports {
        let leads_to_endpoint = matches!(w.f.port(at.switch, p).map(|pp| pp.peer), Some(Terminal::Endpoint { .. }));
        if !leads_to_endpoint {
            t.problems.push(format!(
                "port {p} of {} in a drop string does not lead to an endpoint",
                w.f.switch(at.switch).name
            ));
            continue;
        }
        let _ = w.emit(t, at, Hop { port: p, vc: 0 });
    }
}

pub(super) fn walk_drops(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, drops: &[Drop]) {
    let mut at = start;
    for d in drops {
        let toward = d.ports.iter().find_map(|p| match w.f.port(d.switch, *p).map(|pp| pp.peer) {
            Some(Terminal::Endpoint { endpoint }) => Some(endpoint),
            _ => None,
        });
        let Some(toward) = toward else {
            t.problems.push(format!("the drop at {} names no endpoint port", w.f.switch(d.switch).name));
            return;
        };
        let Some(here) = leg(w, t, at, d.switch, toward, sender) else { return };
        drop_copies(w, t, here, &d.ports);
        at = here;
    }
}

pub(super) fn walk_dests(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, dests: &[EndpointId]) {
    let mut at = start;
    let mut i = 0;
    while i < dests.len() {
        let (sw, _) = w.f.attachment(dests[i]);
        let mut ports = Vec::new();
        while i < dests.len() && w.f.attachment(dests[i]).0 == sw {
            ports.push(w.f.attachment(dests[i]).1);
            i += 1;
        }
        let first = dests[i - ports.len()];
        let Some(here) = leg(w, t, at, sw, first, sender) else { return };
        drop_copies(w, t, here, &ports);
        at = here;
    }
}
