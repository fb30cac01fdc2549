//! `ni.send = step`: a copy holds the sender's NI until every receiving NI has taken it (`t_ns`,
//! network, `t_nr`): one packet per *step*, the model behind sivaram98 §4.1 and §4.3 (Theorem 2).
//! The sender learns that its copy was taken at the instant the receiver's `t_nr` ends: the step
//! model has no acknowledgement time. A copy nobody receives (it only passes through) blocks
//! nothing.

use super::{Action, Protocol, Taken};
use crate::ids::EndpointId;
use crate::sim::ids::MsgId;
use crate::sim::ni::message::refill;

pub(super) const SUMMARY: &str =
    "a copy holds the NI until every receiving NI has taken it: one packet per step (sivaram98 §4.1, §4.3)";

pub(crate) struct StepSends {
    /// Per NI: waiting for the receivers of its last copy.
    blocked: Vec<bool>,
    /// Per message (by slot), per packet copy: receiving NIs that have not yet taken it.
    waiting: Vec<Vec<u32>>,
}

impl StepSends {
    pub(crate) fn new(endpoints: usize) -> StepSends {
        StepSends { blocked: vec![false; endpoints], waiting: Vec::new() }
    }
}

impl Protocol for StepSends {
    fn message_started(&mut self, msg: MsgId, copies: usize) {
        if self.waiting.len() <= msg.idx() {
            self.waiting.resize_with(msg.idx() + 1, Vec::new);
        }
        refill(&mut self.waiting[msg.idx()], copies, 0);
    }

    #[inline]
    fn may_send(&self, ep: EndpointId) -> bool {
        !self.blocked[ep.idx()]
    }

    fn sending(&mut self, ep: EndpointId, msg: MsgId, k: usize, receivers: u32) {
        let step = receivers > 0;
        self.blocked[ep.idx()] = step;
        if step {
            self.waiting[msg.idx()][k] = receivers;
        }
    }

    fn taken(&mut self, t: Taken, _now: u64, out: &mut Vec<Action>) {
        let a = &mut self.waiting[t.copy.msg.idx()][t.copy.k as usize];
        if *a == 0 {
            return;
        }
        *a -= 1;
        if *a == 0 {
            self.blocked[t.copy.from.idx()] = false;
            out.push(Action::Advance(t.copy.from));
        }
    }
}
