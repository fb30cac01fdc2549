//! The engine proper: [`Core`], every piece of state of one run with its network model, its
//! construction, messages and the queries results and measurement read.

use crate::error::SimError;
use crate::fabric::Fabric;
use crate::plan::budget::PlanBudget;
use crate::plan::steps::order_within;
use crate::plan::Plan;
use crate::routing::Routing;
use crate::sim::ids::{MsgId, TemplateId};
use crate::sim::net::flit::{template_unfit, trains_unfit, RunShape};
use crate::sim::net::{Arrival, Network, Packet};
use crate::sim::ni::{Completed, Endpoints, NiCtx, Template};
use crate::sim::params::{Granularity, Params};
use crate::sim::refs::MessageRefs;
use crate::sim::result::{FlitRecord, Outcome};
use crate::sim::trees::Trees;

/// What a run was asked to do: its inputs, fixed from the start.
pub(super) struct Inputs<'a> {
    pub(super) f: &'a Fabric,
    /// The plan of a single-plan run (its results are reported against it).
    pub(super) plan: Option<&'a Plan>,
    pub(super) params: Params,
    pub(super) routing_spec: String,
    pub(super) vc_classes: u32,
    pub(super) seed: u64,
    pub(super) message_bytes: u64,
}

/// The clock: the current time and the events processed so far.
#[derive(Clone, Copy, Default)]
pub(super) struct Clock {
    pub(super) now: u64,
    pub(super) events: u64,
}

/// What the components hand each other, between an event and the next.
#[derive(Default)]
pub(super) struct Mail {
    pub(super) injections: Vec<Packet>,
    pub(super) arrivals: Vec<Arrival>,
    pub(super) finished: Vec<MsgId>,
}

/// Every piece of state of one run, with the network model `N`: the engine proper. The hot loop is
/// compiled once per model (`run_loop.rs`), so no event pays for a choice between models.
pub(crate) struct Core<'a, N> {
    pub(super) inputs: Inputs<'a>,
    pub(super) clock: Clock,
    pub(super) trees: Trees,
    pub(super) refs: MessageRefs,
    pub(super) net: N,
    pub(super) ni: Endpoints,
    pub(super) mail: Mail,
    /// How the run ended (`None` inside while it has not, or when it drained normally).
    pub(super) ended: Option<Option<Outcome>>,
    /// Bytes held outside the simulation for this run (a workload's rows and pending messages),
    /// counted against `limits.max_memory`.
    pub(super) outside_bytes: u64,
    /// A workload template ruled out the packet trains this run had started with.
    pub(super) trains_refused: bool,
}

/// What a run holds per packet copy of its plans before the first event: send orders, per-copy
/// message state, the step model's schedule, protocol state. Measured: a binomial multicast to 31
/// destinations on `irregular` peaked at 135 MB with 4 MiB messages and 484 MB with 16 MiB ones,
/// 114 bytes per added copy; 100 keeps the estimate below what a run really takes.
const SETUP_BYTES_PER_COPY: u64 = 100;

impl<'a, N: Network> Core<'a, N> {
    /// A run with no message yet, at flit granularity (parameters and VC needs already checked).
    pub(super) fn blank(f: &'a Fabric, r: &dyn Routing, params: &Params, message_bytes: u64, seed: u64) -> Core<'a, N> {
        let inputs = Inputs {
            f,
            plan: None,
            params: params.clone(),
            routing_spec: r.spec(),
            vc_classes: r.vc_classes() as u32,
            seed,
            message_bytes,
        };
        let ni = Endpoints::new(f.num_endpoints(), params, message_bytes);
        let trees = Trees::new(seed, ni.costs().packets);
        Core {
            net: N::new(f, params, inputs.vc_classes),
            ni,
            inputs,
            clock: Clock::default(),
            trees,
            refs: MessageRefs::default(),
            mail: Mail::default(),
            ended: None,
            outside_bytes: 0,
            trains_refused: false,
        }
    }

    /// Prepares the run of `plan`: its template, the granularity, its message at time 0.
    pub(super) fn start_plan(&mut self, r: &dyn Routing, plan: &'a Plan) -> Result<(), SimError> {
        let tpl = self.add_template(r, plan)?;
        self.inputs.plan = Some(plan);
        self.choose_granularity()?;
        self.start_message(tpl);
        Ok(())
    }

    /// Prepares a workload run before its first message: packet trains when `switch.granularity`
    /// asks for them, `allow_trains` and they are exact (`net::flit::granularity`).
    pub(super) fn start_workload(&mut self, allow_trains: bool) -> Result<(), SimError> {
        if allow_trains {
            self.choose_granularity()?;
        }
        Ok(())
    }

    /// The parameters of this run.
    pub(super) fn params(&self) -> &Params {
        &self.inputs.params
    }

    /// The message size of this run, bytes.
    pub(super) fn message_bytes(&self) -> u64 {
        self.inputs.message_bytes
    }

    /// Records every flit sent on every channel (for tests and debugging; costs memory). A trace
    /// needs flits: a run at packet granularity starts over flit by flit.
    pub(super) fn record_flits(&mut self, on: bool) {
        self.net.stats_mut().trace = on.then(Vec::new);
        if on && self.net.trains_on() && self.inputs.plan.is_some() {
            self.restart_at_flit_level();
        }
    }

    /// The flits recorded so far, in the order they were sent.
    pub(super) fn flit_trace(&self) -> &[FlitRecord] {
        self.net.stats().trace.as_deref().unwrap_or(&[])
    }

    /// The granularity this run simulates the network at now (`auto` resolved).
    pub(super) fn granularity(&self) -> Granularity {
        if self.net.trains_on() {
            Granularity::Packet
        } else {
            Granularity::Flit
        }
    }

    /// At packet granularity: whether another buffer reached the largest occupancy at the same
    /// instant as `max_buffer_at` (the flit engine would name the one whose event ran first).
    pub(super) fn max_buffer_tied(&self) -> bool {
        self.net.max_buffer_tied()
    }

    /// Why this run cannot use exact packet trains, or `None` (`net::flit::granularity`).
    pub(super) fn packet_trains_unfit(&self) -> Option<String> {
        trains_unfit(&self.inputs.params, &self.shape())
    }

    fn shape(&self) -> RunShape<'_> {
        RunShape {
            plan: self.inputs.plan,
            vc_classes: self.inputs.vc_classes,
            trees: &self.trees,
            message_bytes: self.inputs.message_bytes,
            packets: self.ni.costs().packets,
            tracing: self.net.stats().trace.is_some(),
            own_rates: {
                let flit = self.inputs.params.flit_ps();
                self.inputs.params.channel_flit_ps(self.inputs.f).iter().any(|&c| c != flit)
            },
        }
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
        self.net.set_trains(unfit.is_none());
        Ok(())
    }

    /// Starts the plan run over, flit by flit, for a flit trace. The static program (trees,
    /// templates) is kept.
    fn restart_at_flit_level(&mut self) {
        let inp = &self.inputs;
        let trace = self.net.stats_mut().trace.take();
        self.ni.restart(&inp.params);
        self.net = N::new(inp.f, &inp.params, inp.vc_classes);
        self.net.stats_mut().trace = trace;
        self.clock = Clock::default();
        self.refs = MessageRefs::default();
        self.mail = Mail::default();
        self.ended = None;
        self.start_message(TemplateId::from_index(0));
    }

    /// Refuses, before anything is allocated for them, `copies` more packet copies whose static
    /// program and per-message state would take the run past `limits.max_memory` (the budget
    /// covers setup, not only the events that follow, which are checked every 65,536).
    fn check_setup_memory(&self, copies: u64) -> Result<(), SimError> {
        let Some(max) = self.inputs.params.limits.max_memory else { return Ok(()) };
        let need = copies.saturating_mul(SETUP_BYTES_PER_COPY).saturating_add(self.outside_bytes);
        if need <= max {
            return Ok(());
        }
        Err(SimError::param(
            crate::sim::params::key::limits::max_memory,
            format!(
                "the run would need about {} MiB before its first event ({copies} packet copies at about \
                 {SETUP_BYTES_PER_COPY} bytes each), over the budget of {} MiB: send a smaller message, or raise \
                 {} (or set it to none)",
                need >> 20,
                max >> 20,
                crate::sim::params::key::limits::max_memory
            ),
        ))
    }

    /// Makes `plan` available to messages of this run; returns its template. Checked as a plan
    /// run is: the fabric it was built for, its packet count for this run's message size, a
    /// forwarding order that does not wait on itself, and every carrier decodable.
    pub(crate) fn add_template(&mut self, r: &dyn Routing, plan: &Plan) -> Result<TemplateId, SimError> {
        let (f, m) = (self.inputs.f, self.ni.costs().packets);
        if !crate::fabric::generators::same_fabric_name(&plan.fabric, f.name()) {
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
        self.check_setup_memory(plan.transmissions.len() as u64 * m as u64)?;
        // Refuses a plan whose forwarding order waits on itself; its memory is part of the setup
        // estimate above, so only the run's own memory budget applies.
        order_within(plan, &PlanBudget { max_work: u64::MAX, max_memory: self.inputs.params.limits.max_memory })?;
        let decoded = self.trees.decode(f, r, plan)?;
        let at = self.ni.place_for(plan, &self.trees, &decoded);
        self.trees.place(f, &decoded, at.span);
        // A workload's template, added while it runs as trains, must keep them exact: if not,
        // the run is refused here and the workload driver runs it again flit by flit.
        if self.net.trains_on() && self.inputs.plan.is_none() {
            let nodes = at.span.node0 as usize..(at.span.node0 + at.span.nnodes) as usize;
            if let Some(why) = template_unfit(&self.trees, nodes, Some(plan)) {
                self.trains_refused = true;
                return Err(SimError::param(
                    "switch.granularity",
                    format!("packet trains would not be exact for this workload: {why}"),
                ));
            }
        }
        self.ni.add_template(plan, &self.trees, at)
    }

    /// Creates a message of template `tpl` now: the source's host starts its sends. Returns the
    /// message's serial number (creation order, from 0).
    pub(crate) fn start_message(&mut self, tpl: TemplateId) -> u64 {
        let mut cx = NiCtx {
            now: self.clock.now,
            trees: &self.trees,
            refs: &mut self.refs,
            injections: &mut self.mail.injections,
            net_key: None,
            more: 0,
            ran: 0,
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
    ///
    /// In the order they finished, messages finishing at one instant by serial number: the order
    /// of the events within an instant differs between flits and packet trains, and the rows
    /// (and the order their floating-point sums are taken in) must not.
    ///
    /// `into` must be empty; hand the records back with `give_back` once read.
    pub(crate) fn take_completed(&mut self, into: &mut Vec<Completed>) {
        debug_assert!(into.is_empty());
        self.ni.take_completed(into);
        // Mostly already in that order (messages finish in time order): a check costs less than
        // the sort's pass, and a stable sort leaves a sorted list as it is.
        if !into.is_sorted_by_key(|c| (c.finished, c.serial)) {
            into.sort_by_key(|c| (c.finished, c.serial));
        }
    }

    /// Takes back records read from `take_completed` (emptying `done`), so that the next
    /// finishing messages reuse their lists instead of allocating.
    pub(crate) fn give_back(&mut self, done: &mut Vec<Completed>) {
        self.ni.give_back(done);
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
    pub(crate) fn link_flits(&self) -> std::borrow::Cow<'_, [u64]> {
        self.net.link_flits_at(self.clock.now)
    }

    /// Flit transfers over channels so far.
    pub(crate) fn flit_hops(&self) -> u64 {
        let s = self.net.stats();
        match self.net.link_flits_at(self.clock.now) {
            std::borrow::Cow::Borrowed(_) => s.flit_hops,
            // Packet trains count a packet's hops when it starts: take back those still due.
            std::borrow::Cow::Owned(sent) => {
                s.flit_hops - (s.link_flits.iter().sum::<u64>() - sent.iter().sum::<u64>())
            }
        }
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
