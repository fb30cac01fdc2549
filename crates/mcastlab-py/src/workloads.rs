//! Workload runs and load sweeps from Python. A run executes on a worker thread while the calling
//! thread supervises it (`supervise`): every 50 ms it reports progress to Python and checks for
//! Ctrl-C. On Ctrl-C the run is told to stop and returns the rows measured so far (outcome
//! `budget`, "stopped by the caller before the end") with `interrupted` true; when the progress
//! callback raises, the run is told to stop and the callback's exception is raised once it has.

use crate::errors;
use crate::guard::guard;
use crate::py_routing::PyRouting;
use crate::supervise::supervise;
use mcastlab_core::sim::{self, Measure, Params, Progress, Workload};
use mcastlab_core::SimError;
use pyo3::prelude::*;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

fn progress_json(p: &Progress) -> (u64, u64, u64, u64, u64) {
    (p.now_ps, p.window_end_ps, p.messages, p.finished, p.events)
}

/// The workload, parameters (with as many VCs as the routing needs, unless set) and measurement
/// settings. Measurement durations are unit strings
/// (`"50us"`), integers of picoseconds, or cycles of the run (`"30000cycles"`, one cycle = one
/// flit time under the parameters).
fn setup(
    workload: &str,
    preset: &str,
    overrides: &[String],
    measure: &str,
    vc_classes: u8,
) -> Result<(Workload, Params, Measure), SimError> {
    let w = Workload::parse(workload)?;
    let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
    let params = Params::for_routing(preset, &o, vc_classes)?;
    params.validate()?;
    let m = Measure::from_json(measure, params.flit_ps())?;
    m.validate()?;
    Ok((w, params, m))
}

/// The parsed workload spec as JSON: its traffic kind and parameters, scheme, discipline, message
/// size and injection (what a caller needs to check the plans it will build before a run).
#[pyfunction]
pub fn workload_json(workload: &str) -> PyResult<String> {
    guard("workload_json", || {
        Workload::parse(workload).map(|w| serde_json::to_string(&w).expect("json")).map_err(errors::sim)
    })
}

/// One workload run; returns `{"result": WorkloadResult, "interrupted": bool}` as JSON.
/// `progress(now_ps, window_end_ps, messages, finished, events)` is called while it runs.
#[pyfunction]
#[pyo3(signature = (routing, workload, preset, overrides, measure, seed, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn run_workload_json(
    py: Python<'_>,
    routing: PyRef<'_, PyRouting>,
    workload: &str,
    preset: &str,
    overrides: Vec<String>,
    measure: &str,
    seed: u64,
    progress: Option<PyObject>,
) -> PyResult<String> {
    const WHAT: &str = "run_workload";
    let (f, r) = routing.parts();
    let (w, params, m) =
        guard(WHAT, || setup(workload, preset, &overrides, measure, r.vc_classes()).map_err(errors::sim))?;
    let stop = AtomicBool::new(false);
    let last: Mutex<Option<Progress>> = Mutex::new(None);
    let work = || {
        sim::run_workload_with(&f, r.as_ref(), &w, &params, &m, seed, &mut |p| {
            *last.lock().unwrap_or_else(PoisonError::into_inner) = Some(*p);
            !stop.load(Ordering::Relaxed)
        })
        .map(|res| serde_json::to_value(res).expect("json"))
        .map_err(errors::sim)
    };
    let report = |py: Python<'_>| -> PyResult<()> {
        let p = *last.lock().unwrap_or_else(PoisonError::into_inner);
        match (&progress, p) {
            (Some(cb), Some(p)) => cb.call1(py, progress_json(&p)).map(|_| ()),
            _ => Ok(()),
        }
    };
    let out = supervise(py, WHAT, &stop, work, report)?;
    let interrupted = out.signal.is_some();
    Ok(json!({"result": out.value, "interrupted": interrupted}).to_string())
}

/// A sweep over `loads` (in parallel); returns `{"results": [WorkloadResult...], "interrupted": bool}`.
/// `progress(events, finished)` (events summed over the points, points finished) is called a few
/// times a second while it runs; if it returns `False` the runs stop and return what they measured
/// (`interrupted` true), as on Ctrl-C. The points run in parallel in the core's `sweep_with` (each run
/// is single-threaded and seeded, so the rows do not depend on the thread count), which says when
/// each point ends, for the progress.
#[pyfunction]
#[pyo3(signature = (routing, workload, loads, preset, overrides, measure, seed, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn sweep_json(
    py: Python<'_>,
    routing: PyRef<'_, PyRouting>,
    workload: &str,
    loads: Vec<f64>,
    preset: &str,
    overrides: Vec<String>,
    measure: &str,
    seed: u64,
    progress: Option<PyObject>,
) -> PyResult<String> {
    const WHAT: &str = "sweep";
    let (f, r) = routing.parts();
    let (w, params, m) =
        guard(WHAT, || setup(workload, preset, &overrides, measure, r.vc_classes()).map_err(errors::sim))?;
    let stop = AtomicBool::new(false);
    let events: Mutex<Vec<u64>> = Mutex::new(vec![0; loads.len()]);
    let finished = AtomicUsize::new(0);
    let work = || {
        let observe = |i: usize, p: &Progress| {
            events.lock().unwrap_or_else(PoisonError::into_inner)[i] = p.events;
            !stop.load(Ordering::Relaxed)
        };
        let done = |_: usize| {
            finished.fetch_add(1, Ordering::Relaxed);
        };
        sim::sweep_with(&f, r.as_ref(), &w, &params, &m, seed, &loads, &observe, &done)
            .map(|res| serde_json::to_value(res).expect("json"))
            .map_err(errors::sim)
    };
    // A callback that answers `False` stops the runs like Ctrl-C does (they end within a slice and
    // report what they measured), for callers whose Ctrl-C reaches another thread: the runner's
    // threads (mcastlab.runner), where raising would lose the partial results.
    let asked = AtomicBool::new(false);
    let report = |py: Python<'_>| -> PyResult<()> {
        let Some(cb) = &progress else { return Ok(()) };
        let total: u64 = events.lock().unwrap_or_else(PoisonError::into_inner).iter().sum();
        let answer = cb.call1(py, (total, finished.load(Ordering::Relaxed)))?;
        if answer.bind(py).is_instance_of::<pyo3::types::PyBool>() && !answer.extract::<bool>(py)? {
            asked.store(true, Ordering::Relaxed);
            stop.store(true, Ordering::Relaxed);
        }
        Ok(())
    };
    let out = supervise(py, WHAT, &stop, work, report)?;
    let interrupted = out.signal.is_some() || asked.load(Ordering::Relaxed);
    Ok(json!({"results": out.value, "interrupted": interrupted}).to_string())
}

/// The expected work of a run of `workload` at each of `loads` (its own load when empty), before
/// any is run: `[Estimate...]` as JSON (`span_ps`, `messages`, `flit_hops_per_message`, `events`).
#[pyfunction]
#[pyo3(signature = (routing, workload, loads, preset, overrides, measure, seed))]
#[allow(clippy::too_many_arguments)]
pub fn estimate_json(
    routing: PyRef<'_, PyRouting>,
    workload: &str,
    loads: Vec<f64>,
    preset: &str,
    overrides: Vec<String>,
    measure: &str,
    seed: u64,
) -> PyResult<String> {
    const WHAT: &str = "estimate";
    let (f, r) = routing.parts();
    guard(WHAT, || {
        let (w, params, m) = setup(workload, preset, &overrides, measure, r.vc_classes()).map_err(errors::sim)?;
        let e = sim::estimate(&f, r.as_ref(), &w, &params, &m, seed, &loads).map_err(errors::sim)?;
        Ok(serde_json::to_string(&e).expect("json"))
    })
}
