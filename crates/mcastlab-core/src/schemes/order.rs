//! Orderings of a multicast group. Trees are built on an ordered chain whose first element is the
//! source (sivaram98 §4.3.4).
//!
//! `index` (the default): destinations in endpoint-index order, rotated so the chain starts right
//! after the source and wraps around. On tori and meshes the index order *is* the
//! dimension-ordered chain (dimension 0 varies fastest), which makes binomial and k-binomial trees
//! contention-free under dimension-order routing. `given`: the destinations as the user listed them.
//! `poc` (up*/down* fabrics only): the source, then the destinations along the Partial Ordered
//! Chains of sivaram98 Fig. 13 (see [`super::poc`]); no contention-free ordering exists under
//! up*/down*, and POCs keep contention low (§4.3.4).

use super::{poc, SchemeInput};
use crate::error::PlanError;
use crate::ids::EndpointId;
use crate::plan::creation::{self, CreationInput};
use serde::Deserialize;

/// Parameters of schemes whose only option is the ordering.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderParams {
    #[serde(default = "default_order")]
    pub order: String,
}

/// The default ordering, `index`.
pub fn default_order() -> String {
    "index".into()
}

/// The ordered chain of a scheme input under `order` (every ordering, `poc` included).
pub fn chain_for(input: &SchemeInput<'_>, order: &str) -> Result<Vec<EndpointId>, PlanError> {
    if order == "poc" {
        let ud = poc::updown(input, "order=poc")?;
        return Ok(poc::order(input.fabric, ud, input.source, input.destinations));
    }
    chain(input.source, input.destinations, order)
}

/// The ordered chain under an ordering that needs only the group (`index`, `given`).
pub fn chain(source: EndpointId, destinations: &[EndpointId], order: &str) -> Result<Vec<EndpointId>, PlanError> {
    let mut v = Vec::with_capacity(destinations.len() + 1);
    v.push(source);
    match order {
        "index" => {
            let mut d = destinations.to_vec();
            d.sort_unstable();
            let split = d.partition_point(|e| *e < source);
            v.extend_from_slice(&d[split..]);
            v.extend_from_slice(&d[..split]);
        }
        "given" => v.extend_from_slice(destinations),
        other => {
            return Err(PlanError::Param {
                param: "order",
                message: format!("`{other}` is not one of index, given, poc"),
            })
        }
    }
    Ok(v)
}

/// Operations to order the group of a plan built over a chain (`creation::ordering` under the
/// plan's recorded `order`, `index` when it records none); `None` for `poc`.
pub fn ordering_ops(c: &CreationInput<'_>) -> Option<u64> {
    creation::ordering(c.param("order").unwrap_or("index"), c.group())
}
