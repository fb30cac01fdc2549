//! The [`RunResult`] of a single-plan run, assembled from what the components counted: the
//! endpoints' deliveries and busy times, the network's link counters and buffer peaks, and the
//! engine's clock.

use super::core::Core;
use crate::fabric::{Channel, Terminal};
use crate::sim::net::{buffer_name, Network};
use crate::sim::result::{DestinationResult, EndpointResult, LinkResult, Outcome, RunResult};

impl<N: Network> Core<'_, N> {
    pub(super) fn result(&self, outcome: Option<Outcome>) -> RunResult {
        let inp = &self.inputs;
        let (f, now) = (inp.f, self.clock.now);
        let plan = inp.plan.expect("results are reported against the plan of a single-plan run");
        let drained = outcome.is_none();
        let eps = self.ni.stats();
        let net = self.net.stats();
        let name = |e: usize| f.endpoints()[e].name.clone();
        let per_destination: Vec<DestinationResult> = plan
            .destinations
            .iter()
            .map(|d| DestinationResult {
                endpoint: name(d.idx()),
                latency_ps: eps.first_delivery[d.idx()],
                deliveries: eps.deliveries[d.idx()],
                packets: eps.packets_at[d.idx()],
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
        let mut is_dest = vec![false; f.num_endpoints()];
        plan.destinations.iter().for_each(|d| is_dest[d.idx()] = true);
        let extra_deliveries =
            (0..eps.deliveries.len()).filter(|&e| eps.deliveries[e] > 0 && !is_dest[e]).map(name).collect();
        let (max_buf, max_buf_at) = self.net.max_buffer(now);
        let end = now.max(1);
        let frac = |busy: u64| busy as f64 / end as f64;
        let flit = inp.params.channel_flit_ps(f);
        let links: Vec<LinkResult> = (0..net.link_flits.len())
            .filter(|&c| net.link_flits[c] > 0)
            .map(|c| {
                let busy = net.link_flits[c] * flit[c];
                LinkResult {
                    channel: Channel(c as u32),
                    text: f.channel_str(Channel(c as u32)),
                    packets: net.link_packets[c],
                    flits: net.link_flits[c],
                    busy_ps: busy,
                    busy_fraction: frac(busy),
                }
            })
            .collect();
        let between_switches = |c: Channel| {
            let (a, b) = f.channel_ends(c);
            matches!((a, b), (Terminal::Switch { .. }, Terminal::Switch { .. }))
        };
        let inner: Vec<&LinkResult> = links.iter().filter(|l| between_switches(l.channel)).collect();
        let m = self.ni.costs().packets.max(1) as f64;
        let oral_link_utilization =
            (!inner.is_empty()).then(|| inner.iter().map(|l| l.packets as f64 / m).sum::<f64>() / inner.len() as f64);
        let mut used: Vec<u32> = links.iter().map(|l| l.channel.link().0).collect();
        used.dedup();
        let endpoints = (0..f.num_endpoints())
            .map(|i| (i, self.ni.busy(i)))
            .filter(|(_, (h, n, d))| h + n + d > 0)
            .map(|(i, (host, ni, dma))| (i, (host, ni, dma), eps.poll_ps(i)))
            .map(|(i, (host, ni, dma), poll)| EndpointResult {
                endpoint: name(i),
                host_busy_ps: host,
                ni_busy_ps: ni,
                dma_busy_ps: dma,
                host_busy_fraction: frac(host),
                ni_busy_fraction: frac(ni),
                poll_ps: poll,
                cpu_ps: host + poll,
            })
            .collect();
        RunResult {
            fabric: f.name().to_string(),
            routing: inp.routing_spec.clone(),
            scheme: plan.scheme.clone(),
            source: name(plan.source.idx()),
            destinations: plan.destinations.len(),
            discipline: plan.discipline,
            message_bytes: inp.message_bytes,
            packets: self.ni.costs().packets,
            seed: inp.seed,
            params: inp.params.clone(),
            outcome,
            completion_ps,
            acked_ps: self.net.acked().filter(|_| drained),
            per_destination,
            extra_deliveries,
            end_ps: now,
            events: self.clock.events,
            granularity: self.granularity(),
            packets_sent: eps.packets_sent,
            packets_received: eps.packets_received,
            flit_hops: net.flit_hops,
            link_visits: links.iter().map(|l| l.packets).sum(),
            used_links: used.len(),
            links,
            endpoints,
            max_buffer_flits: max_buf,
            max_buffer_at: max_buf_at.map(|b| buffer_name(f, self.vcs(), b)),
            in_flight_packets: net.in_flight,
            buffered_flits: self.net.buffered_flits(now),
            oral_link_utilization,
            root_cpu_ps: self.ni.busy(plan.source.idx()).0 + eps.poll_ps(plan.source.idx()),
            startup_ps: eps.startup,
            concurrency_max: eps.concurrency_max(now),
            concurrency_mean: eps.concurrency_mean(now),
            lfc: self.ni.lfc_stats(),
            fmmc: self.ni.fmmc_stats(),
        }
    }
}
