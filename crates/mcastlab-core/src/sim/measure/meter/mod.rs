//! The meter of one workload run: an observer of what happened. The driver (`sim::run`) tells it
//! when a message is created and when a measurement tick comes; it reads the simulation's
//! counters (links, hosts, NIs, buffers) and the records of finished messages, and keeps the
//! running sums the rows are made of. It never changes what the simulation does.

mod report;

use super::rows::{DestinationRow, SampleRow, WorkloadOutcome, WorkloadResult};
use super::stats::mean;
use super::windows::Windows;
use crate::fabric::{Channel, Fabric, Terminal};
use crate::ids::EndpointId;
use crate::sim::engine::Simulation;
use crate::sim::ids::TemplateId;
use crate::sim::ni::{Completed, Template};
use crate::sim::params::Params;
use crate::sim::params::{Ages, Detail, Measure, Resolved, Stop};
use crate::sim::workload::{Inject, Shape, Workload};

/// Cumulative counters at one instant.
#[derive(Clone, Debug, Default)]
struct Counters {
    at: u64,
    link_flits: Vec<u64>,
    host: Vec<u64>,
    ni: Vec<u64>,
    ejected: u64,
}

/// What the driver does after a tick.
pub(crate) enum After {
    Continue,
    /// Every measured message finished: stop generating and drain.
    Drain,
    Stop(WorkloadOutcome),
}

/// The mean the unstable-run test compares with its limit: `finished_n` finished latencies
/// summing to `finished_sum`, and `open` ages whose creation times sum to `created`, at `now`.
fn unstable_mean(finished_sum: f64, finished_n: u64, open: u64, created: u128, now: u64) -> Option<f64> {
    let ages = (open as u128 * now as u128 - created) as f64;
    mean(finished_sum + ages, finished_n + open)
}

/// Messages in and out.
#[derive(Default)]
struct Flow {
    messages: u64,
    measured: u64,
    measured_open: u64,
    finished: u64,
    /// Unfinished messages and the sum of their creation times (for their ages).
    open: u64,
    open_created: u128,
    /// Their flits (every destination's copy) and the sum of those flits' creation times.
    open_flits: u64,
    open_flit_created: u128,
    generated_flits: u64,
}

/// Destination copies the finished messages owed, and what became of them.
#[derive(Default)]
struct Copies {
    expected: u64,
    delivered: u64,
    duplicated: u64,
    missing: u64,
    extra: u64,
}

/// Latencies of measured messages, in all and per batch.
#[derive(Default)]
struct Latencies {
    /// Finished messages since measurement started: latency sum and count (instability rule).
    since_sum: f64,
    since_n: u64,
    all: Vec<u64>,
    dest: Vec<u64>,
    batch_sum: Vec<f64>,
    batch_n: Vec<u64>,
    dest_batch_sum: Vec<f64>,
    dest_batch_n: Vec<u64>,
}

/// Buffer occupancy and backlog samples, and the flits ejected at each batch's end.
#[derive(Default)]
struct Occupancy {
    buffered_sum: f64,
    backlog_sum: f64,
    samples: u64,
    backlog_start: u64,
    backlog_end: u64,
    batch_ejected: Vec<u64>,
}

/// The fixed part: settings and what they give for this run.
struct Setup {
    measure: Measure,
    win: Windows,
    /// A one-shot workload (`count=N`), and its messages in all (for grouping them into batches
    /// by creation order).
    burst: bool,
    burst_total: u64,
    zero: Option<f64>,
    /// The limit, ages and stop rule after the preset's convention filled what was `none`.
    rules: Resolved,
    /// Flits of a message to one destination.
    flits: u64,
    /// Channels into endpoints (accepted load is counted on them).
    ejection: Vec<usize>,
    /// What every sample row repeats.
    workload: String,
    offered: Option<f64>,
    seed: u64,
}

/// The observer of one workload run.
pub(crate) struct Meter {
    setup: Setup,
    start: Option<Counters>,
    end: Option<Counters>,
    last_delivery: u64,
    flow: Flow,
    copies: Copies,
    lat: Latencies,
    occ: Occupancy,
    samples: Vec<SampleRow>,
    dest_rows: Vec<DestinationRow>,
    /// The records being folded in by `collect`, kept between calls for their capacity (the
    /// records themselves go back to the engine for reuse).
    done: Vec<Completed>,
}

/// What a run row repeats about the run's inputs.
pub(crate) struct RunInputs<'a> {
    pub f: &'a Fabric,
    pub routing: String,
    pub workload: &'a Workload,
    pub shape: &'a Shape,
    pub params: &'a Params,
    pub seed: u64,
    /// Events the run was expected to take (`sim::run::Estimate`).
    pub estimated_events: u64,
    /// Templates built and recycled (`limits.kept_templates`).
    pub templates: (u64, u64),
}

impl Meter {
    pub(crate) fn new(
        f: &Fabric,
        w: &Workload,
        shape: &Shape,
        m: &Measure,
        rules: Resolved,
        seed: u64,
        zero: Option<f64>,
    ) -> Meter {
        let burst = matches!(w.inject, Inject::Burst { .. });
        let mut win = m.windows(shape);
        if burst {
            win.warmup = 0;
        }
        let burst_total = match w.inject {
            Inject::Burst { count } => count as u64 * shape.senders.len() as u64,
            Inject::Load { .. } => 0,
        };
        let ejection = (0..f.num_channels())
            .filter(|&c| matches!(f.channel_ends(Channel(c as u32)).1, Terminal::Endpoint { .. }))
            .collect();
        let nb = win.batches as usize;
        Meter {
            setup: Setup {
                measure: m.clone(),
                win,
                burst,
                burst_total,
                zero,
                rules,
                flits: shape.flits,
                ejection,
                workload: w.spec(),
                offered: (!burst).then_some(shape.load),
                seed,
            },
            start: None,
            end: None,
            last_delivery: 0,
            flow: Flow::default(),
            copies: Copies::default(),
            lat: Latencies {
                batch_sum: vec![0.0; nb],
                batch_n: vec![0; nb],
                dest_batch_sum: vec![0.0; nb],
                dest_batch_n: vec![0; nb],
                ..Latencies::default()
            },
            occ: Occupancy::default(),
            samples: Vec::new(),
            dest_rows: Vec::new(),
            done: Vec::new(),
        }
    }

    /// The measurement windows of the run.
    pub(crate) fn windows(&self) -> Windows {
        self.setup.win
    }

    /// Messages created and finished so far.
    pub(crate) fn messages(&self) -> (u64, u64) {
        (self.flow.messages, self.flow.finished)
    }

    /// Bytes of the rows kept so far, counted against `limits.max_memory`.
    pub(crate) fn rows_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.samples.capacity() * size_of::<SampleRow>() + self.dest_rows.capacity() * size_of::<DestinationRow>())
            as u64
    }

    /// A message with `fanout` destinations of `flits` flits each is created at `at`.
    pub(crate) fn created(&mut self, at: u64, fanout: u64, flits: u64) {
        let measured = self.is_measured(at);
        let t = &mut self.flow;
        t.messages += 1;
        t.open += 1;
        t.open_created += at as u128;
        t.open_flits += fanout * flits;
        t.open_flit_created += at as u128 * (fanout * flits) as u128;
        if measured {
            t.measured += 1;
            t.measured_open += 1;
            t.generated_flits += fanout * flits;
        }
    }

    /// The outcome of a run that drained without measuring a message.
    fn no_message(&self, cycle_ps: u64) -> WorkloadOutcome {
        let w = self.setup.win;
        let window_ps = w.end.saturating_sub(w.warmup);
        WorkloadOutcome::NoMessage {
            window_ps,
            message: format!(
                "no message was created in the measurement window ({}, {} cycles), so nothing was measured: \
                 lengthen it (measure.batch, measure.batches) or raise the load",
                crate::sim::units::Time(window_ps),
                window_ps / cycle_ps.max(1)
            ),
        }
    }

    fn is_measured(&self, created: u64) -> bool {
        self.setup.burst || (self.setup.win.warmup..self.setup.win.end).contains(&created)
    }

    fn counters(&self, sim: &Simulation<'_>) -> Counters {
        let n = sim.busy_len();
        Counters {
            at: sim.now(),
            link_flits: sim.link_flits().to_vec(),
            host: (0..n).map(|e| sim.busy(e).0).collect(),
            ni: (0..n).map(|e| sim.busy(e).1).collect(),
            ejected: self.ejected(sim),
        }
    }

    fn ejected(&self, sim: &Simulation<'_>) -> u64 {
        let flits = sim.link_flits();
        self.setup.ejection.iter().map(|&c| flits[c]).sum()
    }

    /// Measurement bookkeeping at a tick at `now`; says whether the run goes on. `generating`:
    /// whether the sources still create messages.
    pub(crate) fn tick(&mut self, now: u64, sim: &Simulation<'_>, generating: bool) -> After {
        let w = self.setup.win;
        if self.setup.burst {
            if now == 0 {
                self.start = Some(self.counters(sim));
            }
            self.sample_occupancy(sim);
            let idle = !sim.pending() && sim.in_flight() == 0;
            return if idle && !generating { After::Drain } else { After::Continue };
        }
        if now == w.warmup {
            self.start = Some(self.counters(sim));
            self.occ.backlog_start = self.flow.open;
            self.lat.since_sum = 0.0;
            self.lat.since_n = 0;
        }
        let boundary = now % w.batch == w.warmup % w.batch;
        if boundary && now > w.warmup && now <= w.end {
            let e = self.ejected(sim);
            self.occ.batch_ejected.push(e);
        }
        if (w.warmup..=w.end).contains(&now) {
            self.sample_occupancy(sim);
        }
        if now == w.end {
            self.end = Some(self.counters(sim));
            self.occ.backlog_end = self.flow.open;
        }
        if boundary || now > w.end {
            if let Some(o) = self.unstable(now) {
                return After::Stop(o);
            }
        }
        if now >= w.end && self.flow.measured_open == 0 {
            return After::Drain;
        }
        if now >= w.end + w.drain_limit {
            return After::Stop(WorkloadOutcome::DrainLimit { at_ps: now });
        }
        After::Continue
    }

    /// The run stopped before the window's end (or is a one-shot run): the window ends here.
    pub(crate) fn stopped(&mut self, sim: &Simulation<'_>) {
        if self.end.is_none() {
            self.end = Some(self.counters(sim));
            self.occ.backlog_end = self.flow.open;
        }
    }

    /// Under `measure.stop = exact` (BookSim's rule): the window is over and the last measured
    /// message has just finished, so generation stops now rather than at the next tick. The
    /// driver asks after every step (a message creation or a tick), so "now" is the instant of
    /// the step in which the last one finished; no message is created after it.
    pub(crate) fn done_exactly(&self, now: u64) -> bool {
        self.setup.rules.stop == Stop::Exact
            && !self.setup.burst
            && now >= self.setup.win.end
            && self.flow.measured_open == 0
    }

    fn sample_occupancy(&mut self, sim: &Simulation<'_>) {
        self.occ.buffered_sum += sim.buffered_flits() as f64;
        self.occ.backlog_sum += self.flow.open as f64;
        self.occ.samples += 1;
    }

    /// BookSim's instability rule: finished latencies since measurement began, plus the ages of
    /// all unfinished messages (or of all their flits, `measure.ages`), averaged, against the limit.
    fn unstable(&self, now: u64) -> Option<WorkloadOutcome> {
        let limit = self.setup.rules.latency_limit_ps?;
        let t = &self.flow;
        let (open, created) = match self.setup.rules.ages {
            Ages::Message => (t.open, t.open_created),
            Ages::Flit => (t.open_flits, t.open_flit_created),
        };
        let m = unstable_mean(self.lat.since_sum, self.lat.since_n, open, created, now)?;
        (m > limit as f64).then_some(WorkloadOutcome::Unstable { at_ps: now, mean_latency_ps: m, limit_ps: limit })
    }

    /// Folds the messages the engine finished into the sums; puts their templates (in the order
    /// they finished), which the meter no longer needs, into `templates` (emptied first).
    pub(crate) fn collect(
        &mut self,
        f: &Fabric,
        sim: &mut Simulation<'_>,
        packets: u32,
        templates: &mut Vec<TemplateId>,
    ) {
        templates.clear();
        let mut done = std::mem::take(&mut self.done);
        sim.take_completed(&mut done);
        for c in &done {
            self.account(f, sim.template(c.tpl), c, packets);
        }
        templates.extend(done.iter().map(|c| c.tpl));
        sim.give_back(&mut done);
        self.done = done;
    }

    fn account(&mut self, f: &Fabric, tpl: &Template, c: &Completed, m: u32) {
        let t = &mut self.flow;
        t.open -= 1;
        t.open_created -= c.created as u128;
        let flits = c.latency.len() as u64 * self.setup.flits;
        t.open_flits -= flits;
        t.open_flit_created -= c.created as u128 * flits as u128;
        t.finished += 1;
        let k = &mut self.copies;
        k.expected += c.latency.len() as u64;
        // One pass over the destinations (every message of a workload comes through here; most
        // have one destination): copies delivered once whole, duplicated, missing, and the
        // latest latency.
        let (mut once, mut dup, mut missing, mut last) = (0, 0, 0u64, None::<u64>);
        for ((&d, &p), &l) in c.deliveries.iter().zip(&c.packets).zip(&c.latency) {
            once += (d == 1 && p == m) as usize;
            dup += (d > 1) as usize;
            missing += (d == 0) as u64;
            if let Some(l) = l {
                last = Some(last.map_or(l, |x| x.max(l)));
            }
        }
        k.delivered += once as u64;
        k.duplicated += dup as u64;
        k.missing += missing;
        k.extra += c.extra_deliveries as u64;
        let latency = (missing == 0).then(|| last.unwrap_or(0));
        if let Some(l) = latency {
            self.lat.since_sum += l as f64;
            self.lat.since_n += 1;
            self.last_delivery = self.last_delivery.max(c.created + l);
        }
        let measured = self.is_measured(c.created);
        let batch = measured.then(|| self.batch_of(c));
        if let (Some(b), Some(l)) = (batch, latency) {
            self.measured_latency(b, l, c);
        }
        if measured {
            self.flow.measured_open -= 1;
        }
        if self.setup.measure.detail != Detail::None {
            self.rows(f, tpl, c, batch, latency, (once, dup));
        }
    }

    fn batch_of(&self, c: &Completed) -> usize {
        let s = &self.setup;
        let b = if s.burst {
            c.serial * s.win.batches / s.burst_total.max(1)
        } else {
            (c.created - s.win.warmup) / s.win.batch
        };
        (b as usize).min(s.win.batches as usize - 1)
    }

    fn measured_latency(&mut self, b: usize, l: u64, c: &Completed) {
        let t = &mut self.lat;
        t.all.push(l);
        t.batch_sum[b] += l as f64;
        t.batch_n[b] += 1;
        for &d in c.latency.iter().flatten() {
            t.dest.push(d);
            t.dest_batch_sum[b] += d as f64;
            t.dest_batch_n[b] += 1;
        }
    }

    fn rows(
        &mut self,
        f: &Fabric,
        tpl: &Template,
        c: &Completed,
        batch: Option<usize>,
        latency: Option<u64>,
        (once, dup): (usize, usize),
    ) {
        let name = |e: EndpointId| f.endpoints()[e.idx()].name.clone();
        let got: Vec<u64> = c.latency.iter().copied().flatten().collect();
        let s = &self.setup;
        self.samples.push(SampleRow {
            workload: s.workload.clone(),
            offered_load: s.offered,
            seed: s.seed,
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
        if s.measure.detail == Detail::Destinations {
            for (i, &d) in tpl.destinations.iter().enumerate() {
                self.dest_rows.push(DestinationRow {
                    workload: s.workload.clone(),
                    offered_load: s.offered,
                    seed: s.seed,
                    serial: c.serial,
                    destination: name(d),
                    latency_ps: c.latency[i],
                    deliveries: c.deliveries[i],
                    packets: c.packets[i],
                });
            }
        }
    }

    /// The rows of the run, which ended with `outcome`.
    pub(crate) fn finish(
        mut self,
        sim: &Simulation<'_>,
        run: &RunInputs<'_>,
        outcome: WorkloadOutcome,
    ) -> WorkloadResult {
        let outcome = match outcome {
            WorkloadOutcome::Drained if self.flow.measured == 0 => self.no_message(run.shape.cycle_ps),
            o => o,
        };
        let row = self.run_row(sim, run, outcome);
        WorkloadResult { run: row, samples: self.samples, destinations: self.dest_rows }
    }
}

#[cfg(test)]
mod tests {
    use super::unstable_mean;

    /// Nine finished 8-flit packets of 100 cycles and one 8-flit packet still waiting since cycle
    /// 0, at cycle 2,000, against BookSim's limit of 500: one age per message gives
    /// (900 + 2,000) / 10 = 290, stable; one per flit gives (900 + 8 · 2,000) / 17 ≈ 994, unstable.
    #[test]
    fn per_flit_ages_weigh_a_waiting_packet_by_its_flits() {
        let per_message = unstable_mean(900.0, 9, 1, 0, 2_000).unwrap();
        assert_eq!(per_message, 290.0);
        let per_flit = unstable_mean(900.0, 9, 8, 0, 2_000).unwrap();
        assert!((per_flit - 16_900.0 / 17.0).abs() < 1e-9);
        assert!(per_message < 500.0 && per_flit > 500.0);
        // Creation times count: 8 flits created at cycle 1,500 are 500 cycles old.
        assert_eq!(unstable_mean(0.0, 0, 8, 8 * 1_500, 2_000), Some(500.0));
        assert_eq!(unstable_mean(0.0, 0, 0, 0, 2_000), None);
    }
}
