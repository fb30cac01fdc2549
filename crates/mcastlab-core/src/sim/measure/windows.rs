//! The measurement windows of a workload run in picoseconds, from its settings ([`Measure`], a
//! parameter group defined in `sim::params::measure`).

use crate::sim::params::Measure;
use crate::sim::units::Time;
use crate::sim::workload::Shape;

/// Samples of occupancy per batch.
pub(crate) const TICKS_PER_BATCH: u64 = 10;

/// BookSim's batch (its `sample_period`), in cycles: the default batch's floor.
const DEFAULT_BATCH_CYCLES: u64 = 10_000;

/// Messages the senders together create, on average, in a default batch at the least.
const MESSAGES_PER_BATCH: f64 = 100.0;

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
    /// The windows in picoseconds for a run of `shape` (its cycle and message rate).
    pub(crate) fn windows(&self, shape: &Shape) -> Windows {
        self.windows_at(shape.cycle_ps, default_batch_ps(shape))
    }

    /// The windows for a run whose cycle is `cycle_ps` and whose default batch is `default_ps`.
    fn windows_at(&self, cycle_ps: u64, default_ps: u64) -> Windows {
        let batch = self.batch.map_or(default_ps.max(DEFAULT_BATCH_CYCLES * cycle_ps), Time::ps).max(1);
        let warmup = self.warmup.map_or(3 * batch, Time::ps);
        let batches = self.batches as u64;
        let end = warmup + batches * batch;
        let tick = if batch % TICKS_PER_BATCH == 0 { batch / TICKS_PER_BATCH } else { batch };
        Windows { warmup, batch, batches, end, tick, drain_limit: self.drain_limit.map_or(10 * end, Time::ps) }
    }
}

/// The batch in which `shape`'s senders together create [`MESSAGES_PER_BATCH`] messages on
/// average (0 for bursts, which have no rate): long messages at a low rate need a longer batch
/// than BookSim's 10,000 cycles for its statistics to rest on more than a few messages. Rounded
/// up to a whole number of cycles.
fn default_batch_ps(shape: &Shape) -> u64 {
    let per_ps = shape.rate_per_ps * shape.senders.len() as f64;
    if !(per_ps > 0.0 && per_ps.is_finite()) {
        return 0;
    }
    let cycles = (MESSAGES_PER_BATCH / per_ps / shape.cycle_ps as f64).ceil();
    (cycles.min(1e12) as u64).saturating_mul(shape.cycle_ps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_default_to_booksims_schedule() {
        let w = Measure::default().windows_at(1_000, 0);
        assert_eq!((w.batch, w.warmup, w.end, w.tick), (10_000_000, 30_000_000, 80_000_000, 1_000_000));
        let bad = Measure { batches: 0, ..Measure::default() }.validate().unwrap_err();
        assert!(bad.to_string().starts_with("parameter `measure.batches`"), "{bad}");
    }

    #[test]
    fn the_default_batch_holds_a_hundred_messages() {
        // 8-flit packets at 0.1 on 64 nodes: 0.8 messages a cycle, BookSim's 10,000 cycles stay.
        let w = Measure::default().windows_at(1_000, 125 * 1_000);
        assert_eq!(w.batch, 10_000_000);
        // 1024-flit messages at 0.01 from 32 senders: one message each per 102,400 cycles, so
        // 100 messages take 320,000 cycles.
        let w = Measure::default().windows_at(1_000, 320_000 * 1_000);
        assert_eq!((w.batch, w.warmup), (320_000_000, 960_000_000));
        // A batch given is taken as given.
        let m = Measure { batch: Some(Time(5_000_000)), ..Measure::default() };
        assert_eq!(m.windows_at(1_000, 320_000 * 1_000).batch, 5_000_000);
    }
}
