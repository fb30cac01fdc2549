//! `mcastlab._core.Routing`: a routing of a fabric, its routes, checks and plans.

use crate::guard::{guard, guard_nogil};
use mcastlab_core::check::{self, CheckOptions};
use mcastlab_core::fabric::Fabric;
use mcastlab_core::ids::{Address, EndpointId, PortNum, SwitchId};
use mcastlab_core::io;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing::{path, Arrival, Routing};
use mcastlab_core::schemes::{self, group, SchemeInput};
use pyo3::prelude::*;
use serde_json::json;
use std::sync::Arc;

use crate::py_plan::PyPlan;
use crate::{errors, to_json};

/// A routing of one fabric.
#[pyclass(name = "Routing", module = "mcastlab._core", frozen)]
pub(crate) struct PyRouting {
    pub(crate) fabric: Arc<Fabric>,
    pub(crate) inner: Arc<dyn Routing>,
}

impl PyRouting {
    pub(crate) fn parts(&self) -> (Arc<Fabric>, Arc<dyn Routing>) {
        (self.fabric.clone(), self.inner.clone())
    }
}

#[pymethods]
impl PyRouting {
    #[getter]
    fn engine(&self) -> PyResult<&'static str> {
        guard("Routing.engine", || Ok(self.inner.engine()))
    }
    #[getter]
    fn spec(&self) -> PyResult<String> {
        guard("Routing.spec", || Ok(self.inner.spec()))
    }
    #[getter]
    fn vc_classes(&self) -> PyResult<u8> {
        guard("Routing.vc_classes", || Ok(self.inner.vc_classes()))
    }
    #[getter]
    fn num_addresses(&self) -> PyResult<usize> {
        guard("Routing.num_addresses", || Ok(self.inner.num_addresses()))
    }
    /// Key facts (root, levels, LMC, ...), as (name, value) pairs.
    fn facts(&self) -> PyResult<Vec<(String, String)>> {
        guard("Routing.facts", || Ok(self.inner.facts()))
    }
    /// The address `src` uses for `dst`.
    fn address(&self, src: u32, dst: u32) -> PyResult<u32> {
        let n = self.fabric.num_endpoints() as u32;
        if src >= n || dst >= n {
            return Err(errors::fabric(mcastlab_core::FabricError::UnknownEndpoint(format!("{src} or {dst}"))));
        }
        guard("Routing.address", || Ok(self.inner.address(EndpointId(src), EndpointId(dst)).0))
    }
    /// The InfiniBand DLID `src` puts in a packet for `dst` (None when the routing has no LIDs).
    fn dlid(&self, src: u32, dst: u32) -> PyResult<Option<u32>> {
        let a = self.address(src, dst)?;
        guard("Routing.dlid", || Ok(self.inner.lid(Address(a))))
    }
    /// Legal (port, vc) choices at a switch, deterministic first.
    fn next_hops(&self, switch: u32, in_port: u16, in_vc: u8, address: u32) -> PyResult<Vec<(u16, u8)>> {
        if switch as usize >= self.fabric.num_switches() || address as usize >= self.inner.num_addresses() {
            return Err(errors::routing(mcastlab_core::RoutingError::Param {
                engine: self.inner.engine(),
                param: "switch/address",
                message: "out of range".into(),
            }));
        }
        guard("Routing.next_hops", || {
            let mut out = Vec::new();
            self.inner.next_hops(
                SwitchId(switch),
                Arrival { port: PortNum(in_port), vc: in_vc },
                Address(address),
                &mut out,
            );
            Ok(out.into_iter().map(|h| (h.port.0, h.vc)).collect())
        })
    }
    /// JSON: the deterministic path and up to `max_paths` adaptive paths with their total count.
    #[pyo3(signature = (src, dst, max_paths = 16))]
    fn route_json(&self, py: Python<'_>, src: u32, dst: u32, max_paths: usize) -> PyResult<String> {
        let n = self.fabric.num_endpoints() as u32;
        for e in [src, dst] {
            if e >= n {
                return Err(errors::fabric(mcastlab_core::FabricError::UnknownEndpoint(format!(
                    "{e} ({})",
                    self.fabric.endpoint_index_range()
                ))));
            }
        }
        let (f, r) = (&self.fabric, &self.inner);
        guard_nogil(py, "Routing.route_json", || {
            let det = path::deterministic(f, r.as_ref(), EndpointId(src), EndpointId(dst)).map_err(errors::routing)?;
            let (paths, total) =
                path::all_paths(f, r.as_ref(), EndpointId(src), EndpointId(dst), max_paths).map_err(errors::routing)?;
            let render = |p: &path::Path| {
                json!({
                    "links": p.links(),
                    "hops": p.hops.iter().map(|h| json!({
                        "switch": h.switch.0, "switch_name": f.switch(h.switch).name,
                        "in_port": h.in_port.0, "out_port": h.out_port.0, "vc": h.vc,
                    })).collect::<Vec<_>>(),
                    "text": p.render(f),
                })
            };
            Ok(json!({
                "src": src, "dst": dst, "address": det.address.0, "dlid": r.lid(det.address),
                "src_name": f.endpoint(EndpointId(src)).name, "dst_name": f.endpoint(EndpointId(dst)).name,
                "deterministic": render(&det),
                "paths": paths.iter().map(render).collect::<Vec<_>>(),
                "total_paths": total.to_string(),
            })
            .to_string())
        })
    }
    /// The routing check's work estimate (addresses × states), known before it runs.
    fn check_work(&self) -> u64 {
        check::estimated_work(&self.fabric, self.inner.as_ref())
    }
    /// JSON of the routing check (reachability and deadlock freedom).
    #[pyo3(signature = (max_work = None))]
    fn check_json(&self, py: Python<'_>, max_work: Option<u64>) -> PyResult<String> {
        guard_nogil(py, "Routing.check_json", || {
            let mut opts = CheckOptions::default();
            if let Some(w) = max_work {
                opts.max_work = w;
            }
            Ok(to_json(&check::check(&self.fabric, self.inner.as_ref(), &opts)))
        })
    }
    /// OpenSM's `opensm-lfts.dump` text of this routing's LFTs (`io::lft_dump`).
    fn lfts_dump(&self, py: Python<'_>) -> PyResult<String> {
        guard_nogil(py, "Routing.lfts_dump", || {
            Ok(io::lft_dump::write_lfts(&self.fabric, &io::lft_dump::lfts_of(&self.fabric, self.inner.as_ref())))
        })
    }
    /// JSON of the joint unicast + multicast deadlock check (`check::joint::check_joint`): this
    /// routing on SL `unicast_sl` with the MFT trees of `plans`, plan `i` on SL `plan_sls[i]`
    /// (default 0), and every MLID of an MFT dump's text (`opensm.mcfdbs` or `ibroute -M`) on SL
    /// `mfts_sl`; SLs mapped to VLs by the text of an SL->VL file (default: all on VL 0).
    #[pyo3(signature = (plans, unicast_sl = 0, plan_sls = None, sl2vl = None, sl2vl_name = "<sl2vl>",
                        mfts = None, mfts_name = "<mfts>", mfts_sl = 0))]
    #[allow(clippy::too_many_arguments)]
    fn joint_deadlock_json(
        &self,
        py: Python<'_>,
        plans: Vec<PyRef<'_, PyPlan>>,
        unicast_sl: u8,
        plan_sls: Option<Vec<u8>>,
        sl2vl: Option<String>,
        sl2vl_name: &str,
        mfts: Option<String>,
        mfts_name: &str,
        mfts_sl: u8,
    ) -> PyResult<String> {
        let table = match sl2vl {
            Some(t) => check::joint::Sl2Vl::parse(&t)
                .map_err(|m| errors::RoutingError::new_err(format!("{sl2vl_name}: {m}")))?,
            None => check::joint::Sl2Vl::default(),
        };
        let sls = plan_sls.unwrap_or_else(|| vec![0; plans.len()]);
        if sls.len() != plans.len() || unicast_sl > 15 || mfts_sl > 15 || sls.iter().any(|s| *s > 15) {
            return Err(errors::RoutingError::new_err(format!(
                "give one SL (0..=15) per plan: {} plan(s), {} SL(s)",
                plans.len(),
                sls.len()
            )));
        }
        let owned: Vec<Arc<mcastlab_core::plan::Plan>> = plans.iter().map(|p| p.inner.clone()).collect();
        guard_nogil(py, "Routing.joint_deadlock_json", || {
            let dumped = match &mfts {
                Some(text) => mcastlab_core::mcast::dump::parse(&self.fabric, text, mfts_name).map_err(errors::plan)?,
                None => Vec::new(),
            };
            let mut trees: Vec<(&[mcastlab_core::plan::MftEntry], u8)> =
                owned.iter().zip(&sls).map(|(p, sl)| (p.switch_state.mft.as_slice(), *sl)).collect();
            if mfts.is_some() {
                if dumped.is_empty() {
                    return Err(errors::PlanError::new_err(format!(
                        "{mfts_name}: the MFT dump has no rows, so it adds no multicast tree to the deadlock check"
                    )));
                }
                trees.push((dumped.as_slice(), mfts_sl));
            }
            let rep = check::joint::check_joint(&self.fabric, self.inner.as_ref(), &trees, unicast_sl, &table)
                .map_err(errors::routing)?;
            Ok(to_json(&rep))
        })
    }
    /// Builds a multicast plan with a scheme (`kbinomial:k=2`).
    #[pyo3(signature = (scheme, source, destinations, packets = 1, discipline = "fpfs"))]
    fn plan(
        &self,
        py: Python<'_>,
        scheme: String,
        source: u32,
        destinations: Vec<u32>,
        packets: u32,
        discipline: &str,
    ) -> PyResult<PyPlan> {
        let p = guard_nogil(py, "Routing.plan", || {
            let d = Discipline::parse(discipline).map_err(errors::plan)?;
            let dests: Vec<EndpointId> = destinations.into_iter().map(EndpointId).collect();
            let input = SchemeInput {
                fabric: &self.fabric,
                routing: self.inner.as_ref(),
                source: EndpointId(source),
                destinations: &dests,
                packets,
                discipline: d,
            };
            schemes::plan(&input, &scheme).map_err(errors::plan)
        })?;
        Ok(PyPlan { fabric: self.fabric.clone(), routing: self.inner.clone(), inner: Arc::new(p) })
    }
    /// A plan of one packet from `src` over the MFTs of a dump, for MLID `mlid` (destinations:
    /// the group's other members when `groups` is given, else the ports the dump's rows name).
    #[pyo3(signature = (dump, name, mlid, src, groups = None, groups_name = None, packets = 1))]
    #[allow(clippy::too_many_arguments)]
    fn plan_from_mfts(
        &self,
        py: Python<'_>,
        dump: &str,
        name: &str,
        mlid: u32,
        src: u32,
        groups: Option<String>,
        groups_name: Option<&str>,
        packets: u32,
    ) -> PyResult<PyPlan> {
        let p = crate::guard::guard_nogil(py, "Routing.plan_from_mfts", || {
            let f = &*self.fabric;
            let rows = mcastlab_core::mcast::dump::parse(f, dump, name).map_err(errors::plan)?;
            let by_mlid = crate::py_fabric::mcast_members(f, groups.as_deref(), groups_name)?;
            if (src as usize) >= f.num_endpoints() {
                return Err(errors::plan(mcastlab_core::PlanError::Param {
                    param: "src",
                    message: format!("endpoint {src} outside the fabric"),
                }));
            }
            mcastlab_core::mcast::verify::plan_from_mfts(
                f,
                rows,
                mlid,
                mcastlab_core::EndpointId(src),
                by_mlid.get(&mlid).map(Vec::as_slice),
                packets,
            )
            .map_err(errors::plan)
        })?;
        Ok(PyPlan { fabric: self.fabric.clone(), routing: self.inner.clone(), inner: Arc::new(p) })
    }
    /// A plan from JSON text (a saved plan, or transmissions a user wrote), validated on this fabric.
    #[pyo3(signature = (text, name = "<string>"))]
    fn plan_from_json(&self, text: &str, name: &str) -> PyResult<PyPlan> {
        let p = guard("Routing.plan_from_json", || {
            io::plan_json::read_plan(text, name, &self.fabric).map_err(errors::plan)
        })?;
        Ok(PyPlan { fabric: self.fabric.clone(), routing: self.inner.clone(), inner: Arc::new(p) })
    }
    /// `percent`% of the endpoints other than `source` (or exactly `count` of them, when given),
    /// drawn with `seed` (`schemes::group::GroupSize`).
    #[pyo3(signature = (source, percent, seed, count = None))]
    fn random_group(&self, source: u32, percent: f64, seed: u64, count: Option<u32>) -> PyResult<Vec<u32>> {
        if source as usize >= self.fabric.num_endpoints() {
            return Err(errors::plan(mcastlab_core::PlanError::Group(format!("source {source} is not in the fabric"))));
        }
        guard("Routing.random_group", || {
            let size = count.map_or(group::GroupSize::Percent(percent), group::GroupSize::Count);
            group::random_group_of(&self.fabric, EndpointId(source), size, seed)
                .map(|v| v.into_iter().map(|e| e.0).collect())
                .map_err(errors::plan)
        })
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Routing.__repr__", || Ok(format!("Routing('{}')", self.inner.spec())))
    }
}
