//! Multicast groups drawn at random: a fraction of the endpoints other than the source, chosen by
//! the seeded stream `("group", 0)` so the same seed always gives the same group.

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use crate::rng;
use rand::seq::SliceRandom;

/// `percent`% of the other endpoints (rounded, at least one), sorted by index.
pub fn random_group(f: &Fabric, source: EndpointId, percent: f64, seed: u64) -> Result<Vec<EndpointId>, PlanError> {
    if !(percent > 0.0 && percent <= 100.0) {
        return Err(PlanError::Param { param: "group", message: format!("{percent}% is not in (0, 100]") });
    }
    let mut others: Vec<EndpointId> = f.endpoint_ids().filter(|e| *e != source).collect();
    if others.is_empty() {
        return Err(PlanError::Group("the fabric has no endpoint besides the source".into()));
    }
    let want = ((others.len() as f64 * percent / 100.0).round() as usize).clamp(1, others.len());
    let mut r = rng::stream(seed, "group", 0);
    others.shuffle(&mut r);
    others.truncate(want);
    others.sort_unstable();
    Ok(others)
}
