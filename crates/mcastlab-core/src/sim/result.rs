//! What a run reports: [`RunResult`], one serializable value with every input (parameters, seed,
//! plan identity, message size) next to the measurements, so a row of results can always be
//! traced back to what produced it. Wall time is deliberately absent: it differs between runs of
//! the same inputs, and the result must not (callers time the run themselves).

use super::engine::Simulation;
use super::params::{Granularity, Params};
use super::NONE;
use crate::fabric::{Channel, Terminal};
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
}

impl Simulation<'_> {
    /// Describes input buffer `buf` (channel · V + vc) as `switch[port] vc v`.
    pub(crate) fn buffer_name(&self, buf: u32) -> String {
        let (_, to) = self.f.channel_ends(Channel(buf / self.v));
        let vc = buf % self.v;
        match to {
            Terminal::Switch { .. } => format!("{} vc {vc}", self.f.terminal_str(&to)),
            Terminal::Endpoint { .. } => format!("NI of {}", self.f.terminal_str(&to)),
        }
    }

    /// Flits in switch buffers now, counting arrivals not yet taken in.
    pub(crate) fn buffered_flits(&self) -> u64 {
        if let Some(net) = &self.iq {
            return net.buffered();
        }
        (0..self.bufs.len() as u32).map(|b| self.held(b) as u64).sum()
    }

    /// The largest occupancy of any input buffer so far and which buffer (`NONE` if no flit
    /// was ever buffered). Peaks are recorded as slots are freed; a run that stopped with flits
    /// inside adds what the buffers hold now.
    pub(crate) fn max_buffer(&self) -> (u32, u32) {
        let (mut max, mut at) = (self.max_buf, self.max_buf_at);
        for b in 0..self.bufs.len() as u32 {
            let h = self.held(b);
            if h > max {
                (max, at) = (h, b);
            }
        }
        (max, at)
    }

    pub(crate) fn result(&self, outcome: Option<Outcome>) -> RunResult {
        let plan = self.plan.expect("results are reported against the plan of a single-plan run");
        let drained = outcome.is_none();
        let name = |e: u32| self.f.endpoints()[e as usize].name.clone();
        let per_destination: Vec<DestinationResult> = plan
            .destinations
            .iter()
            .map(|d| DestinationResult {
                endpoint: name(d.0),
                latency_ps: self.first_delivery[d.idx()],
                deliveries: self.deliveries[d.idx()],
                packets: self.packets_at[d.idx()],
            })
            .collect();
        let missing: Vec<String> =
            per_destination.iter().filter(|d| d.latency_ps.is_none()).map(|d| d.endpoint.clone()).collect();
        let outcome = outcome.unwrap_or(if missing.is_empty() {
            Outcome::Delivered
        } else {
            Outcome::Undelivered { missing: missing.clone() }
        });
        let completion_ps =
            missing.is_empty().then(|| per_destination.iter().filter_map(|d| d.latency_ps).max().unwrap_or(0));
        let mut is_dest = vec![false; self.f.num_endpoints()];
        plan.destinations.iter().for_each(|d| is_dest[d.idx()] = true);
        let extra_deliveries = (0..self.deliveries.len())
            .filter(|&e| self.deliveries[e] > 0 && !is_dest[e])
            .map(|e| name(e as u32))
            .collect();
        let (max_buf, max_buf_at) = self.max_buffer();
        let end = self.now.max(1);
        let frac = |busy: u64| busy as f64 / end as f64;
        let links: Vec<LinkResult> = (0..self.link_flits.len())
            .filter(|&c| self.link_flits[c] > 0)
            .map(|c| {
                let busy = self.link_flits[c] * self.timing.flit;
                LinkResult {
                    channel: Channel(c as u32),
                    text: self.f.channel_str(Channel(c as u32)),
                    packets: self.link_packets[c],
                    flits: self.link_flits[c],
                    busy_ps: busy,
                    busy_fraction: frac(busy),
                }
            })
            .collect();
        let mut used: Vec<u32> = links.iter().map(|l| l.channel.link().0).collect();
        used.dedup();
        let endpoints = self
            .eps
            .iter()
            .enumerate()
            .filter(|(_, e)| e.host.busy_ps + e.ni.busy_ps + e.dma.busy_ps > 0)
            .map(|(i, e)| EndpointResult {
                endpoint: name(i as u32),
                host_busy_ps: e.host.busy_ps,
                ni_busy_ps: e.ni.busy_ps,
                dma_busy_ps: e.dma.busy_ps,
                host_busy_fraction: frac(e.host.busy_ps),
                ni_busy_fraction: frac(e.ni.busy_ps),
            })
            .collect();
        RunResult {
            fabric: self.f.name().to_string(),
            routing: self.routing_spec.clone(),
            scheme: plan.scheme.clone(),
            source: name(plan.source.0),
            destinations: plan.destinations.len(),
            discipline: plan.discipline,
            message_bytes: self.message_bytes,
            packets: self.m,
            seed: self.seed,
            params: self.params.clone(),
            outcome,
            completion_ps,
            acked_ps: self.last_ack.filter(|_| drained && self.circuits_open == 0),
            per_destination,
            extra_deliveries,
            end_ps: self.now,
            events: self.events,
            granularity: self.granularity(),
            packets_sent: self.packets_sent,
            packets_received: self.packets_received,
            flit_hops: self.flit_hops,
            link_visits: links.iter().map(|l| l.packets).sum(),
            used_links: used.len(),
            links,
            endpoints,
            max_buffer_flits: max_buf,
            max_buffer_at: (max_buf_at != NONE).then(|| self.buffer_name(max_buf_at)),
            in_flight_packets: self.live,
            buffered_flits: self.buffered_flits(),
        }
    }
}
