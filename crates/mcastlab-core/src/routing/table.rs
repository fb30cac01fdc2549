//! Materialized forwarding tables: for every switch and every destination endpoint, the port the
//! routing's deterministic choice takes for a freshly injected packet (arrival port 0, see
//! [`super::Arrival`]). This is what "fully routing" a fabric means in the benchmarks, and what a
//! subnet manager would program into linear forwarding tables (for `mport_lmc`, the entries of
//! each endpoint's base LID; other LIDs of the LMC range follow from the same equations).

use super::{Arrival, Routing};
use crate::fabric::Fabric;
use crate::ids::{EndpointId, PortNum, SwitchId};
use rayon::prelude::*;

/// `ports[s * endpoints + d]`: output port at switch `s` towards endpoint `d` (0 = no route).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardingTable {
    pub switches: usize,
    pub endpoints: usize,
    pub ports: Vec<u16>,
}

impl ForwardingTable {
    pub fn port(&self, s: SwitchId, d: EndpointId) -> Option<PortNum> {
        let p = self.ports[s.idx() * self.endpoints + d.idx()];
        (p != 0).then_some(PortNum(p))
    }
}

/// Builds the whole table, switches in parallel (deterministic: each row is independent).
pub fn forwarding_table(f: &Fabric, r: &dyn Routing) -> ForwardingTable {
    let n = f.num_endpoints();
    let mut ports = vec![0u16; f.num_switches() * n];
    ports.par_chunks_mut(n.max(1)).enumerate().for_each(|(s, row)| {
        let mut hops = Vec::new();
        let fresh = Arrival { port: PortNum(0), vc: 0 };
        for (d, slot) in row.iter_mut().enumerate() {
            let a = r.address(EndpointId(d as u32), EndpointId(d as u32));
            r.next_hops(SwitchId(s as u32), fresh, a, &mut hops);
            *slot = hops.first().map(|h| h.port.0).unwrap_or(0);
        }
    });
    ForwardingTable { switches: f.num_switches(), endpoints: n, ports }
}
