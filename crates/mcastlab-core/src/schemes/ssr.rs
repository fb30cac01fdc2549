//! `ssr`: multi-phase multicast with single-switch-replication worms (sivaram98 §5.2.1, MPM-SSR).
//!
//! One worm per switch with destinations: it is routed to that switch like a unicast and replicated
//! there to the ports of the destinations (the drop's p-bit string, Fig. 12). The worms are
//! scheduled in phases by [`super::phases`], largest first. Worms of equal size keep the POC order
//! of their switches (Fig. 13): in the paper's example every worm covers two destinations, and its
//! Fig. 15(a)/16(a) walk-throughs send them in exactly that order (5, 3, 9, 1, 7, ...).

use super::phases::{self, Schedule, Worm};
use super::{poc, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric};
use crate::ids::EndpointId;
use crate::plan::{Carrier, Drop, Plan};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "ssr",
    summary: "multi-phase multicast with single-switch-replication worms (sivaram98 §5.2.1, §5.2.5)",
    params: "schedule=greedy|less_greedy",
    applies_to: "fabrics with switch-to-switch links routed by up*/down* (irregular, imported)",
    applies: poc::applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// Parameters of the phase-scheduled worm schemes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseParams {
    #[serde(default)]
    pub schedule: Schedule,
}

/// The destinations of `processors` (a POC's `l'_i`) grouped by switch, in order, the source left
/// out; switches with no destination are skipped.
pub fn drops(f: &Fabric, source: EndpointId, processors: &[EndpointId]) -> Vec<(Drop, Vec<EndpointId>)> {
    let mut out: Vec<(Drop, Vec<EndpointId>)> = Vec::new();
    for &e in processors.iter().filter(|e| **e != source) {
        let (s, p) = f.attachment(e);
        match out.last_mut() {
            Some((d, es)) if d.switch == s => {
                d.ports.push(p);
                es.push(e);
            }
            _ => out.push((Drop { switch: s, ports: vec![p] }, vec![e])),
        }
    }
    out
}

/// One SSR worm per switch with destinations, switches in POC order.
pub fn worms(input: &SchemeInput<'_>) -> Result<Vec<Worm>, PlanError> {
    let ud = poc::updown(input, "ssr")?;
    let chains = poc::pocs(input.fabric, ud, input.source, input.destinations);
    Ok(chains
        .iter()
        .flat_map(|c| drops(input.fabric, input.source, &c.processors))
        .map(|(drop, delivers)| Worm { carrier: Carrier::Ssr { drop }, delivers })
        .collect())
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: PhaseParams = spec::typed("scheme", "ssr", p)?;
    let name = format!("ssr:schedule={}", params.schedule.name());
    phases::plan(input, &name, worms(input)?, params.schedule)
}
