//! `storus`: S-torus (Robinson et al.; oral §3). The group is ranked by the Hamiltonian ranking of
//! oral Eq. 2 (Θ), rotated to start at the source (Θ′), and visited in that order. This is the SCI
//! variant oral measured (§4.1): each destination saves the message and re-sends it to the next
//! one on the path. (The multidestination-worm variant, one worm along Θ′, needs worm carriers.)

use super::tree::{Child, PathVariant};
use super::{torus_order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric};
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "storus",
    summary: "S-torus: one path along the Hamiltonian ranking (oral Eq. 2); worm or SCI re-send",
    params: "variant=sci|worm",
    applies_to: "k-ary 2D torus",
    applies,
    build,
    creation: creation_work,
};

fn applies(f: &Fabric) -> Result<(), String> {
    let d = torus_order::dims(f)?;
    if d.len() == 2 && d[0] == d[1] && matches!(f.topology(), crate::fabric::Topology::Torus(_)) {
        Ok(())
    } else {
        Err(format!("S-torus's ranking is defined for k-ary 2D tori (this fabric has dims {d:?})"))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "tree::default_variant")]
    variant: PathVariant,
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "storus", p)?;
    let chain = torus_order::theta_prime(input.fabric, input.source, input.destinations)?;
    let name =
        format!("storus:variant={},discipline={}", params.variant.name(), tree::discipline_name(input.discipline));
    tree::build_paths(input, name, &chain, params.variant, &|at, end| {
        if at == 0 && end > 1 {
            vec![Child { start: 1, end, path: true }]
        } else {
            Vec::new()
        }
    })
}

/// S-torus only orders (oral §4.4: no partitioning): one evaluation of Eq. 2 per member (n), a
/// sort by that rank and the rotation to the source (Θ → Θ′); the path is the ordered list itself.
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    let n = c.group();
    Some(Operations { ordering: n + creation::ordering("index", n)?, partitioning: 0 })
}
