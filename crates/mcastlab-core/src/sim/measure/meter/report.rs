//! The run row of a workload run, from what the meter kept: throughput, latency, utilisation and
//! saturation over the measurement window.

use super::{Counters, Latencies, Meter, RunInputs};
use crate::fabric::{Channel, Fabric};
use crate::sim::engine::Simulation;
use crate::sim::measure::rows::{RunRow, WorkloadOutcome};
use crate::sim::measure::stats::{ci95, mean, quantile};
use crate::sim::workload::Shape;

impl Meter {
    /// The window's length: the measurement window (up to where the run stopped, if earlier), or
    /// for a one-shot run from 0 to the last delivery (to where it stopped, if nothing was
    /// delivered: a deadlocked burst must not look infinitely fast).
    pub(super) fn window(&self, now: u64) -> u64 {
        if self.setup.burst {
            return if self.last_delivery > 0 { self.last_delivery } else { now.max(1) };
        }
        let end = self.end.as_ref().map_or(now, |c| c.at);
        let start = self.start.as_ref().map_or(0, |c| c.at);
        let start = if end <= start { 0 } else { start };
        end.saturating_sub(start).max(1)
    }

    pub(super) fn run_row(&mut self, sim: &Simulation<'_>, run: &RunInputs<'_>, outcome: WorkloadOutcome) -> RunRow {
        let shape = run.shape;
        let window = self.window(sim.now());
        let n = shape.n as f64;
        let cycles = window as f64 / shape.cycle_ps as f64;
        let (mut start, end) = (self.start.clone().unwrap_or_default(), self.end.clone().unwrap_or_default());
        if end.at <= start.at {
            // Stopped before measuring anything: report what happened from time 0 instead.
            start = Counters::default();
        }
        let accepted_flits = end.ejected.saturating_sub(start.ejected) as f64;
        let accepted_load = accepted_flits / cycles / n;
        let generated_load = self.flow.generated_flits as f64 / cycles / n;
        let bytes_per_flit = shape.message_bytes as f64 / shape.flits.max(1) as f64;
        let per_s = 1e12 / shape.cycle_ps as f64;
        let (saturated, saturation) = self.saturation(&outcome, accepted_load, generated_load);
        let u = self.utilisation(run.f, sim, &start, &end, window);
        let lat = latency(&mut self.lat);
        let w = run.workload;
        let offered = self.setup.offered;
        RunRow {
            fabric: run.f.name().to_string(),
            routing: run.routing.clone(),
            workload: w.spec(),
            kind: w.traffic.name().to_string(),
            scheme: if w.traffic.entry().unicast { "unicast".into() } else { w.scheme.clone() },
            message_bytes: shape.message_bytes,
            packets: shape.packets,
            message_flits: shape.flits,
            offered_load: offered,
            offered_bytes_per_s: offered.map(|l| l * bytes_per_flit * per_s),
            senders: shape.senders.len(),
            fanout: shape.fanout.iter().sum::<u64>() as f64 / shape.fanout.len().max(1) as f64,
            seed: run.seed,
            params: run.params.clone(),
            measure: self.setup.measure.clone(),
            cycle_ps: shape.cycle_ps,
            warmup_ps: self.setup.win.warmup,
            window_ps: window,
            outcome,
            saturated,
            saturation,
            end_ps: sim.now(),
            events: sim.events(),
            granularity: sim.granularity(),
            estimated_events: run.estimated_events,
            templates_built: run.templates.0,
            templates_recycled: run.templates.1,
            flit_hops: sim.flit_hops(),
            messages: self.flow.messages,
            messages_measured: self.flow.measured,
            messages_finished: self.flow.finished,
            copies_expected: self.copies.expected,
            copies_delivered: self.copies.delivered,
            copies_duplicated: self.copies.duplicated,
            copies_missing: self.copies.missing,
            extra_deliveries: self.copies.extra,
            in_flight_packets: sim.in_flight(),
            buffered_flits: sim.buffered_flits(),
            generated_load,
            accepted_load,
            accepted_ci95: self.accepted_ci(shape, n),
            accepted_bytes_per_s: accepted_load * bytes_per_flit * per_s,
            sender_bytes_per_s: self.flow.measured as f64 * shape.message_bytes as f64
                / (window as f64 * 1e-12)
                / shape.senders.len().max(1) as f64,
            buffer_max_flits: sim.max_buffer_flits(),
            backlog_start: self.occ.backlog_start,
            backlog_end: self.occ.backlog_end,
            zero_load_latency_ps: self.setup.zero,
            latency_mean_ps: lat.mean,
            latency_ci95_ps: lat.ci95,
            latency_min_ps: lat.min,
            latency_p50_ps: lat.p50,
            latency_p95_ps: lat.p95,
            latency_p99_ps: lat.p99,
            latency_max_ps: lat.max,
            destination_latency_mean_ps: lat.dest_mean,
            destination_latency_ci95_ps: lat.dest_ci95,
            destination_latency_p95_ps: lat.dest_p95,
            destination_latency_max_ps: lat.dest_max,
            batches_used: lat.batches,
            lfc: sim.lfc_stats(),
            fmmc: sim.fmmc_stats(),
            link_busy_mean: u.link_mean,
            link_busy_max: u.link_max,
            link_busy_max_at: u.link_max_at,
            host_busy_mean: u.host_mean,
            host_busy_max: u.host_max,
            ni_busy_mean: u.ni_mean,
            ni_busy_max: u.ni_max,
            buffer_mean_flits: u.buffer_mean,
            buffer_occupancy: u.buffer_occupancy,
            backlog_mean: u.backlog_mean,
        }
    }

    /// Accepted load per batch, and the interval of their mean.
    fn accepted_ci(&self, shape: &Shape, n: f64) -> Option<f64> {
        if self.setup.burst {
            return None;
        }
        let first = self.start.as_ref()?.ejected;
        let cycles = self.setup.win.batch as f64 / shape.cycle_ps as f64;
        let per: Vec<f64> = std::iter::once(first)
            .chain(self.occ.batch_ejected.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / cycles / n)
            .collect();
        ci95(&per)
    }

    fn saturation(&self, outcome: &WorkloadOutcome, accepted: f64, generated: f64) -> (bool, String) {
        if self.setup.burst {
            return (false, String::new());
        }
        let margin = self.setup.measure.accepted_margin;
        let mut why = Vec::new();
        if let WorkloadOutcome::Unstable { mean_latency_ps, limit_ps, .. } = outcome {
            why.push(format!(
                "unstable latency: mean {:.3} us above the limit {:.3} us",
                *mean_latency_ps / 1e6,
                *limit_ps as f64 / 1e6
            ));
        }
        if matches!(outcome, WorkloadOutcome::DrainLimit { .. }) {
            why.push("measured messages not finished within measure.drain_limit".to_string());
        }
        // The load criteria need the whole window.
        let complete = self.end.as_ref().is_some_and(|c| c.at == self.setup.win.end);
        let noise = backlog_noise(self.occ.backlog_start, self.occ.backlog_end);
        let measured = self.flow.measured.max(1) as f64;
        // The shortfall of accepted against generated load is, up to the window's edges, the
        // backlog's growth; its noise in messages, relative to the window's messages.
        let allowed = margin + noise / measured;
        if complete && accepted < generated * (1.0 - allowed) {
            // The margin is a fraction of the generated load: said as a percentage, it is not
            // read as a difference of loads.
            why.push(format!(
                "accepted load {accepted:.4} below generated {generated:.4} by more than {:.1} % of it \
                 (accepted_margin {margin} + the backlog's noise, {noise:.1} of {measured:.0} messages)",
                100.0 * allowed
            ));
        }
        let growth = self.occ.backlog_end.saturating_sub(self.occ.backlog_start) as f64;
        if complete && growth > (margin * measured).max(noise) {
            why.push(format!(
                "queue growth: {} unfinished messages at the window's start, {} at its end (more than \
                 {margin} of {measured:.0} messages and than the backlog's noise, {noise:.1})",
                self.occ.backlog_start, self.occ.backlog_end
            ));
        }
        (!why.is_empty(), why.join("; "))
    }

    fn utilisation(
        &self,
        f: &Fabric,
        sim: &Simulation<'_>,
        start: &Counters,
        end: &Counters,
        window: u64,
    ) -> Utilisation {
        let w = window as f64;
        let cycle = sim.params().flit_ps() as f64;
        let delta = |a: &[u64], b: &[u64], i: usize| a[i].saturating_sub(b.get(i).copied().unwrap_or(0)) as f64;
        let busy: Vec<f64> =
            (0..end.link_flits.len()).map(|c| delta(&end.link_flits, &start.link_flits, c) * cycle / w).collect();
        let mut u = Utilisation::default();
        for (c, &b) in busy.iter().enumerate() {
            if b > u.link_max {
                (u.link_max, u.link_max_at) = (b, Some(f.channel_str(Channel(c as u32))));
            }
        }
        let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let top = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let host: Vec<f64> = (0..end.host.len()).map(|i| delta(&end.host, &start.host, i) / w).collect();
        let ni: Vec<f64> = (0..end.ni.len()).map(|i| delta(&end.ni, &start.ni, i) / w).collect();
        (u.link_mean, u.host_mean, u.host_max, u.ni_mean, u.ni_max) =
            (avg(&busy), avg(&host), top(&host), avg(&ni), top(&ni));
        let samples = self.occ.samples.max(1) as f64;
        u.buffer_mean = self.occ.buffered_sum / samples;
        let switch_bufs = (f.num_channels() - self.setup.ejection.len()) as f64 * sim.vcs() as f64;
        u.buffer_occupancy = u.buffer_mean / (switch_bufs * sim.params().switch.buffer_flits as f64).max(1.0);
        u.backlog_mean = self.occ.backlog_sum / samples;
        u
    }
}

/// Latency columns of the measured messages.
struct Latency {
    mean: Option<f64>,
    ci95: Option<f64>,
    min: Option<u64>,
    p50: Option<u64>,
    p95: Option<u64>,
    p99: Option<u64>,
    max: Option<u64>,
    dest_mean: Option<f64>,
    dest_ci95: Option<f64>,
    dest_p95: Option<u64>,
    dest_max: Option<u64>,
    batches: u32,
}

fn latency(t: &mut Latencies) -> Latency {
    t.all.sort_unstable();
    t.dest.sort_unstable();
    let batch_means = |sum: &[f64], n: &[u64]| -> Vec<f64> {
        sum.iter().zip(n).filter(|(_, &k)| k > 0).map(|(s, &k)| s / k as f64).collect()
    };
    let means = batch_means(&t.batch_sum, &t.batch_n);
    let (l, d) = (&t.all, &t.dest);
    Latency {
        mean: mean(l.iter().sum::<u64>() as f64, l.len() as u64),
        ci95: ci95(&means),
        min: l.first().copied(),
        p50: quantile(l, 0.5),
        p95: quantile(l, 0.95),
        p99: quantile(l, 0.99),
        max: l.last().copied(),
        dest_mean: mean(d.iter().sum::<u64>() as f64, d.len() as u64),
        dest_ci95: ci95(&batch_means(&t.dest_batch_sum, &t.dest_batch_n)),
        dest_p95: quantile(d, 0.95),
        dest_max: d.last().copied(),
        batches: means.len() as u32,
    }
}

/// Utilisation columns over the window.
#[derive(Default)]
struct Utilisation {
    link_mean: f64,
    link_max: f64,
    link_max_at: Option<String>,
    host_mean: f64,
    host_max: f64,
    ni_mean: f64,
    ni_max: f64,
    buffer_mean: f64,
    buffer_occupancy: f64,
    backlog_mean: f64,
}

/// How many standard deviations of the backlog's random fluctuation a change must exceed to count
/// as growth: 3, so that a stable run is called saturated by chance about once in 700 windows.
const NOISE_SIGMAS: f64 = 3.0;

/// The noise, in messages, of the change in the number of unfinished messages between the
/// window's start (`start`) and end (`end`) of a stable run. In a stable open system the number
/// of messages in flight fluctuates about its mean like a Poisson count (variance ≈ mean), so the
/// difference of two samples has a variance of about `start + end`. With long messages at a low
/// rate a window holds few messages, and a handful more in flight at its end is a large share of
/// them: without this allowance such runs were called saturated at one load and not at a higher
/// one (sivaram98 Fig. 26, 512-flit 15-way multicasts: 2 unfinished at the start, 11 at the end,
/// at load 0.02). A saturated run's backlog grows with the window, its noise only as its root.
fn backlog_noise(start: u64, end: u64) -> f64 {
    NOISE_SIGMAS * ((start + end) as f64 + 1.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::backlog_noise;

    #[test]
    fn the_backlog_noise_grows_as_the_root_of_the_backlog() {
        assert_eq!(backlog_noise(0, 0), 3.0);
        assert_eq!(backlog_noise(2, 11), 3.0 * 14f64.sqrt());
        // sivaram98's false alarm: a growth of 9 is within the noise of 2 -> 11 ...
        assert!(9.0 < backlog_noise(2, 11));
        // ... a saturated run's growth of 68 (74 -> 142) is not.
        assert!(68.0 > backlog_noise(74, 142));
    }
}
