//! The one place that maps core errors to Python exceptions. Every exception derives from
//! `mcastlab.McastlabError`, so `except McastlabError` catches every user mistake — and
//! `InternalError`, a bug of ours (a panic in the core), which `guard` turns into an exception
//! instead of pyo3's `PanicException` (a `BaseException` nothing expects).

use mcastlab_core as core;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(_core, McastlabError, PyException, "Base of every mcastlab error.");
create_exception!(_core, SpecError, McastlabError, "A malformed spec string or parameter.");
create_exception!(_core, FabricError, McastlabError, "An invalid fabric, parameter or fabric file.");
create_exception!(_core, RoutingError, McastlabError, "A routing that cannot be built or used.");
create_exception!(_core, PlanError, McastlabError, "An invalid multicast group, scheme or plan.");
create_exception!(_core, SimError, McastlabError, "Impossible simulation parameters or an unrunnable plan.");
create_exception!(
    _core,
    InternalError,
    McastlabError,
    "A bug in mcastlab (the core panicked), not a mistake in the input: please report it."
);

pub fn spec(e: core::SpecError) -> PyErr {
    SpecError::new_err(e.to_string())
}

pub fn fabric(e: core::FabricError) -> PyErr {
    match e {
        core::FabricError::Spec(s) => spec(s),
        other => FabricError::new_err(other.to_string()),
    }
}

pub fn routing(e: core::RoutingError) -> PyErr {
    match e {
        core::RoutingError::Spec(s) => spec(s),
        core::RoutingError::Fabric(f) => fabric(f),
        other => RoutingError::new_err(other.to_string()),
    }
}

pub fn plan(e: core::PlanError) -> PyErr {
    match e {
        core::PlanError::Spec(s) => spec(s),
        core::PlanError::Routing(r) => routing(r),
        other => PlanError::new_err(other.to_string()),
    }
}

pub fn sim(e: core::SimError) -> PyErr {
    match e {
        core::SimError::Plan(p) => plan(p),
        other => SimError::new_err(other.to_string()),
    }
}

/// The exception for a panic in the core: `what` names the operation, `panic` is the panic's
/// message and location. Says that it is a bug and what to put in the report.
pub fn internal(what: &str, panic: &str) -> PyErr {
    InternalError::new_err(format!(
        "internal error in {what}: {panic}. This is a bug in mcastlab {}, not a mistake in your input: \
         please report it with the command or the inputs that caused it (RUST_BACKTRACE=1 adds a backtrace on stderr)",
        env!("CARGO_PKG_VERSION"),
    ))
}
