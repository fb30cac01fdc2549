//! Unicast routing: per switch, per destination address, the allowed output ports and VC classes.
//!
//! Every engine (one file each, registered in [`ROUTINGS`]) implements [`Routing`]. The core of the
//! contract is [`Routing::next_hops`]: given where a packet is (switch, the port and VC it arrived
//! on) and the address it carries, list the legal `(port, vc)` choices, the engine's deterministic
//! choice first. That single function is enough to trace routes, enumerate adaptive paths, build
//! the channel dependency graph and prove reachability, generically, for every engine.

pub mod dor;
pub mod ecube;
pub mod hop_matrix;
pub mod lft_file;
pub mod minhop;
pub mod mport_lmc;
pub mod nca;
pub mod opensm_lft;
pub mod path;
pub mod table;
pub mod updn;
pub mod updown;

use crate::error::{RoutingError, SpecError};
use crate::fabric::{spec, Fabric};
use crate::ids::{Address, EndpointId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt::Debug;

/// One forwarding choice: leave through `port` on virtual channel class `vc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Hop {
    pub port: PortNum,
    pub vc: u8,
}

/// Where a packet entered the current switch: its input `port` (an endpoint's port at injection)
/// and the VC class it travelled on (0 at injection). Port 0 (never a real port) stands for "a
/// fresh packet, no history"; whole-table dumps use it, and engines treat it like an injection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Arrival {
    pub port: PortNum,
    pub vc: u8,
}

/// How the simulator picks, per packet, one of several legal next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceRule {
    /// Uniformly at random, from a ChaCha8 stream keyed by the run seed and the packet's identity
    /// (message serial, packet, tree node), so a draw depends on neither event order nor model.
    Random,
    /// The hop whose output VCs of the packet's class hold the most credits when the head is
    /// routed; ties go to the earlier hop in the routing's order (its deterministic choice first).
    Adaptive,
}

/// A per-packet rule of a routing: the option that names it (`tie=random`) and how it chooses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunTimeChoice {
    pub option: String,
    pub rule: ChoiceRule,
}

/// A turn a packet may take inside a switch; the union of all turns defines the channel
/// dependency graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Turn {
    pub switch: SwitchId,
    pub in_port: PortNum,
    pub in_vc: u8,
    pub out_port: PortNum,
    pub out_vc: u8,
}

/// A routing of one fabric, built by an engine.
pub trait Routing: Send + Sync + Debug + Any {
    /// Registry name of the engine (`updown`, `dor`, ...).
    fn engine(&self) -> &'static str;

    /// Canonical spec of this routing with every option spelled out (`updown:root=s3`).
    fn spec(&self) -> String;

    /// Number of virtual channel classes the routing uses (1 if it needs none).
    fn vc_classes(&self) -> u8 {
        1
    }

    /// Number of distinct addresses (LIDs for `mport_lmc`; endpoints otherwise).
    fn num_addresses(&self) -> usize;

    /// The address `src` puts in a packet for `dst` (path selection). Destination-based engines
    /// use the destination's index.
    fn address(&self, _src: EndpointId, dst: EndpointId) -> Address {
        Address(dst.0)
    }

    /// The endpoint that owns an address.
    fn owner(&self, a: Address) -> EndpointId {
        EndpointId(a.0)
    }

    /// The InfiniBand DLID a packet carrying address `a` has, for engines whose addresses are
    /// LIDs (`mport_lmc`: LID 0 is reserved, so the dense address `a` is LID `a + 1`). None for
    /// engines without LIDs. What users see is the DLID, as the papers and IB tools write it;
    /// the dense address is an internal index.
    fn lid(&self, _a: Address) -> Option<u32> {
        None
    }

    /// Legal choices at switch `at` for a packet that arrived as `arrived` carrying address `to`,
    /// written into `out` (cleared first) with the deterministic choice first. At the destination's
    /// switch the only choice is the destination's port. An empty list means "no route".
    fn next_hops(&self, at: SwitchId, arrived: Arrival, to: Address, out: &mut Vec<Hop>);

    /// The rule, if any, by which a packet picks among the `next_hops` of a switch while a
    /// simulation runs (a random or adaptive rule), where the list has more than one hop. The
    /// checker covers such a rule already, since it follows every legal choice; the simulator
    /// decodes every legal route of a unicast packet before the run and applies the rule at each
    /// switch as the head is routed (`sim::trees`, `sim::net::choice`). `None`: the first hop is
    /// the route.
    fn run_time_choice(&self) -> Option<RunTimeChoice> {
        None
    }

    /// Every turn any packet can take, if the engine can enumerate them faster than the generic
    /// per-address exploration (which is the reference: see `check`).
    fn turns(&self, _fabric: &Fabric) -> Option<Vec<Turn>> {
        None
    }

    /// Whether a multidestination worm may take `turn` although no minimal route of this routing
    /// does. Worms routed leg by leg, or decoded switch by switch, take non-minimal paths (one may
    /// climb past a switch and come back down to it); what keeps them deadlock-free is the
    /// routing's rule, not its minimality (BRCP as sivaram98 §5.1.3 defines it for up*/down*).
    /// By default nothing beyond the routing's own turns is allowed.
    fn allows_turn(&self, _fabric: &Fabric, _turn: &Turn) -> bool {
        false
    }

    /// The hop matrix an OpenSM engine built for its LFTs (`minhop`, `updn`), which OpenSM's
    /// multicast builder reads (`hop_matrix::for_routing`); `None` for routings that leave none.
    fn opensm_matrix(&self) -> Option<std::sync::Arc<hop_matrix::HopMatrix>> {
        None
    }

    /// The linear forwarding tables the engine programs itself (OpenSM's `minhop` and `updn`, an
    /// LFT dump loaded as `lfts:FILE`); `None` for the others, whose tables are derived from
    /// their routes (`io::lft_dump::lfts_of`).
    fn programmed_lfts(&self) -> Option<&opensm_lft::Lfts> {
        None
    }

    /// Key facts for `mcastlab fabric info` (root switch, levels, LMC, datelines, ...).
    fn facts(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// For engine-specific queries (`downcast_ref::<UpDown>()`).
    fn as_any(&self) -> &dyn Any;
}

/// The fat-tree rule shared by the tree engines (`mport_lmc`, `nca`): a turn is allowed unless it
/// takes a packet that came down from a higher switch back up. `higher(here, peer)` says whether
/// `peer` sits above `here` by the generator's level numbering (zhou07 counts from the top, coll03
/// from the leaves). Endpoint ports count as "below".
pub fn fat_tree_allows(f: &Fabric, t: &Turn, higher: impl Fn(u32, u32) -> bool) -> bool {
    let level = |s: SwitchId| f.switch(s).level;
    let above = |p: PortNum| match f.port(t.switch, p).map(|pp| pp.peer) {
        Some(crate::fabric::Terminal::Switch { switch, .. }) => match (level(t.switch), level(switch)) {
            (Some(here), Some(there)) => Some(higher(here, there)),
            _ => None,
        },
        Some(crate::fabric::Terminal::Endpoint { .. }) => Some(false),
        None => None,
    };
    match (above(t.in_port), above(t.out_port)) {
        (Some(came_down), Some(goes_up)) => t.in_vc == 0 && t.out_vc == 0 && !(came_down && goes_up),
        _ => false,
    }
}

/// Builds an engine for a fabric from its spec options.
pub type BuildRouting = fn(&Fabric, &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError>;

/// One registered routing engine.
#[derive(Clone, Copy)]
pub struct RoutingEntry {
    pub name: &'static str,
    pub summary: &'static str,
    /// Options with defaults, as `mcastlab list routings` shows them.
    pub params: &'static str,
    /// Which fabrics it applies to, in words.
    pub applies_to: &'static str,
    /// `Err(reason)` if the engine cannot route this fabric.
    pub applies: fn(&Fabric) -> Result<(), String>,
    pub build: BuildRouting,
}

impl Debug for RoutingEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoutingEntry").field("name", &self.name).finish()
    }
}

/// Every routing engine, in the order `mcastlab list routings` shows them.
pub const ROUTINGS: &[RoutingEntry] =
    &[updown::ENTRY, dor::ENTRY, mport_lmc::ENTRY, nca::ENTRY, ecube::ENTRY, minhop::ENTRY, updn::ENTRY];

pub fn entry(name: &str) -> Option<&'static RoutingEntry> {
    ROUTINGS.iter().find(|r| r.name == name)
}

/// The engine used when none is named: the generator's default, `updown` for imported fabrics.
pub fn default_engine(fabric: &Fabric) -> &'static str {
    crate::fabric::generators::entry(fabric.topology().kind()).map(|g| g.default_routing).unwrap_or("updown")
}

/// Builds a routing from a spec (`updown:root=3`), or the fabric's default engine for `None`.
pub fn build(fabric: &Fabric, spec_text: Option<&str>) -> Result<Box<dyn Routing>, RoutingError> {
    let text = spec_text.unwrap_or_else(|| default_engine(fabric));
    let s = spec::parse(text, |_| None)?;
    // OpenSM engines with their own multicast builder are not modelled: say so rather than
    // "unknown", since `ib_opensm` would otherwise be taken for their multicast.
    if let Some((name, _)) = hop_matrix::OWN_MCAST_BUILDERS.iter().find(|(n, _)| n.eq_ignore_ascii_case(&s.name)) {
        let reason = hop_matrix::default_mcast_builder(name).err().unwrap_or_default();
        return Err(RoutingError::NotApplicable { engine: name, reason: format!("not modelled: {reason}") });
    }
    let e = entry(&s.name).ok_or_else(|| SpecError::Unknown {
        kind: "routing",
        name: s.name.clone(),
        known: ROUTINGS.iter().map(|r| r.name).collect::<Vec<_>>().join(", "),
    })?;
    (e.applies)(fabric).map_err(|reason| RoutingError::NotApplicable { engine: e.name, reason })?;
    (e.build)(fabric, &s.params)
}

/// Names of the engines that apply to a fabric.
pub fn applicable(fabric: &Fabric) -> Vec<&'static str> {
    ROUTINGS.iter().filter(|r| (r.applies)(fabric).is_ok()).map(|r| r.name).collect()
}

/// The port of `fabric` through which switch `at` reaches endpoint `dst` directly, if attached.
#[inline]
pub fn ejection(fabric: &Fabric, at: SwitchId, dst: EndpointId) -> Option<PortNum> {
    let (s, p) = fabric.attachment(dst);
    (s == at).then_some(p)
}
