//! Long runs (a plan's simulation, a workload run, a sweep) execute on a worker thread without the
//! GIL while the calling thread supervises: every [`POLL`] it takes the GIL briefly, runs Python's
//! signal handlers (Ctrl-C) and reports progress to the caller's callback.
//!
//! Stopping is the point of this module. The worker is told to stop through a flag it reads
//! often: a plan run every `SIM_SLICE` events (a few milliseconds); a workload run whenever the
//! core asks its `observe`, at every measurement tick (a tenth of a batch) and when a slice of
//! the core's `STOP_CHECK_EVENTS` events runs out before the next arrival. Whenever the
//! supervisor leaves early — the callback raised (any exception, `KeyboardInterrupt` included) or
//! a signal handler did — it sets the flag *first* and only then waits for the worker, with the
//! GIL released, so the wait is until that next look at the flag and other Python threads go on. A callback's exception is then raised as
//! is (the same object); a signal is handed back with the worker's result, and the caller decides
//! (workload runs report what they measured, plan runs raise it).

use crate::guard::{guard, internal_error};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the supervisor looks at signals and reports progress.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// What a supervised run gave back.
pub(crate) struct Supervised<T> {
    /// The worker's result.
    pub value: T,
    /// The error a signal handler raised while the run went on (`KeyboardInterrupt` for Ctrl-C),
    /// after which the run was told to stop.
    pub signal: Option<PyErr>,
}

/// Runs `work` on a scoped worker thread (inside [`guard`], so a panic becomes `InternalError`
/// and the thread always ends normally) and supervises it from the calling thread: every
/// [`POLL`], runs Python's signal handlers and calls `report` with the GIL held. Sets `stop`
/// when a handler raises (the run goes on to its stop and the error comes back in
/// [`Supervised::signal`]) and when `report` fails (its error is returned once the worker has
/// stopped). `what` names the operation in an `InternalError`.
pub(crate) fn supervise<T: Send>(
    py: Python<'_>,
    what: &str,
    stop: &AtomicBool,
    work: impl FnOnce() -> PyResult<T> + Send,
    mut report: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<Supervised<T>> {
    let done = &AtomicBool::new(false);
    let caller = &std::thread::current();
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let out = guard(what, work);
            done.store(true, Ordering::Release);
            caller.unpark();
            out
        });
        let mut signal = None;
        let failed = loop {
            if wait(py, done) {
                break None;
            }
            if signal.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    signal = Some(e);
                }
            }
            if let Err(e) = guard(what, || report(py)) {
                stop.store(true, Ordering::Relaxed);
                break Some(e);
            }
        };
        // Either the worker is done, or `stop` is set and it ends within a slice.
        let value = py.allow_threads(|| worker.join()).unwrap_or_else(|p| Err(internal_error(what, p)));
        match failed {
            Some(e) => Err(e),
            None => value.map(|value| Supervised { value, signal }),
        }
    })
}

/// Waits without the GIL until `done` or for [`POLL`]; returns `done`.
fn wait(py: Python<'_>, done: &AtomicBool) -> bool {
    py.allow_threads(|| {
        let deadline = Instant::now() + POLL;
        loop {
            if done.load(Ordering::Acquire) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            std::thread::park_timeout(deadline - now);
        }
    })
}
