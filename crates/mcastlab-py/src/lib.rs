//! Python bindings of mcastlab-core: thin wrappers only. Structured results cross the boundary as
//! JSON text (the Python layer parses it), so the Rust side has one serialization path and the
//! Python side gets plain dicts and lists. Long operations release the GIL.
//!
//! Every function and method that runs core code does so through `guard::guard` (or
//! `guard_nogil`, which also releases the GIL), so a panic in the core reaches Python as
//! `mcastlab.InternalError`; simulations run under `supervise`, which stops them promptly when the
//! progress callback raises or Ctrl-C arrives. Only reads of a plan's own fields (`Plan.scheme`,
//! `Plan.num_transmissions`) and argument checks stay unguarded.

mod errors;
mod guard;
mod params;
mod supervise;
mod workloads;

use guard::{guard, guard_nogil};
use mcastlab_core::check::{self, CheckOptions};
use mcastlab_core::fabric::generators::{self, GENERATORS};
use mcastlab_core::fabric::Fabric;
use mcastlab_core::ids::{Address, EndpointId, PortNum, SwitchId};
use mcastlab_core::io;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{steps::steps, Discipline, Plan};
use mcastlab_core::routing::{self, path, Arrival, Routing, ROUTINGS};
use mcastlab_core::schemes::{self, group, kbinomial, SchemeInput, SCHEMES};
use mcastlab_core::sim;
use mcastlab_core::stats;
use mcastlab_core::SimError;
use pyo3::prelude::*;
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use supervise::supervise;

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializable")
}

/// A validated fabric (immutable).
#[pyclass(name = "Fabric", module = "mcastlab._core", frozen)]
struct PyFabric {
    inner: Arc<Fabric>,
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
                "{e} (index out of range 0..{})",
                self.inner.num_endpoints()
            ))))
        }
    }
}

/// A routing of one fabric.
#[pyclass(name = "Routing", module = "mcastlab._core", frozen)]
struct PyRouting {
    fabric: Arc<Fabric>,
    inner: Arc<dyn Routing>,
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
                    "{e} (index out of range 0..{n})"
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
                "src": src, "dst": dst, "address": det.address.0,
                "src_name": f.endpoint(EndpointId(src)).name, "dst_name": f.endpoint(EndpointId(dst)).name,
                "deterministic": render(&det),
                "paths": paths.iter().map(render).collect::<Vec<_>>(),
                "total_paths": total.to_string(),
            })
            .to_string())
        })
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
    /// A plan from JSON text (a saved plan, or transmissions a user wrote), validated on this fabric.
    #[pyo3(signature = (text, name = "<string>"))]
    fn plan_from_json(&self, text: &str, name: &str) -> PyResult<PyPlan> {
        let p = guard("Routing.plan_from_json", || Plan::from_json(text, name, &self.fabric).map_err(errors::plan))?;
        Ok(PyPlan { fabric: self.fabric.clone(), routing: self.inner.clone(), inner: Arc::new(p) })
    }
    /// `percent`% of the endpoints other than `source`, drawn with `seed`.
    fn random_group(&self, source: u32, percent: f64, seed: u64) -> PyResult<Vec<u32>> {
        if source as usize >= self.fabric.num_endpoints() {
            return Err(errors::plan(mcastlab_core::PlanError::Group(format!("source {source} is not in the fabric"))));
        }
        guard("Routing.random_group", || {
            group::random_group(&self.fabric, EndpointId(source), percent, seed)
                .map(|v| v.into_iter().map(|e| e.0).collect())
                .map_err(errors::plan)
        })
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Routing.__repr__", || Ok(format!("Routing('{}')", self.inner.spec())))
    }
}

/// A multicast plan bound to its fabric and routing.
#[pyclass(name = "Plan", module = "mcastlab._core", frozen)]
struct PyPlan {
    fabric: Arc<Fabric>,
    routing: Arc<dyn Routing>,
    inner: Arc<Plan>,
}

#[pymethods]
impl PyPlan {
    fn to_json(&self) -> PyResult<String> {
        guard("Plan.to_json", || Ok(self.inner.to_json()))
    }
    /// JSON of the CheckReport (exactly-once, conformance, deadlock, steps, links, contention).
    #[pyo3(signature = (max_work = None))]
    fn check_json(&self, py: Python<'_>, max_work: Option<u64>) -> PyResult<String> {
        let mut opts = PlanCheckOptions::default();
        if let Some(w) = max_work {
            opts.routing.max_work = w;
        }
        guard_nogil(py, "Plan.check_json", || {
            check_plan(&self.fabric, self.routing.as_ref(), &self.inner, &opts)
                .map(|rep| to_json(&rep))
                .map_err(errors::plan)
        })
    }
    /// JSON list, per transmission, of the tree its carrier takes (decoded switch by switch): the
    /// sender, carrier kind, the step of its first packet, the channels crossed as `[link,
    /// direction]` pairs (injection first) and the endpoints reached. For drawing.
    fn trees_json(&self, py: Python<'_>) -> PyResult<String> {
        let (f, r, p) = (&self.fabric, &self.routing, &self.inner);
        guard_nogil(py, "Plan.trees_json", || {
            let st = steps(p).map_err(errors::plan)?;
            let m = p.packets as usize;
            let walker = Walker::new(f, r.as_ref(), &p.switch_state);
            let out: Vec<serde_json::Value> = p
                .transmissions
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let tree = walker.walk(t.sender, &t.carrier);
                    let chans: Vec<(u32, u8)> = tree.channels(f).iter().map(|c| (c.link().0, c.dir())).collect();
                    json!({
                        "transmission": i,
                        "sender": t.sender.0,
                        "kind": t.carrier.kind(),
                        "step": st.sends[i * m].step,
                        "channels": chans,
                        "reached": tree.reached.iter().map(|e| e.0).collect::<Vec<_>>(),
                    })
                })
                .collect();
            Ok(to_json(&out))
        })
    }
    /// Simulates the plan (timed, contended) and returns the RunResult as JSON, without the GIL,
    /// in slices of `SIM_SLICE` events. The first slice runs on the calling thread (most runs end
    /// in it, and a thread would cost more than they do); a longer run goes on on a supervised
    /// worker: every 50 ms the calling thread checks for Ctrl-C and calls `progress(events,
    /// now_ps, False)`. `progress(events, now_ps, True)` comes once at the end. Ctrl-C, or an
    /// exception from `progress`, stops the run within a slice and is raised.
    #[pyo3(signature = (preset, overrides, message_bytes, seed, progress = None))]
    fn simulate_json(
        &self,
        py: Python<'_>,
        preset: &str,
        overrides: Vec<String>,
        message_bytes: u64,
        seed: u64,
        progress: Option<PyObject>,
    ) -> PyResult<String> {
        const WHAT: &str = "Plan.simulate";
        let params = guard(WHAT, || {
            let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
            sim::Params::with_overrides(preset, &o).map_err(errors::sim)
        })?;
        let (mut run, done) = guard_nogil(py, WHAT, || {
            let mut run =
                sim::Simulation::new(&self.fabric, self.routing.as_ref(), &self.inner, &params, message_bytes, seed)
                    .map_err(errors::sim)?;
            let done = run.advance(SIM_SLICE);
            Ok((run, done))
        })?;
        if !done {
            py.check_signals()?;
            let stop = AtomicBool::new(false);
            let at = Mutex::new(run.progress());
            let work = || -> PyResult<()> {
                while !run.advance(SIM_SLICE) {
                    *at.lock().unwrap_or_else(PoisonError::into_inner) = run.progress();
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Ok(())
            };
            let report = |py: Python<'_>| -> PyResult<()> {
                let Some(cb) = &progress else { return Ok(()) };
                let (events, now) = *at.lock().unwrap_or_else(PoisonError::into_inner);
                cb.call1(py, (events, now, false)).map(|_| ())
            };
            if let Some(e) = supervise(py, WHAT, &stop, work, report)?.signal {
                return Err(e);
            }
        }
        let (events, now) = run.progress();
        if let Some(cb) = &progress {
            cb.call1(py, (events, now, true))?;
        }
        guard_nogil(py, WHAT, || Ok(to_json(&run.results())))
    }
    /// The packets a message of `message_bytes` splits into under a preset (plans are built for it).
    #[staticmethod]
    #[pyo3(signature = (preset, overrides, message_bytes))]
    fn packets_for(preset: &str, overrides: Vec<String>, message_bytes: u64) -> PyResult<u32> {
        guard("Plan.packets_for", || {
            let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
            let params = sim::Params::with_overrides(preset, &o).map_err(errors::sim)?;
            params.validate().map_err(errors::sim)?;
            Ok(params.packets_for(message_bytes))
        })
    }
    /// The plan's multicast forwarding tables in OpenSM's `opensm.mcfdbs` dump layout.
    fn mft_dump(&self) -> PyResult<String> {
        guard("Plan.mft_dump", || {
            io::mft_dump::opensm_mcfdbs(&self.fabric, &self.inner.switch_state.mft).map_err(errors::plan)
        })
    }
    /// JSON of the step model: completion, every send's step, every destination's arrival.
    fn steps_json(&self) -> PyResult<String> {
        guard("Plan.steps_json", || steps(&self.inner).map(|s| to_json(&s)).map_err(errors::plan))
    }
    #[getter]
    fn scheme(&self) -> String {
        self.inner.scheme.clone()
    }
    #[getter]
    fn num_transmissions(&self) -> usize {
        self.inner.transmissions.len()
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Plan.__repr__", || {
            Ok(format!(
                "Plan('{}': {} -> {} destinations, {} transmissions, {} packet(s))",
                self.inner.scheme,
                self.fabric.endpoint(self.inner.source).name,
                self.inner.destinations.len(),
                self.inner.transmissions.len(),
                self.inner.packets
            ))
        })
    }
}

/// Events per slice of a plan's simulation between two looks at the stop flag: the value of the
/// core's `sim::run::STOP_CHECK_EVENTS` (private there), a few milliseconds of work, so Ctrl-C or
/// a raising progress callback stops a run within that. Progress reports do not depend on it (the
/// supervisor reports every 50 ms), and a slice's own cost is a few instructions.
const SIM_SLICE: u64 = 1 << 16;

/// JSON of the simulator presets: name, summary and every parameter's value.
#[pyfunction]
fn sim_presets_json() -> PyResult<String> {
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
fn sim_params_json(preset: &str, overrides: Vec<String>) -> PyResult<String> {
    guard("sim_params_json", || {
        let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
        let p = sim::Params::with_overrides(preset, &o).map_err(errors::sim)?;
        p.validate().map_err(errors::sim)?;
        Ok(json!({"params": p, "mtu_flits": p.mtu_flits(), "flit_ps": p.flit_ps()}).to_string())
    })
}

/// Bytes in a size like `4KiB`, `1MiB`, `128B`.
#[pyfunction]
fn parse_bytes(text: &str) -> PyResult<u64> {
    guard("parse_bytes", || {
        sim::units::parse_bytes(text).map_err(|m| errors::sim(SimError::Param { param: "size".into(), message: m }))
    })
}

/// JSON list of the registered generators.
#[pyfunction]
fn generators_json() -> PyResult<String> {
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
fn routings_json() -> PyResult<String> {
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
fn workloads_json() -> PyResult<String> {
    guard("workloads_json", || {
        let v: Vec<_> =
            sim::WORKLOADS.iter().map(|w| json!({"name": w.name, "summary": w.summary, "params": w.params})).collect();
        Ok(to_json(&v))
    })
}

/// JSON list of the registered multicast schemes.
#[pyfunction]
fn schemes_json() -> PyResult<String> {
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
fn kbinomial_optimal(n: u64, m: u32) -> PyResult<(u32, u32, u64)> {
    guard("kbinomial_optimal", || Ok(kbinomial::optimal_k(n, m.max(1))))
}

/// Lemma 4 of sivaram98: N(s, k), nodes covered in s steps by a k-binomial tree (as a string: it can exceed 64 bits).
#[pyfunction]
fn kbinomial_covered(s: u32, k: u32) -> PyResult<String> {
    guard("kbinomial_covered", || Ok(kbinomial::n_covered(s, k).to_string()))
}

/// The coll03 Table 1 / Fig. 7 experiment (`experiments::qs_table`): `preset` is `table1` or `fig7`,
/// `overrides` a JSON object of `QsTableConfig` fields replacing the preset's. Returns the JSON list of
/// rows. Releases the GIL (the trials run in parallel).
#[pyfunction]
fn qs_table_json(py: Python<'_>, preset: &str, overrides: &str) -> PyResult<String> {
    use mcastlab_core::experiments::qs_table::{qs_table, QsTableConfig};
    guard_nogil(py, "qs_table", || {
        let mut v = serde_json::to_value(qs_table_preset(preset)?).expect("json");
        let extra: serde_json::Value = serde_json::from_str(overrides)
            .map_err(|e| errors::PlanError::new_err(format!("qs-table options: {e}")))?;
        if let (Some(obj), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            for (k, x) in extra {
                obj.insert(k.clone(), x.clone());
            }
        }
        let cfg: QsTableConfig =
            serde_json::from_value(v).map_err(|e| errors::PlanError::new_err(format!("qs-table options: {e}")))?;
        qs_table(&cfg).map(|rows| to_json(&rows)).map_err(errors::plan)
    })
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
fn qs_table_config_json(preset: &str) -> PyResult<String> {
    guard("qs_table_config_json", || Ok(to_json(&qs_table_preset(preset)?)))
}

/// Parses a generator spec and returns its canonical form (all parameters spelled out).
#[pyfunction]
fn canonical_spec(spec: &str) -> PyResult<String> {
    guard("canonical_spec", || {
        let t = generators::parse_spec(spec).map_err(errors::fabric)?;
        Ok(generators::canonical_spec(&t))
    })
}

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
    m.add_class::<PyFabric>()?;
    m.add_class::<PyRouting>()?;
    m.add_function(wrap_pyfunction!(generators_json, m)?)?;
    m.add_function(wrap_pyfunction!(routings_json, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_spec, m)?)?;
    m.add_function(wrap_pyfunction!(schemes_json, m)?)?;
    m.add_function(wrap_pyfunction!(kbinomial_optimal, m)?)?;
    m.add_function(wrap_pyfunction!(kbinomial_covered, m)?)?;
    m.add_function(wrap_pyfunction!(qs_table_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::run_workload_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads::sweep_json, m)?)?;
    m.add_function(wrap_pyfunction!(workloads_json, m)?)?;
    m.add_function(wrap_pyfunction!(qs_table_config_json, m)?)?;
    m.add_class::<PyPlan>()?;
    m.add_function(wrap_pyfunction!(sim_presets_json, m)?)?;
    m.add_function(wrap_pyfunction!(sim_params_json, m)?)?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(params::param_table_json, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_tests, m)?)?;
    m.add("DEFAULT_SPEC", generators::DEFAULT_SPEC)?;
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
