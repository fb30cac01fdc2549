//! `ni.send = pipelined`: the NI processor spends `t_ns` on a copy, hands it to its link and goes
//! on with the next copy (sivaram98 §4.2.3, where copies leave `t_ns` apart). No NI-level flow
//! control: NIs have unbounded buffers.

use super::{Action, Protocol, Taken};
use crate::ids::EndpointId;
use crate::sim::ids::MsgId;

pub(super) const SUMMARY: &str =
    "the next copy may start once the previous one is handed to the link (sivaram98 §4.2.3)";

pub(crate) struct Pipelined;

impl Protocol for Pipelined {
    fn message_started(&mut self, _msg: MsgId, _copies: usize) {}
    #[inline]
    fn may_send(&self, _ep: EndpointId) -> bool {
        true
    }
    #[inline]
    fn sending(&mut self, _ep: EndpointId, _msg: MsgId, _k: usize, _receivers: u32) {}
    #[inline]
    fn hears_taken(&self) -> bool {
        false
    }
    #[inline]
    fn taken(&mut self, _t: Taken, _now: u64, _out: &mut Vec<Action>) {}
}
