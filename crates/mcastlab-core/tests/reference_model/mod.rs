//! A deliberately simple reference model of the simulator, used only by tests: it advances time
//! in fixed steps and at every step looks at every server, buffer, VC and link. It shares no code
//! with the engine (`src/sim/`) beyond the plan walker, which decodes each header into the channels
//! it takes (the one decoder the checker uses too) and the parameter arithmetic of [`Params`]
//! (flit time, packet sizes, DMA time). What it implements is the documented model:
//!
//! - Links: one flit per flit time F per channel; a flit sent at t is in the far buffer at
//!   t + X + F + P (no crossbar time X on an NI's injection link). Each VC of a channel has a
//!   holder (a packet branch, from its grant until its tail is sent) and the credits of the far
//!   buffer; a slot freed at t is a credit at the sender at t + P + `switch.credit_delay`. Links
//!   into an NI need no credits.
//! - Switches: a FIFO input buffer per port and VC. The front packet is decoded R after its head
//!   (store-and-forward: its tail) arrived or after it became the front, whichever is later; its
//!   branches then queue for their output VCs. A free VC goes to its oldest waiter, under
//!   cut-through and store-and-forward only when the whole packet fits in the far buffer. A
//!   branch reads the packet's flits at its own pace; a slot is freed when every branch has read
//!   its flit; the packet leaves the buffer when every branch has sent its tail.
//! - Endpoints: host, NI and DMA servers run one job at a time in arrival order (sivaram98
//!   §3–§4): a host send (t_hs) hands the message to the DMA engine packet by packet; the NI spends
//!   t_ns per copy and t_nr per packet received; every received packet crosses the I/O bus to the
//!   host, which spends t_hr once it has them all. The NI sends in the plan's send order, oldest
//!   message first; `ni.send = step` holds it until every receiver of its last copy took it.
//!
//! Within one instant t the model acts in phases, the order the engine's event ranks give:
//! messages created at t; tails reaching an NI; servers finishing at t, lowest endpoint then
//! host, NI, DMA first, again and again while zero-length jobs finish. Then, one action at a
//! time and looking again from the top after each: a dropped packet's arrived flits are freed,
//! else a due header decode (lowest input buffer, channel · V + vc), else a VC grant (lowest
//! output VC), else one flit sent (lowest free channel that has something to send). So
//! simultaneous requests for one VC are granted in input-buffer order, and what an action makes
//! possible at once (a zero routing delay, a zero credit delay) happens in the same instant.
//!
//! The clock's step is the greatest common divisor of every delay, duration and creation time, so
//! every instant at which anything can happen is a step (and the model asserts that nothing falls
//! between two). Cases should use round numbers: a 266 MB/s I/O bus moves a 128-byte packet in
//! 481,204 ps and would make the model step picosecond by picosecond.
//!
//! Buffer occupancy is measured at each instant before any flit leaves: a flit arriving at the
//! instant another leaves holds a slot too, since the freed slot is usable upstream only after the
//! credit delay. The model asserts that no buffer ever holds more than `switch.buffer_flits`.

mod endpoints;
mod network;
mod program;

use endpoints::Endpoint;
use mcastlab_core::fabric::{Channel, Fabric, Terminal};
use mcastlab_core::plan::Plan;
use mcastlab_core::routing::Routing;
use mcastlab_core::sim::{FlitRecord, Params, Switching};
use network::{Buffer, Link, OutVc, Worm};
use program::Program;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One message: a plan and when its source creates it.
pub struct Message<'p> {
    pub created: u64,
    pub plan: &'p Plan,
}

/// What a destination got from one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub endpoint: u32,
    /// When its host first had the whole message (absolute time).
    pub at: Option<u64>,
    pub deliveries: u32,
    pub packets: u32,
}

/// The outcome of a reference run.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Every flit sent, in send order (within one instant, by channel).
    pub trace: Vec<FlitRecord>,
    /// Per message, per destination of its plan (in the plan's order).
    pub destinations: Vec<Vec<Delivery>>,
    /// Per message: whole-message deliveries to endpoints outside its destinations.
    pub extra_deliveries: Vec<u32>,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub flit_hops: u64,
    pub link_packets: Vec<u64>,
    /// Busy time of each endpoint's host, NI and DMA engine.
    pub busy: Vec<[u64; 3]>,
    pub max_occupancy: u32,
    /// Packets were still inside when the run stopped at its time limit.
    pub stuck: bool,
    /// At the end every VC was free with no waiter and every credit was back at its sender.
    pub credits_restored: bool,
    /// The step the clock advanced by.
    pub step: u64,
}

/// A message under way.
struct MsgState {
    prog: Rc<Program>,
    created: u64,
    /// First transmission in run-wide numbering (for packet ids in the trace).
    tx0: usize,
    avail: Vec<Vec<bool>>,
    acks: Vec<Vec<u32>>,
    got: Vec<Vec<u32>>,
    host_started: Vec<bool>,
    cursor: BTreeMap<u32, usize>,
    first_delivery: Vec<Option<u64>>,
    deliveries: Vec<u32>,
    packets: Vec<u32>,
}

/// The whole state of one reference run.
pub struct Model<'a> {
    params: &'a Params,
    bytes: u64,
    m: u32,
    v: usize,
    flit: u64,
    routing: u64,
    credit: u64,
    whole_packet: bool,
    store_and_forward: bool,
    step_sends: bool,
    now: u64,
    pending: Vec<usize>,
    msgs: Vec<MsgState>,
    links: Vec<Link>,
    outvcs: Vec<OutVc>,
    bufs: Vec<Buffer>,
    worms: Vec<Worm>,
    /// Worms not yet gone.
    live: usize,
    /// Tails on their way into an NI: (arrival, msg, tx, packet, node, endpoint).
    tails: Vec<(u64, usize, usize, u32, usize, u32)>,
    eps: Vec<Endpoint>,
    out: Outcome,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<'a> Model<'a> {
    /// Runs `messages` (each plan built for `bytes`-byte messages) until the network and every
    /// endpoint are idle, or until `limit` ps (then `stuck` says whether packets were inside).
    pub fn run(
        f: &Fabric,
        r: &dyn Routing,
        params: &'a Params,
        bytes: u64,
        messages: &[Message<'_>],
        limit: u64,
    ) -> Outcome {
        let mut model = Model::new(f, params, bytes);
        let mut tx0 = 0;
        for msg in messages {
            model.add_message(f, r, msg, tx0);
            tx0 += msg.plan.transmissions.len();
        }
        model.out.step = model.step();
        model.run_steps(limit);
        model.into_outcome()
    }

    fn new(f: &Fabric, params: &'a Params, bytes: u64) -> Model<'a> {
        let v = params.switch.vcs as usize;
        let flit = params.flit_ps();
        let mut links = Vec::new();
        let mut outvcs = Vec::new();
        for c in 0..f.num_channels() {
            let (from, to) = f.channel_ends(Channel(c as u32));
            let xbar = if matches!(from, Terminal::Switch { .. }) { params.switch.crossbar_delay.ps() } else { 0 };
            links.push(Link { delay: xbar + flit + params.link.propagation.ps(), busy_until: 0, rr: 0 });
            let unlimited = matches!(to, Terminal::Endpoint { .. });
            for _ in 0..v {
                outvcs.push(OutVc { credits: params.switch.buffer_flits as i64, unlimited, ..OutVc::default() });
            }
        }
        Model {
            params,
            bytes,
            m: params.packets_for(bytes),
            v,
            flit,
            routing: params.switch.routing_delay.ps(),
            credit: params.link.propagation.ps() + params.switch.credit_delay.ps(),
            whole_packet: params.switch.switching != Switching::Wormhole,
            store_and_forward: params.switch.switching == Switching::StoreAndForward,
            step_sends: params.ni.send == mcastlab_core::sim::NiSend::Step,
            now: 0,
            pending: Vec::new(),
            msgs: Vec::new(),
            links,
            bufs: vec![Buffer::default(); outvcs.len()],
            outvcs,
            worms: Vec::new(),
            live: 0,
            tails: Vec::new(),
            eps: vec![Endpoint::default(); f.num_endpoints()],
            out: Outcome { link_packets: vec![0; f.num_channels()], ..Outcome::default() },
        }
    }

    fn add_message(&mut self, f: &Fabric, r: &dyn Routing, msg: &Message<'_>, tx0: usize) {
        assert_eq!(msg.plan.packets, self.m, "the plan was built for another message size");
        let prog = Rc::new(Program::new(f, r, msg.plan));
        let n = prog.trees.len();
        let m = self.m as usize;
        let ne = f.num_endpoints();
        self.pending.push(self.msgs.len());
        self.msgs.push(MsgState {
            created: msg.created,
            tx0,
            avail: vec![vec![false; m]; n],
            acks: vec![vec![0; m]; n],
            got: prog.trees.iter().map(|t| vec![0; t.nodes.len()]).collect(),
            host_started: vec![false; n],
            cursor: prog.send_order.keys().map(|&ep| (ep, 0)).collect(),
            first_delivery: vec![None; ne],
            deliveries: vec![0; ne],
            packets: vec![0; ne],
            prog,
        });
    }

    /// The clock's step: the greatest common divisor of every duration and creation time, so
    /// that every instant at which anything can happen is a step.
    fn step(&self) -> u64 {
        let p = self.params;
        let mut times = vec![
            self.flit,
            self.routing,
            self.credit,
            p.host.t_hs.ps(),
            p.host.t_hr.ps(),
            p.ni.t_ns.ps(),
            p.ni.t_nr.ps(),
        ];
        times.extend(self.links.iter().map(|l| l.delay));
        times.extend((0..self.m).map(|j| p.ni.dma_bandwidth.time_for_bytes(p.packet_bytes(self.bytes, j))));
        times.extend(self.msgs.iter().map(|x| x.created));
        times.into_iter().fold(0, gcd).max(1)
    }

    fn run_steps(&mut self, limit: u64) {
        let step = self.out.step;
        loop {
            self.instant();
            let idle = self.pending.is_empty() && self.endpoints_idle() && self.network_empty();
            if idle {
                break;
            }
            if self.now >= limit {
                self.out.stuck = !self.network_empty();
                break;
            }
            self.now += step;
        }
    }

    /// Everything that happens at `self.now`, phase by phase.
    fn instant(&mut self) {
        let now = self.now;
        for o in &mut self.outvcs {
            o.absorb(now);
        }
        let (due, later): (Vec<usize>, Vec<usize>) = self.pending.iter().partition(|&&x| self.msgs[x].created == now);
        self.pending = later;
        for msg in due {
            self.create(msg);
        }
        for (_, msg, tx, j, node, ep) in self.take_tails() {
            self.tail_in(msg, tx, j, node, ep);
        }
        while let Some((ep, unit)) = self.next_finishing() {
            self.finish(ep, unit);
        }
        self.measure_occupancy();
        // One action at a time, always the first that can happen in phase order, then look again:
        // what one action makes possible at this instant (a zero routing or credit delay) is
        // found by the next look.
        while self.drain_one_sink() || self.decode_one() || self.grant_one() || self.send_one() {}
    }

    /// Slots in use in every buffer before the links send: a flit that leaves at this instant
    /// still holds its slot, as one that arrives does (the freed slot's credit is back upstream
    /// only after the credit delay).
    fn measure_occupancy(&mut self) {
        for buf in 0..self.bufs.len() {
            let occ = self.occupancy(buf);
            assert!(occ <= self.params.switch.buffer_flits, "buffer {buf} holds {occ} flits at {}", self.now);
            self.out.max_occupancy = self.out.max_occupancy.max(occ);
        }
    }

    fn into_outcome(mut self) -> Outcome {
        for x in &self.msgs {
            let dest: Vec<Delivery> = x
                .prog
                .destinations
                .iter()
                .map(|&d| Delivery {
                    endpoint: d,
                    at: x.first_delivery[d as usize],
                    deliveries: x.deliveries[d as usize],
                    packets: x.packets[d as usize],
                })
                .collect();
            let extra = (0..x.deliveries.len() as u32)
                .filter(|e| !x.prog.destinations.contains(e))
                .map(|e| x.deliveries[e as usize])
                .sum();
            self.out.destinations.push(dest);
            self.out.extra_deliveries.push(extra);
        }
        self.out.busy = self.eps.iter().map(|e| [0, 1, 2].map(|u| e.servers[u].busy_ps)).collect();
        let full = self.params.switch.buffer_flits as i64;
        self.out.credits_restored = self.outvcs.iter().all(|o| {
            let back = o.unlimited || o.credits_at(u64::MAX) == full;
            back && o.holder.is_none() && o.waiting.is_empty()
        });
        self.out
    }
}
