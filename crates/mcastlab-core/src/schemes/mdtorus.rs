//! `mdtorus`: Md-torus (Robinson et al.; oral §3), dimensional partitioning. The group is split by
//! the highest dimension's coordinate (planes, then rings, ...): the source sends separately to the
//! first member of every other partition (in rotated dimension order), each partition head does the
//! same one dimension lower, and within a ring the message travels member to member. SCI re-send
//! variant (oral §4.1); N phases on a k-ary N-dimensional torus.

use super::tree::{Child, PathVariant};
use super::{order, torus_order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::generators::torus::coords_of;
use crate::fabric::spec;
use crate::ids::EndpointId;
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "mdtorus",
    summary: "Md-torus: dimensional partitioning, separate sends to partition heads, rings along (oral §3)",
    params: "variant=sci|worm",
    applies_to: "torus, mesh",
    applies: torus_order::applies,
    build,
    creation: creation_work,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "tree::default_variant")]
    variant: PathVariant,
}

/// Children of the node at `at` holding `at..end` of `chain`, partitioning by the highest
/// dimension in which the segment's members differ; a ring (dimension 0) is one path.
fn split(chain: &[EndpointId], dims: &[u32], at: usize, end: usize) -> Vec<Child> {
    // The dimension this segment is partitioned by: the highest one in which its members differ.
    let coord = |i: usize| coords_of(dims, chain[i].0);
    let c_at = coord(at);
    let Some(d) = (0..dims.len()).rev().find(|&d| (at + 1..end).any(|i| coord(i)[d] != c_at[d])) else {
        return Vec::new();
    };
    if d == 0 {
        // A ring: one path through the other members.
        return if at + 1 < end { vec![Child { start: at + 1, end, path: true }] } else { Vec::new() };
    }
    // Partitions are runs of equal coordinate d (the chain is in rotated dimension order).
    let mut out = Vec::new();
    let mut i = at + 1;
    while i < end && coord(i)[d] == c_at[d] {
        i += 1;
    }
    let own_end = i;
    while i < end {
        let start = i;
        let cd = coord(i)[d];
        while i < end && coord(i)[d] == cd {
            i += 1;
        }
        out.push(Child { start, end: i, path: false });
    }
    // The source's own partition continues one dimension lower from the source itself: model it as
    // a first child only if it has other members, sent after the other partitions' heads.
    if own_end > at + 1 {
        out.extend(split(chain, dims, at, own_end));
    }
    out
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "mdtorus", p)?;
    let dims = torus_order::dims(input.fabric).map_err(|r| PlanError::Param { param: "fabric", message: r })?;
    let chain = order::chain(input.source, input.destinations, "index")?;
    let name =
        format!("mdtorus:variant={},discipline={}", params.variant.name(), tree::discipline_name(input.discipline));
    tree::build_paths(input, name, &chain, params.variant, &|at, end| split(&chain, &dims, at, end))
}

/// Ordering the group (Φ′, as U-torus), then dimensional partitioning (oral §3): every member's
/// coordinates, one division per dimension (n·N), and at each of the N − 1 levels above the rings
/// one comparison per member to cut the runs of equal coordinate into partitions (n·(N − 1)).
/// Within a ring the path is the ordered list itself.
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    let n = c.group();
    let dims = torus_order::dims(c.fabric).ok()?.len() as u64;
    Some(Operations { ordering: creation::ordering("index", n)?, partitioning: n * dims + n * (dims - 1) })
}
