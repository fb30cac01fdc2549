//! Running a workload: [`run_workload`] drives one [`Simulation`] through the messages a
//! [`Workload`] creates and measures it as `sim::measure` describes; [`sweep`] runs one workload
//! at several loads.
//!
//! The driver advances the simulation to the next instant it must act at — the next message's
//! creation or the next measurement tick (ten per batch) — with `Simulation::run_until`, so the
//! engine never knows about workloads and a run stays single-threaded and deterministic. Finished
//! messages come back from the engine as records and are folded into the statistics at once;
//! only the rows a caller asked for (`measure.detail`) are kept.

use super::engine::Simulation;
use super::measure::{
    ci95, mean, quantile, DestinationRow, Detail, Measure, RunRow, SampleRow, Windows, WorkloadOutcome, WorkloadResult,
};
use super::message::Completed;
use super::params::Params;
use super::workload::{Generator, Inject, Shape, Traffic, Workload};
use crate::error::SimError;
use crate::fabric::{Channel, Fabric, Terminal};
use crate::routing::Routing;
use rayon::prelude::*;

/// Runs `workload` on `fabric` with `routing` and returns its rows. Every input is checked before
/// the first event (errors name the parameter); a run that deadlocks, saturates or exceeds a
/// budget still returns its rows, with the outcome saying why it stopped.
pub fn run_workload(
    fabric: &Fabric,
    routing: &dyn Routing,
    workload: &Workload,
    params: &Params,
    measure: &Measure,
    seed: u64,
) -> Result<WorkloadResult, SimError> {
    run_workload_with(fabric, routing, workload, params, measure, seed, &mut |_| true)
}

/// Where a workload run has got to, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time now, and the end of the measurement window (the run goes on past it until
    /// its measured messages have finished).
    pub now_ps: u64,
    pub window_end_ps: u64,
    pub messages: u64,
    pub finished: u64,
    pub events: u64,
}

/// [`run_workload`], calling `observe` ten times per batch of simulated time; when it returns
/// `false` (Ctrl-C, a deadline) the run stops there and reports what it measured, with a
/// `budget` outcome saying it was stopped by the caller.
pub fn run_workload_with(
    fabric: &Fabric,
    routing: &dyn Routing,
    workload: &Workload,
    params: &Params,
    measure: &Measure,
    seed: u64,
    observe: &mut dyn FnMut(&Progress) -> bool,
) -> Result<WorkloadResult, SimError> {
    measure.validate()?;
    let shape = Shape::new(fabric, workload, params, seed)?;
    let zero = zero_load(fabric, routing, workload, &shape, params, seed)?;
    let mut d = Driver::new(fabric, routing, workload, params, measure, seed, shape, zero)?;
    d.run(observe)?;
    Ok(d.finish())
}

/// Runs `workload` at every load of `loads` (flits per cycle per endpoint, or bytes per second
/// when the workload's load is a rate), one independent run each, in parallel. Each run is
/// single-threaded with the same seed, so the rows are identical whatever the number of worker
/// threads, and come back in the order of `loads`.
pub fn sweep(
    fabric: &Fabric,
    routing: &dyn Routing,
    workload: &Workload,
    params: &Params,
    measure: &Measure,
    seed: u64,
    loads: &[f64],
) -> Result<Vec<WorkloadResult>, SimError> {
    sweep_with(fabric, routing, workload, params, measure, seed, loads, &|_, _| true)
}

/// [`sweep`], calling `observe(point, progress)` as each point's run progresses (from the worker
/// threads, so it must be `Sync`); when it returns `false` that run stops and reports what it
/// measured (see [`run_workload_with`]).
#[allow(clippy::too_many_arguments)]
pub fn sweep_with(
    fabric: &Fabric,
    routing: &dyn Routing,
    workload: &Workload,
    params: &Params,
    measure: &Measure,
    seed: u64,
    loads: &[f64],
    observe: &(dyn Fn(usize, &Progress) -> bool + Sync),
) -> Result<Vec<WorkloadResult>, SimError> {
    if let Some(l) = loads.iter().find(|l| !(**l > 0.0 && l.is_finite())) {
        return Err(SimError::param("load", format!("{l}: every load of a sweep must be positive")));
    }
    let runs: Vec<Result<WorkloadResult, SimError>> = loads
        .par_iter()
        .enumerate()
        .map(|(i, &l)| {
            run_workload_with(fabric, routing, &workload.with_load(l), params, measure, seed, &mut |p| observe(i, p))
        })
        .collect();
    // The first error in load order, not whichever thread failed first.
    runs.into_iter().collect()
}

/// Messages whose alone-latency estimates the zero-load latency: 16 for a load (whose limit it
/// scales), 4 for a one-shot workload (reported only).
const ZERO_LOAD_SAMPLES: [usize; 2] = [16, 4];

/// Mean latency of the run's first messages (the same draws as the run's), each run alone on an
/// empty network: the zero-load latency the saturation rule scales. Also builds a first plan,
/// so a scheme that cannot serve the workload fails here, before the run.
fn zero_load(
    f: &Fabric,
    r: &dyn Routing,
    w: &Workload,
    shape: &Shape,
    params: &Params,
    seed: u64,
) -> Result<Option<f64>, SimError> {
    let mut g = Generator::new(shape.clone(), w, seed);
    let k = ZERO_LOAD_SAMPLES[matches!(w.inject, Inject::Burst { .. }) as usize];
    let mut msgs = Vec::new();
    while msgs.len() < k {
        let Some(t) = g.peek() else { break };
        msgs.extend(g.take_due(t));
    }
    msgs.truncate(k);
    msgs.sort();
    msgs.dedup();
    let mut sum = 0.0;
    let mut n = 0u64;
    for (src, dests) in msgs {
        let plan = g.plan(f, r, src, &dests)?;
        let res = Simulation::new(f, r, &plan, params, shape.message_bytes, seed)?.run();
        if let Some(c) = res.completion_ps {
            sum += c as f64;
            n += 1;
        }
    }
    Ok(mean(sum, n))
}

/// Cumulative counters at one instant.
#[derive(Clone, Debug, Default)]
struct Counters {
    at: u64,
    link_flits: Vec<u64>,
    host: Vec<u64>,
    ni: Vec<u64>,
    ejected: u64,
}

/// What happens after a tick.
enum After {
    Continue,
    /// Every measured message finished: stop generating and drain.
    Drain,
    Stop(WorkloadOutcome),
}

/// Running sums of one run.
#[derive(Default)]
struct Tally {
    messages: u64,
    measured: u64,
    measured_open: u64,
    finished: u64,
    /// Unfinished messages and the sum of their creation times (for their ages).
    open: u64,
    open_created: u128,
    /// Finished messages since measurement started: latency sum and count.
    since_sum: f64,
    since_n: u64,
    copies_expected: u64,
    copies_delivered: u64,
    copies_duplicated: u64,
    copies_missing: u64,
    extra: u64,
    generated_flits: u64,
    latencies: Vec<u64>,
    dest_latencies: Vec<u64>,
    batch_sum: Vec<f64>,
    batch_n: Vec<u64>,
    dest_batch_sum: Vec<f64>,
    dest_batch_n: Vec<u64>,
    batch_ejected: Vec<u64>,
    buffered_sum: f64,
    backlog_sum: f64,
    occupancy_samples: u64,
    backlog_start: u64,
    backlog_end: u64,
}

struct Driver<'a> {
    f: &'a Fabric,
    r: &'a dyn Routing,
    sim: Simulation<'a>,
    gen: Generator,
    w: Workload,
    measure: Measure,
    params: Params,
    seed: u64,
    win: Windows,
    burst: bool,
    /// One-shot runs: messages in all, for grouping them into batches by creation order.
    burst_total: u64,
    zero: Option<f64>,
    latency_limit: Option<u64>,
    ejection: Vec<usize>,
    next_tick: u64,
    generating: bool,
    start: Option<Counters>,
    end: Option<Counters>,
    last_delivery: u64,
    t: Tally,
    outcome: Option<WorkloadOutcome>,
    samples: Vec<SampleRow>,
    dest_rows: Vec<DestinationRow>,
}

impl<'a> Driver<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        f: &'a Fabric,
        r: &'a dyn Routing,
        w: &Workload,
        params: &Params,
        measure: &Measure,
        seed: u64,
        shape: Shape,
        zero: Option<f64>,
    ) -> Result<Driver<'a>, SimError> {
        let mut sim = Simulation::empty(f, r, params, shape.message_bytes, seed)?;
        sim.completed = Some(Vec::new());
        let burst = matches!(w.inject, Inject::Burst { .. });
        let mut win = measure.windows(shape.cycle_ps);
        if burst {
            win.warmup = 0;
        }
        let burst_total = match w.inject {
            Inject::Burst { count } => count as u64 * shape.senders.len() as u64,
            Inject::Load { .. } => 0,
        };
        let latency_limit =
            measure.latency_limit.map(|l| l.ps()).or_else(|| zero.map(|z| (z * measure.latency_factor).ceil() as u64));
        let ejection = (0..f.num_channels())
            .filter(|&c| matches!(f.channel_ends(Channel(c as u32)).1, Terminal::Endpoint { .. }))
            .collect();
        let nb = win.batches as usize;
        let t = Tally {
            batch_sum: vec![0.0; nb],
            batch_n: vec![0; nb],
            dest_batch_sum: vec![0.0; nb],
            dest_batch_n: vec![0; nb],
            ..Tally::default()
        };
        Ok(Driver {
            f,
            r,
            sim,
            gen: Generator::new(shape, w, seed),
            w: w.clone(),
            measure: measure.clone(),
            params: params.clone(),
            seed,
            next_tick: win.warmup % win.tick,
            win,
            burst,
            burst_total,
            zero,
            latency_limit,
            ejection,
            generating: true,
            start: None,
            end: None,
            last_delivery: 0,
            t,
            outcome: None,
            samples: Vec::new(),
            dest_rows: Vec::new(),
        })
    }

    /// The main loop: act at every arrival and tick until the run is over.
    fn run(&mut self, observe: &mut dyn FnMut(&Progress) -> bool) -> Result<(), SimError> {
        loop {
            let arrival = if self.generating { self.gen.peek() } else { None };
            let at = arrival.map_or(self.next_tick, |a| a.min(self.next_tick));
            if let Err(o) = self.sim.run_until(at) {
                self.outcome = Some(o.into());
                break;
            }
            self.collect();
            if at == self.next_tick {
                if !observe(&self.progress()) {
                    let message = "stopped by the caller before the end".to_string();
                    self.outcome = Some(WorkloadOutcome::Budget { message });
                    break;
                }
                match self.on_tick(at) {
                    After::Continue => {}
                    After::Drain => break,
                    After::Stop(o) => {
                        self.outcome = Some(o);
                        break;
                    }
                }
                self.next_tick += self.win.tick;
            }
            if arrival == Some(at) {
                self.create(at)?;
                if self.burst {
                    self.generating = false;
                }
            }
        }
        if self.outcome.is_none() {
            self.generating = false;
            self.outcome = Some(self.sim.drain().map_or(WorkloadOutcome::Drained, Into::into));
            self.collect();
        }
        if self.end.is_none() {
            // Stopped before the window's end (or a one-shot run): the window ends here.
            self.end = Some(self.counters());
            self.t.backlog_end = self.t.open;
        }
        Ok(())
    }

    fn progress(&self) -> Progress {
        Progress {
            now_ps: self.sim.now,
            window_end_ps: self.win.end,
            messages: self.t.messages,
            finished: self.t.finished,
            events: self.sim.events,
        }
    }

    /// Creates every message due at `at`.
    fn create(&mut self, at: u64) -> Result<(), SimError> {
        for (src, dests) in self.gen.take_due(at) {
            let fanout = dests.len() as u64;
            let tpl = self.gen.template(&mut self.sim, self.r, src, dests)?;
            let measured = self.is_measured(at);
            let t = &mut self.t;
            t.messages += 1;
            t.open += 1;
            t.open_created += at as u128;
            if measured {
                t.measured += 1;
                t.measured_open += 1;
                t.generated_flits += fanout * self.gen.shape.flits;
            }
            self.sim.start_message(tpl);
            self.collect(); // a plan with nothing to send finishes at once
        }
        Ok(())
    }

    fn is_measured(&self, created: u64) -> bool {
        self.burst || (self.win.warmup..self.win.end).contains(&created)
    }

    fn counters(&self) -> Counters {
        let s = &self.sim;
        Counters {
            at: s.now,
            link_flits: s.link_flits.clone(),
            host: s.eps.iter().map(|e| e.host.busy_ps).collect(),
            ni: s.eps.iter().map(|e| e.ni.busy_ps).collect(),
            ejected: self.ejection.iter().map(|&c| s.link_flits[c]).sum(),
        }
    }

    fn ejected(&self) -> u64 {
        self.ejection.iter().map(|&c| self.sim.link_flits[c]).sum()
    }

    /// Measurement bookkeeping at a tick; says whether the run goes on.
    fn on_tick(&mut self, now: u64) -> After {
        use std::mem::size_of;
        self.sim.outside_bytes = (self.samples.capacity() * size_of::<SampleRow>()
            + self.dest_rows.capacity() * size_of::<DestinationRow>()) as u64;
        let w = self.win;
        if self.burst {
            if now == 0 {
                self.start = Some(self.counters());
            }
            self.sample_occupancy();
            let idle = !self.sim.pending() && self.sim.live == 0;
            return if idle && !self.generating { After::Drain } else { After::Continue };
        }
        if now == w.warmup {
            self.start = Some(self.counters());
            self.t.backlog_start = self.t.open;
            self.t.since_sum = 0.0;
            self.t.since_n = 0;
        }
        let boundary = now % w.batch == w.warmup % w.batch;
        if boundary && now > w.warmup && now <= w.end {
            self.t.batch_ejected.push(self.ejected());
        }
        if (w.warmup..=w.end).contains(&now) {
            self.sample_occupancy();
        }
        if now == w.end {
            self.end = Some(self.counters());
            self.t.backlog_end = self.t.open;
        }
        if boundary || now > w.end {
            if let Some(o) = self.unstable(now) {
                return After::Stop(o);
            }
        }
        if now >= w.end && self.t.measured_open == 0 {
            return After::Drain;
        }
        if now >= w.end + w.drain_limit {
            return After::Stop(WorkloadOutcome::DrainLimit { at_ps: now });
        }
        After::Continue
    }

    fn sample_occupancy(&mut self) {
        self.t.buffered_sum += self.sim.buffered_flits() as f64;
        self.t.backlog_sum += self.t.open as f64;
        self.t.occupancy_samples += 1;
    }

    /// BookSim's instability rule: finished latencies since measurement began, plus the ages of
    /// all unfinished messages, averaged, against the limit.
    fn unstable(&self, now: u64) -> Option<WorkloadOutcome> {
        let limit = self.latency_limit?;
        let t = &self.t;
        let ages = (t.open as u128 * now as u128 - t.open_created) as f64;
        let n = t.since_n + t.open;
        let m = mean(t.since_sum + ages, n)?;
        (m > limit as f64).then_some(WorkloadOutcome::Unstable { at_ps: now, mean_latency_ps: m, limit_ps: limit })
    }

    /// Folds the messages the engine finished into the tally.
    fn collect(&mut self) {
        let done = std::mem::take(self.sim.completed.as_mut().expect("a workload run keeps its records"));
        for c in done {
            self.account(&c);
        }
    }

    fn account(&mut self, c: &Completed) {
        let m = self.sim.m;
        let t = &mut self.t;
        t.open -= 1;
        t.open_created -= c.created as u128;
        t.finished += 1;
        t.copies_expected += c.latency.len() as u64;
        let once = (0..c.latency.len()).filter(|&i| c.deliveries[i] == 1 && c.packets[i] == m).count();
        let dup = c.deliveries.iter().filter(|&&d| d > 1).count();
        t.copies_delivered += once as u64;
        t.copies_duplicated += dup as u64;
        t.copies_missing += c.deliveries.iter().filter(|&&d| d == 0).count() as u64;
        t.extra += c.extra_deliveries as u64;
        let all = c.deliveries.iter().all(|&d| d > 0);
        let latency = all.then(|| c.latency.iter().copied().max().unwrap_or(0));
        if let Some(l) = latency {
            t.since_sum += l as f64;
            t.since_n += 1;
            self.last_delivery = self.last_delivery.max(c.created + l);
        }
        let measured = self.is_measured(c.created);
        let batch = measured.then(|| self.batch_of(c));
        if let (Some(b), Some(l)) = (batch, latency) {
            self.measured_latency(b, l, c);
        }
        if measured {
            self.t.measured_open -= 1;
        }
        if self.measure.detail != Detail::None {
            self.rows(c, batch, latency, once, dup);
        }
    }

    fn batch_of(&self, c: &Completed) -> usize {
        let b = if self.burst {
            c.serial * self.win.batches / self.burst_total.max(1)
        } else {
            (c.created - self.win.warmup) / self.win.batch
        };
        (b as usize).min(self.win.batches as usize - 1)
    }

    fn measured_latency(&mut self, b: usize, l: u64, c: &Completed) {
        let t = &mut self.t;
        t.latencies.push(l);
        t.batch_sum[b] += l as f64;
        t.batch_n[b] += 1;
        for &d in c.latency.iter().filter(|&&d| d != super::switch::NO_TIME) {
            t.dest_latencies.push(d);
            t.dest_batch_sum[b] += d as f64;
            t.dest_batch_n[b] += 1;
        }
    }

    fn rows(&mut self, c: &Completed, batch: Option<usize>, latency: Option<u64>, once: usize, dup: usize) {
        let tpl = &self.sim.prog.templates[c.tpl as usize];
        let name = |e: u32| self.f.endpoints()[e as usize].name.clone();
        let got: Vec<u64> = c.latency.iter().copied().filter(|&d| d != super::switch::NO_TIME).collect();
        let (workload, load) = (self.w.spec(), self.offered());
        self.samples.push(SampleRow {
            workload: workload.clone(),
            offered_load: load,
            seed: self.seed,
            serial: c.serial,
            source: name(tpl.source),
            destinations: tpl.destinations.len(),
            created_ps: c.created,
            measured: batch.is_some(),
            batch: batch.map(|b| b as u32),
            latency_ps: latency,
            destination_latency_mean_ps: mean(got.iter().sum::<u64>() as f64, got.len() as u64),
            delivered: once,
            duplicated: dup,
            extra_deliveries: c.extra_deliveries,
        });
        if self.measure.detail == Detail::Destinations {
            for (i, &d) in tpl.destinations.iter().enumerate() {
                self.dest_rows.push(DestinationRow {
                    workload: workload.clone(),
                    offered_load: load,
                    seed: self.seed,
                    serial: c.serial,
                    destination: name(d),
                    latency_ps: (c.latency[i] != super::switch::NO_TIME).then_some(c.latency[i]),
                    deliveries: c.deliveries[i],
                    packets: c.packets[i],
                });
            }
        }
    }

    /// The nominal offered load, flits per cycle per endpoint.
    fn offered(&self) -> Option<f64> {
        (!self.burst).then_some(self.gen.shape.load)
    }

    fn finish(mut self) -> WorkloadResult {
        let run = self.run_row();
        WorkloadResult {
            run,
            samples: std::mem::take(&mut self.samples),
            destinations: std::mem::take(&mut self.dest_rows),
        }
    }

    /// The window's length: the measurement window (up to where the run stopped, if earlier), or
    /// for a one-shot run from 0 to the last delivery.
    fn window(&self) -> u64 {
        if self.burst {
            return self.last_delivery.max(1);
        }
        let end = self.end.as_ref().map_or(self.sim.now, |c| c.at);
        let start = self.start.as_ref().map_or(0, |c| c.at);
        let start = if end <= start { 0 } else { start };
        end.saturating_sub(start).max(1)
    }

    fn run_row(&mut self) -> RunRow {
        let shape = &self.gen.shape;
        let window = self.window();
        let n = shape.n as f64;
        let cycles = window as f64 / shape.cycle_ps as f64;
        let (mut start, end) = (self.start.clone().unwrap_or_default(), self.end.clone().unwrap_or_default());
        if end.at <= start.at {
            // Stopped before measuring anything: report what happened from time 0 instead.
            start = Counters::default();
        }
        let accepted_flits = end.ejected.saturating_sub(start.ejected) as f64;
        let accepted_load = accepted_flits / cycles / n;
        let generated_load = self.t.generated_flits as f64 / cycles / n;
        let bytes_per_flit = shape.message_bytes as f64 / shape.flits.max(1) as f64;
        let per_s = 1e12 / shape.cycle_ps as f64;
        let (saturated, saturation) = self.saturation(accepted_load, generated_load);
        let u = self.utilisation(&start, &end, window);
        let lat = latency(&mut self.t);
        let shape = &self.gen.shape;
        RunRow {
            fabric: self.f.name().to_string(),
            routing: self.r.spec(),
            workload: self.w.spec(),
            kind: self.w.traffic.name().to_string(),
            scheme: if matches!(self.w.traffic, Traffic::Uniform { .. }) {
                "unicast".into()
            } else {
                self.w.scheme.clone()
            },
            message_bytes: shape.message_bytes,
            packets: shape.packets,
            message_flits: shape.flits,
            offered_load: self.offered(),
            offered_bytes_per_s: self.offered().map(|l| l * bytes_per_flit * per_s),
            senders: shape.senders.len(),
            fanout: shape.fanout.iter().sum::<u64>() as f64 / shape.fanout.len().max(1) as f64,
            seed: self.seed,
            params: self.params.clone(),
            measure: self.measure.clone(),
            cycle_ps: shape.cycle_ps,
            warmup_ps: self.win.warmup,
            window_ps: window,
            outcome: self.outcome.clone().unwrap_or(WorkloadOutcome::Drained),
            saturated,
            saturation,
            end_ps: self.sim.now,
            events: self.sim.events,
            flit_hops: self.sim.flit_hops,
            messages: self.t.messages,
            messages_measured: self.t.measured,
            messages_finished: self.t.finished,
            copies_expected: self.t.copies_expected,
            copies_delivered: self.t.copies_delivered,
            copies_duplicated: self.t.copies_duplicated,
            copies_missing: self.t.copies_missing,
            extra_deliveries: self.t.extra,
            in_flight_packets: self.sim.live,
            buffered_flits: self.sim.buffered_flits(),
            generated_load,
            accepted_load,
            accepted_ci95: self.accepted_ci(n),
            accepted_bytes_per_s: accepted_load * bytes_per_flit * per_s,
            sender_bytes_per_s: self.t.measured as f64 * shape.message_bytes as f64
                / (window as f64 * 1e-12)
                / shape.senders.len().max(1) as f64,
            buffer_max_flits: self.sim.max_buffer().0,
            backlog_start: self.t.backlog_start,
            backlog_end: self.t.backlog_end,
            zero_load_latency_ps: self.zero,
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
    fn accepted_ci(&self, n: f64) -> Option<f64> {
        if self.burst {
            return None;
        }
        let first = self.start.as_ref()?.ejected;
        let cycles = self.win.batch as f64 / self.gen.shape.cycle_ps as f64;
        let per: Vec<f64> = std::iter::once(first)
            .chain(self.t.batch_ejected.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / cycles / n)
            .collect();
        ci95(&per)
    }

    fn saturation(&self, accepted: f64, generated: f64) -> (bool, String) {
        if self.burst {
            return (false, String::new());
        }
        let margin = self.measure.accepted_margin;
        let mut why = Vec::new();
        if let Some(WorkloadOutcome::Unstable { mean_latency_ps, limit_ps, .. }) = &self.outcome {
            why.push(format!("unstable latency: mean {mean_latency_ps:.0} ps above the limit {limit_ps} ps"));
        }
        if matches!(self.outcome, Some(WorkloadOutcome::DrainLimit { .. })) {
            why.push("measured messages not finished within measure.drain_limit".to_string());
        }
        // The load criteria need the whole window.
        let complete = self.end.as_ref().is_some_and(|c| c.at == self.win.end);
        if complete && accepted < generated * (1.0 - margin) {
            why.push(format!("accepted load {accepted:.4} below generated {generated:.4} by more than {margin}"));
        }
        let growth = self.t.backlog_end.saturating_sub(self.t.backlog_start) as f64;
        if complete && growth > margin * self.t.measured.max(1) as f64 {
            why.push(format!(
                "queue growth: {} unfinished messages at the window's start, {} at its end",
                self.t.backlog_start, self.t.backlog_end
            ));
        }
        (!why.is_empty(), why.join("; "))
    }

    fn utilisation(&self, start: &Counters, end: &Counters, window: u64) -> Utilisation {
        let w = window as f64;
        let cycle = self.gen.shape.cycle_ps as f64;
        let delta = |a: &[u64], b: &[u64], i: usize| a[i].saturating_sub(b.get(i).copied().unwrap_or(0)) as f64;
        let busy: Vec<f64> =
            (0..end.link_flits.len()).map(|c| delta(&end.link_flits, &start.link_flits, c) * cycle / w).collect();
        let mut u = Utilisation::default();
        for (c, &b) in busy.iter().enumerate() {
            if b > u.link_max {
                (u.link_max, u.link_max_at) = (b, Some(self.f.channel_str(Channel(c as u32))));
            }
        }
        let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let top = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let host: Vec<f64> = (0..end.host.len()).map(|i| delta(&end.host, &start.host, i) / w).collect();
        let ni: Vec<f64> = (0..end.ni.len()).map(|i| delta(&end.ni, &start.ni, i) / w).collect();
        (u.link_mean, u.host_mean, u.host_max, u.ni_mean, u.ni_max) =
            (avg(&busy), avg(&host), top(&host), avg(&ni), top(&ni));
        let samples = self.t.occupancy_samples.max(1) as f64;
        u.buffer_mean = self.t.buffered_sum / samples;
        let switch_bufs = (self.f.num_channels() - self.ejection.len()) as f64 * self.sim.v as f64;
        u.buffer_occupancy = u.buffer_mean / (switch_bufs * self.params.switch.buffer_flits as f64).max(1.0);
        u.backlog_mean = self.t.backlog_sum / samples;
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

fn latency(t: &mut Tally) -> Latency {
    t.latencies.sort_unstable();
    t.dest_latencies.sort_unstable();
    let batch_means = |sum: &[f64], n: &[u64]| -> Vec<f64> {
        sum.iter().zip(n).filter(|(_, &k)| k > 0).map(|(s, &k)| s / k as f64).collect()
    };
    let means = batch_means(&t.batch_sum, &t.batch_n);
    let (l, d) = (&t.latencies, &t.dest_latencies);
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
