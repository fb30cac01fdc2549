//! A panic in the core becomes `mcastlab.InternalError`, never pyo3's `PanicException` (a
//! `BaseException` that `except Exception` and the CLI do not catch, with no hint that it is a
//! bug to report).
//!
//! Every binding that runs core code does so inside [`guard`] (or [`guard_nogil`], which also
//! releases the GIL), and `supervise` runs its worker's code inside it too, so a worker thread
//! always ends normally and joining it never panics. A panic's message alone does not say where
//! it happened, so the panic hook installed at import records the location of the last panic for
//! the error message; it prints nothing itself unless `RUST_BACKTRACE` is set (then the default
//! report with its backtrace goes to stderr, as usual), so the CLI's error stays one line.
//!
//! `AssertUnwindSafe` is sound here because nothing a panicking call touched is used again: each
//! call's working state is its own and is dropped with the panic, and what calls share (fabrics,
//! routings, plans behind `Arc`s) is immutable.

use crate::errors;
use pyo3::prelude::*;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, Once, PoisonError};

/// The message and location of the last panic the hook saw.
static LAST_PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

/// Installs the panic hook (once per process; the module's init calls it).
pub(crate) fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let message = payload_text(info.payload());
            let location = info.location().map(ToString::to_string).unwrap_or_default();
            *LAST_PANIC.lock().unwrap_or_else(PoisonError::into_inner) = Some((message, location));
            if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
                default(info);
            }
        }));
    });
}

fn payload_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The `InternalError` for a caught panic in `what`: its message and, when the hook saw this
/// panic, where it happened.
pub(crate) fn internal_error(what: &str, payload: Box<dyn Any + Send>) -> PyErr {
    let message = payload_text(&*payload);
    let last = LAST_PANIC.lock().unwrap_or_else(PoisonError::into_inner).take();
    let text = match last {
        Some((m, location)) if m == message && !location.is_empty() => format!("{message} (at {location})"),
        _ => message,
    };
    errors::internal(what, &text)
}

/// Runs `work` (core code, GIL held), turning a panic into `InternalError`; `what` names the
/// binding for the message.
pub(crate) fn guard<T>(what: &str, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    panic::catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|p| Err(internal_error(what, p)))
}

/// [`guard`] with the GIL released while `work` runs.
pub(crate) fn guard_nogil<T: Send>(
    py: Python<'_>,
    what: &str,
    work: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    py.allow_threads(|| guard(what, work))
}
