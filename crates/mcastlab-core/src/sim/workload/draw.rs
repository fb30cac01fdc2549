//! Drawing endpoints: shares of a fabric, percentages, and distinct random picks, written out so
//! the draws never depend on a library's sampling algorithm.

use super::spec::param;
use crate::error::SimError;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Senders, the fixed group (if any), and each sender's number of destinations.
pub(super) type Who = (Vec<u32>, Vec<u32>, Vec<u64>);

/// A source that must be an endpoint of the fabric (`n` endpoints).
pub(super) fn source_ok(s: u32, n: u32) -> Result<(), SimError> {
    if s < n {
        Ok(())
    } else {
        Err(param("source", format!("endpoint {s} is not in the fabric ({n} endpoints)")))
    }
}

/// Endpoints in a share of `pct` % of `n` (rounded, at least one).
pub(super) fn share(pct: f64, n: usize) -> usize {
    ((pct * n as f64 / 100.0).round() as usize).clamp(1, n)
}

pub(super) fn check_pct(name: &str, pct: f64) -> Result<(), SimError> {
    if !(pct > 0.0 && pct <= 100.0) {
        return Err(param(name, format!("{pct} is not a percentage in (0, 100]")));
    }
    Ok(())
}

/// `k` distinct values of `pool`, drawn by a partial Fisher–Yates shuffle (written out so the
/// draws never depend on a library's sampling algorithm), sorted.
pub(super) fn pick(rng: &mut ChaCha8Rng, pool: &mut [u32], k: usize) -> Vec<u32> {
    for i in 0..k {
        let j = i + rng.random_range(0..(pool.len() - i) as u32) as usize;
        pool.swap(i, j);
    }
    let mut out = pool[..k].to_vec();
    out.sort_unstable();
    out
}

/// Everything but `e`.
pub(super) fn others(n: u32, e: u32) -> Vec<u32> {
    (0..n).filter(|&x| x != e).collect()
}
