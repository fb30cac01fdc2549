//! Typed ids of the simulator's state: every object a run creates or indexes has its own id type,
//! so a worm can never be looked up where a branch is meant, and absence is `Option<Id>`, never a
//! reserved value.
//!
//! Each id is a dense `u32` index. Storing it off by one in a `NonZeroU32` would make `Option<Id>`
//! four bytes instead of eight, but costs an adjustment at every lookup: measured on a loaded
//! fat-tree run, 4 % more instructions in all. The one record whose layout needs the small option
//! (an iq router's VC, whose hot fields share a cache line) keeps its own compact holder type.
//! `raw()` gives the index as results, traces and the event order use it.

use std::fmt;

/// An id that indexes a dense table (what a [`super::slab::Slab`] hands out).
pub(crate) trait DenseId: Copy {
    fn from_index(i: usize) -> Self;
    fn idx(self) -> usize;
}

macro_rules! sim_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) struct $name(u32);

        impl $name {
            /// The id of index `i` (the slot of a slab, the position in a dense table).
            #[inline]
            pub(crate) fn from_index(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize, concat!(stringify!($name), " index out of range"));
                $name(i as u32)
            }
            /// The index, for indexing dense vectors.
            #[inline]
            pub(crate) fn idx(self) -> usize {
                self.0 as usize
            }
            /// The index as the number results and the event order use.
            #[inline]
            pub(crate) fn raw(self) -> u32 {
                self.0
            }
        }

        /// Index 0: the placeholder of a record whose every field is set before it is used (a
        /// fresh slab slot).
        impl Default for $name {
            fn default() -> Self {
                $name::from_index(0)
            }
        }

        impl DenseId for $name {
            #[inline]
            fn from_index(i: usize) -> Self {
                $name::from_index(i)
            }
            #[inline]
            fn idx(self) -> usize {
                $name::idx(self)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self.raw())
            }
        }
    };
}

sim_id!(
    /// A message instance under way (a slot of the message slab, reused once it is finished).
    MsgId
);
sim_id!(
    /// A plan made ready for timing, shared by every message that follows it.
    TemplateId
);
sim_id!(
    /// A transmission, numbered run-wide across the templates of a run.
    TxId
);
sim_id!(
    /// A node of a replication tree: one channel a copy of a packet crosses.
    NodeId
);
sim_id!(
    /// A host-send group: transmissions whose packets one host send makes available.
    GroupId
);
sim_id!(
    /// A protocol's control packet (a credit update, an acknowledgement) between two NIs.
    ControlId
);
sim_id!(
    /// One virtual channel of one channel (`channel · V + vc`): the sender's output VC and the
    /// input buffer it feeds at the far end.
    VcId
);
sim_id!(
    /// One VC of the iq network in that network's own numbering, `slot · V + vc`, where a
    /// router's input channels have consecutive slots (`net::iq::Wiring::slot`) so that its input
    /// VCs sit side by side. Kept apart from [`VcId`] (`channel · V + vc`, the rest of the
    /// simulator's numbering) by type: the network converts at its edges.
    IqVcId
);
sim_id!(
    /// A packet in one buffer of the flit network, or in its sender's NI memory.
    WormId
);
sim_id!(
    /// One output branch of a worm.
    BranchId
);
sim_id!(
    /// One end of a circuit held until its acknowledgement (coll03).
    CircuitId
);

impl IqVcId {
    /// VC `vc` of the channel at `slot`, with `v` VCs per channel.
    #[inline]
    pub(crate) fn of(slot: u32, vc: u32, v: u32) -> IqVcId {
        IqVcId::from_index((slot * v + vc) as usize)
    }
}

impl VcId {
    /// VC `vc` of channel `chan`, with `v` VCs per channel.
    #[inline]
    pub(crate) fn of(chan: u32, vc: u32, v: u32) -> VcId {
        VcId::from_index((chan * v + vc) as usize)
    }
    /// The channel, with `v` VCs per channel.
    #[inline]
    pub(crate) fn chan(self, v: u32) -> u32 {
        self.raw() / v
    }
    /// The VC number on its channel, with `v` VCs per channel.
    #[inline]
    pub(crate) fn vc(self, v: u32) -> u32 {
        self.raw() % v
    }
}

/// One packet copy of a message: packet `j` of transmission `tx`, numbered `tx · m + j` with `m`
/// packets per message. The number is the run-wide packet id results and traces report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PacketId(pub u32);

impl PacketId {
    #[inline]
    pub(crate) fn new(tx: TxId, j: u32, m: u32) -> PacketId {
        PacketId(tx.raw() * m + j)
    }
    /// Its transmission.
    #[inline]
    pub(crate) fn tx(self, m: u32) -> TxId {
        TxId::from_index((self.0 / m) as usize)
    }
    /// Its packet number within the message.
    #[inline]
    pub(crate) fn packet(self, m: u32) -> u32 {
        self.0 % m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_round_trip() {
        for i in [0usize, 1, 7, 1 << 20] {
            assert_eq!(WormId::from_index(i).idx(), i);
            assert_eq!(WormId::from_index(i).raw(), i as u32);
        }
        let v = VcId::of(5, 1, 2);
        assert_eq!((v.raw(), v.chan(2), v.vc(2)), (11, 5, 1));
        let p = PacketId::new(TxId::from_index(3), 2, 4);
        assert_eq!((p.0, p.tx(4).raw(), p.packet(4)), (14, 3, 2));
    }
}
