//! What the registries hold (generators, routings, schemes, workloads, presets) and the small
//! helpers and experiments the Python layer calls as plain functions.

use crate::guard::guard;
use crate::supervise::supervise;
use mcastlab_core::fabric::generators::{self, GENERATORS};
use mcastlab_core::routing::ROUTINGS;
use mcastlab_core::schemes::{kbinomial, SCHEMES};
use mcastlab_core::sim;
use mcastlab_core::SimError;
use pyo3::prelude::*;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{errors, to_json};

/// JSON of the simulator presets: name, summary and every parameter's value.
#[pyfunction]
pub(crate) fn sim_presets_json() -> PyResult<String> {
    guard("sim_presets_json", || {
        let v: Vec<serde_json::Value> = sim::PRESETS
            .iter()
            .map(|p| {
                let params = sim::Params::preset(p.name).expect("registered preset");
                json!({"name": p.name, "summary": p.summary, "params": params})
            })
            .collect();
        Ok(to_json(&v))
    })
}

/// JSON of the parameters a preset gives after `key=value` overrides (validated).
#[pyfunction]
#[pyo3(signature = (preset, overrides = Vec::new()))]
pub(crate) fn sim_params_json(preset: &str, overrides: Vec<String>) -> PyResult<String> {
    guard("sim_params_json", || {
        let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
        let p = sim::Params::with_overrides(preset, &o).map_err(errors::sim)?;
        p.validate().map_err(errors::sim)?;
        Ok(json!({"params": p, "mtu_flits": p.mtu_flits(), "flit_ps": p.flit_ps()}).to_string())
    })
}

/// Bytes in a size like `4KiB`, `1MiB`, `128B`.
#[pyfunction]
pub(crate) fn parse_bytes(text: &str) -> PyResult<u64> {
    guard("parse_bytes", || {
        sim::units::parse_bytes(text).map_err(|m| errors::sim(SimError::Param { param: "size".into(), message: m }))
    })
}

/// JSON list of the registered generators.
#[pyfunction]
pub(crate) fn generators_json() -> PyResult<String> {
    guard("generators_json", || {
        let v: Vec<_> = GENERATORS
            .iter()
            .map(|g| {
                json!({"name": g.name, "summary": g.summary, "params": g.params,
                       "endpoint_order": g.endpoint_order, "default_routing": g.default_routing})
            })
            .collect();
        Ok(to_json(&v))
    })
}

/// JSON list of the registered routing engines.
#[pyfunction]
pub(crate) fn routings_json() -> PyResult<String> {
    guard("routings_json", || {
        let v: Vec<_> = ROUTINGS
            .iter()
            .map(|r| json!({"name": r.name, "summary": r.summary, "params": r.params, "applies_to": r.applies_to}))
            .collect();
        Ok(to_json(&v))
    })
}

/// JSON list of the workload kinds (`mcastlab simulate --workload`).
#[pyfunction]
pub(crate) fn workloads_json() -> PyResult<String> {
    guard("workloads_json", || {
        let v: Vec<_> =
            sim::WORKLOADS.iter().map(|w| json!({"name": w.name, "summary": w.summary, "params": w.params})).collect();
        Ok(to_json(&v))
    })
}

/// JSON list of the NI send protocols (`ni.send`).
#[pyfunction]
pub(crate) fn protocols_json() -> PyResult<String> {
    guard("protocols_json", || {
        let v: Vec<_> = sim::PROTOCOLS.iter().map(|p| json!({"name": p.name, "summary": p.summary})).collect();
        Ok(to_json(&v))
    })
}

/// JSON list of the registered multicast schemes.
#[pyfunction]
pub(crate) fn schemes_json() -> PyResult<String> {
    guard("schemes_json", || {
        let v: Vec<_> = SCHEMES
            .iter()
            .map(|s| json!({"name": s.name, "summary": s.summary, "params": s.params, "applies_to": s.applies_to}))
            .collect();
        Ok(to_json(&v))
    })
}

/// Theorem 3 of sivaram98: (optimal k, L1, L1 + (m-1)k) for n nodes (source included), m packets.
#[pyfunction]
pub(crate) fn kbinomial_optimal(n: u64, m: u32) -> PyResult<(u32, u32, u64)> {
    guard("kbinomial_optimal", || kbinomial::optimal_k(n, m).map_err(errors::plan))
}

/// Lemma 4 of sivaram98: N(s, k), nodes covered in s steps by a k-binomial tree (as a string: it can exceed 64 bits).
#[pyfunction]
pub(crate) fn kbinomial_covered(s: u32, k: u32) -> PyResult<String> {
    guard("kbinomial_covered", || kbinomial::n_covered(s, k).map(|v| v.to_string()).map_err(errors::plan))
}

/// The coll03 Table 1 / Fig. 7 experiment (`experiments::qs_table`): `preset` is `table1` or `fig7`,
/// `overrides` a JSON object of `QsTableConfig` fields replacing the preset's. Returns
/// `{"rows": [...], "interrupted": bool}`. The trials run in parallel on a supervised worker
/// (`supervise`): Ctrl-C stops them before their next trial and the rows of the configurations
/// that finished come back with `interrupted` true.
#[pyfunction]
pub(crate) fn qs_table_json(py: Python<'_>, preset: &str, overrides: &str) -> PyResult<String> {
    use mcastlab_core::experiments::qs_table::{qs_table_with, QsTableConfig};
    const WHAT: &str = "qs_table";
    let cfg: QsTableConfig = guard(WHAT, || {
        let mut v = serde_json::to_value(qs_table_preset(preset)?).expect("json");
        let extra: serde_json::Value = serde_json::from_str(overrides)
            .map_err(|e| errors::PlanError::new_err(format!("qs-table options: {e}")))?;
        if let (Some(obj), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            for (k, x) in extra {
                obj.insert(k.clone(), x.clone());
            }
        }
        serde_json::from_value(v).map_err(|e| errors::PlanError::new_err(format!("qs-table options: {e}")))
    })?;
    let stop = AtomicBool::new(false);
    let work = || qs_table_with(&cfg, &|| !stop.load(Ordering::Relaxed)).map_err(errors::plan);
    let out = supervise(py, WHAT, &stop, work, |_| Ok(()))?;
    Ok(serde_json::json!({"rows": out.value, "interrupted": out.signal.is_some()}).to_string())
}

fn qs_table_preset(preset: &str) -> PyResult<mcastlab_core::experiments::qs_table::QsTableConfig> {
    use mcastlab_core::experiments::qs_table::QsTableConfig;
    match preset {
        "table1" => Ok(QsTableConfig::table1()),
        "fig7" => Ok(QsTableConfig::fig7()),
        other => Err(errors::PlanError::new_err(format!("unknown qs-table preset `{other}`: use table1 or fig7"))),
    }
}

/// The configuration of a qs-table preset, as JSON.
#[pyfunction]
pub(crate) fn qs_table_config_json(preset: &str) -> PyResult<String> {
    guard("qs_table_config_json", || Ok(to_json(&qs_table_preset(preset)?)))
}

/// Parses a generator spec and returns its canonical form (all parameters spelled out).
#[pyfunction]
pub(crate) fn canonical_spec(spec: &str) -> PyResult<String> {
    guard("canonical_spec", || {
        let t = generators::parse_spec(spec).map_err(errors::fabric)?;
        Ok(generators::canonical_spec(&t))
    })
}
