//! NI send protocols: when an NI may hand its next packet copy to its link, and what receiving a
//! copy tells the sender. One file (or folder) per protocol, registered in [`PROTOCOLS`];
//! [`Protocols`] dispatches to the one a run uses (chosen by `ni.send`) without a virtual call.
//!
//! The contract ([`Protocol`]) has two shapes, and a protocol says which it is
//! (`keeps_queues`):
//! - *Gate* protocols (`pipelined`, `step`): the endpoint keeps the NI's copies in its own send
//!   order and asks `may_send` before each send; it says when it starts a copy (`sending`) and
//!   when a receiving NI has taken one (`taken`).
//! - *Queue* protocols (`lfc`): the NI creates a send descriptor for every copy as soon as the copy
//!   is ready (`descriptor`) and the protocol keeps it — in a transmit queue when it may go, in a
//!   blocked-sends queue when it may not — and hands the NI its next copy (`next_copy`). It hears
//!   when a copy has left the NI (`left`), when a receiving NI has taken one (`taken`), when a
//!   packet is in its host's memory (`host_has`), and when a control packet of its own (a
//!   credit update, an acknowledgement) reaches an NI (`control`), and may wake an NI later
//!   (`wake`).
//!
//! A protocol answers with [`Action`]s the endpoint carries out: let an NI send again, send a
//! control packet (which costs both NIs `ni.t_control` and takes `ni.control_latency` in between),
//! or wake an NI at a later time. A protocol never sees the network or the host: those are the
//! endpoint's (`ni/mod.rs`) and the network's business.
//!
//! Adding one: a file here implementing [`Protocol`], a variant of [`Protocols`] and a line in
//! [`PROTOCOLS`], and the value that selects it in the parameters.

pub(crate) mod fmmc;
pub(crate) mod lfc;
mod pipelined;
mod step;

use crate::ids::EndpointId;
use crate::sim::ids::{MsgId, PacketId, TemplateId};
use crate::sim::params::{NiSend, Params};
pub(crate) use fmmc::Fmmc;
pub use fmmc::FmmcStats;
pub(crate) use lfc::Lfc;
pub(crate) use pipelined::Pipelined;
pub(crate) use step::StepSends;

/// One packet copy an NI sends to one other NI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CopyRef {
    /// The sending and the receiving NI.
    pub from: EndpointId,
    pub to: EndpointId,
    pub msg: MsgId,
    pub pid: PacketId,
    /// Template-local id of the copy, and of the received packet it forwards (`None` at the
    /// source, whose packets are in its send buffers, not in receive buffers).
    pub k: u32,
    pub parent: Option<u32>,
    /// The multicast tree it travels on (every message of a template follows the same tree).
    pub tree: TemplateId,
    /// Creation order of its message, and its packet number in the message.
    pub serial: u64,
    pub packet: u32,
}

/// A receiving NI has taken a copy: what the protocol is told.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Taken {
    pub copy: CopyRef,
    /// Things that must finish before the packet's receive buffer is free: its DMA to the host
    /// and each copy this NI forwards of it.
    pub holds: u32,
}

/// A host about to hand a message's packets to its NI.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostSend {
    pub ep: EndpointId,
    pub msg: MsgId,
    pub packets: u32,
    /// The destination of a unicast (`None` for a multicast).
    pub to: Option<EndpointId>,
}

/// A protocol's control packet between two NIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    /// `n` send credits back to the sender of the packets whose buffers were freed.
    Credits(u32),
    /// Deadlock recovery: the subtree below the sender has forwarded one packet each, for the
    /// recovery `initiator` started.
    Ack {
        initiator: EndpointId,
    },
    /// FM/MC: a host asks the credit manager for credits; the manager grants some; the token
    /// that returns consumed credits moves on.
    Request,
    Grant(u32),
    Token,
    /// FM/MC's host-level sliding window for unicast: `n` buffers free again at the receiver.
    Window(u32),
}

/// What a protocol asks the endpoint to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// The NI may have a copy to send now.
    Advance(EndpointId),
    /// Send a control packet.
    Control { from: EndpointId, to: EndpointId, what: Control },
    /// Call `wake` for this NI at this time.
    Wake { ep: EndpointId, at: u64 },
    /// The host may hand `packets` more of the packets it held back (`host_credits`) to its NI.
    HostResume { ep: EndpointId, packets: u32 },
    /// Bring the oldest packet swapped out of this NI's receive queue back (`admit`).
    SwapIn { ep: EndpointId },
}

/// What a protocol decides.
pub(crate) trait Protocol {
    /// A message starts, with `copies` packet copies (template-local ids `0..copies`).
    fn message_started(&mut self, msg: MsgId, copies: usize);
    /// Queue protocols keep the NI's send descriptors themselves (`descriptor`, `next_copy`).
    fn keeps_queues(&self) -> bool {
        false
    }
    /// Whether it wants `left` and `host_has` (it accounts receive buffers).
    fn tracks_buffers(&self) -> bool {
        false
    }
    /// Whether it wants `taking` and `taken` (a protocol that ignores both spares the NI
    /// describing every copy received).
    fn hears_taken(&self) -> bool {
        true
    }
    /// The host of `ep` wants to hand `want` packets of message `msg` to its NI (`to`: its one
    /// destination if it is a unicast): how many it may now (the rest wait, in order, for an
    /// `Action::HostResume`).
    fn host_credits(&mut self, _h: HostSend, _out: &mut Vec<Action>) -> u32 {
        u32::MAX
    }
    /// A packet's tail reaches the NI of `at`: whether its receive queue takes it (otherwise it
    /// is swapped to host memory until an `Action::SwapIn`).
    fn admit(&mut self, _at: EndpointId) -> bool {
        true
    }
    /// Things waiting on the protocol (LFC's blocked copies, FM/MC's held-back packets): with
    /// nothing else left to happen, a deadlock.
    fn waiting(&self) -> usize {
        0
    }
    /// Gate protocols: whether the NI of `ep` may start its next send now.
    fn may_send(&self, ep: EndpointId) -> bool;
    /// Gate protocols: the NI of `ep` starts sending copy `k` of `msg`, which `receivers` NIs
    /// will take.
    fn sending(&mut self, ep: EndpointId, msg: MsgId, k: usize, receivers: u32);
    /// Queue protocols: the NI has created the descriptor of copy `c` at `now`.
    fn descriptor(&mut self, _c: CopyRef, _now: u64, _out: &mut Vec<Action>) {}
    /// Queue protocols: the copy the NI of `ep` sends next, if any may go.
    fn next_copy(&mut self, _ep: EndpointId) -> Option<CopyRef> {
        None
    }
    /// Copy `c` has left its NI (handed to the link).
    fn left(&mut self, _c: CopyRef, _now: u64, _out: &mut Vec<Action>) {}
    /// A receiving NI is taking copy `c`: called before the descriptors of its forwards are
    /// made (and `taken` after them), so a protocol that inspects its state in between knows the
    /// packet is already in a receive buffer. It changes nothing that is simulated.
    fn taking(&mut self, _c: CopyRef) {}
    /// A receiving NI has taken a copy (its `t_nr` done).
    fn taken(&mut self, t: Taken, now: u64, out: &mut Vec<Action>);
    /// Packet `k` of `msg`, received by `at` from `from`, is in `at`'s host memory.
    fn host_has(
        &mut self,
        _at: EndpointId,
        _from: EndpointId,
        _msg: MsgId,
        _k: u32,
        _now: u64,
        _out: &mut Vec<Action>,
    ) {
    }
    /// A control packet from `from` has reached (and been taken by) the NI of `at`.
    fn control(&mut self, _at: EndpointId, _from: EndpointId, _what: Control, _now: u64, _out: &mut Vec<Action>) {}
    /// A wake-up the protocol asked for.
    fn wake(&mut self, _ep: EndpointId, _now: u64, _out: &mut Vec<Action>) {}
}

/// One registered protocol.
pub struct ProtocolEntry {
    pub name: &'static str,
    pub summary: &'static str,
}

/// Every protocol, by the `ni.send` value that selects it.
pub const PROTOCOLS: &[ProtocolEntry] = &[
    ProtocolEntry { name: "pipelined", summary: pipelined::SUMMARY },
    ProtocolEntry { name: "step", summary: step::SUMMARY },
    ProtocolEntry { name: "lfc", summary: lfc::SUMMARY },
    ProtocolEntry { name: "fmmc", summary: fmmc::SUMMARY },
];

/// The protocol of a run.
pub(crate) enum Protocols {
    Pipelined(Pipelined),
    Step(StepSends),
    Lfc(Box<Lfc>),
    Fmmc(Box<Fmmc>),
}

impl Protocols {
    /// The protocol `params` select, for `endpoints` NIs.
    pub(crate) fn new(params: &Params, endpoints: usize) -> Protocols {
        match params.ni.send {
            NiSend::Pipelined => Protocols::Pipelined(Pipelined),
            NiSend::Step => Protocols::Step(StepSends::new(endpoints)),
            NiSend::Lfc => Protocols::Lfc(Box::new(Lfc::new(&params.lfc, endpoints))),
            NiSend::Fmmc => Protocols::Fmmc(Box::new(Fmmc::new(&params.fmmc, endpoints))),
        }
    }

    /// FM/MC's state, when the run uses it.
    pub(crate) fn fmmc(&self) -> Option<&Fmmc> {
        match self {
            Protocols::Fmmc(f) => Some(f),
            _ => None,
        }
    }

    /// LFC's state, when the run uses it.
    pub(crate) fn lfc(&self) -> Option<&Lfc> {
        match self {
            Protocols::Lfc(l) => Some(l),
            _ => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Protocols::Pipelined($p) => $e,
            Protocols::Step($p) => $e,
            Protocols::Lfc($p) => $e,
            Protocols::Fmmc($p) => $e,
        }
    };
}

impl Protocol for Protocols {
    fn message_started(&mut self, msg: MsgId, copies: usize) {
        dispatch!(self, p => p.message_started(msg, copies))
    }
    #[inline]
    fn keeps_queues(&self) -> bool {
        matches!(self, Protocols::Lfc(_))
    }
    #[inline]
    fn tracks_buffers(&self) -> bool {
        matches!(self, Protocols::Lfc(_) | Protocols::Fmmc(_))
    }
    #[inline]
    fn hears_taken(&self) -> bool {
        dispatch!(self, p => p.hears_taken())
    }
    fn host_credits(&mut self, h: HostSend, out: &mut Vec<Action>) -> u32 {
        dispatch!(self, p => p.host_credits(h, out))
    }
    #[inline]
    fn admit(&mut self, at: EndpointId) -> bool {
        dispatch!(self, p => p.admit(at))
    }
    fn waiting(&self) -> usize {
        dispatch!(self, p => p.waiting())
    }
    #[inline]
    fn may_send(&self, ep: EndpointId) -> bool {
        dispatch!(self, p => p.may_send(ep))
    }
    #[inline]
    fn sending(&mut self, ep: EndpointId, msg: MsgId, k: usize, receivers: u32) {
        dispatch!(self, p => p.sending(ep, msg, k, receivers))
    }
    fn descriptor(&mut self, c: CopyRef, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.descriptor(c, now, out))
    }
    fn next_copy(&mut self, ep: EndpointId) -> Option<CopyRef> {
        dispatch!(self, p => p.next_copy(ep))
    }
    fn left(&mut self, c: CopyRef, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.left(c, now, out))
    }
    #[inline]
    fn taking(&mut self, c: CopyRef) {
        dispatch!(self, p => p.taking(c))
    }
    #[inline]
    fn taken(&mut self, t: Taken, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.taken(t, now, out))
    }
    fn host_has(&mut self, at: EndpointId, from: EndpointId, msg: MsgId, k: u32, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.host_has(at, from, msg, k, now, out))
    }
    fn control(&mut self, at: EndpointId, from: EndpointId, what: Control, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.control(at, from, what, now, out))
    }
    fn wake(&mut self, ep: EndpointId, now: u64, out: &mut Vec<Action>) {
        dispatch!(self, p => p.wake(ep, now, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ni_send_value_has_a_registered_protocol() {
        for name in ["pipelined", "step", "lfc", "fmmc"] {
            assert!(PROTOCOLS.iter().any(|p| p.name == name), "{name}");
            let mut p = Params::preset("sivaram98").unwrap();
            p.set("ni.send", name).unwrap();
            let proto = Protocols::new(&p, 4);
            let kind = match proto {
                Protocols::Pipelined(_) => "pipelined",
                Protocols::Step(_) => "step",
                Protocols::Lfc(_) => "lfc",
                Protocols::Fmmc(_) => "fmmc",
            };
            assert_eq!(kind, name);
            assert_eq!(proto.keeps_queues(), name == "lfc");
            assert_eq!(proto.tracks_buffers(), name == "lfc" || name == "fmmc");
        }
    }
}
