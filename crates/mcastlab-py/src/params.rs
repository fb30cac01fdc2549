//! The parameter table for Python: every settable key with its type, units, doc and value in each
//! preset, as the core's parameter table lists them (`mcastlab.param_table()`; Python also takes
//! the `measure.*` key list from here instead of spelling it).

use crate::guard::guard;
use mcastlab_core::sim::params::docs;
use pyo3::prelude::*;

/// JSON list of rows `{key, type, unit_or_values, doc, presets: {preset: value text}}`: the
/// simulator parameters in display order, then the workload measurement settings (`measure.*`,
/// whose value is the same default in every preset).
#[pyfunction]
pub fn param_table_json() -> PyResult<String> {
    guard("param_table_json", || Ok(serde_json::to_string(&docs::rows()).expect("json")))
}
