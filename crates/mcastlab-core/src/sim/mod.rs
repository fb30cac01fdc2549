//! The discrete-event simulator: timed, contended execution of a [`crate::plan::Plan`], or of a
//! [`Workload`] of many messages created over time.
//!
//! A run replays each transmission's carrier along the replication tree the plan walker decodes
//! (so every header is decoded exactly as the checker decodes it) and gives it time: host and NI
//! overheads, the I/O bus, packetization into MTU packets and flits, links with serialization
//! and propagation, input-buffered switches with per-VC FIFOs, credit-based flow control,
//! routing delay, output arbitration, wormhole, virtual cut-through and store-and-forward
//! switching, and replication with independent branches; Quadrics range multicasts take all
//! their output VCs at once, and circuits may be held until a combined acknowledgement returns
//! (coll03 §2–§3).
//!
//! Time is integer picoseconds; events are ordered by `(time, rank)`, the rank fixing the order of
//! simultaneous events from the model's state alone (`queue.rs`); one [`Simulation`] owns all its
//! state; a run is single-threaded and deterministic (no random numbers are drawn for a plan run,
//! and nothing iterates a hash map). A flit-by-flit reference model in the tests
//! (`tests/reference_model/`) checks the engine flit by flit.
//!
//! Components with small contracts, each owning its state and its own event queue; the engine
//! passes what one produces to the other, and none reaches into another:
//!
//! | folder / file | component | contract |
//! |---|---|---|
//! | `engine/` | the engine: [`Simulation`], generic over the network model | owns time, the same-instant order and message liveness; hands packets, arrivals and finished messages between components |
//! | `net/` | network models (`flit/`, `iq/`) | `net::Network`: inject a packet, handle own events, counters, diagnose a stall |
//! | `ni/` | endpoints: hosts, NIs, I/O bus, messages; NI protocols in `ni/protocol/` | start a message, take arrivals, emit packets, record finished messages |
//! | `measure/` | the meter of a workload run, and its rows | observes the simulation's counters and finished messages; never changes it |
//! | `run/` | the driver of a workload run: arrivals and ticks | [`run_workload`], [`sweep`] |
//! | `workload/` | who sends what to whom, and when: one file per traffic kind | [`Workload`], [`WORKLOADS`] |
//! | `params/` | one parameter table: presets, parsing, validation, docs | [`Params`], [`KEYS`], [`PRESETS`] |
//! | `queue.rs`, `ids.rs`, `slab.rs`, `refs.rs`, `trees.rs` | shared leaves: event queues and the same-instant order, typed ids, reusable slots, message liveness, replication trees | |
//! | `result.rs`, `units.rs` | [`RunResult`] and quantities with units | |
//!
//! `docs/architecture.md` draws the dependencies and has recipes for adding a network model, an
//! NI protocol and a metric.

mod engine;
mod ids;
pub mod measure;
mod net;
mod ni;
pub mod params;
mod queue;
mod refs;
mod result;
mod run;
mod slab;
mod trees;
pub mod units;
pub mod workload;

pub use engine::{run_plan, Simulation};
pub use measure::{DestinationRow, RunRow, SampleRow, WorkloadOutcome, WorkloadResult};
pub use ni::protocol::{ProtocolEntry, PROTOCOLS};
pub use params::{
    Ages, Allocator, Convention, Detail, Granularity, Measure, NiSend, Params, Router, Stop, Switching, KEYS,
    MEASURE_KEYS, PRESETS,
};
pub use result::{DestinationResult, Diagnosis, EndpointResult, FlitRecord, LinkResult, Outcome, RunResult};
pub use run::{estimate, run_workload, run_workload_with, sweep, sweep_with, Estimate, Progress, STOP_CHECK_EVENTS};
pub use units::{Rate, Time};
pub use workload::{Inject, Load, Process, Traffic, Workload, WORKLOADS};
