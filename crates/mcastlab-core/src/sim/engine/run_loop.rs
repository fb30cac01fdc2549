//! The run loop: the earliest event of either component next, then what it produced handed on;
//! budgets checked before each event; the deadlock watchdog.
//!
//! A run ends when nothing is left to happen, or earlier when a limit is hit: the event, time or
//! memory budget (the results so far are kept and the outcome says which budget), or the deadlock
//! watchdog, which fires when packets are in the network but no flit has moved for
//! `limits.watchdog` — or at once when the event queues run dry with packets still inside, which
//! is how a true deadlock of credit-based flow control shows (every blocked flit waits for a
//! credit or a VC that only another blocked flit could release, so nothing is scheduled).

use super::core::{Clock, Core, Mail};
use crate::sim::ids::MsgId;
use crate::sim::net::{NetCtx, Network, Packet};
use crate::sim::ni::{Endpoints, NiCtx};
use crate::sim::queue::time_of;
use crate::sim::refs::MessageRefs;
use crate::sim::result::{Outcome, RunResult};
use crate::sim::trees::Trees;

/// Events between two checks of `limits.max_memory`.
const MEMORY_CHECK_EVENTS: u64 = 1 << 16;

/// Which component's event comes next.
enum Next {
    Endpoints,
    Network,
}

impl<N: Network> Core<'_, N> {
    /// Processes at most `events` more events; returns whether the run has ended. Lets a caller
    /// run in slices (to show progress, or to stop on Ctrl-C and still report, with
    /// [`Simulation::results`]).
    pub(super) fn advance(&mut self, events: u64) -> bool {
        if self.ended.is_none() {
            let stop_at = self.clock.events.saturating_add(events);
            if let Some(end) = self.run_loop(stop_at, u64::MAX) {
                self.ended = Some(end);
            }
        }
        self.ended.is_some()
    }

    /// Events processed so far and the current simulated time (ps), for progress reports.
    pub(super) fn progress(&self) -> (u64, u64) {
        (self.clock.events, self.clock.now)
    }

    /// The results: final once the run has ended, otherwise those gathered so far, reported as
    /// stopped by the caller.
    pub(super) fn results(&self) -> RunResult {
        match &self.ended {
            Some(outcome) => self.result(outcome.clone()),
            None => self.result(Some(Outcome::Budget { message: "stopped by the caller before the end".into() })),
        }
    }

    /// Processes every event before time `until` (a workload's next arrival or measurement
    /// instant), at most `events` of them, and then, if all were done, sets the clock to `until`,
    /// so that what the caller does next happens then. `Ok(true)` when the clock is at `until`,
    /// `Ok(false)` when the event slice ran out first (call again to go on; nothing is lost);
    /// `Err` with the outcome when the watchdog or a budget ended the run. A network that empties
    /// its event queues with packets still inside, or that moves no flit up to `until` for longer
    /// than `limits.watchdog`, is deadlocked: new packets arriving at the NIs could not unblock it.
    pub(crate) fn run_until(&mut self, until: u64, events: u64) -> Result<bool, Outcome> {
        let stop_at = self.clock.events.saturating_add(events);
        match self.run_loop(stop_at, until) {
            Some(outcome) => Err(outcome.expect("a run that pauses at a time never drains")),
            None => Ok(self.clock.now == until),
        }
    }

    /// Runs until nothing is left to happen, at most `events` more events; `Ok(None)` when the
    /// network emptied, `Ok(Some(outcome))` when the watchdog or a budget ended it, `Err(())`
    /// when the slice ran out first (call again to go on).
    pub(crate) fn drain(&mut self, events: u64) -> Result<Option<Outcome>, ()> {
        let stop_at = self.clock.events.saturating_add(events);
        self.run_loop(stop_at, u64::MAX).ok_or(())
    }

    /// Whether any event is still scheduled, counting the link services packet trains keep as
    /// times (the flit engine would have them as events).
    pub(crate) fn pending(&self) -> bool {
        self.next().is_some() || self.net.service_due(self.clock.now)
    }

    /// The key (time, rank) of the next event of all, and whose it is.
    #[inline]
    fn next(&self) -> Option<(u128, Next)> {
        match (self.ni.next_key(), self.net.next_key()) {
            (None, None) => None,
            (Some(a), Some(b)) if a < b => Some((a, Next::Endpoints)),
            (Some(a), None) => Some((a, Next::Endpoints)),
            (_, Some(b)) => Some((b, Next::Network)),
        }
    }

    /// Runs until `stop_at` events or time `until` (exclusive, `u64::MAX` for no bound); `None`
    /// when paused at either, otherwise how it ended (`Some(None)` for a normal drain).
    fn run_loop(&mut self, stop_at: u64, until: u64) -> Option<Option<Outcome>> {
        let limits = &self.inputs.params.limits;
        let bounds = Bounds {
            stop_at,
            until,
            // Below the largest time, which an endpoint's job whose end would pass 2^64 ps is
            // filed at (saturating): such a run stops here instead of wrapping round.
            max_time: limits.max_time.map_or(u64::MAX - 1, |m| m.ps().min(u64::MAX - 1)),
            max_events: limits.max_events.unwrap_or(u64::MAX),
            max_memory: limits.max_memory,
            watchdog: limits.watchdog.ps(),
            outside_bytes: self.outside_bytes,
        };
        // Zero-cost endpoint jobs finish inline only in a single-plan run: in a workload, copies
        // of several messages share an NI within one instant, and the order their jobs finish in
        // then decides which is sent first (found by `tests/sim_workload_trains.rs`).
        let inline = self.net.trains_on() && self.ni.costs().free() && self.inputs.plan.is_some();
        self.ni.set_inline(inline);
        let Core { clock, trees, refs, net, ni, mail, .. } = self;
        let end = hot_loop(clock, trees, refs, net, ni, mail, &bounds);
        let limits = &self.inputs.params.limits;
        match end {
            End::Paused => None,
            End::PauseAt => self.pause_at(until),
            End::TimeBudget => Some(Some(Outcome::Budget {
                message: match limits.max_time {
                    Some(max) => format!("stopped at the time budget limits.max_time = {max}"),
                    None => "stopped: the next event would come after 2^64 ps (213 days) of simulated time; \
                             the host and NI costs (host.t_hs, host.t_hr, ni.t_ns, ni.t_nr) are too large for \
                             this plan"
                        .to_string(),
                },
            })),
            End::EventBudget => Some(Some(Outcome::Budget {
                message: format!("stopped after the event budget limits.max_events = {}", bounds.max_events),
            })),
            End::MemoryBudget { max, used } => Some(Some(Outcome::Budget {
                message: format!(
                    "stopped at the memory budget limits.max_memory = {max} bytes (run state about {used} bytes)"
                ),
            })),
            End::Watchdog => Some(Some(self.deadlock("no flit moved for limits.watchdog"))),
            End::Drained => {
                // At packet granularity: the flit engine's last event, its service one flit time
                // after the last tail.
                self.clock.now = self.net.drained_at(self.clock.now);
                if self.ni.blocked_copies() > 0 {
                    return Some(Some(self.deadlock("nothing can move while endpoints wait for credits")));
                }
                let stuck = self.net.stats().in_flight > 0;
                Some(stuck.then(|| self.deadlock("nothing can move while packets are in the network")))
            }
        }
    }

    /// Every event before `until` is done: move the clock there, unless the network is stuck
    /// or a time budget ends first.
    fn pause_at(&mut self, until: u64) -> Option<Option<Outcome>> {
        let limits = &self.inputs.params.limits;
        if let Some(max) = limits.max_time.filter(|m| until > m.ps()) {
            self.clock.now = self.clock.now.max(max.ps());
            return Some(Some(Outcome::Budget {
                message: format!("stopped at the time budget limits.max_time = {max}"),
            }));
        }
        let (in_flight, last_move) = (self.net.stats().in_flight, self.net.stats().last_move);
        if in_flight > 0 && self.next().is_none() {
            return Some(Some(self.deadlock("nothing can move while packets are in the network")));
        }
        let wd = limits.watchdog.ps();
        if in_flight > 0 && until > last_move + wd {
            self.clock.now = last_move + wd;
            return Some(Some(self.deadlock("no flit moved for limits.watchdog")));
        }
        // The NIs' own watchdog: copies wait for credits and no NI has sent or taken a packet for
        // `limits.watchdog` (new messages keep arriving, so the queues need not run dry).
        if self.ni.blocked_copies() > 0 {
            let last = self.ni.stats().last_progress;
            if self.next().is_none() || until > last + wd {
                self.clock.now = self.clock.now.max(last + wd).min(until);
                return Some(Some(
                    self.deadlock("no NI sent or took a packet for limits.watchdog while endpoints wait for credits"),
                ));
            }
        }
        self.clock.now = until;
        None
    }

    /// Hands on what the last event produced: packets the NIs released go into the network, tails
    /// the network brought are scheduled at their NIs, and finished messages are recorded. Most
    /// events produce none of these (a flit moving between switches), so that case is a test.
    #[inline(always)]
    pub(super) fn settle(&mut self) {
        if !(self.mail.injections.is_empty() && self.mail.arrivals.is_empty() && !self.refs.any_finished()) {
            self.deliver_mail();
        }
    }

    fn deliver_mail(&mut self) {
        let Core { clock, trees, refs, net, ni, mail, .. } = self;
        deliver_mail(clock.now, trees, refs, net, ni, mail);
    }

    /// The outcome of a stalled network: which buffers wait for which, and which NIs wait for
    /// which credits (LFC).
    fn deadlock(&self, reason: &str) -> Outcome {
        let mut diagnosis = self.net.diagnose(self.clock.now, self.inputs.f, &self.trees);
        let (waits, cycle) = self.ni.credit_waits();
        if !waits.is_empty() {
            let name = |e: crate::ids::EndpointId| self.inputs.f.endpoints()[e.idx()].name.clone();
            let credits = self.inputs.params.lfc.credits;
            if diagnosis.cycle.is_empty() && !cycle.is_empty() {
                diagnosis.cycle = (0..cycle.len())
                    .map(|i| {
                        let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
                        format!("NI {} waits for a credit of NI {}", name(a), name(b))
                    })
                    .collect();
            }
            // Every wait in a large fabric is hundreds of lines: the first ones and a count.
            const SHOWN: usize = 40;
            diagnosis.blocked.extend(waits.iter().take(SHOWN).map(|w| {
                format!(
                    "NI {} -> NI {}: {} copies blocked; {} of its {credits} buffers at {} hold packets, {} credits on their way back",
                    name(w.from),
                    name(w.to),
                    w.blocked,
                    w.occupied,
                    name(w.to),
                    w.returning
                )
            }));
            if waits.len() > SHOWN {
                diagnosis.blocked.push(format!("... and {} more NI pairs waiting for credits", waits.len() - SHOWN));
            }
        }
        if let Some((waits, free)) = self.ni.credit_manager_waits() {
            let name = |e: crate::ids::EndpointId| self.inputs.f.endpoints()[e.idx()].name.clone();
            diagnosis.blocked.extend(waits.iter().take(40).map(|&(h, n)| {
                format!("host {} holds back {n} packets for want of multicast credits (the fullest host has {free} buffers free)", name(h))
            }));
        }
        Outcome::Deadlock { at_ps: self.clock.now, reason: reason.to_string(), diagnosis }
    }
}

/// The bounds of one pass of the loop, as plain numbers (no budget: the largest).
struct Bounds {
    stop_at: u64,
    until: u64,
    max_time: u64,
    max_events: u64,
    max_memory: Option<u64>,
    watchdog: u64,
    outside_bytes: u64,
}

/// Why the loop stopped.
enum End {
    /// After `stop_at` events, before `until`: call again to go on.
    Paused,
    /// Every event before `until` is done.
    PauseAt,
    TimeBudget,
    EventBudget,
    MemoryBudget {
        max: u64,
        used: u64,
    },
    /// No flit moved for `limits.watchdog` (the clock is set to when that became so).
    Watchdog,
    /// Nothing is left to happen.
    Drained,
}

/// The event loop on the run's parts: the earliest event of the endpoints and the network next,
/// budgets and the watchdog checked before each (in that order), the mail delivered after each.
/// Working on the parts rather than on `Core` lets the network's context live across events
/// (only its clock changes), which is measurably cheaper than building it per event.
#[allow(clippy::too_many_arguments)]
fn hot_loop<N: Network>(
    clock: &mut Clock,
    trees: &Trees,
    refs: &mut MessageRefs,
    net: &mut N,
    ni: &mut Endpoints,
    mail: &mut Mail,
    b: &Bounds,
) -> End {
    let bounded = b.until != u64::MAX;
    // The endpoints' next event changes only when they run or receive mail: kept here.
    let mut ni_key = ni.next_key();
    let (injections, finished) = (&mut mail.injections, &mut mail.finished);
    let mut cx = NetCtx { now: clock.now, trees, refs, arrivals: &mut mail.arrivals };
    // The limits on the event count (the event and slice budgets) and whether memory is checked
    // by it: how many endpoint events one call of `Endpoints::fire` may run (`NiCtx::more`).
    let count_limit = b.stop_at.min(b.max_events);
    let memory_checked = b.max_memory.is_some();
    loop {
        let net_key = net.next_key();
        let (key, who) = match (ni_key, net_key) {
            (Some(a), Some(n)) if a < n => (Some(a), Next::Endpoints),
            (Some(a), None) => (Some(a), Next::Endpoints),
            (_, n) => (n, Next::Network),
        };
        let t = key.map(time_of);
        if bounded && t.is_none_or(|t| t >= b.until) {
            return End::PauseAt;
        }
        let Some(t) = t else { return End::Drained };
        if t > b.max_time {
            return End::TimeBudget;
        }
        if clock.events >= b.max_events {
            return End::EventBudget;
        }
        if let Some(max) = b.max_memory.filter(|_| clock.events % MEMORY_CHECK_EVENTS == MEMORY_CHECK_EVENTS - 1) {
            // An estimate of the bytes this run holds: each component's queue and live objects,
            // and what the caller holds for it (`outside_bytes`). Capacities are counted (what was
            // allocated), not lengths; small inner lists are not, so it is a lower bound good to
            // a small factor, which is what a budget against runaway growth needs.
            let used = net.memory_bytes() + ni.memory_bytes() + b.outside_bytes;
            if used > max {
                return End::MemoryBudget { max, used };
            }
        }
        let stats = net.stats();
        if stats.in_flight > 0 && t > stats.last_move + b.watchdog {
            clock.now = stats.last_move + b.watchdog;
            return End::Watchdog;
        }
        if clock.events >= b.stop_at {
            return End::Paused;
        }
        *clock = Clock { now: t, events: clock.events + 1 };
        cx.now = t;
        match who {
            Next::Endpoints => {
                // Each further event the endpoints run in this call is one this loop would have run
                // next, after the same checks: the same instant (so neither `until` nor the time
                // budget applies), no mail (so the watchdog reads what it read above); what is
                // left is the count, below its limits and short of the next memory check.
                let mut more = count_limit.saturating_sub(clock.events);
                if memory_checked {
                    more = more.min(MEMORY_CHECK_EVENTS - 1 - clock.events % MEMORY_CHECK_EVENTS);
                }
                let mut nicx = NiCtx {
                    now: t,
                    trees: cx.trees,
                    refs: &mut *cx.refs,
                    injections: &mut *injections,
                    net_key,
                    more,
                    ran: 0,
                };
                ni.fire(&mut nicx);
                clock.events += nicx.ran;
                if !injections.is_empty() || !cx.arrivals.is_empty() || cx.refs.any_finished() {
                    deliver(&mut cx, net, ni, injections, finished);
                }
                ni_key = ni.next_key();
            }
            Next::Network => {
                net.fire(&mut cx);
                // A network hands over tails and releases messages, never packets to inject.
                if !cx.arrivals.is_empty() || cx.refs.any_finished() {
                    deliver(&mut cx, net, ni, injections, finished);
                    ni_key = ni.next_key();
                }
            }
        }
    }
}

/// Hands on what an event produced (see `Core::settle`), with the network's context at hand.
/// Out of line, to keep the event loop small, but not cold: it runs nearly three times per
/// message.
#[inline(never)]
fn deliver<N: Network>(
    cx: &mut NetCtx<'_>,
    net: &mut N,
    ni: &mut Endpoints,
    injections: &mut Vec<Packet>,
    finished: &mut Vec<MsgId>,
) {
    // Read by index and cleared after, not drained: each list holds one or two items (a message
    // passes here three times), for which a `Drain`'s setup and drop cost more than the loop.
    for &p in injections.iter() {
        net.inject(cx, p);
    }
    injections.clear();
    for &a in cx.arrivals.iter() {
        ni.arrive(a);
    }
    cx.arrivals.clear();
    if cx.refs.any_finished() {
        cx.refs.take_finished(finished);
        for &m in finished.iter() {
            ni.finish_message(m, cx.now);
        }
        finished.clear();
    }
}

/// `deliver` for callers outside the loop (a message started between events).
fn deliver_mail<N: Network>(
    now: u64,
    trees: &Trees,
    refs: &mut MessageRefs,
    net: &mut N,
    ni: &mut Endpoints,
    mail: &mut Mail,
) {
    let mut cx = NetCtx { now, trees, refs, arrivals: &mut mail.arrivals };
    deliver(&mut cx, net, ni, &mut mail.injections, &mut mail.finished);
}
