//! `qs_software`: the QsNET system software's fallback when the destinations are not contiguous
//! (coll03 §4, ref. 13): a balanced tree of unicast messages.
//!
//! On the ordered chain (source first) a node covering a segment splits the rest of it into
//! `branching` consecutive parts of equal size (the first ones one larger when it does not divide)
//! and sends to the first node of each, which covers its part in turn; all depths stay within one of
//! each other. coll03 does not give the branching factor; it defaults to 4, the Elite switch's
//! arity. Being made of unicasts it needs only the base routing, so it applies to every fabric,
//! which makes it the baseline for the hardware trees on the same groups.

use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::Plan;
use crate::schemes::interface::{any_fabric, SchemeEntry, SchemeInput};
use crate::schemes::order;
use crate::schemes::tree;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "qs_software",
    summary: "balanced unicast tree, the QsNET software multicast for non-contiguous groups (coll03 §4)",
    params: "branching=4 order=index|given",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: crate::plan::creation::not_modelled,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "default_branching")]
    branching: u32,
    #[serde(default = "order::default_order")]
    order: String,
}

fn default_branching() -> u32 {
    4
}

/// Children of chain position `at` covering `at..end` in a balanced tree of fan-out `branching`.
pub fn split(branching: u32, at: usize, end: usize) -> Vec<(usize, usize)> {
    let rest = end - at - 1;
    let parts = (branching as usize).min(rest);
    let mut out = Vec::with_capacity(parts);
    let mut child = at + 1;
    for i in 0..parts {
        let size = rest / parts + usize::from(i < rest % parts);
        out.push((child, child + size));
        child += size;
    }
    out
}

/// Depth of the balanced tree over `n` nodes (the source included).
pub fn depth(branching: u32, n: usize) -> u32 {
    fn go(b: u32, size: usize) -> u32 {
        split(b, 0, size).iter().map(|&(c, e)| 1 + go(b, e - c)).max().unwrap_or(0)
    }
    go(branching, n)
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "qs_software", p)?;
    if params.branching == 0 {
        return Err(PlanError::Param { param: "branching", message: "must be at least 1".into() });
    }
    let chain = order::chain(input.source, input.destinations, &params.order)?;
    let name = format!(
        "qs_software:branching={},order={},discipline={}",
        params.branching,
        params.order,
        tree::discipline_name(input.discipline)
    );
    tree::build(input, name, &chain, &|at, end| split(params.branching, at, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_parts() {
        // 13 destinations under the source, fan-out 4: parts of 4, 3, 3, 3.
        assert_eq!(split(4, 0, 14), vec![(1, 5), (5, 8), (8, 11), (11, 14)]);
        assert_eq!(split(4, 0, 3), vec![(1, 2), (2, 3)]);
        assert!(split(4, 5, 6).is_empty());
        assert_eq!(split(1, 0, 4), vec![(1, 4)]);
        assert_eq!(depth(4, 14), 2);
        assert_eq!(depth(4, 5), 1);
        assert_eq!(depth(4, 21), 2);
        assert_eq!(depth(4, 22), 3);
        assert_eq!(depth(2, 8), 3);
    }
}
