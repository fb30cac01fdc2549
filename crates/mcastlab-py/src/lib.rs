//! Python bindings of mcastlab-core: thin wrappers only. Structured results cross the boundary as
//! JSON text (the Python layer parses it), so the Rust side has one serialization path and the
//! Python side gets plain dicts and lists. Long operations release the GIL.
//!
//! Every function and method that runs core code does so through `guard::guard` (or
//! `guard_nogil`, which also releases the GIL), so a panic in the core reaches Python as
//! `mcastlab.InternalError`; simulations run under `supervise`, which stops them promptly when the
//! progress callback raises or Ctrl-C arrives. Only reads of a plan's own fields (`Plan.scheme`,
//! `Plan.num_transmissions`) and argument checks stay unguarded.
//!
//! | file | what |
//! |---|---|
//! | `py_fabric.rs`, `py_routing.rs`, `py_plan.rs` | the classes `Fabric`, `Routing`, `Plan` |
//! | `workloads.rs` | workload runs and sweeps |
//! | `registry.rs` | what the registries hold, small helpers, paper experiments |
//! | `params.rs` | the parameter table |
//! | `guard.rs`, `supervise.rs` | panics become `InternalError`; runs that stop when asked |
//! | `errors.rs` | the one map from core errors to Python exceptions |
mod errors;
mod guard;
mod params;
mod py_fabric;
mod py_plan;
mod py_routing;
mod registry;
mod supervise;
mod workloads;

use crate::guard::guard_nogil;
use crate::supervise::supervise;
use mcastlab_core::fabric::generators::{self};
use pyo3::prelude::*;
use std::sync::atomic::AtomicBool;

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializable")
}

/// A validated fabric (immutable).
/// For tests only, hidden (not in `mcastlab`'s API): panics with `message` inside the guarded
/// paths the real bindings use — `site="guard"` on the calling thread with the GIL released, as
/// every short binding runs core code; `site="worker"` on a supervised worker thread, as a
/// simulation runs. It exists because no known input makes the core panic (that would be a bug,
/// and fixed), yet the mapping of a panic to `mcastlab.InternalError`, in the bindings and through
/// the CLI, must be tested.
#[pyfunction]
#[pyo3(name = "_panic_for_tests", signature = (message, site = "guard"))]
fn panic_for_tests(py: Python<'_>, message: &str, site: &str) -> PyResult<()> {
    const WHAT: &str = "_panic_for_tests";
    match site {
        "guard" => guard_nogil(py, WHAT, || -> PyResult<()> { panic!("{message}") }),
        "worker" => {
            let stop = AtomicBool::new(false);
            supervise(py, WHAT, &stop, || -> PyResult<()> { panic!("{message}") }, |_| Ok(())).map(|_| ())
        }
        other => Err(pyo3::exceptions::PyValueError::new_err(format!("site `{other}`: use guard or worker"))),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    guard::install_panic_hook();
    m.add_class::<py_fabric::PyFabric>()?;
    m.add_class::<py_routing::PyRouting>()?;
    m.add_function(wrap_pyfunction!(registry::generators_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::routings_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::canonical_spec, m)?)?;
    m.add_function(wrap_pyfunction!(registry::schemes_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::kbinomial_optimal, m)?)?;
    m.add_function(wrap_pyfunction!(registry::kbinomial_covered, m)?)?;
    m.add_function(wrap_pyfunction!(registry::qs_table_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::run_workload_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::sweep_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::estimate_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::workload_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::workloads_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::protocols_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::qs_table_config_json, m)?)?;
    m.add_class::<py_plan::PyPlan>()?;
    m.add_function(wrap_pyfunction!(registry::sim_presets_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::sim_params_json, m)?)?;
    m.add_function(wrap_pyfunction!(registry::parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(params::param_table_json, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_tests, m)?)?;
    m.add("DEFAULT_SPEC", generators::DEFAULT_SPEC)?;
    m.add("PLAN_MAX_DEPTH", mcastlab_core::io::plan_json::MAX_PLAN_DEPTH)?;
    m.add("MAX_NS_PER_OP", mcastlab_core::plan::creation::MAX_NS_PER_OP)?;
    m.add("McastlabError", py.get_type::<errors::McastlabError>())?;
    m.add("SpecError", py.get_type::<errors::SpecError>())?;
    m.add("FabricError", py.get_type::<errors::FabricError>())?;
    m.add("RoutingError", py.get_type::<errors::RoutingError>())?;
    m.add("PlanError", py.get_type::<errors::PlanError>())?;
    m.add("SimError", py.get_type::<errors::SimError>())?;
    m.add("InternalError", py.get_type::<errors::InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
