//! `ni.send = lfc`: bhoedjang98's Link-level Flow Control (§3) with its deadlock recovery (§4).
//!
//! Every NI sets aside `lfc.credits` receive buffers (one packet each) for every other NI, so a
//! sender holds that many send credits for each peer; a credit is one free buffer on the peer.
//! The NI creates a send descriptor for each copy as soon as the copy is ready (its host's packet
//! is in NI memory, or a forwarded packet has been taken): with a credit for the copy's receiver
//! it goes to the NI's transmit queue, otherwise to that receiver's *blocked-sends queue*. A
//! blocked queue is always served before new descriptors may take a credit of its receiver, so
//! copies between two NIs stay in order. Multicast forwarding uses the same credits and buffers
//! (§3.2): a received packet holds its buffer until its host has it (DMA) and every copy this NI
//! forwards of it has left; then the credit is owed to the packet's sender. The receiver knows
//! how low the sender is (`lfc.credits` minus the buffers holding its packets and the credits
//! owed; packets still on their way it cannot know): owed credits go back in an explicit update
//! as soon as that is at most `lfc.low_water`, or ride on any data packet going to that sender
//! first (`lfc.piggyback`). So a sender that has run out always gets every freed buffer back.
//!
//! With bounded buffers a tree that is not deadlock-free really deadlocks: every NI on a cycle
//! holds full buffers of packets that wait for a credit of the next. Without recovery nothing
//! can move and the run ends with a diagnosis naming the NIs and the cycle of missing credits
//! ([`Lfc::waits`]). Recovery (`recovery.rs`) is §4.2's.
//!
//! Conservation, checked after every change in debug builds: for every pair (sender, receiver),
//! credits held + copies on their way (reserved, sent, not yet taken) + regular buffers occupied
//! + credits owed + credits on their way back = `lfc.credits`.
//!
//! Not modelled: the host-side send buffer pool and host receive buffers (the host is assumed to
//! post receive buffers as fast as the NI fills them), and control packets on the links
//! (`ni.control_latency` stands for their flight).

mod recovery;
mod waits;

use super::{Action, Control, CopyRef, Protocol, Taken};
use crate::ids::EndpointId;
use crate::sim::ids::{MsgId, TemplateId};
use crate::sim::ni::message::refill;
use crate::sim::params::LfcParams;
use recovery::Recoveries;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
pub(crate) use waits::Wait;

pub(super) const SUMMARY: &str =
    "NI-level credits per pair of NIs, blocked-sends queues, optional deadlock recovery (bhoedjang98 §3-§4)";

/// What LFC counted in a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LfcStats {
    /// Descriptors that found no credit and waited in a blocked-sends queue.
    pub blocked_sends: u64,
    /// Longest blocked-sends queue seen.
    pub max_blocked_queue: u32,
    /// Explicit credit updates sent, and credits that rode on data packets instead.
    pub credit_updates: u64,
    pub piggybacked_credits: u64,
    /// Deadlock recoveries started, packets sent on deadlock channels, recoveries finished and
    /// the time they took in all (start to the initiator's acknowledgement).
    pub recoveries: u64,
    pub recovery_packets: u64,
    pub recoveries_done: u64,
    pub recovery_ps: u64,
    /// Recoveries started while no blocked queue of the initiator was stuck for good: stuck means
    /// every buffer it waits for holds a packet whose own forward waits on a stuck queue, around
    /// a cycle of NIs (`waits.rs`).
    pub false_alarms: u64,
    /// Packets that reached an NI out of order on their tree (0 unless the protocol is wrong).
    pub fifo_violations: u64,
    /// Messages started (multicasts, and unicasts if any): the denominator of the two ratios
    /// below, bhoedjang98's Table 1.
    pub multicasts: u64,
    pub recoveries_per_multicast: f64,
    pub recovery_packets_per_multicast: f64,
}

impl LfcStats {
    /// These counts as of `multicasts` messages started.
    pub(crate) fn with_messages(&self, multicasts: u64) -> LfcStats {
        let per = |x: u64| if multicasts == 0 { 0.0 } else { x as f64 / multicasts as f64 };
        LfcStats {
            multicasts,
            recoveries_per_multicast: per(self.recoveries),
            recovery_packets_per_multicast: per(self.recovery_packets),
            ..self.clone()
        }
    }
}

/// The channel between a sender NI and a receiver NI: the sender's credits and blocked queue, the
/// receiver's buffers and owed credits.
#[derive(Clone, Debug, Default)]
struct Pair {
    credits: u32,
    blocked: VecDeque<CopyRef>,
    /// Copies holding a credit that have not yet been taken by the receiver.
    on_way: u32,
    /// Regular receive buffers holding packets of the sender.
    occupied: u32,
    /// Freed buffers whose credits the receiver has not yet sent back, and credits on their way
    /// back (an update or a piggybacking packet).
    owed: u32,
    returning: u32,
    /// When the head of `blocked` started waiting.
    blocked_since: u64,
    /// Packets of this sender in the receiver's deadlock buffers (recovery), oldest first: each
    /// moves into the next regular buffer of the pair that frees.
    in_deadlock: VecDeque<(MsgId, u32)>,
}

/// One NI's transmit queue and which of its blocked queues are not empty.
#[derive(Clone, Debug, Default)]
struct Ni {
    transmit: VecDeque<CopyRef>,
    blocked_to: BTreeSet<EndpointId>,
}

/// A received packet's buffer.
#[derive(Clone, Copy, Debug, Default)]
struct Buf {
    /// The NI the packet came from (set when it is taken).
    from: Option<EndpointId>,
    /// DMA and forwards still to finish.
    holds: u32,
    /// In a deadlock buffer of this initiator (not a regular buffer of its pair).
    deadlock: Option<EndpointId>,
}

pub(crate) struct Lfc {
    credits: u32,
    low_water: u32,
    piggyback: bool,
    pairs: BTreeMap<(EndpointId, EndpointId), Pair>,
    nis: Vec<Ni>,
    /// Per message (by slot), per packet copy: its buffer at the NI that received it, and the
    /// credits it carries back to its receiver (piggybacking).
    bufs: Vec<Vec<Buf>>,
    carried: Vec<Vec<u32>>,
    /// Per (tree, receiver): the last (message serial, packet) taken, for the FIFO check.
    last: BTreeMap<(TemplateId, EndpointId), (u64, u32)>,
    rec: Recoveries,
    /// The copy its receiver is taking now, between `taking` and `taken` (the deadlock test
    /// counts its buffer as occupied while its forwards' descriptors are made).
    taking: Option<CopyRef>,
    stats: LfcStats,
}

impl Lfc {
    pub(crate) fn new(p: &LfcParams, endpoints: usize) -> Lfc {
        Lfc {
            credits: p.credits,
            low_water: p.low_water,
            piggyback: p.piggyback,
            pairs: BTreeMap::new(),
            nis: vec![Ni::default(); endpoints],
            bufs: Vec::new(),
            carried: Vec::new(),
            last: BTreeMap::new(),
            rec: Recoveries::new(p, endpoints),
            taking: None,
            stats: LfcStats::default(),
        }
    }

    pub(crate) fn stats(&self) -> &LfcStats {
        &self.stats
    }

    fn pair(&mut self, from: EndpointId, to: EndpointId) -> &mut Pair {
        let c = self.credits;
        self.pairs.entry((from, to)).or_insert_with(|| Pair { credits: c, ..Pair::default() })
    }

    /// Copies waiting in blocked-sends queues now.
    pub(crate) fn blocked_copies(&self) -> usize {
        self.pairs.values().map(|p| p.blocked.len()).sum()
    }

    /// Puts `c` on its NI's transmit queue with a credit of its pair.
    fn reserve(&mut self, c: CopyRef) {
        let p = self.pair(c.from, c.to);
        debug_assert!(p.credits > 0);
        p.credits -= 1;
        p.on_way += 1;
        self.nis[c.from.idx()].transmit.push_back(c);
    }

    /// Moves the heads of `from`'s blocked queue for `to` to its transmit queue while credits last.
    fn serve_blocked(&mut self, from: EndpointId, to: EndpointId, now: u64, out: &mut Vec<Action>) {
        let mut moved = false;
        loop {
            let p = self.pair(from, to);
            if p.credits == 0 {
                break;
            }
            let Some(c) = p.blocked.pop_front() else { break };
            p.blocked_since = now;
            self.reserve(c);
            moved = true;
        }
        if self.pair(from, to).blocked.is_empty() {
            self.nis[from.idx()].blocked_to.remove(&to);
        }
        if moved {
            out.push(Action::Advance(from));
        }
    }

    /// One of the holds on a received packet's buffer is done; a freed regular buffer's credit
    /// is owed to the packet's sender (or taken over by a packet of the pair waiting in a
    /// deadlock buffer).
    fn release(&mut self, from: EndpointId, at: EndpointId, msg: MsgId, k: u32, now: u64, out: &mut Vec<Action>) {
        let b = &mut self.bufs[msg.idx()][k as usize];
        debug_assert!(b.holds > 0, "a buffer released more often than held");
        b.holds -= 1;
        if b.holds > 0 {
            return;
        }
        if let Some(initiator) = b.deadlock.take() {
            let p = self.pair(from, at);
            p.in_deadlock.retain(|&x| x != (msg, k));
            self.deadlock_buffer_freed(initiator, now, out);
        } else if let Some((m, j)) = self.pair(from, at).in_deadlock.pop_front() {
            // The packet in the deadlock buffer moves into the freed regular buffer (§4.2: the
            // recovery freed at least one packet of the tree), so no credit is returned for it.
            let initiator = self.bufs[m.idx()][j as usize].deadlock.take().expect("a packet in a deadlock buffer");
            self.deadlock_buffer_freed(initiator, now, out);
        } else {
            let p = self.pair(from, at);
            p.occupied -= 1;
            p.owed += 1;
            self.maybe_update(from, at, out);
        }
        self.check(from, at);
    }

    /// The receiver `at` sends what it owes `from` when it knows `from` is low on credits.
    fn maybe_update(&mut self, from: EndpointId, at: EndpointId, out: &mut Vec<Action>) {
        let (c, low) = (self.credits, self.low_water);
        let p = self.pair(from, at);
        if p.owed > 0 && c - p.occupied - p.owed <= low {
            let n = std::mem::take(&mut p.owed);
            p.returning += n;
            self.stats.credit_updates += 1;
            out.push(Action::Control { from: at, to: from, what: Control::Credits(n) });
        }
    }

    /// Credits for `to` reach `at`: its blocked queue for `to` goes first.
    fn credits_back(&mut self, at: EndpointId, to: EndpointId, n: u32, now: u64, out: &mut Vec<Action>) {
        let p = self.pair(at, to);
        p.returning -= n;
        p.credits += n;
        self.check(at, to);
        self.serve_blocked(at, to, now, out);
    }

    /// Debug builds: the pair's credits are all accounted for.
    #[inline]
    fn check(&mut self, from: EndpointId, to: EndpointId) {
        if cfg!(debug_assertions) {
            let c = self.credits;
            let p = self.pair(from, to);
            let sum = p.credits + p.on_way + p.occupied + p.owed + p.returning;
            assert_eq!(sum, c, "LFC credits of {from:?}->{to:?} not conserved: {p:?}");
        }
    }

    /// The FIFO check: packets of one tree reach each NI in creation order.
    fn in_order(&mut self, c: &CopyRef) {
        let now = (c.serial, c.packet);
        if let Some(prev) = self.last.insert((c.tree, c.to), now) {
            if prev > now {
                self.stats.fifo_violations += 1;
            }
        }
    }

    /// Every NI waiting for a credit, and a cycle of such waits if there is one (for the
    /// deadlock diagnosis).
    pub(crate) fn waits(&self) -> (Vec<Wait>, Vec<EndpointId>) {
        waits::waits(&self.pairs)
    }

    /// Whether a blocked queue of `r` is stuck for good, by its packets (`waits` module doc):
    /// a recovery started otherwise is a false alarm.
    fn truly_deadlocked(&self, r: EndpointId) -> bool {
        // The packet being taken: not yet in `bufs`, already in a buffer (a regular one unless
        // it is flagged).
        let taking = self.taking.filter(|c| !self.rec.flags.contains_key(&(c.msg, c.k)));
        let holder = |(msg, k): (MsgId, u32), at: EndpointId| {
            if let Some(c) = taking.filter(|c| (c.msg, c.k, c.to) == (msg, k, at)) {
                return Some(c.from);
            }
            let b = self.bufs[msg.idx()][k as usize];
            if b.holds > 0 && b.deadlock.is_none() {
                b.from
            } else {
                None
            }
        };
        waits::truly_deadlocked(&self.pairs, self.credits, taking.map(|c| (c.from, c.to)), holder, r)
    }
}

impl Protocol for Lfc {
    fn message_started(&mut self, msg: MsgId, copies: usize) {
        if self.bufs.len() <= msg.idx() {
            self.bufs.resize_with(msg.idx() + 1, Vec::new);
            self.carried.resize_with(msg.idx() + 1, Vec::new);
        }
        refill(&mut self.bufs[msg.idx()], copies, Buf::default());
        refill(&mut self.carried[msg.idx()], copies, 0);
    }

    fn tracks_buffers(&self) -> bool {
        true
    }

    fn waiting(&self) -> usize {
        self.blocked_copies()
    }

    fn may_send(&self, _ep: EndpointId) -> bool {
        true
    }

    fn sending(&mut self, _ep: EndpointId, _msg: MsgId, _k: usize, _receivers: u32) {}

    fn descriptor(&mut self, c: CopyRef, now: u64, out: &mut Vec<Action>) {
        let p = self.pair(c.from, c.to);
        if p.blocked.is_empty() && p.credits > 0 {
            self.reserve(c);
            return;
        }
        if p.blocked.is_empty() {
            p.blocked_since = now;
        }
        p.blocked.push_back(c);
        let len = p.blocked.len() as u32;
        self.stats.blocked_sends += 1;
        self.stats.max_blocked_queue = self.stats.max_blocked_queue.max(len);
        self.nis[c.from.idx()].blocked_to.insert(c.to);
        self.maybe_recover(c.from, now, out);
    }

    fn next_copy(&mut self, ep: EndpointId) -> Option<CopyRef> {
        self.nis[ep.idx()].transmit.pop_front()
    }

    fn left(&mut self, c: CopyRef, now: u64, out: &mut Vec<Action>) {
        if self.piggyback {
            // Credits this NI owes the receiver ride along.
            let p = self.pair(c.to, c.from);
            if p.owed > 0 {
                let n = std::mem::take(&mut p.owed);
                p.returning += n;
                self.stats.piggybacked_credits += n as u64;
                self.carried[c.msg.idx()][c.k as usize] = n;
            }
        }
        if let Some(k) = c.parent {
            let sender = self.bufs[c.msg.idx()][k as usize].from.expect("a forwarded packet was taken first");
            self.release(sender, c.from, c.msg, k, now, out);
        }
    }

    fn taking(&mut self, c: CopyRef) {
        self.taking = Some(c);
    }

    fn taken(&mut self, t: Taken, now: u64, out: &mut Vec<Action>) {
        let c = t.copy;
        self.taking = None;
        self.in_order(&c);
        let n = std::mem::take(&mut self.carried[c.msg.idx()][c.k as usize]);
        if n > 0 {
            self.credits_back(c.to, c.from, n, now, out);
        }
        debug_assert!(t.holds > 0, "every received packet goes up to its host");
        let flagged = self.rec.flags.remove(&(c.msg, c.k));
        self.bufs[c.msg.idx()][c.k as usize] = Buf { from: Some(c.from), holds: t.holds, deadlock: None };
        match flagged {
            Some(initiator) => {
                self.bufs[c.msg.idx()][c.k as usize].deadlock = Some(initiator);
                self.pair(c.from, c.to).in_deadlock.push_back((c.msg, c.k));
                self.on_flagged(c, initiator, now, out);
            }
            None => {
                let p = self.pair(c.from, c.to);
                p.on_way -= 1;
                p.occupied += 1;
                self.check(c.from, c.to);
                self.maybe_update(c.from, c.to, out);
            }
        }
    }

    fn host_has(&mut self, at: EndpointId, from: EndpointId, msg: MsgId, k: u32, now: u64, out: &mut Vec<Action>) {
        self.release(from, at, msg, k, now, out);
    }

    fn control(&mut self, at: EndpointId, from: EndpointId, what: Control, now: u64, out: &mut Vec<Action>) {
        match what {
            Control::Credits(n) => self.credits_back(at, from, n, now, out),
            Control::Ack { initiator } => self.on_ack(at, initiator, now, out),
            // FM/MC's control packets: LFC never sends them.
            Control::Request | Control::Grant(_) | Control::Token | Control::Window(_) => {}
        }
    }

    fn wake(&mut self, ep: EndpointId, now: u64, out: &mut Vec<Action>) {
        self.woken(ep, now, out);
    }
}
