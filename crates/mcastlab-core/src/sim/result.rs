//! What a run reports: [`RunResult`], one serializable value with every input (parameters, seed,
//! plan identity, message size) next to the measurements, so a row of results can always be
//! traced back to what produced it. Wall time is deliberately absent: it differs between runs of
//! the same inputs, and the result must not (callers time the run themselves).

use super::ni::protocol::fmmc::FmmcStats;
use super::ni::protocol::lfc::LfcStats;
use super::params::{Granularity, Params};
use crate::fabric::Channel;
use crate::plan::Discipline;
use serde::Serialize;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Every destination received the whole message.
    Delivered,
    /// The run drained without some destinations receiving the message (the plan never sends
    /// it to them, e.g. a forwarder that is not reached).
    Undelivered { missing: Vec<String> },
    /// Packets were stuck in the network; the diagnosis names the waiting buffers.
    Deadlock { at_ps: u64, reason: String, diagnosis: Diagnosis },
    /// An event or time budget stopped the run; the results are those gathered so far.
    Budget { message: String },
}

/// Why packets could not move.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Diagnosis {
    /// A cycle of input buffers, each waiting for the next (empty if none was found).
    pub cycle: Vec<String>,
    /// Every blocked buffer and what it waits for.
    pub blocked: Vec<String>,
}

/// One destination's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DestinationResult {
    pub endpoint: String,
    /// From time 0 (the source's host starts) until this host has the whole message.
    pub latency_ps: Option<u64>,
    /// Whole-message deliveries (1 for a correct plan).
    pub deliveries: u32,
    /// Packets its NI received.
    pub packets: u32,
}

/// One channel that carried traffic.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkResult {
    pub channel: Channel,
    pub text: String,
    /// Packets that crossed it (link visits).
    pub packets: u64,
    pub flits: u64,
    pub busy_ps: u64,
    /// `busy_ps / end_ps`.
    pub busy_fraction: f64,
}

/// One endpoint that did any work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EndpointResult {
    pub endpoint: String,
    pub host_busy_ps: u64,
    pub ni_busy_ps: u64,
    pub dma_busy_ps: u64,
    pub host_busy_fraction: f64,
    pub ni_busy_fraction: f64,
    /// oral's CPU load with polling notification: host busy time plus the time the host polls
    /// for completion, from its last send until the last copy it sent was taken by its receiver.
    pub poll_ps: u64,
    pub cpu_ps: u64,
}

/// One flit sent on a channel (recorded on request, see `Simulation::record_flits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlitRecord {
    pub time: u64,
    pub channel: u32,
    pub vc: u8,
    /// Message instance (0 in a single-plan run).
    pub msg: u32,
    /// Packet id: transmission · packets-per-message + packet number (transmissions numbered
    /// run-wide: in a single-plan run, the plan's own numbering).
    pub pid: u32,
    pub flit: u32,
}

/// The results of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    pub fabric: String,
    pub routing: String,
    pub scheme: String,
    pub source: String,
    pub destinations: usize,
    pub discipline: Discipline,
    pub message_bytes: u64,
    pub packets: u32,
    pub seed: u64,
    pub params: Params,
    pub outcome: Outcome,
    /// Latency of the last destination, when all were delivered.
    pub completion_ps: Option<u64>,
    /// With `switch.circuit_until_ack`: when the last combined acknowledgement reached its
    /// sender, i.e. every sender knows that every copy it sent arrived (coll03 §3) — a hardware
    /// barrier's completion. Absent without circuits, or while some acknowledgement is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acked_ps: Option<u64>,
    pub per_destination: Vec<DestinationResult>,
    /// Endpoints outside the destination set that received the message (the source included).
    pub extra_deliveries: Vec<String>,
    /// Time of the last event.
    pub end_ps: u64,
    pub events: u64,
    /// What the network was simulated at (`switch.granularity = auto` resolved): `flit`, or
    /// `packet` for packet trains, whose results equal the flit engine's but for `events`.
    pub granularity: Granularity,
    /// Packet copies the NIs sent and received.
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Flit transfers over channels, summed.
    pub flit_hops: u64,
    /// Link visits (packets over channels, summed) and links used in either direction.
    pub link_visits: u64,
    pub used_links: usize,
    pub links: Vec<LinkResult>,
    pub endpoints: Vec<EndpointResult>,
    /// Largest occupancy of any input buffer, flits, and where.
    pub max_buffer_flits: u32,
    pub max_buffer_at: Option<String>,
    /// Packet copies (one per buffer a packet occupies, or waiting in an NI's send queue) and
    /// flits still in switch buffers when the run ended: 0 after a drained run.
    pub in_flight_packets: u64,
    pub buffered_flits: u64,
    /// oral §4.5's link utilization as the network counted it: switch-to-switch channel visits
    /// (packets over a channel ÷ packets per message: once per message) ÷ channels used; the
    /// static `oral_link_utilization` of the plan check, from the run's own counters. `None`
    /// when no switch-to-switch channel carried anything.
    pub oral_link_utilization: Option<f64>,
    /// oral §4.2: the source's CPU load (its `cpu_ps`: host busy time and polling until its part
    /// of the multicast is done).
    pub root_cpu_ps: u64,
    /// oral §4.3: from the start until the source has sent the first packet of every transmission
    /// it starts (grows with its fan-out). `None` if it never did.
    pub startup_ps: Option<u64>,
    /// oral §4.5, timed: message transfers (one transmission, from its first copy's send until
    /// every receiving NI has taken all its packets) in flight at once, most and mean over the
    /// run. `check()` reports the step model's static counterpart.
    pub concurrency_max: u32,
    pub concurrency_mean: f64,
    /// Under `ni.send = lfc`: credits, blocked sends and deadlock recoveries (bhoedjang98).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lfc: Option<LfcStats>,
    /// Under `ni.send = fmmc`: credit requests, the token, NI swapping (bhoedjang98 §2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fmmc: Option<FmmcStats>,
}
