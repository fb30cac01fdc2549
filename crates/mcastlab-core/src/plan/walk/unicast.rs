//! Unicast: the base routing's deterministic choice at every switch.

use super::{At, CarrierTree, Next, Walker};
use crate::ids::EndpointId;

pub(super) fn walk(w: &Walker<'_>, t: &mut CarrierTree, start: At, sender: EndpointId, dst: EndpointId) {
    let address = w.r.address(sender, dst);
    let mut at = start;
    let mut buf = Vec::new();
    loop {
        if w.too_long(t) {
            return;
        }
        w.r.next_hops(at.switch, at.arrival, address, &mut buf);
        let Some(&hop) = buf.first() else {
            t.problems.push(format!(
                "{}: the routing offers no port toward {}",
                w.f.switch(at.switch).name,
                w.f.endpoint(dst).name
            ));
            return;
        };
        match w.emit(t, at, hop) {
            Next::Switch(n) => at = n,
            Next::Ejected(e) => {
                if e != dst {
                    t.problems.push(format!(
                        "delivered to {} instead of {}",
                        w.f.endpoint(e).name,
                        w.f.endpoint(dst).name
                    ));
                }
                return;
            }
            Next::Lost => return,
        }
    }
}
