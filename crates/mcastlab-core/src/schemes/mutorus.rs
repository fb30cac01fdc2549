//! `mutorus`: Mu-torus (Robinson et al.; oral §3), uniform partitioning with partition size `r`.
//! The rotated dimension-ordered group is cut into consecutive partitions of at most `r` nodes (the
//! source's own partition first); the source sends separately to the head of every other
//! partition, and within a partition the message travels member to member (SCI re-send variant,
//! oral §4.1; oral used r = 4 on its 4×4 torus).

use super::tree::{Child, PathVariant};
use super::{order, torus_order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "mutorus",
    summary: "Mu-torus: uniform partitions of r nodes, separate sends to heads, paths within (oral §3)",
    params: "r=4 variant=sci|worm",
    applies_to: "torus, mesh",
    applies: torus_order::applies,
    build,
    creation: creation_work,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "four")]
    r: u32,
    #[serde(default = "tree::default_variant")]
    variant: PathVariant,
}

fn four() -> u32 {
    4
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "mutorus", p)?;
    if params.r < 1 {
        return Err(PlanError::Param { param: "r", message: "must be at least 1".into() });
    }
    let r = params.r as usize;
    let chain = order::chain(input.source, input.destinations, "index")?;
    let n = chain.len();
    let v = params.variant;
    let name = format!("mutorus:r={r},variant={},discipline={}", v.name(), tree::discipline_name(input.discipline));
    tree::build_paths(input, name, &chain, v, &|at, end| {
        if at == 0 {
            // Heads of the other partitions, then the source's own path.
            let mut v: Vec<Child> =
                (1..n.div_ceil(r)).map(|q| Child { start: q * r, end: ((q + 1) * r).min(n), path: false }).collect();
            if r > 1 && n > 1 {
                v.push(Child { start: 1, end: r.min(n), path: true });
            }
            v
        } else if at + 1 < end {
            // A partition head: one path through the rest of its partition.
            vec![Child { start: at + 1, end, path: true }]
        } else {
            Vec::new()
        }
    })
}

/// Ordering the group (Φ′), then uniform partitioning as built here: each member's partition,
/// ⌊rank / r⌋ (n divisions), and the ⌈n / r⌉ partition heads the source sends to. This is the
/// one level of partitions this scheme builds; Robinson et al.'s Mu-torus, which oral measured
/// and found costlier than U-torus (§4.4), partitions recursively over ⌈log_r d⌉ phases.
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    let n = c.group();
    let r = c.param_u64("r").unwrap_or(4).max(1);
    Some(Operations { ordering: creation::ordering("index", n)?, partitioning: n + n.div_ceil(r) })
}
