//! Dense, typed identifiers. Public APIs never take bare integers for fabric objects, so a switch
//! index can never be passed where an endpoint index is expected.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! dense_id {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as a `usize`, for indexing dense vectors.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

dense_id!(
    /// A switch (or, in a direct network, the router of one node).
    SwitchId,
    "s"
);
dense_id!(
    /// An endpoint: a host with its network interface (one attached port).
    EndpointId,
    "e"
);
dense_id!(
    /// A full-duplex (or, for unidirectional rings, directed) cable.
    LinkId,
    "l"
);

/// A port number on one switch, 1-based as in InfiniBand and zhou07 (port 0 is the switch's
/// management port and never carries a link).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PortNum(pub u16);

impl fmt::Display for PortNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A routing address: the value a packet's header carries (a LID for `mport_lmc`, the
/// destination endpoint's index for destination-based engines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Address(pub u32);
