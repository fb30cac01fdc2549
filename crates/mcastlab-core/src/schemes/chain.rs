//! `chain`: the linear tree — each node forwards to the next in the ordered group (δr = 1; best
//! for many packets, sivaram98 Fig. 7(b)).

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{CreationInput, Operations};
use crate::plan::Plan;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "chain",
    summary: "linear chain: each node forwards to the next",
    params: "order=index|given|poc",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: creation_work,
};

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: order::OrderParams = spec::typed("scheme", "chain", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let name = format!("chain:order={},discipline={}", params.order, tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &|at, end| if at + 1 < end { vec![(at + 1, end)] } else { Vec::new() })
}

/// Ordering the group, then one assignment per member after the source: its child is its
/// successor in the chain (n − 1).
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations { ordering: order::ordering_ops(c)?, partitioning: c.group() - 1 })
}
