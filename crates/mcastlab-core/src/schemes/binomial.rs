//! `binomial`: the classical binomial spanning tree (recursive doubling), ⌈log2 n⌉ steps for one
//! packet (sivaram98 §3.3, §4.3.1; LFC's default NI-level tree in bhoedjang98). The member at
//! relative rank `r` sits at depth popcount(r) and sends to `r + 2^j` for every `2^j` below its
//! lowest set bit, the largest subtree first. For a power-of-two group this is also the
//! k-binomial tree with k = log2 n; for other sizes it is shallower at the bottom (bhoedjang98's
//! 61-processor tree has 4 members on its 6th level and a maximum fan-out of 6).

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{self, CreationInput, Operations};
use crate::plan::Plan;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "binomial",
    summary: "binomial tree (recursive doubling) over the ordered group",
    params: "order=index|given|poc",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: creation_work,
};

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: order::OrderParams = spec::typed("scheme", "binomial", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let name = format!("binomial:order={},discipline={}", params.order, tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &split)
}

/// Children of `at` covering `at..end`: halve the segment at the largest power of two below its
/// size, repeatedly, sending to the upper half first.
pub fn split(at: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut right = end;
    while right - at > 1 {
        let half = (right - at).next_power_of_two() / 2;
        out.push((at + half, right));
        right = at + half;
    }
    out
}

/// Ordering the group, then recursive doubling: every split hands the child it creates the subset
/// it will cover ([`creation::subset_handover`], O(n log n)).
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations { ordering: order::ordering_ops(c)?, partitioning: creation::subset_handover(c.plan) })
}

#[cfg(test)]
mod tests {
    use super::split;

    /// Depth of every rank in the tree `split` builds over `0..n`.
    fn depths(n: usize) -> Vec<u32> {
        let mut d = vec![0u32; n];
        let mut stack = vec![(0usize, n)];
        while let Some((at, end)) = stack.pop() {
            for (c, e) in split(at, end) {
                d[c] = d[at] + 1;
                stack.push((c, e));
            }
        }
        d
    }

    #[test]
    fn rank_depth_is_its_popcount() {
        for n in 1..130 {
            let d = depths(n);
            for (r, depth) in d.iter().enumerate() {
                assert_eq!(*depth, (r as u32).count_ones(), "n={n} r={r}");
            }
        }
    }
}
