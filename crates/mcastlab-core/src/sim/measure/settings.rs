//! Measurement settings of a workload run ([`Measure`]): warm-up, batches, the saturation rules'
//! thresholds and which rows to keep, and the windows they give in picoseconds.

use crate::error::SimError;
use crate::sim::units::Time;
use serde::{Deserialize, Serialize};

/// Which per-message rows a run keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// Only the run row.
    #[default]
    None,
    /// One [`SampleRow`] per message.
    Messages,
    /// Sample rows and one [`DestinationRow`] per message and destination.
    Destinations,
}

/// Warm-up, measurement and saturation settings of a workload run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Measure {
    /// Before measurement starts; `None`: three batches (BookSim's 3 × 10,000 cycles).
    pub warmup: Option<Time>,
    /// One batch; `None`: 10,000 cycles (a cycle is one flit time).
    pub batch: Option<Time>,
    /// Measurement batches (BookSim: 5).
    pub batches: u32,
    /// Mean latency beyond which a run is unstable; `None`: `latency_factor` × zero-load latency.
    pub latency_limit: Option<Time>,
    pub latency_factor: f64,
    /// Relative shortfall of accepted load (and relative queue growth) that means saturation.
    pub accepted_margin: f64,
    /// Longest drain after the window; `None`: ten times the warm-up plus the window.
    pub drain_limit: Option<Time>,
    pub detail: Detail,
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            warmup: None,
            batch: None,
            batches: 5,
            latency_limit: None,
            latency_factor: 10.0,
            accepted_margin: 0.05,
            drain_limit: None,
            detail: Detail::None,
        }
    }
}

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
    /// Checks the settings; errors name the setting (`measure.batches`).
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |k: &str, m: &str| Err(SimError::param(&format!("measure.{k}"), m));
        if self.batches == 0 {
            return bad("batches", "at least one batch");
        }
        if self.batch == Some(Time::ZERO) {
            return bad("batch", "a batch must last some time");
        }
        if !(self.latency_factor > 1.0 && self.latency_factor.is_finite()) {
            return bad("latency_factor", "must be a finite number above 1");
        }
        if !(self.accepted_margin > 0.0 && self.accepted_margin < 1.0) {
            return bad("accepted_margin", "must be between 0 and 1");
        }
        if self.latency_limit == Some(Time::ZERO) {
            return bad("latency_limit", "must be positive");
        }
        Ok(())
    }

    /// The windows in picoseconds for a run whose cycle is `cycle_ps`.
    pub(crate) fn windows(&self, cycle_ps: u64) -> Windows {
        let batch = self.batch.map_or(10_000 * cycle_ps, Time::ps).max(1);
        let warmup = self.warmup.map_or(3 * batch, Time::ps);
        let batches = self.batches as u64;
        let end = warmup + batches * batch;
        let tick = if batch.is_multiple_of(TICKS_PER_BATCH) { batch / TICKS_PER_BATCH } else { batch };
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
