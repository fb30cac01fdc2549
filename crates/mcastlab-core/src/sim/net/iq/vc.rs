//! One VC's record (`Vc`): the buffer at a channel's far end, what its router does with the
//! packet at its front, and that packet's branches, laid out by what a cycle reads.

use super::ring::Ring;
use crate::fabric::Channel;
use crate::ids::SwitchId;
use crate::sim::ids::{IqVcId, MsgId, NodeId, PacketId};

/// What a buffer knows of each packet it holds, from its head flit on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Head {
    pub msg: MsgId,
    pub pid: PacketId,
    /// Tree node whose channel brought the packet here (its children are the branches).
    pub node: NodeId,
    pub flits: u32,
}

/// What an input VC is doing with the packet at its front.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum VcState {
    /// No packet routed: the next head flit goes through RC when it has arrived.
    #[default]
    Idle,
    /// Routed: the branches ask for output VCs and send flits.
    Routed,
    /// Routed to no output (an MFT without an entry): its flits are dropped as they arrive.
    Sink,
}

/// One output a routed packet is copied to (32 bytes, so a unicast's branch fits in the first
/// cache line of its VC).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Branch {
    /// First cycle it may bid in SA.
    pub sa_at: u64,
    /// Tree node of the output channel.
    pub node: NodeId,
    pub chan: Channel,
    /// Output VC held, once VA granted one.
    pub ovc: Option<IqVcId>,
    /// Flits sent.
    pub sent: u32,
    /// Output index within the router.
    pub out: u16,
    /// VCs of its class on that channel: `lo..hi`.
    pub lo: u8,
    pub hi: u8,
}

/// One VC of one channel: where it is and the buffer at its far end (its flits, and what the
/// router does with the packet at its front). The sender's side (its credits) is in
/// `IqNet::credits`, whether a packet holds the VC in `IqNet::held`.
///
/// Laid out by cache line: the first holds everything a cycle looks at for the buffer; the
/// second what a packet's routing and arrival read; the third (a multicast's further branches)
/// is touched only by multicasts.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Vc {
    /// The buffer: the state of its front packet, its branches, the flits that have arrived and
    /// not left (those on the link into it are in the timing wheel), the front packet's flits
    /// that have left and its length.
    pub state: VcState,
    /// Where the buffer's flits are counted: its bit in word `word` of `IqNet::occ`, and the
    /// cycles from freeing a slot to its credit being usable by the sender. Fixed when the
    /// network is built; here rather than in `site` because a flit's landing and departure read
    /// them, and nothing else of the second cache line (the timing wheel spans `back`, so it is
    /// far below 2³²).
    pub bit: u8,
    pub branches: u16,
    pub arrived: u32,
    pub freed: u32,
    pub flits: u32,
    pub word: u32,
    pub back: u32,
    /// The front packet's branches: the first inline (a unicast has one), the others in `more`.
    pub first: Branch,
    /// From when VA may start (read while a branch asks for an output VC).
    pub va_at: u64,
    /// The packets of the flits sent to it, oldest first (a packet's flits are contiguous): the
    /// front one here (`None` only while none is queued), the others in `behind`, whose buffer
    /// is touched only when a packet arrives behind another (with `site`, all in the second cache
    /// line; `more`, multicast only, in the third).
    pub front: Option<Head>,
    /// Where the VC sits (fixed when the network is built).
    pub site: Site,
    pub behind: Ring<Head>,
    pub more: Vec<Branch>,
}

/// An empty placeholder (a VC's first branch before its first packet is routed).
impl Default for Branch {
    fn default() -> Self {
        Branch { sa_at: 0, node: NodeId::default(), chan: Channel(0), ovc: None, sent: 0, out: 0, lo: 0, hi: 0 }
    }
}

/// Where one VC sits among the routers, fixed when the network is built (for what a step
/// rarely reads; its bit and credit delay are in the VC's first cache line).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Site {
    /// Router the channel enters (`None`: an endpoint).
    pub router: Option<SwitchId>,
    /// The VC's number on its channel (at most 255 VCs per channel).
    pub vc: u8,
}

impl Vc {
    #[inline]
    pub(crate) fn branch(&self, k: usize) -> &Branch {
        if k == 0 {
            &self.first
        } else {
            &self.more[k - 1]
        }
    }

    #[inline]
    pub(crate) fn branch_mut(&mut self, k: usize) -> &mut Branch {
        if k == 0 {
            &mut self.first
        } else {
            &mut self.more[k - 1]
        }
    }

    /// The packet at the front of the buffer (one of its flits has been sent to it).
    #[inline]
    pub(crate) fn front(&self) -> Head {
        self.front.expect("a flit's packet is known")
    }

    /// A head flit is sent to the buffer: its packet joins the queue.
    #[inline]
    pub(crate) fn push_packet(&mut self, h: Head) {
        if self.front.is_none() {
            self.front = Some(h);
        } else {
            self.behind.push_back(h);
        }
    }

    /// The front packet's last flit has left: the next one, if any, moves up.
    #[inline]
    pub(crate) fn pop_packet(&mut self) {
        self.front = self.behind.pop_front();
    }

    /// Whether the flit at `pos` from the front has arrived.
    #[inline]
    pub(crate) fn here(&self, pos: u32) -> bool {
        pos < self.arrived
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// What a cycle reads of a buffer (its front packet's state, its first branch, when VA may
    /// start, and what a flit's landing and departure need: its occupancy bit and credit delay)
    /// fits one cache line.
    #[test]
    fn a_vc_s_hot_fields_share_its_first_cache_line() {
        assert_eq!(size_of::<Branch>(), 32);
        for end in [
            offset_of!(Vc, first) + size_of::<Branch>(),
            offset_of!(Vc, va_at) + size_of::<u64>(),
            offset_of!(Vc, back) + size_of::<u32>(),
            offset_of!(Vc, word) + size_of::<u32>(),
        ] {
            assert!(end <= 64, "{end}");
        }
    }

    /// What a packet's routing and arrival read (its head, the queue of packets, the site) share
    /// the second cache line; a cycle's stages and a body flit's crossing and landing do not
    /// read it.
    #[test]
    fn a_vc_s_per_packet_fields_share_its_second_cache_line() {
        for end in [
            offset_of!(Vc, front) + size_of::<Option<Head>>(),
            offset_of!(Vc, site) + size_of::<Site>(),
            offset_of!(Vc, behind) + size_of::<Ring<Head>>(),
        ] {
            assert!(end <= 128, "{end}");
        }
        assert!(offset_of!(Vc, front) >= 64);
    }
}
