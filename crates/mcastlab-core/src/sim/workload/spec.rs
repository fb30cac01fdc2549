//! The compact spec form of a workload (`multicast_load:degree=3,load=0.2,scheme=kbinomial`): the
//! flat key set, parsed by the same spec parser as fabrics and schemes, then checked against the
//! keys the kind takes; every bad key or value is an error naming the key.

use super::{Inject, Load, Process, WorkloadEntry};
use crate::error::SimError;
use crate::fabric::spec;
use crate::sim::units::Rate;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Keys every kind accepts.
pub(super) const COMMON_KEYS: [&str; 6] = ["scheme", "discipline", "bytes", "count", "load", "process"];

pub(super) fn param(name: &str, message: impl Into<String>) -> SimError {
    SimError::param(name, message)
}

/// The flat key set of the spec form; which keys a kind accepts is checked after parsing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SpecParams {
    pub(super) source: Option<u32>,
    pub(super) degree: Option<u32>,
    pub(super) senders_pct: Option<f64>,
    pub(super) group_pct: Option<f64>,
    /// An exact group size (members), instead of `group_pct`.
    pub(super) group: Option<u32>,
    /// An exact number of senders, instead of `senders_pct`.
    pub(super) senders: Option<u32>,
    pub(super) scheme: Option<String>,
    pub(super) discipline: Option<String>,
    pub(super) bytes: Option<Value>,
    pub(super) count: Option<u32>,
    pub(super) load: Option<Value>,
    pub(super) process: Option<Process>,
    #[serde(rename = "self")]
    pub(super) include_self: Option<Value>,
    pub(super) pattern: Option<String>,
}

/// The spec's keys, typed; an unknown key or a bad value is an error naming the key.
pub(super) fn spec_params(entry: &WorkloadEntry, map: &Map<String, Value>) -> Result<SpecParams, SimError> {
    let (kind, own) = (entry.name, entry.keys);
    let common = COMMON_KEYS;
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

/// When messages arise: `count` at time 0, or a `load`; kinds that need a load (`multicast_load`,
/// `uniform`) refuse neither.
pub(super) fn inject_of(entry: &WorkloadEntry, p: &SpecParams) -> Result<Inject, SimError> {
    let kind = entry.name;
    let inject = match (p.count, &p.load) {
        (Some(_), Some(_)) => return Err(param("load", "give either count (messages at time 0) or load")),
        (_, Some(v)) => Inject::Load { load: parse_load(v)?, process: p.process.unwrap_or_default() },
        (Some(count), None) => Inject::Burst { count },
        (None, None) if entry.needs_load => {
            return Err(param("load", format!("workload {kind} needs a load (flits/cycle/endpoint or a rate)")))
        }
        (None, None) => Inject::Burst { count: entry.default_count },
    };
    if p.process.is_some() && matches!(inject, Inject::Burst { .. }) {
        return Err(param("process", "applies only with a load"));
    }
    Ok(inject)
}

/// `bytes=300` or `bytes=4KiB`.
pub(super) fn bytes_of(p: &SpecParams) -> Result<Option<u64>, SimError> {
    Ok(match &p.bytes {
        None => None,
        Some(Value::Number(n)) => Some(n.as_u64().ok_or_else(|| param("bytes", format!("`{n}` is not a size")))?),
        Some(Value::String(s)) => Some(crate::sim::units::parse_bytes(s).map_err(|e| param("bytes", e))?),
        Some(other) => return Err(param("bytes", format!("`{other}` is not a size"))),
    })
}

/// A load: flits per cycle per endpoint (a number, in any notation the spec text allows, such as
/// `1e-2`, which the spec hands over as text), or a rate with a unit (`40MB/s`). A load that is not
/// finite (`inf`, `nan`) is refused: read as a rate, `inf` was an unlimited one, which became
/// 1.15e10 flits per cycle.
fn parse_load(v: &Value) -> Result<Load, SimError> {
    match v {
        Value::Number(n) => Ok(Load::FlitsPerCycle(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Load::FlitsPerCycle(x)),
            Ok(_) => Err(param("load", format!("`{s}` is not a finite number"))),
            Err(_) => Rate::parse(s).map(Load::Rate).map_err(|e| param("load", e)),
        },
        other => Err(param("load", format!("`{other}` is not a load"))),
    }
}

/// A yes/no spec value: `true`/`false` (or a bare key), or 1/0.
pub(super) fn flag(name: &str, v: Option<&Value>) -> Result<bool, SimError> {
    match v {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::Number(n)) if n.as_u64() == Some(0) => Ok(false),
        Some(Value::Number(n)) if n.as_u64() == Some(1) => Ok(true),
        Some(other) => Err(param(name, format!("`{other}` is not 0, 1, true or false"))),
    }
}
