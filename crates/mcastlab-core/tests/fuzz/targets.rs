//! The fuzzed file parsers (ibnetdiscover dumps, JSON fabrics, plan JSON, MFT rows) and the
//! registry of every target. Each has its seeds (valid inputs: the reference dumps read in place, what
//! the project's own generators, schemes and presets write, the spec examples of the docs) and
//! the properties checked on what it accepts. Every property is one the project already promises
//! (docs/formats.md): a loaded fabric saves and reloads equal and byte-identical, a plan re-reads
//! equal, an accepted spec or value renders back to text that parses to the same value.

use super::values;
use super::{Target, Verdict};
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::io::{ibnetdiscover, json, mft_dump, plan_json};
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::{Discipline, MftEntry, Plan};
use mcastlab_core::routing::{self, Routing};
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::{EndpointId, PlanError, SwitchId};
use std::sync::Arc;

/// The reference dumps of `shared/reference/topologies`, read in place.
const TOPOLOGIES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/topologies/");
const DUMPS: &[&str] =
    &["linux-rdma-ibsim/net.2sw2path4hca", "jabl-ibtopotool/3.topo", "ltaulell-HPC_toolset/X5.topofile"];

/// Small generated fabrics of every generator: cheap to parse, route and plan on.
pub(super) const FABRICS: &[&str] = &[
    "torus:4x4",
    "mesh:3x2",
    "hypercube:3",
    "kary_ntree:k=2,n=3",
    "mport_ntree:m=4,n=2",
    "irregular:switches=6,ports=6,endpoints=10,seed=3",
];

/// Every target, in the order the rerun command runs them.
pub const NAMES: &[&str] = &[
    "ibnetdiscover",
    "json",
    "plan",
    "mft",
    "spec",
    "fabric_spec",
    "routing_spec",
    "scheme_spec",
    "params",
    "workload",
    "units",
];

pub fn by_name(name: &str) -> Target {
    match name {
        "ibnetdiscover" => ibnetdiscover_target(),
        "json" => json_target(),
        "plan" => plan_target(),
        "mft" => mft_target(),
        "spec" => values::spec_target(),
        "fabric_spec" => values::fabric_spec_target(),
        "routing_spec" => values::routing_spec_target(),
        "scheme_spec" => values::scheme_spec_target(),
        "params" => values::params_target(),
        "workload" => values::workload_target(),
        "units" => values::units_target(),
        other => panic!("unknown fuzz target `{other}`; known: {}", NAMES.join(", ")),
    }
}

pub(super) fn text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

pub(super) fn gen(spec: &str) -> Fabric {
    generate(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn dumps() -> Vec<String> {
    DUMPS
        .iter()
        .map(|d| {
            let p = format!("{TOPOLOGIES}{d}");
            std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {p}: {e}"))
        })
        .collect()
}

/// A fabric saved as JSON must reload equal and save to the same bytes (docs/formats.md).
fn json_round_trip(f: &Fabric) -> Result<(), String> {
    let saved = json::to_string(f);
    let g = json::from_str(&saved, "resaved.json").map_err(|e| format!("saved JSON does not reload: {e}"))?;
    if &g != f {
        return Err("JSON save/load changed the fabric".into());
    }
    if json::to_string(&g) != saved {
        return Err("JSON load/save is not byte-identical".into());
    }
    Ok(())
}

const IBND_DICT: &[&str] = &[
    "Switch",
    "Ca",
    "Hca",
    "Rt",
    "Router2",
    "vendid=0x2c9",
    "devid=0xbd36",
    "sysimgguid=0x1",
    "switchguid=0x2(3)",
    "caguid=0x1",
    "hcaguids=",
    "rtguid=0x5",
    "\"S-0002000000000000\"",
    "\"H-0001000000000000\"",
    "[1]",
    "[0]",
    "[256]",
    "[ext 1]",
    "(0x1)",
    "# \"desc\"",
    "enhanced port 0 lid 1 lmc 0",
    "base port 0 lid 65535 lmc 7",
    "lid 0 lmc 255",
    "4xQDR",
    "12xEDR",
    "??",
    "include x",
    "@alias",
    "w=4",
    "\n\n",
    "Chassis 1",
    "\"",
];

fn ibnetdiscover_target() -> Target {
    let mut seeds: Vec<Vec<u8>> = dumps().into_iter().map(String::into_bytes).collect();
    for s in ["torus:3x3", "kary_ntree:k=2,n=2", "irregular:switches=4,ports=5,endpoints=6,seed=1"] {
        seeds.push(ibnetdiscover::export(&gen(s)).unwrap().into_bytes());
    }
    Target {
        name: "ibnetdiscover",
        seeds,
        dict: IBND_DICT,
        json: false,
        run: Box::new(|b| {
            let Ok((f, _notes)) = ibnetdiscover::parse_with_notes(&text(b), "fuzz.topo") else {
                return Ok(Verdict::Rejected);
            };
            json_round_trip(&f)?;
            // Imported fabrics export and re-import with the same structure (docs/formats.md).
            let out = ibnetdiscover::export(&f).map_err(|e| format!("accepted fabric does not export: {e}"))?;
            let g = ibnetdiscover::parse(&out, "fuzz.topo").map_err(|e| format!("export does not re-import: {e}"))?;
            let size = |f: &Fabric| (f.num_switches(), f.num_endpoints(), f.links().len());
            if size(&g) != size(&f) {
                return Err(format!("export/import changed the size: {:?} → {:?}", size(&f), size(&g)));
            }
            Ok(Verdict::Accepted)
        }),
    }
}

const JSON_DICT: &[&str] = &[
    "mcastlab-fabric",
    "imported",
    "custom",
    "torus",
    "kary_ntree",
    "hypercube",
    "irregular",
    "mport_ntree",
    "mesh",
    "ibnetdiscover",
    "switch",
    "endpoint",
    "4x",
    "QDR",
    "lid",
    "lmc",
    "",
];

fn json_target() -> Target {
    let mut seeds: Vec<Vec<u8>> = FABRICS.iter().map(|s| json::to_string(&gen(s)).into_bytes()).collect();
    for (d, t) in DUMPS.iter().zip(dumps()).take(2) {
        seeds.push(json::to_string(&ibnetdiscover::parse(&t, d).unwrap()).into_bytes());
    }
    Target {
        name: "json",
        seeds,
        dict: JSON_DICT,
        json: true,
        run: Box::new(|b| {
            let Ok(f) = json::from_str(&text(b), "fuzz.json") else { return Ok(Verdict::Rejected) };
            json_round_trip(&f)?;
            // Every command routes what it loads: the default engine (which, for a generated
            // topology record, regenerates the fabric to compare) must refuse, not panic or
            // allocate from an edited record.
            let _ = routing::build(&f, None);
            Ok(Verdict::Accepted)
        }),
    }
}

/// A fabric, its default routing, and plans of the schemes that apply to it.
pub(super) struct Planned {
    pub(super) fabric: Fabric,
    pub(super) routing: Box<dyn Routing>,
}

impl Planned {
    /// `scheme`'s plan from endpoint 0 to every `step`-th endpoint, 2 packets.
    pub(super) fn plan(&self, scheme: &str, step: usize, discipline: Discipline) -> Result<Plan, PlanError> {
        let dests: Vec<EndpointId> = (1..self.fabric.num_endpoints() as u32).step_by(step).map(EndpointId).collect();
        let input = SchemeInput {
            fabric: &self.fabric,
            routing: &*self.routing,
            source: EndpointId(0),
            destinations: &dests,
            packets: 2,
            discipline,
        };
        schemes::plan(&input, scheme)
    }
}

fn planned(spec: &str) -> Planned {
    let fabric = gen(spec);
    let routing = routing::build(&fabric, None).unwrap();
    Planned { fabric, routing }
}

/// Plan fabrics: one per family of carriers (unicast and worms on the torus and the irregular
/// fabric, Quadrics ranges on the k-ary n-tree, InfiniBand MFTs on the m-port n-tree).
pub(super) fn plan_fabrics() -> Vec<Planned> {
    ["torus:4x4", "irregular:switches=6,ports=6,endpoints=10,seed=3", "kary_ntree:k=2,n=3", "mport_ntree:m=4,n=2"]
        .into_iter()
        .map(planned)
        .collect()
}

/// Every applicable scheme's plan from endpoint 0 to every third endpoint, 2 packets.
fn scheme_plans(p: &Planned) -> Vec<Plan> {
    let mut out = Vec::new();
    for name in schemes::applicable(&p.fabric) {
        for spec in [name.to_string(), format!("{name}:variant=worm")] {
            out.extend(p.plan(&spec, 3, Discipline::NiFpfs));
        }
    }
    out
}

const PLAN_DICT: &[&str] = &[
    "mcastlab-plan",
    "start",
    "after_message",
    "per_packet",
    "unicast",
    "ssr",
    "multidrop",
    "path",
    "bitstring",
    "mft",
    "range",
    "host",
    "ni_fcfs",
    "ni_fpfs",
    "0-5,9",
    "0-",
    "5-0",
    "custom",
    "binomial",
    "",
];

fn plan_target() -> Target {
    let fabrics = Arc::new(plan_fabrics());
    let seeds: Vec<Vec<u8>> =
        fabrics.iter().flat_map(|p| scheme_plans(p).into_iter().map(|pl| pl.to_json().into_bytes())).collect();
    Target {
        name: "plan",
        seeds,
        dict: PLAN_DICT,
        json: true,
        run: Box::new(move |b| {
            let t = text(b);
            // The plan names its fabric; read it against that one (or the first, to be refused).
            let named = serde_json::from_str::<serde_json::Value>(&t)
                .ok()
                .and_then(|v| v.get("fabric").and_then(|n| n.as_str()).map(str::to_string));
            let p = fabrics.iter().find(|p| Some(p.fabric.name()) == named.as_deref()).unwrap_or(&fabrics[0]);
            let Ok(plan) = plan_json::read_plan(&t, "fuzz.json", &p.fabric) else { return Ok(Verdict::Rejected) };
            let again = plan_json::read_plan(&plan.to_json(), "resaved.json", &p.fabric)
                .map_err(|e| format!("saved plan does not reload: {e}"))?;
            if again != plan {
                return Err("plan save/load changed the plan".into());
            }
            // What the reader accepted, the checker and the MFT writers must handle.
            let _ = check_plan(&p.fabric, &*p.routing, &plan, &Default::default());
            let _ = mft_dump::opensm_mcfdbs(&p.fabric, &plan.switch_state.mft);
            Ok(Verdict::Accepted)
        }),
    }
}

/// MFT rows as plans carry them (`switch_state.mft`), written as OpenSM and ibroute dumps.
fn mft_target() -> Target {
    let p = planned("mport_ntree:m=4,n=2");
    let mut seeds: Vec<Vec<u8>> = scheme_plans(&p)
        .into_iter()
        .filter(|pl| !pl.switch_state.mft.is_empty())
        .map(|pl| serde_json::to_vec(&pl.switch_state.mft).unwrap())
        .collect();
    seeds.push(br#"[{"mlid":49152,"switch":4,"ports":[1,3]}]"#.to_vec());
    let f = p.fabric;
    Target {
        name: "mft",
        seeds,
        dict: &["mlid", "switch", "ports", "49152", "65534", "65535"],
        json: true,
        run: Box::new(move |b| {
            let Ok(mft) = serde_json::from_slice::<Vec<MftEntry>>(b) else { return Ok(Verdict::Rejected) };
            let Ok(dump) = mft_dump::opensm_mcfdbs(&f, &mft) else { return Ok(Verdict::Rejected) };
            // One dump row per (switch, MLID) with at least one port, in OpenSM's and ibroute's
            // dumps alike.
            let mut rows: Vec<(u32, u32)> =
                mft.iter().filter(|e| !e.ports.is_empty()).map(|e| (e.switch.0, e.mlid)).collect();
            rows.sort_unstable();
            rows.dedup();
            let dumped = dump.lines().filter(|l| l.starts_with("0x")).count();
            if dumped != rows.len() {
                return Err(format!("opensm dump has {dumped} rows for {} (switch, mlid) pairs", rows.len()));
            }
            let mut ibroute = 0;
            for s in 0..f.num_switches() as u32 {
                for brief in [false, true] {
                    let out = mft_dump::ibroute_mft(&f, &mft, SwitchId(s), 1, brief).map_err(|e| e.to_string())?;
                    let n = out.lines().filter(|l| l.starts_with("0x")).count();
                    ibroute += if brief { 0 } else { n };
                }
                mft_dump::mft_top_of(&f, &mft, SwitchId(s)).map_err(|e| e.to_string())?;
            }
            if ibroute != rows.len() {
                return Err(format!("ibroute dumps have {ibroute} rows for {} pairs", rows.len()));
            }
            mft_dump::mft_set_mads(&f, &mft).map_err(|e| e.to_string())?;
            Ok(Verdict::Accepted)
        }),
    }
}
