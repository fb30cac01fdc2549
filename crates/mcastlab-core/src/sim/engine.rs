//! The run loop: one [`Simulation`] owns every piece of state of one run (no globals, so any
//! number of runs may proceed side by side), pops events in `(time, rank)` order and dispatches
//! them to the links ([`super::link`]), switches ([`super::switch`]) and endpoints
//! ([`super::endpoint`]).
//!
//! A run ends when nothing is left to happen, or earlier when a limit is hit: the event or time
//! budget (the results so far are kept and the outcome says which budget), or the deadlock
//! watchdog, which fires when packets are in the network but no flit has moved for
//! `limits.watchdog` — or at once when the event queue runs dry with packets still inside, which
//! is how a true deadlock of credit-based flow control shows (every blocked flit waits for a
//! credit or a VC that only another blocked flit could release, so nothing is scheduled).

use super::circuit::Circuit;
use super::endpoint::Endpoint;
use super::iq::IqNet;
use super::link::{OutPort, OutVc};
use super::message::{Completed, Msgs, Program};
use super::params::Granularity;
use super::params::{NiSend, Params};
use super::queue::{Event, EventQueue};
use super::result::{FlitRecord, Outcome, RunResult};
use super::switch::{Branch, InBuf, Slab, Worm};
use super::train::Trains;
use super::trees::Trees;
use super::{watchdog, NONE};
use crate::error::SimError;
use crate::fabric::{Channel, Fabric, Terminal};
use crate::plan::Plan;
use crate::routing::Routing;

/// Fixed timing values of a run, derived once from the parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub flit: u64,
    pub routing: u64,
    /// A freed buffer slot is usable upstream this long after it is freed.
    pub credit: u64,
    pub whole_packet: bool,
    pub store_and_forward: bool,
    pub step_sends: bool,
    /// `switch.circuit_until_ack`, and an acknowledgement's backward link and switch times.
    pub circuits: bool,
    pub ack_link: u64,
    pub ack_switch: u64,
    /// The network runs as packet trains (`train.rs`).
    pub packet: bool,
    /// Packet trains with zero host, NI and DMA times: endpoint jobs finish as they are queued.
    pub instant_endpoints: bool,
}

/// One simulation run: of one plan ([`Simulation::new`]), or of the messages a workload creates
/// over time (`sim::workload`).
pub struct Simulation<'a> {
    pub(crate) f: &'a Fabric,
    /// The plan of a single-plan run (its results are reported against it).
    pub(crate) plan: Option<&'a Plan>,
    pub(crate) params: Params,
    pub(crate) routing_spec: String,
    pub(crate) seed: u64,
    pub(crate) message_bytes: u64,
    pub(crate) timing: Timing,
    /// VCs per port.
    pub(crate) v: u32,
    /// Packets per message.
    pub(crate) m: u32,
    pub(crate) trees: Trees,
    pub(crate) q: EventQueue,
    pub(crate) now: u64,
    pub(crate) events: u64,
    // Links: per channel, and per channel·V + vc.
    pub(crate) ports: Vec<OutPort>,
    pub(crate) outvcs: Vec<OutVc>,
    /// Time from a flit leaving its buffer to its arrival at the far end of the channel.
    pub(crate) delay: Vec<u64>,
    pub(crate) link_flits: Vec<u64>,
    pub(crate) link_packets: Vec<u64>,
    // Switches.
    pub(crate) bufs: Vec<InBuf>,
    pub(crate) worms: Slab<Worm>,
    pub(crate) branches: Slab<Branch>,
    /// Circuit ends awaiting acknowledgements (`switch.circuit_until_ack`), how many are open,
    /// and when the last acknowledgement reached its sender.
    pub(crate) circuits: Slab<Circuit>,
    pub(crate) circuits_open: u64,
    pub(crate) last_ack: Option<u64>,
    // Endpoints.
    pub(crate) eps: Vec<Endpoint>,
    pub(crate) prog: Program,
    // Messages.
    pub(crate) msgs: Msgs,
    pub(crate) next_serial: u64,
    /// Records of finished messages, kept for a workload run to collect (`None`: not kept).
    pub(crate) completed: Option<Vec<Completed>>,
    // Bookkeeping.
    /// Packets inside the fabric (worms in NI send queues or switch buffers).
    pub(crate) live: u64,
    pub(crate) last_move: u64,
    pub(crate) flit_hops: u64,
    pub(crate) max_buf: u32,
    pub(crate) max_buf_at: u32,
    pub(crate) packets_sent: u64,
    pub(crate) packets_received: u64,
    pub(crate) first_delivery: Vec<Option<u64>>,
    pub(crate) deliveries: Vec<u32>,
    pub(crate) packets_at: Vec<u32>,
    pub(crate) trace: Option<Vec<FlitRecord>>,
    /// The iq router's network (`switch.router = iq`), which then moves every flit; `None` for
    /// the simple router, whose state is the links, buffers, worms and branches above.
    pub(crate) iq: Option<Box<IqNet>>,
    /// How the run ended (`None` inside while it has not, or when it drained normally).
    pub(crate) ended: Option<Option<Outcome>>,
    /// Bytes held outside the simulation for this run (a workload's rows and pending messages),
    /// counted against `limits.max_memory`.
    pub(crate) outside_bytes: u64,
    /// Packet-train state (empty at flit granularity).
    pub(crate) pk: Trains,
}

/// Events between two checks of `limits.max_memory`.
const MEMORY_CHECK_EVENTS: u64 = 1 << 16;

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
        sim.plan = Some(plan);
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
        let iq =
            (params.switch.router == super::Router::Iq).then(|| Box::new(IqNet::new(f, params, r.vc_classes() as u32)));
        Ok(Simulation::fresh(f, r.spec(), iq, params, message_bytes, seed))
    }

    /// The state of a run before its first message (parameters already checked).
    pub(crate) fn fresh(
        f: &'a Fabric,
        routing_spec: String,
        iq: Option<Box<IqNet>>,
        params: &Params,
        message_bytes: u64,
        seed: u64,
    ) -> Simulation<'a> {
        let timing = Timing {
            flit: params.flit_ps(),
            routing: params.switch.routing_delay.ps(),
            credit: params.link.propagation.ps() + params.switch.credit_delay.ps(),
            whole_packet: params.switch.switching.needs_whole_packet(),
            store_and_forward: params.switch.switching == super::Switching::StoreAndForward,
            step_sends: params.ni.send == NiSend::Step,
            circuits: params.switch.circuit_until_ack,
            ack_link: params.link.propagation.ps(),
            ack_switch: params.switch.ack_delay.ps(),
            packet: false,
            instant_endpoints: false,
        };
        let v = params.switch.vcs as u32;
        let nc = f.num_channels();
        let mut delay = Vec::with_capacity(nc);
        let mut outvcs = Vec::with_capacity(nc * v as usize);
        for c in 0..nc {
            let (from, to) = f.channel_ends(Channel(c as u32));
            let xbar = if matches!(from, Terminal::Switch { .. }) { params.switch.crossbar_delay.ps() } else { 0 };
            delay.push(xbar + timing.flit + params.link.propagation.ps());
            // An NI drains its link at line rate into its own memory: no credits towards it.
            let credits = if matches!(to, Terminal::Endpoint { .. }) { u32::MAX } else { params.switch.buffer_flits };
            outvcs.extend((0..v).map(|_| OutVc::new(credits)));
        }
        let ne = f.num_endpoints();
        Simulation {
            f,
            plan: None,
            params: params.clone(),
            routing_spec,
            seed,
            message_bytes,
            timing,
            v,
            m: params.packets_for(message_bytes),
            q: EventQueue::default(),
            now: 0,
            events: 0,
            ports: vec![OutPort::default(); nc],
            outvcs,
            delay,
            link_flits: vec![0; nc],
            link_packets: vec![0; nc],
            bufs: (0..nc * v as usize).map(|_| InBuf::default()).collect(),
            worms: Slab::default(),
            branches: Slab::default(),
            circuits: Slab::default(),
            circuits_open: 0,
            last_ack: None,
            eps: vec![Endpoint::default(); ne],
            prog: Program::default(),
            msgs: Msgs::default(),
            next_serial: 0,
            completed: None,
            live: 0,
            last_move: 0,
            flit_hops: 0,
            max_buf: 0,
            max_buf_at: NONE,
            packets_sent: 0,
            packets_received: 0,
            first_delivery: vec![None; ne],
            deliveries: vec![0; ne],
            packets_at: vec![0; ne],
            trace: None,
            iq,
            ended: None,
            outside_bytes: 0,
            trees: Trees::default(),
            pk: Trains::default(),
        }
    }

    /// The parameters of this run.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The message size of this run, bytes.
    pub fn message_bytes(&self) -> u64 {
        self.message_bytes
    }

    /// Records every flit sent on every channel (for tests and debugging; costs memory). A trace
    /// needs flits: a run at packet granularity starts over flit by flit.
    pub fn record_flits(&mut self, on: bool) {
        self.trace = on.then(Vec::new);
        if on && self.timing.packet && self.plan.is_some() {
            self.restart_at_flit_level();
        }
    }

    /// The flits recorded so far, in the order they were sent.
    pub fn flit_trace(&self) -> &[FlitRecord] {
        self.trace.as_deref().unwrap_or(&[])
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
        if self.ended.is_none() {
            let stop_at = self.events.saturating_add(events);
            if let Some(end) = self.run_loop(stop_at, u64::MAX) {
                self.ended = Some(end);
            }
        }
        self.ended.is_some()
    }

    /// Events processed so far and the current simulated time (ps), for progress reports.
    pub fn progress(&self) -> (u64, u64) {
        (self.events, self.now)
    }

    /// The results: final once the run has ended, otherwise those gathered so far, reported as
    /// stopped by the caller.
    pub fn results(&self) -> RunResult {
        match &self.ended {
            Some(outcome) => self.result(outcome.clone()),
            None => self.result(Some(Outcome::Budget { message: "stopped by the caller before the end".into() })),
        }
    }

    /// Processes every event before time `until` (a workload's next arrival or measurement
    /// instant) and sets the clock to `until`, so that what the caller does next happens then.
    /// `Ok` when the run may go on (also when nothing is left to happen: the caller decides
    /// whether more traffic comes); `Err` with the outcome when the watchdog or a budget ended
    /// it. A network that empties its event queue with packets still inside, or that moves no
    /// flit up to `until` for longer than `limits.watchdog`, is deadlocked: new packets arriving
    /// at the NIs could not unblock it.
    pub(crate) fn run_until(&mut self, until: u64) -> Result<(), Outcome> {
        match self.run_loop(u64::MAX, until) {
            Some(outcome) => Err(outcome.expect("a run that pauses at a time never drains")),
            None => Ok(()),
        }
    }

    /// Runs until nothing is left to happen; `None` when the network emptied, otherwise how the
    /// watchdog or a budget ended it.
    pub(crate) fn drain(&mut self) -> Option<Outcome> {
        self.run_loop(u64::MAX, u64::MAX).expect("an unbounded run never pauses")
    }

    /// An estimate of the bytes this run holds: the event queue, packets and worms in flight,
    /// message records, the per-port and per-endpoint state, and `outside_bytes`. Capacities are
    /// counted (what was allocated), not lengths; small inner lists are not, so it is a lower bound
    /// good to a small factor, which is what a budget against runaway growth needs.
    pub(crate) fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        let slab = |slots: usize, each: usize| (slots * each) as u64;
        self.q.heap_bytes()
            + slab(self.worms.slots(), size_of::<Worm>())
            + slab(self.branches.slots(), size_of::<Branch>())
            + slab(self.msgs.slots(), size_of::<super::message::Msg>())
            + slab(self.bufs.len(), size_of::<InBuf>())
            + slab(self.ports.len(), size_of::<OutPort>())
            + slab(self.outvcs.len(), size_of::<OutVc>())
            + slab(self.eps.len(), size_of::<Endpoint>())
            + self.completed.as_ref().map_or(0, |c| slab(c.capacity(), size_of::<Completed>()))
            + self.trace.as_ref().map_or(0, |t| slab(t.capacity(), size_of::<FlitRecord>()))
            + self.outside_bytes
    }

    /// Whether any event is still scheduled.
    pub(crate) fn pending(&self) -> bool {
        self.q.peek_time().is_some()
    }

    /// Runs until `stop_at` events or time `until` (exclusive, `u64::MAX` for no bound); `None`
    /// when paused at either, otherwise how it ended (`Some(None)` for a normal drain).
    fn run_loop(&mut self, stop_at: u64, until: u64) -> Option<Option<Outcome>> {
        let limits = self.params.limits.clone();
        let bounded = until != u64::MAX;
        self.pk.inline = self.timing.instant_endpoints;
        loop {
            let next = self.q.peek_time();
            if bounded && next.is_none_or(|t| t >= until) {
                return self.pause_at(until);
            }
            let Some(t) = next else { break };
            if let Some(max) = limits.max_time {
                if t > max.ps() {
                    return Some(Some(Outcome::Budget {
                        message: format!("stopped at the time budget limits.max_time = {max}"),
                    }));
                }
            }
            if let Some(max) = limits.max_events {
                if self.events >= max {
                    return Some(Some(Outcome::Budget {
                        message: format!("stopped after the event budget limits.max_events = {max}"),
                    }));
                }
            }
            if let Some(max) =
                limits.max_memory.filter(|_| self.events % MEMORY_CHECK_EVENTS == MEMORY_CHECK_EVENTS - 1)
            {
                let used = self.memory_bytes();
                if used > max {
                    return Some(Some(Outcome::Budget {
                        message: format!(
                            "stopped at the memory budget limits.max_memory = {max} bytes (run state about {used} bytes)"
                        ),
                    }));
                }
            }
            if self.live > 0 && t > self.last_move + limits.watchdog.ps() {
                self.now = self.last_move + limits.watchdog.ps();
                return Some(Some(watchdog::diagnose(self, "no flit moved for limits.watchdog")));
            }
            if self.events >= stop_at {
                return None;
            }
            let (t, ev) = self.q.pop().expect("peeked");
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
        }
        if self.timing.packet {
            // The flit engine's last event: its service one flit time after the last tail.
            self.now = self.now.max(self.pk.last_service);
        }
        Some((self.live > 0).then(|| watchdog::diagnose(self, "nothing can move while packets are in the network")))
    }

    /// Every event before `until` is done: move the clock there, unless the network is stuck
    /// or a time budget ends first.
    fn pause_at(&mut self, until: u64) -> Option<Option<Outcome>> {
        let limits = &self.params.limits;
        if let Some(max) = limits.max_time.filter(|m| until > m.ps()) {
            self.now = self.now.max(max.ps());
            return Some(Some(Outcome::Budget {
                message: format!("stopped at the time budget limits.max_time = {max}"),
            }));
        }
        if self.live > 0 && self.q.peek_time().is_none() {
            return Some(Some(watchdog::diagnose(self, "nothing can move while packets are in the network")));
        }
        let wd = limits.watchdog.ps();
        if self.live > 0 && until > self.last_move + wd {
            self.now = self.last_move + wd;
            return Some(Some(watchdog::diagnose(self, "no flit moved for limits.watchdog")));
        }
        self.now = until;
        None
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Service { chan } => self.on_service(chan),
            Event::FlitArrive { worm } if self.timing.packet => self.retire_sink(worm),
            Event::FlitArrive { worm } => self.on_flit_arrive(worm),
            Event::NiTail { msg, pid, node } => self.on_ni_tail(msg, pid, node),
            Event::NiTails { msg, pid, node } => self.on_ni_tails(msg, pid, node),
            Event::TrainStart { branch, .. } => self.train_start(branch),
            Event::TrainTail { worm } => self.train_tails(worm),
            Event::RoomCheck { outvc } => self.on_room_check(outvc),
            Event::Route { worm, .. } => self.on_route(worm),
            Event::Done { ep, unit } => self.on_done(ep, unit),
            Event::Ack { circuit } => self.on_ack(circuit),
            Event::Step => self.on_step(),
        }
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
