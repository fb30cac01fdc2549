//! Messages under way: what changes while one message (an instance of a template, `program.rs`)
//! is in progress — which packet copies its NIs may send, how far each NI has got through its
//! send order, which packets reached each host, and when each destination got the whole message.
//!
//! Instances live in a slab and are recycled. A message is finished when nothing may act for it
//! any more (`sim::refs`); its record ([`Completed`]) is then handed to the caller and its slot
//! reused.

use crate::sim::ids::TemplateId;

/// One message under way.
#[derive(Clone, Debug, Default)]
pub(crate) struct Msg {
    pub tpl: TemplateId,
    /// Creation order: NIs serve older messages first.
    pub serial: u64,
    pub created: u64,
    /// Per packet copy (template-local id): the NI may send it.
    pub avail: Vec<bool>,
    /// Per ejection node (template-local): packets DMA'd to the host.
    pub got: Vec<u32>,
    /// Per transmission (template-local): its copies in flight and what has started.
    pub tx: Vec<TxState>,
    /// Per sending NI (template slot): copies it has sent.
    pub cursor: Vec<u32>,
    /// Per destination: time from creation until its host had the whole message, whole-message
    /// deliveries and packets its NI received.
    pub latency: Vec<Option<u64>>,
    pub deliveries: Vec<u32>,
    pub packets: Vec<u32>,
    /// Deliveries and packets at endpoints outside the destination set.
    pub extra_deliveries: u32,
    pub extra_packets: u32,
    /// The source's initial transmissions whose first packet has left (oral's startup).
    pub initial_sent: u32,
}

/// One transmission of a message under way. Its three fields were three lists of the message,
/// each refilled when a message started; as one record they are one copy of the template's
/// initial states (`Program::tx_init`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TxState {
    /// Packet copies not yet taken by a receiving NI: a transfer is in flight from its first
    /// copy's send until this reaches 0.
    pub pending: u32,
    /// Its host send has been started (at creation for the source's own transmissions).
    pub host_started: bool,
    /// Its first copy has been sent.
    pub started: bool,
}

/// The record of a message nothing can act on any more. Records are recycled: the caller hands
/// back those it has read (`Endpoints::give_back`), and a finishing message swaps its per-destination
/// lists with a spare record's, so the steady state of a run allocates no record (three lists per
/// message were a quarter of the per-message allocations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Completed {
    pub serial: u64,
    pub tpl: TemplateId,
    pub created: u64,
    /// When its last job, packet or delivery was done.
    pub finished: u64,
    pub latency: Vec<Option<u64>>,
    pub deliveries: Vec<u32>,
    pub packets: Vec<u32>,
    pub extra_deliveries: u32,
    pub extra_packets: u32,
}

/// Resizes `v` to `n` copies of `x`, keeping its allocation.
pub(crate) fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}
