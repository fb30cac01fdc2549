//! The one place that maps core errors to Python exceptions. Every exception derives from
//! `mcastlab.McastlabError`, so `except McastlabError` catches every user mistake.

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
