//! `storus`: S-torus (Robinson et al.; oral §3). The group is ranked by the Hamiltonian ranking of
//! oral Eq. 2 (Θ), rotated to start at the source (Θ′), and visited in that order. This is the SCI
//! variant oral measured (§4.1): each destination saves the message and re-sends it to the next
//! one on the path. (The multidestination-worm variant, one worm along Θ′, needs worm carriers.)

use super::{torus_order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "storus",
    summary: "S-torus: the group along the Hamiltonian ranking (oral Eq. 2), SCI re-send variant",
    params: "variant=sci",
    applies_to: "k-ary 2D torus",
    applies,
    build,
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
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum Variant {
    Sci,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "sci")]
    #[allow(dead_code)]
    variant: Variant,
}

fn sci() -> Variant {
    Variant::Sci
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let _: Params = spec::typed("scheme", "storus", p)?;
    let chain = torus_order::theta_prime(input.fabric, input.source, input.destinations)?;
    let name = format!("storus:variant=sci,discipline={}", tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &|at, end| if at + 1 < end { vec![(at + 1, end)] } else { Vec::new() })
}
