//! Running a workload: [`run_workload`] drives one [`Simulation`] through the messages a
//! [`Workload`] creates and measures it as `sim::measure` describes; [`sweep`] runs one workload
//! at several loads.
//!
//! This module owns time for a workload: the driver advances the simulation to the next instant
//! it must act at — the next message's creation or the next measurement tick (ten per batch) —
//! with `Simulation::run_until`, so the engine never knows about workloads and a run stays
//! single-threaded and deterministic. What is counted is the meter's business (`sim::measure`):
//! the driver tells it of every creation and tick, and hands it the records of finished messages.
//! The caller's `observe` is asked whether to go on at every tick and at least every
//! [`STOP_CHECK_EVENTS`] events, so a run stops promptly when asked, whatever its batch length.

use super::engine::Simulation;
use super::ids::TemplateId;
use super::measure::{After, Measure, Meter, RunInputs, WorkloadOutcome, WorkloadResult};
use super::params::{Granularity, Params};
use super::workload::{Due, Generator, Shape, Workload};
use crate::error::SimError;
use crate::fabric::Fabric;
use crate::routing::Routing;
use rayon::prelude::*;

mod estimate;
mod zero_load;

pub use estimate::Estimate;

/// Events between two questions to the caller whether to go on (a few milliseconds of work).
pub const STOP_CHECK_EVENTS: u64 = 1 << 16;

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

/// [`run_workload`], calling `observe` ten times per batch of simulated time and at least every
/// [`STOP_CHECK_EVENTS`] events; when it returns `false` (Ctrl-C, a deadline, a progress bar
/// that failed) the run stops there and reports what it measured, with a `budget` outcome saying
/// it was stopped by the caller.
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
    let zero = zero_load::zero_load(fabric, routing, workload, &shape, params, seed)?;
    let estimate = Estimate::new(workload, &shape, measure, &zero);
    estimate.within(params)?;
    // Packet trains where they are exact; a template that rules them out mid-run (a range
    // multicast) ends that attempt, and the run starts over flit by flit with the same seed, so
    // its rows are the flit engine's whichever way it got there.
    let mut allow_trains = true;
    let (d, meter, outcome) = loop {
        let rules = measure.resolve(params.convention(), params.flit_ps(), zero.latency_ps);
        let meter = Meter::new(fabric, workload, &shape, measure, rules, seed, zero.latency_ps);
        let mut d = Driver {
            sim: Simulation::empty(fabric, routing, params, shape.message_bytes, seed, allow_trains)?,
            gen: Generator::new(shape.clone(), workload, seed, params.limits.kept_templates),
            f: fabric,
            r: routing,
            next_tick: 0,
            generating: true,
            asked_at: 0,
            observe: &mut *observe,
            done: Vec::new(),
            due: Due::default(),
        };
        d.sim.keep_completed();
        match d.run(meter) {
            Ok((meter, outcome)) => break (d, meter, outcome),
            Err(_) if d.sim.trains_refused() && params.switch.granularity == Granularity::Auto => allow_trains = false,
            Err(e) => return Err(e),
        }
    };
    let run = RunInputs {
        f: fabric,
        routing: routing.spec(),
        workload,
        shape: &d.gen.shape,
        params,
        seed,
        estimated_events: estimate.events,
        templates: d.gen.templates(),
    };
    Ok(meter.finish(&d.sim, &run, outcome))
}

/// The [`Estimate`] of each run of `workload` at `loads` (or at its own load when `loads` is
/// empty), before any is run: what a command announces. A run beyond the budgets is the same
/// error `run_workload` and `sweep` would give (for a sweep, naming the load). The zero-load runs
/// are shared, since they do not depend on the load.
pub fn estimate(
    fabric: &Fabric,
    routing: &dyn Routing,
    workload: &Workload,
    params: &Params,
    measure: &Measure,
    seed: u64,
    loads: &[f64],
) -> Result<Vec<Estimate>, SimError> {
    measure.validate()?;
    let first = loads.first().map_or_else(|| workload.clone(), |&l| workload.with_load(l));
    let shape = Shape::new(fabric, &first, params, seed)?;
    let zero = zero_load::zero_load(fabric, routing, &first, &shape, params, seed)?;
    if loads.is_empty() {
        let e = Estimate::new(workload, &shape, measure, &zero);
        e.within(params)?;
        return Ok(vec![e]);
    }
    loads
        .iter()
        .map(|&l| {
            let w = workload.with_load(l);
            let e = Estimate::new(&w, &Shape::new(fabric, &w, params, seed)?, measure, &zero);
            e.within(params).map_err(|err| SimError::param("load", format!("{l}: {err}")))?;
            Ok(e)
        })
        .collect()
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
    sweep_with(fabric, routing, workload, params, measure, seed, loads, &|_, _| true, &|_| {})
}

/// [`sweep`], calling `observe(point, progress)` as each point's run progresses and
/// `finished(point)` when it has ended (from the worker threads, so both must be `Sync`); when
/// `observe` returns `false` that run stops and reports what it measured (see
/// [`run_workload_with`]).
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
    finished: &(dyn Fn(usize) + Sync),
) -> Result<Vec<WorkloadResult>, SimError> {
    if let Some(l) = loads.iter().find(|l| !l.is_finite()) {
        return Err(SimError::param("load", format!("`{l}` is not a finite number")));
    }
    if let Some(l) = loads.iter().find(|l| **l <= 0.0) {
        return Err(SimError::param("load", format!("{l}: every load of a sweep must be positive")));
    }
    // Every point's budget is checked before the first runs, so a sweep is refused whole rather
    // than after its cheap points have run.
    estimate(fabric, routing, workload, params, measure, seed, loads)?;
    let runs: Vec<Result<WorkloadResult, SimError>> = loads
        .par_iter()
        .enumerate()
        .map(|(i, &l)| {
            let run = run_workload_with(fabric, routing, &workload.with_load(l), params, measure, seed, &mut |p| {
                observe(i, p)
            });
            finished(i);
            run
        })
        .collect();
    // The first error in load order, not whichever thread failed first.
    runs.into_iter().collect()
}

/// Why a run stops before its end.
const STOPPED: &str = "stopped by the caller before the end";

/// The driver of one workload run: time, arrivals and ticks.
struct Driver<'a, 'o> {
    sim: Simulation<'a>,
    gen: Generator,
    f: &'a Fabric,
    r: &'a dyn Routing,
    next_tick: u64,
    generating: bool,
    /// Events processed when the caller was last asked whether to go on.
    asked_at: u64,
    observe: &'o mut dyn FnMut(&Progress) -> bool,
    /// The templates of the messages `collect` folds in, kept for the list's capacity (it runs
    /// after every message created).
    done: Vec<TemplateId>,
    /// The messages `create` is creating, kept for the lists' capacity.
    due: Due,
}

impl Driver<'_, '_> {
    /// The main loop: act at every arrival and tick until the run is over; returns the meter and
    /// how the run ended.
    fn run(&mut self, mut meter: Meter) -> Result<(Meter, WorkloadOutcome), SimError> {
        let win = meter.windows();
        self.next_tick = win.warmup % win.tick;
        let burst = self.gen.burst();
        let mut outcome = None;
        loop {
            let arrival = if self.generating { self.gen.peek() } else { None };
            let at = arrival.map_or(self.next_tick, |a| a.min(self.next_tick));
            if let Err(o) = self.advance_to(at, &mut meter) {
                outcome = Some(o);
                break;
            }
            self.collect(&mut meter);
            if at == self.next_tick {
                if !self.go_on(&meter) {
                    outcome = Some(WorkloadOutcome::Budget { message: STOPPED.into() });
                    break;
                }
                self.sim.set_outside_bytes(meter.rows_bytes());
                match meter.tick(at, &self.sim, self.generating) {
                    After::Continue => {}
                    After::Drain => break,
                    After::Stop(o) => {
                        outcome = Some(self.deadlock_or(o, &mut meter));
                        break;
                    }
                }
                self.next_tick += win.tick;
            }
            if meter.done_exactly(at) {
                break;
            }
            if arrival == Some(at) {
                self.create(at, &mut meter)?;
                if burst {
                    self.generating = false;
                }
            }
        }
        let outcome = match outcome {
            Some(o) => o,
            None => {
                self.generating = false;
                let o = self.drain(&mut meter);
                self.collect(&mut meter);
                o
            }
        };
        meter.stopped(&self.sim);
        Ok((meter, outcome))
    }

    /// Events left before the caller must be asked again (the count runs across arrivals, which
    /// may be a few events apart).
    fn slice(&self) -> u64 {
        (self.asked_at + STOP_CHECK_EVENTS).saturating_sub(self.sim.events())
    }

    /// Runs every event before `at` and moves the clock there, asking the caller between slices
    /// whether to go on.
    fn advance_to(&mut self, at: u64, meter: &mut Meter) -> Result<(), WorkloadOutcome> {
        loop {
            match self.sim.run_until(at, self.slice()) {
                Ok(true) => return Ok(()),
                Ok(false) => {
                    if !self.go_on(meter) {
                        self.collect(meter);
                        return Err(WorkloadOutcome::Budget { message: STOPPED.into() });
                    }
                }
                Err(o) => return Err(o.into()),
            }
        }
    }

    /// An open-loop run whose latency ran away (`Unstable`, `DrainLimit`) may be deadlocked: new
    /// packets keep some flits moving, so the watchdog never fires. If the network holds a cycle
    /// of buffers each waiting for the next, the run goes on for `limits.watchdog` without new
    /// messages; a cycle that is still there, the same buffers and packets, is a deadlock, and
    /// the run ends as one, with its cycle (issue 13). Otherwise the outcome stands.
    fn deadlock_or(&mut self, o: WorkloadOutcome, meter: &mut Meter) -> WorkloadOutcome {
        if !matches!(o, WorkloadOutcome::Unstable { .. } | WorkloadOutcome::DrainLimit { .. }) {
            return o;
        }
        let before = self.sim.diagnose_now();
        if before.cycle.is_empty() {
            return o;
        }
        let at = self.sim.now();
        let until = at.saturating_add(self.sim.params().limits.watchdog.ps());
        if let Err(end) = self.advance_to(until, meter) {
            return match end {
                WorkloadOutcome::Deadlock { .. } => end,
                _ => o,
            };
        }
        let after = self.sim.diagnose_now();
        if after.cycle != before.cycle {
            return o;
        }
        WorkloadOutcome::Deadlock {
            at_ps: at,
            reason: "latency rose without bound because the same cycle of buffers, each waiting for the next, \
                     stayed blocked for limits.watchdog: a deadlock under load"
                .into(),
            diagnosis: after,
        }
    }

    /// Runs until the network is empty, asking the caller between slices whether to go on.
    fn drain(&mut self, meter: &mut Meter) -> WorkloadOutcome {
        loop {
            match self.sim.drain(self.slice()) {
                Ok(end) => return end.map_or(WorkloadOutcome::Drained, Into::into),
                Err(()) => {
                    if !self.go_on(meter) {
                        return WorkloadOutcome::Budget { message: STOPPED.into() };
                    }
                }
            }
        }
    }

    /// Folds the finished messages into the meter, then lets the generator recycle the templates
    /// no message uses any more.
    ///
    /// It runs after every message created, which has almost never finished at once, and after
    /// every advance, which half the time finished none: the test is inlined into the callers,
    /// the work kept out of line (a call per test was about 15 instructions, 1.6 M of BookSim's
    /// mesh at 0.1).
    #[inline]
    fn collect(&mut self, meter: &mut Meter) {
        if self.sim.any_completed() {
            self.collect_completed(meter);
        }
    }

    #[inline(never)]
    fn collect_completed(&mut self, meter: &mut Meter) {
        let mut done = std::mem::take(&mut self.done);
        meter.collect(self.f, &mut self.sim, self.gen.shape.packets, &mut done);
        self.gen.finished(&mut self.sim, &done);
        self.done = done;
    }

    /// Asks the caller whether to go on.
    fn go_on(&mut self, meter: &Meter) -> bool {
        self.asked_at = self.sim.events();
        let p = self.progress(meter);
        (self.observe)(&p)
    }

    fn progress(&self, meter: &Meter) -> Progress {
        let (messages, finished) = meter.messages();
        Progress {
            now_ps: self.sim.now(),
            window_end_ps: meter.windows().end,
            messages,
            finished,
            events: self.sim.events(),
        }
    }

    /// Creates every message due at `at`.
    fn create(&mut self, at: u64, meter: &mut Meter) -> Result<(), SimError> {
        let mut due = std::mem::take(&mut self.due);
        self.gen.take_due(at, &mut due);
        for k in 0..due.len() {
            let (src, dests) = due.get(k);
            let fanout = dests.len() as u64;
            let tpl = self.gen.template(&mut self.sim, self.f, self.r, src, dests)?;
            meter.created(at, fanout, self.gen.shape.flits);
            self.sim.start_message(tpl);
            self.collect(meter); // a plan with nothing to send finishes at once
        }
        self.due = due;
        Ok(())
    }
}
