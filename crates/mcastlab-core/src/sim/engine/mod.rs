//! The engine: one [`Simulation`] owns every piece of state of one run (no globals, so any number
//! of runs may proceed side by side). It owns time and the same-instant order, and passes what
//! one component produces to the other; the components own everything else:
//!
//! ```text
//!             Packet (inject)                       Arrival (tail at an NI)
//!  Endpoints ───────────────────▶  engine  ───────────────────▶  Network
//!  (sim::ni)  ◀───────────────────         ◀───────────────────  (sim::net)
//!             Arrival (scheduled)          Packet (inject)
//! ```
//!
//! Each component keeps its own event queue; the engine runs the earliest event of either next
//! (`queue.rs` says why that is the order one queue would give), then delivers the packets the
//! endpoints handed over to the network, the tails the network brought to the endpoints, and the
//! messages nothing holds any more (`refs.rs`) back to the endpoints to be recorded.
//!
//! The engine is generic over the network model ([`Core`]`<N>`): each model's run loop is
//! compiled on its own, and [`Simulation`] picks the model once, by `switch.router` — this file is
//! the registry of models.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Simulation`]: the public API, the choice of network model |
//! | `core.rs` | [`Core`]: a run's state, construction, messages, the queries results read |
//! | `run_loop.rs` | the run loop: budgets, the deadlock watchdog, handing results between components |
//! | `report.rs` | [`RunResult`] of a single-plan run, from what the components counted |

mod core;
mod report;
mod run_loop;

use self::core::Core;
use super::ids::TemplateId;
use super::net::{FlitNet, IqNet};
use super::ni::{Completed, Template};
use super::params::{Granularity, Params, Router};
use super::result::{FlitRecord, Outcome, RunResult};
use crate::error::SimError;
use crate::fabric::Fabric;
use crate::plan::Plan;
use crate::routing::Routing;

/// One run's engine, with its network model (boxed: a run's state is large, and it is reached once
/// per call, not per event).
enum Engine<'a> {
    Flit(Box<Core<'a, FlitNet>>),
    Iq(Box<Core<'a, IqNet>>),
}

/// One simulation run: of one plan ([`Simulation::new`]), or of the messages a workload creates
/// over time (`sim::run`).
pub struct Simulation<'a> {
    engine: Engine<'a>,
}

/// Runs `$e` on the run's core, whichever its network model.
macro_rules! on_core {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Engine::Flit($c) => $e,
            Engine::Iq($c) => $e,
        }
    };
}

impl<'a> Simulation<'a> {
    /// Prepares a run of `plan` carrying a `message_bytes` message. Everything that could make
    /// the run meaningless is checked here, before the first event: the parameters, the VCs the
    /// routing needs, the plan's fabric and packet count, and the decoding of every carrier.
    pub fn new(
        f: &'a Fabric,
        r: &dyn Routing,
        plan: &'a Plan,
        params: &Params,
        message_bytes: u64,
        seed: u64,
    ) -> Result<Simulation<'a>, SimError> {
        let mut sim = Simulation::blank(f, r, params, message_bytes, seed)?;
        on_core!(&mut sim.engine, c => c.start_plan(r, plan))?;
        Ok(sim)
    }

    /// A run with no message yet: the parameters and the VCs the routing needs are checked;
    /// messages are added with `add_template` and `start_message`, as a workload does. It runs as
    /// packet trains when `switch.granularity` and `allow_trains` allow and they are exact
    /// (`packet` where they are not is an error naming the key).
    pub(crate) fn empty(
        f: &'a Fabric,
        r: &dyn Routing,
        params: &Params,
        message_bytes: u64,
        seed: u64,
        allow_trains: bool,
    ) -> Result<Simulation<'a>, SimError> {
        let mut sim = Simulation::blank(f, r, params, message_bytes, seed)?;
        on_core!(&mut sim.engine, c => c.start_workload(allow_trains))?;
        Ok(sim)
    }

    /// Whether a template added to this workload run ruled out the packet trains it started
    /// with (`add_template` then failed; the run must start over flit by flit).
    pub(crate) fn trains_refused(&self) -> bool {
        on_core!(&self.engine, c => c.trains_refused)
    }

    /// A run with no message yet, checked against the routing's VC needs, at flit granularity,
    /// with the network model `switch.router` names.
    fn blank(
        f: &'a Fabric,
        r: &dyn Routing,
        params: &Params,
        message_bytes: u64,
        seed: u64,
    ) -> Result<Simulation<'a>, SimError> {
        params.validate_on(f)?;
        params.check_message_bytes(message_bytes)?;
        if (params.switch.vcs as u32) < r.vc_classes() as u32 {
            return Err(SimError::param(
                "switch.vcs",
                format!(
                    "routing {} needs {} virtual channels, the switches have {}",
                    r.spec(),
                    r.vc_classes(),
                    params.switch.vcs
                ),
            ));
        }
        if params.ni.send == crate::sim::params::NiSend::Fmmc && params.fmmc.manager as usize >= f.num_endpoints() {
            return Err(SimError::param(
                "fmmc.manager",
                format!(
                    "endpoint {} does not exist: the fabric has {} (0..{})",
                    params.fmmc.manager,
                    f.num_endpoints(),
                    f.num_endpoints() - 1
                ),
            ));
        }
        if params.switch.router == Router::Iq {
            // The iq router steps every router by one cycle of one flit time: it has no way to
            // give a link its own rate, so a fabric whose links have rates of their own would be
            // run at the wrong ones.
            let flit = params.flit_ps();
            if let Some(l) = f.links().iter().find(|l| l.data_rate_bps().is_some_and(|r| params.flit_ps_at(r) != flit))
            {
                return Err(SimError::param(
                    "switch.router",
                    format!(
                        "iq runs every link at link.bandwidth, but this fabric's links have rates of their own \
                         (e.g. {}{}): use switch.router=simple",
                        l.width.as_deref().unwrap_or(""),
                        l.speed.as_deref().unwrap_or("")
                    ),
                ));
            }
        }
        let engine = match params.switch.router {
            Router::Simple => Engine::Flit(Box::new(Core::blank(f, r, params, message_bytes, seed))),
            Router::Iq => Engine::Iq(Box::new(Core::blank(f, r, params, message_bytes, seed))),
        };
        Ok(Simulation { engine })
    }

    /// The parameters of this run.
    pub fn params(&self) -> &Params {
        on_core!(&self.engine, c => c.params())
    }

    /// The message size of this run, bytes.
    pub fn message_bytes(&self) -> u64 {
        on_core!(&self.engine, c => c.message_bytes())
    }

    /// Records every flit sent on every channel (for tests and debugging; costs memory). A trace
    /// needs flits: a run at packet granularity starts over flit by flit.
    pub fn record_flits(&mut self, on: bool) {
        on_core!(&mut self.engine, c => c.record_flits(on))
    }

    /// Turns off the iq router's lone-VC shortcut (for the test that compares runs with and
    /// without it; a flit network has none).
    #[cfg(test)]
    pub(crate) fn without_router_shortcuts(&mut self) {
        if let Engine::Iq(c) = &mut self.engine {
            c.net.cfg.lone_vc = false;
        }
    }

    /// The flits recorded so far, in the order they were sent.
    pub fn flit_trace(&self) -> &[FlitRecord] {
        on_core!(&self.engine, c => c.flit_trace())
    }

    /// The granularity this run simulates the network at now (`auto` resolved).
    pub fn granularity(&self) -> Granularity {
        on_core!(&self.engine, c => c.granularity())
    }

    /// At packet granularity: whether another buffer reached the largest occupancy at the same
    /// instant as `max_buffer_at` (the flit engine would name the one whose event ran first).
    pub fn max_buffer_tied(&self) -> bool {
        on_core!(&self.engine, c => c.max_buffer_tied())
    }

    /// Why this run cannot use exact packet trains, or `None` (`net::flit::granularity`).
    pub fn packet_trains_unfit(&self) -> Option<String> {
        on_core!(&self.engine, c => c.packet_trains_unfit())
    }

    /// Runs to the end (or to a limit) and returns the results.
    pub fn run(&mut self) -> RunResult {
        self.advance(u64::MAX);
        self.results()
    }

    /// Processes at most `events` more events; returns whether the run has ended. Lets a caller
    /// run in slices (to show progress, or to stop on Ctrl-C and still report, with
    /// [`Simulation::results`]).
    pub fn advance(&mut self, events: u64) -> bool {
        on_core!(&mut self.engine, c => c.advance(events))
    }

    /// Events processed so far and the current simulated time (ps), for progress reports.
    pub fn progress(&self) -> (u64, u64) {
        on_core!(&self.engine, c => c.progress())
    }

    /// The results: final once the run has ended, otherwise those gathered so far, reported as
    /// stopped by the caller.
    pub fn results(&self) -> RunResult {
        on_core!(&self.engine, c => c.results())
    }

    /// See `Core::run_until`.
    pub(crate) fn run_until(&mut self, until: u64, events: u64) -> Result<bool, Outcome> {
        on_core!(&mut self.engine, c => c.run_until(until, events))
    }

    /// Which buffers wait for which right now (the deadlock diagnosis, taken on request).
    pub(crate) fn diagnose_now(&self) -> crate::sim::result::Diagnosis {
        use crate::sim::net::Network;
        on_core!(&self.engine, c => c.net.diagnose(c.clock.now, c.inputs.f, &c.trees))
    }

    /// See `Core::drain`.
    pub(crate) fn drain(&mut self, events: u64) -> Result<Option<Outcome>, ()> {
        on_core!(&mut self.engine, c => c.drain(events))
    }

    /// Whether any event is still scheduled.
    pub(crate) fn pending(&self) -> bool {
        on_core!(&self.engine, c => c.pending())
    }

    /// Makes `plan` available to messages of this run; returns its template.
    pub(crate) fn add_template(&mut self, r: &dyn Routing, plan: &Plan) -> Result<TemplateId, SimError> {
        on_core!(&mut self.engine, c => c.add_template(r, plan))
    }

    /// Creates a message of template `tpl` now; returns its serial number.
    pub(crate) fn start_message(&mut self, tpl: TemplateId) -> u64 {
        on_core!(&mut self.engine, c => c.start_message(tpl))
    }

    /// The template of a message (for a workload's rows).
    pub(crate) fn template(&self, tpl: TemplateId) -> &Template {
        on_core!(&self.engine, c => c.template(tpl))
    }

    /// Retires template `tpl` if no message of it is under way: its id and place go to the next
    /// template added with the same shape, so the caller must forget it. Returns whether it did.
    pub(crate) fn retire_template(&mut self, tpl: TemplateId) -> bool {
        on_core!(&mut self.engine, c => c.ni.retire(tpl))
    }

    /// Keeps the records of finished messages for `take_completed` (a workload run).
    pub(crate) fn keep_completed(&mut self) {
        on_core!(&mut self.engine, c => c.keep_completed())
    }

    /// The records of the messages finished since the last call, into `into` (which must be
    /// empty; hand them back with `give_back` once read).
    pub(crate) fn take_completed(&mut self, into: &mut Vec<Completed>) {
        on_core!(&mut self.engine, c => c.take_completed(into))
    }

    /// Whether any message finished since the last `take_completed`.
    #[inline]
    pub(crate) fn any_completed(&self) -> bool {
        on_core!(&self.engine, c => c.ni.any_completed())
    }

    /// Takes back records read from `take_completed` (emptying `done`) for reuse.
    pub(crate) fn give_back(&mut self, done: &mut Vec<Completed>) {
        on_core!(&mut self.engine, c => c.give_back(done))
    }

    /// Counts `bytes` held outside the simulation for this run against `limits.max_memory`.
    pub(crate) fn set_outside_bytes(&mut self, bytes: u64) {
        on_core!(&mut self.engine, c => c.set_outside_bytes(bytes))
    }

    /// The current simulated time, ps.
    pub(crate) fn now(&self) -> u64 {
        on_core!(&self.engine, c => c.now())
    }

    /// Events processed so far.
    pub(crate) fn events(&self) -> u64 {
        on_core!(&self.engine, c => c.events())
    }

    /// Flits sent on each channel so far.
    pub(crate) fn link_flits(&self) -> std::borrow::Cow<'_, [u64]> {
        on_core!(&self.engine, c => c.link_flits())
    }

    /// Flit transfers over channels so far.
    pub(crate) fn flit_hops(&self) -> u64 {
        on_core!(&self.engine, c => c.flit_hops())
    }

    /// Packet copies inside the network now.
    pub(crate) fn in_flight(&self) -> u64 {
        on_core!(&self.engine, c => c.in_flight())
    }

    /// Host, NI and DMA busy time of endpoint `e` so far, ps.
    pub(crate) fn busy(&self, e: usize) -> (u64, u64, u64) {
        on_core!(&self.engine, c => c.busy(e))
    }

    /// Endpoints of the fabric.
    pub(crate) fn busy_len(&self) -> usize {
        on_core!(&self.engine, c => c.busy_len())
    }

    /// Flits in switch buffers now, counting arrivals not yet taken in.
    pub(crate) fn buffered_flits(&self) -> u64 {
        on_core!(&self.engine, c => c.buffered_flits())
    }

    /// The largest occupancy of any input buffer so far, flits.
    pub(crate) fn max_buffer_flits(&self) -> u32 {
        on_core!(&self.engine, c => c.max_buffer_flits())
    }

    /// VCs per channel.
    /// What LFC counted so far, when the run uses it.
    pub(crate) fn lfc_stats(&self) -> Option<crate::sim::ni::LfcStats> {
        on_core!(&self.engine, c => c.ni.lfc_stats())
    }

    /// What FM/MC counted so far, when the run uses it.
    pub(crate) fn fmmc_stats(&self) -> Option<crate::sim::ni::FmmcStats> {
        on_core!(&self.engine, c => c.ni.fmmc_stats())
    }

    pub(crate) fn vcs(&self) -> u32 {
        on_core!(&self.engine, c => c.vcs())
    }
}

/// Runs `plan` as is on `fabric` with `routing`, carrying a message of `message_bytes`, and
/// returns its results. `seed` is recorded with the results (a single plan run draws no random
/// numbers; workloads will).
pub fn run_plan(
    fabric: &Fabric,
    routing: &dyn Routing,
    plan: &Plan,
    params: &Params,
    message_bytes: u64,
    seed: u64,
) -> Result<RunResult, SimError> {
    Ok(Simulation::new(fabric, routing, plan, params, message_bytes, seed)?.run())
}
