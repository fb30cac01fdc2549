//! Drawing endpoints: shares of a fabric, percentages, and distinct random picks, written out so
//! the draws never depend on a library's sampling algorithm.

use super::spec::param;
use crate::error::SimError;
use crate::schemes::group::GroupSize;
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

/// The size a workload gives a group or its senders: the exact count `count` (key `count_key`)
/// or `pct` % (key `pct_key`, `default` when neither is given), never both; see [`GroupSize`] for
/// the one rule of what a percentage counts.
pub(super) fn group_size(
    pct_key: &str,
    pct: Option<f64>,
    count_key: &str,
    count: Option<u32>,
    default: f64,
) -> Result<GroupSize, SimError> {
    match (pct, count) {
        (Some(_), Some(_)) => {
            Err(param(count_key, format!("give {count_key} (members) or {pct_key} (percent), not both")))
        }
        (None, Some(c)) => Ok(GroupSize::Count(c)),
        (p, None) => {
            let p = p.unwrap_or(default);
            if !(p > 0.0 && p <= 100.0) {
                return Err(param(pct_key, format!("{p} is not a percentage in (0, 100]")));
            }
            Ok(GroupSize::Percent(p))
        }
    }
}

/// Members of `size` among `candidates`, an error naming `key` when it cannot be.
pub(super) fn members(key: &str, size: GroupSize, candidates: usize) -> Result<usize, SimError> {
    size.members(candidates).map_err(|m| param(key, m))
}

/// The spec text of a size: `group=60` or `group_pct=95.24`.
pub(super) fn size_spec(pct_key: &str, count_key: &str, size: GroupSize) -> String {
    match size {
        GroupSize::Percent(p) => format!("{pct_key}={p}"),
        GroupSize::Count(c) => format!("{count_key}={c}"),
    }
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
