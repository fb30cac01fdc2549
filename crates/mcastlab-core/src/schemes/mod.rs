//! Multicast schemes, one file each, registered in [`SCHEMES`]. Each turns (fabric, routing,
//! source, destinations, packets, discipline) into a checked-ready [`Plan`]. What a scheme receives
//! and registers is in `interface.rs`; coll03's Quadrics family has its folder, [`qs`].

pub mod binary;
pub mod binomial;
pub mod bitstring;
pub mod chain;
pub mod group;
pub mod ib_cyclic;
pub mod ib_opensm;
pub mod ib_unicast;
pub mod kbinomial;
pub mod mdtorus;
pub mod multidrop;
pub mod mutorus;
pub mod order;
pub mod phases;
pub mod poc;
pub mod qs;
pub mod separate;
pub mod ssr;
pub mod storus;
pub mod torus_order;
pub mod tree;
pub mod utorus;

mod interface;

use crate::error::{PlanError, SpecError};
use crate::fabric::{spec, Fabric};
use crate::plan::creation::{CreationInput, Operations};
use crate::plan::Plan;
pub use interface::{any_fabric, SchemeEntry, SchemeInput};

/// Every scheme, in the order `mcastlab list schemes` shows them.
pub const SCHEMES: &[SchemeEntry] = &[
    separate::ENTRY,
    chain::ENTRY,
    binary::ENTRY,
    binomial::ENTRY,
    kbinomial::ENTRY,
    utorus::ENTRY,
    storus::ENTRY,
    mdtorus::ENTRY,
    mutorus::ENTRY,
    ssr::ENTRY,
    multidrop::ENTRY,
    bitstring::ENTRY,
    ib_unicast::ENTRY,
    ib_opensm::ENTRY,
    ib_cyclic::ENTRY,
    qs::qs_greedy::ENTRY,
    qs::qs_optimal::ENTRY,
    qs::qs_software::ENTRY,
];

pub fn entry(name: &str) -> Option<&'static SchemeEntry> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// Schemes that apply to a fabric.
pub fn applicable(f: &Fabric) -> Vec<&'static str> {
    SCHEMES.iter().filter(|s| (s.applies)(f).is_ok()).map(|s| s.name).collect()
}

/// Builds a plan from a scheme spec (`kbinomial:k=2`).
pub fn plan(input: &SchemeInput<'_>, scheme: &str) -> Result<Plan, PlanError> {
    let s = spec::parse(scheme, |_| None)?;
    let e = entry(&s.name).ok_or_else(|| SpecError::Unknown {
        kind: "scheme",
        name: s.name.clone(),
        known: SCHEMES.iter().map(|x| x.name).collect::<Vec<_>>().join(", "),
    })?;
    if let Err(reason) = (e.applies)(input.fabric) {
        return Err(PlanError::NotApplicable {
            scheme: e.name.to_string(),
            reason,
            applicable: applicable(input.fabric).join(", "),
        });
    }
    crate::plan::validate_group(input.fabric, input.source, input.destinations)?;
    // Before the scheme: Theorem 3 and the trees are defined for one packet or more.
    crate::plan::validate_packets(input.packets)?;
    (e.build)(input, &s.params)
}

/// The tree-creation work of a plan (oral §4.4), from the creation hook of the scheme its
/// recorded spec names (with that spec's parameters). `None` for a plan no registered scheme
/// built (`custom`, a Python scheme) and for schemes whose construction is not modelled.
pub fn creation(fabric: &Fabric, plan: &Plan) -> Option<Operations> {
    let s = spec::parse(&plan.scheme, |_| None).ok()?;
    let e = entry(&s.name)?;
    (e.creation)(&CreationInput { fabric, plan, params: &s.params })
}

/// What the unit tests of schemes and of the plan check share: `torus:4x4` with its default
/// routing (dimension order) and plans from endpoint 0 on it.
#[cfg(test)]
pub(crate) mod testing {
    use super::SchemeInput;
    use crate::error::PlanError;
    use crate::fabric::generators::generate;
    use crate::fabric::Fabric;
    use crate::ids::EndpointId;
    use crate::plan::{Discipline, Plan};
    use crate::routing::{self, Routing};

    pub fn torus() -> (Fabric, Box<dyn Routing>) {
        let f = generate("torus:4x4").unwrap();
        let r = routing::build(&f, None).unwrap();
        (f, r)
    }

    /// `scheme`'s plan from endpoint 0 to `dests`.
    pub fn plan_from_0(
        f: &Fabric,
        r: &dyn Routing,
        scheme: &str,
        dests: &[EndpointId],
        packets: u32,
        discipline: Discipline,
    ) -> Result<Plan, PlanError> {
        let input =
            SchemeInput { fabric: f, routing: r, source: EndpointId(0), destinations: dests, packets, discipline };
        super::plan(&input, scheme)
    }
}
