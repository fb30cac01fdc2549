//! `permutation`: every endpoint sends unicasts to one fixed destination, a permutation of the
//! endpoint numbers, as BookSim's deterministic traffic patterns do (its `bitrev`, `bitcomp`,
//! `transpose` and `shuffle`, on N = 2^b endpoints, source i's b-bit number mapped as below). An
//! endpoint the pattern maps to itself sends to itself, through its own switch and back, as in
//! BookSim. Such patterns are the adversaries of oblivious routings: under `bitrev` the four
//! endpoints of a 4-ary n-tree's leaf switch all send to destinations with one low digit, so
//! `nca`'s dmodk climbs through one up port where adaptive or random choices use all four.

use super::draw::Who;
use super::spec::{param, SpecParams};
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How source i (b bits) finds its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// The bits of i in reverse order.
    Bitrev,
    /// Every bit of i inverted.
    Bitcomp,
    /// The high and low halves of i swapped (b even).
    Transpose,
    /// i rotated left by one bit.
    Shuffle,
}

impl Pattern {
    fn name(self) -> &'static str {
        match self {
            Pattern::Bitrev => "bitrev",
            Pattern::Bitcomp => "bitcomp",
            Pattern::Transpose => "transpose",
            Pattern::Shuffle => "shuffle",
        }
    }

    /// The destination of source `i` among 2^`b` endpoints.
    pub fn destination(self, i: u32, b: u32) -> u32 {
        let mask = if b == 0 { 0 } else { u32::MAX >> (32 - b) };
        match self {
            Pattern::Bitrev if b == 0 => 0,
            Pattern::Bitrev => i.reverse_bits() >> (32 - b),
            Pattern::Bitcomp => !i & mask,
            Pattern::Transpose => ((i << (b / 2)) | (i >> (b / 2))) & mask,
            Pattern::Shuffle if b == 0 => 0,
            Pattern::Shuffle => ((i << 1) | (i >> (b - 1))) & mask,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permutation {
    pub pattern: Pattern,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    let Some(text) = &p.pattern else {
        return Err(param("pattern", "workload permutation needs a pattern: bitrev, bitcomp, transpose or shuffle"));
    };
    let pattern = serde_json::from_value(serde_json::Value::String(text.clone())).map_err(|_| {
        param("pattern", format!("unknown pattern `{text}`; known: bitrev, bitcomp, transpose, shuffle"))
    })?;
    Ok(Traffic::Permutation(Permutation { pattern }))
}

/// b for a fabric of `n` = 2^b endpoints.
fn bits(n: u32, pattern: Pattern) -> Result<u32, SimError> {
    if !n.is_power_of_two() {
        return Err(param(
            "pattern",
            format!("{} needs a power-of-two number of endpoints (this fabric has {n})", pattern.name()),
        ));
    }
    let b = n.trailing_zeros();
    if pattern == Pattern::Transpose && b % 2 == 1 {
        return Err(param("pattern", format!("transpose needs 4^j endpoints (this fabric has {n})")));
    }
    Ok(b)
}

impl Kind for Permutation {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "permutation",
        summary: "unicasts to a fixed partner: BookSim's bitrev, bitcomp, transpose, shuffle",
        params: "pattern=bitrev|bitcomp|transpose|shuffle load=X",
        keys: &["pattern"],
        parse,
        needs_load: true,
        default_count: 1,
        unicast: true,
    };

    fn spec(&self) -> String {
        format!("permutation:pattern={}", self.pattern.name())
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        bits(n, self.pattern)?;
        Ok(((0..n).collect(), Vec::new(), vec![1; n as usize]))
    }

    fn destinations(&self, s: u32, shape: &Shape, _rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.push(self.pattern.destination(s, shape.n.trailing_zeros()))
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    #[test]
    fn patterns_are_booksims_permutations() {
        // 16 endpoints, b = 4: 0b0001 → bitrev 0b1000, bitcomp 0b1110, transpose 0b0100,
        // shuffle 0b0010.
        let d = |p: Pattern| p.destination(1, 4);
        assert_eq!(
            (d(Pattern::Bitrev), d(Pattern::Bitcomp), d(Pattern::Transpose), d(Pattern::Shuffle)),
            (8, 14, 4, 2)
        );
        for p in [Pattern::Bitrev, Pattern::Bitcomp, Pattern::Transpose, Pattern::Shuffle] {
            let mut all: Vec<u32> = (0..64).map(|i| p.destination(i, 6)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..64).collect::<Vec<_>>(), "{p:?} is a permutation");
        }
    }
}
