//! Workloads: which endpoints send which messages, and when — the traffic of a simulation run.
//!
//! A [`Workload`] is plain data (serde, `deny_unknown_fields`) and has a compact spec form parsed
//! by the same parser as fabrics and schemes: `uniform:load=0.1`,
//! `multicast_load:degree=3,load=0.2,scheme=binomial`, `many_to_many:senders_pct=40,group_pct=10`,
//! `all_to_all:scheme=chain`, `blast:source=0,count=64`, `single:source=0,group_pct=50`.
//!
//! The kinds and the papers they come from:
//! - `single`: one multicast (the plan runs of `sim::run_plan`, reported as a workload row).
//! - `multicast_load`: multicasts of `degree` destinations, each set drawn uniformly from the
//!   endpoints other than the source, arriving at every endpoint at the rate that gives an
//!   *effective applied load* (sivaram98 §6.2: degree × per-node load; sivaram98 §6.5 uses
//!   degrees 3 and 15).
//! - `many_to_many`: `senders_pct` % of the endpoints (drawn once) each multicast to one group of
//!   `group_pct` % of the endpoints (drawn once, as an InfiniBand multicast group is), without
//!   themselves (zhou07 §4: 1 node, 40 %, 70 %, 100 % of nodes to 10 %, 40 %, 70 %, 100 %;
//!   `senders_pct=1` is one sender on zhou07's 128 nodes).
//! - `all_to_all`: every endpoint multicasts to all others (bhoedjang98 §5.2).
//! - `blast`: one sender streams messages to all others (bhoedjang98 §5.1's throughput test).
//! - `uniform`: unicasts to a destination drawn uniformly from the endpoints other than the
//!   source; with `self=1`, from all endpoints, the source included, as BookSim's uniform traffic
//!   does (`../shared/reference/booksim.md` §2: 1/N of its packets go through the source's own
//!   switch and back).
//!
//! When: `count=N` creates N messages per sender at time 0 (one-shot benchmarks, the default of
//! every kind but `multicast_load` and `uniform`); `load=X` makes each sender an open-loop source
//! (the default process, `bernoulli`, is BookSim's: at most one new message per cycle, a cycle
//! being one flit time on a link; `poisson` draws exponential gaps). One load definition serves
//! every kind: `load` is the mean number of flits *delivered* per cycle per endpoint if every
//! message reached every destination — exactly BookSim's offered load for unicasts and sivaram98's
//! effective applied load for multicasts of degree d (each of the N sources makes load/(d·F)
//! messages of F flits per cycle, and each message delivers d·F flits, spread over the N
//! endpoints). A rate (`load=100MB/s`) is the same quantity in bytes of payload per second.
//!
//! Generation is deterministic per seed: sender `s` draws its arrival times from
//! `rng::stream(seed, "arrivals", s)` and its destinations from `rng::stream(seed,
//! "destinations", s)`; groups and sender sets from their own streams. Adding a sender or
//! changing the load therefore never shifts another sender's draws.

use super::ids::TemplateId;
use super::params::Params;
use super::units::Rate;
use crate::error::SimError;
use crate::fabric::{spec, Fabric};
use crate::ids::EndpointId;
use crate::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use crate::rng;
use crate::routing::Routing;
use crate::schemes::{self, SchemeInput};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// Who sends to whom.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Traffic {
    /// One multicast from `source` to `group_pct` % of the endpoints (drawn at random; 100: all
    /// others).
    Single { source: u32, group_pct: f64 },
    /// Multicasts of `degree` random destinations from every endpoint (sivaram98 §6.5).
    MulticastLoad { degree: u32 },
    /// `senders_pct` % of the endpoints each multicast to a group of `group_pct` % (zhou07 §4).
    ManyToMany { senders_pct: f64, group_pct: f64 },
    /// Every endpoint multicasts to all others (bhoedjang98 §5.2).
    AllToAll,
    /// `source` streams multicasts to all others (bhoedjang98 §5.1).
    Blast { source: u32 },
    /// Unicasts to uniformly random endpoints: the others, or all of them with `include_self`
    /// (BookSim's uniform traffic).
    Uniform {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        include_self: bool,
    },
}

impl Traffic {
    pub fn name(&self) -> &'static str {
        match self {
            Traffic::Single { .. } => "single",
            Traffic::MulticastLoad { .. } => "multicast_load",
            Traffic::ManyToMany { .. } => "many_to_many",
            Traffic::AllToAll => "all_to_all",
            Traffic::Blast { .. } => "blast",
            Traffic::Uniform { .. } => "uniform",
        }
    }
}

/// An offered load: flits per cycle per endpoint (a number), or payload bytes per second per
/// endpoint (a rate with its unit). Both count what would be delivered (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Load {
    FlitsPerCycle(f64),
    Rate(Rate),
}

/// How a source spaces its messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Process {
    /// At most one message per cycle, each cycle independently with the same probability.
    #[default]
    Bernoulli,
    /// Exponentially distributed gaps.
    Poisson,
}

/// When messages are created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case", deny_unknown_fields)]
pub enum Inject {
    /// Every sender creates `count` messages at time 0.
    Burst { count: u32 },
    /// Every sender is an open-loop source at this load.
    Load { load: Load, process: Process },
}

/// A workload: the traffic, how each message is carried, its size, and when messages arise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub traffic: Traffic,
    /// Scheme spec building each multicast's plan (`uniform` sends plain unicasts).
    pub scheme: String,
    pub discipline: Discipline,
    /// Message size in bytes; `None`: one full packet (`link.mtu_bytes`).
    pub message_bytes: Option<u64>,
    pub inject: Inject,
}

/// One workload kind, for listings.
pub struct WorkloadEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static str,
}

/// Keys every kind accepts, for listings.
pub const COMMON_PARAMS: &str =
    "scheme=binomial discipline=fpfs bytes=<mtu> (count=N | load=X [process=bernoulli|poisson])";

/// Every workload kind.
pub const WORKLOADS: &[WorkloadEntry] = &[
    WorkloadEntry {
        name: "single",
        summary: "one multicast (a plan run as a workload)",
        params: "source=0 group_pct=100",
    },
    WorkloadEntry {
        name: "multicast_load",
        summary: "degree-d multicasts at an effective applied load (sivaram98 §6.5)",
        params: "degree=3 load=X",
    },
    WorkloadEntry {
        name: "many_to_many",
        summary: "X% of endpoints multicast to a Y% group (zhou07 §4)",
        params: "senders_pct=40 group_pct=10",
    },
    WorkloadEntry { name: "all_to_all", summary: "every endpoint broadcasts (bhoedjang98 §5.2)", params: "" },
    WorkloadEntry {
        name: "blast",
        summary: "single-sender multicast stream (bhoedjang98 §5.1)",
        params: "source=0 count=16",
    },
    WorkloadEntry { name: "uniform", summary: "uniform random unicasts (BookSim)", params: "load=X self=0" },
];

/// The flat key set of the spec form; which keys a kind accepts is checked after parsing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecParams {
    source: Option<u32>,
    degree: Option<u32>,
    senders_pct: Option<f64>,
    group_pct: Option<f64>,
    scheme: Option<String>,
    discipline: Option<String>,
    bytes: Option<Value>,
    count: Option<u32>,
    load: Option<Value>,
    process: Option<Process>,
    #[serde(rename = "self")]
    include_self: Option<Value>,
}

/// Keys each kind takes besides the common ones.
fn kind_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "single" => &["source", "group_pct"],
        "multicast_load" => &["degree"],
        "many_to_many" => &["senders_pct", "group_pct"],
        "blast" => &["source"],
        "uniform" => &["self"],
        _ => &[],
    }
}

fn param(name: &str, message: impl Into<String>) -> SimError {
    SimError::param(name, message)
}

impl Workload {
    /// Parses a spec such as `multicast_load:degree=3,load=0.2,scheme=kbinomial`.
    pub fn parse(text: &str) -> Result<Workload, SimError> {
        let s = spec::parse(text, |_| None).map_err(|e| param("workload", e.to_string()))?;
        let Some(entry) = WORKLOADS.iter().find(|w| w.name == s.name.replace('-', "_")) else {
            let known = WORKLOADS.iter().map(|w| w.name).collect::<Vec<_>>().join(", ");
            return Err(param("workload", format!("unknown workload `{}`; known: {known}", s.name)));
        };
        Workload::from_params(entry.name, &s.params)
    }

    fn from_params(kind: &str, map: &Map<String, Value>) -> Result<Workload, SimError> {
        let p = spec_params(kind, map)?;
        if kind == "uniform" && p.scheme.is_some() {
            return Err(param("scheme", "workload uniform sends plain unicasts"));
        }
        let traffic = match kind {
            "single" => Traffic::Single { source: p.source.unwrap_or(0), group_pct: p.group_pct.unwrap_or(100.0) },
            "multicast_load" => Traffic::MulticastLoad { degree: p.degree.unwrap_or(3) },
            "many_to_many" => Traffic::ManyToMany {
                senders_pct: p.senders_pct.unwrap_or(40.0),
                group_pct: p.group_pct.unwrap_or(10.0),
            },
            "all_to_all" => Traffic::AllToAll,
            "blast" => Traffic::Blast { source: p.source.unwrap_or(0) },
            _ => Traffic::Uniform { include_self: flag("self", p.include_self.as_ref())? },
        };
        let discipline = match &p.discipline {
            Some(d) => Discipline::parse(d).map_err(|e| param("discipline", e.to_string()))?,
            None => Discipline::default(),
        };
        Ok(Workload {
            inject: inject_of(kind, &traffic, &p)?,
            traffic,
            scheme: p.scheme.clone().unwrap_or_else(|| "binomial".into()),
            discipline,
            message_bytes: bytes_of(&p)?,
        })
    }

    /// The same workload at another load (a sweep point); the process and the load's unit are
    /// kept, a one-shot workload becomes a Bernoulli source.
    pub fn with_load(&self, load: f64) -> Workload {
        let (rate, process) = match &self.inject {
            Inject::Load { load: l, process } => (matches!(l, Load::Rate(_)), *process),
            Inject::Burst { .. } => (false, Process::Bernoulli),
        };
        let load = if rate { Load::Rate(Rate(load.max(0.0).round() as u64)) } else { Load::FlitsPerCycle(load) };
        Workload { inject: Inject::Load { load, process }, ..self.clone() }
    }

    /// The compact spec of this workload, every option spelled out.
    pub fn spec(&self) -> String {
        let kind = match &self.traffic {
            Traffic::Single { source, group_pct } => format!("single:source={source},group_pct={group_pct}"),
            Traffic::MulticastLoad { degree } => format!("multicast_load:degree={degree}"),
            Traffic::ManyToMany { senders_pct, group_pct } => {
                format!("many_to_many:senders_pct={senders_pct},group_pct={group_pct}")
            }
            Traffic::AllToAll => "all_to_all:".into(),
            Traffic::Blast { source } => format!("blast:source={source}"),
            Traffic::Uniform { include_self: false } => "uniform:".into(),
            Traffic::Uniform { include_self: true } => "uniform:self=1".into(),
        };
        let sep = if kind.ends_with(':') { "" } else { "," };
        let disc = match self.discipline {
            Discipline::Host => "host",
            Discipline::NiFcfs => "fcfs",
            Discipline::NiFpfs => "fpfs",
        };
        let mut s = if matches!(self.traffic, Traffic::Uniform { .. }) {
            format!("{kind}{sep}discipline={disc}")
        } else {
            format!("{kind}{sep}scheme={},discipline={disc}", self.scheme)
        };
        if let Some(b) = self.message_bytes {
            s += &format!(",bytes={b}");
        }
        match &self.inject {
            Inject::Burst { count } => s += &format!(",count={count}"),
            Inject::Load { load, process } => {
                let l = match load {
                    Load::FlitsPerCycle(x) => x.to_string(),
                    Load::Rate(r) => r.to_string(),
                };
                let p = match process {
                    Process::Bernoulli => "bernoulli",
                    Process::Poisson => "poisson",
                };
                s += &format!(",load={l},process={p}");
            }
        }
        s
    }
}

/// The spec's keys, typed; an unknown key or a bad value is an error naming the key.
fn spec_params(kind: &str, map: &Map<String, Value>) -> Result<SpecParams, SimError> {
    let common = ["scheme", "discipline", "bytes", "count", "load", "process"];
    let own = kind_keys(kind);
    if let Some(k) = map.keys().find(|k| !common.contains(&k.as_str()) && !own.contains(&k.as_str())) {
        let takes = own.iter().chain(&common).copied().collect::<Vec<_>>().join(" ");
        return Err(param(k, format!("not a parameter of workload {kind} (it takes {takes})")));
    }
    spec::typed("workload", kind, map).map_err(|e| {
        // serde does not say which key had the bad value: find it.
        let bad = map.iter().find(|(k, v)| {
            let one: Map<String, Value> = [((*k).clone(), (*v).clone())].into_iter().collect();
            spec::typed::<SpecParams>("workload", kind, &one).is_err()
        });
        param(bad.map_or("workload", |(k, _)| k.as_str()), e.to_string())
    })
}

/// When messages arise: `count` at time 0, or a `load`; `multicast_load` and `uniform` need a load.
fn inject_of(kind: &str, traffic: &Traffic, p: &SpecParams) -> Result<Inject, SimError> {
    let inject = match (p.count, &p.load) {
        (Some(_), Some(_)) => return Err(param("load", "give either count (messages at time 0) or load")),
        (_, Some(v)) => Inject::Load { load: parse_load(v)?, process: p.process.unwrap_or_default() },
        (Some(count), None) => Inject::Burst { count },
        (None, None) if matches!(traffic, Traffic::MulticastLoad { .. } | Traffic::Uniform { .. }) => {
            return Err(param("load", format!("workload {kind} needs a load (flits/cycle/endpoint or a rate)")))
        }
        (None, None) => Inject::Burst { count: if kind == "blast" { 16 } else { 1 } },
    };
    if p.process.is_some() && matches!(inject, Inject::Burst { .. }) {
        return Err(param("process", "applies only with a load"));
    }
    Ok(inject)
}

/// `bytes=300` or `bytes=4KiB`.
fn bytes_of(p: &SpecParams) -> Result<Option<u64>, SimError> {
    Ok(match &p.bytes {
        None => None,
        Some(Value::Number(n)) => Some(n.as_u64().ok_or_else(|| param("bytes", format!("`{n}` is not a size")))?),
        Some(Value::String(s)) => Some(super::units::parse_bytes(s).map_err(|e| param("bytes", e))?),
        Some(other) => return Err(param("bytes", format!("`{other}` is not a size"))),
    })
}

fn parse_load(v: &Value) -> Result<Load, SimError> {
    match v {
        Value::Number(n) => Ok(Load::FlitsPerCycle(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => Rate::parse(s).map(Load::Rate).map_err(|e| param("load", e)),
        other => Err(param("load", format!("`{other}` is not a load"))),
    }
}

/// A yes/no spec value: `true`/`false` (or a bare key), or 1/0.
fn flag(name: &str, v: Option<&Value>) -> Result<bool, SimError> {
    match v {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::Number(n)) if n.as_u64() == Some(0) => Ok(false),
        Some(Value::Number(n)) if n.as_u64() == Some(1) => Ok(true),
        Some(other) => Err(param(name, format!("`{other}` is not 0, 1, true or false"))),
    }
}

/// The plan of a packet a source sends to itself (uniform traffic with `self=1`): one unicast
/// that goes through the source's own switch and back. Built here rather than by
/// `Plan::from_transmissions`, which refuses a source among its destinations (a multicast plan
/// never needs one); every other check it makes holds trivially for a single unicast.
fn self_addressed(f: &Fabric, src: EndpointId, packets: u32, discipline: Discipline) -> Plan {
    Plan {
        format: crate::plan::PLAN_FORMAT.into(),
        version: crate::plan::PLAN_VERSION,
        scheme: "unicast".into(),
        fabric: f.name().to_string(),
        source: src,
        destinations: vec![src],
        packets,
        discipline,
        transmissions: vec![Transmission {
            sender: src,
            trigger: Trigger::Start,
            carrier: Carrier::Unicast { dst: src },
            delivers: vec![src],
        }],
        switch_state: Default::default(),
    }
}

/// Endpoints in a share of `pct` % of `n` (rounded, at least one).
fn share(pct: f64, n: usize) -> usize {
    ((pct * n as f64 / 100.0).round() as usize).clamp(1, n)
}

fn check_pct(name: &str, pct: f64) -> Result<(), SimError> {
    if !(pct > 0.0 && pct <= 100.0) {
        return Err(param(name, format!("{pct} is not a percentage in (0, 100]")));
    }
    Ok(())
}

/// `k` distinct values of `pool`, drawn by a partial Fisher–Yates shuffle (written out so the
/// draws never depend on a library's sampling algorithm), sorted.
fn pick(rng: &mut ChaCha8Rng, pool: &mut [u32], k: usize) -> Vec<u32> {
    for i in 0..k {
        let j = i + rng.random_range(0..(pool.len() - i) as u32) as usize;
        pool.swap(i, j);
    }
    let mut out = pool[..k].to_vec();
    out.sort_unstable();
    out
}

/// Everything but `e`.
fn others(n: u32, e: u32) -> Vec<u32> {
    (0..n).filter(|&x| x != e).collect()
}

/// Senders, the fixed group (if any), and each sender's number of destinations.
type Who = (Vec<u32>, Vec<u32>, Vec<u64>);

/// Validated sizes and rates of a workload on one fabric with one set of parameters.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub n: u32,
    pub message_bytes: u64,
    pub packets: u32,
    /// Flits of one copy of the message (all its packets).
    pub flits: u64,
    /// Cycle = one flit time, ps.
    pub cycle_ps: u64,
    pub senders: Vec<u32>,
    /// many_to_many's group (sorted), or empty.
    pub group: Vec<u32>,
    /// Destinations per message of each sender, in `senders` order.
    pub fanout: Vec<u64>,
    /// Messages per picosecond per sender (load workloads), and the nominal load in
    /// flits/cycle/endpoint.
    pub rate_per_ps: f64,
    pub load: f64,
}

impl Shape {
    /// Checks the workload against the fabric and parameters; every bad value is an error naming
    /// its parameter, raised before anything is simulated.
    pub(crate) fn new(f: &Fabric, w: &Workload, params: &Params, seed: u64) -> Result<Shape, SimError> {
        params.validate()?;
        let n = f.num_endpoints() as u32;
        if n < 2 {
            return Err(param("workload", "a workload needs at least two endpoints"));
        }
        let message_bytes = w.message_bytes.unwrap_or(params.link.mtu_bytes as u64);
        let packets = params.packets_for(message_bytes);
        let flits = (0..packets).map(|j| params.flits_for(params.packet_bytes(message_bytes, j)) as u64).sum();
        let (senders, group, fanout) = Shape::who(f, w, seed)?;
        let mut s = Shape {
            n,
            message_bytes,
            packets,
            flits,
            cycle_ps: params.flit_ps(),
            senders,
            group,
            fanout,
            rate_per_ps: 0.0,
            load: 0.0,
        };
        if let Inject::Burst { count: 0 } = w.inject {
            return Err(param("count", "at least one message per sender"));
        }
        if let Inject::Load { load, process } = &w.inject {
            s.set_rate(*load, *process)?;
        }
        Ok(s)
    }

    /// Senders, the fixed group (if any), and each sender's number of destinations.
    fn who(f: &Fabric, w: &Workload, seed: u64) -> Result<Who, SimError> {
        let n = f.num_endpoints() as u32;
        let all: Vec<u32> = (0..n).collect();
        let source_ok = |s: u32| {
            if s < n {
                Ok(())
            } else {
                Err(param("source", format!("endpoint {s} is not in the fabric ({n} endpoints)")))
            }
        };
        Ok(match &w.traffic {
            Traffic::Single { source, group_pct } => {
                source_ok(*source)?;
                check_pct("group_pct", *group_pct)?;
                let k = share(*group_pct, n as usize).min(n as usize - 1);
                (vec![*source], Vec::new(), vec![k as u64])
            }
            Traffic::MulticastLoad { degree } => {
                if *degree == 0 || *degree > n - 1 {
                    return Err(param("degree", format!("{degree} is not between 1 and {} (endpoints − 1)", n - 1)));
                }
                (all, Vec::new(), vec![*degree as u64; n as usize])
            }
            Traffic::ManyToMany { senders_pct, group_pct } => {
                check_pct("senders_pct", *senders_pct)?;
                check_pct("group_pct", *group_pct)?;
                let senders =
                    pick(&mut rng::stream(seed, "senders", 0), &mut all.clone(), share(*senders_pct, n as usize));
                let group = pick(&mut rng::stream(seed, "group", 0), &mut all.clone(), share(*group_pct, n as usize));
                let mut fanout = Vec::with_capacity(senders.len());
                for s in &senders {
                    let k = group.iter().filter(|g| *g != s).count();
                    if k == 0 {
                        return Err(param(
                            "group_pct",
                            format!("the group is endpoint {s} alone, which leaves it nobody to send to"),
                        ));
                    }
                    fanout.push(k as u64);
                }
                (senders, group, fanout)
            }
            Traffic::AllToAll => (all, Vec::new(), vec![n as u64 - 1; n as usize]),
            Traffic::Blast { source } => {
                source_ok(*source)?;
                (vec![*source], Vec::new(), vec![n as u64 - 1])
            }
            Traffic::Uniform { .. } => (all, Vec::new(), vec![1; n as usize]),
        })
    }

    /// Per-sender message rate for `load`: N·load flits per cycle delivered in all, split evenly
    /// over the senders, each message delivering fanout·F flits.
    fn set_rate(&mut self, load: Load, process: Process) -> Result<(), SimError> {
        let cycle = self.cycle_ps as f64;
        let per_cycle = match load {
            Load::FlitsPerCycle(x) => x,
            // bytes/s → flits per cycle: rate·cycle (s) / 8 bits, scaled by flits per byte.
            Load::Rate(r) => {
                r.bits_per_s() as f64 / 8.0 * cycle * 1e-12 * self.flits as f64 / self.message_bytes.max(1) as f64
            }
        };
        if !(per_cycle > 0.0 && per_cycle.is_finite()) {
            return Err(param("load", format!("{per_cycle} flits/cycle/endpoint: a load must be positive")));
        }
        let delivered_per_message: f64 =
            self.fanout.iter().sum::<u64>() as f64 / self.senders.len() as f64 * self.flits as f64;
        let per_sender_per_cycle = per_cycle * self.n as f64 / self.senders.len() as f64 / delivered_per_message;
        if process == Process::Bernoulli && per_sender_per_cycle > 1.0 {
            return Err(param(
                "load",
                format!(
                    "{per_cycle} flits/cycle/endpoint needs {per_sender_per_cycle:.3} messages per cycle per sender; \
                     Bernoulli arrivals allow at most 1 (use process=poisson or larger messages)"
                ),
            ));
        }
        self.load = per_cycle;
        self.rate_per_ps = per_sender_per_cycle / cycle;
        Ok(())
    }
}

/// Largest fabric (endpoints) whose unicast templates are also kept in a flat table (N² entries:
/// 4 MiB at the limit).
const DENSE_UNICAST: usize = 1024;

/// The messages of a workload, in creation order, and the templates that carry them.
pub(crate) struct Generator {
    pub shape: Shape,
    traffic: Traffic,
    scheme: String,
    discipline: Discipline,
    /// Burst: messages per sender; load: `None`.
    burst: Option<u32>,
    process: Process,
    /// Bernoulli: the probability of a message in one cycle.
    p: f64,
    arrivals: Vec<ChaCha8Rng>,
    dests: Vec<ChaCha8Rng>,
    /// (time, sender index) of every sender's next message.
    next: BinaryHeap<Reverse<(u64, u32)>>,
    /// Templates by source, then destination set.
    cache: BTreeMap<u32, BTreeMap<Vec<u32>, TemplateId>>,
    /// The same for single destinations, indexed source · N + destination (`None`: not built
    /// yet), on fabrics of up to `DENSE_UNICAST` endpoints: uniform traffic looks a template up
    /// for every packet, and a flat table does it in one read instead of two tree searches.
    unicast: Vec<Option<TemplateId>>,
}

impl Generator {
    pub(crate) fn new(shape: Shape, w: &Workload, seed: u64) -> Generator {
        let k = shape.senders.len();
        let stream = |what: &str, s: u32| rng::stream(seed, what, s as u64);
        let p = shape.rate_per_ps * shape.cycle_ps as f64;
        let (burst, process) = match &w.inject {
            Inject::Burst { count } => (Some(*count), Process::Bernoulli),
            Inject::Load { process, .. } => (None, *process),
        };
        let mut g = Generator {
            arrivals: shape.senders.iter().map(|&s| stream("arrivals", s)).collect(),
            dests: shape.senders.iter().map(|&s| stream("destinations", s)).collect(),
            p,
            shape,
            traffic: w.traffic.clone(),
            scheme: w.scheme.clone(),
            discipline: w.discipline,
            burst,
            process,
            next: BinaryHeap::new(),
            cache: BTreeMap::new(),
            unicast: Vec::new(),
        };
        for i in 0..k as u32 {
            if g.burst.is_some() {
                g.next.push(Reverse((0, i)));
            } else if let Some(t) = g.draw_after(i, None) {
                g.next.push(Reverse((t, i)));
            }
        }
        g
    }

    /// Whether every sender creates its messages at once (`count=N`).
    pub(crate) fn burst(&self) -> bool {
        self.burst.is_some()
    }

    /// The time of the next message, if any.
    pub(crate) fn peek(&self) -> Option<u64> {
        self.next.peek().map(|Reverse((t, _))| *t)
    }

    /// Takes every message due at `t` (in sender order, a burst round by round): (sender,
    /// destinations).
    pub(crate) fn take_due(&mut self, t: u64) -> Vec<(u32, Vec<u32>)> {
        let mut out = Vec::new();
        if let Some(count) = self.burst {
            let order: Vec<u32> = std::iter::from_fn(|| self.next.pop().map(|Reverse((_, i))| i)).collect();
            for _ in 0..count {
                for &i in &order {
                    let d = self.destinations(i);
                    out.push((self.shape.senders[i as usize], d));
                }
            }
            return out;
        }
        while let Some(&Reverse((at, i))) = self.next.peek() {
            if at != t {
                break;
            }
            self.next.pop();
            let d = self.destinations(i);
            out.push((self.shape.senders[i as usize], d));
            if let Some(next) = self.draw_after(i, Some(t)) {
                self.next.push(Reverse((next, i)));
            }
        }
        out
    }

    /// Sender `i`'s next arrival after `prev` (or its first).
    fn draw_after(&mut self, i: u32, prev: Option<u64>) -> Option<u64> {
        let rng = &mut self.arrivals[i as usize];
        match self.process {
            Process::Bernoulli => {
                // The number of failed cycles before the next success is geometric: drawn at once
                // by inversion, so a long run at a low load costs one draw per message.
                let cycle = self.shape.cycle_ps;
                let first = prev.map_or(0, |t| t / cycle + 1);
                let skip = if self.p >= 1.0 {
                    0
                } else {
                    let u = 1.0 - rng.random::<f64>();
                    (u.ln() / (-self.p).ln_1p()).floor() as u64
                };
                first.checked_add(skip)?.checked_mul(cycle)
            }
            Process::Poisson => {
                let u: f64 = rng.random::<f64>();
                let gap = -(1.0 - u).ln() / self.shape.rate_per_ps;
                let t = prev.unwrap_or(0) as f64 + gap.round();
                (t < 1.8e19).then_some(t as u64)
            }
        }
    }

    /// The destinations of sender `i`'s next message (sorted).
    fn destinations(&mut self, i: u32) -> Vec<u32> {
        let s = self.shape.senders[i as usize];
        let n = self.shape.n;
        let rng = &mut self.dests[i as usize];
        match &self.traffic {
            Traffic::Single { .. } => pick(rng, &mut others(n, s), self.shape.fanout[0] as usize),
            Traffic::MulticastLoad { degree } => pick(rng, &mut others(n, s), *degree as usize),
            Traffic::ManyToMany { .. } => self.shape.group.iter().copied().filter(|&g| g != s).collect(),
            Traffic::AllToAll | Traffic::Blast { .. } => others(n, s),
            Traffic::Uniform { include_self: true } => vec![rng.random_range(0..n)],
            Traffic::Uniform { include_self: false } => {
                let d = rng.random_range(0..n - 1);
                vec![if d >= s { d + 1 } else { d }]
            }
        }
    }

    /// The plan carrying a message from `source` to `dests` (built once per distinct pair).
    pub(crate) fn plan(&self, f: &Fabric, r: &dyn Routing, source: u32, dests: &[u32]) -> Result<Plan, SimError> {
        let src = EndpointId(source);
        let d: Vec<EndpointId> = dests.iter().map(|&e| EndpointId(e)).collect();
        if let Traffic::Uniform { .. } = self.traffic {
            if dests == [source] {
                return Ok(self_addressed(f, src, self.shape.packets, self.discipline));
            }
            let t = Transmission {
                sender: src,
                trigger: Trigger::Start,
                carrier: Carrier::Unicast { dst: d[0] },
                delivers: d.clone(),
            };
            return Ok(Plan::from_transmissions(f, "unicast", src, d, self.shape.packets, self.discipline, vec![t])?);
        }
        let input = SchemeInput {
            fabric: f,
            routing: r,
            source: src,
            destinations: &d,
            packets: self.shape.packets,
            discipline: self.discipline,
        };
        Ok(schemes::plan(&input, &self.scheme)?)
    }

    /// The template for (`source`, `dests`) in `sim`, built on first use.
    pub(crate) fn template(
        &mut self,
        sim: &mut super::Simulation<'_>,
        f: &Fabric,
        r: &dyn Routing,
        source: u32,
        dests: Vec<u32>,
    ) -> Result<TemplateId, SimError> {
        let n = self.shape.n as usize;
        let dense = (dests.len() == 1 && n <= DENSE_UNICAST).then(|| source as usize * n + dests[0] as usize);
        if let Some(t) = dense.and_then(|k| self.unicast.get(k).copied().flatten()) {
            return Ok(t);
        }
        if let Some(&t) = self.cache.get(&source).and_then(|m| m.get(dests.as_slice())) {
            return Ok(t);
        }
        let plan = self.plan(f, r, source, &dests)?;
        let t = sim.add_template(r, &plan)?;
        if let Some(k) = dense {
            if self.unicast.is_empty() {
                self.unicast = vec![None; n * n];
            }
            self.unicast[k] = Some(t);
        }
        self.cache.entry(source).or_default().insert(dests, t);
        Ok(t)
    }
}
