//! LFC's deadlock detection and recovery (bhoedjang98 §4).
//!
//! Each NI owns one extra buffer on every other NI, its *deadlock channel*. Detection is local:
//! `lfc.recovery = eager` suspects deadlock as soon as a blocked-sends queue is not empty (§4.1);
//! `timeout` once a queue's head has waited `lfc.recovery_timeout` (the refinement §5.2 says the
//! authors consider). A suspecting NI R starts a recovery unless one of its own is under way: it
//! takes the head p of one of its blocked queues (round robin over its queues, so none starves),
//! flags it and sends it without a credit into its deadlock buffer on p's receiver D. An NI that
//! takes a flagged packet is in the *deadlocked subtree* of p's tree T: for each of its children
//! in T that it has no credit for (a blocked queue holding packets of T), it sends the first
//! packet of T in that queue, flagged, into R's deadlock buffer there (children it has credits
//! for get their copies the normal way). Acknowledgements go back up the subtree, each node
//! answering its parent once all the children it flagged have answered; R's acknowledgement
//! ends the recovery. Copies leave in transmit-queue order, so packets of one tree stay FIFO.
//!
//! A flagged packet sits in a deadlock buffer, not a regular one: it moves into the next regular
//! buffer of its pair that frees (the forwarding of the subtree frees at least one packet of T,
//! §4.2), without a credit going back for it, or leaves when it is done. The paper says the
//! initiator's deadlock buffers are free once its acknowledgement is back; where in this model a
//! flagged packet is still waiting for a regular buffer then, the initiator's next recovery waits
//! for it (so an NI never has two packets in one deadlock buffer).
//!
//! Counted: recoveries, packets sent on deadlock channels, time from start to acknowledgement,
//! and false alarms (at the start, no blocked queue of the initiator is stuck for good: every
//! buffer it waits for holds a packet whose forward waits, in turn, on a stuck pair; the rule
//! is in `waits.rs`).

use super::Lfc;
use crate::ids::EndpointId;
use crate::sim::ids::MsgId;
use crate::sim::ni::protocol::{Action, Control, CopyRef};
use crate::sim::params::{LfcParams, Recovery};
use std::collections::BTreeMap;

/// A recovery's place in one NI of its subtree.
#[derive(Clone, Copy, Debug)]
struct Member {
    /// Where to acknowledge (`None` at the initiator).
    parent: Option<EndpointId>,
    /// Acknowledgements still expected from the children it flagged.
    pending: u32,
}

/// The state of recoveries, beside LFC's credits.
pub(super) struct Recoveries {
    mode: Recovery,
    timeout: u64,
    /// Per initiator: when its recovery under way started.
    started: Vec<Option<u64>>,
    /// Per initiator: its deadlock buffers holding a packet.
    in_use: Vec<u32>,
    /// Per NI: the receiver of its last recovery's packet (round robin).
    last: Vec<Option<EndpointId>>,
    /// Per NI: a wake-up is pending (timeout detection).
    waking: Vec<bool>,
    /// (NI, initiator) → its place in that initiator's recovery.
    members: BTreeMap<(EndpointId, EndpointId), Member>,
    /// Flagged copies on their way: (message, copy) → initiator.
    pub(super) flags: BTreeMap<(MsgId, u32), EndpointId>,
}

impl Recoveries {
    pub(super) fn new(p: &LfcParams, endpoints: usize) -> Recoveries {
        Recoveries {
            mode: p.recovery,
            timeout: p.recovery_timeout.ps(),
            started: vec![None; endpoints],
            in_use: vec![0; endpoints],
            last: vec![None; endpoints],
            waking: vec![false; endpoints],
            members: BTreeMap::new(),
            flags: BTreeMap::new(),
        }
    }
}

impl Lfc {
    /// NI `r` looks for a blocked queue to recover, if it suspects deadlock and may start one.
    pub(super) fn maybe_recover(&mut self, r: EndpointId, now: u64, out: &mut Vec<Action>) {
        let rec = &self.rec;
        if rec.mode == Recovery::Off || rec.started[r.idx()].is_some() || rec.in_use[r.idx()] > 0 {
            return;
        }
        let queues = &self.nis[r.idx()].blocked_to;
        if queues.is_empty() {
            return;
        }
        // Round robin: the first queue after the last one recovered, then from the start.
        let after = rec.last[r.idx()];
        let order = queues.iter().filter(|&&d| Some(d) > after).chain(queues.iter().filter(|&&d| Some(d) <= after));
        let due = |d: EndpointId| match rec.mode {
            Recovery::Timeout => self.pairs[&(r, d)].blocked_since + rec.timeout <= now,
            _ => true,
        };
        let Some(d) = order.copied().find(|&d| due(d)) else {
            // Timeout detection: come back when the oldest head is due.
            if !self.rec.waking[r.idx()] {
                let at = queues.iter().map(|d| self.pairs[&(r, *d)].blocked_since).min().unwrap_or(now) + rec.timeout;
                self.rec.waking[r.idx()] = true;
                out.push(Action::Wake { ep: r, at });
            }
            return;
        };
        if !self.truly_deadlocked(r) {
            self.stats.false_alarms += 1;
        }
        let p = self.pairs.get_mut(&(r, d)).expect("a blocked queue has its pair");
        let c = p.blocked.pop_front().expect("a listed blocked queue is not empty");
        p.blocked_since = now;
        if p.blocked.is_empty() {
            self.nis[r.idx()].blocked_to.remove(&d);
        }
        self.rec.last[r.idx()] = Some(d);
        self.rec.started[r.idx()] = Some(now);
        self.rec.members.insert((r, r), Member { parent: None, pending: 1 });
        self.stats.recoveries += 1;
        self.send_flagged(c, r, out);
    }

    /// A timeout wake-up: detection runs again.
    pub(super) fn woken(&mut self, ep: EndpointId, now: u64, out: &mut Vec<Action>) {
        self.rec.waking[ep.idx()] = false;
        self.maybe_recover(ep, now, out);
    }

    /// Sends `c` without a credit into `initiator`'s deadlock buffer on its receiver.
    fn send_flagged(&mut self, c: CopyRef, initiator: EndpointId, out: &mut Vec<Action>) {
        self.rec.flags.insert((c.msg, c.k), initiator);
        self.rec.in_use[initiator.idx()] += 1;
        self.stats.recovery_packets += 1;
        self.nis[c.from.idx()].transmit.push_back(c);
        out.push(Action::Advance(c.from));
    }

    /// NI `c.to` has taken a flagged packet: it forwards one packet of the tree to every child
    /// it has no credit for, flagged, and acknowledges once those children have.
    pub(super) fn on_flagged(&mut self, c: CopyRef, initiator: EndpointId, _now: u64, out: &mut Vec<Action>) {
        let at = c.to;
        let children: Vec<EndpointId> = self.nis[at.idx()].blocked_to.iter().copied().collect();
        let mut pending = 0;
        for child in children {
            let p = self.pairs.get_mut(&(at, child)).expect("a blocked queue has its pair");
            let Some(i) = p.blocked.iter().position(|q| q.tree == c.tree) else { continue };
            let q = p.blocked.remove(i).expect("found above");
            if p.blocked.is_empty() {
                self.nis[at.idx()].blocked_to.remove(&child);
            }
            self.send_flagged(q, initiator, out);
            pending += 1;
        }
        if pending == 0 {
            out.push(Action::Control { from: at, to: c.from, what: Control::Ack { initiator } });
        } else {
            self.rec.members.insert((at, initiator), Member { parent: Some(c.from), pending });
        }
    }

    /// An acknowledgement of `initiator`'s recovery reaches `at`.
    pub(super) fn on_ack(&mut self, at: EndpointId, initiator: EndpointId, now: u64, out: &mut Vec<Action>) {
        let m = self.rec.members.get_mut(&(at, initiator)).expect("an acknowledgement has a waiting member");
        m.pending -= 1;
        if m.pending > 0 {
            return;
        }
        let parent = m.parent;
        self.rec.members.remove(&(at, initiator));
        match parent {
            Some(p) => out.push(Action::Control { from: at, to: p, what: Control::Ack { initiator } }),
            None => {
                let start = self.rec.started[at.idx()].take().expect("the initiator's recovery is under way");
                self.stats.recoveries_done += 1;
                self.stats.recovery_ps += now - start;
                self.maybe_recover(at, now, out);
            }
        }
    }

    /// A deadlock buffer of `initiator` is free again.
    pub(super) fn deadlock_buffer_freed(&mut self, initiator: EndpointId, now: u64, out: &mut Vec<Action>) {
        self.rec.in_use[initiator.idx()] -= 1;
        self.maybe_recover(initiator, now, out);
    }
}
