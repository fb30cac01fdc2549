//! InfiniBand hardware multicast: at every switch the packet is replicated to the MFT's ports for
//! its MLID, never back out of the port it arrived on (IBA 18.2.4.3.3); a switch without an entry
//! drops it.

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
                next.push(n);
            }
        }
        stack.extend(next.into_iter().rev());
    }
}
