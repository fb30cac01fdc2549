//! `ib_unicast`: zhou07's unicast baseline (§4) — the source sends one InfiniBand unicast per
//! destination, back to back, with no forwarding by any destination.
//!
//! Each unicast carries the LID the base routing selects for the pair (on an m-port n-tree with
//! `mport_lmc` that is the cyclic path selection of §3.2), so the unicasts of one source climb the
//! same up links that `ib_cyclic` uses once; the comparison between the two is the paper's point.
//!
//! It applies to InfiniBand fabrics only: generated m-port n-trees and fabrics imported from
//! ibnetdiscover/ibsim dumps. On any other fabric the very same plan is `separate`; keeping the
//! `ib_` name off those fabrics avoids suggesting InfiniBand semantics that are not there.

use super::{order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric, Topology};
use crate::plan::Plan;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "ib_unicast",
    summary: "zhou07's unicast baseline: one InfiniBand unicast per destination from the source",
    params: "order=index|given",
    applies_to: "InfiniBand fabrics: mport_ntree and imported ibnetdiscover/ibsim fabrics",
    applies: infiniband_fabric,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// InfiniBand fabrics: zhou07's generated m-port n-trees and imported InfiniBand dumps.
pub fn infiniband_fabric(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::MportNtree(_) => Ok(()),
        Topology::Imported { format, .. } if format == "ibnetdiscover" => Ok(()),
        other => Err(format!(
            "InfiniBand schemes need an mport_ntree or an imported ibnetdiscover fabric (this one is `{}`)",
            other.kind()
        )),
    }
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: order::OrderParams = spec::typed("scheme", "ib_unicast", p)?;
    let chain = order::chain(input.source, input.destinations, &params.order)?;
    let name = format!("ib_unicast:order={}", params.order);
    // Every destination is a child of the source and forwards nothing.
    tree::build(input, name, &chain, &|at, end| {
        if at == 0 {
            (1..end).map(|c| (c, c + 1)).collect()
        } else {
            Vec::new()
        }
    })
}
