//! Tree-creation work (oral §4.4): what a scheme computes on a host before its multicast can start
//! (ordering the group, partitioning it, finding each member's children), counted in elementary
//! operations (a key comparison, a copy or move of one member's address, one division) and turned
//! into host time by a cost per operation that the caller passes in.
//!
//! oral builds every tree at the start of the algorithm on every member, off the critical path
//! (§4.1), and reports its latency apart from the multicast's (§4.4, Fig. 4(b)); so does this
//! module: it is a static figure of the plan report, not something the simulator charges. Each
//! scheme states its own count through the `creation` hook of its registry entry
//! ([`crate::schemes::SchemeEntry`]), built from the helpers below; each count says in its doc
//! comment which step of the algorithm it comes from. The counts are of the algorithms as mcastlab
//! builds them (one node computing the whole structure, as oral's members each do), not of oral's
//! code, which the paper does not show: they rank schemes by the work they do, they do not
//! reproduce Fig. 4(b)'s microseconds.

use super::{Plan, Trigger};
use crate::fabric::Fabric;
use serde::Serialize;
use serde_json::{Map, Value};

/// Host time per elementary operation when the caller names none: 2 ns, a couple of cycles of the
/// 1 GHz Pentium III hosts of oral §4.1 for a comparison or a copy from cache. Chosen, not from
/// the paper (oral gives no per-operation cost).
pub const DEFAULT_NS_PER_OP: f64 = 2.0;

/// The largest host time per operation a check takes: 10^15 ns (eleven days), beyond any host.
/// Why a bound: the creation latency is operations × ns/op, and with up to 2^64 operations any
/// larger value could overflow to infinity, which JSON cannot carry (a fuzzed 7.19e306 did).
pub const MAX_NS_PER_OP: f64 = 1e15;

/// Elementary operations of building one multicast's structure, by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Operations {
    /// Ranking, sorting and rotating the group (oral §3's Φ′ and Θ′).
    pub ordering: u64,
    /// Splitting the ordered group into subsets and finding every member's children.
    pub partitioning: u64,
}

impl Operations {
    pub fn total(&self) -> u64 {
        self.ordering + self.partitioning
    }
}

/// Tree-creation cost of a plan as the check reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CreationCost {
    pub ordering_ops: u64,
    pub partitioning_ops: u64,
    /// `ordering_ops + partitioning_ops`.
    pub operations: u64,
    /// The host cost per operation this report used.
    pub ns_per_op: f64,
    /// `operations × ns_per_op`: host time to build the structure, off the multicast's critical
    /// path (oral §4.1).
    pub latency_ns: f64,
}

impl CreationCost {
    pub fn new(ops: Operations, ns_per_op: f64) -> CreationCost {
        CreationCost {
            ordering_ops: ops.ordering,
            partitioning_ops: ops.partitioning,
            operations: ops.total(),
            ns_per_op,
            latency_ns: ops.total() as f64 * ns_per_op,
        }
    }
}

/// What a scheme's creation hook sees: the plan it built (group size, transmissions), the fabric
/// (torus dimensions) and the parameters of the plan's recorded scheme spec.
pub struct CreationInput<'a> {
    pub fabric: &'a Fabric,
    pub plan: &'a Plan,
    pub params: &'a Map<String, Value>,
}

impl CreationInput<'_> {
    /// Members of the multicast group, the source included (oral §3's group size d).
    pub fn group(&self) -> u64 {
        self.plan.destinations.len() as u64 + 1
    }
    /// A string parameter of the recorded scheme spec.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(Value::as_str)
    }
    /// A whole-number parameter of the recorded scheme spec.
    pub fn param_u64(&self, key: &str) -> Option<u64> {
        self.params.get(key).and_then(Value::as_u64)
    }
}

/// A scheme's creation hook: its operation count, or `None` when the scheme's construction is not
/// modelled (worm schedulers, switch-table schemes, orderings that walk the fabric).
pub type CreationFn = fn(&CreationInput<'_>) -> Option<Operations>;

/// The hook of schemes whose construction is not modelled: the report then says so rather than
/// showing a number that stands for nothing.
pub fn not_modelled(_: &CreationInput<'_>) -> Option<Operations> {
    None
}

/// ⌈log2 n⌉, 0 for n ≤ 1.
fn ceil_log2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        64 - u64::from((n - 1).leading_zeros())
    }
}

/// Comparisons to sort `n` keys: `n·⌈log2 n⌉`, the merge-sort bound (the order of any comparison
/// sort).
pub fn sort(n: u64) -> u64 {
    n * ceil_log2(n)
}

/// Ordering a group of `n` members under a chain ordering of `order.rs`: `index` (the dimension
/// order Φ of oral §3 on a torus) sorts the members and rotates the source to the front (n moves);
/// `given` only copies the user's list (n). `poc` walks the up*/down* tree (sivaram98 Fig. 13),
/// work that depends on the fabric and is not counted: `None`.
pub fn ordering(order: &str, n: u64) -> Option<u64> {
    match order {
        "index" => Some(sort(n) + n),
        "given" => Some(n),
        _ => None,
    }
}

/// Σ over the plan's members of their depth in the forwarding tree, which equals Σ over every
/// transmission of the number of members below and including its receivers: the size of the
/// subset each split hands to the child it creates (U-torus sends its D_subset with the message,
/// oral §3). This is the partitioning work of recursive halving or doubling: `(n/2)·log2 n` for a
/// binomial tree over `n = 2^k` members, O(n log n) in general.
pub fn subset_handover(plan: &Plan) -> u64 {
    let mut depth = vec![0u64; plan.transmissions.len()];
    let mut sum = 0;
    for (i, t) in plan.transmissions.iter().enumerate() {
        depth[i] = match t.trigger {
            Trigger::Start => 1,
            // Plans only trigger on earlier transmissions (`Plan::from_transmissions`).
            Trigger::AfterMessage { from } | Trigger::PerPacket { from } => depth[from as usize] + 1,
        };
        sum += depth[i] * t.delivers.len() as u64;
    }
    sum
}

/// Host time of `ops` at `ns_per_op`, with the report's fields.
pub fn cost(ops: Option<Operations>, ns_per_op: f64) -> Option<CreationCost> {
    ops.map(|o| CreationCost::new(o, ns_per_op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_is_n_ceil_log2_n() {
        assert_eq!(sort(0), 0);
        assert_eq!(sort(1), 0);
        assert_eq!(sort(2), 2);
        assert_eq!(sort(5), 15); // 5·⌈log2 5⌉ = 5·3
        assert_eq!(sort(16), 64); // 16·4
        assert_eq!(sort(17), 85); // 17·5
    }

    #[test]
    fn orderings() {
        assert_eq!(ordering("index", 16), Some(80)); // sort 64 + rotation 16
        assert_eq!(ordering("given", 16), Some(16));
        assert_eq!(ordering("poc", 16), None);
    }

    #[test]
    fn latency_is_operations_times_cost() {
        let c = CreationCost::new(Operations { ordering: 80, partitioning: 32 }, 2.5);
        assert_eq!(c.operations, 112);
        assert_eq!(c.latency_ns, 280.0);
    }
}
