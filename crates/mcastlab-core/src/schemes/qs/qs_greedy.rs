//! `qs_greedy`: coll03 Algorithm 2, the greedy hardware-based multicast tree for Quadrics k-ary
//! n-trees.
//!
//! Pending groups are kept in the size-then-level order of §5.3 (bigger groups can reach more
//! groups next step, and at equal size a higher root switch has more disjoint routes). Each step
//! takes the first `|holders|` pending groups. While that combination has an overlap, only the first
//! alternative of Algorithm 1 is followed: a backward overlap splits the positionally right group
//! where the shared block ends; a forward overlap at level `l` splits the least promising group
//! (last in heuristic order) whose root is exactly at `l` ([`QsNet::split_order`]; the paper leaves
//! the choice open, and splitting the *first* group at or above `l` instead gives two-step trees in
//! only about one case in ten at 4096 nodes and 1% faulty, against nine in ten); then the first
//! `|holders|` groups of the new list are taken again. Splitting always ends (level-0 groups cannot overlap), so every step reaches at
//! least one group and the cost is the depth times the splits of a step, each check `O(q·levels)`.

use super::qs_groups::{best, Holders, QsGroup, QsNet};
use super::qs_tree::{self, QsTree};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::ids::EndpointId;
use crate::plan::Plan;
use crate::schemes::interface::{SchemeEntry, SchemeInput};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "qs_greedy",
    summary:
        "Quadrics hardware multicast tree, greedy (coll03 Algorithm 2): parallel contiguous-range multicasts per step",
    params: "",
    applies_to: "kary_ntree",
    applies: qs_tree::applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

/// The greedy tree from `source` to `groups` (disjoint contiguous groups of `net`; a group may
/// contain the source, as in coll03 Fig. 4, and then still has to be reached).
pub fn solve(net: &QsNet, source: EndpointId, groups: &[QsGroup]) -> Result<QsTree, PlanError> {
    let (mut holders, mut pending) = qs_tree::start(net, source, groups)?;
    let mut tree = QsTree::default();
    while !pending.is_empty() {
        let step = greedy_step(net, &holders, &pending);
        (holders, pending) = qs_tree::advance(net, &holders, &pending, &step);
        tree.steps.push(step);
    }
    Ok(tree)
}

/// The groups one greedy step reaches: the first `|holders|` pending groups, repaired by the first
/// alternative of each overlap resolution until none is left. Lists are kept left to right; once the
/// list has no backward overlap only the forward test is repeated, because splitting a group into
/// the pieces below its root's children never creates one (a piece is only wide where the group
/// was, and its outer ends are the group's).
pub fn greedy_step(net: &QsNet, holders: &Holders, pending: &[QsGroup]) -> Vec<QsGroup> {
    let h = holders.count() as usize;
    let mut cand = best(pending, h);
    while let Some(ov) = net.first_backward_overlap(&cand) {
        cand = best(&net.resolve_backward(&cand, &ov).0, h);
    }
    while let Some(level) = net.forward_overlap(holders, &cand) {
        let first = QsNet::first_to_split(&cand, level).expect("a group at the overlapping level");
        let pieces = net.split_children(&cand[first]);
        cand.splice(first..=first, pieces);
        if cand.len() > h {
            cand = best(&cand, h);
        }
    }
    cand
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let _: Params = spec::typed("scheme", "qs_greedy", p)?;
    let (tree, net, groups) = qs_tree::problem(input, "qs_greedy")?;
    let t = solve(&net, input.source, &groups)?;
    qs_tree::build_plan(input, "qs_greedy".into(), &tree, &t)
}
