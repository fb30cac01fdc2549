//! Measurement conventions and the rows a workload run reports.
//!
//! The protocol is BookSim's (`../shared/reference/booksim.md` §2), applied to messages: a
//! warm-up whose messages are generated but not measured, then `batches` measurement batches of
//! equal length. A message is *measured* when it is created inside the measurement window, and it
//! is tracked to completion however long that takes: after the window the sources keep
//! generating (so the measured messages see the same load to the end) until every measured
//! message has finished; then generation stops and the network drains. A one-shot workload
//! (`count=N`) measures every message, from time 0 until the network is empty.
//!
//! Statistics:
//! - Latency of a message = from its creation until its *last* destination's host has the whole
//!   message (source queueing included, like BookSim's packet latency); latency of a destination
//!   = until that destination has it.
//! - 95 % confidence intervals by batch means: the mean of each batch (messages grouped by the
//!   batch they were created in) is one observation, and the half-width is t(0.975, B−1)·s/√B.
//!   Batches are long compared with a message's latency, so their means are close to independent.
//! - Accepted load = flits that entered an NI during the window, per cycle per endpoint (counted
//!   as the flit leaves the switch for the NI); generated load = flits the messages created in
//!   the window would deliver, same unit. Both are comparable with the offered `load`.
//! - Busy fractions of links, hosts and NIs over the window; a server's busy time is counted
//!   when a job starts, so a job running across the window's end counts wholly inside it.
//! - Buffer occupancy sampled ten times per batch (flits in switch input buffers).
//!
//! Saturation (load workloads), each reason reported on its own:
//! - *unstable latency* (BookSim's rule, checked at the end of every batch and ten times per batch
//!   during the drain): the mean over messages finished since measurement started plus the ages
//!   of all unfinished messages exceeds `latency_limit` — by default `latency_factor` times the
//!   zero-load latency (the mean latency of the workload's first messages, each run alone). The
//!   run stops there: latency grows without bound.
//! - *accepted below offered*: accepted load below generated load by more than `accepted_margin`.
//! - *queue growth*: unfinished messages grew over the window by more than `accepted_margin` of
//!   the messages generated in it.

pub use super::params::{Detail, Measure};
use super::result::Diagnosis;
use super::units::Time;
use super::Outcome;
use serde::Serialize;

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
        let tick = if batch.is_multiple_of(TICKS_PER_BATCH) { batch / TICKS_PER_BATCH } else { batch };
        Windows { warmup, batch, batches, end, tick, drain_limit: self.drain_limit.map_or(10 * end, Time::ps) }
    }
}

/// How a workload run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadOutcome {
    /// Every message finished and the network emptied.
    Drained,
    /// Latency grew past the limit (BookSim's "unstable"): stopped there.
    Unstable { at_ps: u64, mean_latency_ps: f64, limit_ps: u64 },
    /// The measured messages had not all finished `drain_limit` after the window.
    DrainLimit { at_ps: u64 },
    /// Packets were stuck in the network; the diagnosis names the waiting buffers.
    Deadlock { at_ps: u64, reason: String, diagnosis: Diagnosis },
    /// An event or time budget (`limits.*`) stopped the run.
    Budget { message: String },
}

impl From<Outcome> for WorkloadOutcome {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Deadlock { at_ps, reason, diagnosis } => WorkloadOutcome::Deadlock { at_ps, reason, diagnosis },
            Outcome::Budget { message } => WorkloadOutcome::Budget { message },
            other => WorkloadOutcome::Budget { message: format!("unexpected end: {other:?}") },
        }
    }
}

/// One workload run: every input, the outcome and the measurements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    // Inputs.
    pub fabric: String,
    pub routing: String,
    /// The workload's spec, every option spelled out.
    pub workload: String,
    pub kind: String,
    pub scheme: String,
    pub message_bytes: u64,
    pub packets: u32,
    /// Flits of one copy of a message.
    pub message_flits: u64,
    /// Offered load, flits per cycle per endpoint (load workloads).
    pub offered_load: Option<f64>,
    /// The same in payload bytes per second per endpoint.
    pub offered_bytes_per_s: Option<f64>,
    pub senders: usize,
    /// Mean destinations per message.
    pub fanout: f64,
    pub seed: u64,
    pub params: super::Params,
    pub measure: Measure,
    pub cycle_ps: u64,
    pub warmup_ps: u64,
    /// Length of the measurement window (one-shot: from 0 to the last delivery).
    pub window_ps: u64,
    // Outcome.
    pub outcome: WorkloadOutcome,
    pub saturated: bool,
    /// Why it counts as saturated ("" when it does not).
    pub saturation: String,
    pub end_ps: u64,
    pub events: u64,
    pub flit_hops: u64,
    // Conservation (all messages, measured or not).
    pub messages: u64,
    pub messages_measured: u64,
    pub messages_finished: u64,
    /// Destination copies the finished messages owed, delivered exactly once (whole message, every
    /// packet), delivered more than once, and never delivered.
    pub copies_expected: u64,
    pub copies_delivered: u64,
    pub copies_duplicated: u64,
    pub copies_missing: u64,
    /// Deliveries to endpoints outside a message's destinations.
    pub extra_deliveries: u64,
    pub in_flight_packets: u64,
    pub buffered_flits: u64,
    // Latency of measured messages (completion: last destination).
    pub zero_load_latency_ps: Option<f64>,
    pub latency_mean_ps: Option<f64>,
    pub latency_ci95_ps: Option<f64>,
    pub latency_min_ps: Option<u64>,
    pub latency_p50_ps: Option<u64>,
    pub latency_p95_ps: Option<u64>,
    pub latency_p99_ps: Option<u64>,
    pub latency_max_ps: Option<u64>,
    pub destination_latency_mean_ps: Option<f64>,
    pub destination_latency_ci95_ps: Option<f64>,
    pub destination_latency_p95_ps: Option<u64>,
    pub destination_latency_max_ps: Option<u64>,
    // Throughput over the window, flits per cycle per endpoint.
    pub generated_load: f64,
    pub accepted_load: f64,
    pub accepted_ci95: Option<f64>,
    pub accepted_bytes_per_s: f64,
    /// Payload multicast per second per sender (bhoedjang98's throughput "observed by the
    /// sender"): messages created in the window (one-shot: all) × bytes / window / senders.
    pub sender_bytes_per_s: f64,
    // Utilisation over the window.
    pub link_busy_mean: f64,
    pub link_busy_max: f64,
    pub link_busy_max_at: Option<String>,
    pub host_busy_mean: f64,
    pub host_busy_max: f64,
    pub ni_busy_mean: f64,
    pub ni_busy_max: f64,
    // Buffers and backlog over the window.
    /// Mean flits in all switch input buffers, and as a fraction of their capacity.
    pub buffer_mean_flits: f64,
    pub buffer_occupancy: f64,
    /// Fullest single buffer over the whole run, flits.
    pub buffer_max_flits: u32,
    /// Unfinished messages: mean over the window, at its start and at its end.
    pub backlog_mean: f64,
    pub backlog_start: u64,
    pub backlog_end: u64,
    /// Batches with at least one finished measured message (the CI's sample size).
    pub batches_used: u32,
}

/// One message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampleRow {
    pub workload: String,
    pub offered_load: Option<f64>,
    pub seed: u64,
    /// Creation order, from 0.
    pub serial: u64,
    pub source: String,
    pub destinations: usize,
    pub created_ps: u64,
    pub measured: bool,
    /// Measurement batch (measured messages).
    pub batch: Option<u32>,
    /// Until the last destination had it (`None`: some destination never did).
    pub latency_ps: Option<u64>,
    pub destination_latency_mean_ps: Option<f64>,
    /// Destinations that got the whole message exactly once.
    pub delivered: usize,
    pub duplicated: usize,
    pub extra_deliveries: u32,
}

/// One destination of one message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DestinationRow {
    pub workload: String,
    pub offered_load: Option<f64>,
    pub seed: u64,
    pub serial: u64,
    pub destination: String,
    pub latency_ps: Option<u64>,
    pub deliveries: u32,
    pub packets: u32,
}

/// Everything a workload run reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadResult {
    pub run: RunRow,
    pub samples: Vec<SampleRow>,
    pub destinations: Vec<DestinationRow>,
}

/// Two-sided 97.5 % quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

fn t975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Half-width of the 95 % confidence interval of the mean of `means` (batch means); `None`
/// with fewer than two.
pub(crate) fn ci95(means: &[f64]) -> Option<f64> {
    let b = means.len();
    if b < 2 {
        return None;
    }
    let mean = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (b - 1) as f64;
    Some(t975(b - 1) * (var / b as f64).sqrt())
}

/// The `q` quantile (nearest rank) of sorted values.
pub(crate) fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// Mean of `sum` over `n`, `None` for none.
pub(crate) fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_means_interval_and_quantiles() {
        // Means 1..=5: s² = 2.5, half-width t(4)·sqrt(2.5/5).
        let h = ci95(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!((h - 2.776 * 0.5f64.sqrt()).abs() < 1e-12, "{h}");
        assert_eq!(ci95(&[3.0]), None);
        assert_eq!(ci95(&[2.0, 2.0, 2.0]), Some(0.0));
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!((quantile(&v, 0.5), quantile(&v, 0.95), quantile(&v, 1.0)), (Some(50), Some(95), Some(100)));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn windows_default_to_booksims_schedule() {
        let w = Measure::default().windows(1_000);
        assert_eq!((w.batch, w.warmup, w.end, w.tick), (10_000_000, 30_000_000, 80_000_000, 1_000_000));
        let bad = Measure { batches: 0, ..Measure::default() }.validate().unwrap_err();
        assert!(bad.to_string().starts_with("parameter `measure.batches`"), "{bad}");
    }
}
