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
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Simulation`]: construction, messages, the public API |
//! | `run_loop.rs` | the run loop: budgets, the deadlock watchdog, handing results between components |
//! | `report.rs` | [`RunResult`] of a single-plan run, from what the components counted |

mod report;
mod run_loop;

use super::ids::{MsgId, TemplateId};
use super::net::flit::{trains_unfit, FlitNet, RunShape};
use super::net::{Arrival, Net, Network, Packet};
use super::ni::{Completed, Endpoints, NiCtx, Template};
use super::params::{Granularity, Params};
use super::refs::MessageRefs;
use super::result::{FlitRecord, Outcome, RunResult};
use super::trees::Trees;
use crate::error::SimError;
use crate::fabric::Fabric;
use crate::plan::steps::steps;
use crate::plan::Plan;
use crate::routing::Routing;

/// What a run was asked to do: its inputs, fixed from the start.
struct Inputs<'a> {
    f: &'a Fabric,
    /// The plan of a single-plan run (its results are reported against it).
    plan: Option<&'a Plan>,
    params: Params,
    routing_spec: String,
    vc_classes: u32,
    seed: u64,
    message_bytes: u64,
}

/// The clock: the current time and the events processed so far.
#[derive(Clone, Copy, Default)]
struct Clock {
    now: u64,
    events: u64,
}

/// What the components hand each other, between an event and the next.
#[derive(Default)]
struct Mail {
    injections: Vec<Packet>,
    arrivals: Vec<Arrival>,
    finished: Vec<MsgId>,
}

/// One simulation run: of one plan ([`Simulation::new`]), or of the messages a workload creates
/// over time (`sim::run`).
pub struct Simulation<'a> {
    inputs: Inputs<'a>,
    clock: Clock,
    trees: Trees,
    refs: MessageRefs,
    net: Net,
    ni: Endpoints,
    mail: Mail,
    /// How the run ended (`None` inside while it has not, or when it drained normally).
    ended: Option<Option<Outcome>>,
    /// Bytes held outside the simulation for this run (a workload's rows and pending messages),
    /// counted against `limits.max_memory`.
    outside_bytes: u64,
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
        let tpl = sim.add_template(r, plan)?;
        sim.inputs.plan = Some(plan);
        sim.choose_granularity()?;
        sim.start_message(tpl);
        Ok(sim)
    }

    /// A run with no message yet: the parameters and the VCs the routing needs are checked;
    /// messages are added with `add_template` and `start_message`, as a workload does.
    pub(crate) fn empty(
        f: &'a Fabric,
        r: &dyn Routing,
        params: &Params,
        message_bytes: u64,
        seed: u64,
    ) -> Result<Simulation<'a>, SimError> {
        if params.switch.granularity == Granularity::Packet {
            return Err(SimError::param(
                "switch.granularity",
                "packet trains run single plans only; workloads run flit by flit (use flit or auto)",
            ));
        }
        Simulation::blank(f, r, params, message_bytes, seed)
    }

    /// A run with no message yet, checked against the routing's VC needs, at flit granularity.
    fn blank(
        f: &'a Fabric,
        r: &dyn Routing,
        params: &Params,
        message_bytes: u64,
        seed: u64,
    ) -> Result<Simulation<'a>, SimError> {
        params.validate()?;
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
        let inputs = Inputs {
            f,
            plan: None,
            params: params.clone(),
            routing_spec: r.spec(),
            vc_classes: r.vc_classes() as u32,
            seed,
            message_bytes,
        };
        Ok(Simulation {
            net: Net::new(f, params, inputs.vc_classes),
            ni: Endpoints::new(f.num_endpoints(), params, message_bytes),
            inputs,
            clock: Clock::default(),
            trees: Trees::default(),
            refs: MessageRefs::default(),
            mail: Mail::default(),
            ended: None,
            outside_bytes: 0,
        })
    }

    /// The parameters of this run.
    pub fn params(&self) -> &Params {
        &self.inputs.params
    }

    /// The message size of this run, bytes.
    pub fn message_bytes(&self) -> u64 {
        self.inputs.message_bytes
    }

    /// Records every flit sent on every channel (for tests and debugging; costs memory). A trace
    /// needs flits: a run at packet granularity starts over flit by flit.
    pub fn record_flits(&mut self, on: bool) {
        self.net.stats_mut().trace = on.then(Vec::new);
        if on && self.trains_on() && self.inputs.plan.is_some() {
            self.restart_at_flit_level();
        }
    }

    /// The flits recorded so far, in the order they were sent.
    pub fn flit_trace(&self) -> &[FlitRecord] {
        self.net.stats().trace.as_deref().unwrap_or(&[])
    }

    /// The granularity this run simulates the network at now (`auto` resolved).
    pub fn granularity(&self) -> Granularity {
        if self.trains_on() {
            Granularity::Packet
        } else {
            Granularity::Flit
        }
    }

    /// At packet granularity: whether another buffer reached the largest occupancy at the same
    /// instant as `max_buffer_at` (the flit engine would name the one whose event ran first).
    pub fn max_buffer_tied(&self) -> bool {
        self.net.as_flit().is_some_and(FlitNet::max_buffer_tied)
    }

    /// Why this run cannot use exact packet trains, or `None` (`net::flit::granularity`).
    pub fn packet_trains_unfit(&self) -> Option<String> {
        trains_unfit(&self.inputs.params, &self.shape())
    }

    fn shape(&self) -> RunShape<'_> {
        RunShape {
            plan: self.inputs.plan,
            trees: &self.trees,
            message_bytes: self.inputs.message_bytes,
            packets: self.ni.costs().packets,
            tracing: self.net.stats().trace.is_some(),
        }
    }

    fn trains_on(&self) -> bool {
        self.net.as_flit().is_some_and(FlitNet::trains_on)
    }

    /// Packet trains when `switch.granularity` asks for them and they are exact for this run;
    /// `packet` on a run where they are not is an error naming the key.
    fn choose_granularity(&mut self) -> Result<(), SimError> {
        let want = self.inputs.params.switch.granularity;
        if want == Granularity::Flit {
            return Ok(());
        }
        let unfit = self.packet_trains_unfit();
        if let (Some(why), Granularity::Packet) = (&unfit, want) {
            return Err(SimError::param("switch.granularity", format!("packet trains would not be exact: {why}")));
        }
        if let Some(n) = self.net.as_flit_mut() {
            n.set_trains(unfit.is_none());
        }
        Ok(())
    }

    /// Starts the plan run over, flit by flit, for a flit trace. The static program (trees,
    /// templates) is kept.
    fn restart_at_flit_level(&mut self) {
        let inp = &self.inputs;
        let trace = self.net.stats_mut().trace.take();
        let ni = std::mem::replace(&mut self.ni, Endpoints::new(0, &inp.params, inp.message_bytes));
        self.ni = ni.restarted(&inp.params);
        self.net = Net::new(inp.f, &inp.params, inp.vc_classes);
        self.net.stats_mut().trace = trace;
        self.clock = Clock::default();
        self.refs = MessageRefs::default();
        self.mail = Mail::default();
        self.ended = None;
        self.start_message(TemplateId::from_index(0));
    }

    /// Makes `plan` available to messages of this run; returns its template. Checked as a plan
    /// run is: the fabric it was built for, its packet count for this run's message size, a
    /// forwarding order that does not wait on itself, and every carrier decodable.
    pub(crate) fn add_template(&mut self, r: &dyn Routing, plan: &Plan) -> Result<TemplateId, SimError> {
        let (f, m) = (self.inputs.f, self.ni.costs().packets);
        if plan.fabric != f.name() {
            return Err(SimError::param("plan", format!("built for fabric `{}`, not `{}`", plan.fabric, f.name())));
        }
        if plan.packets != m {
            return Err(SimError::param(
                "message_bytes",
                format!(
                    "a {}-byte message makes {m} packet(s) of at most {} bytes (link.mtu_bytes), \
                     but the plan was built for {} packet(s)",
                    self.inputs.message_bytes, self.inputs.params.link.mtu_bytes, plan.packets
                ),
            ));
        }
        steps(plan)?; // refuses a plan whose forwarding order waits on itself
        let (tx0, node0) = (self.trees.transmissions() as u32, self.trees.len() as u32);
        self.trees.add(f, r, plan)?;
        Ok(self.ni.add_template(plan, &self.trees, tx0, node0))
    }

    /// Creates a message of template `tpl` now: the source's host starts its sends. Returns the
    /// message's serial number (creation order, from 0).
    pub(crate) fn start_message(&mut self, tpl: TemplateId) -> u64 {
        let mut cx = NiCtx {
            now: self.clock.now,
            trees: &self.trees,
            refs: &mut self.refs,
            injections: &mut self.mail.injections,
        };
        let serial = self.ni.start_message(&mut cx, tpl);
        self.settle();
        serial
    }

    /// The template of a message (for a workload's rows).
    pub(crate) fn template(&self, tpl: TemplateId) -> &Template {
        self.ni.template(tpl)
    }

    /// Keeps the records of finished messages for `take_completed` (a workload run).
    pub(crate) fn keep_completed(&mut self) {
        self.ni.keep_completed();
    }

    /// The records of the messages finished since the last call.
    pub(crate) fn take_completed(&mut self) -> Vec<Completed> {
        self.ni.take_completed()
    }

    /// Counts `bytes` held outside the simulation for this run against `limits.max_memory`.
    pub(crate) fn set_outside_bytes(&mut self, bytes: u64) {
        self.outside_bytes = bytes;
    }

    /// The current simulated time, ps.
    pub(crate) fn now(&self) -> u64 {
        self.clock.now
    }

    /// Events processed so far.
    pub(crate) fn events(&self) -> u64 {
        self.clock.events
    }

    /// Flits sent on each channel so far.
    pub(crate) fn link_flits(&self) -> &[u64] {
        &self.net.stats().link_flits
    }

    /// Flit transfers over channels so far.
    pub(crate) fn flit_hops(&self) -> u64 {
        self.net.stats().flit_hops
    }

    /// Packet copies inside the network now.
    pub(crate) fn in_flight(&self) -> u64 {
        self.net.stats().in_flight
    }

    /// Host, NI and DMA busy time of endpoint `e` so far, ps.
    pub(crate) fn busy(&self, e: usize) -> (u64, u64, u64) {
        self.ni.busy(e)
    }

    /// Flits in switch buffers now, counting arrivals not yet taken in.
    pub(crate) fn buffered_flits(&self) -> u64 {
        self.net.buffered_flits(self.clock.now)
    }

    /// The largest occupancy of any input buffer so far, flits.
    pub(crate) fn max_buffer_flits(&self) -> u32 {
        self.net.max_buffer(self.clock.now).0
    }

    /// VCs per channel.
    pub(crate) fn vcs(&self) -> u32 {
        self.inputs.params.switch.vcs as u32
    }

    /// Endpoints of the fabric.
    pub(crate) fn busy_len(&self) -> usize {
        self.inputs.f.num_endpoints()
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
