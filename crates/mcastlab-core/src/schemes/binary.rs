//! `binary`: a balanced binary tree over the ordered group (the NI-level tree shape of
//! bhoedjang98 and Verstoep et al.): a node covering a segment sends to the first node of each half
//! of the rest, the larger half first.

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "binary",
    summary: "balanced binary tree over the ordered group",
    params: "order=index|given|poc",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: creation_work,
};

/// Children of `at` covering `at..end`: the rest split into two halves, the larger first.
pub fn split(at: usize, end: usize) -> Vec<(usize, usize)> {
    let rest = end - at - 1;
    if rest == 0 {
        return Vec::new();
    }
    let first = rest.div_ceil(2);
    let mut v = vec![(at + 1, at + 1 + first)];
    if rest > first {
        v.push((at + 1 + first, end));
    }
    v
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: order::OrderParams = spec::typed("scheme", "binary", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let name = format!("binary:order={},discipline={}", params.order, tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &split)
}

/// Ordering the group, then recursive halving into two subtrees: every split hands the child it
/// creates the subset it will cover ([`creation::subset_handover`], O(n log n)).
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations { ordering: order::ordering_ops(c)?, partitioning: creation::subset_handover(c.plan) })
}
