//! The rows a workload run reports: one [`RunRow`] with every input, the outcome and the
//! measurements; optionally one [`SampleRow`] per message and one [`DestinationRow`] per message
//! and destination.

use crate::sim::params::Measure;
use crate::sim::result::{Diagnosis, Outcome};

use serde::Serialize;

/// How a workload run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadOutcome {
    /// Every message finished and the network emptied.
    Drained,
    /// The run drained, but no message was created in the measurement window (a window shorter
    /// than the time between messages): nothing was measured, so the run has no results.
    NoMessage { window_ps: u64, message: String },
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
    pub params: crate::sim::params::Params,
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
    /// The granularity the network was simulated at (`switch.granularity` resolved): `packet`
    /// (exact packet trains) or `flit`. Only `events` depends on it.
    pub granularity: crate::sim::params::Granularity,
    /// What the run was expected to take before it started (`sim::run::Estimate`), beside what it
    /// took: a user can see how far to trust the estimate a command announces.
    pub estimated_events: u64,
    /// Templates (a message's trees, sends and triggers, one per distinct source and destination
    /// set) built, and how many of them were recycled once `limits.kept_templates` were held: a
    /// pair whose template was recycled builds it again, so the first minus the second is what
    /// the run held at its end.
    pub templates_built: u64,
    pub templates_recycled: u64,
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
    /// Under `ni.send = lfc`: credits, blocked sends and deadlock recoveries over the whole run
    /// (bhoedjang98 Table 1), as columns of their own.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub lfc: Option<crate::sim::ni::LfcStats>,
    /// Under `ni.send = fmmc`: credits, the token and swapping over the whole run.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub fmmc: Option<crate::sim::ni::FmmcStats>,
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
