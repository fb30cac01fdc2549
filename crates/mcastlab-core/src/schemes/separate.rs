//! `separate`: separate addressing — the source sends one unicast to each destination in turn
//! (oral §3). With `pipelined` (network pipelining, oral §4.1) the sends overlap in the network;
//! in the step model every send already takes one NI step, so the plan is the same and the option
//! is recorded for the simulator.

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{CreationInput, Operations};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "separate",
    summary: "separate addressing: one unicast per destination from the source",
    params: "order=index|given|poc pipelined=false",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: creation_work,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "order::default_order")]
    order: String,
    #[serde(default)]
    pipelined: bool,
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "separate", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let name = format!("separate:order={},pipelined={}", params.order, params.pipelined);
    tree::build(input, name, &chain, &|at, end| {
        if at == 0 {
            (1..end).map(|c| (c, c + 1)).collect()
        } else {
            Vec::new()
        }
    })
}

/// Ordering the group only: no tree is formed (oral leaves separate addressing out of its
/// tree-creation figure, §4.4); the ordered list is the send list.
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations { ordering: order::ordering_ops(c)?, partitioning: 0 })
}
