//! InfiniBand hardware multicast: at every switch the packet is replicated to the MFT's ports for
//! its MLID, never back out of the port it arrived on (IBA 18.2.4.3.3); a switch without an entry
//! drops it. A branch into such a switch is a defect of the tables (the copy crosses a link for
//! nothing), reported with the MLID, the switch and the port.

use super::{At, CarrierTree, Next, Walker};
use crate::routing::Hop;

pub(super) fn walk(w: &Walker<'_>, t: &mut CarrierTree, start: At, mlid: u32) {
    let mut stack = vec![start];
    while let Some(at) = stack.pop() {
        if w.too_long(t) {
            return;
        }
        let Some(ports) = w.mft.get(&(mlid, at.switch)) else { continue };
        // Reverse so that the stack pops ports in ascending order.
        let mut next = Vec::new();
        for &p in ports.iter().filter(|p| **p != at.arrival.port) {
            if let Next::Switch(n) = w.emit(t, at, Hop { port: p, vc: 0 }) {
                if w.mft.contains_key(&(mlid, n.switch)) {
                    next.push(n);
                } else {
                    t.defects.push(format!(
                        "MLID 0x{mlid:04X}: switch {} port {p} branches to switch {}, which has no MFT entry for \
                         this MLID and drops the copy (a wasted link)",
                        w.f.switch(at.switch).name,
                        w.f.switch(n.switch).name
                    ));
                }
            }
        }
        stack.extend(next.into_iter().rev());
    }
}
