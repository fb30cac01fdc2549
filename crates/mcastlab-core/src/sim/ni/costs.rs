//! What the endpoints' work costs: the host, NI and I/O bus parameters of a run in picoseconds
//! and rates, and how its messages are cut into packets.

use crate::sim::params::{NiOrder, Params};
use crate::sim::units::Rate;

/// The host, NI and I/O bus costs of a run, and how its messages are cut into packets.
#[derive(Clone, Debug)]
pub(crate) struct Costs {
    pub t_hs: u64,
    pub t_hr: u64,
    pub t_ns: u64,
    pub t_nr: u64,
    pub dma: Rate,
    /// The host's PIO copy into NI memory and its receive copy (`inf`: not modelled).
    pub pio: Rate,
    pub copy: Rate,
    pub message_bytes: u64,
    /// Packets per message.
    pub packets: u32,
    /// The NI processor's job order, and the cost and flight time of a protocol's control packet.
    pub order: NiOrder,
    pub t_control: u64,
    pub control_latency: u64,
    params: Params,
}

impl Costs {
    pub(crate) fn new(params: &Params, message_bytes: u64) -> Costs {
        Costs {
            t_hs: params.host.t_hs.ps(),
            t_hr: params.host.t_hr.ps(),
            t_ns: params.ni.t_ns.ps(),
            t_nr: params.ni.t_nr.ps(),
            dma: params.ni.dma_bandwidth,
            pio: params.host.pio_bandwidth,
            copy: params.host.copy_bandwidth,
            message_bytes,
            packets: params.packets_for(message_bytes),
            order: params.ni.order,
            t_control: params.ni.t_control.ps(),
            control_latency: params.ni.control_latency.ps(),
            params: params.clone(),
        }
    }

    /// Payload bytes of packet `j` of a message.
    #[inline]
    pub(crate) fn packet_bytes(&self, j: u32) -> u64 {
        self.params.packet_bytes(self.message_bytes, j)
    }

    /// Flits of packet `j` of a message.
    #[inline]
    pub(crate) fn flits(&self, j: u32) -> u32 {
        self.params.flits_for(self.packet_bytes(j))
    }

    /// Every cost is zero and the I/O bus is left out: jobs take no time.
    pub(crate) fn free(&self) -> bool {
        self.t_hs == 0
            && self.t_hr == 0
            && self.t_ns == 0
            && self.t_nr == 0
            && self.dma.is_unlimited()
            && self.pio.is_unlimited()
            && self.copy.is_unlimited()
    }
}
