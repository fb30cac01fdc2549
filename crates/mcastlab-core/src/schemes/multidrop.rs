//! `multidrop`: multi-phase multicast with path-based multi-drop worms (sivaram98 §5.2.2–5.2.5).
//!
//! Each POC of Fig. 13 becomes one worm whose header lists the chain's switches that have
//! destinations, in chain order, each with its p-bit port string (Fig. 12). By Theorems 4 and 5
//! such a worm, routed leg by leg with the minimal up*/down* tables from any sender, follows one
//! legal up*/down* path: the first leg is an ordinary route to the chain, every later leg only
//! descends. A switch that holds only the source drops out of the header; a chain with no
//! destination (the source's switch alone) gives no worm. Worms are scheduled by
//! [`super::phases`].

use super::phases::{self, Worm};
use super::ssr::{drops, PhaseParams};
use super::{poc, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::{Carrier, Plan};
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "multidrop",
    summary: "multi-phase multicast with path-based multi-drop worms along POCs (sivaram98 §5.2.2-§5.2.5)",
    params: "schedule=greedy|less_greedy",
    applies_to: "fabrics with switch-to-switch links routed by up*/down* (irregular, imported)",
    applies: poc::applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// One multi-drop worm per POC that holds a destination, in stripping order.
pub fn worms(input: &SchemeInput<'_>) -> Result<Vec<Worm>, PlanError> {
    let ud = poc::updown(input, "multidrop")?;
    let chains = poc::pocs(input.fabric, ud, input.source, input.destinations);
    Ok(chains
        .iter()
        .filter_map(|c| {
            let (drops, dests): (Vec<_>, Vec<_>) = drops(input.fabric, input.source, &c.processors).into_iter().unzip();
            (!drops.is_empty()).then(|| Worm { carrier: Carrier::Multidrop { drops }, delivers: dests.concat() })
        })
        .collect())
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: PhaseParams = spec::typed("scheme", "multidrop", p)?;
    let name = format!("multidrop:schedule={}", params.schedule.name());
    phases::plan(input, &name, worms(input)?, params.schedule)
}
