//! The fuzzed parsers of spec strings and parameter values (generator, routing, scheme and
//! workload specs; `key=value` overrides; sizes, times and rates). Each accepted value must render
//! back to text that parses to the same value, or build a plan that re-reads equal and checks.

use super::targets::{gen, plan_fabrics, text, FABRICS};
use super::{Target, Verdict};
use mcastlab_core::fabric::generators::{canonical_spec, parse_spec};
use mcastlab_core::fabric::{spec, Fabric};
use mcastlab_core::io::plan_json;
use mcastlab_core::plan::check::check_plan;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes;
use mcastlab_core::sim::params::{Params, KEYS, PRESETS};
use mcastlab_core::sim::units::{parse_bytes, parse_count, parse_flits, show_bytes, Rate, Time};
use mcastlab_core::sim::Workload;

const SPEC_DICT: &[&str] = &[
    ":",
    ",",
    "=",
    "x",
    "torus",
    "mesh",
    "hypercube",
    "kary_ntree",
    "mport_ntree",
    "irregular",
    "dims=",
    "k=",
    "n=",
    "m=",
    "seed=",
    "switches=",
    "ports=",
    "endpoints=",
    "connectivity=",
    "unidirectional",
    "true",
    "false",
    "yes",
    "1.5",
    "1e400",
    "1.0e-400",
    "007",
    "-0",
    "updown",
    "root=s3",
    "root=",
    "dor",
    "datelines=false",
    "nca",
    "ecube",
    "mport_lmc",
    "order=poc",
    "variant=worm",
    "k=0",
    "budget=",
    "mlid=0xC000",
    "r=",
    "branching=",
    "schedule=",
];

fn spec_seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<String> = FABRICS.iter().map(|s| s.to_string()).collect();
    v.extend(FABRICS.iter().map(|s| canonical_spec(&parse_spec(s).unwrap())));
    v.extend(
        ["torus:4x4,unidirectional", "hypercube:dim=4,endpoints_per_switch=2", "kary_ntree:k=4,n=2"].map(String::from),
    );
    v.into_iter().map(String::into_bytes).collect()
}

/// The generic spec parser: an accepted spec renders back to a string that parses to it.
pub fn spec_target() -> Target {
    let positional = |n: &str| mcastlab_core::fabric::generators::entry(n).and_then(|e| e.positional);
    Target {
        name: "spec",
        seeds: spec_seeds(),
        dict: SPEC_DICT,
        json: false,
        run: Box::new(move |b| {
            let Ok(s) = spec::parse(&text(b), positional) else { return Ok(Verdict::Rejected) };
            let r = spec::render(&s.name, &s.params);
            match spec::parse(&r, positional) {
                Ok(t) if t == s => Ok(Verdict::Accepted),
                Ok(t) => Err(format!("render `{r}` re-parses to {t:?}, not {s:?}")),
                Err(e) => Err(format!("render `{r}` does not re-parse: {e}")),
            }
        }),
    }
}

/// Generator specs: an accepted spec's canonical form parses to the same topology. (Building the
/// fabric is not fuzzed: the generators' size limits allow fabrics of 2^24 endpoints on purpose.)
pub fn fabric_spec_target() -> Target {
    Target {
        name: "fabric_spec",
        seeds: spec_seeds(),
        dict: SPEC_DICT,
        json: false,
        run: Box::new(|b| {
            let Ok(t) = parse_spec(&text(b)) else { return Ok(Verdict::Rejected) };
            let c = canonical_spec(&t);
            match parse_spec(&c) {
                Ok(u) if u == t => Ok(Verdict::Accepted),
                Ok(u) => Err(format!("canonical `{c}` re-parses to {u:?}, not {t:?}")),
                Err(e) => Err(format!("canonical `{c}` does not re-parse: {e}")),
            }
        }),
    }
}

/// Routing specs, built on one small fabric of every generator.
pub fn routing_spec_target() -> Target {
    let fabrics: Vec<Fabric> = FABRICS.iter().map(|s| gen(s)).collect();
    let seeds =
        ["updown", "updown:root=s3", "updown:root=0", "dor", "dor:datelines=false", "nca", "ecube", "mport_lmc"]
            .map(|s| s.as_bytes().to_vec())
            .to_vec();
    Target {
        name: "routing_spec",
        seeds,
        dict: SPEC_DICT,
        json: false,
        run: Box::new(move |b| {
            let t = text(b);
            let built = fabrics.iter().filter(|f| routing::build(f, Some(&t)).is_ok()).count();
            Ok(if built > 0 { Verdict::Accepted } else { Verdict::Rejected })
        }),
    }
}

/// Scheme specs, planned on the plan fabrics; an accepted plan re-reads equal and is checked.
pub fn scheme_spec_target() -> Target {
    let fabrics = plan_fabrics();
    let mut seeds: Vec<Vec<u8>> = schemes::SCHEMES.iter().map(|s| s.name.as_bytes().to_vec()).collect();
    seeds.extend(
        [
            "kbinomial:k=3,order=poc",
            "storus:variant=worm",
            "mutorus:r=2,variant=worm",
            "qs_optimal:budget=1000",
            "qs_software:branching=2,order=given",
            "ib_opensm:mlid=0xC001,ipoib=true",
            "ssr:schedule=less_greedy",
            "separate:pipelined=false",
        ]
        .map(|s| s.as_bytes().to_vec()),
    );
    Target {
        name: "scheme_spec",
        seeds,
        dict: SPEC_DICT,
        json: false,
        run: Box::new(move |b| {
            let t = text(b);
            let mut verdict = Verdict::Rejected;
            for p in &fabrics {
                let Ok(plan) = p.plan(&t, 2, Discipline::NiFcfs) else { continue };
                verdict = Verdict::Accepted;
                let again = plan_json::read_plan(&plan.to_json(), "plan.json", &p.fabric)
                    .map_err(|e| format!("{t}: its plan does not re-read: {e}"))?;
                if again != plan {
                    return Err(format!("{t}: its plan changes on save/load"));
                }
                check_plan(&p.fabric, &*p.routing, &plan, &Default::default())
                    .map_err(|e| format!("{t}: its plan fails the check: {e}"))?;
            }
            Ok(verdict)
        }),
    }
}

/// `key=value` overrides of every preset: an accepted value shows back as text that sets the
/// same value; validation of the result refuses, never panics.
pub fn params_target() -> Target {
    let mut seeds = Vec::new();
    for pr in PRESETS {
        let p = (pr.build)();
        seeds.extend(KEYS.iter().map(|k| format!("{}={}", k.key, k.show(&p)).into_bytes()));
    }
    seeds.sort();
    seeds.dedup();
    let presets: Vec<Params> = PRESETS.iter().map(|p| (p.build)()).collect();
    Target {
        name: "params",
        seeds,
        dict: &["=", "ns", "us", "ps", "ms", "s", "Gb/s", "MB/s", "KiB/s", "KiB", "MiB", "flits", "none", "inf", "."],
        json: false,
        run: Box::new(move |b| {
            let t = text(b);
            let mut verdict = Verdict::Rejected;
            for base in &presets {
                let mut p = base.clone();
                if p.apply(&t).is_err() {
                    continue;
                }
                verdict = Verdict::Accepted;
                let key = t.split_once('=').map(|(k, _)| k.trim()).unwrap_or_default();
                let shown = p.show(key).map_err(|e| format!("`{t}` accepted but key not shown: {e}"))?;
                let mut q = base.clone();
                q.set(key, &shown).map_err(|e| format!("`{t}` shows as `{shown}`, which is refused: {e}"))?;
                if q != p {
                    return Err(format!("`{t}` shows as `{shown}`, which sets another value"));
                }
                let _ = p.validate();
            }
            Ok(verdict)
        }),
    }
}

/// Workload specs: an accepted workload survives a JSON round trip.
pub fn workload_target() -> Target {
    let seeds = [
        "single",
        "single:source=3,group_pct=50,bytes=4KiB",
        "multicast_load:degree=3,load=0.2,scheme=kbinomial",
        "many_to_many:senders_pct=50,group_pct=25,load=0.1,process=poisson",
        "all_to_all:scheme=binary,bytes=4KiB",
        "blast:source=0,count=10",
        "uniform:load=0.1,bytes=4096",
        "uniform:self,load=0.3,discipline=host",
    ]
    .map(|s| s.as_bytes().to_vec())
    .to_vec();
    Target {
        name: "workload",
        seeds,
        dict: &[
            "load=",
            "count=",
            "bytes=",
            "scheme=",
            "discipline=",
            "process=",
            "degree=",
            "source=",
            "self",
            "1e308",
        ],
        json: false,
        run: Box::new(|b| {
            let Ok(w) = Workload::parse(&text(b)) else { return Ok(Verdict::Rejected) };
            let j = serde_json::to_string(&w).map_err(|e| format!("workload does not serialize: {e}"))?;
            match serde_json::from_str::<Workload>(&j) {
                Ok(v) if v == w => Ok(Verdict::Accepted),
                Ok(_) => Err(format!("workload changes on a JSON round trip: {j}")),
                Err(e) => Err(format!("workload JSON `{j}` does not re-read: {e}")),
            }
        }),
    }
}

/// Sizes, times, rates and counts: an accepted value prints back as text that parses to it.
pub fn units_target() -> Target {
    let seeds =
        ["5ns", "1.5 us", "1µs", "0", "640ps", "1.28Gb/s", "266MB/s", "inf", "4KiB", "1MiB", "2KB", "640flits", "12"]
            .map(|s| s.as_bytes().to_vec())
            .to_vec();
    fn back<T: PartialEq + std::fmt::Debug>(
        what: &str,
        v: Result<T, String>,
        show: impl Fn(&T) -> String,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<bool, String> {
        let Ok(v) = v else { return Ok(false) };
        let s = show(&v);
        match parse(&s) {
            Ok(u) if u == v => Ok(true),
            other => Err(format!("{what} {v:?} prints as `{s}`, which parses to {other:?}")),
        }
    }
    Target {
        name: "units",
        seeds,
        dict: &["ns", "us", "µs", "ps", "ms", "s", "Gb/s", "Tbps", "GiB/s", "B", "KiB", "GB", "flits", ".", " "],
        json: false,
        run: Box::new(|b| {
            let t = text(b);
            let a = back("time", Time::parse(&t), |v| v.to_string(), Time::parse)?;
            let r = back("rate", Rate::parse(&t), |v| v.to_string(), Rate::parse)?;
            let s = back("size", parse_bytes(&t), |v| show_bytes(*v), parse_bytes)?;
            let f = back("flits", parse_flits(&t), |v| v.to_string(), parse_flits)?;
            let c = back("count", parse_count(&t), |v| v.to_string(), parse_count)?;
            Ok(if a || r || s || f || c { Verdict::Accepted } else { Verdict::Rejected })
        }),
    }
}
