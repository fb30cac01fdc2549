//! `utorus`: U-torus (Robinson et al.; oral §3), a unicast binomial-style tree on the
//! dimension-ordered group Φ rotated to start at the source (Φ′). A node holding ranks
//! `left..=right` sends to `center = left + ⌈(right − left + 1)/2⌉`, which takes `center..=right`
//! (the subset information travels with the message), and keeps halving its own part.

use super::{order, torus_order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "utorus",
    summary: "U-torus: halving unicast tree on the rotated dimension-ordered group (oral §3)",
    params: "",
    applies_to: "torus, mesh",
    applies: torus_order::applies,
    build,
    creation: creation_work,
};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

/// Children of the node at `at` holding `at..end`: repeated halving.
pub fn split(at: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut right = end;
    while right - at > 1 {
        let center = at + (right - at).div_ceil(2);
        out.push((center, right));
        right = center;
    }
    out
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let _: Params = spec::typed("scheme", "utorus", p)?;
    // Φ′: the index order is the dimension order (dimension 0 fastest), rotated to the source.
    let chain = order::chain(input.source, input.destinations, "index")?;
    let name = format!("utorus:discipline={}", tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &split)
}

/// Ordering the group (Φ′), then U-torus's recursive halving at `center` (oral Eq. 1): every split
/// hands the child it creates the subset it will cover, the D_subset that travels with the message
/// ([`creation::subset_handover`], O(n log n)).
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations {
        ordering: creation::ordering("index", c.group())?,
        partitioning: creation::subset_handover(c.plan),
    })
}
