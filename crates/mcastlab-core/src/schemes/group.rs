//! Multicast groups drawn at random: a share of the endpoints other than the source, or an exact
//! number of them, chosen by the seeded stream `("group", 0)` so the same seed always gives the
//! same group (and a smaller group of the same seed is a subset of a larger one).

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use crate::rng;
use rand::seq::SliceRandom;

/// How big a random group (or set of senders) is: a percentage of the endpoints it is drawn from,
/// or an exact count.
///
/// The one rule, everywhere a percentage sizes a group (`--group`, `random_group`, the `single`
/// and `many_to_many` workloads): **a percentage counts the endpoints that may be members.** One
/// source's destinations are drawn from the other endpoints, so `--group 95.24%` on 64 endpoints is
/// round(0.9524 × 63) = 60 destinations; a group that several senders share (zhou07 §4's "X% of the
/// nodes multicast to a Y% group", `many_to_many`) and the senders themselves are drawn from all
/// endpoints, so Y% of 128 nodes is round(1.28 Y) members, a sender in the group sending to the
/// others. Rounding is half away from zero, and a percentage gives at least one member. A count
/// (`--group 60`, `group=60`) is exact and must fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GroupSize {
    /// A percentage in (0, 100] of the candidate endpoints.
    Percent(f64),
    /// Exactly this many members.
    Count(u32),
}

impl GroupSize {
    /// Members of a group drawn from `candidates` endpoints (at least 1), or why it cannot be.
    pub fn members(self, candidates: usize) -> Result<usize, String> {
        match self {
            GroupSize::Percent(p) if !(p > 0.0 && p <= 100.0) => Err(format!("{p}% is not in (0, 100]")),
            GroupSize::Percent(p) => Ok(((candidates as f64 * p / 100.0).round() as usize).clamp(1, candidates.max(1))),
            GroupSize::Count(0) => Err("0 members: a group has at least 1".into()),
            GroupSize::Count(c) if c as usize > candidates => {
                Err(format!("{c} members, but only {candidates} endpoints can be in the group"))
            }
            GroupSize::Count(c) => Ok(c as usize),
        }
    }
}

/// `percent`% of the other endpoints (see [`GroupSize`]), sorted by index.
pub fn random_group(f: &Fabric, source: EndpointId, percent: f64, seed: u64) -> Result<Vec<EndpointId>, PlanError> {
    random_group_of(f, source, GroupSize::Percent(percent), seed)
}

/// A random group of `size` of the endpoints other than `source` (see [`GroupSize`]), sorted by
/// index. The draw is one shuffle of the others cut at the group's size, so for one seed a
/// smaller group is a subset of a larger one.
pub fn random_group_of(
    f: &Fabric,
    source: EndpointId,
    size: GroupSize,
    seed: u64,
) -> Result<Vec<EndpointId>, PlanError> {
    let bad = |message| PlanError::Param { param: "group", message };
    if matches!(size, GroupSize::Percent(_)) {
        size.members(1).map_err(bad)?; // a bad percentage is named first, whatever the fabric
    }
    let mut others: Vec<EndpointId> = f.endpoint_ids().filter(|e| *e != source).collect();
    if others.is_empty() {
        return Err(PlanError::Group("the fabric has no endpoint besides the source".into()));
    }
    let want = size.members(others.len()).map_err(bad)?;
    let mut r = rng::stream(seed, "group", 0);
    others.shuffle(&mut r);
    others.truncate(want);
    others.sort_unstable();
    Ok(others)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_counts_the_candidates_and_a_count_is_exact() {
        // issue 10: 95.24% of the 63 others of 64 endpoints is 60 destinations, not 61.
        assert_eq!(GroupSize::Percent(95.24).members(63), Ok(60));
        assert_eq!(GroupSize::Percent(50.0).members(31), Ok(16)); // 15.5: half away from zero
        assert_eq!(GroupSize::Percent(0.1).members(31), Ok(1)); // at least one
        assert_eq!(GroupSize::Percent(100.0).members(31), Ok(31));
        assert_eq!(GroupSize::Count(60).members(63), Ok(60));
        assert!(GroupSize::Count(64).members(63).unwrap_err().contains("only 63"));
        assert!(GroupSize::Count(0).members(63).is_err());
        assert!(GroupSize::Percent(0.0).members(63).is_err());
        assert!(GroupSize::Percent(f64::NAN).members(63).is_err());
    }
}
