//! What a scheme is: the input every scheme receives ([`SchemeInput`]) and the entry it registers
//! ([`SchemeEntry`]). Kept apart from the registry in `mod.rs`, which names every scheme, so that
//! schemes in a family's folder (`qs/`) depend on this and not on the list that names them.

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use crate::plan::creation::CreationFn;
use crate::plan::{Discipline, Plan};
use crate::routing::Routing;
use serde_json::{Map, Value};

/// What every scheme receives.
pub struct SchemeInput<'a> {
    pub fabric: &'a Fabric,
    pub routing: &'a dyn Routing,
    pub source: EndpointId,
    pub destinations: &'a [EndpointId],
    pub packets: u32,
    pub discipline: Discipline,
}

/// One registered scheme.
#[derive(Clone, Copy)]
pub struct SchemeEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static str,
    /// Fabrics it applies to, in words.
    pub applies_to: &'static str,
    pub applies: fn(&Fabric) -> Result<(), String>,
    pub build: fn(&SchemeInput<'_>, &Map<String, Value>) -> Result<Plan, PlanError>,
    /// Host work of building the plan's structure (oral §4.4's tree creation), reported by the
    /// plan check and kept off the multicast's critical path (`plan::creation`).
    pub creation: CreationFn,
}

/// Any fabric: unicast-based schemes need only the base routing.
pub fn any_fabric(_: &Fabric) -> Result<(), String> {
    Ok(())
}
