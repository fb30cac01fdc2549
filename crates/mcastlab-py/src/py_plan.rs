//! `mcastlab._core.Plan`: a multicast plan, its checks, trees and simulation.

use crate::guard::{guard, guard_nogil};
use crate::supervise::supervise;
use mcastlab_core::fabric::Fabric;
use mcastlab_core::io;
use mcastlab_core::plan::check::{check_plan, PlanCheckOptions};
use mcastlab_core::plan::walk::Walker;
use mcastlab_core::plan::{steps::steps, Plan};
use mcastlab_core::routing::Routing;
use mcastlab_core::sim;
use pyo3::prelude::*;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::{errors, to_json};

/// Events per slice of a plan's simulation between two looks at the stop flag: the value of the
/// core's `sim::run::STOP_CHECK_EVENTS` (private there), a few milliseconds of work, so Ctrl-C or
/// a raising progress callback stops a run within that. Progress reports do not depend on it (the
/// supervisor reports every 50 ms), and a slice's own cost is a few instructions.
const SIM_SLICE: u64 = 1 << 16;

/// A multicast plan bound to its fabric and routing.
#[pyclass(name = "Plan", module = "mcastlab._core", frozen)]
pub(crate) struct PyPlan {
    pub(crate) fabric: Arc<Fabric>,
    pub(crate) routing: Arc<dyn Routing>,
    pub(crate) inner: Arc<Plan>,
}

#[pymethods]
impl PyPlan {
    fn to_json(&self) -> PyResult<String> {
        guard("Plan.to_json", || Ok(self.inner.to_json()))
    }
    /// JSON of the CheckReport (exactly-once, conformance, deadlock, steps, links, contention,
    /// concurrency, tree-creation work at `ns_per_op` host ns per operation).
    #[pyo3(signature = (max_work = None, ns_per_op = None))]
    fn check_json(&self, py: Python<'_>, max_work: Option<u64>, ns_per_op: Option<f64>) -> PyResult<String> {
        let mut opts = PlanCheckOptions::default();
        if let Some(w) = max_work {
            opts.routing.max_work = w;
        }
        if let Some(c) = ns_per_op {
            opts.ns_per_op = c;
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
    /// now_ps, False)`. `progress(events, now_ps, True)` comes once at the end. Returns
    /// `{"result": RunResult, "interrupted": bool}`. Ctrl-C, or an exception from `progress`,
    /// stops the run within a slice; the exception is raised, except Ctrl-C with `keep_partial`:
    /// then the run's results so far come back (outcome `budget`, "stopped by the caller before
    /// the end") with `interrupted` true.
    #[pyo3(signature = (preset, overrides, message_bytes, seed, progress = None, keep_partial = false))]
    #[allow(clippy::too_many_arguments)]
    fn simulate_json(
        &self,
        py: Python<'_>,
        preset: &str,
        overrides: Vec<String>,
        message_bytes: u64,
        seed: u64,
        progress: Option<PyObject>,
        keep_partial: bool,
    ) -> PyResult<String> {
        const WHAT: &str = "Plan.simulate";
        let params = guard(WHAT, || {
            let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
            sim::Params::for_routing(preset, &o, self.routing.vc_classes()).map_err(errors::sim)
        })?;
        let (mut run, done) = guard_nogil(py, WHAT, || {
            let mut run =
                sim::Simulation::new(&self.fabric, self.routing.as_ref(), &self.inner, &params, message_bytes, seed)
                    .map_err(errors::sim)?;
            let done = run.advance(SIM_SLICE);
            Ok((run, done))
        })?;
        // A Ctrl-C that stopped the run: raised, or (with `keep_partial`) noted and the partial
        // results returned.
        let stopped_by = |e: PyErr| if keep_partial { Ok(true) } else { Err(e) };
        let mut interrupted = false;
        if !done {
            if let Err(e) = py.check_signals() {
                interrupted = stopped_by(e)?;
            }
        }
        if !done && !interrupted {
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
                interrupted = stopped_by(e)?;
            }
        }
        let (events, now) = run.progress();
        if let Some(cb) = &progress {
            cb.call1(py, (events, now, true))?;
        }
        guard_nogil(py, WHAT, || Ok(json!({"result": run.results(), "interrupted": interrupted}).to_string()))
    }
    /// The same plan for one packet (carriers, triggers and switch state unchanged). Exactly-once
    /// delivery, conformance and deadlock freedom do not depend on the packet count, and checking
    /// this twin skips the per-packet step model (seconds for a message of 32,768 packets).
    fn one_packet(&self) -> PyResult<PyPlan> {
        guard("Plan.one_packet", || {
            let mut p = (*self.inner).clone();
            p.packets = 1;
            Ok(PyPlan { fabric: self.fabric.clone(), routing: self.routing.clone(), inner: Arc::new(p) })
        })
    }
    /// The packets a message of `message_bytes` splits into under a preset (plans are built for it).
    #[staticmethod]
    #[pyo3(signature = (preset, overrides, message_bytes))]
    fn packets_for(preset: &str, overrides: Vec<String>, message_bytes: u64) -> PyResult<u32> {
        guard("Plan.packets_for", || {
            let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
            let params = sim::Params::with_overrides(preset, &o).map_err(errors::sim)?;
            params.validate().map_err(errors::sim)?;
            params.check_message_bytes(message_bytes).map_err(errors::sim)?;
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
    /// Rows of the plan's multicast forwarding tables (0 for plans without hardware multicast).
    #[getter]
    fn num_mft_rows(&self) -> usize {
        self.inner.switch_state.mft.len()
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
