//! Orderings of a multicast group. Trees are built on an ordered chain whose first element is the
//! source (sivaram98 §4.3.4).
//!
//! `index` (the default): destinations in endpoint-index order, rotated so the chain starts right
//! after the source and wraps around. On tori and meshes the index order *is* the
//! dimension-ordered chain (dimension 0 varies fastest), which makes binomial and k-binomial trees
//! contention-free under dimension-order routing. `given`: the destinations as the user listed them.

use crate::error::PlanError;
use crate::ids::EndpointId;
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
            return Err(PlanError::Param { param: "order", message: format!("`{other}` is not one of index, given") })
        }
    }
    Ok(v)
}
