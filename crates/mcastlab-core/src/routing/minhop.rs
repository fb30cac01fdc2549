//! `minhop`: OpenSM's default unicast engine (opensm.md §2.1). Exact shortest-path hop matrix
//! ([`HopMatrix::minhop`]) and OpenSM's least-loaded choice among the minimal ports
//! ([`super::opensm_lft`]). Destination-based, one port per (switch, LID), no virtual lanes: it
//! is **not** deadlock-free in general (a ring or torus closes a cycle of channel dependencies,
//! which the routing checker reports); on a fat-tree its minimal routes never turn down-then-up.

use super::hop_matrix::{fits, HopMatrix};
use super::opensm_lft::{self, Lfts};
use super::{Arrival, Hop, Routing, RoutingEntry};
use crate::error::RoutingError;
use crate::fabric::{spec, Fabric};
use crate::ids::{Address, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "minhop",
    summary:
        "OpenSM's minhop: shortest-path hop matrix, least-loaded minimal port per LID (not deadlock-free in general)",
    params: "(none)",
    applies_to: "any fabric with full-duplex links and switches of at most 254 ports",
    applies,
    build,
};

/// Shared by the OpenSM-modelled engines: IB links are full duplex, LFT entries are 8-bit, and the
/// hop matrix must fit in memory.
pub(super) fn applies(f: &Fabric) -> Result<(), String> {
    if f.links().iter().any(|l| l.directed) {
        return Err("InfiniBand links are full duplex; this fabric has directed links".into());
    }
    opensm_lft::ports_fit(f)?;
    fits(f)
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let _: Params = spec::typed("routing", "minhop", p)?;
    Ok(Box::new(MinHop::new(f)))
}

/// The minhop routing of one fabric: its hop matrix and LFTs.
#[derive(Debug)]
pub struct MinHop {
    matrix: Arc<HopMatrix>,
    lfts: Lfts,
}

impl MinHop {
    pub fn new(f: &Fabric) -> MinHop {
        let matrix = Arc::new(HopMatrix::minhop(f));
        let lfts = opensm_lft::build(f, &matrix);
        MinHop { matrix, lfts }
    }
}

/// The LFT lookup both OpenSM engines answer `next_hops` with: the one programmed port.
pub(super) fn lft_next_hop(lfts: &Lfts, at: SwitchId, to: Address, out: &mut Vec<Hop>) {
    out.clear();
    if to.0 as usize >= lfts.endpoints {
        return;
    }
    if let Some(p) = lfts.to_endpoint(at, crate::ids::EndpointId(to.0)) {
        out.push(Hop { port: p, vc: 0 });
    }
}

impl Routing for MinHop {
    fn engine(&self) -> &'static str {
        "minhop"
    }
    fn spec(&self) -> String {
        "minhop".into()
    }
    fn num_addresses(&self) -> usize {
        self.lfts.endpoints
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        lft_next_hop(&self.lfts, at, to, out)
    }
    /// The exact turns of the LFTs (see [`opensm_lft::table_turns`]).
    fn turns(&self, f: &Fabric) -> Option<Vec<super::Turn>> {
        Some(opensm_lft::table_turns(f, self.lfts.endpoints, |s, d| {
            self.lfts.to_endpoint(s, crate::ids::EndpointId(d as u32))
        }))
    }
    fn opensm_matrix(&self) -> Option<Arc<HopMatrix>> {
        Some(self.matrix.clone())
    }
    fn programmed_lfts(&self) -> Option<&Lfts> {
        Some(&self.lfts)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
