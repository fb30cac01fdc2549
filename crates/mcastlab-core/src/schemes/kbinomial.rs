//! `kbinomial`: the optimal k-binomial trees of sivaram98 §4.3 for multi-packet multicast with
//! smart-NI (FPFS) forwarding.
//!
//! `N(s, k)` (Lemma 4) counts the nodes a k-binomial tree covers in `s` steps, the source included:
//! `2^s` for `s ≤ k`, else `1 + N(s−1,k) + … + N(s−k,k)`. For a group of `n` nodes (source
//! included) and `m` packets, Theorem 3 picks the `k` in `1..=⌈log2 n⌉` minimizing
//! `L1 + (m−1)·k`, where `L1` is the least `s` with `N(s,k) ≥ n` (ties go to the smaller `k`, which
//! needs fewer NI buffers). The tree is laid on an ordered chain as in Fig. 10: a node covering a
//! segment sends first to the node `N(s−1,k)` places from the segment's right end, then to the node
//! `N(s−2,k)` places before that one, and so on; each child covers the nodes to its right.
//!
//! Theorem 3 is derived for FPFS forwarding. Without `k=`, the plan takes the `k` that minimises
//! the step model's completion (`plan/steps.rs`) *for the discipline in use* ([`auto_k`]): under
//! host forwarding a node forwards only the whole message, so every tree level costs `m` packet
//! sends per child and Theorem 3 applies with `m = 1` (least `L1`, i.e. binomial depth); under
//! FCFS the cost is computed on the tree itself. Theorem 3's FPFS `k` under host forwarding
//! degenerates to a chain for long messages, which is several times slower.

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::{Discipline, Plan};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::num::NonZeroU32;

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "kbinomial",
    summary: "optimal k-binomial tree for m packets (sivaram98 §4.3, Theorem 3), contention-free construction",
    params: "k=<auto> order=index|given|poc",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    // Not modelled: choosing k (Theorem 3) walks Lemma 4's table once per candidate k, a cost
    // that depends on L1 of each k and that the count of the other trees leaves out.
    creation: crate::plan::creation::not_modelled,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default)]
    k: Option<u32>,
    #[serde(default = "order::default_order")]
    order: String,
}

/// `N(0..=s, k)` of Lemma 4, computed incrementally, up to the first `s` for which
/// `stop(s, N(s, k))` holds. A running window sum keeps it O(s) whatever `k` is. Every value is
/// exact: the table ends before the first `N` that 128 bits cannot hold, and says so
/// (`Table::full`), so that no value stands for "too large" (2^128 − 1 itself is exact:
/// N(128, 127)).
fn table_upto(k: u32, stop: impl Fn(u32, u128) -> bool) -> Table {
    let mut t: Vec<u128> = Vec::new();
    let mut window: u128 = 0; // N(s−1) + … + N(s−k) for the next s
    let mut s = 0u32;
    loop {
        let v = if s <= k { 1u128.checked_shl(s) } else { window.checked_add(1) };
        let Some(v) = v else { return Table { values: t, full: true } };
        t.push(v);
        if stop(s, v) {
            return Table { values: t, full: false };
        }
        // The next window: N(s−k) leaves it (first, so that a window that fits is not refused on
        // the way), N(s) joins it. Past 128 bits only if the next N is too (it is the window + 1,
        // or 2^(s+1) while s < k, which is larger), so the table ends there.
        let kept = if s >= k { window - t[(s - k) as usize] } else { window };
        let Some(w) = kept.checked_add(v) else { return Table { values: t, full: true } };
        window = w;
        s += 1;
    }
}

/// Lemma 4's values from `N(0, k)` on, and whether they end because the next one exceeds 128 bits
/// (`full`) rather than where the caller asked.
struct Table {
    values: Vec<u128>,
    full: bool,
}

/// `N(s, k)` of Lemma 4: nodes a k-binomial tree covers in `s` steps, the source included. `k`
/// is at least 1: a node of a 0-binomial tree sends to nobody. The value is exact or an error:
/// past 2^128 − 1, the most 128 bits hold (from `s` = 128 for large `k`), it is refused naming
/// `s`.
pub fn n_covered(s: u32, k: u32) -> Result<u128, PlanError> {
    let k = at_least_one("k", k, "a node of a k-binomial tree sends to up to k children")?;
    covered(s, k).ok_or_else(|| PlanError::Param {
        param: "s",
        message: format!("N({s}, {k}) exceeds 2^128 - 1, past what is computed exactly (128 bits); take fewer steps"),
    })
}

/// `N(s, k)`, or `None` past 128 bits.
fn covered(s: u32, k: NonZeroU32) -> Option<u128> {
    match k.get() {
        1 => Some(s as u128 + 1),
        // The table ends where N leaves 128 bits, so that `s` near 2^32 does not build a table of
        // 2^32 entries (64 GiB) on the way.
        k => {
            let table = table_upto(k, |t, _| t == s);
            (!table.full).then(|| *table.values.last().expect("N(0, k) fits"))
        }
    }
}

/// Least `s` with `N(s, k) ≥ n` (L1 of a k-binomial tree over `n` nodes, the source included).
pub fn steps_needed(n: u64, k: u32) -> Result<u32, PlanError> {
    let k = at_least_one("k", k, "a node of a k-binomial tree sends to up to k children")?;
    Ok(steps_for(n, k))
}

fn steps_for(n: u64, k: NonZeroU32) -> u32 {
    if n <= 1 {
        return 0;
    }
    match k.get() {
        1 => (n - 1).min(u32::MAX as u64) as u32,
        k if k >= ceil_log2(n) => ceil_log2(n),
        // N(s, k) ≥ s + 1 and grows at least as Fibonacci's numbers for k ≥ 2: it passes any 64-bit
        // n (by s = 93) long before 128 bits (s = 185).
        k => (table_upto(k, |_, v| v >= n as u128).values.len() - 1) as u32,
    }
}

/// `value` as a `NonZeroU32`, or an error naming `param` and saying `why` it must be positive.
fn at_least_one(param: &'static str, value: u32, why: &str) -> Result<NonZeroU32, PlanError> {
    NonZeroU32::new(value)
        .ok_or_else(|| PlanError::Param { param, message: format!("must be at least 1 ({why}), got 0") })
}

/// `⌈log2 n⌉`.
pub fn ceil_log2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// Theorem 3: the optimal `k` for `n` nodes (source included, so at least 2) and `m` packets (at
/// least 1), with `L1` and the total `L1 + (m−1)·k` in steps.
pub fn optimal_k(n: u64, m: u32) -> Result<(u32, u32, u64), PlanError> {
    if n < 2 {
        return Err(PlanError::Param {
            param: "n",
            message: format!("must be at least 2 (the source and one destination), got {n}"),
        });
    }
    at_least_one("m", m, "a message has at least one packet")?;
    let mut best = (0u32, 0u32, u64::MAX);
    for k in (1..=ceil_log2(n)).filter_map(NonZeroU32::new) {
        let l1 = steps_for(n, k);
        let total = l1 as u64 + (m as u64 - 1) * k.get() as u64;
        if total < best.2 {
            best = (k.get(), l1, total);
        }
    }
    Ok(best)
}

/// The `k` a plan takes without `k=`: the one whose k-binomial tree over `n` nodes (source
/// included) completes first in the step model for `m` packets under `discipline`, ties to the
/// smaller `k` (fewer children, fewer buffers and sends per node).
///
/// - FPFS: Theorem 3, `L1 + (m−1)·k`.
/// - Host: a node forwards after the whole message, child by child, so child `i` has it `i·m`
///   steps after its parent: completion is `m·L1`, minimised by Theorem 3's `k` for `m = 1`.
/// - FCFS: child `i` gets its first packet `(i−1)·m + 1` steps after its parent and the packets
///   stream behind it, so completion is the costliest root-to-leaf path plus `m − 1`
///   ([`fcfs_steps`]); no closed form is known, so every `k` is evaluated.
///
/// Tests check the choice against the step model run on the plans themselves.
pub fn auto_k(n: u64, m: u32, discipline: Discipline) -> Result<NonZeroU32, PlanError> {
    const WHY: &str = "Theorem 3 picks k from 1 up";
    match discipline {
        Discipline::NiFpfs => at_least_one("k", optimal_k(n, m)?.0, WHY),
        Discipline::Host => at_least_one("k", optimal_k(n, 1)?.0, WHY),
        Discipline::NiFcfs => {
            optimal_k(n, m)?; // the same checks of n and m
            let by_k = (1..=ceil_log2(n)).filter_map(NonZeroU32::new).map(|k| (fcfs_steps(n, k, m), k));
            Ok(by_k.min().map_or(NonZeroU32::MIN, |(_, k)| k))
        }
    }
}

/// Step-model completion offset of a k-binomial tree over `n` nodes under FCFS with `m` packets:
/// the costliest root-to-leaf path, an edge to the `i`-th child costing `(i−1)·m + 1`, plus the
/// `m − 1` packets streaming behind the first. Segments of equal size split alike, so the cost is
/// memoised by size (a few hundred sizes even for 65,536 nodes).
pub fn fcfs_steps(n: u64, k: NonZeroU32, m: u32) -> u64 {
    fn path(size: usize, k: NonZeroU32, m: u64, memo: &mut BTreeMap<usize, u64>) -> u64 {
        if let Some(&c) = memo.get(&size) {
            return c;
        }
        let c = split(k, 0, size)
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| i as u64 * m + 1 + path(b - a, k, m, memo))
            .max()
            .unwrap_or(0);
        memo.insert(size, c);
        c
    }
    if n <= 1 {
        return 0;
    }
    path(n as usize, k, m as u64, &mut BTreeMap::new()) + m as u64 - 1
}

/// Children (and segment ends) of the node at `at` covering `at..end` in a k-binomial tree.
///
/// With `s = L1` steps the `i`-th child may cover at most `N(s−i, k)` nodes. When the segment is
/// smaller than `N(s, k)` the sizes are chosen so that every one of the `min(k, s)` child slots
/// gets a node (while the rest still fits the later slots): a node then never has more children
/// than its ancestors, which is the premise of the pipelined model (Theorem 2, §4.3.2). For a full
/// segment this is exactly Fig. 10: the first child sits `N(s−1, k)` places from the right end.
pub fn split(k: NonZeroU32, at: usize, end: usize) -> Vec<(usize, usize)> {
    let size = (end - at) as u64;
    if size <= 1 {
        return Vec::new();
    }
    let (s, k) = (steps_for(size, k), k.get());
    if k == 1 {
        // A chain: N(s−1, 1) = size − 1, the whole rest.
        return vec![(at + 1, end)];
    }
    let slots = k.min(s);
    // N(0..=s−1, k), looked up below.
    let table = table_upto(k, |t, _| t + 1 >= s).values;
    let cap = |i: u32| table[(s - i) as usize];
    let mut out = Vec::with_capacity(slots as usize);
    let mut right = end;
    let mut rem = (size - 1) as u128;
    for i in 1..=slots {
        if rem == 0 {
            break;
        }
        let cap_after: u128 = ((i + 1)..=slots).map(cap).fold(0u128, |a, b| a.saturating_add(b));
        let later = ((slots - i) as u128).min(rem - 1);
        let want = (rem.saturating_sub(cap_after)).max(cap(i).min(rem - later));
        let child = right - want as usize;
        out.push((child, right));
        right = child;
        rem -= want;
    }
    out
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "kbinomial", p)?;
    let chain = order::chain_for(input, &params.order)?;
    let n = chain.len() as u64;
    let k = match params.k {
        Some(k) => at_least_one("k", k, "a node of a k-binomial tree sends to up to k children")?,
        None => auto_k(n, input.packets, input.discipline)?,
    };
    let name = format!("kbinomial:k={k},order={},discipline={}", params.order, tree::discipline_name(input.discipline));
    tree::build(input, name, &chain, &|at, end| split(k, at, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(e: PlanError) -> &'static str {
        match e {
            PlanError::Param { param, .. } => param,
            other => panic!("not a parameter error: {other}"),
        }
    }

    #[test]
    fn degenerate_arguments_are_refused_naming_the_parameter() {
        assert_eq!(param(optimal_k(0, 3).unwrap_err()), "n");
        assert_eq!(param(optimal_k(1, 3).unwrap_err()), "n");
        assert_eq!(param(optimal_k(5, 0).unwrap_err()), "m");
        assert_eq!(param(n_covered(3, 0).unwrap_err()), "k");
        assert_eq!(param(steps_needed(8, 0).unwrap_err()), "k");
        assert!(optimal_k(0, 0)
            .unwrap_err()
            .to_string()
            .contains("must be at least 2 (the source and one destination), got 0"));
    }

    #[test]
    fn the_smallest_valid_arguments_have_their_values() {
        // Two nodes: one step whatever k; N(0, k) = 1, the source alone.
        assert_eq!(optimal_k(2, 1), Ok((1, 1, 1)));
        assert_eq!(n_covered(0, 1), Ok(1));
        assert_eq!(steps_needed(1, 1), Ok(0));
    }

    #[test]
    fn a_huge_step_count_saturates_without_a_table_of_that_length() {
        // N(s, 2) grows like Fibonacci and leaves u128 near s = 185; u32::MAX steps must not
        // build a 64 GiB table on the way, and a value past 128 bits is refused, not returned.
        assert!(matches!(n_covered(u32::MAX, 2), Err(PlanError::Param { param: "s", .. })));
        assert!(matches!(n_covered(u32::MAX, u32::MAX), Err(PlanError::Param { param: "s", .. })));
        assert_eq!(n_covered(u32::MAX, 1), Ok(u32::MAX as u128 + 1));
    }

    #[test]
    fn the_last_values_that_fit_in_128_bits_are_exact() {
        // N(s, k) = 2^s for s ≤ k: 2^127 fits, 2^128 does not.
        assert_eq!(n_covered(127, 127), Ok(1u128 << 127));
        assert_eq!(n_covered(127, 200), Ok(1u128 << 127));
        assert!(matches!(n_covered(128, 128), Err(PlanError::Param { param: "s", .. })));
        // N(128, 127) = 1 + 2^127 + … + 2^1 = 2^128 − 1: the most 128 bits hold, and exact (it was
        // refused as saturated when u128::MAX stood for "too large").
        assert_eq!(n_covered(128, 127), Ok(u128::MAX));
        // N(129, 127) = 1 + N(128) + … + N(2) is past it.
        assert!(matches!(n_covered(129, 127), Err(PlanError::Param { param: "s", .. })));
        // With k = 2, the largest s that fits, by the recurrence written out in u128.
        let mut n: Vec<u128> = vec![1, 2, 4];
        while let Some(x) = n[n.len() - 1].checked_add(n[n.len() - 2]).and_then(|x| x.checked_add(1)) {
            n.push(x);
        }
        let last = n.len() as u32 - 1;
        assert_eq!(n_covered(last, 2), Ok(n[last as usize]));
        assert!(n_covered(last + 1, 2).is_err());
    }
}
