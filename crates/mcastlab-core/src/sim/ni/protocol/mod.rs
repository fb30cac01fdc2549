//! NI send protocols: when an NI may hand its next packet copy to its link, and what receiving a
//! copy tells the sender. One file per protocol, registered in [`PROTOCOLS`]; [`Protocols`]
//! dispatches to the one a run uses (chosen by `ni.send`) without a virtual call.
//!
//! The contract ([`Protocol`]): before each send the endpoint asks `may_send`; when it starts a
//! copy it says so (`sending`, with the number of NIs that will take it); when a receiving NI has
//! taken a copy (its `t_nr` done) it says so (`taken`), and the protocol may free a sender to go
//! on. A protocol with per-message state sets it up in `message_started`. A protocol never sees
//! the network or the host: those are the endpoint's (`ni/mod.rs`) and the network's business.
//!
//! Adding one (e.g. bhoedjang98's LFC credits): a file here implementing [`Protocol`], a variant
//! of [`Protocols`] and a line in [`PROTOCOLS`], and the value that selects it in the parameters.

mod pipelined;
mod step;

use crate::ids::EndpointId;
use crate::sim::ids::MsgId;
use crate::sim::params::{NiSend, Params};
pub(crate) use pipelined::Pipelined;
pub(crate) use step::StepSends;

/// What a protocol decides.
pub(crate) trait Protocol {
    /// A message starts, with `copies` packet copies (template-local ids `0..copies`).
    fn message_started(&mut self, msg: MsgId, copies: usize);
    /// Whether the NI of `ep` may start its next send now.
    fn may_send(&self, ep: EndpointId) -> bool;
    /// The NI of `ep` starts sending copy `k` of `msg`, which `receivers` NIs will take.
    fn sending(&mut self, ep: EndpointId, msg: MsgId, k: usize, receivers: u32);
    /// A receiving NI has taken copy `k` of `msg`, sent by `sender`; returns an NI that may send
    /// again because of it.
    fn taken(&mut self, msg: MsgId, k: usize, sender: EndpointId) -> Option<EndpointId>;
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
];

/// The protocol of a run.
pub(crate) enum Protocols {
    Pipelined(Pipelined),
    Step(StepSends),
}

impl Protocols {
    /// The protocol `params` select, for `endpoints` NIs.
    pub(crate) fn new(params: &Params, endpoints: usize) -> Protocols {
        match params.ni.send {
            NiSend::Pipelined => Protocols::Pipelined(Pipelined),
            NiSend::Step => Protocols::Step(StepSends::new(endpoints)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Protocols::Pipelined($p) => $e,
            Protocols::Step($p) => $e,
        }
    };
}

impl Protocol for Protocols {
    fn message_started(&mut self, msg: MsgId, copies: usize) {
        dispatch!(self, p => p.message_started(msg, copies))
    }
    #[inline]
    fn may_send(&self, ep: EndpointId) -> bool {
        dispatch!(self, p => p.may_send(ep))
    }
    #[inline]
    fn sending(&mut self, ep: EndpointId, msg: MsgId, k: usize, receivers: u32) {
        dispatch!(self, p => p.sending(ep, msg, k, receivers))
    }
    #[inline]
    fn taken(&mut self, msg: MsgId, k: usize, sender: EndpointId) -> Option<EndpointId> {
        dispatch!(self, p => p.taken(msg, k, sender))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ni_send_value_has_a_registered_protocol() {
        for name in ["pipelined", "step"] {
            assert!(PROTOCOLS.iter().any(|p| p.name == name), "{name}");
            let mut p = Params::preset("sivaram98").unwrap();
            p.set("ni.send", name).unwrap();
            let proto = Protocols::new(&p, 4);
            let kind = match proto {
                Protocols::Pipelined(_) => "pipelined",
                Protocols::Step(_) => "step",
            };
            assert_eq!(kind, name);
        }
    }
}
