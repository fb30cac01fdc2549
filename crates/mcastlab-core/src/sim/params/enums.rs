//! The parameters that take one of a few names. Each enum derives its text forms once with strum
//! (`EnumString` parses the name and its aliases, `IntoStaticStr`/`VariantNames` give the name,
//! `EnumMessage` lists a variant's aliases for the docs); serde writes the same snake_case name,
//! which a test checks variant by variant. `parse`/`name` are kept for callers of the old API and
//! go through the table's [`Choice`](super::Choice) kind.

use super::{Choice, Kind};
use serde::{Deserialize, Serialize};
use strum::{EnumMessage, EnumString, IntoStaticStr, VariantArray, VariantNames};

/// How a switch moves packets between its buffers.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Switching {
    /// Flit-level credits: a packet advances as soon as the next buffer has room for one flit,
    /// and may stretch over several switches when blocked.
    Wormhole,
    /// Virtual cut-through: a packet starts on a hop only when the next buffer can take all of
    /// it, so a blocked packet always ends up inside one switch.
    #[strum(to_string = "cut_through", serialize = "cut-through", serialize = "vct")]
    CutThrough,
    /// Store-and-forward: a switch routes a packet only after its tail has arrived, and sends it
    /// on only when the next buffer can take all of it.
    #[strum(to_string = "store_and_forward", serialize = "store-and-forward", serialize = "saf")]
    StoreAndForward,
}

impl Switching {
    pub fn parse(s: &str) -> Result<Switching, String> {
        Choice::parse(s)
    }
    pub fn name(self) -> &'static str {
        self.into()
    }
    /// Whether a packet must fit whole in the next buffer before it may start on a hop.
    pub fn needs_whole_packet(self) -> bool {
        !matches!(self, Switching::Wormhole)
    }
}

/// How finely the network is simulated (`switch.granularity`).
///
/// Flit by flit is the reference. Packet granularity gives each packet hop a start time and
/// computes its flits in closed form, which is exact when a packet that starts crossing a link
/// streams at link rate from head to tail: virtual cut-through or store-and-forward (a packet
/// starts a hop only when the next buffer holds all of it), one VC in use per link (no flit
/// interleaving), every link at `link.bandwidth`, ejection that never back-pressures, no
/// circuits or all-or-nothing range multicasts, and a routing and a credit delay above zero.
/// `sim/net/flit/granularity.rs` lists the conditions and why; `sim/net/flit/train.rs` why trains are exact.
///
/// `auto` is the default in every preset (and when the key is absent): a run goes as trains
/// where they are exact and flit by flit elsewhere, so it only changes the event count and the
/// wall time, never a result.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Granularity {
    /// Every flit is sent by its own event (the reference engine).
    Flit,
    /// Packet trains; the run is refused (naming `switch.granularity`) when the conditions for
    /// exact trains do not hold.
    Packet,
    /// Packet trains when the conditions hold, otherwise flits: the flit engine's results,
    /// fast where trains apply.
    #[default]
    Auto,
}

impl Granularity {
    pub fn parse(s: &str) -> Result<Granularity, String> {
        Choice::parse(s)
    }
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Which switch model moves flits.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Router {
    /// The event-driven flit router of `sim::net::flit` (`switch.rs`, `link.rs`): a header is decoded
    /// `switch.routing_delay` after it arrives, a branch gets its output VC first come, first
    /// served, and each output link is shared among its VCs round robin, flit by flit. Time is
    /// continuous (picoseconds) and replication has independent branches.
    #[default]
    Simple,
    /// The classic input-queued virtual-channel router of cycle-accurate simulators such as
    /// BookSim (`sim::net::iq`): a cycle is one flit time, and a head flit goes through routing (RC),
    /// VC allocation (VA), switch allocation (SA) and switch traversal (ST), each taking its
    /// `switch.*_delay`; VA and SA are separable allocators (`switch.allocator`), at most one
    /// flit leaves each input port and enters each output port per cycle, and credits return
    /// over the link. Wormhole only. The copies of a replicated packet (worms, hardware
    /// multicast) therefore leave an input one after another, with no fan-out in the crossbar:
    /// replication takes the input port's time, and schemes that replicate in switches saturate
    /// earlier than under `simple`.
    Iq,
}

impl Router {
    pub fn parse(s: &str) -> Result<Router, String> {
        Choice::parse(s)
    }
}

/// How the iq router's VC and switch allocators match requests to resources in one cycle.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Allocator {
    /// iSLIP with one iteration (BookSim's `islip`, `alloc_iters = 1`): every resource grants
    /// one requester round robin, every requester accepts one grant round robin, and only an
    /// accepted grant moves the two pointers past the winner.
    #[default]
    Islip,
    /// Separable input-first (BookSim's `separable_input_first`): every requester first picks
    /// one of its requests round robin, then every resource picks one of the requests it got;
    /// pointers move only for a final winner.
    #[strum(to_string = "input_first", serialize = "separable_input_first")]
    InputFirst,
}

impl Allocator {
    pub fn parse(s: &str) -> Result<Allocator, String> {
        Choice::parse(s)
    }
}

/// When an NI may start its next packet send.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NiSend {
    /// The NI processor spends `t_ns` on a copy, hands it to its link and goes on with the next
    /// copy (the view of sivaram98 §4.2.3, where copies leave `t_ns` apart).
    Pipelined,
    /// A copy holds the sender's NI until every receiving NI has taken it (`t_ns`, network,
    /// `t_nr`): one packet per *step*, the model behind sivaram98 §4.1 and §4.3 (Theorem 2).
    Step,
    /// bhoedjang98's LFC (§3): NI-level credits per pair of NIs, one per receive buffer the
    /// receiver sets aside for the sender (`lfc.*`); a copy without a credit waits in that
    /// destination's blocked-sends queue, and a forwarded packet holds its buffer until its host
    /// has it and every child copy has left. Optional deadlock recovery (§4, `lfc.recovery`).
    Lfc,
    /// bhoedjang98's FM/MC (§2.2): no NI-level flow control; a host needs a multicast credit (a
    /// buffer on every receiving host) per packet, from a central credit manager on one NI,
    /// requested in batches and cached; consumed credits return through a rotating token; one
    /// shared NI receive queue swaps to host memory when full (`fmmc.*`).
    Fmmc,
}

impl NiSend {
    pub fn parse(s: &str) -> Result<NiSend, String> {
        Choice::parse(s)
    }
}

/// The order in which an NI processor takes its jobs (`ni.order`): receiving packets and
/// sending copies (and, under LFC, credit updates) compete for one processor.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NiOrder {
    /// First come, first served: jobs in the order they became ready. The NI queues one send at
    /// a time (its next copy, when its protocol lets it), so a packet that arrives while a copy
    /// is being sent is taken before the copy after it: receiving and sending alternate under
    /// load.
    #[default]
    Arrival,
    /// A waiting receive always goes before a waiting send: the NI drains the network first.
    ReceiveFirst,
    /// A waiting send (or credit update) always goes before a waiting receive: the NI pushes
    /// copies out first.
    SendFirst,
}

impl NiOrder {
    pub fn parse(s: &str) -> Result<NiOrder, String> {
        Choice::parse(s)
    }
}

/// When an LFC NI starts a deadlock recovery (`lfc.recovery`, bhoedjang98 §4.1).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Recovery {
    /// No recovery: the basic protocol (§3), which deadlocks with trees that are not deadlock-free.
    #[default]
    Off,
    /// The paper's rule: a non-empty blocked-sends queue signals deadlock at once.
    Eager,
    /// The refinement the paper considers: a blocked-sends queue whose head has waited longer than
    /// `lfc.recovery_timeout` signals deadlock.
    Timeout,
}

impl Recovery {
    pub fn parse(s: &str) -> Result<Recovery, String> {
        Choice::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Detail;
    use super::*;
    use serde::de::DeserializeOwned;

    /// strum's name of every variant is the name serde writes and reads.
    fn same_names<E>()
    where
        E: VariantArray + Copy + Into<&'static str> + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
        Choice: Kind<E>,
    {
        for v in E::VARIANTS {
            let name: &'static str = (*v).into();
            assert_eq!(serde_json::to_string(v).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<E>(&format!("\"{name}\"")).unwrap(), *v);
            assert_eq!(<Choice as Kind<E>>::parse(name), Ok(*v));
        }
    }

    #[test]
    fn strum_and_serde_agree_on_every_name() {
        same_names::<Switching>();
        same_names::<Granularity>();
        same_names::<Router>();
        same_names::<Allocator>();
        same_names::<NiSend>();
        same_names::<NiOrder>();
        same_names::<Recovery>();
        same_names::<Detail>();
    }

    #[test]
    fn the_aliases_are_accepted_as_before() {
        for (text, s) in [
            ("wormhole", Switching::Wormhole),
            ("cut-through", Switching::CutThrough),
            ("vct", Switching::CutThrough),
            (" cut_through ", Switching::CutThrough),
            ("store-and-forward", Switching::StoreAndForward),
            ("saf", Switching::StoreAndForward),
        ] {
            assert_eq!(Switching::parse(text), Ok(s), "{text}");
        }
        assert_eq!(Allocator::parse("separable_input_first"), Ok(Allocator::InputFirst));
        assert_eq!(
            Switching::parse("Wormhole").unwrap_err(),
            "`Wormhole` is not one of wormhole, cut_through, store_and_forward"
        );
        assert_eq!(Granularity::parse("trains").unwrap_err(), "`trains` is not one of flit, packet, auto");
        assert_eq!(Router::parse("x").unwrap_err(), "`x` is not one of simple, iq");
        assert_eq!(Allocator::parse("x").unwrap_err(), "`x` is not one of islip, input_first");
        assert_eq!(NiSend::parse("x").unwrap_err(), "`x` is not one of pipelined, step, lfc, fmmc");
        assert_eq!(
            <Choice as Kind<Switching>>::accepts(),
            "wormhole | cut_through (or cut-through, vct) | store_and_forward (or store-and-forward, saf)"
        );
    }
}
