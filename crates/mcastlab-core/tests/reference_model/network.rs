//! The network: per-VC input buffers holding packets (worms) in arrival order, header decode,
//! output VCs with credits and a FIFO of waiting branches, and links that send one flit per flit
//! time, round robin among their VCs.

use super::Model;
use mcastlab_core::sim::FlitRecord;
use std::collections::VecDeque;

/// One output branch of a packet at a switch (or the one branch of a packet in its sender's NI).
#[derive(Clone, Debug)]
pub struct Branch {
    /// The tree node of the output channel.
    pub node: usize,
    pub sent: u32,
    /// The packet this branch makes in the next buffer.
    pub down: Option<usize>,
}

/// A packet in one input buffer, or in its sender's NI memory (`buf = None`).
#[derive(Clone, Debug)]
pub struct Worm {
    pub msg: usize,
    pub tx: usize,
    pub j: u32,
    /// The tree node whose channel brought it (None in the sender's NI).
    pub node: Option<usize>,
    pub buf: Option<usize>,
    pub flits: u32,
    /// Arrival time of each flit sent so far.
    pub arrivals: Vec<u64>,
    pub decoded: bool,
    /// Decoded to no output: dropped flit by flit as the flits arrive.
    pub sink: bool,
    pub branches: Vec<Branch>,
    /// Flits every branch has read, whose slots are free again.
    pub freed: u32,
    pub gone: bool,
}

impl Worm {
    fn arrived_by(&self, t: u64) -> u32 {
        self.arrivals.iter().filter(|&&a| a <= t).count() as u32
    }
}

/// The sender's side of one VC of a channel.
#[derive(Clone, Debug, Default)]
pub struct OutVc {
    /// Branch (worm, index) that holds the VC.
    pub holder: Option<(usize, usize)>,
    /// Free slots in the far buffer, less those of credits still on their way back.
    pub credits: i64,
    /// Credits on their way back: (arrival, count).
    pub returns: Vec<(u64, i64)>,
    /// Channels into an endpoint need no credits: the NI drains at line rate.
    pub unlimited: bool,
    pub waiting: VecDeque<(usize, usize)>,
}

impl OutVc {
    pub fn credits_at(&self, t: u64) -> i64 {
        self.credits + self.returns.iter().filter(|(at, _)| *at <= t).map(|(_, n)| n).sum::<i64>()
    }

    /// Takes in the credits that are back by `t` (only to keep the list short).
    pub fn absorb(&mut self, t: u64) {
        let back: i64 = self.returns.iter().filter(|(at, _)| *at <= t).map(|(_, n)| n).sum();
        self.credits += back;
        self.returns.retain(|(at, _)| *at > t);
    }
}

/// One input buffer (of one port and VC).
#[derive(Clone, Debug, Default)]
pub struct Buffer {
    /// Packets whose head has been sent towards this buffer, oldest first.
    pub fifo: VecDeque<usize>,
    /// When the front packet became the front.
    pub front_since: u64,
}

/// One channel.
#[derive(Clone, Debug)]
pub struct Link {
    /// From sending a flit to its arrival at the far end.
    pub delay: u64,
    pub busy_until: u64,
    /// Next VC to offer the link to.
    pub rr: usize,
}

impl Model<'_> {
    fn tree_node(&self, w: usize, node: usize) -> &super::program::TreeNode {
        let x = &self.worms[w];
        &self.msgs[x.msg].prog.trees[x.tx].nodes[node]
    }

    fn branch_ov(&self, w: usize, b: usize) -> usize {
        let n = self.tree_node(w, self.worms[w].branches[b].node);
        n.chan * self.v + n.vc
    }

    /// The NI hands packet `j` of transmission `tx` to its link: it asks for its injection VC.
    pub(super) fn inject(&mut self, msg: usize, tx: usize, j: u32) {
        let flits = self.params.flits_for(self.params.packet_bytes(self.bytes, j));
        let w = self.worms.len();
        self.live += 1;
        self.worms.push(Worm {
            msg,
            tx,
            j,
            node: None,
            buf: None,
            flits,
            arrivals: vec![self.now; flits as usize],
            decoded: true,
            sink: false,
            branches: vec![Branch { node: 0, sent: 0, down: None }],
            freed: 0,
            gone: false,
        });
        self.out.packets_sent += 1;
        let ov = self.branch_ov(w, 0);
        self.outvcs[ov].waiting.push_back((w, 0));
    }

    /// Decodes the front packet of the lowest input buffer (channel · V + vc) whose header
    /// (store-and-forward: tail) is in and that has waited the routing delay since it reached the
    /// front; its branches queue for their output VCs. Returns whether one was decoded.
    pub(super) fn decode_one(&mut self) -> bool {
        for buf in 0..self.bufs.len() {
            let Some(&w) = self.bufs[buf].fifo.front() else { continue };
            let x = &self.worms[w];
            let need = if self.store_and_forward { x.flits as usize } else { 1 };
            if x.decoded || x.arrivals.len() < need {
                continue;
            }
            let due = x.arrivals[need - 1].max(self.bufs[buf].front_since) + self.routing;
            assert!(due >= self.now, "a decode fell between two steps");
            if due != self.now {
                continue;
            }
            let children = self.tree_node(w, x.node.unwrap()).children.clone();
            let x = &mut self.worms[w];
            x.decoded = true;
            x.sink = children.is_empty();
            x.branches = children.iter().map(|&node| Branch { node, sent: 0, down: None }).collect();
            for b in 0..children.len() {
                let ov = self.branch_ov(w, b);
                self.outvcs[ov].waiting.push_back((w, b));
            }
            return true;
        }
        false
    }

    /// A dropped packet (decoded to no output) at the front of the lowest buffer frees the flits
    /// that have arrived. Returns whether one did.
    pub(super) fn drain_one_sink(&mut self) -> bool {
        for buf in 0..self.bufs.len() {
            let Some(&w) = self.bufs[buf].fifo.front() else { continue };
            let n = self.worms[w].arrived_by(self.now);
            if self.worms[w].sink && n > self.worms[w].freed {
                self.free_upto(w, n);
                if self.worms[w].freed == self.worms[w].flits {
                    self.retire(w);
                }
                return true;
            }
        }
        false
    }

    /// Whether the first waiter may take the VC: under cut-through and store-and-forward only
    /// when the next buffer has room for the whole packet.
    fn fits(&self, ov: usize, w: usize) -> bool {
        let o = &self.outvcs[ov];
        !self.whole_packet || o.unlimited || o.credits_at(self.now) >= self.worms[w].flits as i64
    }

    /// Grants the lowest free output VC whose oldest waiter fits to that waiter. Returns whether
    /// one was granted.
    pub(super) fn grant_one(&mut self) -> bool {
        (0..self.outvcs.len()).any(|ov| self.grant(ov))
    }

    /// Gives VC `ov`, if free, to its oldest waiter, if that one fits.
    fn grant(&mut self, ov: usize) -> bool {
        let o = &self.outvcs[ov];
        if o.holder.is_some() {
            return false;
        }
        let Some(&(w, b)) = o.waiting.front() else { return false };
        if !self.fits(ov, w) {
            return false;
        }
        let o = &mut self.outvcs[ov];
        o.waiting.pop_front();
        o.holder = Some((w, b));
        true
    }

    /// The lowest free link with a VC whose holder has a flit here and a credit sends one flit of
    /// one of them, round robin from the VC after the one it served last. Returns whether a flit
    /// was sent.
    pub(super) fn send_one(&mut self) -> bool {
        for chan in 0..self.links.len() {
            if self.links[chan].busy_until > self.now {
                continue;
            }
            for k in 0..self.v {
                let vc = (self.links[chan].rr + k) % self.v;
                if self.ready(chan * self.v + vc) {
                    self.send(chan, vc);
                    return true;
                }
            }
        }
        false
    }

    fn ready(&self, ov: usize) -> bool {
        let o = &self.outvcs[ov];
        let Some((w, b)) = o.holder else { return false };
        let x = &self.worms[w];
        let next = x.branches[b].sent as usize;
        let here = next < x.arrivals.len() && x.arrivals[next] <= self.now;
        here && (o.unlimited || o.credits_at(self.now) > 0)
    }

    fn send(&mut self, chan: usize, vc: usize) {
        let ov = chan * self.v + vc;
        let (w, b) = self.outvcs[ov].holder.unwrap();
        let link = &mut self.links[chan];
        link.busy_until = self.now + self.flit;
        link.rr = (vc + 1) % self.v;
        let arrive = self.now + link.delay;
        let i = self.worms[w].branches[b].sent;
        self.worms[w].branches[b].sent += 1;
        if !self.outvcs[ov].unlimited {
            self.outvcs[ov].credits -= 1;
        }
        let (msg, tx, j, flits) = {
            let x = &self.worms[w];
            (x.msg, x.tx, x.j, x.flits)
        };
        let pid = (self.msgs[msg].tx0 + tx) as u32 * self.m + j;
        self.out.trace.push(FlitRecord {
            time: self.now,
            channel: chan as u32,
            vc: vc as u8,
            msg: msg as u32,
            pid,
            flit: i,
        });
        self.out.flit_hops += 1;
        if i == 0 {
            self.out.link_packets[chan] += 1;
        }
        let node = self.worms[w].branches[b].node;
        match self.tree_node(w, node).eject {
            Some(ep) => {
                if i + 1 == flits {
                    self.tails.push((arrive, msg, tx, j, node, ep));
                }
            }
            None => self.arrive_in_buffer(w, b, ov, i, arrive),
        }
        if self.worms[w].buf.is_some() {
            let slowest = self.worms[w].branches.iter().map(|x| x.sent).min().unwrap();
            self.free_upto(w, slowest);
        }
        if i + 1 == flits {
            self.outvcs[ov].holder = None;
            self.grant(ov);
            if self.worms[w].branches.iter().all(|x| x.sent == flits) {
                self.retire(w);
            }
        }
    }

    /// Flit `i` of branch `b` of worm `w` will be in buffer `buf` at `arrive`; the head makes the
    /// packet there.
    fn arrive_in_buffer(&mut self, w: usize, b: usize, buf: usize, i: u32, arrive: u64) {
        if i == 0 {
            let x = &self.worms[w];
            let node = x.branches[b].node;
            let down = self.worms.len();
            let worm = Worm {
                msg: x.msg,
                tx: x.tx,
                j: x.j,
                node: Some(node),
                buf: Some(buf),
                flits: x.flits,
                arrivals: Vec::new(),
                decoded: false,
                sink: false,
                branches: Vec::new(),
                freed: 0,
                gone: false,
            };
            self.worms.push(worm);
            self.live += 1;
            self.worms[w].branches[b].down = Some(down);
            if self.bufs[buf].fifo.is_empty() {
                self.bufs[buf].front_since = self.now;
            }
            self.bufs[buf].fifo.push_back(down);
        }
        let down = self.worms[w].branches[b].down.unwrap();
        self.worms[down].arrivals.push(arrive);
    }

    /// Frees the worm's slots up to `upto` flits; their credits reach the sender after the credit
    /// delay.
    fn free_upto(&mut self, w: usize, upto: u32) {
        let x = &mut self.worms[w];
        if upto <= x.freed {
            return;
        }
        let n = (upto - x.freed) as i64;
        x.freed = upto;
        let buf = x.buf.unwrap();
        let at = self.now + self.credit;
        self.outvcs[buf].returns.push((at, n));
    }

    /// The packet has left the buffer: the next one becomes the front.
    fn retire(&mut self, w: usize) {
        self.worms[w].gone = true;
        self.live -= 1;
        let Some(buf) = self.worms[w].buf else { return };
        let q = &mut self.bufs[buf];
        assert_eq!(q.fifo.pop_front(), Some(w), "only the front packet of a FIFO can leave");
        q.front_since = self.now;
    }

    /// Flits in buffer `buf` now: arrived and not yet freed.
    pub(super) fn occupancy(&self, buf: usize) -> u32 {
        self.bufs[buf].fifo.iter().map(|&w| self.worms[w].arrived_by(self.now) - self.worms[w].freed).sum()
    }

    /// Tails reaching an NI now.
    pub(super) fn take_tails(&mut self) -> Vec<(u64, usize, usize, u32, usize, u32)> {
        let now = self.now;
        let (due, later): (Vec<_>, Vec<_>) = self.tails.drain(..).partition(|t| t.0 == now);
        assert!(later.iter().all(|t| t.0 > now), "a tail arrived between two steps");
        self.tails = later;
        due
    }

    pub(super) fn network_empty(&self) -> bool {
        self.live == 0 && self.tails.is_empty()
    }
}
