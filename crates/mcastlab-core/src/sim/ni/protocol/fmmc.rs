//! `ni.send = fmmc`: bhoedjang98's account of FM/MC (§2.2, §3.3).
//!
//! There is no NI-level flow control: an NI sends its copies as soon as it can (as `pipelined`).
//! Flow control is end to end, at the hosts: a multicast credit stands for one buffer on *every*
//! receiving host, so a host must hold one per packet before it hands the packet to its NI. Hosts
//! ask the central credit manager (on the NI of endpoint `fmmc.manager`) for `fmmc.credit_batch`
//! credits at a time and cache them; the manager grants only what every other host has free
//! (`fmmc.host_buffers` each), and queues a request it cannot serve. A host frees a buffer as
//! soon as the packet is in its memory (FM hands a message to its handler packet by packet);
//! the freed buffers go back to the manager only by a token that
//! rotates through every NI (NI i to NI i+1), collecting each host's count; a round starts at the
//! manager when some host has freed buffers, and the manager hands the collected buffers out
//! again when the token is back.
//!
//! Each NI has one shared receive queue of `fmmc.ni_buffers` packets. A packet occupies it from
//! its arrival until its host has it (DMA) and every copy this NI forwards of it has left. When
//! the queue is full, arriving packets are swapped to host memory (one DMA) and wait there, in
//! order, until the queue is below half full; then they come back (a second DMA) and are taken as
//! if they had just arrived. (FM/MC moves part of its queue; moving the newcomers instead costs
//! the same two transfers per packet and keeps the packets of one sender in order.)
//!
//! A unicast (a message with one destination) does not use the manager: FM's host-level sliding
//! window gives each sender `fmmc.unicast_window` buffers on each receiving host, whose credits
//! the receiver sends back once half the window is free again. A host hands its messages to its
//! NI in order: packets held back for one kind of credit hold back the packets after them.
//!
//! Not modelled: host receive buffers running out (credits prevent it).

use super::{Action, Control, CopyRef, HostSend, Protocol, Taken};
use crate::ids::EndpointId;
use crate::sim::ids::MsgId;
use crate::sim::ni::message::refill;
use crate::sim::params::FmmcParams;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

pub(super) const SUMMARY: &str =
    "host credits from a central manager, a rotating token, swapping NI queues (FM/MC, bhoedjang98 §2.2)";

/// What FM/MC counted in a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FmmcStats {
    /// Credit requests the hosts sent, credits granted in all, and requests the manager had to
    /// queue until the token came back.
    pub credit_requests: u64,
    pub credits_granted: u64,
    pub requests_queued: u64,
    /// Packets a host had to hold back for want of credits.
    pub host_waits: u64,
    /// Token rounds completed and token hops.
    pub token_rounds: u64,
    pub token_hops: u64,
    /// Packets swapped from an NI's receive queue to host memory (and back), and the fullest
    /// NI receive queue.
    pub swapped_packets: u64,
    pub max_ni_queue: u32,
}

/// The hosts' side: credits in hand, what they hold back, the unicast windows.
struct Hosts {
    /// Per host: multicast credits in hand, a request outstanding, and the packets held back in
    /// order, by the credit they wait for (`None`: multicast; `Some(d)`: the window to `d`).
    cached: Vec<u32>,
    requesting: Vec<bool>,
    held: Vec<VecDeque<(Option<EndpointId>, u32)>>,
    /// Unicast windows, (sender, receiver) → (credits at the sender, freed buffers the receiver
    /// has not yet returned).
    window: BTreeMap<(EndpointId, EndpointId), (u32, u32)>,
    window_size: u32,
    /// Per message (by slot): a unicast.
    unicast: Vec<bool>,
}

/// The credit manager and its token.
struct Manager {
    at: EndpointId,
    batch: u32,
    /// Free multicast buffers per host; requests it could not serve.
    free: Vec<u32>,
    queued: VecDeque<EndpointId>,
    /// Per host: buffers freed since the token last passed; the token's load; whether it is out.
    released: Vec<u32>,
    token: Vec<u32>,
    token_out: bool,
}

/// The NIs' shared receive queues.
struct NiQueues {
    capacity: u32,
    /// Per NI: packets in its receive queue, and packets swapped out (or on their way out).
    queue: Vec<u32>,
    swapped: Vec<u32>,
    /// Per message (by slot), per packet copy: holds left on its NI receive buffer.
    holds: Vec<Vec<u32>>,
}

pub(crate) struct Fmmc {
    hosts: Hosts,
    mgr: Manager,
    ni: NiQueues,
    stats: FmmcStats,
}

impl Fmmc {
    pub(crate) fn new(p: &FmmcParams, endpoints: usize) -> Fmmc {
        Fmmc {
            hosts: Hosts {
                cached: vec![0; endpoints],
                requesting: vec![false; endpoints],
                held: vec![VecDeque::new(); endpoints],
                window: BTreeMap::new(),
                window_size: p.unicast_window,
                unicast: Vec::new(),
            },
            mgr: Manager {
                at: EndpointId(p.manager),
                batch: p.credit_batch,
                free: vec![p.host_buffers; endpoints],
                queued: VecDeque::new(),
                released: vec![0; endpoints],
                token: vec![0; endpoints],
                token_out: false,
            },
            ni: NiQueues {
                capacity: p.ni_buffers,
                queue: vec![0; endpoints],
                swapped: vec![0; endpoints],
                holds: Vec::new(),
            },
            stats: FmmcStats::default(),
        }
    }

    pub(crate) fn stats(&self) -> &FmmcStats {
        &self.stats
    }

    fn next(&self, ep: EndpointId) -> EndpointId {
        EndpointId((ep.0 + 1) % self.hosts.cached.len() as u32)
    }

    /// The manager grants `s` what every other host has free, up to a batch; `false` if nothing.
    fn grant(&mut self, s: EndpointId, out: &mut Vec<Action>) -> bool {
        let k = (0..self.mgr.free.len())
            .filter(|&h| h != s.idx())
            .map(|h| self.mgr.free[h])
            .min()
            .unwrap_or(self.mgr.batch);
        let k = k.min(self.mgr.batch);
        if k == 0 {
            return false;
        }
        for (h, f) in self.mgr.free.iter_mut().enumerate() {
            if h != s.idx() {
                *f -= k;
            }
        }
        self.stats.credits_granted += k as u64;
        out.push(Action::Control { from: self.mgr.at, to: s, what: Control::Grant(k) });
        true
    }

    /// Credits of `kind` host `s` holds now.
    fn credits_for(&mut self, s: EndpointId, kind: Option<EndpointId>) -> &mut u32 {
        match kind {
            None => &mut self.hosts.cached[s.idx()],
            Some(d) => {
                let w = self.hosts.window_size;
                &mut self.hosts.window.entry((s, d)).or_insert((w, 0)).0
            }
        }
    }

    /// Host `s` hands on what it held back, in order, as far as its credits go.
    fn drain(&mut self, s: EndpointId, out: &mut Vec<Action>) {
        let mut total = 0;
        while let Some(&(kind, n)) = self.hosts.held[s.idx()].front() {
            let c = self.credits_for(s, kind);
            let k = n.min(*c);
            *c -= k;
            total += k;
            if k < n {
                self.hosts.held[s.idx()].front_mut().expect("looked at above").1 -= k;
                break;
            }
            self.hosts.held[s.idx()].pop_front();
        }
        if total > 0 {
            out.push(Action::HostResume { ep: s, packets: total });
        }
        self.maybe_request(s, out);
    }

    /// Host `s` asks for multicast credits if the packets at the head of its queue wait for
    /// them and it has no request out.
    fn maybe_request(&mut self, s: EndpointId, out: &mut Vec<Action>) {
        let wants = matches!(self.hosts.held[s.idx()].front(), Some((None, _)));
        if wants && !self.hosts.requesting[s.idx()] {
            self.hosts.requesting[s.idx()] = true;
            self.stats.credit_requests += 1;
            out.push(Action::Control { from: s, to: self.mgr.at, what: Control::Request });
        }
    }

    /// The token leaves the manager if some host has freed buffers and it is not out already.
    fn maybe_start_token(&mut self, out: &mut Vec<Action>) {
        if !self.mgr.token_out && self.mgr.released.iter().any(|&r| r > 0) {
            self.mgr.token_out = true;
            self.collect(self.mgr.at);
            self.hop(self.mgr.at, out);
        }
    }

    fn collect(&mut self, at: EndpointId) {
        self.mgr.token[at.idx()] += std::mem::take(&mut self.mgr.released[at.idx()]);
    }

    fn hop(&mut self, from: EndpointId, out: &mut Vec<Action>) {
        self.stats.token_hops += 1;
        out.push(Action::Control { from, to: self.next(from), what: Control::Token });
    }

    /// The token is at `at`: it collects, and goes on, or ends its round at the manager.
    fn on_token(&mut self, at: EndpointId, out: &mut Vec<Action>) {
        if at != self.mgr.at {
            self.collect(at);
            return self.hop(at, out);
        }
        self.collect(at);
        for (f, t) in self.mgr.free.iter_mut().zip(self.mgr.token.iter_mut()) {
            *f += std::mem::take(t);
        }
        self.stats.token_rounds += 1;
        self.mgr.token_out = false;
        while let Some(&s) = self.mgr.queued.front() {
            if !self.grant(s, out) {
                break;
            }
            self.mgr.queued.pop_front();
        }
        self.maybe_start_token(out);
    }

    /// One of the holds on a packet in NI `at`'s receive queue is done.
    fn release_hold(&mut self, at: EndpointId, msg: MsgId, k: u32, _now: u64, out: &mut Vec<Action>) {
        let h = &mut self.ni.holds[msg.idx()][k as usize];
        *h -= 1;
        if *h == 0 {
            self.free_ni_buffer(at, out);
        }
    }

    /// Hosts holding packets back for want of credits: (host, packets), for a deadlock's
    /// diagnosis, and the manager's smallest free count.
    pub(crate) fn waits(&self) -> (Vec<(EndpointId, u32)>, u32) {
        let held = |h: usize| self.hosts.held[h].iter().map(|&(_, n)| n).sum::<u32>();
        let w = (0..self.hosts.held.len()).filter(|&h| held(h) > 0).map(|h| (EndpointId(h as u32), held(h)));
        (w.collect(), self.mgr.free.iter().copied().min().unwrap_or(0))
    }

    /// A buffer of NI `at`'s receive queue is free; swapped packets come back below half full.
    fn free_ni_buffer(&mut self, at: EndpointId, out: &mut Vec<Action>) {
        let q = &mut self.ni.queue[at.idx()];
        *q -= 1;
        if self.ni.swapped[at.idx()] > 0 && *q < self.ni.capacity / 2 {
            *q += 1;
            self.ni.swapped[at.idx()] -= 1;
            out.push(Action::SwapIn { ep: at });
        }
    }
}

impl Protocol for Fmmc {
    fn message_started(&mut self, msg: MsgId, copies: usize) {
        if self.ni.holds.len() <= msg.idx() {
            self.ni.holds.resize_with(msg.idx() + 1, Vec::new);
        }
        refill(&mut self.ni.holds[msg.idx()], copies, 0);
        if self.hosts.unicast.len() <= msg.idx() {
            self.hosts.unicast.resize(msg.idx() + 1, false);
        }
        self.hosts.unicast[msg.idx()] = false;
    }

    fn tracks_buffers(&self) -> bool {
        true
    }

    fn may_send(&self, _ep: EndpointId) -> bool {
        true
    }

    fn sending(&mut self, _ep: EndpointId, _msg: MsgId, _k: usize, _receivers: u32) {}

    fn host_credits(&mut self, h: HostSend, out: &mut Vec<Action>) -> u32 {
        let ep = h.ep;
        self.hosts.unicast[h.msg.idx()] = h.to.is_some();
        let give = if self.hosts.held[ep.idx()].is_empty() {
            let c = self.credits_for(ep, h.to);
            let k = h.packets.min(*c);
            *c -= k;
            k
        } else {
            0
        };
        if give < h.packets {
            self.hosts.held[ep.idx()].push_back((h.to, h.packets - give));
            self.stats.host_waits += (h.packets - give) as u64;
            self.maybe_request(ep, out);
        }
        give
    }

    fn admit(&mut self, at: EndpointId) -> bool {
        let i = at.idx();
        if self.ni.swapped[i] > 0 || self.ni.queue[i] >= self.ni.capacity {
            self.ni.swapped[i] += 1;
            self.stats.swapped_packets += 1;
            return false;
        }
        self.ni.queue[i] += 1;
        self.stats.max_ni_queue = self.stats.max_ni_queue.max(self.ni.queue[i]);
        true
    }

    fn taken(&mut self, t: Taken, _now: u64, _out: &mut Vec<Action>) {
        self.ni.holds[t.copy.msg.idx()][t.copy.k as usize] = t.holds;
    }

    fn left(&mut self, c: CopyRef, now: u64, out: &mut Vec<Action>) {
        if let Some(k) = c.parent {
            self.release_hold(c.from, c.msg, k, now, out);
        }
    }

    fn host_has(&mut self, at: EndpointId, from: EndpointId, msg: MsgId, k: u32, now: u64, out: &mut Vec<Action>) {
        // In host memory the packet's handler runs and its buffer is free again (FM streams a
        // message packet by packet): a unicast's goes back to its sender's window once half the
        // window is free, a multicast's to the manager with the token.
        if self.hosts.unicast[msg.idx()] {
            let w = self.hosts.window_size;
            let owed = &mut self.hosts.window.entry((from, at)).or_insert((w, 0)).1;
            *owed += 1;
            if *owed >= w.div_ceil(2) {
                let n = std::mem::take(owed);
                out.push(Action::Control { from: at, to: from, what: Control::Window(n) });
            }
        } else {
            self.mgr.released[at.idx()] += 1;
            self.maybe_start_token(out);
        }
        self.release_hold(at, msg, k, now, out);
    }

    fn waiting(&self) -> usize {
        self.hosts.held.iter().flatten().map(|&(_, n)| n as usize).sum()
    }

    fn control(&mut self, at: EndpointId, from: EndpointId, what: Control, _now: u64, out: &mut Vec<Action>) {
        match what {
            Control::Request => {
                if !self.grant(from, out) {
                    self.stats.requests_queued += 1;
                    self.mgr.queued.push_back(from);
                }
            }
            Control::Grant(k) => {
                self.hosts.requesting[at.idx()] = false;
                self.hosts.cached[at.idx()] += k;
                self.drain(at, out);
            }
            Control::Window(n) => {
                *self.credits_for(at, Some(from)) += n;
                self.drain(at, out);
            }
            Control::Token => self.on_token(at, out),
            // LFC's control packets: FM/MC never sends them.
            Control::Credits(_) | Control::Ack { .. } => {}
        }
    }
}
