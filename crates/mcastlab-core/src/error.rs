//! One error enum per area. Every variant says what was wrong and where (parameter, file, line),
//! so the CLI can print one clear line and Python can raise a matching exception.

use thiserror::Error;

/// Errors of spec strings and configuration values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SpecError {
    #[error("empty spec: expected NAME or NAME:key=value,...")]
    Empty,
    #[error("unknown {kind} `{name}`; known: {known}")]
    Unknown { kind: &'static str, name: String, known: String },
    #[error("spec `{spec}`: malformed item `{item}` (expected key=value)")]
    Malformed { spec: String, item: String },
    #[error("spec `{spec}`: key `{key}` given twice")]
    Duplicate { spec: String, key: String },
    #[error("{kind} `{name}`: {message}")]
    Invalid { kind: &'static str, name: String, message: String },
}

/// Errors while building, importing or validating a fabric.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FabricError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("parameter `{param}`: {message}")]
    Param { param: &'static str, message: String },
    #[error("{file}:{line}: {message}")]
    Parse { file: String, line: usize, message: String },
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error("switch {switch} port {port}: {message}")]
    Port { switch: String, port: u16, message: String },
    /// A fabric past the size limits of `fabric::limits`, refused before it is built.
    #[error("fabric `{what}` is too large: {message}")]
    TooLarge { what: String, message: String },
    #[error("fabric is disconnected: {message}")]
    Disconnected { message: String },
    #[error("invalid fabric: {0}")]
    Invalid(String),
    #[error("unknown endpoint `{0}` (give an index 0..N-1, a name, a P(...) label or a GUID)")]
    UnknownEndpoint(String),
    #[error("unknown switch `{0}`")]
    UnknownSwitch(String),
}

/// Errors while building or using a routing.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RoutingError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("routing `{engine}` does not apply to this fabric: {reason}")]
    NotApplicable { engine: &'static str, reason: String },
    #[error("routing `{engine}` parameter `{param}`: {message}")]
    Param { engine: &'static str, param: &'static str, message: String },
    #[error("no route at switch {switch} towards {target}: {message}")]
    NoRoute { switch: String, target: String, message: String },
    #[error("route from {src} to {dst} does not terminate within {hops} hops (routing loop)")]
    Loop { src: String, dst: String, hops: usize },
    #[error(transparent)]
    Fabric(#[from] FabricError),
}

/// Errors while building, reading or checking a multicast plan.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PlanError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("invalid multicast group: {0}")]
    Group(String),
    #[error("parameter `{param}`: {message}")]
    Param { param: &'static str, message: String },
    #[error("transmission {transmission}: {message}")]
    Invalid { transmission: usize, message: String },
    #[error("scheme `{scheme}` does not apply to this fabric: {reason}; schemes that apply: {applicable}")]
    NotApplicable { scheme: String, reason: String, applicable: String },
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error(transparent)]
    Routing(#[from] RoutingError),
}

/// Errors of simulator parameters and of runs that cannot start. Every variant names the
/// parameter (`link.bandwidth`, `message_bytes`, ...) or the transmission at fault; they are all
/// raised before the first event, so a bad input never costs simulated time.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    #[error("unknown preset `{name}`; known: {known}")]
    UnknownPreset { name: String, known: String },
    #[error("unknown parameter `{key}`; known: {known}")]
    UnknownParam { key: String, known: String },
    #[error("parameter `{param}`: {message}")]
    Param { param: String, message: String },
    #[error(
        "routing `{routing}`: transmission {transmission} is a multidestination worm whose route meets the per-packet choice `{option}` at {switch}; the simulator makes that choice for unicast packets only: use the rule's deterministic form for worm plans"
    )]
    RunTimeChoice { routing: String, option: String, transmission: usize, switch: String },
    #[error("transmission {transmission} cannot be simulated: {message}")]
    Undecodable { transmission: usize, message: String },
    #[error(transparent)]
    Plan(#[from] PlanError),
}

impl SimError {
    pub fn param(param: &str, message: impl Into<String>) -> SimError {
        SimError::Param { param: param.to_string(), message: message.into() }
    }
}
