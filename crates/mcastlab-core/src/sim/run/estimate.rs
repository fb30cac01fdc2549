//! How much work a workload run will be, known before its first event: a run that a typo made a
//! thousand times too long (`measure.batches=100000`, `warmup=1s`) is refused at once with the
//! numbers, instead of looking hung for an hour and then stopping at the event budget (issue 13).

use super::zero_load::ZeroLoad;
use crate::error::SimError;
use crate::plan::budget::grouped;
use crate::sim::measure::Measure;
use crate::sim::params::{key::limits, Params};
use crate::sim::workload::{Inject, Shape, Workload};
use serde::Serialize;

/// The expected size of one workload run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Simulated time of the warm-up and the measurement window (the drain comes on top).
    pub span_ps: u64,
    /// Messages the run is expected to create.
    pub messages: f64,
    /// Flit hops of one message alone on the network (the mean of the zero-load runs).
    pub flit_hops_per_message: f64,
    /// Events expected: one per flit hop. A run's events exceed its flit hops by a few percent
    /// (packet starts, NI work), and a saturated run's drain adds more, so this is a floor.
    pub events: u64,
    /// Bytes the measurement allocates before the first event: per-batch latency sums and counts
    /// (`measure.batches=1000000000` would be 32 GB).
    pub setup_bytes: u64,
}

/// Bytes of per-batch statistics the meter keeps (two sums and two counts of 8 bytes).
const BYTES_PER_BATCH: u64 = 32;

impl Estimate {
    pub(super) fn new(w: &Workload, shape: &Shape, m: &Measure, zero: &ZeroLoad) -> Estimate {
        let span_ps = m.windows(shape).end;
        let senders = shape.senders.len() as f64;
        let messages = match w.inject {
            Inject::Burst { count } => senders * count as f64,
            Inject::Load { .. } => senders * shape.rate_per_ps * span_ps as f64,
        };
        let events = (messages * zero.flit_hops).min(u64::MAX as f64) as u64;
        let setup_bytes = (m.batches as u64).saturating_mul(BYTES_PER_BATCH);
        Estimate { span_ps, messages, flit_hops_per_message: zero.flit_hops, events, setup_bytes }
    }

    /// Refuses a run whose estimate is beyond `limits.max_events`, naming what makes it large
    /// and how to raise the budget; the budget still stops, with its rows, a run the estimate
    /// underrated.
    pub(super) fn within(&self, params: &Params) -> Result<(), SimError> {
        if let Some(max) = params.limits.max_memory.filter(|&max| self.setup_bytes > max) {
            return Err(SimError::param(
                limits::max_memory,
                format!(
                    "the measurement's per-batch statistics need {} MiB before the first event, over the budget of \
                     {} MiB: use fewer measure.batches (or raise {})",
                    self.setup_bytes >> 20,
                    max >> 20,
                    limits::max_memory
                ),
            ));
        }
        let Some(max) = params.limits.max_events else { return Ok(()) };
        if self.events <= max {
            return Ok(());
        }
        Err(SimError::param(
            limits::max_events,
            format!(
                "this run needs about {} events ({:.0} messages of {:.0} flit hops each over {} of simulated time), \
                 more than the budget of {}: raise it (--param limits.max_events={} or none) or shorten the run \
                 (the load, measure.batches, measure.batch, measure.warmup)",
                grouped(self.events),
                self.messages,
                self.flit_hops_per_message,
                span(self.span_ps),
                grouped(max),
                round_up(self.events),
            ),
        ))
    }
}

/// Picoseconds as a duration a person reads (`80.000 us`, `1.000 s`).
fn span(ps: u64) -> String {
    let (unit, per) =
        [("s", 1e12), ("ms", 1e9), ("us", 1e6)].into_iter().find(|(_, k)| ps as f64 >= *k).unwrap_or(("ns", 1e3));
    format!("{:.3} {unit}", ps as f64 / per)
}

/// `n` rounded up to two significant digits: a budget to suggest that covers the estimate.
fn round_up(n: u64) -> u64 {
    let step = 10u64.pow((n.checked_ilog10().unwrap_or(0)).saturating_sub(1));
    n.div_ceil(step).saturating_mul(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_a_person_writes_them() {
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
        assert_eq!(round_up(8_612_345_678), 8_700_000_000);
        assert_eq!(round_up(7), 7);
        assert_eq!(span(80_000_000), "80.000 us");
        assert_eq!(span(1_000_000_000_000), "1.000 s");
    }
}
