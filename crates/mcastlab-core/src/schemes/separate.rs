//! `separate`: separate addressing — the source sends one unicast to each destination in turn
//! (oral §3).
//!
//! `pipelined` is oral's network pipelining (§4.1, §5): without it, the sends exhibit no
//! concurrency and the sender pays its whole overhead for every copy; with it, the transfers
//! overlap in the network and the sender overhead is hidden. A plan says this through where the
//! copies are made:
//! - `pipelined=false`: the plan's discipline is `host`, so every unicast is its own host send
//!   (`t_hs` and a DMA of the whole message each), made one after another by the source's host;
//! - `pipelined=true`: the plan keeps the NI discipline it was asked for (`fpfs` or `fcfs`), so the
//!   host hands the message over once and the NI makes every copy (`t_ns` per packet copy) while
//!   the earlier copies are still in the network.
//!
//! The default follows the discipline (an NI discipline is pipelined, `host` is not), which is
//! what this scheme built before the option had an effect. `pipelined=true` with
//! `discipline=host` contradicts itself and is refused.
//!
//! Not modelled: oral's unpipelined sender blocks until each transfer is complete before the
//! next. A plan cannot wait for a delivery at the sender (its triggers wait only for what reaches
//! the sender), and adding such a trigger is a simulator change; so `pipelined=false` charges the
//! full host send per copy but does not wait for the copy to arrive, and copies still overlap
//! once the host has handed them over. Under the `oral` preset a 64-byte broadcast on `torus:4x4`
//! from n(0,0) completes in 6.15 µs pipelined and 7.55 µs not (the source's host busy 0.4 µs
//! against 6.0 µs); from 4 KiB on the NI's per-packet `t_ns` is the bottleneck either way and the
//! two complete at the same time, differing only in host busy time.

use super::{any_fabric, order, tree, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::spec;
use crate::plan::creation::{CreationInput, Operations};
use crate::plan::{Discipline, Plan};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "separate",
    summary: "separate addressing: one unicast per destination from the source",
    params: "order=index|given|poc pipelined=true|false (default: true under fpfs/fcfs, false under host)",
    applies_to: "any fabric",
    applies: any_fabric,
    build,
    creation: creation_work,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "order::default_order")]
    order: String,
    #[serde(default)]
    pipelined: Option<bool>,
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "separate", p)?;
    let ni = input.discipline != Discipline::Host;
    let pipelined = params.pipelined.unwrap_or(ni);
    if pipelined && !ni {
        return Err(PlanError::Param {
            param: "pipelined",
            message: "pipelined=true has the source's NI make every copy from one host send, which \
                      discipline=host rules out: use discipline=fpfs or fcfs, or pipelined=false"
                .into(),
        });
    }
    let chain = order::chain_for(input, &params.order)?;
    let name = format!("separate:order={},pipelined={pipelined}", params.order);
    let discipline = if pipelined { input.discipline } else { Discipline::Host };
    let input = SchemeInput { discipline, ..*input };
    tree::build(&input, name, &chain, &|at, end| {
        if at == 0 {
            (1..end).map(|c| (c, c + 1)).collect()
        } else {
            Vec::new()
        }
    })
}

/// Ordering the group only: no tree is formed (oral leaves separate addressing out of its
/// tree-creation figure, §4.4); the ordered list is the send list.
fn creation_work(c: &CreationInput<'_>) -> Option<Operations> {
    Some(Operations { ordering: order::ordering_ops(c)?, partitioning: 0 })
}

#[cfg(test)]
mod tests {
    use crate::error::PlanError;
    use crate::fabric::Fabric;
    use crate::ids::EndpointId;
    use crate::plan::{Discipline, Plan};
    use crate::routing::Routing;
    use crate::schemes::testing::{plan_from_0, torus};
    use crate::sim::{run_plan, Params, RunResult};

    /// A broadcast from endpoint 0.
    fn plan(f: &Fabric, r: &dyn Routing, spec: &str, discipline: Discipline) -> Result<Plan, PlanError> {
        let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
        plan_from_0(f, r, spec, &dests, 1, discipline)
    }

    /// A 64-byte broadcast (one packet under the `oral` preset) from endpoint 0.
    fn run(f: &Fabric, r: &dyn Routing, p: &Plan) -> RunResult {
        run_plan(f, r, p, &Params::preset("oral").unwrap(), 64, 1).unwrap()
    }

    #[test]
    fn pipelining_changes_the_plan_and_its_timing() {
        let (f, r) = torus();
        let on = plan(&f, r.as_ref(), "separate:pipelined=true", Discipline::NiFpfs).unwrap();
        let off = plan(&f, r.as_ref(), "separate:pipelined=false", Discipline::NiFpfs).unwrap();
        assert_eq!((on.discipline, off.discipline), (Discipline::NiFpfs, Discipline::Host));
        assert_eq!(on.scheme, "separate:order=index,pipelined=true");
        assert_eq!(off.scheme, "separate:order=index,pipelined=false");
        let (a, b) = (run(&f, r.as_ref(), &on), run(&f, r.as_ref(), &off));
        let (ta, tb) = (a.completion_ps.unwrap(), b.completion_ps.unwrap());
        // Pipelined: one host send, then NI copies t_ns apart. Unpipelined: a host send (t_hs
        // and a DMA) per copy, which is longer than t_ns under this preset.
        assert!(ta < tb, "pipelined {ta} ps should finish before unpipelined {tb} ps");
        // The source's host works once per copy without pipelining, once in all with it.
        let host = |r: &RunResult| r.endpoints.iter().find(|e| e.endpoint == r.source).unwrap().host_busy_ps;
        assert_eq!(host(&b), 15 * host(&a));
    }

    #[test]
    fn the_default_follows_the_discipline() {
        let (f, r) = torus();
        let ni = plan(&f, r.as_ref(), "separate", Discipline::NiFcfs).unwrap();
        assert_eq!((ni.scheme.as_str(), ni.discipline), ("separate:order=index,pipelined=true", Discipline::NiFcfs));
        let host = plan(&f, r.as_ref(), "separate", Discipline::Host).unwrap();
        assert_eq!((host.scheme.as_str(), host.discipline), ("separate:order=index,pipelined=false", Discipline::Host));
    }

    #[test]
    fn pipelined_with_host_discipline_is_refused() {
        let (f, r) = torus();
        let e = plan(&f, r.as_ref(), "separate:pipelined=true", Discipline::Host).unwrap_err();
        assert!(matches!(e, PlanError::Param { param: "pipelined", .. }), "{e}");
    }
}
