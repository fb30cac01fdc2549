//! `binomial`: the binomial tree (recursive doubling), ⌈log2 n⌉ steps for one packet — the
//! k-binomial tree with k unbounded (sivaram98 §3.3, §4.3.1).

use super::{any_fabric, kbinomial, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::Plan;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "binomial",
    summary: "binomial tree (recursive doubling) over the ordered group",
    params: "order=index|given|poc",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
};

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: order::OrderParams = spec::typed("scheme", "binomial", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let k = kbinomial::ceil_log2(chain.len() as u64).max(1);
    let name = format!("binomial:order={},discipline={}", params.order, tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &|at, end| kbinomial::split(k, at, end))
}
