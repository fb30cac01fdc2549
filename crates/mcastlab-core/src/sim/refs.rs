//! Message liveness (and identity: each slot's serial number): how many things may still act for each message under way — jobs queued at
//! a host, NI or DMA engine, entries in an NI's ready set, packet copies and circuits in the
//! network, tails on their way into an NI. When the count of a message drops to zero nothing can
//! happen to it any more: it is complete (or, if some destination never got it, it never will
//! be), and the engine hands it back to the endpoints to be recorded and recycled.
//!
//! The endpoints and the network both hold and release messages, so the counts belong to neither:
//! the engine owns them and lends them to whichever component is running.

use super::ids::MsgId;

#[derive(Default)]
pub(crate) struct MessageRefs {
    counts: Vec<u32>,
    /// Per message slot: the serial number of the message in it (creation order), the identity a
    /// per-packet route choice is drawn for (slots are reused in an order that depends on the
    /// network model; serials are not).
    serials: Vec<u64>,
    /// Messages whose count dropped to zero, in that order, not yet handed back.
    finished: Vec<MsgId>,
}

impl MessageRefs {
    /// Message `m` starts (its slot may be a recycled one): nothing holds it yet.
    pub(crate) fn start(&mut self, m: MsgId, serial: u64) {
        if self.counts.len() <= m.idx() {
            self.counts.resize(m.idx() + 1, 0);
            self.serials.resize(m.idx() + 1, 0);
        }
        self.counts[m.idx()] = 0;
        self.serials[m.idx()] = serial;
    }

    /// The serial number of message `m` (creation order, from 0).
    #[inline]
    pub(crate) fn serial(&self, m: MsgId) -> u64 {
        self.serials[m.idx()]
    }

    /// Something more may act for `m`.
    #[inline]
    pub(crate) fn hold(&mut self, m: MsgId) {
        self.counts[m.idx()] += 1;
    }

    /// One thing acting for `m` is done; at zero the message is finished.
    #[inline]
    pub(crate) fn release(&mut self, m: MsgId) {
        let c = &mut self.counts[m.idx()];
        *c -= 1;
        if *c == 0 {
            self.finished.push(m);
        }
    }

    /// A message that nothing holds right after it started (it has nothing to send) is finished
    /// at once.
    pub(crate) fn finish_if_idle(&mut self, m: MsgId) {
        if self.counts[m.idx()] == 0 {
            self.finished.push(m);
        }
    }

    /// Takes the messages finished since the last call, in the order they finished.
    pub(crate) fn take_finished(&mut self, into: &mut Vec<MsgId>) {
        // The engine's list is empty at each call (it clears it after use): the lists trade
        // places instead of a `memcpy` call per finished message.
        if into.is_empty() {
            std::mem::swap(into, &mut self.finished);
        } else {
            into.append(&mut self.finished);
        }
    }

    #[inline]
    pub(crate) fn any_finished(&self) -> bool {
        !self.finished.is_empty()
    }
}
