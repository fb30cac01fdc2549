//! What NIs and hosts do with packet copies: which copy an NI sends next, what a received packet
//! triggers (per-packet forwarding at the NI, after-message forwarding at the host), and delivery.
//!
//! Each sending NI works through a fixed order of copies per message (`program.rs`): a copy joins
//! the NI's *ready set* when it is the next in that order and available (DMA'd from its host, or
//! received for per-packet forwarding); the NI serves the oldest message of its ready set first,
//! one send at a time, when its protocol lets it (`protocol/`).

use super::program::{local_node, local_pid};
use super::protocol::{CopyRef, Protocol, Taken};
use super::server::{Job, Unit};
use super::{Endpoints, NiCtx};
use crate::ids::EndpointId;
use crate::sim::ids::{MsgId, NodeId, PacketId};
use crate::sim::net::Packet;

impl Endpoints {
    /// The sender's NI may send copy `pid` of message `msg`; if it is that NI's next copy of the
    /// message, the message joins the NI's ready set. This and the other steps of a message's
    /// jobs called from one place (`on_tail`, `dma_to_host_done`, `inject`) or two (`ni_advance`)
    /// are forced inline: as calls, their prologues cost a measurable share of their work.
    #[inline(always)]
    pub(super) fn make_avail(&mut self, cx: &mut NiCtx<'_>, msg: MsgId, pid: PacketId) {
        let m = self.costs.packets;
        let x = &mut self.msgs[msg];
        let h = self.prog.hot(x.tpl);
        let k = local_pid(h.tx0, pid, m);
        if std::mem::replace(&mut x.avail[k], true) {
            return;
        }
        if let Some(one) = h.single {
            // Its one sender's order is the packets in order: copy `k` is next at cursor `k`.
            if x.cursor[0] == k as u32 && self.eps[one.sender.idx()].ready.insert((x.serial, msg, 0)) {
                cx.refs.hold(msg);
            }
            return;
        }
        let t = self.prog.template(x.tpl);
        let slot = self.prog.txs[pid.tx(m).idx()].slot;
        let (ep, seq) = &t.senders[slot as usize];
        if seq.get(x.cursor[slot as usize] as usize) == Some(&pid)
            && self.eps[ep.idx()].ready.insert((x.serial, msg, slot))
        {
            cx.refs.hold(msg);
        }
    }

    /// The tail of a packet is in the NI's memory: the NI processor takes it next.
    #[inline(always)]
    pub(super) fn on_tail(&mut self, cx: &mut NiCtx<'_>, msg: MsgId, pid: PacketId, node: NodeId) {
        self.stats.packets_received += 1;
        self.stats.last_progress = cx.now;
        let ep = cx.trees.node(node).eject.expect("a tail reaches an NI through an ejection node");
        self.stats.packets_at[ep.idx()] += 1;
        let x = &mut self.msgs[msg];
        match self.prog.dest_at(x.tpl, node, ep) {
            Some(d) => x.packets[d] += 1,
            None => x.extra_packets += 1,
        }
        let job = if self.protocol.admit(ep) {
            (Unit::Ni, Job::NiRecv { msg, pid, node })
        } else {
            (Unit::Dma, Job::SwapOut { msg, pid, node })
        };
        self.enqueue(cx, ep, job.0, job.1);
        cx.refs.release(msg); // the arrival's hold
    }

    /// The NI has taken packet `pid`: it goes up to the host, its per-packet forwards become
    /// available (their descriptors made), and then its protocol hears of it.
    pub(super) fn ni_received(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, msg: MsgId, pid: PacketId, node: NodeId) {
        self.enqueue(cx, ep, Unit::Dma, Job::DmaToHost { msg, pid, node });
        let copy = self.protocol.hears_taken().then(|| self.copy_ref(cx, msg, pid, Some(ep)));
        if let Some(c) = copy {
            self.protocol.taking(c);
        }
        let m = self.costs.packets;
        let (tx, j) = (pid.tx(m), pid.packet(m));
        let h = self.prog.hot(self.msgs[msg].tpl);
        let (single, tx0) = (h.single, h.tx0);
        let mut forwards = 0;
        if single.is_none() {
            for k in 0..self.prog.txs[tx.idx()].per_packet.len() {
                let t = self.prog.txs[tx.idx()].per_packet[k];
                if self.prog.txs[t.idx()].sender == ep {
                    self.make_avail(cx, msg, PacketId::new(t, j, m));
                    forwards += 1;
                }
            }
            if forwards > 0 {
                self.ni_advance(cx, ep);
            }
        }
        let sender = single.map_or_else(|| self.prog.txs[tx.idx()].sender, |one| one.sender);
        self.stats.own_taken[sender.idx()] = cx.now;
        let local_tx = (tx.raw() - tx0) as usize;
        let left = &mut self.msgs[msg].tx[local_tx].pending;
        *left -= 1;
        if *left == 0 {
            self.stats.transfers_change(cx.now, false);
        }
        if let Some(copy) = copy {
            self.protocol.taken(Taken { copy, holds: 1 + forwards }, cx.now, &mut self.actions);
        }
        self.apply_actions(cx);
    }

    /// Copy `pid` of `msg` as its protocol sees it, received by `to` (the transmission's one
    /// receiving NI when `None`).
    pub(super) fn copy_ref(&self, cx: &NiCtx<'_>, msg: MsgId, pid: PacketId, to: Option<EndpointId>) -> CopyRef {
        let m = self.costs.packets;
        let (tx, j) = (pid.tx(m), pid.packet(m));
        let x = &self.msgs[msg];
        let t = self.prog.template(x.tpl);
        let to = to.unwrap_or_else(|| {
            let node = cx.trees.ejections(tx)[0];
            cx.trees.node(node).eject.expect("an ejection node leads to an NI")
        });
        CopyRef {
            from: self.prog.txs[tx.idx()].sender,
            to,
            msg,
            pid,
            k: local_pid(t.tx0, pid, m) as u32,
            parent: self.prog.txs[tx.idx()].forwards.map(|f| local_pid(t.tx0, PacketId::new(f, j, m), m) as u32),
            tree: x.tpl,
            serial: x.serial,
            packet: j,
        }
    }

    /// A packet is in host memory; with the whole message there the host takes it.
    #[inline(always)]
    pub(super) fn dma_to_host_done(
        &mut self,
        cx: &mut NiCtx<'_>,
        ep: EndpointId,
        msg: MsgId,
        pid: PacketId,
        node: NodeId,
    ) {
        if self.protocol.tracks_buffers() {
            let m = self.costs.packets;
            let t = self.prog.template(self.msgs[msg].tpl);
            let (from, k) = (self.prog.txs[pid.tx(m).idx()].sender, local_pid(t.tx0, pid, m) as u32);
            self.protocol.host_has(ep, from, msg, k, cx.now, &mut self.actions);
        }
        let k = local_node(self.prog.hot(self.msgs[msg].tpl).node0, node);
        let got = &mut self.msgs[msg].got[k];
        *got += 1;
        if *got == self.costs.packets {
            self.enqueue(cx, ep, Unit::Host, Job::HostRecv { msg, node });
        }
    }

    /// The host has the whole message: it is delivered, and its after-message forwards start.
    pub(super) fn host_received(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId, msg: MsgId, node: NodeId) {
        self.stats.deliveries[ep.idx()] += 1;
        self.stats.first_delivery[ep.idx()].get_or_insert(cx.now);
        let x = &mut self.msgs[msg];
        debug_assert_eq!(cx.trees.node(node).eject, Some(ep), "a host receives through its ejection node");
        match self.prog.dest_at(x.tpl, node, ep) {
            Some(d) => {
                x.deliveries[d] += 1;
                x.latency[d].get_or_insert(cx.now - x.created);
            }
            None => x.extra_deliveries += 1,
        }
        let h = self.prog.hot(x.tpl);
        if h.single.is_some() {
            return; // no after-message forward
        }
        let (tx, tx0) = (cx.trees.node(node).tx, h.tx0);
        for k in 0..self.prog.txs[tx.idx()].after_message.len() {
            let t = self.prog.txs[tx.idx()].after_message[k];
            let started = &mut self.msgs[msg].tx[(t.raw() - tx0) as usize].host_started;
            if self.prog.txs[t.idx()].sender == ep && !*started {
                *started = true;
                let group = self.prog.txs[t.idx()].group_of.expect("an after-message forward is a host send");
                self.enqueue(cx, ep, Unit::Host, Job::HostSend { msg, group });
            }
        }
    }

    /// Queues the NI's next send: the next copy of the oldest message it may send.
    #[inline(always)]
    pub(super) fn ni_advance(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId) {
        if self.protocol.keeps_queues() {
            return self.ni_advance_queued(cx, ep);
        }
        let e = &mut self.eps[ep.idx()];
        if e.sending || !self.protocol.may_send(ep) {
            return;
        }
        let Some((msg, pid, again)) = self.take_ready(ep) else { return };
        let m = self.costs.packets;
        let h = self.prog.hot(self.msgs[msg].tpl);
        let receivers = h.single.map_or_else(|| cx.trees.ejections(pid.tx(m)).len() as u32, |one| one.receivers);
        let k = local_pid(h.tx0, pid, m);
        let e = &mut self.eps[ep.idx()];
        e.sending = true;
        self.protocol.sending(ep, msg, k, receivers);
        self.enqueue(cx, ep, Unit::Ni, Job::NiSend { msg, pid });
        if !again {
            cx.refs.release(msg); // the ready entry's hold
        }
    }

    /// Takes the next copy of the oldest message in `ep`'s ready set and moves that message's
    /// cursor on; the message stays in the set if its next copy is available too (`again`).
    /// Every send of a copy comes through here: inlined, its call cost more than its work.
    #[inline(always)]
    fn take_ready(&mut self, ep: EndpointId) -> Option<(MsgId, PacketId, bool)> {
        let (serial, msg, slot) = self.eps[ep.idx()].ready.pop_first()?;
        let m = self.costs.packets;
        let x = &mut self.msgs[msg];
        let h = self.prog.hot(x.tpl);
        if h.single.is_some() {
            // Its one sender's order is the packets in order (`Hot`): the copy at the cursor.
            let at = &mut x.cursor[0];
            let pid = PacketId::new(h.first_tx(), *at, m);
            *at += 1;
            let again = *at < m && x.avail[*at as usize];
            if again {
                self.eps[ep.idx()].ready.insert((serial, msg, slot));
            }
            return Some((msg, pid, again));
        }
        let t = self.prog.template(x.tpl);
        let seq = &t.senders[slot as usize].1;
        let at = &mut x.cursor[slot as usize];
        let pid = seq[*at as usize];
        *at += 1;
        let again = seq.get(*at as usize).is_some_and(|&next| x.avail[local_pid(t.tx0, next, m)]);
        if again {
            self.eps[ep.idx()].ready.insert((serial, msg, slot));
        }
        Some((msg, pid, again))
    }

    /// A protocol with its own queues: every ready copy gets its descriptor now (in the NI's
    /// send order, oldest message first), and the NI, when free, sends the copy the protocol
    /// hands it. A descriptor holds its message until its copy is sent.
    fn ni_advance_queued(&mut self, cx: &mut NiCtx<'_>, ep: EndpointId) {
        while let Some((msg, pid, again)) = self.take_ready(ep) {
            cx.refs.hold(msg); // the descriptor's hold, before the ready entry lets go
            if !again {
                cx.refs.release(msg);
            }
            let c = self.copy_ref(cx, msg, pid, None);
            self.protocol.descriptor(c, cx.now, &mut self.actions);
        }
        if !self.eps[ep.idx()].sending {
            if let Some(c) = self.protocol.next_copy(ep) {
                self.eps[ep.idx()].sending = true;
                self.enqueue(cx, ep, Unit::Ni, Job::NiSend { msg: c.msg, pid: c.pid });
                cx.refs.release(c.msg); // the descriptor's hold: the job holds it now
            }
        }
    }

    /// The NI hands a packet copy to its link; the copy holds its message until the network is
    /// done with it.
    #[inline(always)]
    pub(super) fn inject(&mut self, cx: &mut NiCtx<'_>, msg: MsgId, pid: PacketId) {
        let m = self.costs.packets;
        let tx = pid.tx(m);
        self.stats.packets_sent += 1;
        self.stats.last_progress = cx.now;
        let x = &mut self.msgs[msg];
        let h = self.prog.hot(x.tpl);
        let local_tx = (tx.raw() - h.tx0) as usize;
        if !std::mem::replace(&mut x.tx[local_tx].started, true) {
            self.stats.transfers_change(cx.now, true);
            if h.single.map_or_else(|| self.prog.txs[tx.idx()].starts, |one| one.starts) {
                x.initial_sent += 1;
                if x.initial_sent == h.nstart_tx && x.serial == 0 {
                    self.stats.startup = Some(cx.now - x.created);
                }
            }
        }
        cx.refs.hold(msg);
        let root = if h.single.is_some() { h.first_node() } else { cx.trees.root(tx) };
        cx.injections.push(Packet { msg, pid, root, flits: self.costs.flits(pid.packet(m)) });
    }
}
