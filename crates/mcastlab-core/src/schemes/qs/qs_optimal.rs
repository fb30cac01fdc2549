//! `qs_optimal`: coll03 Algorithm 1, the backtracking search for a minimum-depth hardware-based
//! multicast tree on Quadrics k-ary n-trees.
//!
//! At every step the search tries each combination of `|holders|` pending groups (in the heuristic
//! order, so the first combination is the greedy one). A combination with a backward overlap
//! branches into its two splits (right group first, then left); one with a forward overlap branches
//! into one split per group at or above the overlapping level; after a split, combinations of
//! `|holders|` groups of the new list are tried again. An overlap-free combination is a step, and
//! the search recurses on the pending groups left.
//!
//! It starts from the greedy tree's depth (no tree is kept unless strictly shallower) and prunes:
//! - a partial tree that cannot end in fewer steps than the best one stops (the paper's rule ❾:
//!   `steps < best − 1`), using [`qs_tree::lower_bound`] for the steps still needed;
//! - in the last useful step every pending group must be reached, so combinations that leave
//!   something behind are skipped, and so are lists whose repairs cannot end with at most
//!   `|holders|` groups ([`QsNet::min_groups_after_repair`]);
//! - a state (holders, pending groups) already explored at the same or a smaller depth is skipped,
//!   and within a state a list of groups reached by two orders of splits is examined once.
//!
//! Worst case: still exponential — each step may try `C(|pending|, |holders|)` combinations and
//! every overlap doubles (backward) or multiplies by the number of high groups (forward) the lists
//! to try. It is cheap when the greedy depth equals the lower bound (nothing to search: the usual
//! case below 1% faults, coll03 Table 1) and when only the last step is left to improve (no choice
//! of combination). `budget` caps the combinations examined; when it runs out the best tree found
//! so far is returned and [`OptimalTree::proven`] is false.

use super::qs_greedy;
use super::qs_groups::{heuristic_cmp, Holders, Overlap, QsGroup, QsNet};
use super::qs_tree::{self, QsTree};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::ids::EndpointId;
use crate::plan::Plan;
use crate::schemes::interface::{SchemeEntry, SchemeInput};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "qs_optimal",
    summary:
        "Quadrics hardware multicast tree of minimum depth (coll03 Algorithm 1, backtracking seeded by the greedy tree)",
    params: "budget=100000",
    applies_to: "kary_ntree",
    applies: qs_tree::applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// Combinations examined before the search gives up proving optimality: about 5 s in the worst
/// case (4096 endpoints, lists of a few hundred pieces, ~50 µs per combination in release).
pub const DEFAULT_BUDGET: u64 = 100_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "default_budget")]
    budget: u64,
}

fn default_budget() -> u64 {
    DEFAULT_BUDGET
}

/// The result of the search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OptimalTree {
    pub tree: QsTree,
    /// Depth of the greedy tree the search started from.
    pub greedy_depth: u32,
    /// The lower bound on the depth at the start ([`qs_tree::lower_bound`]).
    pub lower_bound: u32,
    /// The search finished within its budget, so no shallower tree exists.
    pub proven: bool,
    /// Combinations examined.
    pub explored: u64,
}

/// The minimum-depth tree from `source` to `groups` (as for [`qs_greedy::solve`]), examining at
/// most `budget` combinations.
pub fn solve(net: &QsNet, source: EndpointId, groups: &[QsGroup], budget: u64) -> Result<OptimalTree, PlanError> {
    solve_with(net, source, groups, budget, &|| true)
}

/// Combinations examined between two questions to `go_on`.
const ASK_EVERY: u64 = 64;

/// [`solve`], asking `go_on` every `ASK_EVERY` combinations whether to go on (a caller that was
/// interrupted); a search told to stop ends as one that ran out of budget (`proven: false`).
pub fn solve_with(
    net: &QsNet,
    source: EndpointId,
    groups: &[QsGroup],
    budget: u64,
    go_on: &dyn Fn() -> bool,
) -> Result<OptimalTree, PlanError> {
    let greedy = qs_greedy::solve(net, source, groups)?;
    let (holders, pending) = qs_tree::start(net, source, groups)?;
    let lower_bound = qs_tree::lower_bound(holders.count(), &pending);
    let greedy_depth = greedy.depth();
    let mut s = Search {
        net,
        best: greedy,
        partial: Vec::new(),
        explored: 0,
        budget,
        exhausted: false,
        memo: HashMap::new(),
        go_on,
    };
    if lower_bound < greedy_depth {
        s.explore(&holders, &pending, 0);
    }
    Ok(OptimalTree { tree: s.best, greedy_depth, lower_bound, proven: !s.exhausted, explored: s.explored })
}

struct Search<'a> {
    net: &'a QsNet,
    best: QsTree,
    partial: Vec<Vec<QsGroup>>,
    explored: u64,
    budget: u64,
    exhausted: bool,
    /// State fingerprint → smallest depth it was explored at.
    memo: HashMap<u128, u32>,
    go_on: &'a dyn Fn() -> bool,
}

/// A 128-bit fingerprint of a state or a list: two multiply-rotate lanes with different constants,
/// each finished by a strong 64-bit mix. The memo keeps fingerprints instead of states (a state
/// holds bit sets over every endpoint); the inputs are not adversarial, so collisions are
/// negligible, and the result is the same on every machine.
fn fingerprint<T: Hash>(x: &T) -> u128 {
    let mut f = Fingerprint { a: 0x243f_6a88_85a3_08d3, b: 0x1319_8a2e_0370_7344 };
    x.hash(&mut f);
    (mix(f.a) as u128) << 64 | mix(f.b) as u128
}

struct Fingerprint {
    a: u64,
    b: u64,
}

impl Hasher for Fingerprint {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, w: u64) {
        self.a = (self.a.rotate_left(5) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.b = (self.b.rotate_left(23) ^ w).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    }
    fn write_u32(&mut self, w: u32) {
        self.write_u64(w as u64);
    }
    fn write_usize(&mut self, w: usize) {
        self.write_u64(w as u64);
    }
    fn finish(&self) -> u64 {
        mix(self.a ^ self.b)
    }
}

/// The 64-bit finalizer of MurmurHash3.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Search<'_> {
    /// No further step can lead to a strictly shallower tree.
    fn stop(&self, depth: u32) -> bool {
        self.exhausted || depth + 1 >= self.best.depth()
    }

    fn explore(&mut self, holders: &Holders, pending: &[QsGroup], depth: u32) {
        if pending.is_empty() {
            if depth < self.best.depth() {
                self.best = QsTree { steps: self.partial.clone() };
            }
            return;
        }
        if depth + qs_tree::lower_bound(holders.count(), pending) >= self.best.depth() {
            return;
        }
        let key = fingerprint(&(holders, pending));
        if self.memo.get(&key).is_some_and(|&d| d <= depth) {
            return;
        }
        self.memo.insert(key, depth);
        let q = (holders.count() as usize).min(pending.len());
        let mut seen = HashSet::new();
        for idx in Combinations::new(pending.len(), q) {
            if self.stop(depth) {
                return;
            }
            let mut cand: Vec<QsGroup> = idx.iter().map(|&i| pending[i]).collect();
            cand.sort_unstable();
            self.try_list(holders, pending, &cand, depth, &mut seen);
        }
    }

    /// Tries every combination of `|holders|` groups of `cand` (left to right) as the next step,
    /// combinations taken in the heuristic order.
    fn try_list(
        &mut self,
        holders: &Holders,
        pending: &[QsGroup],
        cand: &[QsGroup],
        depth: u32,
        seen: &mut HashSet<u128>,
    ) {
        let h = holders.count() as usize;
        // Only a step that reaches every pending group can still improve the best tree, and its
        // repairs cannot end with fewer groups than the bound.
        let last = depth + 2 >= self.best.depth();
        if last && self.net.min_groups_after_repair(holders, cand) > h {
            return;
        }
        // A list that fits the holders is its only combination; otherwise combinations follow the
        // heuristic order.
        let mut rank: Vec<usize> = (0..cand.len()).collect();
        if cand.len() > h {
            rank.sort_unstable_by(|&a, &b| heuristic_cmp(&cand[a], &cand[b]));
        }
        for idx in Combinations::new(cand.len(), h.min(cand.len())) {
            if self.stop(depth) {
                return;
            }
            self.explored += 1;
            if self.explored > self.budget || (self.explored % ASK_EVERY == 0 && !(self.go_on)()) {
                self.exhausted = true;
                return;
            }
            let c: Vec<QsGroup> = if cand.len() > h {
                let mut c: Vec<QsGroup> = idx.iter().map(|&i| cand[rank[i]]).collect();
                c.sort_unstable();
                c
            } else {
                cand.to_vec()
            };
            match self.net.check(holders, &c) {
                Some(Overlap::Backward(ov)) => {
                    let (right, left) = self.net.resolve_backward(&c, &ov);
                    self.try_repair(holders, pending, right, depth, seen);
                    self.try_repair(holders, pending, left, depth, seen);
                }
                Some(Overlap::Forward(level)) => {
                    // Built one at a time: most are cut off by the bound or the depth first.
                    for i in QsNet::split_order(&c, level) {
                        if self.stop(depth) {
                            return;
                        }
                        let alt = self.net.split_group(&c, i);
                        self.try_repair(holders, pending, alt, depth, seen);
                    }
                }
                None => {
                    if !(last && c.len() < cand.len()) {
                        let (nh, np) = qs_tree::advance(self.net, holders, pending, &c);
                        self.partial.push(c);
                        self.explore(&nh, &np, depth + 1);
                        self.partial.pop();
                    }
                }
            }
        }
    }

    /// Tries a repaired list unless this state has already tried it.
    fn try_repair(
        &mut self,
        holders: &Holders,
        pending: &[QsGroup],
        alt: Vec<QsGroup>,
        depth: u32,
        seen: &mut HashSet<u128>,
    ) {
        if seen.insert(fingerprint(&alt)) {
            self.try_list(holders, pending, &alt, depth, seen);
        }
    }
}

/// The `k`-element subsets of `0..n` in lexicographic order.
struct Combinations {
    idx: Vec<usize>,
    n: usize,
    first: bool,
}

impl Combinations {
    fn new(n: usize, k: usize) -> Combinations {
        Combinations { idx: (0..k.min(n)).collect(), n, first: true }
    }
}

impl Iterator for Combinations {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        if self.first {
            self.first = false;
            return Some(self.idx.clone());
        }
        let k = self.idx.len();
        let i = (0..k).rev().find(|&i| self.idx[i] < self.n - k + i)?;
        self.idx[i] += 1;
        for j in i + 1..k {
            self.idx[j] = self.idx[j - 1] + 1;
        }
        Some(self.idx.clone())
    }
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "qs_optimal", p)?;
    if params.budget == 0 {
        return Err(PlanError::Param { param: "budget", message: "must be at least 1".into() });
    }
    let (tree, net, groups) = qs_tree::problem(input, "qs_optimal")?;
    let t = solve(&net, input.source, &groups, params.budget)?;
    qs_tree::build_plan(input, format!("qs_optimal:budget={}", params.budget), &tree, &t.tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_lexicographic_subsets() {
        let all: Vec<Vec<usize>> = Combinations::new(4, 2).collect();
        assert_eq!(all, vec![vec![0, 1], vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3], vec![2, 3]]);
        assert_eq!(Combinations::new(3, 3).count(), 1);
        assert_eq!(Combinations::new(5, 0).collect::<Vec<_>>(), vec![Vec::<usize>::new()]);
        assert_eq!(Combinations::new(6, 3).count(), 20);
    }
}
