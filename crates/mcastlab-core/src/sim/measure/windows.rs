//! The measurement windows of a workload run in picoseconds, from its settings ([`Measure`], a
//! parameter group defined in `sim::params::measure`).

use crate::sim::params::Measure;
use crate::sim::units::Time;

/// Samples of occupancy per batch.
pub(crate) const TICKS_PER_BATCH: u64 = 10;

/// A [`Measure`] in picoseconds for one run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Windows {
    pub warmup: u64,
    pub batch: u64,
    pub batches: u64,
    /// End of the measurement window.
    pub end: u64,
    pub tick: u64,
    pub drain_limit: u64,
}

impl Measure {
    /// The windows in picoseconds for a run whose cycle is `cycle_ps`.
    pub(crate) fn windows(&self, cycle_ps: u64) -> Windows {
        let batch = self.batch.map_or(10_000 * cycle_ps, Time::ps).max(1);
        let warmup = self.warmup.map_or(3 * batch, Time::ps);
        let batches = self.batches as u64;
        let end = warmup + batches * batch;
        let tick = if batch % TICKS_PER_BATCH == 0 { batch / TICKS_PER_BATCH } else { batch };
        Windows { warmup, batch, batches, end, tick, drain_limit: self.drain_limit.map_or(10 * end, Time::ps) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_default_to_booksims_schedule() {
        let w = Measure::default().windows(1_000);
        assert_eq!((w.batch, w.warmup, w.end, w.tick), (10_000_000, 30_000_000, 80_000_000, 1_000_000));
        let bad = Measure { batches: 0, ..Measure::default() }.validate().unwrap_err();
        assert!(bad.to_string().starts_with("parameter `measure.batches`"), "{bad}");
    }
}
