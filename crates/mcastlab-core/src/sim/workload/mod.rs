//! Workloads: which endpoints send which messages, and when — the traffic of a simulation run.
//!
//! A [`Workload`] is plain data (serde, `deny_unknown_fields`) and has a compact spec form parsed
//! by the same parser as fabrics and schemes: `uniform:load=0.1`,
//! `multicast_load:degree=3,load=0.2,scheme=binomial`, `many_to_many:senders_pct=40,group_pct=10`,
//! `all_to_all:scheme=chain`, `blast:source=0,count=64`, `single:source=0,group_pct=50`.
//!
//! The kinds and the papers they come from (one file each, registered in [`WORKLOADS`]):
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
//! - `permutation`: unicasts from every endpoint to one fixed partner, BookSim's `bitrev`,
//!   `bitcomp`, `transpose` and `shuffle` patterns (the adversaries of oblivious routings).
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

mod all_to_all;
mod blast;
mod draw;
mod generator;
mod many_to_many;
mod multicast_load;
mod permutation;
mod shape;
mod single;
mod spec;
mod templates;
mod uniform;

pub use all_to_all::AllToAll;
pub use blast::Blast;
pub(crate) use generator::{Due, Generator};
pub use many_to_many::ManyToMany;
pub use multicast_load::MulticastLoad;
pub use permutation::{Pattern, Permutation};
pub(crate) use shape::Shape;
pub use single::Single;
pub use uniform::Uniform;

use super::units::Rate;
use crate::error::SimError;
use crate::fabric::spec as specs;
use crate::plan::Discipline;
use draw::Who;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use spec::{bytes_of, inject_of, param, spec_params, SpecParams};

/// One kind of traffic: who sends, and to whom each message goes. One file per kind.
pub(crate) trait Kind {
    /// Its registry entry: name, summary, own spec keys, how it is parsed and what it implies.
    const ENTRY: WorkloadEntry;
    /// Its part of the spec text, every option spelled out (`single:source=0,group_pct=100`).
    fn spec(&self) -> String;
    /// Senders, the fixed group (if any), and each sender's number of destinations, on a fabric
    /// of `n` endpoints; groups drawn at random come from `seed`'s streams.
    fn who(&self, n: u32, seed: u64) -> Result<Who, SimError>;
    /// Appends the destinations of sender `s`'s next message (sorted), drawn from `rng`, its own
    /// stream, to `out` (a list the generator reuses: unicast traffic allocates nothing per
    /// message).
    fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng, out: &mut Vec<u32>);
}

/// Who sends to whom.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Traffic {
    /// One multicast from `source` to `group_pct` % of the endpoints (drawn at random; 100: all
    /// others).
    Single(Single),
    /// Multicasts of `degree` random destinations from every endpoint (sivaram98 §6.5).
    MulticastLoad(MulticastLoad),
    /// `senders_pct` % of the endpoints each multicast to a group of `group_pct` % (zhou07 §4).
    ManyToMany(ManyToMany),
    /// Every endpoint multicasts to all others (bhoedjang98 §5.2).
    AllToAll(AllToAll),
    /// `source` streams multicasts to all others (bhoedjang98 §5.1).
    Blast(Blast),
    /// Unicasts to uniformly random endpoints: the others, or all of them with `include_self`
    /// (BookSim's uniform traffic).
    Uniform(Uniform),
    /// Unicasts from every endpoint to a fixed partner (BookSim's permutation patterns).
    Permutation(Permutation),
}

macro_rules! dispatch {
    ($self:ident, $k:ident => $e:expr) => {
        match $self {
            Traffic::Single($k) => $e,
            Traffic::MulticastLoad($k) => $e,
            Traffic::ManyToMany($k) => $e,
            Traffic::AllToAll($k) => $e,
            Traffic::Blast($k) => $e,
            Traffic::Uniform($k) => $e,
            Traffic::Permutation($k) => $e,
        }
    };
}

/// The registry entry of a kind's value.
fn entry_of<K: Kind>(_: &K) -> &'static WorkloadEntry {
    &K::ENTRY
}

impl Traffic {
    pub fn name(&self) -> &'static str {
        self.entry().name
    }

    /// Its kind's registry entry.
    pub fn entry(&self) -> &'static WorkloadEntry {
        dispatch!(self, k => entry_of(k))
    }

    fn spec(&self) -> String {
        dispatch!(self, k => k.spec())
    }

    pub(crate) fn who(&self, n: u32, seed: u64) -> Result<Who, SimError> {
        dispatch!(self, k => k.who(n, seed))
    }

    pub(crate) fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        dispatch!(self, k => k.destinations(s, shape, rng, out))
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

/// One workload kind: its name, what it models, its own spec keys, how its spec is read, and what
/// it implies for the rest of the spec.
pub struct WorkloadEntry {
    pub name: &'static str,
    pub summary: &'static str,
    /// Its keys with their defaults, for listings.
    pub params: &'static str,
    /// The spec keys it takes besides the common ones.
    pub keys: &'static [&'static str],
    pub(crate) parse: fn(&SpecParams) -> Result<Traffic, SimError>,
    /// It needs a load (no sensible one-shot form).
    pub needs_load: bool,
    /// Messages per sender at time 0 when neither count nor load is given.
    pub default_count: u32,
    /// It sends plain unicasts (no scheme).
    pub unicast: bool,
}

/// Keys every kind accepts, for listings.
pub const COMMON_PARAMS: &str =
    "scheme=binomial discipline=fpfs bytes=<mtu> (count=N | load=X [process=bernoulli|poisson])";

/// Every workload kind.
pub const WORKLOADS: &[WorkloadEntry] = &[
    Single::ENTRY,
    MulticastLoad::ENTRY,
    ManyToMany::ENTRY,
    AllToAll::ENTRY,
    Blast::ENTRY,
    Uniform::ENTRY,
    Permutation::ENTRY,
];

impl Workload {
    /// Parses a spec such as `multicast_load:degree=3,load=0.2,scheme=kbinomial`.
    pub fn parse(text: &str) -> Result<Workload, SimError> {
        let s = specs::parse(text, |_| None).map_err(|e| param("workload", e.to_string()))?;
        let Some(entry) = WORKLOADS.iter().find(|w| w.name == s.name.replace('-', "_")) else {
            let known = WORKLOADS.iter().map(|w| w.name).collect::<Vec<_>>().join(", ");
            return Err(param("workload", format!("unknown workload `{}`; known: {known}", s.name)));
        };
        let p = spec_params(entry, &s.params)?;
        if entry.unicast && p.scheme.is_some() {
            return Err(param("scheme", format!("workload {} sends plain unicasts", entry.name)));
        }
        let traffic = (entry.parse)(&p)?;
        let discipline = match &p.discipline {
            Some(d) => Discipline::parse(d).map_err(|e| param("discipline", e.to_string()))?,
            None => Discipline::default(),
        };
        Ok(Workload {
            inject: inject_of(entry, &p)?,
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
        let kind = self.traffic.spec();
        let sep = if kind.ends_with(':') { "" } else { "," };
        let disc = match self.discipline {
            Discipline::Host => "host",
            Discipline::NiFcfs => "fcfs",
            Discipline::NiFpfs => "fpfs",
        };
        let mut s = if self.traffic.entry().unicast {
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
