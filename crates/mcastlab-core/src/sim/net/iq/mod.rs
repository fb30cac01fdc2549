//! The input-queued virtual-channel router (`switch.router = iq`): the classic router of
//! cycle-accurate network simulators, modelled after BookSim 2.0's `iq` router as
//! `../shared/reference/booksim.md` §6 describes it, so that established unicast results can be
//! reproduced (tests in `tests/sim_booksim.rs`).
//!
//! Time runs in cycles of one flit time; the network advances one cycle per [`Event::Step`], which
//! the event queue runs after everything else at the cycle's instant (so a packet an NI hands over
//! at that instant is injected in that cycle). Steps are scheduled only while something is in the
//! network, on its way (flits and credits wait in a timing wheel, `wheel.rs`, until their cycle)
//! or waiting at a source; each step visits only the sources holding packets and the routers
//! holding arrived flits, and in a router only its VCs holding them. Endpoints, messages and
//! measurement are the engine's own: only the movement of flits between NIs differs from the
//! flit network (`net::flit`). A flit counts on a link (link statistics, accepted load, traces) in the cycle
//! it wins the link — SA at a router, injection at a source.
//!
//! One cycle, per router (`router.rs`), in this order:
//! 1. RC: a head flit at the front of an idle input VC, arrived by now, is routed: its branches
//!    are the replication tree's children of the node it arrived through (one for a unicast). VA
//!    may start `switch.routing_delay` later (0: lookahead, in the same cycle).
//! 2. VA: every branch without an output VC asks for every VC of its class on its output that no
//!    packet holds; the allocator grants at most one VC per input VC and per output VC. SA may
//!    start `switch.va_delay` later. A held VC is released when its packet's tail wins SA
//!    (`wait_for_tail_credit = 0`), after this cycle's VA: so VA sees it free the next cycle.
//! 3. SA: a branch holding its output VC bids if the flit it sends next has arrived and the VC
//!    has a credit. Per input port one VC per output is chosen round robin; the allocator then
//!    lets at most one flit leave each input port and enter each output port. A winner leaves
//!    its buffer now (its slot's credit goes upstream) and reaches the next buffer
//!    `sa_delay + crossbar_delay + d` cycles later, where d = 1 + `link.propagation` in cycles
//!    (the flit's own cycle on the link, then the flight).
//!
//! Credits travel back over a credit link as long as the data link and are usable
//! `1 + d + switch.credit_delay` cycles after the slot was freed. Sources (`source.rs`) keep an
//! unbounded FIFO of packets and send at most one flit per cycle; a packet picks its injection VC
//! round robin among those free with a credit. An NI takes any flit in the cycle it arrives and
//! returns its credit at once.
//!
//! With BookSim's delays of one cycle each (preset `booksim_iq`) a packet of L flits crossing H
//! routers has the zero-load latency 7 + 5·(H−1) + L − 1 cycles from creation to the tail's
//! arrival at the NI (booksim.md §6.2): created and injected in cycle 0, RC at 2, VA 3, SA 4,
//! ST 5, next router's RC at 7, and the NI has the flit two cycles after its last ST.
//!
//! Replication (worms, hardware multicast) works as in the simple router — every branch gets
//! its own VC and reads the packet at its own pace, and a slot is freed when every branch has
//! read its flit — with two limits of an input-queued crossbar: one flit leaves an input port
//! per cycle, so copies to several outputs leave one after another, and an input VC wins at
//! most one output VC per cycle.
//!
//! Each channel has its own latency (`Wiring::lat`, from `Params::channel_propagation_ps`:
//! terminal links, a torus's wrap links, each level of a tree's links and the rest apart, so
//! BookSim's torus with 1-cycle terminal and 2-cycle router links is `booksim_torus`), and its
//! credits come back over the same latency.
//!
//! Not modelled: speculation, lookahead beyond `routing_delay = 0`, output buffers (BookSim's
//! are empty without speedup), allocator iterations beyond one, switch holding for a packet, and
//! switching other than wormhole.
//!
//! | file | what |
//! |---|---|
//! | `build.rs` | the network of a fabric: numbering, sources, where each VC sits |
//! | `vc.rs` | a VC's record, laid out by what a cycle reads |
//! | `router.rs` | one cycle of a router: the stages, the crossbar traversal |
//! | `phase.rs` | the VCs grouped by what their packet does, and BookSim's pass over the groups |
//! | `va.rs` | VC allocation: the asks, the held VCs, the lone-requester path |
//! | `bids.rs` | SA's bids as words per port, and their match, for up to 64 ports |
//! | `alloc/` | iSLIP and input-first allocators with round-robin pointers (`masks.rs`: on bit masks, up to 64 ports) |
//! | `source.rs` | sources: FIFO of packets, injection VC choice |
//! | `wheel.rs` | flits and credits on their way |
//! | `ring.rs` | the per-buffer FIFO of packets |
//! | `diagnose.rs` | which buffers wait for which, when the watchdog fires |

mod alloc;
mod bids;
mod build;
mod diagnose;
mod phase;
mod ring;
mod router;
#[cfg(test)]
mod shortcut_tests;
mod source;
mod va;
mod vc;
mod wheel;

use super::{Arrival, NetCtx, NetStats, Network, Packet};
use crate::fabric::{Channel, Fabric};
use crate::ids::SwitchId;
use crate::sim::ids::{IqVcId, MsgId, NodeId, PacketId, VcId};
use crate::sim::params::{Allocator, Params};
use crate::sim::queue::{EventQueue, Rank, Ranked};
use crate::sim::result::Diagnosis;
use crate::sim::trees::Trees;
pub(crate) use phase::Phases;
use std::collections::VecDeque;
pub(crate) use vc::{Branch, Head, Vc, VcState};
use wheel::Wheel;

/// A router's ports, in the switch's port order, and its state outside the VCs.
#[derive(Clone, Debug, Default)]
pub(crate) struct RouterPorts {
    /// Channels into the router and out of it.
    pub inputs: Vec<Channel>,
    pub outputs: Vec<Channel>,
    /// Offsets of its inputs and outputs in the flat pointer arrays.
    pub in_base: u32,
    pub out_base: u32,
    /// Branches of routed packets still without an output VC (VA has work).
    pub va_wait: u32,
}

/// A packet waiting at its source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pkt {
    pub msg: MsgId,
    pub pid: PacketId,
    /// The tree's injection node.
    pub node: NodeId,
    pub flits: u32,
}

/// An endpoint's injection: its FIFO of packets and the one being sent.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub chan: Channel,
    pub queue: VecDeque<Pkt>,
    /// The packet being sent, its VC and flits sent.
    pub cur: Option<(Pkt, u32, u32)>,
    /// VC of the previous packet (round robin starts after it).
    pub last_vc: u32,
    pub active: bool,
}

/// Timing in cycles and the fixed shape of the configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cfg {
    pub cycle: u64,
    pub v: u32,
    pub rc: u64,
    pub va: u64,
    pub sa: u64,
    pub st: u64,
    pub credit: u64,
    pub allocator: Allocator,
    /// Whether a router with one VC holding flits may take the shortcut past the pass and the
    /// allocators (`router.rs`, `lone_vc`), and the pass its one-word variant: when a router's VCs
    /// fit one occupancy word (so a port has at most 64), and not in the test that compares runs
    /// with and without them.
    pub lone_vc: bool,
    /// Words of occupancy bits per router (`IqNet::occ`).
    pub words: usize,
}

impl Cfg {
    /// [`IqNet::credit_back`] for a channel of latency `lat` (for a caller that has read it).
    #[inline(always)]
    pub(crate) fn credit_back(&self, lat: u64) -> u64 {
        1 + lat + self.credit
    }
}

/// Where each channel and VC sits among the routers.
#[derive(Default)]
pub(crate) struct Wiring {
    /// Per channel: latency d in cycles, the router it enters (`None`: an endpoint), and its
    /// input / output index at the router it enters / leaves.
    pub lat: Vec<u64>,
    pub to_router: Vec<Option<SwitchId>>,
    pub in_local: Vec<u32>,
    pub out_local: Vec<u32>,
    /// Per channel: the endpoint whose injection channel it is.
    pub source_of: Vec<Option<u32>>,
    /// Per channel, its place in the VC records (`IqNet::vcs`, at place · V + VC): a router's
    /// inputs in input order from its `in_base` (so the input VCs a step visits are found by
    /// arithmetic, not through a table), the channels into endpoints after every router input.
    pub slot: Vec<u32>,
    /// Per place, its channel (to name a VC to the world, which numbers it channel · V + VC).
    pub chan_of: Vec<Channel>,
    /// Per router-local input VC (input · V + VC), its input (the same for every router).
    pub input_of: Vec<u32>,
    /// The router input VCs, numbered below every VC into an endpoint: how many.
    pub router_vcs: u32,
    /// Per VC class (at least one), the VCs it may take on a channel between routers.
    pub class_vcs: Vec<(u8, u8)>,
}

/// Round-robin pointers: SA per input (VC choice, and accept over outputs) and per output (grant
/// over inputs); VA per input VC (accept) and per output VC (grant).
#[derive(Default)]
pub(crate) struct Pointers {
    pub sa_vc: Vec<u32>,
    pub sa_in: Vec<u32>,
    pub sa_out: Vec<u32>,
    pub va_in: Vec<u32>,
    pub va_out: Vec<u32>,
}

/// Routers and sources with work, visited each step, and whether a step is scheduled.
///
/// The routers with work are `routers[..busy]`, in a list with a slot for every router: a router
/// joins when a flit lands in it while it is not listed (flits land only at a step's start) and
/// leaves when a visit leaves it empty, both written without a branch (`busy` advances by the
/// test), since whether a router has work is data the branch predictor cannot learn. A router is
/// listed exactly when its buffers hold flits, i.e. when its occupancy bits are not all clear
/// ([`IqNet::holds_flits`]), so it needs no count or flag of its own.
#[derive(Default)]
pub(crate) struct Active {
    pub routers: Vec<SwitchId>,
    pub busy: usize,
    pub sources: Vec<u32>,
    pub scheduled: bool,
}

impl Active {
    /// Room for `routers` routers, none with work (and a slot past them: a landing writes its
    /// router at `busy` even when every router is in the list already).
    pub(crate) fn new(routers: usize) -> Active {
        Active { routers: vec![SwitchId(0); routers + 1], ..Active::default() }
    }
}

/// The iq network's one event: the network steps one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step;

impl Ranked for Step {
    /// After everything else at its instant (pushed with `push_last`).
    fn rank(self) -> Rank {
        Rank::LAST
    }
}

/// Every piece of state of the iq network of one run.
pub(crate) struct IqNet {
    pub cfg: Cfg,
    pub wiring: Wiring,
    pub routers: Vec<RouterPorts>,
    /// Per router, `cfg.words` words of bits, one per input VC (input index · V + VC): set while
    /// the VC's buffer holds a flit, so a step looks only at those (a few of a router's VCs, even
    /// under load).
    pub occ: Vec<u64>,
    /// Which of those VCs' packets ask, send or are multicasts (the same layout).
    pub phase: Phases,
    /// Per channel · V + VC, channels in the order of `Wiring::slot`.
    pub vcs: Vec<Vc>,
    /// The sender's side of each of `vcs`: the credits it holds (a credit on its way back is in
    /// the timing wheel). Apart from the VC records, in 4 bytes a VC, because a router reads the
    /// credits of the VCs it sends into, which are other routers' records: at high load those
    /// lines were the step's largest source of first-level cache misses (cachegrind, 48 KiB:
    /// 12 M of 81 M at mesh 0.3). A source holds its injection VC through `Source::cur`:
    /// nobody else sends on it.
    pub credits: Vec<u32>,
    /// Which of `vcs` a packet holds (VA reads it; see `va.rs`); which packet, only a diagnosis
    /// asks, and it reads it from the branches (`diagnose.rs`).
    pub held: va::Held,
    pub ptrs: Pointers,
    /// Per endpoint.
    pub sources: Vec<Source>,
    pub active: Active,
    /// Flits and credits on their way.
    pub wheel: Wheel,
    pub scratch: router::Scratch,
    queue: EventQueue<Step>,
    pub stats: NetStats,
    /// The most flits a buffer has held, and the first buffer to hold that many (kept here, in the
    /// network's numbering, rather than in `stats`, whose VCs are the simulator's).
    pub peak: (u32, Option<IqVcId>),
}

impl IqNet {
    /// VC `vc` of channel `chan`, in the network's own numbering (see `Wiring::slot`).
    #[inline]
    pub(crate) fn vc_of(&self, chan: Channel, vc: u32) -> IqVcId {
        IqVcId::of(self.wiring.slot[chan.idx()], vc, self.cfg.v)
    }

    /// The id the rest of the simulator gives VC `x` of this network (channel · V + VC).
    pub(crate) fn outside(&self, x: IqVcId) -> VcId {
        let v = self.cfg.v;
        VcId::of(self.wiring.chan_of[(x.raw() / v) as usize].0, x.raw() % v, v)
    }

    /// The VCs a packet may take on the channel of tree node `k`: all of them into an endpoint,
    /// otherwise the even share of its VC class.
    #[inline]
    pub(crate) fn vc_range(&self, class: u8, into_endpoint: bool) -> (u8, u8) {
        if into_endpoint {
            return (0, self.cfg.v as u8);
        }
        let last = self.wiring.class_vcs.len() - 1;
        self.wiring.class_vcs[(class as usize).min(last)]
    }

    /// Per VC class, its even share of a channel's VCs (`lo..hi`): [`IqNet::vc_range`] reads it
    /// for every head routed, where working it out took two divisions.
    pub(crate) fn class_shares(v: u32, classes: u32) -> Vec<(u8, u8)> {
        (0..classes).map(|k| ((k * v / classes) as u8, ((k + 1) * v / classes) as u8)).collect()
    }

    /// Cycles from freeing a slot of a buffer on channel `chan` to its credit being usable by the
    /// sender: the credit's own cycle, its flight over the credit link (as long as the data
    /// link) and `switch.credit_delay`.
    #[inline(always)]
    pub(crate) fn credit_back(&self, chan: Channel) -> u64 {
        self.cfg.credit_back(self.wiring.lat[chan.idx()])
    }

    /// Whether router `r`'s input buffers hold a flit (one has its occupancy bit set).
    #[inline(always)]
    pub(crate) fn holds_flits(&self, r: SwitchId) -> bool {
        let words = self.cfg.words;
        if words == 1 {
            // (Every router of the benchmarks: the test of a constant is predicted.)
            return self.occ[r.idx()] != 0;
        }
        self.occ[r.idx() * words..(r.idx() + 1) * words].iter().any(|&w| w != 0)
    }

    /// Whether anything is left for a next step.
    fn busy(&self) -> bool {
        self.active.busy > 0 || !self.active.sources.is_empty() || self.wheel.pending()
    }

    /// Applies what the wheel has for cycle `c`: credits reach their senders, flits land in their
    /// buffers (waking their routers).
    fn land(&mut self, c: u64) {
        let due = self.wheel.take(c);
        let words = self.cfg.words as u32;
        for &ivc in &due.credits {
            self.credits[ivc.idx()] += 1;
        }
        for &ivc in &due.flits {
            let b = &mut self.vcs[ivc.idx()];
            b.arrived += 1;
            // The router from the VC's occupancy word (a router's words are side by side), not
            // from its site, which is in the VC's second cache line.
            let (n, word, bit, r) = (b.arrived, b.word, b.bit, SwitchId(b.word / words));
            debug_assert_eq!(b.site.router, Some(r), "flits land in router buffers");
            if n > self.peak.0 {
                self.peak = (n, Some(ivc));
            }
            // The router has work: it joins the routers visited from this step on unless it holds
            // flits already (written whether or not, see `Active`).
            let joins = !self.holds_flits(r);
            let a = &mut self.active;
            a.routers[a.busy] = r;
            a.busy += usize::from(joins);
            // Set even when it is set already: a test for the buffer's first flit was a branch
            // cachegrind's model mispredicted about one time in four.
            self.occ[word as usize] |= 1 << bit;
        }
        self.wheel.recycle(due);
    }

    /// Hands the tail of a copy, through ejection node `node`, to its NI at `at`.
    fn arrive(&mut self, cx: &mut NetCtx<'_>, at: u64, head: &Head, node: NodeId) {
        cx.refs.hold(head.msg);
        cx.arrivals.push(Arrival::Tail { at, msg: head.msg, pid: head.pid, node });
    }
}

impl Network for IqNet {
    fn new(f: &Fabric, p: &Params, classes: u32) -> IqNet {
        IqNet::build(f, p, classes)
    }

    #[inline]
    fn next_key(&self) -> Option<u128> {
        self.queue.peek_key()
    }

    /// One cycle of the whole network: sources inject, then every router with flits runs its
    /// stages. Schedules the next cycle while anything is left.
    fn fire(&mut self, cx: &mut NetCtx<'_>) {
        self.queue.pop().expect("the engine fires a pending step");
        let c = cx.now / self.cfg.cycle;
        self.land(c);
        self.step_sources(cx, c);
        self.step_routers(cx, c);
        if self.busy() {
            self.queue.push_last((c + 1) * self.cfg.cycle, Step);
        } else {
            self.active.scheduled = false;
        }
    }

    /// The NI hands packet copy `p` to its source queue; the network steps from this cycle on if
    /// it was idle. The packet's hold on its message passes to the network.
    fn inject(&mut self, cx: &mut NetCtx<'_>, p: Packet) {
        if self.stats.in_flight == 0 {
            self.stats.last_move = cx.now;
        }
        self.stats.in_flight += 1;
        let chan = cx.trees.node(p.root).chan;
        let e = self.wiring.source_of[chan.idx()].expect("a tree's injection channel leaves an endpoint");
        let src = &mut self.sources[e as usize];
        src.queue.push_back(Pkt { msg: p.msg, pid: p.pid, node: p.root, flits: p.flits });
        if !src.active {
            src.active = true;
            self.active.sources.push(e);
        }
        if !self.active.scheduled {
            self.active.scheduled = true;
            let c = cx.now.div_ceil(self.cfg.cycle);
            self.queue.push_last(c * self.cfg.cycle, Step);
        }
    }

    fn stats(&self) -> &NetStats {
        &self.stats
    }

    fn stats_mut(&mut self) -> &mut NetStats {
        &mut self.stats
    }

    /// Flits in switch input buffers (those still on a link not counted).
    fn buffered_flits(&self, _now: u64) -> u64 {
        self.vcs.iter().map(|b| b.arrived as u64).sum()
    }

    /// Peaks are recorded as flits land, so the largest so far is the answer.
    fn max_buffer(&self, _now: u64) -> (u32, Option<VcId>) {
        (self.peak.0, self.peak.1.map(|x| self.outside(x)))
    }

    fn diagnose(&self, _now: u64, f: &Fabric, _trees: &Trees) -> Diagnosis {
        diagnose::diagnose(self, f)
    }

    fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        self.queue.heap_bytes() + (self.vcs.len() * size_of::<Vc>()) as u64 + self.stats.trace_bytes()
    }
}
