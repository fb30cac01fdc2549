//! `mcastlab._core.Fabric`: a fabric, its queries, files and routings.

use crate::guard::{guard, guard_nogil};
use mcastlab_core::fabric::generators::{self};
use mcastlab_core::fabric::Fabric;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::io;
use mcastlab_core::mcast;
use mcastlab_core::routing::{self};
use mcastlab_core::schemes::{self};
use mcastlab_core::stats;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

use crate::py_routing::PyRouting;
use crate::{errors, to_json};

#[pyclass(name = "Fabric", module = "mcastlab._core", frozen)]
pub(crate) struct PyFabric {
    pub(crate) inner: Arc<Fabric>,
}

#[pymethods]
impl PyFabric {
    /// Builds a fabric from a spec string such as `torus:4x4`.
    #[staticmethod]
    fn generate(py: Python<'_>, spec: &str) -> PyResult<Self> {
        let f = guard_nogil(py, "Fabric.generate", || generators::generate(spec).map_err(errors::fabric))?;
        Ok(PyFabric { inner: Arc::new(f) })
    }

    /// Loads a JSON or ibnetdiscover file.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let f = guard_nogil(py, "Fabric.load", || io::load(&path).map_err(errors::fabric))?;
        Ok(PyFabric { inner: Arc::new(f) })
    }

    /// Parses fabric text (JSON or ibnetdiscover); `name` appears in error messages.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<string>"))]
    fn parse(text: &str, name: &str) -> PyResult<Self> {
        let f = guard("Fabric.parse", || io::load_str(text, name).map_err(errors::fabric))?;
        Ok(PyFabric { inner: Arc::new(f) })
    }

    /// Saves to a file; the extension picks the format (.json, .dot, .topo).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        guard_nogil(py, "Fabric.save", || io::save(&self.inner, &path).map_err(errors::fabric))
    }

    fn to_json(&self) -> PyResult<String> {
        guard("Fabric.to_json", || Ok(io::json::to_string(&self.inner)))
    }
    fn to_dot(&self) -> PyResult<String> {
        guard("Fabric.to_dot", || Ok(io::dot::to_dot(&self.inner)))
    }
    fn to_ibnetdiscover(&self) -> PyResult<String> {
        guard("Fabric.to_ibnetdiscover", || io::ibnetdiscover::export(&self.inner).map_err(errors::fabric))
    }

    #[getter]
    fn name(&self) -> PyResult<String> {
        guard("Fabric.name", || Ok(self.inner.name().to_string()))
    }
    #[getter]
    fn num_switches(&self) -> PyResult<usize> {
        guard("Fabric.num_switches", || Ok(self.inner.num_switches()))
    }
    #[getter]
    fn num_endpoints(&self) -> PyResult<usize> {
        guard("Fabric.num_endpoints", || Ok(self.inner.num_endpoints()))
    }
    #[getter]
    fn num_links(&self) -> PyResult<usize> {
        guard("Fabric.num_links", || Ok(self.inner.num_links()))
    }
    /// JSON of the topology record (generator and parameters, or import source).
    fn topology_json(&self) -> PyResult<String> {
        guard("Fabric.topology_json", || Ok(to_json(self.inner.topology())))
    }
    /// JSON of the structural statistics.
    fn stats_json(&self, py: Python<'_>) -> PyResult<String> {
        guard_nogil(py, "Fabric.stats_json", || Ok(to_json(&stats::stats(&self.inner))))
    }
    /// Endpoint index for an index, name, P(...) label, GUID or description.
    fn find_endpoint(&self, key: &str) -> PyResult<u32> {
        guard("Fabric.find_endpoint", || self.inner.find_endpoint(key).map(|e| e.0).map_err(errors::fabric))
    }
    fn find_switch(&self, key: &str) -> PyResult<u32> {
        guard("Fabric.find_switch", || self.inner.find_switch(key).map(|s| s.0).map_err(errors::fabric))
    }
    /// (switch index, port) an endpoint is attached to.
    fn attachment(&self, endpoint: u32) -> PyResult<(u32, u16)> {
        self.check_endpoint(endpoint)?;
        guard("Fabric.attachment", || {
            let (s, p) = self.inner.attachment(EndpointId(endpoint));
            Ok((s.0, p.0))
        })
    }
    /// Builds a routing; `spec=None` picks the fabric's default engine.
    #[pyo3(signature = (spec = None))]
    fn routing(&self, py: Python<'_>, spec: Option<String>) -> PyResult<PyRouting> {
        let r = guard_nogil(py, "Fabric.routing", || {
            routing::build(&self.inner, spec.as_deref()).map_err(errors::routing)
        })?;
        Ok(PyRouting { fabric: self.inner.clone(), inner: Arc::from(r) })
    }
    /// A routing read from an LFT dump (`opensm-lfts.dump` text; `file` names it in errors).
    #[pyo3(signature = (text, file = "<lfts>"))]
    fn load_lfts(&self, py: Python<'_>, text: String, file: &str) -> PyResult<PyRouting> {
        let r = guard_nogil(py, "Fabric.load_lfts", || {
            let lfts = mcastlab_core::io::lft_dump::read_lfts(&self.inner, &text, file)
                .map_err(errors::RoutingError::new_err)?;
            Ok(mcastlab_core::routing::lft_file::LoadedLfts::new(file, lfts))
        })?;
        Ok(PyRouting { fabric: self.inner.clone(), inner: Arc::new(r) })
    }
    /// Names of the multicast schemes that apply to this fabric, in registry order.
    fn applicable_schemes(&self) -> PyResult<Vec<&'static str>> {
        guard("Fabric.applicable_schemes", || Ok(schemes::applicable(&self.inner)))
    }
    /// Names of the routing engines that apply to this fabric.
    fn applicable_routings(&self) -> PyResult<Vec<&'static str>> {
        guard("Fabric.applicable_routings", || Ok(routing::applicable(&self.inner)))
    }
    fn default_routing(&self) -> PyResult<&'static str> {
        guard("Fabric.default_routing", || Ok(routing::default_engine(&self.inner)))
    }
    /// MFTs of every group of a groups text (JSON, text form or `saquery -m`): JSON with the
    /// per-group report, the rows, the `opensm.mcfdbs` dump, the `ibroute -M` text of every switch
    /// holding a row (`brief` = `-n`) and the capacity report under `mft_cap` / `hca_groups`, with
    /// each switch's own cap where `switchinfo` (`smpquery switchinfo` text) gives one.
    #[pyo3(signature = (groups, name, routing = None, mft_cap = None, hca_groups = None, brief = false, switchinfo = None, switchinfo_name = "<switchinfo>"))]
    #[allow(clippy::too_many_arguments)]
    fn mcast_json(
        &self,
        py: Python<'_>,
        groups: &str,
        name: Option<&str>,
        routing: Option<String>,
        mft_cap: Option<u32>,
        hca_groups: Option<u32>,
        brief: bool,
        switchinfo: Option<String>,
        switchinfo_name: &str,
    ) -> PyResult<String> {
        guard_nogil(py, "Fabric.mcast_json", || {
            let f = &*self.inner;
            let specs = parse_groups(groups, name)?;
            let resolved = mcast::groups::resolve(f, &specs).map_err(errors::plan)?;
            let hops = mcast::build::hop_matrix(f, routing.as_deref()).map_err(errors::plan)?;
            let tables = mcast::build::build(f, &*hops, &resolved).map_err(errors::plan)?;
            let mut limits = mcast::capacity::Limits::default();
            if let Some(c) = mft_cap {
                limits.mft_cap = c;
            }
            if let Some(h) = hca_groups {
                limits.hca_groups = h;
            }
            if let Some(text) = switchinfo.as_deref() {
                limits.switch_caps = mcast::switchinfo::switch_caps(f, text, switchinfo_name).map_err(errors::plan)?;
            }
            let capacity = mcast::capacity::admit(f, &resolved, &tables, &limits).map_err(errors::plan)?;
            let mcfdbs = io::mft_dump::opensm_mcfdbs(f, &tables.mft).map_err(errors::plan)?;
            let ibroute = mcast::build::ibroute_text(f, &tables.mft, brief).map_err(errors::plan)?;
            let rows: Vec<serde_json::Value> = tables
                .mft
                .iter()
                .map(|e| {
                    serde_json::json!({"mlid": e.mlid, "switch": f.switch(e.switch).name,
                        "ports": e.ports.iter().map(|p| p.0).collect::<Vec<_>>()})
                })
                .collect();
            Ok(serde_json::json!({"groups": tables.groups, "mft": rows, "mcfdbs": mcfdbs,
                "ibroute": ibroute, "capacity": capacity})
            .to_string())
        })
    }
    /// Checks an MFT dump (`opensm.mcfdbs` or `ibroute -M`) MLID by MLID: JSON list of verdicts.
    /// With `groups`, an MLID's members are the group's; else those the dump names.
    #[pyo3(signature = (dump, name, groups = None, groups_name = None))]
    fn check_mfts_json(
        &self,
        py: Python<'_>,
        dump: &str,
        name: &str,
        groups: Option<String>,
        groups_name: Option<&str>,
    ) -> PyResult<String> {
        guard_nogil(py, "Fabric.check_mfts_json", || {
            let f = &*self.inner;
            let rows = mcast::dump::parse(f, dump, name).map_err(errors::plan)?;
            let by_mlid = mcast_members(f, groups.as_deref(), groups_name)?;
            Ok(to_json(&mcast::verify::check_dump(f, &rows, &by_mlid)))
        })
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Fabric.__repr__", || {
            Ok(format!(
                "Fabric('{}': {} switches, {} endpoints, {} links)",
                self.inner.name(),
                self.inner.num_switches(),
                self.inner.num_endpoints(),
                self.inner.num_links()
            ))
        })
    }
    fn __eq__(&self, other: &Self) -> PyResult<bool> {
        guard("Fabric.__eq__", || Ok(*self.inner == *other.inner))
    }
}

impl PyFabric {
    fn check_endpoint(&self, e: u32) -> PyResult<()> {
        if (e as usize) < self.inner.num_endpoints() {
            Ok(())
        } else {
            Err(errors::fabric(mcastlab_core::FabricError::UnknownEndpoint(format!(
                "{e} ({})",
                self.inner.endpoint_index_range()
            ))))
        }
    }
}

/// The groups of a text read from file `name`, which must hold one, or (no `name`) of the
/// caller's own list, which may hold none (`mcast::groups::parse_file`).
fn parse_groups(text: &str, name: Option<&str>) -> PyResult<Vec<mcast::groups::GroupSpec>> {
    match name {
        Some(file) => mcast::groups::parse_file(text, file),
        None => mcast::groups::parse(text, "<groups list>"),
    }
    .map_err(errors::plan)
}

/// Members per MLID of a groups text (MLIDs allocated as for the MFTs; `name` as for
/// `parse_groups`), or nothing without one.
pub(crate) fn mcast_members(
    f: &Fabric,
    groups: Option<&str>,
    name: Option<&str>,
) -> PyResult<std::collections::BTreeMap<u32, Vec<mcast::select::Member>>> {
    let Some(text) = groups else { return Ok(Default::default()) };
    let specs = parse_groups(text, name)?;
    let resolved = mcast::groups::resolve(f, &specs).map_err(errors::plan)?;
    let mlids = mcast::build::allocate_mlids(&resolved).map_err(errors::plan)?;
    Ok(mlids.into_iter().zip(resolved).map(|(m, g)| (m, g.members.into_iter().map(|(x, _)| x).collect())).collect())
}
